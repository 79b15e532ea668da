"""Conformance tests over the registry (docs/DESIGN.md §7.2, docs/PROTOCOL.md): every
engine, playouts with chance sampled, checking the protocol's promises.

The main test lets hypothesis draw the playout itself: the player count, the options,
and at each of the first ``DRAWN_STEPS`` log positions the seat (when several may act),
the index of its legal action and the seed of a chance outcome. A failing playout
therefore shrinks to a short sequence of small choices, printed as notation with the
falsifying example. After ``DRAWN_STEPS`` the game is finished from one drawn seed.

Promises checked (``Checker``): the game ends within ``MAX_STEPS``; ``to_move`` is empty
exactly when there is an ``outcome``; every legal action applies, without mutating the
state it was given, and reading a position (prompts, labels, paths, decision trees,
views) leaves it unchanged too; notation round-trips (``parse_action(describe_action(a)) == a``),
also for ``typed_moves``; states, actions and events round-trip through JSON; chance
sampling is a function of its RNG; replaying the log rebuilds the state; views are
JSON-ready, do not change under ``shuffle_hidden`` (no leak) and the public one holds
no seed; the decision tree of every seat builds; and every event, prompt, label, hint,
path step, message inside a view and end reason formats with
``bot.text.Texts(game_id, names, strict=True)`` (legacy English strings pass through).
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from bot.text import MissingText, Texts
from engines.base import (
    CHANCE,
    Action,
    Engine,
    Event,
    GameError,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    Seat,
    State,
    replay,
    seat_letter,
)
from engines.decisions import DecisionTree
from engines.notation import Notation
from engines.registry import ENGINES, GAME_IDS, get, notation
from tests.golden.cases import NAMES

MAX_STEPS = 6000
"""A game that has not ended after this many log entries fails (an endless loop)."""

DRAWN_STEPS = 120
"""Log positions whose choices hypothesis draws; the rest of the game follows one seed."""

THOROUGH_EVERY = 3
"""While drawn, every third position applies all its legal actions and checks its views
(the chosen action is always applied and checked)."""

EXAMPLES = int(os.environ.get("CONFORMANCE_EXAMPLES", "6"))
"""Hypothesis examples per game (each a whole game); set ``CONFORMANCE_EXAMPLES`` for a
longer hunt (``CONFORMANCE_EXAMPLES=200 make test PYTEST_ARGS=tests/engines``)."""

PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
"""Hypothesis's phases without ``explain``: explaining which draws could vary replays
whole games for minutes; the shrunk sequence itself is what a reader needs."""

ENGINE_IDS = list(ENGINES)


# --------------------------------------------------------------------------- checks


def messages_in(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every ``Msg.to_json()`` form (``{"msg": key, "params": {...}}``) inside a JSON value."""
    if isinstance(value, Mapping):
        if isinstance(value.get("msg"), str) and set(value) == {"msg", "params"}:
            yield value
            return
        for item in value.values():
            yield from messages_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from messages_in(item)


def snapshot(state: State) -> str:
    """A state's sorted JSON text: equal texts, equal states (much cheaper than a deep copy)."""
    return json.dumps(state, sort_keys=True)


def json_round_trip(value: Any) -> Any:
    """``value`` through ``json.dumps``/``json.loads`` (raises TypeError when not JSON-ready)."""
    return json.loads(json.dumps(value))


class Checker:
    """The protocol checks of one game of ``engine`` with ``players`` seats.

    Every check raises ``AssertionError`` (or the engine's own error) naming what broke.
    """

    def __init__(self, engine: Engine, players: int) -> None:
        self.engine = engine
        self.notes = type(notation(engine.info.game_id))(engine)  # (the game's notation of this very engine)
        self.players = players
        self.texts = Texts(engine.info.game_id, NAMES[:players], strict=True)

    def text(self, value: Any, what: str, *, empty: bool = False) -> str:
        """``value`` formatted for the players; it must exist in the catalogs and (unless
        ``empty``) not be empty."""
        try:
            out = self.texts(value)
        except MissingText as exc:
            raise AssertionError(f"{what} cannot be formatted: {exc}") from None
        assert empty or out.strip(), f"{what} formats to an empty text: {value!r}"
        return out

    def position(self, state: State, *, thorough: bool) -> None:
        """The checks of one position: the end rule, prompts, every mover's labels, hints,
        paths and decision tree; when ``thorough`` also that every legal action and typed
        move applies and round-trips its notation, and the state's JSON round-trip."""
        engine = self.engine
        movers = engine.to_move(state)
        assert (not movers) == (engine.outcome(state) is not None), "to_move empty ⇔ outcome"
        for seat in range(self.players):
            self.text(self.notes.prompt(state, seat), f"prompt of seat {seat}", empty=seat not in movers)
        for seat in sorted(movers - {CHANCE}):
            actions = list(engine.legal_actions(state, seat))
            assert actions, f"seat {seat} is to move without a legal action"
            DecisionTree.of(self.notes, state, seat)
            for action in actions:
                label = self.text(self.notes.action_label(state, action), f"label of {action}")
                assert len(label) <= 80, f"label over 80 characters: {label!r}"
                hint = self.notes.action_hint(state, action)
                if hint is not None:
                    self.text(hint, f"hint of {action}")
                for step in self.notes.action_path(state, action):
                    self.text(step, f"path step of {action}")
            if thorough:
                frozen = snapshot(state)
                typed = [a for a in self.notes.typed_moves(state, seat) if a not in actions]
                for action in actions + typed:
                    self.notation(state, seat, action)
                    self.apply(state, seat, action, frozen)
        if thorough:
            assert engine.state_from_json(json_round_trip(engine.state_to_json(state))) == state

    def notation(self, state: State, seat: Seat, action: Action) -> None:
        """``parse_action`` reads back what ``describe_action`` wrote."""
        text = self.notes.describe_action(state, action)
        assert self.notes.parse_action(state, seat, text) == action, f"notation {text!r} of {action}"

    def apply(self, state: State, seat: Seat, action: Action, frozen: str | None = None
              ) -> tuple[State, tuple[Event, ...]]:
        """Apply ``action``; check it left ``state`` alone (``frozen``: its ``snapshot``,
        when known) and that its events are JSON-ready and format. Returns what ``apply``
        returned."""
        engine = self.engine
        before = frozen or snapshot(state)
        new_state, events = engine.apply(state, seat, action)
        assert snapshot(state) == before, f"apply mutated its input ({action})"
        assert engine.action_from_json(json_round_trip(engine.action_to_json(action))) == action
        for event in events:
            assert isinstance(event, Event), event
            stored = json_round_trip(event.to_json())
            assert Event.from_json(stored).to_json() == stored, f"event {event.kind} JSON round-trip"
            self.text(self.texts.event(stored), f"event {event.kind}")
        return new_state, tuple(events)

    def views(self, state: State, rng: random.Random) -> None:
        """Views are JSON-ready, their messages format, they do not change when what their
        viewer cannot see is reshuffled, and the public view holds no seed."""
        engine = self.engine
        for viewer in [None, *range(self.players)]:
            view = engine.player_view(state, viewer)
            dumped = json.dumps(view)
            assert json.loads(dumped) == view, f"view of {viewer} is not plain JSON"
            for message in messages_in(view) if '"msg"' in dumped else ():
                self.text(message, f"message {message['msg']} in the view of {viewer}")
            other = engine.shuffle_hidden(state, viewer, rng)
            assert engine.player_view(other, viewer) == view, f"view of {viewer} depends on hidden information"
        assert "seed" not in json.dumps(engine.player_view(state, None)).lower()

    def end(self, state: State) -> Outcome:
        """The finished game: a well-formed outcome whose reason formats; no action is accepted."""
        engine = self.engine
        outcome = engine.outcome(state)
        assert isinstance(outcome, Outcome)
        assert engine.to_move(state) == frozenset()
        assert len(outcome.scores) == self.players
        assert sorted(outcome.ranking) == list(range(self.players))
        assert outcome.winners and outcome.winners <= set(range(self.players))
        self.text(outcome.reason, "end reason")
        json.dumps(outcome.to_json())
        with pytest.raises(GameOver):
            engine.apply(state, 0, {"type": "anything"})
        return outcome


def chance_action(engine: Engine, state: State, seed: int) -> Action:
    """The chance outcome sampled with ``random.Random(seed)``; sampling again with the same
    seed must give the same outcome (the host re-samples after a crash)."""
    action = engine.sample_chance(state, random.Random(seed))
    assert engine.sample_chance(state, random.Random(seed)) == action, "sample_chance is not a function of its rng"
    return action


def _who(seat: Seat) -> str:
    return "chance" if seat == CHANCE else seat_letter(seat)


def _notation(notes: Notation, state: State, seat: Seat, action: Action) -> str:
    try:
        return notes.describe_action(state, action)
    except GameError:
        return json.dumps(action, sort_keys=True)


# --------------------------------------------------------------------------- playouts


def drawn_playout(checker: Checker, options: Mapping[str, Any], data: st.DataObject
                  ) -> tuple[State, list[tuple[Seat, Action]]]:
    """A whole game whose first ``DRAWN_STEPS`` choices hypothesis draws (see the module
    docstring). Every position is checked (``Checker.position``); every
    ``THOROUGH_EVERY``-th drawn one also thoroughly, with its views; every tenth after.

    Returns:
        (final state, log of (seat, action)).
    """
    engine = checker.engine
    state = engine.new_game(checker.players, 0, options)
    log: list[tuple[Seat, Action]] = []
    tail: random.Random | None = None
    view_rng = random.Random(0)
    for step in range(MAX_STEPS):
        drawn = step < DRAWN_STEPS
        thorough = drawn and step % THOROUGH_EVERY == 0
        frozen = snapshot(state) if thorough else None
        checker.position(state, thorough=thorough)
        if thorough or step % 10 == 0:
            checker.views(state, view_rng)
        if frozen is not None:  # (the host shares one loaded state among its readers: GameService.state)
            assert snapshot(state) == frozen, "reading the position (labels, paths, views, ...) changed the state"
        movers = sorted(engine.to_move(state))
        if not movers:
            return state, log
        if not drawn and tail is None:
            tail = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed of the rest"))
        if tail is None:
            seat = movers[0] if len(movers) == 1 else data.draw(st.sampled_from(movers), label=f"#{step} seat")
        else:
            seat = tail.choice(movers)
        if seat == CHANCE:
            seed = data.draw(st.integers(0, 2**16), label=f"#{step} chance") if tail is None else tail.getrandbits(32)
            action = chance_action(engine, state, seed)
        else:
            actions = list(engine.legal_actions(state, seat))
            if tail is not None:
                action = tail.choice(actions)
            else:
                action = actions[data.draw(st.integers(0, len(actions) - 1), label=f"#{step} action")
                                 if len(actions) > 1 else 0]
        if drawn:
            note(f"#{step + 1} {_who(seat)}: {_notation(checker.notes, state, seat, action)}")
        state, _ = checker.apply(state, seat, action)
        log.append((seat, engine.action_from_json(json_round_trip(engine.action_to_json(action)))))
    raise AssertionError(f"{engine.info.game_id}: the game did not end in {MAX_STEPS} steps")


def seeded_playout(engine: Engine, players: int, seed: int, options: Mapping[str, Any] | None = None,
                   ) -> tuple[State, list[tuple[Seat, Action]], list[State]]:
    """Random legal actions from ``random.Random(seed)`` until the end (light checks:
    every applied action, every fourth position).

    Returns:
        (final state, log of (seat, action), every state visited, the first included).
    """
    checker = Checker(engine, players)
    rng = random.Random(seed)
    state = engine.new_game(players, seed, options)
    log: list[tuple[Seat, Action]] = []
    visited = [state]
    for step in range(MAX_STEPS):
        if step % 4 == 0:
            checker.position(state, thorough=False)
        movers = sorted(engine.to_move(state))
        if not movers:
            return state, log, visited
        seat = rng.choice(movers)
        if seat == CHANCE:
            action = chance_action(engine, state, rng.getrandbits(32))
        else:
            action = rng.choice(list(engine.legal_actions(state, seat)))
        state, _ = checker.apply(state, seat, action)
        log.append((seat, action))
        visited.append(state)
    raise AssertionError(f"{engine.info.game_id}: the game did not end in {MAX_STEPS} steps")


def fitting_counts(engine: Engine, options: Mapping[str, Any]) -> list[int]:
    """The player counts ``options`` can start with (a spec may tie an option to the count:
    Ora's ``mode=long`` is for 2 players only)."""
    out = []
    for n in range(engine.info.min_players, engine.info.max_players + 1):
        try:
            engine.new_game(n, 0, options)
        except InvalidOptions:
            continue
        out.append(n)
    return out


def option_variants(engine: Engine) -> list[dict[str, Any]]:
    """Defaults, each choice option's other values, and each bool option flipped."""
    variants: list[dict[str, Any]] = [{}]
    for spec in engine.info.options:
        if spec.kind == "choice":
            variants += [{spec.key: c} for c in spec.choices if c != spec.default]
        elif spec.kind == "bool":
            variants.append({spec.key: not spec.default})
    return variants


# --------------------------------------------------------------------------- tests


def test_every_game_is_registered() -> None:
    assert list(GAME_IDS) == ENGINE_IDS


def test_unknown_game_lists_known_ids() -> None:
    with pytest.raises(KeyError, match="carnival"):
        get("chess")


@pytest.mark.parametrize("game_id", ENGINE_IDS)
@settings(max_examples=EXAMPLES, deadline=None, phases=PHASES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_drawn_playouts_keep_every_promise(game_id: str, data: st.DataObject) -> None:
    engine = get(game_id)
    options = data.draw(st.sampled_from(option_variants(engine)), label="options")
    players = data.draw(st.sampled_from(fitting_counts(engine, options)), label="players")
    checker = Checker(engine, players)
    state, log = drawn_playout(checker, options, data)
    checker.end(state)
    assert replay(engine, players, 0, options, log) == state


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_every_player_count_and_option_plays_to_the_end(game_id: str) -> None:
    engine = get(game_id)
    info = engine.info
    counts = list(range(info.min_players, info.max_players + 1))
    variants = option_variants(engine)
    # every player count with the defaults, every option variant at a rotating count
    games: list[tuple[int, dict[str, Any]]] = [(n, {}) for n in counts]
    for i, v in enumerate(variants[1:]):
        fitting = fitting_counts(engine, v)
        games.append((fitting[i % len(fitting)], v))
    for index, (players, options) in enumerate(games):
        state, log, visited = seeded_playout(engine, players, players * 7919 + index, options)
        Checker(engine, players).end(state)
        assert replay(engine, players, 0, options, log) == state
        for s in visited[:: max(1, len(visited) // 20)]:
            assert engine.state_from_json(json_round_trip(engine.state_to_json(s))) == s


@pytest.mark.parametrize("game_id", ENGINE_IDS)
def test_views_do_not_leak_hidden_information(game_id: str) -> None:
    engine = get(game_id)
    info = engine.info
    for players in (info.min_players, info.max_players):
        _, _, visited = seeded_playout(engine, players, 4242 + players)
        checker = Checker(engine, players)
        rng = random.Random(players)
        for s in visited[:: max(1, len(visited) // 25)]:
            checker.views(s, rng)


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
        notation(game_id).parse_action(state, mover, "no such move at all")
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
    _, _, visited = seeded_playout(engine, players, 99)
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
    text = notation(game_id).rules_text()
    assert len(text) > 200 and get(game_id).info.name.split()[0].lower() in text.lower()


# --------------------------------------------------------------------------- the checks can fail


def test_messages_in_finds_nested_messages_only() -> None:
    view = {"reason": {"msg": "reason.x", "params": {}}, "log": [{"msg": "a", "params": {"n": 1}}],
            "card": {"msg": "not a message", "colour": "red"}}
    assert [m["msg"] for m in messages_in(view)] == ["reason.x", "a"]


def test_checker_refuses_an_unknown_message_key() -> None:
    checker = Checker(get(ENGINE_IDS[0]), 2)
    from engines.base import Msg

    with pytest.raises(AssertionError, match="no.such.key"):
        checker.text(Msg("no.such.key"), "label")
    assert checker.text("{p1} moves", "legacy event") == f"{NAMES[1]} moves"


def _first_choice(engine: Engine, players: int) -> int:
    """The log position of the first choice between two actions when every draw is 0."""
    state = engine.new_game(players, 0, {})
    for step in range(MAX_STEPS):
        movers = sorted(engine.to_move(state))
        seat = movers[0]
        if seat != CHANCE and len(engine.legal_actions(state, seat)) > 1:
            return step
        action = chance_action(engine, state, 0) if seat == CHANCE else engine.legal_actions(state, seat)[0]
        state, _ = engine.apply(state, seat, action)
    raise AssertionError("no choice before the step cap")


def test_a_planted_bug_shrinks_to_a_short_playout() -> None:
    """An engine whose every second legal action crashes fails the drawn playout, and the
    falsifying example hypothesis reports is the short path to the first such action."""
    engine = get(ENGINE_IDS[0])
    players = engine.info.min_players

    class Planted(type(engine)):  # type: ignore[misc]
        def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
            if seat != CHANCE and action != self.legal_actions(state, seat)[0]:
                raise RuntimeError("planted bug")
            return super().apply(state, seat, action)  # type: ignore[no-any-return]

    @settings(max_examples=50, deadline=None, database=None, phases=PHASES)
    @given(data=st.data())
    def playout(data: st.DataObject) -> None:
        drawn_playout(Checker(Planted(), players), {}, data)

    with pytest.raises(RuntimeError, match="planted bug") as failure:
        playout()
    steps = [n for n in getattr(failure.value, "__notes__", []) if n.startswith("#")]
    assert steps, "the falsifying example names its steps"
    assert len(steps) <= _first_choice(engine, players) + THOROUGH_EVERY, steps
