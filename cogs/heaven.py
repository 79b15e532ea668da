"""``/heaven …``: the Heaven cog. Every decision is reachable from the board's Play ▶
panel (buttons and selects built from the engine's legal actions, labels and prompts)
and from ``/heaven play action:<notation>`` with autocomplete."""

from __future__ import annotations

from cogs.base import GameCog, make_setup


class HeavenCog(GameCog, group_name="heaven"):
    """Commands for Heaven games."""

    game_id = "heaven"


setup = make_setup(HeavenCog)
