"""``python -m bot.migrate``: a whole database copied to another backend (SQLite to SQLite
and SQLite to PostgreSQL) and verified by replay."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.migrate import ALL_STATUSES, copy_database, main
from bot.service import GameService
from bot.storage import OutboxItem, Repository
from engines.base import CHANCE
from engines.registry import get

FIXTURE = Path(__file__).parent.parent / "fixtures" / "pre_shape_v1.db"
ANN, BO, CY = 101, 102, 103


async def played_source(path: Path) -> dict[str, int]:
    """An SQLite database with a game played part-way, a finished one, a lobby, preferences,
    DM and clock settings and a pending outbox row; returns the rows per table."""
    repo = Repository(str(path), clock=lambda: 5000.0)
    await repo.open()
    service = GameService(repo, clock=lambda: 5000.0)
    engine = get("carnival")
    try:
        for moves in (7, 10_000):
            lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=5, host_user_id=ANN,
                                               host_name="Ann", options=None, move_timeout=600)
            for uid in (BO, CY):
                await service.join(lobby.id, uid, f"u{uid}")
            game = (await service.start(lobby.id, ANN, is_moderator=False)).game
            for _ in range(moves):
                if game.status != "active":
                    break
                state = service.state(game)
                seat = sorted(engine.to_move(state) - {CHANCE})[0]
                game = (await service.act(game.id, game.user_of(seat), engine.legal_actions(state, seat)[0],
                                          expected_version=game.version)).game
        await service.create_lobby(game_id="carnival", guild_id=2, channel_id=6, host_user_id=BO, host_name="Bo",
                                   options=None, move_timeout=600)
        await repo.set_preference(ANN, "carnival", "auto", "on")
        await repo.set_notify(BO, 0, hands=False, turns=True)
        await repo.set_quiet_hours(1, (22 * 60, 7 * 60, "Europe/Paris"))
        await repo.defer_pings(1, [0, 2])
        await repo.append(1, (await repo.get_game(1)).version, [], state=(await repo.get_game(1)).state or {},
                          status="active", outbox=[OutboxItem("ping", 1, {"seats": [1]})])
        tables = await repo.tables()
        return {t: len(await repo.rows(t, list(cols))) for t, cols in tables.items()}
    finally:
        await repo.close()


async def test_a_played_database_is_copied_and_verified(tmp_path: Path, database_url: str) -> None:
    counts = await played_source(tmp_path / "src.db")
    assert counts["games"] == 3 and counts["actions"] > 20 and counts["outbox"] > 0
    source, target = Repository(str(tmp_path / "src.db")), Repository(database_url)
    await source.open()
    await target.open()
    try:
        report = await copy_database(source, target)
        assert report.problems == [] and report.skipped == []
        assert report.rows == counts and report.games == 3 and report.replayed == 3  # (a lobby replays trivially)
        assert await target.pending() == await source.pending()
        assert await target.preferences(ANN, "carnival") == {"auto": "on"}
        assert await target.quiet_hours(1) == (22 * 60, 7 * 60, "Europe/Paris")
        assert await target.notify_settings(BO, 1) == (False, True)
        assert await target.deferred_pings() == {1: [0, 2]}
        # the copy goes on: the next game and outbox row get new ids
        new = await target.create_game(game_id="carnival", guild_id=1, channel_id=5, host_user_id=ANN,
                                       host_name="Ann", seed=1, options={}, move_timeout=60)
        assert new.id == 4
        with pytest.raises(ValueError, match="already holds games"):
            await copy_database(source, target)
    finally:
        await source.close()
        await target.close()


async def test_the_old_database_is_copied_and_replays(tmp_path: Path, database_url: str) -> None:
    shutil.copy(FIXTURE, tmp_path / "old.db")
    source, target = Repository(str(tmp_path / "old.db")), Repository(database_url)
    await source.open()
    await target.open()
    try:
        report = await copy_database(source, target)
        games = await source.games(status=ALL_STATUSES)
        assert report.problems == [] and report.games == len(games) > 0
        assert report.replayed == len(games)
        assert [g.id for g in await target.games(status=ALL_STATUSES)] == [g.id for g in games]
    finally:
        await source.close()
        await target.close()


def test_the_command_line_copies_and_refuses_a_full_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(FIXTURE, tmp_path / "old.db")
    source, target = f"sqlite:///{tmp_path / 'old.db'}", f"sqlite:///{tmp_path / 'new.db'}"
    assert main([source, target]) == 0
    out = capsys.readouterr().out
    assert "verified" in out and "games:" in out
    assert main([source, target]) == 2
    assert "already holds games" in capsys.readouterr().err


def test_the_command_line_refuses_a_source_that_is_not_the_bots_database(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing, empty = tmp_path / "data" / "games.db", tmp_path / "empty.db"
    empty.write_bytes(b"")
    target = f"sqlite:///{tmp_path / 'new.db'}"
    assert main([f"sqlite:///{missing}", target]) == 2
    assert main([f"sqlite:///{empty}", target]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]
    assert empty.read_bytes() == b""
    assert capsys.readouterr().err == (
        f"migrate: the source database {missing} does not exist: nothing copied\n"
        f"migrate: the source database {empty} is empty (no tables: the file was emptied or truncated,"
        " or never written): nothing copied\n")
