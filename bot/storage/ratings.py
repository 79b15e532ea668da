"""The ratings of a server's players, per game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.database import Database
from bot.storage.records import rating_statements


class RatingStore(Database):
    """The ``ratings`` table: a finished game's new ratings (once per game) and the leaderboards."""

    async def record_ratings(self, game: int, guild_id: int, game_id: str,
                             rows: Sequence[tuple[int, float, float, bool]]) -> bool:
        """Store the new ratings of a finished game's players, ``(user_id, mu, sigma, won)``,
        counting one more game (and a win) each, once per game: False, and nothing written,
        when ``game`` was already rated."""
        return await self._batch(rating_statements(game, guild_id, game_id, rows, self.clock()),
                                 guard=True) is not None

    async def ratings(self, guild_id: int, game_id: str | None = None, *, user_id: int | None = None,
                      limit: int = 100) -> list[tuple[str, int, float, float, int, int]]:
        """Stored ratings of a server's members, ``(game_id, user_id, mu, sigma, games, wins)``,
        best first (by ``mu - 3·sigma``, openskill's ordinal); of one game and/or one user. Rows
        of AI seats (negative user ids) that older versions stored are left out."""
        sql = "SELECT game_id, user_id, mu, sigma, games, wins FROM ratings WHERE guild_id=? AND user_id >= 0"
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
