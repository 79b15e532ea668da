"""Chance in E Guan (docs/rules/eguan.md §6): the outcomes CHANCE may take now, sampling
one, and the check of a scripted outcome (tests and rigged decks apply chosen draws
and rolls directly).

Outcomes: ``{"type": "draw", "card": id}`` (deal, refill, ``draw_kept``: uniform over the
cards still in the deck), ``{"type": "start", "seat": s}`` (uniform) and
``{"type": "roll", "value": 1-6}`` (the trouble die).
"""

from __future__ import annotations

import copy
import random

from engines.base import IllegalAction, NotYourTurn
from engines.eguan.types import Action, State

DIE_FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
"""The six-sided trouble die (spec §2.5)."""


def chance_step(state: State) -> str | None:
    """What chance decides now: ``"draw"``, ``"start"``, ``"roll"``, or None."""
    phase = state["phase"]
    if phase == "deal":
        return "draw"
    if phase == "start":
        return "start"
    step = (state["pending"]["step"] if state["pending"] else None) if phase == "play" else None
    if step in ("refill", "draw_kept"):
        return "draw"
    return "roll" if step == "roll" else None


def chance_actions(state: State) -> list[Action]:
    """Every possible outcome now, in a fixed order (the deck is kept sorted); empty
    when chance is not to move (spec §6)."""
    step = chance_step(state)
    if step == "draw":
        return [{"type": "draw", "card": c} for c in state["deck"]]
    if step == "start":
        return [{"type": "start", "seat": s} for s in range(state["players"])]
    if step == "roll":
        return [{"type": "roll", "value": v} for v in DIE_FACES]
    return []


def sample_chance(state: State, rng: random.Random) -> Action:
    """A uniform draw from the deck, a uniform start seat or a d6 (spec §6).

    Raises:
        NotYourTurn: chance is not to move.
    """
    outcomes = chance_actions(state)
    if not outcomes:
        raise NotYourTurn("Chance is not to move.")
    return copy.deepcopy(rng.choice(outcomes))


def check_chance(state: State, action: object) -> None:
    """Refuse a scripted outcome that cannot happen now (a card not in the deck, a roll
    of 7, a seat that does not exist).

    Raises:
        IllegalAction: the outcome is impossible.
    """
    if action not in chance_actions(state):
        raise IllegalAction("That chance outcome is impossible now.", code="impossible_chance", action=action)
