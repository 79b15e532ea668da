"""Each engine's reveal declaration (``Engine.reveals``: the move drew, rolled or showed something
hidden; the host's Undo check asks it, docs/DESIGN.md §4) agrees with the generic oracle
(tests/engines/reveal_oracle.py: ``shuffle_hidden`` variants of the state before) on every player
move of seeded random playouts of every game, at every player count and with every option
variant. Where the two differ the spec decides, and each such case is named in ``KNOWN`` with the
spec's reason and an exact condition; any other difference fails. The checker itself is tested:
a declaration made wrong on purpose is reported."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from engines.base import Engine
from engines.registry import ENGINES, GAME_IDS
from tests.engines.reveal_oracle import Evidence, Move, evidence, oracle, playout
from tests.engines.test_conformance import fitting_counts, option_variants

MOVES = 100
"""Player moves per playout at most."""


@dataclass(frozen=True)
class Known:
    """A named case where the declaration follows the spec and the oracle cannot: ``declared``
    is the declaration's verdict there (the oracle's is the other), ``applies`` the exact
    condition (the move, and what the oracle saw: every variant's evidence)."""

    name: str
    declared: bool
    applies: Callable[[Move, list[Evidence]], bool]


def only_others_refused(seen: list[Evidence]) -> bool:
    """The oracle's only evidence: the action is refused where another seat or the public cannot
    tell the mover's secret cards (the action names one, or its legality rests on one); no
    viewer's view changed."""
    return bool(seen) and all(e.refused and not e.mover for e in seen)


def left_hands(move: Move) -> list[str]:
    """The cards that left a hand in ``move`` (Canterbury)."""
    out: list[str] = []
    for old, new in zip(move.before["hands"], move.after["hands"], strict=True):
        out += list((Counter(old) - Counter(new)).elements())
    return out


KNOWN: dict[str, tuple[Known, ...]] = {
    "canterbury": (
        # §7: hands are secret; a card played, discarded or given is shown, but shuffle_hidden
        # swaps a hand card only now and then (7 in 10) and only with an unseen card of its back,
        # so all its variants may still hold the card
        Known("shown card left in place", True, lambda m, seen: not seen and bool(left_hands(m))),
        # §5.5: a pass pays the fine of 3 coins (or all coins when nothing is playable), which
        # shows the hidden coins; shuffle_hidden's random coin counts fall under 3 seldom
        Known("pass fine", True, lambda m, seen: not seen and m.action["type"] == "pass"),
    ),
    "heaven": (
        # §3 step 3, D2: submissions are hidden until every player has confirmed; the action names
        # the mover's cards, so it is refused where others cannot tell the mover's hand
        Known("secret split", False, lambda m, seen: m.action["type"] == "split" and m.after["phase"] == "split"
              and only_others_refused(seen)),
    ),
    "eguan": (
        # §7: the hand and the kept card are their owner's; choosing the card to play (shown only
        # when it lands) or the card to keep face down shows nothing
        Known("secret choice", False, lambda m, seen: m.action["type"] in ("select", "select_kept", "keep")
              and only_others_refused(seen)),
        # §5.5: a play reveals the card when it lands on the board; shuffle_hidden keeps a card
        # being placed in place, so the oracle cannot see it turned up
        Known("card being placed", True, lambda m, seen: not seen and m.action["type"] == "place"
              and (m.before["pending"] or {}).get("step") == "place"),
    ),
}


def playouts(engine: Engine) -> Iterator[Move]:
    """Every player count with the default options, then each other option
    variant at one fitting count (one seed)."""
    for index, options in enumerate(option_variants(engine)):
        counts = fitting_counts(engine, options)
        if index == 0:
            for players in counts:
                for seed in (players * 101,):
                    yield from playout(engine, players, seed, options, MOVES)
        else:
            yield from playout(engine, counts[index % len(counts)], 7919 * index, options, MOVES)


@dataclass
class Report:
    """What ``check`` found: the declarations per verdict, the named cases met, and every move
    where declaration and oracle differ outside ``KNOWN``."""

    declared: Counter[bool]
    known: Counter[str]
    disagreements: list[tuple[Move, bool, bool]]


def check(game_id: str, moves: Iterator[Move]) -> Report:
    """Compare ``Engine.reveals`` with the oracle on each of ``moves``."""
    engine = ENGINES[game_id]
    report = Report(Counter(), Counter(), [])
    for move in moves:
        declared = engine.reveals(move.before, move.seat, move.action, move.after)
        report.declared[declared] += 1
        found = oracle(engine, move.players, move.before, move.seat, move.action, move.after, move.seed)
        if declared == found:
            continue
        seen = evidence(engine, move.players, move.before, move.seat, move.action, move.after, move.seed)
        case = next((k for k in KNOWN.get(game_id, ()) if k.declared == declared and k.applies(move, seen)), None)
        if case is None:
            report.disagreements.append((move, declared, found))
        else:
            report.known[case.name] += 1
    return report


def shown(report: Report) -> str:
    return "\n".join(f"{m.players}p seed {m.seed} seat {m.seat} {m.action}: declared {d}, oracle {o}"
                     for m, d, o in report.disagreements[:10])


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_declaration_agrees_with_the_oracle_on_every_move(game_id: str) -> None:
    report = check(game_id, playouts(ENGINES[game_id]))
    assert report.disagreements == [], shown(report)
    assert report.declared[False] >= 40, report.declared
    if game_id != "ora":  # (perfect information after set-up: docs/rules/ora.md §7)
        assert report.declared[True] >= 10, report.declared


def test_a_wrong_declaration_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ENGINES["carnival"]
    moves = list(playout(engine, 3, 5, moves=60))
    assert check("carnival", iter(moves)).disagreements == []
    monkeypatch.setattr(type(engine), "reveals", lambda self, before, seat, action, after: False)
    wrong = check("carnival", iter(moves))
    assert wrong.disagreements and all(d is False and o is True for _, d, o in wrong.disagreements)
    monkeypatch.setattr(type(engine), "reveals", lambda self, before, seat, action, after: True)
    assert check("carnival", iter(moves)).disagreements


def test_a_named_case_covers_only_its_condition(monkeypatch: pytest.MonkeyPatch) -> None:
    """E Guan's secret choices are excused only where nothing but others' refusals showed: a
    declaration that says False on every move still fails on the moves that show a card."""
    engine = ENGINES["eguan"]
    moves = list(playout(engine, 3, 5, moves=60))
    monkeypatch.setattr(type(engine), "reveals", lambda self, before, seat, action, after: False)
    report = check("eguan", iter(moves))
    assert {m.action["type"] for m, _, _ in report.disagreements} >= {"place"}
