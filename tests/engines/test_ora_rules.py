"""Rule tests for Ora et Labora: the worked examples E1–E30 of docs/rules/ora.md §10 (each
test is named after its rule), the effect interpreter, and a playout of every mode × country."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.text import Texts
from engines.base import CHANCE, GameOver, IllegalAction, InvalidOptions, NotYourTurn, copy_state, replay
from engines.decisions import DecisionTree
from engines.ora import ENGINE as E
from engines.ora import NOTATION as NT
from engines.ora import flow as F
from engines.ora import notation as N
from engines.ora import rules as R
from engines.ora.data import BUILDINGS, MODES, building_set, mode_code
from engines.ora.effects import EFFECTS

State = dict[str, Any]


# --------------------------------------------------------------------------- helpers


def new(players: int = 4, **opts: Any) -> State:
    """A game with seat 0 as first start player, round 1 begun."""
    return E.new_game(players, 0, {"start_player": "host", **opts})


def play(st: State, seat: int, *moves: str) -> State:
    """Apply typed moves for ``seat`` in order."""
    for text in moves:
        st, _ = E.apply(st, seat, N.parse(st, text))
    return st


def events(st: State, seat: int, text: str) -> tuple[State, list[str]]:
    st, evs = E.apply(st, seat, N.parse(st, text))
    return st, [e.kind for e in evs]


def labels(st: State) -> list[str]:
    """The notation of every legal action of the deciding seat."""
    seat = F.decider(st)
    assert seat is not None
    return [NT.describe_action(st, a) for a in E.legal_actions(st, seat)]


def skip_to(st: State, seat: int, kind: str = "action") -> State:
    """Let every other window close (pass / done / skip) until ``seat`` opens a window."""
    for _ in range(500):
        d = F.decider(st)
        win = st["win"]
        if d == seat and not st["stack"] and win is not None and win["kind"] == kind and not win["main"]:
            return st
        assert d is not None
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    raise AssertionError("seat never got a window")


def to_unit(st: State, unit: int) -> State:
    """Play timeouts (pass / done / skip) until ``unit`` has begun."""
    while st["unit"] < unit:
        d = F.decider(st)
        assert d is not None
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    return st


def close(st: State, seat: int) -> State:
    """Close ``seat``'s window if it is still open after its main action."""
    if F.decider(st) == seat and not st["stack"] and st["win"] and st["win"]["main"]:
        st = play(st, seat, "done")
    return st


def goods(st: State, seat: int, **kw: int) -> None:
    """Set ``seat``'s goods exactly (others 0)."""
    g = st["pl"][seat]["goods"]
    for k in g:
        g[k] = 0
    g.update(kw)


def have(st: State, seat: int) -> dict[str, int]:
    """``seat``'s non-zero goods."""
    return {g: n for g, n in st["pl"][seat]["goods"].items() if n}


def put(st: State, owner: int, x: int, y: int, piece: str | None, card: str | None = None) -> None:
    st["pl"][owner]["land"][R.key(x, y)][1] = card
    st["pl"][owner]["land"][R.key(x, y)][2] = piece


def add_tile(st: State, owner: int, tile: str, side: str, y: int) -> None:
    R.place_tile(st["pl"][owner]["land"], tile, side, y)


def rejected(st: State, seat: int, text: str) -> None:
    before = repr(st)
    with pytest.raises(IllegalAction):
        E.apply(st, seat, N.parse(st, text))
    assert repr(st) == before


# --------------------------------------------------------------------------- data and notation


def test_effect_notation_parses_every_building() -> None:
    assert set(EFFECTS) == set(BUILDINGS) and len(EFFECTS) == 70
    bakery = EFFECTS["F05"].parts
    assert [p.cap for p in bakery] == [None, 2]
    assert bakery[0].alts[0].pay.value == (("energy", 0.5),)
    workshop = EFFECTS["G18"].parts
    assert len(workshop) == 1 and workshop[0].choose and [a.cap for a in workshop[0].alts] == [3, 1]
    assert EFFECTS["F35"].parts[1].needs_previous
    assert EFFECTS["F36"].parts[0].ordered
    assert EFFECTS["I09"].parts[0].alts[0].get[0].tiers == ((0, 0), (1, 3), (5, 5), (9, 6))
    assert EFFECTS["F21"].passive and not EFFECTS["F24"].passive


def test_building_sets_per_mode_match_the_modes_file() -> None:
    assert len(building_set("std4", "france")) == 41
    assert len(building_set("std3", "ireland")) == 33
    assert len(building_set("2p", "france")) == 24
    assert len(building_set("2pl", "france")) == 38 and len(building_set("2pl", "ireland")) == 41
    assert len(building_set("solo", "france")) == 36 and len(building_set("solo", "ireland")) == 40
    assert "F29" not in building_set("sh4", "france", remove_quarry_c=True)


def test_mode_option_resolves_by_player_count() -> None:
    assert [mode_code("standard", n) for n in (1, 2, 3, 4)] == ["solo", "2p", "std3", "std4"]
    assert mode_code("long", 2) == "2pl" and [mode_code("short", n) for n in (3, 4)] == ["sh3", "sh4"]
    with pytest.raises(InvalidOptions):
        E.new_game(5, 0, None)


@pytest.mark.parametrize(("players", "family", "valid"), [
    (1, "long", ["standard"]), (3, "long", ["standard", "short"]), (4, "long", ["standard", "short"]),
    (1, "short", ["standard"]), (2, "short", ["standard", "long"])])
def test_a_mode_that_does_not_fit_the_player_count_is_refused(players: int, family: str, valid: list[str]) -> None:
    with pytest.raises(InvalidOptions) as caught:
        E.new_game(players, 0, {"mode": family})
    error = caught.value
    assert error.code == "mode_players" and error.params["valid"] == valid and error.params["players"] == players
    english = Texts("ora", [], strict=True)(error.params["text"])
    assert english.startswith(f"Mode {family} does not fit this player count ({players}).")
    assert all(f"mode={v}" in english for v in valid) and f"mode={family}" not in english
    chinese = Texts("ora", [], "zh_TW", strict=True)(error.params["text"])
    assert all(f"mode={v}" in chinese for v in valid) and "Mode" not in chinese


def test_notation_round_trips_in_a_playout() -> None:
    rng = random.Random(5)
    st = E.new_game(3, 0, {"variant": "ireland"})
    while E.to_move(st):
        seat = min(E.to_move(st))
        if seat == CHANCE:
            a = E.sample_chance(st, rng)
        else:
            a = rng.choice(list(E.legal_actions(st, seat)))
            assert N.parse(st, NT.describe_action(st, a)) == a
        st, _ = E.apply(st, seat, a)
    assert E.outcome(st) is not None


# --------------------------------------------------------------------------- §10 worked examples


def test_e1_wheel_rounds_1_and_2() -> None:
    st = new(4)
    assert all(a == 1 for a in st["wheel"].values()) and R.wheel_value(st, "wood") == 2
    st = close(play(st, 0, "use L2 lay", "wheel livestock"), 0)
    assert have(st, 0)["livestock"] == 3 and st["wheel"]["livestock"] == 0
    st = close(play(st, 1, "cut_peat 0 0"), 1)
    assert have(st, 1)["peat"] == 3 and st["pl"][1]["land"]["0,0"][1] is None and st["wheel"]["peat"] == 0
    st = close(play(st, 2, "use L1 lay", "wheel clay joker"), 2)
    assert have(st, 2)["clay"] == 3 and st["wheel"]["joker"] == 0 and st["wheel"]["clay"] == 1
    st = close(play(st, 3, "fell_trees 1 0"), 3)
    assert have(st, 3)["wood"] == 3 and st["wheel"]["wood"] == 0
    st = close(play(st, 0, "use L3 lay", "wheel coin"), 0)
    assert have(st, 0)["coin"] == 3
    assert st["unit"] == 2 and F.start_seat(st) == 1 and F.decider(st) == 1
    assert {g: st["wheel"][g] for g in ("livestock", "peat", "joker", "wood", "coin")} == dict.fromkeys(
        ("livestock", "peat", "joker", "wood", "coin"), 1)
    assert st["wheel"]["clay"] == 2 and st["wheel"]["grain"] == 2 and R.wheel_value(st, "clay") == 3


def test_e2_joker() -> None:
    st = new(4)
    st = skip_to(st, 1)
    st["wheel"]["clay"], st["wheel"]["joker"] = 2, 6
    goods(st, 1)
    st = close(play(st, 1, "use L1 lay", "wheel clay joker"), 1)
    assert have(st, 1) == {"clay": 6} and st["wheel"]["joker"] == 0 and st["wheel"]["clay"] == 2
    st = to_unit(st, 2)
    assert st["wheel"]["clay"] == 3 and R.wheel_value(st, "clay") == 4 and R.wheel_value(st, "joker") == 2


def test_e3_stone_before_its_indicator_uses_the_joker() -> None:
    st = new(4)
    assert "stone" not in st["wheel"]
    add_tile(st, 0, "plot", "mountain", 0)
    put(st, 0, 6, 0, "G22")
    st["wheel"]["joker"] = 4
    goods(st, 0)
    st = play(st, 0, "use G22 lay")
    assert labels(st)[:1] == ["wheel stone joker"] and "wheel stone" not in labels(st)
    rejected(st, 0, "wheel stone")
    st = play(st, 0, "wheel stone joker")
    assert have(st, 0) == {"stone": 5} and st["wheel"]["joker"] == 0


def test_e4_last_space_stays_or_leaves_in_solo() -> None:
    st = new(4)
    st["wheel"]["wood"] = 12
    st = to_unit(st, 2)
    assert st["unit"] == 2 and st["wheel"]["wood"] == 12 and R.wheel_value(st, "wood") == 10
    solo = new(1)
    solo["wheel"]["wood"] = 12
    solo = to_unit(solo, 2)
    assert solo["unit"] == 2 and "wood" not in solo["wheel"]
    assert [a for a in labels(solo) if a.startswith("fell_trees 1 0")] == ["fell_trees 1 0 joker"]
    del solo["wheel"]["joker"]
    goods(solo, 0)
    solo = play(solo, 0, "fell_trees 1 0")
    assert solo["pl"][0]["land"]["1,0"][1] is None and have(solo, 0) == {}


def test_e5_fell_trees_edge_cases() -> None:
    st = skip_to(new(4), 2)
    st["wheel"]["wood"] = 0
    goods(st, 2)
    st = play(st, 2, "fell_trees 2 0")
    assert have(st, 2) == {} and st["wheel"]["wood"] == 0 and st["pl"][2]["land"]["2,0"][1] is None
    st = skip_to(st, 3)
    land = st["pl"][3]["land"]
    for k in R.cards(land, "forest"):
        land[k][1] = None
    assert "fell_trees" not in labels(st) and {"type": "fell_trees"} in NT.typed_moves(st, 3)  # (b): typed only
    rejected(st, 3, "fell_trees 1 0")  # (c): P2's forests are not his
    wheel = dict(st["wheel"])
    st = play(st, 3, "fell_trees")
    assert st["wheel"] == wheel and st["win"]["main"]


def test_cut_peat_without_a_moor_is_not_offered_but_may_be_typed() -> None:
    """D27 for Cut Peat as for Fell Trees: with no moor card left the panel does not offer it
    (it would change nothing and spend the action), the typed command still works."""
    st = skip_to(new(4), 1)
    assert "cut_peat 0 0" in labels(st)
    land = st["pl"][1]["land"]
    for k in R.cards(land, "moor"):
        land[k][1] = None
    assert not any(a.startswith("cut_peat") for a in labels(st))
    assert {"type": "cut_peat"} in NT.typed_moves(st, 1)
    st = play(st, 1, "cut_peat")
    assert st["win"]["main"]


def test_e6_cloister_rule() -> None:
    st = new(4)
    goods(st, 0, wood=2)
    builds = [a for a in labels(st) if a.startswith("build G02")]
    assert builds == ["build G02 3 1"]
    rejected(st, 0, "build G02 3 0")
    st["pl"][0]["land"]["1,0"][1] = None
    rejected(st, 0, "build G02 1 0")
    goods(st, 0, wood=1, grain=1)
    rejected(st, 0, "build G02 3 1")
    goods(st, 0, wood=2, clay=1)
    assert {"build G07 3 0", "build G07 3 1"} <= set(labels(st))
    st = close(play(st, 0, "build G02 3 1", "skip"), 0)
    assert st["pl"][0]["land"]["3,1"][2] == "G02"
    st["display"].append("G16")
    st = skip_to(st, 0)
    goods(st, 0, clay=3, straw=1)
    assert "build G16 3 0" in labels(st)


def test_e7_district_side_terrain_and_one_landscape_per_round() -> None:
    st = new(3)
    st = skip_to(st, 1)
    goods(st, 1, coin=3, wood=3, clay=2)
    assert {"buy_district hills 2", "buy_district hills -1"} <= set(labels(st))
    rejected(st, 1, "buy_district hills 3")
    rejected(st, 1, "buy_district hills -2")
    st = play(st, 1, "buy_district hills 2")
    land = st["pl"][1]["land"]
    assert [land[R.key(x, 2)][:2] for x in range(5)] == [
        ["plains", "moor"], ["plains", "forest"], ["plains", "forest"], ["hillside", None], ["hillside", None]]
    assert have(st, 1)["coin"] == 1
    st = play(st, 1, "build F04 4 2")
    assert st["pl"][1]["land"]["4,2"][2] == "F04"
    st["pl"][1]["goods"]["coin"] = 9
    assert F.decider(st) == 1 and not [a for a in labels(st) if a.startswith("buy_")]
    rejected(st, 1, "buy_plot coast 0")
    assert E.player_view(st, None)["piles"]["district"]["price"] == 3


def test_a_landscape_card_is_bought_by_the_number_of_its_slot() -> None:
    """§2.4, §5.3: a district or plot to buy is a numbered slot of the decision picture (after
    the spaces of the buyer's landscape), its label the number and the card's side, never a row
    of the coordinates ("row -1"); the view says which kind of card each slot takes; the log
    line names the side and the price."""
    st = skip_to(new(3), 1)
    goods(st, 1, coin=3, wood=3, clay=2)
    buys = [a for a in E.legal_actions(st, 1) if a["type"].startswith("buy_")]
    text = Texts("ora", ["Ann", "Bo", "Cy"])
    assert [(NT.describe_action(st, a), text(NT.action_label(st, a))) for a in buys] == [  # (in number order)
        ("buy_plot coast -1", "11 · Buy plot, coastal side"),
        ("buy_district hills -1", "12 · Buy district, hills side"),
        ("buy_district plains -1", "12 · Buy district, plains side"),
        ("buy_plot mountain -1", "13 · Buy plot, mountain side"),
        ("buy_plot coast 0", "14 · Buy plot, coastal side"),
        ("buy_plot mountain 0", "15 · Buy plot, mountain side"),
        ("buy_plot coast 1", "16 · Buy plot, coastal side"),
        ("buy_plot mountain 1", "17 · Buy plot, mountain side"),
        ("buy_district hills 2", "18 · Buy district, hills side"),
        ("buy_district plains 2", "18 · Buy district, plains side")]
    assert [text(step) for step in NT.action_path(st, buys[1])] == ["Free actions", "Buy a district", "hills side"]
    for locale, row in (("zh_TW", "排"), ("zh_CN", "排"), ("ja", "段目")):
        shown = [Texts("ora", ["Ann", "Bo", "Cy"], locale=locale)(NT.action_label(st, a)) for a in buys]
        assert not any(row in label or "-1" in label for label in shown), shown
    slots = [(t["n"], t["x"], t["y"], t["slot"]) for t in E.player_view(st, 1)["targets"] if t["slot"]]
    assert slots == [(11, -2, -1, "coast"), (12, 0, -1, "district"), (13, 5, -1, "mountain"), (14, -2, 0, "coast"),
                     (15, 5, 0, "mountain"), (16, -2, 1, "coast"), (17, 5, 1, "mountain"), (18, 0, 2, "district")]
    assert [t["n"] for t in E.player_view(st, 1)["targets"] if not t["slot"]] == list(range(1, 11)) + list(
        range(19, 25))
    _, evs = E.apply(st, 1, buys[1])
    assert [text.event(e) for e in evs] == ["Bo buys a district (hills side) for 2 coins."]


def test_e8_build_then_prior_bonus() -> None:
    st = new(4)
    goods(st, 0, clay=1, peat=1)
    st = play(st, 0, "build G07 3 0")
    assert labels(st) == ["prior", "skip"]
    st = play(st, 0, "prior")
    assert labels(st)[0] == "do 1x"
    st = play(st, 0, "do 1x")
    assert have(st, 0) == {"peat_coal": 2, "coin": 1}
    assert st["pl"][0]["clergy"][0] == [0, "3,0"]
    other = new(4)
    other["pl"][0]["clergy"][0] = [0, "4,1"]
    goods(other, 0, clay=1, peat=1)
    other = play(other, 0, "build G07 3 0")
    assert other["stack"] == [] and have(other, 0) == {"peat": 1}


def test_e9_work_contract() -> None:
    st = new(3)
    st = skip_to(st, 1)
    st["wheel"]["clay"] = 3
    goods(st, 1, coin=1)
    goods(st, 2)
    st = play(st, 1, "contract C L1")
    assert F.decider(st) == 2 and labels(st) == ["assign prior", "assign lay"]
    assert E.timeout_action(st, 2) == {"type": "assign", "c": "lay"}
    st = play(st, 2, "assign lay")
    assert F.decider(st) == 1
    st = play(st, 1, "wheel clay")
    assert have(st, 1) == {"clay": 4} and have(st, 2) == {"coin": 1} and st["wheel"]["clay"] == 0
    assert st["pl"][1]["clergy"] == [None, None, None] and st["pl"][2]["clergy"][1] == [2, "4,0"]


def test_e10_illegal_work_contracts() -> None:
    st = new(4)
    goods(st, 0, coin=5)
    st["pl"][1]["clergy"][1] = [1, "4,0"]
    rejected(st, 0, "contract B L1")  # occupied
    st["pl"][2]["clergy"] = [[2, "4,0"], [2, "2,1"], [2, "4,1"]]
    rejected(st, 0, "contract C L3")  # all of C's clergy placed
    put(st, 3, 3, 0, "S01")
    rejected(st, 0, "contract D S01")  # a settlement
    rejected(st, 0, "contract A L1")  # own building
    put(st, 3, 3, 1, "F21")
    st["display"].remove("F04")  # irrelevant; the Winery is on a landscape
    st["phase"] = 2
    goods(st, 0, coin=1)
    assert R.contract_price(st) == 2
    rejected(st, 0, "contract D L1")
    bonus = new(4)
    bonus["unit"] = 25
    bonus["win"]["kind"] = "bonus"
    rejected(bonus, 0, "contract B L1")


def test_e11_recall() -> None:
    st = new(4)
    st["unit"] = 4
    st["pl"][0]["clergy"] = [[0, "4,0"], [0, "2,1"], [0, "4,1"]]
    st["pl"][1]["clergy"] = [None, [1, "2,1"], [1, "4,1"]]
    st["queue"] = [["unit_end"]]
    st["win"] = None
    F.advance(st, [])
    assert st["unit"] == 5
    assert st["pl"][0]["clergy"] == [None, None, None] and st["pl"][1]["clergy"] == [None, [1, "2,1"], [1, "4,1"]]
    st = skip_to(st, 1)
    st = close(play(st, 1, "use L1 prior", "skip"), 1)
    st = to_unit(st, 6) and st["pl"][1]["clergy"] == [None, None, None]


def _settle_turn(st: State, seat: int, sid: str) -> State:
    st["win"] = {"seat": seat, "kind": "settle", "main": False, "used": [], "bought": False}
    st["phase"] = max(st["phase"], {"S06": 2, "S07": 3, "S08": 4}.get(sid, 0))
    return st


def test_e12_settlement_payment() -> None:
    st = new(4)
    for pay_food, pay_energy in (("pay meat", "pay peat_coal*2"), ("pay bread grain livestock", "pay peat*3"),
                                 ("pay coin*5", "pay wood*6")):
        s = _settle_turn(new(4), 0, "S06")
        goods(s, 0, meat=1, peat_coal=2, bread=1, grain=1, livestock=1, peat=3, coin=5, wood=6)
        s = play(s, 0, "settle S06 3 0", pay_food, pay_energy)
        assert s["pl"][0]["land"]["3,0"][2] == "S06"
    st = _settle_turn(st, 0, "S06")
    goods(st, 0, meat=1, wood=5, straw=1, peat=1)
    st = play(st, 0, "settle S06 3 0", "pay meat")
    rejected(st, 0, "pay wood*5 straw")
    goods(st, 0, wood=5, straw=1)
    assert not [a for a in labels(_settle_turn(st, 0, "S06")) if a.startswith("settle S06")]


def test_e13_bakery_pools_energy() -> None:
    st = new(4)
    put(st, 0, 3, 0, "F05")
    goods(st, 0, flour=3, peat=1)
    st = play(st, 0, "use F05 lay")
    assert "do 3x" in labels(st) and "do 4x" not in labels(st)
    st = play(st, 0, "do 3x", "pay peat", "do 2x")
    assert have(st, 0) == {"bread": 1, "coin": 8}
    four = new(4)
    put(four, 0, 3, 0, "F05")
    goods(four, 0, flour=4, peat=1)
    four = play(four, 0, "use F05 lay")
    assert "do 4x" in labels(four)


def test_e14_plot_placement() -> None:
    land = R.make_land([(0, 0, "plains", None, None), (0, 1, "plains", None, None)])
    R.place_tile(land, "district", "plains", 2)
    assert R.plot_rows(land, "coast") == [-1, 0, 1, 2]
    R.place_tile(land, "plot", "coast", 2)
    assert 4 in R.plot_rows(land, "coast") and 3 not in R.plot_rows(land, "coast")
    for x in range(1, 5):
        for y in range(3):
            land[R.key(x, y)] = ["plains", None, None]
    assert R.plot_rows(land, "mountain") == [-1, 0, 1, 2]


def test_e15_three_player_order_and_landscape_limit() -> None:
    st = new(3)
    order = []
    while st["unit"] < 5 or (st["unit"] == 5 and len(order) < 8):
        d = F.decider(st)
        if st["win"]["kind"] == "action" and not st["win"]["main"] and st["unit"] >= 4:
            order.append((st["unit"], d))
            if st["unit"] == 4 and d == 0:
                st["pl"][0]["goods"]["coin"] = 20
                if order.count((4, 0)) == 1:
                    st = play(st, 0, "buy_district plains 2")
                else:
                    assert not [a for a in labels(st) if a.startswith("buy_")]
                    rejected(st, 0, "buy_district plains 3")
            if st["unit"] == 5 and d == 0:
                assert [a for a in labels(st) if a.startswith("buy_")]
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    assert order == [(4, 0), (4, 1), (4, 2), (4, 0), (5, 1), (5, 2), (5, 0), (5, 1)]


def test_e16_phase_a_standard_four_players() -> None:
    st = new(4)
    while st["unit"] < 7:
        d = F.decider(st)
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    turns = []
    while st["win"]["kind"] == "settle":
        turns.append(st["win"]["seat"])
        st = play(st, st["win"]["seat"], "done")
    assert turns == [2, 3, 0, 1]
    assert st["phase"] == 1 and F.supply(st, 0)[-1] == "S05"
    assert st["display"][-6:] == ["F14", "F15", "G16", "F17", "G18", "G19"]
    windows = []
    while st["unit"] == 7:
        d = F.decider(st)
        windows.append(d)
        st, _ = E.apply(st, d, E.timeout_action(st, d))
        if st["unit"] == 7 and F.decider(st) == d and st["win"] and st["win"]["main"]:
            st, _ = E.apply(st, d, E.timeout_action(st, d))
    assert windows == [2, 3, 0, 1, 2]


def test_e17_settlement_placement() -> None:
    st = _settle_turn(new(4), 0, "S08")
    add_tile(st, 0, "plot", "coast", 0)
    add_tile(st, 0, "plot", "mountain", 0)
    goods(st, 0, meat=20, peat_coal=5)
    opts = labels(st)
    fishing = {a for a in opts if a.startswith("settle S04")}
    assert fishing == {"settle S04 -1 0", "settle S04 -1 1"}
    hilltop = {a for a in opts if a.startswith("settle S08")}
    assert hilltop == {"settle S08 5 0", "settle S08 5 1"}  # (4,0) holds the Clay Mound
    assert not any(a.endswith(" -2 0") or a.startswith("settle S02 6") or a.startswith("settle S02 0 0")
                   for a in opts)
    assert "settle S03 3 1" in opts


def test_e18_settlement_scoring() -> None:
    st = new(4)
    p = st["pl"][0]
    add_tile(st, 0, "plot", "coast", 0)
    for k in list(p["land"]):
        if R.xy(k)[0] >= 2:
            del p["land"][k]
    put(st, 0, -1, 0, "S04")
    put(st, 0, -1, 1, "F11")
    put(st, 0, 0, 0, "S02")
    put(st, 0, 0, 1, "G19")
    put(st, 0, 1, 0, None, "forest")
    put(st, 0, 1, 1, None)
    assert R.settlement_value(st, p["land"], "-1,0") == 17
    assert R.settlement_value(st, p["land"], "0,0") == 4
    goods(st, 0)
    assert R.score(st, 0) == {"goods": 0, "economic": 14, "settlements": 21, "total": 35}


def test_e19_money_scoring() -> None:
    assert R.money_points(4, 1, 0) == 2
    st = new(4)
    for k in st["pl"][0]["land"]:
        if st["pl"][0]["land"][k][2] in ("L1", "L2", "L3"):
            st["pl"][0]["land"][k][2] = None
    goods(st, 0, coin=4, wine=1, ceramic=1)
    assert R.score(st, 0)["total"] == 5


def test_e20_priory_borrows_a_building_with_a_prior() -> None:
    st = new(4)
    put(st, 0, 3, 0, "G01")
    put(st, 2, 3, 1, "G18")
    st["pl"][2]["clergy"][0] = [2, "3,1"]
    goods(st, 0, clay=2, peat=1)
    goods(st, 2)
    st = play(st, 0, "use G01 lay")
    assert labels(st) == ["borrow C G18", "skip"]
    st = play(st, 0, "borrow C G18", "do #1 #1", "pay peat")
    assert have(st, 0) == {"ceramic": 2} and have(st, 2) == {}
    assert R.occupant_kinds(st["pl"], 2, "3,1") == ["prior"]


def test_e21_hospice_borrows_from_the_display() -> None:
    st = new(4)
    st = skip_to(st, 1)
    st["display"] = ["F21", "F30"]
    st["phase"] = 2
    put(st, 1, 3, 0, "F40")
    goods(st, 1, grapes=2)
    st = play(st, 1, "use F40 lay", "borrow display F21", "do 2x", "do 1x")
    assert have(st, 1) == {"wine": 1, "coin": 7} and st["display"] == ["F21", "F30"]
    assert R.contract_price(st) == 1


def test_e22_market_needs_four_different_goods() -> None:
    st = new(4)
    put(st, 0, 3, 0, "F08")
    goods(st, 0, grain=3, wood=1, coin=2)
    st = play(st, 0, "use F08 lay", "do 1x", "flip_grain 1", "pick wood", "pick grain", "pick straw")
    rejected(st, 0, "pick grain")
    st = play(st, 0, "pick coin")
    assert have(st, 0) == {"grain": 1, "coin": 8, "bread": 1}
    auto = new(4)  # picking straw flips a grain (G4)
    put(auto, 0, 3, 0, "F08")
    goods(auto, 0, grain=3, wood=1, coin=2)
    auto = play(auto, 0, "use F08 lay", "do 1x", "pick wood", "pick grain", "pick straw", "pick coin")
    assert have(auto, 0) == {"grain": 1, "coin": 8, "bread": 1}


def test_e23_caps_pilgrimage_site_and_forgers_workshop() -> None:
    st = new(4)
    put(st, 0, 3, 0, "F36")
    goods(st, 0, ceramic=1)
    st = play(st, 0, "use F36 lay", "do #2 #3")
    assert have(st, 0) == {"reliquary": 1}
    two = new(4)
    put(two, 0, 3, 0, "F36")
    goods(two, 0, book=1, ceramic=1)
    two = play(two, 0, "use F36 lay")
    assert "do #1 #2" in labels(two) and not any(a.count("#") > 2 for a in labels(two))
    forger = new(4)
    put(forger, 0, 3, 0, "F35")
    goods(forger, 0, coin=27)
    forger = play(forger, 0, "use F35 lay", "do 1x", "do 2x")
    assert have(forger, 0) == {"reliquary": 3, "coin": 2}
    poor = new(4)
    put(poor, 0, 3, 0, "F35")
    goods(poor, 0, coin=12)
    poor = play(poor, 0, "use F35 lay", "do 1x")
    assert have(poor, 0) == {"reliquary": 1, "coin": 7} and not poor["stack"]


def test_e24_house_of_the_brotherhood() -> None:
    st = new(4)
    for x, y, b in ((3, 1, "G02"), (3, 0, "G18"), (2, 0, "G41")):
        put(st, 0, x, y, b)
    assert R.cloister_count(st["pl"][0]["land"]) == 4
    goods(st, 0, coin=5)
    st = play(st, 0, "use G41 lay")
    opts = labels(st)
    assert {"do 1x points:reliquary", "do 1x points:ornament*2", "do 1x points:ornament+ceramic"} <= set(opts)
    rejected(st, 0, "do 1x points:reliquary+book")
    st = play(st, 0, "do 1x points:reliquary")
    assert have(st, 0) == {"reliquary": 1}


def test_brotherhood_accepts_point_goods_below_the_entitlement() -> None:
    """The House of the Brotherhood gives "point goods (any mix of book 2 / ceramic 3 /
    ornament 4 / reliquary 8) with total points <= k x C" (data/ora_buildings.csv; D40: "total
    points ≤ entitlement"). The one-tap options are the sets no further good fits into; a
    smaller set (1 ceramic of 8 points' entitlement) or none is as legal, more is not."""
    def brotherhood() -> State:
        st = new(4)
        for x, y, b in ((3, 1, "G02"), (3, 0, "G18"), (2, 0, "G41")):
            put(st, 0, x, y, b)
        goods(st, 0, coin=5)
        return play(st, 0, "use G41 lay")

    st, _ = E.apply(brotherhood(), 0, {"type": "do", "n": 1, "pick": [{"ceramic": 1}]})
    assert have(st, 0) == {"ceramic": 1}
    st, _ = E.apply(brotherhood(), 0, {"type": "do", "n": 1, "pick": [{}]})
    assert have(st, 0) == {}
    with pytest.raises(IllegalAction):
        E.apply(brotherhood(), 0, {"type": "do", "n": 1, "pick": [{"ceramic": 3}]})  # 9 > 8
    with pytest.raises(IllegalAction):
        E.apply(brotherhood(), 0, {"type": "do", "n": 1, "pick": [{"wood": 1}]})


def test_e25_castle_settles_outside_a_phase() -> None:
    st = new(4)
    st = skip_to(st, 1)
    st["phase"] = 3
    add_tile(st, 1, "plot", "mountain", 0)
    put(st, 1, 5, 0, "G28")
    put(st, 1, 3, 1, "S02")
    put(st, 1, 3, 0, None)
    goods(st, 1, meat=3, peat_coal=3)
    st["pl"][1]["land"].update({f"9,{i}": ["water", None, s] for i, s in enumerate(("S03", "S04", "S05", "S06"))})
    assert F.supply(st, 1) == ["S01", "S07"]
    st = play(st, 1, "use G28 lay")
    rejected(st, 1, "settle S07 2 1")
    st = play(st, 1, "settle S07 3 0", "pay meat*3", "pay peat_coal*3")
    assert st["pl"][1]["land"]["3,0"][2] == "S07" and have(st, 1) == {} and not st["stack"]


def test_e26_two_player_timing() -> None:
    st = new(2)
    assert st["unit"] == 1 and all(a == 1 for a in st["wheel"].values()) and R.wheel_value(st, "wood") == 1
    assert st["queue"][:2] == [["window", 0, "action"], ["unit_end"]]
    st = close(play(st, 0, "pass"), 0)
    st = close(play(st, 0, "pass"), 0)
    assert st["unit"] == 2 and F.decider(st) == 1 and R.wheel_value(st, "wood") == 2
    while st["unit"] < 7:
        d = F.decider(st)
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    assert st["win"]["kind"] == "settle" and st["win"]["seat"] == 0 and st["queue"][0] == ["settle", 1]
    while st["unit"] < 11:
        d = F.decider(st)
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    assert st["wheel"]["grapes"] == 0 and "stone" not in st["wheel"]
    while st["unit"] < 18:
        d = F.decider(st)
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    assert st["wheel"]["stone"] == 0


def test_e27_ireland_contract_price_and_gift() -> None:
    st = new(4, variant="ireland")
    st["display"].append("I21")
    st["phase"] = 2
    goods(st, 0, clay=2, straw=2, malt=2, wood=2, peat=2)
    st = play(st, 0, "build I21 3 0", "prior", "do 2x")
    assert have(st, 0) == {"whiskey": 4} and R.contract_price(st) == 2
    put(st, 0, 3, 1, "I04")
    st = close(st, 0)
    st = skip_to(st, 2)
    goods(st, 2, whiskey=1)
    assert "contract A I04 gift" in labels(st) and "contract A I04" not in labels(st)
    sold = play(st, 2, "sell_whiskey 1")
    assert "contract A I04" in labels(sold)
    sold = play(sold, 2, "contract A I04")
    assert have(sold, 0) == {"whiskey": 4, "coin": 2} and have(sold, 2) == {}
    st = play(st, 2, "contract A I04 gift")
    assert have(st, 0) == {"whiskey": 4} and have(st, 2) == {}


def test_e28_short_game_round_goods_and_bonus_production() -> None:
    st = new(4, mode="short")
    while st["unit"] < 4:
        d = F.decider(st)
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    assert st["wheel"]["grapes"] == 0
    assert all(p["goods"]["stone"] >= 1 for p in st["pl"])
    st = skip_to(st, 3)
    st["wheel"]["clay"] = 2  # value 3
    before = [p["goods"]["clay"] for p in st["pl"]]
    st = play(st, 3, "use L1 lay", "wheel clay")
    after = [p["goods"]["clay"] for p in st["pl"]]
    assert [a - b for a, b in zip(after, before, strict=True)] == [1, 1, 1, 4]


def test_e29_solo_neutral_build_and_neutral_prior() -> None:
    st = new(1)
    st["unit"] = 11
    st["display"] = ["G01", "F03", "G06", "F08", "F09", "G12"]
    st["queue"] = [["unit_end"]]
    st["win"] = None
    goods(st, 0, coin=2)
    F.advance(st, [])
    assert st["stack"][-1]["f"] == "neutral"
    rejected(st, 0, "neutral F09 3 0")
    st = play(st, 0, "neutral G01 3 1", "neutral F09 3 0", "neutral F03 1 0", "neutral G06 2 0",
              "neutral F08 0 1", "neutral G12 1 1")
    assert st["display"] == [] and st["stack"][-1]["f"] == "nprior"
    st = play(st, 0, "neutral_prior F03", "do 1x")
    assert have(st, 0) == {"grain": 6}
    assert st["win"]["kind"] == "settle"
    st = play(st, 0, "done")
    assert st["display"] == ["F15", "G16", "F17", "G18", "G19"] and "S05" in F.supply(st, 0)


def test_e30_carpentry_chain() -> None:
    st = skip_to(new(4), 2)
    put(st, 2, 3, 0, "F10")
    add_tile(st, 2, "district", "hills", 2)
    goods(st, 2, wood=3, clay=2, grain=4)
    st = play(st, 2, "use F10 lay", "do 1x", "forest 2 0")
    assert st["pl"][2]["land"]["2,0"][1] is None and "build F04 4 2" in labels(st)
    st = play(st, 2, "build F04 4 2", "prior", "do 4x")
    assert have(st, 2) == {"flour": 4, "straw": 4}
    assert sum(c is not None for c in st["pl"][2]["clergy"]) == 2


# --------------------------------------------------------------------------- more rules


def test_chain_guard_stops_a_second_use_in_one_window() -> None:
    st = new(4)
    put(st, 0, 3, 0, "G01")
    st["pl"][0]["clergy"][1] = [0, "3,0"]
    st["pl"][0]["clergy"][0] = None
    st["win"]["used"] = ["0:G01"]
    rejected(st, 0, "use G01 prior")


def test_bonus_round_allows_prior_on_any_building() -> None:
    st = new(3, mode="short")
    while st["unit"] < 13:
        d = F.decider(st)
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    assert F.is_bonus_round(st) and st["win"]["kind"] == "bonus"
    seat = F.decider(st)
    assert seat is not None
    other = (seat + 1) % 3
    st["pl"][other]["clergy"][1] = [other, "4,0"]
    assert f"bonus {N.owner_code(st, other)} L1" in labels(st)
    assert not any(a.startswith(("use ", "contract", "fell_trees", "cut_peat")) for a in labels(st))
    st = play(st, seat, f"bonus {N.owner_code(st, other)} L1", "skip")
    assert st["pl"][seat]["clergy"][0] == [other, "4,0"]


def test_two_player_game_ends_one_turn_after_the_display_runs_low() -> None:
    st = new(2)
    st["phase"] = 4
    st["display"] = ["G02"]
    st["queue"] = [["unit_end"]]
    st["win"] = None
    F.advance(st, [])
    assert st["last"] and st["win"]["kind"] == "action" and not [q for q in st["queue"] if q[0] == "window"]
    d = F.decider(st)
    st = close(play(st, d, "pass"), d)
    assert E.outcome(st) is not None


def until_over(st: State) -> State:
    """Play timeouts (pass / done / skip) until the game is over."""
    while not st["over"]:
        d = F.decider(st)
        assert d is not None
        st, _ = E.apply(st, d, E.timeout_action(st, d))
    return st


@pytest.mark.parametrize(("family", "cap", "unit", "said"), [
    ("standard", 60, 60, "after turn 60"), ("long", 60, 40, "after round 40")])
def test_an_end_at_the_two_player_cap_is_named_in_the_reason(family: str, cap: int, unit: int, said: str) -> None:
    """Players who only pass never empty the display: the safety cap (D38) ends the game,
    and the end reason says so; an end by the game's own rule says nothing of a cap."""
    st = until_over(new(2, mode=family, two_player_turn_cap=cap))
    outcome = E.outcome(st)
    assert outcome is not None and st["unit"] == unit and F.ended_at_cap(st) == unit
    tx = Texts("ora", ["Ann", "Bo"], strict=True)
    assert tx(outcome.reason) == f"Ann and Bo tie with 0 points and share the win. The game ended at the two-player turn cap, {said}."
    assert Texts("ora", ["Ann", "Bo"], "zh_TW", strict=True)(outcome.reason).endswith(
        f"共享勝利。遊戲因雙人輪數上限在第 {unit} {'輪' if family == 'standard' else '回合'}後結束。")


def test_an_end_by_the_display_rule_is_not_called_the_cap() -> None:
    st = new(2)
    st["phase"], st["display"], st["queue"], st["win"] = 4, ["G02"], [["unit_end"]], None
    F.advance(st, [])
    st = until_over(st)
    outcome = E.outcome(st)
    assert outcome is not None and F.ended_at_cap(st) is None and outcome.reason.key.startswith("reason.score")


def test_apply_refuses_wrong_seat_and_game_over() -> None:
    st = new(4)
    with pytest.raises(NotYourTurn):
        E.apply(st, 1, {"type": "pass"})
    st["over"] = True
    with pytest.raises(GameOver):
        E.apply(st, 0, {"type": "pass"})


MODES_TO_PLAY = [(n, fam) for n, fam in ((1, "standard"), (2, "standard"), (2, "long"), (3, "standard"),
                                          (4, "standard"), (3, "short"), (4, "short"))]


@pytest.mark.parametrize("variant", ["france", "ireland"])
@pytest.mark.parametrize(("players", "family"), MODES_TO_PLAY)
def test_every_mode_and_country_plays_to_the_end(players: int, family: str, variant: str) -> None:
    rng = random.Random(players * 31 + len(family) + len(variant))
    opts = {"mode": family, "variant": variant}
    st = E.new_game(players, 1, opts)
    log = []
    while E.to_move(st):
        seat = min(E.to_move(st))
        a = E.sample_chance(st, rng) if seat == CHANCE else rng.choice(list(E.legal_actions(st, seat)))
        st, _ = E.apply(st, seat, a)
        log.append((seat, a))
    out = E.outcome(st)
    assert out is not None and len(out.scores) == players
    assert st["mode"] == mode_code(family, players)
    mode = MODES[st["mode"]]
    if mode.regular is not None:
        assert st["unit"] == mode.regular + (1 if mode.bonus else 0)
    assert replay(E, players, 1, opts, log) == st


# --------------------------------------------------------------------------- named terms of §2.6


def test_cloister_garden_uses_an_unoccupied_neighbour_fr7() -> None:
    st = new(4)
    put(st, 0, 3, 1, "F09")  # neighbours: Farmyard (2,1), Cloister Office (4,1), empty (3,0)
    goods(st, 0)
    st = play(st, 0, "use F09 lay")
    assert set(labels(st)) == {"borrow A L2", "borrow A L3", "skip"}
    st = play(st, 0, "borrow A L3", "wheel coin")
    assert have(st, 0) == {"grapes": 1, "coin": 2}
    assert st["pl"][0]["clergy"][1:] == [[0, "3,1"], None]


def test_bathhouse_recalls_all_of_the_users_clergy() -> None:
    st = new(4)
    put(st, 0, 3, 1, "F23")
    st["pl"][0]["clergy"][0] = [0, "4,0"]
    goods(st, 0, coin=1)
    st = play(st, 0, "use F23 lay", "do 1x")
    assert have(st, 0) == {"book": 1, "ceramic": 1} and st["pl"][0]["clergy"] == [None, None, None]


def test_locutory_brings_the_prior_home_then_builds() -> None:
    st = new(4, variant="ireland")
    put(st, 0, 3, 1, "I23")
    st["pl"][0]["clergy"][0] = [0, "4,0"]
    goods(st, 0, coin=2, clay=1)
    st = play(st, 0, "use I23 lay", "do 1x")
    assert st["pl"][0]["clergy"][0] is None and "build G07 3 0" in labels(st)
    st = play(st, 0, "build G07 3 0", "prior")
    assert st["pl"][0]["clergy"][0] == [0, "3,0"]


def test_calefactory_fells_and_cuts_once_each() -> None:
    st = new(4)
    put(st, 0, 3, 1, "F32")
    goods(st, 0, coin=1)
    st = play(st, 0, "use F32 lay", "do 1x", "fell_trees 1 0")
    assert not [a for a in labels(st) if a.startswith("fell_trees")]
    st = play(st, 0, "cut_peat 0 0 joker")
    assert have(st, 0) == {"wood": 2, "peat": 2} and not st["stack"]


def test_bulwark_takes_the_top_tiles_free() -> None:
    st = new(4, variant="ireland")
    put(st, 0, 3, 1, "I37")
    goods(st, 0, book=1)
    st = play(st, 0, "use I37 lay", "do 1x", "take_district plains 2", "take_plot coast 0")
    assert R.tiles_taken(st["pl"]) == (1, 1) and have(st, 0) == {}
    assert E.player_view(st, None)["piles"]["district"]["price"] == 3
    assert st["pl"][0]["bought"] != st["unit"]


def test_tiles_taken_follows_a_landscape_changed_in_place_and_its_copies() -> None:
    st = new(2)
    assert R.tiles_taken(st["pl"]) == (0, 0)
    copied = R.copy_land(st["pl"][0]["land"])
    R.place_tile(st["pl"][0]["land"], "district", "hills", -1)
    assert R.tiles_taken(st["pl"]) == (1, 0)
    R.place_tile(copied, "plot", "coast", 0)
    R.place_tile(copied, "plot", "mountain", 0)
    assert R.tiles_taken([{"land": copied}]) == (0, 2)
    assert R.tiles_taken(st["pl"]) == (1, 0)


def test_a_refused_free_action_applied_in_place_changes_nothing() -> None:
    st = new(2)
    goods(st, 0, grain=1, coin=1)
    before = copy_state(st)
    for action in ({"type": "flip_grain", "n": 2}, {"type": "sell_wine", "n": 1},
                   {"type": "buy_district", "side": "hills", "y": -1}):
        with pytest.raises(IllegalAction):
            E.apply_in_place(st, 0, action)
        assert st == before


def test_printing_office_removes_forests_for_books() -> None:
    st = new(4)
    put(st, 0, 3, 1, "F38")
    goods(st, 0)
    st = play(st, 0, "use F38 lay")
    assert [a for a in labels(st) if a.startswith("do")] == ["do 1x", "do 2x", "do 3x"]
    st = play(st, 0, "do 2x", "forest 1 0")
    rejected(st, 0, "forest 1 0")
    st = play(st, 0, "forest 2 0")
    assert have(st, 0) == {"book": 2} and R.cards(st["pl"][0]["land"], "forest") == ["1,1"]


def test_shipping_company_uses_only_the_joker() -> None:
    st = new(4)
    add_tile(st, 0, "plot", "coast", 0)
    put(st, 0, -1, 0, "F33")
    st["wheel"]["joker"] = 5  # value 6
    goods(st, 0, peat_coal=1)
    st = play(st, 0, "use F33 lay", "do 1x meat", "pay peat_coal")
    assert have(st, 0) == {"meat": 6} and st["wheel"]["joker"] == 0


def test_spinning_mill_pays_by_livestock_held() -> None:
    for livestock, coins in ((0, 0), (1, 3), (8, 5), (9, 6)):
        st = new(4, variant="ireland")
        put(st, 0, 3, 1, "I09")
        goods(st, 0, livestock=livestock)
        st = play(st, 0, "use I09 lay")
        assert st["pl"][0]["goods"]["coin"] == coins


def test_round_tower_pays_whiskey_coins_and_fourteen_points() -> None:
    st = new(4, variant="ireland")
    put(st, 0, 4, 0, None)
    put(st, 0, 4, 0, "I35")
    st["pl"][0]["land"]["4,0"][0] = "hillside"
    goods(st, 0, whiskey=1, coin=15, ornament=3)
    st = play(st, 0, "use I35 lay", "do 1x")
    rejected(st, 0, "pay ornament*3")  # 12 points < 14
    st = play(st, 0, "pay ornament*3 coin5")
    assert have(st, 0) == {"wonder": 1, "coin": 5}


def test_five_coins_pay_a_5_coin_piece_as_the_last_different_good() -> None:
    """The rulebook: "你可以随时换钱:你可以把一个5块硬币板块换成五个1块硬币板块或是反过来"
    (money can be changed at any time, a 5-coin piece for five 1-coin pieces or back); G7/D14
    make ``coin5`` a good of its own. With exactly 5 coins, straw and clay, the Cloister
    Courtyard's three different goods can be straw, clay and a 5-coin piece: after straw and
    clay the 5-coin piece is offered (a single coin too)."""
    st = new(4)
    put(st, 0, 3, 0, "G02")
    goods(st, 0, straw=1, clay=1, coin=5)
    st = play(st, 0, "use G02 lay", "do 1x clay", "pick straw", "pick clay")
    assert {"pick coin", "pick coin5"} <= set(labels(st))
    st = play(st, 0, "pick coin5")
    assert have(st, 0) == {"clay": 6}


def test_druids_house_needs_two_different_basic_goods() -> None:
    st = new(4, variant="ireland")
    add_tile(st, 0, "district", "hills", 2)
    put(st, 0, 3, 2, "I15")
    goods(st, 0, book=1)
    st = play(st, 0, "use I15 lay")
    assert "do 1x wood peat" in labels(st) and "do 1x wood wood" not in labels(st)
    rejected(st, 0, "do 1x clay clay")
    st = play(st, 0, "do 1x clay coin")
    assert have(st, 0) == {"clay": 5, "coin": 3}


def test_festival_ground_entitlement_counts_forest_and_moor_cards() -> None:
    st = new(4, variant="ireland")
    put(st, 0, 3, 1, "I38")
    goods(st, 0, beer=1)
    assert F.entitlement(st, 0, "cards") == 5
    st = play(st, 0, "use I38 lay")
    assert {"do 1x points:ceramic+book", "do 1x points:ornament", "do 1x points:book*2"} < set(labels(st))
    rejected(st, 0, "do 1x points:ornament+book")
    st = play(st, 0, "do 1x points:ceramic+book")
    assert have(st, 0) == {"ceramic": 1, "book": 1}


def test_no_tap_list_holds_more_than_25_options() -> None:
    from engines.decisions import DecisionTree

    def sizes(tree: DecisionTree, path: tuple[int, ...] = ()) -> list[int]:
        options, _ = tree.node(path)
        out = [len(options)]
        for i, c in enumerate(options):
            if c.step is not None:
                out += sizes(tree, (*path, i))
        return out

    for players, opts in ((4, {}), (3, {"variant": "ireland"}), (1, {})):
        rng = random.Random(players)
        st = E.new_game(players, 0, opts)
        while E.to_move(st):
            seat = min(E.to_move(st))
            if seat == CHANCE:
                a = E.sample_chance(st, rng)
            else:
                assert max(sizes(DecisionTree.of(NT, st, seat))) <= 25
                a = rng.choice(list(E.legal_actions(st, seat)))
            st, _ = E.apply(st, seat, a)


def test_solo_the_player_sends_the_neutral_players_clergyman_and_is_asked_so() -> None:
    """§5.2: in ``solo`` the player makes the contract's choice for the neutral player, so the
    prompt names the neutral player's building and clergymen (not "contracts your …")."""
    st = skip_to(new(1), 0)
    goods(st, 0, coin=5)
    st = play(st, 0, "contract N L1")
    assert F.decider(st) == 0 and labels(st) == ["assign prior", "assign lay"]
    assert Texts("ora", ["Ann"], strict=True)(N.prompt(st, 0)) == (
        "You contract the neutral player's Clay Mound: choose which of its clergymen goes there, its prior "
        "or a lay brother.")
    three = play(skip_to(new(3), 1), 1, "contract C L1")                 # (a player's own building: as before)
    assert Texts("ora", ["Ann", "Bo", "Cy"], strict=True)(N.prompt(three, 2)) == (
        "Bo contracts your Clay Mound: send your prior or a lay brother.")


def test_prompts_say_which_action_of_the_round_it_is() -> None:
    """§4.2: the start player's second action ends the round; the prompt says "first of two",
    "second of two", or that it is the seat's only action."""
    text = Texts("ora", ["A", "B", "C", "D"])
    st = new(4)
    assert F.decider(st) == 0 == F.start_seat(st)
    assert text(NT.prompt(st, 0)).startswith("Round 1, your first of two actions:")
    st = close(play(st, 0, "pass"), 0)
    assert text(NT.prompt(st, 1)).startswith("Round 1, your only action:")
    for seat in (1, 2, 3):
        st = close(play(st, seat, "pass"), seat)
    assert F.decider(st) == 0 and st["unit"] == 1
    assert text(NT.prompt(st, 0)).startswith("Round 1, your second of two actions:")
    assert E.player_view(st, None)["pending"]["nth"] == 2


def test_a_k_different_goods_payment_says_the_goods_come_one_at_a_time() -> None:
    """Cloister Courtyard (3 different goods): the options are the goods that can come next in
    list order, so the prompt says so instead of "Choose 3 more" beside two options."""
    text = Texts("ora", ["A", "B", "C", "D"])
    st = new(4)
    goods(st, 0, wood=2)
    st = close(play(st, 0, "build G02 3 1", "skip"), 0)
    for seat in (1, 2, 3):
        st = close(play(st, seat, "pass"), seat)
    goods(st, 0, wood=1, peat=1, clay=1)
    st = play(st, 0, "use G02 lay")
    do = [NT.describe_action(st, a) for a in E.legal_actions(st, 0) if a["type"] == "do"]
    st = play(st, 0, do[0])
    shown = text(NT.prompt(st, 0))
    assert shown == "Pay 3 more different goods, one at a time in list order: choose the next one."
    assert [NT.describe_action(st, a) for a in E.legal_actions(st, 0)] == ["pick wood", "skip"]


def test_a_step_with_one_action_is_offered_by_that_actions_own_label() -> None:
    """A step that holds a single action is skipped and its action shown in its place, under the
    action's own label: at a two-player game's first turn the "Free actions" step holds only the
    grain flip, and the button that flips grain says so (it said "Free actions", and pressing it
    flipped grain without asking)."""
    st = new(2)
    seat = F.decider(st)
    assert seat == 0
    tree = DecisionTree.of(NT, st, seat)
    tx = Texts("ora", ["Ann", "Bob"], strict=True)
    single = [c for c in tree.node(())[0] if c.action is not None]
    assert [tx(c.label) for c in single] == ["Pass", "Flip 1 grain to straw"]
    assert [tx(tree.labels[c.action]) for c in single] == ["Pass", "Flip 1 grain to straw"]


@pytest.mark.parametrize(("totals", "said"), [
    ((80.0, 80.0, 75.0), ("Ann and Bo tie with 80 points and share the win.", "Ann和Bo 以 80 分同分，共享勝利。",
                          "Ann和Bo 以 80 分同分，共享胜利。", "AnnとBo が 80 点で同点となり、勝利を分け合いました。")),
    ((75.0, 80.0, 70.0), ("Bo wins with 80 points.", "Bo 以 80 分獲勝。", "Bo 以 80 分获胜。", "Bo が 80 点で勝利しました。")),
])
def test_the_end_says_a_tie_is_a_tie(monkeypatch: pytest.MonkeyPatch, totals: tuple[float, ...],
                                      said: tuple[str, ...]) -> None:
    st = new(3)
    st["over"] = True
    monkeypatch.setattr(E, "scores", lambda state: totals)
    out = E.outcome(st)
    assert out is not None and out.winners == {s for s, t in enumerate(totals) if t == max(totals)}
    assert tuple(Texts("ora", ["Ann", "Bo", "Cy"], lang, strict=True)(out.reason)
                 for lang in ("en", "zh_TW", "zh_CN", "ja")) == said
