"""Database thread hops per move ("each repository method in one hop to the
database thread, no repeated reads of the same game per move, shorter lock holds").

Usage: ``python -m bench.hops [--game carnival|all] [--moves 60] [--tables 6] [--compare PATH]``

The real bot (``bot.app.GameBot`` on a temporary SQLite file, render workers off) plays
``--moves`` moves one at a time over ``--tables`` games against the offline Discord, as
bench/load.py plays them (Play ▶, the panel, every step, the pick, the board edit awaited).
Every function aiosqlite sends to its connection's thread (``Connection._execute``: one
hop each, a thread switch both ways) is counted and charged to the repository method that
caused it; the time the repository lock is held per move is summed too. Printed per
method: calls per move, hops per call, hops per move; then the total hops per move and the
lock hold per move. With ``--compare PATH`` the same runs on the code of ``PATH`` too
(bench/trees.py), side by side. Set-up is not counted. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import trees

REPO_DIR = os.sep + os.path.join("bot", "storage") + os.sep


def _caller() -> str:
    """The outermost repository method on the stack (the one the host called)."""
    frame = sys._getframe(2)
    found = "?"
    while frame is not None:
        if REPO_DIR in frame.f_code.co_filename and not frame.f_code.co_name.startswith("_"):
            found = frame.f_code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    return found


async def measure(game_id: str, moves: int, tables_n: int, seed: int) -> dict[str, Any]:
    """Play ``moves`` moves on ``tables_n`` tables of ``game_id``; hop and call counts."""
    import aiosqlite

    from bench.bot_latency import running_bot
    from bench.load import LoadTable, Mirror, Step, setup_tables
    from bot.sandbox.fakecord import FakeDiscord
    from bot.storage import repository

    hops: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    counting = False
    original = aiosqlite.Connection._execute

    async def counted(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if counting:
            hops[_caller()] += 1
        return await original(self, fn, *args, **kwargs)

    aiosqlite.Connection._execute = counted  # type: ignore[method-assign]
    Repository = repository.Repository
    for name in dir(Repository):
        method = getattr(Repository, name)
        if name.startswith("_") or not asyncio.iscoroutinefunction(method):
            continue

        def wrap(method: Any, name: str) -> Any:
            async def wrapped(*args: Any, **kwargs: Any) -> Any:
                if counting and _caller() == "?":  # (the outermost repository call)
                    calls[name] += 1
                return await method(*args, **kwargs)
            return wrapped
        setattr(Repository, name, wrap(method, name))
    held = 0.0
    lock_class = asyncio.Lock

    class TimedLock(lock_class):  # type: ignore[valid-type,misc]
        async def acquire(self) -> bool:
            await super().acquire()
            self._since = time.perf_counter()
            return True

        def release(self) -> None:
            nonlocal held
            if counting:
                held += time.perf_counter() - self._since
            super().release()

    with tempfile.TemporaryDirectory(prefix="bench-hops-") as tmp:
        async with FakeDiscord(owner_name="alice") as fake, running_bot(fake, Path(tmp) / "games.db") as bot:
            # (render workers off: Settings' default)
            bot.repo._lock = TimedLock()
            mirror = Mirror(bot)
            tables: list[LoadTable] = await setup_tables(fake, bot, game_id, tables_n, seed, 0, mirror)
            made = tables_n
            rng = random.Random(seed)
            step = Step(0)
            await bot.flow.wait_idle()
            await fake.idle(0.05, timeout=30)
            counting = True
            while step.moves < moves:
                live = [t for t in tables if not t.over()]
                if not live:
                    counting = False
                    tables = await setup_tables(fake, bot, game_id, tables_n, seed, made, mirror)
                    made += tables_n
                    counting = True
                    continue
                table = rng.choice(live)
                table.scan_from = len(fake.requests)
                await table.measured_move(step)
                await bot.flow.wait_idle()
                await fake.idle(0.02, timeout=30)
            counting = False
    return {"moves": step.moves, "hops": dict(hops), "calls": dict(calls), "held_s": held}


def report(label: str, r: dict[str, Any]) -> None:
    moves = r["moves"]
    hops, calls = r["hops"], r["calls"]
    print(f"  {label}: {sum(hops.values()) / moves:.1f} hops per move, lock held {r['held_s'] / moves * 1000:.1f} ms"
          f" per move ({moves} moves)")
    print(f"    {'method':<22}{'calls/move':>11}{'hops/call':>10}{'hops/move':>10}")
    for name in sorted(hops, key=lambda n: -hops[n])[:14]:
        n = calls.get(name, 0)
        print(f"    {name:<22}{n / moves:>11.2f}{hops[name] / n if n else float('nan'):>10.1f}"
              f"{hops[name] / moves:>10.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.hops", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="carnival", help="a game id or 'all'")
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare", type=Path, metavar="PATH", help="also measure the source tree at PATH (before)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # (a child of --compare)
    args = parser.parse_args(argv)
    from engines.registry import GAME_IDS

    games = list(GAME_IDS) if args.game == "all" else [args.game]
    if args.json:
        print(json.dumps({g: asyncio.run(measure(g, args.moves, args.tables, args.seed)) for g in games}))
        return 0
    runs = ([("before", args.compare.resolve())] if args.compare else []) + [("after", trees.tree_root())]
    results: dict[str, dict[str, Any]] = {}
    for label, root in runs:
        child = trees.in_tree(root, Path(__file__).resolve(), [
            "--game", args.game, "--moves", str(args.moves), "--tables", str(args.tables), "--seed", str(args.seed),
            "--json"])
        if child.returncode:
            print(child.stderr[-4000:], file=sys.stderr)
            return child.returncode
        results[label] = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"Database thread hops per move (aiosqlite Connection._execute), by repository method; "
          f"load average {os.getloadavg()[0]:.1f}")
    for game_id in games:
        print(game_id)
        for label, _ in runs:
            report(f"{label} ({runs[[x for x, _ in runs].index(label)][1]})", results[label][game_id])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
