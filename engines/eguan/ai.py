"""AI hooks of E Guan (engines/ai/hooks.py): the deck, the other hands, every waiting
pile, the other seats' kept and removed kept cards and, during setup, their skill choices are
hidden (docs/rules/eguan.md; engines/eguan/view.py)."""

from __future__ import annotations

import random

from engines.base import Seat, copy_state
from engines.eguan.types import State

from .data import SET_LETTERS
from .rules import active, board_counts, final_scoring


def determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """A copy of ``state`` with every card ``seat`` cannot see redealt from the sorted pool of
    unseen cards, every size kept; a card another seat is placing stays where it is (it is
    public); other seats' setup skill choices redrawn. A function of ``seat``'s view and
    ``rng`` only."""
    st = copy_state(state)
    others = [s for s in range(st["players"]) if s != seat]
    pend = st["pending"]
    placing = pend["card"] if pend is not None and pend.get("step") == "place" and active(st) != seat else None
    pool: list[str] = list(st["deck"])
    for s in others:
        pool += [c for c in st["hands"][s] if c != placing]
        kept = st["kept"][s]
        if kept is not None and kept["card"] != placing:
            pool.append(kept["card"])
        pool += st["removed_kept"][s]
    for piles in st["piles"]:
        for p in piles:
            pool += p["cards"]
    pool.sort()
    rng.shuffle(pool)

    def deal(k: int) -> list[str]:
        out = pool[len(pool) - k:]
        del pool[len(pool) - k:]
        return out

    for s in others:
        st["hands"][s] = [c if c == placing else deal(1)[0] for c in st["hands"][s]]
        kept = st["kept"][s]
        if kept is not None and kept["card"] != placing:
            kept["card"] = deal(1)[0]
        st["removed_kept"][s] = deal(len(st["removed_kept"][s]))
    for piles in st["piles"]:
        for p in piles:
            p["cards"] = deal(len(p["cards"]))
    st["deck"] = sorted(pool)
    if st["phase"] == "skill":
        for s in others:
            if st["skills"][s] is not None:
                st["skills"][s] = rng.choice(SET_LETTERS)
    return st


PLAYOUT_DEPTH = 24
"""Actions a playout takes past the tree before ``evaluate`` scores it (random
playouts to the end are no better than random play, bench/ai_strength.py)."""

EVAL_SCALE = 4.0
"""Points of lead that make a seat's reward about 0.73 (the logistic's unit)."""


def evaluate(state: State) -> list[float]:
    """Each seat's value of a (determinized) position: its score if the game were scored
    now (Infamy plus the title bonuses it leads, docs/rules/eguan.md §8) plus the Infamy its
    visible Evil icons would bring in each of its turns left (about the deck shared out)."""
    table = final_scoring(state)
    turns_left = len(state["deck"]) / max(1, state["players"])
    return [float(table["scores"][s]) + board_counts(b)["E"] * turns_left
            for s, b in enumerate(state["boards"])]
