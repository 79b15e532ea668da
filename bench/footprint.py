"""Memory and start-up with many active games.

Usage: ``python -m bench.footprint [--games 1000] [--moves 4] [--seed S] [--db PATH] [--render-workers 2]
[--compare PATH]``

1. A database with ``--games`` active games, the six games in turn, each started through
   ``bot.service.GameService`` and played ``--moves`` random legal moves (not measured; the
   outbox rows these leave are marked delivered, so start-up has nothing to send).
2. In a fresh process: the real ``bot.app.GameBot`` starts against the offline Discord on that
   database. Printed: the time from ``GameBot`` construction to ready (the gateway's READY,
   the snapshots checked, the outbox resumed), wall and CPU; then the resident set size
   (``VmRSS``) before the bot, once ready, and after every game's public board was drawn once
   (``Boards.board_payload``, as a board update does), and the sizes of the bot's per-game
   tables, which must not grow with the number of games drawn. With render worker processes
   (``--render-workers``, ``Settings.render_workers``) the boards are drawn there: their RSS
   and PSS (each one's share of the pages it shares) are printed too.
3. With ``--compare PATH`` step 2 runs on the code of ``PATH`` too (an older ``git worktree``;
   bench/trees.py), on the same database, before this tree's.

The goals are RSS under 150 MB after every game was drawn, and ready within 3 s. This is a
script, not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import trees
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import ENGINES, GAME_IDS

RSS_GOAL_MB = 150.0
READY_GOAL_S = 3.0


def rss_mb() -> float:
    """The resident set size of this process, MB (Linux ``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def players_for(game_id: str) -> int:
    """Seats per game: 3 where the game allows it, else its nearest count."""
    info = ENGINES[game_id].info
    return min(max(3, info.min_players), info.max_players)


async def populate(db: Path, games: int, moves: int, seed: int) -> None:
    """``games`` active games on ``db``, ``moves`` random legal moves each."""
    from bot.service import GameService

    rng = random.Random(seed)
    repo = Repository(str(db))
    await repo.open()
    service = GameService(repo)
    try:
        for g in range(games):
            game_id = GAME_IDS[g % len(GAME_IDS)]
            users = [10_000 + g * 10 + k for k in range(players_for(game_id))]
            record = await service.create_lobby(game_id=game_id, guild_id=1, channel_id=2, host_user_id=users[0],
                                                host_name=f"p{g}-0", options=None, move_timeout=30 * 86400)
            for k, user in enumerate(users[1:], 1):
                await service.join(record.id, user, f"p{g}-{k}")
            await service.start(record.id, users[0], is_moderator=True)
            for _ in range(moves):
                record = await service.get(record.id)
                engine = service.engine(record)
                state = service.state(record)
                seats = sorted(engine.to_move(state) - {CHANCE})
                if record.status != "active" or not seats:
                    break
                seat = rng.choice(seats)
                action = rng.choice(list(engine.legal_actions(state, seat)))
                user = record.user_of(seat)
                assert user is not None
                await service.act(record.id, user, action)
        rows = await repo.pending()
        await repo.delivered([r.id for r in rows])
    finally:
        await repo.close()


async def measure(db: Path, render_workers: int = 2) -> dict[str, Any]:
    """Start the bot on ``db`` against the offline Discord; the figures of the module docstring."""
    import dataclasses
    import importlib

    from bot.app import GameBot
    from bot.sandbox.fakecord import FakeDiscord
    from bot.settings import Settings

    tune = getattr(importlib.import_module("bot.app"), "tune_gc", None)  # (as ``python -m bot`` runs; not in older trees)
    if tune is not None:
        tune()
    out: dict[str, Any] = {"rss_before_mb": rss_mb()}
    async with FakeDiscord(owner_name="alice") as fake:
        wall, cpu = time.perf_counter(), time.process_time()
        conf = Settings(database_path=str(db), token="offline", tick_seconds=3600)
        if "render_workers" in {f.name for f in dataclasses.fields(Settings)}:
            conf = dataclasses.replace(conf, render_workers=render_workers)
        bot = GameBot(conf, clock=fake.now)
        await fake.start_bot(bot, timeout=120, sync_commands=False)
        delivery = bot.delivery  # (a compared tree may hold one Delivery class for all these parts)
        boards, outbox = getattr(delivery, "boards", delivery), getattr(bot, "outbox", delivery)
        await outbox.drain()
        out["ready_wall_s"] = time.perf_counter() - wall
        out["ready_cpu_s"] = time.process_time() - cpu
        out["rss_ready_mb"] = rss_mb()
        records = await bot.repo.games(status=("active",))
        out["games"] = len(records)
        for record in records:
            await boards.board_payload(record)
        out["rss_drawn_mb"] = rss_mb()
        renderer = getattr(getattr(delivery, "transport", delivery), "renderer", None)
        pids = renderer.pids() if renderer is not None else []
        out["workers"] = len(pids)
        out["workers_rss_mb"] = sum(trees.rss_mb(pid) for pid in pids)
        out["workers_pss_mb"] = sum(trees.pss_mb(pid) for pid in pids)
        out["tables"] = {
            "service locks": len(bot.service._locks),
            "delivery game locks": len(outbox._game_locks),
            "delivery board tasks": len(boards._tasks),
            "board thumbnails": len(boards.board_thumbnails),
        }
        await fake.stop_bot(bot)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, help="reuse (or keep) this database")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # (the child process)
    parser.add_argument("--render-workers", type=int, default=2,
                        help="render worker processes (Settings.render_workers; default 2, 0 = threads)")
    parser.add_argument("--compare", type=Path, metavar="PATH", help="also measure the source tree at PATH (before)")
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(asyncio.run(measure(args.measure, args.render_workers))))
        return 0
    runs: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "games.db"
        if not db.exists():
            t = time.perf_counter()
            asyncio.run(populate(db, args.games, args.moves, args.seed))
            print(f"populated {args.games} games in {time.perf_counter() - t:.1f} s ({db.stat().st_size / 1e6:.1f} MB)")
        child_args = ["--measure", str(db), "--render-workers", str(args.render_workers)]
        for label, root in ([("before", args.compare.resolve())] if args.compare else []) + [("after", trees.tree_root())]:
            child = trees.in_tree(root, Path(__file__).resolve(), child_args)
            if child.returncode:
                print(child.stderr[-4000:], file=sys.stderr)
                return child.returncode
            runs.append((label if args.compare else "", json.loads(child.stdout.strip().splitlines()[-1])))
    print(f"load average {os.getloadavg()[0]:.1f}; goals: ready ≤ {READY_GOAL_S:.0f} s, RSS < {RSS_GOAL_MB:.0f} MB"
          f" after every board was drawn once")
    for label, r in runs:
        where = f"{label} ({args.compare if label == 'before' else trees.tree_root()}): " if label else ""
        print(f"{where}active games: {r['games']}")
        print(f"  ready: {r['ready_wall_s']:.2f} s wall, {r['ready_cpu_s']:.2f} s CPU of the bot's process")
        print(f"  RSS of the bot's process: {r['rss_before_mb']:.0f} MB before the bot, {r['rss_ready_mb']:.0f} MB ready, "
              f"{r['rss_drawn_mb']:.0f} MB after every board was drawn once")
        if r.get("workers"):
            print(f"  render workers: {r['workers']}, RSS {r['workers_rss_mb']:.0f} MB in all, "
                  f"PSS {r['workers_pss_mb']:.0f} MB in all")
        print("  per-game tables after drawing: " + ", ".join(f"{k} {v}" for k, v in r["tables"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
