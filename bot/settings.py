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
        database_path: SQLite file (``DATABASE_PATH``, default ``data/games.db``).
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
        dm_away_seconds: seconds without an interaction after which a player counts as away
            (``DM_AWAY_SECONDS``, 300): DM hands and turn notices go to players who are away
            only; 0 = always (bot/ui/delivery.py ``Delivery.present``).
        lean_requests: spend fewer bot-token requests (``LEAN_REQUESTS``, on): a move's
            event lines ride on the board edit, and its ping and the end go through the
            mover's interaction (bot/ui/delivery.py; bench/requests.py). Off: every line
            is posted, every ping with the bot token (the end-to-end tests' default).
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
    dm_away_seconds: float = 300.0
    lean_requests: bool = True

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, *, overrides: Mapping[str, Any] | None = None,
        dotenv_path: str | Path | None = ".env",
    ) -> Settings:
        """Read settings from ``env`` (default: ``.env`` file, then ``os.environ``)
        and apply ``overrides`` (field name -> value).

        Raises:
            ValueError: a numeric setting is not a number, or ``BACKUP_KEEP`` is below 1 (the
                message names it).
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
        log_format = (env.get("LOG_FORMAT") or "text").strip().lower()
        if log_format not in ("text", "json"):
            raise ValueError(f"LOG_FORMAT must be text or json, not {log_format!r}")
        keep = opt_int("BACKUP_KEEP")
        if keep is not None and keep < 1:
            raise ValueError(f"BACKUP_KEEP must be at least 1, not {keep}")
        settings = cls(
            token=(env.get("DISCORD_TOKEN") or "").strip(),
            database_path=(env.get("DATABASE_PATH") or "data/games.db").strip(),
            dev_guild_id=opt_int("DEV_GUILD_ID"),
            log_level=(env.get("LOG_LEVEL") or "INFO").strip().upper(),
            log_format=log_format,
            move_timeout=move_timeout,
            tick_seconds=float(tick),
            moderator_role_id=opt_int("MODERATOR_ROLE_ID"),
            backup_dir=(env.get("BACKUP_DIR") or "").strip(),
            backup_every_minutes=max(backup_every, 0.0),
            backup_keep=48 if keep is None else keep,
            dm_away_seconds=dm_away,
            lean_requests=(env.get("LEAN_REQUESTS") or "1").strip().lower() not in ("0", "false", "no", "off"),
        )
        if overrides:
            known = {f.name for f in fields(cls)}
            unknown = set(overrides) - known
            if unknown:
                raise ValueError(f"unknown settings: {', '.join(sorted(unknown))}")
            settings = replace(settings, **dict(overrides))
        return settings
