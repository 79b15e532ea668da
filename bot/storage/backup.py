"""The SQL side of backups (bot/backup.py): copying a database file with SQLite's online
backup API, so that the project's SQL stays in ``bot/storage/`` (design §2)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.storage.backend import SQLITE, parse_database_url

APPLICATION_ID = 0x53544254
"""``PRAGMA application_id`` of the bot's SQLite databases ("STBT"): set when the repository opens
one (bot/storage/repository.py), so a database of another program is told apart even when
it happens to have tables of the same names. A database written before it was set holds 0."""

OUR_TABLES = frozenset({"games", "seats", "actions"})
"""Tables every database of the bot has (migrations/001_initial.sql)."""

MISSING, EMPTY, DAMAGED, FOREIGN, OURS = "missing", "empty", "damaged", "foreign", "ours"
"""The kinds of ``Inspection``."""


class DatabaseFileError(Exception):
    """A file is not a SQLite database, or a copy of one failed its check."""


def copy_database(source: Path, target: Path, *, read_only: bool = False) -> None:
    """Copy the database at ``source`` into the new file ``target`` with the backup API, in one
    step (one read transaction: one consistent snapshot, while a WAL-mode writer goes on),
    in rollback-journal mode so that the copy is one self-contained file, and check the copy
    (``PRAGMA quick_check``). Blocking: callers run it in a worker thread.

    Args:
        read_only: open ``source`` read-only (a backup being restored: never changed).

    Raises:
        DatabaseFileError: ``source`` is not a database, or the copy is damaged (``target`` is
            removed).
        OSError: a file could not be read or written.
    """
    try:
        src = (sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True) if read_only
               else sqlite3.connect(source))
    except sqlite3.Error as exc:
        raise DatabaseFileError(f"{source}: {exc}") from exc
    try:
        dest = sqlite3.connect(target)
        try:
            src.backup(dest)  # pages=-1: the whole database under one read transaction
            dest.execute("PRAGMA journal_mode=DELETE")  # one file (the bot turns WAL back on)
            verdict = dest.execute("PRAGMA quick_check").fetchone()
            if verdict is None or verdict[0] != "ok":
                raise DatabaseFileError(f"the copy of {source} failed its check: {verdict}")
        except sqlite3.Error as exc:
            raise DatabaseFileError(f"{source}: {exc}") from exc
        finally:
            dest.close()
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    finally:
        src.close()


def described(kind: str, reason: str) -> str:
    """How a database of ``kind`` (``Inspection.kind``) is said in a message: ``"is empty (…)"``."""
    return {MISSING: "does not exist",
            EMPTY: "is empty (no tables: the file was emptied or truncated, or never written)",
            DAMAGED: f"is damaged (corrupt: {reason})",
            FOREIGN: f"is not this bot's database ({reason})"}.get(kind, "is the bot's database")


def unusable(url: str) -> str | None:
    """Why the SQLite file that ``url`` (a path or ``sqlite:///…``) names cannot be opened as the
    bot's database without being changed (opening one creates the bot's tables in it), as
    ``described`` says it: ``"does not exist"``, ``"is empty (…)"``…; None when it is the bot's
    database, or ``url`` is ``:memory:`` or a PostgreSQL database. Blocking."""
    parsed = parse_database_url(url)
    if parsed.backend != SQLITE or parsed.target == ":memory:":
        return None
    found = inspect_database(Path(parsed.target))
    return None if found.kind == OURS else described(found.kind, found.reason)


@dataclass(frozen=True)
class Inspection:
    """What a database file is (``inspect_database``).

    Attributes:
        kind: ``MISSING`` (no file), ``EMPTY`` (0 bytes, or a database without a table),
            ``DAMAGED`` (not a SQLite database, or it fails ``PRAGMA quick_check``), ``FOREIGN``
            (a SQLite database of another program) or ``OURS``.
        reason: SQLite's words for ``DAMAGED`` and ``FOREIGN``, else ``""``.
        games: how many games an ``OURS`` database holds.
    """

    kind: str
    reason: str = ""
    games: int = 0


def inspect_database(path: Path) -> Inspection:
    """Look at the database file at ``path`` without changing it (opened read-only; a WAL
    file beside it is read, as SQLite would). Blocking."""
    if not path.exists():
        return Inspection(MISSING)
    if not path.is_file():
        return Inspection(DAMAGED, "it is not a file")
    wal = path.with_name(path.name + "-wal")
    if path.stat().st_size == 0 and not (wal.is_file() and wal.stat().st_size > 0):
        return Inspection(EMPTY)
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return Inspection(DAMAGED, str(exc))
    try:
        verdict = db.execute("PRAGMA quick_check").fetchone()
        if verdict is None or verdict[0] != "ok":
            return Inspection(DAMAGED, str(verdict[0] if verdict else "no answer to its check"))
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return Inspection(EMPTY)
        app = int(db.execute("PRAGMA application_id").fetchone()[0])
        if app not in (0, APPLICATION_ID):
            return Inspection(FOREIGN, f"its application id is {app:#x}")
        if not OUR_TABLES <= tables:
            return Inspection(FOREIGN, f"it has no table {', '.join(sorted(OUR_TABLES - tables))}")
        games = int(db.execute("SELECT count(*) FROM games").fetchone()[0])
        return Inspection(OURS, games=games)
    except sqlite3.Error as exc:
        return Inspection(DAMAGED, str(exc))
    finally:
        db.close()
