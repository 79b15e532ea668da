"""Rule tests for Illumination: every worked example E1–E20 of docs/rules/illumination.md §10,
plus the notation, the texts and the timeouts of §11. Positions are built with scripted chance
outcomes, then edited where an example starts mid-game."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.text import Texts
from engines.base import CHANCE, GameOver, IllegalAction, NotYourTurn
from engines.decisions import DecisionTree
from engines.illumination import NOTATION as N
from engines.illumination.data import CARDS, LINES, SIDE_TILES, TILES
from engines.illumination.rules import (
    conflict_groups,
    empty_quills,
    line_book,
    main_targets,
    numbered_squares,
    redirect_cost,
    rewards,
)
from engines.registry import get
from render.illumination import _status

E = get("illumination")
REV, IRR = 0, 1


# --------------------------------------------------------------------------- helpers


def do(st: dict, seat: int, action: dict) -> dict:
    new, _ = E.apply(st, seat, action)
    return new


def do_events(st: dict, seat: int, action: dict) -> tuple[dict, list]:
    new, events = E.apply(st, seat, action)
    return new, list(events)


def tile_of(side: str, spec: str, used: set[str]) -> str:
    """A free tile id of ``side`` for ``"Angel/red"`` or ``"coin"``."""
    for tid in SIDE_TILES[side]:
        t = TILES[tid]
        name = "coin" if t.faction is None else f"{t.faction.capitalize()}/{t.colour}"
        if name == spec.replace("grey", "grey") and tid not in used:
            used.add(tid)
            return tid
    raise AssertionError(f"no free {side} tile {spec}")


def side_of_spec(spec: str) -> str:
    return "reverent" if spec.split("/")[0].lower() in ("angel", "knight", "monk", "dog") else "irreverent"


def order(side: str, prefix: list[str]) -> list[str]:
    used: set[str] = set()
    head = [tile_of(side, p, used) for p in prefix]
    return head + [t for t in SIDE_TILES[side] if t not in used]


def fresh(rev_prefix: list[str] | None = None, *, options: dict | None = None, abbot: str = "crypt",
          crusades: tuple[str, str] = ("crusade-rabbit", "crusade-knight")) -> dict:
    """A game after setup with seat 0 the Reverent (§3) and scripted chance outcomes."""
    st = E.new_game(2, 1, options)
    st = do(st, CHANCE, {"type": "assign_sides", "reverent": REV})
    if st["abbot"] is None:
        st = do(st, CHANCE, {"type": "abbot_start", "station": abbot})
    st = do(st, CHANCE, {"type": "deal_crusade", "seat": REV, "card": crusades[0]})
    st = do(st, CHANCE, {"type": "deal_crusade", "seat": IRR, "card": crusades[1]})
    st = do(st, CHANCE, {"type": "shuffle_tiles", "seat": REV, "order": order("reverent", rev_prefix or [])})
    st = do(st, CHANCE, {"type": "shuffle_tiles", "seat": IRR, "order": order("irreverent", [])})
    return do(st, CHANCE, {"type": "shuffle_deck", "order": list(CARDS)})


def position(seat: int, *, board: dict[str, str] | None = None, staged: list[tuple[str, str]] | None = None,
             coins: tuple[int, int] = (0, 0), tokens: dict[int, dict[str, int]] | None = None,
             hand: list[str] | None = None, abbot: str | None = None, base: dict | None = None) -> tuple[dict, dict]:
    """A MAIN position of ``seat``: ``board`` maps cells to ``"Angel/red"`` (``"v:Angel/red"`` = face
    down); ``staged`` lists ``("Knight/grey", "I")``. Returns the state and the tile ids by cell or
    by ``staged:<i>``."""
    st = base or fresh()
    used: set[str] = set()
    ids: dict[str, str] = {}
    for cell, spec in (board or {}).items():
        down = spec.startswith("v:")
        spec = spec.removeprefix("v:")
        tid = tile_of(side_of_spec(spec), spec, used)
        st["board"][cell] = [tid, down]
        ids[cell] = tid
    st["staged"] = []
    for i, (spec, book) in enumerate(staged or []):
        tid = tile_of(side_of_spec(spec), spec, used)
        st["staged"].append([tid, book])
        ids[f"staged:{i}"] = tid
    for s in (0, 1):  # tiles now in play leave mats and stacks
        st["mats"][s] = [None if t in used else t for t in st["mats"][s]]
        st["stacks"][s] = [t for t in st["stacks"][s] if t not in used]
    st["coins"] = list(coins)
    for s, toks in (tokens or {}).items():
        st["tokens"][s].update(toks)
    if hand is not None:
        st["hands"][seat] = list(hand)
        st["deck"] = [c for c in st["deck"] if c not in hand]
    if abbot is not None:
        st["abbot"] = abbot
    st["active"], st["phase"] = seat, "main"
    return st, ids


def fill(st: dict, book: str, *, leave: tuple[str, ...] = ()) -> None:
    """Fill every empty quill space of ``book`` except ``leave`` with face-down tiles."""
    from engines.illumination.data import BOOK_CELLS, CELLS

    busy = {v[0] for v in st["board"].values()} | {t for t, _ in st["staged"]}
    free = [t for t in TILES if TILES[t].faction is not None and t not in busy]
    for cell in BOOK_CELLS[book]:
        if CELLS[cell].quill is not None and cell not in st["board"] and cell not in leave:
            st["board"][cell] = [free.pop(), True]


def legal(st: dict, seat: int, kind: str | None = None) -> list[dict]:
    return [a for a in E.legal_actions(st, seat) if kind is None or a["type"] == kind]


def tid_at(st: dict, cell: str) -> str:
    return str(st["board"][cell][0])


# --------------------------------------------------------------------------- E1–E3


E1_PREFIX = ["Angel/red", "coin", "Dog/white", "Monk/grey", "Knight/yellow", "Angel/white", "coin", "Dog/red",
             "Monk/white", "Dog/grey", "Knight/red", "coin"]


def spec(tile: str | None) -> str | None:
    if tile is None:
        return None
    t = TILES[tile]
    return "coin" if t.faction is None else f"{t.faction.capitalize()}/{t.colour}"


def test_e1_setup_fills_the_mat_from_the_first_three_stacks() -> None:
    st = fresh(E1_PREFIX)
    assert [spec(t) for t in st["mats"][REV]] == E1_PREFIX[:9]
    assert [spec(t) for t in st["stacks"][REV][:3]] == ["Dog/grey", "Knight/red", "coin"]
    assert st["coins"] == [1, 5]
    assert st["crusade"] == ["crusade-rabbit", "crusade-knight"]
    assert st["abbot"] == "crypt"
    view = E.player_view(st, None)
    drolleries = [c["id"] for b in view["books"] for c in b["cells"] if c["drollery"]]
    assert drolleries == ["I-c2", "II-c3", "III-b1"]
    assert st["phase"] == "turn_start" and E.to_move(st) == {REV}


def test_e2_activation_pays_coin_tiles_and_stages_at_the_line_book() -> None:
    st = do(fresh(E1_PREFIX), REV, {"type": "activate", "line": "col1"})
    assert st["coins"][REV] == 3
    assert [(spec(t), b) for t, b in st["staged"]] == [("Angel/red", "I"), ("Monk/grey", "I")]
    assert [st["mats"][REV][i] for i in (0, 3, 6)] == [None, None, None]
    assert st["phase"] == "main"
    assert line_book(st, IRR, "col1") == "III" and line_book(st, IRR, "col2") == "II"


def test_e2_same_line_mapping_feeds_book_k_for_both() -> None:
    st = fresh(E1_PREFIX, options={"line_mapping": "same"})
    assert line_book(st, IRR, "col1") == "I" and line_book(st, IRR, "row3") == "III"


def test_e3_quill_match_and_drollery_then_refill_in_reading_order() -> None:
    st = do(fresh(E1_PREFIX), REV, {"type": "activate", "line": "col1"})
    angel, monk = (t for t, _ in st["staged"])
    assert rewards(st, monk, "I-d1") == (0, 0, "bell")
    st = do(st, REV, {"type": "place", "tile": angel, "cell": "I-e1"})
    assert st["coins"][REV] == 4 and sum(st["tokens"][REV].values()) == 0
    assert rewards(st, monk, "I-d1") == (0, 0, "bell")  # e1 holds a red tile
    st = do(st, REV, {"type": "place", "tile": monk, "cell": "I-c1"})
    assert st["coins"][REV] == 5 and st["tokens"][REV]["bell"] == 1
    st = do(st, REV, {"type": "end_turn"})
    assert st["phase"] == "turn_start" and st["active"] == IRR
    assert [spec(st["mats"][REV][i]) for i in (0, 3, 6)] == ["Dog/grey", "Knight/red", "coin"]
    assert st["coins"][REV] == 5 and st["tokens"][REV]["bell"] == 1


# --------------------------------------------------------------------------- E4–E7


def test_e4_same_colour_neighbours_pay_tokens_whoever_owns_them() -> None:
    st, ids = position(REV, board={"III-b3": "Demon/yellow", "III-c4": "Monk/yellow", "III-b2": "Rabbit/yellow"},
                       staged=[("Dog/yellow", "III")])
    st = do(st, REV, {"type": "place", "tile": ids["staged:0"], "cell": "III-c3"})
    assert st["coins"][REV] == 1 and st["tokens"][REV]["candle"] == 2
    assert not any(down for _, down in st["board"].values())
    assert all(v == [0, 0] for v in st["markers"].values())


@pytest.mark.parametrize(("down", "bread"), [(False, 2), (True, 1)])
def test_e5_drollery_plus_colour_and_face_down_neighbour(down: bool, bread: int) -> None:
    st, ids = position(REV, board={"I-b1": ("v:" if down else "") + "Monk/white"}, staged=[("Angel/white", "I")])
    st = do(st, REV, {"type": "place", "tile": ids["staged:0"], "cell": "I-b2"})
    assert st["coins"][REV] == 1 and st["tokens"][REV]["bread"] == bread


def test_e6_redirect_costs_one_coin_per_step() -> None:
    st, ids = position(REV, staged=[("Knight/grey", "I")], coins=(1, 0))
    knight = ids["staged:0"]
    assert {"type": "redirect", "tile": knight, "book": "III"} not in legal(st, REV)
    with pytest.raises(IllegalAction):
        E.apply(st, REV, {"type": "redirect", "tile": knight, "book": "III"})
    st = do(st, REV, {"type": "redirect", "tile": knight, "book": "II"})
    assert st["coins"][REV] == 0 and st["staged"] == [[knight, "II"]]
    assert redirect_cost("III", "I") == 2 and redirect_cost("III", "II") == 1


def test_e7_closed_book_must_place_and_sheepfold() -> None:
    st, _ = position(REV, hand=["scriptum-1"])
    fill(st, "II")
    used = {v[0] for v in st["board"].values()}
    row2 = [tile_of("reverent", s, used) for s in ("Dog/red", "Monk/grey", "coin")]
    st["mats"][REV][3:6] = row2
    st["phase"] = "turn_start"
    st = do(st, REV, {"type": "activate", "line": "row2"})
    assert st["coins"][REV] == 2
    dog, monk = row2[0], row2[1]
    assert st["staged"] == [[dog, "II"], [monk, "II"]]
    assert legal(st, REV, "place") == [] and legal(st, REV, "play") == []
    st = do(st, REV, {"type": "redirect", "tile": dog, "book": "I"})
    assert st["coins"][REV] == 1
    assert legal(st, REV, "end_turn") == []  # Dog/red sits at open Book I
    with pytest.raises(IllegalAction):
        E.apply(st, REV, {"type": "end_turn"})
    st = do(st, REV, {"type": "place", "tile": dog, "cell": "I-a3"})
    st = do(st, REV, {"type": "end_turn"})
    assert st["sheepfold"][REV] == 1 and st["staged"] == []


# --------------------------------------------------------------------------- E8, E9, E16: battles


E8_BOARD = {"II-a1": "Angel/red", "II-b1": "Demon/white", "II-b2": "Angel/yellow", "II-a2": "Knight/grey",
            "II-a3": "Rabbit/grey"}


def test_e8_battle_grouping_and_resolution() -> None:
    st, ids = position(IRR, board=E8_BOARD, staged=[("Squirrel/white", "II")])
    groups = conflict_groups(st, "II")
    assert [(g["pair"], g["cells"], g["counts"], g["bounded"]) for g in groups] == [
        ("angel-demon", ["II-a1", "II-b1", "II-b2"], [2, 1], False)]
    st, events = do_events(st, IRR, {"type": "place", "tile": ids["staged:0"], "cell": "II-b3"})
    assert st["board"]["II-b1"] == [ids["II-b1"], True]
    assert [c for c, (_, down) in st["board"].items() if down] == ["II-b1"]
    assert st["markers"]["angel-demon"] == [1, 0]
    assert st["coins"][IRR] == 2 and st["tokens"][IRR]["bread"] == 1
    assert [e.kind for e in events] == ["place", "battle"]
    assert events[1].params["winner"] == {"seat": REV} and events[1].params["flipped"] == 1


E9_BOARD = {"II-e1": "Dragon/grey", "II-f1": "Knight/yellow", "II-e2": "Monk/white", "II-f3": "Rabbit/yellow"}


def e9_after() -> tuple[dict, dict]:
    st, ids = position(REV, board=E9_BOARD, staged=[("Dog/red", "II"), ("Knight/red", "II")], hand=["motus-1"])
    st = do(st, REV, {"type": "place", "tile": ids["staged:0"], "cell": "II-f2"})
    return st, ids


def test_e9_a_tie_stays_open() -> None:
    st, ids = e9_after()
    assert st["coins"][REV] == 1 and sum(st["tokens"][REV].values()) == 0
    groups = conflict_groups(st, "II")
    assert [(g["cells"], g["counts"], g["bounded"]) for g in groups] == [(["II-e1", "II-f1"], [1, 1], True)]
    assert all(v == [0, 0] for v in st["markers"].values())
    assert not any(down for _, down in st["board"].values())


def test_e16_motus_reopens_a_tie_and_the_knight_wins_it() -> None:
    st, ids = e9_after()
    st = do(st, REV, {"type": "play", "card": "motus", "from": "II-f2", "to": "III-f1"})
    assert st["coins"][REV] == 2 and sum(st["tokens"][REV].values()) == 0
    assert conflict_groups(st, "II")[0]["bounded"] is False
    assert st["discard"] == ["motus-1"]
    st = do(st, REV, {"type": "place", "tile": ids["staged:1"], "cell": "II-f2"})
    assert st["coins"][REV] == 3 and sum(st["tokens"][REV].values()) == 0
    assert st["board"]["II-e1"][1] is True
    assert st["markers"]["knight-dragon"] == [1, 0]
    assert st["coins"][IRR] == 1


# --------------------------------------------------------------------------- E10–E13


def test_e10_ritual_exchange_and_compensation_card() -> None:
    st, _ = position(REV, tokens={REV: {"candle": 6}}, abbot="candle")
    st["slots"]["candle-3"] = IRR
    assert [a["slot"] for a in legal(st, REV, "exchange")] == ["candle-4", "candle-5"]
    hand_before = len(st["hands"][IRR])
    st, events = do_events(st, REV, {"type": "exchange", "slot": "candle-5"})
    assert st["slots"]["candle-5"] == REV and st["tokens"][REV]["candle"] == 1
    assert E.scores(st)[REV] == 7
    assert len(st["hands"][IRR]) == hand_before + 1
    secret = [e for e in events if e.kind == "drew_card"]
    assert secret and secret[0].visible_to == {IRR}
    assert legal(st, REV, "exchange") == []


def test_e10_candle4_when_candle5_is_taken_and_ritus_first() -> None:
    st, _ = position(REV, tokens={REV: {"candle": 6}}, abbot="candle")
    st["slots"]["candle-5"] = IRR
    st = do(st, REV, {"type": "exchange", "slot": "candle-4"})
    assert st["tokens"][REV]["candle"] == 2 and E.scores(st)[REV] == 4
    st, _ = position(REV, tokens={REV: {"candle": 3, "bell": 5}}, abbot="candle", hand=["ritus-1"])
    assert [a["slot"] for a in legal(st, REV, "exchange")] == ["candle-3"]  # bell is not this altar
    st = do(st, REV, {"type": "play", "card": "ritus", "token": "candle"})
    st = do(st, REV, {"type": "exchange", "slot": "candle-4"})
    assert st["slots"] == {"candle-4": REV} and st["tokens"][REV]["candle"] == 0


def test_e11_moving_the_abbot_and_motus_to_an_altar() -> None:
    st, _ = position(REV, coins=(3, 0), tokens={REV: {"bread": 4}}, abbot="gate", hand=["motus-2"])
    via_motus = do(st, REV, {"type": "play", "card": "motus", "altar": "bread"})
    assert via_motus["abbot"] == "bread" and via_motus["coins"][REV] == 3
    assert not any(a.get("altar") == "cloister" for a in legal(st, REV, "play"))
    for station in ("bell", "well", "bread"):
        st = do(st, REV, {"type": "abbot", "station": station})
    assert st["coins"][REV] == 0 and legal(st, REV, "abbot") == []
    st = do(st, REV, {"type": "exchange", "slot": "bread-4"})
    assert E.scores(st)[REV] == 4 and len(st["hands"][IRR]) == 1


def test_e12_buying_from_an_empty_deck_reshuffles_the_discard_pile() -> None:
    st, _ = position(IRR, coins=(0, 3))
    st["deck"], st["discard"], st["hands"] = [], list(CARDS[:6]), [[], []]
    st = do(st, IRR, {"type": "buy"})
    assert st["coins"][IRR] == 1 and E.to_move(st) == {CHANCE}
    order = list(reversed(CARDS[:6]))
    st = do(st, CHANCE, {"type": "reshuffle", "order": order})
    assert st["hands"][IRR] == [order[0]] and st["deck"] == order[1:] and st["discard"] == []
    assert E.to_move(st) == {IRR} and st["phase"] == "main"
    empty, _ = position(IRR, coins=(0, 3))
    empty["deck"], empty["discard"] = [], []
    assert legal(empty, IRR, "buy") == []


def test_e12_reshuffle_outcome_is_checked() -> None:
    st, _ = position(IRR, coins=(0, 3))
    st["deck"], st["discard"] = [], list(CARDS[:6])
    st = do(st, IRR, {"type": "buy"})
    with pytest.raises(IllegalAction):
        E.apply(st, CHANCE, {"type": "reshuffle", "order": list(CARDS[:5])})


def test_e13_item_limit_discard_stepper_and_its_default() -> None:
    st, _ = position(REV, coins=(4, 9), tokens={REV: {"bell": 2, "candle": 3}})
    st = do(st, REV, {"type": "end_turn"})
    assert st["phase"] == "discard" and E.to_move(st) == {REV}
    assert E.timeout_action(st, REV) == {"type": "discard", "item": "bell"}
    by_default = do(do(st, REV, E.timeout_action(st, REV)), REV, {"type": "discard", "item": "bell"})
    assert by_default["coins"][REV] == 4 and by_default["tokens"][REV] == {"bell": 0, "candle": 3, "wine": 0,
                                                                             "bread": 0}
    st = do(st, REV, {"type": "discard", "item": "coin"})
    assert st["phase"] == "discard"
    st = do(st, REV, {"type": "discard", "item": "coin"})
    assert st["coins"][REV] == 2 and st["tokens"][REV]["bell"] == 2 and st["tokens"][REV]["candle"] == 3
    assert st["phase"] == "turn_start" and st["active"] == IRR
    assert st["coins"][IRR] == 9  # the opponent's total is not checked now


def test_d41_a_discard_that_leaves_no_choice_is_made_at_once() -> None:
    on, off = {"auto_discard": True}, {"auto_discard": False}
    st, _ = position(REV, coins=(10, 9))  # only coins: 3 over the limit, one possible discard
    st = do(st, REV, {"type": "end_turn"})
    assert st["phase"] == "discard" and E.auto_action(st, REV, on) == {"type": "discard_set", "items": {"coin": 3}}
    assert E.auto_action(st, REV, off) is None and E.auto_action(st, IRR, on) is None
    after = do(st, REV, E.auto_action(st, REV, on))
    assert after["coins"][REV] == 7 and after["phase"] == "turn_start" and after["active"] == IRR
    # every way the player could have chosen it (a stored log's explicit discards) is still legal and ends alike
    one_by_one = do(do(do(st, REV, {"type": "discard", "item": "coin"}), REV, {"type": "discard", "item": "coin"}),
                    REV, {"type": "discard", "item": "coin"})
    assert one_by_one == after and {"type": "discard", "item": "coin"} in legal(st, REV)
    # one over, of one kind: a single discard
    st, _ = position(REV, coins=(0, 9), tokens={REV: {"candle": 8}})
    st = do(st, REV, {"type": "end_turn"})
    assert E.auto_action(st, REV, on) == {"type": "discard", "item": "candle"}
    # two kinds held: the player chooses, even when one kind alone could pay
    st, _ = position(REV, coins=(8, 9), tokens={REV: {"bell": 1}})
    st = do(st, REV, {"type": "end_turn"})
    assert st["phase"] == "discard" and E.auto_action(st, REV, on) is None
    # after the player's first discard of two, only coins are left: the rest is made at once
    st, _ = position(REV, coins=(8, 9), tokens={REV: {"bell": 1}})
    st = do(do(st, REV, {"type": "end_turn"}), REV, {"type": "discard", "item": "bell"})
    assert E.auto_action(st, REV, on) == {"type": "discard", "item": "coin"}
    # outside the discard: nothing
    assert E.auto_action(position(REV)[0], REV, on) is None


def test_d42_an_end_of_turn_that_leaves_no_choice_is_made_at_once() -> None:
    on, off = {"auto_end": True}, {"auto_end": False}
    st, _ = position(REV)  # nothing staged, no coins, no cards: End turn is all there is
    assert legal(st, REV) == [{"type": "end_turn"}]
    assert E.auto_action(st, REV, on) == {"type": "end_turn"}
    assert E.auto_action(st, REV, off) is None and E.auto_action(st, IRR, on) is None
    assert do(st, REV, E.auto_action(st, REV, on))["active"] == IRR
    # a tile waiting at a closed Book goes to the sheepfold: still no choice without coins to redirect it
    st, _ = position(REV, staged=[("Monk/grey", "II")])
    fill(st, "II")
    assert legal(st, REV) == [{"type": "end_turn"}] and E.auto_action(st, REV, on) == {"type": "end_turn"}
    # a coin moves the Abbot (or redirects): the player chooses
    st, _ = position(REV, coins=(1, 0))
    assert E.auto_action(st, REV, on) is None
    # a card in hand: the player chooses
    st, _ = position(REV, hand=["ritus-1"])
    assert E.auto_action(st, REV, on) is None
    # a tile to place: the player chooses
    st, _ = position(REV, staged=[("Monk/grey", "I")])
    assert E.auto_action(st, REV, on) is None


# --------------------------------------------------------------------------- E14, E15


E14_MAT = ["Angel/red", "Knight/grey", "coin", "Monk/white", "Dog/yellow", "Angel/grey", "Dog/red", "Monk/yellow",
           "Knight/white"]


def e14() -> dict:
    st, _ = position(REV, hand=["porticus-1", "mutatio-1"])
    fill(st, "II")
    used = {v[0] for v in st["board"].values()}
    st["mats"][REV] = [tile_of("reverent", s, used) for s in E14_MAT]
    st["stacks"][REV] = [tile_of("reverent", s, used) for s in ("Dog/grey", "coin", "Monk/red")]
    st["phase"] = "turn_start"
    return do(st, REV, {"type": "activate", "line": "col2"})


def mat(st: dict) -> list[str | None]:
    return [spec(t) for t in st["mats"][REV]]


def test_e14_refill_without_cards_fills_the_emptied_column() -> None:
    st = do(e14(), REV, {"type": "end_turn"})
    assert [mat(st)[i] for i in (1, 4, 7)] == ["Dog/grey", "coin", "Monk/red"]


def test_e14_porticus_moves_the_gap_and_the_refill_follows() -> None:
    st = do(e14(), REV, {"type": "play", "card": "porticus", "lines": ["col2", "col3"]})
    assert [mat(st)[i] for i in (1, 4, 7)] == ["coin", "Angel/grey", "Knight/white"]
    assert [mat(st)[i] for i in (2, 5, 8)] == [None, None, None]
    st = do(st, REV, {"type": "end_turn"})
    assert [mat(st)[i] for i in (2, 5, 8)] == ["Dog/grey", "coin", "Monk/red"]


def test_e14_mutatio_swaps_two_full_cells_only() -> None:
    st = e14()
    swapped = do(st, REV, {"type": "play", "card": "mutatio", "cells": ["r1c1", "r2c1"]})
    assert [mat(swapped)[i] for i in (0, 3, 6)] == ["Monk/white", "Angel/red", "Dog/red"]
    assert {"type": "play", "card": "mutatio", "cells": ["r1c1", "r1c2"]} not in legal(st, REV)


def test_e15_scriptum_on_a_text_space_pays_tokens_but_no_coin() -> None:
    st, ids = position(REV, board={"I-d1": "Dog/white"}, staged=[("Angel/white", "I")], hand=["scriptum-2"])
    st = do(st, REV, {"type": "play", "card": "scriptum", "tile": ids["staged:0"], "cell": "I-d2"})
    assert st["coins"][REV] == 0 and st["tokens"][REV]["bread"] == 2
    assert st["staged"] == [] and not any(down for _, down in st["board"].values())
    cells = {a["cell"] for a in legal(position(REV, staged=[("Angel/white", "I")], hand=["scriptum-2"])[0], REV, "play")}
    assert "I-c2" not in cells and cells == {"I-d2", "I-e2", "I-c3", "I-d3", "I-e3"}


# --------------------------------------------------------------------------- E17, E18: passing, no stacks


def test_e17_passing_is_permanent_and_both_passes_end_the_game() -> None:
    st = fresh()
    st["active"], st["phase"] = IRR, "turn_start"
    st["coins"][IRR] = 6
    assert legal(st, IRR, "pass") == [{"type": "pass"}]
    asked = do(st, IRR, {"type": "pass"})
    assert asked["phase"] == "confirm_pass" and do(asked, IRR, {"type": "cancel_pass"})["phase"] == "turn_start"
    st = do(asked, IRR, {"type": "confirm_pass"})
    assert st["passed"] == [False, True] and st["active"] == REV and st["phase"] == "turn_start"
    st = do(st, REV, {"type": "activate", "line": "row1"})
    assert legal(st, REV, "pass") == []  # passing after activate is illegal
    st["staged"] = []
    st = do(st, REV, {"type": "end_turn"})
    assert st["active"] == REV and st["phase"] == "turn_start"  # the Irreverent is skipped
    st["phase"], st["abbot"] = "main", "wine"
    st["tokens"][REV]["wine"] = 4
    st = do(st, REV, {"type": "exchange", "slot": "wine-4"})
    assert len(st["hands"][IRR]) == 1  # a passed player still draws compensation
    st = do(st, REV, {"type": "end_turn"})
    mat_before = list(st["mats"][REV])
    st = do(do(st, REV, {"type": "pass"}), REV, {"type": "confirm_pass"})
    assert st["phase"] == "over" and E.to_move(st) == frozenset() and st["mats"][REV] == mat_before
    assert E.outcome(st) is not None
    with pytest.raises(GameOver):
        E.apply(st, REV, {"type": "pass"})


def test_e18_no_stacks_left_any_line_with_a_tile() -> None:
    st = fresh()
    used: set[str] = set()
    row2 = [tile_of("reverent", s, used) for s in ("Dog/white", "coin", "Angel/red")]
    st["mats"][REV] = [None, None, None, *row2, tile_of("reverent", "Monk/grey", used), None, None]
    st["stacks"][REV] = []
    assert [a["line"] for a in legal(st, REV, "activate")] == ["row2", "row3", "col1", "col2", "col3"]
    st = do(st, REV, {"type": "activate", "line": "col2"})
    assert st["coins"][REV] == 3 and st["staged"] == []
    assert legal(st, REV, "end_turn") == [{"type": "end_turn"}]
    st = do(st, REV, {"type": "end_turn"})
    assert st["mats"][REV][1] is None and st["mats"][REV][4] is None  # no refill
    empty = fresh()
    empty["mats"][REV], empty["stacks"][REV] = [None] * 9, []
    empty["active"], empty["phase"] = IRR, "main"
    empty = do(empty, IRR, {"type": "end_turn"})
    assert empty["passed"][REV] is True and empty["active"] == IRR  # the automatic pass


# --------------------------------------------------------------------------- E19: final scoring


def test_e19_final_scoring_and_winner() -> None:
    st = fresh(crusades=("crusade-demon", "crusade-monk"))
    used: set[str] = set()
    rev_up = [t for t in SIDE_TILES["reverent"] if TILES[t].faction and TILES[t].faction != "monk"][:23]
    irr_up = [t for t in SIDE_TILES["irreverent"] if TILES[t].faction and TILES[t].faction != "demon"][:22]
    demons_down = [t for t in SIDE_TILES["irreverent"] if TILES[t].faction == "demon"][:3]
    monks_down = [t for t in SIDE_TILES["reverent"] if TILES[t].faction == "monk"][:2]
    from engines.illumination.data import CELLS

    cells = iter(sorted(CELLS))
    for t in rev_up + irr_up:
        st["board"][next(cells)] = [t, False]
    for t in demons_down + monks_down:
        st["board"][next(cells)] = [t, True]
    used |= set(rev_up + irr_up)
    st["slots"] = {"candle-5": REV, "bell-4": REV, "wine-5": IRR, "wine-4": IRR, "bread-3": IRR}
    st["markers"] = {"angel-demon": [2, 0], "knight-dragon": [1, 1], "monk-rabbit": [1, 2], "dog-squirrel": [0, 0]}
    st["sheepfold"] = [0, 2]
    st["phase"] = "over"
    outcome = E.outcome(st)
    assert outcome is not None
    assert outcome.scores == (49.0, 44.0) and outcome.winners == {REV} and outcome.ranking == (REV, IRR)
    view = E.player_view(st, None)
    assert view["scores"][REV] == {"rituals": 11, "tiles": 23, "battles": 6, "crusade": 9, "sheepfold": 0,
                                   "total": 49}
    assert view["scores"][IRR]["crusade"] == 5 and view["scores"][IRR]["sheepfold"] == -2
    assert view["crusade"] == ["crusade-demon", "crusade-monk"]


def test_d35_tie_break_face_up_tiles_then_items_then_shared() -> None:
    st = fresh()
    st["phase"] = "over"
    st["coins"] = [0, 0]
    outcome = E.outcome(st)
    assert outcome is not None and outcome.winners == {0, 1}
    st["coins"] = [0, 1]
    outcome = E.outcome(st)
    assert outcome is not None and outcome.winners == {IRR}
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    assert tx(outcome.reason) == ("Bo wins the 0–0 tie: face-up tiles are equal, and Bo holds more coins and tokens "
                                  "(1 to 0); both players passed.")
    assert E.player_view(st, None)["tie_break"] == "items"


def test_d35_a_tie_broken_by_face_up_tiles_is_explained_by_the_reason_and_the_board() -> None:
    st, _ = position(REV, board={"I-e1": "Angel/red"})
    st["phase"], st["sheepfold"] = "over", [1, 0]  # (1 face-up tile, −1 for the sheepfold: 0–0)
    outcome = E.outcome(st)
    assert outcome is not None and outcome.scores == (0.0, 0.0) and outcome.winners == {REV}
    assert Texts("illumination", ["Ann", "Bo"], strict=True)(outcome.reason) == (
        "Ann wins the 0–0 tie with more face-up tiles in the Books (1 to 0); both players passed.")
    assert Texts("illumination", ["Ann", "Bo"], "ja", strict=True)(outcome.reason).startswith(
        "Ann が 0–0 の同点を、書物の表向きタイルの多さで制しました（1 対 0）。")
    view = E.player_view(st, None)
    assert view["tie_break"] == "tiles"
    assert _status(view, ["Ann", "Bo"]) == "Game over — Ann wins the tie: more face-up tiles"
    st["sheepfold"] = [0, 0]  # (1–0: no tie to break)
    view = E.player_view(st, None)
    assert view["tie_break"] is None and _status(view, ["Ann", "Bo"]) == "Game over — Ann wins"


# --------------------------------------------------------------------------- E20: Exilium


E20_BOARD = {"III-c4": "Monk/yellow", "III-d2": "Dog/yellow", "III-e3": "v:Knight/grey", "III-f2": "v:Demon/red",
             "III-f3": "v:Rabbit/white", "III-e4": "v:Dragon/grey"}


def e20() -> tuple[dict, dict]:
    st, ids = position(IRR, board=E20_BOARD, hand=["exilium-1"])
    fill(st, "III", leave=("III-e2", "III-f4"))
    return st, ids


def test_e20_exilium_the_opponent_chooses_the_cell() -> None:
    st, ids = e20()
    assert {"type": "play", "card": "exilium", "from": "III-c4", "book": "III"} in legal(st, IRR)
    st = do(st, IRR, {"type": "play", "card": "exilium", "from": "III-c4", "book": "III"})
    assert st["phase"] == "exile" and E.to_move(st) == {REV} and "III-c4" not in st["board"]
    choices = legal(st, REV)
    assert choices == [{"type": "exile", "cell": "III-e2"}, {"type": "exile", "cell": "III-f4"}]
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    assert [tx(N.action_label(st, a)) for a in choices] == ["1 · +1 coin, +1 candle", "2 · +1 coin"]
    assert E.player_view(st, REV)["decision"]["squares"] == [
        {"n": 1, "cell": "III-e2", "kind": "square", "gain": {ids["III-c4"]: [1, 1, "candle"]}},
        {"n": 2, "cell": "III-f4", "kind": "square", "gain": {ids["III-c4"]: [1, 0, "candle"]}}]
    assert E.player_view(st, IRR)["decision"] is None
    assert E.timeout_action(st, REV) == {"type": "exile", "cell": "III-e2"}
    with pytest.raises(NotYourTurn):
        E.apply(st, IRR, {"type": "end_turn"})
    st = do(st, REV, {"type": "exile", "cell": "III-e2"})
    assert st["board"]["III-e2"] == [ids["III-c4"], False]
    assert st["coins"][REV] == 1 and st["tokens"][REV]["candle"] == 1
    assert st["phase"] == "main" and E.to_move(st) == {IRR}


def test_the_cards_in_hand_pick_numbers_of_the_decision_picture() -> None:
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    # Exilium, nothing staged: the opponent's face-up tiles in open Books are numbered (reading order)
    st, ids = e20()
    decision = E.player_view(st, IRR)["decision"]
    assert [(sq["n"], sq["cell"], sq["kind"]) for sq in decision["squares"]] == [(1, "III-d2", "tile"),
                                                                                 (2, "III-c4", "tile")]
    action = {"type": "play", "card": "exilium", "from": "III-c4", "book": "III"}
    assert tx(N.action_label(st, action)) == "Exilium: Monk/yellow 2 → Book III"
    assert tx(N.action_path(st, action)[-1]) == "2 · Monk/yellow"
    # Motus: one's own face-up tiles and every empty quill space of every Book; Scriptum: the text
    # spaces of the staged tile's Book
    st, ids = position(REV, board={"I-e1": "Angel/red"}, staged=[("Monk/grey", "I")], hand=["motus-1", "scriptum-1"])
    kinds = dict(main_targets(st))
    assert kinds["I-e1"] == "tile" and kinds["I-d2"] == "text" and "II-d2" not in kinds  # (no tile staged at II)
    assert [c for c, k in main_targets(st) if k == "square"] == [*(c for c in empty_quills(st, "I")),
                                                                 *empty_quills(st, "II"), *empty_quills(st, "III")]
    n = numbered_squares(st).index
    motus = {"type": "play", "card": "motus", "from": "I-e1", "to": "III-f1"}
    assert tx(N.action_label(st, motus)) == f"{n('III-f1') + 1} · Motus: Angel/red from {n('I-e1') + 1}"
    scriptum = {"type": "play", "card": "scriptum", "tile": ids["staged:0"], "cell": "I-d2"}
    assert tx(N.action_label(st, scriptum)) == f"{n('I-d2') + 1} · Scriptum: Monk/grey"
    place = {"type": "place", "tile": ids["staged:0"], "cell": "I-c1"}
    assert tx(N.action_label(st, place)).startswith(f"{n('I-c1') + 1} · ")
    # without those cards, only the squares of the staged tile's Book
    st["hands"][REV] = []
    assert main_targets(st) == [(c, "square") for c in empty_quills(st, "I")]
    # Mutatio names the mat's tiles by row and column in words
    st["hands"][REV] = ["mutatio-1"]

    def name(tile: str) -> str:
        t = TILES[tile]
        return f"{t.faction.capitalize()}/{t.colour}" if t.faction else "coin tile"

    swap = {"type": "play", "card": "mutatio", "cells": ["r1c1", "r3c2"]}
    assert swap in legal(st, REV)
    first, second = (name(st["mats"][REV][i]) for i in (0, 7))
    assert tx(N.action_label(st, swap)) == f"Mutatio: swap {first} (Row 1, Col 1) ↔ {second} (Row 3, Col 2)"
    assert tx(N.action_path(st, swap)[-1]) == f"{first} (Row 1, Col 1) ↔ …"


def test_e20_single_cell_is_chosen_without_a_prompt() -> None:
    st, ids = e20()
    st["board"]["III-f4"] = [next(t for t in TILES if TILES[t].faction and t not in
                                  {v[0] for v in st["board"].values()}), True]
    st = do(st, IRR, {"type": "play", "card": "exilium", "from": "III-c4", "book": "III"})
    assert st["phase"] == "main" and st["board"]["III-e2"] == [ids["III-c4"], False]


def test_exilium_timeout_option_shortens_only_the_answer_window() -> None:
    st, _ = e20()
    st["options"]["exilium_timeout"] = 30
    assert E.timeout_seconds(st, frozenset({IRR}), 86400) == 86400
    st = do(st, IRR, {"type": "play", "card": "exilium", "from": "III-c4", "book": "III"})
    assert E.timeout_seconds(st, frozenset({REV}), 86400) == 1800
    st["options"]["exilium_timeout"] = 0
    assert E.timeout_seconds(st, frozenset({REV}), 86400) == 86400


def test_d9_no_motus_or_exilium_out_of_a_closed_book() -> None:
    st, _ = position(REV, board={"II-a1": "Angel/red", "II-b1": "Demon/white"}, hand=["motus-1", "exilium-1"])
    fill(st, "II")
    plays = legal(st, REV, "play")
    assert not any(a.get("from", "").startswith("II-") for a in plays)
    assert not any(a.get("to", "").startswith("II-") for a in plays)


# --------------------------------------------------------------------------- §11: notation, panels, autopilot


def test_cell_spellings_parse_to_the_same_placement() -> None:
    st, ids = position(IRR, board=E8_BOARD, staged=[("Squirrel/white", "II")])
    want = {"type": "place", "tile": ids["staged:0"], "cell": "II-b3"}
    for text in ("II-b3", "2b3", "ii b3", "II-B3", "SqW 2-b3"):
        assert N.parse_action(st, IRR, text) == want
    assert N.describe_action(st, want) == "SqW II-b3"
    with pytest.raises(IllegalAction):
        N.parse_action(st, IRR, "II-c3")


def test_bare_cell_with_two_staged_tiles_is_ambiguous() -> None:
    st, _ = position(REV, staged=[("Angel/red", "I"), ("Knight/red", "I")])
    with pytest.raises(IllegalAction) as err:
        N.parse_action(st, REV, "I-e1")
    assert err.value.code == "ambiguous_move"


def test_identical_staged_tiles_are_one_choice() -> None:
    st, ids = position(REV, staged=[("Angel/red", "I"), ("Angel/red", "I")])
    tiles = {a["tile"] for a in legal(st, REV, "place")}
    assert tiles == {min(ids["staged:0"], ids["staged:1"])}


def test_main_panel_offers_the_first_tiles_numbered_squares_at_the_top() -> None:
    st = do(fresh(E1_PREFIX), REV, {"type": "activate", "line": "col1"})
    tree = DecisionTree.of(N, st, REV)
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    root, _ = tree.node(())
    labels = [tx(c.label) for c in root]
    assert tx(N.prompt(st, REV)).startswith("Place Angel/red in Book I: pick its square by number")
    # E3: Angel/red on I-e1 (the 5th empty quill of Book I) earns a coin; on I-c1 a wine for the Drollery
    assert labels[:6] == ["1 · no reward", "2 · no reward", "3 · +1 wine", "4 · no reward", "5 · +1 coin",
                          "6 · +1 coin"]
    assert all(c.action is not None for c in root[:18]) and labels[18] == "Place Monk/grey first (Book I)"
    assert "Redirect" in labels and "Abbot" in labels
    monk, _ = tree.node((root[18].step,))
    assert len(monk) == 18 and tx(monk[2].label) == "3 · Monk/grey: +1 coin, +1 bell"
    assert all(c.hint is None for c in monk)


def test_numbered_squares_match_the_labels_and_the_private_view() -> None:
    st = do(fresh(E1_PREFIX), REV, {"type": "activate", "line": "col1"})
    squares = E.player_view(st, REV)["decision"]["squares"]
    assert [sq["n"] for sq in squares] == list(range(1, 19))
    assert [sq["cell"] for sq in squares] == numbered_squares(st) == empty_quills(st, "I")
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    for action in legal(st, REV, "place"):
        n = int(tx(N.action_label(st, action)).split(" · ")[0])
        assert squares[n - 1]["cell"] == action["cell"]
        assert action["tile"] in squares[n - 1]["gain"]
    assert E.player_view(st, IRR)["decision"] is None and E.player_view(st, None).get("decision") is None


def test_placement_label_says_the_battle_and_the_closed_book() -> None:
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    st, ids = position(IRR, board=E8_BOARD, staged=[("Squirrel/white", "II")])
    place = {"type": "place", "tile": ids["staged:0"], "cell": "II-b3"}
    n = numbered_squares(st).index("II-b3") + 1
    assert tx(N.action_label(st, place)) == f"{n} · +1 coin, +1 bread, loses a battle"
    st, ids = position(REV, staged=[("Angel/red", "I")])
    fill(st, "I", leave=("I-e1",))
    assert tx(N.action_label(st, {"type": "place", "tile": ids["staged:0"], "cell": "I-e1"})).startswith(
        "1 · +1 coin") and tx(N.action_label(st, {"type": "place", "tile": ids["staged:0"], "cell": "I-e1"})).endswith(
        "closes Book I")


def test_turn_start_buttons_name_the_book_each_line_feeds() -> None:
    st = fresh(E1_PREFIX)
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    labels = [tx(N.action_label(st, a)) for a in E.legal_actions(st, REV) if a["type"] in ("activate", "pass")]
    assert labels == ["Pass…", "Row 1 → Book I: Angel/red, Dog/white, +2 coins",
                      "Row 2 → Book II: Monk/grey, Knight/yellow, Angel/white",
                      "Row 3 → Book III: Dog/red, Monk/white, +2 coins",
                      "Col 1 → Book I: Angel/red, Monk/grey, +2 coins",
                      "Col 2 → Book II: Knight/yellow, Dog/red, +2 coins",
                      "Col 3 → Book III: Dog/white, Angel/white, Monk/white"]


def test_autopilot_activates_first_line_feeding_an_open_book_and_places_best() -> None:
    st = fresh(E1_PREFIX)
    fill(st, "I")
    assert E.timeout_action(st, REV) == {"type": "activate", "line": "row2"}
    st = do(fresh(E1_PREFIX), REV, {"type": "activate", "line": "row1"})
    action = E.timeout_action(st, REV)
    # I-c1 (+1 wine from the Drollery) ties I-e1 (+1 coin); the earlier cell wins
    assert action == {"type": "place", "tile": st["staged"][0][0], "cell": "I-c1"}


def test_sides_host_lets_seat_a_choose_and_coin_option() -> None:
    st = E.new_game(2, 5, {"sides": "host", "irreverent_start_coins": "6", "abbot_start": "cloister"})
    assert E.to_move(st) == {0}
    st = do(st, 0, {"type": "choose_side", "reverent": 1})
    assert st["reverent"] == 1 and st["coins"] == [6, 1] and st["abbot"] == "cloister"
    assert E.to_move(st) == {CHANCE}


def test_every_text_formats_in_random_games() -> None:
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    for seed in range(6):
        rng = random.Random(seed)
        st = E.new_game(2, seed, {"sides": "host"} if seed % 2 else None)
        while E.to_move(st):
            seat = min(E.to_move(st))
            if seat == CHANCE:
                action = E.sample_chance(st, rng)
            else:
                actions = list(E.legal_actions(st, seat))
                assert tx(N.prompt(st, seat))
                for a in actions[:: max(1, len(actions) // 10)]:
                    assert 0 < len(tx(N.action_label(st, a))) <= 80
                    tx(N.action_hint(st, a)) if N.action_hint(st, a) else None
                    [tx(step) for step in N.action_path(st, a)]
                action = rng.choice(actions)
            st, events = E.apply(st, seat, action)
            for e in events:
                assert tx.event(e)
        outcome = E.outcome(st)
        assert outcome is not None and tx(outcome.reason)


def test_views_hide_hand_crusade_and_stacks() -> None:
    st, _ = position(REV, hand=["motus-1"])
    public: dict[str, Any] = E.player_view(st, None)
    text = repr(public)
    assert "crusade-rabbit" not in text and "crusade-knight" not in text and "motus-1" not in text
    assert not any(t in text for t in st["stacks"][REV])
    mine = E.player_view(st, REV)
    assert mine["hand"] == ["motus-1"] and mine["my_crusade"] == "crusade-rabbit"
    assert "crusade-knight" not in repr(mine)
    assert LINES[0] in mine["lines"][REV]


def test_the_last_tile_places_and_ends_the_turn_in_one_action() -> None:
    st = do(fresh(E1_PREFIX), REV, {"type": "activate", "line": "col1"})
    assert legal(st, REV, "place_end") == []  # two tiles to place: no end yet
    angel, monk = (a["tile"] for a in legal(st, REV, "place")[::18][:2])
    st = do(st, REV, {"type": "place", "tile": angel, "cell": "I-e1"})
    ends = legal(st, REV, "place_end")
    assert [a["cell"] for a in ends] == numbered_squares(st) and {a["tile"] for a in ends} == {monk}
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    tree = DecisionTree.of(N, st, REV)
    root, _ = tree.node(())
    labels = [tx(c.label) for c in root]
    # E3: the Monk on I-c1 (still the 3rd empty quill) earns a coin and a bell
    assert labels[2] == "3 · +1 coin, +1 bell · end turn"
    keep = next(c for c in root if tx(c.label) == "Place it and keep playing (coins, cards) ▸")
    inner, _ = tree.node((keep.step,))
    assert tx(inner[2].label) == "3 · +1 coin, +1 bell" and len(inner) == len(ends)
    end = {"type": "place_end", "tile": monk, "cell": "I-c1"}
    assert N.describe_action(st, end) == "MoK I-c1 end" and N.parse_action(st, REV, "MoK I-c1 end") == end
    assert N.parse_action(st, REV, "I-c1") == {"type": "place", "tile": monk, "cell": "I-c1"}
    after, events = do_events(st, REV, end)
    two, _ = E.apply(*do_events(st, REV, {"type": "place", "tile": monk, "cell": "I-c1"})[:1], REV, {"type": "end_turn"})
    assert after == two  # the same as the two actions one after the other
    assert after["phase"] == "turn_start" and after["active"] == IRR
    assert [e.kind for e in events] == ["place", "refill"]


def test_activate_place_activates_a_line_and_places_its_first_tile_in_one_action() -> None:
    from engines.illumination.notation import best_square, placeable_tiles
    from engines.illumination.rules import empty_quills, rewards

    st = fresh(E1_PREFIX)
    activated = do(st, REV, {"type": "activate", "line": "col1"})
    lead = placeable_tiles(activated)[0][0]
    both = [a for a in legal(st, REV, "activate_place") if a["line"] == "col1"]
    best = best_square(st, "col1")  # first, then the others in numbering
    assert [a["cell"] for a in both] == [best, *(c for c in numbered_squares(activated) if c != best)]
    assert {a["tile"] for a in both} == {lead}
    action = {"type": "activate_place", "line": "col1", "tile": lead, "cell": "I-e1"}
    after, events = do_events(st, REV, action)
    two, place_events = do_events(activated, REV, {"type": "place", "tile": lead, "cell": "I-e1"})
    assert after == two  # the same as the two actions one after the other
    assert [e.kind for e in events] == ["activate", *(e.kind for e in place_events)]
    assert N.describe_action(st, action) == "col1 AnR I-e1" and N.parse_action(st, REV, "col1 AnR I-e1") == action
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    assert tx(N.action_label(st, action)).startswith("5 · Col 1, Angel/red: ")
    # numbered as the turn-start picture numbers them: every square of the Books the lines feed, once
    assert numbered_squares(st) == [*empty_quills(st, "I"), *empty_quills(st, "II"), *empty_quills(st, "III")]
    # 108 squares: each line's best square at the top, then a step with its other squares (its
    # label the line's); the plain activation a step of its own
    assert best_square(st, "col1") == "I-c1" and sum(rewards(activated, lead, "I-c1")[:2]) == 1
    root, _ = DecisionTree.of(N, st, REV).node(())
    labels = [tx(c.label) for c in root]
    assert labels[:5] == ["Pass…", "Activate a line, place later ▸", "3 · Row 1, Angel/red: +1 wine",
                          "Row 1 → Book I: Angel/red, Dog/white, +2 coins",
                          "28 · Row 2, Angel/white: +1 coin, +1 bread"]  # (Book II's 10th square, after I's 18)
    assert len(root) == 14 and [c.step is None for c in root[2:]] == [True, False] * 6
    inner, _ = DecisionTree.of(N, st, REV).node((root[3].step,))
    assert len(inner) == len(numbered_squares(do(st, REV, {"type": "activate", "line": "row1"}))) - 1
    # few squares left: every line's squares at the top of the panel
    for book in ("I", "II", "III"):
        fill(st, book, leave=(empty_quills(st, book)[-1],))
    few = legal(st, REV, "activate_place")
    assert len(few) == 6 and all(N.action_path(st, a) == () for a in few)
    root, _ = DecisionTree.of(N, st, REV).node(())
    assert len(root) == 13 and all(c.step is None for c in root)  # (a small tree is shown flat)


def test_place_end_sends_the_tiles_of_closed_books_to_the_sheepfold() -> None:
    st, ids = position(REV, staged=[("Angel/red", "I"), ("Knight/grey", "II")])
    fill(st, "II")
    ends = legal(st, REV, "place_end")
    assert ends and all(a["tile"] == ids["staged:0"] for a in ends)
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    assert tx(N.action_label(st, ends[0])).endswith("· end turn, sheepfold 1")
    st = do(st, REV, ends[0])
    assert st["sheepfold"][REV] == 1 and st["active"] == IRR


def test_e13_the_discard_in_one_choice() -> None:
    st, _ = position(REV)
    st["phase"], st["coins"][REV] = "discard", 4
    st["tokens"][REV].update(bell=2, candle=3)
    sets = [a["items"] for a in legal(st, REV, "discard_set")]
    assert sets == [{"bell": 2}, {"bell": 1, "candle": 1}, {"bell": 1, "coin": 1}, {"candle": 2},
                    {"candle": 1, "coin": 1}, {"coin": 2}]
    assert [a["item"] for a in legal(st, REV, "discard")] == ["bell", "candle", "coin"]  # (one at a time too)
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    assert tx(N.action_label(st, {"type": "discard_set", "items": {"coin": 2}})) == "Discard 2 coins"
    after = do(st, REV, {"type": "discard_set", "items": {"bell": 1, "coin": 1}})
    assert after["coins"][REV] == 3 and after["tokens"][REV]["bell"] == 1 and after["phase"] == "turn_start"
    one = do(do(st, REV, {"type": "discard", "item": "bell"}), REV, {"type": "discard", "item": "coin"})
    assert one == after
    st["coins"][REV] = 3  # 8 items: one to discard, no set
    assert legal(st, REV, "discard_set") == []


def test_log_lines_name_a_square_as_the_board_shows_it_in_every_language() -> None:
    """§11 log lines: a square is its Book, row (from the top) and column (from the left), as the
    board draws it (no coordinates there; a picture's numbers last one decision), never ``II-b3``."""
    st, ids = position(IRR, board=E8_BOARD, staged=[("Squirrel/white", "II")])
    _, events = do_events(st, IRR, {"type": "place", "tile": ids["staged:0"], "cell": "II-b3"})
    lines = {lang: Texts("illumination", ["Ann", "Bo"], lang, strict=True).event(events[0])
             for lang in ("en", "zh_TW", "zh_CN", "ja")}
    assert lines == {"en": "Bo placed Squirrel/white on Book II, row 3, column 2: +1 coin, +1 bread.",
                     "zh_TW": "Bo 將 松鼠/白 放在 第 II 本經文第 3 行第 2 列：+1 錢幣、+1 麵包。",
                     "zh_CN": "Bo 将 松鼠/白 放在 第 II 本经文第 3 行第 2 列：+1 钱币、+1 面包。",
                     "ja": "Bo が リス/白 を 第 II 巻の3行目2列目 に置きました：+1 コイン、+1 パン。"}
    assert not any("II-b3" in line for line in lines.values())


def test_card_log_lines_name_squares_and_mat_cells_in_words() -> None:
    tx = Texts("illumination", ["Ann", "Bo"], strict=True)
    st, _ = e9_after()
    _, events = do_events(st, REV, {"type": "play", "card": "motus", "from": "II-f2", "to": "III-f1"})
    assert tx.event(events[0]) == ("Ann played Motus: Dog/red moves from Book II, row 2, column 6 "
                                   "to Book III, row 1, column 6: +1 coin.")
    _, events = do_events(e14(), REV, {"type": "play", "card": "mutatio", "cells": ["r1c1", "r2c1"]})
    assert tx.event(events[0]) == "Ann played Mutatio: the tiles at Row 1, Col 1 and at Row 2, Col 1 of the mat swap."
    assert Texts("illumination", ["Ann", "Bo"], "zh_TW", strict=True).event(events[0]).endswith(
        "第 1 行第 1 列 與 第 2 行第 1 列 交換。")
    st, _ = e20()
    st, events = do_events(st, IRR, {"type": "play", "card": "exilium", "from": "III-c4", "book": "III"})
    assert tx.event(events[0]) == "Bo played Exilium on Ann's Monk/yellow from Book III, row 4, column 3, to Book III."
    _, events = do_events(st, REV, {"type": "exile", "cell": "III-e2"})
    assert tx.event(events[0]) == "Ann's exiled Monk/yellow lands on Book III, row 2, column 5: +1 coin, +1 candle."
