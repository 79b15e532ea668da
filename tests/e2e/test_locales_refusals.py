"""Refusals, preferences, lobby option menus, typed-move confirmations and AI seat names in
the reader's language (bot/ui/errors.py ``engine_sentence``,
bot/text/en/refusal.toml, bot/ui/lobby_options.py, cogs/games.py ``prefs``,
bot/service.py ``seat_names``), through discord.py and the offline Discord."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.sandbox.fakecord import iter_components
from bot.service import texts
from bot.typed_moves import closest
from engines.base import CHANCE
from engines.registry import GAME_IDS, notation_of
from engines.registry import get as get_engine
from tests.bot.test_catalogs import leaks
from tests.e2e.driver import Driver
from tests.e2e.test_locales_e2e import NAMES, localized_bot, shown_texts

JSONDict = dict[str, Any]

UNKNOWN = {"zh-TW": "⚠️ 「{move}」：現在不是合法的行動。最接近的合法行動：{closest}。",
           "ja": "⚠️ 「{move}」：今は指せる手ではありません。近い合法手：{closest}。"}
"""A typed move nothing fits (bot/typed_moves.py): quoted, then the closest legal notations."""
NOT_YOUR_TURN = {"zh-TW": "⚠️ 「{move}」：還沒輪到你。", "ja": "⚠️ 「{move}」：あなたの手番ではありません。"}


async def typed(driver: Driver, user: JSONDict, game_id: str, game: int, text: str) -> str:
    """``/<game> play action:<text>`` as ``user``; the private answer's content."""
    last = max(driver.fake.messages) if driver.fake.messages else 0
    await driver.fake.slash(user, game_id, "play", action=text, game=game)
    await driver.settle()
    reply = driver.newest_ephemeral(user, after=last)
    assert reply is not None, "no private answer"
    return str(reply["content"])


def players_of(game_id: str) -> int:
    """The smallest table of ``game_id`` (E Guan, Heaven and the others need more than two)."""
    return max(2, get_engine(game_id).info.min_players)


@pytest.mark.parametrize("lang", ["zh-TW", "ja"])
@pytest.mark.parametrize("game_id", GAME_IDS)
async def test_a_typed_move_is_refused_and_confirmed_in_the_readers_language(fake, make_bot, lang: str,
                                                                             game_id: str) -> None:
    count = players_of(game_id)
    driver, users = await localized_bot(fake, make_bot, lang, {n: lang for n in NAMES[:count]})
    game = await driver.start_game(game_id, users)
    await driver.delivered()
    record = await driver.record(game)
    engine, state = driver.bot.service.engine(record), driver.bot.service.state(record)
    assert CHANCE not in engine.to_move(state)
    mover = (await driver.waiting_users(game))[0]
    seat = record.seat_of(int(mover["id"]))
    assert seat is not None
    # notation the engine does not know: refused, quoting it, in the reader's language
    legal = [notation_of(engine).describe_action(state, a) for a in notation_of(engine).typed_moves(state, seat)]
    near = "、".join(f"`{n}`" for n in closest("zzz 9", legal))
    assert await typed(driver, mover, game_id, game, "zzz 9") == UNKNOWN[lang].format(move="zzz 9", closest=near)
    move = notation_of(engine).typed_moves(state, seat)[0]
    notation = notation_of(engine).describe_action(state, move)
    # a player the game does not wait for: not their turn
    idle = [u for u in users if int(u["id"]) not in {record.user_of(s) for s in engine.to_move(state)}]
    if idle:
        assert await typed(driver, idle[0], game_id, game, notation) == NOT_YOUR_TURN[lang].format(move=notation)
    assert (await driver.record(game)).version == record.version  # nothing changed
    # a legal move: confirmed in the words of its button, not by its notation
    label = texts(record, lang)(notation_of(engine).action_label(state, move))
    answer = await typed(driver, mover, game_id, game, notation)
    assert answer.startswith(f"✓ {label}"), (answer, label)
    assert (await driver.record(game)).version > record.version
    assert not leaks([label], NAMES), label


async def test_an_ora_rules_refusal_of_a_typed_move_is_the_games_own_sentence(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "en-US", {"alice": "ja", "bob": "zh-TW"})
    game = await driver.start_game("ora", users)
    mover = (await driver.waiting_users(game))[0]
    answer = await typed(driver, mover, "ora", game, "build G01 9 9")
    expected = {"alice": "⚠️ 「build G01 9 9」：その建物は展示エリアにありません。",
                "bob": "⚠️ 「build G01 9 9」：那座建築不在展示區。"}[mover["username"]]
    assert answer == expected


async def test_a_bad_lobby_option_is_refused_in_the_readers_language(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "en-US", {"alice": "zh-TW"})
    token = await fake.slash(users[0], "game", "new", game="heaven", options={"options": "round_limit=5"})
    await driver.settle()
    assert fake.message_for(token)["content"] == "⚠️ 選項「round_limit」不能是「5」；可用的值：10 到 99 的整數。"
    token = await fake.slash(users[0], "game", "new", game="heaven", options={"options": "no_such=1"})
    await driver.settle()
    content = fake.message_for(token)["content"]
    assert content == ("⚠️ 沒有選項「no_such」；請用大廳顯示的名稱或它的鍵來指定選項：圖板面 (board_side)、"
                       "天堂之門的顏色 (gate_same_colour)、組合 C3 (c3_rule)、×3 模式 (x3_mode)、借用範圍 (borrow_scope)、"
                       "守護的範圍 (guardian_scope)、恩賜上限 (grace_cap)、三人遊戲 (allow_three)、回合上限 (round_limit)、"
                       "回合計時（小時） (turn_timeout)、反應計時（小時） (reaction_timeout)。"), content
    token = await fake.slash(users[0], "game", "new", game="heaven", options={"options": "回合上限=20"})
    await driver.settle()
    lobbies = await driver.bot.repo.games(status=("lobby",))  # (the name as the lobby shows it opens the lobby)
    assert [g.options.get("round_limit") for g in lobbies] == [20]


async def test_game_prefs_answers_in_japanese(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "en-US", {"alice": "ja"})
    token = await fake.slash(users[0], "game", "prefs", game="heaven", settings="auto_draw=false")
    await driver.settle()
    lines = fake.message_for(token)["content"].splitlines()
    assert lines[0] == "**天路：あなたの設定**"
    assert lines[2] == ("**すぐに引く**（`auto_draw` = **いいえ**）— 手札が3枚未満のときはすぐに引く。"
                        "いいえ = 引くか引かないかを尋ねる。（使える値：true, false）")
    assert [line.split("（`")[1].split("`")[0] for line in lines[1:]] == ["auto_advance", "auto_draw", "guardian_pref"]
    assert not leaks([line.split("（`")[0] + line.split("）— ")[1].split("（使える値")[0] for line in lines[1:]],
                     NAMES + ["ask", "auto_guard", "never"])
    assert "preferences" not in "\n".join(lines) and "allowed" not in "\n".join(lines)


async def test_the_lobby_option_menus_speak_the_servers_language(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "zh-TW", {"alice": "zh-TW"})
    game, lobby = await driver.open_lobby(users[0], "heaven")
    menu = next(c for c in iter_components(lobby["components"]) if c.get("custom_id") == f"lo:{game}:key")
    labels = {o["value"]: o["label"] for o in menu["options"]}
    assert labels["round_limit"] == "回合上限 = 40" and labels["allow_three"] == "三人遊戲 = 否"
    about = {o["value"]: o.get("description") for o in menu["options"]}
    assert about["allow_three"] == "允許非官方的三人遊戲。"
    assert labels["board_side"] == "圖板面 = 簡易版"
    assert not leaks([t for o in menu["options"] for t in (o["label"], o.get("description") or "")], NAMES)
    # a pick shows that option's values under its name; a change is listed by name in the embed
    await fake.select(users[0], fake.messages[int(lobby["id"])], f"lo:{game}:key", ["allow_three"])
    await driver.settle()
    lobby = fake.messages[int(lobby["id"])]
    picker = next(c for c in iter_components(lobby["components"]) if c.get("custom_id") == f"lo:{game}:v:allow_three")
    assert [o["label"] for o in picker["options"]] == ["是", "否"]
    await fake.select(users[0], lobby, f"lo:{game}:v:allow_three", [json.dumps(True)])
    await driver.settle()
    fields = {f["name"]: f["value"] for f in fake.messages[int(lobby["id"])]["embeds"][0]["fields"]}
    assert "三人遊戲 = 是" in fields.values(), fields


async def test_an_ai_seat_is_named_in_the_readers_language(fake, make_bot) -> None:
    fake.default_guild.locale = "ja"
    users = [fake.owner, await fake.add_member("bob")]
    fake.user_locales[users[0]["id"]], fake.user_locales[users[1]["id"]] = "ja", "zh-TW"
    driver = Driver(fake, await make_bot(ai_iterations=3))
    game, lobby = await driver.open_lobby(users[0], "carnival")
    await fake.click(users[1], fake.messages[int(lobby["id"])], f"l:{game}:join")
    await driver.settle()
    await fake.select(users[0], fake.messages[int(lobby["id"])], f"la:{game}", ["hard"])
    await driver.settle()
    lobby = fake.messages[int(lobby["id"])]
    players = next(f["value"] for f in lobby["embeds"][0]["fields"] if f["name"].startswith("プレイヤー（3/"))
    assert players.splitlines()[2] == "3. 🤖 ボット · むずかしい", players
    record = await driver.record(game)
    assert record.seats[2].name == "Bot · Hard"  # (stored as it always was: shown by its level)
    assert texts(record, "zh-TW").name(2) == "機器人 · 困難" and texts(record, "ja").name(2) == "ボット · むずかしい"
    await fake.click(users[0], lobby, f"l:{game}:start")
    await driver.settle()
    await driver.delivered()
    seen = [t for m in fake.messages.values() for t in shown_texts(m)]
    assert not any("Bot" in t for t in seen)
    assert any("ボット · むずかしい" in "\n".join(shown_texts(m)) for m in driver.public_messages())


async def test_the_options_autocomplete_names_options_in_the_readers_language(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "en-US", {"alice": "zh-TW"})
    await driver.settle()
    found = await fake.autocomplete(users[0], "game", "new", focused="options", game="heaven",
                                    options={"options": "board"})
    assert [(c["name"], c["value"]) for c in found] == [
        ("board_side=easy · 圖板面 = 簡易版", "board_side=easy"), ("board_side=advanced · 圖板面 = 進階版", "board_side=advanced")]
