"""Rule tests for E Guan (docs/rules/eguan.md §10 worked examples E1–E28, plus error classes, texts and the catalog)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from bot.text import Texts, catalog
from engines.base import (
    CHANCE,
    Event,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    msg,
    seat_ref,
    term,
)
from engines.decisions import DecisionTree
from engines.eguan import NOTATION as N
from engines.eguan.data import CARDS, DECK_IDS, SKILLS
from engines.eguan.engine import EguanEngine
from engines.eguan.rules import (
    active,
    board_cells,
    board_counts,
    corner_cells,
    final_scoring,
    most_wanted,
    payment_for,
    score_table,
    topmost,
    turn_no,
    turns_taken,
)

E = EguanEngine()

ST = ["ST", 5, 0]
# E3's boards after each turn (anchor labels: 1 = (0,0) ... 9 = (2,2)).
E3_T1 = [ST, ["S02", 1, 0]]
E3_T2 = [*E3_T1, ["H03", 3, 0]]
E3_T3 = [*E3_T2, ["K06", 7, 180]]
E3_FINAL = [*E3_T3, ["S10", 9, 0]]


def counts(board: list[list[Any]]) -> tuple[int, int, int, int]:
    c = board_counts(board)
    return (c["H"], c["S"], c["K"], c["E"])


def setup(n: int = 3, skills: str = "AAAA", start: int = 0, end_rule: str = "equal_turns") -> dict[str, Any]:
    """Deal in deck order, choose skills, pick the start player: returns the state at
    the start player's main step."""
    st = E.new_game(n, 1, {"end_rule": end_rule})
    while st["phase"] == "deal":
        st, _ = E.apply(st, CHANCE, {"type": "draw", "card": st["deck"][0]})
    for s in range(n):
        st, _ = E.apply(st, s, {"type": "skill", "set": skills[s]})
    st, _ = E.apply(st, CHANCE, {"type": "start", "seat": start})
    assert active(st) == start and st["pending"] == {"step": "main"}
    return st


def give(st: dict[str, Any], seat: int, card: str) -> None:
    """Swap ``card`` into ``seat``'s hand (in place), keeping every pile size."""
    hand = st["hands"][seat]
    if card in hand:
        return
    if card in st["deck"]:
        st["deck"].remove(card)
        st["deck"].append(hand.pop())
        st["deck"].sort()
        hand.append(card)
        return
    for s in range(st["players"]):
        h = st["hands"][s]
        if card in h:
            h[h.index(card)] = hand.pop()
            hand.append(card)
            return
        for p in st["piles"][s]:
            if card in p["cards"]:
                p["cards"][p["cards"].index(card)] = hand.pop()
                hand.append(card)
                return
    raise AssertionError(f"{card} not found")


def param_seat(e: Event, key: str = "seat") -> int:
    """The seat an event's parameter names (``seat_ref``)."""
    assert e.params is not None
    return int(e.params[key]["seat"])


def go(st: dict[str, Any], seat: int, action: dict[str, Any]) -> dict[str, Any]:
    new, _ = E.apply(st, seat, action)
    return new


def play(st: dict[str, Any], card: str, anchor: int, rot: int = 0) -> dict[str, Any]:
    me = active(st)
    assert me is not None
    st = go(st, me, {"type": "select", "card": card})
    return go(st, me, {"type": "place", "anchor": anchor, "rot": rot})


def roll(st: dict[str, Any], v: int) -> dict[str, Any]:
    return go(st, CHANCE, {"type": "roll", "value": v})


def refill(st: dict[str, Any]) -> dict[str, Any]:
    while E.to_move(st) == frozenset({CHANCE}):
        st = go(st, CHANCE, {"type": "draw", "card": st["deck"][0]})
    return st


def advance_to(st: dict[str, Any], seat: int) -> dict[str, Any]:
    """Other players keep their first card until ``seat`` is at its main step."""
    st = refill(st)
    while active(st) != seat:
        me = active(st)
        assert me is not None
        hand = st["hands"][me]
        st = go(st, me, {"type": "keep", "card": hand[0]} if hand else {"type": "pass"})
        st = refill(st)
    return st


def at_roll(n: int, skills: str, boards: dict[int, list[list[Any]]], infamy: list[int], me: int = 0) -> dict[str, Any]:
    """A state where seat ``me`` has just played a die card and the roll is pending."""
    st = setup(n, skills, start=me)
    for s, b in boards.items():
        st["boards"][s] = copy.deepcopy(b)
    st["infamy"] = list(infamy)
    st["pending"] = {"step": "roll"}
    return st


# --------------------------------------------------------------------------- geometry


def test_e1_corner_mapping_180() -> None:
    cells = corner_cells(2, 180)  # anchor (0,1)
    assert cells == {"tl": (1, 2), "tr": (1, 1), "bl": (0, 2), "br": (0, 1)}
    grid = board_cells([ST, ["H08", 2, 180]])
    assert grid[1][2] == ("H08", "tl") and CARDS["H08"].codes["tl"] == "E"
    assert grid[1][1] == ("H08", "tr") and CARDS["H08"].codes["tr"] == "H"
    assert grid[0][2] == ("H08", "bl") and grid[0][1] == ("H08", "br")


def test_e2_every_anchor_overlaps_starting_card() -> None:
    start = set(corner_cells(5, 0).values())
    expect = {1: 1, 3: 1, 7: 1, 9: 1, 2: 2, 4: 2, 6: 2, 8: 2, 5: 4}
    for anchor, n in expect.items():
        assert len(set(corner_cells(anchor, 0).values()) & start) == n


def test_e3_four_turn_board() -> None:
    st = setup(3, "AAA")
    for c in ("S02", "H03", "K06", "S10"):
        assert c not in st["hands"][1] and c not in st["hands"][2]
    give(st, 0, "S02")
    assert st["infamy"][0] == 2
    # T1
    st = play(st, "S02", 1, 0)
    st = roll(st, 4)
    assert st["infamy"][0] == 4
    assert counts(st["boards"][0]) == (0, 1, 1, 2) and topmost(st["boards"][0]) == ["S02"]
    # T2
    st = advance_to(st, 0)
    give(st, 0, "H03")
    st = go(st, 0, {"type": "select", "card": "H03"})
    assert E.player_view(st, 0)["you"]["pending"]["payment"] == 2
    st = go(st, 0, {"type": "place", "anchor": 3, "rot": 0})
    assert counts(st["boards"][0]) == (1, 0, 1, 3)
    assert topmost(st["boards"][0]) == ["S02", "H03"]
    assert st["infamy"][0] == 5
    # T3
    st = advance_to(st, 0)
    give(st, 0, "K06")
    st["infamy"][1] = 5
    st = play(st, "K06", 7, 180)
    cells = board_cells(st["boards"][0])
    assert cells[2][0] == ("K06", "br") and cells[3][1] == ("K06", "tl")
    st = roll(st, 6)
    assert st["pending"]["step"] == "target"
    st = go(st, 0, {"type": "target", "seat": 1})
    assert st["infamy"][1] == 3
    assert counts(st["boards"][0]) == (1, 0, 1, 4)
    assert st["infamy"][0] == 11
    # T4
    st = advance_to(st, 0)
    give(st, 0, "S10")
    st = play(st, "S10", 9, 0)
    assert counts(st["boards"][0]) == (1, 2, 1, 4)
    assert topmost(st["boards"][0]) == ["S02", "H03", "K06", "S10"]
    assert "ST" not in {c[0] for row in board_cells(st["boards"][0]) for c in row if c}
    assert st["infamy"][0] == 13
    assert st["boards"][0] == E3_FINAL


def test_e4_payment_two_per_missing_icon() -> None:
    board = [ST, ["S13", 7, 0]]
    assert counts(board)[:3] == (2, 3, 1)
    assert payment_for(board, "S11") == 2
    st = setup(3)
    give(st, 0, "S11")
    st["boards"][0] = board
    st["infamy"][0] = 2
    assert {"type": "select", "card": "S11"} in E.legal_actions(st, 0)
    st2 = play(st, "S11", 1, 0)
    assert st2["infamy"][0] == 0 + board_counts(st2["boards"][0])["E"]  # paid 2, then income
    st["infamy"][0] = 1
    assert {"type": "select", "card": "S11"} not in E.legal_actions(st, 0)
    assert {"type": "keep", "card": "S11"} in E.legal_actions(st, 0)
    with pytest.raises(IllegalAction):
        E.apply(st, 0, {"type": "select", "card": "S11"})


def test_e5_requirement_checked_before_placement() -> None:
    board = [ST]
    assert payment_for(board, "S04") == 0
    st = setup(3)
    give(st, 0, "S04")
    st = play(st, "S04", 4, 0)
    assert st["pending"]["step"] == "roll"  # S04 is a die card
    assert counts(st["boards"][0]) == (1, 2, 0, 1)


def test_e6_shortfall_across_kinds_e_does_not_help() -> None:
    assert counts(E3_T2) == (1, 0, 1, 3)
    assert payment_for(E3_T2, "H09") == 4
    assert counts(E3_T1) == (0, 1, 1, 2)
    assert payment_for(E3_T1, "H09") == 6


def test_e7_double_icon_counts_two() -> None:
    assert payment_for([ST], "H07") == 0
    assert counts([ST, ["H07", 1, 0]]) == (2, 2, 1, 1)


def test_e8_topmost_after_covering_placement() -> None:
    assert payment_for(E3_FINAL, "H05") == 2
    board = [*E3_FINAL, ["H05", 5, 0]]
    assert topmost(board) == ["H05"]
    assert counts(board) == (2, 3, 2, 3)


# --------------------------------------------------------------------------- Most Wanted


def test_e9_most_wanted_immune_to_harmful_die() -> None:
    st = setup(3, "AAA", start=1)
    st["boards"][0] = copy.deepcopy(E3_T2)  # E3
    st["boards"][1] = copy.deepcopy(E3_T2)  # E3
    assert most_wanted(st["boards"]) is None
    give(st, 1, "S03")
    st, ev = E.apply(go(st, 1, {"type": "select", "card": "S03"}), 1, {"type": "place", "anchor": 7, "rot": 0})
    assert board_counts(st["boards"][1])["E"] == 4
    assert [param_seat(e) for e in ev if e.kind == "most_wanted"] == [1]
    assert E.player_view(st, None)["most_wanted"] == 1
    st = advance_to(st, 0)
    give(st, 0, "H02")
    st["infamy"][2] = 2
    before = st["infamy"][0]
    st = play(st, "H02", 1, 0)
    st = roll(st, 6)  # A6: only seat 2 is eligible → resolved at once
    assert st["infamy"][2] == 0
    gained = st["infamy"][0] - before - board_counts(st["boards"][0])["E"]
    assert gained == 2


def test_e9_most_wanted_cannot_be_chosen() -> None:
    st = at_roll(3, "AAA", {1: [*E3_T2, ["S03", 7, 0]]}, [5, 5, 1])
    st = roll(st, 6)
    assert st["infamy"] == [6 + 1, 5, 0]  # steals the 1 of seat 2, then income 1
    st = at_roll(3, "AAA", {1: [*E3_T2, ["S03", 7, 0]]}, [5, 5, 3])
    assert st["pending"]["step"] == "roll"
    st = roll(st, 2)
    assert st["infamy"][1] == 5  # never targeted


# --------------------------------------------------------------------------- kept card


def test_e10_keeping_replaces_and_play_kept_passes_whole_hand() -> None:
    st = setup(3, "AAA")
    # turns 1-2: keep; turn 3 (round 3) keep X; turn 4 keep Y; turn 5 play Y
    for _ in range(2):
        st = go(st, 0, {"type": "keep", "card": st["hands"][0][0]})
        st = advance_to(st, 0)
    x = st["hands"][0][0]
    st = go(st, 0, {"type": "keep", "card": x})
    st = advance_to(st, 0)
    give(st, 0, "S01")
    st = go(st, 0, {"type": "keep", "card": "S01"})
    assert x in st["removed_kept"][0]
    pub = E.player_view(st, None)
    assert x not in json.dumps(pub)
    assert pub["seats"][0]["removed_kept_count"] == 3
    st = advance_to(st, 0)
    deck_before = len(st["deck"])
    st = go(st, 0, {"type": "select_kept"})
    st = go(st, 0, {"type": "place", "anchor": 1, "rot": 0})
    assert st["kept"][0] is None
    assert [len(p["cards"]) for p in st["piles"][1]][-1] == 5
    # the recipient (seat 1) uses that pile next round: no refill draw
    st = advance_to(st, 2)
    st = go(st, 2, {"type": "keep", "card": st["hands"][2][0]})
    st = refill(st)
    st = go(st, 0, {"type": "keep", "card": st["hands"][0][0]})
    deck_before = len(st["deck"])
    assert active(st) == 1 and st["pending"] == {"step": "main"}
    assert len(st["hands"][1]) == 5 and len(st["deck"]) == deck_before


def test_e11_kept_card_not_usable_on_the_turn_it_was_kept() -> None:
    st = setup(3, "AAA")
    give(st, 0, "H02")
    card = st["hands"][0].pop(0)
    assert card != "H02"
    st["kept"][0] = {"card": card, "turn": turn_no(st)}
    assert {"type": "select_kept"} not in E.legal_actions(st, 0)
    with pytest.raises(IllegalAction):
        E.apply(st, 0, {"type": "select_kept"})
    st = play(st, "H02", 1, 0)
    st = roll(st, 4)  # no ADJUST offered: the kept card is from this turn
    assert active(st) == 1
    # C3 draw_kept: a card drawn this turn is not usable either
    st = at_roll(3, "CAA", {}, [2, 2, 2])
    st = roll(st, 3)
    card = st["deck"][0]
    st = go(st, CHANCE, {"type": "draw", "card": card})
    assert st["kept"][0] == {"card": card, "turn": 1}


def test_e12_adjust_options_and_cost() -> None:
    def with_kept(v: int) -> dict[str, Any]:
        st = at_roll(3, "AAA", {}, [2, 5, 2])
        card = st["hands"][0].pop()
        st["kept"][0] = {"card": card, "turn": 0}
        return roll(st, v)

    st = with_kept(4)
    assert st["pending"] == {"step": "adjust"} and st["die"] == {"roll": 4, "value": 4}
    assert E.legal_actions(st, 0) == [{"type": "adjust", "delta": d} for d in (-1, 0, 1)]
    kept = st["kept"][0]["card"]
    st0 = go(st, 0, {"type": "adjust", "delta": 0})
    assert st0["kept"][0]["card"] == kept and st0["infamy"][0] == 2 + 1
    st3 = go(st, 0, {"type": "adjust", "delta": -1})
    assert st3["kept"][0] is None and kept in st3["removed_kept"][0]
    assert st3["infamy"][0] == 2 + 1 + 1
    st5 = go(st, 0, {"type": "adjust", "delta": 1})  # A5: steal 1 from a richer player (seat 1)
    assert st5["infamy"][1] == 4 and st5["infamy"][0] == 2 + 1 + 1
    assert [a["delta"] for a in E.legal_actions(with_kept(1), 0)] == [0, 1]
    assert [a["delta"] for a in E.legal_actions(with_kept(6), 0)] == [-1, 0]
    with pytest.raises(IllegalAction):
        E.apply(with_kept(6), 0, {"type": "adjust", "delta": 1})


# --------------------------------------------------------------------------- skills


def test_e13_steal_from_poor_target() -> None:
    st = at_roll(3, "AAA", {2: [*E3_T2, ["S03", 7, 0]]}, [4, 1, 9])  # seat 2 is Most Wanted
    st = roll(st, 6)
    assert st["infamy"][1] == 0 and st["infamy"][0] == 4 + 1 + 1


def test_e14_every_other_player_loses() -> None:
    st = at_roll(4, "AAAD", {0: [*E3_T2, ["S03", 7, 0]]}, [6, 3, 0, 4], me=3)
    assert most_wanted(st["boards"]) == 0
    st = roll(st, 5)
    assert st["infamy"][:3] == [6, 2, 0]


def test_e15_move_topmost_card() -> None:
    st = at_roll(3, "BAA", {0: E3_FINAL}, [2, 2, 2])
    assert counts(E3_FINAL) == (1, 2, 1, 4)
    st = roll(st, 3)
    assert st["pending"]["step"] == "move_pick"
    assert E.legal_actions(st, 0) == [
        {"type": "move", "card": c} for c in ("S02", "H03", "K06", "S10")
    ] + [{"type": "skip"}]
    st = go(st, 0, {"type": "move", "card": "S10"})
    assert st["pending"]["step"] == "place"
    st, ev = E.apply(st, 0, {"type": "place", "anchor": 4, "rot": 0})
    board = st["boards"][0]
    assert board[-1] == ["S10", 4, 0]
    cells = board_cells(board)
    assert cells[2][2] == ("ST", "br") and cells[1][0] == ("S10", "tl") and cells[2][1] == ("S10", "br")
    assert counts(board) == (1, 2, 0, 5)
    assert topmost(board) == ["H03", "S10"]
    assert st["infamy"][0] == 2 + 5
    assert [(e.params or {})["amount"] for e in ev if e.kind == "income"] == [5]


def test_e15_move_can_be_skipped_or_backed_out() -> None:
    st = roll(at_roll(3, "BAA", {0: E3_FINAL}, [2, 2, 2]), 3)
    st2 = go(go(st, 0, {"type": "move", "card": "S10"}), 0, {"type": "back"})
    assert st2["pending"] == {"step": "move_pick"}
    st3 = go(st, 0, {"type": "skip"})
    assert st3["boards"][0] == E3_FINAL and active(st3) == 1


def test_e16_remove_topmost_card() -> None:
    st = at_roll(3, "DAA", {0: E3_FINAL, 1: E3_FINAL}, [2, 2, 2])
    assert most_wanted(st["boards"]) is None
    st = roll(st, 3)
    assert st["pending"] == {"step": "remove"}
    acts = E.legal_actions(st, 0)
    assert acts == [{"type": "remove", "seat": 1, "card": c} for c in ("S02", "H03", "K06", "S10")]
    assert N.action_path(st, acts[0]) == (msg("step.player", target=seat_ref(1)),)
    st = go(st, 0, {"type": "remove", "seat": 1, "card": "S10"})
    assert board_cells(st["boards"][1])[2][2] == ("ST", "br")
    assert counts(st["boards"][1]) == (1, 0, 1, 4)
    assert {"seat": 1, "card": "S10"} in st["removed_cards"]
    assert most_wanted(st["boards"]) is None


def test_e16_remove_skips_most_wanted_and_start_card() -> None:
    st = at_roll(3, "DAA", {1: [*E3_T2, ["S03", 7, 0]]}, [2, 2, 2])
    st = roll(st, 3)  # seat 1 is Most Wanted, seat 2 has only the starting card
    assert active(st) == 1 and st["boards"][1][-1][0] == "S03"


def test_e17_income_again_capped_at_3() -> None:
    st = at_roll(3, "CAA", {0: E3_FINAL}, [2, 2, 2])
    st, ev = E.apply(st, CHANCE, {"type": "roll", "value": 4})
    assert st["infamy"][0] == 2 + 3 + 4
    assert [(e.params or {})["amount"] for e in ev if e.kind in ("gain", "income")] == [3, 4]


def test_e18_extra_play_without_die() -> None:
    st = setup(3, "BAA")
    give(st, 0, "S06")
    give(st, 0, "H01")
    assert len(st["hands"][0]) == 5
    st["infamy"][0] = 10
    st = play(st, "S06", 1, 0)
    st = roll(st, 6)
    assert st["pending"] == {"step": "extra_pick"}
    st = go(st, 0, {"type": "select", "card": "H01"})
    st = go(st, 0, {"type": "place", "anchor": 9, "rot": 0})
    assert [p[0] for p in st["boards"][0]] == ["ST", "S06", "H01"]
    assert st["piles"][1][-1]["cards"].__len__() == 3
    # whoever uses that pile next round (seat 1) draws 2
    st = advance_to(st, 0)
    st = go(st, 0, {"type": "keep", "card": st["hands"][0][0]})
    deck = len(st["deck"])
    st = refill(st)
    assert active(st) == 1 and deck - len(st["deck"]) == 2


def test_e19_steal_from_each_richer() -> None:
    st = at_roll(4, "CAAA", {3: [*E3_T2, ["S03", 7, 0]]}, [5, 9, 5, 12])
    st = roll(st, 6)
    assert st["infamy"][1:] == [8, 5, 12]
    assert st["infamy"][0] == 6 + 1


# --------------------------------------------------------------------------- flow and end


def test_e20_hand_passing() -> None:
    st = setup(4, "AAAA", start=0)
    remaining = {}
    for s in range(4):
        st = refill(st)
        assert active(st) == s
        remaining[s] = list(st["hands"][s][1:])
        st = go(st, s, {"type": "keep", "card": st["hands"][s][0]})
        if s < 3:
            assert st["piles"][s + 1] == [{"round": 1, "cards": remaining[s]}]
    # round 2: P1 (seat 0) holds pile D (from seat 3) + 1 draw
    assert st["round"] == 2 and st["pending"] == {"step": "refill"}
    drawn = st["deck"][0]
    st = go(st, CHANCE, {"type": "draw", "card": drawn})
    assert st["hands"][0] == remaining[3] + [drawn]
    st = go(st, 0, {"type": "keep", "card": st["hands"][0][0]})
    a2 = list(st["piles"][1][-1]["cards"])
    drawn = st["deck"][0]
    st = go(st, CHANCE, {"type": "draw", "card": drawn})
    assert st["hands"][1] == remaining[0] + [drawn]
    assert [p["cards"] for p in st["piles"][1]] == [a2]  # A2 waits for round 3


def keep_policy(st: dict[str, Any]) -> dict[str, Any]:
    me = active(st)
    assert me is not None
    hand = st["hands"][me]
    return {"type": "keep", "card": hand[0]} if hand else {"type": "pass"}


def run(st: dict[str, Any], policy: Any) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """Play to the end; returns the state and (round, seat) of the last-card draw."""
    trigger: list[tuple[int, int]] = []
    while E.to_move(st):
        if E.to_move(st) == frozenset({CHANCE}):
            st, ev = E.apply(st, CHANCE, E.legal_actions(st, CHANCE)[0])
        else:
            st, ev = E.apply(st, active(st), policy(st))
        trigger += [((e.params or {})["round"], param_seat(e)) for e in ev if e.kind == "end_trigger"]
    return st, trigger


def test_e21_normal_end_four_players() -> None:
    st = setup(4, "AAAA", start=0)
    assert len(st["deck"]) == 28
    st, trig = run(st, keep_policy)
    assert trig == [(8, 3)]
    assert turns_taken(st) == [9, 9, 9, 9] and st["round"] == 9
    assert E.outcome(st) is not None and E.to_move(st) == frozenset()


def available(st: dict[str, Any], card: str) -> bool:
    places = [st["deck"], *st["hands"], *(p["cards"] for ps in st["piles"] for p in ps)]
    return any(card in p for p in places)


def kept_policy(st: dict[str, Any]) -> dict[str, Any]:
    """Seat 0 alternates KEEP (of a free card) and PLAY_KEPT in rounds 1-6."""
    me = active(st)
    if me == 0 and st["round"] <= 6:
        if st["round"] % 2 == 0:
            return {"type": "select_kept"}
        card = next(c for c in ("H01", "S01", "K01", "S05", "K05", "H05") if available(st, c))
        give(st, 0, card)
        return {"type": "keep", "card": card}
    return keep_policy(st)


def run_kept(st: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    trigger: list[tuple[int, int]] = []
    while E.to_move(st):
        if E.to_move(st) == frozenset({CHANCE}):
            st, ev = E.apply(st, CHANCE, E.legal_actions(st, CHANCE)[0])
        elif st["pending"]["step"] == "place":
            st, ev = E.apply(st, 0, {"type": "place", "anchor": 1, "rot": 0})
        else:
            st = copy.deepcopy(st)
            st, ev = E.apply(st, active(st), kept_policy(st))
        trigger += [((e.params or {})["round"], param_seat(e)) for e in ev if e.kind == "end_trigger"]
    return st, trigger


def test_e27_trigger_mid_round_equal_turns() -> None:
    for c in ("H01", "S01", "K01"):
        assert c in DECK_IDS
    st, trig = run_kept(setup(4, "AAAA", start=0))
    assert trig == [(9, 2)]
    assert turns_taken(st) == [10, 10, 10, 10]


def test_e27_trigger_mid_round_one_more_each() -> None:
    st, trig = run_kept(setup(4, "AAAA", start=0, end_rule="one_more_each"))
    assert trig == [(9, 2)]
    assert turns_taken(st) == [10, 10, 10, 9]


def test_e28_nothing_to_do_still_collects_income() -> None:
    st = setup(3, "AAA")
    st["deck"] = []
    st["trigger"] = {"round": 1, "seat": 2}
    st["hands"][0] = []
    assert E.legal_actions(st, 0) == [{"type": "pass"}]
    assert E.timeout_action(st, 0) == {"type": "pass"}
    st2, ev = E.apply(st, 0, {"type": "pass"})
    assert st2["infamy"][0] == 3
    assert any(e.kind == "income" for e in ev)


def test_e24_must_act_keep_replaces_unaffordable_kept() -> None:
    st = setup(3, "AAA")
    st["hands"][0] = ["H09", "S09", "K09", "H16", "S16"]
    st["infamy"][0] = 1
    st["kept"][0] = {"card": "K16", "turn": 0}
    acts = E.legal_actions(st, 0)
    assert acts == [{"type": "keep", "card": c} for c in st["hands"][0]]
    st2 = go(st, 0, {"type": "keep", "card": "H09"})
    assert st2["kept"][0]["card"] == "H09" and st2["removed_kept"][0] == ["K16"]
    st["kept"][0] = {"card": "K01", "turn": 0}
    assert {"type": "select_kept"} in E.legal_actions(st, 0)


def test_e26_draw_kept_card() -> None:
    st = at_roll(3, "CAA", {}, [2, 2, 2])
    st["removed_kept"][1] = st["deck"][10:]
    st["deck"] = st["deck"][:10]
    st = roll(st, 3)
    assert st["pending"] == {"step": "draw_kept"}
    assert len(E.legal_actions(st, CHANCE)) == 10
    c = st["deck"][4]
    st = go(st, CHANCE, {"type": "draw", "card": c})
    assert st["kept"][0]["card"] == c and len(st["deck"]) == 9


def test_draw_kept_on_empty_deck_gains_1() -> None:
    st = at_roll(3, "CAA", {}, [2, 2, 2])
    st["removed_kept"][1] = st["deck"]
    st["deck"] = []
    st["trigger"] = {"round": 1, "seat": 0}
    st = roll(st, 3)
    assert st["infamy"][0] == 2 + 1 + 1


def test_draw_kept_of_last_card_triggers_end() -> None:
    st = at_roll(3, "CAA", {}, [2, 2, 2])
    st["removed_kept"][1] = st["deck"][1:]
    st["deck"] = st["deck"][:1]
    st = roll(st, 3)
    st, ev = E.apply(st, CHANCE, {"type": "draw", "card": st["deck"][0]})
    assert st["trigger"] == {"round": 1, "seat": 0}
    assert any(e.kind == "end_trigger" for e in ev)


# --------------------------------------------------------------------------- scoring


def test_e22_final_scoring() -> None:
    res = score_table(
        [30, 28, 25, 31],
        [
            {"H": 5, "S": 2, "K": 1, "E": 3},
            {"H": 3, "S": 4, "K": 4, "E": 4},
            {"H": 2, "S": 4, "K": 2, "E": 2},
            {"H": 1, "S": 1, "K": 3, "E": 3},
        ],
    )
    assert res["scores"] == [35, 36, 29, 31]
    assert res["titles"] == [["heart"], ["strength", "skill", "most_wanted"], ["strength"], []]
    assert res["winners"] == [1]
    assert res["ranking"] == [1, 0, 3, 2]


def test_e23_no_title_at_zero() -> None:
    res = score_table([10, 10, 10], [{"H": 1, "S": 1, "K": 0, "E": 1}] * 3)
    assert res["bonus"]["K"] == [0, 0, 0]
    assert all("skill" not in t for t in res["titles"])
    assert res["winners"] == [0, 1, 2]  # equal scores, equal title cards: shared win


def test_e25_tie_break_by_title_cards() -> None:
    res = score_table(
        [33, 33, 38],
        [
            {"H": 0, "S": 0, "K": 5, "E": 1},
            {"H": 3, "S": 2, "K": 0, "E": 1},
            {"H": 0, "S": 0, "K": 0, "E": 4},
        ],
    )
    assert res["scores"] == [38, 38, 38]
    assert res["title_cards"] == [1, 2, 1]
    assert res["winners"] == [1]


def test_outcome_matches_final_scoring() -> None:
    st, _ = run(setup(3, "ABC"), keep_policy)
    out = E.outcome(st)
    assert out is not None
    res = final_scoring(st)
    assert list(out.scores) == res["scores"] and sorted(out.winners) == res["winners"]
    assert E.scores(st) == out.scores


# --------------------------------------------------------------------------- errors, hidden info


def test_errors() -> None:
    with pytest.raises(InvalidOptions):
        E.new_game(2, 0)
    with pytest.raises(InvalidOptions):
        E.new_game(5, 0)
    with pytest.raises(InvalidOptions):
        E.new_game(3, 0, {"end_rule": "sudden"})
    with pytest.raises(InvalidOptions):
        E.new_game(3, 0, {"colour": "red"})
    st = E.new_game(3, 0)
    with pytest.raises(NotYourTurn):
        E.apply(st, 0, {"type": "skill", "set": "A"})
    with pytest.raises(IllegalAction):
        E.apply(st, CHANCE, {"type": "draw", "card": "ST"})
    st = setup(3)
    with pytest.raises(NotYourTurn):
        E.apply(st, 1, {"type": "keep", "card": st["hands"][1][0]})
    with pytest.raises(IllegalAction):
        E.apply(st, 0, {"type": "keep", "card": st["hands"][1][0]})
    with pytest.raises(IllegalAction):
        E.apply(st, 0, {"type": "pass"})
    st2 = go(st, 0, {"type": "select", "card": "H01"}) if "H01" in st["hands"][0] else None
    if st2 is not None:
        with pytest.raises(IllegalAction):
            E.apply(st2, 0, {"type": "place", "anchor": 10, "rot": 0})
        with pytest.raises(IllegalAction):
            E.apply(st2, 0, {"type": "place", "anchor": 1, "rot": 90})
    st = at_roll(3, "AAA", {}, [2, 2, 2])
    with pytest.raises(IllegalAction):
        E.apply(st, CHANCE, {"type": "roll", "value": 7})
    st, _ = run(setup(3), keep_policy)
    with pytest.raises(GameOver):
        E.apply(st, 0, {"type": "pass"})


def test_skill_choice_is_secret_until_all_chosen() -> None:
    st = E.new_game(3, 0)
    while st["phase"] == "deal":
        st = go(st, CHANCE, {"type": "draw", "card": st["deck"][0]})
    st = go(st, 0, {"type": "skill", "set": "D"})
    assert E.to_move(st) == frozenset({1, 2})
    assert E.player_view(st, None)["seats"][0]["skill"] is None
    assert E.player_view(st, 0)["you"]["skill"] == "D"
    assert E.player_view(st, 1)["seats"][0]["skill_chosen"] is True
    assert E.timeout_action(st, 1) == {"type": "skill", "set": "A"}


def test_public_view_has_no_secrets_and_shuffle_hidden() -> None:
    rng = random.Random(3)
    st = setup(4, "ABCD")
    st = advance_to(st, 2)
    pub = json.dumps(E.player_view(st, None))
    for s in range(4):
        for c in st["hands"][s]:
            assert f'"{c}"' not in pub
    for seat in (None, 0, 1, 2, 3):
        other = E.shuffle_hidden(st, seat, rng)
        assert E.player_view(other, seat) == E.player_view(st, seat)
        assert other != st


def test_timeouts_follow_spec() -> None:
    st = setup(3)
    st["hands"][0] = ["H09", "S01", "K02", "S16"]
    assert E.timeout_action(st, 0) == {"type": "select", "card": "S01"}
    st["hands"][0] = ["H09", "S16"]
    assert E.timeout_action(st, 0) == {"type": "keep", "card": "S16"}
    st["hands"][0] = ["K02", "S01"]
    st = go(st, 0, {"type": "select", "card": "K02"})
    # K02's only icon is E (TL): any 0° placement not covering the starting E adds one
    assert E.timeout_action(st, 0) == {"type": "place", "anchor": 1, "rot": 0}
    st = at_roll(3, "AAA", {}, [2, 4, 4])
    st = roll(st, 6)
    assert E.timeout_action(st, 0) == {"type": "target", "seat": 1}


def test_labels_hints_and_paths() -> None:
    tx = Texts("eguan", ["Ann", "Bo", "Cy"], strict=True)
    st = setup(3)
    st["hands"][0] = ["H09", "S01"]
    st["boards"][0] = copy.deepcopy(E3_T2)
    st["infamy"][0] = 5
    main = E.legal_actions(st, 0)
    assert [tx(N.action_label(st, a)) for a in main] == [
        "Play H09 Stone Cold", "Play S01 Throw Your Weight Around", "Keep H09 Stone Cold",
        "Keep S01 Throw Your Weight Around"]
    assert tx(N.action_hint(st, main[0])) == "pay 4 Infamy · 🎲 trouble die"  # needs H3, the board shows H1
    assert tx(N.action_hint(st, main[2])) == "face down, ends your turn"
    assert [tx(p) for p in N.action_path(st, main[0]) + N.action_path(st, main[2])] == ["Play a card", "Keep a card"]
    st = go(st, 0, {"type": "select", "card": "H09"})
    acts = E.legal_actions(st, 0)
    assert len(acts) == 19
    place = {"type": "place", "anchor": 2, "rot": 180}
    after = board_counts([*E3_T2, ["H09", 2, 180]])
    assert tx(N.action_label(st, place)) == f"2 ↓180° · Evil {after['E']}"
    assert tx(N.action_hint(st, place)) == (
        f"pay 4 Infamy → H{after['H']} S{after['S']} K{after['K']} E{after['E']}")
    assert N.describe_action(st, acts[0]) == "at 1 0"
    assert N.parse_action(st, 0, "AT 2 180") == place
    assert len({N.describe_action(st, a) for a in acts}) == len(acts)
    assert N.action_path(st, acts[0]) == (msg("step.rotation", rot=term("rot.0")),)
    assert tx(N.action_path(st, acts[0])[0]) == "↑0° placements"
    prompt = N.prompt(st, 0)
    assert "H09" not in json.dumps(prompt.to_json()) and "Stone" not in tx(prompt)  # the card stays secret
    assert tx(N.action_label(st, acts[-1])) == "← Back: not H09 Stone Cold"
    assert N.prompt(st, 1) == msg("host.nothing")


def test_skill_labels_summarise_the_six_faces() -> None:
    tx = Texts("eguan", ["Ann", "Bo", "Cy"], strict=True)
    st = E.new_game(3, 0)
    while st["phase"] == "deal":
        st = go(st, CHANCE, {"type": "draw", "card": st["deck"][0]})
    acts = E.legal_actions(st, 0)
    assert [tx(N.action_label(st, a)) for a in acts] == ["Thug 打手", "Schemer 軍師", "Fence 銷贓", "Ruffian 惡霸"]
    assert tx(N.action_hint(st, acts[0])) == "1 +1, 2 steal 1, 3 +1, 4 —, 5 steal 1 from richer, 6 steal 2"
    st, ev = E.apply(st, 0, acts[2])
    assert [tx.event(e) for e in ev] == ["Ann has chosen a skill set.", "You chose Fence (銷贓, set C)."]
    assert [e.visible_to for e in ev] == [None, frozenset({0})]


def test_catalog_names_are_the_data_files_names() -> None:
    cat = catalog("eguan")
    assert {k[len("term.card."):]: v for k, v in cat.items() if k.startswith("term.card.")} == {
        c.id: c.name_en for c in CARDS.values()}
    assert {k[len("term.set."):]: v for k, v in cat.items() if k.startswith("term.set.")} == {
        x: faces[0].set_name_en for x, faces in SKILLS.items()}
    assert {k[len("term.face."):]: v for k, v in cat.items() if k.startswith("term.face.")} == {
        f.id: f.text for faces in SKILLS.values() for f in faces}


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_message_of_a_playout_formats(seed: int) -> None:
    """Seeded random playouts: every event, prompt, label, hint, path step and the end
    reason has its catalog key and parameters (strict formatting); events are a kind
    plus parameters; English labels fit a Discord button (80 characters)."""
    rng = random.Random(seed)
    players = 3 + seed % 2
    tx = Texts("eguan", ["Ann", "小明", "Cy", "Di"][:players], strict=True)
    st = E.new_game(players, seed, {"end_rule": ("equal_turns", "one_more_each")[seed % 2]})
    kinds: set[str] = set()
    while E.to_move(st):
        seat = rng.choice(sorted(E.to_move(st)))
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            assert tx(N.prompt(st, seat))
            for a in E.legal_actions(st, seat):
                assert 0 < len(tx(N.action_label(st, a))) <= 80
                hint = N.action_hint(st, a)
                assert hint is None or tx(hint)
                assert all(tx(step) for step in N.action_path(st, a))
            DecisionTree.of(N, st, seat)
            plays = [a for a in E.legal_actions(st, seat) if a["type"] not in ("keep", "back", "skip")]
            action = rng.choice(plays if plays and rng.random() < 0.8 else E.legal_actions(st, seat))
        st, events = E.apply(st, seat, action)
        for e in events:
            assert e.params is not None and e.text == "" and not e.data
            assert tx.event(Event.from_json(json.loads(json.dumps(e.to_json()))))
            kinds.add(e.kind)
    out = E.outcome(st)
    assert out is not None and tx(out.reason)
    assert {"turn", "income", "pass", "final_scores", "end_trigger"} <= kinds
