"""Storage (design §4, §7.4): migrations, lobby seats, the append-only log with
compare-and-set, due deadlines, preferences."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.storage import LogEntry, Repository, StaleVersion, gamelog


@pytest.fixture
async def repo(database_url):
    now = [1000.0]
    r = Repository(database_url, clock=lambda: now[0])
    r.now = now  # type: ignore[attr-defined]
    await r.open()
    yield r
    await r.close()


async def new_lobby(repo: Repository, timeout: int = 100):
    return await repo.create_game(game_id="carnival", guild_id=1, channel_id=2, host_user_id=10,
                                  host_name="Ann", seed=42, options={"table_model": "spatial"},
                                  move_timeout=timeout)


LATEST_MIGRATION = max(int(p.name.split("_", 1)[0]) for p in
                       (Path(__file__).parents[2] / "bot" / "storage" / "migrations").glob("[0-9]*_*.sql"))


async def test_migrations_from_empty_set_user_version_and_pragmas(repo: Repository) -> None:
    assert LATEST_MIGRATION >= 2
    assert await repo.schema_version() == LATEST_MIGRATION
    if repo.backend == "sqlite":
        async with repo.db.execute("PRAGMA user_version") as cur:
            assert (await cur.fetchone())[0] == LATEST_MIGRATION
        async with repo.db.execute("PRAGMA journal_mode") as cur:
            assert (await cur.fetchone())[0] == "wal"
        async with repo.db.execute("PRAGMA foreign_keys") as cur:
            assert (await cur.fetchone())[0] == 1
    assert await repo.migrate() == LATEST_MIGRATION  # idempotent
    async with repo.connection() as db, db.execute("SELECT deadline_window FROM games") as cur:
        assert await cur.fetchall() == []
    assert await repo.pending() == []  # 003: the outbox


async def test_lobby_join_leave_renumbers_seats(repo: Repository) -> None:
    g = await new_lobby(repo)
    assert [(s.seat, s.user_id) for s in g.seats] == [(0, 10)]
    await repo.join(g.id, 11, "Bo", 5)
    g = await repo.join(g.id, 12, "Cy", 5)
    assert [(s.seat, s.user_id, s.name) for s in g.seats] == [(0, 10, "Ann"), (1, 11, "Bo"), (2, 12, "Cy")]
    with pytest.raises(ValueError, match="already"):
        await repo.join(g.id, 11, "Bo", 5)
    with pytest.raises(ValueError, match="full"):
        await repo.join(g.id, 13, "Di", 3)
    g = await repo.leave(g.id, 11)
    assert [(s.seat, s.user_id) for s in g.seats] == [(0, 10), (1, 12)]
    with pytest.raises(ValueError, match="not in this game"):
        await repo.leave(g.id, 11)
    assert g.host_user_id == 10
    g = await repo.leave(g.id, 10)  # the host leaves: who joined next (12) is the host
    assert (g.host_user_id, [(s.seat, s.user_id) for s in g.seats]) == (12, [(0, 12)])


async def test_append_is_compare_and_set_and_log_is_ordered(repo: Repository) -> None:
    g = await new_lobby(repo)
    v = await repo.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start", "players": 1}),
                                    LogEntry(0, "chance", -1, {"type": "roll"})],
                          state={"n": 1}, status="active", players=1, deadline=1100.0, waiting=[0])
    assert v == 2
    with pytest.raises(StaleVersion):
        await repo.append(g.id, 1, [LogEntry(0, "player", 0, {"type": "x"})], state={"n": 9}, status="active")
    g2 = await repo.get_game(g.id)
    assert (g2.version, g2.state, g2.status, g2.deadline, g2.waiting, g2.players) == (
        2, {"n": 1}, "active", 1100.0, [0], 1)
    assert [(e.seq, e.kind, e.seat, e.action["type"]) for e in await repo.log(g.id)] == [
        (1, "system", None, "start"), (2, "chance", -1, "roll")]


async def test_concurrent_appends_at_the_same_version_one_wins(repo: Repository) -> None:
    g = await new_lobby(repo)

    async def write(tag: str) -> str:
        try:
            await repo.append(g.id, 0, [LogEntry(0, "player", 0, {"type": tag})], state={"t": tag},
                              status="active")
            return "ok"
        except StaleVersion:
            return "stale"

    results = await asyncio.gather(*(write(f"m{i}") for i in range(5)))
    assert sorted(results) == ["ok", "stale", "stale", "stale", "stale"]
    assert await repo.count_actions(g.id) == 1


async def test_due_reports_reminders_and_expiry(repo: Repository) -> None:
    g = await new_lobby(repo, timeout=100)
    await repo.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start", "players": 1})],
                      state={}, status="active", deadline=1100.0, waiting=[0])
    assert await repo.due(1040.0) == []
    assert [x.id for x in await repo.due(1050.0)] == [g.id]           # 50 %
    assert await repo.mark_reminded(g.id, 1, 1)
    assert await repo.due(1060.0) == []
    assert [x.id for x in await repo.due(1090.0)] == [g.id]           # 90 %
    assert await repo.mark_reminded(g.id, 1, 2)
    assert await repo.due(1095.0) == []
    assert [x.id for x in await repo.due(1100.0)] == [g.id]           # expiry
    assert not await repo.mark_reminded(g.id, 7, 2)                   # stale version


async def test_status_replace_and_left_seats_are_logged(repo: Repository) -> None:
    g = await new_lobby(repo)
    await repo.join(g.id, 11, "Bo", 5)
    await repo.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start", "players": 2})],
                      state={}, status="active")
    v = await repo.replace_seat(g.id, 1, 99, "Zed", expected_version=1,
                                entry=LogEntry(0, "system", None, {"type": "replace"}, user_id=10))
    v = await repo.mark_seat_left(g.id, 0, expected_version=v,
                                  entry=LogEntry(0, "system", None, {"type": "kick"}, user_id=10))
    v = await repo.set_status(g.id, "abandoned", expected_version=v,
                              entry=LogEntry(0, "system", None, {"type": "end"}, user_id=10))
    g = await repo.get_game(g.id)
    assert g.status == "abandoned" and v == 4 and g.version == 4
    assert [(s.user_id, s.name, s.status) for s in g.seats] == [(10, "Ann", "left"), (99, "Zed", "active")]
    assert g.seat_of(10) is None and g.seat_of(99) == 1
    assert [e.action["type"] for e in await repo.log(g.id)] == ["start", "replace", "kick", "end"]
    with pytest.raises(StaleVersion):
        await repo.set_status(g.id, "finished", expected_version=1, entry=LogEntry(0, "system", None, {}))


async def test_games_filters_and_preferences(repo: Repository) -> None:
    a = await new_lobby(repo)
    b = await repo.create_game(game_id="carnival", guild_id=1, channel_id=3, host_user_id=11, host_name="Bo",
                               seed=1, options={}, move_timeout=10)
    await repo.set_fields(b.id, thread_id=77)
    assert [g.id for g in await repo.games(user_id=10)] == [a.id]
    assert [g.id for g in await repo.games(channel_id=77)] == [b.id]
    assert [g.id for g in await repo.games(channel_id=2)] == [a.id]
    with pytest.raises(ValueError):
        await repo.set_fields(a.id, version=5)
    assert await repo.get_preference(10, "*", "dm_notify") is None
    await repo.set_preference(10, "*", "dm_notify", "on")
    await repo.set_preference(10, "*", "dm_notify", "off")
    assert await repo.get_preference(10, "*", "dm_notify") == "off"
    assert await repo.delete_user_data(10) == 1
    await repo.set_moderator_role(1, 555)
    assert await repo.moderator_role(1) == 555


async def test_appended_reads_back_the_stored_game_and_its_new_entries(repo: Repository) -> None:
    g = await new_lobby(repo)
    await repo.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start", "players": 1})],
                      state={"n": 1}, status="active", players=1)
    repo.now[0] = 1200.0  # type: ignore[attr-defined]
    record, entries = await repo.appended(g.id, 1, [LogEntry(0, "player", 0, {"type": "a"}, user_id=10),
                                                    LogEntry(0, "chance", -1, {"type": "roll"})],
                                          state={"n": 2}, status="active", deadline=1300.0, waiting=[0])
    assert record == await repo.get_game(g.id)
    assert (record.version, record.state, record.deadline, record.waiting, record.updated_at) == (
        3, {"n": 2}, 1300.0, [0], 1200.0)
    assert entries == (await repo.log(g.id))[1:]
    assert [(e.seq, e.kind, e.action["type"], e.user_id) for e in entries] == [(2, "player", "a", 10),
                                                                              (3, "chance", "roll", None)]
    with pytest.raises(StaleVersion):
        await repo.appended(g.id, 1, [LogEntry(0, "player", 0, {"type": "b"})], state={"n": 9}, status="active")
    assert (await repo.get_game(g.id)).state == {"n": 2} and len(await repo.log(g.id)) == 3


async def test_game_with_log_reads_the_game_and_the_last_entries(repo: Repository) -> None:
    g = await new_lobby(repo)
    await repo.append(g.id, 0, [LogEntry(0, "player", 0, {"type": f"m{i}"}) for i in range(5)], state={"n": 5},
                      status="active")
    record, entries = await repo.game_with_log(g.id, last=2)
    assert record == await repo.get_game(g.id) and record.version == 5
    assert entries == await repo.log(g.id, last=2) and [e.seq for e in entries] == [4, 5]
    assert await repo.game_with_log(g.id + 99, last=2) == (None, [])


async def test_game_with_log_parses_only_the_entries_after_those_it_holds(
        repo: Repository, monkeypatch: pytest.MonkeyPatch) -> None:
    g = await new_lobby(repo)
    await repo.append(g.id, 0, [LogEntry(0, "player", 0, {"type": f"m{i}"}) for i in range(5)], state={"n": 5},
                      status="active")
    parsed: list[int] = []
    plain = gamelog.row_to_entry

    def counted(row: Any) -> LogEntry:
        parsed.append(row[0])
        return plain(row)

    monkeypatch.setattr(gamelog, "row_to_entry", counted)
    record, entries = await repo.game_with_log(g.id, last=3)
    assert [e.seq for e in entries] == [3, 4, 5] and parsed == [3, 4, 5]
    await repo.append(g.id, 5, [LogEntry(0, "player", 1, {"type": "m5"}), LogEntry(0, "chance", None, {"type": "r"})],
                      state={"n": 7}, status="active")
    parsed.clear()
    record, entries = await repo.game_with_log(g.id, last=3)
    assert record == await repo.get_game(g.id) and record.version == 7
    assert parsed == [6, 7]
    assert [(e.seq, e.action["type"]) for e in entries] == [(5, "m4"), (6, "m5"), (7, "r")]
    parsed.clear()
    assert (await repo.game_with_log(g.id, last=3))[1] == entries and parsed == []  # (nothing new: nothing parsed)
    repo._log_tails.clear()
    assert entries == await repo.log(g.id, last=3)  # (as read afresh)


async def test_preferences_of_reads_every_user_of_one_game(repo: Repository) -> None:
    await repo.set_preference(10, "heaven", "auto_defend", "on")
    await repo.set_preference(10, "heaven", "other", "x")
    await repo.set_preference(11, "heaven", "auto_defend", "off")
    await repo.set_preference(11, "carnival", "auto_defend", "on")  # another game: not read
    await repo.set_preference(13, "heaven", "auto_defend", "on")  # not asked for
    assert await repo.preferences_of([10, 11, 12, 11], "heaven") == {
        10: {"auto_defend": "on", "other": "x"}, 11: {"auto_defend": "off"}}
    assert await repo.preferences_of([], "heaven") == {}
    assert await repo.preferences_of([12], "heaven") == {}


async def test_log_after_and_last_read_only_what_is_asked(repo: Repository) -> None:
    g = await new_lobby(repo)
    entries = [LogEntry(0, "player", 0, {"type": f"m{i}"}) for i in range(6)]
    await repo.append(g.id, 0, entries, state={}, status="active")
    assert [e.seq for e in await repo.log(g.id, after=4)] == [5, 6]
    assert [e.action["type"] for e in await repo.log(g.id, last=2)] == ["m4", "m5"]
    assert [e.seq for e in await repo.log(g.id, after=1, last=10)] == [2, 3, 4, 5, 6]
