"""Shard leases on PostgreSQL (bot/storage/leases.py): one holder per shard, a standby that
takes over when the holder's session ends, and a holder that learns at once that it lost
its lease. The processes here are two ``ShardLeases`` of one test; tests/e2e/test_shard_failover.py
runs the real bot in child processes."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.storage import LogEntry, OutboxItem, Repository, Shards, StorageUnwritable
from bot.storage.leases import LEASE_APPLICATION, ShardLeases, leases_for

POLLS = 2000
"""Polls (of 10 ms each at least) before a waited-for state counts as never reached."""


async def lease_sessions(url: str) -> list[tuple[int, bool]]:
    """(backend pid, granted) of every advisory lock a lease session holds or waits for."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT l.pid, l.granted FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                                " WHERE l.locktype = 'advisory' AND a.application_name = $1 ORDER BY l.pid",
                                LEASE_APPLICATION)
        return [(int(r[0]), bool(r[1])) for r in rows]
    finally:
        await conn.close()


async def until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(POLLS):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def test_a_second_holder_stands_by_and_takes_over_when_the_first_closes(postgres_url: str) -> None:
    lost: list[str] = []
    first = ShardLeases(postgres_url, Shards(2, (1,)), lost.append)
    second = ShardLeases(postgres_url, Shards(2, (1,)), lost.append)
    other_shard = ShardLeases(postgres_url, Shards(2, (0,)), lost.append)
    await first.acquire()
    await other_shard.acquire()  # (another shard: not in the way)
    standing_by: list[int] = []
    waiting = asyncio.create_task(second.acquire(standby=standing_by.append))
    try:
        async def second_waits() -> bool:
            return [g for _, g in await lease_sessions(postgres_url)].count(False) == 1
        await until(second_waits, "the second process waits for the lock")
        assert first.held == (1,) and not second.held and standing_by == [1] and not waiting.done()
        await first.close()
        await waiting
        assert second.held == (1,) and lost == []
        assert sorted(g for _, g in await lease_sessions(postgres_url)) == [True, True]
    finally:
        waiting.cancel()
        for lease in (first, second, other_shard):
            await lease.close()


async def test_a_standby_stopped_while_it_waits_ends_its_wait_without_the_lease(postgres_url: str) -> None:
    holder = ShardLeases(postgres_url, Shards(2, (1,)), print)
    standby = ShardLeases(postgres_url, Shards(2, (1,)), print)
    await holder.acquire()
    waiting = asyncio.create_task(standby.acquire())
    try:
        async def standby_waits() -> bool:
            return sorted(g for _, g in await lease_sessions(postgres_url)) == [False, True]
        await until(standby_waits, "the standby waits for the lock")
        await standby.close()
        await waiting  # (returns: no error, nothing held)
        assert standby.held == () and holder.held == (1,) and holder.lost is None
    finally:
        waiting.cancel()
        await holder.close()
        await standby.close()


async def test_a_holder_whose_session_ends_learns_it_at_once_and_its_writes_are_refused(postgres_url: str) -> None:
    """Its moves and its outbox: a row it could not mark delivered stays for the next holder."""
    repo = Repository(postgres_url, shards=Shards(2, (1,)))
    await repo.open()
    lost: list[str] = []

    def on_lost(reason: str) -> None:
        lost.append(reason)
        repo.fenced = reason

    lease = ShardLeases(postgres_url, Shards(2, (1,)), on_lost)
    await lease.acquire()
    try:
        lobby = await repo.create_game(game_id="carnival", guild_id=5 << 22, channel_id=2, host_user_id=10,
                                       host_name="Ann", seed=42, options={}, move_timeout=100)
        started = await repo.create_game(game_id="carnival", guild_id=5 << 22, channel_id=2, host_user_id=10,
                                         host_name="Ann", seed=43, options={}, move_timeout=100)
        await repo.append(started.id, 0, [LogEntry(0, "system", None, {"type": "start"})], state={},
                          status="active", outbox=[OutboxItem("board", 1)])
        (row,) = await repo.pending(started.id)
        ((pid, granted),) = await lease_sessions(postgres_url)
        assert granted
        killer = await asyncpg.connect(postgres_url)
        try:
            await killer.execute("SELECT pg_terminate_backend($1)", pid)
        finally:
            await killer.close()

        async def told() -> bool:
            return bool(lost)
        await until(told, "the holder learns it lost the lease")
        assert len(lost) == 1 and lease.lost == lost[0]
        with pytest.raises(StorageUnwritable, match="no longer holds its shards"):
            await repo.join(lobby.id, 11, "Bo", 5)
        with pytest.raises(StorageUnwritable, match="no longer holds its shards"):
            await repo.delivered([row.id])
        assert [s.user_id for s in (await repo.get_game(lobby.id)).seats] == [10]  # type: ignore[union-attr]
        assert [r.id for r in await repo.pending(started.id)] == [row.id]
    finally:
        await lease.close()
        await repo.close()


def test_sqlite_needs_no_leases_and_an_unsharded_postgresql_bot_holds_shard_0_of_1() -> None:
    assert leases_for("data/games.db", Shards(2, (1,)), print) is None
    unsharded = leases_for("postgresql://u@h/db", None, print)
    assert unsharded is not None and unsharded.shards == Shards(1, (0,))
