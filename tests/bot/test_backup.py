"""Backups by themselves and restore (bot/backup.py): an online backup
taken while moves are applied restores to a consistent database, retention deletes the
oldest, restore refuses to overwrite and verifies by replay; the bot's loop through the
offline Discord."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.__main__ import main
from bot.app import GameBot
from bot.backup import backup_time, backups, restore, take_backup
from bot.check import check
from bot.sandbox.fakecord import FakeDiscord
from bot.service import GameService
from bot.settings import Settings
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import get

T0 = 1_750_000_000.0  # 2025-06-15 15:06:40 UTC


def actions_in(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM actions").fetchone()[0])


@pytest_asyncio.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    repo = Repository(str(tmp_path / "games.db"))
    await repo.open()
    yield GameService(repo)
    await repo.close()


async def new_game(service: GameService, host: int) -> int:
    lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=2, host_user_id=host,
                                       host_name="a", options=None, move_timeout=60)
    await service.join(lobby.id, host + 1, "b")
    return (await service.start(lobby.id, host, is_moderator=False)).game.id


async def one_move(service: GameService, game: int, rng: random.Random) -> bool:
    """A random legal move in ``game``; False when the game is over."""
    record = await service.get(game)
    engine = get(record.game_id)
    state = service.state(record)
    if engine.outcome(state) is not None:
        return False
    seat = rng.choice(sorted(engine.to_move(state) - {CHANCE}))
    user = record.user_of(seat)
    assert user is not None
    await service.act(game, user, rng.choice(list(engine.legal_actions(state, seat))))
    return True


BEFORE_BACKUP = 6
"""The most moves a game takes before the backup ends: a two-player Carnival lasts at least 14 (7
rounds of 2 picks), so each game has moves left for after the backup on any machine."""


async def test_a_backup_taken_while_moves_are_applied_restores_to_a_consistent_database(
        service: GameService, tmp_path: Path) -> None:
    games = [await new_game(service, 10 * k + 1) for k in range(4)]
    database, folder = tmp_path / "games.db", tmp_path / "backups"
    moved = 0
    warm = asyncio.Event()  # some moves are in before the backup starts
    backed_up = asyncio.Event()
    after = 0  # moves each player task makes once the backup is done

    async def player(game: int, seed: int) -> None:
        nonlocal moved, after
        rng = random.Random(seed)
        done_after = mine = 0
        while done_after < 3:
            if mine == BEFORE_BACKUP and not backed_up.is_set():
                await backed_up.wait()  # (however slow the backup: the game is not over before it ends)
            if not await one_move(service, game, rng):
                return
            moved += 1
            mine += 1
            if moved >= 8:
                warm.set()
            if backed_up.is_set():
                done_after += 1
                after += 1

    async def backup() -> tuple[Path, int]:
        await warm.wait()
        at_start = await service.repo.count_actions(games[0]) + sum(
            [await service.repo.count_actions(g) for g in games[1:]])
        path = await asyncio.to_thread(take_backup, database, folder, at=T0, keep=3)
        backed_up.set()
        return path, at_start

    results = await asyncio.gather(backup(), *(player(g, k) for k, g in enumerate(games)))
    path, at_start = results[0]
    assert after > 0  # moves went on after the backup
    total = actions_in(database)
    assert at_start <= actions_in(path) < total
    assert path.name == "games-20250615-150640.db"
    done = await restore(path, tmp_path / "restored.db")
    assert (done.games, done.differ, done.installed) == (4, [], True)
    assert actions_in(tmp_path / "restored.db") == actions_in(path)
    assert await check(str(tmp_path / "restored.db")) == (4, [])


def make_db(path: Path) -> None:
    """A database with the bot's first tables (``bot.storage.backup.OUR_TABLES``) and one of its own."""
    with sqlite3.connect(path) as db:
        for table in ("games", "seats", "actions", "t"):
            db.execute(f"CREATE TABLE {table} (x)")
        db.execute("INSERT INTO t VALUES (1)")


def test_retention_deletes_the_oldest_and_nothing_else(tmp_path: Path) -> None:
    make_db(tmp_path / "games.db")
    folder = tmp_path / "backups"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    (folder / "other-20200101-000000.db").write_text("another database's backup")
    made = [take_backup(tmp_path / "games.db", folder, at=T0 + 3600 * k, keep=3) for k in range(5)]
    assert backups(folder, "games") == made[2:]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["notes.txt", "other-20200101-000000.db", *(p.name for p in made[2:])])
    assert [backup_time(p, "games") for p in made[2:]] == [T0 + 7200, T0 + 10800, T0 + 14400]
    with sqlite3.connect(made[-1]) as db:
        assert db.execute("SELECT x FROM t").fetchall() == [(1,)]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file, no -wal


def test_two_backups_in_one_second_both_stay(tmp_path: Path) -> None:
    make_db(tmp_path / "games.db")
    first = take_backup(tmp_path / "games.db", tmp_path / "b", at=T0, keep=5)
    second = take_backup(tmp_path / "games.db", tmp_path / "b", at=T0 + 0.5, keep=5)
    assert (first.name, second.name) == ("games-20250615-150640.db", "games-20250615-150640-2.db")
    assert backups(tmp_path / "b", "games") == [first, second]


def test_a_missing_database_is_not_created_by_a_backup(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        take_backup(tmp_path / "none.db", tmp_path / "b", at=T0, keep=2)
    assert not (tmp_path / "none.db").exists()


async def test_restore_refuses_to_overwrite_an_existing_database(service: GameService, tmp_path: Path) -> None:
    await new_game(service, 1)
    path = take_backup(tmp_path / "games.db", tmp_path / "b", at=T0, keep=2)
    target = tmp_path / "live.db"
    make_db(target)
    before = target.read_bytes()
    with pytest.raises(FileExistsError, match="live.db exists"):
        await restore(path, target)
    assert target.read_bytes() == before
    (tmp_path / "fresh.db-wal").write_text("")  # a database's leftover write-ahead log counts too
    with pytest.raises(FileExistsError):
        await restore(path, tmp_path / "fresh.db")
    assert not (tmp_path / "fresh.db").exists()


async def test_a_backup_that_does_not_replay_is_not_restored(service: GameService, tmp_path: Path) -> None:
    game = await new_game(service, 1)
    await service.act(game, 1, "choose lust")
    path = take_backup(tmp_path / "games.db", tmp_path / "b", at=T0, keep=2)
    with sqlite3.connect(path) as db:  # a snapshot that is not what its log gives
        state = json.loads(db.execute("SELECT state FROM games").fetchone()[0])
        state["round"] = 5
        db.execute("UPDATE games SET state=?", (json.dumps(state),))
    done = await restore(path, tmp_path / "restored.db")
    assert (done.games, done.differ, done.installed) == (1, [game], False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b", "games.db", "games.db-shm", "games.db-wal"]


async def test_restore_command_line(service: GameService, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    game = await new_game(service, 1)
    await service.act(game, 1, "choose lust")
    path = take_backup(tmp_path / "games.db", tmp_path / "b", at=T0, keep=2)
    target = tmp_path / "new" / "games.db"
    assert await asyncio.to_thread(main, ["restore", str(path), "--to", str(target)]) == 0
    assert capsys.readouterr().out == f"1 game replayed, 0 differ\nrestored into {target}\n"
    assert actions_in(target) == actions_in(tmp_path / "games.db")
    assert await asyncio.to_thread(main, ["restore", str(path), "--to", str(target)]) == 2
    assert capsys.readouterr().err.startswith(f"not restored: {target} exists")
    assert await asyncio.to_thread(main, ["restore", str(tmp_path / "b" / "notes.txt"), "--to",
                                          str(tmp_path / "x.db")]) == 2
    (tmp_path / "junk.db").write_text("not a database")
    assert await asyncio.to_thread(main, ["restore", str(tmp_path / "junk.db"), "--to", str(tmp_path / "x.db")]) == 2
    assert not (tmp_path / "x.db").exists()
    capsys.readouterr()
    (tmp_path / "emptied.db").write_bytes(b"")  # (a backup emptied or truncated to nothing)
    assert await asyncio.to_thread(main, ["restore", str(tmp_path / "emptied.db"), "--to", str(tmp_path / "x.db")]) == 2
    assert not (tmp_path / "x.db").exists()
    assert capsys.readouterr().err == (f"not restored: {tmp_path / 'emptied.db'} is empty (no tables: the file was"
                                       " emptied or truncated, or never written)\n")


def test_backup_settings_from_the_environment() -> None:
    s = Settings.from_env({"BACKUP_DIR": "/srv/backups", "BACKUP_EVERY_MINUTES": "15", "BACKUP_KEEP": "96"},
                          dotenv_path=None)
    assert (s.backup_dir, s.backup_every_minutes, s.backup_keep) == ("/srv/backups", 15.0, 96)
    d = Settings.from_env({}, dotenv_path=None)
    assert (d.backup_dir, d.backup_every_minutes, d.backup_keep) == ("", 60.0, 48)
    with pytest.raises(ValueError, match="BACKUP_KEEP must be at least 1"):
        Settings.from_env({"BACKUP_KEEP": "0"}, dotenv_path=None)
    with pytest.raises(ValueError, match="BACKUP_EVERY_MINUTES must be a number"):
        Settings.from_env({"BACKUP_EVERY_MINUTES": "hourly"}, dotenv_path=None)


async def test_the_running_bot_backs_up_by_itself_and_keeps_the_newest(tmp_path: Path) -> None:
    async with FakeDiscord(owner_name="alice") as fake:
        conf = Settings(database_path=str(tmp_path / "games.db"), token="offline", tick_seconds=3600,
                        backup_every_minutes=60, backup_keep=2)
        bot = GameBot(conf, clock=fake.now)
        await fake.start_bot(bot)
        folder = tmp_path / "backups"  # the default: next to the database
        try:
            first = await fake.wait_for(lambda: bot.backups.last)  # none yet: one at start
            assert backups(folder, "games") == [first]
            assert await bot.backups.tick() is None  # not due within the hour
            fake.advance(3600)
            second = await bot.backups.tick()
            fake.advance(3600)
            third = await bot.backups.tick()
            assert second is not None and third is not None
            assert backups(folder, "games") == [second, third]
        finally:
            await fake.stop_bot(bot)
        again = GameBot(conf, clock=fake.now)  # a restart with a recent backup takes none at start
        await fake.start_bot(again)
        try:
            await fake.wait_for(lambda: again.backups.passes >= 1)
            assert again.backups.last is None and backups(folder, "games") == [second, third]
        finally:
            await fake.stop_bot(again)
        assert not fake.errors.records, [r.getMessage() for r in fake.errors.records]
