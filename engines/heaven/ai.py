"""AI hooks of Heaven (issue 15; engines/ai/hooks.py): the other hands, their secret split
choices, the draw pile and the cards another seat drew and must still place are hidden
(docs/rules/heaven.md §11; engines/heaven/view.py)."""

from __future__ import annotations

import random

from engines.base import Seat, State, copy_state

from .rules import order_seat


def determinize(st: State, seat: Seat, rng: random.Random) -> State:
    """A copy of ``st`` with every card ``seat`` cannot see redealt from the sorted pool of
    unseen cards (every size kept), other seats' confirmed split choices redrawn from their
    new hands; a function of ``seat``'s view and ``rng`` only."""
    out = copy_state(st)
    others = [s for s in range(out["players"]) if s != seat]
    buffer_hidden = out["phase"] != "play" or order_seat(out) != seat
    pool: list[str] = list(out["deck"])
    for s in others:
        pool += out["hands"][s]
    if buffer_hidden:
        pool += out["buffer"]
    pool.sort()
    rng.shuffle(pool)
    for s in others:
        hand = [pool.pop() for _ in out["hands"][s]]
        if out["split"][s] is not None:
            out["split"][s] = rng.sample(hand, len(out["split"][s]))
        out["hands"][s] = hand
    if buffer_hidden:
        out["buffer"] = [pool.pop() for _ in out["buffer"]]
    out["deck"] = sorted(pool)
    if out["build"] is not None and out["build"]["card"] not in out["hands"][order_seat(out)]:
        out["build"] = None
    return out


PLAYOUT_DEPTH = 24
"""Actions a playout takes past the tree before ``evaluate`` scores it (about two rounds of a
4-player table): random playouts to the round limit (docs/rules/heaven.md D35) cost ~280
actions an iteration and say little about the move (issue 15 point 4, bench/ai_strength.py)."""

EVAL_SCALE = 1.0
"""Spaces of lead that make a seat's reward about 0.73 (the logistic's unit)."""


def evaluate(state: State) -> list[float]:
    """Each seat's pawn position (0..6, 6 = the Gate; docs/rules/heaven.md §2.3, §8: the
    winners are the pawns on the Gate, else the furthest)."""
    return [float(p) for p in state["positions"]]
