"""Database size per 1,000 finished games, before and after the archive (bot/storage/archive.py).

Usage: ``python -m bench.archive [--games 1000] [--played 10] [--backends sqlite,postgresql]
[--out PATH]``

``--played`` real Carnival of Sins games (three seats, the first legal action of the first
waiting seat, to the end, through ``GameService.act``: the log, snapshots, outbox rows and
ratings as the bot writes them) are played, their deliveries marked done, and copied row
for row (games, seats, actions, outbox) until ``--games`` finished games are stored, each in
a server of its own. The size is measured on an empty database (migrated), with the games,
and after ``Repository.archive_ended`` moved them all (timed). SQLite: the file after
``VACUUM``; PostgreSQL: every table of the bench's schema with its indexes and TOAST after
``VACUUM FULL`` (a throwaway server, bot/sandbox/localpg.py). A sample of the archived games
is replayed against its snapshot. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.sandbox.localpg import LocalPostgres, NoServer, create_schema
from bot.service import GameService
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import get as get_engine

PLAYERS = (101, 102, 103)


async def play_one(service: GameService, guild: int) -> int:
    """A Carnival game of ``PLAYERS`` in ``guild``, played to its end; its id."""
    lobby = await service.create_lobby(game_id="carnival", guild_id=guild, channel_id=guild, host_user_id=PLAYERS[0],
                                       host_name="p0", options=None, move_timeout=3600)
    for uid in PLAYERS[1:]:
        await service.join(lobby.id, uid, f"p{uid}")
    game = (await service.start(lobby.id, PLAYERS[0], is_moderator=False)).game
    engine = get_engine("carnival")
    while game.status == "active":
        state = service.state(game)
        seat = min(engine.to_move(state) - {CHANCE})
        game = (await service.act(game.id, game.user_of(seat), engine.legal_actions(state, seat)[0])).game
    await service.repo.delivered([row.id for row in await service.repo.pending(game.id)])
    return game.id


async def rows_of(repo: Repository, table: str, key: str, game: int) -> list[dict[str, Any]]:
    async with repo.connection() as db, db.execute(f"SELECT * FROM {table} WHERE {key}=?", (game,)) as cur:
        return [dict(r) for r in await cur.fetchall()]


async def copy_games(repo: Repository, played: list[int], total: int) -> None:
    """Copy the ``played`` games row for row until ``total`` games are stored (new ids, each
    in a server of its own)."""
    sources = [(await rows_of(repo, "games", "id", g), await rows_of(repo, "seats", "game", g),
                await rows_of(repo, "actions", "game", g), await rows_of(repo, "outbox", "game", g)) for g in played]
    for k in range(total - len(played)):
        (game,), seats, actions, outbox = sources[k % len(sources)]
        row = {c: v for c, v in game.items() if c != "id"} | {"guild_id": 1000 + k}
        async with repo._tx() as db:
            async with db.execute(f"INSERT INTO games({', '.join(row)}) VALUES ({','.join('?' * len(row))})"
                                  " RETURNING id", tuple(row.values())) as cur:
                new = int((await cur.fetchone())[0])
            for table, rows in (("seats", seats), ("actions", actions), ("outbox", outbox)):
                if rows:
                    cols = [c for c in rows[0] if c != "id"]
                    await db.executemany(f"INSERT INTO {table}({', '.join(cols)}) VALUES ({','.join('?' * len(cols))})",
                                         [tuple(new if c == "game" else r[c] for c in cols) for r in rows])


async def size(repo: Repository) -> int:
    """The database's bytes, compacted (SQLite: VACUUM; PostgreSQL: VACUUM FULL, this schema's tables)."""
    if repo.backend == "sqlite":
        await repo.db.execute("VACUUM")
        await repo.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return Path(repo.path).stat().st_size
    async with repo.connection() as db:
        await db.execute("VACUUM FULL")
        async with db.execute("SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n"
                              " ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'") as cur:
            return int((await cur.fetchone())[0])


async def measure(url: str, games: int, played: int) -> dict[str, Any]:
    clock = [1_700_000_000.0]
    repo = Repository(url, clock=lambda: clock[0])
    await repo.open()
    try:
        empty = await size(repo)
        service = GameService(repo, clock=lambda: clock[0])
        ids = [await play_one(service, 1 + k) for k in range(played)]
        moves = [len(await repo.log(g)) for g in ids]
        await copy_games(repo, ids, games)
        full = await size(repo)
        clock[0] += 31 * 86400
        start = time.perf_counter()
        moved = 0
        while batch := await repo.archive_ended(clock[0] - 30 * 86400):
            moved += len(batch)
        took = time.perf_counter() - start
        after = await size(repo)
        count, packed = await repo.archive_counts()
        replayed = all([await service.replay_matches(g) for g in ids])
        return {"empty": empty, "full": full, "after": after, "moved": moved, "archived": count, "packed": packed,
                "seconds": took, "log_entries": sum(moves) / len(moves), "replayed": replayed}
    finally:
        await repo.close()


def lines(backend: str, r: dict[str, Any], games: int) -> list[str]:
    per = 1000 / games
    hot, cold = (r["full"] - r["empty"]) * per, (r["after"] - r["empty"]) * per
    return [f"{backend:<11} {hot / 2**20:8.2f} MiB -> {cold / 2**20:6.2f} MiB per 1,000 finished games"
            f" ({hot / max(cold, 1):.1f}x smaller; archive data {r['packed'] * per / 2**20:.2f} MiB);"
            f" archived {r['moved']} games in {r['seconds']:.1f} s ({r['moved'] / r['seconds']:.0f} games/s);"
            f" {r['log_entries']:.0f} log entries a game; replays match: {r['replayed']}",
            f"{'':<11} bytes: empty {r['empty']:,}, with the games {r['full']:,}, after {r['after']:,}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.archive", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--played", type=int, default=10)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    out = [f"bench.archive {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC: {args.games} finished Carnival games"
           f" ({args.played} played, the rest copied), database size before and after the archive"]
    with tempfile.TemporaryDirectory() as tmp:
        for backend in args.backends.split(","):
            if backend == "sqlite":
                out += lines(backend, asyncio.run(measure(str(Path(tmp) / "bench.db"), args.games, args.played)),
                             args.games)
                continue
            server = LocalPostgres()
            try:
                server.start()
                url = asyncio.run(create_schema(server.url(), "bench_archive"))
                out += lines(backend, asyncio.run(measure(url, args.games, args.played)), args.games)
            except NoServer as exc:
                out.append(f"{backend:<11} skipped: {exc}")
            finally:
                server.stop()
    print("\n".join(out))
    if args.out is not None:
        args.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
