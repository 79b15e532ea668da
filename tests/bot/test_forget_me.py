"""``/game forget-me`` forgets (bot/ui/operator.py ``Operator.forget``, ``Repository.anonymise_user``):
no byte of the database file names the user afterwards — not their seats, log entries, the
payload of a delivered notice nor the host of a running game they resigned from (handed on at
once) — and the anonymous name shows as typed outside Discord messages (replay menu, export)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.service import GameService, entry_texts, notice_payload, texts
from bot.storage import Repository
from bot.ui.operator import anon_name
from bot.ui.table import export_log
from engines.base import Msg
from engines.registry import get

FORGOTTEN = 712_345_678_901_234_567
"""A Discord-sized user id: its digits and its 8 bytes occur nowhere by chance."""
OTHERS = (823_456_789_012_345_678, 934_567_890_123_456_789)


def traces(path: Path, user_id: int) -> list[str]:
    """Where the database file (and its WAL) holds ``user_id``: as text or as SQLite's 8-byte integer."""
    found = []
    for file in (path, path.with_name(path.name + "-wal")):
        if file.is_file():
            data = file.read_bytes()
            for shape, needle in (("text", str(user_id).encode()), ("integer", user_id.to_bytes(8, "big"))):
                if needle in data:
                    found.append(f"{file.name}: {shape}")
    return found


async def test_no_trace_of_a_forgotten_user_is_left_in_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    repo = Repository(str(path))
    await repo.open()
    try:
        service = GameService(repo)
        lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=2, host_user_id=FORGOTTEN,
                                           host_name="Forgotten", options=None, move_timeout=60)
        for n, user in enumerate(OTHERS):
            await service.join(lobby.id, user, f"Other{n}")
        game = (await service.start(lobby.id, FORGOTTEN, is_moderator=False)).game.id
        await service.resign(game, FORGOTTEN, notice=notice_payload(
            Msg("table.resigned_public", {"user": FORGOTTEN, "game": game}), mentions=[FORGOTTEN]))
        await repo.set_preference(FORGOTTEN, "*", "dm_notify", "off")
        assert traces(path, FORGOTTEN) or traces(path.with_name("games.db"), FORGOTTEN)
        assert await repo.delete_user_data(FORGOTTEN) == 1
        assert await repo.anonymise_user(FORGOTTEN, anon_name) == [game]
        record = await service.get(game)
        assert (record.status, record.host_user_id) == ("active", OTHERS[0])  # handed on to the first still seated
        assert record.names == ["#A", "Other0", "Other1"]
        assert await service.replay_matches(game)
    finally:
        await repo.close()
    assert traces(path, FORGOTTEN) == []
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM seats WHERE user_id=?", (OTHERS[1],)).fetchone()[0] == 1


async def test_the_anonymous_name_is_not_escaped_outside_discord_messages(tmp_path: Path) -> None:
    repo = Repository(str(tmp_path / "games.db"))
    await repo.open()
    try:
        service = GameService(repo)
        lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=2, host_user_id=OTHERS[0],
                                           host_name="Other0", options=None, move_timeout=60)
        await service.join(lobby.id, FORGOTTEN, "Forgotten")
        await service.join(lobby.id, OTHERS[1], "Other1")
        game = (await service.start(lobby.id, OTHERS[0], is_moderator=False)).game.id
        await service.resign(game, FORGOTTEN)
        await repo.anonymise_user(FORGOTTEN, anon_name)
        record = await service.get(game)
        entries = await repo.log(game)
        engine = get(record.game_id)
        data, text = export_log(record, engine.info.name, entries, None)
        assert "#B" in text and "\\#" not in text
        assert any(line.get("line", "").startswith("#B") for e in data["entries"] for line in e["events"])
        assert entry_texts(record, entries)[entries[-1].seq].name(1) == "\\#B"  # (a Discord message escapes it)
        assert entry_texts(record, entries, markdown=False)[entries[-1].seq].name(1) == "#B"
        assert texts(record).plain().name(1) == "#B"
    finally:
        await repo.close()
