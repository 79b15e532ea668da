"""``has_plans`` / ``card_usable`` (engines/heaven/effects.py), the ✓ usable mark of a hand
card without listing its plans, against the plans themselves: on every state of seeded random
playouts (4, 5 and 6 seats, both borrow scopes), for every seat, every card kind as the start
of a chain and every hand card, the verdict is whether ``plans`` / ``card_plans`` is empty."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from engines.heaven import effects
from engines.heaven.data import KINDS
from engines.heaven.effects import EFFECTS, card_plans, card_usable, has_plans, plans
from engines.heaven.engine import HeavenEngine
from engines.heaven.types import State
from tests.engines.reveal_oracle import playout


def states() -> Iterator[State]:
    engine = HeavenEngine()
    for players, scope in ((4, "one"), (5, "all"), (6, "one")):
        for seed in range(6):
            for move in playout(engine, players, seed, {"borrow_scope": scope, "board_side": "advanced"}, moves=120):
                yield move.before


def disagreements(limit: int = 5) -> list[str]:
    """The (state, seat, kind or card) where the verdict and the plans disagree."""
    out: list[str] = []
    for n, st in enumerate(states()):
        for seat in range(st["players"]):
            for kind in KINDS:
                chain = frozenset({kind})
                if has_plans(st, seat, kind, chain) != bool(plans(st, seat, kind, chain)):
                    out.append(f"state {n} seat {seat} kind {kind}")
            for card in st["hands"][seat]:
                if card_usable(st, seat, card) != bool(card_plans(st, seat, card)):
                    out.append(f"state {n} seat {seat} card {card}")
        if len(out) >= limit:
            break
    return out


def test_the_usable_verdict_is_whether_there_are_plans_on_every_playout_state() -> None:
    kinds_with_plans: set[str] = set()
    for st in states():
        for seat in range(st["players"]):
            kinds_with_plans |= {k for k in ("hypocrisy", "arrogance", "holiness", "ignorance")
                                 if plans(st, seat, k, frozenset({k}))}
    assert kinds_with_plans == {"hypocrisy", "arrogance", "holiness", "ignorance"}  # (the playouts reach them)
    assert disagreements() == []


def test_a_wrong_verdict_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def pairs_only(st: State, seat: int, chain: frozenset[str]) -> bool:  # (forgets single swaps)
        return len(st["public"][seat]) >= 2 and any(len(st["public"][t]) >= 2 for t in range(st["players"]) if t != seat)

    monkeypatch.setitem(EFFECTS, "hypocrisy", dataclasses.replace(EFFECTS["hypocrisy"], any_plan=pairs_only))
    assert effects.EFFECTS["hypocrisy"].any_plan is pairs_only
    assert len(disagreements(limit=1)) == 1
