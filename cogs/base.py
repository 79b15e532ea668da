"""``GameCog``: the per-game slash group (``/carnival …``), one cog per registered game
(``cog_class``; this module is the extension that adds them).

It offers the keyboard path to every decision: ``/<game> play action:<notation>`` with
autocomplete of the caller's legal moves (autocomplete only suggests; the engine
re-checks), plus shortcuts for the panel, the private view and the rules.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, ClassVar, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import HostError, texts
from bot.text import MissingText, Texts
from bot.ui.arguments import GameOption, game_number
from engines.registry import ENGINES
from engines.registry import get as get_engine
from engines.registry import notation as get_notation

if TYPE_CHECKING:
    from bot.app import GameBot


class GameCog(commands.GroupCog):
    """Base of every game cog; ``cog_class`` makes one subclass per game, with its ``game_id``
    and ``group_name``. Every decision is reachable from the board's Play ▶ panel (steps built
    from the game's legal actions and its notation's labels, paths and prompts) and from
    ``/<game> play action:<notation>`` with autocomplete.

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
        record = await flow.ctx.resolve_game(interaction, game, self.game_id, playing=True)
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


def group_description(game_id: str) -> str:
    """The English description of ``/<game_id>``: the catalog's ``cmd.desc.<game_id>``
    (bot/text/en/cmd.toml, or the game's own file: ``bot.text.guests``), else "Commands for
    <name> games." (``EngineInfo.name``)."""
    try:
        return Texts(game_id, []).template(f"cmd.desc.{game_id}")
    except MissingText:
        return f"Commands for {get_engine(game_id).info.name} games."


def cog_class(game_id: str) -> type[GameCog]:
    """The ``GameCog`` subclass of one registered game: ``CarnivalCog`` with the slash group
    ``/carnival`` (discord.py takes the group's name as a class keyword, so the class is made
    with ``types.new_class``; its docstring is the group's description)."""
    name = "".join(part.capitalize() for part in game_id.split("_")) + "Cog"

    def body(namespace: dict[str, Any]) -> None:
        namespace.update({"__doc__": group_description(game_id), "__module__": __name__,
                          "__qualname__": name, "game_id": game_id})

    return cast(type[GameCog], types.new_class(name, (GameCog,), {"group_name": game_id}, body))


async def setup(bot: GameBot) -> None:
    """Extension entry point: one cog per game of the registry (``engines.registry.ENGINES``,
    read when the extension loads), in menu order."""
    for game_id in ENGINES:
        await bot.add_cog(cog_class(game_id)(bot))
