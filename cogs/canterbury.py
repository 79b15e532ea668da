"""``/canterbury …``: the Canterbury cog. Every decision is reachable from the board's Play ▶
panel (buttons and selects built from the engine's legal actions, labels and prompts)
and from ``/canterbury play action:<notation>`` with autocomplete.

The panel plays a card in steps (the card, then its target); typed moves may name the
whole move at once as the spec writes it (``sin greed red``, ``relic felix red greed``,
``pass discard pardon-pride,sin-wrath``), so autocomplete offers those whole moves.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.service import HostError
from cogs.base import GameCog, make_setup
from engines.registry import get as get_engine


class CanterburyCog(GameCog, group_name="canterbury"):
    """Commands for Canterbury games."""

    game_id = "canterbury"

    async def action_autocomplete(self, interaction: discord.Interaction,
                                  current: str) -> list[app_commands.Choice[str]]:
        """The caller's moves in the spec's notation (whole moves at a card choice),
        filtered by every typed word (matched against the notation or the label)."""
        try:
            game = getattr(interaction.namespace, "game", None)
            record = await self.bot.flow.resolve_game(interaction, game, self.game_id)
        except HostError:
            return []
        seat = record.seat_of(interaction.user.id)
        if seat is None or record.state is None or record.status != "active":
            return []
        engine = get_engine(self.game_id)
        state = self.bot.service.state(record)
        moves = getattr(engine, "typed_moves", engine.legal_actions)(state, seat)
        wanted = current.lower().split()
        out = []
        for action in moves:
            text = engine.describe_action(state, action)
            label = engine.action_label(state, action)
            if all(w in text.lower() or w in label.lower() for w in wanted):
                out.append(app_commands.Choice(name=f"{text} · {label}"[:100], value=text[:100]))
        return out[:25]


setup = make_setup(CanterburyCog)
