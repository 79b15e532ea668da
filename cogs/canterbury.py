"""``/canterbury …``: the Canterbury cog. Every decision is reachable from the board's Play ▶
panel (buttons and selects built from the engine's legal actions, labels and prompts)
and from ``/canterbury play action:<notation>`` with autocomplete.

A card play is one action (``sin greed red``, ``relic felix red greed``, ``pass discard
pardon-pride,sin-wrath``, as docs/rules/canterbury.md §5.1 writes it); the panel reaches it in
steps (the card, then its target) through the engine's ``action_path``, and autocomplete
offers the same whole moves (``typed_moves``: all but the many discarding passes).
"""

from __future__ import annotations

from cogs.base import GameCog, make_setup


class CanterburyCog(GameCog, group_name="canterbury"):
    """Commands for Canterbury games."""

    game_id = "canterbury"


setup = make_setup(CanterburyCog)
