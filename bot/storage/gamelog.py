"""The action log: appending a move with its snapshot, deliveries and ratings, and reading
the log (with the newest entries kept in memory, ``LogTail``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.storage.archive import archived
from bot.storage.database import GameReads, game_queries, writes_game
from bot.storage.inflight import settle_statement
from bot.storage.records import (
    INSERT_ACTION,
    LOG_SQL,
    LOG_TAIL_ENTRIES,
    GameRecord,
    LogEntry,
    LogTail,
    OutboxItem,
    StaleVersion,
    log_query,
    queued,
    rating_statements,
    row_to_entry,
)


class LogStore(GameReads):
    """The ``actions`` log, append-only: ``append`` writes a move's entries, snapshot, outbox rows
    and ratings in one compare-and-set transaction; ``log`` reads entries, from ``LogTail`` when it can."""

    @writes_game
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

    async def appended(  # (counted in GameWrites as writes_game, keeping its record)
        self, game: int, expected_version: int, entries: Sequence[LogEntry], *,
        state: dict[str, Any], status: str, players: int | None = None,
        deadline: float | None = None, waiting: Sequence[int] = (), window: int | None = None,
        reminded: int = 0, outbox: Sequence[OutboxItem] = (),
        ratings: tuple[int, str, Sequence[tuple[int, float, float, bool]]] | None = None,
        settles: int | None = None,
    ) -> tuple[GameRecord, list[LogEntry]]:
        """``append``, then the game as stored and its log entries after ``expected_version``
        (the ones appended, with their seqs) read back in the same trip to the database
        (the move path's record after the commit, without two more reads). ``settles``: the
        interaction whose move in flight (``InFlightStore``) this commit answers, forgotten in
        the same transaction.

        Raises:
            StaleVersion: someone else wrote first; nothing was written.
        """
        statements = self._append_statements(game, expected_version, entries, state=state, status=status,
                                              players=players, deadline=deadline, waiting=waiting, window=window,
                                              reminded=reminded, outbox=outbox, ratings=ratings)
        if settles is not None:
            statements.append(settle_statement(settles))
        started = self._writes.begin(game)
        try:
            done = await self._appending(game, expected_version, statements, [
                *game_queries(game, self._pg), (LOG_SQL + " ORDER BY seq", (game, expected_version))])
            alone = self._writes.alone(game, started)
        finally:
            self._writes.end(game)
        record, (logged,) = self._game_of(done)
        assert record is not None  # (the compare-and-set just wrote it)
        if alone:  # (nothing else wrote the game meanwhile: the record read back is the game as stored)
            self._writes.keep(record)
        entries = [row_to_entry(r) for r in logged]
        self._tail_note(game, expected_version, record.version, entries)  # (every entry after the move's start)
        return record, entries

    def kept_game(self, game: int) -> GameRecord | None:
        """The game as stored, when this process kept a record of it (read back by
        ``appended``, or read by ``get_game`` / ``game_with_log``) and no write of the game by
        this process started since (``GameWrites``): no trip to the database. None whenever
        in doubt (read it then)."""
        return self._writes.kept(game)

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
        statements += queued(game, outbox, now)
        if ratings is not None:  # (a game finishes once, by this compare-and-set: never rated before)
            statements += rating_statements(game, *ratings, now)
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

    async def log(self, game: int, *, after: int = 0, last: int | None = None,
                  upto: int | None = None) -> list[LogEntry]:
        """The log entries of ``game`` in order: those with seq > ``after`` (and ≤ ``upto``),
        and only the ``last`` N of them when given (without reading the rest). With ``upto``
        (a version the caller read the game at) they come from this process's memory when it
        holds them (``LogTail``), else from the database, which then fills that memory; an
        archived game's from the archive (bot/storage/archive.py), looked for when the hot
        tables gave none and this process holds no tail of the game (it knows it as hot).
        Callers never change the entries (they may be shared)."""
        if upto is not None:
            known = self._tail_read(game, after, last, upto)
            if known is not None:
                return known
        (rows,) = await self._fetch([log_query(game, after, last, upto)])
        entries = [row_to_entry(r) for r in rows]
        if not entries and game not in self._log_tails and (kept := await archived(self, game)) is not None:
            entries = [e for e in kept.entries if e.seq > after and (upto is None or e.seq <= upto)]
            return entries[max(0, len(entries) - last):] if last is not None else entries
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
        trip to the database (a board update reads both). When this process holds the game's
        newest entries (``LogTail``: all of them, or at least ``last``), only the entries after
        those are read and parsed."""
        tail = self._log_tails.get(game)
        if tail is not None and last > 0 and (tail.after == 0 or len(tail.entries) >= last):
            known, after = tail.entries, tail.upto
            since = self._writes.mark()
            record, (logged,) = self._game_of(await self._fetch([*game_queries(game, self._pg),
                                                                 log_query(game, after, last)]))
            new = [row_to_entry(r) for r in logged]
            if record is None:
                return None, new
            self._keep_if_quiet(record, since)
            self._tail_read_back(game, after, last, record.version, new)
            return record, new if len(new) >= last else (known + new)[-last:]
        since = self._writes.mark()
        record, (logged,) = self._game_of(await self._fetch([*game_queries(game, self._pg), log_query(game, 0, last)]))
        entries = [row_to_entry(r) for r in logged]
        if record is not None:  # (the game was read first: its log is complete up to its version)
            self._keep_if_quiet(record, since)
            self._tail_read_back(game, 0, last, record.version, entries)
        return record, entries
