"""The archive: games over (finished or abandoned) for longer than ``ARCHIVE_AFTER_DAYS``
leave the hot tables for one compressed row each (migration 015).

``ArchiveStore.archive_ended`` moves a game, in one transaction per game, from ``games``,
``seats`` and ``actions`` into ``archived_games.data``: zlib-compressed JSON of its games row
(every column), its seats and its log, each row as stored. What only served the game while
it ran goes (its done deliveries, DM hand messages, spectators, held-back pings); a game
with a delivery still pending stays until it is done. Its ``rated_games`` mark stays (it
counts in the ratings once), and ``archived_users`` lists every user the game names, so
``/game forget-me`` reaches it (``restore_for_user`` puts such a game back in the hot tables
first; the next pass archives it again).

An archived game is read by its id as any other: ``Repository.get_game`` and ``log`` fall back to
``archived`` when the hot tables do not hold it (so ``/game replay`` and ``/game export`` work);
it is no longer listed by ``Repository.games`` nor written to (it is over: a move or an undo is
refused as for any game that ended, and a write would find no row).
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.database import Connection, Database, writes_games
from bot.storage.records import (
    LOG_SQL,
    SEATS_SQL,
    GameRecord,
    LogEntry,
    row_to_entry,
    row_to_game,
    row_to_seat,
)

ENDED = ("finished", "abandoned")
"""The statuses of a game that is over: the ones archived."""

ARCHIVE_BATCH = 200
"""Games a pass of the archive loop moves at most (the next pass goes on)."""

USER_KEYS = frozenset({"user", "user_id", "users", "old_user", "new_user", "host", "mentions", "turn", "by"})
"""Keys of log and outbox JSON whose values are user ids (a number, a list of them, or a seat's
``[seat, user id]``)."""

MENTION = re.compile(r"<@!?(\d+)>")

LOG_COLUMNS = "seq, kind, seat, action, events, user_id, at"
"""The columns of ``LOG_SQL`` (an archived log entry's fields, in this order)."""

SEAT_COLUMNS = "game, seat, user_id, name, status, ai_level"
"""The columns of ``SEATS_SQL``."""

GONE_WITH_THE_GAME = ("outbox", "dm_messages", "watchers", "deferred_pings", "actions", "seats")
"""The hot tables whose rows of an archived game are deleted with it (``games`` last)."""


@dataclass(frozen=True)
class Archived:
    """An archived game: its record (as ``Repository.get_game`` gives it) and its whole log."""

    record: GameRecord
    entries: list[LogEntry]


def pack(game: dict[str, Any], seats: Iterable[Iterable[Any]], actions: Iterable[Iterable[Any]]) -> bytes:
    """``archived_games.data``: the games row (column -> value), its seats (``SEAT_COLUMNS``)
    and its log (``LOG_COLUMNS``), as stored, in compressed JSON."""
    text = json.dumps({"game": game, "seats": [list(s) for s in seats], "actions": [list(a) for a in actions]},
                      separators=(",", ":"))
    return zlib.compress(text.encode(), 9)


def unpack(data: bytes) -> dict[str, Any]:
    """What ``pack`` packed: ``{"game": {...}, "seats": [...], "actions": [...]}``."""
    value: dict[str, Any] = json.loads(zlib.decompress(bytes(data)))
    return value


def users_named(value: Any, *, ids: bool = False) -> set[int]:
    """The user ids ``value`` (JSON) names: numbers under ``USER_KEYS`` (``ids``) and mentions
    (``<@id>``) in any string (what forget-me replaces: bot/storage/operations.py)."""
    if isinstance(value, dict):
        return set().union(*(users_named(v, ids=k in USER_KEYS) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(users_named(v, ids=ids) for v in value))
    if isinstance(value, str):
        named = {int(m) for m in MENTION.findall(value)}
        if ids and value.isdigit():
            named.add(int(value))
        return named
    if ids and isinstance(value, int) and not isinstance(value, bool):
        return {value}
    return set()


def _users_of(game: dict[str, Any], seats: list[list[Any]], actions: list[list[Any]]) -> set[int]:
    """Every user an archived game names: its host, its seats, the users of its log entries and
    the ids and mentions inside its log's JSON."""
    users = {int(game["host_user_id"])} | {int(s[2]) for s in seats}
    for _seq, _kind, _seat, action, events, user_id, _at in actions:
        if user_id is not None:
            users.add(int(user_id))
        users |= users_named(json.loads(action)) | users_named(json.loads(events))
    return {u for u in users if u > 0}


async def archived(store: Database, game: int) -> Archived | None:
    """The archived game ``game`` with its log, or None when the archive does not hold it."""
    (rows,) = await store._fetch([("SELECT data FROM archived_games WHERE id=?", (game,))])
    if not rows:
        return None
    data = unpack(rows[0][0])
    record = row_to_game(data["game"], [row_to_seat(s) for s in data["seats"]])
    return Archived(record, [row_to_entry(a) for a in data["actions"]])


async def restore_for_user(db: Connection, user_id: int) -> list[int]:
    """Inside a write transaction: put every archived game that names ``user_id`` back in
    the hot tables, as it was (forget-me then treats it as any game; the next pass of the
    archive loop archives it again). Returns their ids, ascending."""
    async with db.execute("SELECT game FROM archived_users WHERE user_id=? ORDER BY game", (user_id,)) as cur:
        games = [int(r[0]) for r in await cur.fetchall()]
    await restore(db, games)
    return games


async def restore(db: Connection, games: Sequence[int]) -> None:
    """Inside a write transaction: put the archived ``games`` back in the hot tables, as they
    were (their rows, seats and log; the archive's row goes)."""
    for game in games:
        async with db.execute("SELECT data FROM archived_games WHERE id=?", (game,)) as cur:
            (packed,) = await cur.fetchall()
        data = unpack(packed[0])
        row = data["game"]
        await db.execute(f"INSERT INTO games({', '.join(row)}) VALUES ({','.join('?' * len(row))})",
                         tuple(row.values()))
        for seat in data["seats"]:
            await db.execute(f"INSERT INTO seats({SEAT_COLUMNS}) VALUES (?,?,?,?,?,?)", tuple(seat))
        for entry in data["actions"]:
            await db.execute(f"INSERT INTO actions(game, {LOG_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)",
                             (game, *entry))
        await db.execute("DELETE FROM archived_games WHERE id=?", (game,))


class ArchiveStore(Database):
    """``archived_games``: moving the games long over there (``archive_ended``) and counting
    them."""

    @writes_games
    async def archive_ended(self, before: float, *, limit: int = ARCHIVE_BATCH) -> list[int]:
        """Archive up to ``limit`` games over (finished or abandoned) whose last change came
        before ``before`` (unix seconds) and with no delivery pending, of this process's
        shards when it runs some; each in its own transaction. Returns their ids, ascending."""
        where, params = self.shards.where("g.guild_id") if self.shards is not None else ("1=1", ())
        (rows,) = await self._fetch([(
            f"SELECT g.id FROM games g WHERE g.status IN ({','.join('?' * len(ENDED))}) AND g.updated_at<?"
            f" AND {where} AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.game = g.id AND o.done_at IS NULL)"
            " ORDER BY g.id LIMIT ?", (*ENDED, before, *params, limit))])
        done = []
        for (game,) in rows:
            async with self._tx() as db:
                if await self._archive_one(db, int(game), before):
                    done.append(int(game))
            self._log_tails.pop(int(game), None)
        return done

    async def _archive_one(self, db: Connection, game: int, before: float) -> bool:
        """Inside a write transaction: move ``game`` to the archive if it is still over since
        before ``before`` with nothing pending (another process may have archived it, or a
        delivery been queued, meanwhile). True when it moved."""
        await self.lock_game(db, game)
        async with db.execute(
                f"SELECT * FROM games WHERE id=? AND status IN ({','.join('?' * len(ENDED))}) AND updated_at<?"
                " AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.game = games.id AND o.done_at IS NULL)",
                (game, *ENDED, before)) as cur:
            row = await cur.fetchone()
        if row is None:
            return False
        async with db.execute(SEATS_SQL, (game,)) as cur:
            seats = [list(r) for r in await cur.fetchall()]
        async with db.execute(LOG_SQL + " ORDER BY seq", (game, 0)) as cur:
            actions = [list(r) for r in await cur.fetchall()]
        record = dict(row)
        version = None if record["state"] is None else json.loads(record["state"]).get("state_version")
        await db.execute("INSERT INTO archived_games(id, guild_id, game_id, status, ended_at, state_version,"
                         " archived_at, data) VALUES (?,?,?,?,?,?,?,?)",
                         (game, record["guild_id"], record["game_id"], record["status"], record["updated_at"],
                          None if record["state"] is None else version if isinstance(version, int) else 0,
                          self.clock(), pack(record, seats, actions)))
        for user in sorted(_users_of(record, seats, actions)):
            await db.execute("INSERT INTO archived_users(user_id, game) VALUES (?,?)", (user, game))
        for table in GONE_WITH_THE_GAME:
            await db.execute(f"DELETE FROM {table} WHERE game=?", (game,))
        await db.execute("DELETE FROM games WHERE id=?", (game,))
        return True

    @writes_games
    async def restore_other_versions(self, versions: dict[str, int]) -> list[int]:
        """Put back in the hot tables every archived game whose snapshot was stored under a
        ``state_version`` other than its engine's now (``versions``: game id -> version), so
        ``GameService.upgrade_snapshots`` rebuilds it as any game (the next pass of the
        archive loop archives it again). Returns their ids, ascending."""
        async with self._tx() as db:
            async with db.execute("SELECT id, game_id, state_version FROM archived_games"
                                  " WHERE state_version IS NOT NULL ORDER BY id") as cur:
                games = [int(r[0]) for r in await cur.fetchall() if versions.get(str(r[1]), r[2]) != r[2]]
            await restore(db, games)
        return games

    async def archived_ids(self) -> list[int]:
        """The ids of the archived games, ascending."""
        (rows,) = await self._fetch([("SELECT id FROM archived_games ORDER BY id", ())])
        return [int(r[0]) for r in rows]

    async def archive_counts(self) -> tuple[int, int]:
        """(games archived, bytes of their compressed data)."""
        (rows,) = await self._fetch([("SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM archived_games", ())])
        return int(rows[0][0]), int(rows[0][1])
