"""``/carnival …``: the Carnival cog. Every decision is reachable from the board's Play ▶
panel (buttons and selects built from the engine's legal actions, labels and prompts)
and from ``/carnival play action:<notation>`` with autocomplete."""

from __future__ import annotations

from cogs.base import GameCog, make_setup


class CarnivalCog(GameCog, group_name="carnival"):
    """Commands for Carnival games."""

    game_id = "carnival"


setup = make_setup(CarnivalCog)
