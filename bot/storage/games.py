"""The games and their seats: lobbies, seating and the system changes of a running game."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.storage.archive import archived
from bot.storage.database import GameReads, game_queries, writes_game
from bot.storage.records import (
    INSERT_ACTION,
    GameRecord,
    LogEntry,
    OutboxItem,
    StaleVersion,
    TooManyLobbies,
    bot_user_id,
    queued,
)


class GameStore(GameReads):
    """The ``games`` and ``seats`` tables: a lobby's seats, a game's fields, and the
    system changes (status, seat holder) that log one entry under the version's compare-and-set."""

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
            async with db.execute(
                "INSERT INTO games(game_id, guild_id, channel_id, host_user_id, seed, options, move_timeout,"
                " created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?) RETURNING id",
                (game_id, guild_id, channel_id, host_user_id, seed, json.dumps(options), move_timeout,
                 now, now),
            ) as cur:
                row = await cur.fetchone()
            assert row is not None
            pk = int(row[0])
            await db.execute("INSERT INTO seats(game, seat, user_id, name) VALUES (?,?,?,?)",
                             (pk, 0, host_user_id, host_name))
            record = await self._game(db, pk)
        assert record is not None
        return record

    async def get_game(self, game: int) -> GameRecord | None:
        """The game with primary key ``game``, or None (one trip to the database: ``_fetch``;
        a second for a game the hot tables do not hold: the archive, bot/storage/archive.py)."""
        since = self._writes.mark()
        record = self._game_of(await self._fetch(game_queries(game, self._pg)))[0]
        if record is None:
            kept = await archived(self, game)
            return kept.record if kept is not None else None
        self._keep_if_quiet(record, since)
        return record

    @writes_game
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

    @writes_game
    async def replace_snapshot(self, game: int, version: int, state: dict[str, Any]) -> bool:
        """Store a rebuilt snapshot of ``game`` at the same ``version`` (a cache refresh after
        an engine's ``state_version`` changed; the log is untouched). Returns False, and
        writes nothing, when the game has moved past ``version`` meanwhile."""
        async with self._tx() as db:
            cursor = await db.execute("UPDATE games SET state=? WHERE id=? AND version=?",
                                      (json.dumps(state), game, version))
            return cursor.rowcount == 1

    @writes_game
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

    @writes_game
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

    @writes_game
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

    @writes_game
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

    @writes_game
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
            *queued(game, outbox, now)], guard=True)
        if done is None:
            raise StaleVersion(game, expected_version, None)
        return expected_version + 1

    @writes_game
    async def set_status(self, game: int, status: str, *, expected_version: int, entry: LogEntry,
                         outbox: Sequence[OutboxItem] = ()) -> int:
        """Change the status (e.g. abandoned) with a system log entry; CAS on the version.

        Raises:
            StaleVersion: the version moved.
        """
        return await self._system_change(
            game, expected_version, entry,
            "UPDATE games SET status=?, deadline=NULL, waiting='[]' WHERE id=?", (status, game), outbox)

    @writes_game
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

    @writes_game
    async def mark_seat_left(self, game: int, seat: int, *, expected_version: int, entry: LogEntry,
                             outbox: Sequence[OutboxItem] = ()) -> int:
        """Mark ``seat`` as left (kicked) with a system log entry; CAS on the version.

        Raises:
            StaleVersion: the version moved.
        """
        return await self._system_change(
            game, expected_version, entry, "UPDATE seats SET status='left' WHERE game=? AND seat=?",
            (game, seat), outbox)

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

    async def count_actions(self, game: int) -> int:
        """Number of log entries of ``game``."""
        async with self._read() as db, db.execute("SELECT COUNT(*) FROM actions WHERE game=?", (game,)) as c:
            row = await c.fetchone()
        return int(row[0]) if row else 0
