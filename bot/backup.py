"""Online backups of the game database and restoring one (design §4: the
log is the truth, so a restored database is verified by replaying it).

A backup is a copy made with SQLite's online backup API (bot/storage/backup.py) on a
connection of its own, in one step: it reads one consistent snapshot of the live database
(WAL mode lets the bot's writer go on meanwhile) and never copies the file, which could catch
a half-written transaction. Backups are named ``<database stem>-YYYYMMDD-HHMMSS.db`` (UTC),
so names sort by age; only files of that shape are ever deleted. The running bot takes one
every ``Settings.backup_every_minutes`` in a ``discord.ext.tasks`` loop (:class:`BackupLoop`)
and keeps the newest ``Settings.backup_keep``. ``python -m bot backup`` takes one now,
``python -m bot restore FILE [--to PATH]`` restores one (:func:`restore`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from discord.ext import tasks

from bot.check import check
from bot.loops import stop_loop
from bot.settings import Settings
from bot.storage.backup import (
    MISSING,
    OURS,
    DatabaseFileError,
    copy_database,
    described,
    inspect_database,
)

log = logging.getLogger(__name__)

STAMP = "%Y%m%d-%H%M%S"
"""The UTC time in a backup's name (``time.strftime`` format)."""


def backup_folder(settings: Settings) -> Path:
    """Where backups go: ``Settings.backup_dir``, else ``backups/`` next to the database."""
    return Path(settings.backup_dir) if settings.backup_dir else Path(settings.database_path).parent / "backups"


def _pattern(stem: str) -> re.Pattern[str]:
    return re.compile(re.escape(stem) + r"-(\d{8}-\d{6})(?:-(\d+))?\.db")


def backup_time(path: Path, stem: str) -> float | None:
    """The unix time (seconds) in the name of backup ``path`` of a database named ``stem``,
    or None when ``path`` is not named like one."""
    m = _pattern(stem).fullmatch(path.name)
    if m is None:
        return None
    return dt.datetime.strptime(m[1], STAMP).replace(tzinfo=dt.UTC).timestamp()


def backups(folder: Path, stem: str) -> list[Path]:
    """The backups of database ``stem`` in ``folder``, oldest first (empty if none or no folder)."""
    if not folder.is_dir():
        return []
    pattern = _pattern(stem)
    found = [(m[1], int(m[2] or 0), p) for p in folder.iterdir() if (m := pattern.fullmatch(p.name))]
    return [p for _, _, p in sorted(found)]


def prune(folder: Path, stem: str, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` (≥ 1) backups of ``stem`` in ``folder``, never the
    newest good one (a database of the bot that passes its check, ``inspect_database``): when
    none of the newest ``keep`` is good, the newest good one among the older stays. Returns the
    deleted paths, oldest first. Other files are never touched."""
    found = backups(folder, stem)
    old = found[:-max(keep, 1)]
    if old and not any(inspect_database(p).kind == OURS for p in found[-max(keep, 1):]):
        good = next((p for p in reversed(old) if inspect_database(p).kind == OURS), None)
        old = [p for p in old if p != good]
    for p in old:
        p.unlink(missing_ok=True)
    return old


def take_backup(database: str | Path, folder: str | Path, *, at: float, keep: int) -> Path:
    """Back up the (live) SQLite database ``database`` into ``folder`` and delete the oldest
    backups beyond ``keep``. Blocking: the bot runs it in a worker thread.

    Args:
        at: unix time in seconds the backup is named after.
        keep: how many backups of this database to keep (≥ 1).

    Returns:
        The new backup's path (``<stem>-YYYYMMDD-HHMMSS.db``, ``-2``… appended when a backup of
        the same second exists).

    Raises:
        FileNotFoundError: ``database`` does not exist (nothing is created).
        DatabaseFileError: ``database`` is not the bot's database, is empty or damaged, or the
            copy failed its check: no backup is written, none is deleted.
    """
    database, folder = Path(database), Path(folder)
    if not database.is_file():
        raise FileNotFoundError(f"no database at {database}")
    if (found := inspect_database(database)).kind != OURS:
        raise DatabaseFileError(f"{database} {described(found.kind, found.reason)}: no backup taken")
    folder.mkdir(parents=True, exist_ok=True)
    stem = database.stem
    base = f"{stem}-{dt.datetime.fromtimestamp(at, dt.UTC).strftime(STAMP)}"
    name, n = f"{base}.db", 1
    while (folder / name).exists():
        n += 1
        name = f"{base}-{n}.db"
    part = folder / f".{name}.part"  # never matches the backup pattern: a crash leaves no "backup"
    copy_database(database, part)
    if (copied := inspect_database(part)).kind != OURS:
        part.unlink(missing_ok=True)
        raise DatabaseFileError(f"the copy of {database} {described(copied.kind, copied.reason)}: no backup taken")
    final = folder / name
    os.replace(part, final)
    for old in prune(folder, stem, keep):
        log.info("backup %s deleted (keeping %d)", old.name, keep)
    return final


class DatabaseRefused(Exception):
    """The database at start is missing while backups exist, or empty, damaged or not the
    bot's: the message says which, and names the newest backup that replays."""


async def newest_good_backup(folder: Path, stem: str) -> tuple[Path, int] | None:
    """The newest backup of ``stem`` in ``folder`` that is the bot's database and replays (the
    check of ``python -m bot.check``, on a copy: a backup is never changed) and how many
    started games it holds, or None."""
    for candidate in reversed(backups(folder, stem)):
        if (await asyncio.to_thread(inspect_database, candidate)).kind != OURS:
            continue
        work = candidate.with_name(f".{candidate.name}.checking")
        for p in _sidecars(work):
            p.unlink(missing_ok=True)
        try:
            await asyncio.to_thread(copy_database, candidate, work, read_only=True)
            games, differ = await check(str(work))
        except (DatabaseFileError, OSError):
            continue
        finally:
            for p in _sidecars(work):
                p.unlink(missing_ok=True)
        if not differ:
            return candidate, games
    return None


def age_text(seconds: float) -> str:
    """How old something ``seconds`` old is, in the largest whole unit: ``"2 hours"``,
    ``"1 day"``, ``"under a minute"``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        n = int(seconds // size)
        if n >= 1:
            return f"{n} {unit}{'' if n == 1 else 's'}"
    return "under a minute"


def backup_said(path: Path, stem: str, games: int, now: float) -> str:
    """A backup as the start check names it: ``path (1 started game; taken 2025-06-15 15:06
    UTC, 2 hours ago)``; the time is the one in its name (``backup_time``)."""
    held = f"{games} started game{'' if games == 1 else 's'}"
    at = backup_time(path, stem)
    if at is None:
        return f"{path} ({held})"
    when = dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    ago = f", {age_text(now - at)} ago" if now >= at else ""
    return f"{path} ({held}; taken {when}{ago})"


async def check_at_start(settings: Settings, *, now: float | None = None) -> None:
    """Refuse to start on a database that is not there to be trusted: a file that is empty,
    damaged or another program's, or a missing file while backups of it exist (a new database
    would hide the games they hold). A missing file with no backups is a new installation.

    ``now`` (unix seconds, default the clock's): when the backup named is said to be from.

    Raises:
        DatabaseRefused: with the reason and what to do, naming the newest backup that replays,
            the started games it holds and its age.
    """
    if settings.postgres or settings.database_path == ":memory:":
        return
    database, folder = Path(settings.database_path), backup_folder(settings)
    found = await asyncio.to_thread(inspect_database, database)
    if found.kind == OURS or (found.kind == MISSING and not backups(folder, database.stem)):
        return
    newest = await newest_good_backup(folder, database.stem)
    lines = [f"The database {database} {described(found.kind, found.reason)}."]
    if found.kind == MISSING:
        lines.append(f"Backups of it are in {folder}: a new, empty database would hide their games.")
    if newest is not None:
        good, games = newest
        said = backup_said(good, database.stem, games, time.time() if now is None else now)
        lines.append(f"The newest backup that replays is {said}. Restore it with:\n"
                     f"  make restore FILE={good} TO={database}")
        if found.kind != MISSING:
            lines.append(f"(first move {database} away: a restore never overwrites a file)")
    else:
        lines.append(f"No backup that replays was found in {folder}.")
    lines.append("To start a new, empty database on purpose, " + (
        f"move the backups out of {folder}." if found.kind == MISSING else f"move {database} away."))
    raise DatabaseRefused("\n".join(lines))


class BackupLoop:
    """The periodic backup of the bot's database (``Settings.backup_every_minutes``, 0 = off).

    The loop wakes every minute (or every interval, when shorter) and backs up when the newest
    backup in the folder is at least one interval old by ``clock`` — so the first backup is at
    start only when none is recent, and a bot restarting in a loop does not rotate the good
    backups away. A failed backup is logged and the loop goes on.

    Attributes:
        last: path of the newest backup this loop took, or None.
        passes: how many passes the loop has made (a backup or not).
    """

    def __init__(self, settings: Settings, clock: Callable[[], float]) -> None:
        self.settings = settings
        self.clock = clock
        self.folder = backup_folder(settings)
        self.database = Path(settings.database_path)
        self.last: Path | None = None
        self.passes = 0
        self._inflight: asyncio.Future[Path] | None = None
        interval = settings.backup_every_minutes * 60
        self.loop = tasks.loop(seconds=min(60.0, interval) if interval > 0 else 60.0,
                               name="backup")(self._pass)

    @property
    def enabled(self) -> bool:
        """Whether backups are on (an interval above 0 and a database file, not ``:memory:``)."""
        return self.settings.backup_every_minutes > 0 and self.settings.database_path != ":memory:"

    def start(self) -> None:
        """Start the loop (its first pass runs at once); does nothing when not :attr:`enabled`."""
        if self.enabled:
            log.info("backups every %g minutes into %s, keeping %d", self.settings.backup_every_minutes,
                     self.folder, self.settings.backup_keep)
            self.loop.start()

    async def stop(self) -> None:
        """Cancel the loop; a backup under way is finished first (its thread cannot be stopped)."""
        await stop_loop(self.loop)
        if self._inflight is not None:
            with contextlib.suppress(Exception):
                await self._inflight

    def due(self, now: float) -> bool:
        """Whether a backup is due at ``now`` (unix seconds): no backup of the database in the
        folder is younger than the interval."""
        times = [t for p in backups(self.folder, self.database.stem)
                 if (t := backup_time(p, self.database.stem)) is not None]
        return not times or now - max(times) >= self.settings.backup_every_minutes * 60

    async def _pass(self) -> None:
        try:
            await self.tick()
        except Exception:
            log.exception("backup of %s into %s failed", self.database, self.folder)
        self.passes += 1

    async def tick(self, now: float | None = None) -> Path | None:
        """One pass at ``now`` (default ``clock()``): back up if :meth:`due`, in a worker thread.

        Returns:
            The new backup, or None when none was due.

        Raises:
            OSError, DatabaseFileError: the backup failed (the loop logs it).
        """
        now = self.clock() if now is None else now
        if not self.due(now):
            return None
        self._inflight = asyncio.ensure_future(asyncio.to_thread(
            take_backup, self.database, self.folder, at=now, keep=self.settings.backup_keep))
        path = await asyncio.shield(self._inflight)
        self.last = path
        log.info("backup written: %s", path)
        return path


@dataclass(frozen=True)
class Restored:
    """What :func:`restore` did: ``games`` started games replayed, ``differ`` the ids of those
    whose replay differs from the snapshot, ``installed`` whether ``target`` now holds the copy."""

    target: Path
    games: int
    differ: list[int]
    installed: bool


def _sidecars(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"),
            path.with_name(path.name + "-journal")]


async def restore(backup: str | Path, target: str | Path) -> Restored:
    """Restore ``backup`` into a new database at ``target`` and verify it by replay (the check
    of ``python -m bot.check``, bot/check.py): the copy is made and checked beside ``target``
    and put in place only when every started game replays to its snapshot.

    Returns:
        A :class:`Restored`; ``installed`` is False when some game differs (nothing is left behind).

    Raises:
        FileExistsError: a database (or its ``-wal``/``-shm`` file) exists at ``target``: a restore
            never overwrites one.
        FileNotFoundError: ``backup`` does not exist.
        DatabaseFileError: ``backup`` is not a database of the bot: empty, damaged or another
            program's.
    """
    backup, target = Path(backup), Path(target)
    if taken := [p for p in _sidecars(target) if p.exists()]:
        raise FileExistsError(f"{taken[0]} exists; restore into a new path (--to) or move it away first")
    if not backup.is_file():
        raise FileNotFoundError(f"no backup at {backup}")
    if (found := await asyncio.to_thread(inspect_database, backup)).kind != OURS:  # (empty: it would restore nothing)
        raise DatabaseFileError(f"{backup} {described(found.kind, found.reason)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    work = target.with_name(f".{target.name}.restoring")
    for p in _sidecars(work):
        p.unlink(missing_ok=True)

    await asyncio.to_thread(copy_database, backup, work, read_only=True)
    try:
        games, differ = await check(str(work))
        if differ:
            return Restored(target, games, differ, installed=False)
        os.link(work, target)  # fails if a database appeared at target meanwhile: never overwrite
        return Restored(target, games, differ, installed=True)
    finally:
        for p in _sidecars(work):
            p.unlink(missing_ok=True)
