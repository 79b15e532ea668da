"""The reveal oracle: the generic check an engine's ``Engine.reveals`` declaration is held to.

A move (``action`` of ``seat`` applied to ``before``, giving ``after``) revealed something when,
for some viewer (each seat, the mover included, and the public), ``Engine.shuffle_hidden``
makes a state the viewer cannot tell from ``before`` in which the action is refused or after
which the viewer's ``player_view`` differs from its view of ``after``: the move's result rested
on something the viewer could not see. ``UNDO_CHECKS`` variants per viewer, each drawn from the
game's seed, so a verdict is the same on every run. It costs milliseconds a move, which is why
the host asks the engine's declaration instead (``bot.service.GameService.undo_candidate``);
tests/engines/test_reveals.py compares the two on every move of seeded playouts, and
``bench.undo_check`` times both.

The oracle is sound only as far as ``shuffle_hidden`` varies what is hidden: a card it keeps in
place (E Guan's card being placed), a hidden count it varies seldom (Canterbury's coins) or a
card with no unseen twin to swap in is invisible to it. The test names each such case where
the spec says otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engines.base import CHANCE, Action, Engine, GameError, Seat, State
from engines.rng import derive_rng

UNDO_CHECKS = 12
"""``shuffle_hidden`` variants tried per viewer (a variant equal to the real state, or to one
tried already, proves nothing and is passed over)."""


@dataclass(frozen=True)
class Evidence:
    """What one variant showed: ``refused`` (the action is illegal there) or a differing view,
    and whether the viewer was the mover."""

    refused: bool
    mover: bool


def viewers(players: int, seat: Seat) -> list[Seat | None]:
    """The public first, then the other seats, the mover last (it sees the most of what its move
    touches: a move that shows its card to the others is found at the first viewer)."""
    return [None, *(s for s in range(players) if s != seat), *((seat,) if 0 <= seat < players else ())]


def evidence(engine: Engine, players: int, before: State, seat: Seat, action: Action, after: State,
             seed: int, *, first: bool = False) -> list[Evidence]:
    """Every variant of every viewer that tells ``before`` from the states the viewer cannot tell
    it from (``first``: stop at the first one); empty when the move revealed nothing."""
    found: list[Evidence] = []
    for viewer in viewers(players, seat):
        seen: dict[str, Any] | None = None
        tried: list[State] = []
        for k in range(UNDO_CHECKS):
            rng = derive_rng(seed, 7_000_000 + k * 10 + (players if viewer is None else viewer))
            other = engine.shuffle_hidden(before, viewer, rng)
            if other == before or other in tried:
                continue
            tried.append(other)
            try:
                changed, _ = engine.apply(other, seat, action)
            except GameError:
                found.append(Evidence(True, viewer == seat))
            else:
                if seen is None:
                    seen = engine.player_view(after, viewer)
                if engine.player_view(changed, viewer) != seen:
                    found.append(Evidence(False, viewer == seat))
            if found and first:
                return found
    return found


def oracle(engine: Engine, players: int, before: State, seat: Seat, action: Action, after: State,
           seed: int) -> bool:
    """Whether the move revealed something, by ``shuffle_hidden`` (see the module's text)."""
    return bool(evidence(engine, players, before, seat, action, after, seed, first=True))


@dataclass(frozen=True)
class Move:
    """One player move of a playout: the state before, the seat, the action, the state after,
    the seat count and the game's seed."""

    before: State
    seat: Seat
    action: Action
    after: State
    players: int
    seed: int


def playout(engine: Engine, players: int, seed: int, options: Mapping[str, Any] | None = None,
            moves: int = 150) -> Iterator[Move]:
    """The player moves of one seeded random playout (chance sampled; a random seat of those to
    move picks a random legal action), at most ``moves`` of them."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed, options or {})
    made = 0
    while engine.outcome(state) is None and made < moves:
        to_move = engine.to_move(state)
        if CHANCE in to_move:
            state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
            continue
        seat = rng.choice(sorted(to_move))
        action = rng.choice(list(engine.legal_actions(state, seat)))
        after, _ = engine.apply(state, seat, action)
        yield Move(state, seat, action, after, players, seed)
        state = after
        made += 1
