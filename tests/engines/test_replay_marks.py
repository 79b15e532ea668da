"""``Notation.replay_marks`` (docs/PROTOCOL.md "Other hooks"): the rulebook's unit each
position of a replay is in, which ``/game replay``'s jump menu lists. Canterbury names
its turns (spec §4, Last Rites turns §5.9), Illumination its turns (spec §4.1, the
Reverent first, D29; a passed player's turns skipped), Ora its rounds or two-player turns
with the settlement phases between them (spec §4.2–§4.8); the other games keep the
public view's round. Positions are those of the golden playthroughs (tests/golden/cases.py):
the start, then the state after every log entry."""

from __future__ import annotations

from typing import Any

import pytest

from engines.base import Msg
from tests.golden.cases import Case, play


def positions(case: Case) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The start of ``case``'s golden game, then the state after each of its log entries,
    and their public views (``replay_marks``' arguments)."""
    steps = list(play(case))
    states = [steps[0].before, *(s.after for s in steps)]
    return states, [case.engine.player_view(state, None) for state in states]


def runs(marks: list[Msg | None]) -> list[Msg | None]:
    """Each run of equal consecutive marks once (what the jump menu lists)."""
    out: list[Msg | None] = []
    for i, mark in enumerate(marks):
        if i == 0 or mark != marks[i - 1]:
            out.append(mark)
    return out


@pytest.mark.parametrize("case", [Case("canterbury", 1, 2), Case("canterbury", 2, 3)], ids=str)
def test_canterbury_marks_each_turn_by_number_and_player(case: Case) -> None:
    """Spec §4: turns pass clockwise (T5); a Last Rites turn (T4, §5.9) is the same
    player's again and is marked so; the set-up has no turn, the end is the game's end."""
    states, views = positions(case)
    marks = case.notation.replay_marks(states, views)
    assert len(marks) == len(states)
    assert marks[0] is None and marks[-1] == Msg("board.game_over")
    turns = runs(marks)[1:-1]
    assert [m.params["turn"] for m in turns if m] == list(range(1, len(turns) + 1))
    lastrites = 0
    for before, mark in zip(turns, turns[1:], strict=False):
        assert before is not None and mark is not None
        seat, last = mark.params["player"]["seat"], before.params["player"]["seat"]
        if mark.key == "board.turn_lastrites":
            lastrites += 1
            assert seat == last
        else:
            assert mark.key == "board.turn" and seat == (last + 1) % case.players
    for state, mark in zip(states, marks, strict=True):  # (each position is in its state's turn)
        if mark is not None and mark.key != "board.game_over":
            assert (mark.params["turn"], mark.params["player"]["seat"]) == (state["turn"], state["active"])
    assert len(turns) == states[-1]["turn"]
    if case.seed == 1:
        assert lastrites == 3                       # (this playthrough uses three Last Rites tokens)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_illumination_marks_turns_the_reverent_first_and_skips_a_passed_player(seed: int) -> None:
    """Spec §4.1: turns alternate, the Reverent first (D29); once a player has passed, the
    other takes every turn; choosing sides and the deal are in no turn."""
    case = Case("illumination", seed, 2)
    states, views = positions(case)
    marks = case.notation.replay_marks(states, views)
    turns = runs(marks)
    assert turns[0] is None and turns[-1] == Msg("replay.end")
    turns = turns[1:-1]
    assert all(m is not None and m.key == "replay.turn" for m in turns)
    assert [m.params["turn"] for m in turns if m] == list(range(1, len(turns) + 1))
    first = next(s for s, m in zip(states, marks, strict=True) if m is not None)
    assert turns[0] is not None and turns[0].params["seat"]["seat"] == first["reverent"] == first["active"]
    for i, (before, mark) in enumerate(zip(turns, turns[1:], strict=False), start=1):
        assert before is not None and mark is not None
        seat, last = mark.params["seat"]["seat"], before.params["seat"]["seat"]
        at = states[marks.index(mark)]
        assert at["phase"] == "turn_start" and at["active"] == seat, i
        assert seat == 1 - last or at["passed"][1 - seat], i  # (the same seat again: the other passed)


def test_ora_short_game_marks_rounds_settlement_phases_and_the_bonus_round() -> None:
    """Spec §4.8 (short 3-player game): rounds 1–12, the bonus round 13 (§4.4), settlement
    phases A–D after rounds 2, 4, 6, 8 (at step 3 of the next round, before its actions,
    §4.3) and E after the bonus round, then the end (§8)."""
    case = Case("ora", 3, 3, {"mode": "short"})
    marks = runs(case.notation.replay_marks(*positions(case)))

    def rnd(n: int) -> Msg:
        return Msg("board.round", {"n": n})

    def phase(letter: str) -> Msg:
        return Msg("replay.settlement", {"letter": letter})

    assert marks == [None, rnd(1), rnd(2), phase("A"), rnd(3), rnd(4), phase("B"), rnd(5), rnd(6), phase("C"),
                     rnd(7), rnd(8), phase("D"), rnd(9), rnd(10), rnd(11), rnd(12),
                     Msg("board.bonus_round", {"n": 13}), phase("E"), Msg("board.over")]


def test_ora_two_player_game_marks_turns_and_settlement_phases() -> None:
    """Spec §4.5 (two-player game): turns, settlement phases A–D after turns 6, 13, 20 and
    27 (no phase E, no bonus round), the end after the last turn (here the safety cap, 60)."""
    case = Case("ora", 2, 2)
    marks = runs(case.notation.replay_marks(*positions(case)))
    assert marks[0] is None and marks[-1] == Msg("board.over")
    phases = {m.params["letter"]: marks[i - 1] for i, m in enumerate(marks) if m and m.key == "replay.settlement"}
    assert phases == {letter: Msg("board.turn", {"n": n}) for letter, n in zip("ABCD", (6, 13, 20, 27), strict=True)}
    turns = [m.params["n"] for m in marks if m and m.key == "board.turn"]
    assert turns == list(range(1, len(turns) + 1))


@pytest.mark.parametrize(("game_id", "players"), [("carnival", 3), ("eguan", 3), ("heaven", 4)])
def test_other_games_mark_the_round_of_their_public_view(game_id: str, players: int) -> None:
    """The default (``Notation.replay_marks``): the public view's ``round`` as
    ``table.jump_round``; Carnival has seven rounds (spec §4)."""
    case = Case(game_id, 1, players)
    states, views = positions(case)
    marks = case.notation.replay_marks(states, views)
    for view, mark in zip(views, marks, strict=True):
        assert mark == Msg("table.jump_round", {"round": view["round"]})
    if game_id == "carnival":
        assert [m.params["round"] for m in runs(marks) if m] == list(range(1, 8))
