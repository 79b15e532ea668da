"""The outbox: the deliveries an action causes, pending until Discord accepts them (design §4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.database import Database
from bot.storage.records import (
    GAME_SQL,
    SEATS_SQL,
    GameRecord,
    OutboxRow,
    row_to_game,
    row_to_outbox,
    row_to_seat,
)


class OutboxStore(Database):
    """The ``outbox`` rows: the pending ones, marking them delivered or failed, and where a game's
    board stands."""

    async def pending_of(self, game: int) -> tuple[list[OutboxRow], GameRecord | None]:
        """The deliveries of ``game`` not yet done, in order, and the game (None when there
        is none), in one trip to the database (the outbox's drain reads both); the game as
        this process kept it while nothing wrote it since (``GameWrites``), else read with the
        rows."""
        pending = ("SELECT * FROM outbox WHERE done_at IS NULL AND game=? ORDER BY id", (game,))
        kept = self._writes.kept(game)
        if kept is not None:
            (rows,) = await self._fetch([pending])
            return [row_to_outbox(r) for r in rows], kept
        since = self._writes.mark()
        rows, games, seats = await self._fetch([pending, (GAME_SQL, (game,)), (SEATS_SQL, (game,))])
        record = row_to_game(games[0], [row_to_seat(r) for r in seats], self._snapshots) if games else None
        if record is not None:
            self._keep_if_quiet(record, since)
        return [row_to_outbox(r) for r in rows], record

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
        return [row_to_outbox(r) for r in rows]

    async def outbox(self, game: int) -> list[OutboxRow]:
        """Every outbox row of ``game``, done or not, in order (inspection, tests)."""
        (rows,) = await self._fetch([("SELECT * FROM outbox WHERE game=? ORDER BY id", (game,))])
        return [row_to_outbox(r) for r in rows]

    async def delivered(self, row_ids: Sequence[int]) -> None:
        """Mark rows done (Discord accepted them); an answer's interaction token is wiped."""
        if not row_ids:
            return
        marks = ",".join("?" * len(row_ids))
        wiped = ("(payload::jsonb - 'token')::text" if self._pg  # (one trip: the JSON edited in SQL)
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
