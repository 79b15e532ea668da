"""Moves in flight: interactions acknowledged whose move is not committed yet (migration
013). A row is written at the acknowledgement and deleted in the transaction that commits
the move (``LogStore.appended``'s ``settles``), or once the interaction was answered
otherwise; a row a restart still finds is a move the crash lost, answered through its token."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.database import Database
from bot.storage.records import MoveInFlight

INSERT_IN_FLIGHT = ("INSERT INTO moves_in_flight(interaction_id, application_id, token, user_id, game, guild_id,"
                    " locale, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
SETTLE_SQL = "DELETE FROM moves_in_flight WHERE interaction_id=?"


def settle_statement(interaction_id: int) -> tuple[str, Sequence[Any]]:
    """The statement that forgets the move in flight of ``interaction_id`` (joins the move's
    own transaction)."""
    return SETTLE_SQL, (interaction_id,)


class InFlightStore(Database):
    """The ``moves_in_flight`` rows."""

    async def move_in_flight(self, move: MoveInFlight) -> None:
        """Remember ``move``, just acknowledged (a second write of the same interaction is a no-op)."""
        await self._batch([(INSERT_IN_FLIGHT + " ON CONFLICT (interaction_id) DO NOTHING",
                            (move.interaction_id, move.application_id, move.token, move.user_id, move.game,
                             move.guild_id, move.locale, move.created_at))])

    async def settle_in_flight(self, interaction_ids: Sequence[int]) -> None:
        """Forget the moves in flight of ``interaction_ids`` (answered, or too old to answer)."""
        if interaction_ids:
            await self._batch([settle_statement(i) for i in interaction_ids])

    async def moves_in_flight(self) -> list[MoveInFlight]:
        """The moves in flight still stored (of this process's shards), oldest first: after
        a restart, the moves a crash lost."""
        sql = "SELECT * FROM moves_in_flight"
        params: tuple[Any, ...] = ()
        if self.shards is not None:
            where, params = self.shards.where("guild_id")
            sql += f" WHERE {where}"
        (rows,) = await self._fetch([(sql + " ORDER BY created_at, interaction_id", params)])
        return [MoveInFlight(int(r["interaction_id"]), int(r["application_id"]), str(r["token"]), int(r["user_id"]),
                             int(r["game"]), None if r["guild_id"] is None else int(r["guild_id"]), str(r["locale"]),
                             float(r["created_at"])) for r in rows]
