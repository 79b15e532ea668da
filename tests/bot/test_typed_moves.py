"""Typed moves (bot/typed_moves.py): case, full-width characters and extra spaces are
forgiven, a unique prefix of one move's notation is that move, and a refusal lists up to
five legal notations closest to the text, in the reader's language."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.typed_moves import CLOSEST, closest, notation_key, parse_typed
from bot.ui.errors import InGame, engine_sentence
from engines.base import CHANCE, IllegalAction, NotYourTurn
from engines.registry import GAME_IDS, get, notation, notation_of

CARNIVAL = get("carnival")
CARNIVAL_N = notation("carnival")


def carnival_choosing() -> dict[str, Any]:
    """A 2-player Carnival at the first pick: every seat chooses one of its seven sins."""
    state = CARNIVAL.new_game(2, 1, {})
    rng = random.Random(1)
    while CARNIVAL.to_move(state) == frozenset({CHANCE}):
        state, _ = CARNIVAL.apply(state, CHANCE, CARNIVAL.sample_chance(state, rng))
    assert state["phase"] == "choose"
    return state


def test_notation_key_folds_case_width_and_spaces() -> None:
    assert notation_key("  Greed   D10 + d12 ") == "greed d10+d12"
    assert notation_key("ＣＨＯＯＳＥ\u3000lust") == "choose lust"       # full-width letters and space
    assert notation_key("wrath d20 aim none") == "wrath d20 aim none"


@pytest.mark.parametrize("typed", ["CHOOSE LUST", "  choose    lust  ", "Choose\tLust", "ｃｈｏｏｓｅ　ｌｕｓｔ",
                                   "choose lu", "ch  l"])
def test_case_spaces_and_a_unique_prefix_are_the_move(typed: str) -> None:
    state = carnival_choosing()
    assert parse_typed(CARNIVAL_N, state, 0, typed) == {"type": "choose", "sin": "lust"}


def test_spaces_inside_a_notation_are_forgiven() -> None:
    """Illumination's ``row1`` typed as its label spells it, ``Row 1`` (a trial found it refused)."""
    engine = get("illumination")
    state, rng = engine.new_game(2, 1, {}), random.Random(1)
    while True:
        to_move = engine.to_move(state)
        seat = min(to_move)
        if to_move != frozenset({CHANCE}) and "row1" in [notation_of(engine).describe_action(state, a)
                                                         for a in notation_of(engine).typed_moves(state, seat)]:
            break
        acts = [engine.sample_chance(state, rng)] if seat == CHANCE else engine.legal_actions(state, seat)
        state, _ = engine.apply(state, seat, acts[rng.randrange(len(acts))])
    row1 = next(a for a in notation_of(engine).typed_moves(state, seat) if notation_of(engine).describe_action(state, a) == "row1")
    assert parse_typed(notation_of(engine), state, seat, "Row 1") == row1
    assert parse_typed(notation_of(engine), state, seat, "ROW1") == row1


def test_a_shared_prefix_lists_the_moves_it_fits() -> None:
    state = carnival_choosing()
    with pytest.raises(IllegalAction) as caught:
        parse_typed(CARNIVAL_N, state, 0, "choose g")
    assert caught.value.code == "ambiguous_move"
    assert engine_sentence(InGame(caught.value, "carnival", "choose g"), "en") == (
        "'choose g': fits several moves: `choose greed`, `choose gluttony`. Type more of the one you mean.")


def test_a_move_nothing_fits_lists_the_closest_legal_notations() -> None:
    state = carnival_choosing()
    with pytest.raises(IllegalAction) as caught:
        parse_typed(CARNIVAL_N, state, 0, "chose gred")
    error = caught.value
    assert error.code == "unknown_move"
    legal = [CARNIVAL_N.describe_action(state, a) for a in CARNIVAL_N.typed_moves(state, 0)]
    names = closest("chose gred", legal)
    assert len(legal) == 7 and len(names) == CLOSEST and names[0] == "choose greed"
    assert engine_sentence(InGame(error, "carnival", "chose gred"), "en") == (
        "'chose gred': not a legal move now. The closest legal moves: "
        + ", ".join(f"`{n}`" for n in names) + ".")
    japanese = engine_sentence(InGame(error, "carnival", "chose gred"), "ja")
    assert japanese.startswith("「chose gred」：今は指せる手ではありません。") and "`choose greed`" in japanese


class _Refusing(type(CARNIVAL_N)):  # type: ignore[misc]
    """Carnival whose notation reader refuses with ``error``."""

    def __init__(self, error: Exception) -> None:
        super().__init__(CARNIVAL)
        self.error = error

    def parse_action(self, state: Any, seat: int, text: str) -> Any:
        raise self.error


@pytest.mark.parametrize("error", [IllegalAction("That building is not in the display.", code="not_in_display"),
                                   NotYourTurn("It is not your turn.")])
def test_the_engines_own_refusals_and_turn_checks_stay_as_they_are(error: Exception) -> None:
    with pytest.raises(type(error)) as caught:
        parse_typed(_Refusing(error), carnival_choosing(), 0, "choose lust")
    assert caught.value is error


def test_an_engines_ambiguous_refusal_stays_when_no_move_fits() -> None:
    error = IllegalAction("Several staged tiles can go to b3; name the tile too.", code="ambiguous_move")
    with pytest.raises(IllegalAction) as caught:
        parse_typed(_Refusing(error), carnival_choosing(), 0, "b3")
    assert caught.value is error
    assert parse_typed(_Refusing(error), carnival_choosing(), 0, "choose env") == {"type": "choose", "sin": "envy"}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_games_typed_notation_is_read_back_in_capitals_with_spaces(game_id: str) -> None:
    """Each game's first typed move, shouted with doubled spaces, is that move."""
    engine = get(game_id)
    info = engine.info
    state = engine.new_game(max(info.min_players, 2) if info.max_players >= 2 else 1, 3, {})
    rng = random.Random(3)
    while CHANCE in engine.to_move(state):
        state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
    seat = min(engine.to_move(state))
    move = notation_of(engine).typed_moves(state, seat)[0]
    shouted = "  " + "  ".join(notation_of(engine).describe_action(state, move).upper().split()) + "  "
    assert parse_typed(notation_of(engine), state, seat, shouted) == move


def test_heaven_cards_are_typed_by_the_names_the_autocomplete_shows() -> None:
    """A Heaven move names cards by id (``use N54``); its label (``Use Wrath G3``), the
    notation's verb with the label (``split Greed R1 + …``), the label in another language
    and the autocomplete's ``notation · label`` are the same move (a trial typed names)."""
    from bot.text import Texts

    engine = get("heaven")
    state, rng = engine.new_game(4, 3, {}), random.Random(3)
    checked: set[str] = set()
    for _ in range(300):
        if engine.outcome(state) is not None:
            break
        to_move = engine.to_move(state)
        seat = min(to_move)
        if seat != CHANCE:
            moves = notation_of(engine).typed_moves(state, seat)
            labels = [Texts("heaven", [])(notation_of(engine).action_label(state, a)) for a in moves]
            for action, label in zip(moves, labels, strict=True):
                notation = notation_of(engine).describe_action(state, action)
                if labels.count(label) > 1 or not any(c.isdigit() for c in notation) \
                        or notation.split()[0] in checked:
                    continue  # (one move a kind that names a card by id, by a label of its own)
                ja = Texts("heaven", [], "ja")(notation_of(engine).action_label(state, action))
                verb = notation.split()[0]
                for typed in (label, label.upper(), f"{notation} · {label}", ja,
                              label if label.lower().startswith(verb) else f"{verb} {label}"):
                    assert parse_typed(notation_of(engine), state, seat, typed) == action, (typed, notation)
                checked.add(verb)
        acts = [engine.sample_chance(state, rng)] if seat == CHANCE else engine.legal_actions(state, seat)
        state, _ = engine.apply(state, seat, acts[rng.randrange(len(acts))])
    assert {"use", "discard", "split"} <= checked, checked
