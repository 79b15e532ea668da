"""Chance in The Road to Canterbury (docs/rules/canterbury.md §6): the pending chance
frame's outcomes, their weights, sampling, and the check of a scripted outcome.

A chance frame is ``{"f": "chance", "what": ...}`` on top of the stack:
``first_player``, ``parson_start``, ``pilgrim`` (with ``company``), ``reveal`` (a
face-down draw, §6 ``draw``: with ``deck`` and ``purpose`` = ``setup_hand`` | ``setup_row``
| ``row`` | ``hand`` | ``isidore``) or ``steal`` (St. Benedict: ``target``, ``deck``).
Outcomes are actions: ``{"type": "first_player", "seat": 1}``, ``{"type": "parson_start",
"sin": "greed"}``, ``{"type": "pilgrim", "pilgrim": "friar"}``, ``{"type": "reveal", "card":
"sin-greed"}``, ``{"type": "steal", "card": "pardon-lust"}``.
"""

from __future__ import annotations

import copy
import random

from engines.base import IllegalAction
from engines.canterbury.data import SINS
from engines.canterbury.rules import distinct, hand_type, pilgrim_deck, sort_cards
from engines.canterbury.types import Action, Frame, State


def pending(state: State) -> Frame | None:
    """The chance frame on top of the stack, or None when a player decides."""
    stack = state["stack"]
    if stack and stack[-1]["f"] == "chance":
        frame: Frame = stack[-1]
        return frame
    return None


def chance_weights(state: State) -> list[tuple[Action, int]]:
    """Every possible outcome of the pending chance event with its weight (§6): uniform
    for seats, sins and pilgrims; copies in the deck for a draw; copies in the target's
    hand (among cards of the named back) for a steal. Empty when no chance is pending."""
    top = pending(state)
    if top is None:
        return []
    what = top["what"]
    if what == "first_player":
        return [({"type": "first_player", "seat": s}, 1) for s in range(state["players"])]
    if what == "parson_start":
        return [({"type": "parson_start", "sin": s}, 1) for s in SINS]
    if what == "pilgrim":
        return [({"type": "pilgrim", "pilgrim": p}, 1) for p in pilgrim_deck(state)]
    if what == "reveal":
        deck = state["decks"][top["deck"]]
        return [({"type": "reveal", "card": k}, deck[k]) for k in sort_cards([k for k, v in deck.items() if v > 0])]
    if what == "steal":
        hand = state["hands"][top["target"]]
        return [({"type": "steal", "card": k}, hand.count(k)) for k in distinct(hand)
                if hand_type(k) == top["deck"]]
    return []


def chance_actions(state: State) -> list[Action]:
    """The possible outcomes of the pending chance event, in display order."""
    return [a for a, _ in chance_weights(state)]


def sample_chance(state: State, rng: random.Random) -> Action:
    """Draw the pending outcome with ``rng`` by its weight (§6).

    Raises:
        IllegalAction: nothing can come out (no chance pending).
    """
    weighted = chance_weights(state)
    total = sum(w for _, w in weighted)
    if total <= 0:
        raise IllegalAction("No chance outcome is possible here.", code="no_chance")
    r = rng.randrange(total)
    for action, w in weighted:
        if r < w:
            return copy.deepcopy(action)
        r -= w
    raise AssertionError("unreachable")  # pragma: no cover


def check_outcome(state: State, action: Action) -> None:
    """A scripted outcome (tests, replays) must be possible (§6 "Scripted outcomes").

    Raises:
        IllegalAction: the card or pilgrim is not available, or the outcome is of
            another event.
    """
    if action not in chance_actions(state):
        raise IllegalAction("That chance outcome is impossible here (the card or pilgrim is not available).",
                            code="impossible_chance", action=action)
