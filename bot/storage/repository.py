"""The repository: the only place with SQL (design §2, §4).

One connection serialised by an ``asyncio.Lock``: each method runs its statements as one
unit, writes inside one transaction. The backend is chosen by the database URL
(bot/storage/backend.py): SQLite through aiosqlite (WAL, ``busy_timeout``,
``foreign_keys=ON``, ``isolation_level=None``; writes in ``BEGIN IMMEDIATE`` … ``COMMIT``)
by default, PostgreSQL through asyncpg for ``postgresql://`` URLs (several processes, one
database). The SQL below is written once, portable (``?`` placeholders, no SQLite-only
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
import re
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite
import asyncpg
from cachetools import LRUCache, TTLCache

from bot.storage.backend import POSTGRESQL, PgConnection, parse_database_url, pg_migration
from bot.storage.backup import APPLICATION_ID

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
"""How long a write waits for another writer's lock before ``StorageBusy`` (milliseconds)."""

OUTBOX_KINDS = ("board", "lines", "ping", "end", "answer", "notice")
"""The kinds of outbox rows (see migrations/003_outbox.sql; ``notice``: 010_outbox_notices.sql)."""

ANON_USER = 0
"""The user id of a player who asked to be forgotten, in the games kept for their scores
(``Repository.anonymise_user``): never a Discord id, nor an AI seat's (below 0)."""


class StorageError(Exception):
    """The database file could not be used; ``path`` is the file, ``reason`` SQLite's or
    the system's own words."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


class StorageBusy(StorageError):
    """Another process held the database lock beyond the busy timeout; nothing was written."""


class StorageUnwritable(StorageError):
    """The database cannot be written (read-only file, full disk, I/O error, missing or
    unusable folder); nothing was written."""

    def __str__(self) -> str:
        return (f"The database {self.path} cannot be written ({self.reason}). Check that the file and "
                "its folder exist, are writable by this user and that the disk has space "
                "(or set DATABASE_PATH to another file).")


class StorageCorrupt(StorageUnwritable):
    """The file is damaged or not a database (SQLite's "malformed", "not a database"): only a
    backup brings its games back (to a player, a fault of storage like ``StorageUnwritable``)."""

    def __str__(self) -> str:
        return (f"The database {self.path} is damaged (corrupt: {self.reason}). Restore the newest backup "
                "that replays: make restore FILE=<backup> TO=<a new path> (README, \"Operating the bot\"), "
                "then point DATABASE_PATH at it.")


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


Connection = aiosqlite.Connection | PgConnection
"""The connection a repository method gets from ``_read`` / ``_tx``: aiosqlite's, or the
PostgreSQL one that speaks the same ``execute`` (bot/storage/backend.py)."""


T = TypeVar("T")


async def _on_thread(db: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn(connection)`` on aiosqlite's own thread: one trip there and back however many
    statements it runs (aiosqlite's ``Connection._execute``, the way its own ``execute_fetchall``
    works; aiosqlite is pinned in pyproject.toml)."""
    result: T = await db._execute(fn, db._conn)  # type: ignore[no-untyped-call]
    return result


USER_KEYS = frozenset({"user", "user_id", "users", "old_user", "new_user", "host", "mentions", "turn", "by"})
"""Keys of log and outbox JSON whose values are user ids (a number, a list of them, or a seat's
``[seat, user id]``)."""


def _without_user(value: Any, user_id: int, *, ids: bool = False) -> Any:
    """``value`` (JSON) with ``user_id`` replaced by ``ANON_USER`` where it names a user: a
    number (or a number's text) under one of ``USER_KEYS`` (``ids``), and a mention (``<@id>``,
    ``<@!id>``) inside any string. Other numbers stay (a die may show what an id's digits do)."""
    if isinstance(value, dict):
        return {k: _without_user(v, user_id, ids=k in USER_KEYS) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_user(v, user_id, ids=ids) for v in value]
    if ids and isinstance(value, int) and not isinstance(value, bool) and value == user_id:
        return ANON_USER
    if ids and value == str(user_id):
        return str(ANON_USER)
    if isinstance(value, str):
        return re.sub(rf"<@!?{user_id}>", f"<@{ANON_USER}>", value)
    return value


class TooManyLobbies(Exception):
    """The host already has the most open lobbies allowed in the server; ``games`` are their ids."""

    def __init__(self, games: list[int]) -> None:
        super().__init__(f"open lobbies: {games}")
        self.games = games


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


@dataclass(frozen=True)
class OutboxItem:
    """A delivery to write with an action (docs/DESIGN.md §4): ``kind`` (``OUTBOX_KINDS``),
    ``version`` (the game version it belongs to) and a JSON ``payload``."""

    kind: str
    version: int
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OutboxRow:
    """A row of ``outbox``: ``id`` orders a game's deliveries; ``nonce`` is the Discord
    message nonce that makes a re-sent message a no-op; ``done_at`` is None while pending."""

    id: int
    game: int
    version: int
    kind: str
    payload: dict[str, Any]
    nonce: str
    attempts: int
    created_at: float
    done_at: float | None = None


@dataclass(frozen=True)
class Shards:
    """The Discord shards one process runs: ``ids`` out of ``count``. A server
    (guild) is on shard ``(guild_id >> 22) % count`` (Discord's rule); games without a
    server (DMs) are on shard 0.

    Raises:
        ValueError: ``count`` below 1, or an id outside ``0 … count-1``.
    """

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or any(not 0 <= i < self.count for i in self.ids):
            raise ValueError(f"shard ids {list(self.ids)} must lie in 0..{self.count - 1}")

    @staticmethod
    def of(guild_id: int | None, count: int) -> int:
        """The shard of the server ``guild_id`` among ``count`` shards."""
        return ((guild_id or 0) >> 22) % count

    def owns(self, guild_id: int | None) -> bool:
        """True when the server ``guild_id`` is on one of these shards."""
        return self.of(guild_id, self.count) in self.ids

    def where(self, column: str = "guild_id") -> tuple[str, tuple[int, ...]]:
        """An SQL condition (portable) keeping the rows whose ``column`` is on these shards,
        and its parameters."""
        marks = ",".join("?" * len(self.ids))
        return f"((COALESCE({column}, 0) / 4194304) % ? IN ({marks}))", (self.count, *self.ids)


class StaleVersion(Exception):
    """The game changed between the caller's read and its write (version mismatch)."""

    def __init__(self, game: int, expected: int, actual: int | None) -> None:
        super().__init__(f"game {game}: expected version {expected}, found {actual}")
        self.game, self.expected, self.actual = game, expected, actual


@dataclass(frozen=True)
class SeatRecord:
    """A row of ``seats``: who sits in ``seat`` of game ``game``."""

    game: int
    seat: int
    user_id: int
    name: str
    status: str = "active"
    ai_level: str | None = None
    """The AI level playing this seat (``easy``/``normal``/``hard``), None for a person."""

    @property
    def is_ai(self) -> bool:
        """Whether the computer plays this seat (an AI seat, or a player's autopilot)."""
        return self.ai_level is not None

    @property
    def is_bot(self) -> bool:
        """Whether the seat belongs to no person (a synthetic negative user id): never
        pinged, never sent a DM."""
        return self.user_id < 0


@dataclass(frozen=True)
class LogEntry:
    """A row of ``actions`` (append-only). ``kind`` is player/chance/system; ``seat`` is
    the seat, -1 for chance, None for system entries; ``action`` and ``events`` are JSON."""

    seq: int
    kind: str
    seat: int | None
    action: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    user_id: int | None = None
    at: float = 0.0


@dataclass(frozen=True)
class GameRecord:
    """A row of ``games`` plus its seats (ordered by seat).

    ``state`` is the parsed JSON snapshot (None in the lobby); ``options`` the parsed
    options; ``waiting`` the seats the current deadline is for.
    """

    id: int
    game_id: str
    guild_id: int | None
    channel_id: int
    thread_id: int | None
    board_channel_id: int | None
    board_message_id: int | None
    lobby_message_id: int | None
    host_user_id: int
    status: str
    paused: bool
    seed: int
    options: dict[str, Any]
    players: int | None
    state: dict[str, Any] | None
    version: int
    move_timeout: int
    deadline: float | None
    reminded: int
    waiting: list[int]
    deadline_window: int | None
    created_at: float
    updated_at: float
    seats: tuple[SeatRecord, ...] = ()
    vacations: dict[str, dict[str, int]] = field(default_factory=dict)

    def seat_of(self, user_id: int) -> int | None:
        """The active seat of ``user_id``, or None."""
        for s in self.seats:
            if s.user_id == user_id and s.status == "active":
                return s.seat
        return None

    def user_of(self, seat: int) -> int | None:
        """The user id seated at ``seat``, or None."""
        for s in self.seats:
            if s.seat == seat:
                return s.user_id
        return None

    def vacation_left(self, seat: int) -> int:
        """Vacation days the player at ``seat`` has left in this game (0 when none)."""
        entry = self.vacations.get(str(self.user_of(seat)), {})
        return max(0, int(entry.get("days", 0)) - int(entry.get("used", 0)))

    @property
    def names(self) -> list[str]:
        """Display names by seat."""
        return [s.name for s in self.seats]

    @property
    def home_channel_id(self) -> int:
        """Where the game's messages go: its thread, else its channel."""
        return self.thread_id or self.channel_id


def bot_user_id(record: GameRecord) -> int:
    """A new synthetic user id for an AI seat of ``record``: below 0 and below every id
    seated there (so unique within the game, and never a Discord id)."""
    return min([0, *(s.user_id for s in record.seats)]) - 1


GAME_SQL = "SELECT * FROM games WHERE id=?"
SEATS_SQL = "SELECT game, seat, user_id, name, status, ai_level FROM seats WHERE game=? ORDER BY seat"
LOG_SQL = "SELECT seq, kind, seat, action, events, user_id, at FROM actions WHERE game=? AND seq>?"
GAMES_AT_ONCE = 500
"""Games read per trip by ``Repository.games`` and ``due`` (well under SQLite's bound-parameter limit)."""


def _log_query(game: int, after: int, last: int | None, upto: int | None = None) -> tuple[str, tuple[Any, ...]]:
    """The query of ``Repository.log``: entries with seq > ``after`` (and ≤ ``upto``), the
    ``last`` N of them."""
    sql = LOG_SQL
    params: tuple[Any, ...] = (game, after)
    if upto is not None:
        sql, params = sql + " AND seq<=?", (*params, upto)
    if last is None:
        return sql + " ORDER BY seq", params
    return f"SELECT * FROM ({sql} ORDER BY seq DESC LIMIT ?) AS recent ORDER BY seq", (*params, last)


QUIET_HOURS_FRESH = 10.0
"""Seconds a server's quiet hours read by ``Repository.quiet_hours`` are used again without
a read (a move reads them 1-2 times). A change made by this process is seen at
once. Only the process running the server's shard (``Shards``) takes its commands, so
another process's change (the server moved to another shard) is seen within this many
seconds."""
QUIET_HOURS_KEPT = 4096
"""Servers whose quiet hours are remembered (least recently used forgotten first)."""

LOG_TAILS_KEPT = 64
"""Games whose newest log entries ``Repository`` keeps in memory (``LogTail``)."""
LOG_TAIL_ENTRIES = 48
"""Entries kept per game: more than a board's ``RECENT_READ`` (bot/ui/delivery.py) and the undo
check's ``UNDO_TAIL`` (bot/service.py) read. 64 games × 48 entries stay a few MB (the memory
guard: 1,000 games under 150 MB, bench/footprint.py)."""


@dataclass
class LogTail:
    """What this process knows of a game's log: ``entries`` are exactly its entries with
    ``after`` < seq ≤ ``upto``, in order. Safe to serve to any process's move: an
    entry's seq is the version its write moved the game to, under the version's
    compare-and-set, so once a game has been at version ``upto`` no entry with seq ≤ ``upto``
    is ever added, and entries are never changed (the one exception, ``anonymise_user``,
    rewrites the user of seats no longer played and drops this process's tails of those
    games; another process's tail may show the old user id of such a seat until it is
    evicted, which decides nothing: that user cannot act in the game)."""

    after: int
    upto: int
    entries: list[LogEntry]


def _row_to_entry(r: Any) -> LogEntry:
    return LogEntry(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5], r[6])


def _row_to_seat(r: Any) -> SeatRecord:
    return SeatRecord(r[0], r[1], r[2], r[3], r[4], r[5])


SNAPSHOTS_PARSED = 256
"""Parsed state snapshots a repository keeps (``Snapshots``): about the games in play at once."""


class Snapshots:
    """The parsed state JSON of recently read games, one per (game, version) (a state is
    parsed once per version, not once per read). Every ``GameRecord`` read of the same stored text
    shares one parsed dict: it is read-only by contract (the host parses it again into an engine
    ``State`` with ``Engine.state_from_json``, a copy; nothing writes into ``GameRecord.state``). A
    hit needs the stored text to be equal too, so a snapshot replaced at the same version
    (``Repository.replace_snapshot``) is parsed afresh."""

    def __init__(self, size: int = SNAPSHOTS_PARSED) -> None:
        self._parsed: LRUCache[tuple[int, int], tuple[str, dict[str, Any]]] = LRUCache(size)

    def parse(self, game: int, version: int, text: str | None) -> Any:
        """``json.loads(text)``, shared with earlier reads of the same ``text`` at ``version``."""
        if text is None:
            return None
        key = (game, version)
        hit = self._parsed.get(key)
        if hit is not None and hit[0] == text:
            return hit[1]
        state = json.loads(text)
        self._parsed[key] = (text, state)
        return state


def _row_to_game(row: Any, seats: Sequence[SeatRecord], snapshots: Snapshots | None = None) -> GameRecord:
    state = (snapshots.parse(row["id"], row["version"], row["state"]) if snapshots is not None
             else None if row["state"] is None else json.loads(row["state"]))
    return GameRecord(
        id=row["id"], game_id=row["game_id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
        thread_id=row["thread_id"], board_channel_id=row["board_channel_id"],
        board_message_id=row["board_message_id"], lobby_message_id=row["lobby_message_id"],
        host_user_id=row["host_user_id"], status=row["status"], paused=bool(row["paused"]),
        seed=row["seed"], options=json.loads(row["options"]), players=row["players"],
        state=state, version=row["version"],
        move_timeout=row["move_timeout"], deadline=row["deadline"], reminded=row["reminded"],
        waiting=json.loads(row["waiting"]), deadline_window=row["deadline_window"], created_at=row["created_at"], updated_at=row["updated_at"],
        seats=tuple(seats),
        vacations=json.loads(row["vacations"]) if "vacations" in row.keys() else {},
    )


INSERT_ACTION = ("INSERT INTO actions(game, seq, kind, seat, action, events, user_id, at)"
                 " VALUES (?,?,?,?,?,?,?,?)")


def _rating_statements(game: int, guild_id: int, game_id: str, rows: Sequence[tuple[int, float, float, bool]],
                       now: float) -> list[tuple[str, Sequence[Any]]]:
    """The statements that store a finished game's ratings (``Repository.record_ratings``):
    first the ``rated_games`` mark (it changes no row when the game was rated already),
    then one upsert per player, counting one more game (and a win)."""
    out: list[tuple[str, Sequence[Any]]] = [
        ("INSERT INTO rated_games(game, rated_at) VALUES (?,?) ON CONFLICT(game) DO NOTHING", (game, now))]
    out += [("INSERT INTO ratings(guild_id, game_id, user_id, mu, sigma, games, wins, updated_at)"
             " VALUES (?,?,?,?,?,1,?,?) ON CONFLICT(guild_id, game_id, user_id) DO UPDATE SET"
             " mu=excluded.mu, sigma=excluded.sigma, games=ratings.games+1,"
             " wins=ratings.wins+excluded.wins, updated_at=excluded.updated_at",
             (guild_id, game_id, user_id, mu, sigma, int(won), now)) for user_id, mu, sigma, won in rows]
    return out


def _queued(game: int, items: Sequence[OutboxItem], now: float) -> list[tuple[str, Sequence[Any]]]:
    """The statements that queue ``items`` in the outbox of ``game``.

    Raises:
        ValueError: an unknown kind (nothing is written).
    """
    out: list[tuple[str, Sequence[Any]]] = []
    for item in items:
        if item.kind not in OUTBOX_KINDS:
            raise ValueError(f"unknown outbox kind {item.kind!r}")
        out.append(("INSERT INTO outbox(game, version, kind, payload, nonce, created_at) VALUES (?,?,?,?,?,?)",
                    (game, item.version, item.kind, json.dumps(item.payload), secrets.token_hex(10), now)))
    return out


class Repository:
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
                 busy_timeout_ms: int = BUSY_TIMEOUT_MS, shards: Shards | None = None) -> None:
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
        self._pg: PgConnection | None = None
        self._pg_lost = False
        self._lock = asyncio.Lock()
        self._snapshots = Snapshots()
        self._log_tails: LRUCache[int, LogTail] = LRUCache(LOG_TAILS_KEPT)
        """Per game: its newest log entries read or written by this process (``log`` with
        ``upto``: a move's panel, undo checks, parked panels and board read them
        several times)."""
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
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                if Path(self.path).is_dir():  # (checked first: a failed aiosqlite.connect leaks its thread)
                    raise StorageUnwritable(self.path, "it is a folder, not a database file")
            self._db = await aiosqlite.connect(self.path, isolation_level=None)
            self._db.row_factory = aiosqlite.Row
            await self._db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            await self._db.execute("PRAGMA journal_mode=WAL")
            await self._db.execute("PRAGMA synchronous=NORMAL")
            await self._db.execute("PRAGMA secure_delete=ON")  # (what is deleted or replaced is zeroed: forget-me)
            await self._db.execute("PRAGMA foreign_keys=ON")
            version = await self.migrate()
            async with self._tx() as db:  # the write probe: a read-only file fails here
                await db.execute(f"PRAGMA user_version={version}")
                await db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        except (OSError, sqlite3.Error, StorageError) as exc:
            with contextlib.suppress(Exception):
                await self.close()
            fault = exc if isinstance(exc, StorageError) else storage_fault(self.path, exc)
            if fault is None:
                raise
            if fault is exc:
                raise
            raise fault from exc

    async def _connect_pg(self) -> PgConnection:
        """A new PostgreSQL connection; locks wait at most the busy timeout."""
        try:
            raw = await asyncpg.connect(self._target, timeout=max(self.busy_timeout_ms / 1000, 1.0),
                                        server_settings={"lock_timeout": str(int(self.busy_timeout_ms))})
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            fault = storage_fault(self.path, exc)
            raise (fault or StorageUnwritable(self.path, str(exc) or type(exc).__name__)) from exc
        conn = PgConnection(raw)
        if self._pg is not None:
            conn.generated = self._pg.generated
        return conn

    async def _open_pg(self) -> None:
        self._pg = await self._connect_pg()
        try:
            await self.migrate()
            await self._pg.refresh_generated()
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await self.close()
            fault = storage_fault(self.path, exc)
            if fault is None:
                raise
            raise fault from exc

    async def _pg_live(self) -> PgConnection:
        """The PostgreSQL connection, opened again when the server or network dropped it
        (the next write after an outage simply tries again)."""
        if self._pg is None:
            raise RuntimeError("repository is not open")
        if self._pg_lost or self._pg.is_closed():
            old = self._pg
            self._pg = await self._connect_pg()
            self._pg_lost = False
            with contextlib.suppress(Exception):
                old.raw.terminate()
        return self._pg

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
        if self._pg is not None:
            pg, self._pg = self._pg, None
            with contextlib.suppress(Exception):
                await pg.close()

    @property
    def db(self) -> aiosqlite.Connection:
        """The SQLite connection (tests and SQLite-only tools; see ``conn`` for both)."""
        if self._db is None:
            raise RuntimeError("repository is not open" if self._pg is None else "not an SQLite repository")
        return self._db

    @property
    def conn(self) -> Connection:
        """The open connection of either backend (``execute`` with ``?`` placeholders)."""
        if self._pg is not None:
            return self._pg
        return self.db

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Connection]:
        async with self._lock:
            if self._pg is not None:
                try:
                    yield await self._pg_live()
                except BaseException as exc:
                    self._pg_lost = self._pg_lost or _lost(exc)
                    fault = storage_fault(self.path, exc)
                    if fault is None:
                        raise
                    raise fault from exc
                return
            yield self.db

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Connection]:
        """One write transaction (SQLite: ``BEGIN IMMEDIATE`` … ``COMMIT``; PostgreSQL: a
        READ COMMITTED transaction); storage faults become ``StorageBusy`` /
        ``StorageUnwritable`` and nothing is written."""
        if self._pg is not None:
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
            if self.fault is not None:
                log.warning("storage %s is writable again (was: %s); saving resumed", self.path, self.fault)
                self.fault = None

    @asynccontextmanager
    async def _pg_tx(self) -> AsyncIterator[PgConnection]:
        async with self._lock:
            for attempt in (1, 2):  # (a connection found dropped at BEGIN is opened again once)
                try:
                    conn = await self._pg_live()
                    tr = conn.raw.transaction()
                    await tr.start()
                    break
                except (*PG_LOST, asyncpg.PostgresError) as exc:
                    self._pg_lost = _lost(exc)
                    if attempt == 2 or not self._pg_lost:
                        raise self._faulted(exc) from exc
            try:
                yield conn
                await tr.commit()
            except BaseException as exc:
                self._pg_lost = _lost(exc)
                with contextlib.suppress(Exception):
                    await tr.rollback()
                if storage_fault(self.path, exc) is not None:
                    raise self._faulted(exc) from exc
                raise
            if self.fault is not None:
                log.warning("storage %s is writable again (was: %s); saving resumed", self.path, self.fault)
                self.fault = None

    async def _fetch(self, queries: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        """The rows of each read query, in one trip to the database (SQLite runs them
        all in one call on aiosqlite's thread, instead of an execute, a fetch and a close
        each; PostgreSQL one round trip a query). Under the lock, like ``_read``."""
        async with self._read() as db:
            if isinstance(db, PgConnection):
                out = []
                for sql, params in queries:
                    async with db.execute(sql, params) as cur:
                        out.append(list(await cur.fetchall()))
                return out

            def run(conn: sqlite3.Connection) -> list[list[Any]]:
                return [conn.execute(sql, tuple(params)).fetchall() for sql, params in queries]

            return await _on_thread(db, run)

    async def _batch(self, statements: Sequence[tuple[str, Sequence[Any]]], *,
                     guard: bool = False) -> list[int] | None:
        """Run the write ``statements`` in one transaction, in one trip to the database
        (SQLite: ``BEGIN IMMEDIATE``, the statements and ``COMMIT`` in one call on aiosqlite's
        thread; PostgreSQL: one transaction, a round trip a statement). Returns each
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
        if self._pg is not None:
            try:
                async with self._pg_tx() as conn:
                    counts: list[int] = []
                    for sql, params in statements:
                        cur = await conn.execute(sql, params)
                        counts.append(cur.rowcount)
                        if guard and len(counts) == 1 and cur.rowcount != 1:
                            raise _Unchanged
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
            if self.fault is not None:
                log.warning("storage %s is writable again (was: %s); saving resumed", self.path, self.fault)
                self.fault = None
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
        file translated by ``backend.pg_migration`` unless ``migrations/pg/`` has its own).

        Returns:
            The schema version after migrating.
        """
        files = sorted(
            (p for p in resources.files("bot.storage").joinpath("migrations").iterdir()
             if p.name.endswith(".sql")),
            key=lambda p: p.name,
        )
        if self._pg is not None:
            return await self._migrate_pg(files)
        async with self._lock:
            async with self.db.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
            current = int(row[0]) if row else 0
            for f in files:
                number = int(f.name.split("_", 1)[0])
                if number <= current:
                    continue
                script = f.read_text(encoding="utf-8")
                await self.db.executescript(
                    f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version={number};\nCOMMIT;"
                )
                current = number
        return current

    async def _migrate_pg(self, files: Sequence[Any]) -> int:
        """PostgreSQL migrations, all pending ones in one transaction under an advisory lock
        (two processes starting at once migrate once)."""
        folder = resources.files("bot.storage").joinpath("migrations", "pg")
        overrides = {p.name.split("_", 1)[0]: p for p in (folder.iterdir() if folder.is_dir() else ())
                     if p.name.endswith(".sql")}
        async with self._pg_tx() as conn:
            await conn.executescript("SELECT pg_advisory_xact_lock(1702);"
                                     " CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
            async with conn.execute("SELECT MAX(version) FROM schema_version") as cur:
                row = await cur.fetchone()
            current = int(row[0]) if row is not None and row[0] is not None else 0
            start = current
            for f in files:
                prefix = f.name.split("_", 1)[0]
                number = int(prefix)
                if number <= current:
                    continue
                if prefix in overrides:
                    script = overrides[prefix].read_text(encoding="utf-8")
                else:
                    script = pg_migration(f.read_text(encoding="utf-8"))
                await conn.executescript(script)
                current = number
            if current != start:
                await conn.execute("DELETE FROM schema_version")
                await conn.execute("INSERT INTO schema_version(version) VALUES (?)", (current,))
        return current

    async def schema_version(self) -> int:
        """The schema version: the number of the last migration applied."""
        if self._pg is not None:
            async with self._read() as db, db.execute("SELECT MAX(version) FROM schema_version") as cur:
                row = await cur.fetchone()
        else:
            async with self._read() as db, db.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0

    # ------------------------------------------------------------------ whole tables (bot/migrate.py)
    async def tables(self) -> dict[str, dict[str, str]]:
        """The data tables, each referenced table before those that refer to it: table name
        -> column name -> declared type (upper case). The schema bookkeeping tables are left
        out."""
        columns: dict[str, dict[str, str]] = {}
        parents: dict[str, set[str]] = {}
        async with self._read() as db:
            if isinstance(db, PgConnection):
                async with db.execute(
                        "SELECT table_name, column_name, data_type FROM information_schema.columns"
                        " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position") as cur:
                    for table, column, kind in await cur.fetchall():
                        columns.setdefault(str(table), {})[str(column)] = str(kind).upper()
                async with db.execute(
                        "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c"
                        " JOIN pg_namespace n ON n.oid = c.connamespace"
                        " WHERE c.contype = 'f' AND n.nspname = current_schema()") as cur:
                    for child, parent in await cur.fetchall():
                        parents.setdefault(str(child).split(".")[-1].strip('"'), set()).add(
                            str(parent).split(".")[-1].strip('"'))
            else:
                async with db.execute("SELECT name FROM sqlite_master WHERE type='table'"
                                      " AND name NOT LIKE 'sqlite_%' ORDER BY name") as sc:
                    names = [str(r[0]) for r in await sc.fetchall()]
                for table in names:
                    async with db.execute(f"PRAGMA table_info({table})") as sc:
                        columns[table] = {str(r[1]): str(r[2]).upper() for r in await sc.fetchall()}
                    async with db.execute(f"PRAGMA foreign_key_list({table})") as sc:
                        parents[table] = {str(r[2]) for r in await sc.fetchall()}
        columns.pop("schema_version", None)
        ordered: dict[str, dict[str, str]] = {}

        def visit(table: str, path: frozenset[str] = frozenset()) -> None:
            if table in ordered or table in path or table not in columns:
                return
            for parent in sorted(parents.get(table, ())):
                visit(parent, path | {table})
            ordered[table] = columns[table]

        for table in sorted(columns):
            visit(table)
        return ordered

    async def rows(self, table: str, columns: Sequence[str]) -> list[tuple[Any, ...]]:
        """Every row of ``table`` (``columns`` in that order), in primary-key order where
        the table has an ``id`` or ``game`` column (a name from ``tables``)."""
        order = "id" if "id" in columns else ("game" if "game" in columns else columns[0])
        async with self._read() as db, db.execute(
                f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}") as cur:
            return [tuple(r) for r in await cur.fetchall()]

    async def copy_in(self, data: Sequence[tuple[str, Sequence[str], Sequence[tuple[Any, ...]]]]) -> None:
        """Insert ``(table, columns, rows)`` in this order, all in one transaction, then move
        the generated ids past the largest copied one (the tool of bot/migrate.py).

        Raises:
            StorageError: as every write; nothing is written then.
        """
        async with self._tx() as db:
            for table, columns, rows in data:
                if rows:
                    sql = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})"
                    await db.executemany(sql, [tuple(r) for r in rows])
            if isinstance(db, PgConnection):
                for table in sorted(db.generated):
                    await db.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                                     f" (SELECT COALESCE(MAX(id), 0) + 1 FROM {table}), false)")

    # ------------------------------------------------------------------ games
    async def _seats(self, db: Connection, game: int) -> list[SeatRecord]:
        async with db.execute(SEATS_SQL, (game,)) as cur:
            return [_row_to_seat(r) for r in await cur.fetchall()]

    async def _game(self, db: Connection, game: int) -> GameRecord | None:
        async with db.execute(GAME_SQL, (game,)) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return _row_to_game(row, await self._seats(db, game), self._snapshots)

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
                seats.setdefault(int(r[0]), []).append(_row_to_seat(r))
            by_id = {int(r["id"]): r for r in rows}
            out += [_row_to_game(by_id[pk], seats.get(pk, []), self._snapshots) for pk in chunk if pk in by_id]
        return out

    async def create_game(
        self, *, game_id: str, guild_id: int | None, channel_id: int, host_user_id: int,
        host_name: str, seed: int, options: dict[str, Any], move_timeout: int, open_limit: int | None = None,
    ) -> GameRecord:
        """Insert a lobby with the host in seat 0 and return it.

        Args:
            open_limit: refuse when the host already has this many open lobbies in ``guild_id``
                (counted in the same transaction, so a burst of requests cannot pass it).

        Raises:
            TooManyLobbies: ``open_limit`` reached (nothing written).
        """
        now = self.clock()
        async with self._tx() as db:
            if open_limit is not None:
                async with db.execute("SELECT id FROM games WHERE guild_id=? AND host_user_id=? AND status='lobby'"
                                      " ORDER BY id", (guild_id, host_user_id)) as cur:
                    open_ids = [int(r[0]) for r in await cur.fetchall()]
                if len(open_ids) >= open_limit:
                    raise TooManyLobbies(open_ids)
            cur = await db.execute(
                "INSERT INTO games(game_id, guild_id, channel_id, host_user_id, seed, options, move_timeout,"
                " created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (game_id, guild_id, channel_id, host_user_id, seed, json.dumps(options), move_timeout,
                 now, now),
            )
            pk = int(cur.lastrowid or 0)
            await db.execute("INSERT INTO seats(game, seat, user_id, name) VALUES (?,?,?,?)",
                             (pk, 0, host_user_id, host_name))
            record = await self._game(db, pk)
        assert record is not None
        return record

    async def get_game(self, game: int) -> GameRecord | None:
        """The game with primary key ``game``, or None (one trip to the database: ``_fetch``)."""
        rows, seats = await self._fetch([(GAME_SQL, (game,)), (SEATS_SQL, (game,))])
        return _row_to_game(rows[0], [_row_to_seat(r) for r in seats], self._snapshots) if rows else None

    async def set_fields(self, game: int, **values: Any) -> None:
        """Update plain pointer columns (thread_id, board_channel_id, board_message_id,
        lobby_message_id, paused, move_timeout). Not for state, version or status."""
        allowed = {"thread_id", "board_channel_id", "board_message_id", "lobby_message_id", "paused",
                   "move_timeout", "options"}
        bad = set(values) - allowed
        if bad:
            raise ValueError(f"not a pointer column: {bad}")
        if "options" in values:
            values["options"] = json.dumps(values["options"])
        cols = ", ".join(f"{k}=?" for k in values)
        await self._batch([(f"UPDATE games SET {cols}, updated_at=? WHERE id=?", (*values.values(), self.clock(), game))])

    async def replace_snapshot(self, game: int, version: int, state: dict[str, Any]) -> bool:
        """Store a rebuilt snapshot of ``game`` at the same ``version`` (a cache refresh after
        an engine's ``state_version`` changed; the log is untouched). Returns False, and
        writes nothing, when the game has moved past ``version`` meanwhile."""
        async with self._tx() as db:
            cursor = await db.execute("UPDATE games SET state=? WHERE id=? AND version=?",
                                      (json.dumps(state), game, version))
            return cursor.rowcount == 1

    async def join(self, game: int, user_id: int, name: str, max_players: int) -> GameRecord:
        """Seat ``user_id`` in the lobby at the next seat.

        Raises:
            ValueError: not a lobby, already seated, or the lobby is full (message says which).
        """
        async with self._tx() as db:
            await self.lock_game(db, game)
            record = await self._game(db, game)
            if record is None or record.status != "lobby":
                raise ValueError("This lobby is closed.")
            if record.seat_of(user_id) is not None:
                raise ValueError("You are already in this game.")
            if len(record.seats) >= max_players:
                raise ValueError(f"The lobby is full ({max_players} players).")
            await db.execute("INSERT INTO seats(game, seat, user_id, name) VALUES (?,?,?,?)",
                             (game, len(record.seats), user_id, name))
            await db.execute("UPDATE games SET updated_at=? WHERE id=?", (self.clock(), game))
            out = await self._game(db, game)
        assert out is not None
        return out

    async def leave(self, game: int, user_id: int) -> GameRecord:
        """Remove ``user_id`` from the lobby and renumber the seats. A host who leaves hands
        the host role to the player who joined next (the first person left in seat order;
        with only AIs left the host stays: a moderator can start).

        Raises:
            ValueError: not a lobby or not seated.
        """
        async with self._tx() as db:
            await self.lock_game(db, game)
            record = await self._game(db, game)
            if record is None or record.status != "lobby":
                raise ValueError("This lobby is closed.")
            if record.seat_of(user_id) is None:
                raise ValueError("You are not in this game.")
            await db.execute("DELETE FROM seats WHERE game=?", (game,))
            rest = [s for s in record.seats if s.user_id != user_id]
            for i, s in enumerate(rest):
                await db.execute("INSERT INTO seats(game, seat, user_id, name, ai_level) VALUES (?,?,?,?,?)",
                                 (game, i, s.user_id, s.name, s.ai_level))
            host = record.host_user_id
            if user_id == host:
                host = next((s.user_id for s in rest if not s.is_bot), host)
            await db.execute("UPDATE games SET updated_at=?, host_user_id=? WHERE id=?", (self.clock(), host, game))
            out = await self._game(db, game)
        assert out is not None
        return out

    async def add_ai(self, game: int, level: str, name: str, max_players: int) -> GameRecord:
        """Seat an AI of ``level`` named ``name`` in the lobby at the next seat, under a new
        synthetic user id (below every id in the game and below 0).

        Raises:
            ValueError: not a lobby, or the lobby is full (message says which).
        """
        async with self._tx() as db:
            record = await self._game(db, game)
            if record is None or record.status != "lobby":
                raise ValueError("This lobby is closed.")
            if len(record.seats) >= max_players:
                raise ValueError(f"The lobby is full ({max_players} players).")
            await db.execute("INSERT INTO seats(game, seat, user_id, name, ai_level) VALUES (?,?,?,?,?)",
                             (game, len(record.seats), bot_user_id(record), name, level))
            await db.execute("UPDATE games SET updated_at=? WHERE id=?", (self.clock(), game))
            out = await self._game(db, game)
        assert out is not None
        return out

    async def set_seat_ai(self, game: int, seat: int, level: str | None, *, expected_version: int,
                          entry: LogEntry, user_id: int | None = None, name: str | None = None) -> int:
        """Hand ``seat`` of a running game to the AI at ``level`` (None: back to its
        person), optionally under a new ``user_id`` and ``name``, with a system log entry;
        the seat is active afterwards. CAS on the version.

        Raises:
            StaleVersion: the version moved.
        """
        sets = "ai_level=?, status='active'" + (", user_id=?" if user_id is not None else "") \
            + (", name=?" if name is not None else "")
        params = (level, *((user_id,) if user_id is not None else ()), *((name,) if name is not None else ()),
                  game, seat)
        return await self._system_change(game, expected_version, entry,
                                         f"UPDATE seats SET {sets} WHERE game=? AND seat=?", params)

    async def append(
        self, game: int, expected_version: int, entries: Sequence[LogEntry], *,
        state: dict[str, Any], status: str, players: int | None = None,
        deadline: float | None = None, waiting: Sequence[int] = (), window: int | None = None,
        reminded: int = 0, outbox: Sequence[OutboxItem] = (),
        ratings: tuple[int, str, Sequence[tuple[int, float, float, bool]]] | None = None,
    ) -> int:
        """Append ``entries`` (seq = expected_version+1, +2, …), store the new snapshot,
        queue the ``outbox`` deliveries and store the ``ratings`` of a game that ends here
        (``(guild_id, game_id, rows)``, as ``record_ratings``) in one transaction, if the
        game is still at ``expected_version``.

        Returns:
            The new version.

        Raises:
            StaleVersion: someone else wrote first; nothing was written.
        """
        statements = self._append_statements(game, expected_version, entries, state=state, status=status,
                                              players=players, deadline=deadline, waiting=waiting, window=window,
                                              reminded=reminded, outbox=outbox, ratings=ratings)
        await self._appending(game, expected_version, statements, ())
        return expected_version + len(entries)

    async def appended(
        self, game: int, expected_version: int, entries: Sequence[LogEntry], *,
        state: dict[str, Any], status: str, players: int | None = None,
        deadline: float | None = None, waiting: Sequence[int] = (), window: int | None = None,
        reminded: int = 0, outbox: Sequence[OutboxItem] = (),
        ratings: tuple[int, str, Sequence[tuple[int, float, float, bool]]] | None = None,
    ) -> tuple[GameRecord, list[LogEntry]]:
        """``append``, then the game as stored and its log entries after ``expected_version``
        (the ones appended, with their seqs) read back in the same trip to the database
        (the move path's record after the commit, without two more reads).

        Raises:
            StaleVersion: someone else wrote first; nothing was written.
        """
        statements = self._append_statements(game, expected_version, entries, state=state, status=status,
                                              players=players, deadline=deadline, waiting=waiting, window=window,
                                              reminded=reminded, outbox=outbox, ratings=ratings)
        rows, seats, logged = await self._appending(game, expected_version, statements, [
            (GAME_SQL, (game,)), (SEATS_SQL, (game,)), (LOG_SQL + " ORDER BY seq", (game, expected_version))])
        record = _row_to_game(rows[0], [_row_to_seat(r) for r in seats], self._snapshots)
        entries = [_row_to_entry(r) for r in logged]
        self._tail_note(game, expected_version, record.version, entries)  # (every entry after the move's start)
        return record, entries

    def _append_statements(
        self, game: int, expected_version: int, entries: Sequence[LogEntry], *,
        state: dict[str, Any], status: str, players: int | None,
        deadline: float | None, waiting: Sequence[int], window: int | None,
        reminded: int, outbox: Sequence[OutboxItem],
        ratings: tuple[int, str, Sequence[tuple[int, float, float, bool]]] | None,
    ) -> list[tuple[str, Sequence[Any]]]:
        """The statements of ``append``, the compare-and-set on the version first."""
        now = self.clock()
        new_version = expected_version + len(entries)
        players_sql = ", players=?" if players is not None else ""
        params: list[Any] = [json.dumps(state), new_version, status, deadline, json.dumps(list(waiting)),
                             reminded, window, now]
        if players is not None:
            params.append(players)
        statements: list[tuple[str, Sequence[Any]]] = [(
            "UPDATE games SET state=?, version=?, status=?, deadline=?, waiting=?, reminded=?,"
            f" deadline_window=?, updated_at=?{players_sql} WHERE id=? AND version=?",
            (*params, game, expected_version))]
        statements += [(INSERT_ACTION, (game, i, e.kind, e.seat, json.dumps(e.action), json.dumps(e.events),
                                        e.user_id, now))
                       for i, e in enumerate(entries, start=expected_version + 1)]
        statements += _queued(game, outbox, now)
        if ratings is not None:  # (a game finishes once, by this compare-and-set: never rated before)
            statements += _rating_statements(game, *ratings, now)
        return statements

    async def _appending(self, game: int, expected_version: int, statements: Sequence[tuple[str, Sequence[Any]]],
                         queries: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        """Run ``append``'s ``statements`` (one trip), then ``queries``' rows.

        Raises:
            StaleVersion: the compare-and-set failed; nothing was written.
        """
        done = await self._batch_then(statements, queries, guard=True)
        if done is None:  # (one trip; the compare-and-set failed)
            (rows,) = await self._fetch([("SELECT version FROM games WHERE id=?", (game,))])
            raise StaleVersion(game, expected_version, rows[0][0] if rows else None)
        return done[1]

    @staticmethod
    async def _queue(db: Connection, game: int, items: Sequence[OutboxItem], now: float) -> None:
        for sql, params in _queued(game, items, now):
            await db.execute(sql, params)

    async def _system_change(self, game: int, expected_version: int, entry: LogEntry, sql: str,
                             params: tuple[Any, ...], outbox: Sequence[OutboxItem] = ()) -> int:
        """One transaction: bump the version (CAS), run ``sql``, log ``entry`` and queue
        ``outbox`` (e.g. the change's announcement).

        Raises:
            StaleVersion: the version moved; nothing was written.
        """
        e = entry
        now = self.clock()
        done = await self._batch([
            ("UPDATE games SET version=?, updated_at=? WHERE id=? AND version=?",
             (expected_version + 1, now, game, expected_version)),
            (sql, params),
            (INSERT_ACTION, (game, expected_version + 1, e.kind, e.seat, json.dumps(e.action), json.dumps(e.events),
                             e.user_id, now)),
            *_queued(game, outbox, now)], guard=True)
        if done is None:
            raise StaleVersion(game, expected_version, None)
        return expected_version + 1

    async def set_status(self, game: int, status: str, *, expected_version: int, entry: LogEntry,
                         outbox: Sequence[OutboxItem] = ()) -> int:
        """Change the status (e.g. abandoned) with a system log entry; CAS on the version.

        Raises:
            StaleVersion: the version moved.
        """
        return await self._system_change(
            game, expected_version, entry,
            "UPDATE games SET status=?, deadline=NULL, waiting='[]' WHERE id=?", (status, game), outbox)

    async def replace_seat(
        self, game: int, seat: int, user_id: int, name: str, *, expected_version: int, entry: LogEntry,
        outbox: Sequence[OutboxItem] = (),
    ) -> int:
        """Give ``seat`` to ``user_id`` (moderator replace) with a system log entry.

        Raises:
            StaleVersion: the version moved.
        """
        return await self._system_change(
            game, expected_version, entry,
            "UPDATE seats SET user_id=?, name=?, status='active', ai_level=NULL WHERE game=? AND seat=?",
            (user_id, name, game, seat), outbox)

    async def mark_seat_left(self, game: int, seat: int, *, expected_version: int, entry: LogEntry,
                             outbox: Sequence[OutboxItem] = ()) -> int:
        """Mark ``seat`` as left (kicked) with a system log entry; CAS on the version.

        Raises:
            StaleVersion: the version moved.
        """
        return await self._system_change(
            game, expected_version, entry, "UPDATE seats SET status='left' WHERE game=? AND seat=?",
            (game, seat), outbox)

    async def log(self, game: int, *, after: int = 0, last: int | None = None,
                  upto: int | None = None) -> list[LogEntry]:
        """The log entries of ``game`` in order: those with seq > ``after`` (and ≤ ``upto``),
        and only the ``last`` N of them when given (without reading the rest). With ``upto``
        (a version the caller read the game at) they come from this process's memory when it
        holds them (``LogTail``), else from the database, which then fills that memory.
        Callers never change the entries (they may be shared)."""
        if upto is not None:
            known = self._tail_read(game, after, last, upto)
            if known is not None:
                return known
        (rows,) = await self._fetch([_log_query(game, after, last, upto)])
        entries = [_row_to_entry(r) for r in rows]
        if upto is not None:
            self._tail_read_back(game, after, last, upto, entries)
        return entries

    def _tail_read(self, game: int, after: int, last: int | None, upto: int) -> list[LogEntry] | None:
        """``log(game, after=, last=, upto=)`` from the game's ``LogTail``; None when it does
        not hold them all."""
        tail = self._log_tails.get(game)
        if tail is None or tail.upto < upto or (last is not None and last <= 0):
            return None
        picked = [e for e in tail.entries if after < e.seq <= upto]
        if last is not None and len(picked) >= last:
            return picked[-last:]
        return picked if tail.after <= after else None

    def _tail_read_back(self, game: int, after: int, last: int | None, upto: int,
                        entries: Sequence[LogEntry]) -> None:
        """Remember what ``log(game, after=, last=, upto=)`` read from the database: all the
        entries after ``after`` when fewer than ``last`` came back, else those from the
        first one read on."""
        if last is not None and last <= 0:
            return
        if last is not None and len(entries) >= last:
            after = entries[0].seq - 1
        self._tail_note(game, after, upto, entries)

    def _tail_note(self, game: int, after: int, upto: int, entries: Sequence[LogEntry]) -> None:
        """Remember ``entries``: exactly the game's entries with ``after`` < seq ≤ ``upto`` (or
        the newest seq read, when newer), joined to the tail known when the two meet; the
        newest ``LOG_TAIL_ENTRIES`` are kept."""
        upto = max(upto, entries[-1].seq if entries else upto)
        old = self._log_tails.get(game)
        if old is not None and old.after <= after and old.upto >= upto:
            return  # (it knows all of these already)
        if old is not None and old.after <= after <= old.upto:  # (they meet: one run)
            kept = [e for e in old.entries if e.seq <= after]
            tail = LogTail(old.after, max(upto, old.upto),
                           kept + [e for e in entries if e.seq > after]
                           + [e for e in old.entries if e.seq > upto])
        else:
            tail = LogTail(after, upto, list(entries))
        if len(tail.entries) > LOG_TAIL_ENTRIES:
            tail.after = tail.entries[-LOG_TAIL_ENTRIES - 1].seq
            tail.entries = tail.entries[-LOG_TAIL_ENTRIES:]
        self._log_tails[game] = tail

    async def game_with_log(self, game: int, *, last: int) -> tuple[GameRecord | None, list[LogEntry]]:
        """The game (None when there is none) and its ``last`` log entries (as ``log``), in one
        trip to the database (a board update reads both)."""
        rows, seats, logged = await self._fetch([(GAME_SQL, (game,)), (SEATS_SQL, (game,)),
                                                 _log_query(game, 0, last)])
        record = _row_to_game(rows[0], [_row_to_seat(r) for r in seats], self._snapshots) if rows else None
        entries = [_row_to_entry(r) for r in logged]
        if record is not None:  # (the game was read first: its log is complete up to its version)
            self._tail_read_back(game, 0, last, record.version, entries)
        return record, entries

    async def mark_reminded(self, game: int, version: int, count: int) -> bool:
        """Claim the ``count``-th reminder of the deadline of ``version``: True for the one
        caller that moves the count up (it sends the reminder); False when the game moved
        on or the reminder was claimed already (by this or another process)."""
        done = await self._batch([("UPDATE games SET reminded=? WHERE id=? AND version=? AND reminded<?",
                                   (count, game, version, count))], guard=True)
        return done is not None

    async def games(self, *, status: Sequence[str] = ("lobby", "active"), user_id: int | None = None,
                    channel_id: int | None = None) -> list[GameRecord]:
        """Games filtered by status, seated user and/or channel (thread or channel),
        oldest first."""
        sql = "SELECT g.id FROM games g"
        where = [f"g.status IN ({','.join('?' * len(status))})"]
        params: list[Any] = list(status)
        if user_id is not None:
            sql += " JOIN seats s ON s.game = g.id"
            where.append("s.user_id = ? AND s.status = 'active'")
            params.append(user_id)
        if channel_id is not None:
            where.append("(g.channel_id = ? OR g.thread_id = ?)")
            params += [channel_id, channel_id]
        sql += " WHERE " + " AND ".join(where) + " ORDER BY g.updated_at, g.id"
        (rows,) = await self._fetch([(sql, params)])
        return await self._games(list(dict.fromkeys(int(r[0]) for r in rows)))

    async def due(self, now: float, shards: Shards | None = None) -> list[GameRecord]:
        """Active, unpaused games with a deadline whose next reminder or expiry is due
        (50 %, 90 % of the window, and the deadline itself); only the games on ``shards``
        when given (each process runs the clock of its own servers)."""
        shards = shards or self.shards
        where, params = shards.where() if shards is not None else ("1=1", ())
        (rows,) = await self._fetch([(
            "SELECT id FROM games WHERE status='active' AND paused=0 AND deadline IS NOT NULL"
            " AND ((reminded = 0 AND ? >= deadline - COALESCE(deadline_window, move_timeout) * 0.5)"
            "   OR (reminded <= 1 AND ? >= deadline - COALESCE(deadline_window, move_timeout) * 0.1)"
            f"   OR ? >= deadline) AND {where} ORDER BY deadline",
            (now, now, now, *params))])
        return await self._games([int(r[0]) for r in rows])

    async def count_actions(self, game: int) -> int:
        """Number of log entries of ``game``."""
        async with self._read() as db, db.execute("SELECT COUNT(*) FROM actions WHERE game=?", (game,)) as c:
            row = await c.fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------------ settings
    async def get_preference(self, user_id: int, game_id: str, key: str) -> str | None:
        """A user's stored preference (e.g. heaven auto_defend), or None."""
        (rows,) = await self._fetch([(
            "SELECT value FROM preferences WHERE user_id=? AND game_id=? AND key=?", (user_id, game_id, key))])
        return str(rows[0][0]) if rows else None

    async def preferences(self, user_id: int, game_id: str) -> dict[str, str]:
        """Every stored preference of a user for one game (key -> raw text value)."""
        (rows,) = await self._fetch([("SELECT key, value FROM preferences WHERE user_id=? AND game_id=?",
                                      (user_id, game_id))])
        return {r[0]: r[1] for r in rows}

    async def preferences_of(self, user_ids: Sequence[int], game_id: str) -> dict[int, dict[str, str]]:
        """Every stored preference for one game of each user of ``user_ids`` (user id -> key ->
        raw text value; a user with none is absent), in one trip to the database."""
        if not user_ids:
            return {}
        users = sorted(set(user_ids))
        (rows,) = await self._fetch([(
            f"SELECT user_id, key, value FROM preferences WHERE game_id=? AND user_id IN ({','.join('?' * len(users))})",
            (game_id, *users))])
        out: dict[int, dict[str, str]] = {}
        for user_id, key, value in rows:
            out.setdefault(int(user_id), {})[key] = value
        return out

    async def set_preference(self, user_id: int, game_id: str, key: str, value: str) -> None:
        """Store a user's preference."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO preferences(user_id, game_id, key, value) VALUES (?,?,?,?)"
                " ON CONFLICT(user_id, game_id, key) DO UPDATE SET value=excluded.value",
                (user_id, game_id, key, value),
            )

    async def moderator_role(self, guild_id: int) -> int | None:
        """The moderator role set for a guild, or None."""
        (rows,) = await self._fetch([("SELECT moderator_role_id FROM guild_settings WHERE guild_id=?", (guild_id,))])
        return rows[0][0] if rows else None

    async def set_moderator_role(self, guild_id: int, role_id: int | None) -> None:
        """Set (or clear with None) the moderator role of a guild."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO guild_settings(guild_id, moderator_role_id) VALUES (?,?)"
                " ON CONFLICT(guild_id) DO UPDATE SET moderator_role_id=excluded.moderator_role_id",
                (guild_id, role_id),
            )

    async def locales(self) -> tuple[dict[int, str], dict[int, str]]:
        """The languages chosen with ``/game language`` (migration 008): ``({guild id:
        locale}, {user id: locale})``, catalog locales."""
        guild_rows, user_rows = await self._fetch([
            ("SELECT guild_id, locale FROM guild_settings WHERE locale IS NOT NULL", ()),
            ("SELECT user_id, locale FROM user_locales", ())])
        return {int(r[0]): str(r[1]) for r in guild_rows}, {int(r[0]): str(r[1]) for r in user_rows}

    async def set_guild_locale(self, guild_id: int, locale: str | None) -> None:
        """Set (or clear with None: Discord's preferred locale again) a server's language."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO guild_settings(guild_id, locale) VALUES (?,?)"
                " ON CONFLICT(guild_id) DO UPDATE SET locale=excluded.locale",
                (guild_id, locale),
            )

    async def set_user_locale(self, user_id: int, locale: str | None) -> None:
        """Set (or clear with None: their Discord client's again) a user's own language."""
        async with self._tx() as db:
            if locale is None:
                await db.execute("DELETE FROM user_locales WHERE user_id=?", (user_id,))
            else:
                await db.execute(
                    "INSERT INTO user_locales(user_id, locale) VALUES (?,?)"
                    " ON CONFLICT(user_id) DO UPDATE SET locale=excluded.locale",
                    (user_id, locale),
                )

    async def delete_user_data(self, user_id: int) -> int:
        """Forget a user's preferences, DM settings, games watched and ratings (data-deletion
        path). Seats in game logs stay, as they are needed to replay games. Returns rows deleted."""
        async with self._tx() as db:
            cur = await db.execute("DELETE FROM preferences WHERE user_id=?", (user_id,))
            count = cur.rowcount
            for table in ("notify_settings", "dm_blocks", "dm_messages", "user_locales", "watchers", "ratings"):
                cur = await db.execute(f"DELETE FROM {table} WHERE user_id=?", (user_id,))
                count += cur.rowcount
            return count

    # ------------------------------------------------------------------ DMs (bot/ui/dm.py)
    async def dm_message(self, game: int, user_id: int, kind: str) -> tuple[int, int, str | None] | None:
        """The stored DM message of ``kind`` (``"hand"`` or ``"turn"``) for a player of
        ``game``: ``(channel_id, message_id, shown)``, or None."""
        (rows,) = await self._fetch([(
            "SELECT channel_id, message_id, shown FROM dm_messages WHERE game=? AND user_id=? AND kind=?",
            (game, user_id, kind))])
        return (int(rows[0][0]), int(rows[0][1]), rows[0][2]) if rows else None

    async def set_dm_message(self, game: int, user_id: int, kind: str, channel_id: int, message_id: int,
                             shown: str | None = None) -> None:
        """Store (or replace) the DM message of ``kind`` for a player of ``game``."""
        await self._batch([(
            "INSERT INTO dm_messages(game, user_id, kind, channel_id, message_id, shown) VALUES (?,?,?,?,?,?)"
            " ON CONFLICT(game, user_id, kind) DO UPDATE SET channel_id=excluded.channel_id,"
            " message_id=excluded.message_id, shown=excluded.shown",
            (game, user_id, kind, channel_id, message_id, shown))])

    async def notify_settings(self, user_id: int, game: int) -> tuple[bool, bool]:
        """``(hands, turns)``: whether ``user_id`` gets DM hands and DM turn notices for
        ``game``. The game's own setting wins over the every-game one (``game`` 0); a
        turns setting stored by the old ``/game notify`` (preference ``dm_notify``) comes
        next; the default is on."""
        settings, legacy_rows = await self._fetch([
            ("SELECT game, hands, turns FROM notify_settings WHERE user_id=? AND game IN (?, 0)", (user_id, game)),
            ("SELECT value FROM preferences WHERE user_id=? AND game_id='*' AND key='dm_notify'", (user_id,))])
        rows = {int(r[0]): (r[1], r[2]) for r in settings}
        legacy = legacy_rows[0] if legacy_rows else None
        layers = [rows.get(game, (None, None)), rows.get(0, (None, None)),
                  (None, None if legacy is None else int(legacy[0] == "on"))]
        hands = next((v for v, _ in layers if v is not None), 1)
        turns = next((v for _, v in layers if v is not None), 1)
        return bool(hands), bool(turns)

    async def set_notify(self, user_id: int, game: int, *, hands: bool | None, turns: bool | None) -> None:
        """Store DM settings of ``user_id`` for ``game`` (0: every game); None leaves one as
        it was. Setting every game also clears the per-game settings of what it sets."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO notify_settings(user_id, game, hands, turns) VALUES (?,?,?,?)"
                " ON CONFLICT(user_id, game) DO UPDATE SET hands=COALESCE(excluded.hands, hands),"
                " turns=COALESCE(excluded.turns, turns)",
                (user_id, game, None if hands is None else int(hands), None if turns is None else int(turns)))
            if game == 0:
                for column, value in (("hands", hands), ("turns", turns)):
                    if value is not None:
                        await db.execute(f"UPDATE notify_settings SET {column}=NULL WHERE user_id=? AND game<>0",
                                         (user_id,))

    async def dm_block(self, user_id: int) -> list[int] | None:
        """The games told that ``user_id``'s DMs are refused, or None when DMs are not paused."""
        (rows,) = await self._fetch([("SELECT told FROM dm_blocks WHERE user_id=?", (user_id,))])
        return [int(g) for g in json.loads(rows[0][0])] if rows else None

    async def block_dms(self, user_id: int, told: Sequence[int] = ()) -> None:
        """Pause DMs to ``user_id`` (a DM was refused) and record the games told so far."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO dm_blocks(user_id, since, told) VALUES (?,?,?)"
                " ON CONFLICT(user_id) DO UPDATE SET told=excluded.told",
                (user_id, self.clock(), json.dumps(sorted(set(told)))))

    async def clear_dm_block(self, user_id: int) -> bool:
        """Let DMs to ``user_id`` be tried again; True when they were paused."""
        async with self._tx() as db:
            cur = await db.execute("DELETE FROM dm_blocks WHERE user_id=?", (user_id,))
            return cur.rowcount > 0

    # ------------------------------------------------------------------ pings and the clock
    async def defer_pings(self, game: int, seats: Sequence[int]) -> None:
        """Hold the pings of ``seats`` back until the server's quiet hours end."""
        async with self._tx() as db:
            for seat in seats:
                await db.execute("INSERT INTO deferred_pings(game, seat, since) VALUES (?,?,?)"
                                 " ON CONFLICT(game, seat) DO NOTHING",
                                 (game, seat, self.clock()))

    async def deferred_pings(self, shards: Shards | None = None) -> dict[int, list[int]]:
        """The pings held back: seats by game, oldest game first (only the games of
        ``shards`` when given)."""
        shards = shards or self.shards
        where, params = shards.where("g.guild_id") if shards is not None else ("1=1", ())
        async with self._read() as db, db.execute(
                "SELECT d.game, d.seat FROM deferred_pings d JOIN games g ON g.id = d.game"
                f" WHERE {where} ORDER BY d.since, d.game, d.seat", params) as cur:
            out: dict[int, list[int]] = {}
            for game, seat in await cur.fetchall():
                out.setdefault(int(game), []).append(int(seat))
        return out

    async def clear_deferred_pings(self, game: int) -> bool:
        """Forget the held-back pings of ``game`` (sent, or nobody waits any more). True
        when there were some: the caller has claimed them (another process that clears
        them at the same moment gets False and sends nothing)."""
        counts = await self._batch([("DELETE FROM deferred_pings WHERE game=?", (game,))])
        return bool(counts and counts[0] > 0)

    async def set_deadline(self, game: int, version: int, deadline: float, *, window: int | None = None,
                           vacations: dict[str, dict[str, int]] | None = None) -> bool:
        """Move the deadline of ``game`` at ``version`` (quiet hours, a vacation day): with
        ``window`` its reminders start over; ``vacations`` replaces the vacation record.
        False, and nothing written, when the game moved on meanwhile."""
        sets: list[str] = ["deadline=?"]
        params: list[Any] = [deadline]
        if window is not None:
            sets += ["deadline_window=?", "reminded=0"]
            params.append(window)
        if vacations is not None:
            sets.append("vacations=?")
            params.append(json.dumps(vacations))
        done = await self._batch([(f"UPDATE games SET {', '.join(sets)} WHERE id=? AND version=? AND status='active'",
                                   (*params, game, version))], guard=True)
        return done is not None

    async def set_vacation(self, game: int, user_id: int, days: int) -> bool:
        """Give the player ``user_id`` of the lobby ``game`` ``days`` vacation days (0 clears
        them). False when the game is no longer a lobby or they are not seated."""
        async with self._tx() as db:
            await self.lock_game(db, game)
            record = await self._game(db, game)
            if record is None or record.status != "lobby" or record.seat_of(user_id) is None:
                return False
            vacations = dict(record.vacations)
            if days > 0:
                vacations[str(user_id)] = {"days": days, "used": 0}
            else:
                vacations.pop(str(user_id), None)
            await db.execute("UPDATE games SET vacations=?, updated_at=? WHERE id=?",
                             (json.dumps(vacations), self.clock(), game))
            return True

    async def quiet_hours(self, guild_id: int) -> tuple[int, int, str] | None:
        """The quiet hours of a server: ``(start, end, zone)`` in minutes after local
        midnight and the zone name, or None. Read again at most every
        ``QUIET_HOURS_FRESH`` seconds (a change by this process: at once)."""
        if guild_id in self._quiet:
            return self._quiet[guild_id]
        (rows,) = await self._fetch([(
            "SELECT quiet_start, quiet_end, quiet_tz FROM guild_settings WHERE guild_id=?", (guild_id,))])
        row = rows[0] if rows else None
        hours = None if row is None or row[0] is None or row[1] is None else (
            int(row[0]), int(row[1]), str(row[2] or "UTC"))
        self._quiet[guild_id] = hours
        return hours

    async def set_quiet_hours(self, guild_id: int, hours: tuple[int, int, str] | None) -> None:
        """Set (or clear with None) the quiet hours of a server."""
        start, end, zone = hours if hours is not None else (None, None, None)
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO guild_settings(guild_id, quiet_start, quiet_end, quiet_tz) VALUES (?,?,?,?)"
                " ON CONFLICT(guild_id) DO UPDATE SET quiet_start=excluded.quiet_start,"
                " quiet_end=excluded.quiet_end, quiet_tz=excluded.quiet_tz",
                (guild_id, start, end, zone))
        self._quiet.pop(guild_id, None)

    # ------------------------------------------------------------------ outbox
    async def pending_of(self, game: int) -> tuple[list[OutboxRow], GameRecord | None]:
        """The deliveries of ``game`` not yet done, in order, and the game (None when there
        is none), in one trip to the database (the outbox's drain reads both)."""
        rows, games, seats = await self._fetch([
            ("SELECT * FROM outbox WHERE done_at IS NULL AND game=? ORDER BY id", (game,)),
            (GAME_SQL, (game,)), (SEATS_SQL, (game,))])
        record = _row_to_game(games[0], [_row_to_seat(r) for r in seats], self._snapshots) if games else None
        return [_row_to_outbox(r) for r in rows], record

    async def pending(self, game: int | None = None) -> list[OutboxRow]:
        """The deliveries not yet done, of ``game`` (or of every game on ``shards``), in
        order."""
        sql = "SELECT * FROM outbox WHERE done_at IS NULL"
        params: tuple[Any, ...] = ()
        if game is not None:
            sql += " AND game=?"
            params = (game,)
        elif self.shards is not None:
            where, params = self.shards.where("g.guild_id")
            sql += f" AND game IN (SELECT g.id FROM games g WHERE {where})"
        (rows,) = await self._fetch([(sql + " ORDER BY id", params)])
        return [_row_to_outbox(r) for r in rows]

    async def outbox(self, game: int) -> list[OutboxRow]:
        """Every outbox row of ``game``, done or not, in order (inspection, tests)."""
        (rows,) = await self._fetch([("SELECT * FROM outbox WHERE game=? ORDER BY id", (game,))])
        return [_row_to_outbox(r) for r in rows]

    async def delivered(self, row_ids: Sequence[int]) -> None:
        """Mark rows done (Discord accepted them); an answer's interaction token is wiped."""
        if not row_ids:
            return
        marks = ",".join("?" * len(row_ids))
        wiped = ("(payload::jsonb - 'token')::text" if self._pg is not None  # (one trip: the JSON edited in SQL)
                 else "json_remove(payload, '$.token')")
        await self._batch([
            (f"UPDATE outbox SET payload={wiped} WHERE kind='answer' AND id IN ({marks}) AND done_at IS NULL",
             tuple(row_ids)),
            (f"UPDATE outbox SET done_at=? WHERE id IN ({marks}) AND done_at IS NULL", (self.clock(), *row_ids))])

    async def boards_delivered(self, game: int, version: int) -> int:
        """Mark done every pending board row of ``game`` asked for at or before ``version``
        (the board now shows ``version``: rows coalesce). Returns how many."""
        counts = await self._batch([("UPDATE outbox SET done_at=? WHERE game=? AND kind='board' AND version<=?"
                                     " AND done_at IS NULL", (self.clock(), game, version))])
        assert counts is not None
        return counts[0]

    async def board_shown(self, game: int) -> int | None:
        """The newest version of ``game`` whose board row is done (its board was accepted by
        Discord), None when none: where a restarted bot's thread lines stand (bot/ui/delivery.py
        ``Delivery._shown_upto``). One index lookup (``outbox_boards_done``, migration 012)."""
        (rows,) = await self._fetch([("SELECT version FROM outbox WHERE game=? AND kind='board'"
                                      " AND done_at IS NOT NULL ORDER BY id DESC LIMIT 1", (game,))])
        return int(rows[0][0]) if rows else None

    async def delivery_failed(self, row_id: int, error: str) -> None:
        """Count a failed attempt of a row (it stays pending)."""
        await self._batch([("UPDATE outbox SET attempts=attempts+1, last_error=? WHERE id=?",
                            (error[:500], row_id))])

    # ------------------------------------------------------------------ the table (migration 005)
    async def watch(self, game: int, user_id: int, mode: str) -> None:
        """Follow ``game`` as a spectator (``mode`` ``"board"`` or ``"end"``); a second call
        changes the mode."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO watchers(game, user_id, mode) VALUES (?,?,?)"
                " ON CONFLICT(game, user_id) DO UPDATE SET mode=excluded.mode", (game, user_id, mode))

    async def unwatch(self, game: int, user_id: int) -> tuple[int, int] | None:
        """Stop following ``game``: the DM board message ``(channel_id, message_id)`` it
        had, if any; None when the user did not watch it."""
        async with self._tx() as db:
            async with db.execute("SELECT channel_id, message_id FROM watchers WHERE game=? AND user_id=?",
                                  (game, user_id)) as cur:
                row = await cur.fetchone()
            if row is None:
                return None
            await db.execute("DELETE FROM watchers WHERE game=? AND user_id=?", (game, user_id))
        return (int(row[0]), int(row[1])) if row[0] is not None and row[1] is not None else (0, 0)

    async def watchers(self, game: int) -> list[tuple[int, str, int | None, int | None, int]]:
        """``(user_id, mode, channel_id, message_id, shown version)`` of ``game``'s spectators."""
        (rows,) = await self._fetch([(
            "SELECT user_id, mode, channel_id, message_id, shown FROM watchers WHERE game=? ORDER BY user_id",
            (game,))])
        return [(int(r[0]), str(r[1]), r[2], r[3], int(r[4])) for r in rows]

    async def set_watcher_message(self, game: int, user_id: int, channel_id: int, message_id: int,
                                  shown: int) -> None:
        """Remember the spectator's DM board message and the version it shows."""
        await self._batch([("UPDATE watchers SET channel_id=?, message_id=?, shown=? WHERE game=? AND user_id=?",
                            (channel_id, message_id, shown, game, user_id))])

    async def record_ratings(self, game: int, guild_id: int, game_id: str,
                             rows: Sequence[tuple[int, float, float, bool]]) -> bool:
        """Store the new ratings of a finished game's players, ``(user_id, mu, sigma, won)``,
        counting one more game (and a win) each, once per game: False, and nothing written,
        when ``game`` was already rated."""
        return await self._batch(_rating_statements(game, guild_id, game_id, rows, self.clock()),
                                 guard=True) is not None

    async def ratings(self, guild_id: int, game_id: str | None = None, *, user_id: int | None = None,
                      limit: int = 100) -> list[tuple[str, int, float, float, int, int]]:
        """Stored ratings of a server, ``(game_id, user_id, mu, sigma, games, wins)``, best
        first (by ``mu - 3·sigma``, openskill's ordinal); of one game and/or one user."""
        sql = "SELECT game_id, user_id, mu, sigma, games, wins FROM ratings WHERE guild_id=?"
        params: list[Any] = [guild_id]
        if game_id is not None:
            sql += " AND game_id=?"
            params.append(game_id)
        if user_id is not None:
            sql += " AND user_id=?"
            params.append(user_id)
        sql += " ORDER BY mu - 3 * sigma DESC, user_id LIMIT ?"
        params.append(limit)
        async with self._read() as db, db.execute(sql, tuple(params)) as cur:
            return [(str(r[0]), int(r[1]), float(r[2]), float(r[3]), int(r[4]), int(r[5]))
                    for r in await cur.fetchall()]

    # ------------------------------------------------------------------ the operator (migration 006)
    async def anonymise_user(self, user_id: int, names: Callable[[int], str]) -> list[int]:
        """Replace ``user_id`` by ``ANON_USER`` in every game where their seat is over: the
        finished and abandoned games, and the running ones they left (resigned, kicked):
        the seat (its name becomes ``names(seat)``), the log entries' user, the ``user`` of
        kick and resign entries and the ``old_user`` / ``new_user`` of replace and AI-seat
        entries, and the host of games that are over. Elsewhere too: the host of a running
        game is handed on to the first person still seated; the log entries they made in
        any game (a moderator's) and every log or outbox JSON that holds their id (a number,
        a string or a mention) get ``ANON_USER``; the WAL is written back to the file, so
        with ``secure_delete`` no page of the file holds the id any more.
        The actions, events, states and scores stay as they are, so every game still
        replays to its snapshot (``make check``). Returns the game ids changed, ascending.
        A seat the user still plays (lobby or running game) is left alone."""
        async with self._tx() as db:
            async with db.execute(
                "SELECT s.game, s.seat FROM seats s JOIN games g ON g.id = s.game WHERE s.user_id=?"
                " AND (g.status IN ('finished', 'abandoned') OR s.status = 'left') ORDER BY s.game",
                (user_id,)) as cur:
                seats = [(int(r[0]), int(r[1])) for r in await cur.fetchall()]
            games = sorted({g for g, _ in seats})
            for game, seat in seats:
                await db.execute("UPDATE seats SET user_id=?, name=? WHERE game=? AND seat=?",
                                 (ANON_USER, names(seat), game, seat))
            for game in games:
                await db.execute("UPDATE actions SET user_id=? WHERE game=? AND user_id=?", (ANON_USER, game, user_id))
                async with db.execute("SELECT seq, action FROM actions WHERE game=? AND kind='system'", (game,)) as cur:
                    system = [(int(r[0]), json.loads(r[1])) for r in await cur.fetchall()]
                for seq, action in system:
                    keys = [k for k in ("user", "old_user", "new_user") if action.get(k) == user_id]
                    if keys:
                        await db.execute("UPDATE actions SET action=? WHERE game=? AND seq=?",
                                         (json.dumps({**action, **dict.fromkeys(keys, ANON_USER)}), game, seq))
            await db.execute(  # (a running game's host is handed on to the first person still seated)
                "UPDATE games SET host_user_id=COALESCE((SELECT s.user_id FROM seats s WHERE s.game=games.id"
                " AND games.status NOT IN ('finished', 'abandoned') AND s.user_id > 0 AND s.status != 'left'"
                " ORDER BY s.seat LIMIT 1), ?) WHERE host_user_id=?", (ANON_USER, user_id))
            await db.execute("UPDATE actions SET user_id=? WHERE user_id=?", (ANON_USER, user_id))
            pattern = f"%{user_id}%"
            scrubbed: set[int] = set()
            for table, key, columns in (("actions", "game, seq", ("action", "events")), ("outbox", "id", ("payload",))):
                for column in columns:
                    async with db.execute(f"SELECT {key}, {column} FROM {table} WHERE {column} LIKE ?",
                                          (pattern,)) as cur:
                        rows = [tuple(r) for r in await cur.fetchall()]
                    for *where, text in rows:
                        if (clean := _without_user(stored := json.loads(text), user_id)) != stored:
                            await db.execute(f"UPDATE {table} SET {column}=? WHERE "
                                             + " AND ".join(f"{k.strip()}=?" for k in key.split(",")),
                                             (json.dumps(clean), *where))
                            if table == "actions":
                                scrubbed.add(int(where[0]))
        for game in {*games, *scrubbed}:
            self._log_tails.pop(game, None)  # (their entries changed: read afresh)
        if self._db is not None:  # (the WAL still holds the pages as they were: write them back now)
            with contextlib.suppress(sqlite3.Error):
                await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return games

    async def operator_counts(self, *, day_start: float, hour_ago: float,
                              guild_id: int | None = None) -> dict[str, int]:
        """The figures of ``/game status`` (of one server, or of every one with None):
        ``active`` running games, ``finished`` games finished since ``day_start`` (their last
        change), ``actions`` log entries since ``hour_ago`` and ``pending`` deliveries not
        yet done (unix seconds)."""
        scope, params = ("", ()) if guild_id is None else (" AND g.guild_id=?", (guild_id,))
        queries = {
            "active": ("SELECT COUNT(*) FROM games g WHERE g.status='active'" + scope, params),
            "finished": ("SELECT COUNT(*) FROM games g WHERE g.status='finished' AND g.updated_at>=?" + scope,
                         (day_start, *params)),
            "actions": ("SELECT COUNT(*) FROM actions a JOIN games g ON g.id = a.game WHERE a.at>=?" + scope,
                        (hour_ago, *params)),
            "pending": ("SELECT COUNT(*) FROM outbox o JOIN games g ON g.id = o.game WHERE o.done_at IS NULL" + scope,
                        params),
        }
        out: dict[str, int] = {}
        async with self._read() as db:
            for name, (sql, args) in queries.items():
                async with db.execute(sql, args) as cur:
                    row = await cur.fetchone()
                out[name] = int(row[0]) if row else 0
        return out

    async def database_bytes(self) -> int | None:
        """The database's size in bytes (SQLite: the file and its WAL; PostgreSQL:
        ``pg_database_size``); None for an in-memory database."""
        if self._pg is not None:
            async with self._read() as db, db.execute("SELECT pg_database_size(current_database())") as cur:
                row = await cur.fetchone()
            return int(row[0]) if row else None
        if self.path == ":memory:":
            return None
        return sum(p.stat().st_size for p in (Path(self.path), Path(f"{self.path}-wal")) if p.is_file())

    async def schedule_guild_purge(self, guild_id: int, left_at: float, purge_at: float) -> None:
        """Remember that the bot left ``guild_id`` at ``left_at``: its data is purged at
        ``purge_at`` (a second call keeps the first departure's times)."""
        async with self._tx() as db:
            await db.execute("INSERT INTO guild_purges(guild_id, left_at, purge_at) VALUES (?,?,?)"
                             " ON CONFLICT(guild_id) DO NOTHING", (guild_id, left_at, purge_at))

    async def cancel_guild_purge(self, guild_id: int) -> bool:
        """The bot is back in ``guild_id``: its purge is called off. True when one was due."""
        async with self._tx() as db:
            cur = await db.execute("DELETE FROM guild_purges WHERE guild_id=?", (guild_id,))
            return cur.rowcount > 0

    async def guild_purges(self, due_by: float | None = None) -> list[tuple[int, float, float]]:
        """``(guild_id, left_at, purge_at)`` of the servers waiting for their purge (those
        due by ``due_by`` only, when given), soonest first."""
        sql, params = "SELECT guild_id, left_at, purge_at FROM guild_purges", cast(tuple[Any, ...], ())
        if due_by is not None:
            sql, params = sql + " WHERE purge_at<=?", (due_by,)
        async with self._read() as db, db.execute(sql + " ORDER BY purge_at, guild_id", params) as cur:
            return [(int(r[0]), float(r[1]), float(r[2])) for r in await cur.fetchall()]

    async def purge_guild(self, guild_id: int) -> int:
        """Delete everything stored about ``guild_id``: its games (their seats, logs,
        deliveries, DM messages, spectators and marks go with them), settings, ratings and
        its pending purge. Returns the number of games deleted."""
        async with self._tx() as db:
            async with db.execute("SELECT id FROM games WHERE guild_id=?", (guild_id,)) as cur:
                games = [int(r[0]) for r in await cur.fetchall()]
            for table in ("outbox", "dm_messages", "watchers", "deferred_pings", "rated_games",
                          "actions", "seats"):  # (also without ON DELETE CASCADE at work)
                for game in games:
                    await db.execute(f"DELETE FROM {table} WHERE game=?", (game,))
            await db.execute("DELETE FROM notify_settings WHERE game IN (SELECT id FROM games WHERE guild_id=?)",
                             (guild_id,))
            await db.execute("DELETE FROM games WHERE guild_id=?", (guild_id,))
            for table in ("guild_settings", "ratings", "guild_purges"):
                await db.execute(f"DELETE FROM {table} WHERE guild_id=?", (guild_id,))
        self._quiet.pop(guild_id, None)
        for game in games:
            self._log_tails.pop(game, None)
        return len(games)

    async def claim_reminder(self, game: int, version: int, count: int, seats: Sequence[int]) -> bool:
        """``mark_reminded``, and in the same transaction queue the reminder as a ``ping``
        row (payload ``seats``, ``reminder``: ``count``): sent once by the outbox, with its
        nonce, whatever crashes. False, and nothing queued, when the game
        moved on or the reminder was claimed already."""
        now = self.clock()
        async with self._tx() as db:
            cur = await db.execute("UPDATE games SET reminded=? WHERE id=? AND version=? AND reminded<?",
                                   (count, game, version, count))
            if cur.rowcount != 1:
                return False
            await self._queue(db, game, [OutboxItem("ping", version, {"seats": sorted(seats), "reminder": count})],
                              now)
        return True


def _row_to_outbox(r: Any) -> OutboxRow:
    return OutboxRow(r["id"], r["game"], r["version"], r["kind"], json.loads(r["payload"]), r["nonce"],
                     r["attempts"], r["created_at"], r["done_at"])
