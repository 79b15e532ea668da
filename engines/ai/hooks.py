"""Per-game AI hooks: a registry, so ``engines/base.py`` stays untouched.

Each game may have a module ``ai`` in its engine's package (``engines/<game_id>/ai.py``) exposing

* ``determinize(state, seat, rng) -> State``: a full state consistent with what ``seat`` sees
  (``player_view(state, seat)``), every fact hidden from ``seat`` resampled from ``rng``. It must
  be a function of that seat's view and ``rng`` only: two states that differ only in what
  ``seat`` cannot see give equal results for equal ``rng`` streams (the no-peeking rule).
* optionally ``rollout_policy(state, seat, actions, rng) -> Action``: the move a playout
  picks among ``actions`` (the seat's legal actions); uniform random when absent.
* optionally ``evaluate(state) -> Sequence[float]`` with ``PLAYOUT_DEPTH`` (int) and
  ``EVAL_SCALE`` (float): a cut-off evaluation. A playout then stops after ``PLAYOUT_DEPTH``
  actions past the tree and each seat's reward is ``1 / (1 + exp(-(v_s - max_o v_o) /
  EVAL_SCALE))`` over the values ``v`` of ``evaluate`` (the others' best, ``o != s``): where
  random play to the end is noise, the position a few moves on says more. ``evaluate``
  without ``PLAYOUT_DEPTH`` keeps playouts to the end. Either way the search scores each root
  action one ply on with it (``engines.ai.search._root_prior``: order, grouping, bias), and
  bench/ai_strength.py's greedy player and blunder check use it: it should count the scores
  so far and what is in reach, in the game's points.
* optionally ``BLIND_SIMULTANEOUS = True``: in a simultaneous phase (``to_move`` names several
  seats that pick in secret, e.g. Carnival of Sins' R2), the seats that move after the first
  one choose in the tree without seeing the earlier picks (``engines.ai.search``), instead of
  answering them as a turn-based tree would let them.
* optionally ``LEVEL_ITERATIONS`` (dict level -> int): the game's iterations per decision at
  those levels instead of ``engines.ai.search.LEVELS``' (``budget_for``; the time caps stay):
  a cheap game whose outcome turns on few decisions can afford more, and a level whose
  searches come near its cap on this game can be given fewer.

A game without that module has no hidden information: its state is its own determinization.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from engines.base import Action, Engine, Seat, State

Evaluate = Callable[[State], Sequence[float]]
"""``evaluate(state)``: a value per seat of an unfinished (determinized) state, higher better."""

Determinize = Callable[[State, Seat, random.Random], State]
"""``determinize(state, seat, rng)``: see the module docstring."""

RolloutPolicy = Callable[[State, Seat, Sequence[Action], random.Random], Action]
"""``rollout_policy(state, seat, actions, rng)``: one of ``actions``."""


def random_rollout(state: State, seat: Seat, actions: Sequence[Action], rng: random.Random) -> Action:
    """The default playout move: uniform among ``actions`` (non-empty)."""
    return actions[rng.randrange(len(actions))]


def identity_determinize(state: State, seat: Seat, rng: random.Random) -> State:
    """The determinization of a game with no hidden information: the state itself (the
    search never mutates it)."""
    return state


@dataclass(frozen=True)
class GameHooks:
    """The AI hooks of one game.

    Attributes:
        determinize: samples the hidden information (see the module docstring).
        rollout: the playout policy.
        evaluate: the cut-off evaluation, or None (playouts run to the end).
        depth: actions a playout takes past the tree before ``evaluate`` scores it (None:
            ``Budget.rollout_limit``).
        scale: the evaluation's unit in the logistic reward (see the module docstring).
        blind: ``BLIND_SIMULTANEOUS`` (see the module docstring).
        iterations: the game's iterations per decision by level (``LEVEL_ITERATIONS``; a level
            not named keeps ``LEVELS``').
    """

    determinize: Determinize
    rollout: RolloutPolicy
    evaluate: Evaluate | None = None
    depth: int | None = None
    scale: float = 1.0
    blind: bool = False
    iterations: Mapping[str, int] = field(default_factory=dict)


@cache
def hooks_for(engine: Engine) -> GameHooks:
    """The hooks of ``engine``'s game: the module ``ai`` of the engine's package
    (``engines.<game_id>.ai``) when it exists, else the defaults (identity determinization,
    random playouts).

    Raises:
        NotImplementedError: the game has hidden information (``info.has_hidden_info``) but
            no ``determinize`` hook; a search on the true state would peek.
    """
    game_id = engine.info.game_id
    name = type(engine).__module__.rpartition(".")[0] + ".ai"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        module = None
    det = getattr(module, "determinize", None)
    if det is None:
        if engine.info.has_hidden_info:
            raise NotImplementedError(f"{game_id} has hidden information but no determinize hook")
        det = identity_determinize
    evaluate = getattr(module, "evaluate", None)
    return GameHooks(determinize=det, rollout=getattr(module, "rollout_policy", random_rollout),
                     evaluate=evaluate, depth=getattr(module, "PLAYOUT_DEPTH", None) if evaluate else None,
                     scale=float(getattr(module, "EVAL_SCALE", 1.0)),
                     blind=bool(getattr(module, "BLIND_SIMULTANEOUS", False)),
                     iterations=dict(getattr(module, "LEVEL_ITERATIONS", {})))
