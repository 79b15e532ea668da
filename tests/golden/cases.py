"""The fixed games behind the golden files, generic over ``engines.registry.ENGINES``.

Every registered game gets ``SEEDS`` playthroughs: seed 1 at the game's smallest player
count, seed 2 at its largest, default options. Moves are chosen the way the host samples
chance (``engines.rng.derive_rng`` from the seed and the log position), so a playthrough
depends only on (game, seed, players) and the engine's code, never on Python's hash seed
or the order tests run in.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engines.base import CHANCE, Action, Engine, Event, Seat, State
from engines.notation import Notation
from engines.registry import ENGINES, NOTATIONS
from engines.rng import derive_rng

NAMES: tuple[str, ...] = ("Ann", "李白", "さくら", "Zoë", "김민준", "Émile")
"""Display names by seat: Latin, Chinese, Japanese, accented and Korean, so every
renderer and text template meets wide glyphs."""

SEEDS: tuple[int, ...] = (1, 2)
"""Seed 1 plays the smallest player count, seed 2 the largest."""

MAX_STEPS = 6000
"""A golden game that has not ended after this many log entries is an engine bug."""


@dataclass(frozen=True)
class Case:
    """One golden game: ``game_id`` played by ``players`` seats from ``seed``."""

    game_id: str
    seed: int
    players: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def engine(self) -> Engine:
        """The registered engine of ``game_id``."""
        return ENGINES[self.game_id]

    @property
    def notation(self) -> Notation:
        """The registered notation of ``game_id``."""
        return NOTATIONS[self.game_id]

    @property
    def names(self) -> list[str]:
        """Display names of the seats of this game."""
        return list(NAMES[: self.players])

    @property
    def stem(self) -> str:
        """File name without extension: ``"carnival-1"``."""
        return f"{self.game_id}-{self.seed}"


def cases() -> list[Case]:
    """Every golden game of every registered engine, in registry order."""
    out: list[Case] = []
    for game_id, engine in ENGINES.items():
        counts = (engine.info.min_players, engine.info.max_players)
        out += [Case(game_id, seed, counts[i]) for i, seed in enumerate(SEEDS)]
    return out


@dataclass(frozen=True)
class Step:
    """One log entry of a golden game: ``seat`` played ``action`` in ``before`` and the
    engine answered ``after`` and ``events``. ``index`` is the 0-based log position."""

    index: int
    seat: Seat
    action: Action
    before: State
    after: State
    events: tuple[Event, ...]


def play(case: Case) -> Iterator[Step]:
    """The golden game of ``case``, one log entry at a time, until the game ends.

    Each position draws from ``derive_rng(seed, position)``: the chance outcome
    (``sample_chance``) or the seat to act (when several may) and its action, uniformly
    among ``legal_actions``.

    Raises:
        AssertionError: the game has not ended after ``MAX_STEPS`` entries.
    """
    engine = case.engine
    state = engine.new_game(case.players, case.seed, case.options)
    for index in range(MAX_STEPS):
        movers = sorted(engine.to_move(state))
        if not movers:
            return
        rng = derive_rng(case.seed, index, "golden")
        seat = movers[0] if len(movers) == 1 else rng.choice(movers)
        if seat == CHANCE:
            action = engine.sample_chance(state, derive_rng(case.seed, index))
        else:
            action = rng.choice(list(engine.legal_actions(state, seat)))
        after, events = engine.apply(state, seat, action)
        yield Step(index, seat, action, state, after, tuple(events))
        state = after
    raise AssertionError(f"{case.stem}: the game did not end in {MAX_STEPS} steps")


def initial_state(case: Case) -> State:
    """The state before the first log entry of ``case``."""
    return case.engine.new_game(case.players, case.seed, case.options)
