"""Discord transport (DISCORD.md): every message the bot posts or DMs goes through here so
Discord's limits are kept: text split at 2000 characters, one ordered queue per channel (the
public lines of a game reach the channel in log order even while Discord rate-limits), images
drawn and encoded under the upload limit, closed DMs tolerated. Messages may carry a nonce
(Discord's ``enforce_nonce``), so one re-sent after a crash is not posted twice; one whose
nonce is too old to count on is first looked for in the channel (``recheck``).

A public message goes through the mover's interaction (a follow-up, not counted against the
bot token's budget: docs/DISCORD.md "Interaction tokens") where one is ``usable``
(``post_via``), else with the bot token.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from cachetools import LRUCache

from bot.locks import KeyedLocks
from bot.render_pool import Kind, Rendered, Renderer, RenderJob
from bot.service import seat_names
from bot.storage import StorageError
from bot.ui.limits import DEFAULT_UPLOAD, split_text
from bot.ui.presence import KNOWN_USERS, ScrollWatch

if TYPE_CHECKING:
    from bot.storage import GameRecord

log = logging.getLogger(__name__)

BOARD_BUTTON = r"g:(?P<game>\d+):(?P<version>\d+):(?P<verb>play|hand|log|rules)"
"""The ``custom_id`` of a button on a board or turn notice (``bot.ui.components.BoardButton``)."""


def board_buttons(message: discord.Message, game: int) -> list[tuple[int, str]]:
    """``(version, verb)`` of every button of ``game`` on the board or turn notice ``message``
    (``BOARD_BUTTON``): the version its buttons act on, and whether it is a board (Rules) or a
    ping (Play ▶ alone)."""
    pattern = re.compile(BOARD_BUTTON)
    found: list[tuple[int, str]] = []
    for row in message.components:
        for item in getattr(row, "children", [row]):
            match = pattern.fullmatch(str(getattr(item, "custom_id", "") or ""))
            if match is not None and int(match["game"]) == game:
                found.append((int(match["version"]), match["verb"]))
    return found

NONCE_TRUSTED = 120.0
"""Seconds a message's nonce is trusted to make Discord drop a repeat (Discord keeps a nonce
for a few minutes): a row older than this that may have gone out already (left by a crash, or
tried before) is looked for in the channel before it is posted again."""

RECHECK_MESSAGES = 20
"""Messages read back to find a ping or end a crash left pending that went out as an
interaction follow-up (no nonce): Discord cannot drop that repeat, so the bot looks first."""

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


class Transport:
    """Posts, DMs, edits and deletes through ``client`` (channels and users by id, no cache
    needed); draws images with ``renderer``. ``clock``: unix time in seconds; ``lean``: public
    messages go through the mover's interaction where they can (settings ``LEAN_REQUESTS``)."""

    def __init__(self, client: discord.Client, clock: Callable[[], float], scroll: ScrollWatch,
                 renderer: Renderer, *, lean: bool = True) -> None:
        self.client = client
        self.clock = clock
        self.scroll = scroll
        self.renderer = renderer
        """Draws and encodes the images (bot/render_pool.py)."""
        self.lean = lean
        self.started = clock()
        """When this process started (a row older than that was left by an earlier one)."""
        self._seen_limits: dict[int, int] = {}
        self._dm_channels: LRUCache[int, int] = LRUCache(KNOWN_USERS)
        self.channel_locks: KeyedLocks[int] = KeyedLocks()
        self.recheck: set[str] = set()
        """Nonces of rows a crash left that may have gone out as an interaction follow-up
        (which carries no nonce), or whose nonce is too old: ``post`` looks for them in the
        channel first."""

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

    def note_limit(self, interaction: discord.Interaction) -> None:
        """Remember the upload limit Discord states on every interaction
        (``attachment_size_limit``), so boards edited later by the clock fit it too."""
        limit = getattr(interaction, "filesize_limit", None)
        if interaction.guild_id and isinstance(limit, int) and limit > 0:
            self._seen_limits[interaction.guild_id] = limit

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
        done = await self.render(kind, record, view, locale, limit, region)
        if done is None:
            return None
        return discord.File(io.BytesIO(done.data), filename=f"{name}.{done.ext}")

    async def render(self, kind: Kind, record: GameRecord, view: dict[str, Any], locale: str, limit: int,
                     region: str = "") -> Rendered | None:
        """``render_file``'s image, encoded (``Rendered``), for a caller that keeps it; None when the
        game draws nothing for it.

        Raises:
            whatever the renderer raised.
        """
        job = RenderJob(kind, record.game_id, view, tuple(seat_names(record, locale)), locale, limit, region=region)
        return await self.renderer.run(job)

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
        if nonce is not None and nonce in self.recheck:
            self.recheck.discard(nonce)
            found = await self._already_posted(channel_id, chunks[-1])
            if found is not None:
                log.info("channel %s: a message of a row left by a crash was already posted; not again", channel_id)
                return found
        async with self.channel_locks[channel_id]:
            for i, chunk in enumerate(chunks):
                kwargs: dict[str, Any] = {"allowed_mentions": allowed}
                if view is not None and i == len(chunks) - 1:
                    kwargs["view"] = view
                if nonce is not None:
                    kwargs["nonce"] = f"{nonce}{i}"
                last = await self.channel(channel_id).send(chunk, **kwargs)
                self.scroll.note_message(channel_id, last.id)
        assert last is not None
        return last

    async def posted_board(self, channel_id: int, game: int) -> discord.Message | None:
        """The bot's newest board message of ``game`` (one carrying its Rules button: a ping
        carries Play ▶ alone) among the channel's last ``RECHECK_MESSAGES``, or None (one history
        read; only for board rows a crash left)."""
        me = self.client.user
        try:
            async for message in self.channel(channel_id).history(limit=RECHECK_MESSAGES):
                if me is not None and message.author.id == me.id and any(
                        verb == "rules" for _, verb in board_buttons(message, game)):
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
        return self.clock() - via.created_at.timestamp() < TOKEN_LIFETIME - TOKEN_MARGIN

    async def post_via(self, via: discord.Interaction | None, channel_id: int, text: str, *,
                       mentions: Sequence[int] = (), view: discord.ui.View | None = None,
                       nonce: str | None = None) -> discord.Message:
        """``post``, through the interaction ``via`` as follow-ups when it is ``usable``
        , in the channel's
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
                async with self.channel_locks[channel_id]:
                    last: discord.Message | None = None
                    for i, chunk in enumerate(chunks):
                        kwargs: dict[str, Any] = {"allowed_mentions": allowed, "wait": True}
                        if view is not None and i == len(chunks) - 1:
                            kwargs["view"] = view
                        last = await via.followup.send(chunk, **kwargs)
                        self.scroll.note_message(channel_id, last.id)
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

    async def edit_original(self, app: int, token: str, **edit: Any) -> bool:
        """Edit the ``@original`` response of the interaction whose ``token`` (application
        ``app``) is held, after that interaction was answered: True when Discord accepted it;
        False when Discord refused it for good (the token expired, the message is gone, the
        edit cap): logged, and the caller answers another way.

        Raises:
            discord.HTTPException (and network errors): a failure that may pass (``transient``, 5xx).
        """
        webhook = discord.Webhook.partial(app, token, client=self.client)
        try:
            await webhook.edit_message("@original", **edit)  # type: ignore[call-overload]
            return True
        except discord.HTTPException as exc:
            if transient(exc) or exc.status >= 500:
                raise
            log.info("@original of an interaction refused (%s %s)", exc.status, exc.code)
            return False

    async def delete_message(self, channel_id: int, message_id: int) -> None:
        """Delete a message of the bot's (best effort: a failure is logged)."""
        try:
            await self.channel(channel_id).get_partial_message(message_id).delete()
            self.scroll.note_deleted(channel_id, message_id)
        except discord.HTTPException as exc:
            log.info("message %s not deleted (%s)", message_id, exc)
