"""One search for every game: single-observer information-set MCTS.

Each iteration samples a determinization of the root state from the searching seat's view
(``engines.ai.hooks``: the per-game ``determinize``), walks an open-loop tree keyed by the
actions taken (chance outcomes are sampled with ``engine.sample_chance`` as the host does,
and are not tree nodes), expands one action, plays the game out with the game's rollout
policy and backs up each seat's reward into the nodes that seat chose. Selection is UCB1
with availability counts (an action is scored against the iterations in which it was
legal), as in Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search" (2012).

Rewards: a seat's share of the win (``1/len(winners)`` for a winner, else 0); a game with one
seat (Ora et Labora solo) uses its final score. A playout cut by ``Budget.rollout_limit`` is
scored by ``engine.scores`` the same way (the leaders share the win). A game with a cut-off
evaluation (``engines.ai.hooks``: ``evaluate``, ``PLAYOUT_DEPTH``, ``EVAL_SCALE``) stops its
playouts at that depth and scores the position by a logistic of each seat's lead over the best
other seat; in such a game a part of every reward (``MARGIN_SHARE``) follows the lead on a
wide scale, so a seat far ahead still prefers the move that scores more or ends the game. UCB
scales each seat's rewards to [0, 1] by the lowest and highest it has seen in the search.

Telling moves apart at the root (a game with an ``evaluate`` hook): every root action is
applied once in a few determinizations and scored one ply on (``_root_prior``). Actions that
leave the same state are one group (only the first is searched); the rest are searched best
prior first, widening progressively (``WIDEN_BASE``, ``WIDEN_RATE``) with a progressive bias
(``PRIOR_WEIGHT``) that fades with the visits; and a move that gives up ``GUARD_POINTS`` of
one-ply lead is played only when the search clearly prefers it (``GUARD_MARGIN``). Below the
root the tree is as before: expansion at random, UCB1.

Simultaneous secret picks (a game whose hooks set ``blind``): the tree is turn-based, so a
seat picking after another in the same simultaneous phase would choose knowing the earlier
pick, and the searcher, picking first, would play against opponents that answer its secret
(too cautious against real ones). With ``blind``, every later pick of the phase is chosen and
scored in a node shared by all the earlier picks (``_Node.blind``, one per seat, under the
node where the phase began); the tree below still follows the actual picks.

Everything here is a pure function of its arguments (the ``rng`` stream included): no
globals are written, and ``choose`` can run in a worker process (engines and actions pickle).
"""

from __future__ import annotations

import copy
import json
import marshal
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from engines.base import CHANCE, Action, Engine, GameError, NotYourTurn, Seat, State

from .hooks import Evaluate, GameHooks, RolloutPolicy, hooks_for


@dataclass(frozen=True)
class Budget:
    """How much a search may think.

    Attributes:
        iterations: determinize-select-playout-backup iterations (≥ 1).
        seconds: a wall-clock cap in seconds, or None (deterministic: iterations only).
        rollout_limit: most actions a playout takes past the tree before it is scored by
            ``engine.scores``.
        exploration: the UCB1 constant for rewards in [0, 1].
    """

    iterations: int
    seconds: float | None = None
    rollout_limit: int = 2000
    exploration: float = 0.5


LEVELS: Final[dict[str, Budget]] = {
    "easy": Budget(iterations=24, seconds=1.0),
    "normal": Budget(iterations=120, seconds=2.0),
    "hard": Budget(iterations=600, seconds=8.0),
}
"""The levels a lobby offers (easy, normal, hard) and their budgets. The wall-clock
caps keep a decision inside what a player waits for (normal: 2 s, so at most 2 s of CPU);
on an idle machine the iterations end a search first (bench/ai_strength.py counts how often
the CPU time passed the cap)."""

MARGIN_SHARE: Final = 0.25
"""The part of a reward that follows the margin on a wide scale (``_evaluated``, ``_reward``):
a seat far ahead, whose win chance is already near 1, still prefers the move that scores more
or ends the game sooner."""

MARGIN_UNITS: Final = 5.0
"""The wide scale of that part, in units of the game's ``EVAL_SCALE``."""

PRIOR_SAMPLES: Final = 2
"""Determinizations the root's one-ply prior is averaged over (``_root_prior``)."""

PRIOR_WEIGHT: Final = 1.0
"""Progressive bias: a root action's prior counts as this many visits of its one-ply reward,
fading as its real visits grow (``_ucb``)."""

SECURE_WEIGHT: Final = 0.5
"""The move played: the root action with the best lower bound of its mean reward (scaled to
[0, 1] as in ``_ucb``) less ``SECURE_WEIGHT / sqrt(visits)`` (a "secure child"): where the
visits are near-even, the better mean decides, and a move seen only a few times does not."""

GUARD_POINTS: Final = 3.0
GUARD_MARGIN: Final = 0.2
"""The one-ply guard: when the most visited root action's one-ply lead (``_root_prior``) is
``GUARD_POINTS`` or more below the best one-ply lead, the search plays the best-ranked action
within ``GUARD_POINTS`` of it instead, unless the first's mean reward is above that one's by
more than ``GUARD_MARGIN`` of the seat's reward range: a sure gain now is not given up on a
difference the search cannot tell from noise."""

FOLLOW_STEPS: Final = 2
FOLLOW_WIDTH: Final = 20
"""The one-ply prior follows a decision's own later steps at most ``FOLLOW_STEPS`` times, and
only through a step with at most ``FOLLOW_WIDTH`` legal actions (``follow_through``): E
Guan's placements (18) are followed; Illumination's widest steps (up to 200 actions, each an
expensive position) would have put the normal level's p95 at 3.4 s of CPU."""

WIDEN_BASE: Final = 3
WIDEN_RATE: Final = 1.5
"""Progressive widening at the root: after ``n`` iterations the search considers the
``WIDEN_BASE + ceil(WIDEN_RATE * sqrt(n))`` actions of the best one-ply prior (all of them
once that is at least their number), so with 20-40 legal moves the iterations go to the
promising ones instead of a few visits each."""


@dataclass(frozen=True)
class SearchResult:
    """What a search found.

    Attributes:
        action: the chosen action (a deep copy of one of ``legal_actions(state, seat)``).
        iterations: iterations run.
        visits: root visits per legal action, in ``legal_actions`` order.
        errors: playouts cut short because the engine refused a move in a determinization
            (scored where they stopped; expected 0).
        cpu_seconds: process CPU time the search used.
    """

    action: Action
    iterations: int
    visits: tuple[int, ...]
    errors: int
    cpu_seconds: float


_Key = str | tuple[tuple[str, str | int], ...]
"""An action's name in the tree (``_key``)."""


class _Node:
    """An open-loop tree node: the statistics of one action from its parent."""

    __slots__ = ("avail", "blind", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[_Key, _Node] = {}
        self.blind: dict[Seat, _Node] | None = None  # per seat: its picks blind to this phase's earlier ones
        self.visits = 0
        self.total = 0.0
        self.avail = 1


def _key(action: Action) -> _Key:
    """The tree's name of ``action``: its sorted items when every value is a str or an int
    (the common case, cheaper), else its canonical JSON. Two actions get the same key exactly
    when their canonical JSON is the same."""
    items = []
    for k in sorted(action):
        v = action[k]
        if type(v) is not str and type(v) is not int:
            return json.dumps(action, sort_keys=True, separators=(",", ":"))
        items.append((k, v))
    return tuple(items)


def budget_of(level: str) -> Budget:
    """The ``Budget`` of ``level`` (``"easy"``, ``"normal"``, ``"hard"``).

    Raises:
        ValueError: unknown level, naming the known ones.
    """
    try:
        return LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}; known: {', '.join(LEVELS)}") from None


def budget_for(engine: Engine, level: str) -> Budget:
    """The ``Budget`` of ``level`` for ``engine``'s game: ``budget_of(level)`` with the game's
    own iteration count for that level when it names one (``LEVEL_ITERATIONS``,
    ``engines.ai.hooks``; at least 1), the time cap unchanged.

    Raises:
        ValueError: unknown level.
    """
    budget = budget_of(level)
    iterations = hooks_for(engine).iterations.get(level)
    if iterations is None:
        return budget
    return replace(budget, iterations=max(1, int(iterations)))


def choose(engine: Engine, state: State, seat: Seat, level: str, rng: random.Random,
           budget: Budget | None = None) -> Action:
    """The AI's move for ``seat``: always a member of
    ``engine.legal_actions(state, seat)`` (a deep copy).

    ``level`` picks the budget (``budget_for``: ``LEVELS`` or the game's own iterations); ``budget``
    overrides it. Only what ``seat`` may
    see is used: the hidden rest is resampled by the game's ``determinize`` hook each
    iteration, so with the same ``rng`` stream and an iteration-only budget the move depends
    on ``player_view(state, seat)`` alone.

    Raises:
        NotYourTurn: ``seat`` has no legal action now.
        ValueError: unknown level.
    """
    return search(engine, state, seat, budget or budget_for(engine, level), rng).action


def search(engine: Engine, state: State, seat: Seat, budget: Budget, rng: random.Random) -> SearchResult:
    """Run the information-set search of the module docstring from ``state`` for ``seat``.

    Returns a ``SearchResult``; a single legal action is returned without searching.

    Raises:
        NotYourTurn: ``seat`` has no legal action now.
    """
    cpu0 = time.process_time()
    actions = list(engine.legal_actions(state, seat))
    if not actions:
        raise NotYourTurn("Nothing to play for this seat.", seat=seat)
    if len(actions) == 1:
        return SearchResult(copy.deepcopy(actions[0]), 0, (0,), 0, time.process_time() - cpu0)
    hooks = hooks_for(engine)
    players = len(engine.scores(state))
    root = _Node()
    root_keys = [_key(a) for a in actions]
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    bounds = [[math.inf, -math.inf] for _ in range(players)]  # per seat: lowest and highest reward seen
    prior, points, order = _root_prior(engine, hooks, state, seat, actions, players, rng)
    errors = 0
    done = 0
    while done < max(1, budget.iterations):
        if deadline is not None and done and time.perf_counter() > deadline:
            break
        width = WIDEN_BASE + math.ceil(WIDEN_RATE * math.sqrt(done))
        det = hooks.determinize(state, seat, rng)
        errors += _iterate(engine, det, seat, root, root_keys, actions, players, budget, rng,
                           hooks, bounds, (order[:width], prior))
        done += 1
    visits = tuple(root.children[k].visits if k in root.children else 0 for k in root_keys)

    def rank(i: int) -> tuple[int, float, float]:
        child = root.children.get(root_keys[i])
        if child is None:
            return (0, 0.0, prior[i])
        return (child.visits, child.total / max(1, child.visits), prior[i])

    lo, hi = bounds[seat]
    span = hi - lo if hi > lo else 1.0

    def secure(i: int) -> float:
        child = root.children.get(root_keys[i])
        if child is None or not child.visits:
            return -math.inf
        return (child.total / child.visits - lo) / span - SECURE_WEIGHT / math.sqrt(child.visits)

    best = max(order, key=lambda i: (secure(i), rank(i)))
    top = max(points[i] for i in order)
    if points[best] <= top - GUARD_POINTS:
        alt = max((i for i in order if points[i] > top - GUARD_POINTS), key=lambda i: (secure(i), rank(i)))
        if (rank(best)[1] - rank(alt)[1]) / span < GUARD_MARGIN:
            best = alt
    return SearchResult(copy.deepcopy(actions[best]), done, visits, errors, time.process_time() - cpu0)


def _root_prior(engine: Engine, hooks: GameHooks, state: State, seat: Seat, actions: list[Action],
                players: int, rng: random.Random) -> tuple[list[float], list[float], list[int]]:
    """The one-ply prior of the root's actions and the order the search widens in.

    Each action is applied in ``PRIOR_SAMPLES`` determinizations (from ``seat``'s view, as
    every iteration's), the chance after it sampled, and the position scored by the game's
    ``evaluate`` as a cut-off playout is (``_evaluated``; solo: the seat's value), then scaled
    to [0, 1] over the actions (the worst 0, the best 1), as the rewards are in ``_ucb``. Actions that leave the same state in every sample are one
    group (action grouping: e.g. two copies of a card): only the first is searched.

    Returns:
        (prior per action in [0, 1], its one-ply lead in the evaluation's points (the seat's
        value less the best other's; solo: its value), the searched actions' indices, best
        prior first; ties keep ``legal_actions`` order). Without an ``evaluate`` hook: all
        priors 0.5, all leads 0, every action, in ``legal_actions`` order.
    """
    if hooks.evaluate is None:
        return [0.5] * len(actions), [0.0] * len(actions), list(range(len(actions)))
    sums = [0.0] * len(actions)
    leads = [0.0] * len(actions)
    prints: list[list[bytes | None]] = [[] for _ in actions]
    for _ in range(PRIOR_SAMPLES):
        det = hooks.determinize(state, seat, rng)
        for i, action in enumerate(actions):
            try:
                st, _ = engine.apply(det, seat, action)
                try:
                    prints[i].append(marshal.dumps(st))
                except ValueError:
                    prints[i].append(None)
                st = follow_through(engine, hooks.evaluate, st, seat, rng)
            except GameError:
                sums[i] -= 1e9
                leads[i] -= 1e9
                prints[i].append(None)
                continue
            outcome = engine.outcome(st)
            values = list(outcome.scores) if outcome is not None else list(hooks.evaluate(st))
            sums[i] += values[seat] if players == 1 else _evaluated(values, hooks.scale)[seat]
            leads[i] += values[seat] if players == 1 else _leads(values)[seat]
    raw = [x / PRIOR_SAMPLES for x in sums]
    lo, hi = min(x for x in raw if x > -1e8), max(raw)
    prior = [max(0.0, (x - lo) / (hi - lo)) if hi > lo else 0.5 for x in raw]
    seen: set[tuple[bytes, ...]] = set()
    kept = []
    for i, marks in enumerate(prints):
        if all(m is not None for m in marks):
            mark = tuple(m for m in marks if m is not None)
            if mark in seen:
                continue
            seen.add(mark)
        kept.append(i)
    kept.sort(key=lambda i: -prior[i])
    return prior, [x / PRIOR_SAMPLES for x in leads], kept


def position_values(engine: Engine, evaluate: Evaluate, st: State) -> list[float]:
    """Each seat's value of ``st``: the final scores once the game is over, else ``evaluate``."""
    outcome = engine.outcome(st)
    return [float(x) for x in (outcome.scores if outcome is not None else evaluate(st))]


def follow_through(engine: Engine, evaluate: Evaluate, st: State, seat: Seat, rng: random.Random,
                   steps: int = FOLLOW_STEPS) -> State:
    """``st`` once the decision ``seat`` has begun is complete: the chance that follows
    sampled, and while ``seat`` alone is to move (the next step of the same decision, e.g. E
    Guan's placement after its card, or a draw after a discard), at most ``steps`` times, the
    step whose position (chance after it sampled) gives ``seat`` the best lead by
    ``evaluate`` (solo: the best value); ties keep ``legal_actions`` order. A step with more
    than ``FOLLOW_WIDTH`` legal actions ends the follow-through there. So the one-ply
    value of a first step (picking a card) is that of the move it begins, not of the half-made
    move."""
    st = _chance(engine, st, rng)
    for _ in range(steps):
        if engine.to_move(st) != {seat}:
            break
        acts = engine.legal_actions(st, seat)
        if len(acts) > FOLLOW_WIDTH:
            break
        best_st, best = None, -math.inf
        for action in acts:
            try:
                after = _chance(engine, engine.apply(st, seat, action)[0], rng)
            except GameError:
                continue
            values = position_values(engine, evaluate, after)
            value = values[seat] if len(values) == 1 else _leads(values)[seat]
            if value > best:
                best_st, best = after, value
        if best_st is None:
            break
        st = best_st
    return st


def _chance(engine: Engine, st: State, rng: random.Random) -> State:
    while engine.to_move(st) == {CHANCE}:
        st, _ = engine.apply(st, CHANCE, engine.sample_chance(st, rng))
    return st


def _iterate(engine: Engine, st: State, seat: Seat, root: _Node, root_keys: list[_Key],
             root_actions: list[Action], players: int, budget: Budget, rng: random.Random,
             hooks: GameHooks, bounds: list[list[float]], root_choice: tuple[list[int], list[float]]) -> int:
    """One iteration from the determinization ``st``; returns 1 when the engine refused a
    move (the playout is scored where it stopped), else 0. ``root_choice``: the indices of
    the root actions searched now (widening, best prior first) and every root action's
    prior (``_root_prior``)."""
    path: list[tuple[_Node, Seat]] = []
    node = root
    error = 0
    expanded = False
    phase: _Node | None = None  # where the current simultaneous phase began (hooks.blind)
    pending: frozenset[Seat] = frozenset()  # the seats of that phase that have not picked
    try:
        first = True
        while not expanded:
            movers = engine.to_move(st)
            if not movers:
                break
            if CHANCE in movers:
                st, _ = engine.apply(st, CHANCE, engine.sample_chance(st, rng))
                phase, pending = None, frozenset()  # chance ends a simultaneous phase
                continue
            at_root = first
            if first:
                mover = seat
                acts = [root_actions[i] for i in root_choice[0]]
                keys = [root_keys[i] for i in root_choice[0]]
                first = False
            else:
                mover = min(movers)
                acts = list(engine.legal_actions(st, mover))
                if len(acts) == 1:
                    st, _ = engine.apply(st, mover, acts[0])
                    pending = pending - {mover}  # a forced pick is a pick too
                    continue
                keys = [_key(a) for a in acts]
            stats = node  # the node whose children hold this choice's statistics
            if hooks.blind:
                if phase is not None and mover in pending:
                    blind = phase.blind if phase.blind is not None else {}
                    phase.blind = blind
                    stats = blind.setdefault(mover, _Node())
                    pending = pending - {mover}
                elif len(movers) > 1:
                    phase, pending = node, frozenset(movers) - {mover}
                else:
                    phase, pending = None, frozenset()
            children = stats.children
            untried = []
            for i, k in enumerate(keys):
                child = children.get(k)
                if child is None:
                    untried.append(i)
                else:
                    child.avail += 1
            if untried:
                pick = untried[0] if at_root else untried[rng.randrange(len(untried))]
                child = children[keys[pick]] = _Node()
                expanded = True
            else:
                bias = [root_choice[1][i] for i in root_choice[0]] if at_root else None
                pick = _ucb(children, keys, budget.exploration, bounds[mover], bias)
                child = children[keys[pick]]
            st, _ = engine.apply(st, mover, acts[pick])
            path.append((child, mover))
            if stats is node:
                node = child
            else:  # a blind pick: the tree below follows the actual picks
                node = node.children.setdefault(keys[pick], _Node())
        depth = budget.rollout_limit if hooks.depth is None else min(hooks.depth, budget.rollout_limit)
        st = _playout(engine, st, depth, rng, hooks.rollout)
    except GameError:
        error = 1
    if hooks.evaluate is not None and players > 1 and engine.outcome(st) is None:
        reward = _evaluated(hooks.evaluate(st), hooks.scale)
    else:
        reward = _reward(engine, st, players, None if hooks.evaluate is None else hooks.scale)
    for value, seen in zip(reward, bounds, strict=True):
        seen[0] = min(seen[0], value)
        seen[1] = max(seen[1], value)
    for child, mover in path:
        child.visits += 1
        child.total += reward[mover]
    return error


def _ucb(children: dict[_Key, _Node], keys: list[_Key], c: float, bounds: list[float],
         bias: list[float] | None = None) -> int:
    """UCB1 with availability counts over the mover's rewards scaled to [0, 1] by the lowest
    and highest reward that seat has seen in this search (``bounds``): a seat far ahead, all
    of whose rewards are near 1, still tells its moves apart. ``bias`` (the root: each
    action's prior) adds ``PRIOR_WEIGHT * prior / (1 + visits)``, progressive bias that fades
    with the visits."""
    lo, hi = bounds
    span = hi - lo if hi > lo else 1.0
    base = lo if hi > lo else 0.0
    best, best_value = 0, -math.inf
    for i, k in enumerate(keys):
        child = children[k]
        mean = (child.total / child.visits - base) / span
        value = mean + c * math.sqrt(math.log(child.avail) / child.visits)
        if bias is not None:
            value += PRIOR_WEIGHT * bias[i] / (1 + child.visits)
        if value > best_value:
            best, best_value = i, value
    return best


def _playout(engine: Engine, st: State, limit: int, rng: random.Random, policy: RolloutPolicy) -> State:
    for _ in range(limit):
        movers = engine.to_move(st)
        if not movers:
            break
        if CHANCE in movers:
            action = engine.sample_chance(st, rng)
            st, _ = engine.apply(st, CHANCE, action)
            continue
        mover = min(movers)
        acts = engine.legal_actions(st, mover)
        action = acts[0] if len(acts) == 1 else policy(st, mover, acts, rng)
        st, _ = engine.apply(st, mover, action)
    return st


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, -x))))


def _leads(values: Sequence[float]) -> list[float]:
    """Each seat's lead over the best other seat."""
    return [v - max(x for o, x in enumerate(values) if o != s) for s, v in enumerate(values)]


def _evaluated(values: Sequence[float], scale: float) -> tuple[float, ...]:
    """Each seat's reward of its lead ``d`` over the best other seat: ``(1 - MARGIN_SHARE)
    * logistic(d / scale) + MARGIN_SHARE * logistic(d / (MARGIN_UNITS * scale))``; the second
    part keeps a seat far ahead from being indifferent to more points."""
    return tuple((1 - MARGIN_SHARE) * _logistic(d / scale) + MARGIN_SHARE * _logistic(d / (MARGIN_UNITS * scale))
                 for d in _leads(values))


def _reward(engine: Engine, st: State, players: int, scale: float | None = None) -> tuple[float, ...]:
    """Per-seat reward of a finished (or cut) playout, see the module docstring. With a
    ``scale`` (a game with an ``evaluate`` hook), a finished game's reward is ``(1 -
    MARGIN_SHARE) * share + MARGIN_SHARE * logistic(margin / (MARGIN_UNITS * scale))`` over
    the final scores' margins (``_evaluated``'s wide part)."""
    outcome = engine.outcome(st)
    scores = tuple(outcome.scores) if outcome is not None else tuple(engine.scores(st))
    if players == 1:
        return (float(scores[0]),)
    if outcome is not None:
        winners = sorted(outcome.winners)
    else:
        top = max(scores)
        winners = [s for s in range(players) if scores[s] == top]
    share = 1.0 / len(winners)
    shares = [share if s in winners else 0.0 for s in range(players)]
    if scale is None:
        return tuple(shares)
    return tuple((1 - MARGIN_SHARE) * w + MARGIN_SHARE * _logistic(d / (MARGIN_UNITS * scale))
                 for w, d in zip(shares, _leads(scores), strict=True))
