"""Carnival of Sins chance: sampling every chance outcome and checking scripted ones
(spec docs/rules/carnival.md §6).

``sample_chance`` draws ``first_devil``, ``roll``, ``random_sin`` and ``wrath_result``
outcomes with the host's RNG; the ``check_*`` functions validate an outcome (sampled or
scripted by a test) before the engine applies it, raising ``IllegalAction`` with code
``invalid_chance``. Imports ``rules.py`` and ``data.py`` only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engines.base import CHANCE, IllegalAction, NotYourTurn
from engines.carnival import rules
from engines.carnival.data import DICE, FACES, KNOCK_SIGMA, MAX_REJECTS, MIN_SPACING
from engines.carnival.types import Action, Die, Knock, Landing, RollEntry, State


def _bad(message: str) -> IllegalAction:
    return IllegalAction(message, code="invalid_chance")


# --------------------------------------------------------------------------- sampling


def _gauss_point(rng: random.Random, sigma: float) -> tuple[int, int]:
    return (rules.round_half_away(rng.gauss(0, sigma)), rules.round_half_away(rng.gauss(0, sigma)))


def place_like_roll(rng: random.Random, sigma: float, others: Sequence[Sequence[int]]) -> list[int]:
    """Rejection sampler of §6 roll: Normal(0, sigma) per axis (milli-units), inside the
    play area, at least MIN_SPACING from ``others`` (spacing dropped after MAX_REJECTS)."""
    rejects = 0
    while True:
        x, y = _gauss_point(rng, sigma)
        ok = rules.inside(x, y)
        if ok and rejects < MAX_REJECTS:
            ok = all(rules.dist2((x, y), o) >= MIN_SPACING * MIN_SPACING for o in others)
        if ok:
            return [x, y]
        rejects += 1


def _sample_roll(state: State, rng: random.Random) -> Action:
    dice: dict[str, RollEntry] = {}
    placed: list[list[int]] = []
    zones = rules.zone_names(state["players"])
    for d in DICE:
        value = rng.randint(1, FACES[d])
        if rules.spatial(state):
            pos = place_like_roll(rng, state["options"]["roll_sigma"], placed)
            placed.append(pos)
            dice[d] = {"value": value, "pos": pos}
        else:
            dice[d] = {"value": value, "zone": rng.choice(zones)}
    return {"type": "roll", "dice": dice}


def _sample_wrath(state: State, rng: random.Random) -> Action:
    target, aim = rules.throw(state)["target"], rules.throw(state)["aim"]
    opts = state["options"]
    spatial = rules.spatial(state)
    t_info = state["dice"][target]
    faces = FACES[target]
    result: Action = {"type": "wrath_result"}
    if rng.random() < opts["wrath_off_table_prob"]:
        result["off_table"] = True
        result["penalty"] = rng.randint(1, faces)
        result["value"] = rng.randint(1, faces)
        if t_info["place"] == "table":
            if spatial:
                others = [rules.location(state, d) for d in rules.table_dice(state, True) if d != target]
                result["landing"] = place_like_roll(rng, opts["roll_sigma"], others)
            else:
                result["landing"] = rng.choice(rules.zone_names(state["players"]))
        result["knocks"] = []
        return result
    result["off_table"] = False
    result["value"] = rng.randint(1, faces)
    if aim == "none":
        result["knocks"] = []
        return result
    if spatial:
        px, py = rules.location(state, aim)
        dx, dy = _gauss_point(rng, opts["wrath_aim_sigma"])
        landing: Landing = list(rules.clip(px + dx, py + dy))
    else:
        landing = aim
    result["landing"] = landing
    knocks = []
    for d in rules.knock_candidates(state, target, landing):
        if rng.random() < opts["wrath_knock_prob"]:
            k: Knock = {"die": d, "value": rng.randint(1, FACES[d])}
            info = state["dice"][d]
            if info["place"] == "table":
                if spatial:
                    dx, dy = _gauss_point(rng, KNOCK_SIGMA)
                    x, y = rules.location(state, d)
                    k["pos"] = list(rules.clip(x + dx, y + dy))
                else:
                    k["zone"] = rules.zone_of(state, d)
            knocks.append(k)
    result["knocks"] = knocks
    return result


def sample_chance(state: State, rng: random.Random) -> Action:
    """Sample the pending chance outcome (spec §6): ``first_devil`` (uniform seat),
    ``roll`` (values uniform; positions Normal(0, roll_sigma) with spacing, or uniform
    zones), ``random_sin`` (uniform over the timed-out seat's hand) or ``wrath_result``.

    Raises:
        NotYourTurn: no chance outcome is pending.
    """
    if CHANCE not in rules.to_move(state):
        raise NotYourTurn("No chance outcome is pending.")
    phase = state["phase"]
    if phase == "setup":
        return {"type": "first_devil", "seat": rng.randrange(state["players"])}
    if phase == "roll":
        return _sample_roll(state, rng)
    if phase == "choose":
        s = state["random_pending"][0]
        return {"type": "random_sin", "seat": s, "sin": rng.choice(state["hands"][s])}
    return _sample_wrath(state, rng)


# --------------------------------------------------------------------------- checks


def check_value(die: str, value: object, what: str = "value") -> int:
    """A die value: an integer on ``die``'s faces (spec §2.1)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= FACES[die]:
        raise _bad(f"{die} {what} must be an integer from 1 to {FACES[die]}, not {value!r}.")
    return value


def check_pos(pos: object, what: str) -> list[int]:
    """A position: a pair of integers inside the play area (spec §2.4)."""
    if (not isinstance(pos, list | tuple) or len(pos) != 2
            or any(isinstance(c, bool) or not isinstance(c, int) for c in pos)):
        raise _bad(f"{what} must be a pair of integers [x, y].")
    if not rules.inside(pos[0], pos[1]):
        raise _bad(f"{what} {list(pos)} lies outside the play area.")
    return [pos[0], pos[1]]


def check_zone(state: State, zone: object, what: str) -> str:
    """A zone of this table (spec §2.6)."""
    if zone not in rules.zone_names(state["players"]):
        raise _bad(f"{what} {zone!r} is not a zone of this table.")
    return str(zone)


def check_roll(state: State, action: Action) -> dict[str, Die]:
    """Validate a ``roll`` outcome (spec §6 roll) and return the new ``dice`` of the state:
    every die on the table with its value and position (spatial) or zone (zones).

    Raises:
        IllegalAction: a die missing, a value off its faces, a position outside the play
            area, an unknown zone, or the other model's fields.
    """
    dice = action.get("dice")
    if action.get("type") != "roll" or not isinstance(dice, dict) or set(dice) != set(DICE):
        raise _bad(f"A roll gives every die {', '.join(DICE)}.")
    spatial = rules.spatial(state)
    new: dict[str, Die] = {}
    for d in DICE:
        item = dice[d]
        if not isinstance(item, dict):
            raise _bad(f"Roll entry for {d} must be an object.")
        value = check_value(d, item.get("value"))
        if spatial:
            if set(item) != {"value", "pos"}:
                raise _bad(f"Roll entry for {d} needs value and pos.")
            new[d] = {"value": value, "place": "table", "owner": None,
                      "pos": check_pos(item["pos"], f"{d} position"), "zone": None}
        else:
            if set(item) != {"value", "zone"}:
                raise _bad(f"Roll entry for {d} needs value and zone.")
            new[d] = {"value": value, "place": "table", "owner": None, "pos": None,
                      "zone": check_zone(state, item["zone"], f"{d} zone")}
    return new


@dataclass(frozen=True)
class WrathOutcome:
    """A checked ``wrath_result`` (spec §6 wrath).

    Attributes:
        off_table: the throw flew off the table.
        value: the target's new value.
        penalty: the Wrath player's penalty (0 unless off the table).
        landing: where a table target goes: ``[x, y]`` or a zone; None when it stays.
        knocks: (die, new value, new position or None) for each knocked die.
    """

    off_table: bool
    value: int
    penalty: int
    landing: Landing | None
    knocks: tuple[tuple[str, int, list[int] | None], ...]


def check_wrath(state: State, action: Action) -> WrathOutcome:
    """Validate a ``wrath_result`` for the pending throw (spec §6 wrath, both models).

    Raises:
        IllegalAction: unknown keys; a penalty without off_table (or the reverse); values
            off the faces; an off-table throw that knocks, or a landing that does not
            match where the target goes; an aimed throw without its landing, a zone
            landing that is not the aim zone; a knocked die that is not a candidate
            (§6 step 5), knocked twice, or moved against the rules.
    """
    if action.get("type") != "wrath_result":
        raise _bad("Expected a wrath_result.")
    target, aim = rules.throw(state)["target"], rules.throw(state)["aim"]
    spatial = rules.spatial(state)
    allowed = {"type", "off_table", "penalty", "value", "landing", "knocks"}
    if set(action) - allowed:
        raise _bad(f"Unknown wrath_result keys: {sorted(set(action) - allowed)}.")
    off = action.get("off_table")
    if not isinstance(off, bool):
        raise _bad("wrath_result needs off_table true/false.")
    if off != ("penalty" in action):
        raise _bad("A penalty is given exactly when the die flies off the table.")
    value = check_value(target, action.get("value"))
    knocks = action.get("knocks", [])
    if not isinstance(knocks, list):
        raise _bad("knocks must be a list.")
    on_table = state["dice"][target]["place"] == "table"

    def landing_of(raw: object) -> Landing:
        return check_pos(raw, "landing") if spatial else check_zone(state, raw, "landing")

    if off:
        penalty = check_value(target, action["penalty"], "penalty")
        if knocks:
            raise _bad("An off-table throw knocks nothing.")
        if on_table and "landing" not in action:
            raise _bad("An off-table table die needs its new landing.")
        if not on_table and "landing" in action:
            raise _bad("A locked die returns to its card: no landing.")
        return WrathOutcome(True, value, penalty, landing_of(action["landing"]) if on_table else None, ())
    if aim == "none":
        if "landing" in action or knocks:
            raise _bad("A gentle reroll (aim none) has no landing and no knocks.")
        return WrathOutcome(False, value, 0, None, ())
    if "landing" not in action:
        raise _bad("An aimed throw needs its landing.")
    landing = landing_of(action["landing"])
    if not spatial and landing != aim:
        raise _bad("In the zone table the die lands in the aim zone.")
    candidates = rules.knock_candidates(state, target, landing)
    seen: set[str] = set()
    out: list[tuple[str, int, list[int] | None]] = []
    for k in knocks:
        if not isinstance(k, dict) or k.get("die") not in DICE:
            raise _bad("Each knock names a die.")
        d = k["die"]
        if d in seen:
            raise _bad(f"{d} is knocked twice.")
        seen.add(d)
        if d not in candidates:
            raise _bad(f"{d} is not near the landing point, so it cannot be knocked.")
        kv = check_value(d, k.get("value"))
        place: list[int] | None = None
        if state["dice"][d]["place"] == "table" and spatial:
            if set(k) != {"die", "value", "pos"}:
                raise _bad(f"Knocked {d} needs its new pos.")
            place = check_pos(k["pos"], f"{d} position")
        else:
            if set(k) - {"die", "value", "zone"}:
                raise _bad(f"Knocked {d} keeps its place.")
            if "zone" in k and k["zone"] != rules.zone_of(state, d):
                raise _bad(f"Knocked {d} stays in its zone.")
        out.append((d, kv, place))
    return WrathOutcome(False, value, 0, landing if on_table else None, tuple(out))
