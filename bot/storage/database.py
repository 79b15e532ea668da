"""The database the stores share: its connections, transactions and migrations (design §2, §4).

Each method runs its statements as one unit of work, writes inside one transaction: on
SQLite on its one connection, serialised by an ``asyncio.Lock`` (one writer per file); on
PostgreSQL on a connection of asyncpg's pool (``POOL_SIZE``), so one process runs as many
units at once as the pool has connections. The backend is chosen by the database URL
(bot/storage/backend.py): SQLite through aiosqlite (WAL, ``busy_timeout``,
``foreign_keys=ON``, ``isolation_level=None``; writes in ``BEGIN IMMEDIATE`` … ``COMMIT``)
by default, PostgreSQL through asyncpg for ``postgresql://`` URLs (several processes, one
database). The stores' SQL is written once, portable (``?`` placeholders, no SQLite-only
functions, ``ON CONFLICT`` upserts) and runs unchanged on both. The action log
is append-only; ``games.state`` is a snapshot cache that a replay of the log must equal;
``games.version`` is the seq of the last log entry and guards every write
(compare-and-set). The ``outbox`` holds the deliveries an action causes, written in the
action's transaction (docs/DESIGN.md §4).

Storage faults become two exceptions the service turns into sentences: ``StorageBusy``
(the file stayed locked beyond the busy timeout; nothing was written) and
``StorageUnwritable`` (the file cannot be written: read-only, disk full, I/O error,
missing folder). The repository needs no restart after a fault: the next write simply
tries again, and the first one that succeeds logs that storage has recovered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import wraps
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite
import asyncpg
from cachetools import LRUCache, TTLCache

from bot.storage.backend import POSTGRESQL, PgConnection, parse_database_url
from bot.storage.backup import APPLICATION_ID
from bot.storage.records import (
    GAME_SQL,
    GAMES_AT_ONCE,
    LOG_TAILS_KEPT,
    QUIET_HOURS_FRESH,
    QUIET_HOURS_KEPT,
    SEATS_SQL,
    GameRecord,
    LeaseLost,
    LogTail,
    OutboxItem,
    SeatRecord,
    Shards,
    Snapshots,
    StorageBusy,
    StorageCorrupt,
    StorageError,
    StorageUnwritable,
    queued,
    row_to_game,
    row_to_seat,
)

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
"""How long a write waits for another writer's lock before ``StorageBusy`` (milliseconds)."""

POOL_SIZE = 8
"""PostgreSQL: the connections of one process's pool (units of work running at once)."""

IDLE_IN_TRANSACTION_MS = 10000
"""PostgreSQL: the server ends a pool session that sits this long inside a transaction
(``idle_in_transaction_session_timeout``). A unit of work runs its statements back to back,
so only a process that hangs mid-transaction (paused, stuck) meets it: its row locks are
freed for the process that took its shards over."""

FENCE_SQLSTATE = "SL001"
"""The SQLSTATE of the lease fence refusing a commit (``shard_leases_held``, migration 014;
bot/storage/leases.py)."""

BUSY_WORDS = ("locked", "busy")
CORRUPT_WORDS = ("malformed", "not a database", "corrupt")
"""Words of SQLite's messages for a damaged file (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``)."""

PG_BUSY = (asyncpg.exceptions.LockNotAvailableError, asyncpg.exceptions.DeadlockDetectedError,
           asyncpg.exceptions.QueryCanceledError, asyncpg.exceptions.TooManyConnectionsError)
PG_UNWRITABLE = (asyncpg.exceptions.ReadOnlySQLTransactionError, asyncpg.exceptions.InsufficientResourcesError,
                 asyncpg.exceptions.PostgresConnectionError, asyncpg.exceptions.InterfaceError,
                 asyncpg.exceptions.InsufficientPrivilegeError, asyncpg.exceptions.OperatorInterventionError,
                 asyncpg.exceptions.InvalidCatalogNameError, asyncpg.exceptions.InvalidAuthorizationSpecificationError,
                 asyncpg.exceptions.InvalidPasswordError, asyncpg.exceptions.PostgresSystemError,
                 asyncpg.exceptions.InternalClientError)
PG_LOST = (asyncpg.exceptions.PostgresConnectionError, asyncpg.exceptions.InterfaceError,
           asyncpg.exceptions.InternalClientError, asyncpg.exceptions.AdminShutdownError, OSError)
"""Errors after which a PostgreSQL connection is not used again (the next call opens a new one)."""



def _lost(exc: BaseException) -> bool:
    """True when ``exc`` means the PostgreSQL connection is unusable (not a bad value)."""
    return isinstance(exc, PG_LOST) and not isinstance(exc, ValueError)


async def _keep_session(conn: asyncpg.Connection) -> None:
    """The pool's reset of a connection given back: nothing beyond asyncpg's own rollback of
    an open transaction (the stores set no session state, hold no session locks, listen to
    nothing); asyncpg's default ``RESET ALL`` … would cost a round trip per unit of work."""


Connection = aiosqlite.Connection | PgConnection
"""The connection a repository method gets from ``_read`` / ``_tx``: aiosqlite's, or the
PostgreSQL one that speaks the same ``execute`` (bot/storage/backend.py)."""



async def queue(db: Connection, game: int, items: Sequence[OutboxItem], now: float) -> None:
    """Queue ``items`` in the outbox of ``game`` inside the write transaction of ``db``."""
    for sql, params in queued(game, items, now):
        await db.execute(sql, params)

T = TypeVar("T")


async def _on_thread(db: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn(connection)`` on aiosqlite's own thread: one trip there and back however many
    statements it runs (aiosqlite's ``Connection._execute``, the way its own ``execute_fetchall``
    works; aiosqlite is pinned in pyproject.toml)."""
    result: T = await db._execute(fn, db._conn)  # type: ignore[no-untyped-call]
    return result


def _one_row_insert(sql: str) -> bool:
    """True for an ``INSERT`` that always adds exactly one row (no ``DO NOTHING``): a run of
    them may go as one ``executemany``, each counted as one row."""
    head = sql.lstrip()[:6].upper()
    return head == "INSERT" and "DO NOTHING" not in sql.upper()


PG_GAME_AND_SEATS_SQL = (
    "SELECT g.*, (SELECT json_agg(json_build_array(s.game, s.seat, s.user_id, s.name, s.status, s.ai_level)"
    " ORDER BY s.seat) FROM seats s WHERE s.game = g.id)::text AS seat_rows FROM games g WHERE g.id=?")
"""PostgreSQL: ``GAME_SQL`` and ``SEATS_SQL`` in one round trip (the seats as one JSON
array of rows in ``SEATS_SQL``'s column order; SQLite reads both in one trip already)."""




def game_queries(game: int, pg: bool) -> list[tuple[str, Sequence[Any]]]:
    """The read of ``game`` with its seats: ``GAME_SQL`` and ``SEATS_SQL`` (SQLite runs both in
    one trip), or on PostgreSQL (``pg``) one query (``PG_GAME_AND_SEATS_SQL``: one round trip);
    ``Database._game_of`` reads their rows."""
    if pg:
        return [(PG_GAME_AND_SEATS_SQL, (game,))]
    return [(GAME_SQL, (game,)), (SEATS_SQL, (game,))]


class _Unchanged(Exception):
    """A guarded batch's first statement changed no row (``Repository._batch``)."""


def storage_fault(path: str, exc: BaseException) -> StorageError | None:
    """The storage fault that an SQLite, PostgreSQL or OS error means, or None for other
    errors (constraint violations and programming errors stay what they are)."""
    if isinstance(exc, asyncpg.exceptions.DataError | ValueError):
        return None  # a value of the wrong type (asyncpg's client-side DataError is a ValueError): a bug
    if isinstance(exc, PG_BUSY):
        return StorageBusy(path, str(exc) or type(exc).__name__)
    if isinstance(exc, PG_UNWRITABLE):
        return StorageUnwritable(path, str(exc) or type(exc).__name__)
    if isinstance(exc, sqlite3.OperationalError | OSError) or type(exc) is sqlite3.DatabaseError:
        reason = str(exc) or type(exc).__name__
        if isinstance(exc, sqlite3.OperationalError) and any(w in reason for w in BUSY_WORDS):
            return StorageBusy(path, reason)
        if isinstance(exc, sqlite3.OperationalError) and "no such" in reason:
            return None  # a schema bug, not a fault of the file
        if any(w in reason for w in CORRUPT_WORDS):
            return StorageCorrupt(path, reason)
        return StorageUnwritable(path, reason)
    return None


def migration_files() -> list[Any]:
    """The numbered ``migrations/NNN_*.sql`` files, in order."""
    return sorted((p for p in resources.files("bot.storage").joinpath("migrations").iterdir()
                   if p.name.endswith(".sql")), key=lambda p: p.name)


async def migrate_sqlite(db: aiosqlite.Connection) -> int:
    """Apply the migrations above ``PRAGMA user_version``, each in its own transaction; the
    schema version after."""
    async with db.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    current = int(row[0]) if row else 0
    for f in migration_files():
        number = int(f.name.split("_", 1)[0])
        if number <= current:
            continue
        script = f.read_text(encoding="utf-8")
        await db.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version={number};\nCOMMIT;")
        current = number
    return current


async def migrate_pg(conn: PgConnection) -> int:
    """PostgreSQL migrations, all pending ones in the transaction of ``conn`` under an advisory
    lock (two processes starting at once migrate once); the schema version after."""
    folder = resources.files("bot.storage").joinpath("migrations", "pg")
    overrides = {p.name.split("_", 1)[0]: p for p in (folder.iterdir() if folder.is_dir() else ())
                 if p.name.endswith(".sql")}
    await conn.executescript("SELECT pg_advisory_xact_lock(1702);"
                             " CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
    async with conn.execute("SELECT MAX(version) FROM schema_version") as cur:
        row = await cur.fetchone()
    current = int(row[0]) if row is not None and row[0] is not None else 0
    start = current
    for f in migration_files():
        prefix = f.name.split("_", 1)[0]
        number = int(prefix)
        if number <= current:
            continue
        script = (overrides[prefix] if prefix in overrides else f).read_text(encoding="utf-8")
        await conn.executescript(script)
        current = number
    if current != start:
        await conn.execute("DELETE FROM schema_version")
        await conn.execute("INSERT INTO schema_version(version) VALUES (?)", (current,))
    return current


async def _pg_fetch(db: PgConnection, queries: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
    """``Database._fetch`` on PostgreSQL: a round trip a query."""
    out: list[list[Any]] = []
    for sql, params in queries:
        async with db.execute(sql, params) as cur:
            out.append(list(await cur.fetchall()))
    return out


async def _pg_batch(conn: PgConnection, statements: Sequence[tuple[str, Sequence[Any]]], guard: bool) -> list[int]:
    """``Database._batch_then``'s statements on PostgreSQL, in the open transaction of
    ``conn``: each statement's row count; ``_Unchanged`` when ``guard`` and the first
    changed no row."""
    counts: list[int] = []
    i = 0
    while i < len(statements):
        sql, params = statements[i]
        j = i + 1
        if (i > 0 or not guard) and _one_row_insert(sql):
            while j < len(statements) and statements[j][0] == sql:
                j += 1
        if j - i > 1:  # (a run of the same insert: one round trip, asyncpg pipelines it)
            await conn.executemany(sql, [p for _, p in statements[i:j]])
            counts += [1] * (j - i)
        else:
            cur = await conn.execute(sql, params)
            counts.append(cur.rowcount)
            if guard and len(counts) == 1 and cur.rowcount != 1:
                raise _Unchanged
        i = j
    return counts


async def connect_sqlite(path: str, busy_timeout_ms: int) -> aiosqlite.Connection:
    """The SQLite connection to ``path`` with the pragmas every unit of work relies on."""
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if Path(path).is_dir():  # (checked first: a failed aiosqlite.connect leaks its thread)
            raise StorageUnwritable(path, "it is a folder, not a database file")
    db = await aiosqlite.connect(path, isolation_level=None)
    try:
        db.row_factory = aiosqlite.Row
        await db.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        await db.execute("PRAGMA journal_mode=WAL")  # (the first read: a file that is no database fails here)
        await db.execute("PRAGMA synchronous=NORMAL")
        await db.execute("PRAGMA secure_delete=ON")  # (what is deleted or replaced is zeroed: forget-me)
        await db.execute("PRAGMA foreign_keys=ON")
    except BaseException:
        await db.close()  # (an open connection's worker thread, not a daemon, would keep the process alive)
        raise
    return db


async def create_pg_pool(target: str, size: int, busy_timeout_ms: int) -> asyncpg.Pool:
    """asyncpg's pool of at most ``size`` sessions for ``target``, with the session settings
    every unit of work relies on."""
    return await asyncpg.create_pool(
        target, min_size=1, max_size=size, timeout=max(busy_timeout_ms / 1000, 1.0),
        reset=_keep_session,
        server_settings={"lock_timeout": str(int(busy_timeout_ms)),
                         "idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_MS)})


def _as_fault(path: str, exc: BaseException) -> BaseException:
    """The storage error ``exc`` means at start (``exc`` itself when it is one, or is no
    fault of the storage)."""
    if isinstance(exc, StorageError):
        return exc
    return storage_fault(path, exc) or exc


KEPT_RECORDS = 256
"""Games whose record ``GameWrites`` keeps (``kept``): the ones that moved or were read last."""

WRITES_TRACKED = 16384
"""Games whose last write ``GameWrites`` remembers one by one; past these it forgets them all
and counts every game as written then (so no record kept before is current any more)."""


class GameWrites:
    """The writes of game rows by this process's stores, counted so that a record read or
    written back can be known to still be the game as stored (``kept``) without reading
    it again.

    Every store method that writes a game row is marked ``writes_game`` (the game its first
    argument names) or ``writes_games`` (any number of games: the archive, a purge, forget-me):
    it takes a number from one rising sequence when it starts and another when it ends. A
    record is kept with a number taken after it was read (``keep``) only when no write of its
    game or of many games ran at any time during that read (``quiet``; for ``appended``'s own
    read-back, no write but its own: ``alone``), and stays current while no write of the game
    or of many games has started since (its numbers are all below the record's). A write by
    another process is excluded by the shard lease (docs/DESIGN.md: a game is written by the
    holder of its shard)."""

    def __init__(self) -> None:
        self._seq = 0
        self._floor = 0
        """The number every game not in ``_last`` counts as last written at."""
        self._last: dict[int, int] = {}
        """Per game: the number of the last start or end of a write of it."""
        self._running: dict[int, int] = {}
        self._many_running = 0
        self._many_last = 0
        self._kept: LRUCache[int, tuple[int, GameRecord]] = LRUCache(KEPT_RECORDS)

    def forget(self) -> None:
        """Count every game as written now: no record kept before is current any more."""
        self._last.clear()
        self._floor = self.mark()
        self._kept.clear()

    def mark(self) -> int:
        """A new number of the sequence (a read starts)."""
        self._seq += 1
        return self._seq

    def _last_of(self, game: int) -> int:
        return self._last.get(game, self._floor)

    def _note(self, game: int | None, seq: int, running: int) -> None:
        if game is None:
            self._many_running += running
            self._many_last = seq
            self._kept.clear()
            return
        now = self._running.get(game, 0) + running
        if now:
            self._running[game] = now
        else:
            self._running.pop(game, None)
        if len(self._last) >= WRITES_TRACKED and game not in self._last:
            self._last.clear()
            self._floor = seq
        self._last[game] = seq

    def begin(self, game: int | None) -> int:
        """A write of ``game`` (None: of many games) starts; its number."""
        seq = self.mark()
        self._note(game, seq, 1)
        return seq

    def end(self, game: int | None) -> int:
        """The write of ``game`` (None: of many games) started with ``begin`` ended; its number."""
        seq = self.mark()
        self._note(game, seq, -1)
        return seq

    def quiet(self, game: int, since: int) -> bool:
        """True when no write of ``game`` or of many games runs now or started or ended after
        the number ``since`` (a read that took ``since`` before it started read the game as
        stored now)."""
        return (game not in self._running and not self._many_running and self._last_of(game) < since
                and self._many_last < since)

    def alone(self, game: int, started: int) -> bool:
        """While the write of ``game`` numbered ``started`` runs: True when it is the only write
        of the game and of many games running, and none started or ended since it began."""
        return (self._running.get(game) == 1 and not self._many_running and self._last_of(game) == started
                and self._many_last < started)

    def keep(self, record: GameRecord) -> None:
        """Keep ``record``: the game as stored now (``quiet`` or ``alone`` said so)."""
        self._kept[record.id] = (self.mark(), record)

    def kept(self, game: int) -> GameRecord | None:
        """The record kept of ``game`` while it is current, else None."""
        kept = self._kept.get(game)
        if kept is None:
            return None
        if self._last_of(game) < kept[0] and self._many_last < kept[0]:
            return kept[1]
        del self._kept[game]
        return None


_Method = TypeVar("_Method", bound=Callable[..., Any])


def writes_game(method: _Method) -> _Method:
    """Mark a store method that writes the row of the game its first argument names (counted
    in ``GameWrites``)."""
    @wraps(method)
    async def _counted(self: Database, game: int, *args: Any, **kwargs: Any) -> Any:
        self._writes.begin(game)
        try:
            return await method(self, game, *args, **kwargs)
        finally:
            self._writes.end(game)
    _counted.writes_game = True  # type: ignore[attr-defined]
    return cast(_Method, _counted)


def writes_games(method: _Method) -> _Method:
    """Mark a store method that may write the rows of any number of games (counted in
    ``GameWrites`` as a write of many games)."""
    @wraps(method)
    async def _counted(self: Database, *args: Any, **kwargs: Any) -> Any:
        self._writes.begin(None)
        try:
            return await method(self, *args, **kwargs)
        finally:
            self._writes.end(None)
    _counted.writes_game = True  # type: ignore[attr-defined]
    return cast(_Method, _counted)


class Database:
    """Async access to the database at ``path``: an SQLite file path (``":memory:"`` works
    too) or a database URL (``sqlite:///data/games.db``, ``postgresql://user@host/db``;
    bot/storage/backend.py ``parse_database_url``).

    ``clock`` returns unix time in seconds (injectable for tests). ``backend`` is
    ``"sqlite"`` or ``"postgresql"``; ``path`` the file, or the URL without its password.
    ``shards``: the Discord shards this process runs; when given, the work
    queues that a process serves by itself (``due``, ``deferred_pings``, ``pending`` of
    every game) hold only the games of servers on these shards.

    Raises:
        ValueError: an unknown URL scheme.
    """

    def __init__(self, path: str, *, clock: Callable[[], float] = time.time,
                 busy_timeout_ms: int = BUSY_TIMEOUT_MS, shards: Shards | None = None,
                 pool_size: int = POOL_SIZE) -> None:
        url = parse_database_url(path)
        self.shards = shards
        self.backend = url.backend
        self._target = url.target
        self.path = url.shown
        self.clock = clock
        self.busy_timeout_ms = busy_timeout_ms
        self.fault: str | None = None
        """The reason writes are failing now (None when healthy)."""
        self._db: aiosqlite.Connection | None = None
        self.pool_size = pool_size
        self.fenced: str | None = None
        """Why this process may no longer write (its shard lease was lost), or None: every
        PostgreSQL write transaction is then refused before it commits."""
        self._fence: tuple[str, Callable[[str], None]] | None = None
        """PostgreSQL, a lease holder: the statement run right before each ``COMMIT`` (``fence``)
        and whom to tell when it refuses."""
        self._pool: asyncpg.Pool | None = None
        self._lock = asyncio.Lock()
        """SQLite's one connection is used by one unit of work at a time."""
        self._snapshots = Snapshots()
        self._log_tails: LRUCache[int, LogTail] = LRUCache(LOG_TAILS_KEPT)
        """Per game: its newest log entries read or written by this process (``log`` with
        ``upto``: a move's panel, undo checks, parked panels and board read them
        several times)."""
        self._writes = GameWrites()
        """The writes of game rows under way and done in this process (``writes_game``): what
        ``Repository.current`` judges a record by."""
        self._quiet: TTLCache[int, tuple[int, int, str] | None] = TTLCache(
            QUIET_HOURS_KEPT, QUIET_HOURS_FRESH, timer=time.monotonic)
        """Per server: its quiet hours as read last (``quiet_hours``; QUIET_HOURS_FRESH)."""

    # ------------------------------------------------------------------ lifecycle
    async def open(self) -> None:
        """Open the connection, set the pragmas, apply pending migrations and check that
        the file can be written (one header write).

        Raises:
            StorageUnwritable: the file or its folder cannot be created, opened or written,
                or it is not a database; the message names the path and the reason.
            StorageBusy: another process holds the database lock beyond the busy timeout.
        """
        if self.backend == POSTGRESQL:
            await self._open_pg()
            return
        try:
            self._db = await connect_sqlite(self.path, self.busy_timeout_ms)
            version = await self.migrate()
            async with self._tx() as db:  # the write probe: a read-only file fails here
                await db.execute(f"PRAGMA user_version={version}")
                await db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        except (OSError, sqlite3.Error, StorageError) as exc:
            with contextlib.suppress(Exception):
                await self.close()
            fault = _as_fault(self.path, exc)
            if fault is exc:
                raise
            raise fault from exc

    async def _open_pg(self) -> None:
        """Open the pool (its first connection proves the server answers) and migrate."""
        try:
            self._pool = await create_pg_pool(self._target, self.pool_size, self.busy_timeout_ms)
            await self.migrate()
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await self.close()
            if isinstance(exc, TimeoutError):
                raise StorageUnwritable(self.path, "the server did not answer in time") from exc
            fault = _as_fault(self.path, exc)
            if fault is exc:
                raise
            raise fault from exc

    @asynccontextmanager
    async def _pg_conn(self) -> AsyncIterator[PgConnection]:
        """A connection of the pool for one unit of work (a connection the server or the
        network dropped is replaced by the pool: the next call simply tries again)."""
        async with self._open_pool().acquire() as raw:
            yield PgConnection(raw)

    @classmethod
    async def check(cls, path: str) -> None:
        """Open (migrating) and close the database at ``path``: the start-up check.

        Raises:
            StorageUnwritable / StorageBusy: as ``open``.
        """
        repo = cls(path)
        await repo.open()
        await repo.close()

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._db is not None:
            await self._db.close()
            self._db = None
        if self._pool is not None:
            pool, self._pool = self._pool, None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pool.close(), timeout=max(self.busy_timeout_ms / 1000, 1.0))
            if not pool.is_closing():
                pool.terminate()

    @property
    def db(self) -> aiosqlite.Connection:
        """The SQLite connection (tests and SQLite-only tools; see ``conn`` for both)."""
        if self._db is None:
            raise RuntimeError("not an SQLite repository" if self._pg else "repository is not open")
        return self._db

    @property
    def _pg(self) -> bool:
        """True for a PostgreSQL repository (open or not)."""
        return self.backend == POSTGRESQL

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Connection]:
        """A connection of either backend (``execute`` with ``?`` placeholders) for reads
        outside the stores (tests, tools)."""
        async with self._read() as db:
            yield db

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Connection]:
        if self._pg:
            try:
                async with self._pg_conn() as conn:
                    yield conn
            except BaseException as exc:
                fault = storage_fault(self.path, exc)
                if fault is None:
                    raise
                raise fault from exc
            return
        async with self._lock:
            yield self.db

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Connection]:
        """One write transaction (SQLite: ``BEGIN IMMEDIATE`` … ``COMMIT``; PostgreSQL: a
        READ COMMITTED transaction); storage faults become ``StorageBusy`` /
        ``StorageUnwritable`` and nothing is written."""
        if self._pg:
            async with self._pg_tx() as conn:
                yield conn
            return
        async with self._lock:
            try:
                await self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._faulted(exc) from exc
            try:
                yield self.db
                await self.db.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):  # (SQLite may have rolled back already)
                    await self.db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error) and storage_fault(self.path, exc) is not None:
                    raise self._faulted(exc) from exc
                raise
            self._writable_again()

    def _writable_again(self) -> None:
        if self.fault is not None:
            log.warning("storage %s is writable again (was: %s); saving resumed", self.path, self.fault)
            self.fault = None

    def _open_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            if self.fenced is not None:  # (closed after its lease was lost, a handler still running)
                raise LeaseLost(self.path, self._no_shards())
            raise RuntimeError("repository is not open")
        return self._pool

    def _keep_if_quiet(self, record: GameRecord, since: int) -> None:
        """Keep ``record`` (``GameWrites``), read by a read that took the number ``since`` before
        it started, when no write of its game ran during that read."""
        if self._writes.quiet(record.id, since):
            self._writes.keep(record)

    def _no_shards(self) -> str:
        return f"this process no longer holds its shards: {self.fenced}"

    def fence(self, sql: str, refused: Callable[[str], None]) -> None:
        """Run ``sql`` (``ShardLeases.fence_sql``: it fails with ``FENCE_SQLSTATE`` unless this
        process still holds its leases) in every PostgreSQL write transaction from now on,
        in the round trip of its ``COMMIT``; when it refuses, ``refused(reason)`` is called
        once and the write raises ``LeaseLost``. The records kept before (``GameWrites``) are
        forgotten: the games of the shards just taken were written by their last holder."""
        self._fence = (sql, refused)
        self._writes.forget()

    def _fenced_by(self, exc: BaseException) -> LeaseLost | None:
        """The ``LeaseLost`` that ``exc`` means (the fence refused the commit), or None."""
        if getattr(exc, "sqlstate", None) != FENCE_SQLSTATE:
            return None
        reason = str(getattr(exc, "message", "") or exc)
        if self.fenced is None:
            self.fenced = reason
            log.critical("storage %s refused a write: %s", self.path, reason)
            if self._fence is not None:
                self._fence[1](reason)
        return LeaseLost(self.path, reason)

    @asynccontextmanager
    async def _pg_tx(self) -> AsyncIterator[PgConnection]:
        """One transaction on a connection of the pool (READ COMMITTED; each process runs as
        many at once as the pool has connections). A connection found dropped at ``BEGIN``
        is given back (the pool replaces it) and the next one tried, once. A lease holder's
        transaction commits only if the fence passes (``fence``), in the same round trip."""
        pool = self._open_pool()
        for attempt in (1, 2):
            raw = None
            try:
                raw = await pool.acquire()
                await raw.execute("BEGIN")
                break
            except BaseException as exc:
                if raw is not None:
                    with contextlib.suppress(Exception):
                        await pool.release(raw)
                if self.fenced is not None and isinstance(exc, Exception):
                    raise LeaseLost(self.path, self._no_shards()) from exc
                if attempt == 2 or not _lost(exc):
                    raise self._faulted(exc) from exc
        assert raw is not None
        try:
            try:
                yield PgConnection(raw)
                if self.fenced is not None:
                    raise LeaseLost(self.path, self._no_shards())
                await raw.execute("COMMIT" if self._fence is None else f"{self._fence[0]}; COMMIT")
            except BaseException as exc:
                if raw.is_in_transaction():
                    with contextlib.suppress(Exception):
                        await raw.execute("ROLLBACK")
                fenced = self._fenced_by(exc)
                if fenced is not None:
                    raise fenced from exc
                if self.fenced is not None and isinstance(exc, Exception) and not isinstance(exc, LeaseLost):
                    # (the lease was lost meanwhile and the pool is closing under this unit of work)
                    raise LeaseLost(self.path, self._no_shards()) from exc
                if storage_fault(self.path, exc) is not None:
                    raise self._faulted(exc) from exc
                raise
        finally:
            with contextlib.suppress(Exception):
                await pool.release(raw)
        self._writable_again()

    async def _fetch(self, queries: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        """The rows of each read query, in one trip to the database (SQLite runs them
        all in one call on aiosqlite's thread, instead of an execute, a fetch and a close
        each; PostgreSQL one round trip a query). Under the lock, like ``_read``."""
        async with self._read() as db:
            if isinstance(db, PgConnection):
                return await _pg_fetch(db, queries)

            def run(conn: sqlite3.Connection) -> list[list[Any]]:
                return [conn.execute(sql, tuple(params)).fetchall() for sql, params in queries]

            return await _on_thread(db, run)

    async def _batch(self, statements: Sequence[tuple[str, Sequence[Any]]], *,
                     guard: bool = False) -> list[int] | None:
        """Run the write ``statements`` in one transaction, in one trip to the database
        (SQLite: ``BEGIN IMMEDIATE``, the statements and ``COMMIT`` in one call on aiosqlite's
        thread; PostgreSQL: one transaction, a round trip a statement, a run of the same
        one-row insert (log entries, outbox rows) in one round trip). Returns each
        statement's row count. ``guard``: when the first statement changes no row (a failed
        compare-and-set), nothing is written and None is returned.

        Raises:
            StorageBusy / StorageUnwritable: as ``_tx``; nothing was written.
        """
        done = await self._batch_then(statements, (), guard=guard)
        return None if done is None else done[0]

    async def _batch_then(self, statements: Sequence[tuple[str, Sequence[Any]]],
                          queries: Sequence[tuple[str, Sequence[Any]]], *,
                          guard: bool = False) -> tuple[list[int], list[list[Any]]] | None:
        """As ``_batch``, then the rows of each read query of ``queries`` once committed, in the
        same trip to the database (SQLite; PostgreSQL: as ``_fetch`` after the commit): (row
        counts, rows per query), or None when ``guard`` refused (nothing read)."""
        if self._pg:
            try:
                async with self._pg_tx() as conn:
                    counts = await _pg_batch(conn, statements, guard)
            except _Unchanged:
                return None
            return counts, await self._fetch(queries) if queries else []

        def run(conn: sqlite3.Connection) -> tuple[list[int], list[list[Any]]] | None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                counts: list[int] = []
                for sql, params in statements:
                    counts.append(conn.execute(sql, tuple(params)).rowcount)
                    if guard and len(counts) == 1 and counts[0] != 1:
                        conn.execute("ROLLBACK")
                        return None
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # (SQLite may have rolled back already)
                    conn.execute("ROLLBACK")
                raise
            return counts, [conn.execute(sql, tuple(params)).fetchall() for sql, params in queries]

        async with self._lock:
            try:
                done = await _on_thread(self.db, run)
            except sqlite3.Error as exc:
                raise self._faulted(exc) from exc
            self._writable_again()
            return done

    async def lock_game(self, db: Connection, game: int) -> None:
        """Inside a write transaction: hold the row of ``game`` until the commit, so a
        read-then-write of the same game by another process waits (PostgreSQL ``SELECT …
        FOR UPDATE``). SQLite needs nothing: ``BEGIN IMMEDIATE`` already holds the only
        write lock of the file."""
        if isinstance(db, PgConnection):
            await db.execute("SELECT id FROM games WHERE id=? FOR UPDATE", (game,))

    def _faulted(self, exc: BaseException) -> BaseException:
        """The storage fault ``exc`` means (logged for the operator once per episode), or
        ``exc`` itself when it is not a fault of the file."""
        fault = storage_fault(self.path, exc)
        if fault is None:
            return exc
        if isinstance(fault, StorageUnwritable) and self.fault != fault.reason:
            log.error("storage %s cannot be written: %s. Moves are refused until it can; "
                      "no restart is needed once it is fixed.", self.path, fault.reason)
            self.fault = fault.reason
        elif isinstance(fault, StorageBusy):
            log.warning("storage %s stayed locked beyond %d ms; the write was refused", self.path,
                        self.busy_timeout_ms)
        return fault

    async def migrate(self) -> int:
        """Apply the numbered ``migrations/NNN_*.sql`` files above the schema version
        (SQLite: ``PRAGMA user_version``; PostgreSQL: the ``schema_version`` table, each
        file of ``migrations/pg/`` in place of the shared one where the SQL differs).

        A process running some shards also indexes the games by their shard among its shard
        count (``Shards.index_sql``: once per count, when the first process with it starts).

        Returns:
            The schema version after migrating.
        """
        if self._pg:
            async with self._pg_tx() as conn:
                version = await migrate_pg(conn)
                for sql in self.shards.index_sql() if self.shards is not None else ():
                    await conn.execute(sql)  # (under migrate_pg's lock: processes starting together)
                return version
        async with self._lock:
            version = await migrate_sqlite(self.db)
            for sql in self.shards.index_sql() if self.shards is not None else ():
                await self.db.execute(sql)
            return version

    async def schema_version(self) -> int:
        """The schema version: the number of the last migration applied."""
        if self._pg:
            async with self._read() as db, db.execute("SELECT MAX(version) FROM schema_version") as cur:
                row = await cur.fetchone()
        else:
            async with self._read() as db, db.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0



class GameReads(Database):
    """The reads of whole games (a game row with its seats) that the game, log and clock
    stores share."""

    def _game_of(self, results: Sequence[list[Any]]) -> tuple[GameRecord | None, list[list[Any]]]:
        """The game the rows of ``game_queries`` at the head of ``results`` give (None when
        there is none), and the rows of the queries after them."""
        if self._pg:
            rows, rest = results[0], list(results[1:])
            seats = [tuple(r) for r in json.loads(rows[0]["seat_rows"] or "[]")] if rows else []
        else:
            rows, seats, rest = results[0], results[1], list(results[2:])
        record = row_to_game(rows[0], [row_to_seat(r) for r in seats], self._snapshots) if rows else None
        return record, rest

    async def _game(self, db: Connection, game: int) -> GameRecord | None:
        results = []
        for sql, params in game_queries(game, self._pg):
            async with db.execute(sql, params) as cur:
                results.append(list(await cur.fetchall()))
        return self._game_of(results)[0]

    async def _games(self, ids: Sequence[int]) -> list[GameRecord]:
        """The games ``ids`` in that order (those that exist), their rows and seats read in
        one trip to the database per ``GAMES_AT_ONCE`` games."""
        out: list[GameRecord] = []
        for start in range(0, len(ids), GAMES_AT_ONCE):
            chunk = list(ids[start:start + GAMES_AT_ONCE])
            marks = ",".join("?" * len(chunk))
            rows, seat_rows = await self._fetch([
                (f"SELECT * FROM games WHERE id IN ({marks})", chunk),
                (f"SELECT game, seat, user_id, name, status, ai_level FROM seats WHERE game IN ({marks})"
                 " ORDER BY game, seat", chunk)])
            seats: dict[int, list[SeatRecord]] = {}
            for r in seat_rows:
                seats.setdefault(int(r[0]), []).append(row_to_seat(r))
            by_id = {int(r["id"]): r for r in rows}
            out += [row_to_game(by_id[pk], seats.get(pk, []), self._snapshots) for pk in chunk if pk in by_id]
        return out
