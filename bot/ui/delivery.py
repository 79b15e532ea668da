"""The delivery layer: every message the bot posts or edits goes through here so
Discord's limits are kept (DISCORD.md): text split at 2000 characters, images fitted
under the upload limit, attachments replaced on edit, rapid board edits coalesced,
a fresh board message when the old one can no longer be edited, and closed DMs
tolerated. Uses the bot token (channel endpoints), never interaction tokens, for
anything posted after the first answer.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import discord
from PIL import Image

from bot.service import texts
from bot.ui.limits import DEFAULT_UPLOAD, split_text
from render import registry as renders

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.storage import GameRecord, Repository

log = logging.getLogger(__name__)

EDIT_REFUSED_CODES = {30046, 10008}
"""Discord codes after which a board is re-posted: edit cap on old messages, unknown message."""

BOARD_SCROLL = 8
"""Messages after the board message after which the next board update re-posts it at the
bottom and deletes the old one (issue 10: a phone player finds the board a swipe away)."""

RENDER_THREADS = 2
"""Images rendered at once. Rendering is mostly GIL-bound Python: more threads add no
throughput but starve the event loop and the database thread (bench/bot_latency.py:
with the default pool of 6, database-lock waits reached seconds at 50 games)."""


THUMBNAIL_WIDTH = 480
"""Width in pixels of the small board in DM turn notices (the board message has the full one)."""


def thumbnail(image: Image.Image) -> Image.Image:
    """``image`` scaled down to ``THUMBNAIL_WIDTH`` wide (unchanged when narrower)."""
    if image.width <= THUMBNAIL_WIDTH:
        return image.copy()
    height = max(1, round(image.height * THUMBNAIL_WIDTH / image.width))
    return image.resize((THUMBNAIL_WIDTH, height), Image.Resampling.BILINEAR)


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
        self._render_slots = asyncio.Semaphore(RENDER_THREADS)
        self._seen_limits: dict[int, int] = {}
        self.board_thumbnails: dict[int, tuple[int, Image.Image]] = {}
        """Per game: the version and a small copy of the board last drawn (DM turn notices)."""

    # ------------------------------------------------------------------ basics
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

    async def image_file(self, image_factory: Callable[[], Image.Image | None], name: str,
                         limit: int) -> discord.File | None:
        """Render in a worker thread (``image_factory()`` returns a PIL image, or None for
        nothing to draw) and encode it under ``limit`` bytes; returns a ``discord.File``
        named ``name.png`` or ``name.jpg``, or None."""

        def work() -> tuple[bytes, str] | None:
            image = image_factory()
            return None if image is None else renders.encode(image, limit)

        async with self._render_slots:
            encoded = await asyncio.to_thread(work)
        if encoded is None:
            return None
        data, ext = encoded
        return discord.File(io.BytesIO(data), filename=f"{name}.{ext}")

    async def send_text(self, channel_id: int, text: str, *, mentions: Sequence[int] = (),
                        view: discord.ui.View | None = None) -> discord.Message | None:
        """Post ``text`` split into ≤2000-character messages; the view goes on the last.
        Only ``mentions`` (user ids) are pinged. Returns the last message, or None on failure."""
        chunks = split_text(text) or ["\u200b"]
        allowed = discord.AllowedMentions(users=[discord.Object(u) for u in mentions], roles=False,
                                          everyone=False)
        last: discord.Message | None = None
        for i, chunk in enumerate(chunks):
            channel = self.channel(channel_id)
            try:
                if view is not None and i == len(chunks) - 1:
                    last = await channel.send(chunk, allowed_mentions=allowed, view=view)
                else:
                    last = await channel.send(chunk, allowed_mentions=allowed)
            except discord.HTTPException as exc:
                log.warning("could not post in channel %s: %s", channel_id, exc)
                return None
        return last

    async def dm(self, user_id: int, text: str) -> bool:
        """Optional DM notification; False (and no error) when DMs are closed (50007)."""
        try:
            user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
            await user.send(text[:2000])
            return True
        except discord.HTTPException as exc:
            log.info("DM to %s not delivered (%s); the game goes on", user_id, getattr(exc, "code", exc))
            return False

    # ------------------------------------------------------------------ boards
    def request_board(self, game: int) -> None:
        """Ask for the board of ``game`` to be brought up to date. Rapid requests coalesce:
        one updater task per game renders the newest state, in order."""
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
        """Wait until every pending board update has been delivered (tests, shutdown)."""
        while True:
            pending = [t for t in self._tasks.values() if not t.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def _board_loop(self, game: int) -> None:
        while self._dirty.get(game):
            self._dirty[game] = False
            try:
                await self.update_board(game)
            except Exception:  # a failed Discord call never rolls back a move; log and go on
                log.exception("board update of game %s failed", game)

    async def update_board(self, game: int) -> None:
        """Edit the game's board message to its newest state (replacing the image), or
        post a fresh board when there is none or the old one can no longer be edited."""
        record = await self.service.get(game)
        if record.state is None:
            return
        embed, file, view = await self.board_payload(record)
        if record.board_message_id and record.board_channel_id and await self.scrolled_away(record):
            await self.post_board(record, embed=embed, file=file, view=view)
            await self.delete_message(record.board_channel_id, record.board_message_id)
            return
        if record.board_message_id and record.board_channel_id:
            message = self.channel(record.board_channel_id).get_partial_message(record.board_message_id)
            try:
                await message.edit(embed=embed, attachments=[file], view=view)
                return
            except discord.HTTPException as exc:
                if getattr(exc, "code", None) not in EDIT_REFUSED_CODES and exc.status != 404:
                    raise
                log.info("board of game %s cannot be edited (%s); posting a fresh one", game, exc.code)
                embed, file, view = await self.board_payload(record)
        await self.post_board(record, embed=embed, file=file, view=view)

    async def scrolled_away(self, record: GameRecord) -> bool:
        """True when ``BOARD_SCROLL`` messages or more came after the board message in its
        channel (issue 10: the board follows the conversation); one history request."""
        assert record.board_channel_id is not None and record.board_message_id is not None
        try:
            newer = [m async for m in self.channel(record.board_channel_id).history(
                limit=BOARD_SCROLL, after=discord.Object(record.board_message_id))]
        except discord.HTTPException as exc:
            log.info("history of channel %s not read (%s); the board stays", record.board_channel_id, exc)
            return False
        return len(newer) >= BOARD_SCROLL

    async def delete_message(self, channel_id: int, message_id: int) -> None:
        """Delete a message of the bot's (best effort: a failure is logged)."""
        try:
            await self.channel(channel_id).get_partial_message(message_id).delete()
        except discord.HTTPException as exc:
            log.info("message %s not deleted (%s)", message_id, exc)

    async def post_board(self, record: GameRecord, *, embed: discord.Embed | None = None,
                         file: discord.File | None = None, view: discord.ui.View | None = None) -> None:
        """Post a new board message in the game's home channel and store the pointer."""
        if embed is None or file is None:
            embed, file, view = await self.board_payload(record)
        channel_id = record.home_channel_id
        channel = self.channel(channel_id)
        if view is not None:
            message = await channel.send(embed=embed, file=file, view=view)
        else:
            message = await channel.send(embed=embed, file=file)
        await self.repo.set_fields(record.id, board_channel_id=channel_id, board_message_id=message.id)

    async def board_payload(self, record: GameRecord) -> tuple[discord.Embed, discord.File, discord.ui.View | None]:
        """Embed, image file and buttons of the public board (from the public view only)."""
        from bot.ui.panels import board_embed, board_view  # (panels → components → context → delivery)

        service = self.service
        engine = service.engine(record)
        state = service.state(record)
        public = engine.player_view(state, None)
        names, tx = record.names, texts(record)
        def draw() -> Image.Image:
            image = renders.board_image(record.game_id, public, names, tx)
            self.board_thumbnails[record.id] = (record.version, thumbnail(image))
            return image

        file = await self.image_file(draw, "board", self.upload_limit(record.guild_id))
        assert file is not None  # every game draws a board
        recent = await self.recent_public_lines(record, limit=6)
        embed = board_embed(engine, record, state, image_name=file.filename or "board.png", recent=recent)
        return embed, file, board_view(record)

    async def recent_public_lines(self, record: GameRecord, limit: int = 6) -> list[str]:
        """The last ``limit`` public event lines of a game (the start left out), names
        filled in: the board's "recent" list."""
        lines: list[str] = []
        for entry in await self.repo.log(record.id, last=max(40, limit * 8)):
            for e in entry.events:
                if e.get("visible_to") is None and e.get("kind") not in ("start", "game_started"):
                    lines.append(texts(record).event(e))
        return lines[-limit:]
