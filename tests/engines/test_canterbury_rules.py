"""Rule tests for The Road to Canterbury (spec canterbury §10 worked examples E1–E22,
plus setup, deaths, Last Rites, timeouts, hidden information and every error class)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from bot.text import Texts
from engines.base import CHANCE, GameOver, IllegalAction, InvalidOptions, InvalidState, NotYourTurn
from engines.canterbury import NOTATION as N
from engines.canterbury import effects, rules
from engines.canterbury.chance import chance_weights
from engines.canterbury.data import CARDS
from engines.canterbury.engine import CanterburyEngine
from engines.decisions import DecisionTree

E = CanterburyEngine()
A, B, C = 0, 1, 2


# --------------------------------------------------------------------------- helpers


def chance(s: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    s2, _ = E.apply(s, CHANCE, action)
    return s2


def do(s: dict[str, Any], *moves: str) -> tuple[dict[str, Any], list[Any]]:
    """Apply notation moves by the active seat; return the state and all events."""
    events: list[Any] = []
    for m in moves:
        seat = s["active"]
        a = N.parse_action(s, seat, m)
        s, ev = E.apply(s, seat, a)
        events += ev
    return s, events


def reveal(s: dict[str, Any], card: str) -> dict[str, Any]:
    return chance(s, {"type": "reveal", "card": card})


TX = Texts("canterbury", ["Ann", "Bo", "Cy"], strict=True)


def lines(events: list[Any], seat: int | None) -> list[str]:
    """The English lines of ``events`` that ``seat`` (None: the public) may see."""
    return [TX.event(e) for e in events if e.visible(seat)]


def start(players: int = 3, edition: str = "2021", parson: str = "pride") -> dict[str, Any]:
    """A game after setup with A (seat 0) to play T1; setup draws sampled."""
    s = E.new_game(players, 7, {"edition": edition})
    s = chance(s, {"type": "first_player", "seat": 0})
    s = chance(s, {"type": "parson_start", "sin": parson})
    for p in ("friar", "monk", "knight"):
        s = chance(s, {"type": "pilgrim", "pilgrim": p})
    rng = random.Random(3)
    while E.to_move(s) == frozenset({CHANCE}):
        s = chance(s, E.sample_chance(s, rng))
    assert E.to_move(s) == frozenset({0})
    return s


def set_pilgrim(s: dict[str, Any], co: str, pid: str, cards: list[tuple[str, bool]] | None = None,
                cubes: list[int] | None = None) -> None:
    comp = s["companies"][co]
    comp["pilgrim"] = pid  # the pilgrim deck is what is on no company (rules.pilgrim_deck)
    comp["cards"] = [{"kind": k, "up": up} for k, up in (cards or [])]
    comp["cubes"] = list(cubes or [0] * s["players"])


def set_hand(s: dict[str, Any], seat: int, cards: list[str]) -> None:
    s["hands"][seat] = sorted(cards, key=list(CARDS).index)


def up(*kinds: str) -> list[tuple[str, bool]]:
    return [(k, True) for k in kinds]


def finish_refill(s: dict[str, Any], card: str = "sin-pride") -> dict[str, Any]:
    """Play T2 by drawing ``card`` from the Sin deck until the hand is full."""
    while E.to_move(s) == frozenset({s["active"]}) and s["stack"][-1].get("stage") == "t2":
        s, _ = do(s, "draw sin-deck")
        s["decks"]["sin"][card] = s["decks"]["sin"].get(card, 0) + 1
        s = reveal(s, card)
    return s


def stage(s: dict[str, Any]) -> str:
    top = s["stack"][-1]
    return str(top.get("stage") or top.get("ctx") or top["f"])


# --------------------------------------------------------------------------- setup & options


def test_setup_deals_five_sin_cards_three_coins_and_rows() -> None:
    s = start()
    assert all(len(h) == 5 and all(CARDS[k].kind == "sin" for k in h) for h in s["hands"])
    assert s["coins"] == [3, 3, 3]
    assert s["token_supply"] == 5
    assert all(k and CARDS[k].kind == "sin" for k in s["rows"]["sin"])
    assert all(k and CARDS[k].kind == "pardon" for k in s["rows"]["pardon"])
    assert sum(s["decks"]["sin"].values()) == 44 - 15 - 3
    assert sum(1 for k in s["decks"]["sin"] for _ in range(s["decks"]["sin"][k]) if k.startswith("death")) == 9


def test_setup_death_card_is_set_aside_and_returned() -> None:
    s = E.new_game(2, 1, None)
    s = chance(s, {"type": "first_player", "seat": 1})
    s = chance(s, {"type": "parson_start", "sin": "lust"})
    for p in ("friar", "monk", "knight"):
        s = chance(s, {"type": "pilgrim", "pilgrim": p})
    s = reveal(s, "death-red")
    assert s["aside"] == ["death-red"] and s["hands"][0] == []
    s = reveal(s, "sin-greed")
    assert s["hands"][0] == ["sin-greed"]
    rng = random.Random(0)
    while E.to_move(s) == frozenset({CHANCE}):
        s = chance(s, E.sample_chance(s, rng))
    assert s["aside"] == [] and s["decks"]["sin"]["death-red"] == 3
    assert s["active"] == 1 and s["companies"]["red"]["cards"] == []


def test_options_and_player_count_are_validated() -> None:
    with pytest.raises(InvalidOptions):
        E.new_game(4, 1, None)
    with pytest.raises(InvalidOptions):
        E.new_game(1, 1, None)
    with pytest.raises(InvalidOptions):
        E.new_game(3, 1, {"edition": "1999"})
    with pytest.raises(InvalidOptions):
        E.new_game(3, 1, {"colour": "red"})
    assert E.new_game(2, 1, {"edition": "2011"})["options"]["edition"] == "2011"
    assert E.new_game(3, 1, None)["options"]["edition"] == "2021"


def test_error_classes() -> None:
    s = start()
    with pytest.raises(NotYourTurn):
        E.apply(s, B, {"type": "pass", "discard": []})
    with pytest.raises(NotYourTurn):
        E.apply(s, CHANCE, {"type": "reveal", "card": "sin-greed"})
    with pytest.raises(IllegalAction):
        E.apply(s, A, {"type": "fly"})
    with pytest.raises(IllegalAction):
        E.apply(s, A, {"nope": 1})  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        N.parse_action(s, A, "sin greed purple")
    s, _ = do(s, "pass")
    with pytest.raises(IllegalAction):  # scripted chance outcome must be in the deck
        E.apply(*_draw_missing(s))
    with pytest.raises(InvalidState):
        E.state_from_json({"game": "carnival"})
    with pytest.raises(InvalidState):
        E.state_from_json({**s, "state_version": 99})
    over = copy.deepcopy(s)
    over["deaths"] = 5
    with pytest.raises(GameOver):
        E.apply(over, A, {"type": "pass", "discard": []})


def _draw_missing(s: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, Any]]:
    s, _ = do(s, "draw sin-deck")
    s["decks"]["sin"].pop("sin-lust", None)
    return s, CHANCE, {"type": "reveal", "card": "sin-lust"}


# --------------------------------------------------------------------------- E1–E3 pardons


def test_e1_pardon_with_death_card_and_parson() -> None:
    s = start(parson="greed")
    set_pilgrim(s, "red", "friar", up("sin-greed", "sin-greed", "death-red", "sin-wrath"))
    set_hand(s, A, ["pardon-greed", "sin-pride"])
    s, ev = do(s, "pardon greed red")
    assert s["coins"][A] == 3 + 16
    assert s["parson"] == "lust"
    red = s["companies"]["red"]
    assert red["cubes"] == [1, 0, 0]
    assert [c["up"] for c in red["cards"]] == [False, False, False, True]
    assert len(red["cards"]) == 4
    assert any(e.kind == "pardon" and e.params["points"] == 4 for e in ev)


@pytest.mark.parametrize(
    ("cards", "parson", "coins", "parson_after"),
    [
        (["sin-envy"], "pride", 1, "pride"),
        (["sin-envy", "sin-envy"], "pride", 4, "pride"),
        (["sin-envy", "sin-envy"], "envy", 9, "gluttony"),
    ],
)
def test_e2_payout_table(cards: list[str], parson: str, coins: int, parson_after: str) -> None:
    s = start(parson=parson)
    set_pilgrim(s, "yellow", "monk", up(*cards))
    set_hand(s, A, ["pardon-envy"])
    s, _ = do(s, "pardon envy yellow")
    assert s["coins"][A] == 3 + coins
    assert s["parson"] == parson_after


def test_e2_payout_capped_at_16() -> None:
    s = start(parson="pride")
    set_pilgrim(s, "blue", "knight", up("sin-pride", "sin-pride", "sin-pride", "sin-pride", "death-blue"))
    set_hand(s, A, ["pardon-pride"])
    s, ev = do(s, "pardon pride blue")
    assert s["coins"][A] == 3 + 16
    assert s["parson"] == "greed"
    assert [e.params["points"] for e in ev if e.kind == "pardon"] == [6]


def test_e3_pardon_legality() -> None:
    s = start(parson="pride")
    set_pilgrim(s, "red", "prioress", [("sin-envy", False), ("sin-greed", True), ("death-red", True)])
    set_hand(s, A, ["pardon-envy", "pardon-envy", "pardon-lust"])
    legal = [N.describe_action(s, a) for a in E.legal_actions(s, A)]
    assert "pardon envy red" in legal and not any(m.startswith("pardon lust") for m in legal)
    with pytest.raises(IllegalAction):
        do(s, "pardon lust red")
    s, _ = do(s, "pardon envy red")
    assert s["coins"][A] == 4
    assert [c["up"] for c in s["companies"]["red"]["cards"]] == [False, True, False]
    # a second Pardon of envy on the Prioress is now illegal
    t = copy.deepcopy(s)
    t["stack"] = [{"f": "turn", "stage": "t2start"}, {"f": "play", "ctx": "main"}]
    assert not any(a["type"] == "pardon" for a in E.legal_actions(t, A))
    with pytest.raises(IllegalAction):
        do(t, "pardon envy red")


# --------------------------------------------------------------------------- E4 circle


def test_e4_circle_cubes_and_completion() -> None:
    s = start()
    s["circle"][A] = ["pride", "greed", "lust", "envy", "gluttony", "wrath"]
    set_hand(s, A, ["sin-greed", "sin-sloth"])
    t, _ = do(s, "sin greed blue")
    assert t["circle"][A] == ["pride", "greed", "lust", "envy", "gluttony", "wrath"]
    assert t["coins"][A] == 3
    s, ev = do(s, "sin sloth red")
    assert s["coins"][A] == 23
    assert s["centre"][A] == 1 and s["circle"][A] == []
    assert any(e.kind == "completion" and e.params["award"] == 20 for e in ev)
    # later B completes (+10), A again (+0, centre 2), C (+5)
    for seat, award in ((B, 10), (A, 0), (C, 5)):
        s["stack"] = [{"f": "turn", "stage": "t2start"},
                      {"f": "play", "ctx": "main"}]
        s["active"] = seat
        s["circle"][seat] = ["pride", "greed", "lust", "envy", "gluttony", "wrath"]
        set_hand(s, seat, ["sin-sloth"])
        before = s["coins"][seat]
        s, _ = do(s, "sin sloth red")
        assert s["coins"][seat] == before + award
    assert s["centre"] == [2, 1, 1]
    assert s["completions"] == [A, B, C]
    s["circle"][A] = ["pride", "greed"]
    assert rules.circle_strength(s, A) == 16


def test_e4_two_players_only_two_completion_awards() -> None:
    s = start(players=2)
    got = []
    for seat in (A, B, A):
        s["stack"] = [{"f": "turn", "stage": "t2start"},
                      {"f": "play", "ctx": "main"}]
        s["active"] = seat
        s["circle"][seat] = ["pride", "greed", "lust", "envy", "gluttony", "wrath"]
        set_hand(s, seat, ["sin-sloth"])
        before = s["coins"][seat]
        s, _ = do(s, "sin sloth red")
        got.append(s["coins"][seat] - before)
    assert got == [20, 10, 0]


# --------------------------------------------------------------------------- E5–E7 deaths


def test_e5_seventh_card_token_and_clear_majority() -> None:
    s = start()
    set_pilgrim(s, "yellow", "miller", up("sin-pride", "sin-greed", "sin-envy", "sin-wrath", "sin-sloth",
                                           "sin-pride"), cubes=[1, 3, 0])
    set_hand(s, A, ["sin-lust", "sin-greed", "sin-greed", "sin-greed", "sin-greed"])
    s, ev = do(s, "sin lust yellow")
    y = s["companies"]["yellow"]
    assert y["doomed"] and s["doom_order"] == ["yellow"]
    assert s["tokens"][A] == 1 and s["token_supply"] == 4
    assert "lust" in s["circle"][A]
    assert stage(s) == "t2"
    sin_discard_before = len(s["discards"]["sin"])
    coins_b = s["coins"][B]
    s = finish_refill(s)
    assert s["deaths"] == 1
    assert s["road"][0] == [0, 1, 0]
    assert s["coins"][B] == coins_b + 2
    assert len(s["discards"]["sin"]) == sin_discard_before + 7
    yellow = s["companies"]["yellow"]
    assert yellow["dead"] == [{"pilgrim": "miller", "cubes": [1, 2, 0]}]
    assert yellow["pilgrim"] is None and E.to_move(s) == frozenset({CHANCE})
    s = chance(s, {"type": "pilgrim", "pilgrim": "prioress"})
    assert s["companies"]["yellow"]["pilgrim"] == "prioress"
    assert s["companies"]["yellow"]["cards"] == [] and s["companies"]["yellow"]["cubes"] == [0, 0, 0]
    assert [N.describe_action(s, a) for a in E.legal_actions(s, A)] == ["lastrites use", "lastrites keep"]


def test_e6_unpardoned_death() -> None:
    s = start()
    s["deaths"] = 1
    set_pilgrim(s, "blue", "knight", up(*["sin-greed"] * 7))
    s["companies"]["blue"]["doomed"] = True
    s["doom_order"] = ["blue"]
    coins = list(s["coins"])
    set_hand(s, A, ["sin-pride"] * 5)
    s, _ = do(s, "sin pride red")
    s = finish_refill(s)
    assert s["road"][1] == [1, 1, 1]
    assert s["coins"] == coins
    assert s["deaths"] == 2  # the next death uses space 3


def test_e7_death_card_as_seventh_card_gives_no_token() -> None:
    s = start()
    set_pilgrim(s, "red", "friar", up("sin-pride"))
    set_pilgrim(s, "blue", "monk", up(*["sin-greed"] * 6))
    set_hand(s, A, ["pardon-pride", "sin-greed", "sin-greed", "sin-greed", "sin-greed"])
    s, _ = do(s, "pardon pride red")
    assert len(s["hands"][A]) == 4
    s, _ = do(s, "draw sin-deck")
    s = reveal(s, "death-blue")
    blue = s["companies"]["blue"]
    assert len(blue["cards"]) == 7 and blue["doomed"]
    assert s["tokens"][A] == 0 and s["token_supply"] == 5
    assert E.to_move(s) == frozenset({CHANCE})  # the draw is repeated automatically
    s = reveal(s, "sin-greed")
    assert s["deaths"] == 1 and len(s["hands"][A]) == 5


# --------------------------------------------------------------------------- E8 passing


def _e8(edition: str = "2021", coins: int = 4) -> dict[str, Any]:
    s = start(edition=edition)
    s["coins"][A] = coins
    set_hand(s, A, ["sin-greed", "sin-wrath", "pardon-pride", "pardon-pride", "relic-hildegard"])
    return s


def test_e8_pass_discards_three_and_pays_three() -> None:
    s = _e8()
    s, ev = do(s, "pass discard sin-wrath,pardon-pride,pardon-pride")
    assert s["coins"][A] == 1
    assert s["hands"][A] == ["sin-greed", "relic-hildegard"]
    assert s["discards"]["pardon"][-2:] == ["pardon-pride", "pardon-pride"]
    assert s["discards"]["sin"][-1] == "sin-wrath"
    assert any(e.kind == "pass" and e.visible_to is None for e in ev)
    assert stage(s) == "t2"


def test_e8_four_discards_illegal_in_2021_legal_in_2011() -> None:
    four = "pass discard pardon-pride,pardon-pride,sin-wrath,sin-greed"
    with pytest.raises(IllegalAction):
        do(_e8("2021"), four)
    assert max(len(a["discard"]) for a in E.legal_actions(_e8("2021"), A) if a["type"] == "pass") == 3
    s, _ = do(_e8("2011"), four)
    assert s["hands"][A] == ["relic-hildegard"] and s["coins"][A] == 1


def test_e8_pass_needs_three_coins_when_a_card_is_playable() -> None:
    s = _e8(coins=2)
    assert not any(a["type"] == "pass" for a in E.legal_actions(s, A))
    with pytest.raises(IllegalAction):
        do(s, "pass")


def test_e8_pass_with_nothing_playable_costs_everything() -> None:
    s = start()
    s["coins"][A] = 2
    set_hand(s, A, ["pardon-pride", "pardon-greed", "pardon-lust", "pardon-envy", "pardon-sloth"])
    for co in ("red", "yellow", "blue"):
        s["companies"][co]["cards"] = []
    legal = E.legal_actions(s, A)
    assert {a["type"] for a in legal} == {"pass"} and len(legal) == 1 + 5 + 10 + 10  # ≤ 3 of 5 cards
    s, _ = do(s, "pass")
    assert s["coins"][A] == 0


# --------------------------------------------------------------------------- E9 last rites


def _doom_turn(s: dict[str, Any]) -> dict[str, Any]:
    set_pilgrim(s, "red", "friar", up(*["sin-greed"] * 6), cubes=[1, 0, 0])
    set_hand(s, s["active"], ["sin-wrath"] * 5)
    s, _ = do(s, "sin wrath red")
    s = finish_refill(s)
    return chance(s, {"type": "pilgrim", "pilgrim": rules.pilgrim_deck(s)[0]})


def test_e9_no_two_last_rites_in_a_row_2021() -> None:
    s = start()
    s["tokens"][A] = 1
    s["token_supply"] = 4
    set_hand(s, A, ["sin-pride"] * 5)
    s, _ = do(s, "sin pride blue")
    s = finish_refill(s)
    s, _ = do(s, "lastrites use")
    assert s["active"] == A and s["lastrites_turn"] and s["tokens"][A] == 0
    s = _doom_turn(s)
    assert s["tokens"][A] == 1
    assert s["active"] == B and not s["lastrites_turn"]  # no T4 prompt after a Last Rites turn
    # A's next normal turn may use it
    for seat in (B, C):
        set_hand(s, seat, ["sin-pride"] * 5)
        s, _ = do(s, "sin pride blue")
        s = finish_refill(s)
    assert s["active"] == A
    set_hand(s, A, ["sin-pride"] * 5)
    s, _ = do(s, "sin pride yellow")
    s = finish_refill(s)
    assert [a["choice"] for a in E.legal_actions(s, A)] == ["use", "keep"]


def test_e9_2011_allows_consecutive_last_rites() -> None:
    s = start(edition="2011")
    s["tokens"][A] = 1
    s["token_supply"] = 4
    set_hand(s, A, ["sin-pride"] * 5)
    s, _ = do(s, "sin pride blue")
    s = finish_refill(s)
    s, _ = do(s, "lastrites use")
    s = _doom_turn(s)
    assert s["active"] == A and E.legal_actions(s, A)[0] == {"type": "lastrites", "choice": "use"}
    s, _ = do(s, "lastrites use")
    assert s["active"] == A and s["lastrites_turn"]


def test_lastrites_keep_passes_play_on() -> None:
    s = start()
    s["tokens"][A] = 1
    set_hand(s, A, ["sin-pride"] * 5)
    s, _ = do(s, "sin pride blue")
    s = finish_refill(s)
    s, _ = do(s, "lastrites keep")
    assert s["active"] == B and s["tokens"][A] == 1


# --------------------------------------------------------------------------- E10 end scoring


def test_e10_end_scoring() -> None:
    s = start()
    s["coins"] = [40, 35, 38]
    s["centre"] = [1, 0, 0]
    s["circle"] = [["pride", "greed"], ["pride", "greed", "lust", "envy"],
                   ["pride", "greed", "lust", "envy", "gluttony", "wrath"]]
    s["tokens"] = [0, 1, 0]
    s["road"] = [[2, 1, 0], [0, 1, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    for co, cubes in (("red", [3, 1, 0]), ("yellow", [0, 2, 2]), ("blue", [1, 1, 3])):
        s["companies"][co]["cubes"] = [0, 0, 0]
        s["companies"][co]["dead"] = [{"pilgrim": "x", "cubes": cubes}]
    f = rules.final_scores(s)
    assert f["strength"] == [9, 4, 6]
    assert f["road"] == [20, 10, 5]
    assert f["companies"] == {"red": [15, 7, 0], "yellow": [0, 7, 15], "blue": [7, 3, 15]}
    assert f["tokens"] == [0, 3, 0]
    assert f["totals"] == [82, 65, 73]
    assert E.outcome(s) is None  # the game goes on until the fifth death
    s["deaths"], s["stack"] = 5, []
    out = E.outcome(s)
    assert out is not None and out.winners == frozenset({A}) and out.ranking == (A, C, B)
    assert E.to_move(s) == frozenset()


def test_shared_place_consumes_next_place_and_overall_tie_rules() -> None:
    from engines.canterbury.rules import place_awards
    assert place_awards([2, 2, 1], [3, 3, 0], [20, 10, 5]) == [20, 20, 5]
    assert place_awards([0, 0, 1], [3, 3, 0], [20, 10]) == [0, 0, 20]
    assert place_awards([1, 1, 1], [0, 0, 0], [15, 7, 3]) == [15, 15, 15]
    s = start(players=2)
    s["coins"] = [50, 50]
    for co in ("red", "yellow", "blue"):
        s["companies"][co]["cubes"] = [0, 0]
    s["circle"] = [["pride"], []]
    s["deaths"], s["stack"] = 5, []
    out = E.outcome(s)
    assert out is not None and out.winners == frozenset({A})
    assert TX(out.reason) == "Ann wins with 50 coins on circle strength 1."
    s["circle"] = [[], []]
    out = E.outcome(s)
    assert out is not None and out.winners == frozenset({A, B})
    assert TX(out.reason) == "Shared win: Ann and Bo with 50 coins."


def test_game_ends_after_fifth_death_other_doomed_unresolved() -> None:
    s = start()
    s["deaths"] = 4
    set_pilgrim(s, "red", "friar", up(*["sin-greed"] * 7), cubes=[2, 0, 0])
    set_pilgrim(s, "yellow", "monk", up(*["sin-greed"] * 7), cubes=[0, 1, 0])
    s["companies"]["red"]["doomed"] = True
    s["companies"]["yellow"]["doomed"] = True
    s["doom_order"] = ["red", "yellow"]
    s["tokens"][A] = 1
    set_hand(s, A, ["sin-pride"] * 5)
    s, ev = do(s, "sin pride blue")
    s = finish_refill(s)
    assert E.outcome(s) is not None and s["deaths"] == 5 and E.to_move(s) == frozenset()
    assert s["road"][4] == [1, 0, 0]
    assert s["companies"]["yellow"]["pilgrim"] == "monk"  # not resolved
    assert rules.final_scores(s)["companies"]["yellow"] == [0, 15, 0]
    assert rules.final_scores(s)["tokens"][A] == 3
    assert E.player_view(s, None)["final"] == {**rules.final_scores(s), "reason": E.outcome(s).reason.to_json()}
    assert E.legal_actions(s, A) == []
    with pytest.raises(GameOver):
        E.apply(s, A, {"type": "lastrites", "choice": "use"})


def test_death_tie_broken_by_sin_cards_in_hand() -> None:
    s = start()
    set_pilgrim(s, "red", "friar", up(*["sin-greed"] * 7), cubes=[1, 1, 1])
    s["companies"]["red"]["doomed"] = True
    s["doom_order"] = ["red"]
    set_hand(s, A, ["sin-pride"] * 5)
    set_hand(s, B, ["sin-pride", "sin-pride", "pardon-envy"])
    set_hand(s, C, ["sin-pride", "pardon-envy", "pardon-envy"])
    s, _ = do(s, "sin pride blue")
    coins = list(s["coins"])
    s = finish_refill(s)  # A ends with 5 Sin cards, B 2, C 1
    assert s["road"][0] == [1, 0, 0]
    assert s["coins"][A] == coins[A] + 2 and s["coins"][B] == coins[B]
    assert s["companies"]["red"]["dead"][0]["cubes"] == [0, 1, 1]


def test_death_tie_still_tied_all_score_on_the_same_space() -> None:
    s = start()
    s["deaths"] = 1
    set_pilgrim(s, "red", "friar", up(*["sin-greed"] * 7), cubes=[2, 2, 0])
    s["companies"]["red"]["doomed"] = True
    s["doom_order"] = ["red"]
    set_hand(s, A, ["sin-pride"] * 4 + ["pardon-envy"])
    set_hand(s, B, ["sin-pride"] * 3 + ["pardon-envy"])
    set_hand(s, C, ["sin-pride"] * 5)
    s, _ = do(s, "sin pride blue", "draw pardon-deck")
    s["decks"]["pardon"]["pardon-envy"] = s["decks"]["pardon"].get("pardon-envy", 0) + 1
    coins = list(s["coins"])
    s = reveal(s, "pardon-envy")  # A: 3 Sin + 2 Pardon, B: 3 Sin
    assert s["road"][1] == [1, 1, 0]
    assert s["coins"][A] == coins[A] + 4 and s["coins"][B] == coins[B] + 4 and s["coins"][C] == coins[C]
    assert s["companies"]["red"]["dead"][-1]["cubes"] == [1, 1, 0]


# --------------------------------------------------------------------------- E11–E22 relics


def test_e11_st_felix_hairball() -> None:
    s = start(parson="greed")
    set_pilgrim(s, "red", "friar", up("sin-greed", "sin-greed", "death-red", "sin-pride"))
    set_hand(s, A, ["relic-felix", "sin-lust"])
    s, _ = do(s, "relic felix red greed")
    red = s["companies"]["red"]
    assert [c["up"] for c in red["cards"]] == [False, False, False, True]
    assert red["cubes"] == [1, 0, 0]
    assert s["coins"][A] == 3 and s["parson"] == "greed"
    assert stage(s) == "t2"  # no other card may be played
    assert s["discards"]["relic"] == ["relic-felix"]


def test_e12_st_bernard_collar() -> None:
    s = start()
    set_hand(s, A, ["relic-bernard"])
    set_hand(s, B, ["pardon-lust", "pardon-lust", "pardon-pride", "sin-greed", "sin-envy"])
    set_hand(s, C, ["pardon-pride", "sin-greed"])
    s, ev = do(s, "relic bernard lust")
    assert s["hands"][B] == ["sin-greed", "sin-envy", "pardon-pride"]
    assert s["hands"][C] == ["pardon-pride", "sin-greed"][::-1]
    assert s["discards"]["pardon"][-2:] == ["pardon-lust", "pardon-lust"]
    assert all(e.visible_to is None for e in ev if e.kind == "bernard")
    assert E.player_view(s, None)["hand_counts"][B]["total"] == 3


def test_e13_st_vincent_and_st_hildegard() -> None:
    s = start()
    set_pilgrim(s, "blue", "man_of_law", [], cubes=[1, 2, 0])
    s["companies"]["blue"]["dead"] = [{"pilgrim": "knight", "cubes": [0, 0, 4]}]
    set_hand(s, A, ["relic-vincent", "relic-hildegard"])
    with pytest.raises(IllegalAction):
        do(s, "relic vincent blue p2")
    t, _ = do(s, "relic vincent blue p1")
    assert t["companies"]["blue"]["cubes"] == [1, 1, 0]
    t, _ = do(s, "relic hildegard")
    assert t["coins"][A] == 8


def test_e14_st_benedict_scrambled_eggs() -> None:
    s = start()
    set_hand(s, A, ["relic-benedict", "sin-greed", "sin-wrath", "pardon-envy", "pardon-pride"])
    set_hand(s, B, ["sin-sloth", "sin-sloth", "pardon-greed", "pardon-lust", "relic-anselm"])
    s, ev1 = do(s, "relic benedict p1 pardon")
    assert E.to_move(s) == frozenset({CHANCE})
    weights = chance_weights(s)
    assert weights == [({"type": "steal", "card": "pardon-greed"}, 1), ({"type": "steal", "card": "pardon-lust"}, 1)]
    s2, ev2 = E.apply(s, CHANCE, {"type": "steal", "card": "pardon-greed"})
    assert len(s2["hands"][A]) == 5
    s3, ev3 = do(s2, "give sin-wrath")
    counts = E.player_view(s3, C)["hand_counts"]
    assert counts[A] == {"sin": 1, "pardon": 3, "relic": 0, "total": 4}
    assert counts[B] == {"sin": 3, "pardon": 1, "relic": 1, "total": 5}
    assert "sin-wrath" in s3["hands"][B] and "pardon-greed" in s3["hands"][A]
    seen_by_c = " ".join(lines([*ev1, *ev2, *ev3], C))
    assert "Greed" not in seen_by_c and "Wrath" not in seen_by_c
    assert "St. Benedict: Ann takes a Pardon card from Bo." in seen_by_c
    assert "Ann gives a card to Bo: a card was exchanged." in seen_by_c
    for seat in (A, B):  # what the old private notes said is in each one's own log
        assert "St. Benedict: Ann takes Pardon of Greed from Bo." in lines(ev2, seat)
        assert "St. Benedict: Ann gives Wrath (Sin card) to Bo." in lines(ev3, seat)
    # naming Sin would have given sin-sloth for certain
    u, _ = do(_benedict_start(), "relic benedict p1 sin")
    assert E.legal_actions(u, CHANCE) == [{"type": "steal", "card": "sin-sloth"}]


def _benedict_start() -> dict[str, Any]:
    s = start()
    set_hand(s, A, ["relic-benedict", "sin-greed"])
    set_hand(s, B, ["sin-sloth", "sin-sloth", "pardon-greed", "pardon-lust", "relic-anselm"])
    return s


def test_e15_st_philip_move_before_followup() -> None:
    s = start(parson="wrath")
    set_pilgrim(s, "red", "friar", up("sin-greed", "sin-greed"))
    set_hand(s, A, ["relic-philip", "pardon-greed"])
    s, _ = do(s, "relic philip", "parson greed", "pardon greed red")
    assert s["coins"][A] == 3 + 9
    assert s["parson"] == "lust"
    assert stage(s) == "t2"  # no second window


def test_e15_st_philip_move_after_followup() -> None:
    s = start(parson="wrath")
    set_pilgrim(s, "yellow", "miller", up("sin-wrath"))
    set_hand(s, A, ["relic-philip", "pardon-wrath"])
    s, _ = do(s, "relic philip", "parson later", "pardon wrath yellow")
    assert s["coins"][A] == 3 + 4
    assert s["parson"] == "sloth"
    assert {"type": "parson", "sin": "stay"} in E.legal_actions(s, A)
    s, _ = do(s, "parson pride")
    assert s["parson"] == "pride" and stage(s) == "t2"


def test_e16_st_anselm_completes_the_circle() -> None:
    s = start()
    s["completions"] = [B]
    s["circle"][A] = ["pride", "greed", "lust", "envy", "gluttony", "wrath"]
    set_hand(s, A, ["relic-anselm"])
    legal = [N.describe_action(s, a) for a in effects.targets(s, "relic-anselm")]
    assert "relic anselm circle greed" not in legal and "relic anselm pilgrim red" in legal
    s, _ = do(s, "relic anselm circle sloth")
    assert s["coins"][A] == 13 and s["centre"][A] == 1 and s["circle"][A] == []
    assert s["completions"] == [B, A]


def test_e17_st_jonah_snorkel() -> None:
    s = start()
    set_pilgrim(s, "red", "prioress", [("sin-envy", False), ("sin-envy", False), ("sin-greed", True),
                                       ("death-red", True), ("sin-wrath", True), ("sin-pride", False)])
    set_hand(s, A, ["relic-jonah", "sin-lust"])
    s, _ = do(s, "relic jonah red sin-pride down")
    assert len(s["companies"]["red"]["cards"]) == 5
    assert s["discards"]["sin"][-1] == "sin-pride"
    assert stage(s) == "followup"
    s, _ = do(s, "sin lust red")
    assert len(s["companies"]["red"]["cards"]) == 6 and not s["companies"]["red"]["doomed"]


def test_e17_jonah_does_not_undo_doom() -> None:
    s = start()
    set_pilgrim(s, "red", "prioress", up(*["sin-greed"] * 6))
    set_hand(s, A, ["relic-vitus", "sin-lust", "relic-jonah"])
    s, _ = do(s, "relic vitus", "sin lust red")
    assert s["companies"]["red"]["doomed"]
    s, _ = do(s, "relic jonah red sin-greed up")
    assert len(s["companies"]["red"]["cards"]) == 6 and s["companies"]["red"]["doomed"]
    s = finish_refill(s)
    assert s["deaths"] == 1 and s["companies"]["red"]["dead"][0]["pilgrim"] == "prioress"


def test_e18_slot_refill_death_card_and_empty_deck() -> None:
    s = start()
    set_pilgrim(s, "yellow", "monk", up(*["sin-greed"] * 6))
    s["rows"]["sin"][1] = "sin-greed"
    set_hand(s, A, ["sin-pride", "sin-pride"])
    s, _ = do(s, "sin pride red")
    s, _ = do(s, "draw sin-row:2")
    assert "sin-greed" in s["hands"][A]
    s = reveal(s, "death-yellow")
    assert s["companies"]["yellow"]["doomed"] and s["tokens"][A] == 0
    assert E.to_move(s) == frozenset({CHANCE}) and s["rows"]["sin"][1] is None
    s = reveal(s, "sin-envy")
    assert s["rows"]["sin"][1] == "sin-envy"
    # the Pardon deck is empty and its discard holds 4 cards
    s["decks"]["pardon"] = {}
    s["discards"]["pardon"] = ["pardon-lust", "pardon-pride", "pardon-pride", "pardon-wrath"]
    s, ev = do(s, "draw pardon-deck")
    assert any(e.kind == "reshuffle" for e in ev)
    assert s["discards"]["pardon"] == []
    assert E.legal_actions(s, CHANCE) == [{"type": "reveal", "card": k} for k in
                                          ("pardon-pride", "pardon-lust", "pardon-wrath")]
    assert dict(chance_weights(s)[0][0]) == {"type": "reveal", "card": "pardon-pride"}
    assert chance_weights(s)[0][1] == 2


def test_empty_source_unavailable_and_slot_refilled_at_next_t2() -> None:
    s = start()
    s["decks"]["pardon"] = {}
    s["discards"]["pardon"] = []
    set_hand(s, A, ["sin-pride"])
    s, _ = do(s, "sin pride red")
    srcs = [a["source"] for a in E.legal_actions(s, A)]
    assert "pardon-deck" not in srcs and "pardon-row:1" in srcs
    s, _ = do(s, "draw pardon-row:1")
    assert s["rows"]["pardon"][0] is None  # nothing to refill it with
    s["discards"]["pardon"] = ["pardon-envy"]
    # the next T2 (B's turn) refills the empty slot first
    s = finish_refill(s)
    set_hand(s, B, ["sin-pride"] * 4)
    s, _ = do(s, "sin pride red")
    assert E.to_move(s) == frozenset({CHANCE})
    s = reveal(s, "pardon-envy")
    assert s["rows"]["pardon"][0] == "pardon-envy"


def test_e19_st_wilgefortis_beard() -> None:
    s = start()
    set_pilgrim(s, "red", "friar", up("sin-greed", "sin-lust"))
    set_pilgrim(s, "yellow", "miller", up("sin-pride", "sin-pride", "sin-pride"))
    set_hand(s, A, ["relic-wilgefortis"])
    circle = list(s["circle"][A])
    s, _ = do(s, "relic wilgefortis red sin-lust yellow")
    assert [c["kind"] for c in s["companies"]["red"]["cards"]] == ["sin-greed"]
    assert len(s["companies"]["yellow"]["cards"]) == 4
    assert s["circle"][A] == circle and s["tokens"][A] == 0
    assert stage(s) == "t2"


def test_wilgefortis_doom_gives_token() -> None:
    s = start()
    set_pilgrim(s, "red", "friar", up("sin-greed", "death-red"))
    set_pilgrim(s, "yellow", "miller", up(*["sin-pride"] * 6))
    set_hand(s, A, ["relic-wilgefortis"])
    s, _ = do(s, "relic wilgefortis red death-red yellow")
    assert s["companies"]["yellow"]["doomed"] and s["tokens"][A] == 1


def test_e20_st_nicholas_underpants() -> None:
    s = start(parson="greed")
    set_pilgrim(s, "blue", "knight", up("sin-greed"))
    set_hand(s, A, ["relic-nicholas", "pardon-pride"])
    s, _ = do(s, "relic nicholas blue")
    assert [c["kind"] for c in s["companies"]["blue"]["cards"]] == ["sin-greed", "relic-nicholas"]
    assert {"type": "done"} in E.legal_actions(s, A)
    s, _ = do(s, "pardon pride blue")
    assert s["coins"][A] == 4
    assert [c["up"] for c in s["companies"]["blue"]["cards"]] == [True, False]
    assert s["companies"]["blue"]["cubes"][A] == 1 and s["parson"] == "greed"


def test_nicholas_dooms_gives_token_and_goes_to_relic_discard_on_death() -> None:
    s = start()
    set_pilgrim(s, "blue", "knight", up(*["sin-greed"] * 6), cubes=[0, 1, 0])
    set_hand(s, A, ["relic-nicholas"])
    s, _ = do(s, "relic nicholas blue")
    assert s["tokens"][A] == 1 and s["companies"]["blue"]["doomed"]
    s = finish_refill(s)
    assert s["discards"]["relic"] == ["relic-nicholas"]


def test_e21_st_vitus_dancing_shoes() -> None:
    s = start()
    set_hand(s, A, ["relic-vitus", "relic-hildegard", "sin-envy", "pardon-greed", "pardon-wrath"])
    s, _ = do(s, "relic vitus", "relic hildegard")
    assert s["coins"][A] == 8 and stage(s) == "vitus"
    t, _ = do(s, "done")
    assert stage(t) == "t2"
    s, _ = do(s, "sin envy blue")
    assert "envy" in s["circle"][A] and len(s["hands"][A]) == 2
    assert stage(s) == "t2"
    s = finish_refill(s)
    assert len(s["hands"][A]) == 5 or s["active"] != A


def test_e22_st_isidore_eyeball() -> None:
    s = start()
    set_pilgrim(s, "red", "friar", up("sin-sloth"))
    set_hand(s, A, ["relic-isidore"])
    s, _ = do(s, "relic isidore pardon")
    for k in ("pardon-lust", "pardon-lust", "pardon-sloth"):
        s = reveal(s, k)
    assert E.player_view(s, A)["isidore_drawn"] == ["pardon-lust", "pardon-lust", "pardon-sloth"]
    assert "isidore_drawn" not in E.player_view(s, None)
    assert [N.describe_action(s, a) for a in E.legal_actions(s, A)] == ["keep pardon-lust", "keep pardon-sloth"]
    discards = len(s["discards"]["pardon"])
    s, _ = do(s, "keep pardon-sloth")
    assert s["discards"]["pardon"][discards:] == ["pardon-lust", "pardon-lust"]
    assert s["hands"][A] == ["pardon-sloth"]
    s, _ = do(s, "pardon sloth red")
    assert s["coins"][A] == 4


def test_isidore_death_card_replaced() -> None:
    s = start()
    set_hand(s, A, ["relic-isidore"])
    s, _ = do(s, "relic isidore sin")
    s = reveal(s, "death-red")
    assert s["companies"]["red"]["cards"][-1]["kind"] == "death-red"
    for k in ("sin-greed", "sin-lust", "sin-envy"):
        s = reveal(s, k)
    assert len(s["stack"][-1]["drawn"]) == 3


# --------------------------------------------------------------------------- views, timeouts


def test_public_view_hides_hands_and_coins() -> None:
    s = start()
    v = E.player_view(s, None)
    assert "hand" not in v and "coins" not in v
    text = repr(v)
    assert "decks" not in v and "'hands'" not in text
    pv = E.player_view(s, A)
    assert pv["hand"] == s["hands"][A] and pv["coins"] == 3
    rng = random.Random(5)
    for seat in (None, A, B):
        t = E.shuffle_hidden(s, seat, rng)
        assert E.player_view(t, seat) == E.player_view(s, seat)


def test_timeouts_follow_digital_play_notes() -> None:
    s = start(parson="greed")
    set_pilgrim(s, "red", "friar", up("sin-greed", "sin-greed"))
    set_pilgrim(s, "yellow", "monk", up("sin-envy"))
    set_hand(s, A, ["pardon-envy", "pardon-greed", "sin-lust"])
    assert E.timeout_action(s, A) == {"type": "pardon", "sin": "greed", "company": "red"}
    set_hand(s, A, ["sin-pride", "sin-lust"])
    s["circle"][A] = ["pride"]
    assert E.timeout_action(s, A) == {"type": "sin", "sin": "lust", "company": "blue"}
    s3, _ = do(s, "sin lust blue")
    assert E.timeout_action(s3, A) == {"type": "draw", "source": "sin-deck"}
    with pytest.raises(NotYourTurn):
        E.timeout_action(s3, B)


# --------------------------------------------------------------------------- playouts


def assert_tree_fits(tree: DecisionTree) -> None:
    """Every step of the panel offers at most 25 options (one select page)."""
    todo: list[tuple[int, ...]] = [()]
    while todo:
        path = todo.pop()
        choices, _ = tree.node(path)
        assert 0 < len(choices) <= 25, (path, len(choices))
        todo += [(*path, c.step) for c in choices if c.step is not None]


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("edition", ["2021", "2011"])
def test_random_playouts_always_end(players: int, edition: str) -> None:
    import json

    from engines.base import replay

    for seed in range(6):
        rng = random.Random(seed * 31 + players)
        s = E.new_game(players, seed, {"edition": edition})
        log = []
        steps = 0
        while E.to_move(s):
            seat = min(E.to_move(s))
            if seat == CHANCE:
                a = E.sample_chance(s, rng)
            else:
                acts = E.legal_actions(s, seat)
                assert acts
                a = rng.choice(acts) if rng.random() < 0.7 else E.timeout_action(s, seat)
            if steps % 7 == 0:
                if seat != CHANCE:  # every panel step fits one select page (25 options)
                    assert_tree_fits(DecisionTree.of(N, s, seat))
                for viewer in (None, *range(players)):
                    t = E.shuffle_hidden(s, viewer, rng)
                    assert E.player_view(t, viewer) == E.player_view(s, viewer)
            s, _ = E.apply(s, seat, a)
            log.append((seat, a))
            steps += 1
            assert steps < 5000
        out = E.outcome(s)
        assert out is not None and out.winners
        assert s["deaths"] == 5 and s["turn"] < 600
        assert replay(E, players, seed, {"edition": edition}, log) == s
        assert E.state_from_json(json.loads(json.dumps(s))) == s
        for viewer in (None, *range(players)):
            assert E.player_view(E.shuffle_hidden(s, viewer, rng), viewer) == E.player_view(s, viewer)


def test_draw_is_private_and_public_twin_names_only_the_deck() -> None:
    s = start()
    set_hand(s, A, ["sin-pride"])
    s, _ = do(s, "sin pride red", "draw relic-deck")
    s2, ev = E.apply(s, CHANCE, {"type": "reveal", "card": "relic-jonah"})
    private = [e for e in ev if e.kind == "draw" and e.visible_to == frozenset({A})]
    public = [e for e in ev if e.kind == "draw_public" and e.visible_to is None]
    assert private and TX.event(private[0]) == "You draw St. Jonah's Snorkel."
    assert public and TX.event(public[0]) == "Ann draws a card from the Relic deck."
    assert E.player_view(s2, None)["hand_counts"][A] == {"sin": 0, "pardon": 0, "relic": 1, "total": 1}


def test_vincent_may_target_own_cube_and_back_undoes_selection() -> None:
    s = start()
    set_pilgrim(s, "red", "friar", [], cubes=[1, 0, 0])
    set_hand(s, A, ["relic-vincent"])
    assert [N.describe_action(s, a) for a in E.legal_actions(s, A)] == ["relic vincent red p0", "pass"] + [
        "pass discard relic-vincent"]
    # the taps of an old log (choose, back) only navigated: the state does not change
    for tap in ({"type": "choose", "card": "relic-vincent"}, {"type": "back"}):
        t, ev = E.apply(s, A, tap)
        assert t == s and ev == ()
    s, _ = do(s, "relic vincent red p0")
    assert s["companies"]["red"]["cubes"] == [0, 0, 0]


# --------------------------------------------------------------------------- panels, texts, old logs


def test_panel_steps_card_then_target_and_pass_then_count() -> None:
    """§11 Prompts: a hand card, then only its legal targets, each saying its effect; the
    pass is a step of its own, then how many cards to discard."""
    s = start(parson="greed")
    set_pilgrim(s, "red", "friar", up("sin-greed", "sin-greed"))
    set_hand(s, A, ["sin-lust", "sin-wrath", "pardon-greed", "pardon-envy", "relic-felix"])
    tree = DecisionTree(E.legal_actions(s, A), [N.action_label(s, a) for a in E.legal_actions(s, A)],
                        [None] * len(E.legal_actions(s, A)), [N.action_path(s, a) for a in E.legal_actions(s, A)])
    root, _ = tree.node(())
    assert [TX(c.label) for c in root] == [
        "Play Lust (Sin card)", "Play Wrath (Sin card)",
        "Pardon Greed on the Friar (red): 2 cards + Parson = 9 coins",  # a single target: no card step
        "Felix: forgive Greed on the Friar (2 cards)",
        "Pass: pay 3 coins, discard cards, redraw"]
    lust, _, pardon, felix, passing = root
    assert pardon.action is not None and felix.action is not None and lust.step is not None
    targets, trail = tree.node((lust.step,))
    assert [TX(x) for x in trail] == ["Play Lust (Sin card)"]
    assert [TX(c.label) for c in targets] == [f"Lust on the {p} ({co}, {n}/7) + Circle cube"
                                              for p, co, n in (("Friar", "red", 3), ("Monk", "yellow", 1),
                                                               ("Knight", "blue", 1))]
    s["companies"]["yellow"]["cards"] = [{"kind": "sin-envy", "up": True}]
    paths = {TX(N.action_label(s, a)): [TX(m) for m in N.action_path(s, a)] for a in E.legal_actions(s, A)}
    assert paths["Felix: forgive Envy on the Monk (1 card)"] == [
        "Play St. Felix's Hairball (pardon one sin on a pilgrim, no coins)", "The Monk (yellow)"]
    counts, _ = tree.node((passing.step,))
    assert [TX(c.label) for c in counts] == ["Discard nothing"] + ["Discard 1 card", "Discard 2 cards", "Discard 3 cards"]
    threes, _ = tree.node((passing.step, counts[3].step))
    assert len(threes) == 10 and TX(threes[0].label) == "Pass (pay 3): discard Lust, Wrath, Pardon of Greed"


@pytest.mark.parametrize(("players", "edition", "seed"), [(2, "2021", 1), (3, "2011", 2), (3, "2021", 3)])
def test_every_text_of_a_playout_is_in_the_catalog(players: int, edition: str, seed: int) -> None:
    """Strict formatting of every event, prompt, label, hint, step and the end reason."""
    tx = Texts("canterbury", ["Ann", "Bo", "Cy"][:players], strict=True)
    rng = random.Random(seed)
    s = E.new_game(players, seed, {"edition": edition})
    kinds: set[str] = set()
    while E.to_move(s):
        seat = min(E.to_move(s))
        if seat == CHANCE:
            a = E.sample_chance(s, rng)
        else:
            assert tx(N.prompt(s, seat))
            for act in E.legal_actions(s, seat):
                assert 0 < len(tx(N.action_label(s, act))) <= 80
                assert all(tx(step) for step in N.action_path(s, act))
                assert N.action_hint(s, act) is None
            a = rng.choice(E.legal_actions(s, seat))
        s, events = E.apply(s, seat, a)
        for e in events:
            assert e.params is not None and "{" not in tx.event(e)
            kinds.add(e.kind)
        view = E.player_view(s, None)
        if view["final"]:
            assert tx(view["final"]["reason"]) == tx(E.outcome(s).reason)
    assert {"turn", "sin", "draw", "draw_public", "final", "final_row"} <= kinds
    out = E.outcome(s)
    assert out is not None and any(tx.name(w) in tx(out.reason) for w in out.winners)


def test_old_tap_logs_replay_like_whole_moves() -> None:
    """Logs of state_version 1 tapped a card play in steps; they still apply, with the
    same result as the whole move (a pass with discards; a relic with a pilgrim step)."""
    s = _e8()
    taps = [{"type": "pass"}, {"type": "discard", "card": "pardon-pride"}, {"type": "back"},
            {"type": "choose", "card": "sin-greed"}, {"type": "back"}, {"type": "pass"},
            {"type": "discard", "card": "sin-wrath"}, {"type": "discard", "card": "pardon-pride"},
            {"type": "confirm"}]
    old = s
    for tap in taps:
        old, _ = E.apply(old, A, tap)
    new, _ = do(s, "pass discard pardon-pride,sin-wrath")
    assert old["hands"] == new["hands"] and old["coins"] == new["coins"] == [1, 3, 3]
    assert old["discards"]["sin"] == new["discards"]["sin"] and old["stack"] == new["stack"]
    with pytest.raises(IllegalAction):  # a discard needs a pass begun
        E.apply(s, A, {"type": "discard", "card": "sin-greed"})
    with pytest.raises(IllegalAction):  # a card not in hand
        E.apply(s, A, {"type": "choose", "card": "relic-jonah"})
    t = start()
    set_pilgrim(t, "red", "friar", up("sin-greed", "sin-lust"))
    set_hand(t, A, ["relic-wilgefortis"])
    for tap in ({"type": "choose", "card": "relic-wilgefortis"}, {"type": "company", "company": "red"}):
        t, _ = E.apply(t, A, tap)
    t, _ = E.apply(t, A, {"type": "relic", "relic": "wilgefortis", "company": "red", "card": "sin-lust",
                         "to": "yellow"})
    assert [c["kind"] for c in t["companies"]["yellow"]["cards"]][-1] == "sin-lust"
