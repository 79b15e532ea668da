"""AI hooks of Illumination (engines/ai/hooks.py): the deck order, the contents of
the face-down stacks, the other seat's hand and its Crusade card are hidden
(docs/rules/illumination.md §7; engines/illumination/view.py)."""

from __future__ import annotations

import random

from engines.base import Seat
from engines.illumination.types import State

from .rules import clone, score_breakdown
from .view import shuffle_hidden


def determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """``shuffle_hidden`` (each face-down stack reordered, the deck and the other hand
    redealt, the other Crusade redrawn) applied to a canonical form of ``state``: stacks
    sorted, the deck and the other hand refilled in sorted order from their pooled cards.
    So the result is a function of ``seat``'s view and ``rng`` only."""
    st = clone(state)
    for stack in st["stacks"]:
        if stack:
            stack.sort()
    other = 1 - seat
    size = len(st["deck"] or [])
    pool = sorted([*(st["deck"] or []), *st["hands"][other]])
    if st["deck"] is not None:
        st["deck"] = pool[:size]
    st["hands"][other] = pool[size:]
    return shuffle_hidden(st, seat, rng)


PLAYOUT_DEPTH = 24
"""Actions a playout takes past the tree before ``evaluate`` scores it. Played to the end, a
normal-level decision took 2.8 s of CPU on average on 8 positions of two random games (up to
3.1 s; p95 3.2 s over a game on the loaded machine, past the level's 2 s cap); cut at 24
actions 0.85 s (up to 0.97 s), and the move was the same in 5 of the 8 positions. Whether
the cut-off plays as well as playouts to the end was not measured head to head."""

EVAL_SCALE = 4.0
"""Points of lead that make a seat's reward about 0.73 (the logistic's unit)."""


def evaluate(state: State) -> list[float]:
    """Each seat's score if the game ended now, its Crusade included (docs/rules/illumination.md
    §8: rituals, face-up tiles, Battle majorities, the Crusade reached, less the sheepfold);
    in a determinization the other seat's Crusade card is the sampled one."""
    if state["reverent"] is None:
        return [0.0, 0.0]
    return [float(score_breakdown(state, s, crusade=True)["total"]) for s in (0, 1)]
