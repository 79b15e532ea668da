"""What storage reads and writes: the records of the database's rows (``GameRecord``,
``SeatRecord``, ``LogEntry``, ``OutboxRow``), the deliveries and shards the stores take, the
storage faults, and the SQL and row conversions more than one store shares."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache

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


class LeaseLost(StorageUnwritable):
    """PostgreSQL: this process no longer holds the lease of its shards (another process took
    them over, or its lease session ended); the write was refused before its commit, nothing
    was written (bot/storage/leases.py)."""

    def __str__(self) -> str:
        return (f"The database {self.path} refused the write: {self.reason}. Another process serves "
                "these shards now; this one stops.")


class StorageCorrupt(StorageUnwritable):
    """The file is damaged or not a database (SQLite's "malformed", "not a database"): only a
    backup brings its games back (to a player, a fault of storage like ``StorageUnwritable``)."""

    def __str__(self) -> str:
        return (f"The database {self.path} is damaged (corrupt: {self.reason}). Restore the newest backup "
                "that replays: make restore FILE=<backup> TO=<a new path> (README, \"Operating the bot\"), "
                "then point DATABASE_PATH at it.")


class TooManyLobbies(Exception):
    """The host already has the most open lobbies allowed in the server; ``games`` are their ids."""

    def __init__(self, games: list[int]) -> None:
        super().__init__(f"open lobbies: {games}")
        self.games = games


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
class MoveInFlight:
    """A row of ``moves_in_flight``: an interaction acknowledged while its move was not yet
    committed; ``application_id`` and ``token`` edit its ``@original`` answer for 15 minutes
    after ``created_at`` (unix seconds, the interaction's creation); ``locale`` is the
    language of the player's private answers."""

    interaction_id: int
    application_id: int
    token: str
    user_id: int
    game: int
    guild_id: int | None
    locale: str
    created_at: float


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

    def expression(self, column: str = "guild_id") -> str:
        """The shard of ``column`` as SQL (portable), with the count written in: the very
        expression of the index ``index_sql`` (a parameter in its place would not match it)."""
        return f"((COALESCE({column}, 0) / 4194304) % {int(self.count)})"

    def where(self, column: str = "guild_id") -> tuple[str, tuple[int, ...]]:
        """An SQL condition (portable) keeping the rows whose ``column`` is on these shards,
        and its parameters; answered through the index ``index_sql``."""
        marks = ",".join("?" * len(self.ids))
        return f"{self.expression(column)} IN ({marks})", tuple(self.ids)

    def index_sql(self) -> list[str]:
        """The index of the games by their shard among ``count``, then status and deadline
        (the expression of ``where`` first, in both backends: the clock's ``due`` of a
        process's shards is one range of it per shard), created when a process with this
        count opens the database (``Database.migrate``); and the drop of the index on the
        shard alone that it replaces (its every use is a prefix of this one)."""
        return [f"CREATE INDEX IF NOT EXISTS games_by_shard_of_{int(self.count)}"
                f" ON games({self.expression()}, status, deadline)",
                f"DROP INDEX IF EXISTS games_shard_of_{int(self.count)}"]


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


def log_query(game: int, after: int, last: int | None, upto: int | None = None) -> tuple[str, tuple[Any, ...]]:
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
a read (a move read them 1-2 times). A change made by this process is seen at
once. Only the process running the server's shard (``Shards``) takes its commands, so
another process's change (the server moved to another shard) is seen within this many
seconds."""
QUIET_HOURS_KEPT = 4096
"""Servers whose quiet hours are remembered (least recently used forgotten first)."""

LOG_TAILS_KEPT = 64
"""Games whose newest log entries ``Repository`` keeps in memory (``LogTail``)."""
LOG_TAIL_ENTRIES = 48
"""Entries kept per game: more than a board's ``RECENT_READ`` (bot/ui/delivery.py) and the undo
check's ``UNDO_TAIL`` (bot/service.py) read. 64 games × 48 entries stay a few MB (the
memory guard: 1,000 games under 150 MB)."""


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


def row_to_entry(r: Any) -> LogEntry:
    return LogEntry(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5], r[6])


def row_to_seat(r: Any) -> SeatRecord:
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


def row_to_game(row: Any, seats: Sequence[SeatRecord], snapshots: Snapshots | None = None) -> GameRecord:
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


def rating_statements(game: int, guild_id: int, game_id: str, rows: Sequence[tuple[int, float, float, bool]],
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


def queued(game: int, items: Sequence[OutboxItem], now: float) -> list[tuple[str, Sequence[Any]]]:
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


def row_to_outbox(r: Any) -> OutboxRow:
    return OutboxRow(r["id"], r["game"], r["version"], r["kind"], json.loads(r["payload"]), r["nonce"],
                     r["attempts"], r["created_at"], r["done_at"])
