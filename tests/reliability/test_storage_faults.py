"""Storage faults are explained, and recovered from (trust issue, point 5).

A database locked beyond the busy timeout answers "The game is busy — try again in a
moment." privately and applies nothing; a database that cannot be written is refused
at start (with its path and the reason) and, while running, answers a clear private
sentence, logs an operator line, and works again by itself once it is writable.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import sys
from pathlib import Path

import pytest

from bot.sandbox.fakecord import HANG_GUARD, FakeDiscord
from bot.service import BUSY, UNWRITABLE, texts
from bot.storage import Repository, StorageUnwritable
from engines.registry import notation_of
from tests.e2e.driver import Driver
from tests.reliability.botkit import checked_fake, legal_text, member, two_player_game


@pytest.fixture
async def fake():
    async with checked_fake() as fd:
        yield fd


async def move_reply(fake: FakeDiscord, driver: Driver, game: int, rng: random.Random) -> tuple[str, str]:
    """Type a legal move of a waiting player; (the private reply, the move's label: what a
    confirmation says)."""
    user_id, text = await legal_text(driver.bot, game, rng)
    record = await driver.bot.service.get(game)
    engine, state, seat = driver.bot.service.engine(record), driver.bot.service.state(record), record.seat_of(user_id)
    assert seat is not None
    label = texts(record)(notation_of(engine).action_label(state, notation_of(engine).parse_action(state, seat, text)))
    token = await fake.slash(member(fake, user_id), "carnival", "play", action=text, game=game)
    await driver.settle()
    reply = fake.message_for(token)
    assert reply is not None and reply["flags"] & 64  # private
    return reply["content"], label


async def test_locked_beyond_the_busy_timeout_answers_busy_and_applies_nothing(fake, tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    bot, driver, game = await two_player_game(fake, db)
    before = await bot.service.get(game)
    entries = await bot.repo.count_actions(game)
    await bot.repo.db.execute("PRAGMA busy_timeout=50")
    other = sqlite3.connect(db, isolation_level=None, timeout=0)  # another process's writer
    other.execute("BEGIN IMMEDIATE")
    try:
        reply, _ = await move_reply(fake, driver, game, random.Random(1))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert reply == f"⚠️ {BUSY}"
    after = await bot.service.get(game)
    assert (after.version, after.state) == (before.version, before.state)
    assert await bot.repo.count_actions(game) == entries
    assert not fake.errors.records  # a refusal, not a bug
    reply, said = await move_reply(fake, driver, game, random.Random(1))  # the lock is gone: it works
    assert reply.startswith(f"✓ {said}")
    assert (await bot.service.get(game)).version > before.version
    await fake.stop_bot(bot)


async def test_unwritable_while_running_is_explained_logged_and_recovers_without_restart(
        fake, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "games.db"
    bot, driver, game = await two_player_game(fake, db)
    before = await bot.service.get(game)
    await bot.repo.db.execute("PRAGMA query_only=1")  # the file turned read-only under the bot
    with caplog.at_level(logging.WARNING, logger="bot.storage"):
        reply, _ = await move_reply(fake, driver, game, random.Random(2))
        assert reply == f"⚠️ {UNWRITABLE}"
        assert (await bot.service.get(game)).version == before.version
        operator = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "bot.storage.database"]
        assert len(operator) == 1 and str(db) in operator[0].getMessage()
        assert "readonly" in operator[0].getMessage()
        reply, _ = await move_reply(fake, driver, game, random.Random(3))  # still refused, logged once
        assert reply == f"⚠️ {UNWRITABLE}"
        assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 1
        await bot.repo.db.execute("PRAGMA query_only=0")  # the operator fixed it: no restart
        reply, said = await move_reply(fake, driver, game, random.Random(2))
        assert reply.startswith(f"✓ {said}")
        assert any("writable again" in r.getMessage() for r in caplog.records)
    assert (await bot.service.get(game)).version > before.version
    assert bot.repo.fault is None
    fake.errors.records.clear()  # (the operator line is an ERROR by design)
    await fake.stop_bot(bot)


@pytest.mark.parametrize("case", ["parent is a file", "path is a folder", "not a database"])
async def test_a_database_that_cannot_be_used_is_refused_at_start_with_its_path(tmp_path: Path, case: str) -> None:
    if case == "parent is a file":
        (tmp_path / "plain").write_text("x")
        path = tmp_path / "plain" / "games.db"
    elif case == "path is a folder":
        path = tmp_path / "games.db"
        path.mkdir()
    else:
        path = tmp_path / "games.db"
        path.write_bytes(b"this is not an SQLite file" * 100)
    with pytest.raises(StorageUnwritable) as caught:
        await Repository(str(path)).open()
    assert caught.value.path == str(path) and str(path) in str(caught.value)
    if case == "not a database":  # (a damaged file: only a backup helps, not permissions or disk space)
        assert str(caught.value).startswith(f"The database {path} is damaged (corrupt: file is not a database). "
                                            "Restore the newest backup that replays")
    else:
        assert "cannot be written" in str(caught.value)


async def test_the_bot_refuses_to_start_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    path = tmp_path / "plain" / "games.db"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
        cwd=tmp_path, env={"DATABASE_PATH": str(path), "DISCORD_TOKEN": "not-used-offline", "PATH": "/usr/bin"})
    _, err = await asyncio.wait_for(proc.communicate(), HANG_GUARD)
    assert proc.returncode == 4
    text = err.decode()
    assert f"The database {path} cannot be written" in text and "The bot cannot start" in text
