"""AI hooks of The Canterbury Tales (engines/ai/hooks.py): the other hands (their
backs are public), the deck contents behind the backs and the other seats' coins are hidden
(docs/rules/canterbury.md §7, D20; engines/canterbury/view.py).

Decision: the searching seat has no log, so it cannot add up the public payouts; it takes each
other seat's coins to equal its own (a neutral guess that keeps the pass fine plausible).
"""

from __future__ import annotations

import random

from engines.base import Seat, copy_state
from engines.canterbury.types import State

from .data import CARDS
from .rules import final_scores, hand_type, is_over, sort_cards


def determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """A copy of ``state`` where every other seat's hand is redealt, back by back, from the
    sorted pool of unseen cards of that back (the deck's non-Death cards plus those hands;
    cards the active seat has already discarded in a pass stay in its hand), and other
    seats' coins set to ``seat``'s own. A function of ``seat``'s view and ``rng`` only."""
    s = copy_state(state)
    top = s["stack"][-1] if s["stack"] else None
    locked = list(top.get("pass_discards", [])) if top is not None else []
    others = [q for q in range(s["players"]) if q != seat]
    pools: dict[str, list[str]] = {}
    wanted: dict[int, list[str]] = {}
    kept: dict[int, list[str]] = {}
    for deck_name, deck in s["decks"].items():
        pools[deck_name] = [x for x, v in deck.items() for _ in range(v) if CARDS[x].kind != "death"]
    for q in others:
        keep = list(locked) if q == s["active"] else []
        kept[q], wanted[q] = [], []
        for k in s["hands"][q]:
            if k in keep:
                keep.remove(k)
                kept[q].append(k)
            else:
                wanted[q].append(hand_type(k))
                pools[hand_type(k)].append(k)
        wanted[q].sort()
        if not is_over(s):
            s["coins"][q] = s["coins"][seat]
    for pool in pools.values():
        pool.sort()
        rng.shuffle(pool)
    for q in others:
        s["hands"][q] = sort_cards(kept[q] + [pools[t].pop() for t in wanted[q]])
    for deck_name, deck in s["decks"].items():
        counts: dict[str, int] = {x: v for x, v in deck.items() if CARDS[x].kind == "death"}
        for x in pools[deck_name]:
            counts[x] = counts.get(x, 0) + 1
        s["decks"][deck_name] = {x: counts[x] for x in sort_cards(list(counts))}
    return s


PLAYOUT_DEPTH = 16
"""Actions a playout takes past the tree before ``evaluate`` scores it (random
playouts to the end are no better than random play, bench/ai_strength.py)."""

EVAL_SCALE = 6.0
"""Coins of lead that make a seat's reward about 0.73 (the logistic's unit)."""


def evaluate(state: State) -> list[float]:
    """Each seat's total if the road were scored now (docs/rules/canterbury.md §8:
    ``final_scores``: coins, Road awards, company majorities, tokens). In a determinization
    the other seats' coins are the searching seat's guess (``determinize``), so what counts
    is what changed since."""
    return [float(x) for x in final_scores(state)["totals"]]
