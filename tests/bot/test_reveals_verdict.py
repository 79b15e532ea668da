"""The undo check's verdict (bot/service.py ``reveals``, DESIGN §4) is the one of its definition
in every game: a move revealed something exactly when, for some viewer (each seat and the public)
and some of its ``UNDO_CHECKS`` shuffled variants of the state before, the move is refused or the
viewer's view after it differs. ``reveals`` tries the viewers in an order of its own and stops at
the first difference; the oracle below tries every variant of every viewer, seats in
order, and must agree at every player move of seeded random playouts, reveals and non-reveals
both occurring."""

from __future__ import annotations

from typing import Any

import pytest

from bench.load import players_for
from bench.undo_check import playout_moves
from bot.service import UNDO_CHECKS, reveals
from engines.base import Engine, GameError
from engines.registry import ENGINES
from engines.rng import derive_rng

MOVES = 40
"""Player moves checked per playout (two playouts a game)."""


def oracle(engine: Engine, players: int, before: Any, seat: int, action: Any, after: Any, seed: int) -> bool:
    """Every viewer, every variant (the same seeds as ``reveals``): any refusal or difference."""
    found = False
    for viewer in (*range(players), None):
        seen = engine.player_view(after, viewer)
        for k in range(UNDO_CHECKS):
            rng = derive_rng(seed, 7_000_000 + k * 10 + (players if viewer is None else viewer))
            other = engine.shuffle_hidden(before, viewer, rng)
            try:
                changed, _ = engine.apply(other, seat, action)
            except GameError:
                found = True
                continue
            found = found or engine.player_view(changed, viewer) != seen
    return found


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_reveals_agrees_with_its_definition(game_id: str) -> None:
    engine = ENGINES[game_id]
    players = players_for(game_id)
    verdicts = []
    for before, seat, action, after, seed in playout_moves(game_id, 2, MOVES):  # (seeded random playouts)
        verdict = reveals(engine, players, before, seat, action, after, seed)
        assert verdict == oracle(engine, players, before, seat, action, after, seed), (len(verdicts), action)
        verdicts.append(verdict)
    assert len(verdicts) >= 20, len(verdicts)
    assert False in verdicts, "no move without a reveal: the check was not exercised"
