"""Chance in Ora et Labora (spec docs/rules/ora.md §6): only the first start player."""

from __future__ import annotations

import random

from engines.base import IllegalAction
from engines.ora.types import Action, State


def sample_chance(st: State, rng: random.Random) -> Action:
    """The CHANCE ``start_player`` outcome: a uniform seat (§6)."""
    return {"type": "start_player", "seat": rng.randrange(st["n"])}


def check_chance(st: State, action: Action) -> int:
    """Validate a scripted ``start_player`` outcome; return the seat.

    Raises:
        IllegalAction: not a start-player outcome or a seat out of range.
    """
    seat = action.get("seat")
    if action.get("type") != "start_player" or not isinstance(seat, int) or isinstance(seat, bool) \
            or not 0 <= seat < st["n"]:
        raise IllegalAction("The chance outcome must be a start seat.", code="bad_chance")
    return seat
