"""The AI search (engines/ai/): legal moves everywhere, no peeking.

Budgets are small (a few iterations) so the file stays fast; strength is measured by
bench/ai_strength.py, not here.
"""

from __future__ import annotations

import copy
import importlib
import math
import pickle
import random
from typing import Any

import pytest

from engines.ai import LEVELS, Budget, budget_for, budget_of, choose, search
from engines.ai.hooks import GameHooks, hooks_for, identity_determinize, random_rollout
from engines.base import CHANCE, Engine, EngineInfo, NotYourTurn, Outcome, Seat, State, copy_state
from engines.registry import ENGINES, GAME_IDS

HIDDEN = [g for g in GAME_IDS if ENGINES[g].info.has_hidden_info]
SMALL = Budget(iterations=6, rollout_limit=300)


def positions(engine: Engine, players: int, seed: int, every: int) -> list[tuple[State, Seat]]:
    """Positions of a random game (``random.Random(seed)``) where a player seat has at least
    two legal actions, one in ``every`` of them, with that seat."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed, {})
    found: list[tuple[State, Seat]] = []
    count = 0
    while movers := sorted(engine.to_move(state)):
        if movers == [CHANCE]:
            state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
            continue
        for seat in movers:
            if len(engine.legal_actions(state, seat)) > 1:
                count += 1
                if count % every == 0:
                    found.append((state, seat))
        seat = rng.choice(movers)
        state, _ = engine.apply(state, seat, rng.choice(list(engine.legal_actions(state, seat))))
    return found


def player_counts(engine: Engine) -> list[int]:
    return sorted({engine.info.min_players, engine.info.max_players})


@pytest.mark.parametrize("game_id", HIDDEN)
def test_determinize_keeps_the_view_and_reads_nothing_hidden(game_id: str) -> None:
    engine = ENGINES[game_id]
    det = hooks_for(engine).determinize
    for players in player_counts(engine):
        for state, seat in positions(engine, players, 11 + players, every=7)[:20]:
            view = engine.player_view(state, seat)
            mine = det(state, seat, random.Random(5))
            assert engine.player_view(mine, seat) == view
            other = engine.shuffle_hidden(state, seat, random.Random(9))
            assert det(other, seat, random.Random(5)) == mine, "determinize read a hidden fact"


@pytest.mark.parametrize("game_id", HIDDEN)
def test_determinize_resamples_what_the_seat_cannot_see(game_id: str) -> None:
    engine = ENGINES[game_id]
    det = hooks_for(engine).determinize
    states = positions(engine, engine.info.max_players, 3, every=5)
    assert any(det(s, seat, random.Random(1)) != det(s, seat, random.Random(2)) for s, seat in states)


@pytest.mark.parametrize("game_id", HIDDEN)
def test_same_move_when_only_another_seats_secrets_differ(game_id: str) -> None:
    engine = ENGINES[game_id]
    checked = 0
    for state, seat in positions(engine, engine.info.max_players, 21, every=9)[:6]:
        other = engine.shuffle_hidden(state, seat, random.Random(4))
        a = search(engine, state, seat, SMALL, random.Random(8))
        b = search(engine, other, seat, SMALL, random.Random(8))
        assert a.action == b.action and a.visits == b.visits
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_move_is_legal_in_random_positions(game_id: str) -> None:
    engine = ENGINES[game_id]
    for players in player_counts(engine):
        for state, seat in positions(engine, players, 31 + players, every=11)[:5]:
            before = copy.deepcopy(state)
            result = search(engine, state, seat, SMALL, random.Random(2))
            assert result.action in list(engine.legal_actions(state, seat))
            assert result.errors == 0
            assert result.iterations == SMALL.iterations
            assert sum(result.visits) == SMALL.iterations
            assert state == before, "the search mutated the state"


def test_a_single_legal_action_is_played_without_search() -> None:
    engine = ENGINES["heaven"]
    rng = random.Random(0)
    state = engine.new_game(4, 0, {})
    while movers := sorted(engine.to_move(state)):
        seat = movers[0]
        if seat == CHANCE:
            state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
            continue
        acts = list(engine.legal_actions(state, seat))
        if len(acts) == 1:
            result = search(engine, state, seat, SMALL, rng)
            assert result.action == acts[0] and result.iterations == 0
            return
        state, _ = engine.apply(state, seat, acts[-1])
    raise AssertionError("no forced move in the game")


def test_levels_and_errors() -> None:
    assert [LEVELS[k].iterations for k in ("easy", "normal", "hard")] == sorted(
        LEVELS[k].iterations for k in LEVELS)
    with pytest.raises(ValueError, match="easy"):
        budget_of("grandmaster")
    engine = ENGINES["illumination"]
    state = engine.new_game(2, 0, {})
    idle = next(s for s in range(2) if s not in engine.to_move(state))
    with pytest.raises(NotYourTurn):
        choose(engine, state, idle, "easy", random.Random(0))


def test_a_games_own_iterations_replace_the_levels_and_keep_the_time_cap() -> None:
    carnival = ENGINES["carnival"]
    assert {level: budget_for(carnival, level).iterations for level in LEVELS} == {
        "easy": 72, "normal": 360, "hard": 1200}
    for level, budget in LEVELS.items():
        assert budget_for(carnival, level).seconds == budget.seconds
        assert budget_for(ENGINES["heaven"], level) == budget
    with pytest.raises(ValueError, match="easy"):
        budget_for(carnival, "grandmaster")


def test_choose_runs_from_pickled_arguments() -> None:
    engine = ENGINES["ora"]
    state, seat = positions(engine, 2, 5, every=3)[0]
    args = pickle.loads(pickle.dumps((engine, state, seat, "easy", random.Random(3), SMALL)))
    assert choose(*args) == choose(engine, state, seat, "easy", random.Random(3), SMALL)


def test_a_cut_off_evaluation_scores_each_seats_lead_over_the_best_other() -> None:
    from engines.ai.search import MARGIN_SHARE, MARGIN_UNITS, _evaluated

    def mix(units: float) -> float:
        narrow, wide = 1 / (1 + math.exp(-units)), 1 / (1 + math.exp(-units / MARGIN_UNITS))
        return (1 - MARGIN_SHARE) * narrow + MARGIN_SHARE * wide

    a, b, c = _evaluated([10.0, 4.0, 7.0], 3.0)
    assert a == pytest.approx(mix(1))  # 10 leads 7 by one unit
    assert b == pytest.approx(mix(-2))  # 4 trails 10 by two
    assert c == pytest.approx(mix(-1))


def test_a_seat_far_ahead_still_prefers_more_points() -> None:
    from engines.ai.search import _evaluated

    far, farther = _evaluated([60.0, 20.0], 6.0)[0], _evaluated([66.0, 20.0], 6.0)[0]
    assert far < farther
    assert farther - far > 0.005  # the narrow logistic alone differs by less than 0.0002 here


@pytest.mark.parametrize(("game_id", "players"), [("eguan", 3), ("canterbury", 3), ("heaven", 4), ("ora", 3)])
def test_playouts_stop_at_their_depth_and_are_evaluated(game_id: str, players: int) -> None:
    engine = ENGINES[game_id]
    hooks = hooks_for(engine)
    assert hooks.evaluate is not None and hooks.depth is not None and hooks.depth < 100
    state, seat = positions(engine, players, 5, every=4)[2]
    values = hooks.evaluate(hooks.determinize(state, seat, random.Random(1)))
    assert len(values) == players
    found = search(engine, state, seat, Budget(iterations=20), random.Random(3))
    assert found.action in engine.legal_actions(state, seat) and found.errors == 0
    assert sum(found.visits) == 20


def test_heaven_and_ora_evaluate_pawn_positions_and_live_scores() -> None:
    """Heaven: with empty public sets and hands nothing is in reach, so the value is the position."""
    heaven, ora = ENGINES["heaven"], ENGINES["ora"]
    state, _ = positions(heaven, 4, 7, every=10)[-1]
    moved = copy.deepcopy(state)
    moved["positions"] = [0, 3, 6, 1]
    by_position, by_score = hooks_for(heaven).evaluate, hooks_for(ora).evaluate
    assert by_position is not None and by_score is not None
    moved["public"] = [[], [], [], []]
    moved["hands"] = [[], [], [], []]
    assert by_position(moved) == [0.0, 3.0, 6.0, 1.0]
    state, _ = positions(ora, 2, 7, every=10)[-1]
    assert max(ora.scores(state)) > 0
    assert list(by_score(state)) == list(ora.scores(state))


def test_copy_state_is_a_deep_copy_that_keeps_shared_parts_shared() -> None:
    shared = [1, 2]
    state: dict[str, Any] = {"a": shared, "b": shared, "c": {"d": [None, True, 1.5, "x"]}, "e": (1, [3])}
    copied = copy_state(state)
    assert copied == state
    assert copied["a"] is not shared and copied["a"] is copied["b"]  # as copy.deepcopy does
    copied["c"]["d"].append(4)
    assert state["c"]["d"] == [None, True, 1.5, "x"]

    class Token:
        pass

    odd = {"t": Token(), "l": [1]}
    again = copy_state(odd)  # not marshal-able: copy.deepcopy
    assert isinstance(again["t"], Token) and again["t"] is not odd["t"] and again["l"] == [1]


@pytest.mark.parametrize("game_id", ["carnival", "canterbury", "eguan", "heaven"])
def test_the_fast_state_copy_leaves_the_search_unchanged(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seed, same move and visits with ``copy_state`` as with ``copy.deepcopy``."""
    engine = ENGINES[game_id]
    cases = positions(engine, engine.info.min_players, 17, every=5)[:3]
    budget = Budget(iterations=12)
    fast = [search(engine, st, seat, budget, random.Random(6)) for st, seat in cases]
    for module in (f"engines.{game_id}.engine", f"engines.{game_id}.ai"):
        monkeypatch.setattr(importlib.import_module(module), "copy_state", copy.deepcopy)
    slow = [search(engine, st, seat, budget, random.Random(6)) for st, seat in cases]
    assert len(cases) == 3
    assert [(r.action, r.visits) for r in fast] == [(r.action, r.visits) for r in slow]


class Pennies(Engine):
    """Two seats pick at once and in secret (a toy game for the blind search): seat 1 wins by
    matching seat 0's A or B; seat 0 may instead play C, a die that it wins on a 1 in 3."""

    info = EngineInfo("pennies", "Pennies", "Pennies", 2, 2, has_hidden_info=True)

    def new_game(self, players: int, seed: int, options: Any = None) -> State:
        return {"picks": [None, None], "coin": None}

    def to_move(self, state: State) -> frozenset[Seat]:
        unpicked = frozenset(s for s in (0, 1) if state["picks"][s] is None)
        if unpicked:
            return unpicked
        return frozenset({CHANCE}) if state["picks"][0] == "C" and state["coin"] is None else frozenset()

    def legal_actions(self, state: State, seat: Seat) -> list[dict[str, Any]]:
        if seat == CHANCE:
            return [{"coin": c} for c in range(3)]
        return [{"pick": p} for p in ("ABC" if seat == 0 else "AB")] if seat in self.to_move(state) else []

    def sample_chance(self, state: State, rng: random.Random) -> dict[str, Any]:
        return {"coin": rng.randrange(3)}

    def apply(self, state: State, seat: Seat, action: Any) -> tuple[State, tuple[()]]:
        new = copy.deepcopy(state)
        if seat == CHANCE:
            new["coin"] = action["coin"]
        else:
            new["picks"][seat] = action["pick"]
        return new, ()

    def outcome(self, state: State) -> Outcome | None:
        if self.to_move(state):
            return None
        mine, theirs = state["picks"]
        won = state["coin"] == 0 if mine == "C" else mine != theirs
        winner = 0 if won else 1
        return Outcome((1.0 - winner, float(winner)), (winner, 1 - winner), frozenset({winner}), "")

    def scores(self, state: State) -> tuple[float, ...]:
        out = self.outcome(state)
        return (0.0, 0.0) if out is None else out.scores


@pytest.mark.parametrize("seed", range(4))
def test_a_blind_search_does_not_let_the_opponent_answer_a_secret_pick(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a turn-based tree seat 1 sees seat 0's pick and matches it, so seat 0 takes the 1 in 3
    of C; with ``blind`` seat 1 picks without seeing it and A or B (1 in 2) is better."""
    engine = Pennies()
    state = engine.new_game(2, 1)
    budget = Budget(iterations=400)
    picks = {}
    for blind in (False, True):
        hooks = GameHooks(determinize=identity_determinize, rollout=random_rollout, blind=blind)
        monkeypatch.setattr(importlib.import_module("engines.ai.search"), "hooks_for", lambda engine, hooks=hooks: hooks)
        picks[blind] = search(engine, state, 0, budget, random.Random(seed)).action["pick"]
    assert picks[False] == "C"
    assert picks[True] in ("A", "B")


def test_the_blind_search_keeps_the_same_move_for_the_same_seed() -> None:
    engine = ENGINES["carnival"]
    assert hooks_for(engine).blind
    cases = [(st, seat) for st, seat in positions(engine, 3, 21, every=2) if st["phase"] == "choose"][:3]
    assert len(cases) == 3
    budget = Budget(iterations=30)
    first = [search(engine, st, seat, budget, random.Random(2)) for st, seat in cases]
    again = [search(engine, st, seat, budget, random.Random(2)) for st, seat in cases]
    assert [(r.action, r.visits) for r in first] == [(r.action, r.visits) for r in again]


class Count(Engine):
    """Seat 0 adds one of ``steps`` to its score once (a toy game for the root prior): several
    actions add the same amount (a ``copy`` field that changes nothing), and seat 1 starts
    ``lead`` points behind."""

    info = EngineInfo("count", "Count", "Count", 2, 2)
    steps = (1, 5, 2, 5, 1, 3)

    def __init__(self, lead: int = 0) -> None:
        self.lead = lead

    def new_game(self, players: int, seed: int, options: Any = None) -> State:
        return {"score": [self.lead, 0], "done": False}

    def to_move(self, state: State) -> frozenset[Seat]:
        return frozenset() if state["done"] else frozenset({0})

    def legal_actions(self, state: State, seat: Seat) -> list[dict[str, Any]]:
        return [] if state["done"] or seat != 0 else [{"add": n, "copy": i} for i, n in enumerate(self.steps)]

    def apply(self, state: State, seat: Seat, action: Any) -> tuple[State, tuple[()]]:
        return {"score": [state["score"][0] + action["add"], state["score"][1]], "done": True}, ()

    def outcome(self, state: State) -> Outcome | None:
        if not state["done"]:
            return None
        return Outcome(tuple(float(x) for x in state["score"]), (0, 1), frozenset({0}), "")

    def scores(self, state: State) -> tuple[float, ...]:
        return tuple(float(x) for x in state["score"])


def count_hooks() -> GameHooks:
    return GameHooks(determinize=identity_determinize, rollout=random_rollout,
                     evaluate=lambda st: [float(x) for x in st["score"]], depth=4, scale=2.0)


def test_the_root_prior_groups_actions_that_leave_the_same_state() -> None:
    from engines.ai.search import _root_prior

    engine = Count()
    state = engine.new_game(2, 0)
    actions = engine.legal_actions(state, 0)
    prior, leads, order = _root_prior(engine, count_hooks(), state, 0, actions, 2, random.Random(1))
    # the copy field is not kept in the state, so equal amounts leave equal states: the first
    # of each amount stands for its group, best one-ply lead first: 5 (index 1), 3, 2, 1
    assert order == [1, 5, 2, 0]
    assert leads == [1.0, 5.0, 2.0, 5.0, 1.0, 3.0]
    assert prior[1] == prior[3] == 1.0 and prior[0] == prior[4] == 0.0


@pytest.mark.parametrize("lead", [0, 60])
def test_a_seat_far_ahead_still_takes_the_most_points(lead: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every action wins; at a 60-point lead the win chance cannot tell them apart, the
    margin part of the reward and the per-seat scaling in UCB still do."""
    hooks = count_hooks()
    monkeypatch.setattr(importlib.import_module("engines.ai.search"), "hooks_for", lambda engine: hooks)
    engine = Count(lead)
    found = search(engine, engine.new_game(2, 0), 0, Budget(iterations=40), random.Random(4))
    assert found.action["add"] == 5
    assert found.visits[1] > sum(found.visits) / 2
    assert found.visits[3] == 0  # the same state as index 1: grouped, not searched


def test_heaven_values_what_is_in_reach_below_one_space() -> None:
    from engines.heaven.ai import GATE_CARD, GATE_HELD, HAND_CARD, LAST_HAND_CARD, readiness

    heaven = ENGINES["heaven"]
    state, _ = positions(heaven, 4, 7, every=10)[-1]
    st = copy.deepcopy(state)
    st["positions"] = [5, 5, 2, 6]
    st["public"] = [["S01", "S04", "S07"], ["S01", "S02", "N28"], ["S01", "S04", "S07"], []]
    st["hands"] = [[], ["S10", "N31"], ["S10"], []]
    # space 5: three red saint 1s are a Gate set; a red saint 1, a red sinner 1 (one sinner
    # may stay: the set is still saint) and a blue 1 are two places of a red one
    assert readiness(st, 0) == pytest.approx(3 * GATE_CARD)
    # the red saint 1 in hand fills the third place; every card in hand is worth a little more
    assert readiness(st, 1) == pytest.approx(2 * GATE_CARD + GATE_HELD + 2 * LAST_HAND_CARD)
    st["hands"][1] = ["N31"]  # a second red sinner 1 cannot: the set would not be saint
    assert readiness(st, 1) == pytest.approx(2 * GATE_CARD + LAST_HAND_CARD)
    st["hands"][1] = []
    assert readiness(st, 1) == pytest.approx(2 * GATE_CARD)
    st["public"][1] = ["S16", "S25", "N53"]  # nothing of a Gate set: a sum or a faction alone is no progress
    assert readiness(st, 1) == 0.0
    assert readiness(st, 3) == 0.0  # on the Gate: nothing more in reach
    assert readiness(st, 2) == pytest.approx(HAND_CARD + 0.4 * 3 / 16)  # a sum of 3 against 16, one card in hand
    assert max(readiness(st, s) for s in range(4)) < 0.9  # never worth a space
    st["options"] = {**st["options"], "gate_same_colour": False}
    st["public"][1] = ["S01", "S02", "S03"]
    assert readiness(st, 1) == pytest.approx(3 * GATE_CARD)  # any colours when the option says so


def heaven_on_last_space(public: list[str], hand: list[str]) -> tuple[State, Seat]:
    """A Heaven position of a random game where the seat to act (its turn's action) stands
    on space 5 with ``public`` and ``hand``, every card taken from wherever it was (the
    cards it held go to the discard pile), so every card is still in one place."""
    heaven = ENGINES["heaven"]
    state, seat = next((st, s) for st, s in positions(heaven, 4, 7, every=3)
                       if st["phase"] == "play" and st["stage"] == "action" and st["chance"] is None)
    st = copy.deepcopy(state)
    wanted = set(public) | set(hand)
    for pile in (st["deck"], st["discard"], st["buffer"], *st["hands"], *st["public"]):
        pile[:] = [c for c in pile if c not in wanted]
    st["discard"] += st["public"][seat] + st["hands"][seat]
    st["public"][seat], st["hands"][seat] = list(public), list(hand)
    st["positions"] = [5 if s == seat else 3 for s in range(4)]
    return st, seat


def test_an_easy_heaven_ai_on_the_last_space_walks_through_the_gate() -> None:
    """Two red saint 1s in public, the third in hand: replacing the red 2 with it enters the
    Gate, and the easy level (24 iterations) sees it, for every search seed tried."""
    heaven = ENGINES["heaven"]
    state, seat = heaven_on_last_space(["S01", "S04", "S16"], ["S07", "N47", "S21"])
    assert {"type": "replace", "card": "S07", "out": "S16"} in heaven.legal_actions(state, seat)
    for seed in range(5):
        found = search(heaven, state, seat, budget_for(heaven, "easy"), random.Random(seed))
        assert found.action == {"type": "replace", "card": "S07", "out": "S16"}, seed
        after, _ = heaven.apply(state, seat, found.action)
        assert after["positions"][seat] == 6


def test_an_easy_heaven_ai_on_the_last_space_builds_its_gate_set() -> None:
    """One red saint 1 in public beside two cards that fit no Gate set, a red saint 1 in hand:
    the easy level puts it in place of one of them."""
    heaven = ENGINES["heaven"]
    state, seat = heaven_on_last_space(["S01", "S16", "N53"], ["S04", "N47"])
    for seed in range(5):
        found = search(heaven, state, seat, budget_for(heaven, "easy"), random.Random(seed))
        assert found.action["type"] == "replace" and found.action["card"] == "S04", (seed, found.action)
        assert found.action["out"] in ("S16", "N53")
