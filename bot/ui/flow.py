"""The handlers of the host, by role (docs/TEMPLATE.md "The host, by role"), built in the
order they depend on one another over one ``HostContext`` and the ``TurnNotices`` its outbox
composes with: ``spectators`` (table.py), ``notices`` (notices.py), then
``ai`` (ai.py), ``lobby`` (lobby.py), ``moves`` (moves.py), ``clock`` (clock.py),
``moderation`` (moderation.py), ``table`` (table.py) and ``looks`` (looks.py).

``routes`` is the table a persistent item's press reaches its handler through (each item's
``route``, its custom id's prefix; ``bot/ui/dispatch.py``); cogs reach the handlers through
their bot's ``flow``.
"""

from __future__ import annotations

from collections.abc import Mapping

import discord

from bot.ui.ai import AiPlayers
from bot.ui.clock import Clock
from bot.ui.components import (
    ActionButton,
    ActionSelect,
    BoardButton,
    DmButton,
    LobbyButton,
    LookSelect,
    NavButton,
)
from bot.ui.context import HostContext
from bot.ui.dispatch import Dispatch, Route
from bot.ui.lobby import Lobby
from bot.ui.lobby_options import AiLobbySelect, LobbySelect
from bot.ui.looks import Looks
from bot.ui.moderation import Moderation
from bot.ui.moves import Moves
from bot.ui.notices import Notices, TurnNotices
from bot.ui.table import Spectators, Table
from bot.ui.table_items import ReplaySelect, TableButton


class Flow:
    """Every role's handlers over ``ctx``, and the routes of the persistent items to them."""

    def __init__(self, ctx: HostContext, turns: TurnNotices) -> None:
        self.ctx = ctx
        self.spectators = Spectators(ctx, turns.dms)
        self.notices = Notices(ctx, turns, followers=(self.spectators.update_watchers,))
        self.ai = AiPlayers(ctx, self.notices)
        self.lobby = Lobby(ctx, self.notices)
        self.moves = Moves(ctx, self.notices)
        self.clock = Clock(ctx, self.notices, after_pass=(self.ai.resume,))
        self.moderation = Moderation(ctx, self.notices, stop_ai=self.ai.stop)
        self.table = Table(ctx, self.notices, self.moves.redrawn)
        self.looks = Looks(ctx)
        self.routes: Mapping[str, Route] = {
            LobbyButton.route: self.lobby_button, BoardButton.route: self.board_button,
            ActionButton.route: self.action_button, ActionSelect.route: self.action_select,
            NavButton.route: self.nav_button, DmButton.route: self.dm_button, LookSelect.route: self.look_select,
            AiLobbySelect.route: self.ai_select, LobbySelect.route: self.lobby_select,
            TableButton.route: self.table_button, ReplaySelect.route: self.replay_select,
        }

    def dispatch(self) -> Dispatch:
        """The ``Dispatch`` the bot carries for its items, checks and transformers."""
        ctx = self.ctx
        return Dispatch(ctx.service, ctx.settings, ctx.delivery.locales, ctx, self.routes)

    # ------------------------------------------------------------------ routes
    async def lobby_button(self, interaction: discord.Interaction, item: LobbyButton) -> None:
        await self.lobby.click(interaction, item.game, item.verb)

    async def board_button(self, interaction: discord.Interaction, item: BoardButton) -> None:
        if item.verb == "play":
            await self.moves.open_panel(interaction, item.game)  # the panel always shows the current position
        elif item.verb == "hand":
            await self.notices.show_private(interaction, item.game)
        elif item.verb == "log":
            await self.notices.show_log(interaction, item.game)
        else:
            record = await self.ctx.game(interaction, item.game)
            await self.notices.show_rules(interaction, record.game_id)

    async def action_button(self, interaction: discord.Interaction, item: ActionButton) -> None:
        await self.moves.choose(interaction, item.game, item.version, item.index)

    async def action_select(self, interaction: discord.Interaction, item: ActionSelect, value: str) -> None:
        """``s<k>`` opens step ``k`` below the select's path; a number applies that legal action."""
        if value.startswith("s"):
            await self.moves.navigate(interaction, item.game, item.version, 0, (*item.path, int(value[1:])))
        else:
            await self.moves.choose(interaction, item.game, item.version, int(value))

    async def nav_button(self, interaction: discord.Interaction, item: NavButton) -> None:
        await self.moves.navigate(interaction, item.game, item.version, item.page, item.path)

    async def dm_button(self, interaction: discord.Interaction, item: DmButton) -> None:
        if item.verb == "play":
            await self.moves.open_panel(interaction, item.game)
        else:
            await self.notices.show_private(interaction, item.game)

    async def look_select(self, interaction: discord.Interaction, item: LookSelect, region: str) -> None:
        await self.looks.look(interaction, item.game, region)

    async def ai_select(self, interaction: discord.Interaction, item: AiLobbySelect, value: str) -> None:
        await self.ai.lobby_pick(interaction, item.game, value)

    async def lobby_select(self, interaction: discord.Interaction, item: LobbySelect, value: str) -> None:
        await self.lobby.choose(interaction, item.game, item.what, value)

    async def table_button(self, interaction: discord.Interaction, item: TableButton) -> None:
        if item.verb == "undo":
            await self.table.undo(interaction, item.game, item.version)
        elif item.verb == "resign":
            await self.table.resign(interaction, item.game)
        elif item.verb == "rematch":
            await self.table.rematch(interaction, item.game)
        else:
            await self.table.replay(interaction, item.game, item.version)

    async def replay_select(self, interaction: discord.Interaction, item: ReplaySelect, step: int) -> None:
        await self.table.replay(interaction, item.game, step)

    # ------------------------------------------------------------------ for the bot and tests
    async def wait_idle(self) -> None:
        """Wait until no handler is in flight and every board update is delivered."""
        await self.ctx.wait_idle()

    async def tick(self, now: float | None = None) -> int:
        """One pass of the game clock at ``now`` (``Clock.tick``)."""
        return await self.clock.tick(now)
