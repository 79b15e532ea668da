"""Carnival of Sins rules engine (spec ``docs/rules/carnival.md``).

Seven rounds; each round the Devil holder rolls seven dice (chance ``roll``), every
player secretly picks a sin card (R2, simultaneous), the cards are revealed and
resolved clockwise from the Devil holder (R3), Pride players share the leftover dice
(R4), and the round is scored (R5, §8.1). Two table models: ``spatial`` (integer
milli-unit coordinates, §2.4) and ``zones`` (§2.6).

State layout (JSON-ready dict)::

    game, state_version, players, options
    phase        "setup" | "roll" | "choose" | "resolve" | "wrath_chance" | "pride" | "over"
    round        1..7 (8 after the end)
    devil        seat holding the Devil card now (None before ``first_devil``)
    round_devil  seat that held the Devil when this round started (the roller)
    order        reveal order of this round (clockwise from round_devil)
    reveal_index how many cards of ``order`` are revealed
    hands        per seat: sins not yet revealed (public, §7; includes the face-down pick)
    played       per seat: sins revealed so far, in round order (public history)
    picks        per seat: SECRET face-down pick of this round (None = not picked / revealed)
    random_pick  per seat: True when the pick was made by chance ``random_sin``
    random_pending  seats whose R2 pick timed out and wait for chance ``random_sin``
    revealed     per seat: this round's revealed sin or None
    dice         {die id: {value, place "table"|"card", owner, pos [x, y] | None, zone | None}}
    penalties    per seat: Wrath off-table penalty this round (0 = none)
    pending      {seat, sin} of the R3 decision waiting, or None
    pending_wrath {seat, target, aim} waiting for chance ``wrath_result``, or None
    pride        {players: [...], turn: i} during R4, else None
    round_scores list per played round: round score per seat
    totals       per seat total
    history      per played round: summary dict (see ``_score_round``)
    chance_log   public records of every chance outcome except random_sin
    recent       last public event lines (for boards)

Action types (player): ``choose``, ``timeout`` (R2 only: "pick at random", the
timeout action; it makes CHANCE draw ``random_sin``), ``greed``, ``gluttony``,
``lust``, ``sloth`` (zones), ``wrath``, ``pride``. Chance: ``first_devil``,
``roll``, ``wrath_result``, ``random_sin``.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engines.base import (
    CHANCE,
    Action,
    Engine,
    EngineInfo,
    Event,
    GameOver,
    IllegalAction,
    NotYourTurn,
    OptionSpec,
    Outcome,
    Seat,
    State,
    check_player_count,
    normalize_text,
    rank_seats,
    validate_options,
)

# --------------------------------------------------------------------------- data


def _load_data() -> dict[str, Any]:
    """Load and validate ``carnival.json`` (dice, sins, table constants, options)."""
    path = Path(__file__).with_name("carnival.json")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    ids = [d["id"] for d in data["dice"]]
    if ids != ["d4", "d6", "d8", "d10", "d12", "d20", "W"]:
        raise RuntimeError(f"carnival.json: unexpected dice {ids}")
    for d in data["dice"]:
        if not isinstance(d["faces"], int) or d["faces"] < 2:
            raise RuntimeError(f"carnival.json: bad faces for {d['id']}")
    sins = [s["id"] for s in data["sins"]]
    if sorted(sins) != sorted(["greed", "gluttony", "envy", "lust", "pride", "sloth", "wrath"]):
        raise RuntimeError(f"carnival.json: unexpected sins {sins}")
    for key in ("r_seat", "r_card", "r_play", "knock_sigma", "min_spacing", "max_spacing_rejects"):
        if not isinstance(data["table"][key], int) or data["table"][key] <= 0:
            raise RuntimeError(f"carnival.json: bad table constant {key}")
    if len(sins) != data["rounds"]:
        raise RuntimeError("carnival.json: one sin per round is required")
    return data


DATA = _load_data()
DICE: tuple[str, ...] = tuple(d["id"] for d in DATA["dice"])
BLACK: tuple[str, ...] = tuple(d["id"] for d in DATA["dice"] if d["colour"] == "black")
WHITE_DIE = "W"
FACES: dict[str, int] = {d["id"]: d["faces"] for d in DATA["dice"]}
SHAPES: dict[str, str] = {d["id"]: d["shape"] for d in DATA["dice"]}
SIZE: dict[str, int] = {die: i for i, die in enumerate(DICE)}
SINS: tuple[str, ...] = tuple(s["id"] for s in DATA["sins"])
SIN_INFO: dict[str, dict[str, str]] = {s["id"]: s for s in DATA["sins"]}
ROUNDS: int = DATA["rounds"]
R_SEAT: int = DATA["table"]["r_seat"]
R_CARD: int = DATA["table"]["r_card"]
R_PLAY: int = DATA["table"]["r_play"]
KNOCK_SIGMA: int = DATA["table"]["knock_sigma"]
MIN_SPACING: int = DATA["table"]["min_spacing"]
MAX_REJECTS: int = DATA["table"]["max_spacing_rejects"]
LETTERS = "ABCDE"


def _opt_specs() -> tuple[OptionSpec, ...]:
    o = DATA["options"]
    desc = {
        "table_model": "spatial = dice at exact positions on a round table; zones = simpler areas.",
        "roll_sigma": "Spread of the roll around the centre (milli-units, spatial).",
        "wrath_aim_sigma": "Scatter of an aimed Wrath throw (milli-units, spatial).",
        "wrath_knock_radius": "Dice within this distance of a Wrath landing may be knocked (spatial).",
        "wrath_knock_prob": "Chance that each die near a Wrath landing is knocked.",
        "wrath_off_table_prob": "Chance that a Wrath throw flies off the table.",
    }
    specs = [
        OptionSpec(
            "table_model",
            o["table_model"]["default"],
            "choice",
            tuple(o["table_model"]["choices"]),
            description=desc["table_model"],
        )
    ]
    for key in ("roll_sigma", "wrath_aim_sigma", "wrath_knock_radius"):
        specs.append(
            OptionSpec(key, o[key]["default"], "int", (), o[key]["min"], o[key]["max"], desc[key])
        )
    for key in ("wrath_knock_prob", "wrath_off_table_prob"):
        specs.append(
            OptionSpec(key, o[key]["default"], "float", (), o[key]["min"], o[key]["max"], desc[key])
        )
    return tuple(specs)


# --------------------------------------------------------------------------- geometry


def round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero (spec §2.4)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def _point(k: int, n: int, radius: int) -> tuple[int, int]:
    angle = math.radians(-90.0 - 360.0 * k / n)
    return (round_half_away(radius * math.cos(angle)), round_half_away(radius * math.sin(angle)))


def seat_points(n: int) -> list[tuple[int, int]]:
    """Seat points on the rim (radius R_seat) for ``n`` seats (spec §2.4 table)."""
    return [_point(k, n, R_SEAT) for k in range(n)]


def card_spots(n: int) -> list[tuple[int, int]]:
    """Card spots (radius R_card) for ``n`` seats (spec §2.4 table)."""
    return [_point(k, n, R_CARD) for k in range(n)]


def inside(x: int, y: int) -> bool:
    """True when (x, y) lies in the play area x²+y² ≤ R_play²."""
    return x * x + y * y <= R_PLAY * R_PLAY


def clip(x: int, y: int) -> tuple[int, int]:
    """Nudge a point outside the play area back onto its rim (spec §2.4 Clip):
    (trunc(x·850/r), trunc(y·850/r)). Points inside are returned unchanged."""
    if inside(x, y):
        return (x, y)
    r = math.sqrt(x * x + y * y)
    cx, cy = int(x * R_PLAY / r), int(y * R_PLAY / r)
    while not inside(cx, cy):  # float safety; never triggers in practice
        if abs(cx) >= abs(cy):
            cx -= 1 if cx > 0 else -1
        else:
            cy -= 1 if cy > 0 else -1
    return (cx, cy)


def dist2(a: Sequence[int], b: Sequence[int]) -> int:
    """Exact squared distance of two integer points."""
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def zone_names(n: int) -> list[str]:
    """Zones of the zone table: ``centre`` then ``seat0``…``seat<n-1>`` (spec §2.6)."""
    return ["centre"] + [f"seat{k}" for k in range(n)]


def zone_search_order(seat: int, n: int) -> list[str]:
    """Sloth's zone search order for ``seat`` (spec §2.6): own zone, centre, then the
    other seat zones by increasing distance, clockwise neighbour first."""
    out = [f"seat{seat}", "centre"]
    for d in range(1, n):
        for k in ((seat + d) % n, (seat - d) % n):
            z = f"seat{k}"
            if z not in out:
                out.append(z)
    return out


def sin_name(sin: str) -> str:
    """English name of a sin id."""
    return SIN_INFO[sin]["name"]


def _letter(seat: int) -> str:
    return LETTERS[seat]


def _zone_label(zone: str) -> str:
    """``centre`` or ``zone B`` for ``seat1``."""
    return "centre" if zone == "centre" else f"zone {LETTERS[int(zone[4:])]}"


# --------------------------------------------------------------------------- engine


class CarnivalEngine(Engine):
    """Carnival of Sins (spec carnival). See the module docstring for the state layout."""

    info = EngineInfo(
        game_id="carnival",
        name="Carnival of Sins",
        native_name="罪のカーニバル",
        min_players=2,
        max_players=5,
        options=_opt_specs(),
        has_hidden_info=True,
        state_version=1,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """Initial state (spec §3); the first Devil is drawn by chance ``first_devil``.

        Raises:
            InvalidOptions: player count outside 2–5 or a bad option (§2.5).
        """
        check_player_count(self.info, players)
        opts = validate_options(self.info, options)
        for key in ("roll_sigma", "wrath_aim_sigma", "wrath_knock_radius"):
            opts[key] = int(opts[key])
        for key in ("wrath_knock_prob", "wrath_off_table_prob"):
            opts[key] = float(opts[key])
        n = players
        return {
            "game": self.info.game_id,
            "state_version": self.info.state_version,
            "players": n,
            "options": opts,
            "phase": "setup",
            "round": 1,
            "devil": None,
            "round_devil": None,
            "order": [],
            "reveal_index": 0,
            "hands": [list(SINS) for _ in range(n)],
            "played": [[] for _ in range(n)],
            "picks": [None] * n,
            "random_pick": [False] * n,
            "random_pending": [],
            "revealed": [None] * n,
            "dice": {
                d: {"value": 1, "place": "table", "owner": None, "pos": None, "zone": None} for d in DICE
            },
            "rolled": False,
            "penalties": [0] * n,
            "pending": None,
            "pending_wrath": None,
            "pride": None,
            "round_scores": [],
            "totals": [0] * n,
            "history": [],
            "chance_log": [],
            "recent": [],
        }

    def _spatial(self, state: State) -> bool:
        return bool(state["options"]["table_model"] == "spatial")

    def to_move(self, state: State) -> frozenset[Seat]:
        """Seats to act (spec §4): CHANCE for first_devil/roll/wrath/random_sin; every
        unpicked seat in R2; the resolving or Pride-picking seat; empty at the end."""
        phase = state["phase"]
        if phase in ("setup", "roll", "wrath_chance"):
            return frozenset({CHANCE})
        if phase == "choose":
            if state["random_pending"]:
                return frozenset({CHANCE})
            return frozenset(s for s in range(state["players"]) if state["picks"][s] is None)
        if phase == "resolve":
            return frozenset({state["pending"]["seat"]})
        if phase == "pride":
            p = state["pride"]
            return frozenset({p["players"][p["turn"]]})
        return frozenset()

    # ------------------------------------------------------------------ dice helpers
    def _table_dice(self, state: State, include_white: bool = False) -> list[str]:
        ids = DICE if include_white else BLACK
        return [d for d in ids if state["dice"][d]["place"] == "table"]

    def _location(self, state: State, die: str) -> tuple[int, int]:
        info = state["dice"][die]
        if info["place"] == "card":
            spot: tuple[int, int] = card_spots(state["players"])[int(info["owner"])]
            return spot
        return (int(info["pos"][0]), int(info["pos"][1]))

    def _zone_of(self, state: State, die: str) -> str:
        info = state["dice"][die]
        if info["place"] == "card":
            return f"seat{info['owner']}"
        return str(info["zone"])

    def _value(self, state: State, die: str) -> int:
        return int(state["dice"][die]["value"])

    def _where(self, state: State, die: str) -> str:
        info = state["dice"][die]
        if info["place"] == "card":
            return f"{_letter(info['owner'])}'s card"
        return "table"

    # ------------------------------------------------------------------ option lists
    def _pair_key(self, state: State, pair: Sequence[str]) -> tuple[int, int, int]:
        a, b = sorted(pair, key=SIZE.__getitem__)
        total = self._value(state, a) + self._value(state, b)
        return (-total, -SIZE[b], -SIZE[a])

    def _single_key(self, state: State, die: str) -> tuple[int, int]:
        return (-self._value(state, die), -SIZE[die])

    def _sorted_pairs(self, state: State, pairs: list[list[str]]) -> list[list[str]]:
        pairs = [sorted(p, key=SIZE.__getitem__) for p in pairs]
        return sorted(pairs, key=lambda p: self._pair_key(state, p))

    def greed_options(self, state: State) -> list[list[str]]:
        """Unordered pairs of table dice with equal values, §11 order (spec §5.3 Greed)."""
        table = self._table_dice(state)
        pairs = [
            [a, b]
            for i, a in enumerate(table)
            for b in table[i + 1 :]
            if self._value(state, a) == self._value(state, b)
        ]
        return self._sorted_pairs(state, pairs)

    def gluttony_options(self, state: State) -> list[str]:
        """Table dice showing the maximum table value (spec §5.3 Gluttony)."""
        table = self._table_dice(state)
        if not table:
            return []
        top = max(self._value(state, d) for d in table)
        return sorted((d for d in table if self._value(state, d) == top), key=lambda d: -SIZE[d])

    def lust_options(self, state: State, seat: Seat) -> list[list[str]]:
        """Pairs {odd, even}: table dice or dice locked on another player's card, at
        least one from the table (spec §5.3 Lust, D14)."""
        dice = state["dice"]
        pool = [
            d
            for d in BLACK
            if dice[d]["place"] == "table" or (dice[d]["place"] == "card" and dice[d]["owner"] != seat)
        ]
        pairs = []
        for i, a in enumerate(pool):
            for b in pool[i + 1 :]:
                if (self._value(state, a) + self._value(state, b)) % 2 == 0:
                    continue
                if dice[a]["place"] != "table" and dice[b]["place"] != "table":
                    continue
                pairs.append([a, b])
        return self._sorted_pairs(state, pairs)

    def sloth_spatial_die(self, state: State, seat: Seat) -> str | None:
        """The table die nearest to ``seat``'s seat point; ties → smaller die (spec §5.3, D6)."""
        table = self._table_dice(state)
        if not table:
            return None
        sp = seat_points(state["players"])[seat]
        return min(table, key=lambda d: (dist2(self._location(state, d), sp), SIZE[d]))

    def sloth_zone_options(self, state: State, seat: Seat) -> list[str]:
        """Table dice of the first zone in ``seat``'s search order holding one (spec §2.6)."""
        table = self._table_dice(state)
        for zone in zone_search_order(seat, state["players"]):
            here = [d for d in table if state["dice"][d]["zone"] == zone]
            if here:
                return sorted(here, key=lambda d: self._single_key(state, d))
        return []

    def wrath_targets(self, state: State, seat: Seat) -> list[str]:
        """Black dice not on ``seat``'s card: locked dice first, then table dice, each by
        value then size descending (spec §5.1 wrath, §11 order)."""
        dice = state["dice"]
        cand = [d for d in BLACK if not (dice[d]["place"] == "card" and dice[d]["owner"] == seat)]
        locked = [d for d in cand if dice[d]["place"] == "card"]
        table = [d for d in cand if dice[d]["place"] == "table"]
        return sorted(locked, key=lambda d: self._single_key(state, d)) + sorted(
            table, key=lambda d: self._single_key(state, d)
        )

    def wrath_aims(self, state: State, target: str) -> list[str]:
        """Aims for ``target``: ``none`` then every other die (spatial), or ``none``,
        ``centre``, ``seat<k>`` (zones)."""
        if self._spatial(state):
            return ["none"] + [d for d in DICE if d != target]
        return ["none"] + zone_names(state["players"])

    def knock_candidates(self, state: State, target: str, landing: Any) -> list[str]:
        """Dice that may be knocked by a throw of ``target`` landing at ``landing`` (a
        point, spatial) or into zone ``landing`` (zones) — spec §6 wrath step 5."""
        out = []
        if self._spatial(state):
            r2 = state["options"]["wrath_knock_radius"] ** 2
            for d in DICE:
                if d != target and dist2(self._location(state, d), landing) <= r2:
                    out.append(d)
        else:
            for d in DICE:
                if d != target and self._zone_of(state, d) == landing:
                    out.append(d)
        return out

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: State, seat: Seat) -> list[Action]:
        """Legal actions of ``seat`` in §11 order. In R2 a seat that has already picked
        may change its pick (spec §5.4): its list holds the other sins of its hand,
        although ``to_move`` lists only unpicked seats. CHANCE lists ``first_devil``
        and ``random_sin`` outcomes; roll and wrath outcomes are continuous ([])."""
        phase = state["phase"]
        if phase == "over":
            return []
        if seat == CHANCE:
            if phase == "setup":
                return [{"type": "first_devil", "seat": s} for s in range(state["players"])]
            if phase == "choose" and state["random_pending"]:
                s = state["random_pending"][0]
                return [{"type": "random_sin", "seat": s, "sin": x} for x in state["hands"][s]]
            return []
        if not 0 <= seat < state["players"]:
            return []
        if phase == "choose":
            if state["random_pending"]:
                return []
            pick = state["picks"][seat]
            return [{"type": "choose", "sin": x} for x in state["hands"][seat] if x != pick]
        if seat not in self.to_move(state):
            return []
        if phase == "pride":
            return [
                {"type": "pride", "die": d}
                for d in sorted(self._table_dice(state), key=lambda d: self._single_key(state, d))
            ]
        if phase == "resolve":
            return self._resolve_actions(state, seat, state["pending"]["sin"])
        return []

    def _resolve_actions(self, state: State, seat: Seat, sin: str) -> list[Action]:
        if sin == "greed":
            return [{"type": "greed", "dice": p} for p in self.greed_options(state)]
        if sin == "gluttony":
            return [{"type": "gluttony", "die": d} for d in self.gluttony_options(state)]
        if sin == "lust":
            return [{"type": "lust", "dice": p} for p in self.lust_options(state, seat)]
        if sin == "sloth":
            if self._spatial(state):
                d = self.sloth_spatial_die(state, seat)
                return [] if d is None else [{"type": "sloth", "die": d}]
            return [{"type": "sloth", "die": d} for d in self.sloth_zone_options(state, seat)]
        if sin == "wrath":
            return [
                {"type": "wrath", "target": t, "aim": a}
                for t in self.wrath_targets(state, seat)
                for a in self.wrath_aims(state, t)
            ]
        return []

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply an action (spec §4–§6); see the module docstring.

        Raises:
            GameOver: after round 7's scoring.
            NotYourTurn: ``seat`` may not act now (R2: a seat that has picked may
                still send ``choose`` to change its pick).
            IllegalAction: malformed or illegal action, or an invalid scripted chance
                outcome (values outside faces, positions outside the play area,
                knocks that are not candidates, penalty not matching off_table…).
        """
        if state.get("phase") == "over":
            raise GameOver("The game is over.")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("An action must be an object with a 'type'.", code="malformed_action")
        new = copy.deepcopy(state)
        events: list[Event] = []
        if seat == CHANCE:
            if CHANCE not in self.to_move(state):
                raise NotYourTurn("No chance outcome is pending.", seat=seat)
            self._apply_chance(new, action, events)
        else:
            self._apply_player(new, seat, action, events)
        recent = new["recent"] + [
            e.text for e in events if e.visible_to is None and e.kind not in ("picked", "all_picked")
        ]
        new["recent"] = recent[-10:]
        return new, tuple(events)

    def _apply_player(self, state: State, seat: Seat, action: Action, events: list[Event]) -> None:
        n = state["players"]
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise NotYourTurn(f"Seat {seat} is not in this game.", seat=seat)
        phase = state["phase"]
        can_change = (
            phase == "choose"
            and not state["random_pending"]
            and state["picks"][seat] is not None
            and action.get("type") == "choose"
        )
        if seat not in self.to_move(state) and not can_change:
            if phase == "choose" and state["picks"][seat] is not None:
                raise NotYourTurn("You have already picked; you can only change your pick.", seat=seat)
            raise NotYourTurn("It is not your turn.", seat=seat)
        # the R2 timeout (spec D26) is the host's move, not a choice offered to players
        timed_out = action == {"type": "timeout"} and phase == "choose" and state["picks"][seat] is None
        if not timed_out and action not in self.legal_actions(state, seat):
            raise IllegalAction(self._illegal_message(state, seat, action), action=action)
        kind = action["type"]
        if kind == "choose":
            changed = state["picks"][seat] is not None
            state["picks"][seat] = action["sin"]
            state["random_pick"][seat] = False
            events.append(
                Event(
                    "pick",
                    f"You picked {sin_name(action['sin'])} for round {state['round']}.",
                    {"seat": seat, "sin": action["sin"]},
                    frozenset({seat}),
                )
            )
            if not changed:
                events.append(
                    Event("picked", f"{{p{seat}}} has picked a sin.", {"seat": seat})
                )
            self._after_pick(state, events)
            return
        if kind == "timeout":
            state["random_pending"].append(seat)
            state["random_pending"].sort()
            events.append(
                Event(
                    "pick_timeout",
                    f"{{p{seat}}}'s time ran out: a random sin will be picked.",
                    {"seat": seat},
                )
            )
            return
        if kind == "pride":
            p = state["pride"]
            self._take(state, seat, [action["die"]])
            events.append(
                Event(
                    "pride_pick",
                    f"{{p{seat}}} (Pride) takes {action['die']}={self._value(state, action['die'])}.",
                    {"seat": seat, "die": action["die"]},
                )
            )
            p["turn"] = (p["turn"] + 1) % len(p["players"])
            self._pride_loop(state, events)
            return
        if kind == "wrath":
            state["pending"] = None
            state["pending_wrath"] = {"seat": seat, "target": action["target"], "aim": action["aim"]}
            state["phase"] = "wrath_chance"
            aim = action["aim"]
            aim_txt = "no aim (gentle reroll)" if aim == "none" else f"aiming at {self._aim_text(aim)}"
            events.append(
                Event(
                    "wrath_throw",
                    f"{{p{seat}}} (Wrath) throws {self._die_text(state, action['target'])}, {aim_txt}.",
                    dict(action, seat=seat),
                )
            )
            return
        # greed / gluttony / lust / sloth
        dice = list(action["dice"]) if "dice" in action else [action["die"]]
        self._resolve_take(state, seat, kind, dice, events)
        state["pending"] = None
        state["phase"] = "reveal"
        state["reveal_index"] += 1
        self._advance(state, events)

    def _illegal_message(self, state: State, seat: Seat, action: Action) -> str:
        kind = action.get("type")
        phase = state["phase"]
        if phase == "choose":
            if kind == "choose":
                if action.get("sin") == state["picks"][seat]:
                    return "That sin is already your pick."
                return "You can only pick a sin card still in your hand."
            return "Now every player picks a sin card (choose <sin>)."
        if phase == "pride":
            return "You can only take a die that is lying on the table (not locked)."
        pending = state.get("pending") or {}
        sin = pending.get("sin")
        if kind != sin:
            return f"You must resolve your {sin_name(sin) if sin else 'card'} now."
        msgs = {
            "greed": "Greed takes two table dice showing the same value.",
            "gluttony": "Gluttony takes a table die with the highest value.",
            "lust": "Lust takes one odd and one even die, at least one from the table, "
            "the other from the table or another player's card.",
            "sloth": "Sloth takes a table die from the nearest zone holding one.",
            "wrath": "Wrath targets a black die not on your card and aims at another die "
            "(or a zone), or none.",
        }
        return msgs.get(str(kind), "That move is not legal now.")

    # ------------------------------------------------------------------ flow
    def _after_pick(self, state: State, events: list[Event]) -> None:
        if state["random_pending"] or any(p is None for p in state["picks"]):
            return
        events.append(Event("all_picked", "Every player has picked. The cards are revealed.", {}))
        self._start_reveal(state, events)

    def _start_reveal(self, state: State, events: list[Event]) -> None:
        state["phase"] = "reveal"
        state["reveal_index"] = 0
        self._advance(state, events)

    def _take(self, state: State, seat: Seat, dice: Sequence[str]) -> None:
        for d in dice:
            info = state["dice"][d]
            info.update(place="card", owner=seat, pos=None, zone=None)

    def _resolve_take(
        self, state: State, seat: Seat, sin: str, dice: Sequence[str], events: list[Event]
    ) -> None:
        parts = []
        stolen = []
        for d in dice:
            info = state["dice"][d]
            if info["place"] == "card":
                stolen.append((d, info["owner"]))
            parts.append(d)
        total = sum(self._value(state, d) for d in dice)
        self._take(state, seat, dice)
        vals = " + ".join(f"{d}={self._value(state, d)}" for d in parts)
        text = f"{{p{seat}}} ({sin_name(sin)}) takes {vals}"
        if len(dice) > 1:
            text += f" = {total}"
        for d, owner in stolen:
            text += f", stealing {d} from {{p{owner}}}"
        events.append(
            Event(
                "take",
                text + ".",
                {"seat": seat, "sin": sin, "dice": list(dice), "total": total,
                 "stolen": [[d, o] for d, o in stolen]},
            )
        )

    def _advance(self, state: State, events: list[Event]) -> None:
        """Reveal and resolve cards until a decision or chance is needed (spec §4 R3–R6)."""
        n = state["players"]
        while state["phase"] == "reveal":
            if state["reveal_index"] >= n:
                self._start_pride(state, events)
                return
            seat = state["order"][state["reveal_index"]]
            sin = state["picks"][seat]
            state["picks"][seat] = None
            state["revealed"][seat] = sin
            state["hands"][seat].remove(sin)
            state["played"][seat].append(sin)
            rnd = " (picked at random)" if state["random_pick"][seat] else ""
            events.append(
                Event(
                    "reveal",
                    f"{{p{seat}}} reveals {sin_name(sin)}{rnd}.",
                    {"seat": seat, "sin": sin, "random": state["random_pick"][seat]},
                )
            )
            if sin in ("envy", "pride"):
                state["reveal_index"] += 1
                continue
            if sin == "wrath":
                state["phase"] = "resolve"
                state["pending"] = {"seat": seat, "sin": sin}
                return
            acts = self._resolve_actions(state, seat, sin)
            if len(acts) == 0:
                events.append(
                    Event(
                        "take",
                        f"{{p{seat}}} ({sin_name(sin)}) takes nothing.",
                        {"seat": seat, "sin": sin, "dice": [], "total": 0, "stolen": []},
                    )
                )
                state["reveal_index"] += 1
                continue
            if len(acts) == 1:
                a = acts[0]
                dice = list(a["dice"]) if "dice" in a else [a["die"]]
                self._resolve_take(state, seat, sin, dice, events)
                state["reveal_index"] += 1
                continue
            state["phase"] = "resolve"
            state["pending"] = {"seat": seat, "sin": sin}
            return

    def pride_players(self, state: State) -> list[int]:
        """Pride players of this round in reveal order (spec §5.3 Pride)."""
        return [s for s in state["order"] if state["revealed"][s] == "pride"]

    def _start_pride(self, state: State, events: list[Event]) -> None:
        players = self.pride_players(state)
        if not players:
            self._score_round(state, events)
            return
        if len(players) == 1:
            seat = players[0]
            table = self._table_dice(state)
            self._take(state, seat, table)
            total = sum(self._value(state, d) for d in table)
            if table:
                vals = " + ".join(f"{d}={self._value(state, d)}" for d in table)
                text = f"{{p{seat}}} (Pride) takes every die left: {vals} = {total}."
            else:
                text = f"{{p{seat}}} (Pride) finds no die left on the table."
            events.append(Event("take", text, {"seat": seat, "sin": "pride", "dice": table,
                                               "total": total, "stolen": []}))
            self._score_round(state, events)
            return
        state["phase"] = "pride"
        state["pride"] = {"players": players, "turn": 0}
        self._pride_loop(state, events)

    def _pride_loop(self, state: State, events: list[Event]) -> None:
        p = state["pride"]
        table = self._table_dice(state)
        if len(table) == 1:
            seat = p["players"][p["turn"]]
            self._take(state, seat, table)
            events.append(
                Event(
                    "pride_pick",
                    f"{{p{seat}}} (Pride) takes the last die {table[0]}={self._value(state, table[0])}.",
                    {"seat": seat, "die": table[0]},
                )
            )
            table = []
        if not table:
            state["pride"] = None
            self._score_round(state, events)

    def base_scores(self, state: State) -> tuple[list[int], list[int]]:
        """(base score per seat, Envy copy source or -1) — spec §8.1 steps 1–2."""
        n = state["players"]
        base = [0] * n
        for s in range(n):
            sin = state["revealed"][s]
            if sin == "wrath":
                base[s] = -state["penalties"][s]
            elif sin != "envy":
                base[s] = sum(
                    i["value"] for d, i in state["dice"].items()
                    if d != WHITE_DIE and i["place"] == "card" and i["owner"] == s
                )
        h = state["round_devil"]
        copy_from = [-1] * n
        for s in range(n):
            if state["revealed"][s] == "envy":
                base[s] = 0 if state["revealed"][h] == "envy" else base[h]
                copy_from[s] = h
        return base, copy_from

    def _score_round(self, state: State, events: list[Event]) -> None:
        """Round scoring and cleanup (spec §8.1, R6)."""
        n = state["players"]
        state["phase"] = "scoring"
        base, copy_from = self.base_scores(state)
        white = self._value(state, WHITE_DIE)
        low = min(base)
        bonus = [white if base[s] == low else 0 for s in range(n)]
        scores = [base[s] + bonus[s] for s in range(n)]
        prides = self.pride_players(state)
        if prides:
            nxt = prides[-1]
            why = "Pride" if len(prides) == 1 else "last Pride revealed"
        else:
            m = min(scores)
            tied = [s for s in state["order"] if scores[s] == m]
            nxt = tied[-1]
            why = "lowest round score" if len(tied) == 1 else "lowest round score, revealed last among the tied"
        for s in range(n):
            state["totals"][s] += scores[s]
        state["round_scores"].append(scores)
        summary = {
            "round": state["round"],
            "devil": state["round_devil"],
            "order": list(state["order"]),
            "cards": list(state["revealed"]),
            "base": base,
            "envy_from": copy_from,
            "white": white,
            "white_bonus": bonus,
            "scores": scores,
            "penalties": list(state["penalties"]),
            "next_devil": nxt,
            "next_devil_reason": why,
        }
        state["history"].append(summary)
        parts = []
        for s in state["order"]:
            txt = f"{{p{s}}} {base[s]}"
            if copy_from[s] >= 0:
                txt += f" (Envy of {{p{copy_from[s]}}})"
            elif state["revealed"][s] == "wrath":
                txt += " (Wrath)" if not state["penalties"][s] else " (Wrath, off the table)"
            parts.append(txt)
        bonus_txt = ", ".join(f"{{p{s}}}" for s in range(n) if bonus[s])
        score_txt = ", ".join(f"{{p{s}}} {scores[s]}" for s in state["order"])
        events.append(
            Event(
                "round_scored",
                f"Round {state['round']}: base {', '.join(parts)}; white die {white} → {bonus_txt}; "
                f"round scores {score_txt}; next Devil {{p{nxt}}} ({why}).",
                summary,
            )
        )
        state["devil"] = nxt
        state["pending"] = None
        state["pending_wrath"] = None
        state["round"] += 1
        if state["round"] > ROUNDS:
            state["phase"] = "over"
            res = self.outcome(state)
            assert res is not None
            events.append(Event("game_over", str(res.reason), res.to_json()))
        else:
            state["phase"] = "roll"

    # ------------------------------------------------------------------ chance
    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """Sample the pending chance outcome (spec §6).

        Raises:
            NotYourTurn: no chance outcome is pending.
        """
        if CHANCE not in self.to_move(state):
            raise NotYourTurn("No chance outcome is pending.")
        phase = state["phase"]
        n = state["players"]
        if phase == "setup":
            return {"type": "first_devil", "seat": rng.randrange(n)}
        if phase == "roll":
            return self._sample_roll(state, rng)
        if phase == "choose":
            s = state["random_pending"][0]
            return {"type": "random_sin", "seat": s, "sin": rng.choice(state["hands"][s])}
        return self._sample_wrath(state, rng)

    def _gauss_point(self, rng: random.Random, sigma: float) -> tuple[int, int]:
        return (round_half_away(rng.gauss(0, sigma)), round_half_away(rng.gauss(0, sigma)))

    def _place_like_roll(
        self, rng: random.Random, sigma: float, others: Sequence[Sequence[int]]
    ) -> list[int]:
        """Rejection sampler of §6 roll: Normal(0, sigma) per axis, inside the play
        area, ≥ MIN_SPACING from ``others`` (spacing dropped after MAX_REJECTS)."""
        rejects = 0
        while True:
            x, y = self._gauss_point(rng, sigma)
            ok = inside(x, y)
            if ok and rejects < MAX_REJECTS:
                ok = all(dist2((x, y), o) >= MIN_SPACING * MIN_SPACING for o in others)
            if ok:
                return [x, y]
            rejects += 1

    def _sample_roll(self, state: State, rng: random.Random) -> Action:
        dice: dict[str, Any] = {}
        placed: list[list[int]] = []
        zones = zone_names(state["players"])
        for d in DICE:
            value = rng.randint(1, FACES[d])
            if self._spatial(state):
                pos = self._place_like_roll(rng, state["options"]["roll_sigma"], placed)
                placed.append(pos)
                dice[d] = {"value": value, "pos": pos}
            else:
                dice[d] = {"value": value, "zone": rng.choice(zones)}
        return {"type": "roll", "dice": dice}

    def _sample_wrath(self, state: State, rng: random.Random) -> Action:
        pw = state["pending_wrath"]
        target, aim = pw["target"], pw["aim"]
        opts = state["options"]
        spatial = self._spatial(state)
        t_info = state["dice"][target]
        faces = FACES[target]
        result: dict[str, Any] = {"type": "wrath_result"}
        if rng.random() < opts["wrath_off_table_prob"]:
            result["off_table"] = True
            result["penalty"] = rng.randint(1, faces)
            result["value"] = rng.randint(1, faces)
            if t_info["place"] == "table":
                if spatial:
                    others = [
                        state["dice"][d]["pos"] for d in self._table_dice(state, True) if d != target
                    ]
                    result["landing"] = self._place_like_roll(rng, opts["roll_sigma"], others)
                else:
                    result["landing"] = rng.choice(zone_names(state["players"]))
            result["knocks"] = []
            return result
        result["off_table"] = False
        result["value"] = rng.randint(1, faces)
        if aim == "none":
            result["knocks"] = []
            return result
        if spatial:
            px, py = self._location(state, aim)
            dx, dy = self._gauss_point(rng, opts["wrath_aim_sigma"])
            landing: Any = list(clip(px + dx, py + dy))
        else:
            landing = aim
        result["landing"] = landing
        knocks = []
        for d in self.knock_candidates(state, target, landing):
            if rng.random() < opts["wrath_knock_prob"]:
                k: dict[str, Any] = {"die": d, "value": rng.randint(1, FACES[d])}
                info = state["dice"][d]
                if info["place"] == "table":
                    if spatial:
                        dx, dy = self._gauss_point(rng, KNOCK_SIGMA)
                        k["pos"] = list(clip(info["pos"][0] + dx, info["pos"][1] + dy))
                    else:
                        k["zone"] = info["zone"]
                knocks.append(k)
        result["knocks"] = knocks
        return result

    # -- validation helpers
    def _check_value(self, die: str, value: Any, what: str = "value") -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= FACES[die]:
            raise IllegalAction(
                f"{die} {what} must be an integer from 1 to {FACES[die]}, not {value!r}.",
                code="invalid_chance",
            )
        return value

    def _check_pos(self, pos: Any, what: str) -> list[int]:
        if (
            not isinstance(pos, list | tuple)
            or len(pos) != 2
            or any(isinstance(c, bool) or not isinstance(c, int) for c in pos)
        ):
            raise IllegalAction(f"{what} must be a pair of integers [x, y].", code="invalid_chance")
        if not inside(pos[0], pos[1]):
            raise IllegalAction(f"{what} {list(pos)} lies outside the play area.", code="invalid_chance")
        return [pos[0], pos[1]]

    def _check_zone(self, state: State, zone: Any, what: str) -> str:
        if zone not in zone_names(state["players"]):
            raise IllegalAction(f"{what} {zone!r} is not a zone of this table.", code="invalid_chance")
        return str(zone)

    def _apply_chance(self, state: State, action: Action, events: list[Event]) -> None:
        phase = state["phase"]
        kind = action["type"]
        if phase == "setup":
            if kind != "first_devil" or action not in self.legal_actions(state, CHANCE):
                raise IllegalAction("Expected first_devil with a seat of this game.", code="invalid_chance")
            seat = action["seat"]
            state["devil"] = seat
            state["phase"] = "roll"
            state["chance_log"].append({"event": "first_devil", "seat": seat})
            events.append(Event("first_devil", f"{{p{seat}}} receives the Devil card.", {"seat": seat}))
            return
        if phase == "roll":
            if kind != "roll":
                raise IllegalAction("Expected a roll.", code="invalid_chance")
            self._apply_roll(state, action, events)
            return
        if phase == "choose":
            if kind != "random_sin" or action not in self.legal_actions(state, CHANCE):
                raise IllegalAction(
                    "Expected random_sin for the first timed-out seat, with a sin from its hand.",
                    code="invalid_chance",
                )
            seat = action["seat"]
            state["random_pending"].remove(seat)
            state["picks"][seat] = action["sin"]
            state["random_pick"][seat] = True
            events.append(
                Event(
                    "pick",
                    f"Time ran out: {sin_name(action['sin'])} was picked for you at random.",
                    {"seat": seat, "sin": action["sin"]},
                    frozenset({seat}),
                )
            )
            events.append(Event("picked", f"{{p{seat}}} has picked a sin (at random).", {"seat": seat}))
            self._after_pick(state, events)
            return
        if phase == "wrath_chance":
            if kind != "wrath_result":
                raise IllegalAction("Expected a wrath_result.", code="invalid_chance")
            self._apply_wrath(state, action, events)
            return
        raise IllegalAction("No chance outcome is pending.", code="invalid_chance")  # pragma: no cover

    def _apply_roll(self, state: State, action: Action, events: list[Event]) -> None:
        dice = action.get("dice")
        if not isinstance(dice, dict) or set(dice) != set(DICE):
            raise IllegalAction(f"A roll gives every die {', '.join(DICE)}.", code="invalid_chance")
        spatial = self._spatial(state)
        new: dict[str, Any] = {}
        for d in DICE:
            item = dice[d]
            if not isinstance(item, dict):
                raise IllegalAction(f"Roll entry for {d} must be an object.", code="invalid_chance")
            value = self._check_value(d, item.get("value"))
            if spatial:
                if set(item) != {"value", "pos"}:
                    raise IllegalAction(f"Roll entry for {d} needs value and pos.", code="invalid_chance")
                pos: Any = self._check_pos(item["pos"], f"{d} position")
                new[d] = {"value": value, "place": "table", "owner": None, "pos": pos, "zone": None}
            else:
                if set(item) != {"value", "zone"}:
                    raise IllegalAction(f"Roll entry for {d} needs value and zone.", code="invalid_chance")
                zone = self._check_zone(state, item["zone"], f"{d} zone")
                new[d] = {"value": value, "place": "table", "owner": None, "pos": None, "zone": zone}
        n = state["players"]
        state["dice"] = new
        state["rolled"] = True
        h = state["devil"]
        state["round_devil"] = h
        state["order"] = [(h + i) % n for i in range(n)]
        state["reveal_index"] = 0
        state["revealed"] = [None] * n
        state["picks"] = [None] * n
        state["random_pick"] = [False] * n
        state["random_pending"] = []
        state["penalties"] = [0] * n
        state["pending"] = None
        state["pending_wrath"] = None
        state["pride"] = None
        record = {"event": "roll", "round": state["round"], "dice": json.loads(json.dumps(dice))}
        state["chance_log"].append(record)

        # Positions / zones stay in the event data (``record``); the text lists values only.
        events.append(
            Event(
                "roll",
                f"Round {state['round']}: {{p{h}}} rolls "
                + ", ".join(f"{d}={new[d]['value']}" for d in DICE) + ".",
                record,
            )
        )
        if state["round"] == ROUNDS:
            for s in range(n):
                state["picks"][s] = state["hands"][s][0]
            events.append(Event("forced_picks", "Round 7: every player's last card is played.", {}))
            self._start_reveal(state, events)
        else:
            state["phase"] = "choose"

    def _apply_wrath(self, state: State, action: Action, events: list[Event]) -> None:
        """Validate and apply a ``wrath_result`` record (spec §6 wrath, both models)."""
        pw = state["pending_wrath"]
        seat, target, aim = pw["seat"], pw["target"], pw["aim"]
        spatial = self._spatial(state)
        allowed = {"type", "off_table", "penalty", "value", "landing", "knocks"}
        if set(action) - allowed:
            raise IllegalAction(
                f"Unknown wrath_result keys: {sorted(set(action) - allowed)}.", code="invalid_chance"
            )
        off = action.get("off_table")
        if not isinstance(off, bool):
            raise IllegalAction("wrath_result needs off_table true/false.", code="invalid_chance")
        if off != ("penalty" in action):
            raise IllegalAction("A penalty is given exactly when the die flies off the table.",
                                code="invalid_chance")
        value = self._check_value(target, action.get("value"))
        knocks = action.get("knocks", [])
        if not isinstance(knocks, list):
            raise IllegalAction("knocks must be a list.", code="invalid_chance")
        t_info = state["dice"][target]
        old = t_info["value"]
        t_where = self._target_text(target, t_info)
        if off:
            penalty = self._check_value(target, action["penalty"], "penalty")
            if knocks:
                raise IllegalAction("An off-table throw knocks nothing.", code="invalid_chance")
            if t_info["place"] == "table":
                if "landing" not in action:
                    raise IllegalAction("An off-table table die needs its new landing.",
                                        code="invalid_chance")
                if spatial:
                    t_info["pos"] = self._check_pos(action["landing"], "landing")
                else:
                    t_info["zone"] = self._check_zone(state, action["landing"], "landing")
            elif "landing" in action:
                raise IllegalAction("A locked die returns to its card: no landing.", code="invalid_chance")
            t_info["value"] = value
            state["penalties"][seat] = penalty
            text = (
                f"{{p{seat}}} reveals Wrath: {t_where} flies off the table! "
                f"−{penalty} for {{p{seat}}}; rerolled gently {old} → {value}."
            )
        else:
            if aim == "none":
                if "landing" in action or knocks:
                    raise IllegalAction("A gentle reroll (aim none) has no landing and no knocks.",
                                        code="invalid_chance")
                t_info["value"] = value
                text = f"{{p{seat}}} reveals Wrath: {t_where} rerolled {old} → {value}."
            else:
                if "landing" not in action:
                    raise IllegalAction("An aimed throw needs its landing.", code="invalid_chance")
                if spatial:
                    landing: Any = self._check_pos(action["landing"], "landing")
                else:
                    landing = self._check_zone(state, action["landing"], "landing")
                    if landing != aim:
                        raise IllegalAction("In the zone table the die lands in the aim zone.",
                                            code="invalid_chance")
                cands = self.knock_candidates(state, target, landing)
                seen: set[str] = set()
                updates: list[tuple[str, int, Any]] = []
                for k in knocks:
                    if not isinstance(k, dict) or k.get("die") not in DICE:
                        raise IllegalAction("Each knock names a die.", code="invalid_chance")
                    d = k["die"]
                    if d in seen:
                        raise IllegalAction(f"{d} is knocked twice.", code="invalid_chance")
                    seen.add(d)
                    if d not in cands:
                        raise IllegalAction(
                            f"{d} is not near the landing point, so it cannot be knocked.",
                            code="invalid_chance",
                        )
                    kv = self._check_value(d, k.get("value"))
                    info = state["dice"][d]
                    place: Any = None
                    if info["place"] == "table" and spatial:
                        if set(k) != {"die", "value", "pos"}:
                            raise IllegalAction(f"Knocked {d} needs its new pos.", code="invalid_chance")
                        place = self._check_pos(k["pos"], f"{d} position")
                    else:
                        extra = set(k) - {"die", "value", "zone"}
                        if extra:
                            raise IllegalAction(f"Knocked {d} keeps its place.", code="invalid_chance")
                        if "zone" in k and k["zone"] != self._zone_of(state, d):
                            raise IllegalAction(f"Knocked {d} stays in its zone.", code="invalid_chance")
                    updates.append((d, kv, place))
                t_info["value"] = value
                if t_info["place"] == "table":
                    if spatial:
                        t_info["pos"] = landing
                    else:
                        t_info["zone"] = landing
                # No raw coordinates in the text: the landing stays in the event data.
                if spatial:
                    land_txt = f"near {aim}"
                elif landing == "centre":
                    land_txt = "in the centre"
                else:
                    land_txt = f"in {_zone_label(landing)}"
                text = f"{{p{seat}}} reveals Wrath: {t_where} rerolled {old} → {value}, lands {land_txt}"
                ktxt = []
                for d, kv, place in updates:
                    info = state["dice"][d]
                    ktxt.append(f"{self._target_text(d, info)} {info['value']} → {kv}")
                    info["value"] = kv
                    if place is not None:
                        info["pos"] = place
                text += ("; knocks " + ", ".join(ktxt)) if ktxt else "; knocks nothing"
                text += "."
        record = {"event": "wrath", "round": state["round"], "seat": seat, "target": target, "aim": aim}
        record.update({k: json.loads(json.dumps(v)) for k, v in action.items() if k != "type"})
        state["chance_log"].append(record)
        events.append(Event("wrath", text, record))
        state["pending_wrath"] = None
        state["phase"] = "reveal"
        state["reveal_index"] += 1
        self._advance(state, events)

    def _target_text(self, die: str, info: Mapping[str, Any]) -> str:
        if info["place"] == "card":
            return f"{die} on {{p{info['owner']}}}'s card"
        return f"{die} on the table"

    def _die_text(self, state: State, die: str) -> str:
        return self._target_text(die, state["dice"][die])

    def _aim_text(self, aim: str) -> str:
        if aim == "centre":
            return "the centre"
        if aim.startswith("seat"):
            return f"{{p{int(aim[4:])}}}'s zone"
        return aim

    # ------------------------------------------------------------------ end
    def outcome(self, state: State) -> Outcome | None:
        """Final result after round 7 (spec §8.2): highest total; tie → best single
        round score; still tied → shared win."""
        if state["phase"] != "over":
            return None
        totals = list(state["totals"])
        n = state["players"]
        best = [max(r[s] for r in state["round_scores"]) for s in range(n)]
        ranking = rank_seats(totals, best)
        top = max(totals)
        tied = [s for s in range(n) if totals[s] == top]
        top_best = max(best[s] for s in tied)
        winners = [s for s in tied if best[s] == top_best]
        names = " and ".join(f"{{p{s}}}" for s in winners)
        if len(tied) == 1:
            reason = f"{names} wins with {top} points."
        elif len(winners) == 1:
            reason = f"{names} wins: tied on {top} points, best single round {top_best}."
        else:
            reason = f"{names} share the win: {top} points and best single round {top_best}."
        totals_txt = ", ".join(f"{{p{s}}} {totals[s]} (best round {best[s]})" for s in ranking)
        return Outcome(
            scores=tuple(float(t) for t in totals),
            ranking=ranking,
            winners=frozenset(winners),
            reason=f"Final totals: {totals_txt}. {reason}",
        )

    def scores(self, state: State) -> tuple[float, ...]:
        """Running totals per seat (spec §8.1 step 5)."""
        return tuple(float(t) for t in state["totals"])

    # ------------------------------------------------------------------ views
    def player_view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        """Public view (``seat=None``) or a seat's view (public + ``pick``/``hand_hints``).

        Keys: game, players, round, rounds, phase, table_model, options, devil,
        round_devil, order, reveal_index, to_move, dice (list of {id, faces, shape,
        colour, value, place, owner, pos, zone, location}), seat_points, card_spots,
        zones, nearest, seats (list of {seat, hand, played, previous, picked,
        random_pick, card, locked, sum, penalty, total, pride_turn}), round_scores,
        totals, history, pending, pending_wrath, pride, recent, outcome. Never the
        face-down picks of others (spec §7).
        """
        n = state["players"]
        spatial = self._spatial(state)
        rolled = bool(state["rolled"])
        dice_view = []
        for d in DICE:
            info = state["dice"][d]
            entry: dict[str, Any] = {
                "id": d,
                "faces": FACES[d],
                "shape": SHAPES[d],
                "colour": "white" if d == WHITE_DIE else "black",
                "value": info["value"] if rolled else None,
                "place": info["place"] if rolled else "none",
                "owner": info["owner"],
                "pos": list(info["pos"]) if info["pos"] is not None else None,
                "zone": info["zone"],
            }
            if rolled and spatial:
                entry["location"] = list(self._location(state, d))
            elif rolled:
                entry["location_zone"] = self._zone_of(state, d)
            dice_view.append(entry)
        to_move = self.to_move(state)
        seats = []
        for s in range(n):
            card = state["revealed"][s]
            locked = [d for d in BLACK if rolled and state["dice"][d]["place"] == "card"
                      and state["dice"][d]["owner"] == s]
            played = list(state["played"][s])
            previous = played[:-1] if card is not None else played
            in_round = state["phase"] in ("choose", "resolve", "wrath_chance", "pride")
            picked = in_round and (state["picks"][s] is not None or card is not None)
            seats.append(
                {
                    "seat": s,
                    "hand": list(state["hands"][s]),
                    "played": played,
                    "previous": previous,
                    "picked": bool(picked or (in_round and state["round"] == ROUNDS)),
                    "random_pick": bool(state["random_pick"][s]),
                    "timed_out": s in state["random_pending"],
                    "card": card,
                    "locked": locked,
                    "sum": sum(state["dice"][d]["value"] for d in locked),
                    "penalty": state["penalties"][s],
                    "total": state["totals"][s],
                    "to_move": s in to_move,
                }
            )
        nearest: list[str | None] = []
        zones: dict[str, list[str]] = {}
        if rolled and spatial:
            nearest = [self.sloth_spatial_die(state, s) for s in range(n)]
        elif rolled:
            for z in zone_names(n):
                zones[z] = [d for d in DICE if self._zone_of(state, d) == z]
        res = self.outcome(state)
        view: dict[str, Any] = {
            "game": self.info.game_id,
            "players": n,
            "round": min(state["round"], ROUNDS),
            "rounds": ROUNDS,
            "phase": state["phase"],
            "table_model": state["options"]["table_model"],
            "options": dict(state["options"]),
            "devil": state["devil"],
            "round_devil": state["round_devil"],
            "order": list(state["order"]),
            "reveal_index": state["reveal_index"],
            "to_move": sorted(to_move),
            "rolled": rolled,
            "dice": dice_view,
            "seat_points": [list(p) for p in seat_points(n)],
            "card_spots": [list(p) for p in card_spots(n)],
            "r_play": R_PLAY,
            "zones": zones,
            "nearest": nearest,
            "seats": seats,
            "round_scores": [list(r) for r in state["round_scores"]],
            "totals": list(state["totals"]),
            "history": json.loads(json.dumps(state["history"])),
            "pending": dict(state["pending"]) if state["pending"] else None,
            "pending_wrath": dict(state["pending_wrath"]) if state["pending_wrath"] else None,
            "pride": json.loads(json.dumps(state["pride"])),
            "recent": list(state["recent"]),
            "outcome": res.to_json() if res else None,
            "sins": [dict(SIN_INFO[x]) for x in SINS],
        }
        if seat is not None and 0 <= seat < n:
            view["seat"] = seat
            view["pick"] = state["picks"][seat]
            view["hand_hints"] = [dict(SIN_INFO[x]) for x in state["hands"][seat]]
        return view

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """Re-draw every face-down pick that ``seat`` cannot see from its owner's hand
        (spec §7); everything else is public."""
        new = copy.deepcopy(state)
        for s in range(new["players"]):
            if s != seat and new["picks"][s] is not None:
                new["picks"][s] = rng.choice(new["hands"][s])
        return new

    # ------------------------------------------------------------------ notation
    def describe_action(self, state: State, action: Action) -> str:
        """Canonical notation (spec §5.1): ``choose lust``, ``greed d10+d12`` (smaller
        die first), ``wrath d12 aim d8``, ``pride d20``; ``timeout`` for a timed-out
        pick; chance actions get a compact form."""
        kind = action.get("type")
        if kind == "choose":
            return f"choose {action['sin']}"
        if kind == "timeout":
            return "timeout"
        if kind in ("greed", "lust"):
            a, b = sorted(action["dice"], key=lambda d: SIZE.get(d, 99))
            return f"{kind} {a}+{b}"
        if kind in ("gluttony", "sloth", "pride"):
            return f"{kind} {action['die']}"
        if kind == "wrath":
            return f"wrath {action['target']} aim {action['aim']}"
        if kind == "first_devil":
            return f"first_devil seat{action['seat']}"
        if kind == "random_sin":
            return f"random_sin seat{action['seat']} {action['sin']}"
        if kind == "roll":
            parts = []
            for d, item in action.get("dice", {}).items():
                where = (f"@({item['pos'][0]},{item['pos'][1]})" if "pos" in item
                         else f"@{item.get('zone')}")
                parts.append(f"{d}={item.get('value')}{where}")
            return "roll " + " ".join(parts)
        if kind == "wrath_result":
            txt = f"wrath_result value={action.get('value')}"
            if action.get("off_table"):
                txt += f" off_table penalty={action.get('penalty')}"
            if "landing" in action:
                txt += f" landing={action['landing']}"
            for k in action.get("knocks", []):
                txt += f" knock {k.get('die')}={k.get('value')}"
            return txt
        return str(kind)

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """Parse notation; pairs are accepted in either order and with ``+`` or a space
        (``lust d20 d12``). Raises like ``Engine.parse_action``."""
        if seat == CHANCE or not (
            state["phase"] == "choose" and 0 <= seat < state["players"] and state["picks"][seat] is not None
        ):
            self._check_can_act(state, seat)
        wanted = normalize_text(text)
        m = re.fullmatch(r"(greed|lust)\s+(\w+)\s*[+ ]\s*(\w+)", wanted)
        if m:
            a, b = sorted((m.group(2), m.group(3)), key=lambda d: SIZE.get(d if d != "w" else "W", 99))
            wanted = f"{m.group(1)} {a}+{b}"
        for action in self.legal_actions(state, seat):
            if normalize_text(self.describe_action(state, action)) == wanted:
                return copy.deepcopy(action)
        raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)

    def action_label(self, state: State, action: Action) -> str:
        """Friendly button text (≤ 80 chars): ``Take d10+d12 = 18``, ``Lust 色欲 — one odd
        + one even die``, Wrath aims with the dice near the aim point."""
        kind = action.get("type")
        dice = state["dice"]
        if kind == "choose":
            info = SIN_INFO[action["sin"]]
            return f"{info['name']} {info['japanese']} — {info['hint']}"[:80]
        if kind == "timeout":
            return "🎲 Pick a sin at random"
        if kind in ("greed", "lust"):
            a, b = sorted(action["dice"], key=SIZE.__getitem__)
            total = self._value(state, a) + self._value(state, b)
            label = f"Take {a}+{b} = {total}"
            stolen = [d for d in (a, b) if dice[d]["place"] == "card"]
            for d in stolen:
                label += f" (steal {d} from {_letter(dice[d]['owner'])})"
            return label
        if kind in ("gluttony", "sloth", "pride"):
            return f"Take {action['die']} = {self._value(state, action['die'])}"
        if kind == "wrath":
            aim = action["aim"]
            if aim == "none":
                return "No aim: gentle reroll in place, knocks nothing"
            if aim == "centre":
                near = self.knock_candidates(state, action["target"], "centre")
                base = "Aim at the centre"
            elif aim.startswith("seat"):
                near = self.knock_candidates(state, action["target"], aim)
                base = f"Aim at {_letter(int(aim[4:]))}'s zone"
            else:
                near = self.knock_candidates(state, action["target"], self._location(state, aim))
                where = "table" if dice[aim]["place"] == "table" else f"{_letter(dice[aim]['owner'])}'s card"
                base = f"Aim at {aim}={self._value(state, aim)} ({where})"
            near = [d for d in near if d != action["target"]]
            return (base + (" — may knock " + ", ".join(near) if near else " — knocks nothing"))[:80]
        return self.describe_action(state, action)[:80]

    def action_group(self, state: State, action: Action) -> str | None:
        """Wrath target group, e.g. ``d12 on A's card (9)`` or ``d20 on the table (14)``."""
        if action.get("type") != "wrath":
            return None
        t = action["target"]
        info = state["dice"][t]
        where = f"on {_letter(info['owner'])}'s card" if info["place"] == "card" else "on the table"
        return f"{t} {where} ({info['value']})"

    def prompt(self, state: State, seat: Seat) -> str:
        """What ``seat`` must decide now (one sentence), or ''."""
        phase = state["phase"]
        if phase == "choose" and 0 <= seat < state["players"] and not state["random_pending"]:
            if state["picks"][seat] is None:
                return f"Choose your sin for round {state['round']}."
            return "You have picked; you may change your pick until everyone has picked."
        if seat not in self.to_move(state) or seat == CHANCE:
            return ""
        if phase == "pride":
            return "Pride: take one die from the table."
        sin = state["pending"]["sin"]
        return {
            "greed": "Greed: choose which pair of equal dice to take.",
            "gluttony": "Gluttony: choose which of the highest dice to take.",
            "lust": "Lust: choose one odd and one even die to take.",
            "sloth": "Sloth: choose which die of the nearest zone to take.",
            "wrath": "Wrath: choose the die to reroll, then where to aim "
            f"({round(state['options']['wrath_off_table_prob'] * 100)}% chance it flies off the table).",
        }[sin]

    def timeout_action(self, state: State, seat: Seat) -> Action:
        """Spec §11 timeouts: R2 → ``timeout`` (CHANCE then draws ``random_sin``);
        Greed/Gluttony/Lust/zone Sloth/Pride → first option (highest total); Wrath →
        highest die locked on another card (ties → larger), else highest table die,
        aim none.

        Raises:
            NotYourTurn / GameOver: the seat is not to move.
        """
        self._check_can_act(state, seat)
        if seat == CHANCE:
            raise NotYourTurn("Chance has no timeout.", seat=seat)
        phase = state["phase"]
        if phase == "choose":
            return {"type": "timeout"}
        if phase == "resolve" and state["pending"]["sin"] == "wrath":
            targets = self.wrath_targets(state, seat)  # locked first, highest first
            return {"type": "wrath", "target": targets[0], "aim": "none"}
        acts = self.legal_actions(state, seat)
        return copy.deepcopy(acts[0])
