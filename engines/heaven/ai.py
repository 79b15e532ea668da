"""AI hooks of Heaven (engines/ai/hooks.py): the other hands, their secret split
choices, the draw pile and the cards another seat drew and must still place are hidden
(docs/rules/heaven.md §11; engines/heaven/view.py)."""

from __future__ import annotations

import random

from engines.base import Seat, copy_state
from engines.heaven.types import State

from .data import CARDS, GATE, LAST_SPACE, TRACK
from .rules import faction, one_colour_possible, order_seat, public_sum


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
        chosen = out["split"][s]
        if chosen is not None:
            out["split"][s] = rng.sample(hand, len(chosen))
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
actions an iteration and say little about the move (bench/ai_strength.py)."""

EVAL_SCALE = 1.0
"""Spaces of lead that make a seat's reward about 0.73 (the logistic's unit)."""


def evaluate(state: State) -> list[float]:
    """Each seat's pawn position (0..6, 6 = the Gate; docs/rules/heaven.md §2.3, §8: the
    winners are the pawns on the Gate, else the furthest) plus what is in reach, below one
    space: ``readiness``."""
    return [float(p) + readiness(state, s) for s, p in enumerate(state["positions"])]


def readiness(state: State, seat: Seat) -> float:
    """How close ``seat`` is to its next step, in [0, 0.9): on spaces 0-4 the printed public
    sum against the next space's threshold (docs/rules/heaven.md §2.3); on space 5 the Gate
    condition (§2.3): saint faction, three public cards readable as one colour, each a
    printed 1, and the 1s in hand that could still replace a public card; on every space a
    little for each card in hand (up to 3: the choices of the next turns, so a seat does not
    sit with an empty hand declining to draw). So the search tells apart the moves that build
    toward the Gate, where the position alone is flat for many turns."""
    pos = state["positions"][seat]
    if pos >= GATE:
        return 0.0
    public = state["public"][seat]
    hand = state["hands"][seat]
    value = HAND_CARD * min(3, len(hand))
    if pos < LAST_SPACE:
        threshold = TRACK[pos + 1][0]
        return value + 0.4 * min(1.0, public_sum(public) / max(1, threshold))
    if faction(public) == "saint":
        value += 0.15
    if len(public) == 3 and one_colour_possible(public):
        value += 0.15
    ones = min(3, sum(1 for c in public if CARDS[c].number == 1))
    spare = sum(1 for c in hand if CARDS[c].number == 1 and CARDS[c].side == "saint")
    return value + 0.1 * ones + 0.05 * min(3 - ones, spare)


HAND_CARD = 0.03
"""``readiness``'s value of a card in hand (up to three)."""
