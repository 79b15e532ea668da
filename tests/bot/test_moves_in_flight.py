"""Moves in flight (bot/storage/inflight.py, ``bot.service.InFlight``): an interaction
acknowledged before its move commits is remembered, and forgotten in the very transaction
that commits the move, on both backends; a refused move keeps it for its caller to forget;
the acknowledgement and the commit racing in one event loop never leave a row behind a
committed move; an old database gains the table (migration 013)."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from bot.service import GameService, InFlight
from bot.storage import LogEntry, MoveInFlight, Repository, Shards, StaleVersion
from tests.bot.test_backends import GUILD_SHARD0, GUILD_SHARD1, lobby
from tests.bot.test_old_database import fixture_at


def move(interaction: int, game: int, guild: int | None, at: float = 990.0) -> MoveInFlight:
    return MoveInFlight(interaction, 77, f"token-{interaction}", 10, game, guild, "ja", at)


async def started(repo: Repository, guild: int) -> int:
    g = await lobby(repo, guild)
    await repo.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start"})], state={}, status="active")
    return g.id


async def test_a_move_in_flight_is_forgotten_by_its_commit_and_kept_by_a_refused_one(database_url) -> None:
    now = [1000.0]
    repo = Repository(database_url, clock=lambda: now[0])
    shard1 = Repository(database_url, clock=lambda: now[0], shards=Shards(2, (1,)))
    await repo.open()
    await shard1.open()
    try:
        game = await started(repo, GUILD_SHARD0)
        other = await started(repo, GUILD_SHARD1)
        for m in (move(3, game, GUILD_SHARD0), move(4, other, GUILD_SHARD1), move(5, game, None, at=980.0)):
            await repo.move_in_flight(m)
        await repo.move_in_flight(move(3, game, GUILD_SHARD0, at=1.0))  # (the same interaction again: a no-op)
        assert await repo.moves_in_flight() == [move(5, game, None, at=980.0), move(3, game, GUILD_SHARD0),
                                                move(4, other, GUILD_SHARD1)]
        assert await shard1.moves_in_flight() == [move(4, other, GUILD_SHARD1)]  # (a DM is shard 0's)
        entry = LogEntry(0, "player", 0, {"type": "x"}, user_id=10)
        with pytest.raises(StaleVersion):  # (refused: nothing written, the row stays)
            await repo.appended(game, 0, [entry], state={}, status="active", settles=3)
        assert [m.interaction_id for m in await repo.moves_in_flight()] == [5, 3, 4]
        record, _ = await repo.appended(game, 1, [entry], state={}, status="active", settles=3)
        assert record.version == 2
        assert [m.interaction_id for m in await repo.moves_in_flight()] == [5, 4]
        await repo.settle_in_flight([5, 4])
        assert await repo.moves_in_flight() == []
    finally:
        await repo.close()
        await shard1.close()


async def test_the_acknowledgement_and_the_commit_race_without_a_row_left_behind() -> None:
    """Written first: the commit takes it. Being written: the commit waits for it, then takes
    it. The commit first: no row is written at all."""
    written: list[int] = []
    gate = asyncio.Event()

    async def write() -> None:
        await gate.wait()
        written.append(1)

    first = InFlight(1)
    assert await first.record(lambda: asyncio.sleep(0))
    assert await first.before_commit() == 1

    racing = InFlight(2)
    recording = asyncio.ensure_future(racing.record(write))
    await asyncio.sleep(0)
    committing = asyncio.ensure_future(racing.before_commit())
    await asyncio.sleep(0)
    assert not committing.done()  # (held back until the row is stored)
    gate.set()
    assert await recording is True
    assert await committing == 2 and written == [1]

    late = InFlight(3)
    assert await late.before_commit() is None
    assert await late.record(write) is False and written == [1]
    late.committed = True
    assert not late.unsettled

    failed = InFlight(4)

    async def broken() -> None:
        raise OSError("disk")

    with pytest.raises(OSError):
        await failed.record(broken)
    assert await failed.before_commit() is None and not failed.unsettled


async def test_a_players_move_commits_with_its_row_gone(database_url) -> None:
    repo = Repository(database_url)
    await repo.open()
    try:
        service = GameService(repo)
        g = await lobby(repo, GUILD_SHARD0)
        await service.join(g.id, 11, "Bob")
        record = (await service.start(g.id, 10, is_moderator=False)).game
        engine = service.engine(record)
        state = service.state(record)
        seat = min(engine.to_move(state))
        user = record.user_of(seat)
        inflight = InFlight(9)
        assert await inflight.record(lambda: service.move_in_flight(move(9, g.id, GUILD_SHARD0)))
        action = engine.legal_actions(state, seat)[0]
        result = await service.act(g.id, user, action, expected_version=record.version, inflight=inflight)
        assert result.game.version > record.version and inflight.committed and not inflight.unsettled
        assert await service.moves_in_flight() == []
    finally:
        await repo.close()


async def test_forgetting_a_user_or_purging_a_server_deletes_their_moves_in_flight(database_url) -> None:
    repo = Repository(database_url, clock=lambda: 1000.0)
    await repo.open()
    try:
        game = await started(repo, GUILD_SHARD0)
        other = await started(repo, GUILD_SHARD1)
        await repo.move_in_flight(move(1, game, GUILD_SHARD0))
        await repo.move_in_flight(MoveInFlight(2, 77, "token-2", 11, game, GUILD_SHARD0, "en", 995.0))
        await repo.move_in_flight(MoveInFlight(3, 77, "token-3", 11, other, GUILD_SHARD1, "en", 996.0))
        await repo.anonymise_user(10, lambda seat: f"#{seat}")
        assert [m.interaction_id for m in await repo.moves_in_flight()] == [2, 3]
        await repo.purge_guild(GUILD_SHARD0)
        assert [m.interaction_id for m in await repo.moves_in_flight()] == [3]
    finally:
        await repo.close()


async def test_migration_013_gives_an_old_database_its_moves_in_flight(tmp_path) -> None:
    """A database at schema 12 (the old fixture migrated by hand): opening it applies 013; the
    games are intact and replay, and a move in flight round-trips."""
    path = fixture_at(tmp_path, 12)
    with sqlite3.connect(path) as raw:
        games_before = raw.execute("SELECT id, status, version FROM games ORDER BY id").fetchall()
        game = raw.execute("SELECT id FROM games WHERE status='active' ORDER BY id").fetchone()[0]
        assert not raw.execute("SELECT name FROM sqlite_master WHERE name='moves_in_flight'").fetchall()
    repo = Repository(str(path))
    await repo.open()
    try:
        assert await repo.schema_version() >= 13
        service = GameService(repo)
        await service.upgrade_snapshots()
        assert await service.replay_matches(game)
        everything = ("lobby", "active", "finished", "abandoned")
        assert sorted((g.id, g.status, g.version) for g in await repo.games(status=everything)) == games_before
        assert await repo.moves_in_flight() == []
        await repo.move_in_flight(move(1, game, None))
        assert await repo.moves_in_flight() == [move(1, game, None)]
    finally:
        await repo.close()
