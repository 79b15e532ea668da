"""Draining the outbox (docs/DESIGN.md §4): the service queues a move's deliveries in the
move's own transaction; ``flush(game)`` sends a game's pending rows in order and marks each
done only after Discord accepted it; ``resume()`` does the same for every game at start, and
a failed delivery is tried again later (``bot.ui.retries``). Board rows coalesce: one board
update (``bot.ui.boards``) shows the newest version and marks every older board row done.

Each stored row is read as its type (``bot.outbox.typed``) and sent by the one dispatcher,
``_deliver``. Turn pings and the end are composed by a ``Composer`` (``bot.ui.notices.TurnNotices``),
given at construction.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot import logsafe
from bot.locks import KeyedLocks
from bot.outbox import AnswerRow, BoardRow, EndRow, LinesRow, NoticeRow, PingRow, TypedRow, typed
from bot.service import crash_point, texts
from bot.storage import StorageError
from bot.ui.boards import Boards
from bot.ui.components import BoardButton
from bot.ui.panels import timer_shown
from bot.ui.retries import Retries
from bot.ui.transport import NONCE_TRUSTED, TOKEN_LIFETIME, TOKEN_MARGIN, Transport, transient
from engines.base import Msg

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.storage import GameRecord, Repository
    from engines.base import Outcome

log = logging.getLogger(__name__)


class Composer(Protocol):
    """Composes what the outbox cannot alone: turn pings and the end."""

    def end_message(self, record: GameRecord, outcome: Outcome) -> tuple[str, list[int], discord.ui.View | None]: ...

    async def notify_turn(self, record: GameRecord, seats: Sequence[int], *, reminder: bool = False,
                          shown_upto: int | None = None, version: int | None = None, nonce: str | None = None,
                          via: discord.Interaction | None = None) -> None: ...

    async def deliver_ping(self, record: GameRecord, seats: Sequence[int], *, after: int, version: int,
                           nonce: str, via: discord.Interaction | None = None) -> None: ...

    async def update_hands(self, game: int) -> None: ...


class Outbox:
    """Sends the pending outbox rows of the games through ``transport`` and ``boards``,
    reading them through ``service`` and ``repo``; ``composer`` writes the pings and the end."""

    def __init__(self, transport: Transport, boards: Boards, service: GameService, repo: Repository,
                 retries: Retries, composer: Composer) -> None:
        self.transport = transport
        self.boards = boards
        self.service = service
        self.repo = repo
        self.retries = retries
        self.composer = composer
        self._game_locks: KeyedLocks[int] = KeyedLocks()
        self._claimed: set[str] = set()
        self._resuming: asyncio.Task[list[int]] | None = None

    async def drain(self) -> None:
        """Wait until every pending board update, and the start-up drain of the outbox,
        has been delivered (tests, shutdown); retries still waiting are not awaited."""
        while True:
            pending: list[asyncio.Task[Any]] = list(self.boards.updating())
            if self._resuming is not None and not self._resuming.done():
                pending.append(self._resuming)
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def flush(self, game: int, via: discord.Interaction | None = None) -> None:
        """Deliver the pending outbox rows of ``game`` in order: lines, pings, the end and
        answers are sent now (each marked done once Discord accepted it); board rows ask
        for a board update (coalesced). Stops at the first failure that may pass, and
        tries again later; a row Discord refuses for good (4xx) is logged and skipped.
        ``via``: the interaction of the move just applied; pings and the end go through it
        when it is ``usable``. Never raises."""
        logsafe.bind(game=game)
        async with self._game_locks[game]:
            try:
                await self._drain_game(game, via)
            except Exception as exc:
                if transient(exc):
                    log.warning("outbox of game %s: %s; trying again later", game, exc)
                    self.retries.later(game, functools.partial(self.flush, game))
                else:
                    log.exception("outbox of game %s failed", game)

    async def resume(self) -> list[int]:
        """Drain the outbox of every game with pending rows (at start: whatever a crash
        left undelivered), then bring their players' DM hands up to date. Returns the game
        ids."""
        games = sorted({row.game for row in await self.repo.pending()})
        if games:
            log.info("delivering what was left in the outbox of %d game(s)", len(games))

        async def one(game: int) -> None:
            await self.flush(game)
            await self.composer.update_hands(game)

        await asyncio.gather(*(one(g) for g in games))
        return games

    def start_resume(self) -> asyncio.Task[list[int]]:
        """``resume`` in a task (``drain`` waits for it)."""
        self._resuming = asyncio.create_task(self.resume(), name="outbox-resume")
        return self._resuming

    def answer_ticket(self, interaction: discord.Interaction, text: str) -> dict[str, Any]:
        """The outbox payload of the answer a typed move is owed; claimed by the caller,
        who answers itself (``answered``) unless it crashes."""
        ticket = {"token": interaction.token, "app": interaction.application_id, "user": interaction.user.id,
                  "text": text.strip(), "at": interaction.created_at.timestamp()}
        self._claimed.add(interaction.token)
        return ticket

    def release(self, ticket: dict[str, Any]) -> None:
        """Give up the claim on ``ticket`` (the move was refused, or the answer failed)."""
        self._claimed.discard(ticket["token"])

    async def answered(self, game: int, ticket: dict[str, Any], step: Awaitable[None]) -> None:
        """Await the caller's own answer ``step`` to a typed move; then mark the row done, or
        (the step failed: logged) leave it to the outbox, which answers it again."""
        try:
            await step
        except Exception:
            log.exception("answering a typed move of game %s failed; the outbox answers it", game)
            self.release(ticket)
            await self.flush(game)
            return
        self.release(ticket)
        rows = [r for r in await self.repo.pending(game)
                if r.kind == "answer" and r.payload.get("token") == ticket["token"]]
        with contextlib.suppress(StorageError):
            await self.repo.delivered([r.id for r in rows])

    async def _drain_game(self, game: int, via: discord.Interaction | None = None) -> None:
        stored, record = await self.repo.pending_of(game)  # (one trip for both)
        if not stored:
            self.retries.succeeded(game)
            return
        if record is None:
            return
        rows: list[TypedRow] = []
        for one in stored:
            try:
                row = typed(one)
            except (ValueError, TypeError, KeyError):
                row = None
            if row is None:
                log.warning("outbox row %s (%s) of game %s cannot be read; skipped", one.id, one.kind, game)
                with contextlib.suppress(StorageError):
                    await self.repo.delivered([one.id])
                continue
            rows.append(row)
        newest_board = max((row.version for row in rows if isinstance(row, BoardRow)), default=None)
        board_asked = False
        for row in rows:
            if isinstance(row, BoardRow):
                if not board_asked and newest_board is not None:  # one board update shows the newest
                    self.boards.request_board(game, newest_board)  # version: rows coalesce (none when on its way)
                    board_asked = True
                continue
            if isinstance(row, AnswerRow) and row.token in self._claimed:
                continue
            if isinstance(row, PingRow | EndRow) and row.created_at < self.transport.started and self.transport.lean:
                self.transport.recheck.add(row.nonce)  # (it may have gone out as a follow-up before the crash)
            elif ((row.created_at < self.transport.started or row.attempts > 0)
                  and self.service.clock() - row.created_at > NONCE_TRUSTED):
                self.transport.recheck.add(row.nonce)  # (it may have gone out, and its nonce is too old to count on)
            try:
                try:
                    await self._deliver(record, row, via)
                except discord.NotFound as exc:
                    moved = await self.boards.thread_gone(record, exc)
                    if moved is None:
                        raise
                    record = moved
                    await self._deliver(record, row, None)  # (in the parent channel now)
            except Exception as exc:
                if transient(exc):
                    with contextlib.suppress(StorageError):
                        await self.repo.delivery_failed(row.id, str(exc))
                    raise
                if isinstance(exc, discord.HTTPException):
                    log.warning("delivery %s (%s) of game %s refused by Discord for good (%s); skipped",
                                row.id, row.kind, game, exc)
                else:
                    log.exception("delivery %s (%s) of game %s failed; skipped", row.id, row.kind, game)
            crash_point("after_post")
            await self.repo.delivered([row.id])
        self.retries.succeeded(game)

    async def _deliver(self, record: GameRecord, row: TypedRow, via: discord.Interaction | None = None) -> None:
        """Send one outbox row (not a board row) to Discord: the one dispatcher of the row types."""
        log.debug("outbox row %s (%s, v%s) of game %s at v%s", row.id, row.kind, row.version, record.id, record.version)
        match row:
            case LinesRow():
                await self._deliver_lines(record, row)
            case PingRow():
                await self._deliver_ping(record, row, via)
            case EndRow():
                await self._deliver_end(record, row, via)
            case AnswerRow():
                await self._deliver_answer(record, row)
            case NoticeRow():
                await self._deliver_notice(record, row)
            case BoardRow():
                self.boards.request_board(record.id, row.version)

    async def _deliver_lines(self, record: GameRecord, row: LinesRow) -> None:
        """The public lines of a change: folded into the board edit that follows (``lean``), else posted."""
        if self.boards.shown(record.id) >= row.version:  # (a board drawn since carries them)
            return
        if self.transport.lean and record.board_message_id:  # (the board edit carries every line since it was last drawn)
            return
        lines = await self.boards.public_lines(record, row.after, row.version)
        if lines:
            await self.transport.post(record.home_channel_id, "\n".join(lines), nonce=row.nonce)
        self.boards.note_shown(record.id, row.version)

    async def _deliver_end(self, record: GameRecord, row: EndRow, via: discord.Interaction | None = None) -> None:
        """The end message: the ranking and the reason, pinging the winners."""
        outcome = self.service.engine(record).outcome(self.service.state(record))
        if outcome is not None:
            text, winners, view = self.composer.end_message(record, outcome)
            await self.transport.post_via(via, record.home_channel_id, text, mentions=winners, view=view,
                                          nonce=row.nonce)

    async def _deliver_ping(self, record: GameRecord, row: PingRow, via: discord.Interaction | None = None) -> None:
        """A turn ping of the seats still waited for (all of them while the game is at the
        row's version); nothing once the game stopped waiting for them. A row queued before
        this process started also pings its ``movers`` still waited for (their panel may
        never have been shown: the answer to their move was lost in the crash)."""
        if record.status != "active" or record.paused:
            return
        seats = list(row.seats)
        if row.reminder:  # (a reminder of the deadline of its version only)
            if record.version == row.version:
                await self.composer.notify_turn(record, seats, reminder=True, nonce=row.nonce)
            return
        if row.created_at < self.transport.started:
            seats = sorted({*seats, *row.movers})
        if record.version != row.version:
            waiting = self.service.waiting(record)
            seats = [s for s in seats if s in waiting]
        if not seats:
            return
        # (the digest stops where this change began when its lines were posted just above;
        # folded into the board edit instead (``lean``), they are the latest news: the ping has them too)
        after = row.version if self.transport.lean else (row.version - 1 if row.after is None else row.after)
        await self.composer.deliver_ping(record, seats, after=after, version=row.version, nonce=row.nonce, via=via)

    async def _deliver_notice(self, record: GameRecord, row: NoticeRow) -> None:
        """A queued announcement (migration 010; ``bot.service.notice_payload``): its catalog
        messages in the server's language, pinging its ``mentions``; when the game waits for
        the seat of its ``turn``, that player's prompt, deadline and Play ▶ / My view too;
        posted with the row's nonce."""
        tx = self.boards.locales.public_texts(record)
        text = "".join(tx(Msg(key, dict(params))) for key, params in row.msgs)
        view: discord.ui.View | None = None
        if row.turn is not None and record.status == "active" and row.turn[0] in record.waiting:
            seat, user = row.turn
            prompt = tx(self.service.notation(record).public_prompt(self.service.state(record), seat))
            when = tx(Msg("ui.notice.timer", {"when": f"<t:{int(record.deadline)}:R>"})) \
                if record.deadline and timer_shown(record) else ""
            text += f"\n<@{user}> — {prompt}{when}"
            view = discord.ui.View(timeout=None)
            for verb in ("play", "hand"):
                view.add_item(BoardButton(record.id, record.version, verb, locale=tx.locale))
        await self.transport.post(record.home_channel_id, text, mentions=list(row.mentions), view=view,
                                  nonce=row.nonce)

    async def _deliver_answer(self, record: GameRecord, row: AnswerRow) -> None:
        """The answer to a typed move applied before a crash: the interaction's own
        (private) answer while its token is valid, else a line in the game's channel."""
        if row.token and self.service.clock() - row.at < TOKEN_LIFETIME - TOKEN_MARGIN:
            seat = record.seat_of(row.user)
            notes = [] if seat is None else await self.private_lines(record, seat, row)
            content = "\n".join([f"✓ {row.text}", *(f"🔒 {n}" for n in notes)])[:2000]
            if await self.transport.edit_original(row.app, row.token, content=content, view=None):
                return
            log.info("answer of game %s: the interaction is gone; answering in the channel", record.id)
        applied = self.boards.locales.public_texts(record)(Msg("ui.notice.applied", {"text": row.text}))
        await self.transport.post(record.home_channel_id, f"<@{row.user}> {applied}", mentions=[row.user],
                                  nonce=row.nonce)

    async def private_lines(self, record: GameRecord, seat: int, row: AnswerRow) -> list[str]:
        """The lines only ``seat`` may see among the entries of the move ``row`` answers."""
        tx = texts(record, self.boards.locales.of_user(record.user_of(seat) or 0, record.guild_id))
        return [tx.event(e) for entry in await self.repo.log(record.id, after=row.after, upto=row.version)
                for e in entry.events if e.get("visible_to") is not None and seat in e["visible_to"]]

    def retrying(self) -> list[asyncio.Task[None]]:
        """The retries of failed deliveries still waiting for their turn."""
        return self.retries.waiting()

    async def close(self) -> None:
        """Cancel the retries still waiting and stop the render workers (shutdown)."""
        await self.retries.close()
        await self.transport.renderer.close()
