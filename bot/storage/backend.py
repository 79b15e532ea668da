"""The two storage backends behind one ``Repository``: SQLite through aiosqlite
(the default) and PostgreSQL through asyncpg, chosen by the database URL.

The repository's SQL is written once where both backends speak it (``?`` placeholders,
``ON CONFLICT`` upserts, ``RETURNING``), and per backend where they differ: the stores pick
the statement by ``backend`` (e.g. ``json_remove`` / ``jsonb -``, ``pg_database_size``),
and a file ``migrations/pg/NNN_*.sql`` replaces ``migrations/NNN_*.sql`` on PostgreSQL
(64-bit integers, double-precision times, identity columns). Nothing is rewritten by
pattern: the one translation left is of placeholders, ``?`` to ``$1``, ``$2``, … by
``to_numbered`` (a scanner that skips quotes and comments; cached per statement), since
asyncpg takes only the numbered form. ``PgConnection`` speaks the small part of aiosqlite's
connection interface the repository uses (``execute`` awaited or used as ``async with``,
cursors with ``rowcount``, ``fetchone``, ``fetchall``). docs/DESIGN.md §4 says why this
over SQLAlchemy Core.
"""

from __future__ import annotations

import functools
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

SQLITE, POSTGRESQL = "sqlite", "postgresql"


@dataclass(frozen=True)
class DatabaseUrl:
    """A parsed ``DATABASE_URL``: ``backend`` is ``"sqlite"`` or ``"postgresql"``;
    ``target`` the SQLite file path (or ``":memory:"``) or the PostgreSQL DSN;
    ``shown`` the form safe for logs and messages (no password)."""

    backend: str
    target: str
    shown: str


def parse_database_url(url: str) -> DatabaseUrl:
    """Parse ``url``: ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db``,
    ``sqlite:///:memory:``, ``postgresql://user:pass@host:port/db`` (or ``postgres://``);
    anything without a scheme is an SQLite file path.

    Raises:
        ValueError: an unknown scheme (the message names it).
    """
    if "://" not in url:
        return DatabaseUrl(SQLITE, url, url)
    scheme = url.split("://", 1)[0].lower()
    if scheme == "sqlite":
        path = url.split("://", 1)[1]
        path = path[1:] if path.startswith("/") else path
        return DatabaseUrl(SQLITE, path, path)
    if scheme in ("postgresql", "postgres"):
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
        return DatabaseUrl(POSTGRESQL, url, urlunsplit(parts._replace(netloc=netloc)))
    raise ValueError(f"DATABASE_URL: unknown database scheme {scheme!r} (use sqlite:/// or postgresql://)")


@functools.lru_cache(maxsize=2048)
def to_numbered(sql: str) -> str:
    """``sql`` with each ``?`` placeholder outside quotes and comments replaced by
    ``$1``, ``$2``, … (PostgreSQL's form)."""
    out: list[str] = []
    n = 0
    i = 0
    quote: str | None = None
    while i < len(sql):
        c = sql[i]
        if quote is not None:
            out.append(c)
            if c == quote:
                quote = None
        elif c in ("'", '"'):
            quote = c
            out.append(c)
        elif c == "-" and sql.startswith("--", i):
            end = sql.find("\n", i)
            end = len(sql) if end < 0 else end
            out.append(sql[i:end])
            i = end
            continue
        elif c == "?":
            n += 1
            out.append(f"${n}")
        else:
            out.append(c)
        i += 1
    return "".join(out)


_ROWS_FIRST = ("SELECT", "WITH", "VALUES", "SHOW", "EXPLAIN")


class PgCursor:
    """What one statement gave: ``rowcount`` (rows changed or returned) and its rows."""

    def __init__(self, rows: Sequence[Any], rowcount: int) -> None:
        self._rows = list(rows)
        self.rowcount = rowcount

    async def fetchone(self) -> Any:
        """The next row (an ``asyncpg.Record``: by index or column name), or None."""
        return self._rows.pop(0) if self._rows else None

    async def fetchall(self) -> list[Any]:
        """The remaining rows."""
        rows, self._rows = self._rows, []
        return rows


class PgResult:
    """``PgConnection.execute``'s answer: await it or use it as ``async with``, as with
    aiosqlite; both give a ``PgCursor``."""

    def __init__(self, conn: PgConnection, sql: str, params: Sequence[Any]) -> None:
        self._conn, self._sql, self._params = conn, sql, params

    def __await__(self) -> Generator[Any, None, PgCursor]:
        return self._conn.run(self._sql, self._params).__await__()

    async def __aenter__(self) -> PgCursor:
        return await self._conn.run(self._sql, self._params)

    async def __aexit__(self, *exc: object) -> None:
        return None


class PgConnection:
    """An asyncpg connection with the aiosqlite-like surface the repository uses."""

    def __init__(self, conn: Any) -> None:
        self.raw = conn

    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> PgResult:
        """Run one statement with ``?`` placeholders (see ``PgResult``)."""
        return PgResult(self, sql, tuple(parameters or ()))

    async def run(self, sql: str, params: Sequence[Any]) -> PgCursor:
        """Translate the placeholders of ``sql`` and run it; rows are fetched when it returns
        any (a query, or a statement with ``RETURNING``)."""
        query = to_numbered(sql)
        head = query.lstrip().split(None, 1)[0].upper() if query.strip() else ""
        if head in _ROWS_FIRST or " RETURNING " in query.upper():
            rows = await self.raw.fetch(query, *params)
            return PgCursor(rows, len(rows))
        status = await self.raw.execute(query, *params)
        last = str(status).rsplit(" ", 1)[-1]
        return PgCursor([], int(last) if last.isdigit() else -1)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement with ``?`` placeholders once per row (bulk copies)."""
        await self.raw.executemany(to_numbered(sql), [tuple(r) for r in rows])

    async def executescript(self, script: str) -> None:
        """Run several statements without parameters (migrations)."""
        await self.raw.execute(script)
