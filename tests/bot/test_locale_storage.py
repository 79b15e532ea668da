"""Migration 008 (bot/storage/migrations/008_locales.sql): the languages chosen with
``/game language`` are stored per server and per user, also in a database written before
the migration (tests/fixtures/pre_shape_v1.db), and a user's is forgotten with their data."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from bot.storage import Repository

FIXTURE = Path(__file__).parent.parent / "fixtures" / "pre_shape_v1.db"


async def test_an_old_database_gains_the_language_tables_and_keeps_its_games(tmp_path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    with sqlite3.connect(path) as db:
        before = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        assert "user_locales" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    repo = Repository(str(path))
    await repo.open()
    try:
        assert await repo.locales() == ({}, {})
        await repo.set_guild_locale(7, "ja")
        await repo.set_moderator_role(8, 99)
        await repo.set_user_locale(1, "zh_TW")
        await repo.set_user_locale(2, "zh_CN")
        await repo.set_user_locale(2, "ja")
        assert await repo.locales() == ({7: "ja"}, {1: "zh_TW", 2: "ja"})
        await repo.set_guild_locale(7, None)
        await repo.set_user_locale(1, None)
        assert await repo.locales() == ({}, {2: "ja"})
        assert await repo.moderator_role(8) == 99
        assert await repo.delete_user_data(2) >= 1
        assert await repo.locales() == ({}, {})
        assert len(await repo.games(status=("lobby", "active", "finished", "abandoned"))) == before > 0
    finally:
        await repo.close()
