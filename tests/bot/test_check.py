"""``python -m bot.check``: every stored snapshot equals the replay of its log."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from bot.check import check, main
from bot.service import GameService
from bot.storage import Repository


async def test_check_replays_games_and_flags_a_tampered_snapshot(tmp_path) -> None:
    path = str(tmp_path / "c.db")
    repo = Repository(path)
    await repo.open()
    service = GameService(repo)
    lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=2, host_user_id=1,
                                       host_name="a", options=None, move_timeout=60)
    await service.join(lobby.id, 2, "b")
    game = (await service.start(lobby.id, 1, is_moderator=False)).game
    await service.act(game.id, 1, "choose lust")
    await repo.close()
    assert await check(path) == (1, [])
    with sqlite3.connect(path) as db:
        state = json.loads(db.execute("SELECT state FROM games").fetchone()[0])
        state["round"] = 5
        db.execute("UPDATE games SET state=?", (json.dumps(state),))
    assert await check(path) == (1, [game.id])


async def test_check_command_exit_status(tmp_path, capsys) -> None:
    path = str(tmp_path / "new.db")
    repo = Repository(path)
    await repo.open()
    await repo.close()
    assert await asyncio.to_thread(main, [path]) == 0
    assert capsys.readouterr().out == "0 games replayed, 0 differ\n"


def test_check_refuses_a_file_that_is_not_the_bots_database_and_changes_nothing(tmp_path, capsys) -> None:
    missing = tmp_path / "data" / "games.db"
    assert main([str(missing)]) == 2
    assert not missing.parent.exists()
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert main([str(empty)]) == 2
    assert empty.read_bytes() == b""
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"not a database " * 300)
    assert main([str(damaged)]) == 2
    assert damaged.read_bytes() == b"not a database " * 300
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.db", "empty.db"]
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        f"The database {missing} does not exist: nothing checked.\n"
        f"The database {empty} is empty (no tables: the file was emptied or truncated, or never written):"
        " nothing checked.\n"
        f"The database {damaged} is damaged (corrupt: file is not a database): nothing checked.\n")


def test_the_replay_summary_counts_games_in_english_plural() -> None:
    from bot.check import replayed_line

    assert [replayed_line(n, 0) for n in (0, 1, 2)] == [
        "0 games replayed, 0 differ\n", "1 game replayed, 0 differ\n", "2 games replayed, 0 differ\n"]
