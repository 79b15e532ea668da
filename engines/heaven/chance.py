"""Chance in The Way to Heaven (docs/rules/heaven.md §6, D31, D33): every draw is a
uniform pick from the draw pile, the start player a uniform pick of a seat, Destruction's
hand card a uniform pick of the target's hand.

``state["chance"]`` says what is pending: ``{"kind": "draw", "seat", "left", "purpose"}``,
``{"kind": "start"}`` or ``{"kind": "destroy", "seat"}``. Outcomes are actions:
``{"type": "draw", "card": id}``, ``{"type": "start", "seat": s}``,
``{"type": "destroy", "card": id}``.
"""

from __future__ import annotations

import copy
import random

from engines.heaven.types import Action, State


def outcomes(st: State) -> list[Action]:
    """Every possible outcome of the pending chance event, each equally likely (§6);
    empty when none is pending."""
    ch = st["chance"]
    if ch is None:
        return []
    if ch["kind"] == "draw":
        return [{"type": "draw", "card": c} for c in st["deck"]]
    if ch["kind"] == "start":
        return [{"type": "start", "seat": s} for s in range(st["players"])]
    return [{"type": "destroy", "card": c} for c in sorted(st["hands"][ch["seat"]])]


def sample_chance(st: State, rng: random.Random) -> Action:
    """A uniform pick among ``outcomes(st)`` with ``rng``.

    Raises:
        IndexError: no chance event is pending (the engine checks first).
    """
    return copy.deepcopy(rng.choice(outcomes(st)))


def possible(st: State, action: object) -> bool:
    """Is ``action`` a possible outcome now (a scripted outcome is checked against the
    draw pile, the seats or the target's hand)?"""
    return isinstance(action, dict) and action in outcomes(st)
