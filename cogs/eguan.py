"""``/eguan …``: the Eguan cog. Every decision is reachable from the board's Play ▶
panel (buttons and selects built from the engine's legal actions, labels and prompts)
and from ``/eguan play action:<notation>`` with autocomplete."""

from __future__ import annotations

from cogs.base import GameCog, make_setup


class EguanCog(GameCog, group_name="eguan"):
    """Commands for Eguan games."""

    game_id = "eguan"


setup = make_setup(EguanCog)
