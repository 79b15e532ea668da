"""AI hooks of Carnival of Sins (engines/ai/hooks.py): hidden information is only the
face-down picks of the other seats (docs/rules/carnival.md §7); hands are public."""

from __future__ import annotations

import random

from engines.base import Seat, copy_state
from engines.carnival.types import State

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


LEVEL_ITERATIONS = {"easy": 72, "normal": 360, "hard": 1200}
"""Carnival's iterations per decision (``engines.ai.search.budget_for``): a game is a handful
of picks and a search is cheap, so easy and normal run three times ``LEVELS``' (normal 480
put its p95 near 1.9 s of CPU, too close to its 2 s cap once the root's one-ply prior was
added). Hard runs 1,200 (3.3 times normal's), not 1,800: side by side on the same seeds,
1,800 took 2.5 s of CPU a decision on average (p95 3.9 s) and 1,200 1.7 s (p95 2.6 s); at a
higher load 1,800 took 4.5 s (p95 7.0 s) against the 8 s cap (docs/AI.md)."""


EVAL_SCALE = 8.0
"""Points of lead that make a seat's reward about 0.73 (the logistic's unit; a game ends
around 90 points a seat)."""


def evaluate(state: State) -> list[float]:
    """Each seat's running total (docs/rules/carnival.md §8.1: the sum of its round scores so
    far), the same as ``Engine.scores``. Carnival's playouts run to the end (a game is a
    handful of picks), so this serves the one-ply prior at the root and the greedy player."""
    return [float(t) for t in totals(state)]
