"""``/game replay``'s jump menu (``bot.ui.table.jump_options``): the first step of each of
the rulebook's units (``Notation.replay_marks``), in the reader's language, at most 25 (a
select's limit: ``thinned`` keeps every settlement phase, Last Rites turn and the end, and
spreads the rounds or turns over the rest); steps numbered only when an engine has no
units. Steps are built from the golden playthroughs' positions, as
``GameService.replay_steps`` marks them."""

from __future__ import annotations

from bot.service import ReplayStep
from bot.text import Texts
from bot.ui.table import jump_options, thinned
from tests.engines.test_replay_marks import positions
from tests.golden.cases import Case


def replay(case: Case) -> list[ReplayStep]:
    """One step per position of ``case``'s golden game, marked by its engine."""
    marks = case.notation.replay_marks(*positions(case))
    return [ReplayStep(i, None, {}, [], None if m is None else m.to_json()) for i, m in enumerate(marks)]


def labels(case: Case, locale: str = "en") -> list[str]:
    return [o.label for o in jump_options(replay(case), Texts(case.game_id, case.names, locale, markdown=True))]


def test_canterbury_menu_lists_turns_keeping_every_last_rites_turn_and_the_end() -> None:
    """Spec §4 (66 turns here, three of them Last Rites turns, §5.9): 25 options; turn 1,
    the three Last Rites turns and the end are all there, the other turns spread."""
    shown = labels(Case("canterbury", 1, 2))
    assert len(shown) == 25
    assert shown[0] == "Turn 1: Ann" and shown[-1] == "Game over"
    assert [s for s in shown if "LAST RITES" in s] == [
        "Turn 19: 李白 · LAST RITES TURN", "Turn 29: Ann · LAST RITES TURN", "Turn 49: 李白 · LAST RITES TURN"]
    numbers = [int(s.split(":")[0].removeprefix("Turn ")) for s in shown[:-1]]
    assert numbers == sorted(numbers) and not any(s.startswith("Step") for s in shown)


def test_ora_two_player_menu_keeps_the_settlement_phases_in_the_readers_language() -> None:
    """Spec §4.5: 60 turns and phases A–D: every phase and the end stay, the turns spread;
    in zh_TW the board's own words (``board.turn``) and ``replay.settlement``."""
    shown = labels(Case("ora", 2, 2), "zh_TW")
    assert len(shown) == 25 and shown[-1] == "遊戲結束"
    assert [s for s in shown if s.startswith("定居階段")] == [f"定居階段 {letter}" for letter in "ABCD"]
    assert shown[0] == "第 1 輪"


def test_ora_short_game_menu_lists_every_round_and_phase() -> None:
    """Spec §4.8: 13 rounds and 5 settlement phases fit: all of them, in order."""
    shown = labels(Case("ora", 3, 3, {"mode": "short"}))
    assert shown[:4] == ["Round 1", "Round 2", "Settlement phase A", "Round 3"]
    assert shown[-3:] == ["Round 13: bonus round", "Settlement phase E", "Game over"]
    assert len(shown) == 19


def test_without_units_the_menu_spreads_numbered_steps() -> None:
    steps = [ReplayStep(i, None, {}, []) for i in range(49)]
    shown = [(o.label, o.value) for o in jump_options(steps, Texts(None, [], "en"))]
    assert shown == [(f"Step {2 * k}", str(2 * k)) for k in range(25)]


def test_thinned_spreads_evenly_when_the_rare_kinds_alone_are_too_many() -> None:
    marks = [("a" if i % 2 else "b", str(i), i) for i in range(60)]
    kept = thinned(marks)
    assert len(kept) == 25 and kept[0][2] == 0 and kept[-1][2] == 59
    assert thinned(marks[:25]) == marks[:25]
