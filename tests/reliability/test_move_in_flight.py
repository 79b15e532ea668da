"""A move in flight when the bot dies is answered after the restart (bot/ui/moves.py
``Moves.answer_lost_moves``, ``bot.service.InFlight``).

The real bot runs as a child process against the offline Discord (as in
tests/reliability/test_sigkill.py) and SIGKILLs itself at ``before_commit``: the move's
interaction is acknowledged ("thinking…" for a typed move, a deferred update for a pick
slower than ``ANSWER_WAIT``) and its move not committed. Started again on the same
database, the bot edits that interaction's ``@original`` with the sentence in the player's
language above the seat's panel as the game stands (its buttons work), and forgets the
row; a row whose token is too old to use is forgotten without a request.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from bot.sandbox.fakecord import EPHEMERAL, LOADING, FakeDiscord, iter_components
from engines.base import CHANCE
from engines.registry import get as get_engine
from tests.reliability.test_sigkill import (
    Child,
    Table,
    answered,
    new_game,
    offline,
    query,
    typed_move,
    wait_settled,
)

__all__ = ["offline"]  # (the fixture, shared with test_sigkill)

NOT_SAVED = {"en": "Your move was not saved (the bot restarted). Here is your panel again.",
             "ja": "手は保存されませんでした（ボットが再起動しました）。パネルをもう一度表示します。"}


class SlowChild(Child):
    """``Child`` whose moves wait ``slow`` seconds before they load (``serve --slow-moves``)."""

    def __init__(self, api: str, db: Path, log: Path, slow: float) -> None:
        super().__init__(api, db, log)
        self.slow = slow

    async def start(self, crash: str = "") -> None:
        args = [sys.executable, "-m", "bot.sandbox.serve", "--api", self.api, "--db", str(self.db),
                "--slow-moves", str(self.slow)]
        if crash:
            args += ["--crash", crash]
        with self.log.open("ab") as err:
            err.write(f"--- start {crash or 'no crash'}\n".encode())
            self.proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.DEVNULL, stderr=err)


def in_flight(db: Path) -> list[tuple[str, int]]:
    return [(r["token"], r["game"]) for r in query(db, "SELECT * FROM moves_in_flight ORDER BY interaction_id")]


def game_row(db: Path) -> sqlite3.Row:
    return query(db, "SELECT * FROM games WHERE status='active' ORDER BY id DESC LIMIT 1")[0]


def panel_actions(message: dict, game: int) -> list[tuple[int, str, str | None]]:
    """The actions of a panel ``message`` of ``game``: (version, custom_id, None) of its action
    buttons, (version, custom_id, value) of the options of its choice menu."""
    found: list[tuple[int, str, str | None]] = []
    for c in iter_components(message.get("components") or []):
        if m := re.fullmatch(rf"a:{game}:(\d+):\d+", c.get("custom_id", "")):
            found.append((int(m[1]), c["custom_id"], None))
        elif m := re.fullmatch(rf"as:{game}:(\d+):\d+", c.get("custom_id", "")):
            found += [(int(m[1]), c["custom_id"], o["value"]) for o in c["options"]]
    return found


async def press(fake: FakeDiscord, user: dict, message: dict, action: tuple[int, str, str | None]) -> str:
    """Press an action of ``panel_actions``; its interaction's token."""
    _, custom_id, value = action
    if value is None:
        return await fake.click(user, message, custom_id)
    return await fake.select(user, message, custom_id, [value])


def answers_after(fake: FakeDiscord, token: str, since: int) -> list[tuple[str, str]]:
    """(method, path) of the requests with ``token`` from request ``since`` on."""
    return [(r.method, r.path) for r in fake.requests[since:] if token in r.path]


async def a_move_from_the_answer(fake: FakeDiscord, child: Child, db: Path, user: dict, message: dict) -> None:
    """Press the first action of the panel ``message`` offered again: the move is applied."""
    game = game_row(db)
    actions = panel_actions(message, game["id"])
    assert actions and {v for v, _, _ in actions} == {game["version"]}
    await press(fake, user, message, actions[0])
    assert await wait_settled(fake, child, until=lambda: query(db, "SELECT version FROM games WHERE id=?",
                                                                (game["id"],))[0][0] > game["version"])


async def a_game_to_crash(fake: FakeDiscord, child: Child) -> tuple[Table, dict[str, Any]]:
    """A game of the owner and bob (who reads Japanese) opened through ``child``, which is then
    started again to die right before its first move's commit: the table and bob."""
    bob = await fake.add_member("bob")
    fake.user_locales[bob["id"]] = "ja"
    table = Table(fake, [fake.owner, bob])
    await child.start()
    assert await wait_settled(fake, child, identifies=1)
    assert await new_game(fake, child, table)
    await child.stop()
    await child.start(crash="before_commit:1")
    assert await wait_settled(fake, child, identifies=2)
    return table, bob


async def test_a_typed_move_lost_at_the_crash_is_answered_after_the_restart(offline, tmp_path: Path) -> None:
    fake, api = offline
    db = tmp_path / "games.db"
    child = Child(api, db, tmp_path / "bot.log")
    try:
        table, bob = await a_game_to_crash(fake, child)
        before = game_row(db)
        token = await typed_move(fake, db, table, random.Random(3))
        assert token is not None
        assert not await wait_settled(fake, child, until=lambda: False)  # (killed before the commit)
        assert in_flight(db) == [(token, before["id"])]
        assert game_row(db)["version"] == before["version"]  # (the move was not saved)
        assert fake.message_for(token)["flags"] & LOADING  # (still "thinking…")
        with sqlite3.connect(db) as raw:  # (a lost move whose token ran out: only forgotten)
            raw.execute("INSERT INTO moves_in_flight VALUES (1, ?, 'expired-token', ?, ?, ?, 'en', ?)",
                        (fake.app_id, int(bob["id"]), before["id"], before["guild_id"], time.time() - 16 * 60))
        since = len(fake.requests)
        await child.start()
        assert await wait_settled(fake, child, until=lambda: answered(fake, token) and not in_flight(db))
        assert answers_after(fake, token, since) == [("PATCH", f"/webhooks/{fake.app_id}/{token}/messages/@original")]
        _, user, _ = table.moves[-1]
        original = fake.message_for(token)
        assert original is not None and original["flags"] & EPHEMERAL
        lines = original["content"].split("\n")
        assert lines[0] == NOT_SAVED["ja" if user["id"] == bob["id"] else "en"]
        assert not any("expired-token" in r.path for r in fake.requests)
        assert in_flight(db) == []
        await a_move_from_the_answer(fake, child, db, user, original)
    finally:
        await child.stop()


async def test_a_pick_lost_at_the_crash_is_answered_in_its_panel_after_the_restart(offline, tmp_path: Path) -> None:
    """A pick slower than ``ANSWER_WAIT`` is deferred (its ``@original`` is the panel): the
    panel itself says the move was not saved and offers the decision again."""
    fake, api = offline
    db = tmp_path / "games.db"
    child = SlowChild(api, db, tmp_path / "bot.log", slow=0.8)
    try:
        table, bob = await a_game_to_crash(fake, child)
        game = game_row(db)
        engine = get_engine(game["game_id"])
        state = engine.state_from_json(json.loads(game["state"]))
        seat = min(engine.to_move(state) - {CHANCE})
        user_id = query(db, "SELECT user_id FROM seats WHERE game=? AND seat=?", (game["id"], seat))[0][0]
        user = table.user(int(user_id))
        opened = await fake.click(user, fake.messages[int(game["board_message_id"])],
                                  f"g:{game['id']}:{game['version']}:play")
        assert await wait_settled(fake, child, until=lambda: bool(fake.interactions[opened].get("followup_ids")))
        panel_id = fake.interactions[opened]["followup_ids"][-1]
        actions = panel_actions(fake.messages[panel_id], game["id"])
        pick = await press(fake, user, fake.messages[panel_id], actions[0])
        assert not await wait_settled(fake, child, until=lambda: False)  # (killed before the commit)
        assert fake.interactions[pick]["callback"]["type"] == 6  # (deferred: the panel is its @original)
        assert in_flight(db) == [(pick, game["id"])]
        since = len(fake.requests)
        await child.start()
        assert await wait_settled(fake, child, until=lambda: not in_flight(db))
        assert answers_after(fake, pick, since) == [("PATCH", f"/webhooks/{fake.app_id}/{pick}/messages/@original")]
        panel = fake.messages[panel_id]
        assert fake.message_for(pick) is panel
        assert panel["content"].split("\n")[0] == NOT_SAVED["ja" if user["id"] == bob["id"] else "en"]
        assert game_row(db)["version"] == game["version"]
        await a_move_from_the_answer(fake, child, db, user, panel)
    finally:
        await child.stop()
