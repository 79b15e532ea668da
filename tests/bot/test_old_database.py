"""A game database written before the engine-shape change (``tests/fixtures/pre_shape_v1.db``,
made by ``tests/fixtures/make_pre_shape_db.py`` at commit d1a594a) still loads, replays and
plays on with today's code (issue: "Old games still load"; DESIGN §4: the log is the truth)."""

from __future__ import annotations

import random
import shutil
import sqlite3
from importlib import resources
from pathlib import Path

import pytest

from bot.check import check
from bot.service import GameService, texts
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import get

FIXTURE = Path(__file__).parent.parent / "fixtures" / "pre_shape_v1.db"


def fixture_at(folder: Path, schema: int) -> Path:
    """A copy of the old fixture in ``folder``, migrated by hand (the SQL files, in order) up to
    ``schema``: a database as a bot of that schema left it."""
    path = folder / f"v{schema}.db"
    shutil.copy(FIXTURE, path)
    migrations = resources.files("bot.storage").joinpath("migrations")
    with sqlite3.connect(path) as raw:
        start = raw.execute("PRAGMA user_version").fetchone()[0]
        for f in sorted((p for p in migrations.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name):
            number = int(f.name.split("_", 1)[0])
            if start < number <= schema:
                raw.executescript(f"BEGIN;\n{f.read_text(encoding='utf-8')}\nPRAGMA user_version={number};\nCOMMIT;")
    return path


@pytest.fixture
async def old(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    repo = Repository(str(path))
    await repo.open()
    service = GameService(repo)
    yield service, str(path)
    await repo.close()


async def test_every_old_game_replays_to_its_rebuilt_snapshot(old) -> None:
    service, path = old
    await service.upgrade_snapshots()
    games = await service.repo.games(status=("active", "finished"))
    assert sorted((g.game_id, g.status) for g in games) == sorted(
        [(gid, st) for gid in ("carnival", "canterbury", "heaven", "eguan") for st in ("active", "finished")])
    for g in games:
        engine = get(g.game_id)
        assert g.state is not None and g.state["state_version"] == engine.info.state_version
        assert await service.replay_matches(g.id), g.game_id
    await service.repo.close()
    assert await check(path) == (8, [])
    await service.repo.open()


async def test_old_games_play_on_and_their_old_log_lines_still_read(old) -> None:
    service, _ = old
    await service.upgrade_snapshots()
    rng = random.Random(7)
    for g in await service.repo.games(status=("active",)):
        engine = get(g.game_id)
        tx = texts(g)
        old_lines = [tx.event(e) for entry in await service.repo.log(g.id) for e in entry.events]
        assert old_lines and not any("{p" in line for line in old_lines)
        for _ in range(5):
            record = await service.get(g.id)
            state = service.state(record)
            if engine.outcome(state) is not None:
                break
            seat = rng.choice(sorted(s for s in engine.to_move(state) if s != CHANCE))
            action = rng.choice(list(engine.legal_actions(state, seat)))
            before = record.version
            result = await service.act(g.id, record.user_of(seat), action, expected_version=before)
            assert result.game.version > before
        assert await service.replay_matches(g.id)


async def test_migration_011_drops_the_unused_notice_marks_of_an_old_database(tmp_path) -> None:
    """A database at schema 10 (the old fixture migrated by the files up to 010 by hand) with a
    ``notice_marks`` row: opening it applies 011, the table is gone, the games are intact and
    replay, and a server's purge still works without it."""
    path = fixture_at(tmp_path, 10)
    with sqlite3.connect(path) as raw:
        game = raw.execute("SELECT id FROM games WHERE status='active' ORDER BY id").fetchone()[0]
        raw.execute("INSERT INTO notice_marks(game, version, waiting) VALUES (?, 3, '[0]')", (game,))
        games_before = raw.execute("SELECT id, status, version FROM games ORDER BY id").fetchall()
        assert raw.execute("PRAGMA user_version").fetchone()[0] == 10
    repo = Repository(str(path))
    await repo.open()
    try:
        assert await repo.schema_version() >= 11
        assert "notice_marks" not in await repo.tables()
        service = GameService(repo)
        await service.upgrade_snapshots()
        assert await service.replay_matches(game)
        everything = ("lobby", "active", "finished", "abandoned")
        assert sorted((g.id, g.status, g.version) for g in await repo.games(status=everything)) == games_before
        guild = (await service.get(game)).guild_id
        here = [g for g in await repo.games(status=everything) if g.guild_id == guild]
        assert await repo.purge_guild(guild) == len(here) >= 1
    finally:
        await repo.close()
    with sqlite3.connect(path) as raw:
        assert not raw.execute("SELECT name FROM sqlite_master WHERE name='notice_marks'").fetchall()
        assert raw.execute("PRAGMA user_version").fetchone()[0] >= 11


async def test_migration_012_indexes_the_done_boards_of_an_old_database(tmp_path) -> None:
    """A database at schema 11 (the old fixture migrated by hand) with done and pending board
    rows: opening it applies 012, where a game's thread lines stand is read through the new
    index, and it is the newest done board's version (a pending newer board does not count)."""
    path = fixture_at(tmp_path, 11)
    query = ("SELECT version FROM outbox WHERE game=? AND kind='board' AND done_at IS NOT NULL"
             " ORDER BY id DESC LIMIT 1")
    with sqlite3.connect(path) as raw:
        game = raw.execute("SELECT id FROM games WHERE status='active' ORDER BY id").fetchone()[0]
        for version, done in ((2, 1.0e9), (4, 1.1e9), (5, None)):
            raw.execute("INSERT INTO outbox(game, version, kind, payload, nonce, attempts, created_at, done_at)"
                        " VALUES (?, ?, 'board', '{}', ?, 0, 1.0e9, ?)", (game, version, f"n{version}", done))
        assert "outbox_boards_done" not in str(raw.execute("EXPLAIN QUERY PLAN " + query, (game,)).fetchall())
    repo = Repository(str(path))
    await repo.open()
    try:
        assert await repo.schema_version() >= 12
        assert await repo.board_shown(game) == 4
        assert await repo.board_shown(game + 10_000) is None
    finally:
        await repo.close()
    with sqlite3.connect(path) as raw:
        assert "USING INDEX outbox_boards_done" in str(raw.execute("EXPLAIN QUERY PLAN " + query, (game,)).fetchall())


async def test_migration_016_gives_rematched_ai_seats_their_level_back_and_drops_ai_ratings(tmp_path) -> None:
    """A database at schema 15 where a rematch seated an AI (user id -1) as a person, without
    a level, in a lobby and in a running game, and stored a rating under -1: opening it applies
    016; those seats play at the default level, a finished game's seat and every person's seat
    are as they were, and the AI's rating row is gone, the people's kept."""
    path = fixture_at(tmp_path, 15)
    with sqlite3.connect(path) as raw:
        ids = {status: raw.execute("SELECT id FROM games WHERE status=? ORDER BY id", (status,)).fetchone()[0]
               for status in ("active", "finished")}
        columns = ", ".join(c[1] for c in raw.execute("PRAGMA table_info(games)") if c[1] not in ("id", "status"))
        lobby = raw.execute(f"INSERT INTO games({columns}, status) SELECT {columns}, 'lobby' FROM games WHERE id=?"
                            " RETURNING id", (ids["active"],)).fetchone()[0]  # (a lobby like the running game)
        raw.execute("INSERT INTO seats(game, seat, user_id, name, status) VALUES (?, 0, 7, 'Ann', 'active'),"
                    " (?, 1, -1, 'Bot · Hard', 'active')", (lobby, lobby))
        for status in ("active", "finished"):
            raw.execute("UPDATE seats SET user_id=-1, ai_level=NULL WHERE game=? AND seat=1", (ids[status],))
        raw.execute("INSERT INTO ratings(guild_id, game_id, user_id, mu, sigma, games, wins, updated_at)"
                    " VALUES (1, 'carnival', -1, 30, 7, 3, 1, 0), (1, 'carnival', 7, 26, 8, 3, 2, 0)")
        people = raw.execute("SELECT game, seat, user_id, ai_level FROM seats WHERE user_id >= 0 ORDER BY game, seat").fetchall()
    repo = Repository(str(path))
    await repo.open()
    try:
        assert await repo.schema_version() >= 16
    finally:
        await repo.close()
    with sqlite3.connect(path) as raw:
        levels = dict(raw.execute("SELECT game, ai_level FROM seats WHERE user_id=-1").fetchall())
        assert levels == {lobby: "normal", ids["active"]: "normal", ids["finished"]: None}
        assert raw.execute("SELECT game, seat, user_id, ai_level FROM seats WHERE user_id >= 0"
                           " ORDER BY game, seat").fetchall() == people
        assert raw.execute("SELECT user_id FROM ratings").fetchall() == [(7,)]
