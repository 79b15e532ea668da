"""The table around the game (issue 16), for every game at once and with no game-specific
code: undo (docs/DESIGN.md §4), resign, spectators, rematch, ratings and replays.

Buttons are ``TableButton``s, ``t:{game}:{version}:{verb}``:

| verb | where | what |
|---|---|---|
| ``undo`` | a player's panel after their move | take back their last action (``GameService.undo``) |
| ``resign`` | the private answer to ``/game resign`` | confirm: resign (``GameService.resign``) |

The handlers live in ``Table`` (``bot.flow.table``); the sentences are the ``table.*``
keys of ``bot/text/en/table.toml``.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.service import HostError
from bot.storage import GameRecord
from bot.text import Texts
from bot.ui.components import Reported
from bot.ui.context import HostContext, flow_of
from bot.ui.limits import MESSAGE_CHARS
from bot.ui.notices import Notices
from bot.ui.panels import Panel, build_panel
from engines.base import Msg

log = logging.getLogger(__name__)

HOST_TEXT = Texts(None, [])
"""The formatter of the table's host sentences that name no player."""


def say(key: str, **params: Any) -> str:
    """The host sentence ``table.<key>`` with ``params`` (English until the reader's locale
    reaches the host)."""
    return HOST_TEXT.format(Msg(f"table.{key}", params))


class TableButton(Reported, discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"t:(?P<game>\d+):(?P<version>\d+):(?P<verb>undo|resign)"):
    """A table button (module docstring): the game, the version it was offered at, the verb."""

    STYLES = {"undo": discord.ButtonStyle.secondary, "resign": discord.ButtonStyle.danger}

    def __init__(self, game: int, version: int, verb: str) -> None:
        super().__init__(discord.ui.Button(label=say(f"{verb}_button"), style=self.STYLES[verb],
                                           custom_id=f"t:{game}:{version}:{verb}"))
        self.game, self.version, self.verb = game, version, verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TableButton:
        return cls(int(match["game"]), int(match["version"]), match["verb"])

    async def run(self, interaction: discord.Interaction) -> None:
        table = flow_of(interaction).table
        if self.verb == "undo":
            await table.undo(interaction, self.game, self.version)
        elif self.verb == "resign":
            await table.resign(interaction, self.game)


TABLE_ITEMS = (TableButton,)
"""Registered with the other dynamic items (``bot/app.py``)."""


async def with_undo(ctx: HostContext, record: GameRecord, user_id: int, panel: Panel) -> Panel:
    """``panel`` with an Undo button when ``user_id`` may undo now (``GameService.can_undo``);
    a panel with nothing to click gets a view for it."""
    if not await ctx.service.can_undo(record, user_id):
        return panel
    view = panel.view or discord.ui.View(timeout=None)
    if len(view.children) >= 25:  # (a full panel: /game undo still works)
        return panel
    view.add_item(TableButton(record.id, record.version, "undo"))
    return Panel(panel.content, view)


class Table:
    """Undo, resign, spectators, rematch, ratings and replays over ``ctx``."""

    def __init__(self, ctx: HostContext, notices: Notices) -> None:
        self.ctx = ctx
        self.notices = notices

    async def undo(self, interaction: discord.Interaction, game: int, version: int | None) -> None:
        """Undo pressed in a panel of ``version`` (or ``/game undo``, ``version`` None): take
        back the caller's last action, tell the table (the log line ``event.table.undo`` and
        the board), and show the caller's decision again, with Undo when another is allowed.

        Raises:
            HostError: not a player; a stale panel; nothing to undo now.
        """
        from_panel = version is not None
        if from_panel:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        record, seat = await self.ctx.seated(interaction, game)
        result = await self.ctx.service.undo(record.id, interaction.user.id, expected_version=version)
        await self.ctx.delivered(self.notices.after(result))
        record = result.game
        panel = build_panel(self.ctx.service.engine(record), record, self.ctx.service.state(record), seat,
                            note=say("undone"))
        panel = await with_undo(self.ctx, record, interaction.user.id, panel)
        content = panel.content[:MESSAGE_CHARS]
        if from_panel:
            await interaction.edit_original_response(content=content, view=panel.view)
        elif panel.view is not None:
            await interaction.followup.send(content, view=panel.view, ephemeral=True)
        else:
            await interaction.followup.send(content, ephemeral=True)

    async def ask_resign(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """``/game resign``: a private question with a confirm button (nothing changes yet).

        Raises:
            HostError: the caller has no seat in this running game.
        """
        if record.seat_of(interaction.user.id) is None or record.status != "active":
            raise HostError(say("not_playing", game=record.id), "not_a_player")
        view = discord.ui.View(timeout=None)
        view.add_item(TableButton(record.id, record.version, "resign"))
        await interaction.response.send_message(say("resign_ask", game=record.id), view=view, ephemeral=True)

    async def resign(self, interaction: discord.Interaction, game: int) -> None:
        """The resign confirmation pressed: the seat is left (``GameService.resign``), the
        table is told publicly, and the game goes on with the seat played automatically.

        Raises:
            HostError: the caller no longer plays in this running game.
        """
        await interaction.response.defer()
        record, seat = await self.ctx.seated(interaction, game)
        result = await self.ctx.service.resign(record.id, interaction.user.id)
        await self.ctx.delivery.send_text(
            record.home_channel_id, say("resigned_public", user=f"<@{interaction.user.id}>", game=record.id))
        await self.ctx.delivered(self.notices.after(result))
        await interaction.edit_original_response(content=say("resigned", game=record.id), view=None)
