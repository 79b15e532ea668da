"""``/canterbury …``: the Canterbury cog. Every decision is reachable from the board's Play ▶
panel (buttons and selects built from the engine's legal actions, labels and prompts)
and from ``/canterbury play action:<notation>`` with autocomplete.

The panel plays a card in steps (the card, then its target); typed moves may name the
whole move at once as the spec writes it (``sin greed red``, ``relic felix red greed``,
``pass discard pardon-pride,sin-wrath``), so the engine's ``typed_moves`` offers those whole moves to autocomplete.
"""

from __future__ import annotations

from cogs.base import GameCog, make_setup


class CanterburyCog(GameCog, group_name="canterbury"):
    """Commands for Canterbury games."""

    game_id = "canterbury"


setup = make_setup(CanterburyCog)
