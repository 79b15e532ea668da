"""The delivery layer: every message the bot posts or edits goes through here so
Discord's limits are kept (DISCORD.md): text split at 2000 characters, images fitted
under the upload limit, attachments replaced on edit, rapid board edits coalesced,
a fresh board message when the old one can no longer be edited, and closed DMs
tolerated. Uses the bot token (channel endpoints) for anything posted after the first
answer, but two ways through interactions, which Discord does not count against the bot
token's budget (docs/DISCORD.md "Interaction tokens"): pings and the end as follow-ups of
the mover's interaction (``post_via``), and the board edit through the token of the last
Play ▶ pressed on the board (``note_board_interaction``: answered by a deferred update, its
``@original`` is the board message for 15 minutes). A token this process does not hold
(a restart) or that Discord refuses falls back to the bot-token edit.

The outbox (docs/DESIGN.md §4): the service queues a move's deliveries in the move's
own transaction; ``flush(game)`` sends a game's pending rows in order and marks each
done only after Discord accepted it; ``resume()`` does the same for every game at start,
and a failed delivery is tried again later (``retry_delays``). Messages carry a nonce
(Discord's ``enforce_nonce``), so a message re-sent after a crash between Discord's
answer and the mark is not posted twice. Board rows coalesce: one edit shows the newest
version and marks every older board row done.

Order (docs/DESIGN.md §5): every message to a channel goes through one ordered queue per
channel (``post``), and a game's rows are sent one after another, so the public lines of
a game reach the channel in log order even while Discord rate-limits and discord.py
sleeps and retries.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import io
import logging
import re
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from cachetools import LRUCache

from bot import logsafe
from bot.locks import KeyedLocks
from bot.render_pool import Kind, Renderer, RenderJob
from bot.service import crash_point, drawn_view, entry_texts, live_entries, seat_names, texts
from bot.storage import LogEntry, OutboxRow, StorageError
from bot.text import Texts, locale_of
from bot.ui.limits import DEFAULT_UPLOAD, split_text
from bot.ui.locales import Locales
from engines.base import Msg

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.storage import GameRecord, Repository
    from bot.ui.notices import Notices

log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003
"""Discord's code for a channel or thread that is gone (deleted): a game whose thread is
gone goes on in its parent channel (``Delivery.thread_gone``)."""

EDIT_REFUSED_CODES = {30046, 10008}
"""Discord codes after which a board is re-posted: edit cap on old messages, unknown message."""

BOARD_SCROLL = 8
"""Messages after the board message after which the next board update re-posts it at the
bottom and deletes the old one (a phone player finds the board a swipe away)."""

RECENT_LINES = 6
"""Public event lines the board message carries ("recent") at least. A change's lines are
folded into the board edit that follows it, which carries every line since the board last
drawn (up to ``BOARD_LINES_MAX``; the request budget, bench/requests.py)."""

RECENT_READ = max(40, RECENT_LINES * 8)
"""Log entries a board update reads for its ``RECENT_LINES`` (``recent_public_lines``)."""

BOARD_LINES_MAX = 24
"""At most this many event lines on one board edit: when a chain of moves (a last pick,
the reveals, AI and chance moves) is drawn by one coalesced board edit, the board carries
every line since the board last drawn, up to these (and ``BOARD_LINES_CHARS``); older ones
are posted just above it (lines of a chain went missing from the thread)."""

BOARD_LINES_CHARS = 3000
"""At most this many characters of event lines on one board edit (the embed's description
holds 4096: the prompt, timer and vacations above them)."""


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


SEEN_MESSAGES = 64
WATCHED_CHANNELS = 4096
"""Channels whose newest messages are counted (least recently used forgotten first)."""
KNOWN_USERS = 65536
"""Users whose DM channel id and last interaction are remembered (least recent forgotten)."""
"""Message ids remembered per channel to count what came after a board (``scrolled_away``)."""

NONCE_TRUSTED = 120.0
"""Seconds a message's nonce is trusted to make Discord drop a repeat (Discord keeps a nonce
for a few minutes): a row older than this that may have gone out already (left by a crash, or
tried before) is looked for in the channel before it is posted again."""

RECHECK_MESSAGES = 20
"""Messages read back to find a ping or end a crash left pending that went out as an
interaction follow-up (no nonce): Discord cannot drop that repeat, so the bot looks first."""

DM_AWAY = 300.0
"""Default seconds after a player's last interaction with the bot after which they count
as away: DM hands and DM turn notices go only to players who are away (the thread ping
reaches a player at the table). 0 = always DM (settings: DM_AWAY_SECONDS)."""

RETRY_DELAYS = (1.0, 2.0, 5.0, 15.0, 60.0)
"""Seconds before a game's outbox is drained again after its n-th failed delivery in a row."""

TOKEN_LIFETIME = 15 * 60.0
TOKEN_MARGIN = 60.0
"""An interaction token works for 15 minutes; an answer is sent through it only while at
least ``TOKEN_MARGIN`` seconds are left, else in the game's channel."""

TRANSIENT = (discord.RateLimited, discord.DiscordServerError, aiohttp.ClientError, OSError,
             asyncio.TimeoutError, StorageError)
"""Failures after which a delivery is tried again later (anything else is refused for good)."""


def transient(exc: BaseException) -> bool:
    """True when a failed delivery may succeed later: network trouble, a 5xx, a rate limit
    beyond discord.py's patience, a 429, or storage that could not mark it done."""
    if isinstance(exc, discord.HTTPException) and exc.status == 429:
        return True
    return isinstance(exc, TRANSIENT)


BOARD_TOKENS_KEPT = 4096
"""Games whose last Play ▶ token on the board is remembered (least recently used forgotten:
a forgotten token costs one bot-token edit)."""


@dataclasses.dataclass(frozen=True)
class BoardToken:
    """The interaction of a Play ▶ press on a board message, answered by a deferred update
    (type 6), so its ``@original`` is that board message: ``app`` and ``token`` address the
    webhook, ``message_id`` is the board it was pressed on, ``at`` when (the service's clock,
    seconds; it works ``TOKEN_LIFETIME`` seconds)."""

    app: int
    token: str
    message_id: int
    at: float


THUMBNAILS_KEPT = 16
"""Board thumbnails kept for DM turn notices (each 50-150 KB encoded), per game and language: a
notice follows its board update at once, so only the games that moved last need one, in the languages of their readers."""



class Delivery:
    """Posts and edits messages through ``client`` (channels, guilds and users by id);
    reads games through ``service`` and stores board pointers in ``repo``; one board
    updater task per game."""

    def __init__(self, client: discord.Client, service: GameService, repo: Repository) -> None:
        self.client = client
        self.service = service
        self.repo = repo
        self._dirty: dict[int, bool] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.renderer = Renderer(0)
        """Draws and encodes the images (bot/render_pool.py): in threads until the bot gives
        it worker processes (``Settings.render_workers``)."""
        self._seen_limits: dict[int, int] = {}
        self.board_thumbnails: LRUCache[tuple[int, str], tuple[int, tuple[bytes, str]]] = LRUCache(THUMBNAILS_KEPT)
        """Per game and catalog locale: the version and a small copy of the board last drawn in that
        language, encoded as ``(data, ext)`` (DM turn notices, sent right after it, are drawn in
        their reader's language; the newest ``THUMBNAILS_KEPT`` only)."""
        self.notices: Notices | None = None
        self.started = service.clock()
        """When this process started (a ping row older than that is sent after a restart)."""
        """Composes turn pings and the end (set by ``Notices``); rows wait while None."""
        self.retry_delays: Sequence[float] = RETRY_DELAYS
        self._game_locks: KeyedLocks[int] = KeyedLocks()
        self._channel_locks: KeyedLocks[int] = KeyedLocks()
        self._claimed: set[str] = set()
        self._failures: dict[int, int] = {}
        self._retries: dict[int, asyncio.Task[None]] = {}
        self._resuming: asyncio.Task[list[int]] | None = None
        self.locales = Locales(client)
        """The languages of servers and users (public messages use the server's)."""
        # (bounded: a channel forgotten costs one history request, a DM channel one open,
        # a user forgotten counts as away)
        self._seen: LRUCache[int, collections.deque[int]] = LRUCache(WATCHED_CHANNELS)
        self._seen_from: LRUCache[int, int] = LRUCache(WATCHED_CHANNELS)
        self._dm_channels: LRUCache[int, int] = LRUCache(KNOWN_USERS)
        self.last_seen: LRUCache[int, float] = LRUCache(KNOWN_USERS)
        """Per user id: when they last interacted with the bot (``note_interaction``)."""
        self.away_after: float = DM_AWAY
        """Seconds without an interaction after which a player is away (``present``)."""
        self.lean = True
        """Lines ride on the board edit, pings and the end go through the mover's
        interaction (settings ``LEAN_REQUESTS``); False: all posted with the bot token."""
        self.board_tokens: LRUCache[int, BoardToken] = LRUCache(BOARD_TOKENS_KEPT)
        """Per game: the last Play ▶ pressed on its board (``note_board_interaction``), whose
        token edits the board for free; in memory only (a restart falls back to the bot token)."""
        self._drawn: LRUCache[int, int] = LRUCache(BOARD_TOKENS_KEPT)
        """Per game: the newest version whose board this process delivered (Discord accepted the
        edit or the post); with ``_drawing`` (the version being drawn now), what lets
        ``request_board(game, version)`` skip a version already on its way (each drawn once)."""
        self._drawing: dict[int, int] = {}
        self._shown: LRUCache[int, int] = LRUCache(BOARD_TOKENS_KEPT)
        """Per game: the log seq up to which its public event lines are in the thread (on a
        board edit, or posted by a lines row); a cache of what the done board rows say
        (``_shown_upto``: after a restart, or once forgotten, read from the outbox)."""
        self._recheck: set[str] = set()
        """Nonces of rows a crash left that may have gone out as an interaction follow-up
        (which carries no nonce): ``post`` looks for them in the channel first."""

    # ------------------------------------------------------------------ basics
    def public_texts(self, record: GameRecord) -> Texts:
        """The formatter of ``record``'s public messages and boards: its server's language."""
        return texts(record, self.locales.public(record.guild_id))

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        """A messageable for a channel or thread id (works after a restart, without cache)."""
        return self.client.get_partial_messageable(channel_id)

    def upload_limit(self, guild_id: int | None) -> int:
        """The guild's upload limit in bytes: ``guild.filesize_limit`` (from its boost tier;
        10 MiB when unknown), lowered to the ``attachment_size_limit`` Discord last sent with
        an interaction from that guild (the authoritative value; see ``note_interaction``)."""
        guild = self.client.get_guild(guild_id) if guild_id else None
        limit = guild.filesize_limit if guild is not None else DEFAULT_UPLOAD
        seen = self._seen_limits.get(guild_id or 0)
        return min(limit, seen) if seen else limit

    def note_interaction(self, interaction: discord.Interaction) -> None:
        """Remember the upload limit Discord states on every interaction
        (``attachment_size_limit``), so boards edited later by the clock fit it too."""
        limit = getattr(interaction, "filesize_limit", None)
        if interaction.guild_id and isinstance(limit, int) and limit > 0:
            self._seen_limits[interaction.guild_id] = limit
        self.last_seen[interaction.user.id] = self.service.clock()

    def note_board_interaction(self, record: GameRecord, interaction: discord.Interaction) -> None:
        """Remember ``interaction`` as ``record``'s board token when it is a component press on
        the game's board message answered by a deferred update (``@original`` is then the board
        message: ``update_board`` edits it through the webhook, not counted against the bot
        token's budget). Anything else (a press on a ping or in a DM, a slash command, a
        thinking defer) is not remembered. Only while ``lean``."""
        message = interaction.message
        if (not self.lean or interaction.type != discord.InteractionType.component or message is None
                or message.id != record.board_message_id or interaction.response.type
                != discord.InteractionResponseType.deferred_message_update):
            return
        self.board_tokens[record.id] = BoardToken(int(interaction.application_id), interaction.token, message.id,
                                                  interaction.created_at.timestamp())

    def board_token(self, record: GameRecord) -> BoardToken | None:
        """The remembered board token of ``record`` while it can still edit its current board
        message (``TOKEN_MARGIN`` left of its ``TOKEN_LIFETIME``), else None (and forgotten)."""
        held = self.board_tokens.get(record.id)
        if held is None:
            return None
        if held.message_id != record.board_message_id or \
                self.service.clock() - held.at >= TOKEN_LIFETIME - TOKEN_MARGIN:
            self.board_tokens.pop(record.id, None)
            return None
        return held

    async def _edit_board_via_token(self, record: GameRecord, embed: discord.Embed, file: discord.File,
                                    view: discord.ui.View | None) -> bool:
        """Edit ``record``'s board message through its board token (``board_token``): True when
        Discord accepted it. False when there is no usable token or Discord refused it for
        good (401 Invalid Webhook Token, 404 Unknown Webhook / Message, an edit cap…): the
        token is forgotten and the caller edits with the bot token (``file`` rewound).

        Raises:
            discord.HTTPException: a failure that may pass (5xx, 429); the board loop retries.
        """
        held = self.board_token(record)
        if held is None:
            return False
        webhook = discord.Webhook.partial(held.app, held.token, client=self.client)
        try:
            await webhook.edit_message("@original", embed=embed, attachments=[file],  # type: ignore[call-overload]
                                       view=view)
            return True
        except discord.HTTPException as exc:
            if transient(exc) or exc.status >= 500:
                raise
            log.info("board of game %s: its Play ▶ token is refused (%s %s); editing with the bot token",
                     record.id, exc.status, exc.code)
            self.board_tokens.pop(record.id, None)
            file.reset()
            return False

    def present(self, user_id: int) -> bool:
        """True when ``user_id`` interacted with the bot less than ``away_after`` seconds ago
        (they are at the table: no DM hand edits or DM turn notices for them; the thread ping
        mentions them). Always False when ``away_after`` is 0."""
        seen = self.last_seen.get(user_id)
        return bool(self.away_after) and seen is not None and self.service.clock() - seen < self.away_after

    def note_message(self, channel_id: int, message_id: int) -> None:
        """Count a message that appeared in a channel (the bot's own posts, and others' from
        the gateway): the board's distance from the bottom (``scrolled_away``) is known
        without reading the channel's history."""
        seen = self._seen.get(channel_id)
        if seen is None or channel_id not in self._seen_from:
            seen = self._seen[channel_id] = collections.deque(maxlen=SEEN_MESSAGES)
            self._seen_from[channel_id] = message_id
        if message_id not in seen:  # (the bot's own posts come back through the gateway too)
            seen.append(message_id)

    def note_deleted(self, channel_id: int, message_id: int) -> None:
        """Forget a message that was deleted (it no longer pushes the board up)."""
        seen = self._seen.get(channel_id)
        if seen is not None and message_id in seen:
            seen.remove(message_id)

    async def dm_channel(self, user_id: int) -> discord.PartialMessageable:
        """The DM channel with ``user_id``: opened once (one request), then known by id, so a
        DM costs no user fetch.

        Raises:
            discord.HTTPException: Discord refused to open it.
        """
        channel_id = self._dm_channels.get(user_id)
        if channel_id is None:
            channel = await self.client.create_dm(discord.Object(user_id))
            channel_id = self._dm_channels[user_id] = channel.id
        return self.client.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    async def render_file(self, kind: Kind, record: GameRecord, view: dict[str, Any], locale: str, name: str,
                          limit: int, region: str = "") -> discord.File | None:
        """Draw ``kind`` (bot/render_pool.py ``Kind``) of ``record``'s game from ``view`` with its
        names in ``locale``, encoded under ``limit`` bytes, in the render workers (a private
        kind does not wait behind boards); a ``discord.File`` named ``name.png`` or
        ``name.jpg``, or None when the game draws nothing for it. ``region``: the part drawn by a
        ``zoom`` job.

        Raises:
            whatever the renderer raised (a worker's exception comes back as it was).
        """
        job = RenderJob(kind, record.game_id, view, tuple(seat_names(record, locale)), locale, limit, region=region)
        done = await self.renderer.run(job)
        if done is None:
            return None
        return discord.File(io.BytesIO(done.data), filename=f"{name}.{done.ext}")

    async def post(self, channel_id: int, text: str, *, mentions: Sequence[int] = (),
                   view: discord.ui.View | None = None, nonce: str | None = None) -> discord.Message:
        """Post ``text`` split into ≤2000-character messages through the channel's ordered
        queue; the view goes on the last. Only ``mentions`` (user ids) are pinged. With a
        ``nonce`` (≤ 22 characters) each part carries ``nonce`` + its index, so Discord
        drops a repeat. Every message of the bot to a channel goes through here.

        Returns:
            The last message.

        Raises:
            discord.HTTPException (and network errors): Discord did not accept a part;
                the parts before it were posted.
        """
        chunks = split_text(text) or ["\u200b"]
        allowed = discord.AllowedMentions(users=[discord.Object(u) for u in mentions], roles=False,
                                          everyone=False)
        last: discord.Message | None = None
        if nonce is not None and nonce in self._recheck:
            self._recheck.discard(nonce)
            found = await self._already_posted(channel_id, chunks[-1])
            if found is not None:
                log.info("channel %s: a message of a row left by a crash was already posted; not again", channel_id)
                return found
        async with self._channel_locks[channel_id]:
            for i, chunk in enumerate(chunks):
                kwargs: dict[str, Any] = {"allowed_mentions": allowed}
                if view is not None and i == len(chunks) - 1:
                    kwargs["view"] = view
                if nonce is not None:
                    kwargs["nonce"] = f"{nonce}{i}"
                last = await self.channel(channel_id).send(chunk, **kwargs)
                self.note_message(channel_id, last.id)
        assert last is not None
        return last

    async def _posted_board(self, channel_id: int, game: int) -> discord.Message | None:
        """The bot's newest board message of ``game`` (one carrying its Rules button: a ping
        carries Play ▶ alone) among the channel's last ``RECHECK_MESSAGES``, or None (one history
        read; only for board rows a crash left)."""
        me = self.client.user
        board = re.compile(rf"g:{game}:\d+:rules")
        try:
            async for message in self.channel(channel_id).history(limit=RECHECK_MESSAGES):
                if me is not None and message.author.id == me.id and any(
                        board.fullmatch(str(getattr(c, "custom_id", "") or ""))
                        for row in message.components for c in getattr(row, "children", [row])):
                    return message
        except discord.HTTPException as exc:
            log.info("channel %s history not read (%s); posting", channel_id, exc)
        return None

    async def _already_posted(self, channel_id: int, text: str) -> discord.Message | None:
        """The bot's message with content ``text`` among the channel's last
        ``RECHECK_MESSAGES``, or None (one history read; only for rows a crash left)."""
        me = self.client.user
        try:
            async for message in self.channel(channel_id).history(limit=RECHECK_MESSAGES):
                if me is not None and message.author.id == me.id and message.content == text:
                    return message
        except discord.HTTPException as exc:
            log.info("channel %s history not read (%s); posting", channel_id, exc)
        return None

    def usable(self, via: discord.Interaction | None, channel_id: int) -> bool:
        """True when a public message to ``channel_id`` can go through the interaction ``via``
        (a follow-up: not counted against the bot token's budget): a component interaction
        (answered by a deferred update, so a follow-up is a new message) in that very
        channel whose token has ``TOKEN_MARGIN`` left."""
        if not self.lean or via is None or via.type != discord.InteractionType.component or via.channel_id != channel_id:
            return False
        return self.service.clock() - via.created_at.timestamp() < TOKEN_LIFETIME - TOKEN_MARGIN

    async def post_via(self, via: discord.Interaction | None, channel_id: int, text: str, *,
                       mentions: Sequence[int] = (), view: discord.ui.View | None = None,
                       nonce: str | None = None) -> discord.Message:
        """``post``, through the interaction ``via`` as follow-ups when it is ``usable``
        (answer through the interaction where one exists), in the channel's
        ordered queue; else, or when the follow-up fails, with the bot token (``nonce``). A
        follow-up carries no nonce: after a crash between it and the mark, the row's retry
        first looks for the message in the channel (``_already_posted``).

        Raises:
            discord.HTTPException (and network errors): as ``post``.
        """
        if via is not None and self.usable(via, channel_id):
            chunks = split_text(text) or ["\u200b"]
            allowed = discord.AllowedMentions(users=[discord.Object(u) for u in mentions], roles=False,
                                              everyone=False)
            try:
                async with self._channel_locks[channel_id]:
                    last: discord.Message | None = None
                    for i, chunk in enumerate(chunks):
                        kwargs: dict[str, Any] = {"allowed_mentions": allowed, "wait": True}
                        if view is not None and i == len(chunks) - 1:
                            kwargs["view"] = view
                        last = await via.followup.send(chunk, **kwargs)
                        self.note_message(channel_id, last.id)
                assert last is not None
                return last
            except discord.HTTPException as exc:
                if i > 0:
                    raise
                log.info("follow-up in channel %s refused (%s); posting with the bot token", channel_id, exc)
        return await self.post(channel_id, text, mentions=mentions, view=view, nonce=nonce)

    async def send_text(self, channel_id: int, text: str, *, mentions: Sequence[int] = (),
                        view: discord.ui.View | None = None) -> discord.Message | None:
        """``post``, for messages that may be lost: returns the last message, or None on
        failure (logged as a warning)."""
        try:
            return await self.post(channel_id, text, mentions=mentions, view=view)
        except discord.HTTPException as exc:
            log.warning("could not post in channel %s: %s", channel_id, exc)
            return None

    async def dm(self, user_id: int, text: str, *, nonce: str | None = None) -> bool:
        """Optional DM notification; False (and no error) when DMs are closed (50007).
        ``nonce`` makes a repeat a no-op (see ``post``)."""
        try:
            channel = await self.dm_channel(user_id)
            if nonce is not None:
                await channel.send(text[:2000], nonce=nonce)
            else:
                await channel.send(text[:2000])
            return True
        except discord.HTTPException as exc:
            log.info("DM to %s not delivered (%s); the game goes on", user_id, getattr(exc, "code", exc))
            return False

    # ------------------------------------------------------------------ boards
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

    async def drain(self) -> None:
        """Wait until every pending board update, and the start-up drain of the outbox,
        has been delivered (tests, shutdown); retries still waiting are not awaited."""
        while True:
            pending: list[asyncio.Task[Any]] = [t for t in self._tasks.values() if not t.done()]
            if self._resuming is not None and not self._resuming.done():
                pending.append(self._resuming)
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    def retrying(self) -> list[asyncio.Task[Any]]:
        """The retries of failed deliveries still waiting for their turn (``retry_delays``)."""
        return [t for t in self._retries.values() if not t.done()]

    async def close(self) -> None:
        """Cancel the retries still waiting and stop the render workers (shutdown)."""
        for task in list(self._retries.values()):
            task.cancel()
        for task in list(self._retries.values()):
            with contextlib.suppress(BaseException):
                await task
        await self.renderer.close()

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
                    self._retry_later(game)
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
        found, recent = await self.repo.game_with_log(game, last=RECENT_READ)  # (one trip for both)
        record = found or await self.service.get(game)  # (none: the service's refusal)
        if record.state is None:
            return
        self._drawing[game] = record.version  # (a request for this version meanwhile asks nothing more)
        unshown = await self._unshown_lines(record)
        embed, file, view = await self.board_payload(record, recent, unshown)
        if len(unshown) > board_carries(unshown):  # (older than the board can carry: posted just above it)
            await self.post(record.home_channel_id, "\n".join(unshown[:-board_carries(unshown)]))
            await self.repost_board(record, embed=embed, file=file, view=view)
            return
        if record.board_message_id and record.board_channel_id and await self.scrolled_away(record):
            await self.repost_board(record, embed=embed, file=file, view=view)
            return
        if record.board_message_id and record.board_channel_id:
            message = self.channel(record.board_channel_id).get_partial_message(record.board_message_id)
            try:
                crash_point("before_board_edit")
                if not await self._edit_board_via_token(record, embed, file, view):
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

    async def scrolled_away(self, record: GameRecord) -> bool:
        """True when ``BOARD_SCROLL`` messages or more came after the board message in its
        channel (the board follows the conversation). Counted from the messages
        this process saw appear there (``note_message``); one history request only when it
        has not watched the channel since the board was posted (after a restart), which
        then fills the count in."""
        channel_id, board = record.board_channel_id, record.board_message_id
        assert channel_id is not None and board is not None
        seen, since = self._seen.get(channel_id), self._seen_from.get(channel_id)
        if seen is not None and since is not None and since <= board:
            newer = sum(1 for m in seen if m > board)
            return newer >= BOARD_SCROLL or (len(seen) == seen.maxlen and seen[0] > board)
        try:
            ids = sorted([m.id async for m in self.channel(channel_id).history(
                limit=BOARD_SCROLL, after=discord.Object(board))])
        except discord.HTTPException as exc:
            log.info("history of channel %s not read (%s); the board stays", channel_id, exc)
            return False
        if len(ids) < BOARD_SCROLL:  # every message after the board is known now: watch from it
            known = sorted({*(seen or ()), *ids})
            self._seen[channel_id] = collections.deque(known, maxlen=SEEN_MESSAGES)
            self._seen_from[channel_id] = board
        return len(ids) >= BOARD_SCROLL

    async def delete_message(self, channel_id: int, message_id: int) -> None:
        """Delete a message of the bot's (best effort: a failure is logged)."""
        try:
            await self.channel(channel_id).get_partial_message(message_id).delete()
            self.note_deleted(channel_id, message_id)
        except discord.HTTPException as exc:
            log.info("message %s not deleted (%s)", message_id, exc)

    async def post_board(self, record: GameRecord, *, embed: discord.Embed | None = None,
                         file: discord.File | None = None, view: discord.ui.View | None = None) -> discord.Message:
        """Post a new board message in the game's home channel, store the pointer and mark
        the board rows of the outbox done; returns the message. The nonce of the oldest
        pending board row goes with it, so a board posted just before a crash is not posted twice."""
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
            async with self._channel_locks[channel_id]:
                found = None
                if boards and ((old := boards[0]).created_at < self.started or old.attempts > 0) \
                        and self.service.clock() - old.created_at > NONCE_TRUSTED:
                    found = await self._posted_board(channel_id, record.id)
                if found is not None:  # (posted before a crash, its nonce too old to count on: that one)
                    message = await found.edit(embed=embed, attachments=[file], view=view)
                else:
                    message = await self.channel(channel_id).send(**kwargs)
                self.note_message(channel_id, message.id)
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
        text = self.public_texts(record)(Msg("ui.notice.thread_gone"))
        try:
            await self.post(record.channel_id, text, nonce=f"tg{record.thread_id}")
        except Exception as exc:  # (best effort: the game goes on either way)
            log.warning("game %s: the line about its deleted thread was not posted (%s)", record.id, exc)

    async def repost_board(self, record: GameRecord, *, embed: discord.Embed | None = None,
                           file: discord.File | None = None, view: discord.ui.View | None = None) -> discord.Message:
        """Post the board again at the bottom of its channel (``post_board``) and delete the
        one it replaces, so a game has one live board; returns the new message."""
        old = (record.board_channel_id, record.board_message_id)
        message = await self.post_board(record, embed=embed, file=file, view=view)
        if old[0] is not None and old[1] is not None and old[1] != message.id:
            await self.delete_message(old[0], old[1])
        return message

    def wants_thumbnail(self, record: GameRecord) -> bool:
        """Whether a board update of ``record`` should also draw the board small: only when a
        person it waits for is away (``present``) and reads the server's language, so a DM turn
        notice (bot/ui/dm.py) will follow and carry this very copy. Otherwise the small copy is
        not made (6-8 ms a board); a notice that finds none draws its own, in its
        reader's language (``DirectMessages.board_thumbnail``)."""
        public = locale_of(self.locales.public(record.guild_id))
        return any(s.seat in record.waiting and s.status == "active" and not s.is_ai and not self.present(s.user_id)
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
        from bot.ui.looks import board_look  # (looks → panels → components → context → delivery)
        from bot.ui.panels import board_embed, board_view  # (panels → components → context → delivery)

        service = self.service
        engine = service.engine(record)
        state = service.state(record)
        public = drawn_view(record, service.public_view(record))  # (read only: renderers never change a view)
        tx = self.public_texts(record)
        job = RenderJob("board", record.game_id, public, tuple(tx.raw_names), tx.locale,
                        self.upload_limit(record.guild_id), thumbnail=self.wants_thumbnail(record))
        done = await self.renderer.run(job)
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
        to there (``_note_shown``) and the version is delivered (``request_board``)."""
        self._note_shown(game, version)
        self._drawn[game] = max(self._drawn.get(game, -1), version)

    def _note_shown(self, game: int, seq: int) -> None:
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
            self._note_shown(game, stored)  # (max: a board drawn meanwhile may have noted more)
            shown = self._shown[game]
        return shown

    async def _unshown_lines(self, record: GameRecord) -> list[str]:
        """The public lines (as on the board: the start left out) of the log entries after
        the seq whose lines are in the thread (``_shown_upto``), up to the game's version:
        what the next board edit must carry. Empty when lines are posted on their own (not
        ``lean``)."""
        if not self.lean:
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
        lines: list[str] = []
        if entries is None or limit > RECENT_LINES:
            entries = await self.repo.log(record.id, last=max(40, limit * 8), upto=record.version)
        txs = entry_texts(record, entries, self.locales.public(record.guild_id))  # (a move: who made it)
        for entry in live_entries(entries):  # (taken back: its lines no longer describe the game)
            if entry.seq > record.version:  # (``entries`` given: read with a newer game, maybe)
                break
            for e in entry.events:
                if e.get("visible_to") is None and e.get("kind") not in ("start", "game_started"):
                    lines.append(txs[entry.seq].event(e))
        return lines[-limit:]

    # ------------------------------------------------------------------ outbox
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
                    self._retry_later(game)
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
            if self.notices is not None:
                await self.notices.update_hands(game)

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

    def _retry_later(self, game: int) -> None:
        task = self._retries.get(game)
        if task is not None and not task.done():
            return
        count = self._failures.get(game, 0)
        self._failures[game] = count + 1
        delay = self.retry_delays[min(count, len(self.retry_delays) - 1)]
        self._retries[game] = asyncio.create_task(self._retry(game, delay), name=f"outbox-retry-{game}")

    async def _retry(self, game: int, delay: float) -> None:
        await asyncio.sleep(delay)
        self._retries.pop(game, None)
        await self.flush(game)

    async def _drain_game(self, game: int, via: discord.Interaction | None = None) -> None:
        rows, record = await self.repo.pending_of(game)  # (one trip for both)
        if not rows:
            self._failures.pop(game, None)
            return
        if record is None:
            return
        newest_board = max((row.version for row in rows if row.kind == "board"), default=None)
        board_asked = False
        for row in rows:
            if row.kind == "board":
                if not board_asked and newest_board is not None:  # one board update shows the newest
                    self.request_board(game, newest_board)  # version: rows coalesce (none when on its way)
                    board_asked = True
                continue
            if row.kind == "answer" and row.payload.get("token") in self._claimed:
                continue
            if self.notices is None and row.kind in ("ping", "end"):
                return  # (no composer yet: wait, keeping the order)
            if row.kind in ("ping", "end") and row.created_at < self.started and self.lean:
                self._recheck.add(row.nonce)  # (it may have gone out as a follow-up before the crash)
            elif ((row.created_at < self.started or row.attempts > 0)
                  and self.service.clock() - row.created_at > NONCE_TRUSTED):
                self._recheck.add(row.nonce)  # (it may have gone out, and its nonce is too old to count on)
            try:
                try:
                    await self._deliver(record, row, via)
                except discord.NotFound as exc:
                    moved = await self.thread_gone(record, exc)
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
        self._failures.pop(game, None)

    async def _deliver(self, record: GameRecord, row: OutboxRow, via: discord.Interaction | None = None) -> None:
        """Send one outbox row (not a board row) to Discord."""
        log.debug("outbox row %s (%s, v%s) of game %s at v%s", row.id, row.kind, row.version, record.id, record.version)
        if row.kind == "lines":  # folded into the board edit that follows (``lean``), else posted
            if self._shown.get(record.id, -1) >= row.version:  # (a board drawn since carries them)
                return
            if self.lean and record.board_message_id:  # (the board edit carries every line since it was last drawn)
                return
            lines = await self.public_lines(record, int(row.payload.get("after", 0)), row.version)
            if lines:
                await self.post(record.home_channel_id, "\n".join(lines), nonce=row.nonce)
            self._note_shown(record.id, row.version)
        elif row.kind == "ping":
            await self._deliver_ping(record, row, via)
        elif row.kind == "end":
            assert self.notices is not None
            outcome = self.service.engine(record).outcome(self.service.state(record))
            if outcome is not None:
                text, winners, view = self.notices.end_message(record, outcome)
                await self.post_via(via, record.home_channel_id, text, mentions=winners, view=view, nonce=row.nonce)
        elif row.kind == "answer":
            await self._deliver_answer(record, row)
        elif row.kind == "notice":
            await self._deliver_notice(record, row)

    async def _deliver_ping(self, record: GameRecord, row: OutboxRow, via: discord.Interaction | None = None) -> None:
        """A turn ping of the seats still waited for (all of them while the game is at the
        row's version); nothing once the game stopped waiting for them. A row queued before
        this process started also pings its ``movers`` still waited for (their panel may
        never have been shown: the answer to their move was lost in the crash)."""
        assert self.notices is not None
        if record.status != "active" or record.paused:
            return
        seats = [int(s) for s in row.payload.get("seats", [])]
        if row.payload.get("reminder"):  # (a reminder of the deadline of its version only)
            if record.version == row.version:
                await self.notices.notify_turn(record, seats, reminder=True, nonce=row.nonce)
            return
        if row.created_at < self.started:
            seats = sorted({*seats, *(int(s) for s in row.payload.get("movers", []))})
        if record.version != row.version:
            waiting = self.service.waiting(record)
            seats = [s for s in seats if s in waiting]
        if not seats:
            return
        # (the digest stops where this change began when its lines were posted just above;
        # folded into the board edit instead (``lean``), they are the latest news: the ping has them too)
        after = row.version if self.lean else int(row.payload.get("after", row.version - 1))
        await self.notices.deliver_ping(record, seats, after=after, version=row.version, nonce=row.nonce, via=via)

    async def _deliver_notice(self, record: GameRecord, row: OutboxRow) -> None:
        """A queued announcement (migration 010; ``bot.service.notice_payload``): its catalog
        messages in the server's language, pinging its ``mentions``; when the game waits for
        the seat of its ``turn``, that player's prompt, deadline and Play ▶ / My view too;
        posted with the row's nonce."""
        from bot.ui.components import BoardButton  # (components → context → delivery)

        payload = row.payload
        tx = self.public_texts(record)
        text = "".join(tx(Msg(str(key), dict(params))) for key, params in payload.get("msgs", []))
        view: discord.ui.View | None = None
        turn = payload.get("turn")
        if turn is not None and record.status == "active" and int(turn[0]) in record.waiting:
            prompt = tx(self.service.engine(record).prompt(self.service.state(record), int(turn[0])))
            when = tx(Msg("ui.notice.timer", {"when": f"<t:{int(record.deadline)}:R>"})) if record.deadline else ""
            text += f"\n<@{int(turn[1])}> — {prompt}{when}"
            view = discord.ui.View(timeout=None)
            for verb in ("play", "hand"):
                view.add_item(BoardButton(record.id, record.version, verb, locale=tx.locale))
        await self.post(record.home_channel_id, text, mentions=[int(u) for u in payload.get("mentions", [])],
                        view=view, nonce=row.nonce)

    async def _deliver_answer(self, record: GameRecord, row: OutboxRow) -> None:
        """The answer to a typed move applied before a crash: the interaction's own
        (private) answer while its token is valid, else a line in the game's channel."""
        payload = row.payload
        user, text = int(payload["user"]), str(payload.get("text", ""))
        token = payload.get("token")
        if token and self.service.clock() - float(payload.get("at", 0)) < TOKEN_LIFETIME - TOKEN_MARGIN:
            seat = record.seat_of(user)
            notes = [] if seat is None else await self.private_lines(record, seat, row)
            content = "\n".join([f"✓ {text}", *(f"🔒 {n}" for n in notes)])[:2000]
            webhook = discord.Webhook.partial(int(payload["app"]), str(token), client=self.client)
            try:
                await webhook.edit_message("@original", content=content, view=None)  # type: ignore[call-overload]
                return
            except discord.HTTPException as exc:
                if transient(exc) or exc.status >= 500:
                    raise
                log.info("answer of game %s: the interaction is gone (%s); answering in the channel",
                         record.id, exc.code)
        applied = self.public_texts(record)(Msg("ui.notice.applied", {"text": text}))
        await self.post(record.home_channel_id, f"<@{user}> {applied}", mentions=[user], nonce=row.nonce)

    async def public_lines(self, record: GameRecord, after: int, upto: int) -> list[str]:
        """The public event lines of the log entries ``after`` < seq ≤ ``upto``, names
        filled in; the start of the game has its line too."""
        return [line for line, _ in await self._public_lines(record, after, upto)]

    async def _public_lines(self, record: GameRecord, after: int, upto: int) -> list[tuple[str, Any]]:
        """``public_lines`` with each line's event kind (``"start"`` for the start line)."""
        from bot.service import start_event

        lines: list[tuple[str, Any]] = []
        entries = await self.repo.log(record.id, after=after, upto=upto)
        txs = entry_texts(record, entries, self.locales.public(record.guild_id))  # (a move: who made it)
        for entry in live_entries(entries):  # (taken back before its lines went out: never shown)
            tx = txs[entry.seq]
            if entry.kind == "system" and entry.action.get("type") == "start":
                lines.append((tx.event(start_event(int(entry.action.get("players", 0))).to_json()), "start"))
            lines += [(tx.event(e), e.get("kind")) for e in entry.events if e.get("visible_to") is None]
        return lines

    async def private_lines(self, record: GameRecord, seat: int, row: OutboxRow) -> list[str]:
        """The lines only ``seat`` may see among the entries of the move ``row`` answers."""
        tx = texts(record, self.locales.of_user(record.user_of(seat) or 0, record.guild_id))
        after = int(row.payload.get("after", 0))
        return [tx.event(e) for entry in await self.repo.log(record.id, after=after, upto=row.version)
                for e in entry.events if e.get("visible_to") is not None and seat in e["visible_to"]]
