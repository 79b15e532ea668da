"""AI hooks of Carnival of Sins (issue 15; engines/ai/hooks.py): hidden information is only the
face-down picks of the other seats (docs/rules/carnival.md §7); hands are public. Playouts run
to the end with a cheap rollout policy (``rollout_policy``) and are scored by the final margin
(``evaluate``, ``EVALUATE_FINAL``)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engines.base import Action, Seat, State, copy_state

from . import rules


def determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """A copy of ``state`` where every other seat's face-down pick is redrawn uniformly from
    its owner's (public) hand; a function of ``seat``'s view and ``rng`` only."""
    new = copy_state(state)
    for s in range(new["players"]):
        if s != seat and new["picks"][s] is not None:
            new["picks"][s] = rng.choice(new["hands"][s])
    return new


BLIND_SIMULTANEOUS = True
"""R2 picks are simultaneous and secret (docs/rules/carnival.md §4, §7): in the search, a seat
picking after another does not see that pick (``engines.ai.search``, ``blind``)."""


def evaluate(state: State) -> list[int]:
    """Each seat's running total (docs/rules/carnival.md §8.1 step 5): with
    ``EVALUATE_FINAL`` a playout, played to the end, is scored by the final margin."""
    return rules.totals(state)


EVAL_SCALE = 12.0
"""The logistic reward's unit (points): a typical margin at the end is 10-40 points."""

EVALUATE_FINAL = True
"""Score a finished playout by its margin, not by who won: a 7-round dice game's win or loss
is noisy, the margin less so (``engines.ai.search``)."""


def _take_value(state: State, seat: Seat, action: Action) -> int:
    """What a take gains ``seat``: the dice's values, a die stolen from another card twice
    (spec §5.3 Lust: its owner loses it)."""
    dice = state["dice"]
    ids = action.get("dice") or [action["die"]]
    gain = 0
    for d in ids:
        gain += int(dice[d]["value"])
        if dice[d]["place"] == "card" and dice[d]["owner"] != seat:
            gain += int(dice[d]["value"])
    return gain


def rollout_policy(state: State, seat: Seat, actions: Sequence[Action], rng: random.Random) -> Action:
    """A playout's move: picks (``choose``) at random; a take (Greed, Gluttony, Lust, zone
    Sloth, Pride) of the highest value (``_take_value``); Wrath rerolls the highest die on
    another seat's card without aiming (the §11 timeout move), or plays at random when no
    die is locked elsewhere. Ties at random."""
    kind = actions[0]["type"]
    if kind == "choose":
        return actions[rng.randrange(len(actions))]
    if kind == "wrath":
        dice = state["dice"]
        theirs = [a for a in actions if a["aim"] == "none" and dice[a["target"]]["place"] == "card"]
        if not theirs:
            return actions[rng.randrange(len(actions))]
        top = max(int(dice[a["target"]]["value"]) for a in theirs)
        best = [a for a in theirs if int(dice[a["target"]]["value"]) == top]
        return best[rng.randrange(len(best))]
    values = [_take_value(state, seat, a) for a in actions]
    top = max(values)
    best = [a for a, v in zip(actions, values, strict=True) if v == top]
    return best[rng.randrange(len(best))]
