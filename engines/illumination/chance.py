"""Chance events of Illumination (spec docs/rules/illumination.md §6): which one is pending,
sampling it, and checking a scripted outcome.

Outcomes (actions of the ``CHANCE`` seat):

* ``{"type": "assign_sides", "reverent": seat}``
* ``{"type": "abbot_start", "station": "crypt"}``
* ``{"type": "deal_crusade", "seat": s, "card": "crusade-rabbit"}``
* ``{"type": "shuffle_tiles", "seat": s, "order": [36 tile ids]}``
* ``{"type": "shuffle_deck", "order": [24 card ids]}``
* ``{"type": "reshuffle", "order": [the discard pile's ids]}``
"""

from __future__ import annotations

import random

from engines.base import Action, IllegalAction
from engines.illumination.types import ChanceEvent, State

from .data import BLANK_STATIONS, CARDS, CRUSADE_POOL, SIDE_TILES
from .rules import side_of


def pending(state: State) -> ChanceEvent | None:
    """The chance event the state waits for (``{"type": ..., "seat": ...}``), or None (§3, §6)."""
    if state["draw"] is not None:
        return {"type": "reshuffle"}
    if state["phase"] != "setup":
        return None
    if state["reverent"] is None:
        return {"type": "assign_sides"} if state["options"]["sides"] == "random" else None
    if state["abbot"] is None:
        return {"type": "abbot_start"}
    order = (state["reverent"], 1 - state["reverent"])
    for seat in order:
        if state["crusade"][seat] is None:
            return {"type": "deal_crusade", "seat": seat}
    for seat in order:
        if state["stacks"][seat] is None:
            return {"type": "shuffle_tiles", "seat": seat}
    return {"type": "shuffle_deck"}


def sample(state: State, rng: random.Random) -> Action:
    """Sample the pending chance event uniformly (§6). The caller checks one is pending."""
    event = pending(state)
    assert event is not None
    kind = event["type"]
    if kind == "assign_sides":
        return {"type": kind, "reverent": rng.randrange(2)}
    if kind == "abbot_start":
        return {"type": kind, "station": rng.choice(BLANK_STATIONS)}
    if kind == "deal_crusade":
        seat = event["seat"]
        return {"type": kind, "seat": seat, "card": rng.choice(CRUSADE_POOL[side_of(state, seat)])}
    if kind == "shuffle_tiles":
        seat = event["seat"]
        order = list(SIDE_TILES[side_of(state, seat)])
        rng.shuffle(order)
        return {"type": kind, "seat": seat, "order": order}
    order = list(CARDS) if kind == "shuffle_deck" else sorted(state["discard"])
    rng.shuffle(order)
    return {"type": kind, "order": order}


def check(state: State, action: Action) -> None:
    """Raise ``IllegalAction`` unless ``action`` is a valid outcome of the pending event."""
    event = pending(state)
    kind = action.get("type")
    if event is None or kind != event["type"]:
        raise IllegalAction(f"No chance event {kind!r} is pending.", code="bad_chance", kind=kind)
    if "seat" in event and action.get("seat") != event["seat"]:
        raise IllegalAction("That chance outcome is for the other seat.", code="bad_chance")
    ok: bool
    if kind == "assign_sides":
        ok = action.get("reverent") in (0, 1)
    elif kind == "abbot_start":
        ok = action.get("station") in BLANK_STATIONS
    elif kind == "deal_crusade":
        ok = action.get("card") in CRUSADE_POOL[side_of(state, event["seat"])]
    else:
        if kind == "shuffle_tiles":
            expected = sorted(SIDE_TILES[side_of(state, event["seat"])])
        elif kind == "shuffle_deck":
            expected = sorted(CARDS)
        else:
            expected = sorted(state["discard"])
        order = action.get("order")
        ok = isinstance(order, list) and sorted(order) == expected
    if not ok:
        raise IllegalAction(f"Invalid {kind} outcome.", code="bad_chance", kind=kind)
