"""Conformance tests over the registry (design §7.2): every engine, random legal
playouts with chance sampled, checking the protocol's promises."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.text import Texts
from engines.base import (
    CHANCE,
    Engine,
    Event,
    GameError,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    replay,
)
from engines.registry import ENGINES, GAME_IDS, get

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"]
"""Display names by seat for formatting messages."""

MAX_STEPS = 6000

ENGINE_IDS = sorted(ENGINES)


def test_every_game_is_registered() -> None:
    assert sorted(GAME_IDS) == ENGINE_IDS


def test_unknown_game_lists_known_ids() -> None:
    with pytest.raises(KeyError, match="carnival"):
        get("chess")


def playout(engine: Engine, players: int, seed: int, options: dict | None = None, *, check_every: int = 1):
    """Play random legal actions until the end; return (state, log, visited states)."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed, options)
    log: list[tuple[int, dict]] = []
    visited = [state]
    for step in range(MAX_STEPS):
        movers = engine.to_move(state)
        if not movers:
            return state, log, visited
        assert engine.outcome(state) is None
        seat = rng.choice(sorted(movers))
        if seat == CHANCE:
            action = engine.sample_chance(state, random.Random(rng.random()))
        else:
            actions = engine.legal_actions(state, seat)
            assert actions, f"seat {seat} to move without a legal action"
            action = rng.choice(list(actions))
            if step % check_every == 0:
                # notation round-trips for the chosen action
                text = engine.describe_action(state, action)
                assert engine.parse_action(state, seat, text) == action, text
                assert engine.prompt(state, seat)
                label = Texts(engine.info.game_id, NAMES,
                              strict=True)(engine.action_label(state, action))
                assert 0 < len(label) <= 80, label
        before = copy.deepcopy(state)
        new_state, events = engine.apply(state, seat, action)
        assert state == before, "apply mutated its input"
        assert all(isinstance(e, Event) for e in events)
        json.dumps([e.to_json() for e in events])
        log.append((seat, engine.action_from_json(json.loads(json.dumps(engine.action_to_json(action))))))
        state = new_state
        visited.append(state)
    raise AssertionError(f"{engine.info.game_id}: game did not end in {MAX_STEPS} steps")


def _option_variants(engine: Engine) -> list[dict]:
    """Defaults plus each choice option's other values."""
    variants: list[dict] = [{}]
    for spec in engine.info.options:
        if spec.kind == "choice":
            variants += [{spec.key: c} for c in spec.choices if c != spec.default]
    return variants


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_random_playouts_end_with_outcome(game_id: str) -> None:
    engine = get(game_id)
    info = engine.info
    for players in range(info.min_players, info.max_players + 1):
        for index, options in enumerate(_option_variants(engine)):
            state, log, visited = playout(engine, players, seed=players * 7919 + index, options=options,
                                          check_every=5)
            outcome = engine.outcome(state)
            assert isinstance(outcome, Outcome)
            assert engine.to_move(state) == frozenset()
            assert len(outcome.scores) == players
            assert sorted(outcome.ranking) == list(range(players))
            assert outcome.winners and outcome.winners <= set(range(players))
            assert outcome.reason
            # replay from the log reproduces the state exactly
            assert replay(engine, players, 0, options, log) == state
            # JSON round-trip of states
            for s in visited[:: max(1, len(visited) // 20)] + [state]:
                assert engine.state_from_json(json.loads(json.dumps(engine.state_to_json(s)))) == s
            with pytest.raises(GameOver):
                engine.apply(state, 0, {"type": "anything"})


@pytest.mark.parametrize("game_id", ENGINE_IDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), data=st.data())
def test_hypothesis_playouts(game_id: str, seed: int, data: st.DataObject) -> None:
    engine = get(game_id)
    players = data.draw(st.integers(engine.info.min_players, engine.info.max_players))
    state, _, visited = playout(engine, players, seed, check_every=3)
    assert engine.outcome(state) is not None
    # views are JSON-ready and the public one never carries a hidden-info key
    for s in visited[:: max(1, len(visited) // 15)]:
        public = engine.player_view(s, None)
        json.dumps(public)
        for seat in range(players):
            json.dumps(engine.player_view(s, seat))


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_views_do_not_leak_hidden_information(game_id: str) -> None:
    engine = get(game_id)
    info = engine.info
    for players in (info.min_players, info.max_players):
        _, _, visited = playout(engine, players, seed=4242 + players, check_every=50)
        rng = random.Random(players)
        for s in visited[:: max(1, len(visited) // 25)]:
            for viewer in [None, *range(players)]:
                other = engine.shuffle_hidden(s, viewer, rng)
                assert engine.player_view(other, viewer) == engine.player_view(s, viewer), (
                    f"view of {viewer} depends on hidden information")
            assert "seed" not in json.dumps(engine.player_view(s, None)).lower()


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_wrong_seat_and_bad_actions_are_refused_without_change(game_id: str) -> None:
    engine = get(game_id)
    players = engine.info.min_players
    state = engine.new_game(players, 1, None)
    rng = random.Random(3)
    # advance past any opening chance
    while CHANCE in engine.to_move(state):
        state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
    movers = engine.to_move(state)
    before = copy.deepcopy(state)
    idle = [s for s in range(players) if s not in movers]
    if idle:
        legal_any = engine.legal_actions(state, min(movers))
        with pytest.raises(NotYourTurn):
            engine.apply(state, idle[0], legal_any[0])
    mover = min(movers)
    with pytest.raises(IllegalAction):
        engine.apply(state, mover, {"type": "no-such-move"})
    with pytest.raises(IllegalAction):
        engine.parse_action(state, mover, "no such move at all")
    with pytest.raises(GameError):
        engine.apply(state, CHANCE, {"type": "no-such-chance"})
    assert state == before


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_options_are_validated(game_id: str) -> None:
    engine = get(game_id)
    info = engine.info
    with pytest.raises(InvalidOptions, match="no_such_option"):
        engine.new_game(info.min_players, 1, {"no_such_option": 1})
    with pytest.raises(InvalidOptions):
        engine.new_game(info.max_players + 1, 1, None)
    for spec in info.options:
        if spec.kind == "choice":
            with pytest.raises(InvalidOptions, match=spec.key):
                engine.new_game(info.min_players, 1, {spec.key: "surely-not-a-value"})


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_timeout_action_is_legal_everywhere(game_id: str) -> None:
    engine = get(game_id)
    players = engine.info.max_players
    _, _, visited = playout(engine, players, seed=99, check_every=50)
    for s in visited[:: max(1, len(visited) // 40)]:
        for seat in engine.to_move(s) - {CHANCE}:
            action = engine.timeout_action(s, seat)
            engine.apply(s, seat, action)  # must not raise


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_state_from_json_refuses_foreign_states(game_id: str) -> None:
    engine = get(game_id)
    state = engine.new_game(engine.info.min_players, 1, None)
    bad = dict(state, game="other")
    with pytest.raises(GameError):
        engine.state_from_json(bad)
    with pytest.raises(GameError):
        engine.state_from_json(dict(state, state_version=-5))


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_rules_text_exists(game_id: str) -> None:
    text = get(game_id).rules_text()
    assert len(text) > 200 and get(game_id).info.name.split()[0].lower() in text.lower()
