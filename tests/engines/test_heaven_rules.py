"""Rule tests for The Way to Heaven (docs/rules/heaven.md §10 worked examples E1–E34 plus
errors, the host hooks, the texts and the replay of state_version 1 logs)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.text import Texts
from bot.ui.limits import BUTTON_LABEL, distinct_labels
from engines.base import CHANCE, GameOver, IllegalAction, InvalidOptions, Msg, NotYourTurn
from engines.decisions import DecisionTree
from engines.heaven import NOTATION as N
from engines.heaven.data import CARD_IDS, CARDS
from engines.heaven.effects import card_plans
from engines.heaven.engine import HeavenEngine
from engines.heaven.rules import active, faction

E = HeavenEngine()
NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]
TX = Texts("heaven", NAMES, strict=True)

BY_LABEL: dict[str, list[str]] = {}
for _c in CARDS.values():
    BY_LABEL.setdefault(_c.short, []).append(_c.id)


def make(
    publics: list[list[str]],
    hands: list[list[str]] | None = None,
    positions: list[int] | None = None,
    active: int = 0,
    options: dict[str, Any] | None = None,
    discard: list[str] | None = None,
    deck: list[str] | None = None,
) -> dict[str, Any]:
    """A mid-game state with the given public sets / hands (cards as ``"Mercy R1"``)."""
    n = len(publics)
    opts = dict(options or {})
    if n == 3:
        opts["allow_three"] = True
    st = E.new_game(n, 0, opts)
    used: set[str] = set()

    def take(label: str) -> str:
        for cid in BY_LABEL[label]:
            if cid not in used:
                used.add(cid)
                return cid
        raise AssertionError(f"no free card {label}")

    hands = hands or [[] for _ in range(n)]
    st["public"] = [[take(x) for x in p] for p in publics]
    st["hands"] = [[take(x) for x in h] for h in hands]
    st["discard"] = [take(x) for x in (discard or [])]
    st["deck"] = sorted(take(x) for x in deck) if deck is not None else sorted(set(CARD_IDS) - used)
    st.update(phase="play", chance=None, start=0, round=1, turn_index=active, stage="action",
              positions=list(positions or [0] * n))
    return st


def find(st: dict[str, Any], label: str) -> str:
    """Id of the card labelled ``label`` somewhere in hands, public sets, buffer or deck."""
    pools = [*st["hands"], *st["public"], st["buffer"], st["deck"], st["discard"]]
    for pool in pools:
        for cid in pool:
            if CARDS[cid].short == label:
                return str(cid)
    raise AssertionError(label)


def labels(cards: list[str]) -> list[str]:
    return [CARDS[c].short for c in cards]


def act(st: dict[str, Any], seat: int, action: dict[str, Any]) -> dict[str, Any]:
    new, _ = E.apply(st, seat, action)
    return new


def plan_of(st: dict[str, Any], picks: tuple[tuple[str, Any], ...]) -> list[list[Any]]:
    """A USE's plan from (key, value) picks with cards written as labels."""
    plan: list[list[Any]] = []
    for key, value in picks:
        if key in ("take", "card"):
            value = find(st, value)
        elif key in ("mine", "theirs"):
            value = [find(st, v) for v in value]
        plan.append([key, value])
    return plan


def use(st: dict[str, Any], label: str, *picks: tuple[str, Any]) -> dict[str, Any]:
    """Active player USEs hand card ``label`` with the whole declaration ``picks``."""
    return act(st, seat_of(st), {"type": "use", "card": find(st, label), "plan": plan_of(st, picks)})


def seat_of(st: dict[str, Any]) -> int:
    a = active(st)
    assert a is not None
    return a


def options_after(st: dict[str, Any], label: str, *picks: tuple[str, Any]) -> list[Any]:
    """The values the next parameter of a USE of ``label`` may take after ``picks``, read
    from the legal actions (in their order)."""
    card, prefix = find(st, label), plan_of(st, picks)
    out: list[Any] = []
    for a in E.legal_actions(st, seat_of(st)):
        plan = a.get("plan") or []
        if a["type"] == "use" and a["card"] == card and plan[: len(prefix)] == prefix and len(plan) > len(prefix):
            if plan[len(prefix)][1] not in out:
                out.append(plan[len(prefix)][1])
    return out


def usable(st: dict[str, Any], seat: int, label: str) -> bool:
    return bool(card_plans(st, seat, find(st, label)))


def draw(st: dict[str, Any], label: str) -> dict[str, Any]:
    return act(st, CHANCE, {"type": "draw", "card": find(st, label)})


SAINTS3 = ["Grace R2", "Grace B2", "Grace G2"]
SINNERS3 = ["Wrath R3", "Wrath B3", "Wrath G3"]


# --------------------------------------------------------------------------- setup


def test_setup_deal_split_is_simultaneous_and_secret() -> None:
    st = E.new_game(4, 0, None)
    rng = random.Random(1)
    while E.to_move(st) == {CHANCE}:
        st = act(st, CHANCE, E.sample_chance(st, rng))
    assert st["phase"] == "split"
    assert E.to_move(st) == frozenset({0, 1, 2, 3})
    assert all(len(h) == 6 for h in st["hands"])
    acts = E.legal_actions(st, 1)
    assert len(acts) == 20
    st = act(st, 1, acts[5])
    assert E.to_move(st) == frozenset({0, 2, 3})
    pub = E.player_view(st, None)
    assert pub["public"][1] == [] and pub["hand_counts"][1] == 6 and pub["split_done"][1]
    assert E.player_view(st, 1)["split_choice"] == acts[5]["public"]
    assert E.player_view(st, 0)["split_choice"] is None
    for s in (0, 2, 3):
        st = act(st, s, E.timeout_action(st, s))
    assert E.to_move(st) == frozenset({CHANCE})
    assert [len(p) for p in st["public"]] == [3, 3, 3, 3]
    assert st["public"][1] == acts[5]["public"]
    st = act(st, CHANCE, {"type": "start", "seat": 2})
    assert E.to_move(st) == frozenset({2}) and st["round"] == 1


def test_three_players_need_allow_three() -> None:
    with pytest.raises(InvalidOptions):
        E.new_game(3, 0, None)
    assert E.new_game(3, 0, {"allow_three": True})["players"] == 3
    with pytest.raises(InvalidOptions):
        E.new_game(7, 0, {"allow_three": True})


# --------------------------------------------------------------------------- E1–E4


def test_e1_faction_by_majority_of_sides() -> None:
    s = [BY_LABEL[x][0] for x in SAINTS3]
    n = [BY_LABEL[x][0] for x in SINNERS3]
    assert faction(s) == "saint"
    assert faction(s[:2] + n[:1]) == "saint"
    assert faction(s[:1] + n[:1]) == "none"
    assert faction(s[:1] + n[:2]) == "sinner"
    assert faction(n) == "sinner"
    assert faction(s[:2]) == faction(s[:1]) == "saint"
    assert faction(n[:2]) == faction(n[:1]) == "sinner"
    assert faction([]) == "none"


def test_e2_majority_cards_blocked_on_equal_counts() -> None:
    st = make(
        [["Guardian R2", "Guardian B3", "Repentance G2"], SAINTS3, ["Pride G1", "Law G1", "Destruction G1"],
         SINNERS3, ["Repentance G3", "Hypocrisy R2"], []],
        [["Mercy R1", "Shepherd R1", "Sacrifice R1"], [], ["Greed R1", "Pride R1", "Law R1"], [], [], []],
    )
    assert not usable(st, 0, "Mercy R1") and not usable(st, 0, "Shepherd R1")
    assert usable(st, 0, "Sacrifice R1")
    assert not usable(st, 2, "Greed R1") and not usable(st, 2, "Pride R1")
    assert usable(st, 2, "Law R1")


def _e3_state(b_public: list[str]) -> dict[str, Any]:
    return make(
        [["Holiness R1", "Holiness B1", "Mercy G1"], b_public,
         ["Shepherd R1", "Shepherd G1", "Guardian R2"], ["Repentance R2", "Repentance G2", "Paradise W3"]],
        [["Sacrifice B1", "Grace R2", "Arrogance R2"], [], [], []],
    )


def test_e3_lock_blocks_faction_cards_and_arrogance_judges_after_removal() -> None:
    st = _e3_state(["Miracle R1", "Mercy B1", "Grace G2"])
    assert not usable(st, 0, "Sacrifice B1")
    assert usable(st, 0, "Grace R2")
    takes = options_after(st, "Arrogance R2")
    assert find(st, "Miracle R1") not in takes
    assert find(st, "Grace G2") in takes
    st3 = use(st, "Arrogance R2", ("take", "Grace G2"))
    assert E.to_move(st3) == frozenset({1}) and st3["stage"] == "react"
    # variant: B drops to no faction once Miracle is removed, the lock lifts
    st = _e3_state(["Miracle R1", "Grace G2", "Greed B1"])
    assert find(st, "Miracle R1") in options_after(st, "Arrogance R2")


def test_e4_action_legality() -> None:
    st = make([SAINTS3, ["Wrath R3", "Wrath B3"], ["Greed R1"], ["Law R1"]],
              [["Guardian B3", "Paradise W3"], ["Guardian R2"], [], []])
    types = {a["type"] for a in E.legal_actions(st, 0)}
    assert types == {"pass", "replace", "discard"}
    with pytest.raises(IllegalAction):
        E.apply(st, 0, {"type": "add", "card": find(st, "Guardian B3")})
    assert {"type": "discard", "card": find(st, "Paradise W3")} in E.legal_actions(st, 0)
    assert not [a for a in E.legal_actions(st, 0) if a["type"] == "use"]
    st["turn_index"] = 1
    types = {a["type"] for a in E.legal_actions(st, 1)}
    assert types == {"pass", "add", "discard"}
    with pytest.raises(IllegalAction):
        E.apply(st, 1, {"type": "use", "card": find(st, "Guardian R2"), "plan": []})
    with pytest.raises(IllegalAction):
        E.apply(st, 1, {"type": "use", "card": find(st, "Guardian R2")})  # nor as a version-1 step
    st["turn_index"] = 2
    assert E.legal_actions(st, 2) == [{"type": "pass"}]


# --------------------------------------------------------------------------- E5–E16: advancement


def _solo(public: list[str], pos: int, hand: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    """A active with ``public`` at ``pos``; B saint, C sinner, D none (no lock, nS = nN)."""
    return make([public, ["Shepherd B2", "Sacrifice G2"], ["Pride G1", "Cruelty B1"], []],
                [hand or [], [], [], []], positions=[pos, 0, 0, 0], **kw)


def test_e5_saint_sum() -> None:
    p = ["Guardian R2", "Guardian B3", "Repentance G2"]
    st = act(_solo(p, 0), 0, {"type": "pass"})
    assert st["stage"] == "advance"
    st = act(st, 0, {"type": "advance"})
    assert st["positions"][0] == 1
    st = act(_solo(p, 1), 0, {"type": "pass"})
    assert st["stage"] != "advance" and st["positions"][0] == 1


def test_e6_sacrifice_triples_then_discards() -> None:
    p = ["Guardian R2", "Guardian B3", "Repentance G2"]
    st = make([p, ["Mercy B1"], ["Greed B1", "Pride R1"], []],
              [["Sacrifice B1", "Grace R2", "Pride B1"], [], [], []], positions=[4, 0, 0, 0])
    st = use(st, "Sacrifice B1")
    assert st["stage"] == "advance"
    st = act(st, 0, {"type": "advance"})
    assert st["positions"][0] == 5 and st["stage"] == "sac_discard"
    st = act(st, 0, {"type": "lose", "card": find(st, "Guardian R2")})
    assert len(st["public"][0]) == 2 and st["stage"] == "draw_offer"
    # variant: 2 public cards, sum 5 → 15
    st = make([["Guardian B3", "Grace R2"], ["Mercy B1"], ["Greed B1", "Pride R1"], []],
              [["Sacrifice B1"], [], [], []], positions=[1, 0, 0, 0])
    assert use(st, "Sacrifice B1")["stage"] == "advance"
    st["positions"][0] = 2
    assert use(st, "Sacrifice B1")["stage"] == "sac_discard"


def test_e7_c2_for_a_sinner() -> None:
    st = act(_solo(["Hypocrisy R3", "Wrath R3", "Destruction B2"], 4, options={"board_side": "advanced"}),
             0, {"type": "pass"})
    assert st["stage"] == "advance"


def test_e8_c3_allowed_only_up_to_space_4() -> None:
    opts = {"board_side": "advanced"}
    assert act(_solo(SINNERS3, 3, options=opts), 0, {"type": "pass"})["stage"] == "advance"
    assert act(_solo(SINNERS3, 4, options=opts), 0, {"type": "pass"})["stage"] != "advance"


def test_c3_rule_option() -> None:
    mixed = ["Wrath R3", "Hypocrisy R3", "Wrath B3"]
    opts: dict[str, Any] = {"board_side": "advanced"}
    assert act(_solo(mixed, 3, options=opts), 0, {"type": "pass"})["stage"] == "advance"
    opts["c3_rule"] = "all_different"
    assert act(_solo(mixed, 3, options=opts), 0, {"type": "pass"})["stage"] != "advance"
    assert act(_solo(SINNERS3, 3, options=opts), 0, {"type": "pass"})["stage"] == "advance"


def test_e9_c4_only_to_spaces_1_and_2() -> None:
    p = ["Cruelty R2", "Hypocrisy R2", "Arrogance R2"]
    opts = {"board_side": "advanced"}
    assert act(_solo(p, 1, options=opts), 0, {"type": "pass"})["stage"] == "advance"
    assert act(_solo(p, 2, options=opts), 0, {"type": "pass"})["stage"] != "advance"


def test_e10_c5_and_colour_mismatch() -> None:
    p = ["Destruction G2", "Cruelty G2", "Wrath B3"]
    opts = {"board_side": "advanced"}
    for pos, ok in ((0, True), (1, True), (2, False)):
        assert (act(_solo(p, pos, options=opts), 0, {"type": "pass"})["stage"] == "advance") is ok
    q = ["Arrogance R2", "Arrogance B2", "Arrogance G2"]
    for pos in range(5):
        assert act(_solo(q, pos, options=opts), 0, {"type": "pass"})["stage"] != "advance"


def test_e11_greed_needs_one_colour() -> None:
    st = make([["Ignorance R1", "Greed R1", "Destruction B2"], ["Mercy B1"], ["Miracle B1"], []],
              [["Greed B1"], [], [], []], positions=[4, 0, 0, 0], options={"board_side": "advanced"})
    assert usable(st, 0, "Greed B1")
    st = use(st, "Greed B1")
    assert st["stage"] != "advance" and st["positions"][0] == 4


def test_e12_no_faction_cannot_advance_and_uses_only_any_cards() -> None:
    for side in ("easy", "advanced"):
        st = _solo(["Repentance G3", "Wrath B3"], 0, ["Sacrifice R1", "Grace R2", "Greed R1"],
                   options={"board_side": side})
        uses = [a["card"] for a in E.legal_actions(st, 0) if a["type"] == "use"]
        assert uses == [find(st, "Grace R2")]
        assert act(st, 0, {"type": "pass"})["stage"] != "advance"


def test_e13_easy_side_sum_or_combination() -> None:
    p = ["Wrath R3", "Destruction B2", "Cruelty G2"]
    assert act(_solo(p, 0, options={"board_side": "easy"}), 0, {"type": "pass"})["stage"] == "advance"
    assert act(_solo(p, 0, options={"board_side": "advanced"}), 0, {"type": "pass"})["stage"] != "advance"


def test_e14_faction_switch_changes_the_test() -> None:
    p = ["Guardian R2", "Hypocrisy R3", "Mercy R1"]
    opts = {"board_side": "advanced"}
    st = _solo(p, 2, ["Wrath R3", "Wrath B3"], options=opts)
    assert act(st, 0, {"type": "pass"})["stage"] != "advance"
    st2 = act(st, 0, {"type": "replace", "card": find(st, "Wrath R3"), "out": find(st, "Mercy R1")})
    assert st2["stage"] == "advance"
    assert labels(st2["public"][0]) == ["Guardian R2", "Hypocrisy R3", "Wrath R3"]
    st3 = act(st, 0, {"type": "replace", "card": find(st, "Wrath B3"), "out": find(st, "Mercy R1")})
    assert st3["stage"] != "advance"


def test_e15_gate_same_colour_entry_is_automatic() -> None:
    st = _solo(["Holiness R1", "Mercy R1", "Greed R1"], 5)
    st, events = E.apply(st, 0, {"type": "pass"})
    assert st["positions"][0] == 6
    assert any(e.kind == "gate" for e in events)


def test_e16_gate_refused() -> None:
    for same in (True, False):
        st = _solo(["Greed R1", "Pride B1", "Holiness G1"], 5, options={"gate_same_colour": same})
        assert act(st, 0, {"type": "pass"})["positions"][0] == 5
    st = _solo(["Holiness R1", "Mercy R1"], 5)
    assert act(st, 0, {"type": "pass"})["positions"][0] == 5
    # any colours allowed with gate_same_colour false
    st = _solo(["Holiness R1", "Mercy B1", "Greed G1"], 5, options={"gate_same_colour": False})
    assert act(st, 0, {"type": "pass"})["positions"][0] == 6


# --------------------------------------------------------------------------- E17–E24: abilities


def _e17(scope: str) -> dict[str, Any]:
    return make(
        [["Holiness R1", "Grace B2", "Miracle G1"], ["Shepherd R1", "Shepherd G1"],
         ["Wrath R3", "Hypocrisy B2", "Cruelty R2"], ["Destruction B2", "Destruction G2", "Pride R1"],
         ["Law R1", "Law B1", "Arrogance G2"], []],
        [["Mercy R1"], [], [], [], [], []], positions=[2, 0, 0, 0, 0, 0], options={"borrow_scope": scope},
    )


def test_e17_mercy_borrows_sinner_numbers() -> None:
    st = use(_e17("all"), "Mercy R1")
    assert st["turn"]["borrowed"] == 16 and st["stage"] == "advance"
    st = _e17("one")
    st = use(st, "Mercy R1", ("borrow", 2))
    assert st["turn"]["borrowed"] == 7 and st["stage"] != "advance"


def _e18(b_public: list[str], b_hand: list[str]) -> dict[str, Any]:
    return make([["Grace R2"], b_public, ["Wrath R3", "Pride R1"], []],
                [["Pride G1", "Cruelty G2", "Greed G1"], b_hand, ["Destruction B2"], []], active=2)


def test_e18_destruction() -> None:
    st = _e18(["Mercy R1", "Grace B2"], ["Law R1"])
    assert options_after(st, "Destruction B2") == [0]  # B holds 3 cards, A 4
    st = _e18(["Mercy R1", "Grace B2", "Holiness G1"], ["Law R1", "Greed B1"])
    st = use(st, "Destruction B2", ("target", 1), ("card", "Mercy R1"))
    assert E.to_move(st) == frozenset({1})
    assert E.legal_actions(st, 1) == [{"type": "allow"}]
    st = act(st, 1, {"type": "allow"})
    assert find(st, "Mercy R1") in st["discard"]
    assert E.to_move(st) == frozenset({CHANCE})
    assert len(E.legal_actions(st, CHANCE)) == 2
    st = act(st, CHANCE, {"type": "destroy", "card": find(st, "Greed B1")})
    assert labels(st["public"][1]) == ["Grace B2", "Holiness G1"]
    assert labels(st["hands"][1]) == ["Law R1"]
    assert find(st, "Greed B1") in st["discard"]
    assert faction(st["public"][1]) == "saint"


def _e19(b_pos: int) -> dict[str, Any]:
    return make([["Grace R2"], ["Mercy R1"], ["Wrath R3", "Pride R1"], []],
                [[], ["Guardian R2"], ["Cruelty R2"], []], positions=[0, b_pos, 3, 0], active=2)


def test_e19_cruelty_and_guardian() -> None:
    st = use(_e19(3), "Cruelty R2", ("target", 1))
    assert E.to_move(st) == frozenset({1})
    guard = act(st, 1, {"type": "guard", "card": find(st, "Guardian R2")})
    assert E.to_move(guard) == frozenset({CHANCE})
    assert find(guard, "Cruelty R2") in guard["discard"] and find(guard, "Guardian R2") in guard["discard"]
    guard = draw(guard, "Law B1")
    assert guard["positions"][1] == 3 and labels(guard["hands"][1]) == ["Law B1"]
    allow = act(st, 1, {"type": "allow"})
    assert allow["positions"][1] == 2
    assert not usable(_e19(4), 2, "Cruelty R2")


def _finish_turn(st: dict[str, Any]) -> dict[str, Any]:
    """Play out the rest of the current turn: stay, lose first, keep none, no draw."""
    a = active(st)
    while E.to_move(st) == frozenset({a}) and active(st) == a and st["stage"] != "action":
        stage = st["stage"]
        choice = {"advance": {"type": "stay"}, "draw_offer": {"type": "no_draw"}}.get(stage)
        st = act(st, a, choice or E.legal_actions(st, a)[0])
    return st


def test_e20_pride_skips_whole_turns_and_stacks() -> None:
    pub = [SAINTS3, ["Mercy B1"], ["Wrath R3", "Pride B1"], ["Law R1"], ["Greed G1"]]
    hands = [[], [], ["Pride R1"], ["Pride G1"], []]
    st = make(pub, hands, active=2)
    st = use(st, "Pride R1", ("target", 0))
    st = act(st, 0, {"type": "allow"})
    assert st["skips"][0] == 1
    st = _finish_turn(st)
    assert active(st) == 3
    st2 = act(st, 3, {"type": "pass"})
    st2 = _finish_turn(st2)
    assert active(st2) == 4
    st2 = _finish_turn(act(st2, 4, {"type": "pass"}))
    assert active(st2) == 1 and st2["skips"][0] == 0 and st2["round"] == 2
    # D also Prides A: two turns skipped
    st3 = use(st, "Pride G1", ("target", 0))
    st3 = _finish_turn(act(st3, 0, {"type": "allow"}))
    assert st3["skips"][0] == 2
    st3 = _finish_turn(act(st3, 4, {"type": "pass"}))
    assert active(st3) == 1 and st3["skips"][0] == 1
    for s in (1, 2, 3, 4):
        assert active(st3) == s
        st3 = _finish_turn(act(st3, s, {"type": "pass"}))
    assert active(st3) == 1 and st3["skips"][0] == 0 and st3["round"] == 3


def _e21() -> dict[str, Any]:
    return make([["Guardian R2", "Guardian B3", "Repentance G2"], ["Mercy B1"], ["Greed R1", "Pride R1"],
                 ["Sacrifice G2", "Wrath R3", "Pride B1"]],
                [["Arrogance R2"], [], [], ["Guardian B2"]], positions=[4, 0, 0, 0])


def test_e21_arrogance_borrows_sacrifice() -> None:
    st = use(_e21(), "Arrogance R2", ("take", "Sacrifice G2"))
    assert E.to_move(st) == frozenset({3})
    allow = act(st, 3, {"type": "allow"})
    assert len(allow["public"][3]) == 2 and find(allow, "Sacrifice G2") in allow["discard"]
    assert allow["stage"] == "advance"
    allow = act(allow, 0, {"type": "advance"})
    assert allow["positions"][0] == 5 and allow["stage"] == "sac_discard"
    guard = act(st, 3, {"type": "guard", "card": find(st, "Guardian B2")})
    guard = draw(guard, "Law B1")
    assert labels(guard["public"][3]) == ["Sacrifice G2", "Wrath R3", "Pride B1"]
    assert labels(guard["hands"][3]) == ["Law B1"]
    assert find(guard, "Arrogance R2") in guard["discard"] and find(guard, "Guardian B2") in guard["discard"]
    assert guard["positions"][0] == 4 and guard["turn"]["modifier"] is None


def test_e22_arrogance_refused_cards() -> None:
    st = make([["Wrath R3", "Pride R1"], ["Holiness G1", "Arrogance B2", "Paradise W3"], ["Guardian R2"],
               ["Greed G1", "Law B1"]], [["Arrogance R2"], [], [], []])
    takes = options_after(st, "Arrogance R2")
    for bad in ("Holiness G1", "Arrogance B2", "Paradise W3", "Guardian R2"):
        assert find(st, bad) not in takes
    assert find(st, "Greed G1") not in takes  # greed: sinners are not the minority


def test_e23_grace_cap() -> None:
    def start(cap: str) -> dict[str, Any]:
        st = make([["Holiness R1", "Mercy B1", "Miracle G1"], ["Wrath R3"], [], []],
                  [["Grace B2", "Pride R1"], [], [], []],
                  options={"grace_cap": cap})
        st = use(st, "Grace B2")
        for x in ("Law B1", "Greed G1", "Mercy R1", "Miracle R1"):
            st = draw(st, x)
        return st

    st = start("3")
    assert st["stage"] == "grace_keep"
    keeps = [a["cards"] for a in E.legal_actions(st, 0)]
    assert max(len(k) for k in keeps) == 2 and [] in keeps
    assert E.timeout_action(st, 0) == {"type": "keep", "cards": st["buffer"][:2]}
    st = act(st, 0, {"type": "keep", "cards": [find(st, "Law B1"), find(st, "Mercy R1")]})
    assert labels(st["hands"][0]) == ["Pride R1", "Law B1", "Mercy R1"]
    assert st["stage"] != "draw_offer" and active(st) == 1
    st = start("none")
    assert max(len(a["cards"]) for a in E.legal_actions(st, 0)) == 4
    st = act(st, 0, {"type": "keep", "cards": list(st["buffer"])})
    assert len(st["hands"][0]) == 5


def test_e24_holiness() -> None:
    st = make([["Guardian R2", "Wrath R3", "Grace B2"], ["Greed B1"], [], []], [["Holiness R1"], [], [], []])
    assert not usable(st, 0, "Holiness R1")
    st = make([["Guardian R2", "Guardian B3", "Repentance G2"], ["Greed B1"], [], []],
              [["Holiness R1"], [], [], []], positions=[4, 0, 0, 0])
    assert "mercy" not in options_after(st, "Holiness R1")  # nS = nN
    assert "sacrifice" in options_after(st, "Holiness R1")
    st2 = use(st, "Holiness R1", ("copy", "sacrifice"))
    assert st2["stage"] == "advance"
    st2 = act(st2, 0, {"type": "advance"})
    assert st2["positions"][0] == 5 and st2["stage"] == "sac_discard"


# --------------------------------------------------------------------------- E25–E34


def test_e25_reshuffle_discard_into_empty_draw_pile() -> None:
    disc = ["Law B1", "Greed G1", "Mercy R1", "Miracle R1", "Pride R1", "Law R1", "Greed R1", "Wrath R3",
            "Wrath B3", "Greed B1"]
    st = make([[], SAINTS3[:2], [], []], [[], ["Pride B1", "Law G1"], [], []], active=1, discard=disc, deck=[])
    st = act(st, 1, {"type": "pass"})
    assert st["stage"] == "draw_offer"
    st = act(st, 1, {"type": "draw"})
    assert E.to_move(st) == frozenset({CHANCE})
    assert len(st["deck"]) == 10 and st["discard"] == [] and len(E.legal_actions(st, CHANCE)) == 10
    st = draw(st, "Wrath R3")
    assert len(st["deck"]) == 9 and st["discard"] == [] and len(st["hands"][1]) == 3


def test_e26_reaction_timeout_is_allow() -> None:
    st = _e18(["Mercy R1", "Grace B2", "Holiness G1"], ["Guardian R2", "Greed B1"])
    st = use(st, "Destruction B2", ("target", 1), ("card", "Mercy R1"))
    assert E.timeout_action(st, 1) == {"type": "allow"}
    assert {"type": "guard", "card": find(st, "Guardian R2")} in E.legal_actions(st, 1)


def test_e27_advancement_prompt_stay_and_timeout() -> None:
    p = ["Guardian R2", "Guardian B3", "Repentance G2"]
    st = act(_solo(p, 0), 0, {"type": "pass"})
    assert E.legal_actions(st, 0) == [{"type": "advance"}, {"type": "stay"}]
    assert E.timeout_action(st, 0) == {"type": "advance"}
    stay = act(st, 0, {"type": "stay"})
    assert stay["positions"][0] == 0 and stay["stage"] != "advance"


def test_e28_wrath_refill() -> None:
    st = make([["Guardian R2", "Hypocrisy R2", "Mercy B1"], ["Greed G1"], [], []],
              [["Wrath G3", "Grace B2", "Pride R1"], [], [], []], options={"board_side": "advanced"})
    st = use(st, "Wrath G3")
    assert labels(st["public"][0]) == ["Hypocrisy R2"] and labels(st["hands"][0]) == ["Pride R1"]
    assert st["chance"]["left"] == 4
    for x in ("Cruelty G2", "Greed B1", "Repentance G2", "Law R1"):
        st = draw(st, x)
    assert st["stage"] == "refill_assign" and len(E.legal_actions(st, 0)) == 6
    st = act(st, 0, {"type": "assign", "public": [find(st, "Cruelty G2"), find(st, "Repentance G2")]})
    assert labels(st["public"][0]) == ["Hypocrisy R2", "Cruelty G2", "Repentance G2"]
    assert labels(st["hands"][0]) == ["Pride R1", "Greed B1", "Law R1"]
    assert faction(st["public"][0]) == "sinner"
    assert st["positions"][0] == 0 and active(st) == 1  # no combination, hand 3: turn over


def test_e29_hypocrisy_one_for_one() -> None:
    st = make([["Grace R2", "Mercy B1", "Holiness G1"], ["Wrath B3", "Pride R1", "Cruelty G2"], ["Law R1"], []],
              [["Hypocrisy R2"], [], [], []])
    assert options_after(st, "Hypocrisy R2", ("k", 2)) == [1]  # C has only 1 public card
    assert options_after(st, "Hypocrisy R2", ("k", 1)) == [1, 2]
    st = use(st, "Hypocrisy R2", ("k", 1), ("target", 1), ("mine", ["Mercy B1"]), ("theirs", ["Wrath B3"]))
    st = act(st, 1, {"type": "allow"})
    assert labels(st["public"][0]) == ["Grace R2", "Wrath B3", "Holiness G1"]
    assert labels(st["public"][1]) == ["Mercy B1", "Pride R1", "Cruelty G2"]
    assert faction(st["public"][0]) == "saint" and faction(st["public"][1]) == "sinner"


def test_e30_shepherd() -> None:
    st = make([["Holiness R1", "Grace B2", "Miracle G1"], ["Grace R2", "Guardian B3"], ["Holiness B1", "Grace G2"],
               ["Wrath R3"], []], [["Shepherd R1"], [], [], [], []], positions=[1, 0, 0, 0, 0])
    st = use(st, "Shepherd R1")
    assert st["turn"]["borrowed"] == 8 and st["stage"] == "advance"


def test_e31_ignorance_copies_greed() -> None:
    base = [["Pride G1", "Law G1", "Destruction G1"], ["Mercy B1"], ["Miracle B1"], []]
    st = make(base, [["Ignorance R1"], [], [], []], positions=[3, 0, 0, 0], options={"board_side": "advanced"})
    st = use(st, "Ignorance R1", ("copy", "greed"))
    assert st["stage"] == "advance"
    base[0] = ["Pride G1", "Law G1", "Holiness G1"]
    st = make(base, [["Ignorance R1"], [], [], []], positions=[3, 0, 0, 0])
    assert not usable(st, 0, "Ignorance R1")


def test_e32_miracle_on_the_easy_side() -> None:
    st = _solo(SAINTS3, 1, ["Miracle R1"], options={"board_side": "easy"})
    assert act(st, 0, {"type": "pass"})["stage"] != "advance"
    assert use(st, "Miracle R1")["stage"] == "advance"
    st["positions"][0] = 2
    assert use(st, "Miracle R1")["stage"] != "advance"


def test_e33_law_with_paradise() -> None:
    st = make([["Paradise W3", "Greed G1", "Pride G1"], ["Mercy B1"], [], []], [["Law R1"], [], [], []],
              positions=[4, 0, 0, 0], options={"board_side": "advanced"})
    st = use(st, "Law R1", ("number", 3))
    assert st["stage"] == "advance"


def test_e34_end_of_round_single_winner_and_round_limit() -> None:
    st = make([SAINTS3, ["Holiness R1", "Mercy R1", "Greed R1"], [], []], positions=[0, 0, 5, 0], active=2)
    st["start"] = 1
    st["turn_index"] = 1
    st["round"] = 9
    st["public"][1], st["public"][2] = st["public"][2], st["public"][1]
    st = act(st, 2, {"type": "pass"})
    assert st["positions"][2] == 6 and E.outcome(st) is None
    assert active(st) == 3
    st = _finish_turn(act(st, 3, {"type": "pass"}))
    assert active(st) == 0 and E.outcome(st) is None
    st = _finish_turn(act(st, 0, {"type": "pass"}))
    out = E.outcome(st)
    assert out is not None and out.winners == frozenset({2}) and E.to_move(st) == frozenset()
    assert out.reason == Msg("reason.gate_one", {"winners": {"seats": [2]}})
    assert TX(out.reason) == "Cy wins: reached the Gate of Heaven."
    assert E.player_view(st, None)["end_reason"] == out.reason.to_json()
    with pytest.raises(GameOver):
        E.apply(st, 1, {"type": "pass"})
    # round limit variant
    st = make([[], [], [], []], positions=[4, 5, 5, 3], active=0)
    st.update(start=1, turn_index=3, round=40)
    st = _finish_turn(act(st, 0, {"type": "pass"}))
    out = E.outcome(st)
    assert out is not None and out.winners == frozenset({1, 2})
    assert TX(out.reason) == "Bo and Cy share the win: stand furthest along (space 5) after the round limit."


def test_gate_entry_on_last_seat_ends_at_once() -> None:
    st = make([["Holiness R1", "Mercy R1", "Greed R1"], [], [], []], positions=[5, 0, 0, 0], active=0)
    st.update(start=1, turn_index=3)
    st = act(st, 0, {"type": "pass"})
    out = E.outcome(st)
    assert out is not None and out.winners == frozenset({0})


# --------------------------------------------------------------------------- errors and views


def test_errors_not_your_turn_illegal_and_bad_chance() -> None:
    st = _solo(SAINTS3, 0, ["Mercy R1"])
    with pytest.raises(NotYourTurn):
        E.apply(st, 1, {"type": "pass"})
    with pytest.raises(IllegalAction):
        E.apply(st, 0, {"type": "fly"})
    with pytest.raises(NotYourTurn):
        E.apply(st, CHANCE, {"type": "draw", "card": "S01"})
    st = act(st, 0, {"type": "pass"})
    assert st["stage"] == "draw_offer"
    st = act(st, 0, {"type": "draw"})
    with pytest.raises(IllegalAction):
        E.apply(st, CHANCE, {"type": "draw", "card": find(st, "Mercy R1")})  # in a hand, not the pile


def test_version_1_use_steps_still_apply_cancel_and_time_out() -> None:
    """A log written under state_version 1 declared a USE in steps (use, pick…, cancel):
    they still apply, to the same state as today's whole USE (docs/rules/heaven.md D21)."""
    st = _e18(["Mercy R1", "Grace B2", "Holiness G1"], ["Law R1", "Greed B1"])
    legal = E.legal_actions(st, 2)
    assert {"type": "use", "card": find(st, "Destruction B2")} not in legal          # never offered
    assert not [a for a in legal if a["type"] in ("pick", "cancel")]
    st2 = act(st, 2, {"type": "use", "card": find(st, "Destruction B2")})
    assert st2["build"] == {"card": find(st, "Destruction B2"), "chosen": []} and st2["stage"] == "action"
    back = act(st2, 2, {"type": "cancel"})
    assert back["build"] is None and find(back, "Destruction B2") in back["hands"][2]
    assert E.timeout_action(st2, 2) == {"type": "pass"}
    passed = act(st2, 2, {"type": "pass"})
    assert find(passed, "Destruction B2") in passed["hands"][2] and passed["build"] is None
    with pytest.raises(IllegalAction):                                                 # D holds no card
        E.apply(st2, 2, {"type": "pick", "key": "target", "value": 3})
    st3 = act(st2, 2, {"type": "pick", "key": "target", "value": 1})
    assert st3["stage"] == "action" and st3["build"]["chosen"] == [["target", 1]]
    st3 = act(st3, 2, {"type": "pick", "key": "card", "value": find(st, "Mercy R1")})
    whole, events = E.apply(st, 2, {"type": "use", "card": find(st, "Destruction B2"),
                                    "plan": [["target", 1], ["card", find(st, "Mercy R1")]]})
    assert st3 == whole and st3["stage"] == "react" and E.to_move(st3) == frozenset({1})
    assert [e.kind for e in events] == ["use"]
    assert TX.event(events[0]) == "Cy uses Destruction B2: target Bo, remove Mercy R1."
    with pytest.raises(IllegalAction):
        E.apply(st, 2, {"type": "cancel"})                                             # nothing to cancel


def test_public_view_hides_hands_and_deck() -> None:
    st = _solo(SAINTS3, 0, ["Mercy R1"])
    view = E.player_view(st, None)
    assert "hand" not in view and "deck" not in view and view["hand_counts"][0] == 1
    assert view["counts"] == {"saint": 2, "sinner": 1, "none": 1} and view["majority"] == "saint"
    mine = E.player_view(st, 0)
    assert [c["id"] for c in mine["hand"]] == st["hands"][0]
    other = E.shuffle_hidden(st, 1, random.Random(5))
    assert E.player_view(other, 1) == E.player_view(st, 1)


# --------------------------------------------------------------------------- options and chains


def _chain_state() -> dict[str, Any]:
    return make([["Wrath R3", "Cruelty R2"], ["Ignorance R1", "Greed R1", "Law R1"],
                 ["Mercy R1", "Grace B2", "Holiness G1"], ["Shepherd R1"]],
                [["Arrogance R2"], [], ["Law B1"], []])


def test_arrogance_chain_opens_owner_then_target_windows() -> None:
    st = _chain_state()
    copies = options_after(st, "Arrogance R2", ("take", "Ignorance R1"))
    assert "arrogance" not in copies and "ignorance" not in copies and "destruction" in copies
    st2 = use(st, "Arrogance R2", ("take", "Ignorance R1"), ("copy", "destruction"), ("target", 2),
              ("card", "Mercy R1"))
    assert E.to_move(st2) == frozenset({1})
    st2 = act(st2, 1, {"type": "allow"})
    assert find(st2, "Ignorance R1") in st2["discard"]
    assert E.to_move(st2) == frozenset({2})
    st2 = act(st2, 2, {"type": "allow"})
    assert find(st2, "Mercy R1") in st2["discard"] and E.to_move(st2) == frozenset({CHANCE})
    st2 = act(st2, CHANCE, {"type": "destroy", "card": find(st2, "Law B1")})
    assert st2["hands"][2] == [] and len(st2["public"][2]) == 2


def test_one_window_when_owner_is_also_target() -> None:
    st = use(_chain_state(), "Arrogance R2", ("take", "Ignorance R1"), ("copy", "hypocrisy"), ("k", 1),
             ("target", 1), ("mine", ["Wrath R3"]), ("theirs", ["Greed R1"]))
    assert E.to_move(st) == frozenset({1})
    st = act(st, 1, {"type": "allow"})
    assert labels(st["public"][0]) == ["Greed R1", "Cruelty R2"]
    assert labels(st["public"][1]) == ["Wrath R3", "Law R1"]


def test_guardian_scope_sinner_attacker() -> None:
    def go(scope: str) -> dict[str, Any]:
        st = make([["Grace R2", "Mercy B1", "Holiness G1"], ["Wrath B3", "Pride R1", "Cruelty G2"], ["Law R1"], []],
                  [["Hypocrisy R2"], ["Guardian R2"], [], []], options={"guardian_scope": scope})
        return use(st, "Hypocrisy R2", ("k", 1), ("target", 1), ("mine", ["Mercy B1"]), ("theirs", ["Wrath B3"]))

    assert go("sinner_card")["stage"] == "react"
    st = go("sinner_attacker")
    assert st["stage"] != "react" and labels(st["public"][0]) == ["Grace R2", "Wrath B3", "Holiness G1"]


def test_x3_sum_only_keeps_numbers() -> None:
    base = [["Pride G1", "Law G1", "Destruction G1"], ["Mercy B1"], ["Miracle B1"], []]
    st = make(base, [["Ignorance R1"], [], [], []], positions=[3, 0, 0, 0],
              options={"board_side": "advanced", "x3_mode": "sum_only"})
    assert use(st, "Ignorance R1", ("copy", "greed"))["stage"] != "advance"
    st = make([["Guardian B3", "Grace R2"], ["Mercy B1"], ["Greed B1", "Pride R1"], []],
              [["Sacrifice B1"], [], [], []], positions=[1, 0, 0, 0], options={"x3_mode": "sum_only"})
    assert use(st, "Sacrifice B1")["stage"] == "advance"


def test_shepherd_borrow_scope_one() -> None:
    st = make([["Holiness R1", "Grace B2", "Miracle G1"], ["Grace R2", "Guardian B3"], ["Holiness B1", "Grace G2"],
               ["Wrath R3"], []], [["Shepherd R1"], [], [], [], []], positions=[1, 0, 0, 0, 0],
              options={"borrow_scope": "one"})
    assert options_after(st, "Shepherd R1") == [1, 2]
    st2 = use(st, "Shepherd R1", ("borrow", 1))
    assert st2["turn"]["borrowed"] == 5 and st2["stage"] != "advance"


def test_public_view_during_reaction_window() -> None:
    st = use(_e19(3), "Cruelty R2", ("target", 1))
    view = E.player_view(st, None)
    assert view["reacting"] == 1 and view["stage"] == "react"
    assert view["declared"] == Msg("use.plan", {"card": {"msg": "card", "params": {
        "name": {"term": "card.cruelty"}, "code": "R2"}}, "details": [
        {"msg": "use.target", "params": {"seat": {"seat": 1}}}]}).to_json()
    assert TX(view["declared"]) == "Cruelty R2: target Bo"
    assert "Guardian" not in str(view)
    assert TX(N.prompt(st, 1)).startswith("Cy attacks you (Cruelty R2: target Bo)")


# --------------------------------------------------------------------------- host hooks: preferences, timeouts

ON = {"auto_advance": True, "guardian_pref": "auto_guard", "auto_draw": True}


def test_preferences_are_declared_with_the_spec_defaults() -> None:
    prefs = {p.key: p for p in E.info.preferences}
    assert sorted(prefs) == ["auto_advance", "auto_draw", "guardian_pref"]
    assert (prefs["auto_advance"].default, prefs["auto_draw"].default) == (True, True)
    assert prefs["guardian_pref"].choices == ("ask", "auto_guard", "never")
    assert prefs["guardian_pref"].default == "ask"
    assert all(p.description for p in prefs.values())


def test_auto_advance_answers_the_advancement_offer_only() -> None:
    p = ["Guardian R2", "Guardian B3", "Repentance G2"]
    st = _solo(p, 0, ["Law R1"])
    assert E.auto_action(st, 0, ON) is None                   # the action itself is never pre-set
    st = act(st, 0, {"type": "pass"})
    assert st["stage"] == "advance"
    assert E.auto_action(st, 0, {"auto_advance": True}) == {"type": "advance"}
    assert E.auto_action(st, 0, {"auto_advance": False}) is None
    assert E.auto_action(st, 0, {"guardian_pref": "auto_guard", "auto_draw": True}) is None
    assert E.auto_action(st, 1, ON) is None                   # not to move
    st = act(st, 0, E.auto_action(st, 0, ON))
    assert st["positions"][0] == 1


def test_auto_draw_answers_the_draw_offer() -> None:
    p = ["Guardian R2", "Guardian B3", "Repentance G2"]
    st = act(_solo(p, 3, ["Law R1"]), 0, {"type": "discard", "card": find(_solo(p, 3, ["Law R1"]), "Law R1")})
    assert st["stage"] == "draw_offer"
    assert E.auto_action(st, 0, {"auto_draw": True}) == {"type": "draw"}
    assert E.auto_action(st, 0, {"auto_advance": True, "guardian_pref": "never"}) is None


def test_e26_guardian_pref_auto_guard_never_and_ask() -> None:
    st = _e18(["Mercy R1", "Grace B2", "Holiness G1"], ["Guardian B3", "Guardian R2", "Greed B1"])
    st = use(st, "Destruction B2", ("target", 1), ("card", "Mercy R1"))
    assert E.to_move(st) == frozenset({1})
    lowest = min(find(st, "Guardian B3"), find(st, "Guardian R2"))
    assert E.auto_action(st, 1, {"guardian_pref": "auto_guard"}) == {"type": "guard", "card": lowest}
    assert E.auto_action(st, 1, {"guardian_pref": "ask"}) is None
    assert E.auto_action(st, 1, {"guardian_pref": "never"}) == {"type": "allow"}
    assert E.auto_action(st, 2, ON) is None                   # the attacker has nothing to answer
    guarded = act(st, 1, E.auto_action(st, 1, ON))
    assert lowest in guarded["discard"] and find(guarded, "Mercy R1") in guarded["public"][1]
    # auto_guard without a Guardian allows at once (spec D20; `never` answers the same way)
    st = _e18(["Mercy R1", "Grace B2", "Holiness G1"], ["Law R1", "Greed B1"])
    st = use(st, "Destruction B2", ("target", 1), ("card", "Mercy R1"))
    assert E.auto_action(st, 1, ON) == {"type": "allow"}
    assert E.auto_action(st, 1, {"guardian_pref": "ask"}) is None
    assert E.timeout_action(st, 1) == {"type": "allow"}      # the window's timeout: no defence


def test_timeout_seconds_reaction_and_turn_options() -> None:
    def window(options: dict[str, Any], react: bool) -> int:
        st = _e18(["Mercy R1", "Grace B2", "Holiness G1"], ["Guardian R2", "Greed B1"])
        st["options"].update(options)
        if react:
            st = use(st, "Destruction B2", ("target", 1), ("card", "Mercy R1"))
            assert st["stage"] == "react"
        return E.timeout_seconds(st, E.to_move(st), 86400)

    assert window({}, react=True) == 86400                    # 0 = the lobby's move timer
    assert window({}, react=False) == 86400
    assert window({"reaction_timeout": 2}, react=True) == 7200
    assert window({"reaction_timeout": 2}, react=False) == 86400
    assert window({"turn_timeout": 5}, react=False) == 5 * 3600
    assert window({"turn_timeout": 5}, react=True) == 86400
    assert window({"turn_timeout": 5, "reaction_timeout": 1}, react=True) == 3600
    assert E.info.option("turn_timeout").default == 0 and E.info.option("reaction_timeout").default == 0
    split = E.new_game(4, 0, {"turn_timeout": 3})
    assert E.timeout_seconds(split, frozenset({0, 1, 2, 3}), 600) == 3 * 3600


def test_a_use_is_one_action_whose_steps_are_the_card_then_its_parameters() -> None:
    """§11 USE flows (kind → target → cards): the Play panel walks ``action_path`` steps
    (engines/decisions.py); nothing is applied, so no hand card shows, until the whole
    declaration is chosen; the prompt never names a hand card."""
    st = make([["Grace R2", "Mercy B1", "Holiness G1"], ["Wrath B3", "Pride R1", "Cruelty G2"],
               ["Law R1", "Wrath G3"], ["Greed B1", "Greed G1"]],
              [["Hypocrisy R2", "Cruelty R2", "Law B1"], [], [], []])
    uses = [a for a in E.legal_actions(st, 0) if a["type"] == "use"]
    assert len(uses) == 3 * (3 + 2 + 2) + 3 * (3 + 1 + 1)             # k=1, k=2 with B, C, D; no Cruelty, Law
    tree = DecisionTree.of(N, st, 0)
    root, _ = tree.node(())
    labels_ = [TX(c.label) for c in root]
    assert labels_[:2] == ["Pass (do nothing)", "Replace with Hypocrisy R2"]
    assert "Use Hypocrisy R2" in labels_ and not any("Cruelty R2" in x and "Use" in x for x in labels_)
    step = next(c for c in root if TX(c.label) == "Use Hypocrisy R2")
    assert step.step is not None and step.size == len(uses)
    swaps, trail = tree.node((step.step,))
    assert [TX(c.label) for c in swaps] == ["Swap 1 card each way", "Swap 2 cards each way"]
    assert [TX(t) for t in trail] == ["Use Hypocrisy R2"]
    targets, _ = tree.node((step.step, 1))
    assert [TX(c.label) for c in targets] == ["Target Bo (space 0)", "Target Cy (space 0)", "Target Di (space 0)"]
    gives, _ = tree.node((step.step, 1, 1))                                     # Cy: 2 public cards
    assert [TX(c.label) for c in gives] == ["1+2 · Give your Grace R2 + Mercy B1",       # the public cards numbered
                                            "1+3 · Give your Grace R2 + Holiness G1",     # on the table, as the
                                            "2+3 · Give your Mercy B1 + Holiness G1"]     # decision picture does
    assert gives[0].action is not None                                          # one action each: no 4th step
    whole = tree.actions[gives[0].action]
    assert TX(N.action_label(st, whole)) == "1+2⇄7+8 · Use Hypocrisy R2: target Cy"
    assert N.describe_action(st, whole) == f"use {whole['card']} k 2 target C mine {'+'.join(whole['plan'][2][1])} " \
        f"theirs {'+'.join(whole['plan'][3][1])}"
    assert N.parse_action(st, 0, N.describe_action(st, whole)) == whole
    prompt = TX(N.prompt(st, 0))
    assert prompt == "Round 1: choose your action (pass, add, replace, use or discard)."
    # a chain opens one step for the whole chain, and no path is deeper than the shared limit
    chain = _chain_state()
    paths = [N.action_path(chain, a) for a in E.legal_actions(chain, 0) if a["type"] == "use"]
    assert max(len(p) for p in paths) == 4
    assert [TX(m) for m in paths[0]] == ["Use Arrogance R2", "1 · Take your public Wrath R3"]
    deepest = next(p for p in paths if len(p) == 4)
    assert [TX(m) for m in deepest] == ["Use Arrogance R2", "3 · Take Bo's public Ignorance R1 → copy Hypocrisy",
                                        "Swap 1 card each way", "Target Bo (space 0)"]


def _shown_labels(tree: DecisionTree, path: tuple[int, ...] = ()) -> list[list[str]]:
    """The English labels of every node of ``tree`` (one list per decision shown), as the
    Play panel shows them (``bot/ui/panels.py``: the host's ``Texts``, cut to a button's 80
    characters by ``distinct_labels``)."""
    choices, _ = tree.node(path)
    out = [distinct_labels([TX(c.label) for c in choices], BUTTON_LABEL)]
    for c in choices:
        if c.step is not None:
            out += _shown_labels(tree, (*path, c.step))
    return out


@pytest.mark.parametrize("publics, hands, shown", [
    # Hypocrisy: Bo's Shepherd G1 and Pride G1 (the play-tester's case: two "get G1")
    ([["Wrath R3"], ["Shepherd G1", "Pride G1"], [], []], [["Hypocrisy R2"], [], [], []],
     ["1⇄2 · Use Hypocrisy R2: target Bo", "1⇄3 · Use Hypocrisy R2: target Bo"]),
    # own cards sharing a code (give), Destruction's card and Arrogance's take: a deep tree
    ([["Pride G1", "Greed G1", "Wrath R3"], ["Shepherd G1", "Holiness G1", "Law B1"], ["Mercy G1"], []],
     [["Hypocrisy B2", "Destruction B2", "Arrogance R2"], ["Grace R2", "Grace B2"], [], []],
     ["2⇄7 · Use Hypocrisy B2: target Cy", "4 · Use Destruction B2: target Bo, remove G1"]),
])
def test_the_labels_of_one_decision_tell_cards_with_one_code_apart(
        publics: list[list[str]], hands: list[list[str]], shown: list[str]) -> None:
    """§11 Private prompts (USE flows offer only legal choices, each a button ≤ 80
    characters): a USE label names cards by code after the numbers of the public cards it
    picks (the decision picture's), so two cards of one code read apart; where labels still
    read alike, by name and code (``action_label_full``): no two buttons of one decision read
    the same."""
    st = make(publics, hands)
    tree = DecisionTree.of(N, st, 0)
    for node in _shown_labels(tree):
        assert len(set(node)) == len(node), [x for x in node if node.count(x) > 1]
        assert all(len(x) <= 80 for x in node), node
    labels = [TX(label) for label in tree.labels]
    assert len(set(labels)) == len(labels), sorted(x for x in labels if labels.count(x) > 1)
    assert set(shown) <= set(labels), sorted(labels)
    # (a label that reads like no other keeps its codes)
    assert "Use Hypocrisy R2: target Bo, give R3, get G1" not in labels


def test_reaction_prompt_names_the_attacker_and_speaks_to_the_attacked_player() -> None:
    """The Guardian prompt is the attacked player's own, like every other prompt: "you"."""
    st = use(_e19(3), "Cruelty R2", ("target", 1))
    assert N.prompt(st, 1) == Msg("prompt.react", {
        "attacker": {"seat": 2},
        "use": {"msg": "use.plan", "params": {"card": {"msg": "card", "params": {
            "name": {"term": "card.cruelty"}, "code": "R2"}}, "details": [
            {"msg": "use.target", "params": {"seat": {"seat": 1}}}]}}})
    said = {lang: Texts("heaven", NAMES, lang, strict=True)(N.prompt(st, 1)) for lang in ("en", "zh_TW", "zh_CN", "ja")}
    assert said["en"] == "Cy attacks you (Cruelty R2: target Bo): you may guard with a Guardian from your hand, " \
        "or allow it."
    assert said["zh_TW"].endswith("攻擊你：你可以用手中的守護來防禦，或允許攻擊。")
    assert said["zh_CN"].endswith("攻击你：你可以用手中的守护来防御，或允许攻击。")
    assert said["ja"].startswith("Cy があなたを攻撃（") and said["ja"].endswith("）：手札の守護で守るか、受け入れることができます。")
    assert [TX(N.action_label(st, a)) for a in E.legal_actions(st, 1)] == ["GUARD with Guardian R2 (then draw 1)",
                                                                           "ALLOW (no defence)"]


def test_split_labels_carry_faction_sum_and_first_space_hint() -> None:
    st = make([[], [], [], []], [["Guardian R2", "Guardian B3", "Repentance G2", "Wrath R3", "Greed B1",
                                  "Law G1"], [], [], []])
    st.update(phase="split", stage=None, split=[None] * 4)
    acts = E.legal_actions(st, 0)
    assert TX(N.action_label(st, acts[0])) == "Guardian R2 + Guardian B3 + Repentance G2"
    assert TX(N.action_hint(st, acts[0])) == "saint · sum 7 · space 1 ✓"
    shown = [(TX(N.action_label(st, a)), TX(N.action_hint(st, a))) for a in acts]
    assert ("Wrath R3 + Greed B1 + Law G1", "sinner · sum 5 · space 1 ✗") in shown
    assert ("Guardian R2 + Wrath R3 + Greed B1", "sinner · sum 6 · space 1 ✗") in shown
    assert all(len(x) <= 80 for x, _ in shown)


def test_refill_labels_carry_the_resulting_faction_and_test() -> None:
    st = make([["Guardian R2", "Hypocrisy R2", "Mercy B1"], ["Greed G1"], [], []],
              [["Wrath G3", "Grace B2", "Pride R1"], [], [], []], options={"board_side": "advanced"})
    st = use(st, "Wrath G3")
    for x in ("Cruelty G2", "Greed B1", "Repentance G2", "Law R1"):
        st = draw(st, x)
    chosen = {"type": "assign", "public": [find(st, "Cruelty G2"), find(st, "Repentance G2")]}
    assert chosen in E.legal_actions(st, 0)
    assert TX(N.action_label(st, chosen)) == "Cruelty G2 + Repentance G2"
    assert TX(N.action_hint(st, chosen)) == "sinner · sum 6 · space 1 ✗"
    assert TX(N.prompt(st, 0)) == ("Refill: choose which 2 of your new cards go to your public set "
                                   "(the rest go to your hand).")


# --------------------------------------------------------------------------- texts


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (k, *_strings(v))]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


@pytest.mark.parametrize(("players", "seed", "options"), [
    (4, 1, {"round_limit": 12}),
    (5, 2, {"board_side": "advanced", "borrow_scope": "one", "round_limit": 10}),
    (6, 3, {"grace_cap": "none", "x3_mode": "sum_only", "guardian_scope": "sinner_attacker", "round_limit": 10}),
])
def test_every_message_formats_with_the_catalog_in_seeded_playouts(players: int, seed: int,
                                                                   options: dict[str, Any]) -> None:
    """Every event, prompt, label, hint, menu step, end reason and view message of random
    games formats with ``bot/text/en/heaven.toml`` (strict: a missing key or parameter
    raises); events are kind + parameters only; no state holds a sentence."""
    tx = Texts("heaven", NAMES[:players], strict=True)
    rng = random.Random(seed)
    st = E.new_game(players, seed, options)
    kinds: set[str] = set()
    while E.to_move(st):
        seat = rng.choice(sorted(E.to_move(st)))
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            assert tx(N.prompt(st, seat))
            actions = E.legal_actions(st, seat)
            for a in actions:
                assert tx(N.action_label(st, a))
                hint = N.action_hint(st, a)
                assert hint is None or tx(hint)
                assert all(tx(step) for step in N.action_path(st, a))
            action = rng.choice(list(actions))
        st, events = E.apply(st, seat, action)
        for e in events:
            assert e.params is not None and e.text == "" and not e.data
            assert tx.event(e.to_json())
            kinds.add(e.kind)
        assert not [s for s in _strings(st) if " " in s], "a state holds no sentence"
        public = E.player_view(st, None)
        for key in ("declared", "end_reason"):
            assert public[key] is None or tx(public[key])
        for c in public["discard"]:
            assert tx(c["ability"])
        for s in range(players):
            test = E.player_view(st, s)["next_test"]
            assert test is None or tx(test["text"])
    out = E.outcome(st)
    assert out is not None and tx(out.reason).startswith(tuple(NAMES[:players]))
    assert {"start", "reveal", "round", "use", "game_over"} <= kinds


def test_card_terms_are_the_data_file_names() -> None:
    """The catalog's published card names (``term.card.<kind>``) are the English names of
    heaven_cards.csv (§2.1), and every kind has its one-line ability."""
    for card in CARDS.values():
        assert TX(Msg("card", {"name": {"term": f"card.{card.kind}"}, "code": card.code})) == card.short
        assert TX(Msg(f"ability.{card.kind}"))
