"""The log tail a ``Repository`` keeps in memory (bot/storage/records.py ``LogTail``):
``log(..., upto=)`` answers from the newest entries this process wrote or read,
exactly as the database would, and reads the database whenever memory does not hold them
all (older entries, a newer version another process wrote, entries anonymised). Also the
quiet hours it remembers for ``QUIET_HOURS_FRESH`` seconds."""

from __future__ import annotations

import pytest
from cachetools import TTLCache

from bot.storage import LogEntry, Repository
from bot.storage.records import ANON_USER, LOG_TAIL_ENTRIES, QUIET_HOURS_FRESH


@pytest.fixture
async def repo(database_url):
    r = Repository(database_url, clock=lambda: 1000.0)
    await r.open()
    yield r
    await r.close()


def counted(repo: Repository) -> list[int]:
    """Count the trips ``repo`` makes to the database for reads (``_fetch``)."""
    trips = [0]
    fetch = repo._fetch

    async def counting(queries):
        trips[0] += 1
        return await fetch(queries)

    repo._fetch = counting  # type: ignore[method-assign]
    return trips


async def started(repo: Repository, moves: int) -> tuple[int, int]:
    """A game of Ann (user 10) and Bo (11) with a start entry and ``moves`` moves, written with ``appended``: (id, version)."""
    g = await repo.create_game(game_id="carnival", guild_id=1, channel_id=2, host_user_id=10,
                               host_name="Ann", seed=1, options={}, move_timeout=100)
    await repo.join(g.id, 11, "Bo", 2)
    version = await repo.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start", "players": 2})],
                                state={"n": 0}, status="active", players=2)
    for i in range(moves):
        record, _ = await repo.appended(g.id, version, [LogEntry(0, "player", i % 2, {"type": f"m{i}"},
                                                                 user_id=10 + i % 2)],
                                        state={"n": i + 1}, status="active")
        version = record.version
    return g.id, version


def seqs(entries: list[LogEntry]) -> list[int]:
    return [e.seq for e in entries]


async def test_entries_a_move_wrote_are_served_without_a_read(repo: Repository) -> None:
    game, version = await started(repo, 5)  # (seq 1: start, 2..6: moves; each move kept its entry)
    trips = counted(repo)
    assert seqs(await repo.log(game, after=version - 1, upto=version)) == [6]
    assert seqs(await repo.log(game, last=3, upto=version)) == [4, 5, 6]
    assert seqs(await repo.log(game, after=3, last=2, upto=5)) == [4, 5]  # (an older version: cut there)
    assert trips[0] == 0
    assert seqs(await repo.log(game, upto=version)) == [1, 2, 3, 4, 5, 6]  # (seq 1 was never in memory)
    assert trips[0] == 1
    assert seqs(await repo.log(game, upto=version)) == [1, 2, 3, 4, 5, 6]  # (now it is: the read filled it)
    assert trips[0] == 1
    fresh = await repo.log(game)  # (without upto: always the database)
    assert trips[0] == 2
    assert [(e.seq, e.kind, e.seat, e.action, e.events, e.user_id) for e in fresh] == [
        (e.seq, e.kind, e.seat, e.action, e.events, e.user_id) for e in await repo.log(game, upto=version)]


async def test_a_newer_version_is_read_and_a_long_log_keeps_only_its_newest_entries(repo: Repository) -> None:
    game, version = await started(repo, LOG_TAIL_ENTRIES + 10)
    trips = counted(repo)
    newest = await repo.log(game, last=LOG_TAIL_ENTRIES, upto=version)
    assert seqs(newest) == list(range(version - LOG_TAIL_ENTRIES + 1, version + 1)) and trips[0] == 0
    assert seqs(await repo.log(game, last=LOG_TAIL_ENTRIES + 1, upto=version))[0] == version - LOG_TAIL_ENTRIES
    assert trips[0] == 1  # (one entry more than memory keeps: read)
    assert seqs(await repo.log(game, after=version, upto=version + 1)) == []
    assert trips[0] == 2  # (a version this process has not seen: read, even when nothing is there)


async def test_another_process_writing_is_read_not_missed(repo: Repository, database_url) -> None:
    game, version = await started(repo, 3)
    assert seqs(await repo.log(game, last=2, upto=version)) == [3, 4]
    other = Repository(database_url, clock=lambda: 1000.0)
    await other.open()
    try:
        await other.append(game, version, [LogEntry(0, "player", 1, {"type": "theirs"})], state={"n": 9},
                           status="active")
    finally:
        await other.close()
    trips = counted(repo)
    assert [e.action["type"] for e in await repo.log(game, last=2, upto=version + 1)] == ["m2", "theirs"]
    assert trips[0] == 1
    assert seqs(await repo.log(game, after=version - 1, upto=version)) == [version]  # (the old version still)
    assert [e.action["type"] for e in await repo.log(game, after=version, upto=version + 1)] == ["theirs"]
    assert trips[0] == 1  # (both from memory: the read joined the new entry to what was known)


async def test_entries_anonymised_are_read_afresh(repo: Repository) -> None:
    game, version = await started(repo, 4)
    record, _ = await repo.appended(game, version, [LogEntry(0, "system", None, {"type": "abandon"})],
                                    state={"n": 4}, status="abandoned")
    assert {e.user_id for e in await repo.log(game, last=3, upto=record.version)} == {10, 11, None}
    assert await repo.anonymise_user(11, lambda seat: f"#{seat}") == [game]
    trips = counted(repo)
    assert {e.user_id for e in await repo.log(game, last=3, upto=record.version)} == {10, ANON_USER, None}
    assert trips[0] == 1


async def test_quiet_hours_are_read_again_only_after_a_while_or_a_change(repo: Repository, database_url) -> None:
    now = [0.0]
    repo._quiet = TTLCache(8, QUIET_HOURS_FRESH, timer=lambda: now[0])
    assert await repo.quiet_hours(1) is None
    trips = counted(repo)
    assert await repo.quiet_hours(1) is None and trips[0] == 0          # (none set: remembered too)
    await repo.set_quiet_hours(1, (60, 120, "UTC"))
    assert await repo.quiet_hours(1) == (60, 120, "UTC") and trips[0] == 1  # (its own change: at once)
    other = Repository(database_url, clock=lambda: 1000.0)
    await other.open()
    try:
        await other.set_quiet_hours(1, (0, 30, "Asia/Tokyo"))
    finally:
        await other.close()
    now[0] = QUIET_HOURS_FRESH - 0.5
    assert await repo.quiet_hours(1) == (60, 120, "UTC") and trips[0] == 1  # (another process's: not yet)
    now[0] = QUIET_HOURS_FRESH + 0.5
    assert await repo.quiet_hours(1) == (0, 30, "Asia/Tokyo") and trips[0] == 2
