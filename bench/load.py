"""Open-loop load bench: what players feel when moves arrive at a set rate.

Usage: ``python -m bench.load --game <game_id>|all [--rates 4,6,8,10,15,20,30,45,60,80] [--step 8]
[--tables 40] [--render-views 6] [--no-render] [--render-workers 2]
[--bot-in process|thread] [--players-nice 10] [--advance N] [--compare PATH]``

For every game a fresh :class:`bot.sandbox.fakecord.FakeDiscord` and a real
:class:`bot.app.GameBot` on a temporary database are started and ``--tables`` games are opened, joined
and started (not measured). The bot runs in a child process of its own (``BotChild``: this tree's bench
code on the code of the tree under test, so ``--compare`` works); the fake Discord and the players stay
in this process, on its event loop. The bot reaches the fake only over loopback HTTP and the gateway
websocket, as it reaches Discord; what the bench learns from inside the bot (every ``service.start`` and
``service.act`` result, a game's board message, ``bot.flow.wait_idle()``, whether discord.py's handler
tasks still run, the errors it logged) comes over a socket pair as JSON lines. So the fake and the
players neither share the bot's interpreter lock nor are billed to it. (``--bot-in thread`` is the
former one-process bench: the bot on the main thread, the fake and the players on a ``PlayersThread``
peeking through ``Bridge``. The two threads then share one interpreter lock: at 30 moves/s the bot's
~23 ms and the players' ~8 ms per move want about all of it, and latency explodes, a bench artefact:
the real Discord is not in the bot's interpreter. In a process of their own, the fake and the players
still take 7-9 ms of CPU per move from the same two cores, in parallel with the bot and its render
workers now: on a machine loaded by other work that competition, not the lock, can limit the rate;
bench/results/load_2026-12-02c_thread_vs_process.txt has both modes back to back. So by default this
process runs ``--players-nice`` (10) steps nicer than the bot it starts (``players_aside``; the bot's
child takes the bench's first niceness back, which needs the privilege to: without it both run at one
priority and the report says so): the bot and its workers get the cores first, as they would with the
real Discord on other machines; the fake's CPU is still spent on the same two cores.) Then, for each rate of ``--rates`` (moves per
second, rising), moves arrive for ``--step`` seconds as a Poisson stream spread over the tables (open
loop: an arrival does not wait for the previous answers; it goes to a random table that is not in the
middle of a move, or waits in a queue when every table is busy). A move is what a player does: Play ▶ on
the board, the private panel, every step of a multi-step decision (``bot.ui.panels.offered_choices``),
the pick. Measured per move:

* acknowledgement: every click's interaction created → first callback;
* panel shown: Play ▶ → the follow-up that replaces "thinking…" with the panel;
* board delivered: the pick → the edit of the board message that shows the new version, waited for
  only when the public view changed (``ActResult.public_changed``, seen by wrapping ``service.act``);
* CPU ms per move: the bot's CPU time over the step, divided by the moves made: the bot's process and
  its child processes (the render and AI workers, printed as "workers"), from ``/proc/<pid>/stat``
  (bench/trees.py ``TreeCpu``); this process's (the fake Discord and the players) is printed apart as
  "not billed: players" (with ``--bot-in thread``: this process's CPU less the players' thread's
  ``time.thread_time``, which is the figure printed apart);
* queue wait: arrival → the move's first click (non-zero only when every table was busy).

A rate passes when p95 board delivery ≤ ``BOARD_P95`` s, no acknowledgement exceeds ``ACK_MAX`` s, at least
90 % of the arrivals were played within the step (plus a drain of ``DRAIN`` s) and p95 queue wait ≤ ``BOARD_P95``
(a longer wait means the tables, not the bot, limited the rate: raise ``--tables``).
The capacity is the highest passing rate; the ladder stops at the first failure.

The render table (``--render-views``) draws random-playout boards of every game and reports render and
encode time and bytes (two trees' drawing and encoding side by side: ``python -m bench.render --moves N
--before TREE``). This is a script, not a test.

Where a move's CPU goes (``python -m bench.profile --game carnival --rate 3 --step 12``: py-spy samples of
every thread of one process, render in threads, 24 tables; shares of sampled thread time × CPU ms per move).
Before is e540f55, after the host-side work on CPU per move (one parse per snapshot version, fewer database
trips: about 26 → 17 per move in bench.hops, the undo check once per version, cheaper shuffles in it),
measured one after the other with this tree's bench (bench/trees.py); machine shared, load average 10.5
before and 10.1 after, so ms are inflated alike and drawing/encoding (not changed here) show the noise:

=================================  ===========  ==========
subsystem                          before (ms)  after (ms)
=================================  ===========  ==========
PNG encoding (quantize, zlib)             22.5        18.0
drawing (render/, PIL)                    11.4         9.5
storage (aiosqlite thread, hops)           9.9         9.5
asyncio loop, threads, stdlib              8.9         9.3
discord.py (HTTP client, aiohttp)          5.1         6.6
engine (views, undo check)                 4.9         2.9
fake Discord (aiohttp server)              2.9         1.5
bot ui + service + text                    1.4         1.6
bench                                      0.1         0.4
total CPU ms per move                     67.0        59.2
=================================  ===========  ==========

The bot's own process as bench.load billed it then (render workers 2, the players on a thread of the
bot's process; CPU less the workers' and the players' thread, ms per move at 4 moves/s, ``--compare``, 24 tables, load average 7.7
to 11.7): carnival 28.3 before, 22.1 and 22.3 after; ora 28.8 before, 18.6 and 20.2 after; eguan 43.9
before, 35.6 after. (Capacity could not be read on that machine: at that load even 4 moves/s failed
some steps, the render workers' 25-40 ms per move on two shared cores being the limit.)

"storage" and "asyncio" are over-estimated: py-spy counts a thread that waits for the interpreter lock
as running (aiosqlite's thread waiting in ``queue.get`` is 2/3 of "storage"). bench.profile and bench.hops
run the fake Discord and the players in the bot's thread (one process, one loop: ``Bridge()``; the
profile's table has a "fake Discord" row); this bench bills them apart (about 6-9 ms per move at
4 moves/s, measured as the players' thread when the bench ran the bot in a thread).

``--compare PATH`` measures two source trees side by side in one run: for every game, the code of
``PATH`` (a ``git worktree`` of the commit before, e.g. ``git worktree add ../before 7167f20``) and then
this tree's, each in a child process running this very script, and this tree's whole ``bench`` package,
on that tree's ``bot``, ``engines`` and ``render`` (bench/trees.py), with
the render options of ``after`` (both trees' defaults); the table's columns are then ``before`` (PATH) and
``after`` (this tree). ``--render-workers`` sets ``Settings.render_workers`` where the code has it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import importlib
import itertools
import json
import logging
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import discord.http

from bench import trees
from bench.bot_latency import (
    Probe,
    Table,
    choices,
    edits_board,
    ms,
    pct,
    playout_views,
    reposted_board,
    running_bot,
    scanner,
)
from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, Req, iter_components
from bot.service import ActResult
from bot.settings import Settings
from bot.text import Texts
from engines.registry import ENGINES
from render import registry as renders

log = logging.getLogger("bench.load")

BOARD_P95 = 0.4
"""Capacity criterion: p95 of board delivery, seconds."""
ACK_MAX = 1.0
"""Capacity criterion: the slowest acknowledgement, seconds."""
DRAIN = 10.0
"""Seconds after a step's last arrival that moves still in flight may take to finish."""
WAIT = 30.0
"""Longest wait for one answer before the move is counted as failed."""
JSONDict = dict[str, Any]
T = TypeVar("T")


def players_for(game_id: str) -> int:
    """Seats per benched game: 3 where the game allows it, else its nearest count."""
    info = ENGINES[game_id].info
    return max(info.min_players, min(3, info.max_players))


# --------------------------------------------------------------------------- what the bot did


class Bridge:
    """The bot's event loop seen from the players' (the fake Discord's and the bench's): ``await
    bridge(coro)`` runs ``coro`` on the bot's loop and waits for it on the caller's; ``notify(fn, *args)``
    calls ``fn`` on the players' loop, from either. With one loop for both (``Bridge()``, as bench.hops and
    bench.profile run) both are a plain await and call."""

    def __init__(self, bot_loop: asyncio.AbstractEventLoop | None = None,
                 players_loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.bot_loop, self.players_loop = bot_loop, players_loop

    @property
    def apart(self) -> bool:
        """Whether the players run on a loop (and thread) of their own."""
        return self.players_loop is not None and self.players_loop is not self.bot_loop

    async def __call__(self, coro: Coroutine[Any, Any, T]) -> T:
        if not self.apart or asyncio.get_running_loop() is self.bot_loop:
            return await coro
        assert self.bot_loop is not None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.bot_loop))

    def notify(self, fn: Callable[..., None], *args: Any) -> None:
        if not self.apart:
            fn(*args)
        else:
            assert self.players_loop is not None
            self.players_loop.call_soon_threadsafe(fn, *args)


class PlayersThread:
    """A thread with an event loop of its own for the fake Discord and the bench's players (``with
    PlayersThread() as side: await side.run(coro)``), so that their CPU (``cpu_s``, this thread's
    ``time.thread_time``) is not billed to the bot, whose loop stays in the calling thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="bench-players", daemon=True)

    def __enter__(self) -> PlayersThread:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """``coro`` run on this thread's loop, awaited from the caller's."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))


class Mirror:
    """The last ``ActResult`` of every game, seen by wrapping the service's ``start`` and ``act`` (the bench
    learns who is to move and whether the public view changed without reading the database). Its fields
    are the players' (``bridge.notify``). With ``bot`` None (the bot in a child process, ``BotChild``) the
    results come from the child instead, each an ``Outcome`` passed to ``note``."""

    def __init__(self, bot: GameBot | None, bridge: Bridge | None = None) -> None:
        self.results: dict[int, ActResult | Outcome] = {}
        self.count: dict[int, int] = {}
        self.changed: dict[int, asyncio.Event] = {}
        self.bridge = bridge or Bridge()
        if bot is not None:
            on_results(bot, lambda result: self.bridge.notify(self.note, result))

    def note(self, result: ActResult | Outcome) -> None:
        """Record ``result``, the latest of its game, and wake that game's waiters."""
        game = result.game.id
        self.results[game] = result
        self.count[game] = self.count.get(game, 0) + 1
        self.event(game).set()

    def event(self, game: int) -> asyncio.Event:
        return self.changed.setdefault(game, asyncio.Event())

    def waiting(self, game: int) -> list[int]:
        result = self.results.get(game)
        if result is None or result.outcome is not None or result.game.status != "active":
            return []
        return sorted(result.waiting_after)


def on_results(bot: GameBot, seen: Callable[[ActResult], None]) -> None:
    """Have ``bot.service``'s ``start`` and ``act`` pass every result to ``seen`` before they return it."""
    service = bot.service

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            result = await method(*args, **kwargs)
            seen(result)
            return result
        return wrapped

    for name in ("start", "act"):
        setattr(service, name, wrap(getattr(service, name)))


class Pulse:
    """Wakes the bench's waiters whenever the fake Discord has answered a request (its ``route`` is
    wrapped), so a wait re-checks its condition when something changed instead of polling every 5 ms
    (a poll's CPU grew with the latency measured: about 1 ms per move at 10/s with boards late by 3 s)."""

    @staticmethod
    def of(fake: FakeDiscord) -> Pulse:
        """The pulse of ``fake`` (made on first use)."""
        pulse: Pulse | None = getattr(fake, "_bench_pulse", None)
        if pulse is None:
            pulse = Pulse(fake)
            fake._bench_pulse = pulse  # type: ignore[attr-defined]
        return pulse

    def __init__(self, fake: FakeDiscord) -> None:
        self._event = asyncio.Event()
        route = fake.route

        @functools.wraps(route)
        async def routed(*args: Any, **kwargs: Any) -> Any:
            try:
                return await route(*args, **kwargs)
            finally:
                self.fire()

        fake.route = routed  # type: ignore[method-assign]

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def until(self, pred: Callable[[], Any], what: str) -> Any:
        """``pred()`` once it is truthy, re-checked after every answered request; TimeoutError after
        ``WAIT`` seconds."""
        deadline = time.monotonic() + WAIT
        while not (res := pred()):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(what)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(left, 0.5)):  # (a change without a request: re-check now and then)
                    await self._event.wait()
        return res


# --------------------------------------------------------------------------- the bot in a child process


@dataclass(frozen=True)
class Record:
    """What the bench reads of a ``GameRecord`` of the bot in the child process (``BotChild.get``)."""

    id: int
    version: int
    status: str
    board_message_id: int | None
    lobby_message_id: int | None
    users: dict[int, int]
    """Seat → user id."""

    def user_of(self, seat: int) -> int | None:
        return self.users.get(seat)

    @staticmethod
    def of(game: Any) -> JSONDict:
        """``game`` (a ``GameRecord``, in the child) as the JSON the parent reads back with ``Record.load``."""
        return {"id": game.id, "version": game.version, "status": game.status,
                "board_message_id": game.board_message_id, "lobby_message_id": game.lobby_message_id,
                "users": {str(s.seat): s.user_id for s in game.seats}}

    @staticmethod
    def load(data: JSONDict) -> Record:
        return Record(**{**data, "users": {int(k): v for k, v in data["users"].items()}})


@dataclass(frozen=True)
class Outcome:
    """What the bench reads of an ``ActResult`` of the bot in the child process (``Mirror.note``)."""

    game: Record
    outcome: str | None
    """The game's result (its ``repr``) when the move ended it, else None."""
    waiting_after: frozenset[int]
    public_changed: bool

    @staticmethod
    def of(result: ActResult) -> JSONDict:
        """``result`` (in the child) as the JSON the parent reads back with ``Outcome.load``."""
        return {"game": Record.of(result.game), "outcome": None if result.outcome is None else repr(result.outcome),
                "waiting_after": sorted(result.waiting_after), "public_changed": bool(result.public_changed)}

    @staticmethod
    def load(data: JSONDict) -> Outcome:
        return Outcome(Record.load(data["game"]), data["outcome"], frozenset(data["waiting_after"]),
                       data["public_changed"])


class BotChild:
    """The bot under test in a child process of its own, seen from the bench's (``async with BotChild(fake,
    mirror, db, label, settings) as bot``): the bot reaches ``fake`` only over loopback HTTP and the
    gateway websocket, as it would reach Discord, so the fake and the players (this process) do not share
    its interpreter lock. The child runs this tree's bench on the code of the tree this process's ``bot``
    comes from (``trees.code_root``: another one under ``--compare``) and speaks JSON lines over a socket
    pair: it sends every ``service.start``/``service.act`` result (``{"result": Outcome.of(...)}``, fed to
    ``mirror.note``) and answers requests ``{"id": n, "op": ...}`` with ``{"id": n, "ok": value}`` or
    ``{"id": n, "error": text}``: ``get`` (a game's ``Record``), ``wait_idle`` (``bot.flow.wait_idle``),
    ``handlers`` (how many of discord.py's handler tasks run), ``errors`` (the ERROR log lines of the bot
    and discord.py), ``stop``. For the bench's code written against a ``GameBot`` (``Table.start``) it is
    its own ``service`` (``get``) and ``flow`` (``wait_idle``).

    Raises RuntimeError when the child exits before it is ready or a request fails in it, TimeoutError
    when it is not ready within 60 s."""

    def __init__(self, fake: FakeDiscord, mirror: Mirror, db: Path, label: str, settings: JSONDict) -> None:
        self.fake, self.mirror = fake, mirror
        port = urllib.parse.urlsplit(discord.http.Route.BASE).port  # (the open fake's: FakeDiscord.__aenter__)
        self.config = {"port": port, "db": str(db), "label": label, "settings": settings}
        self.service = self.flow = self
        self.pid = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def __aenter__(self) -> BotChild:
        ours, theirs = socket.socketpair()
        root = trees.code_root()
        code = trees.boot_code(root, "from bench.load import bot_child; bot_child()")
        self.config["fd"] = theirs.fileno()
        self._proc = subprocess.Popen([sys.executable, "-c", code, json.dumps(self.config)], cwd=root,
                                      env=trees.tree_env(root), pass_fds=[theirs.fileno()], stdout=2,  # (stdout: ours is a report)
                                      preexec_fn=_bot_priority)
        theirs.close()
        self._reader, self._writer = await asyncio.open_unix_connection(sock=ours, limit=1 << 26)
        self._reading = asyncio.create_task(self._read(), name="bench-bot-child")
        try:
            self.pid = await asyncio.wait_for(asyncio.shield(self._ready), 60)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        proc = self._proc
        assert proc is not None
        if proc.poll() is None and not self._reading.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.call("stop"), 15)
        try:
            await asyncio.to_thread(proc.wait, 15)
        except subprocess.TimeoutExpired:
            proc.kill()
            await asyncio.to_thread(proc.wait)
        self._writer.close()
        self._reading.cancel()
        with contextlib.suppress(BaseException):
            await self._reading

    async def _read(self) -> None:
        """Feed the child's lines to ``mirror`` and to the waiting requests, until it closes."""
        try:
            while line := await self._reader.readline():
                msg = json.loads(line)
                if "result" in msg:
                    self.mirror.note(Outcome.load(msg["result"]))
                elif "ready" in msg:
                    self._ready.set_result(msg["ready"])
                elif (fut := self._pending.pop(msg["id"], None)) is not None and not fut.done():
                    if "error" in msg:
                        fut.set_exception(RuntimeError(f"in the bot's process: {msg['error']}"))
                    else:
                        fut.set_result(msg["ok"])
        finally:
            gone = RuntimeError(f"the bot's process closed its channel (exit code {self._proc and self._proc.poll()})")
            for fut in [self._ready, *self._pending.values()]:
                if not fut.done():
                    fut.set_exception(gone)
            self._pending.clear()

    async def call(self, op: str, **args: Any) -> Any:
        """The child's answer to request ``op`` with ``args``; RuntimeError when it failed there or the
        child has closed its channel."""
        if self._reading.done():
            raise RuntimeError(f"the bot's process is gone (exit code {self._proc and self._proc.poll()})")
        n = next(self._ids)
        fut = self._pending[n] = asyncio.get_running_loop().create_future()
        self._writer.write(json.dumps({"id": n, "op": op, **args}).encode() + b"\n")
        return await fut

    async def get(self, game: int) -> Record:
        """``bot.service.get(game)``, the fields of ``Record``."""
        return Record.load(await self.call("get", game=game))

    async def wait_idle(self) -> None:
        """``bot.flow.wait_idle()`` in the child."""
        await self.call("wait_idle")

    async def idle(self, quiet: float, timeout: float) -> None:
        """``FakeDiscord.idle`` across the two processes: no request to the fake for ``quiet`` seconds and
        none of discord.py's handler tasks running in the child; TimeoutError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            n = len(self.fake.requests)
            await asyncio.sleep(quiet)
            if len(self.fake.requests) == n and not await self.call("handlers"):
                return
        raise TimeoutError("bot never went idle")

    async def errors(self) -> list[str]:
        """The ERROR log lines of the bot and discord.py in the child so far."""
        return list(await self.call("errors"))


def error_line(record: logging.LogRecord) -> str:
    """A logged error as the bench prints it: its message and the exception's type and text."""
    return record.getMessage() + (f" ({record.exc_info[0].__name__}: {record.exc_info[1]})"
                                  if record.exc_info and record.exc_info[0] else "")


def bot_child() -> None:
    """The child process of ``BotChild``: ``sys.argv[1]`` is its JSON configuration (``port`` of the fake,
    ``db``, ``label``, ``settings``: more ``Settings`` fields, ``fd``: its end of the socket pair)."""
    config = json.loads(sys.argv[1])
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s (bot process): %(message)s")
    tune = getattr(importlib.import_module("bot.app"), "tune_gc", None)  # (as ``python -m bot`` runs; not in older trees)
    if tune is not None:
        tune()
    asyncio.run(serve_bot(config, socket.socket(fileno=int(config["fd"]))))


async def serve_bot(config: JSONDict, sock: socket.socket) -> None:
    """Run the bot against the fake Discord at ``config["port"]`` (as ``FakeDiscord.__aenter__`` and
    ``start_bot`` would in one process) and answer ``BotChild``'s requests over ``sock`` until ``stop``."""
    import discord.gateway
    import yarl

    from bot import logsafe
    from bot.sandbox import fakecord

    discord.http.Route.BASE = f"http://127.0.0.1:{config['port']}{fakecord.API}"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{config['port']}/gateway")
    errors = fakecord.ErrorCollector()
    for name in ("discord", "bot", "cogs"):
        logging.getLogger(name).addHandler(errors)
    logsafe.install([errors, *logging.getLogger().handlers], secrets=[fakecord.BOT_TOKEN])
    reader, writer = await asyncio.open_unix_connection(sock=sock, limit=1 << 26)

    def send(msg: JSONDict) -> None:
        writer.write(json.dumps(msg).encode() + b"\n")

    bot = GameBot(Settings(database_path=config["db"], token="offline", tick_seconds=3600, **config["settings"]))
    on_results(bot, lambda result: send({"result": Outcome.of(result)}))
    shell = fakecord.FakeDiscord(owner_name="alice")  # (not served: its start_bot and stop_bot, on Route.BASE)
    await shell.start_bot(bot)
    send({"ready": os.getpid()})
    stopped = asyncio.Event()

    async def answer(msg: JSONDict) -> None:
        op = msg["op"]
        try:
            if op == "get":
                value: Any = Record.of(await bot.service.get(msg["game"]))
            elif op == "wait_idle":
                await bot.flow.wait_idle()
                value = None
            elif op == "handlers":
                value = len(fakecord.FakeDiscord.handlers_running())
            elif op == "errors":
                value = [error_line(r) for r in errors.records]
            elif op == "stop":
                await shell.stop_bot(bot)
                stopped.set()
                value = None
            else:
                raise ValueError(f"unknown request {op!r}")
            send({"id": msg["id"], "ok": value})
        except Exception as exc:  # noqa: BLE001 - told to the parent, which raises it there
            send({"id": msg["id"], "error": f"{type(exc).__name__}: {exc}"})

    tasks: set[asyncio.Task[None]] = set()
    while not stopped.is_set() and (line := await reader.readline()):
        msg = json.loads(line)
        task = asyncio.create_task(answer(msg))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        if msg["op"] == "stop":
            await task
    await writer.drain()
    writer.close()
    if not bot.is_closed():
        await bot.close()


@dataclass
class Step:
    """What one rate step measured."""

    rate: float
    arrivals: int = 0
    moves: int = 0
    ack: list[float] = field(default_factory=list)
    panel: list[float] = field(default_factory=list)
    board: list[float] = field(default_factory=list)
    queue: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    """CPU seconds of the bot over the step: its process and children (render and AI workers); with the
    bot in this process, less the players' thread (``players_cpu_s``) when the players ran apart."""
    players_cpu_s: float = 0.0
    """CPU seconds of the fake Discord and the players, not in ``cpu_s``: this process's when the bot ran
    in a child process (``BotChild``), the players' thread's when they ran apart (``PlayersThread``)."""
    worker_cpu_s: float = 0.0
    """Of ``cpu_s``, the children's."""
    wall_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def passed(self) -> bool:
        return (self.moves >= 0.9 * self.arrivals and not self.failures
                and pct(self.board, 0.95) <= BOARD_P95 and max(self.ack, default=0.0) <= ACK_MAX
                and pct(self.queue, 0.95) <= BOARD_P95)


class LoadTable(Table):
    """One game of the load bench: moves on demand, every wait bounded by ``WAIT``."""

    def __init__(self, fake: FakeDiscord, bot: GameBot | BotChild, users: list[JSONDict], rng: random.Random,
                 game_id: str, mirror: Mirror) -> None:
        # (of the bot, a table reads only ``bot.service.get``, which a BotChild answers too)
        super().__init__(fake, cast(GameBot, bot), users, rng, Probe(), game_id)
        self.mirror = mirror
        self.on_bot = mirror.bridge
        self.pulse = Pulse.of(fake)
        self.busy = False
        self.board_id = 0
        self.channel = 0
        self.scan_from = 0

    async def start(self) -> None:
        await super().start()
        record = await self.on_bot(self.bot.service.get(self.game))
        assert record.board_message_id is not None
        self.board_id = record.board_message_id
        self.channel = int(self.fake.messages[self.board_id]["channel_id"])

    def board(self) -> JSONDict:
        """The game's board message, followed to its new post when the bot posted it again and
        deleted the old one (``Boards.repost_board``) since the last move looked."""
        if self.board_id not in self.fake.messages:
            self.board_id = reposted_board(self.fake, self.channel, self.game) or self.board_id
        return self.fake.messages[self.board_id]

    def over(self) -> bool:
        return not self.mirror.waiting(self.game)

    async def until(self, pred: Callable[[], Any], what: str, period: float = 0.005) -> Any:
        """As ``Table.until``, woken by the fake's answers (``Pulse``) instead of polling."""
        try:
            return await self.pulse.until(pred, what)
        except TimeoutError:
            raise TimeoutError(f"game #{self.game}: {what}") from None

    def board_version(self, payload: JSONDict | None) -> int:
        """The version the board's buttons act on (``g:{game}:{version}:{verb}``: Play ▶ while the game
        runs, Log and Rules after its end too); -1 when it carries none."""
        for c in iter_components((payload or {}).get("components") or []):
            cid = c.get("custom_id", "")
            if cid.startswith(f"g:{self.game}:"):
                return int(cid.split(":")[2])
        return -1

    async def measured_move(self, step: Step) -> bool:
        """One decision of a waiting seat, measured into ``step``; False when the game is over."""
        fake, mirror = self.fake, self.mirror
        seats = mirror.waiting(self.game)
        if not seats:
            return False
        record = mirror.results[self.game].game
        user_id = str(record.user_of(self.rng.choice(seats)))
        user = next(u for u in self.users if u["id"] == user_id)
        panel, ack, shown = await self.open_panel(user, self.board())
        step.ack.append(ack)
        step.panel.append(shown)
        for _ in range(8):
            panel = fake.messages[int(panel["id"])]
            options = choices(panel)
            if not options:
                raise AssertionError(f"game #{self.game}: panel without actions: {panel['content'][:200]}")
            actions = [o for o in options if o[0] != "group"]
            if not actions:  # a step of a multi-step decision: the panel is redrawn in place
                step.ack.append(await self.open_group(user, panel, options))
                continue
            kind, cid, value = self.rng.choice(actions)
            done = mirror.count.get(self.game, 0)
            mirror.event(self.game).clear()
            t = await (fake.select(user, panel, cid, [str(value)]) if kind == "select" else fake.click(user, panel, cid))
            clicked = fake.interactions[t]["created"]
            await self.until(functools.partial(self.acked, t), "pick")
            step.ack.append(self.ack_time(t))
            while mirror.count.get(self.game, 0) == done:
                await asyncio.wait_for(mirror.event(self.game).wait(), WAIT)
                mirror.event(self.game).clear()
            result = mirror.results[self.game]
            if result.public_changed:
                edit = await self.until(self.board_edit(result.game.version), "board update")
                step.board.append(edit - clicked)
            step.moves += 1
            return True
        raise AssertionError(f"game #{self.game}: panel never offered an action")

    def board_edit(self, version: int) -> Callable[[], float | None]:
        """A predicate: when (``Req.at``) the board message was first edited with an image showing
        ``version`` or later (the final board of a game that ended with it too: its Log and Rules
        buttons carry the version), among the requests since this move began (``scan_from``: an edit
        may land before the pick is acknowledged)."""
        fake, channel = self.fake, self.channel

        def shows_version(r: Req) -> bool:
            return (bool(r.files) and edits_board(fake, r, channel, self.board_id, self.game)
                    and self.board_version(r.json) >= version)

        find = scanner(fake, self.scan_from, shows_version)

        def scan() -> float | None:
            r = find()
            if r is None:
                return None
            if r.method == "POST":  # (posted again, scrolled away: follow the new board)
                self.board_id = reposted_board(fake, channel, self.game) or self.board_id
            return r.at

        return scan


# --------------------------------------------------------------------------- one game


async def setup_tables(fake: FakeDiscord, bot: GameBot | BotChild, game_id: str, count: int, seed: int, first: int,
                       mirror: Mirror) -> list[LoadTable]:
    """``count`` started games of ``game_id`` with fresh members (not measured)."""
    players = players_for(game_id)
    tables = []
    for g in range(first, first + count):
        users = [await fake.add_member(f"p{g}-{k}") for k in range(players)]
        tables.append(LoadTable(fake, bot, users, random.Random(seed * 1000 + g), game_id, mirror))
    for chunk in range(0, len(tables), 10):  # a few at a time: setup is not what is measured
        await asyncio.gather(*(t.start() for t in tables[chunk:chunk + 10]))
    await mirror.bridge(bot.flow.wait_idle())
    await settle(fake, bot, mirror.bridge, 0.05, 60)
    return tables


async def advance_tables(tables: list[LoadTable], most: int, rng: random.Random) -> int:
    """Play each of ``tables`` on by a number of decisions drawn from 0..``most`` (not measured), ten
    tables at a time, so the measured moves come from every phase of a game, not only its opening
    (whose decisions cost the most: Illumination's first turn has over 100 legal actions). Returns the
    decisions played."""
    played = Step(0.0)

    async def advance(table: LoadTable, count: int) -> None:
        for _ in range(count):
            table.scan_from = len(table.fake.requests)
            if not await table.measured_move(played):
                return

    counts = [rng.randint(0, most) for _ in tables]
    for chunk in range(0, len(tables), 10):
        await asyncio.gather(*(advance(t, n) for t, n in zip(tables[chunk:chunk + 10], counts[chunk:chunk + 10],
                                                              strict=True)))
    return played.moves


async def settle(fake: FakeDiscord, bot: GameBot | BotChild, bridge: Bridge, quiet: float, timeout: float) -> None:
    """``fake.idle(quiet, timeout)``: no request for ``quiet`` s and none of the bot's handler tasks running,
    looked for where the bot runs (its loop, ``bridge``, or its process, ``BotChild.idle``)."""
    if isinstance(bot, BotChild):
        await bot.idle(quiet, timeout)
    else:
        await bridge(fake.idle(quiet, timeout=timeout))


async def run_step(fake: FakeDiscord, tables: list[LoadTable], rate: float, seconds: float,
                   rng: random.Random, *, apart: bool = False, bot_pid: int | None = None) -> Step:
    """Poisson arrivals at ``rate`` per second for ``seconds``, each played on an idle table. The bot's CPU
    (``Step.cpu_s``): with ``bot_pid`` (the bot in a child process, ``BotChild``) that process's and its
    children's, this one's apart (``Step.players_cpu_s``); else this process's and its children's, less
    this thread's when ``apart`` (this runs in the players' own thread, ``PlayersThread``)."""
    step = Step(rate)
    queue: asyncio.Queue[float] = asyncio.Queue()
    tasks: set[asyncio.Task[None]] = set()

    async def play(table: LoadTable, arrived: float) -> None:
        table.busy = True
        table.scan_from = len(fake.requests)
        step.queue.append(time.perf_counter() - arrived)
        try:
            await table.measured_move(step)
        except Exception as exc:  # noqa: BLE001 - a failed move is a finding, not a crash
            step.failures.append(f"game #{table.game}: {type(exc).__name__}: {exc}")
        finally:
            table.busy = False
            dispatch()

    def dispatch() -> None:
        while not queue.empty():
            idle = [t for t in tables if not t.busy and not t.over()]
            if not idle:
                return
            task = asyncio.create_task(play(rng.choice(idle), queue.get_nowait()))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    cpu = trees.TreeCpu(bot_pid)
    cpu.start()
    players0 = time.thread_time() if bot_pid is None else time.process_time()
    t0 = time.perf_counter()
    at = t0
    while True:
        at += rng.expovariate(rate)
        if at - t0 > seconds:
            break
        await asyncio.sleep(max(0.0, at - time.perf_counter()))
        step.arrivals += 1
        queue.put_nowait(at)
        dispatch()
    deadline = time.perf_counter() + DRAIN
    while (tasks or not queue.empty()) and time.perf_counter() < deadline:
        await asyncio.sleep(0.02)
    for task in list(tasks):
        task.cancel()
    own, kids = cpu.elapsed()
    if bot_pid is not None:
        step.players_cpu_s = time.process_time() - players0
    elif apart:
        step.players_cpu_s = time.thread_time() - players0
        own -= step.players_cpu_s
    step.cpu_s, step.worker_cpu_s, step.wall_s = own + kids, kids, time.perf_counter() - t0
    return step


def worker_settings(render_workers: int) -> dict[str, Any]:
    """``Settings`` fields for ``render_workers`` worker processes where this tree's code has them."""
    return {"render_workers": render_workers} if "render_workers" in {f.name for f in dataclasses.fields(Settings)} else {}


BOT_NICENESS: int | None = None
"""The niceness the bot's process is started with (``--players-nice``: the bench's own process, the fake
Discord and the players, runs that much nicer); None: as this process."""


def _bot_priority() -> None:
    """In the bot's child, before it runs: take ``BOT_NICENESS`` back (lowering a niceness needs the
    privilege to; without it the child stays as nice as the bench, and ``main`` said so)."""
    if BOT_NICENESS is not None:
        with contextlib.suppress(PermissionError):
            os.setpriority(os.PRIO_PROCESS, 0, BOT_NICENESS)


def players_aside(nice: int) -> str:
    """Make this process (the fake Discord and the players) ``nice`` steps nicer than the bot it starts
    (``BOT_NICENESS``), so that on a busy machine the bot gets the cores first, as it would with the real
    Discord on other machines; returns a line for the report."""
    global BOT_NICENESS
    base = os.getpriority(os.PRIO_PROCESS, 0)
    if nice <= 0:
        return "the bench and the bot at one priority"
    try:
        os.setpriority(os.PRIO_PROCESS, 0, base + nice)
        os.setpriority(os.PRIO_PROCESS, 0, base)  # (can it be taken back? only with the privilege)
    except PermissionError:
        return "the bench and the bot at one priority (no privilege to start the bot less nice than the bench)"
    os.setpriority(os.PRIO_PROCESS, 0, base + nice)
    BOT_NICENESS = base
    return f"the fake Discord and the players {nice} steps nicer than the bot"


async def bench_game(game_id: str, label: str, rates: Sequence[float], seconds: float, tables_n: int,
                     seed: int, render_workers: int = 2, bot_in: str = "process", advance: int = 0) -> list[Step]:
    """The rate ladder of one game, on a fresh bot; stops after the first failure. The fake
    Discord and the players run on this thread's loop; the bot (``bot_in``) in a child process (``BotChild``),
    or, with ``"thread"``, in this process on this thread's loop while the fake and the players move to a
    ``PlayersThread`` (the two then share one interpreter lock: about 1 s of it per second at 30 moves/s)."""
    settings = worker_settings(render_workers)
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        db = Path(tmp) / "games.db"
        if bot_in == "process":
            async with FakeDiscord(owner_name="alice", real_time=True) as fake:
                mirror = Mirror(None)
                async with BotChild(fake, mirror, db, label, settings) as child:
                    steps = await ladder(fake, child, mirror, game_id, rates, seconds, tables_n, seed,
                                         label, advance)
                    report_errors(fake, await child.errors())
                    return steps
        with PlayersThread() as side:
            fake = FakeDiscord(owner_name="alice", real_time=True)
            await side.run(fake.__aenter__())
            try:
                async with running_bot(fake, db, **settings) as bot:
                    mirror = Mirror(bot, Bridge(asyncio.get_running_loop(), side.loop))
                    steps = await side.run(ladder(fake, bot, mirror, game_id, rates, seconds, tables_n, seed,
                                                  label, advance))
                    report_errors(fake, [])
                    return steps
            finally:
                await side.run(fake.__aexit__(None, None, None))


async def ladder(fake: FakeDiscord, bot: GameBot | BotChild, mirror: Mirror, game_id: str, rates: Sequence[float],
                 seconds: float, tables_n: int, seed: int, label: str, advance: int = 0) -> list[Step]:
    """``bench_game``'s rates, on the players' loop; first each table is played on by 0..``advance``
    decisions (``advance_tables``)."""
    steps: list[Step] = []
    bridge = mirror.bridge
    tables = await setup_tables(fake, bot, game_id, tables_n, seed, 0, mirror)
    made = tables_n
    rng = random.Random(seed)
    if advance:
        played = await advance_tables(tables, advance, random.Random(seed + 1))
        await bridge(bot.flow.wait_idle())
        await settle(fake, bot, bridge, 0.05, 60)
        print(f"  {game_id:<12} {label:<6} advanced by {played} decisions over {len(tables)} tables"
              f" (0..{advance} each, not measured)", flush=True)
    for rate in rates:
        tables = [t for t in tables if not t.over()]
        if len(tables) < tables_n:  # replace the games that ended (not measured)
            fresh = tables_n - len(tables)
            tables += await setup_tables(fake, bot, game_id, fresh, seed, made, mirror)
            made += fresh
        step = await run_step(fake, tables, rate, seconds, rng, apart=bridge.apart,
                              bot_pid=bot.pid if isinstance(bot, BotChild) else None)
        await bridge(bot.flow.wait_idle())
        with contextlib.suppress(TimeoutError):
            await settle(fake, bot, bridge, 0.05, DRAIN)
        steps.append(step)
        print(f"  {game_id:<12} {label:<6} {line(step)}", flush=True)
        for failure in sorted(set(step.failures))[:3]:
            print(f"    failed: {failure[:300]}", flush=True)
        if not step.passed():
            break
    return steps


def report_errors(fake: FakeDiscord, bot_errors: Sequence[str]) -> None:
    """Print how many errors were logged (``bot_errors``: the bot's process's, when apart) and how many
    payloads the fake refused, and the first three."""
    errors = [error_line(r) for r in fake.errors.records] + list(bot_errors)
    if errors or fake.violations:
        print(f"    errors logged: {len(errors)}, violations: {len(fake.violations)}")
        for text in (errors + list(fake.violations))[:3]:
            print(f"      {text[:200]}")


# --------------------------------------------------------------------------- report


def p3(values: Sequence[float]) -> str:
    """``p50/p95/p99`` in ms."""
    return "/".join(ms(pct(values, q)) for q in (0.5, 0.95, 0.99))


def line(step: Step) -> str:
    cpu = step.cpu_s / step.moves * 1000 if step.moves else float("nan")
    return (f"{step.rate:>5.0f}/s {step.moves:>4}/{step.arrivals:<4} ack {p3(step.ack):>14}  panel {p3(step.panel):>14}"
            f"  board {p3(step.board):>14}  queue p95 {ms(pct(step.queue, 0.95)):>5}  cpu {cpu:5.1f} ms/move"
            f" (workers {step.worker_cpu_s / step.moves * 1000 if step.moves else 0.0:4.1f},"
            f" not billed: players {step.players_cpu_s / step.moves * 1000 if step.moves else 0.0:4.1f})"
            f"  {'pass' if step.passed() else 'FAIL'}" + (f" ({len(step.failures)} failed moves)" if step.failures else ""))


def capacity(steps: Sequence[Step]) -> float:
    """The highest passing rate below the first failure (0 when the first rate fails)."""
    best = 0.0
    for step in steps:
        if not step.passed():
            break
        best = step.rate
    return best


def cpu_per_move(steps: Sequence[Step]) -> float:
    """CPU ms per move over the passing steps (all steps when none passed)."""
    chosen = [s for s in steps if s.passed()] or list(steps)
    moves = sum(s.moves for s in chosen)
    return sum(s.cpu_s for s in chosen) / moves * 1000 if moves else float("nan")


def report_capacity(results: dict[str, dict[str, list[Step]]]) -> None:
    variants = list(dict.fromkeys(v for per in results.values() for v in per))
    print(f"\nCapacity (moves/s with p95 board ≤ {BOARD_P95 * 1000:.0f} ms and every ack ≤ {ACK_MAX * 1000:.0f} ms)"
          f" and CPU ms per move; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    head = f"{'game':<13}" + "".join(f"{v + ' moves/s':>16}{v + ' cpu ms':>14}" for v in variants)
    print(head)
    print("-" * len(head))
    for game_id, per in results.items():
        print(f"{game_id:<13}" + "".join(f"{capacity(per[v]):>16.0f}{cpu_per_move(per[v]):>14.1f}" for v in variants))


def encode_sizes(game_id: str, views: Sequence[tuple[JSONDict, list[str]]]) -> tuple[list[float], list[float],
                                                                                          list[int]]:
    """Render seconds, encode seconds and encoded bytes per view, one at a time in this thread."""
    render_s, encode_s, sizes = [], [], []
    for view, names in views:
        t = time.perf_counter()
        image = renders.board_image(game_id, view, names, Texts(game_id, names))
        t1 = time.perf_counter()
        data, _ = renders.encode(image)
        render_s.append(t1 - t)
        encode_s.append(time.perf_counter() - t1)
        sizes.append(len(data))
    return render_s, encode_s, sizes


def report_renders(games: Sequence[str], count: int, seed: int) -> None:
    print(f"\nBoard render and encode alone (ms median, one thread; {count} random-playout views per game, "
          "each drawn twice: the second draw shows the text memo warm)")
    head = f"{'game':<13}{'render':>8}{'encode':>8}{'total':>8}{'KiB':>7}"
    print(head)
    print("-" * len(head))
    for game_id in games:
        views = playout_views(game_id, count, seed)
        encode_sizes(game_id, views)  # warm the memo as a running bot has it
        r, e, b = encode_sizes(game_id, views)
        print(f"{game_id:<13}{ms(statistics.median(r)):>8}{ms(statistics.median(e)):>8}"
              f"{ms(statistics.median(x + y for x, y in zip(r, e, strict=True))):>8}"
              f"{statistics.median(b) / 1024:>7.0f}")


def compare(tree: Path, games: Sequence[str], args: argparse.Namespace) -> dict[str, dict[str, list[Step]]]:
    """Each game on the code of ``tree`` ("before") and of this tree ("after"), one after the other in
    child processes running this script (bench/trees.py ``in_tree``): the same measuring code for both."""
    results: dict[str, dict[str, list[Step]]] = {}
    script = Path(__file__).resolve()
    for game_id in games:
        for label, root in (("before", tree), ("after", trees.tree_root())):
            with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
                out = Path(tmp) / "steps.json"
                child = trees.in_tree(root, script, [
                    "--game", game_id, "--no-render", "--rates", args.rates,
                    "--step", str(args.step), "--tables", str(args.tables), "--seed", str(args.seed),
                    "--render-workers", str(args.render_workers), "--bot-in", args.bot_in,
                    "--players-nice", str(args.players_nice), "--advance", str(args.advance),
                    "--json-out", str(out),
                    "--label", label])
                sys.stdout.write(child.stdout.split("\nCapacity")[0].rstrip("\n") + "\n")
                if child.returncode or not out.exists():
                    print(child.stderr[-3000:], file=sys.stderr)
                    raise SystemExit(f"the {label} run of {game_id} failed")
                data = json.loads(out.read_text())
            results.setdefault(game_id, {})[label] = [Step(**step) for step in data[game_id][label]]
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="all", help="a game id or 'all' (default)")
    parser.add_argument("--rates", default="4,6,8,10,15,20,30,45,60,80", help="moves per second, rising (comma-separated)")
    parser.add_argument("--step", type=float, default=8.0, help="seconds of arrivals per rate (default 8)")
    parser.add_argument("--tables", type=int, default=40, help="games played at once (default 40)")
    parser.add_argument("--render-views", type=int, default=6, help="views per game in the render table (default 6)")
    parser.add_argument("--no-render", action="store_true", help="leave out the render table")
    parser.add_argument("--render-workers", type=int, default=2,
                        help="render worker processes (Settings.render_workers; default 2, 0 = threads)")
    parser.add_argument("--compare", type=Path, metavar="PATH",
                        help="also measure the source tree at PATH (before) beside this one (after)")
    parser.add_argument("--bot-in", choices=("process", "thread"), default="process",
                        help="where the bot runs: a child process (default) or a thread of this process, sharing"
                             " the interpreter lock with the fake Discord and the players")
    parser.add_argument("--players-nice", type=int, default=10,
                        help="with the bot in a process: run the fake Discord and the players this many steps"
                             " nicer than the bot (default 10; 0: one priority)")
    parser.add_argument("--advance", type=int, default=0, metavar="N",
                        help="before the first rate, play each table on by 0..N decisions, not measured, so the"
                             " measured moves are not only openings (default 0)")
    parser.add_argument("--json-out", type=Path, help=argparse.SUPPRESS)  # (a child of --compare)
    parser.add_argument("--label", default="", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    games = list(ENGINES) if args.game == "all" else [args.game]
    unknown = [g for g in games if g not in ENGINES]
    if unknown:
        parser.error(f"unknown game: {', '.join(unknown)}")
    rates = [float(x) for x in args.rates.split(",") if x.strip()]
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    t = time.perf_counter()
    load0 = os.getloadavg()[0]
    results: dict[str, dict[str, list[Step]]] = {}
    priority = "the bot in a thread of the bench"
    if args.bot_in == "process" and not args.compare:  # (with --compare: each tree's run does it)
        priority = players_aside(args.players_nice)
    if args.compare:
        results = compare(args.compare.resolve(), games, args)
    else:
        for game_id in games:
            results[game_id] = {args.label or "this tree": asyncio.run(
                bench_game(game_id, args.label or "this tree", rates, args.step, args.tables, args.seed,
                           args.render_workers, args.bot_in, args.advance))}
    if args.json_out:
        args.json_out.write_text(json.dumps({g: {v: [dataclasses.asdict(s) for s in steps] for v, steps in per.items()}
                                             for g, per in results.items()}))
        return 0
    if args.compare:
        print(f"\nbefore = {args.compare}, after = {trees.tree_root()} (render workers {args.render_workers},"
              f" the bot in a {args.bot_in})")
    print(f"load average at the start {load0:.1f}; {priority if not args.compare else f'--players-nice {args.players_nice}'}")
    report_capacity(results)
    if not args.no_render:
        report_renders(games, args.render_views, args.seed)
    print(f"\n(total {time.perf_counter() - t:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
