"""AI hooks of Illumination (issue 15; engines/ai/hooks.py): the deck order, the contents of
the face-down stacks, the other seat's hand and its Crusade card are hidden
(docs/rules/illumination.md §7; engines/illumination/view.py)."""

from __future__ import annotations

import random

from engines.base import Seat, State

from .data import CRUSADE_POOL
from .rules import clone, side_of


def determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """A copy of ``state`` with each face-down stack reordered, the deck and the other hand
    redealt from their sorted pool and the other Crusade redrawn from its side's pool; a
    function of ``seat``'s view and ``rng`` only."""
    st = clone(state)
    for s in (0, 1):
        stack = st["stacks"][s]
        if stack:
            stack.sort()
            rng.shuffle(stack)
    other = 1 - seat
    pool = sorted([*(st["deck"] or []), *st["hands"][other]])
    rng.shuffle(pool)
    st["hands"][other] = [pool.pop() for _ in st["hands"][other]]
    if st["crusade"][other] is not None and st["reverent"] is not None and st["phase"] != "over":
        st["crusade"][other] = rng.choice(CRUSADE_POOL[side_of(st, other)])
    if st["deck"] is not None:
        st["deck"] = pool
    return st
