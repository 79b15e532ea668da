"""A database that cannot be trusted stops the bot at start (bot/backup.py ``check_at_start``):
an emptied, truncated or foreign file, or a missing one while backups exist, is refused with a
message that says which and names the newest backup that replays; backups are never taken of
such a file, and rotation keeps the newest good backup."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from bot.__main__ import run
from bot.backup import DatabaseRefused, backups, check_at_start, prune, take_backup
from bot.service import GameService
from bot.settings import Settings
from bot.storage import Repository, StorageCorrupt
from bot.storage.backup import (
    APPLICATION_ID,
    DAMAGED,
    EMPTY,
    FOREIGN,
    MISSING,
    OURS,
    DatabaseFileError,
    inspect_database,
)

T0 = 1_750_000_000.0  # 2025-06-15 15:06:40 UTC


async def played(path: Path) -> int:
    """A database at ``path`` with one started Carnival game and one move; returns the game id."""
    repo = Repository(str(path))
    await repo.open()
    try:
        service = GameService(repo)
        lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=2, host_user_id=1,
                                           host_name="a", options=None, move_timeout=60)
        await service.join(lobby.id, 2, "b")
        game = (await service.start(lobby.id, 1, is_moderator=False)).game.id
        await service.act(game, 1, "choose lust")
        return game
    finally:
        await repo.close()


def tamper(backup: Path) -> None:
    """Make ``backup``'s snapshot differ from what its log replays to."""
    with sqlite3.connect(backup) as db:
        state = json.loads(db.execute("SELECT state FROM games").fetchone()[0])
        state["round"] = 5
        db.execute("UPDATE games SET state=?", (json.dumps(state),))


def sidecars_gone(path: Path) -> None:
    for side in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        side.unlink(missing_ok=True)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database_path=str(tmp_path / "games.db"), token="offline")


async def two_backups(tmp_path: Path) -> tuple[Path, Path]:
    """The database with a game, an older good backup and a newer one that does not replay."""
    await played(tmp_path / "games.db")
    good = take_backup(tmp_path / "games.db", tmp_path / "backups", at=T0, keep=5)
    bad = take_backup(tmp_path / "games.db", tmp_path / "backups", at=T0 + 3600, keep=5)
    tamper(bad)
    return good, bad


async def test_the_database_is_marked_as_the_bots_and_inspected_without_change(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    assert inspect_database(path).kind == MISSING
    await played(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    before = path.read_bytes()
    assert inspect_database(path) == type(inspect_database(path))(OURS, "", 1)
    assert path.read_bytes() == before


async def test_an_emptied_database_is_refused_and_the_newest_backup_that_replays_is_named(
        tmp_path: Path, settings: Settings) -> None:
    good, bad = await two_backups(tmp_path)
    database = tmp_path / "games.db"
    database.write_bytes(b"")
    sidecars_gone(database)
    assert inspect_database(database).kind == EMPTY
    with pytest.raises(DatabaseRefused) as refused:
        await check_at_start(settings, now=T0 + 2 * 3600 + 600)
    said = str(refused.value)
    assert said.splitlines()[0] == (f"The database {database} is empty (no tables: the file was emptied or "
                                    "truncated, or never written).")
    assert said.splitlines()[1] == (f"The newest backup that replays is {good} (1 started game; taken "
                                    "2025-06-15 15:06 UTC, 2 hours ago). Restore it with:")
    assert f"make restore FILE={good} TO={database}" in said
    assert str(bad) not in said
    assert database.read_bytes() == b""  # nothing was written to it
    assert backups(tmp_path / "backups", "games") == [good, bad]  # nor to the backups


def test_the_command_line_refuses_to_start_on_an_emptied_database(
        tmp_path: Path, settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    good, _ = asyncio.run(two_backups(tmp_path))
    (tmp_path / "games.db").write_bytes(b"")
    sidecars_gone(tmp_path / "games.db")
    assert run(settings) == 4
    err = capsys.readouterr().err
    assert err.startswith(f"The bot cannot start: The database {tmp_path / 'games.db'} is empty")
    assert f"make restore FILE={good}" in err
    assert (tmp_path / "games.db").read_bytes() == b""


async def test_a_truncated_database_is_called_damaged(tmp_path: Path, settings: Settings) -> None:
    good, _ = await two_backups(tmp_path)
    database = tmp_path / "games.db"
    sidecars_gone(database)
    data = database.read_bytes()
    database.write_bytes(data[: len(data) // 2])
    assert inspect_database(database).kind == DAMAGED
    with pytest.raises(DatabaseRefused) as refused:
        await check_at_start(settings, now=T0 + 3 * 86400)
    said = str(refused.value)
    assert said.startswith(f"The database {database} is damaged (corrupt: database disk image is malformed).")
    assert f"The newest backup that replays is {good} (1 started game; taken 2025-06-15 15:06 UTC, 3 days ago)." in said
    with pytest.raises(StorageCorrupt, match="is damaged \\(corrupt: database disk image is malformed\\)"):
        await Repository.check(str(database))


async def test_opening_a_file_that_is_not_a_database_closes_its_connection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection left open keeps aiosqlite's worker thread (not a daemon) alive: the process
    (``python -m bot.check`` on a damaged file) would never exit."""
    import aiosqlite

    import bot.storage.database as database_module

    opened: list[aiosqlite.Connection] = []
    real_connect = aiosqlite.connect

    def connect(*args: object, **kwargs: object) -> aiosqlite.Connection:
        opened.append(real_connect(*args, **kwargs))  # type: ignore[arg-type]
        return opened[-1]

    monkeypatch.setattr(database_module.aiosqlite, "connect", connect)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all, just text" * 100)
    with pytest.raises(StorageCorrupt, match="is damaged \\(corrupt: file is not a database\\)"):
        await Repository(str(junk)).open()
    assert len(opened) == 1
    assert opened[0]._connection is None


async def test_another_programs_database_is_refused(tmp_path: Path, settings: Settings) -> None:
    database = tmp_path / "games.db"
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE notes (x)")
    assert inspect_database(database).kind == FOREIGN
    with pytest.raises(DatabaseRefused) as refused:
        await check_at_start(settings)
    assert str(refused.value).splitlines() == [
        f"The database {database} is not this bot's database (it has no table actions, games, seats).",
        f"No backup that replays was found in {tmp_path / 'backups'}.",
        f"To start a new, empty database on purpose, move {database} away."]
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA application_id=1")
        for table in ("games", "seats", "actions"):
            db.execute(f"CREATE TABLE {table} (x)")
    assert inspect_database(database) == type(inspect_database(database))(FOREIGN, "its application id is 0x1")


async def test_a_missing_database_starts_anew_only_without_backups(tmp_path: Path, settings: Settings) -> None:
    await check_at_start(settings)  # a new installation
    good, _ = await two_backups(tmp_path)
    for p in tmp_path.glob("games.db*"):
        p.unlink()
    with pytest.raises(DatabaseRefused) as refused:
        await check_at_start(settings, now=T0 + 30)
    lines = str(refused.value).splitlines()
    assert lines[0] == f"The database {tmp_path / 'games.db'} does not exist."
    assert lines[1] == f"Backups of it are in {tmp_path / 'backups'}: a new, empty database would hide their games."
    assert lines[2] == (f"The newest backup that replays is {good} (1 started game; taken 2025-06-15 15:06 UTC, "
                        "under a minute ago). Restore it with:")
    assert not (tmp_path / "games.db").exists()


async def test_no_backup_is_taken_of_a_database_that_fails_its_check(tmp_path: Path) -> None:
    good, bad = await two_backups(tmp_path)
    database = tmp_path / "games.db"
    database.write_bytes(b"")
    sidecars_gone(database)
    with pytest.raises(DatabaseFileError, match="is empty .*: no backup taken"):
        take_backup(database, tmp_path / "backups", at=T0 + 7200, keep=1)
    assert backups(tmp_path / "backups", "games") == [good, bad]  # none written, none rotated away


async def test_rotation_keeps_the_newest_good_backup(tmp_path: Path) -> None:
    await played(tmp_path / "games.db")
    folder = tmp_path / "backups"
    first = take_backup(tmp_path / "games.db", folder, at=T0, keep=5)
    late = [folder / "games-20250616-000000.db", folder / "games-20250616-010000.db"]
    late[0].write_bytes(b"")  # backups of a file gone bad (as an older bot took them)
    late[1].write_bytes(b"not a database at all, just text" * 100)
    assert prune(folder, "games", keep=2) == []  # the good one stays while it is the only good one
    second = take_backup(tmp_path / "games.db", folder, at=T0 + 60, keep=5)
    assert prune(folder, "games", keep=2) == [first]
    assert backups(folder, "games") == [second, *late]
