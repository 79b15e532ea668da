"""AI hooks of Ora et Labora (engines/ai/hooks.py): no hidden information (the
state is its own determinization), a cut-off evaluation by the live score.

Random playouts to the end of the game (~170 actions in a 2-player game, docs/rules/ora.md
§10) cost most of the search and mostly measure the random players; the score a few turns on
(``PLAYOUT_DEPTH``) is cheaper and says more about the move.
"""

from __future__ import annotations

from engines.ora.types import State

from . import rules

PLAYOUT_DEPTH = 24
"""Actions a playout takes past the tree before ``evaluate`` scores it (a few turns each)."""

EVAL_SCALE = 6.0
"""Points of lead that make a seat's reward about 0.73 (the logistic's unit)."""


def evaluate(state: State) -> list[float]:
    """Each seat's live total (docs/rules/ora.md §8: goods, buildings' economic value and
    settlement points; ``rules.score``), the same as ``Engine.scores``."""
    return [float(rules.score(state, s)["total"]) for s in range(state["n"])]
