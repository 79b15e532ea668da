"""Board edits (docs/DESIGN.md §5): one updater task per game draws the newest state and
edits the board message (rapid requests coalesce; a version already delivered or being drawn
is not drawn again), through the last Play ▶ token on it while one is held
(``bot.ui.tokens``), else with the bot token; a fresh board at the bottom when the old one
can no longer be edited or scrolled away; a game whose thread is gone goes on in its parent
channel. The board carries the public event lines since it was last drawn (``lean``), and
marks its outbox rows done only after Discord accepted it.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from cachetools import LRUCache

from bot import logsafe
from bot.render_pool import RenderJob
from bot.service import crash_point, drawn_view, entry_texts, live_entries, start_event
from bot.storage import LogEntry
from bot.text import locale_of
from bot.ui.locales import Locales
from bot.ui.look_menu import board_look
from bot.ui.panels import board_embed, board_view
from bot.ui.presence import Presence
from bot.ui.retries import Retries
from bot.ui.tokens import BOARD_TOKENS_KEPT, BoardTokens
from bot.ui.transport import NONCE_TRUSTED, Transport, board_buttons, transient
from engines.base import Msg

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.storage import GameRecord, Repository

log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003
"""Discord's code for a channel or thread that is gone (deleted): a game whose thread is
gone goes on in its parent channel (``Boards.thread_gone``)."""

EDIT_REFUSED_CODES = {30046, 10008}
"""Discord codes after which a board is re-posted: edit cap on old messages, unknown message."""

RECENT_LINES = 6
"""Public event lines the board message carries ("recent") at least. A change's lines are
folded into the board edit that follows it, which carries every line since the board last
drawn (up to ``BOARD_LINES_MAX``: the request budget)."""

RECENT_READ = max(40, RECENT_LINES * 8)
"""Log entries a board update reads for its ``RECENT_LINES`` (``recent_public_lines``)."""

BOARD_LINES_MAX = 24
"""At most this many event lines on one board edit: when a chain of moves (a last pick,
the reveals, AI and chance moves) is drawn by one coalesced board edit, the board carries
every line since the board last drawn, up to these (and ``BOARD_LINES_CHARS``); older ones
are posted just above it."""

BOARD_LINES_CHARS = 3000
"""At most this many characters of event lines on one board edit (the embed's description
holds 4096: the prompt, timer and vacations above them)."""

THUMBNAILS_KEPT = 16
"""Board thumbnails kept for DM turn notices (each 50-150 KB encoded), per game and language: a
notice follows its board update at once, so only the games that moved last need one, in the
languages of their readers."""


def board_carries(lines: Sequence[str]) -> int:
    """How many of the newest of ``lines`` (oldest first) one board edit carries: at most
    ``BOARD_LINES_MAX``, within ``BOARD_LINES_CHARS`` (each shown as "• line"); at least one
    of a non-empty list."""
    count, size = 0, 0
    for line in reversed(lines[-BOARD_LINES_MAX:]):
        size += len(line) + 3
        if size > BOARD_LINES_CHARS and count:
            break
        count += 1
    return count


class Boards:
    """The board messages of the games: drawn through ``transport`` (with ``tokens``), in the
    server's language (``locales``), from games read through ``service`` and ``repo``; a
    failed edit is tried again through ``retries``."""

    def __init__(self, transport: Transport, tokens: BoardTokens, presence: Presence, locales: Locales,
                 service: GameService, repo: Repository, retries: Retries) -> None:
        self.transport = transport
        self.tokens = tokens
        self.presence = presence
        self.locales = locales
        self.service = service
        self.repo = repo
        self.retries = retries
        self._dirty: dict[int, bool] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.board_thumbnails: LRUCache[tuple[int, str], tuple[int, tuple[bytes, str]]] = LRUCache(THUMBNAILS_KEPT)
        """Per game and catalog locale: the version and a small copy of the board last drawn in that
        language, encoded as ``(data, ext)`` (DM turn notices, sent right after it, are drawn in
        their reader's language; the newest ``THUMBNAILS_KEPT`` only)."""
        self._drawn: LRUCache[int, int] = LRUCache(BOARD_TOKENS_KEPT)
        """Per game: the newest version whose board this process delivered (Discord accepted the
        edit or the post); with ``_drawing`` (the version being drawn now), what lets
        ``request_board(game, version)`` skip a version already on its way (each drawn once)."""
        self._drawing: dict[int, int] = {}
        self._shown: LRUCache[int, int] = LRUCache(BOARD_TOKENS_KEPT)
        """Per game: the log seq up to which its public event lines are in the thread (on a
        board edit, or posted by a lines row); a cache of what the done board rows say
        (``_shown_upto``: after a restart, or once forgotten, read from the outbox)."""

    def shown(self, game: int) -> int:
        """The log seq up to which this process knows the public lines of ``game`` are in its
        thread (-1: none known)."""
        return self._shown.get(game, -1)

    async def _again(self, game: int) -> None:
        self.request_board(game)

    def request_board(self, game: int, version: int | None = None) -> None:
        """Ask for the board of ``game`` to be brought up to date. Rapid requests coalesce:
        one updater task per game renders the newest state, in order. ``version``: the board
        is due for that version only (a move just stored, or its outbox board row): nothing
        is asked when this process has delivered that version or newer, or is drawing it
        now, so a move asking for its board as soon as it is stored and again when its
        outbox is drained draws it once. Without ``version`` (settings, a
        deadline moved, a thread gone) the board is always drawn again."""
        if version is not None and max(self._drawn.get(game, -1), self._drawing.get(game, -1)) >= version:
            return
        self._dirty[game] = True
        task = self._tasks.get(game)
        if task is None or task.done():
            self._tasks[game] = asyncio.create_task(self._board_loop(game), name=f"board-{game}")

    async def board_settled(self, game: int) -> None:
        """Wait until the board update of ``game`` under way (if any) has finished."""
        task = self._tasks.get(game)
        if task is not None and not task.done():
            await asyncio.wait([task])

    def updating(self) -> list[asyncio.Task[None]]:
        """The board updates under way."""
        return [t for t in self._tasks.values() if not t.done()]

    async def _board_loop(self, game: int) -> None:
        logsafe.bind(game=game)
        while self._dirty.get(game):
            self._dirty[game] = False
            try:
                await self.update_board(game)
            except Exception as exc:  # a failed Discord call never rolls back a move; log and go on
                self._drawing.pop(game, None)
                if transient(exc):
                    log.warning("board update of game %s failed (%s); trying again later", game, exc)
                    self.retries.later(game, lambda: self._again(game))
                else:
                    log.exception("board update of game %s failed", game)
            self._drawing.pop(game, None)
        # (nothing left to draw: the game's entries go, so 1,000 games keep no tasks)
        self._dirty.pop(game, None)
        if self._tasks.get(game) is asyncio.current_task():
            del self._tasks[game]

    async def update_board(self, game: int) -> None:
        """Edit the game's board message to its newest state (replacing the image): through
        the last Play ▶ token on it while one is held (``board_token``), else with the bot
        token; or post a fresh board when there is none or the old one can no longer be
        edited. The board rows are marked done only after Discord accepted the edit, so a
        crash before it leaves them to ``resume``, which edits again (an edit twice shows
        the same board once)."""
        record, recent = await self._newest(game)
        if record.state is None:
            return
        self._drawing[game] = record.version  # (a request for this version meanwhile asks nothing more)
        unshown = await self._unshown_lines(record)
        embed, file, view = await self.board_payload(record, recent, unshown)
        if len(unshown) > board_carries(unshown):  # (older than the board can carry: posted just above it)
            await self.transport.post(record.home_channel_id, "\n".join(unshown[:-board_carries(unshown)]))
            await self.repost_board(record, embed=embed, file=file, view=view)
            return
        if record.board_message_id and record.board_channel_id and await self.transport.scroll.scrolled_away(record):
            await self.repost_board(record, embed=embed, file=file, view=view)
            return
        if record.board_message_id and record.board_channel_id:
            message = self.transport.channel(record.board_channel_id).get_partial_message(record.board_message_id)
            try:
                crash_point("before_board_edit")
                if not await self.tokens.edit_board(record, embed, file, view):
                    await message.edit(embed=embed, attachments=[file], view=view)
                crash_point("after_board_edit")
                self._note_drawn(game, record.version)
                await self.repo.boards_delivered(game, record.version)
                return
            except discord.HTTPException as exc:
                if getattr(exc, "code", None) not in EDIT_REFUSED_CODES and exc.status != 404:
                    raise
                log.info("board of game %s cannot be edited (%s); posting a fresh one", game, exc.code)
                embed, file, view = await self.board_payload(record)
        await self.post_board(record, embed=embed, file=file, view=view)

    async def _newest(self, game: int) -> tuple[GameRecord, list[LogEntry]]:
        """The game as stored now and its last ``RECENT_READ`` log entries, for its board: the
        record this process kept of the game while nothing wrote it since (``GameService.kept``:
        after a move, the record its commit read back), with the entries up to its version
        (held in memory after a move: ``LogTail``); else both read, in one trip.

        Raises:
            HostError: no such game.
        """
        kept = self.service.kept(game)
        if kept is not None:
            return kept, await self.repo.log(game, last=RECENT_READ, upto=kept.version)
        found, recent = await self.repo.game_with_log(game, last=RECENT_READ)  # (one trip for both)
        return found or await self.service.get(game), recent  # (none: the service's refusal)

    async def post_board(self, record: GameRecord, *, embed: discord.Embed | None = None,
                         file: discord.File | None = None, view: discord.ui.View | None = None) -> discord.Message:
        """Post a new board message in the game's home channel, store the pointer and mark
        the board rows of the outbox done; returns the message. The nonce of the oldest
        pending board row goes with it, so a board posted just before a crash is not posted twice.
        Discord then hands back that earlier message (``enforce_nonce``), which may show an
        older version than ``record``'s (drawn before a later move committed): it is edited to
        this board before the rows are marked done (``board_buttons``)."""
        if embed is None or file is None:
            embed, file, view = await self.board_payload(record)
        channel_id = record.home_channel_id
        kwargs: dict[str, Any] = {"embed": embed, "file": file}
        if view is not None:
            kwargs["view"] = view
        boards = [r for r in await self.repo.pending(record.id) if r.kind == "board"]
        if boards:
            kwargs["nonce"] = boards[0].nonce
        try:
            async with self.transport.channel_locks[channel_id]:
                found = None
                if boards and ((old := boards[0]).created_at < self.transport.started or old.attempts > 0) \
                        and self.transport.clock() - old.created_at > NONCE_TRUSTED:
                    found = await self.transport.posted_board(channel_id, record.id)
                if found is not None:  # (posted before a crash, its nonce too old to count on: that one)
                    message = await found.edit(embed=embed, attachments=[file], view=view)
                else:
                    message = await self.transport.channel(channel_id).send(**kwargs)
                    if boards and next((v for v, _ in board_buttons(message, record.id)), None) != record.version:
                        # (the nonce's board, posted before a crash, drawn from an older version:
                        # Discord hands that message back instead of posting this one)
                        file.reset()
                        message = await message.edit(embed=embed, attachments=[file], view=view)
                crash_point("after_board_post")
                self.transport.scroll.note_message(channel_id, message.id)
        except discord.NotFound as exc:
            moved = await self.thread_gone(record, exc, redraw=False)
            if moved is None:
                raise
            return await self.post_board(moved)  # (the file was read: drawn again)
        self._note_drawn(record.id, record.version)
        await self.repo.set_fields(record.id, board_channel_id=channel_id, board_message_id=message.id)
        await self.repo.boards_delivered(record.id, record.version)
        return message

    async def thread_gone(self, record: GameRecord, exc: discord.HTTPException, *,
                          redraw: bool = True) -> GameRecord | None:
        """When ``exc`` says the game's thread is gone (404 Unknown Channel, 10003;
        docs/DISCORD.md): the game goes on in its parent channel. Forgets the thread and the
        board message (stored), asks for a fresh board there (``redraw``: the caller posts
        it otherwise) and returns the record as it is now; None (nothing changed) for any other failure, or a game without a thread."""
        if getattr(exc, "code", None) != UNKNOWN_CHANNEL or record.thread_id is None:
            return None
        fresh = await self.service.get(record.id)
        if fresh.thread_id == record.thread_id:
            log.warning("the thread %s of game %s is gone; the game goes on in channel %s",
                        record.thread_id, record.id, record.channel_id)
            await self._say_thread_gone(record)
            await self.repo.set_fields(record.id, thread_id=None, board_channel_id=None, board_message_id=None)
            fresh = await self.service.get(record.id)
        self._shown.pop(record.id, None)
        self._drawn.pop(record.id, None)
        if redraw:
            self.request_board(record.id)
        return fresh

    async def _say_thread_gone(self, record: GameRecord) -> None:
        """Say once in the parent channel of ``record`` (whose thread is gone) that the game
        goes on there (``ui.notice.thread_gone``, the server's language; docs/DISCORD.md
        failure mode 16). Posted before the new place is stored, with a nonce made of the
        thread id: a crash in between posts it again and Discord drops the repeat. A failure
        is logged and changes nothing else."""
        text = self.locales.public_texts(record)(Msg("ui.notice.thread_gone"))
        try:
            await self.transport.post(record.channel_id, text, nonce=f"tg{record.thread_id}")
        except Exception as exc:  # (best effort: the game goes on either way)
            log.warning("game %s: the line about its deleted thread was not posted (%s)", record.id, exc)

    async def repost_board(self, record: GameRecord, *, embed: discord.Embed | None = None,
                           file: discord.File | None = None, view: discord.ui.View | None = None) -> discord.Message:
        """Post the board again at the bottom of its channel (``post_board``) and delete the
        one it replaces, so a game has one live board; returns the new message."""
        old = (record.board_channel_id, record.board_message_id)
        message = await self.post_board(record, embed=embed, file=file, view=view)
        if old[0] is not None and old[1] is not None and old[1] != message.id:
            await self.transport.delete_message(old[0], old[1])
        return message

    def wants_thumbnail(self, record: GameRecord) -> bool:
        """Whether a board update of ``record`` should also draw the board small: only when a
        person it waits for is away (``present``) and reads the server's language, so a DM turn
        notice (bot/ui/dm.py) will follow and carry this very copy. Otherwise the small copy is
        not made (6-8 ms a board); a notice that finds none draws its own, in its
        reader's language (``DirectMessages.board_thumbnail``)."""
        public = locale_of(self.locales.public(record.guild_id))
        return any(s.seat in record.waiting and s.status == "active" and not s.is_ai and not self.presence.present(s.user_id)
                   and locale_of(self.locales.of_user(s.user_id, record.guild_id)) == public
                   for s in record.seats)

    async def board_payload(self, record: GameRecord, recent: Sequence[LogEntry] | None = None,
                            unshown: list[str] | None = None
                            ) -> tuple[discord.Embed, discord.File, discord.ui.View | None]:
        """Embed, image file, buttons and "🔍 Look at…" of the public board (from the public view only).
        ``recent``: the last ``RECENT_READ`` log entries of ``record``'s version, when read
        already (``recent_public_lines``); ``unshown``: ``_unshown_lines(record)``, when made
        already. The board carries the newest ``board_carries(unshown)`` of the unshown lines
        (no log read), or the last ``RECENT_LINES`` lines when fewer are unshown and all fit."""
        service = self.service
        engine = service.engine(record)
        state = service.state(record)
        public = drawn_view(record, service.public_view(record))  # (read only: renderers never change a view)
        tx = self.locales.public_texts(record)
        job = RenderJob("board", record.game_id, public, tuple(tx.raw_names), tx.locale,
                        self.transport.upload_limit(record.guild_id), thumbnail=self.wants_thumbnail(record))
        done = await self.transport.renderer.run(job)
        assert done is not None  # every game draws a board
        if done.thumbnail is not None:
            self.board_thumbnails[record.id, tx.locale] = (record.version, done.thumbnail)
        file = discord.File(io.BytesIO(done.data), filename=f"board.{done.ext}")
        if unshown is None:
            unshown = await self._unshown_lines(record)
        carried = board_carries(unshown)  # (all of them, or the newest that fit: the rest posted above)
        if carried < len(unshown) or len(unshown) > RECENT_LINES:
            lines = unshown[-carried:]
        else:
            lines = await self.recent_public_lines(record, limit=RECENT_LINES, entries=recent)
        embed = board_embed(engine, record, state, image_name=file.filename or "board.png", recent=lines,
                            locale=tx.locale)
        return embed, file, board_view(record, locale=tx.locale, look=board_look(record, public, tx))

    def _note_drawn(self, game: int, version: int) -> None:
        """Discord accepted a board of ``game`` at ``version``: its lines are in the thread up
        to there (``note_shown``) and the version is delivered (``request_board``)."""
        self.note_shown(game, version)
        self._drawn[game] = max(self._drawn.get(game, -1), version)

    def note_shown(self, game: int, seq: int) -> None:
        """The public lines of ``game`` up to log seq ``seq`` are in the thread now."""
        self._shown[game] = max(self._shown.get(game, 0), seq)

    async def _shown_upto(self, game: int) -> int | None:
        """The log seq up to which the public lines of ``game`` are in its thread: ``_shown``,
        else (after a restart, or forgotten) the newest version a delivered board row of the
        game showed (``Repository.board_shown``: every change with a public line queues a
        board row, and a board marks its rows done only once Discord accepted it), so a
        restart neither repeats nor drops lines. None when no board row was ever delivered
        (a game older than the outbox): the board then carries the last ``RECENT_LINES``."""
        shown = self._shown.get(game)
        if shown is None:
            stored = await self.repo.board_shown(game)
            if stored is None:
                return None
            self.note_shown(game, stored)  # (max: a board drawn meanwhile may have noted more)
            shown = self._shown[game]
        return shown

    async def _unshown_lines(self, record: GameRecord) -> list[str]:
        """The public lines (as on the board: the start left out) of the log entries after
        the seq whose lines are in the thread (``_shown_upto``), up to the game's version:
        what the next board edit must carry. Empty when lines are posted on their own (not
        ``lean``)."""
        if not self.transport.lean:
            return []
        shown = await self._shown_upto(record.id)
        if shown is None or shown >= record.version:
            return []
        return [line for line, kind in await self._public_lines(record, shown, record.version)
                if kind not in ("start", "game_started")]

    async def recent_public_lines(self, record: GameRecord, limit: int = 6,
                                  entries: Sequence[LogEntry] | None = None) -> list[str]:
        """The last ``limit`` public event lines of a game up to its version (``record``'s:
        a move made since is not drawn yet; the start left out), names filled in: the
        board's "recent" list. ``entries``: the log's last ``RECENT_READ`` entries, when read
        already (used for up to ``RECENT_LINES`` lines; more are read afresh)."""
        if entries is None or limit > RECENT_LINES:
            entries = await self.repo.log(record.id, last=max(40, limit * 8), upto=record.version)
        txs = entry_texts(record, entries, self.locales.public(record.guild_id))  # (a move: who made it)
        kept: list[tuple[LogEntry, dict[str, Any]]] = []  # (the newest first; only these are formatted)
        # (taken back: its lines no longer describe the game; ``entries`` given: read with a newer game, maybe)
        for entry in reversed([e for e in live_entries(entries) if e.seq <= record.version]):
            kept += [(entry, e) for e in reversed(entry.events)
                     if e.get("visible_to") is None and e.get("kind") not in ("start", "game_started")]
            if len(kept) >= limit:
                break
        return [txs[entry.seq].event(e) for entry, e in reversed(kept[:limit])]

    async def public_lines(self, record: GameRecord, after: int, upto: int) -> list[str]:
        """The public event lines of the log entries ``after`` < seq ≤ ``upto``, names
        filled in; the start of the game has its line too."""
        return [line for line, _ in await self._public_lines(record, after, upto)]

    async def _public_lines(self, record: GameRecord, after: int, upto: int) -> list[tuple[str, Any]]:
        """``public_lines`` with each line's event kind (``"start"`` for the start line)."""
        lines: list[tuple[str, Any]] = []
        entries = await self.repo.log(record.id, after=after, upto=upto)
        txs = entry_texts(record, entries, self.locales.public(record.guild_id))  # (a move: who made it)
        for entry in live_entries(entries):  # (taken back before its lines went out: never shown)
            tx = txs[entry.seq]
            if entry.kind == "system" and entry.action.get("type") == "start":
                lines.append((tx.event(start_event(int(entry.action.get("players", 0))).to_json()), "start"))
            lines += [(tx.event(e), e.get("kind")) for e in entry.events if e.get("visible_to") is None]
        return lines
