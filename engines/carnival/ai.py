"""AI hooks of Carnival of Sins (issue 15; engines/ai/hooks.py): hidden information is only the
face-down picks of the other seats (docs/rules/carnival.md §7); hands are public."""

from __future__ import annotations

import random

from engines.base import Seat, State, copy_state

from .rules import totals


def determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """A copy of ``state`` where every other seat's face-down pick is redrawn uniformly from
    its owner's (public) hand; a function of ``seat``'s view and ``rng`` only."""
    new = copy_state(state)
    for s in range(new["players"]):
        if s != seat and new["picks"][s] is not None:
            new["picks"][s] = rng.choice(new["hands"][s])
    return new


BLIND_SIMULTANEOUS = True
"""R2 picks are simultaneous and secret (docs/rules/carnival.md §4, §7): in the search, a seat
picking after another does not see that pick (``engines.ai.search``, ``blind``)."""


ITERATION_FACTOR = 4.0
"""Carnival's searches run four times every level's iterations (normal: 480, about 0.9 s of
CPU at the median, p95 1.6 s, inside the level's 3 s cap): a game is a handful of picks, a
search is cheap, and at 120 iterations the AI won 89.8 % of 500 games against random play,
short of the 90 % goal (docs/AI.md, bench/ai_strength.py)."""


EVAL_SCALE = 8.0
"""Points of lead that make a seat's reward about 0.73 (the logistic's unit; a game ends
around 90 points a seat)."""


def evaluate(state: State) -> list[float]:
    """Each seat's running total (docs/rules/carnival.md §8.1: the sum of its round scores so
    far), the same as ``Engine.scores``. Carnival's playouts run to the end (a game is a
    handful of picks), so this serves the one-ply prior at the root and the greedy player."""
    return [float(t) for t in totals(state)]
