"""The SQL side of backups (bot/backup.py): copying a database file with SQLite's online
backup API, so that the project's SQL stays in ``bot/storage/`` (design §2)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


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
