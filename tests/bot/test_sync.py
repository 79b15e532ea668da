"""Slash commands synced on request, not at every start (bot/sync.py): the
bot compares Discord's commands with its own at start and warns; ``python -m bot sync``
publishes them; a development server is synced at start. Through the offline Discord."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.__main__ import NO_TOKEN_STATUS, main
from bot.app import GameBot, run_sync
from bot.sandbox.fakecord import BOT_TOKEN, HANG_GUARD, FakeDiscord
from bot.settings import Settings
from bot.sync import canonical, diff

COMMANDS = r"/applications/\d+/commands"
GUILD_COMMANDS = r"/applications/\d+/guilds/\d+/commands"


def settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(database_path=str(tmp_path / "games.db"), token=BOT_TOKEN, tick_seconds=3600,
                    backup_every_minutes=0, **values)  # type: ignore[arg-type]


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(owner_name="alice") as fd:
        yield fd
        assert not fd.errors.records, [r.getMessage() for r in fd.errors.records]
        assert not fd.violations, fd.violations


@contextlib.asynccontextmanager
async def running(fake: FakeDiscord, conf: Settings) -> AsyncIterator[GameBot]:
    bot = GameBot(conf, clock=fake.now)
    await fake.start_bot(bot, sync_commands=False)  # Discord as it is: no operator sync by the rig
    try:
        yield bot
    finally:
        await fake.stop_bot(bot)


def stale_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "bot.sync" and r.levelno == logging.WARNING]


async def test_start_does_not_sync_and_warns_that_discord_lacks_the_commands(
        fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.sync")
    async with running(fake, settings(tmp_path)) as bot:
        assert fake.calls("PUT", COMMANDS) == [] and fake.calls("PUT", GUILD_COMMANDS) == []
        assert fake.commands == []
        assert len(fake.calls("GET", COMMANDS)) == 1  # the one comparison
        [warning] = stale_warnings(caplog)
        names = sorted(c.name for c in bot.tree.get_commands())
        assert "game" in names
        assert f"added {', '.join('/' + n for n in names)}" in warning
        assert "python -m bot sync" in warning


async def test_sync_publishes_the_commands_and_the_next_start_is_quiet(
        fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.sync")
    names = await run_sync(settings(tmp_path))
    assert sorted(names) == sorted(c["name"] for c in fake.global_commands)
    assert "game" in names and fake.guild_commands == []
    assert not (tmp_path / "games.db").exists()  # a sync opens no database
    async with running(fake, settings(tmp_path)):
        assert stale_warnings(caplog) == []
        assert "slash commands on Discord match the code" in caplog.messages
        assert len(fake.calls("PUT", COMMANDS)) == 1  # the operator's, none at start


async def test_a_command_changed_or_gone_on_discord_is_named_in_the_warning(
        fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    await run_sync(settings(tmp_path))
    game = next(c for c in fake.global_commands if c["name"] == "game")
    game["options"] = [o for o in game["options"] if o["name"] != "rules"]  # an older /game
    fake.global_commands.append(dict(game, name="oldgame", id="1"))  # a command the code dropped
    caplog.set_level(logging.INFO, logger="bot.sync")
    async with running(fake, settings(tmp_path)):
        [warning] = stale_warnings(caplog)
        assert "(removed /oldgame; changed /game)" in warning


async def test_a_development_server_is_synced_at_every_start(
        fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.sync")
    async with running(fake, settings(tmp_path, dev_guild_id=fake.guild_id)) as bot:
        assert fake.global_commands == [] and fake.calls("GET", COMMANDS) == []
        assert {c["guild_id"] for c in fake.guild_commands} == {str(fake.guild_id)}
        assert sorted(c["name"] for c in fake.guild_commands) == sorted(c.name for c in bot.tree.get_commands())
        assert stale_warnings(caplog) == []
        token = await fake.slash(fake.owner, "game", "rules", game="carnival")  # usable at once
        assert (await fake.response(token))["type"] in (4, 5)
        await fake.idle()


async def test_sync_to_one_server(fake: FakeDiscord, tmp_path: Path) -> None:
    names = await run_sync(settings(tmp_path), fake.guild_id)
    assert fake.global_commands == []
    assert sorted(c["name"] for c in fake.guild_commands) == sorted(names)
    assert len(fake.calls("PUT", rf"/applications/\d+/guilds/{fake.guild_id}/commands")) == 1


async def test_python_m_bot_sync_command_line(fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("DISCORD_TOKEN", BOT_TOKEN)
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "games.db"))
    # main() runs its own event loop (asyncio.run): in a thread, while the fake serves on this one
    assert await asyncio.to_thread(main, ["sync", "--guild", str(fake.guild_id)]) == 0
    count = len(fake.guild_commands)
    assert count > 0 and fake.global_commands == []
    assert capsys.readouterr().out == f"synced {count} commands to server {fake.guild_id}\n"
    monkeypatch.setenv("DISCORD_TOKEN", "")
    assert main(["sync"]) == NO_TOKEN_STATUS == 78
    assert "No Discord token" in capsys.readouterr().err


def test_discord_defaults_and_server_fields_do_not_count_as_a_difference() -> None:
    code = {"name": "game", "description": "Games", "type": 1, "nsfw": False, "dm_permission": True,
            "default_member_permissions": None, "contexts": None, "integration_types": None,
            "options": [{"type": 1, "name": "new", "description": "New game",
                         "options": [{"type": 3, "name": "game", "description": "Which", "required": True,
                                      "autocomplete": True}]}]}
    held = {"id": "9", "application_id": "1", "version": "7", "name": "game", "description": "Games",
            "type": 1, "nsfw": False, "default_member_permissions": None, "contexts": [0, 1, 2],
            "integration_types": [0], "name_localizations": None, "description_localizations": None,
            "options": [{"type": 1, "name": "new", "description": "New game", "name_localizations": None,
                         "options": [{"type": 3, "name": "game", "description": "Which", "required": True,
                                      "autocomplete": True, "description_localizations": {}}]}]}
    assert canonical(code) == canonical(dict(held, contexts=None, integration_types=None))
    assert not diff([code], [held])  # contexts the code leaves unset are Discord's to fill in
    assert diff([dict(code, contexts=[0])], [held]).changed == ("game",)
    assert diff([dict(code, default_member_permissions=32)], [held]).changed == ("game",)
    renamed = {**code, "options": [dict(code["options"][0], description="Open a lobby")]}
    assert diff([renamed], [held]).changed == ("game",)
    assert diff([code], []).describe() == "added /game"


def test_make_run_without_a_token_explains_and_ends_with_status_0(tmp_path: Path) -> None:
    """``make run`` with no token prints how to get one and exits 0 (no ``make: *** Error``);
    ``python -m bot`` itself still exits ``NO_TOKEN_STATUS``."""
    import os
    import subprocess

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "DISCORD_TOKEN": "", "DATABASE_PATH": str(tmp_path / "games.db")}
    done = subprocess.run(["make", "-s", "-C", str(root), "run"], env=env, capture_output=True, text=True,
                          timeout=HANG_GUARD, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "No Discord token" in done.stderr and "Error" not in done.stderr
