"""The clock's storage: deadlines, reminders, vacations, quiet hours and held-back pings."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.storage.database import GameReads, queue, writes_game
from bot.storage.records import GameRecord, OutboxItem, Shards


def due_query(now: float, shards: Shards | None) -> tuple[str, tuple[Any, ...]]:
    """The query of ``ClockStore.due``: the ids of the games due at ``now`` (of ``shards``, when
    given: one range of the index ``Shards.index_sql`` per shard, on PostgreSQL)."""
    where, params = shards.where() if shards is not None else ("1=1", ())
    return ("SELECT id FROM games WHERE status='active' AND paused=0 AND deadline IS NOT NULL"
            " AND ((reminded = 0 AND ? >= deadline - COALESCE(deadline_window, move_timeout) * 0.5)"
            "   OR (reminded <= 1 AND ? >= deadline - COALESCE(deadline_window, move_timeout) * 0.1)"
            f"   OR ? >= deadline) AND {where} ORDER BY deadline", (now, now, now, *params))


class ClockStore(GameReads):
    """Deadlines and their reminders, vacation days, a server's quiet hours and the pings held
    back through them."""

    @writes_game
    async def mark_reminded(self, game: int, version: int, count: int) -> bool:
        """Claim the ``count``-th reminder of the deadline of ``version``: True for the one
        caller that moves the count up (it sends the reminder); False when the game moved
        on or the reminder was claimed already (by this or another process)."""
        done = await self._batch([("UPDATE games SET reminded=? WHERE id=? AND version=? AND reminded<?",
                                   (count, game, version, count))], guard=True)
        return done is not None

    @writes_game
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
            await queue(db, game, [OutboxItem("ping", version, {"seats": sorted(seats), "reminder": count})],
                              now)
        return True

    async def due(self, now: float, shards: Shards | None = None) -> list[GameRecord]:
        """Active, unpaused games with a deadline whose next reminder or expiry is due
        (50 %, 90 % of the window, and the deadline itself); only the games on ``shards``
        when given (each process runs the clock of its own servers)."""
        (rows,) = await self._fetch([due_query(now, shards or self.shards)])
        return await self._games([int(r[0]) for r in rows])

    @writes_game
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

    @writes_game
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
