"""The SQL dialect's cost: what the stores' one SQL text (``?`` placeholders numbered for
PostgreSQL by ``backend.to_numbered``) costs a move, beside SQLAlchemy Core doing the same.

Usage: ``python -m bench.dialect [--games 3]``

On a throwaway PostgreSQL (bot/sandbox/localpg.py), ``--games`` Carnival games are played to
their end (``GameService.act``, the first legal action of the first waiting seat) with every
statement their moves send recorded; then, per move:
the statements sent, the time ``to_numbered`` takes for them (its cache warm, as in a running
bot; and cold), a round trip of ``SELECT 1`` on the same server, and, when SQLAlchemy is
installed (it is not a dependency of the bot), the time its Core takes to build the move's
compare-and-set ``UPDATE`` and find it in its compiled cache (the cache key; what every
execution pays) and to compile it afresh. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from typing import Any

import asyncpg

from bot.sandbox.localpg import LocalPostgres, create_schema
from bot.service import GameService
from bot.storage import Repository, backend
from engines.base import CHANCE
from engines.registry import get as get_engine


def per_call(fn: Any, repeat: int = 20_000) -> float:
    """Microseconds per call of ``fn()``."""
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1e6


async def moves(url: str, games: int) -> tuple[list[str], int]:
    """Play ``games`` Carnival games to their end on ``url``: the SQL texts (``?`` form) their
    moves sent (not their lobbies and starts), and how many moves they were."""
    sent: list[str] = []
    recording = [False]
    run, many = backend.PgConnection.run, backend.PgConnection.executemany

    async def recorded_run(self: backend.PgConnection, sql: str, params: Sequence[Any]) -> backend.PgCursor:
        if recording[0]:
            sent.append(sql)
        return await run(self, sql, params)

    async def recorded_many(self: backend.PgConnection, sql: str, rows: Any) -> None:
        if recording[0]:
            sent.append(sql)
        await many(self, sql, rows)

    repo = Repository(url)
    await repo.open()
    service = GameService(repo)
    engine = get_engine("carnival")
    backend.PgConnection.run, backend.PgConnection.executemany = recorded_run, recorded_many  # type: ignore[method-assign]
    played = 0
    try:
        for _ in range(games):
            lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=1, host_user_id=101,
                                               host_name="a", options=None, move_timeout=3600)
            for uid in (102, 103):
                await service.join(lobby.id, uid, f"p{uid}")
            game = (await service.start(lobby.id, 101, is_moderator=False)).game
            while game.status == "active":
                state = service.state(game)
                seat = min(engine.to_move(state) - {CHANCE})
                recording[0] = True
                game = (await service.act(game.id, game.user_of(seat), engine.legal_actions(state, seat)[0])).game
                recording[0] = False
                played += 1
        return sent, played
    finally:
        backend.PgConnection.run, backend.PgConnection.executemany = run, many  # type: ignore[method-assign]
        await repo.close()


async def round_trip(url: str) -> float:
    """Microseconds of one ``SELECT 1`` round trip (best of 2,000)."""
    conn = await asyncpg.connect(url)
    try:
        best = float("inf")
        for _ in range(2000):
            start = time.perf_counter()
            await conn.fetchval("SELECT 1")
            best = min(best, time.perf_counter() - start)
        return best * 1e6
    finally:
        await conn.close()


def sqlalchemy_costs() -> tuple[float, float] | None:
    """(µs to build the move's compare-and-set UPDATE in SQLAlchemy Core and make its cache
    key, µs to compile it for asyncpg), or None without SQLAlchemy."""
    try:
        from sqlalchemy import Column, Float, Integer, MetaData, Table, Text, update
        from sqlalchemy.dialects.postgresql import asyncpg as sa_asyncpg
    except ImportError:
        return None
    games = Table("games", MetaData(), Column("id", Integer, primary_key=True), Column("state", Text),
                  Column("version", Integer), Column("status", Text), Column("deadline", Float),
                  Column("waiting", Text), Column("reminded", Integer), Column("deadline_window", Integer),
                  Column("updated_at", Float))
    dialect = sa_asyncpg.dialect()

    def build() -> Any:
        return (update(games).where(games.c.id == 7, games.c.version == 41)
                .values(state="{}", version=42, status="active", deadline=1.0, waiting="[]", reminded=0,
                        deadline_window=None, updated_at=2.0))

    keyed = per_call(lambda: build()._generate_cache_key(), 5000)
    compiled = per_call(lambda: build().compile(dialect=dialect), 2000)
    return keyed, compiled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dialect", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    server = LocalPostgres().start()
    try:
        url = asyncio.run(create_schema(server.url(), "bench_dialect"))
        sent, played = asyncio.run(moves(url, args.games))
        trip = asyncio.run(round_trip(url))
    finally:
        server.stop()
    per_move = len(sent) / max(played, 1)
    warm = per_call(lambda: [backend.to_numbered(sql) for sql in sent], 200) / len(sent)
    cold = per_call(lambda: [backend.to_numbered.__wrapped__(sql) for sql in sent], 50) / len(sent)
    print(f"bench.dialect: {played} moves of {args.games} Carnival games on PostgreSQL, {per_move:.1f} statements a move "
          f"({len(set(sent))} distinct texts)")
    print(f"  to_numbered:           {warm:6.2f} µs a statement warm (cached), {cold:6.2f} µs cold;"
          f" {warm * per_move:6.1f} µs a move")
    print(f"  a round trip:          {trip:6.1f} µs (SELECT 1, best of 2,000); {trip * per_move:7.1f} µs a move")
    costs = sqlalchemy_costs()
    if costs is None:
        print("  SQLAlchemy Core:       not installed (pip install sqlalchemy to compare)")
    else:
        keyed, compiled = costs
        print(f"  SQLAlchemy Core:       {keyed:6.1f} µs to build the move's UPDATE and key its cache (every"
              f" execution), {compiled:6.1f} µs to compile it; about {keyed * per_move:6.1f} µs a move")
    return 0


if __name__ == "__main__":
    sys.exit(main())
