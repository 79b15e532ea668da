"""The archive (migration 015, bot/storage/archive.py) on both backends: a game long over
moves to one compressed row and still replays, exports and counts in the ratings; what is
not long over, or still has a delivery pending, stays; forget-me and a server's purge reach
archived games; the archive loop (bot/ui/operator.py ``Operator.archive_due``) follows
``ARCHIVE_AFTER_DAYS``; an old SQLite database upgrades to 015 with its rated games."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.check import check
from bot.migrate import copy_database
from bot.service import GameService
from bot.settings import Settings
from bot.storage import Repository
from bot.storage.archive import unpack
from bot.storage.records import ANON_USER
from bot.ui.operator import DAY, Operator
from bot.ui.table import export_log
from tests.bot.test_old_database import fixture_at
from tests.bot.test_operator_storage import Clock, played

ANN, BO, CY, DI = 101, 102, 103, 104
GUILD, OTHER = 1, 2


@pytest.fixture
async def service(database_url: str):
    clock = Clock()
    repo = Repository(database_url, clock=clock)
    await repo.open()
    yield GameService(repo, clock=clock)
    await repo.close()


async def delivered(repo: Repository, game: int) -> None:
    """Mark every pending delivery of ``game`` done (as the outbox does once Discord took them)."""
    await repo.delivered([row.id for row in await repo.pending(game)])


async def hot_rows(repo: Repository, game: int) -> dict[str, int]:
    counts = {}
    async with repo.connection() as db:
        for table in ("games", "seats", "actions", "outbox"):
            key = "id" if table == "games" else "game"
            async with db.execute(f"SELECT COUNT(*) FROM {table} WHERE {key}=?", (game,)) as cur:
                counts[table] = int((await cur.fetchone())[0])
    return counts


async def archived_data(repo: Repository, game: int) -> dict | None:
    async with repo.connection() as db, db.execute("SELECT data FROM archived_games WHERE id=?", (game,)) as cur:
        row = await cur.fetchone()
    return None if row is None else unpack(row[0])


def exported(service: GameService, record, entries) -> tuple[dict, str]:
    engine = service.engine(record)
    return export_log(record, engine.info.name, entries, engine.outcome(service.state(record)))


async def test_a_game_long_over_is_archived_and_still_replays_exports_and_counts(service: GameService) -> None:
    repo, clock = service.repo, service.clock
    done = await played(service, GUILD, (ANN, BO, CY), 10_000)
    await delivered(repo, done)
    before, entries = await repo.get_game(done), await repo.log(done)
    steps, export = await service.replay_steps(before), exported(service, before, entries)
    ratings = await repo.ratings(GUILD, "carnival")
    assert before.status == "finished" and sorted(r[1] for r in ratings) == [ANN, BO, CY]
    assert all(r[4] == 1 for r in ratings)  # (one rated game each)
    assert await hot_rows(repo, done) == {"games": 1, "seats": 3, "actions": len(entries), "outbox": len(
        await repo.outbox(done))}

    assert await repo.archive_ended(before.updated_at) == []  # (ended at that moment, not before it)
    clock.now += 31 * DAY
    assert await repo.archive_ended(clock.now - 30 * DAY) == [done]

    assert await hot_rows(repo, done) == {"games": 0, "seats": 0, "actions": 0, "outbox": 0}
    record = await repo.get_game(done)
    assert record == before
    assert await repo.log(done) == entries
    assert await repo.log(done, after=3, upto=9) == [e for e in entries if 3 < e.seq <= 9]
    assert await repo.log(done, last=2) == entries[-2:]
    assert await service.replay_steps(record) == steps
    assert await service.replay_matches(done)
    assert exported(service, record, await service.log(done)) == export
    assert await repo.ratings(GUILD, "carnival") == ratings
    assert not await repo.record_ratings(done, GUILD, "carnival", [(ANN, 30.0, 5.0, True)])  # (counted once)
    assert await repo.ratings(GUILD, "carnival") == ratings
    assert [g.id for g in await repo.games(status=("finished",))] == []  # (no longer listed)
    assert await repo.archive_counts() == (1, len(await archived_data_raw(repo, done)))
    assert await repo.archive_ended(clock.now) == []  # (nothing left to move)


async def archived_data_raw(repo: Repository, game: int) -> bytes:
    async with repo.connection() as db, db.execute("SELECT data FROM archived_games WHERE id=?", (game,)) as cur:
        return bytes((await cur.fetchone())[0])


async def test_what_is_not_long_over_or_still_delivering_stays(service: GameService) -> None:
    repo, clock = service.repo, service.clock
    pending = await played(service, GUILD, (ANN, BO), 10_000)  # (its deliveries never done)
    running = await played(service, GUILD, (ANN, CY), 3)
    old = await played(service, OTHER, (DI, BO), 10_000)
    await delivered(repo, old)
    clock.now += 10 * DAY
    recent = await played(service, GUILD, (BO, CY), 10_000)
    await delivered(repo, recent)
    assert [(await repo.get_game(g)).status for g in (pending, running, old, recent)] == [
        "finished", "active", "finished", "finished"]
    assert await repo.archive_ended(clock.now - 5 * DAY) == [old]
    assert [await archived_data(repo, g) is None for g in (pending, running, old, recent)] == [True, True, False, True]
    assert {g.id for g in await repo.games(status=("active", "finished"))} == {pending, running, recent}
    await delivered(repo, pending)
    assert await repo.archive_ended(clock.now - 5 * DAY, limit=1) == [pending]


async def test_forget_me_reaches_an_archived_game(service: GameService) -> None:
    repo, clock = service.repo, service.clock
    done = await played(service, GUILD, (BO, ANN, CY), 10_000)  # BO hosts and plays
    await delivered(repo, done)
    before, entries = await repo.get_game(done), await repo.log(done)
    clock.now += 31 * DAY
    assert await repo.archive_ended(clock.now - 30 * DAY) == [done]
    assert str(BO) in str(await archived_data(repo, done))

    assert await repo.anonymise_user(BO, lambda seat: f"#{seat}") == [done]
    record = await repo.get_game(done)
    assert [(s.seat, s.user_id) for s in record.seats] == [
        (s.seat, ANON_USER if s.user_id == BO else s.user_id) for s in before.seats]
    assert record.host_user_id == ANON_USER and record.state == before.state
    assert [e.user_id for e in await repo.log(done)] == [ANON_USER if e.user_id == BO else e.user_id for e in entries]
    assert await service.replay_matches(done)
    assert await repo.archive_ended(clock.now - 30 * DAY) == [done]  # (archived again, without them)
    data = await archived_data(repo, done)
    assert data is not None and BO not in {s[2] for s in data["seats"]} | {a[5] for a in data["actions"]}
    async with repo.connection() as db, db.execute("SELECT user_id FROM archived_users WHERE game=?"
                                                   " ORDER BY user_id", (done,)) as cur:
        assert [int(r[0]) for r in await cur.fetchall()] == [ANN, CY]
    assert await repo.anonymise_user(BO, str) == []


async def test_a_servers_purge_deletes_its_archived_games(service: GameService) -> None:
    repo, clock = service.repo, service.clock
    theirs = await played(service, OTHER, (DI, BO), 10_000)
    ours = await played(service, GUILD, (ANN, BO), 10_000)
    for game in (theirs, ours):
        await delivered(repo, game)
    clock.now += 31 * DAY
    assert await repo.archive_ended(clock.now - 30 * DAY) == [theirs, ours]
    assert await repo.purge_guild(OTHER) == 1
    assert await repo.get_game(theirs) is None and await repo.log(theirs) == []
    assert await repo.ratings(OTHER) == [] and await repo.get_game(ours) is not None
    async with repo.connection() as db, db.execute("SELECT game FROM rated_games ORDER BY game") as cur:
        assert [int(r[0]) for r in await cur.fetchall()] == [ours]


async def test_the_archive_loop_follows_the_setting(service: GameService) -> None:
    repo, clock = service.repo, service.clock
    done = await played(service, GUILD, (ANN, BO), 10_000)
    await delivered(repo, done)
    assert Settings.from_env({"ARCHIVE_AFTER_DAYS": "7"}, dotenv_path=None).archive_after_days == 7.0
    assert Settings.from_env({}, dotenv_path=None).archive_after_days == 30.0
    with pytest.raises(ValueError, match="ARCHIVE_AFTER_DAYS"):
        Settings.from_env({"ARCHIVE_AFTER_DAYS": "soon"}, dotenv_path=None)

    def operator(days: float) -> Operator:
        ctx = SimpleNamespace(settings=Settings(archive_after_days=days), clock=clock, service=service)
        return Operator(ctx, None, None, started=0.0)  # type: ignore[arg-type]

    clock.now += 8 * DAY
    assert await operator(0).archive_due() == []  # (0: never)
    assert await operator(9).archive_due() == []
    assert await operator(7).archive_due() == [done]
    assert (await repo.get_game(done)).status == "finished"


async def test_an_old_database_upgrades_to_015_with_its_rated_games(tmp_path: Path) -> None:
    path = fixture_at(tmp_path, 13)
    clock = Clock()
    repo = Repository(str(path), clock=clock)
    await repo.open()
    try:
        assert await repo.schema_version() >= 15
        service = GameService(repo, clock=clock)
        await service.upgrade_snapshots()
        done = await played(service, GUILD, (ANN, BO), 10_000)
        await delivered(repo, done)
        old_finished = [g.id for g in await repo.games(status=("finished",)) if g.id != done]
        for game in old_finished:
            await delivered(repo, game)
        clock.now = 2e9  # (2033: the fixture's games ended in 2026)
        assert old_finished and await repo.archive_ended(clock.now - 30 * DAY) == sorted([*old_finished, done])
        for game in (*old_finished, done):
            assert await service.replay_matches(game)
        assert not await repo.record_ratings(done, GUILD, "carnival", [(ANN, 30.0, 5.0, True)])
    finally:
        await repo.close()


async def test_an_archived_game_is_copied_to_another_database(tmp_path: Path, database_url: str) -> None:
    clock = Clock()
    source = Repository(str(tmp_path / "src.db"), clock=clock)
    await source.open()
    target = Repository(database_url)
    await target.open()
    try:
        service = GameService(source, clock=clock)
        done = await played(service, GUILD, (ANN, BO), 10_000)
        await delivered(source, done)
        clock.now += 31 * DAY
        assert await source.archive_ended(clock.now - 30 * DAY) == [done]
        report = await copy_database(source, target)
        assert report.problems == [] and report.rows["archived_games"] == 1
        assert await target.get_game(done) == await source.get_game(done)
        assert await target.log(done) == await source.log(done)
        assert await GameService(target).replay_matches(done)
        new = await target.create_game(game_id="carnival", guild_id=1, channel_id=5, host_user_id=ANN,
                                       host_name="Ann", seed=1, options={}, move_timeout=60)
        assert new.id == done + 1  # (past the archived id)
    finally:
        await source.close()
        await target.close()


async def test_games_archived_before_an_engine_change_are_rebuilt_and_checked(tmp_path: Path) -> None:
    """The old fixture's games (snapshots of an older ``state_version``) archived as they are:
    ``upgrade_snapshots`` puts them back, rebuilds them by replay, and the next pass archives
    them again; ``python -m bot.check`` replays the archived games too."""
    path = fixture_at(tmp_path, 13)
    clock = Clock()
    clock.now = 2e9  # (2033: the fixture's games ended in 2026)
    repo = Repository(str(path), clock=clock)
    await repo.open()
    try:
        service = GameService(repo, clock=clock)
        finished = [g.id for g in await repo.games(status=("finished",))]
        for game in finished:
            await delivered(repo, game)
        assert await repo.archive_ended(clock.now) == finished
        stale = await repo.get_game(finished[0])
        assert stale.state["state_version"] != service.engine(stale).info.state_version
        rebuilt = await service.upgrade_snapshots()
        assert set(finished) <= set(rebuilt) and await repo.archived_ids() == []
        assert await repo.archive_ended(clock.now) == finished
        for game in finished:
            record = await repo.get_game(game)
            assert record.state["state_version"] == service.engine(record).info.state_version
            assert await service.replay_matches(game)
        assert await service.upgrade_snapshots() == []  # (nothing stale left, nothing put back)
        assert await repo.archived_ids() == finished
    finally:
        await repo.close()
    assert await check(str(path)) == (8, [])
