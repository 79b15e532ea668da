"""``python -m bot`` (``make run``): start the bot with the settings from ``.env``.

Operator subcommands (README "Operating the bot"):

- ``python -m bot sync [--guild ID]`` (``make sync``): publish the slash commands, globally or
  to one server (bot/sync.py); the bot no longer syncs at every start.
- ``python -m bot backup [--dir FOLDER]``: take an online backup of the database now (bot/backup.py).
- ``python -m bot restore FILE [--to PATH]`` (``make restore FILE=…``): restore a backup into a
  new database (default ``DATABASE_PATH``) and verify it by replay; never overwrites one.

Exit status: 0 done, 1 a restored backup does not replay, 2 usage or configuration error,
3 Discord could not be reached, 4 the database cannot be used, 5 the process lost its shard
lease (PostgreSQL) and stopped: start it again and it waits as a standby.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from bot import logsafe
from bot.settings import Settings

NO_TOKEN = """\
No Discord token is configured, so the bot cannot connect.

To get one (about 2 minutes):
  1. Open https://discord.com/developers/applications and press "New Application".
  2. In "Bot", press "Reset Token" and copy the token.
  3. cp .env.example .env   and put it after DISCORD_TOKEN=
  4. make run   — the bot prints an invite link; open it to add the bot to your server.
     (No privileged intents are needed.)

To try the games offline right now, without any token:
  make play
"""

NO_TOKEN_STATUS = 78
"""The exit status without a token (``EX_CONFIG`` of sysexits.h): ``make run`` ends there with
status 0 after the help above (a missing token is no failure of make); scripts still see it."""

LEASE_LOST_STATUS = 5
"""The exit status after the process lost its shard lease (bot/storage/leases.py)."""

BAD_TOKEN = ("Discord refused the token in DISCORD_TOKEN. Copy it again from the Developer "
             "Portal (Bot → Reset Token) into .env.\n")


def parser() -> argparse.ArgumentParser:
    """The command line: no subcommand runs the bot; ``sync``, ``backup``, ``restore``."""
    p = argparse.ArgumentParser(prog="python -m bot", description="The board-game bot.")
    sub = p.add_subparsers(dest="command", metavar="{run,sync,backup,restore}")
    sub.add_parser("run", help="run the bot (the default)")
    s = sub.add_parser("sync", help="publish the slash commands to Discord")
    s.add_argument("--guild", type=int, metavar="ID",
                   help="sync to this server only (instant) instead of globally")
    b = sub.add_parser("backup", help="take a backup of the database now")
    b.add_argument("--dir", metavar="FOLDER", help="where to write it (default: BACKUP_DIR)")
    r = sub.add_parser("restore", help="restore a backup into a new database and verify it")
    r.add_argument("file", metavar="FILE", help="the backup to restore")
    r.add_argument("--to", metavar="PATH", help="the new database (default: DATABASE_PATH); must not exist")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the bot or an operator subcommand; returns the process exit code."""
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        sys.stderr.write(f"{exc} (in .env or the environment)\n")
        return 2
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if settings.log_format == "json":  # one JSON object a line, with game and interaction ids
        for handler in logging.getLogger().handlers:
            handler.setFormatter(logsafe.JsonLines())
    # interaction, webhook and bot tokens never reach a log line (bot/logsafe.py)
    logsafe.install(logging.getLogger().handlers, secrets=[settings.token or ""])
    if args.command == "backup":
        return backup(settings, args.dir)
    if args.command == "restore":
        return restore(args.file, args.to or settings.database_path)
    if not settings.token:
        sys.stderr.write(NO_TOKEN)
        return NO_TOKEN_STATUS
    if args.command == "sync":
        return sync(settings, args.guild)
    return run(settings)


def backup(settings: Settings, folder: str | None) -> int:
    """``python -m bot backup``: one backup now, with the retention of ``BACKUP_KEEP``."""
    import time

    from bot.backup import backup_folder, take_backup
    from bot.storage.backup import DatabaseFileError

    try:
        path = take_backup(settings.database_path, Path(folder) if folder else backup_folder(settings),
                           at=time.time(), keep=settings.backup_keep)
    except (OSError, DatabaseFileError) as exc:
        sys.stderr.write(f"backup failed: {exc}\n")
        return 2
    sys.stdout.write(f"backup written: {path}\n")
    return 0


def restore(file: str, target: str) -> int:
    """``python -m bot restore``: restore ``file`` into the new database ``target`` and replay it."""
    from bot.backup import restore as restore_backup
    from bot.check import replayed_line
    from bot.storage.backup import DatabaseFileError

    try:
        done = asyncio.run(restore_backup(file, target))
    except (OSError, DatabaseFileError) as exc:
        sys.stderr.write(f"not restored: {exc}\n")
        return 2
    for game in done.differ:
        sys.stdout.write(f"game #{game}: replay differs from the stored snapshot\n")
    sys.stdout.write(replayed_line(done.games, len(done.differ)))
    if not done.installed:
        sys.stdout.write(f"not restored: {target} was not written\n")
        return 1
    sys.stdout.write(f"restored into {done.target}\n")
    return 0


def sync(settings: Settings, guild: int | None) -> int:
    """``python -m bot sync``: publish the slash commands (bot/app.py ``run_sync``)."""
    import aiohttp
    import discord

    from bot.app import run_sync

    try:
        names = asyncio.run(run_sync(settings, guild))
    except discord.LoginFailure:
        sys.stderr.write(BAD_TOKEN)
        return 2
    except discord.HTTPException as exc:
        sys.stderr.write(f"Discord refused the sync: {exc}\n")
        return 2
    except (aiohttp.ClientConnectionError, OSError) as exc:
        sys.stderr.write(f"Could not reach Discord ({exc}). Check the network.\n")
        return 3
    where = f"server {guild}" if guild else "all servers (global: clients can take up to an hour to show them)"
    sys.stdout.write(f"synced {len(names)} commands to {where}\n")
    return 0


def run(settings: Settings) -> int:
    """Run the bot until it is stopped."""
    import aiohttp
    import discord

    from bot.app import GameBot, tune_gc
    from bot.backup import DatabaseRefused, check_at_start
    from bot.storage import Repository, StorageError

    try:  # before connecting: a database that cannot be trusted or written stops the bot here
        asyncio.run(check_at_start(settings))
        asyncio.run(Repository.check(settings.database_path))
    except (DatabaseRefused, StorageError) as exc:
        sys.stderr.write(f"The bot cannot start: {exc}\n")
        return 4
    tune_gc()
    bot = GameBot(settings)
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        sys.stderr.write(BAD_TOKEN)
        return 2
    except discord.PrivilegedIntentsRequired:
        sys.stderr.write("Discord refused a privileged intent; this bot needs none. Check bot/app.py.\n")
        return 2
    except (aiohttp.ClientConnectionError, OSError) as exc:
        sys.stderr.write(f"Could not reach Discord ({exc}). Check the network; to play offline use `make play`.\n")
        return 3
    if bot.lease_lost is not None:
        sys.stderr.write(f"Stopped: {bot.lease_lost}. Another process runs these shards now; "
                         "started again, this one waits as its standby.\n")
        return LEASE_LOST_STATUS
    return 0


if __name__ == "__main__":
    sys.exit(main())
