"""An engine's refusal in the reader's language (bot/ui/errors.py ``engine_sentence``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.text import TRANSLATED, Texts, catalog
from bot.ui.errors import InGame, engine_sentence, refusal
from bot.ui.lobby import option_keys, parse_options
from bot.ui.lobby_options import option_text
from engines.base import (
    CHANCE,
    GameError,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    validate_options,
)
from engines.registry import GAME_IDS, get, notation


def mode_error() -> GameError:
    with pytest.raises(GameError) as caught:
        get("ora").new_game(3, 1, {"mode": "long"})
    return caught.value


def test_a_refusal_the_engine_gave_as_a_catalog_message_is_said_in_the_readers_language() -> None:
    error = mode_error()
    assert refusal(error, "en") == ("⚠️ Mode long does not fit this player count (3). "
                                    "Choose mode=standard (standard), mode=short (short), or change the seats.")
    japanese = refusal(error, "ja")
    assert japanese is not None and "3" in japanese and "long" in japanese
    assert japanese != refusal(error, "en") and "Choose" not in japanese


def test_a_plain_engine_refusal_is_said_by_its_code_in_the_readers_language() -> None:
    assert refusal(GameError("You can only take a table die."), "ja") == "⚠️ 今はそれはできません。"
    assert refusal(NotYourTurn("It is not your turn."), "zh_TW") == "⚠️ 還沒輪到你。"
    assert refusal(IllegalAction("Nope.", code="some_new_code"), "zh_CN") == "⚠️ 现在不能这样行动。"
    assert refusal(GameOver("The game is over."), "en") == "⚠️ The game is over."


def test_an_unknown_move_quotes_the_typed_text() -> None:
    with pytest.raises(GameError) as caught:
        notation("heaven").parse_action(heaven_start(), 0, "  fly away ")
    assert caught.value.code == "unknown_move"
    assert engine_sentence(caught.value, "ja") == "「fly away」は今は指せる手ではありません。"
    assert engine_sentence(caught.value, "en") == "'fly away' is not a legal move now."


def test_a_game_words_its_own_codes_and_a_typed_move_is_quoted_first() -> None:
    error = IllegalAction("That building is not in the display.", code="not_in_display")
    assert engine_sentence(error, "zh_TW", "ora") == "那座建築不在展示區。"
    assert engine_sentence(error, "zh_TW") == "現在不能這樣行動。"  # (no game known: the class's sentence)
    assert engine_sentence(InGame(error, "ora", "build G01 9 9"), "ja") == "「build G01 9 9」：その建物は展示エリアにありません。"
    assert engine_sentence(InGame(NotYourTurn("x"), "carnival", "lust"), "en") == "'lust': It is not your turn."
    wrapped = InGame(error, "ora")
    assert (wrapped.code, wrapped.message, refusal(wrapped, "ja")) == (
        "not_in_display", "That building is not in the display.", "⚠️ その建物は展示エリアにありません。")


def test_option_refusals_are_catalog_messages() -> None:
    info = get("heaven").info
    with pytest.raises(InvalidOptions) as caught:
        validate_options(info, {"round_limit": "5"})
    assert refusal(caught.value, "zh_TW") == "⚠️ 選項「round_limit」不能是「5」；可用的值：10 到 99 的整數。"
    assert caught.value.message == "Option 'round_limit' cannot be '5'; allowed: int from 10 to 99."
    with pytest.raises(InvalidOptions) as caught:
        validate_options(info, {"board_side": "hard"})
    assert refusal(caught.value, "ja") == "⚠️ オプション「board_side」は「hard」にできません。使える値：easy, advanced。"
    with pytest.raises(InvalidOptions) as caught:
        validate_options(get("eguan").info, {"speed": "1"})
    assert refusal(caught.value, "en") == "⚠️ Unknown option 'speed'; known options: end_rule."
    with pytest.raises(InvalidOptions) as caught:
        get("carnival").new_game(9, 1)
    assert refusal(caught.value, "zh_CN") == "⚠️ 罪之嘉年华 需要 2–5 名玩家，而不是 9 名。"
    with pytest.raises(InvalidOptions) as caught:
        get("heaven").new_game(3, 1)
    assert refusal(caught.value, "en") == "⚠️ The Way to Heaven (天路) needs 4–6 players, not 3."


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_option_and_preference_has_a_name_and_a_description_in_its_games_catalog(game_id: str) -> None:
    info = get(game_id).info
    english = catalog(game_id)
    for kind, specs in (("option", info.options), ("pref", info.preferences)):
        for spec in specs:
            assert english[f"{kind}.{spec.key}.about"] == spec.description
            assert 0 < len(english[f"{kind}.{spec.key}.name"]) <= 40
            for locale in TRANSLATED:
                name, about = option_text(Texts(game_id, [], locale, strict=True), spec, kind)
                assert (name, about) != (english[f"{kind}.{spec.key}.name"], spec.description)
                assert len(about) <= 100  # (a select option's description)


def heaven_start() -> dict[str, Any]:
    engine = get("heaven")
    state = engine.new_game(4, 1)
    rng = random.Random(1)
    while CHANCE in engine.to_move(state):
        state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
    assert 0 in engine.to_move(state)
    return state


@pytest.mark.parametrize(("typed", "english", "japanese"), [
    ("a=1 a=2", "Option 'a' is given twice.", "オプション「a」が2回指定されています。"),
    ("zones", "Write options as key=value (got 'zones').", "オプションは key=value の形で書いてください（受け取った値：「zones」）。"),
    ('k="open', "Option 'k' has a quote that is never closed; write it as k=\"…\" or leave the quotes out.",
     "オプション「k」の引用符が閉じていません。k=\"…\" と書くか、引用符を外してください。"),
])
def test_options_as_typed_are_refused_in_the_readers_language(typed: str, english: str, japanese: str) -> None:
    with pytest.raises(InvalidOptions) as caught:
        parse_options(typed)
    assert (caught.value.message, engine_sentence(caught.value), engine_sentence(caught.value, "ja")) == (
        english, english, japanese)


def test_options_are_named_by_key_or_by_the_name_the_lobby_shows_in_any_language() -> None:
    typed = parse_options("Wrath knock chance=0.3 ROLL_SIGMA=300 憤怒の場外確率=0.1 \"table  MODEL\"=zones")
    assert option_keys("carnival", typed) == {
        "wrath_knock_prob": "0.3", "roll_sigma": "300", "wrath_off_table_prob": "0.1", "table_model": "zones"}
    with pytest.raises(InvalidOptions) as caught:
        option_keys("carnival", parse_options("roll_sigma=300 roll spread=200"))
    assert caught.value.message == "Option 'roll_sigma' is given twice."
    with pytest.raises(InvalidOptions) as caught:
        parse_options("Wrath knock chance")
    assert caught.value.message == "Write options as key=value (got 'Wrath knock chance')."


def test_an_unknown_option_is_refused_listing_the_names_and_keys_in_the_readers_language() -> None:
    with pytest.raises(InvalidOptions) as caught:
        option_keys("carnival", {"knock": "0.3"}, "ja")
    assert engine_sentence(caught.value, "ja") == (
        "オプション「knock」はありません。ロビーに表示される名前かキーで指定してください："
        "テーブルモデル (table_model)、ロールのばらつき (roll_sigma)、憤怒の狙いのぶれ (wrath_aim_sigma)、"
        "憤怒の衝突半径 (wrath_knock_radius)、憤怒の衝突確率 (wrath_knock_prob)、憤怒の場外確率 (wrath_off_table_prob)。")
    with pytest.raises(InvalidOptions) as caught:
        option_keys("carnival", {"knock": "0.3"})
    assert caught.value.message == (
        "Unknown option 'knock'; name an option as the lobby shows it or by its key: Table model (table_model), "
        "Roll spread (roll_sigma), Wrath aim scatter (wrath_aim_sigma), Wrath knock radius (wrath_knock_radius), "
        "Wrath knock chance (wrath_knock_prob), Wrath off-table chance (wrath_off_table_prob).")


def test_a_quoted_move_is_escaped_so_it_pings_no_one() -> None:
    error = InGame(NotYourTurn("It is not your turn."), "heaven", "@everyone **now**")
    assert engine_sentence(error) == "'@\u200beveryone \\*\\*now\\*\\*': It is not your turn."
