"""The operator's side: ``/game status`` (what the bot is doing,
for its owner everywhere and for a server's moderators about their server), ``/game
forget-me`` (a user's data deleted, their id in the games kept for their scores replaced
by ``ANON_USER``), the purge of a server's data a grace period after the bot was
removed from it (``Settings.guild_purge_days``; a ``discord.ext.tasks`` loop) and the
archive of games long over (``Settings.archive_after_days``; another loop).

Discord's rate-limit answers (HTTP 429) are counted by ``RateLimits``, an aiohttp trace on
the bot's HTTP session (``GameBot(http_trace=…)``): every 429 the HTTP layer saw, those
discord.py waited out and retried included. ``RequestBudget``, on the same trace, keeps the
process within its share of Discord's global limit.
"""

from __future__ import annotations

import asyncio
import collections
import datetime as dt
import logging
from collections.abc import Callable
from importlib import metadata
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord.ext import commands, tasks

from bot.backup import backup_time, backups
from bot.loops import stop_loop
from bot.service import HostError
from bot.storage.archive import ARCHIVE_BATCH
from bot.text import host_sentence
from bot.ui.limits import MESSAGE_CHARS, clip
from bot.ui.permissions import is_moderator
from engines.base import Msg, seat_letter

if TYPE_CHECKING:
    from bot.backup import BackupLoop
    from bot.ui.context import HostContext

log = logging.getLogger(__name__)

HOUR = 3600.0
DAY = 86400.0

PURGE_EVERY_MINUTES = 60.0
"""How often the purge loop looks for servers whose grace period is over."""

ARCHIVE_EVERY_MINUTES = 60.0
"""How often the archive loop moves the games long over to the archive."""


def version() -> str:
    """The installed package's version (``pyproject.toml``), or ``?`` when not installed."""
    try:
        return metadata.version("sinful-tabletop")
    except metadata.PackageNotFoundError:
        return "?"


def anon_name(seat: int) -> str:
    """The name a forgotten player's seat shows: its seat letter only (``#A``)."""
    return f"#{seat_letter(seat)}"


class RateLimits:
    """The HTTP 429 answers Discord gave the bot, by ``clock`` time (the last
    ``KEPT`` at most)."""

    KEPT = 10_000

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.hits: collections.deque[float] = collections.deque(maxlen=self.KEPT)

    def note(self) -> None:
        """Count one 429 now."""
        self.hits.append(self.clock())

    def since(self, start: float) -> int:
        """How many 429s came at or after ``start`` (unix seconds)."""
        return sum(1 for t in self.hits if t >= start)

    def trace(self) -> aiohttp.TraceConfig:
        """An aiohttp trace that counts every response with status 429."""

        async def on_end(session: aiohttp.ClientSession, context: SimpleNamespace,
                         params: aiohttp.TraceRequestEndParams) -> None:
            if params.response.status == 429:
                self.note()

        config = aiohttp.TraceConfig()
        config.on_request_end.append(on_end)
        return config


WINDOW = 1.05
"""How long a request holds its place in ``RequestBudget`` after its answer came: Discord's
second and a margin."""


class RequestBudget:
    """This process's share of Discord's global limit (``Settings.request_share``): at most
    ``per_second`` bot-token requests in any second at Discord. Each request holds one of
    ``per_second`` places from before it is sent until ``WINDOW`` seconds after its answer
    came (or it failed); a request finding none free waits for one (first come, first
    served). Two requests that held the same place reached Discord at least ``WINDOW`` apart
    however long each took on its way, so no second at Discord sees more than ``per_second``.
    Attached to the bot's HTTP session as an aiohttp trace (``attach``): every request that
    carries the bot token (``Authorization: Bot …``) takes a place before it is sent,
    retries included; interaction callbacks and their webhooks carry none, as Discord leaves
    them out of the global limit. Each shard runs in one process at a time (its lease), so
    the shares of all the processes add up to the application's limit at most (README
    "Running at scale")."""

    def __init__(self, per_second: int, *,
                 later: Callable[[float, Callable[[], None]], object] | None = None) -> None:
        self.per_second = max(1, per_second)
        self._places = asyncio.Semaphore(self.per_second)
        self._later = later
        self.waited = 0
        """How many requests found no place free and waited."""

    async def take(self) -> None:
        """Wait for a free place and hold it."""
        if self._places.locked():
            self.waited += 1
        await self._places.acquire()

    def done(self) -> None:
        """A request that holds a place was answered (or failed): its place is free again
        ``WINDOW`` seconds from now (``later``: the event loop's ``call_later``)."""
        later = self._later or asyncio.get_running_loop().call_later
        later(WINDOW, self._places.release)

    def attach(self, config: aiohttp.TraceConfig) -> aiohttp.TraceConfig:
        """Make every bot-token request of the session traced by ``config`` hold a place;
        returns ``config``."""

        async def on_start(session: aiohttp.ClientSession, context: SimpleNamespace,
                           params: aiohttp.TraceRequestStartParams) -> None:
            if str(params.headers.get("Authorization", "")).startswith("Bot "):
                await self.take()
                context.budget_place = True

        async def on_done(session: aiohttp.ClientSession, context: SimpleNamespace, params: object) -> None:
            if getattr(context, "budget_place", False):
                context.budget_place = False
                self.done()

        config.on_request_start.append(on_start)
        config.on_request_end.append(on_done)
        config.on_request_exception.append(on_done)
        return config


class Operator:
    """``/game status``, ``/game forget-me`` and the purge of servers the bot left, over
    ``ctx``; ``backups`` tells the last backup, ``rate_limits`` the 429s, ``started`` the
    start (unix seconds)."""

    def __init__(self, ctx: HostContext, backups: BackupLoop, rate_limits: RateLimits, *,
                 started: float) -> None:
        self.ctx = ctx
        self.backups = backups
        self.rate_limits = rate_limits
        self.started = started
        self.purge_loop = tasks.loop(minutes=PURGE_EVERY_MINUTES, name="guild-purge")(self._pass)
        self.archive_loop = tasks.loop(minutes=ARCHIVE_EVERY_MINUTES, name="archive")(self._archive_pass)

    # ------------------------------------------------------------------ status
    def last_backup(self) -> float | None:
        """Unix time of the newest backup in the backup folder, or None."""
        if not self.backups.enabled:
            return None
        stem = self.backups.database.stem
        times = [t for p in backups(self.backups.folder, stem) if (t := backup_time(p, stem)) is not None]
        return max(times) if times else None

    async def status_lines(self, guild_id: int | None, locale: str) -> list[str]:
        """The lines of ``/game status`` in ``locale``: every server's figures with
        ``guild_id`` None (the owner), else that server's (its moderators) without the
        bot-wide ones (database, backups, rate limits)."""
        now = self.ctx.clock()
        day_start = dt.datetime.fromtimestamp(now, dt.UTC).replace(hour=0, minute=0, second=0,
                                                                    microsecond=0).timestamp()
        counts = await self.ctx.service.operator_counts(day_start=day_start, hour_ago=now - HOUR, guild_id=guild_id)

        def say(key: str, **params: Any) -> str:
            return host_sentence(f"ops.{key}", locale, **params)

        lines = [say("status_all" if guild_id is None else "status_server"),
                 say("status_uptime", since=int(self.started), version=version()),
                 say("status_games", active=counts["active"], finished=counts["finished"]),
                 say("status_actions", actions=counts["actions"]),
                 say("status_pending", pending=counts["pending"])]
        if guild_id is None:
            size = await self.ctx.service.database_bytes()
            lines.append(say("status_database", size="—" if size is None else f"{size / 1e6:.1f} MB"))
            last = self.last_backup()
            lines.append(say("status_backup", at=int(last)) if last is not None else say("status_no_backup"))
            lines.append(say("status_rate_limits", hits=self.rate_limits.since(now - HOUR)))
        return lines

    async def status(self, interaction: discord.Interaction) -> None:
        """``/game status``: a private reply in the reader's language — the bot's owner
        (``Client.is_owner``: the application's owner or team) sees every server's figures
        wherever they ask; a moderator of a server (``is_moderator``) sees that server's.

        Raises:
            HostError: anyone else (code ``not_operator``).
        """
        client = interaction.client
        owner = isinstance(client, commands.Bot) and await client.is_owner(interaction.user)
        if not owner and (interaction.guild_id is None or not await is_moderator(self.ctx, interaction)):
            raise HostError(Msg("ops.status_refused"), "not_operator")
        await interaction.response.defer(ephemeral=True, thinking=True)
        locale = self.ctx.delivery.locales.private(interaction)
        lines = await self.status_lines(None if owner else interaction.guild_id, locale)
        await interaction.followup.send(clip("\n".join(lines), MESSAGE_CHARS), ephemeral=True)

    # ------------------------------------------------------------------ forget me
    async def forget_me(self, interaction: discord.Interaction, confirm: bool) -> None:
        """``/game forget-me``: refused while the user still has a seat in a lobby or a
        running game (the games are listed: resign or leave them, or have a moderator
        replace them); without ``confirm`` it says what would be deleted; with it, their
        preferences, language, DM settings, spectator entries and ratings are deleted and
        their id and name in the games they are done with are replaced by ``ANON_USER`` /
        ``anon_name`` (``Repository.anonymise_user``: the games replay as before).

        Raises:
            HostError: seats still taken (code ``still_playing``).
        """
        user_id = interaction.user.id
        locale = self.ctx.delivery.locales.private(interaction)
        playing = await self.ctx.service.games(user_id=user_id)
        if playing:
            listed = ", ".join(f"#{g.id}" for g in playing)
            raise HostError(Msg("ops.forget_playing", {"games": listed}), "still_playing")
        if not confirm:
            await interaction.response.send_message(host_sentence("ops.forget_ask", locale), ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        games = await self.forget(user_id)
        await interaction.followup.send(host_sentence("ops.forget_done", locale, games=len(games)), ephemeral=True)

    async def forget(self, user_id: int) -> list[int]:
        """Delete ``user_id``'s data and anonymise them in the games they are done with;
        the ids of those games. Logged (without the user id)."""
        rows = await self.ctx.service.delete_user_data(user_id)
        games = await self.ctx.service.anonymise_user(user_id, anon_name)
        delivery = self.ctx.delivery
        delivery.locales.users.pop(user_id, None)
        delivery.presence.last_seen.pop(user_id, None)
        log.info("a user asked to be forgotten: %d stored rows deleted, %d games anonymised", rows, len(games))
        return games

    # ------------------------------------------------------------------ servers the bot left
    async def guild_removed(self, guild_id: int) -> None:
        """The bot was removed from ``guild_id``: its data is purged ``guild_purge_days``
        from now unless it comes back first (logged)."""
        now = self.ctx.clock()
        purge_at = now + self.ctx.settings.guild_purge_days * DAY
        await self.ctx.service.schedule_guild_purge(guild_id, now, purge_at)
        log.info("removed from server %s: its data will be purged at %s unless the bot is added back",
                 guild_id, dt.datetime.fromtimestamp(purge_at, dt.UTC).isoformat(timespec="minutes"))

    async def guild_joined(self, guild_id: int) -> None:
        """The bot is (back) in ``guild_id``: a purge waiting for it is called off (logged)."""
        if await self.ctx.service.cancel_guild_purge(guild_id):
            log.info("added back to server %s: its data purge is cancelled", guild_id)

    async def purge_due(self, now: float | None = None) -> list[int]:
        """Purge every server whose grace period is over by ``now`` (default the clock) and
        that the bot has not rejoined; each purge is logged. Returns the server ids."""
        now = self.ctx.clock() if now is None else now
        purged = []
        for guild_id, _left, _at in await self.ctx.service.guild_purges(due_by=now):
            client = self.ctx.delivery.transport.client
            if client.get_guild(guild_id) is not None:  # (back without a join event seen: keep it)
                await self.ctx.service.cancel_guild_purge(guild_id)
                continue
            games = await self.ctx.service.purge_guild(guild_id)
            log.info("purged the data of server %s (removed %d days ago): %d games deleted", guild_id,
                     round((now - _left) / DAY), games)
            purged.append(guild_id)
        return purged

    async def _pass(self) -> None:
        try:
            await self.purge_due()
        except Exception:
            log.exception("the purge of servers the bot left failed; trying again at the next pass")

    async def archive_due(self, now: float | None = None) -> list[int]:
        """Archive every game that ended ``archive_after_days`` before ``now`` (default the
        clock; none when the setting is 0), batch after batch; logged. Returns their ids."""
        days = self.ctx.settings.archive_after_days
        if days <= 0:
            return []
        before = (self.ctx.clock() if now is None else now) - days * DAY
        moved: list[int] = []
        while batch := await self.ctx.service.archive_ended(before):
            moved += batch
            if len(batch) < ARCHIVE_BATCH:
                break
        if moved:
            log.info("archived %d games that ended over %g days ago", len(moved), days)
        return moved

    async def _archive_pass(self) -> None:
        try:
            await self.archive_due()
        except Exception:
            log.exception("the archive pass failed; trying again at the next pass")

    def start(self) -> None:
        """Start the purge and archive loops (their first passes run at once)."""
        self.purge_loop.start()
        self.archive_loop.start()

    async def stop(self) -> None:
        """Stop the purge and archive loops."""
        await stop_loop(self.purge_loop)
        await stop_loop(self.archive_loop)


