"""``/ora …``: the Ora et Labora cog. Every decision is reachable from the board's Play ▶
panel (steps built from the engine's legal actions, labels, paths and prompts) and from
``/ora play action:<notation>`` with autocomplete."""

from __future__ import annotations

from cogs.base import GameCog, make_setup


class OraCog(GameCog, group_name="ora"):
    """Commands for Ora et Labora games."""

    game_id = "ora"


setup = make_setup(OraCog)
