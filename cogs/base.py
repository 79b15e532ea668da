"""``GameCog``: the per-game slash group (``/carnival …``) every game cog builds on.

It offers the keyboard path to every decision: ``/<game> play action:<notation>`` with
autocomplete of the caller's legal moves (autocomplete only suggests; the engine
re-checks), plus shortcuts for the panel, the private view and the rules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import HostError, texts
from bot.ui.arguments import GameOption, game_number
from engines.registry import notation as get_notation

if TYPE_CHECKING:
    from bot.app import GameBot


class GameCog(commands.GroupCog):
    """Base of every game cog; subclasses set ``game_id`` and ``group_name``.

    Refusals raised by the handlers are answered by the bot's one error path
    (``bot/ui/errors.py``).
    """

    game_id: ClassVar[str]

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        super().__init__()

    async def action_autocomplete(self, interaction: discord.Interaction,
                                  current: str) -> list[app_commands.Choice[str]]:
        """The caller's moves in notation (``Notation.typed_moves``), filtered by every typed
        word (matched against the notation or the label)."""
        ctx = self.bot.flow.ctx
        number = game_number(getattr(interaction.namespace, "game", None))
        try:
            chosen = await ctx.service.get(number) if number is not None else None
            record = await ctx.resolve_game(interaction, chosen, self.game_id)
        except HostError:
            return []
        seat = record.seat_of(interaction.user.id)
        if seat is None or record.state is None or record.status != "active":
            return []
        notation = get_notation(self.game_id)
        state = ctx.service.state(record)
        tx = texts(record, ctx.delivery.locales.private(interaction))
        wanted = current.lower().split()
        out = []
        for action in notation.typed_moves(state, seat):
            text = notation.describe_action(state, action)
            label = tx(notation.action_label(state, action))
            if all(w in text.lower() or w in label.lower() for w in wanted):
                name = label if text in label else f"{text} · {label}"
                out.append(app_commands.Choice(name=name[:100], value=text[:100]))
        return out[:25]

    @app_commands.command(name="play")
    @app_commands.describe(action="Your move in notation (autocomplete lists your legal moves); empty = panel",
                           game="Game number (default: your game in this channel)")
    async def play(self, interaction: discord.Interaction,
                   action: app_commands.Range[str, 1, 200] | None = None, game: GameOption | None = None) -> None:
        """Make a move by typing it, or open your move panel."""
        flow = self.bot.flow
        if action:
            await flow.moves.act_text(interaction, game, self.game_id, action)
            return
        record = await flow.ctx.resolve_game(interaction, game, self.game_id)
        await flow.moves.open_panel(interaction, record.id)

    @app_commands.command(name="hand")
    @app_commands.describe(game="Game number (default: your game in this channel)")
    async def hand(self, interaction: discord.Interaction, game: GameOption | None = None) -> None:
        """Your private view — only you can see it."""
        flow = self.bot.flow
        record = await flow.ctx.resolve_game(interaction, game, self.game_id)
        await flow.notices.show_private(interaction, record.id)

    @app_commands.command(name="rules")
    async def rules(self, interaction: discord.Interaction) -> None:
        """The rules summary and the decisions this bot plays by."""
        await self.bot.flow.notices.show_rules(interaction, self.game_id)

    @play.autocomplete("action")
    async def _play_action_autocomplete(self, interaction: discord.Interaction,
                                        current: str) -> list[app_commands.Choice[str]]:
        return await self.action_autocomplete(interaction, current)


def make_setup(cog_cls: type[GameCog]) -> Callable[[GameBot], Awaitable[None]]:
    """Build an extension ``setup`` for ``cog_cls``."""

    async def setup(bot: GameBot) -> None:
        await bot.add_cog(cog_cls(bot))

    return setup
