"""Shard leases on PostgreSQL (bot/storage/leases.py, migration 014): one holder per shard, a
standby that takes over when the holder's session ends or its lease goes stale, a fencing
token raised at every takeover and checked by every write of the holder, and a holder that
learns at once that it lost its lease. The processes here are ``ShardLeases`` of one test;
tests/e2e/test_shard_failover.py runs the real bot in child processes."""

from __future__ import annotations

import asyncio
import random

import asyncpg
import pytest

import bot.storage.database
import bot.storage.leases
from bot.service import GameService
from bot.storage import LeaseLost, LogEntry, OutboxItem, Repository, Shards, StorageUnwritable
from bot.storage.database import FENCE_SQLSTATE, migration_files
from bot.storage.leases import LEASE_APPLICATION, STANDBY_APPLICATION, ShardLeases, leases_for
from bot.storage.records import GameRecord, OutboxRow
from engines.base import CHANCE
from engines.registry import get as get_engine

POLLS = 2000
"""Polls (of 10 ms each at least) before a waited-for state counts as never reached."""


async def lease_sessions(url: str) -> list[tuple[int, str]]:
    """(backend pid, application name) of every lease session on the server of ``url``, holders
    and standbys."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT pid, application_name FROM pg_stat_activity"
                                " WHERE application_name IN ($1, $2) ORDER BY pid",
                                LEASE_APPLICATION, STANDBY_APPLICATION)
        return [(int(r[0]), str(r[1])) for r in rows]
    finally:
        await conn.close()


async def lease_rows(url: str) -> list[tuple[int, int, int, int | None]]:
    """(shard count, shard, token, holder's session pid) of every lease row."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT shard_count, shard, token, holder_pid FROM shard_leases"
                                " ORDER BY shard_count, shard")
        return [(int(r[0]), int(r[1]), int(r[2]), None if r[3] is None else int(r[3])) for r in rows]
    finally:
        await conn.close()


async def until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(POLLS):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


@pytest.fixture
async def migrated(postgres_url: str):  # type: ignore[no-untyped-def]
    """The database ``postgres_url``, migrated (the lease rows are migration 014's)."""
    repo = Repository(postgres_url)
    await repo.open()
    await repo.close()
    return postgres_url


async def standing_by(url: str, n: int = 1) -> bool:
    return [a for _, a in await lease_sessions(url)].count(STANDBY_APPLICATION) == n


async def test_a_second_holder_stands_by_and_takes_over_when_the_first_closes(migrated: str) -> None:
    lost: list[str] = []
    first = ShardLeases(migrated, Shards(2, (1,)), lost.append)
    second = ShardLeases(migrated, Shards(2, (1,)), lost.append)
    other_shard = ShardLeases(migrated, Shards(2, (0,)), lost.append)
    await first.acquire()
    await other_shard.acquire()  # (another shard: not in the way)
    standing: list[int] = []
    waiting = asyncio.create_task(second.acquire(standby=standing.append))
    try:
        await until(lambda: standing_by(migrated), "the second process stands by")
        assert first.held == (1,) and not second.held and standing == [1] and not waiting.done()
        assert first.tokens == {1: 1} and other_shard.tokens == {0: 1}
        await first.close()
        await waiting
        assert second.held == (1,) and second.tokens == {1: 2} and lost == []
        assert [a for _, a in await lease_sessions(migrated)] == [LEASE_APPLICATION] * 2
        assert [r[:3] for r in await lease_rows(migrated)] == [(2, 0, 1), (2, 1, 2)]
    finally:
        waiting.cancel()
        for lease in (first, second, other_shard):
            await lease.close()


async def test_a_standby_takes_over_the_moment_the_holders_session_is_gone(migrated: str) -> None:
    """kill -9 of the holder ends its session: the standby's next ask takes the shard, with
    the next token; the lease row says how long the holder had been silent (the lease clock)."""
    holder = ShardLeases(migrated, Shards(2, (1,)), print)
    standby = ShardLeases(migrated, Shards(2, (1,)), print)
    await holder.acquire()
    waiting = asyncio.create_task(standby.acquire())
    try:
        await until(lambda: standing_by(migrated), "the standby stands by")
        holder._conn.terminate()  # (the socket closes, as the kernel closes a killed process's)
        await waiting
        assert standby.held == (1,) and standby.tokens == {1: 2}
        ((_, _, token, pid),) = await lease_rows(migrated)
        assert token == 2 and pid == standby._conn.get_server_pid()
    finally:
        waiting.cancel()
        await holder.close()
        await standby.close()


async def test_a_process_standing_by_for_one_shard_renews_those_it_took(
        migrated: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.storage.leases, "HEARTBEAT_S", 0.05)
    holder = ShardLeases(migrated, Shards(2, (1,)), print)
    both = ShardLeases(migrated, Shards(2, (0, 1)), print)
    await holder.acquire()
    waiting = asyncio.create_task(both.acquire())
    conn = await asyncpg.connect(migrated)
    try:
        await until(lambda: standing_by(migrated), "the second process stands by for shard 1")
        assert both.held == (0,)

        async def renewed() -> bool:
            return bool(await conn.fetchval("SELECT renewed_at > taken_at FROM shard_leases"
                                            " WHERE shard_count = 2 AND shard = 0"))
        await until(renewed, "shard 0 is renewed while its holder waits for shard 1")
        await holder.close()
        await waiting
        assert both.held == (0, 1) and both.tokens == {0: 1, 1: 2} and both.lost is None
    finally:
        await conn.close()
        waiting.cancel()
        await holder.close()
        await both.close()


async def test_a_standby_stopped_while_it_waits_ends_its_wait_without_the_lease(migrated: str) -> None:
    holder = ShardLeases(migrated, Shards(2, (1,)), print)
    standby = ShardLeases(migrated, Shards(2, (1,)), print)
    await holder.acquire()
    waiting = asyncio.create_task(standby.acquire())
    try:
        await until(lambda: standing_by(migrated), "the standby waits for the lease")
        await standby.close()
        await waiting  # (returns: no error, nothing held)
        assert standby.held == () and holder.held == (1,) and holder.lost is None
        assert [r[2] for r in await lease_rows(migrated)] == [1]
    finally:
        waiting.cancel()
        await holder.close()
        await standby.close()


async def a_lobby_and_a_started_game(repo: Repository) -> tuple[GameRecord, GameRecord, OutboxRow]:
    """On shard 1 of 2: a lobby, and a started game with its board row in the outbox."""
    lobby = await repo.create_game(game_id="carnival", guild_id=5 << 22, channel_id=2, host_user_id=10,
                                   host_name="Ann", seed=42, options={}, move_timeout=100)
    started = await repo.create_game(game_id="carnival", guild_id=5 << 22, channel_id=2, host_user_id=10,
                                     host_name="Ann", seed=43, options={}, move_timeout=100)
    await repo.append(started.id, 0, [LogEntry(0, "system", None, {"type": "start"})], state={},
                      status="active", outbox=[OutboxItem("board", 1)])
    (row,) = await repo.pending(started.id)
    return lobby, started, row


async def a_hung_holder_taken_over(url: str, repo: Repository, lost: list[str]) -> tuple[ShardLeases, ShardLeases]:
    """A holder of shard 1 of 2 fencing ``repo`` that hangs (its heartbeat stops, its session
    stays open), and the standby that takes its lease once stale."""
    holder = ShardLeases(url, Shards(2, (1,)), lost.append)
    await holder.acquire()
    repo.fence(holder.fence_sql(), holder.lose)
    assert holder._heartbeat is not None
    holder._heartbeat.cancel()  # (hangs: renews no more, its session stays open)
    standby = ShardLeases(url, Shards(2, (1,)), print, stale_s=0.5)
    await standby.acquire()  # (stands by until the lease is 0.5 s stale, then takes it)
    assert standby.tokens == {1: 2} and holder.tokens == {1: 1} and holder.lost is None
    return holder, standby


async def test_a_hung_holder_whose_lease_was_taken_commits_nothing_when_it_wakes(migrated: str) -> None:
    """The fencing token: the holder's session and its pool are still open and it has not
    noticed; its next writes are refused before their commit, and it learns it lost."""
    repo = Repository(migrated, shards=Shards(2, (1,)))
    await repo.open()
    lost: list[str] = []
    holder = standby = None
    try:
        lobby, started, row = await a_lobby_and_a_started_game(repo)
        holder, standby = await a_hung_holder_taken_over(migrated, repo, lost)
        assert repo.fenced is None  # (nothing told it)
        with pytest.raises(LeaseLost, match="shard 1 of 2 was taken over [(]lease token 1, now 2[)]"):
            await repo.join(lobby.id, 11, "Bo", 5)
        assert len(lost) == 1 and "shard 1 of 2 was taken over" in lost[0] and holder.lost == lost[0]
        with pytest.raises(StorageUnwritable, match="no longer holds its shards"):
            await repo.append(started.id, 1, [LogEntry(0, "system", None, {"type": "note"})], state={},
                              status="active")
        with pytest.raises(StorageUnwritable, match="no longer holds its shards"):
            await repo.delivered([row.id])
        fresh = Repository(migrated)
        await fresh.open()
        try:  # (nothing of the three was written)
            assert [s.user_id for s in (await fresh.get_game(lobby.id)).seats] == [10]  # type: ignore[union-attr]
            assert (await fresh.get_game(started.id)).version == 1  # type: ignore[union-attr]
            assert [r.id for r in await fresh.pending(started.id)] == [row.id]
        finally:
            await fresh.close()
        assert len(lost) == 1
    finally:
        for lease in (holder, standby):
            if lease is not None:
                await lease.close()
        await repo.close()


async def test_a_takeover_waits_for_a_commit_that_passed_the_fence_and_a_later_one_fails_it(migrated: str) -> None:
    """The fence holds the lease row ``FOR SHARE`` until its commit: a takeover meanwhile
    waits for it (the write lands before the new token), and the same fence after the
    takeover refuses."""
    holder = ShardLeases(migrated, Shards(2, (1,)), print)
    await holder.acquire()
    assert holder._heartbeat is not None
    holder._heartbeat.cancel()  # (hangs: its lease goes stale)
    writer = await asyncpg.connect(migrated)
    standby = ShardLeases(migrated, Shards(2, (1,)), print, stale_s=0.5)
    taking = None
    try:
        await writer.execute("BEGIN")
        await writer.execute(f"CREATE TABLE written (n INT); INSERT INTO written VALUES (1); {holder.fence_sql()}")
        taking = asyncio.create_task(standby.acquire())

        async def standby_waits_for_the_row() -> bool:
            if standby._conn is None:
                return False
            return await writer.fetchval("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1",
                                         standby._conn.get_server_pid()) == "Lock"
        await until(standby_waits_for_the_row, "the takeover waits for the fenced commit")
        assert not taking.done()
        await writer.execute("COMMIT")
        await taking
        assert standby.tokens == {1: 2}
        assert await writer.fetchval("SELECT n FROM written") == 1
        await writer.execute("BEGIN")
        with pytest.raises(asyncpg.PostgresError, match="lease token 1, now 2") as refused:
            await writer.execute(f"INSERT INTO written VALUES (2); {holder.fence_sql()}; COMMIT")
        assert refused.value.sqlstate == FENCE_SQLSTATE
        await writer.execute("ROLLBACK")
        assert await writer.fetchval("SELECT COUNT(*) FROM written") == 1
    finally:
        if taking is not None:
            taking.cancel()
        await writer.close()
        await holder.close()
        await standby.close()


async def test_a_hung_holder_that_wakes_learns_from_its_heartbeat_that_it_lost(
        migrated: str, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Repository(migrated, shards=Shards(2, (1,)))
    await repo.open()
    lost: list[str] = []
    holder = standby = None
    try:
        holder, standby = await a_hung_holder_taken_over(migrated, repo, lost)
        monkeypatch.setattr(bot.storage.leases, "HEARTBEAT_S", 0.01)
        await holder._beat()  # (its heartbeat again, as it wakes)
        assert lost == ["another process took the lease over (its token is newer)"]
        assert standby.lost is None and [r[2] for r in await lease_rows(migrated)] == [2]
    finally:
        for lease in (holder, standby):
            if lease is not None:
                await lease.close()
        await repo.close()


async def test_a_holder_whose_session_ends_learns_it_at_once_and_its_writes_are_refused(migrated: str) -> None:
    """Its moves and its outbox: a row it could not mark delivered stays for the next holder."""
    repo = Repository(migrated, shards=Shards(2, (1,)))
    await repo.open()
    lost: list[str] = []

    def on_lost(reason: str) -> None:
        lost.append(reason)
        repo.fenced = reason

    lease = ShardLeases(migrated, Shards(2, (1,)), on_lost)
    await lease.acquire()
    repo.fence(lease.fence_sql(), lease.lose)
    try:
        lobby, started, row = await a_lobby_and_a_started_game(repo)
        ((pid, application),) = await lease_sessions(migrated)
        assert application == LEASE_APPLICATION
        killer = await asyncpg.connect(migrated)
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


async def play(service: GameService, game: int, moves: int, rng: random.Random) -> None:
    """``moves`` random legal moves of the waiting players of ``game`` (fewer if it ends)."""
    for _ in range(moves):
        record = await service.get(game)
        engine = get_engine(record.game_id)
        state = service.state(record)
        if engine.outcome(state) is not None:
            return
        seat = rng.choice(sorted(s for s in engine.to_move(state) if s != CHANCE))
        action = rng.choice(list(engine.legal_actions(state, seat)))
        result = await service.act(game, record.user_of(seat), action, expected_version=record.version)
        assert result.game.version > record.version


async def test_a_database_at_013_with_games_upgrades_to_014_and_its_games_go_on(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both backends: games made and played on schema 013 go on after 014 (on PostgreSQL under
    a shard lease, every move through the fence)."""
    up_to_13 = [f for f in migration_files() if int(f.name.split("_", 1)[0]) <= 13]
    monkeypatch.setattr(bot.storage.database, "migration_files", lambda: up_to_13)
    repo = Repository(database_url)
    await repo.open()
    rng = random.Random(11)
    try:
        assert await repo.schema_version() == 13
        service = GameService(repo)
        games = []
        for seed in range(2):
            lobby = await service.create_lobby(game_id="carnival", guild_id=(5 + seed) << 22, channel_id=2,
                                               host_user_id=10, host_name="Ann", options=None, move_timeout=100)
            await service.join(lobby.id, 11, "Bo")
            await service.start(lobby.id, 10, is_moderator=False)
            await play(service, lobby.id, 3, rng)
            games.append(lobby.id)
        before = {g: (await repo.get_game(g)).version for g in games}  # type: ignore[union-attr]
    finally:
        await repo.close()
    monkeypatch.undo()

    shards = Shards(1, (0,))
    repo = Repository(database_url, shards=shards)
    await repo.open()
    lost: list[str] = []
    lease = leases_for(database_url, shards, lost.append)
    try:
        assert await repo.schema_version() == int(migration_files()[-1].name.split("_", 1)[0]) >= 14
        if lease is not None:
            await lease.acquire()
            assert lease.tokens == {0: 1}
            repo.fence(lease.fence_sql(), lease.lose)
        service = GameService(repo)
        for game in games:
            assert (await repo.get_game(game)).version == before[game]  # type: ignore[union-attr]
            await play(service, game, 3, rng)
            assert (await repo.get_game(game)).version > before[game]  # type: ignore[union-attr]
            assert await service.replay_matches(game)
        assert lost == []
    finally:
        if lease is not None:
            await lease.close()
        await repo.close()
