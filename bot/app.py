"""The ``commands.Bot`` subclass: one start-up point (``setup_hook``) that opens the
database, loads the cogs, registers the persistent buttons, checks the synced commands
(synced to a development server only; bot/sync.py), starts the game clock and the backups
(bot/backup.py) (design §5, STYLE: discord.py examples)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import time
from collections.abc import Callable
from typing import Any, cast

import discord
from discord.ext import commands

from bot import sync
from bot.backup import BackupLoop
from bot.gateway import guard_parsers
from bot.render_pool import Renderer
from bot.service import GameService
from bot.settings import Settings
from bot.storage import Repository, StorageError
from bot.storage.leases import ShardLeases, leases_for
from bot.ui.commands import CatalogTranslator
from bot.ui.components import DYNAMIC_ITEMS
from bot.ui.context import HostContext, Parts
from bot.ui.delivery import Delivery
from bot.ui.errors import GameTree
from bot.ui.flow import Flow
from bot.ui.lobby_options import AI_ITEMS
from bot.ui.notices import TurnNotices
from bot.ui.operator import Operator, RateLimits, RequestBudget
from bot.ui.outbox_drain import Outbox
from bot.ui.table_items import TABLE_ITEMS

log = logging.getLogger(__name__)

GC_THRESHOLDS = (10_000, 20, 20)
"""The bot process's garbage collector thresholds (``gc.set_threshold``; CPython's are 700, 10, 10):
a move allocates thousands of objects (panels, messages, discord.py's payloads), so at 700 the
collector ran twice a move and a full collection over the whole heap every 30 moves: 3 ms a move
of a sequential run with the offline Discord in the same process, 0.4 ms after (``tune_gc``)."""

EXTENSIONS = ("cogs.games", "cogs.base")
"""Loaded in ``setup_hook`` (``cogs.base``: one cog per registered game); one that fails to load
is logged and skipped."""

INVITE_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, create_public_threads=True,
    embed_links=True, attach_files=True, read_message_history=True,
)
"""What the bot needs in a server: post, embed, attach boards, open a thread per game."""


def invite_url(application_id: int) -> str:
    """The OAuth2 URL a server owner opens to add the bot (bot + slash-command scopes)."""
    return discord.utils.oauth_url(application_id, permissions=INVITE_PERMISSIONS,
                                   scopes=("bot", "applications.commands"))


def tune_gc() -> None:
    """Set this process's ``GC_THRESHOLDS`` (the bot's own process, ``bot.__main__.run``; not a test's,
    whose bots come and go). Reference counting still frees what is not in a cycle at once; the
    cycles wait for a rarer collection."""
    gc.set_threshold(*GC_THRESHOLDS)


class GameBot(commands.Bot):
    """The board-game host.

    With ``Settings.shard_count`` set, ``GameBot(settings)`` builds a ``ShardedGameBot``
    (discord.py's ``AutoShardedBot``) that runs the shards ``Settings.shard_ids`` of
    ``shard_count``; its repository then serves only the games of servers on those
    shards (the clock, the outbox at start).

    Args:
        settings: the ``Settings`` it runs with.
        clock: unix time in seconds for storage, deadlines and the game clock (tests
            inject a fake one).

    Attributes:
        settings: the ``Settings`` it runs with.
        repo / service / delivery / outbox: storage, game service, delivery layer, and the
            sender of the outbox's rows.
        backups: the periodic database backup (``bot/backup.py``).
        operator: ``/game status``, ``/game forget-me`` and the purge of servers the bot
            left (``bot/ui/operator.py``).
        flow: the handlers by role (``bot/ui/flow.py``) over a ``HostContext`` of those
            parts (``bot/ui/`` never sees this class).
        routing: the ``Dispatch`` its persistent items, checks and transformers reach the
            handlers through (``bot/ui/dispatch.py``).
    """

    def __new__(cls, settings: Settings, *args: Any, **kwargs: Any) -> GameBot:
        if settings.shard_count is not None and not issubclass(cls, commands.AutoShardedBot):
            cls = ShardedGameBot
        return super().__new__(cls)

    def __init__(self, settings: Settings, *, clock: Callable[[], float] = time.time,
                 **kwargs: object) -> None:
        intents = discord.Intents.default()  # no privileged intents are needed
        if settings.shard_count is not None:
            kwargs = {"shard_count": settings.shard_count,
                      "shard_ids": list(settings.shard_ids or range(settings.shard_count)), **kwargs}
        rate_limits = RateLimits(clock)  # (every 429 the HTTP layer sees: /game status)
        trace = rate_limits.trace()
        trace.on_request_start.append(self._refuse_unless_acting)  # (a lost lease: Discord is sent nothing
        # more; first, before the budget takes a place)
        self.budget = RequestBudget(settings.request_share)  # (this process's share of the global limit)
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None,
                         tree_cls=GameTree, http_trace=self.budget.attach(trace), **kwargs)  # type: ignore[arg-type]
        guard_parsers(self, lambda work, name: self.flow.ctx.spawn(work, name))  # (a payload discord.py
        # cannot read is dropped, never the connection; its answer counts as a handler in flight)
        self.settings = settings
        self.clock = clock
        self.repo = Repository(settings.database_path, clock=clock, shards=settings.shards)
        self.leases: ShardLeases | None = leases_for(settings.database_path, settings.shards, self._lease_lost)
        self.lease_lost: str | None = None
        """Why this process stopped acting for its shards (its lease was lost), or None."""
        self._stopping: asyncio.Task[None] | None = None
        """The close that a lost lease started (kept: the loop holds tasks only weakly)."""
        self._outbox_resume: asyncio.Task[None] | None = None
        self.service = GameService(self.repo, clock=clock)
        # (built bottom up, each part given what it needs: docs/DESIGN.md "Layers")
        self.delivery = Delivery.build(self, self.service, self.repo, renderer=Renderer(settings.render_workers),
                                       lean=settings.lean_requests, away_after=settings.dm_away_seconds)
        turns = TurnNotices(Parts(self.service, self.delivery, settings, clock))
        self.outbox = Outbox(self.delivery.transport, self.delivery.boards, self.service, self.repo,
                             self.delivery.retries, turns)
        self.flow = Flow(HostContext(self.service, self.delivery, settings, clock, self.outbox), turns)
        self.routing = self.flow.dispatch()  # (how persistent items, checks and transformers reach the handlers)
        cast(GameTree, self.tree).attach(self.flow.ctx)
        if settings.postgres:  # (PostgreSQL is backed up by its own tools: README "Running at scale")
            settings = dataclasses.replace(settings, backup_every_minutes=0)
        self.backups = BackupLoop(settings, clock)
        self.operator = Operator(self.flow.ctx, self.backups, rate_limits, started=clock())

    async def load_commands(self) -> None:
        """Load the cogs (their commands join ``tree``) and register the persistent buttons."""
        await self.tree.set_translator(CatalogTranslator())  # (localized names: bot/ui/commands.py)
        for ext in EXTENSIONS:
            try:
                await self.load_extension(ext)
            except commands.ExtensionError:
                log.exception("extension %s failed to load; skipped", ext)
        self.add_dynamic_items(*DYNAMIC_ITEMS, *TABLE_ITEMS, *AI_ITEMS)

    async def setup_hook(self) -> None:
        await self.repo.open()
        if self.leases is not None:  # (PostgreSQL: a standby waits here, before the gateway)
            await self.leases.acquire()
            if not self.acting:  # (stopped while standing by: it never connects)
                return
            self.repo.fence(self.leases.fence_sql(), self.leases.lose)  # (every commit checks the tokens)
        await self.service.upgrade_snapshots()
        await self.delivery.locales.load(self.service)
        await self.load_commands()
        if self.settings.dev_guild_id:  # a development server: its commands are current at once
            await sync.sync(self.tree, self.settings.dev_guild_id)
        else:  # global commands are synced on request (python -m bot sync); only say when stale
            await sync.warn_if_stale(self, self.tree)
        self.flow.clock.start(self.wait_until_ready)
        self.backups.start()
        self.operator.start()
        self._outbox_resume = asyncio.create_task(self._resume_outbox(), name="outbox-start")

    async def _resume_outbox(self) -> None:
        """Once connected, deliver what the outbox still holds (a crash between a commit
        and Discord's answer left it there: docs/DESIGN.md §4), and answer the moves a crash
        lost between their acknowledgement and their commit."""
        await self.wait_until_ready()
        self.delivery.transport.renderer.start()  # (the render workers warm up once the bot is ready)
        await self.outbox.start_resume()
        try:
            await self.flow.moves.answer_lost_moves()  # (a move acknowledged, then lost with the process)
        except StorageError as exc:
            log.warning("the moves a crash lost were not answered: %s", exc)
        await self.flow.ai.resume()  # (a restart in the middle of an AI's turn resumes it)

    async def on_ready(self) -> None:
        assert self.user is not None
        log.info("logged in as %s (%s); invite: %s", self.user, self.user.id, invite_url(self.user.id))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.delivery.transport.note_limit(interaction)
        self.delivery.presence.note(interaction)

    async def on_message(self, message: discord.Message) -> None:
        self.delivery.transport.scroll.note_message(message.channel.id, message.id)  # (where the boards stand)
        await self.process_commands(message)

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self.delivery.transport.scroll.note_deleted(payload.channel_id, payload.message_id)

    @property
    def acting(self) -> bool:
        """True while this process may act for its shards: it holds every lease (PostgreSQL)
        or needs none (SQLite)."""
        if self.leases is None:
            return True
        return self.lease_lost is None and len(self.leases.held) == len(self.leases.shards.ids)

    async def _refuse_unless_acting(self, session: object, context: object, params: object) -> None:
        """aiohttp's ``on_request_start``: no request to Discord once the lease is lost (what
        a handler still running would say, e.g. that its move was not saved, is the new
        holder's to say)."""
        if self.lease_lost is not None:
            raise NotActing(self.lease_lost)

    def _lease_lost(self, reason: str) -> None:
        """A shard lease was lost (bot/storage/leases.py): refuse every write from now on and
        stop; the process ends (``python -m bot`` with status 5) and a supervisor starts it
        again as a standby."""
        self.lease_lost = reason
        self.repo.fenced = reason
        self._stopping = asyncio.get_running_loop().create_task(self.close(), name="lease-lost-close")

    async def close(self) -> None:
        if self._outbox_resume is not None and not self._outbox_resume.done():
            self._outbox_resume.cancel()
        await self.flow.clock.stop()
        await self.flow.ai.close()
        await self.backups.stop()
        await self.operator.stop()
        if self.acting:  # (a standby's or a lost lease's outbox is another process's)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.outbox.drain(), 10)
        await self.outbox.close()
        await super().close()
        await self.repo.close()
        if self.leases is not None:  # (last: a standby takes over once nothing here writes)
            await self.leases.close()


class NotActing(Exception):
    """A request to Discord refused because this process lost its shard lease."""


class ShardedGameBot(GameBot, commands.AutoShardedBot):
    """``GameBot`` on discord.py's sharded client (``Settings.shard_count``)."""


async def run_sync(settings: Settings, guild_id: int | None = None) -> list[str]:
    """``python -m bot sync``: log in with ``settings.token`` (no gateway, no database), load the
    commands of every cog and push them (``bot.sync.sync``); returns the synced names.

    Raises:
        discord.LoginFailure: the token is refused.
        discord.HTTPException: Discord refused the sync.
    """
    class SyncOnly(GameBot):
        async def setup_hook(self) -> None:  # the commands only: no database, no loops
            await self.load_commands()

    bot = SyncOnly(settings)
    async with bot:
        await bot.login(settings.token)
        return await sync.sync(bot.tree, guild_id)
