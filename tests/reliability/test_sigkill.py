"""The board is never stale, even after kill -9 (trust issue, point 2; docs/DESIGN.md §4).

The real bot runs as a child process (``python -m bot.sandbox.serve``) against the
offline Discord of this test process on 127.0.0.1. Each run is started with a crash
point (``bot.service.CRASH_POINTS``: after a commit, after Discord accepted a post,
before and after a board edit, after Discord accepted a fresh board: before each move of
that run the table talks, so the board scrolls away and is posted again) and its pass
count; the bot SIGKILLs itself there. The
test plays typed moves until the process dies, starts it again on the same database
(with the next crash point: a crash may also come while it delivers what the last one
left) and, once it has delivered everything, checks from the database and from what the
offline Discord shows:

* the board message shows the stored version;
* every player the game newly waited for was pinged exactly once per decision;
* every typed move was answered (in its interaction, else in the channel);
* every move sent was applied exactly once, and the log replays to the snapshot.

A move is sent only once the bot gave its final answer to the one before (``wait_settled``
``until``), so each is chosen from the state after the last and every crash point a run
reaches comes after that move's commit: the exact count holds under load too. Each move and
each kill is written to the child's log (``bot.log``) with its time; ``diagnose`` names a move
missing from the log.

``TRIALS`` holds the runs killed per crash point.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import random
import re
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import discord.http
import pytest

from bot.sandbox.fakecord import HANG_GUARD, LOADING, FakeDiscord, iter_components
from bot.ui.presence import BOARD_SCROLL
from engines.base import CHANCE
from engines.registry import get as get_engine
from engines.registry import notation_of

SPECS = ["after_commit:1", "after_post:1", "before_board_edit:1", "after_board_edit:1",
         "after_commit:2", "after_post:2", "before_board_edit:2", "after_board_edit:2",
         "after_post:3", "after_commit:3", "after_board_post:1"]
ROUNDS = 32
"""Crash trials (runs killed at a crash point) per test run, across the points of SPECS."""
MAX_MOVES = 8
"""Moves tried per run before giving up on its crash point (counted as a failure)."""

SLOW_MOVES = 0.3
"""Seconds each move of the child waits before it loads (``serve --slow-moves``): longer than
the quiet ``wait_settled`` asks for, so the test proves it waits for each move's answer, as a
loaded machine needs (a move once went "lost" there: sent on the state before the last)."""

TRIALS: collections.Counter[str] = collections.Counter()
"""Runs killed per crash point (after_post also counts kills while delivering leftovers)."""

JSON = dict[str, Any]


class Child:
    """The bot in a child process on ``db``, started against the offline Discord at ``api``."""

    def __init__(self, api: str, db: Path, log: Path) -> None:
        self.api, self.db, self.log = api, db, log
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, crash: str = "") -> None:
        args = [sys.executable, "-m", "bot.sandbox.serve", "--api", self.api, "--db", str(self.db),
                "--slow-moves", str(SLOW_MOVES)]
        if crash:
            args += ["--crash", crash]
        with self.log.open("ab") as err:
            err.write(f"--- start {crash or 'no crash'}\n".encode())
            self.proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.DEVNULL, stderr=err)

    @property
    def dead(self) -> bool:
        return self.proc is None or self.proc.returncode is not None

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            with contextlib.suppress(ProcessLookupError):
                await asyncio.wait_for(self.proc.wait(), HANG_GUARD)


def query(db: Path, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    """Read the child's database (WAL: readers never block the writer)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    con.row_factory = sqlite3.Row
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


async def wait_settled(fake: FakeDiscord, child: Child, *, identifies: int | None = None,
                       until: Callable[[], bool] | None = None) -> bool:
    """Wait until the child died (False) or is connected, has done what was asked of it
    (``until()``: e.g. the final answer to a typed move), has answered every interaction it
    still may (``FakeDiscord.awaiting_ack``), has delivered its whole outbox and made no
    request for a moment (True).

    ``until`` matters: between its first answer to a move (the defer) and the move's commit
    the bot makes no request and its outbox is empty, so without it a loaded bot looked
    settled there, and the next move was chosen from the state before (then refused as
    stale, or sent into a process about to be killed: the move "lost" under load)."""
    guard = time.monotonic() + HANG_GUARD
    quiet_since, seen = time.monotonic(), len(fake.requests)
    while time.monotonic() < guard:
        await asyncio.sleep(0.02)
        if child.proc is not None and child.proc.returncode is not None:
            await child.proc.wait()
            return False
        if len(fake.requests) != seen:
            quiet_since, seen = time.monotonic(), len(fake.requests)
            continue
        if identifies is not None and len(fake.identifies) < identifies:
            continue
        if until is not None and not until():
            continue
        await fake.caught_up()  # (the events sent to it are read: their handlers have begun)
        if fake.awaiting_ack() or fake.in_flight:  # (a loaded bot may not have made a request for a new click yet)
            continue
        if time.monotonic() - quiet_since < 0.25 or len(fake.requests) != seen:
            continue
        if not query(child.db, "SELECT 1 FROM outbox WHERE done_at IS NULL LIMIT 1"):
            return True
    raise TimeoutError(f"the bot never settled; see {child.log}")


class Table:
    """The players and the moves the test sent."""

    def __init__(self, fake: FakeDiscord, players: list[JSON]) -> None:
        self.fake, self.players = fake, players
        self.moves: list[tuple[str, JSON, str]] = []  # (token, user, text)
        self.sent: list[dict[str, Any]] = []  # (diagnostics) per move: game, version, run, time
        self.run = ""

    def user(self, user_id: int) -> JSON:
        return next(p for p in self.players if p["id"] == str(user_id))


def replay(game: sqlite3.Row, entries: list[sqlite3.Row]
           ) -> tuple[Any, list[tuple[int, int, frozenset[int], frozenset[int]]]]:
    """(final state, [(version before, version after, seats newly waited for, seats that
    moved and are waited for again)] per commit)."""
    engine = get_engine(game["game_id"])
    options = json.loads(game["options"])
    state: Any = None
    commits: list[tuple[int, int, frozenset[int], frozenset[int]]] = []
    before = frozenset[int]()
    movers: set[int] = set()
    start_of_commit: int | None = None

    def waiting() -> frozenset[int]:
        if state is None or engine.outcome(state) is not None:
            return frozenset()
        return frozenset(engine.to_move(state)) - {CHANCE}

    def close(upto: int) -> None:
        if start_of_commit is not None:
            commits.append((start_of_commit, upto, waiting() - before, waiting() & before & movers))

    last = 0
    for e in entries:
        action = json.loads(e["action"])
        opens = (e["kind"] == "system" and action.get("type") == "start") or \
            (e["kind"] == "player" and e["user_id"] is not None)
        if opens:
            close(last)
            before = waiting() if state is not None else frozenset()
            start_of_commit = e["seq"] - 1
            movers = set()
        if e["kind"] == "player" and e["user_id"] is not None:
            movers.add(e["seat"])
        if e["kind"] == "system" and action.get("type") == "start":
            state = engine.new_game(int(action["players"]), game["seed"], options)
        elif e["kind"] in ("player", "chance"):
            state, _ = engine.apply(state, CHANCE if e["kind"] == "chance" else e["seat"], action)
        last = e["seq"]
    close(last)
    return state, commits


def check(fake: FakeDiscord, db: Path, table: Table) -> None:
    """The promises of the outbox, for every started game of ``db``."""
    games = query(db, "SELECT * FROM games WHERE state IS NOT NULL")
    assert games
    played = collections.Counter()
    for game in games:
        seats = {r["seat"]: int(r["user_id"]) for r in query(db, "SELECT * FROM seats WHERE game=?", (game["id"],))}
        entries = query(db, "SELECT * FROM actions WHERE game=? ORDER BY seq", (game["id"],))
        engine = get_engine(game["game_id"])
        state, commits = replay(game, entries)
        # the log replays to the snapshot: nothing lost, nothing applied twice
        assert engine.state_to_json(state) == json.loads(game["state"])
        assert game["version"] == entries[-1]["seq"]
        played.update(int(e["user_id"]) for e in entries if e["kind"] == "player" and e["user_id"] is not None)
        # the board shows the stored version
        board = fake.messages[int(game["board_message_id"])]
        versions = {int(m[1]) for c in iter_components(board["components"])
                    if (m := re.fullmatch(r"g:\d+:(\d+):\w+", c.get("custom_id", "")))}
        assert versions == {game["version"]}, (game["id"], versions, game["version"])
        # each player the game newly waits for is pinged exactly once per decision
        home = game["thread_id"] or game["channel_id"]
        pings: collections.Counter[tuple[int, frozenset[int]]] = collections.Counter()
        for m in fake.channel_messages(home, ephemeral=False):
            buttons = [c.get("custom_id", "") for c in iter_components(m.get("components") or [])]
            play = [b for b in buttons if re.fullmatch(rf"g:{game['id']}:\d+:play", b)]
            if play and not m["embeds"]:
                mentioned = frozenset(int(u) for u in re.findall(r"<@(\d+)>", m["content"]))
                pings[(int(play[0].split(":")[2]), mentioned)] += 1
        # (a ping sent after a restart also mentions the movers waited for again: their
        # panel may never have been shown; bot/ui/outbox_drain.py ``_deliver_ping``)
        # (only movers waited for again: a ping only when the row outlived a restart)
        expected = {after: (frozenset(seats[s] for s in fresh), frozenset(seats[s] for s in fresh | again))
                    for _, after, fresh, again in commits if fresh}
        optional = {after: frozenset(seats[s] for s in again) for _, after, fresh, again in commits
                    if again and not fresh}
        assert len(expected) <= sum(pings.values()) <= len(expected) + len(optional), (game["id"], pings, expected)
        for (version, who), count in pings.items():
            assert count == 1, (game["id"], pings)
            assert (version in expected and who in expected[version]) or optional.get(version) == who, \
                (game["id"], pings, expected, optional)
        assert expected.keys() <= {version for version, _ in pings}, (game["id"], pings, expected)
    # every move sent was applied once, and answered
    sent = collections.Counter(int(user["id"]) for _, user, _ in table.moves)
    assert played == sent, (played, sent, diagnose(fake, db, table))
    channel_answers = [m["content"] for m in fake.messages.values() if "✓ your move" in m["content"]]
    for token, user, text in table.moves:
        original = fake.message_for(token)
        answered = original is not None and not original["flags"] & LOADING and original["content"].startswith("✓")
        fallback = f"<@{user['id']}> ✓ your move `{text}` was applied." in channel_answers
        assert answered or fallback, (token, text, original, [r.path for r in fake.requests if token in r.path])


def diagnose(fake: FakeDiscord, db: Path, table: Table) -> list[JSON]:
    """(diagnostics) The moves sent that no log entry applied: game, version when sent, run
    (crash point), and what Discord saw of the interaction (ack delay, expired)."""
    lost = []
    for i, move in enumerate(table.sent):
        later = [m["version"] for m in table.sent[i + 1:] if m["game"] == move["game"]]
        upto = later[0] if later else 10**9
        entries = query(db, "SELECT seq FROM actions WHERE game=? AND kind='player' AND user_id=? AND seq>? AND seq<=?",
                        (move["game"], int(move["user"]), move["version"], upto))
        if not entries:
            it = fake.interactions[move["token"]]
            lost.append({**move, "acked_after": it["acked_at"] and it["acked_at"] - it["created"],
                         "expired": it.get("expired"), "callback": it["callback"],
                         "requests": [r.path for r in fake.requests if move["token"] in r.path]})
    return lost


def answered(fake: FakeDiscord, token: str) -> bool:
    """Whether interaction ``token`` has its final answer: the "thinking" message replaced
    (by the ✓ of the move, or a refusal: ``check`` tells them apart)."""
    original = fake.message_for(token)
    return original is not None and not original["flags"] & LOADING


async def typed_move(fake: FakeDiscord, db: Path, table: Table, rng: random.Random) -> str | None:
    """Send one legal typed move of a waiting player of a running game; its interaction
    token, or None when no game is running."""
    games = query(db, "SELECT * FROM games WHERE status='active' ORDER BY id DESC LIMIT 1")
    if not games:
        return None
    game = games[0]
    # (chosen from the state after every move sent before: each move committed before its crash point)
    assert all(m["version"] < game["version"] for m in table.sent if m["game"] == game["id"]), \
        (game["id"], game["version"], table.sent[-1:])
    engine = get_engine(game["game_id"])
    state = engine.state_from_json(json.loads(game["state"]))
    seats = {r["seat"]: int(r["user_id"]) for r in query(db, "SELECT * FROM seats WHERE game=?", (game["id"],))}
    seat = rng.choice(sorted(engine.to_move(state) - {CHANCE}))
    text = notation_of(engine).describe_action(state, rng.choice(list(engine.legal_actions(state, seat))))
    user = table.user(seats[seat])
    token = await fake.slash(user, game["game_id"], "play", action=text, game=game["id"])
    with (db.parent / "bot.log").open("a") as out:  # (beside the child's lines: which move came when)
        out.write(f"--- {time.strftime('%H:%M:%S')} move {text!r} of {user['username']} on game {game['id']} "
                  f"v{game['version']} ({token[:12]})\n")
    table.moves.append((token, user, text))
    table.sent.append({"token": token, "game": game["id"], "version": game["version"], "run": table.run,
                       "user": user["id"], "text": text, "at": fake.now()})
    return token


async def new_game(fake: FakeDiscord, child: Child, table: Table) -> bool:
    """A two-player Carnival through the lobby: /game new, Join, Start; False when the
    bot died on the way (a crash point on the start's commit or deliveries)."""
    alice, bob = table.players[:2]
    token = await fake.slash(alice, "game", "new", game="carnival")
    assert await wait_settled(fake, child, until=lambda: answered(fake, token))  # (no crash point before a start)
    lobby = fake.message_for(token)
    assert lobby is not None
    game = int(re.search(r"#(\d+)", lobby["embeds"][0]["title"])[1])  # type: ignore[index]
    await fake.click(bob, fake.messages[int(lobby["id"])], f"l:{game}:join")
    assert await wait_settled(fake, child, until=lambda: len(query(child.db, "SELECT 1 FROM seats WHERE game=?",
                                                                     (game,))) == 2)
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:start")
    return await wait_settled(fake, child, until=lambda: bool(query(
        child.db, "SELECT 1 FROM games WHERE id=? AND status != 'lobby'", (game,))))


async def scroll_board(fake: FakeDiscord, child: Child) -> bool:
    """The table talks in the newest game's thread: its board scrolls away, so the next
    board update posts a fresh one (``after_board_post``). False when the bot died meanwhile."""
    game = query(child.db, "SELECT * FROM games WHERE state IS NOT NULL ORDER BY id DESC LIMIT 1")[0]
    for i in range(BOARD_SCROLL):
        await fake.say(fake.owner, f"chat {i}", channel=game["thread_id"] or game["channel_id"])
    return await wait_settled(fake, child)


@pytest.fixture
async def offline() -> AsyncIterator[tuple[FakeDiscord, str]]:
    async with FakeDiscord(owner_name="alice", log_names=()) as fake:
        yield fake, discord.http.Route.BASE.removesuffix("/api/v10")


async def test_sigkill_at_every_crash_point_leaves_nothing_stale(offline: tuple[FakeDiscord, str],
                                                                tmp_path: Path) -> None:
    fake, api = offline
    table = Table(fake, [fake.owner, await fake.add_member("bob")])
    child = Child(api, tmp_path / "games.db", tmp_path / "bot.log")
    rng = random.Random(9)
    failures: collections.Counter[str] = collections.Counter()
    try:
        await child.start()
        assert await wait_settled(fake, child, identifies=1)
        assert await new_game(fake, child, table)
        check(fake, child.db, table)
        await child.stop()
        for round_ in range(ROUNDS):
            spec = SPECS[round_ % len(SPECS)]
            table.run = f"{round_}:{spec}"
            await child.start(spec)
            identifies = len(fake.identifies) + 1
            if not await wait_settled(fake, child, identifies=identifies):
                TRIALS[f"{spec.split(':')[0]} (while delivering leftovers)"] += 1
                assert child.proc is not None and child.proc.returncode == -9
                continue
            check(fake, child.db, table)
            for _ in range(MAX_MOVES):
                if spec.startswith("after_board_post") and not await scroll_board(fake, child):
                    break
                token = await typed_move(fake, child.db, table, rng)
                if token is None:
                    if not await new_game(fake, child, table):
                        break
                    continue
                if not await wait_settled(fake, child, until=functools.partial(answered, fake, token)):
                    break
            if child.dead:
                assert child.proc is not None and child.proc.returncode == -9, child.log.read_text()[-3000:]
                TRIALS[spec.split(":")[0]] += 1
            else:
                failures[spec] += 1  # the point was never reached
                await child.stop()
        await child.start()
        assert await wait_settled(fake, child, identifies=len(fake.identifies) + 1)
        check(fake, child.db, table)
    finally:
        await child.stop()
    acks = sorted(it["acked_at"] - it["created"] for it in fake.interactions.values() if it["acked_at"] is not None)
    print(f"\nSIGKILL trials per crash point: {dict(TRIALS)}; points never reached: {dict(failures)}; "
          f"slowest first answers (s): {[round(a, 2) for a in acks[-5:]]}")
    assert not failures
    assert sum(TRIALS.values()) == ROUNDS
    assert fake.nonce_hits > 0  # some message was re-sent after a kill and Discord dropped the repeat
    assert not fake.violations, fake.violations
