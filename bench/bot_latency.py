"""Bot latency bench: scripted Carnival of Sins games through the offline Discord.

Usage: ``python -m bench.bot_latency [--games 1,50] [--moves N] [--seed S] [--views K]``

For each concurrency level in ``--games`` a fresh :class:`bot.sandbox.fakecord.FakeDiscord` and a real
:class:`bot.app.GameBot` on a temporary database are started; that many Carnival games are opened, joined
and started (3 fresh members each), then all of them play ``--moves`` decisions at once
(``asyncio.gather``), each through the Play ▶ button and the private panel, like people click. Printed:

* time to acknowledge: interaction created → first callback (``fake.interactions[t]["created"]`` →
  ``["acked_at"]``), for every Play / navigation / pick click of the measured phase;
* panel shown: Play ▶ click → the follow-up that replaces the "thinking…" message with the private panel;
* time to board update: a pick click → the PATCH of that game's board message carrying the new image
  (``Req.at`` of the fake);
* render + encode time of the board, measured inside the bot while it runs (worker threads, under load);
* event-loop lag (a 10 ms sleeper's overshoot) and the wait for the repository's connection lock;
* render + encode time per board, alone and single-threaded: the final public views of the benched games,
  and per registered game id public views taken from random playouts.

The fake Discord runs in the same process and event loop as the bot, so its own work (multipart
parsing, payload checks) is part of every figure, as network time would be in production.
This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import logging
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bot.app import GameBot
from bot.sandbox.fakecord import LOADING, FakeDiscord, Req, iter_components
from bot.settings import Settings
from bot.text import Texts
from bot.ui.panels import offered_choices
from engines.base import CHANCE
from engines.registry import ENGINES
from render import registry as renders

log = logging.getLogger("bench.bot_latency")

GAME_ID = "carnival"
PLAYERS = 3
DEFAULT_MOVES = 6
"""Decisions per game: one Carnival round of 3 players is 3 picks + about 3 reveal choices."""
WAIT = 120.0
"""Longest wait (real seconds) for any single answer before the game is given up."""

JSONDict = dict[str, Any]


# --------------------------------------------------------------------------- statistics


def pct(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) with linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def ms(value: float) -> str:
    return "—" if value != value else f"{value * 1000:.0f}"


def med_p95(values: Sequence[float], width: int = 6) -> str:
    return f"{ms(statistics.median(values) if values else float('nan')):>{width}} / {ms(pct(values, 0.95)):>{width}}"


# --------------------------------------------------------------------------- instrumentation


@dataclass
class Probe:
    """What one run collects."""

    ack: dict[str, list[float]] = field(default_factory=lambda: {"play": [], "nav": [], "pick": []})
    panel: list[float] = field(default_factory=list)
    board: list[float] = field(default_factory=list)
    render: list[float] = field(default_factory=list)
    encode: list[float] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)
    lock_wait: list[float] = field(default_factory=list)
    lock_hold: list[float] = field(default_factory=list)
    moves: int = 0
    failures: list[str] = field(default_factory=list)


@contextlib.contextmanager
def timed_renders(probe: Probe) -> Iterator[None]:
    """Time ``render.registry.board_image`` and the ``encode`` that follows it in the same worker thread
    (the delivery layer looks both up at call time, so replacing the module attributes is enough)."""
    board_image, encode = renders.board_image, renders.encode
    local = threading.local()

    def timed_board(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return board_image(*args, **kwargs)
        finally:
            probe.render.append(time.perf_counter() - t)
            local.board = True

    def timed_encode(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return encode(*args, **kwargs)
        finally:
            if getattr(local, "board", False):
                probe.encode.append(time.perf_counter() - t)
                local.board = False

    renders.board_image, renders.encode = timed_board, timed_encode
    try:
        yield
    finally:
        renders.board_image, renders.encode = board_image, encode


class TimedLock(asyncio.Lock):
    """The repository's connection lock, recording how long callers wait for it and hold it."""

    def __init__(self, probe: Probe) -> None:
        super().__init__()
        self.probe = probe
        self._since = 0.0

    async def acquire(self) -> Literal[True]:
        t = time.perf_counter()
        got = await super().acquire()
        self._since = time.perf_counter()
        self.probe.lock_wait.append(self._since - t)
        return got

    def release(self) -> None:
        self.probe.lock_hold.append(time.perf_counter() - self._since)
        super().release()


async def loop_lag(probe: Probe, period: float = 0.01) -> None:
    """Record how late a ``period`` sleep wakes up: time the event loop was busy elsewhere."""
    while True:
        t = time.perf_counter()
        await asyncio.sleep(period)
        probe.lag.append(max(0.0, time.perf_counter() - t - period))


# --------------------------------------------------------------------------- one game


async def _direct(coro: Coroutine[Any, Any, Any]) -> Any:
    return await coro


class Table:
    """One game and its three players, driven without waiting for the whole bot to go idle (so that
    many tables play at once): every step waits only for its own answer."""

    def __init__(self, fake: FakeDiscord, bot: GameBot, users: list[JSONDict], rng: random.Random,
                 probe: Probe, game_id: str = GAME_ID) -> None:
        self.fake, self.bot, self.users, self.rng, self.probe = fake, bot, users, rng, probe
        self.game_id = game_id
        self.game = 0
        self.on_bot: Callable[[Coroutine[Any, Any, Any]], Awaitable[Any]] = _direct
        """Awaits a coroutine of the bot's (its service) from the players' loop (bench.load: ``Bridge``)."""

    async def until(self, pred: Callable[[], Any], what: str, period: float = 0.005) -> Any:
        deadline = time.monotonic() + WAIT
        while not (res := pred()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"game #{self.game}: {what}")
            await asyncio.sleep(period)
        return res

    async def until_async(self, pred: Callable[[], Any], what: str, period: float = 0.02) -> Any:
        deadline = time.monotonic() + WAIT
        while not (res := await pred()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"game #{self.game}: {what}")
            await asyncio.sleep(period)
        return res

    def acked(self, token: str) -> bool:
        return self.fake.interactions[token]["acked_at"] is not None

    def ack_time(self, token: str) -> float:
        it = self.fake.interactions[token]
        return float(it["acked_at"] - it["created"])

    async def redrawn(self, token: str, mark: int, what: str) -> None:
        """Wait until a button's message shows the result: the UPDATE_MESSAGE answer (7), or after a
        deferred answer (6) the edit of ``@original`` (looked for among the requests from ``mark`` on)."""
        await self.until(functools.partial(self.acked, token), what)
        if self.fake.interactions[token]["callback"].get("type") != 7:
            await self.until(self.first_request(mark, "PATCH", f"/webhooks/{self.fake.app_id}/{token}/messages/"
                                                               "@original"), f"{what} redraw")

    # ------------------------------------------------------------------ setup (not measured)
    async def start(self) -> None:
        fake, host = self.fake, self.users[0]
        token = await fake.slash(host, "game", "new", game=self.game_id)
        await self.until(lambda: fake.message_for(token), "lobby message")
        lobby = fake.message_for(token)
        assert lobby is not None
        self.game = int(re.search(r"#(\d+)", lobby["embeds"][0]["title"])[1])  # type: ignore[index]
        service = self.bot.service

        async def lobby_stored() -> bool:
            return (await self.on_bot(service.get(self.game))).lobby_message_id is not None

        await self.until_async(lobby_stored, "lobby pointer")
        for user in self.users[1:]:
            mark = len(fake.requests)
            t = await fake.click(user, fake.messages[int(lobby["id"])], f"l:{self.game}:join")
            await self.redrawn(t, mark, "join")
        await fake.click(host, fake.messages[int(lobby["id"])], f"l:{self.game}:start")

        async def board_posted() -> bool:
            record = await self.on_bot(service.get(self.game))
            return record.status == "active" and record.board_message_id in fake.messages

        await self.until_async(board_posted, "first board")

    # ------------------------------------------------------------------ measured moves
    async def play(self, moves: int) -> None:
        for _ in range(moves):
            if not await self.move():
                return

    async def move(self) -> bool:
        """One decision by a waiting player: Play ▶, the panel, (a group,) a pick; then wait for the
        board edit that shows it. False when the game is over."""
        fake, service = self.fake, self.bot.service
        record = await service.get(self.game)
        if record.status != "active":
            return False
        engine = service.engine(record)
        seats = sorted(engine.to_move(service.state(record)) - {CHANCE})
        user_id = str(record.user_of(self.rng.choice(seats)))
        user = next(u for u in self.users if u["id"] == user_id)
        board_channel, board_id = record.board_channel_id, record.board_message_id
        assert board_channel is not None and board_id is not None  # (a started game has a board)
        board = fake.messages[board_id]
        panel, ack, shown = await self.open_panel(user, board)
        self.probe.ack["play"].append(ack)
        self.probe.panel.append(shown)
        for _ in range(5):
            panel = fake.messages[int(panel["id"])]
            options = choices(panel)
            if not options:
                raise AssertionError(f"game #{self.game}: panel without actions: {panel['content'][:200]}")
            actions = [o for o in options if o[0] != "group"]
            if not actions:  # two-step menu: open a group, the panel is redrawn in place
                self.probe.ack["nav"].append(await self.open_group(user, panel, options))
                continue
            kind, cid, value = self.rng.choice(actions)
            mark = len(fake.requests)
            if kind == "select":
                t = await fake.select(user, panel, cid, [str(value)])
            else:
                t = await fake.click(user, panel, cid)
            clicked = fake.interactions[t]["created"]
            patch = await self.until(self.board_request(mark, board_channel, board_id), "board update")
            self.probe.board.append(patch.at - clicked)
            await self.until(functools.partial(self.acked, t), "pick")
            self.probe.ack["pick"].append(self.ack_time(t))
            self.probe.moves += 1
            return True
        raise AssertionError(f"game #{self.game}: panel never offered an action")


    async def open_panel(self, user: JSONDict, board: JSONDict) -> tuple[JSONDict, float, float]:
        """Press Play ▶ on the board message as ``user`` and wait for the private panel.

        Returns:
            (the panel message, seconds to acknowledge, seconds until the panel was shown).
        """
        fake = self.fake
        play = next(c["custom_id"] for c in iter_components(board["components"])
                    if c.get("custom_id", "").endswith(":play"))
        mark = len(fake.requests)
        token = await fake.click(user, board, play)

        def panel_ready() -> JSONDict | None:
            # (Play ▶ is answered by a deferred update and the panel sent as a follow-up; an answer
            # that is itself the panel, "thinking…" replaced, counts too)
            it = fake.interactions[token]
            followups = it.get("followup_ids") or []
            m = fake.messages.get(followups[0]) if followups else fake.message_for(token)
            if m is None or m["flags"] & LOADING or int(m["id"]) == int(board["id"]):
                return None
            return m

        panel = await self.until(panel_ready, "panel")
        shown = self.first_request(mark, "POST", f"/webhooks/{fake.app_id}/{token}")()
        assert shown is not None
        return panel, self.ack_time(token), shown.at - fake.interactions[token]["created"]

    async def open_group(self, user: JSONDict, panel: JSONDict, options: list[tuple[str, str, str | None]]) -> float:
        """Take a random step of a multi-step decision (``options`` are all groups) and wait for the panel's
        redraw; returns the seconds to acknowledge."""
        fake = self.fake
        _, cid, value = self.rng.choice(options)
        mark = len(fake.requests)
        t = await fake.select(user, panel, cid, [value]) if value is not None else await fake.click(user, panel, cid)
        await self.redrawn(t, mark, "group")
        return self.ack_time(t)

    def board_request(self, start: int, channel: int | str, board_id: int | str) -> Callable[[], Req | None]:
        """A predicate finding the first edit with an image of board message ``board_id`` among the
        requests from index ``start`` on: with the bot token, or through the token of a Play ▶
        pressed on it (``@original``, bot/ui/tokens.py)."""
        return scanner(self.fake, start,
                       lambda r: bool(r.files) and edits_board(self.fake, r, channel, board_id, self.game))

    def first_request(self, start: int, method: str, path: str, files: bool = False) -> Callable[[], Req | None]:
        """A predicate finding the first ``method`` request to ``path`` (with a file if ``files``) among the
        requests from index ``start`` on."""
        return scanner(self.fake, start, lambda r: r.method == method and r.path == path and bool(r.files or not files))


def scanner(fake: FakeDiscord, start: int, match: Callable[[Req], bool]) -> Callable[[], Req | None]:
    """A predicate returning the first request the bot made, from index ``start`` of
    ``fake.requests`` on, that ``match`` accepts (None until there is one); each call reads on
    from where the last one stopped."""
    pos = start

    def scan() -> Req | None:
        nonlocal pos
        reqs = fake.requests
        while pos < len(reqs):
            r = reqs[pos]
            pos += 1
            if match(r):
                return r
        return None

    return scan


def edits_board(fake: FakeDiscord, r: Req, channel: int | str, board_id: int | str, game: int) -> bool:
    """Whether request ``r`` (with files) updates board message ``board_id`` of game ``game`` in
    ``channel``: a bot-token PATCH of it, a webhook PATCH of ``@original`` with the token of an
    interaction on it (the board edit through Play ▶, bot/ui/tokens.py), or a new board posted
    in its place (a board scrolled away is posted again, ``Boards.repost_board``: a post with
    the game's Rules button, which a board carries and a ping does not, the final board too;
    the caller then follows ``reposted_board``)."""
    if r.path == f"/channels/{channel}/messages/{board_id}":
        return True
    if r.method == "POST" and r.path == f"/channels/{channel}/messages":
        return any(_is_rules(c, game) for c in iter_components((r.json or {}).get("components") or []))
    parts = r.path.split("/")  # /webhooks/{app}/{token}/messages/@original
    if len(parts) != 6 or parts[1] != "webhooks" or parts[5] != "@original":
        return False
    it = fake.interactions.get(parts[3])
    return it is not None and it["response_message_id"] == int(board_id)


def reposted_board(fake: FakeDiscord, channel: int | str, game: int) -> int | None:
    """The id of the newest message in ``channel`` with game ``game``'s Rules button and an image
    (its board after a repost), or None."""
    for mid in sorted(fake.messages, reverse=True):
        m = fake.messages[mid]
        if str(m["channel_id"]) == str(channel) and m.get("attachments") and any(
                _is_rules(c, game) for c in iter_components(m.get("components") or [])):
            return int(mid)
    return None


def _is_rules(component: JSONDict, game: int) -> bool:
    """Whether ``component`` is game ``game``'s Rules button (``g:{game}:{version}:rules``): on its
    board, running or over, and on no ping."""
    cid = str(component.get("custom_id", ""))
    return cid.startswith(f"g:{game}:") and cid.endswith(":rules")


def choices(panel: JSONDict) -> list[tuple[str, str, str | None]]:
    """(kind, custom_id, value) of every action in a panel (``bot.ui.panels.offered_choices``)."""
    return offered_choices(panel.get("components") or [])


# --------------------------------------------------------------------------- one run


@dataclass
class Run:
    games: int
    moves: int
    probe: Probe
    setup_s: float
    play_s: float
    errors: list[str]
    violations: list[str]
    unacked: int
    final_views: list[tuple[JSONDict, list[str]]]
    load: tuple[float, float] = (0.0, 0.0)
    """1-minute load average of the machine before and after (other processes skew every figure)."""


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord, db: Path, **settings: Any) -> AsyncIterator[GameBot]:
    """A bot on ``db`` started against ``fake`` (``settings``: more ``Settings`` fields)."""
    conf = Settings(database_path=str(db), token="offline", tick_seconds=3600, **settings)
    bot = GameBot(conf, clock=fake.now)
    await fake.start_bot(bot)
    try:
        yield bot
    finally:
        if not bot.is_closed():
            await fake.stop_bot(bot)


async def run(games: int, moves: int, seed: int) -> Run:
    probe = Probe()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as tmp:
        async with FakeDiscord(owner_name="alice", real_time=True) as fake, running_bot(fake, Path(tmp) / "games.db") as bot:
            users = [[await fake.add_member(f"p{g}-{k}") for k in range(PLAYERS)] for g in range(games)]
            tables = [Table(fake, bot, users[g], random.Random(seed * 1000 + g), probe) for g in range(games)]
            t0 = time.perf_counter()
            await asyncio.gather(*(t.start() for t in tables))
            await bot.flow.wait_idle()  # the start notices are out: the measured phase starts clean
            await fake.idle(0.05, timeout=WAIT)
            setup_s = time.perf_counter() - t0

            bot.repo._lock = TimedLock(probe)  # instrumentation only: same lock semantics
            lagger = asyncio.create_task(loop_lag(probe), name="bench-loop-lag")
            t1 = time.perf_counter()
            with timed_renders(probe):
                results = await asyncio.gather(*(t.play(moves) for t in tables), return_exceptions=True)
                play_s = time.perf_counter() - t1
                await bot.flow.wait_idle()
                await fake.idle(0.05, timeout=WAIT)
            lagger.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await lagger
            probe.failures += [f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)]

            final_views = []
            for t in tables:
                record = await bot.service.get(t.game)
                engine = bot.service.engine(record)
                final_views.append((engine.player_view(bot.service.state(record), None), record.names))
            errors = [r.getMessage() for r in fake.errors.records]
            return Run(games, moves, probe, setup_s, play_s, errors, list(fake.violations), len(fake.unacked()),
                       final_views, (load_before, os.getloadavg()[0]))


# --------------------------------------------------------------------------- render alone


def render_times(game_id: str, views: Sequence[tuple[JSONDict, list[str]]]) -> list[float]:
    """Seconds of ``board_image`` + ``encode`` per view, one after the other in this thread."""
    out = []
    for view, names in views:
        t = time.perf_counter()
        renders.encode(renders.board_image(game_id, view, names, Texts(game_id, names)))
        out.append(time.perf_counter() - t)
    return out


def random_step(engine: Any, state: Any, rng: random.Random) -> Any:
    """``state`` after one random move: chance's sample, or a random legal action of a random seat to move."""
    to_move = engine.to_move(state)
    if CHANCE in to_move:
        seat, action = CHANCE, engine.sample_chance(state, rng)
    else:
        seat = rng.choice(sorted(to_move))
        action = rng.choice(list(engine.legal_actions(state, seat)))
    return engine.apply(state, seat, action)[0]


def playout_views(game_id: str, count: int, seed: int) -> list[tuple[JSONDict, list[str]]]:
    """``count`` public views spread over random playouts (random legal actions, 3 players if allowed)."""
    engine = ENGINES[game_id]
    players = max(engine.info.min_players, min(3, engine.info.max_players))
    names = [f"Player {k + 1}" for k in range(players)]
    rng = random.Random(seed)
    views: list[tuple[JSONDict, list[str]]] = []
    game = 0
    while len(views) < count and game < 20:
        state = engine.new_game(players, seed + game)
        game += 1
        states = [state]
        for _ in range(3000):
            if engine.outcome(state) is not None:
                break
            state = random_step(engine, state, rng)
            states.append(state)
        need = count - len(views)
        step = max(1, len(states) // min(need, len(states)))
        views += [(engine.player_view(s, None), names) for s in states[::step][:need]]
    return views


# --------------------------------------------------------------------------- report


def report_runs(runs: list[Run]) -> None:
    print("\nLatency by concurrency (ms: median / p95; Carnival of Sins, 3 players per game)")
    head = (f"{'games':>5} {'moves':>5} {'acknowledge':>15} {'panel shown':>15} {'board update':>15} "
            f"{'render+enc in bot':>17} {'loop lag':>15} {'db lock wait':>15} {'play s':>7} {'moves/s':>7}")
    print(head)
    print("-" * len(head))
    for r in runs:
        p = r.probe
        acks = [x for v in p.ack.values() for x in v]
        in_bot = [a + b for a, b in zip(p.render, p.encode, strict=False)]
        print(f"{r.games:>5} {p.moves:>5} {med_p95(acks):>15} {med_p95(p.panel):>15} {med_p95(p.board):>15} {med_p95(in_bot):>17} {med_p95(p.lag):>15} "
              f"{med_p95(p.lock_wait):>15} {r.play_s:>7.1f} {p.moves / r.play_s:>7.1f}")
    print()
    for r in runs:
        p = r.probe
        acks = [x for v in p.ack.values() for x in v]
        late = sum(1 for a in acks if a > 3.0)
        kinds = "; ".join(f"{k} {med_p95(v, 0)} / {ms(max(v))} (n={len(v)})" for k, v in p.ack.items() if v)
        busy = sum(p.lock_hold) / r.play_s if r.play_s else float("nan")
        print(f"  {r.games} game(s), {p.moves} moves in {r.play_s:.1f} s (setup {r.setup_s:.1f} s; "
              f"load average {r.load[0]:.1f} → {r.load[1]:.1f} on {os.cpu_count()} CPUs)")
        print(f"    acks: {len(acks)}, {late} over 3 s; by kind, median / p95 / max ms: {kinds}")
        print(f"    board update max {ms(max(p.board, default=float('nan')))} ms; in the bot, board_image "
              f"{med_p95(p.render, 0)} ms and encode {med_p95(p.encode, 0)} ms (median / p95)")
        print(f"    event-loop lag max {ms(max(p.lag, default=float('nan')))} ms; repository lock: "
              f"{len(p.lock_wait) / max(p.moves, 1):.1f} takes per move, busy {busy:.0%} of the time, "
              f"hold {med_p95(p.lock_hold, 0)} ms, wait max {ms(max(p.lock_wait, default=float('nan')))} ms")
        if r.moves * r.games != p.moves:
            print(f"    note: {p.moves} of {r.moves * r.games} moves made (games that ended stop early)")
        for f in p.failures:
            print(f"    FAILURE: {f}")
        if r.errors or r.violations or r.unacked:
            print(f"    errors logged: {len(r.errors)}, violations: {len(r.violations)}, unanswered: {r.unacked}")
            for line in (r.errors + r.violations)[:5]:
                print(f"      {line[:200]}")


def report_renders(runs: list[Run], views: int, seed: int) -> None:
    print("\nBoard render + encode alone (ms, one at a time in one thread: median / p95)")
    head = f"{'views of':<34} {'n':>4} {'render+encode':>15} {'PNG KiB (med)':>14}"
    print(head)
    print("-" * len(head))
    for r in runs:
        if r.final_views:
            times = render_times(GAME_ID, r.final_views)
            size = statistics.median(len(renders.encode(renders.board_image(GAME_ID, v, n, Texts(GAME_ID, n)))[0])
                                     for v, n in r.final_views[:5])
            print(f"{f'{GAME_ID}: the {r.games} benched game(s)':<34} {len(times):>4} {med_p95(times):>15} "
                  f"{size / 1024:>14.0f}")
    for game_id in ENGINES:
        try:
            renders.module(game_id)
        except ModuleNotFoundError:
            print(f"{game_id + ': no renderer':<34}")
            continue
        sample = playout_views(game_id, views, seed)
        times = render_times(game_id, sample)
        size = statistics.median(len(renders.encode(renders.board_image(game_id, v, n, Texts(game_id, n)))[0]) for v, n in sample[:5])
        print(f"{f'{game_id}: random playouts':<34} {len(times):>4} {med_p95(times):>15} {size / 1024:>14.0f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="1,50", help="comma-separated concurrency levels (default 1,50)")
    parser.add_argument("--moves", type=int, default=DEFAULT_MOVES,
                        help=f"decisions per game (default {DEFAULT_MOVES}: about one round)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--views", type=int, default=20, help="random-playout views rendered per game id")
    args = parser.parse_args(argv)
    levels = [int(x) for x in args.games.split(",") if x.strip()]
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    runs = []
    for n in levels:
        t = time.perf_counter()
        print(f"running {n} concurrent game(s), {args.moves} moves each…", flush=True)
        runs.append(asyncio.run(run(n, args.moves, args.seed)))
        print(f"  done in {time.perf_counter() - t:.1f} s", flush=True)
    report_runs(runs)
    report_renders(runs, args.views, args.seed)
    bad = any(r.probe.failures or r.errors or r.violations or r.unacked for r in runs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
