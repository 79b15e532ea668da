"""A test driver that plays games through the offline Discord the way people do:
slash commands, clicks on lobby and board buttons, picks in private panels."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.storage import GameRecord
from bot.ui.panels import offered_choices
from engines.base import CHANCE, Action, Engine

JSONDict = dict[str, Any]


class Driver:
    """Drives ``bot`` through ``fake``; ``users`` are fake member payloads by name."""

    def __init__(self, fake: FakeDiscord, bot: GameBot) -> None:
        self.fake = fake
        self.bot = bot

    async def settle(self) -> None:
        """Wait until the bot has answered everything and every board edit is out."""
        await self.fake.idle(0.02)
        await self.bot.flow.wait_idle()
        while updating := self.bot.delivery.boards.updating():  # (a board drawn slowly sends nothing meanwhile)
            await asyncio.wait(updating)
            await self.bot.flow.wait_idle()
        await self.fake.idle(0.02)

    async def delivered(self, rounds: int = 10) -> None:
        """``settle``, and also wait for the retries of deliveries that failed (e.g. a 429
        that outlasted discord.py's own retries), at most ``rounds`` times."""
        for _ in range(rounds):
            await self.settle()
            retries = self.bot.outbox.retrying()
            if not retries:
                return
            await asyncio.wait(retries)
        raise AssertionError(f"deliveries still failing after {rounds} retries")

    # ------------------------------------------------------------------ lobby
    async def open_lobby(self, host: JSONDict, game_id: str, **options: Any) -> tuple[int, JSONDict]:
        """``/game new``; returns (game number, lobby message)."""
        token = await self.fake.slash(host, "game", "new", game=game_id, **options)
        await self.settle()
        message = self.fake.message_for(token)
        assert message is not None, self.fake.interactions[token].get("callback")
        game = int(re.search(r"#(\d+)", message["embeds"][0]["title"])[1])  # type: ignore[index]
        return game, message

    async def start_game(self, game_id: str, users: list[JSONDict], **options: Any) -> int:
        """Open a lobby as ``users[0]``, let the others join, press Start; returns the game number."""
        game, lobby = await self.open_lobby(users[0], game_id, **options)
        for user in users[1:]:
            await self.fake.click(user, self.fake.messages[int(lobby["id"])], f"l:{game}:join")
            await self.settle()
        await self.fake.click(users[0], self.fake.messages[int(lobby["id"])], f"l:{game}:start")
        await self.settle()
        record = await self.record(game)
        assert record.status == "active", record.status
        return game

    # ------------------------------------------------------------------ inspection
    async def record(self, game: int) -> GameRecord:
        return await self.bot.service.get(game)

    async def board(self, game: int) -> JSONDict:
        """The board message as players see it now."""
        record = await self.record(game)
        assert record.board_message_id is not None
        return self.fake.messages[record.board_message_id]

    async def waiting_users(self, game: int) -> list[JSONDict]:
        """Members the game waits for (read from the engine, to pick who acts)."""
        record = await self.record(game)
        engine = self.bot.service.engine(record)
        seats = sorted(engine.to_move(self.bot.service.state(record)) - {CHANCE})
        ids = [str(record.user_of(s)) for s in seats]
        return [m for i in ids for m in self.fake.members if m["id"] == i]

    async def final_message(self, game: int) -> JSONDict:
        """The game's one public end-of-game message (the 🏁 ranking)."""
        record = await self.record(game)
        ends = [m for m in self.fake.channel_messages(record.home_channel_id, ephemeral=False)
                if m["content"].startswith("🏁")]
        assert len(ends) == 1, ends
        return ends[0]

    def newest_ephemeral(self, user: JSONDict, after: int = 0) -> JSONDict | None:
        """The newest ephemeral message only ``user`` can see, with an id above ``after``."""
        found = [m for mid, m in self.fake.messages.items()
                 if mid > after and m["flags"] & 64 and self.fake.ephemeral_owner(m) == user["id"]]
        return found[-1] if found else None

    def private_to(self, user: JSONDict, after: int = 0) -> list[str]:
        """The contents of the ephemeral messages only ``user`` can see with an id above
        ``after``, oldest first."""
        return [m["content"] for mid, m in sorted(self.fake.messages.items())
                if mid > after and m["flags"] & 64 and self.fake.ephemeral_owner(m) == user["id"]]

    async def log_lines(self, user: JSONDict, game: int) -> list[str]:
        """The lines ``/game log`` shows ``user`` of ``game``."""
        mark = max(self.fake.messages)
        await self.fake.slash(user, "game", "log", game=game)
        await self.settle()
        return "\n".join(self.private_to(user, mark)).splitlines()

    def public_messages(self) -> list[JSONDict]:
        """Every non-ephemeral message in guild channels and threads."""
        out = []
        for cid in list(self.fake.channels):
            ch = self.fake.channels[cid]
            if ch.get("type") in (0, 11):
                out += self.fake.channel_messages(cid, ephemeral=False)
        return out

    # ------------------------------------------------------------------ playing
    async def open_panel(self, user: JSONDict, game: int) -> JSONDict:
        """Press Play ▶ on the board; returns the private panel message."""
        board = await self.board(game)
        play = next(c["custom_id"] for c in iter_components(board["components"])
                    if c.get("custom_id", "").endswith(":play"))
        last = max(self.fake.messages) if self.fake.messages else 0
        await self.fake.click(user, board, play)
        await self.settle()
        panel = self.newest_ephemeral(user, after=last)
        assert panel is not None, "no panel arrived"
        return panel

    def choices(self, panel: JSONDict) -> list[tuple[str, str, str | None]]:
        """(kind, custom_id, value) of every action in a panel (``bot.ui.panels.offered_choices``)."""
        return offered_choices(panel.get("components") or [])

    async def pick(self, user: JSONDict, panel: JSONDict, choice: tuple[str, str, str | None]) -> str:
        """Press a button or pick a select value in ``panel``; returns the token."""
        kind, cid, value = choice
        panel = self.fake.messages[int(panel["id"])]
        if value is not None:  # an action or a step offered in a select
            token = await self.fake.select(user, panel, cid, [str(value)])
        else:
            token = await self.fake.click(user, panel, cid)
        await self.settle()
        return token

    async def decide(self, user: JSONDict, panel: JSONDict, rng: random.Random) -> None:
        """Make one decision in ``panel`` at random: pick an action, or step into a group and
        pick in its step two (shown in place), at most five steps deep.

        Raises:
            AssertionError: the panel offered no action within five steps."""
        for _ in range(5):
            options = self.choices(self.fake.messages[int(panel["id"])])
            actions = [o for o in options if o[0] != "group"]
            await self.pick(user, panel, rng.choice(actions or options))
            if actions:
                return
        raise AssertionError("panel never offered an action")

    async def play_once(self, game: int, rng: random.Random) -> None:
        """One decision by one waiting player, chosen at random, through the panel."""
        users = await self.waiting_users(game)
        user = rng.choice(users)
        panel = await self.open_panel(user, game)
        for _ in range(5):
            options = self.choices(self.fake.messages[int(panel["id"])])
            assert options, self.fake.messages[int(panel["id"])]["content"]
            actions = [o for o in options if o[0] != "group"]
            if actions:
                await self.pick(user, panel, rng.choice(actions))
                return
            await self.pick(user, panel, rng.choice(options))  # a group: step two follows in place
        raise AssertionError("panel never offered an action")

    async def random_moves(self, game: int, rng: random.Random, limit: int) -> AsyncIterator[
            tuple[GameRecord, GameRecord, int]]:
        """Play up to ``limit`` random decisions (``play_once``) while the game runs, each
        delivered; yields (record before, record after, the newest message id before it)."""
        for _ in range(limit):
            before = await self.record(game)
            if before.status != "active":
                return
            mark = max(self.fake.messages)
            await self.play_once(game, rng)
            await self.delivered()
            yield before, await self.record(game), mark

    async def play_to_end(self, game: int, rng: random.Random, max_steps: int = 2000) -> GameRecord:
        """Random decisions by clicks until the game is over."""
        for _ in range(max_steps):
            record = await self.record(game)
            if record.status != "active":
                return record
            await self.play_once(game, rng)
        raise AssertionError("game did not end")


def rig_chance(monkeypatch: pytest.MonkeyPatch, engine: Engine) -> Callable[..., None]:
    """Patch ``engine.sample_chance`` so that the outcomes given to the returned
    ``add(action, ...)`` are drawn, each as soon as it is legal (in list order);
    every other chance step stays random. The log still replays exactly."""
    wanted: list[Action] = []
    original = engine.sample_chance

    def sample(state: JSONDict, rng: random.Random) -> Action:
        legal = engine.legal_actions(state, CHANCE)
        for i, action in enumerate(wanted):
            if action in legal:
                return wanted.pop(i)
        return original(state, rng)

    monkeypatch.setattr(engine, "sample_chance", sample)

    def add(*actions: Action) -> None:
        wanted.extend(actions)

    return add
