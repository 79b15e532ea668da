"""The operator's storage: whole tables for bot/migrate.py, the figures of ``/game status``,
forgetting a person and purging a server that removed the bot."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from bot.storage.archive import USER_KEYS, restore_for_user
from bot.storage.backend import PgConnection
from bot.storage.database import Database, writes_games
from bot.storage.records import ANON_USER


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


class OperationsStore(Database):
    """Whole tables (bot/migrate.py), the operator's counts, forget-me and server purges."""

    async def tables(self) -> dict[str, dict[str, str]]:
        """The data tables, each referenced table before those that refer to it: table name
        -> column name -> declared type (upper case). The schema bookkeeping tables and the
        shard leases (a running deployment's, not data) are left out."""
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
        columns.pop("shard_leases", None)
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

    @writes_games
    async def copy_in(self, data: Sequence[tuple[str, Sequence[str], Sequence[tuple[Any, ...]]]]) -> None:
        """Insert ``(table, columns, rows)`` in this order, all in one transaction, then move
        the generated ids past the largest copied one, a game's past the archived ones too
        (the tool of bot/migrate.py).

        Raises:
            StorageError: as every write; nothing is written then.
        """
        async with self._tx() as db:
            for table, columns, rows in data:
                if rows:
                    sql = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})"
                    await db.executemany(sql, [tuple(r) for r in rows])
            if not isinstance(db, PgConnection):  # (AUTOINCREMENT: past the archived ids too)
                await db.execute("INSERT INTO sqlite_sequence(name, seq) SELECT 'games', 0 WHERE NOT EXISTS"
                                 " (SELECT 1 FROM sqlite_sequence WHERE name = 'games')")
                await db.execute("UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT MAX(id) FROM"
                                 " archived_games), 0)) WHERE name = 'games'")
            if isinstance(db, PgConnection):
                async with db.execute(
                        "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema()"
                        " AND column_name = 'id' AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')"
                        " ORDER BY table_name") as cur:
                    generated = [str(r[0]) for r in await cur.fetchall()]
                for table in generated:
                    past = "(SELECT MAX(id) FROM archived_games), " if table == "games" else ""  # (ids kept there)
                    await db.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                                     f" GREATEST({past}(SELECT COALESCE(MAX(id), 0) FROM {table})) + 1, false)")

    @writes_games
    async def anonymise_user(self, user_id: int, names: Callable[[int], str]) -> list[int]:
        """Replace ``user_id`` by ``ANON_USER`` in every game where their seat is over: the
        finished and abandoned games, and the running ones they left (resigned, kicked):
        the seat (its name becomes ``names(seat)``), the log entries' user, the ``user`` of
        kick and resign entries and the ``old_user`` / ``new_user`` of replace and AI-seat
        entries, and the host of games that are over. Elsewhere too: the host of a running
        game is handed on to the first person still seated; the log entries they made in
        any game (a moderator's) and every log or outbox JSON that holds their id (a number,
        a string or a mention) get ``ANON_USER``; the WAL is written back to the file, so
        with ``secure_delete`` no page of the file holds the id any more. Their moves in
        flight (interaction tokens) are deleted.
        The actions, events, states and scores stay as they are, so every game still
        replays to its snapshot (``make check``). Returns the game ids changed, ascending.
        A seat the user still plays (lobby or running game) is left alone. The archived
        games that name them are put back in the hot tables first (bot/storage/archive.py;
        archived again at the archive loop's next pass)."""
        async with self._tx() as db:
            await restore_for_user(db, user_id)
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
            await db.execute("DELETE FROM moves_in_flight WHERE user_id=?", (user_id,))  # (their tokens)
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
        if self._pg:
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

    @writes_games
    async def purge_guild(self, guild_id: int) -> int:
        """Delete everything stored about ``guild_id``: its games, hot and archived (their
        seats, logs, deliveries, DM messages, spectators and marks go with them), settings,
        ratings, its moves in flight and its pending purge. Returns the number of games
        deleted."""
        async with self._tx() as db:
            async with db.execute("SELECT id FROM games WHERE guild_id=?", (guild_id,)) as cur:
                games = [int(r[0]) for r in await cur.fetchall()]
            async with db.execute("SELECT id FROM archived_games WHERE guild_id=?", (guild_id,)) as cur:
                archived = [int(r[0]) for r in await cur.fetchall()]
            for game in archived:
                await db.execute("DELETE FROM rated_games WHERE game=?", (game,))
            await db.execute("DELETE FROM archived_games WHERE guild_id=?", (guild_id,))
            for table in ("outbox", "dm_messages", "watchers", "deferred_pings", "rated_games",
                          "actions", "seats"):  # (also without ON DELETE CASCADE at work)
                for game in games:
                    await db.execute(f"DELETE FROM {table} WHERE game=?", (game,))
            await db.execute("DELETE FROM notify_settings WHERE game IN (SELECT id FROM games WHERE guild_id=?)",
                             (guild_id,))
            await db.execute("DELETE FROM games WHERE guild_id=?", (guild_id,))
            for table in ("guild_settings", "ratings", "guild_purges", "moves_in_flight"):
                await db.execute(f"DELETE FROM {table} WHERE guild_id=?", (guild_id,))
        self._quiet.pop(guild_id, None)
        for game in games:
            self._log_tails.pop(game, None)
        return len(games) + len(archived)
