"""Rule tests for Carnival of Sins (spec docs/rules/carnival.md).

One test per worked example E1–E19 (named after the rule it checks), the §2.4
geometry tables, option ranges, chance validation and every error class; then the
engine shape: the sin table, the multi-step Wrath choice, the state layout, and seeded
playouts whose every text is found in the catalog. Dice are set with scripted chance
actions applied as ``CHANCE``. Texts are read in English with the players named by
their seat letters (``Texts("carnival", "ABCDE", strict=True)``).
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest

from bot.text import Texts
from engines.base import CHANCE, Event, GameOver, IllegalAction, InvalidOptions, NotYourTurn, seat_ref
from engines.carnival import NOTATION as N
from engines.carnival import rules
from engines.carnival.data import DICE, SINS
from engines.carnival.effects import SIN_TABLE
from engines.carnival.engine import CarnivalEngine
from engines.carnival.rules import (
    card_spots,
    clip,
    dist2,
    inside,
    knock_candidates,
    seat_points,
    zone_search_order,
)
from engines.decisions import DecisionTree

E = CarnivalEngine()
A, B, C, D, EE = 0, 1, 2, 3, 4
TX = Texts("carnival", list("ABCDE"), strict=True)

# Default spread-out positions for dice an example does not place.
POS = {
    "d4": (-300, -100),
    "d6": (-150, 100),
    "d8": (0, -250),
    "d10": (150, 100),
    "d12": (300, -100),
    "d20": (0, 250),
    "W": (0, 0),
}


def new(n: int, devil: int = 0, **opts: Any) -> dict[str, Any]:
    state = E.new_game(n, 1, opts)
    state, _ = E.apply(state, CHANCE, {"type": "first_devil", "seat": devil})
    return state


def roll_action(values: dict[str, int], pos: dict[str, tuple[int, int]] | None = None,
                zones: dict[str, str] | None = None) -> dict[str, Any]:
    dice: dict[str, Any] = {}
    for d in DICE:
        v = values.get(d, 1)
        if zones is not None:
            dice[d] = {"value": v, "zone": zones.get(d, "centre")}
        else:
            dice[d] = {"value": v, "pos": list((pos or {}).get(d, POS[d]))}
    return {"type": "roll", "dice": dice}


def roll(state: dict[str, Any], values: dict[str, int], pos: dict[str, tuple[int, int]] | None = None,
         zones: dict[str, str] | None = None) -> dict[str, Any]:
    state, _ = E.apply(state, CHANCE, roll_action(values, pos, zones))
    return state


def pick(state: dict[str, Any], picks: dict[int, str]) -> tuple[dict[str, Any], list[Any]]:
    events: list[Any] = []
    for seat, sin in picks.items():
        state, ev = E.apply(state, seat, {"type": "choose", "sin": sin})
        events += ev
    return state, events


def act(state: dict[str, Any], seat: int, text: str) -> dict[str, Any]:
    action = N.parse_action(state, seat, text)
    state, _ = E.apply(state, seat, action)
    return state


def lock(state: dict[str, Any], die: str, seat: int) -> dict[str, Any]:
    state = copy.deepcopy(state)
    state["dice"][die].update(place="card", owner=seat, pos=None, zone=None)
    return state


def wrath_result(**kw: Any) -> dict[str, Any]:
    out = {"type": "wrath_result", "off_table": False, "knocks": []}
    out.update(kw)
    return out


def last(state: dict[str, Any]) -> dict[str, Any]:
    """The scoring of the round just scored (spec §8.1), read back from the state: the
    dice are still on the cards until the next roll."""
    assert state["phase"] in ("roll", "over")
    result = rules.round_result(state)
    assert result["scores"] == state["round_scores"][-1] and result["next"] == rules.holder(state)
    return {"base": result["base"], "envy_from": result["copy_from"], "white_bonus": result["bonus"],
            "scores": state["round_scores"][-1], "next_devil": rules.holder(state), "cards": rules.revealed(state)}


def lines(events: Any) -> list[str]:
    return [TX.event(e) for e in events]


def value(state: dict[str, Any], die: str) -> int:
    return int(state["dice"][die]["value"])


# ----------------------------------------------------------------------- §2.4 geometry


def test_geometry_seat_points_match_spec_table() -> None:
    assert seat_points(2) == [(0, -1000), (0, 1000)]
    assert seat_points(3) == [(0, -1000), (-866, 500), (866, 500)]
    assert seat_points(4) == [(0, -1000), (-1000, 0), (0, 1000), (1000, 0)]
    assert seat_points(5) == [(0, -1000), (-951, -309), (-588, 809), (588, 809), (951, -309)]


def test_geometry_card_spots_match_spec_table() -> None:
    assert card_spots(2) == [(0, -920), (0, 920)]
    assert card_spots(3) == [(0, -920), (-797, 460), (797, 460)]
    assert card_spots(4) == [(0, -920), (-920, 0), (0, 920), (920, 0)]
    assert card_spots(5) == [(0, -920), (-875, -284), (-541, 744), (541, 744), (875, -284)]


def test_geometry_clip_nudges_back_onto_play_area() -> None:
    assert clip(60, 900) == (56, 848)
    assert clip(100, 100) == (100, 100)
    assert clip(0, -2000) == (0, -850)
    assert inside(*clip(-700, 700))
    assert inside(0, 850) and not inside(0, 851)


def test_zone_search_order_clockwise_neighbour_first() -> None:
    assert zone_search_order(0, 5) == ["seat0", "centre", "seat1", "seat4", "seat2", "seat3"]
    assert zone_search_order(1, 4) == ["seat1", "centre", "seat2", "seat0", "seat3"]
    assert zone_search_order(0, 2) == ["seat0", "centre", "seat1"]


# ----------------------------------------------------------------------- §2.5 options


def test_options_defaults_and_ranges() -> None:
    state = E.new_game(3, 1, None)
    assert state["options"] == {
        "table_model": "spatial",
        "roll_sigma": 350,
        "wrath_aim_sigma": 80,
        "wrath_knock_radius": 150,
        "wrath_knock_prob": 0.5,
        "wrath_off_table_prob": 0.08,
    }
    ok = E.new_game(2, 1, {"table_model": "zones", "roll_sigma": 600, "wrath_aim_sigma": 0,
                           "wrath_knock_radius": 400, "wrath_knock_prob": 1, "wrath_off_table_prob": 0})
    assert ok["options"]["table_model"] == "zones" and ok["options"]["wrath_knock_prob"] == 1.0
    for key, bad in [("roll_sigma", 99), ("roll_sigma", 601), ("wrath_aim_sigma", 301),
                     ("wrath_aim_sigma", -1), ("wrath_knock_radius", 401), ("wrath_knock_prob", 1.5),
                     ("wrath_off_table_prob", -0.1), ("table_model", "hex"), ("roll_sigma", 350.5)]:
        with pytest.raises(InvalidOptions, match=key):
            E.new_game(3, 1, {key: bad})
    with pytest.raises(InvalidOptions):
        E.new_game(1, 1, None)
    with pytest.raises(InvalidOptions):
        E.new_game(6, 1, None)


# ----------------------------------------------------------------------- §3/§6 chance


def test_first_devil_is_a_validated_chance_event() -> None:
    state = E.new_game(3, 1, None)
    assert E.to_move(state) == frozenset({CHANCE})
    assert len(E.legal_actions(state, CHANCE)) == 3
    with pytest.raises(IllegalAction):
        E.apply(state, CHANCE, {"type": "first_devil", "seat": 3})
    with pytest.raises(NotYourTurn):
        E.apply(state, 0, {"type": "choose", "sin": "lust"})
    state, events = E.apply(state, CHANCE, {"type": "first_devil", "seat": 2})
    assert rules.holder(state) == 2 and state["phase"] == "roll"
    assert lines(events) == ["C receives the Devil card."]


def test_roll_scripted_outcome_is_validated() -> None:
    state = new(3)
    bad_value = roll_action({"d4": 5})
    bad_pos = roll_action({}, pos={"d20": (0, 851)})
    missing = roll_action({})
    del missing["dice"]["W"]
    for bad in (bad_value, bad_pos, missing, roll_action({"W": 0})):
        with pytest.raises(IllegalAction):
            E.apply(state, CHANCE, bad)
    zstate = new(3, table_model="zones")
    with pytest.raises(IllegalAction):
        E.apply(zstate, CHANCE, roll_action({}, zones={"d4": "seat3"}))
    with pytest.raises(IllegalAction):  # spatial roll on a zone table
        E.apply(zstate, CHANCE, roll_action({}))
    ok, _ = E.apply(zstate, CHANCE, roll_action({}, zones={"d4": "seat2"}))
    assert ok["dice"]["d4"]["zone"] == "seat2"


def test_roll_sampler_stays_inside_and_keeps_spacing() -> None:
    rng = random.Random(5)
    state = new(4)
    for _ in range(50):
        action = E.sample_chance(state, rng)
        pts = [action["dice"][d]["pos"] for d in DICE]
        assert all(inside(*p) for p in pts)
        assert all(dist2(p, q) >= 80 * 80 for i, p in enumerate(pts) for q in pts[i + 1:])
        assert all(1 <= action["dice"][d]["value"] <= f for d, f in
                   zip(DICE, (4, 6, 8, 10, 12, 20, 6), strict=True))
        E.apply(state, CHANCE, action)


# ----------------------------------------------------------------------- worked examples


def test_e1_reveal_order_and_devil_tie_goes_to_last_revealed() -> None:
    state = roll(new(4, devil=C), {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20, "W": 2})
    assert rules.order(state) == [C, D, A, B]
    state, _ = pick(state, {A: "wrath", B: "wrath", C: "gluttony", D: "gluttony"})
    # C took d20, D took d12; now A's Wrath
    assert E.to_move(state) == frozenset({A})
    state = act(state, A, "wrath d4 aim none")
    state, _ = E.apply(state, CHANCE, wrath_result(value=1))
    state = act(state, B, "wrath d6 aim none")
    state, _ = E.apply(state, CHANCE, wrath_result(value=1))
    summary = last(state)
    assert summary["scores"] == [2, 2, 20, 12]
    assert summary["next_devil"] == B and rules.holder(state) == B


def test_e2_greed_single_pair_is_automatic_and_white_never_counts() -> None:
    state = roll(new(2), {"d4": 3, "d6": 5, "d8": 2, "d10": 7, "d12": 7, "d20": 11, "W": 5})
    state, events = pick(state, {A: "greed", B: "envy"})
    assert state["phase"] == "roll"  # no prompt: resolved and scored
    assert state["dice"]["d10"]["owner"] == A and state["dice"]["d12"]["owner"] == A
    assert last(state)["base"] == [14, 14]
    assert "A (Greed) takes d10=7 + d12=7 = 14." in lines(events)


def test_e3_greed_choice_order_illegal_pair_and_no_pair() -> None:
    state = roll(new(2), {"d4": 4, "d6": 4, "d8": 4, "d10": 9, "d12": 9, "d20": 1})
    state, _ = pick(state, {A: "greed", B: "envy"})
    acts = E.legal_actions(state, A)
    assert [N.describe_action(state, a) for a in acts] == [
        "greed d10+d12", "greed d6+d8", "greed d4+d8", "greed d4+d6"]
    assert TX(N.action_label(state, acts[0])) == "Take d10+d12 = 18"
    with pytest.raises(IllegalAction):
        E.apply(state, A, {"type": "greed", "dice": ["d4", "d10"]})
    state = act(state, A, "greed d12+d10")  # parse accepts either order
    assert last(state)["base"][A] == 18
    other = roll(new(2), {"d4": 1, "d6": 2, "d8": 3, "d10": 5, "d12": 6, "d20": 7})
    other, events = pick(other, {A: "greed", B: "envy"})
    assert last(other)["base"] == [0, 0]
    assert "A (Greed) takes nothing." in lines(events)


def test_e4_gluttony_tie_is_a_choice_and_white_is_ignored() -> None:
    state = roll(new(3), {"d4": 2, "d6": 5, "d8": 3, "d10": 1, "d12": 12, "d20": 12, "W": 6})
    state = lock(state, "d10", C)
    state, _ = pick(state, {A: "gluttony", B: "envy", C: "envy"})
    assert [N.describe_action(state, a) for a in E.legal_actions(state, A)] == [
        "gluttony d20", "gluttony d12"]
    with pytest.raises(IllegalAction):
        E.apply(state, A, {"type": "gluttony", "die": "d8"})
    # variant: an earlier Greed took d20 and d12; Gluttony must take d6 automatically
    v = roll(new(3), {"d4": 2, "d6": 5, "d8": 3, "d10": 1, "d12": 12, "d20": 12, "W": 6})
    v = lock(v, "d10", C)
    v, _ = pick(v, {A: "greed", B: "gluttony", C: "envy"})
    assert v["dice"]["d6"]["owner"] == B
    assert last(v)["base"][:2] == [24, 5]


def _e5_state() -> dict[str, Any]:
    pos = {"d6": (0, -700), "d8": (-700, 0), "d20": (300, 300), "d10": (0, 300), "d4": (300, 0),
           "d12": (-300, 300), "W": (100, -100)}
    state = roll(new(4, devil=A), {"d20": 7, "d10": 9, "d4": 3, "d6": 5, "d8": 8, "d12": 12}, pos)
    state, _ = pick(state, {A: "sloth", B: "sloth", C: "gluttony", D: "lust"})
    return state


def test_e5_lust_steals_one_die_from_another_card() -> None:
    state = _e5_state()
    assert state["dice"]["d6"]["owner"] == A and state["dice"]["d8"]["owner"] == B
    assert state["dice"]["d12"]["owner"] == C
    acts = E.legal_actions(state, D)
    assert [N.describe_action(state, a) for a in acts] == [
        "lust d10+d12", "lust d12+d20", "lust d8+d10", "lust d8+d20", "lust d4+d12", "lust d4+d8"]
    assert TX(N.action_label(state, acts[0])) == "Take d10+d12 = 21 (steal d12 from C)"
    state, events = E.apply(state, D, N.parse_action(state, D, "lust d12 d10"))
    assert "D (Lust) takes d10=9 + d12=12 = 21, stealing d12 from C." in lines(events)
    assert last(state)["base"] == [5, 8, 0, 21]


def test_e5_lust_cannot_steal_both_dice() -> None:
    state = roll(new(4, devil=A), {"d20": 7, "d10": 9, "d4": 3, "d6": 5, "d8": 8, "d12": 5})
    state = lock(lock(lock(state, "d6", A), "d8", B), "d12", C)
    state, _ = pick(state, {A: "envy", B: "envy", C: "envy", D: "lust"})
    texts = [N.describe_action(state, a) for a in E.legal_actions(state, D)]
    assert texts == ["lust d8+d10", "lust d8+d20", "lust d4+d8"]
    with pytest.raises(IllegalAction):
        E.apply(state, D, {"type": "lust", "dice": ["d8", "d12"]})
    with pytest.raises(IllegalAction):  # A's d6 is odd like the table dice
        E.apply(state, D, {"type": "lust", "dice": ["d6", "d20"]})


def test_e6_sloth_spatial_nearest_with_tie_to_smaller_die() -> None:
    pos = {"d4": (-400, 300), "d6": (-600, 300), "d8": (-600, -300), "d20": (100, 0), "W": (300, -300)}
    state = roll(new(4, devil=B), {"d4": 2, "d6": 5, "d8": 7, "d20": 18}, pos)
    state = lock(lock(state, "d10", A), "d12", A)
    seat_b = seat_points(4)[B]
    assert [dist2(pos[d], seat_b) for d in ("d4", "d6", "d8", "d20")] == [450000, 250000, 250000, 1210000]
    assert E.player_view(state, None)["nearest"][B] == "d6"
    state, _ = pick(state, {A: "envy", B: "sloth", C: "envy", D: "envy"})
    assert state["dice"]["d6"]["owner"] == B
    assert last(state)["base"][B] == 5


def test_e7_sloth_finds_nothing_when_every_die_is_locked() -> None:
    state = roll(new(4, devil=B), {})
    for d in ("d4", "d6", "d8", "d10", "d12", "d20"):
        state = lock(state, d, A)
    state, events = pick(state, {A: "envy", B: "sloth", C: "envy", D: "envy"})
    assert last(state)["base"][B] == 0
    assert "B (Sloth) takes nothing." in lines(events)


def test_e8_wrath_gentle_reroll_of_a_locked_die() -> None:
    state = roll(new(3), {"d20": 18, "d4": 1, "d6": 2})
    before = copy.deepcopy(state["dice"])
    state, _ = pick(state, {A: "envy", B: "gluttony", C: "wrath"})
    assert state["dice"]["d20"]["owner"] == B
    acts = E.legal_actions(state, C)
    assert len(acts) == 6 * 7  # six targets × (none + six other dice)
    assert [TX(step) for step in N.action_path(state, acts[-1])] == ["6 · d20 on B's card (18)"]
    assert E.timeout_action(state, C) == {"type": "wrath", "target": "d20", "aim": "none"}
    state = act(state, C, "wrath d20 aim none")
    assert E.to_move(state) == frozenset({CHANCE})
    with pytest.raises(IllegalAction):  # gentle throw lands nowhere
        E.apply(state, CHANCE, wrath_result(value=3, landing=[0, 0]))
    with pytest.raises(IllegalAction):  # value outside faces
        E.apply(state, CHANCE, wrath_result(value=21))
    state, events = E.apply(state, CHANCE, wrath_result(value=3))
    assert lines(events)[0] == "C (Wrath) rerolls d20 on B's card gently: 18 → 3."
    assert state["dice"]["d20"]["owner"] == B and value(state, "d20") == 3
    assert last(state)["base"] == [0, 3, 0]  # A: Devil holder playing Envy scores 0 (D18)
    for d in DICE:
        if d != "d20":
            assert state["dice"][d]["pos"] == before[d]["pos"]


def test_wrath_reveal_is_logged_once() -> None:
    """One Wrath, two lines: its reveal, then the throw with its result (the choice itself
    writes nothing, and the result does not reveal the card again)."""
    state = roll(new(3), {"d20": 18, "d4": 1, "d6": 2})
    state, reveal = pick(state, {A: "envy", B: "gluttony", C: "wrath"})
    state, choice = E.apply(state, C, N.parse_action(state, C, "wrath d20 aim none"))
    state, result = E.apply(state, CHANCE, wrath_result(value=3))
    text = lines([*reveal, *choice, *result])
    assert [t for t in text if "Wrath" in t and t.startswith("C ")] == [
        "C reveals Wrath.", "C (Wrath) rerolls d20 on B's card gently: 18 → 3."]
    assert choice == ()


def _e9_state() -> dict[str, Any]:
    pos = {"d12": (200, 200), "d8": (-100, 300), "d6": (0, 150), "W": (-180, 330), "d4": (-40, 420),
           "d10": (600, -300), "d20": (-500, -500)}
    state = roll(new(4, devil=D), {"d12": 6, "d8": 8, "d6": 2, "W": 1, "d4": 3}, pos)
    state, _ = pick(state, {A: "envy", B: "envy", C: "envy", D: "wrath"})
    return act(state, D, "wrath d12 aim d8")


def test_e9_wrath_aimed_knocks_only_candidates() -> None:
    state = _e9_state()
    assert knock_candidates(state, "d12", (-60, 260)) == ["d6", "d8", "W"]
    bad = wrath_result(value=11, landing=[-60, 260], knocks=[{"die": "d4", "value": 1, "pos": [-40, 420]}])
    with pytest.raises(IllegalAction):
        E.apply(state, CHANCE, bad)
    with pytest.raises(IllegalAction):  # landing outside the play area
        E.apply(state, CHANCE, wrath_result(value=11, landing=[0, 900]))
    with pytest.raises(IllegalAction):  # an aimed throw needs a landing
        E.apply(state, CHANCE, wrath_result(value=11))
    good = wrath_result(value=11, landing=[-60, 260], knocks=[
        {"die": "d8", "value": 3, "pos": [-110, 320]}, {"die": "W", "value": 6, "pos": [-170, 350]}])
    state, events = E.apply(state, CHANCE, good)
    dice = state["dice"]
    assert (dice["d12"]["value"], dice["d12"]["pos"], dice["d12"]["place"]) == (11, [-60, 260], "table")
    assert (dice["d8"]["value"], dice["d8"]["pos"]) == (3, [-110, 320])
    assert (dice["d6"]["value"], dice["d6"]["pos"]) == (2, [0, 150])
    assert (dice["W"]["value"], dice["W"]["pos"]) == (6, [-170, 350])
    assert (dice["d4"]["value"], dice["d4"]["pos"]) == (3, [-40, 420])
    assert lines(events)[0] == ("D (Wrath) throws d12 on the table: 6 → 11, lands near d8; knocks d8 on the "
                                "table 8 → 3, W on the table 1 → 6.")


def test_e10_wrath_off_the_table_penalty_and_return_to_owner() -> None:
    state = roll(new(4, devil=A), {"d10": 9, "d12": 9, "d20": 4, "d4": 1, "d6": 2, "d8": 3, "W": 2})
    state, _ = pick(state, {A: "greed", B: "wrath", C: "envy", D: "envy"})
    state = act(state, B, "wrath d12 aim d20")
    with pytest.raises(IllegalAction):  # penalty iff off_table
        E.apply(state, CHANCE, wrath_result(off_table=True, value=5))
    with pytest.raises(IllegalAction):
        E.apply(state, CHANCE, wrath_result(value=5, penalty=10, landing=[0, 0]))
    with pytest.raises(IllegalAction):  # a locked die has no landing
        E.apply(state, CHANCE, wrath_result(off_table=True, penalty=10, value=5, landing=[0, 0]))
    with pytest.raises(IllegalAction):  # no knocks off the table
        E.apply(state, CHANCE, wrath_result(off_table=True, penalty=10, value=5,
                                            knocks=[{"die": "d20", "value": 1, "pos": [0, 0]}]))
    state, events = E.apply(state, CHANCE, wrath_result(off_table=True, penalty=10, value=5))
    assert lines(events)[0] == ("B (Wrath) throws d12 on A's card: it flies off the table and shows 10! "
                                "−10 for B; it comes back rerolled gently, 9 → 5.")
    assert state["dice"]["d12"]["owner"] == A and value(state, "d12") == 5
    summary = last(state)
    assert summary["base"] == [14, -10, 14, 14]
    assert summary["scores"] == [14, -8, 14, 14]
    assert summary["next_devil"] == B


def test_e11_single_pride_with_empty_table_still_takes_devil() -> None:
    state = roll(new(5, devil=A), {"d4": 2, "d6": 5, "d8": 8, "d10": 6, "d12": 6, "d20": 7, "W": 3},
                 pos={"d6": (900 * 0, -200), "d8": (0, 400), "d4": (-300, 0), "d20": (300, 0),
                      "d10": (-400, 400), "d12": (400, 400), "W": (0, 0)})
    state, _ = pick(state, {A: "pride", B: "greed", C: "lust", D: "gluttony", EE: "sloth"})
    assert E.to_move(state) == frozenset({C})
    assert [N.describe_action(state, a) for a in E.legal_actions(state, C)] == [
        "lust d8+d20", "lust d12+d20", "lust d10+d20", "lust d6+d8", "lust d6+d12", "lust d6+d10",
        "lust d4+d20", "lust d4+d6"]  # B's Greed dice may be stolen
    state = act(state, C, "lust d4+d20")
    summary = last(state)
    assert summary["base"] == [0, 12, 9, 8, 5]
    assert summary["scores"] == [3, 12, 9, 8, 5]
    assert summary["next_devil"] == A and rules.holder(state) == A


def test_e12_envy_copies_devil_after_wrath_and_pride() -> None:
    state = roll(new(4, devil=A), {"d4": 3, "d6": 1, "d8": 5, "d10": 2, "d12": 9, "d20": 14, "W": 4})
    state, _ = pick(state, {A: "gluttony", B: "envy", C: "wrath", D: "pride"})
    state = act(state, C, "wrath d20 aim none")
    state, events = E.apply(state, CHANCE, wrath_result(value=6))
    summary = last(state)
    assert summary["base"] == [6, 6, 0, 20]
    assert summary["envy_from"] == [-1, A, -1, -1]
    assert summary["white_bonus"] == [0, 0, 4, 0]
    assert summary["scores"] == [6, 6, 4, 20]
    assert summary["next_devil"] == D
    text = next(TX.event(e) for e in events if e.kind == "round_scored")
    assert text == ("Round 1: base A 6, B 6 (Envy of A), C 0 (Wrath), D 20; white die 4 → C; "
                    "round scores A 6, B 6, C 4, D 20; next Devil D (Pride).")


def test_e13_devil_holder_playing_envy_scores_zero() -> None:
    state = roll(new(4, devil=A), {"d4": 1, "d6": 5, "d8": 2, "d10": 5, "d12": 3, "d20": 12, "W": 3})
    state, _ = pick(state, {A: "envy", B: "envy", C: "greed", D: "gluttony"})
    summary = last(state)
    assert summary["base"] == [0, 0, 10, 12]
    assert summary["scores"] == [3, 3, 10, 12]
    assert summary["next_devil"] == B


def test_e14_round_seven_card_is_forced() -> None:
    state = new(3, devil=A)
    state["round"] = 7
    state["hands"] = [["sloth"], ["pride"], ["envy"]]
    state["played"] = [[s for s in ("greed", "gluttony", "envy", "lust", "pride", "wrath")],
                       [s for s in ("greed", "gluttony", "envy", "lust", "sloth", "wrath")],
                       [s for s in ("greed", "gluttony", "lust", "pride", "sloth", "wrath")]]
    state["round_scores"] = [[0, 0, 0]] * 6
    state, events = E.apply(state, CHANCE, roll_action({"d8": 8}))
    kinds = [e.kind for e in events]
    assert "pick" not in kinds and "picked" not in kinds
    reveals = [e.params["seat"] for e in events if e.kind == "reveal"]
    # the Devil follows from the made-up history (§8.1 step 4: Pride in rounds 4 and 5, ties
    # elsewhere → revealed last): round 7 is C's, so the usual order is C, A, B
    assert rules.devils(state)[:7] == [A, C, B, A, C, A, C]
    assert reveals == [seat_ref(C), seat_ref(A), seat_ref(B)]
    assert "Round 7: every player's last card is played." in lines(events)
    assert E.to_move(state) == frozenset()
    assert E.outcome(state) is not None
    with pytest.raises(GameOver):
        E.apply(state, A, {"type": "choose", "sin": "sloth"})


def test_e15_final_tie_breaks_best_round_then_shared() -> None:
    state = new(3)
    state["phase"] = "over"
    rounds = [[19, 22, 10]] + [[7, 6, 8]] * 5 + [[6, 8, 8]]
    state["round_scores"] = rounds
    assert rules.totals(state) == [60, 60, 58] and E.scores(state) == (60.0, 60.0, 58.0)
    out = E.outcome(state)
    assert out is not None and out.winners == frozenset({B}) and out.ranking == (B, A, C)
    assert TX(out.reason) == ("Final totals: B 60 (best round 22), A 60 (best round 19), C 58 (best round 10). "
                              "B wins: tied on 60 points, best single round 22.")
    rounds2 = [[22, 22, 10]] + [[6, 6, 8]] * 5 + [[8, 8, 8]]
    state["round_scores"] = rounds2
    out = E.outcome(state)
    assert out is not None and out.winners == frozenset({A, B})
    assert TX(out.reason).endswith("A and B share the win: 60 points and best single round 22.")


def test_e16_zones_sloth_searches_own_zone_then_centre() -> None:
    zones = {"d6": "centre", "d10": "centre", "d4": "seat2", "d8": "seat3", "d12": "seat0", "d20": "seat2",
             "W": "seat1"}
    state = roll(new(4, devil=B, table_model="zones"), {"d6": 3, "d10": 8, "d4": 1}, zones=zones)
    state, _ = pick(state, {A: "envy", B: "sloth", C: "envy", D: "envy"})
    assert [N.describe_action(state, a) for a in E.legal_actions(state, B)] == ["sloth d10", "sloth d6"]
    state = act(state, B, "sloth d10")
    assert last(state)["base"][B] == 8
    zones["d4"] = "seat1"
    v = roll(new(4, devil=B, table_model="zones"), {"d6": 3, "d10": 8, "d4": 1}, zones=zones)
    v, _ = pick(v, {A: "envy", B: "sloth", C: "envy", D: "envy"})
    assert v["dice"]["d4"]["owner"] == B and last(v)["base"][B] == 1


def test_e17_pick_may_change_until_all_picked_and_timeout_picks_at_random() -> None:
    state = roll(new(3, devil=A), {})
    state, _ = pick(state, {A: "sloth", B: "sloth", C: "sloth"})
    assert state["round"] == 2
    state = roll(state, {"d4": 1, "d6": 3, "d8": 5, "d10": 7, "d12": 9, "d20": 11, "W": 2})
    assert E.to_move(state) == frozenset({A, B, C})
    state, _ = pick(state, {B: "greed"})
    assert E.to_move(state) == frozenset({A, C})
    state, _ = pick(state, {B: "lust"})  # change while C has not picked
    assert state["picks"][B] == "lust"
    assert E.player_view(state, B)["pick"] == "lust"
    public = json.dumps(E.player_view(state, None))
    assert "pick" not in E.player_view(state, None) and E.player_view(state, None)["seats"][B]["picked"]
    assert "lust" in public  # only as a card still in hand, which is public
    other = E.shuffle_hidden(state, A, random.Random(1))
    assert E.player_view(other, A) == E.player_view(state, A)
    assert E.timeout_action(state, C) == {"type": "timeout"}
    state, _ = pick(state, {A: "pride"})
    state, events = E.apply(state, C, E.timeout_action(state, C))
    assert lines(events) == ["No pick from C: a random sin will be picked."]  # the host says why
    assert E.to_move(state) == frozenset({CHANCE})
    options = E.legal_actions(state, CHANCE)
    assert len(options) == 6 and {o["sin"] for o in options} == set(state["hands"][C])
    with pytest.raises(IllegalAction):  # sloth was already played
        E.apply(state, CHANCE, {"type": "random_sin", "seat": C, "sin": "sloth"})
    state, events = E.apply(state, CHANCE, {"type": "random_sin", "seat": C, "sin": "envy"})
    private = [e for e in events if e.visible_to is not None]
    assert [(e.visible_to, TX.event(e)) for e in private] == [
        (frozenset({C}), "Envy was picked for you at random.")]
    assert "C has picked a sin (at random)." in lines(events)
    assert "C reveals Envy (picked at random)." in lines(events)
    assert last(state)["cards"] == ["pride", "lust", "envy"]
    with pytest.raises(NotYourTurn):  # all picked: no further changes
        E.apply(state, B, {"type": "choose", "sin": "greed"})


def test_e18_two_pride_players_alternate_single_picks() -> None:
    state = roll(new(2, devil=A), {"d4": 1, "d6": 6, "d8": 3, "d10": 10, "d12": 7, "d20": 2, "W": 4})
    state, _ = pick(state, {A: "pride", B: "pride"})
    assert E.to_move(state) == frozenset({A})
    assert [N.describe_action(state, a) for a in E.legal_actions(state, A)] == [
        "pride d10", "pride d12", "pride d6", "pride d8", "pride d20", "pride d4"]
    with pytest.raises(NotYourTurn):
        E.apply(state, B, {"type": "pride", "die": "d12"})
    for seat, die in [(A, "d10"), (B, "d12"), (A, "d6"), (B, "d8"), (A, "d20")]:
        assert E.to_move(state) == frozenset({seat})
        state = act(state, seat, f"pride {die}")
    summary = last(state)
    assert state["dice"]["d4"]["owner"] == B
    assert summary["base"] == [18, 11]
    assert summary["scores"] == [18, 15]
    assert summary["next_devil"] == B


def test_e19_zones_wrath_aimed_at_centre_then_sloth() -> None:
    zones = {"d12": "centre", "d6": "centre", "W": "centre", "d20": "seat1", "d4": "seat0", "d8": "seat2",
             "d10": "seat2"}
    state = roll(new(3, devil=A, table_model="zones"), {"d12": 4, "d6": 2, "W": 3, "d20": 15}, zones=zones)
    state, _ = pick(state, {A: "wrath", B: "sloth", C: "envy"})
    acts = E.legal_actions(state, A)
    assert len(acts) == 6 * 5  # none, centre, seat0..2
    state = act(state, A, "wrath d20 aim centre")
    assert knock_candidates(state, "d20", "centre") == ["d6", "d12", "W"]
    with pytest.raises(IllegalAction):  # must land in the aim zone
        E.apply(state, CHANCE, wrath_result(value=9, landing="seat2"))
    with pytest.raises(IllegalAction):  # d8 is not in the centre
        E.apply(state, CHANCE, wrath_result(value=9, landing="centre", knocks=[{"die": "d8", "value": 1}]))
    state, _ = E.apply(state, CHANCE, wrath_result(value=9, landing="centre",
                                                    knocks=[{"die": "d6", "value": 5}]))
    assert state["dice"]["d20"]["zone"] == "centre" and value(state, "d6") == 5
    assert [N.describe_action(state, a) for a in E.legal_actions(state, B)] == [
        "sloth d20", "sloth d6", "sloth d12"]
    state = act(state, B, "sloth d20")
    assert last(state)["base"][B] == 9


# ----------------------------------------------------------------------- more rules / errors


def test_wrath_zones_off_table_moves_table_die_to_a_zone() -> None:
    state = roll(new(3, devil=A, table_model="zones"), {"d20": 15}, zones={"d20": "seat1"})
    state, _ = pick(state, {A: "wrath", B: "envy", C: "envy"})
    state = act(state, A, "wrath d20 aim seat2")
    with pytest.raises(IllegalAction):
        E.apply(state, CHANCE, wrath_result(off_table=True, penalty=3, value=4, landing="nowhere"))
    state, _ = E.apply(state, CHANCE, wrath_result(off_table=True, penalty=3, value=4, landing="seat0"))
    assert state["dice"]["d20"]["zone"] == "seat0" and last(state)["base"][A] == -3


def test_wrath_timeout_prefers_locked_dice_then_highest_table_die() -> None:
    state = roll(new(2, devil=A), {"d20": 19, "d12": 10, "d10": 10})
    state = lock(lock(state, "d12", B), "d10", B)
    state, _ = pick(state, {A: "wrath", B: "envy"})
    assert E.timeout_action(state, A) == {"type": "wrath", "target": "d12", "aim": "none"}
    label = N.action_label(state, {"type": "wrath", "target": "d12", "aim": "none"})
    assert TX(label) == "No aim: gentle reroll in place, knocks nothing"


def test_wrath_sampler_outcomes_are_valid() -> None:
    rng = random.Random(11)
    for model in ("spatial", "zones"):
        for aim in ("none", "d8", "W") if model == "spatial" else ("none", "centre", "seat1"):
            state = roll(new(3, devil=A, table_model=model, wrath_off_table_prob=0.3,
                             wrath_knock_radius=400, wrath_knock_prob=0.9),
                         {"d20": 15}, zones={} if model == "zones" else None)
            state, _ = pick(state, {A: "wrath", B: "envy", C: "envy"})
            state = act(state, A, f"wrath d20 aim {aim}")
            for _ in range(40):
                E.apply(state, CHANCE, E.sample_chance(state, rng))


def test_choose_errors() -> None:
    state = roll(new(3), {})
    with pytest.raises(IllegalAction):
        E.apply(state, A, {"type": "choose", "sin": "vanity"})
    with pytest.raises(IllegalAction):
        E.apply(state, A, {"type": "greed", "dice": ["d4", "d6"]})
    with pytest.raises(IllegalAction):
        E.apply(state, A, "choose lust")  # type: ignore[arg-type]
    state, _ = pick(state, {A: "lust"})
    with pytest.raises(IllegalAction):  # already the pick
        E.apply(state, A, {"type": "choose", "sin": "lust"})
    with pytest.raises(NotYourTurn):  # a picked seat cannot time out
        E.apply(state, A, {"type": "timeout"})
    with pytest.raises(NotYourTurn):
        E.apply(state, 7, {"type": "choose", "sin": "lust"})
    with pytest.raises(NotYourTurn):
        E.apply(state, CHANCE, roll_action({}))


def test_resolution_errors_not_your_turn_and_wrong_sin() -> None:
    state = roll(new(2), {"d4": 4, "d6": 4, "d8": 4})
    state, _ = pick(state, {A: "greed", B: "envy"})
    with pytest.raises(NotYourTurn):
        E.apply(state, B, {"type": "greed", "dice": ["d4", "d6"]})
    with pytest.raises(IllegalAction, match="Greed"):
        E.apply(state, A, {"type": "gluttony", "die": "d20"})
    with pytest.raises(IllegalAction):
        N.parse_action(state, A, "greed d4+d20")


def test_public_view_hides_picks_and_private_view_shows_hints() -> None:
    state = roll(new(3), {})
    state, _ = pick(state, {A: "wrath", B: "greed"})
    pub = E.player_view(state, None)
    assert "pick" not in pub and [s["picked"] for s in pub["seats"]] == [True, True, False]
    mine = E.player_view(state, A)
    assert mine["pick"] == "wrath" and len(mine["seats"][A]["hand"]) == 7
    shuffled = E.shuffle_hidden(state, None, random.Random(2))
    assert E.player_view(shuffled, None) == pub
    differs = any(E.shuffle_hidden(state, C, random.Random(i))["picks"] != state["picks"] for i in range(10))
    assert differs


def test_notation_round_trips_and_labels_fit() -> None:
    state = _e9_state()
    state, _ = E.apply(state, CHANCE, wrath_result(value=11, landing=[-60, 260]))
    state = _e5_state()
    for a in E.legal_actions(state, D):
        text = N.describe_action(state, a)
        assert N.parse_action(state, D, text) == a
        assert 0 < len(TX(N.action_label(state, a))) <= 80
    assert N.parse_action(state, D, "LUST d12+d10") == {"type": "lust", "dice": ["d10", "d12"]}


# ----------------------------------------------------------------------- engine shape


def _walk_strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in [k, *_walk_strings(v)]]
    if isinstance(obj, list):
        return [s for v in obj for s in _walk_strings(v)]
    return []


def test_state_holds_only_what_the_rules_need() -> None:
    state = _e9_state()
    assert set(state) == {
        "game", "state_version", "players", "options", "phase", "round", "first_devil", "reveal_index",
        "hands", "played", "picks", "random_pick", "random_pending", "dice", "penalties", "throw",
        "pride_turn", "round_scores"}
    assert state["state_version"] == 2 and state["throw"] == {"target": "d12", "aim": "d8"}
    # no sentence anywhere: every string is an id (sin, die, zone, phase, option key)
    assert all(re.fullmatch(r"[A-Za-z0-9_]+", s) for s in _walk_strings(state)), _walk_strings(state)


def test_sin_table_has_one_entry_per_sin_with_its_timing() -> None:
    assert set(SIN_TABLE) == set(SINS)
    assert {s: e.when for s, e in SIN_TABLE.items()} == {
        "greed": "reveal", "gluttony": "reveal", "envy": "scoring", "lust": "reveal", "pride": "round_end",
        "sloth": "reveal", "wrath": "reveal"}
    state = _e5_state()  # D resolves Lust: its legal actions are the table's options
    assert E.legal_actions(state, D) == SIN_TABLE["lust"].options(state, D)
    assert TX(N.prompt(state, D)) == "Lust: choose one odd and one even die to take."
    assert TX(N.prompt(state, A)) == TX.template("host.nothing")


def test_wrath_is_chosen_in_two_steps_target_then_aim() -> None:
    state = roll(new(3), {"d20": 18, "d4": 1, "d6": 2})
    state, _ = pick(state, {A: "envy", B: "gluttony", C: "wrath"})
    tree = DecisionTree.of(N, state, C)
    root, trail = tree.node(())
    assert trail == () and len(root) == 6 and all(c.step is not None and c.size == 7 for c in root)
    assert [TX(c.label) for c in root] == [  # (in the order of the picture's numbers: size order)
        "1 · d4 on the table (1)", "2 · d6 on the table (2)", "3 · d8 on the table (1)", "4 · d10 on the table (1)",
        "5 · d12 on the table (1)", "6 · d20 on B's card (18)"]
    aims, trail = tree.node((5,))
    assert [TX(t) for t in trail] == ["6 · d20 on B's card (18)"]
    assert [TX(c.label) for c in aims][:2] == ["No aim: gentle reroll in place, knocks nothing",
                                               "1 · at d4=1 (table) — may knock d4"]
    assert all(c.step is not None and c.action is None for c in aims)   # an aim opens its confirmation
    throw, trail = tree.node((5, 0))
    assert [TX(t) for t in trail] == ["6 · d20 on B's card (18)", "No aim: gentle reroll in place, knocks nothing"]
    assert [(TX(c.label), c.hint, c.step) for c in throw] == [("Throw", None, None)]
    assert tree.actions[throw[0].action or 0] == {"type": "wrath", "target": "d20", "aim": "none"}
    assert TX(tree.summary((5, 0)) or "") == (
        "You reroll d20 on B's card (18) gently in place: nothing is knocked.\n"
        "Off-table chance 8%: you then score minus the number it shows off the table (−1 to −20), and it comes "
        "back rerolled gently, knocking nothing.")
    assert tree.summary((5,)) is None and tree.summary(()) is None


def test_wrath_confirmation_lists_the_knock_candidates_of_the_aim_with_values() -> None:
    """Spec §11 Prompts: before the throw the panel shows the dice within the knock radius
    of the aim point (E9's table), the knock chance and the off-table chance; zones list the
    dice in the aim zone (E19's centre). Other choices ask no confirmation."""
    pos = {"d12": (200, 200), "d8": (-100, 300), "d6": (0, 150), "W": (-180, 330), "d4": (-40, 420),
           "d10": (600, -300), "d20": (-500, -500)}
    state = roll(new(4, devil=D), {"d12": 6, "d8": 8, "d6": 2, "W": 1, "d4": 3}, pos)
    state, _ = pick(state, {A: "envy", B: "envy", C: "envy", D: "wrath"})
    summary, button = N.action_confirm(state, {"type": "wrath", "target": "d12", "aim": "d8"}) or ("", "")
    assert (TX(summary), TX(button)) == (
        "You throw d12 on the table (6), aiming at d8=8 (table). Dice within 150 of the aim point (the landing "
        "scatters a little): d4=3, d8=8, W=1; each is knocked (rerolled) with a 50% chance.\n"
        "Off-table chance 8%: you then score minus the number it shows off the table (−1 to −12), and it comes "
        "back rerolled gently, knocking nothing.", "Throw")
    far = N.action_confirm(state, {"type": "wrath", "target": "d12", "aim": "d20"})
    assert far is not None and "aim point (the landing scatters a little): d20=" in TX(far[0])
    state = roll(new(3, devil=A, table_model="zones", wrath_knock_prob=1, wrath_off_table_prob=0.25),
                 {"d12": 4, "d6": 2, "W": 3, "d20": 15},
                 zones={"d12": "centre", "d6": "centre", "W": "centre", "d20": "seat1",
                        "d4": "seat2", "d8": "seat2", "d10": "seat2"})
    state, _ = pick(state, {A: "wrath", B: "sloth", C: "envy"})
    summary, _ = N.action_confirm(state, {"type": "wrath", "target": "d20", "aim": "centre"}) or ("", "")
    assert TX(summary) == (
        "You throw d20 on the table (15), aiming at the centre. Dice in that zone: d6=2, d12=4, W=3; each is "
        "knocked (rerolled) with a 100% chance.\nOff-table chance 25%: you then score minus the number it shows "
        "off the table (−1 to −20), and it comes back rerolled gently, knocking nothing.")
    assert N.action_confirm(state, {"type": "choose", "sin": "greed"}) is None


def test_pick_labels_and_hints_come_from_the_catalog() -> None:
    state = roll(new(2), {})
    first = E.legal_actions(state, A)[0]
    assert (TX(N.action_label(state, first)), TX(N.action_hint(state, first))) == (
        "Greed 貪欲", "Take 2 table dice showing the same value.")
    assert N.action_path(state, first) == ()
    assert TX(N.prompt(state, A)) == "Choose your sin for round 1."
    assert TX(N.action_label(state, {"type": "timeout"})) == "🎲 Pick a sin at random"


@pytest.mark.parametrize("model", ["spatial", "zones"])
def test_every_text_of_seeded_playouts_is_in_the_catalog(model: str) -> None:
    """Every event, prompt, label, hint, path step and end reason of whole games formats
    with the strict English catalog (a missing key or parameter raises), names fill in,
    and no placeholder or catalog key is left in the text."""
    for seed in range(4):
        n = 2 + seed
        tx = Texts("carnival", [f"Player{i}" for i in range(n)], strict=True)
        rng = random.Random(seed)
        state = E.new_game(n, seed, {"table_model": model, "wrath_off_table_prob": 0.3})
        out: list[str] = []
        kinds: set[str] = set()
        while E.to_move(state):
            seat = rng.choice(sorted(E.to_move(state)))
            if seat == CHANCE:
                action = E.sample_chance(state, rng)
            else:
                acts = E.legal_actions(state, seat)
                out.append(tx(N.prompt(state, seat)))
                for a in acts:
                    out += [tx(N.action_label(state, a)), tx(N.action_hint(state, a))]
                    out += [tx(step) for step in N.action_path(state, a)]
                    out += [tx(part) for part in N.action_confirm(state, a) or ()]
                action = rng.choice([E.timeout_action(state, seat), *acts])
            state, events = E.apply(state, seat, action)
            assert all(isinstance(e, Event) and e.params is not None and not e.text for e in events)
            kinds |= {e.kind for e in events}
            out += [tx.event(e) for e in events]
        outcome = E.outcome(state)
        assert outcome is not None
        out.append(tx(outcome.reason))
        assert {"roll", "reveal", "round_scored", "game_over"} <= kinds
        assert not [line for line in out if "{" in line or "event." in line or "label." in line]
        assert any("Player0" in line for line in out)


def test_the_last_round_names_no_next_devil_and_the_view_shows_places() -> None:
    """Spec §8.2: the game ends after round 7's scoring: its line names no next Devil, and
    the public view has no Devil holder, no Sloth lines and each seat's place."""
    rng = random.Random(5)
    state = E.new_game(3, 5, {})
    scored: list[Event] = []
    while E.to_move(state):
        seat = min(E.to_move(state))
        action = E.sample_chance(state, rng) if seat == CHANCE else E.legal_actions(state, seat)[0]
        state, events = E.apply(state, seat, action)
        scored += [e for e in events if e.kind.endswith("round_scored")]
    assert [e.kind for e in scored] == ["round_scored"] * 6 + ["last_round_scored"]
    assert "devil" not in (scored[-1].params or {}) and "next Devil" not in TX.event(scored[-1])
    assert TX.event(scored[-1]).startswith("Round 7: base ")
    view = E.player_view(state, None)
    assert view["devil"] is None and view["nearest"] == []
    totals, best = rules.totals(state), rules.best_rounds(state)
    assert view["places"] == [1 + sum((totals[t], best[t]) > (totals[s], best[s]) for t in range(3))
                              for s in range(3)]
    assert sorted(view["places"])[0] == 1
    assert {s for s in range(3) if view["places"][s] == 1} == set(view["outcome"]["winners"])


def test_places_share_equal_totals_and_best_rounds() -> None:
    state = new(3)
    state["round_scores"] = [[5, 5, 1], [3, 3, 9]]
    assert rules.places(state) == [2, 2, 1]
    state["round_scores"] = [[5, 4, 1], [3, 4, 9]]
    assert rules.places(state) == [2, 3, 1]


def test_each_module_imports_only_the_floors_below_it() -> None:
    """docs/TEMPLATE.md floors: types < data < rules < effects < chance, notation < view < flow < engine."""
    import ast
    import sys
    from pathlib import Path

    below = {"data": set(), "rules": {"data"}, "effects": {"rules", "data"},
             "chance": {"rules", "data"}, "notation": {"effects", "rules", "data"},
             "view": {"notation", "effects", "rules", "data"},
             "flow": {"view", "notation", "effects", "rules", "data"},
             "engine": {"flow", "view", "notation", "chance", "effects", "rules", "data"}}
    below = {"types": set()} | {name: allowed | {"types"} for name, allowed in below.items()}
    package = Path(rules.__file__).parent
    for name, allowed in below.items():
        tree = ast.parse((package / f"{name}.py").read_text(encoding="utf-8"))
        used = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module == "engines.carnival" for alias in node.names}
        used |= {node.module.rsplit(".", 1)[1] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and (node.module or "").startswith("engines.carnival.")}
        assert used <= allowed, (name, used - allowed)
        roots = {(node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        roots |= {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                  for alias in node.names}
        assert roots <= set(sys.stdlib_module_names) | {"engines", "__future__"}, (name, roots)


def test_sloth_lines_only_for_seats_that_can_still_reveal_sloth_this_round() -> None:
    """Spec §11 board: "Sloth would take …" lines only for a seat whose card of the round
    is not revealed yet and that still holds Sloth (a face-down pick counts as held, §7);
    the public and private views agree (nothing secret decides it)."""
    values = {"d4": 1, "d6": 1, "d8": 2, "d10": 2, "d12": 5, "d20": 6}
    state = roll(new(3, devil=A), values)
    assert all(die is not None for die in E.player_view(state, None)["nearest"])  # every hand holds Sloth
    state, _ = pick(state, {A: "greed", B: "sloth", C: "gluttony"})  # A reveals Greed: two pairs, A chooses
    view = E.player_view(state, None)
    assert rules.pending(state) == (A, "greed")
    assert view["nearest"] == [None, "d6", "d10"]        # A's card is revealed; B's face-down Sloth counts
    assert E.player_view(state, B)["nearest"] == E.player_view(state, C)["nearest"] == view["nearest"]
    state = act(state, A, "greed d4+d6")                 # then B's Sloth and C's Gluttony resolve
    assert state["round"] == 2
    state = roll(state, values)
    assert E.player_view(state, None)["nearest"] == [rules.sloth_spatial_die(state, A), None,
                                                     rules.sloth_spatial_die(state, C)]  # B played Sloth


def test_replay_pauses_round_7_after_its_roll_and_other_entries_are_one_stage() -> None:
    """Spec E14: round 7's roll plays the round by itself; ``replay_stages`` shows its table
    after the roll (forced picks face down, nothing revealed), then ``apply``'s result; the
    stages' events, in order, are ``apply``'s. Every other entry is one stage."""
    rng = random.Random(2)
    state = E.new_game(3, 2, {})
    while not (state["phase"] == "roll" and state["round"] == 7):
        seat = min(E.to_move(state))
        action = E.sample_chance(state, rng) if seat == CHANCE else E.legal_actions(state, seat)[0]
        assert len(E.replay_stages(state, seat, action)) == 1
        state, _ = E.apply(state, seat, action)
    roll7 = E.sample_chance(state, rng)
    (mid, first), (end, rest) = E.replay_stages(state, CHANCE, roll7)
    full, events = E.apply(state, CHANCE, roll7)
    assert end == full and first + rest == events
    assert [e.kind for e in first] == ["roll", "forced_picks"] and rest[0].kind == "reveal"
    view = E.player_view(mid, None)
    assert view["phase"] == "reveal" and view["to_move"] == [] and view["round_scores"] == state["round_scores"]
    assert [(s["picked"], s["card"]) for s in view["seats"]] == [(True, None)] * 3
    assert mid["picks"] == [hand[0] for hand in state["hands"]]
