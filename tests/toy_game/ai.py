"""Goofspiel's AI hook (``engines.ai.hooks``): the other player's secret bid is any card of
their hand."""

from __future__ import annotations

import random

from engines.base import Seat, State, copy_state


def determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """``state`` with every bid ``seat`` cannot see drawn again from its bidder's hand."""
    st = copy_state(state)
    for other in (0, 1):
        if other != seat and st["bids"][other] is not None:
            st["bids"][other] = rng.choice(st["hands"][other])
    return st
