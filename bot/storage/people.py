"""People and their settings: preferences, languages, moderator roles, DMs and spectators."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.storage.database import Database


class PeopleStore(Database):
    """What a person or a server chose: game preferences, a server's moderator role, languages,
    DM settings and messages, games watched; and forgetting a person's settings."""

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
