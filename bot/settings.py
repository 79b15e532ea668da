"""Settings: the only module that reads the environment (design §2).

Values come from the process environment, optionally from a ``.env`` file in the
working directory (python-dotenv). See ``.env.example`` for every key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from bot.storage.backend import parse_database_url
from bot.storage.records import Shards

TIMEOUT_PRESETS: dict[str, int] = {
    "10 minutes (live)": 10 * 60,
    "1 hour": 60 * 60,
    "24 hours": 24 * 60 * 60,
    "72 hours": 72 * 60 * 60,
}
"""Move-timeout presets offered in the lobby, in seconds (design §5 Time control)."""


@dataclass(frozen=True)
class Settings:
    """Bot settings.

    Attributes:
        token: the Discord bot token (``DISCORD_TOKEN``); empty = not configured.
        database_path: the database: an SQLite file (``DATABASE_PATH``, default
            ``data/games.db``), or what ``DATABASE_URL`` names when set (it wins):
            ``sqlite:///data/games.db`` gives that file, ``postgresql://user:pass@host/db``
            the PostgreSQL database kept as the URL (bot/storage/backend.py).
        dev_guild_id: a development server (``DEV_GUILD_ID``): the commands are synced to it
            at every start, for instant testing. None = no sync at start; the bot compares
            the global commands with its own and warns when they differ (run
            ``python -m bot sync``, bot/sync.py).
        log_level: ``LOG_LEVEL`` (default INFO).
        log_format: ``LOG_FORMAT``: ``text`` (default) or ``json`` (one JSON object a line
            with game and interaction ids: bot/logsafe.py ``JsonLines``).
        move_timeout: default move timeout in seconds (``MOVE_TIMEOUT_HOURS``, 24 h).
        tick_seconds: how often the clock loop checks deadlines (``CLOCK_TICK_SECONDS``).
        moderator_role_id: a role that counts as moderator (``MODERATOR_ROLE_ID``).
        backup_dir: the folder of the periodic database backups (``BACKUP_DIR``); empty =
            ``backups/`` next to the database (bot/backup.py).
        backup_every_minutes: minutes between backups (``BACKUP_EVERY_MINUTES``, 60; 0 = off).
        backup_keep: how many backups to keep, the oldest deleted first (``BACKUP_KEEP``, 48).
        shard_count: the number of Discord shards of the whole bot (``SHARD_COUNT``); None =
            one process, unsharded (discord.py's plain client).
        shard_ids: the shards this process runs (``SHARD_IDS``, comma-separated, e.g.
            ``0,1``); None = all of them. Each process handles only the games of the servers
            on its shards, their clock included.
        ai_workers: worker processes that compute AI moves (``AI_WORKERS``, 1; bot/ui/ai.py).
        ai_iterations: above 0, every AI move searches that many iterations with short
            playouts and no time cap instead of its level's budget (tests, the sandbox).
        dm_away_seconds: seconds without an interaction after which a player counts as away
            (``DM_AWAY_SECONDS``, 300): DM hands and turn notices go to players who are away
            only; 0 = always (bot/ui/presence.py ``Presence.present``).
        lean_requests: spend fewer bot-token requests (``LEAN_REQUESTS``, on): a move's
            event lines ride on the board edit, and its ping and the end go through the
            mover's interaction (bot/ui/transport.py, bot/ui/boards.py; bench/requests.py). Off: every line
            is posted, every ping with the bot token (the end-to-end tests' default).
        render_workers: worker processes that draw and encode boards (``RENDER_WORKERS``; 2
            when read from the environment, 0 when built directly as the tests do): 0 = in
            threads of the bot's process (bot/render_pool.py; one more process is kept for
            private images).
        open_lobbies: how many open lobbies one member may host in one server at once
            (``OPEN_LOBBIES``, 3); moderators are not limited.
        guild_purge_days: days after the bot was removed from a server until that server's
            data is purged (``GUILD_PURGE_DAYS``, 30; cancelled when the bot rejoins first;
            bot/ui/operator.py). 0 = at the purge loop's next pass.
        archive_after_days: days after a game ended (finished or abandoned) until it moves
            to the archive, one compressed row (``ARCHIVE_AFTER_DAYS``, 30; still replayed,
            exported and counted in the ratings: bot/storage/archive.py). 0 = never.
        discord_global_limit: the bot-token requests a second Discord allows the whole
            application, every shard and process together (``DISCORD_GLOBAL_LIMIT``, 50;
            Discord raises it for large bots on request); each process keeps to its share
            (``request_share``).
    """

    token: str = ""
    database_path: str = "data/games.db"
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    log_format: str = "text"
    move_timeout: int = 24 * 60 * 60
    tick_seconds: float = 30.0
    moderator_role_id: int | None = None
    backup_dir: str = ""
    backup_every_minutes: float = 60.0
    backup_keep: int = 48
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    ai_workers: int = 1
    ai_iterations: int = 0

    @property
    def postgres(self) -> bool:
        """True when the database is a PostgreSQL URL."""
        return self.database_path.lower().startswith(("postgresql://", "postgres://"))

    @property
    def shards(self) -> Shards | None:
        """The shards this process runs (None when unsharded)."""
        if self.shard_count is None:
            return None
        return Shards(self.shard_count, self.shard_ids or tuple(range(self.shard_count)))

    @property
    def request_share(self) -> int:
        """The bot-token requests a second this process may make: its shards' part of
        Discord's global limit, ``discord_global_limit`` × the shards it runs / ``shard_count``,
        rounded down (at least 1); the whole limit when unsharded (bot/ui/operator.py
        ``RequestBudget``). Each shard is run by one process at a time (its lease), so the
        shares of the processes add up to the limit at most."""
        shards = self.shards
        if shards is None:
            return self.discord_global_limit
        return max(1, self.discord_global_limit * len(shards.ids) // shards.count)
    dm_away_seconds: float = 300.0
    lean_requests: bool = True
    render_workers: int = 0
    guild_purge_days: float = 30.0
    archive_after_days: float = 30.0
    discord_global_limit: int = 50
    open_lobbies: int = 3

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, *, overrides: Mapping[str, Any] | None = None,
        dotenv_path: str | Path | None = ".env",
    ) -> Settings:
        """Read settings from ``env`` (default: ``.env`` file, then ``os.environ``)
        and apply ``overrides`` (field name -> value).

        Raises:
            ValueError: a numeric setting is not a number, ``BACKUP_KEEP`` is below 1,
                ``DATABASE_URL`` has an unknown scheme, ``SHARD_IDS`` lie outside
                ``0 … SHARD_COUNT-1`` or are given without ``SHARD_COUNT`` (the message names it).
        """
        if env is None:
            merged: dict[str, str] = {}
            if dotenv_path and Path(dotenv_path).exists():
                merged.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
            merged.update(os.environ)
            env = merged

        def opt_int(key: str) -> int | None:
            raw = (env.get(key) or "").strip()
            if not raw:
                return None
            try:
                return int(raw)
            except ValueError:
                raise ValueError(f"{key} must be a whole number, not {raw!r}") from None

        hours = (env.get("MOVE_TIMEOUT_HOURS") or "24").strip()
        try:
            move_timeout = int(float(hours) * 3600)
        except ValueError:
            raise ValueError(f"MOVE_TIMEOUT_HOURS must be a number, not {hours!r}") from None
        tick = (env.get("CLOCK_TICK_SECONDS") or "30").strip()
        every = (env.get("BACKUP_EVERY_MINUTES") or "60").strip()
        try:
            backup_every = float(every)
        except ValueError:
            raise ValueError(f"BACKUP_EVERY_MINUTES must be a number, not {every!r}") from None
        away = (env.get("DM_AWAY_SECONDS") or "300").strip()
        try:
            dm_away = max(float(away), 0.0)
        except ValueError:
            raise ValueError(f"DM_AWAY_SECONDS must be a number, not {away!r}") from None
        purge = (env.get("GUILD_PURGE_DAYS") or "30").strip()
        try:
            purge_days = max(float(purge), 0.0)
        except ValueError:
            raise ValueError(f"GUILD_PURGE_DAYS must be a number, not {purge!r}") from None
        archive = (env.get("ARCHIVE_AFTER_DAYS") or "30").strip()
        try:
            archive_days = max(float(archive), 0.0)
        except ValueError:
            raise ValueError(f"ARCHIVE_AFTER_DAYS must be a number, not {archive!r}") from None
        global_limit = opt_int("DISCORD_GLOBAL_LIMIT")
        if global_limit is not None and global_limit < 1:
            raise ValueError(f"DISCORD_GLOBAL_LIMIT must be at least 1, not {global_limit}")
        log_format = (env.get("LOG_FORMAT") or "text").strip().lower()
        if log_format not in ("text", "json"):
            raise ValueError(f"LOG_FORMAT must be text or json, not {log_format!r}")
        keep = opt_int("BACKUP_KEEP")
        if keep is not None and keep < 1:
            raise ValueError(f"BACKUP_KEEP must be at least 1, not {keep}")
        database = (env.get("DATABASE_PATH") or "data/games.db").strip()
        url = (env.get("DATABASE_URL") or "").strip()
        if url:
            parsed = parse_database_url(url)
            database = parsed.target
        shard_count = opt_int("SHARD_COUNT")
        raw_ids = (env.get("SHARD_IDS") or "").strip()
        try:
            shard_ids = tuple(int(x) for x in raw_ids.split(",") if x.strip()) if raw_ids else None
        except ValueError:
            raise ValueError(f"SHARD_IDS must be whole numbers separated by commas, not {raw_ids!r}") from None
        if shard_ids is not None and shard_count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT (the number of shards of the whole bot)")
        if shard_count is not None:
            try:
                Shards(shard_count, shard_ids or tuple(range(max(shard_count, 1))))
            except ValueError as exc:
                raise ValueError(f"SHARD_COUNT / SHARD_IDS: {exc}") from None
        render_workers = opt_int("RENDER_WORKERS")
        open_lobbies = opt_int("OPEN_LOBBIES")
        if open_lobbies is not None and open_lobbies < 1:
            raise ValueError(f"OPEN_LOBBIES must be at least 1, not {open_lobbies}")
        settings = cls(
            token=(env.get("DISCORD_TOKEN") or "").strip(),
            database_path=database,
            dev_guild_id=opt_int("DEV_GUILD_ID"),
            log_level=(env.get("LOG_LEVEL") or "INFO").strip().upper(),
            log_format=log_format,
            move_timeout=move_timeout,
            tick_seconds=float(tick),
            moderator_role_id=opt_int("MODERATOR_ROLE_ID"),
            backup_dir=(env.get("BACKUP_DIR") or "").strip(),
            backup_every_minutes=max(backup_every, 0.0),
            backup_keep=48 if keep is None else keep,
            shard_count=shard_count,
            shard_ids=shard_ids,
            ai_workers=max(1, opt_int("AI_WORKERS") or 1),
            dm_away_seconds=dm_away,
            render_workers=max(0, 2 if render_workers is None else render_workers),
            lean_requests=(env.get("LEAN_REQUESTS") or "1").strip().lower() not in ("0", "false", "no", "off"),
            guild_purge_days=purge_days,
            archive_after_days=archive_days,
            discord_global_limit=50 if global_limit is None else global_limit,
            open_lobbies=3 if open_lobbies is None else open_lobbies,
        )
        if overrides:
            known = {f.name for f in fields(cls)}
            unknown = set(overrides) - known
            if unknown:
                raise ValueError(f"unknown settings: {', '.join(sorted(unknown))}")
            settings = replace(settings, **dict(overrides))
        return settings
