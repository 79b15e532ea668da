"""AI hooks of Heaven (engines/ai/hooks.py): the other hands, their secret split
choices, the draw pile and the cards another seat drew and must still place are hidden
(docs/rules/heaven.md §11; engines/heaven/view.py)."""

from __future__ import annotations

import random

from engines.base import Seat, copy_state
from engines.heaven.types import State

from .data import CARDS, COLOURS, GATE, LAST_SPACE, TRACK
from .rules import order_seat, public_sum


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


PLAYOUT_DEPTH = 8
"""Actions a playout takes past the tree before ``evaluate`` scores it (the rest of a turn and
the next seat's): random actions replace and discard public cards at random, so after two
rounds (24 actions) the position says little about the move; on space 5, a replace that
builds the Gate set (a third 1 of the colour, or a second) was missed by 5-6 of 8 searches at
the normal level with 24 actions, by none with 8. Random playouts to the round limit (docs/rules/heaven.md
D35) cost ~280 actions an iteration."""

EVAL_SCALE = 1.0
"""Spaces of lead that make a seat's reward about 0.73 (the logistic's unit)."""


def evaluate(state: State) -> list[float]:
    """Each seat's pawn position (0..6, 6 = the Gate; docs/rules/heaven.md §2.3, §8: the
    winners are the pawns on the Gate, else the furthest) plus what is in reach, below one
    space: ``readiness``."""
    return [float(p) + readiness(state, s) for s, p in enumerate(state["positions"])]


def readiness(state: State, seat: Seat) -> float:
    """How close ``seat`` is to its next step, in [0, 0.9): on spaces 0-4 the printed public
    sum against the next space's threshold (docs/rules/heaven.md §2.3), on space 5
    ``gate_progress``, and on every space a little for each card in hand (up to 3: the
    choices of the next turns, so a seat does not sit with an empty hand declining to draw). So the search tells apart the
    moves that build toward the Gate, where the position alone is flat for many turns."""
    pos = state["positions"][seat]
    if pos >= GATE:
        return 0.0
    public = state["public"][seat]
    hand = state["hands"][seat]
    if pos < LAST_SPACE:
        threshold = TRACK[pos + 1][0]
        return HAND_CARD * min(3, len(hand)) + 0.4 * min(1.0, public_sum(public) / max(1, threshold))
    return LAST_HAND_CARD * min(3, len(hand)) + gate_progress(public, hand, bool(state["options"]["gate_same_colour"]))


HAND_CARD = 0.03
LAST_HAND_CARD = 0.06
"""``readiness``'s value of a card in hand (up to three) on spaces 0-4 and on space 5. On
space 5 every card is a draw toward the Gate set: with less, a seat holding three public
cards and an empty hand declined to draw for rounds (a fourth card makes it a Destruction
target, and the gain of a card lies beyond the playout's horizon)."""

GATE_CARD = 0.25
GATE_HELD = 0.08
"""``gate_progress``: the value of a public card that is part of a Gate set, and of a card in
hand that could take one of the missing places."""


def gate_progress(public: list[str], hand: list[str], same_colour: bool) -> float:
    """How near a seat on space 5 is to the Gate condition (docs/rules/heaven.md §2.3, D28:
    saint faction, exactly three public cards, every one a printed 1, readable as one colour
    when ``same_colour``): for the best colour, ``GATE_CARD`` for each public card that can
    stay in a Gate set (a 1 of that colour; at most one sinner card, so the set is saint)
    and ``GATE_HELD`` for each card in hand that could fill a missing place. Every other card
    is worth nothing here: a turn spent replacing a card that does not fit, or discarding
    one to draw, is progress, and holding it is not (beyond ``LAST_HAND_CARD``). Below 0.9 (never a space's worth)."""
    colours: tuple[str | None, ...] = COLOURS if same_colour else (None,)
    best = 0.0
    for colour in colours:
        def fits(card: str, colour: str | None = colour) -> bool:
            c = CARDS[card]
            return c.number == 1 and (colour is None or c.colour == colour)

        saints = sum(1 for c in public if fits(c) and CARDS[c].side == "saint")
        sinners = sum(1 for c in public if fits(c) and CARDS[c].side != "saint")
        placed = min(3, saints + min(1, sinners))
        held_saints = sum(1 for c in hand if fits(c) and CARDS[c].side == "saint")
        held_sinner = 1 if sinners == 0 and any(fits(c) and CARDS[c].side != "saint" for c in hand) else 0
        held = min(3 - placed, held_saints + held_sinner)
        best = max(best, GATE_CARD * placed + GATE_HELD * held)
    return best
