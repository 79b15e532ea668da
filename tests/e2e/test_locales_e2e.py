"""Every player in their own language ("Done when"): whole games through
discord.py and the offline Discord with the server and every player in Traditional Chinese
(or Japanese) show no English word in any message, embed, button or select the bot sent —
public, private (panels, My view) or in a DM; and a server in one language with a player
in another gives each their own (the board the server's, the panel the player's)."""

from __future__ import annotations

import importlib
import random
import re
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.ui.notices import rules_in
from engines.registry import GAME_IDS
from engines.registry import notation as get_notation
from tests.bot.test_catalogs import leaks
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]
NAMES = ["alice", "bob", "carol", "dave"]


def shown_texts(message: JSONDict) -> Iterator[str]:
    """Every text a player sees in a message payload: content, embed title, description,
    fields and footer, button labels, select placeholders and option labels/descriptions."""
    if message.get("content"):
        yield message["content"]
    for embed in message.get("embeds") or []:
        for key in ("title", "description"):
            if embed.get(key):
                yield embed[key]
        for fld in embed.get("fields") or []:
            yield fld["name"]
            yield fld["value"]
        if (embed.get("footer") or {}).get("text"):
            yield embed["footer"]["text"]
    for comp in iter_components(message.get("components") or []):
        for key in ("label", "placeholder"):
            if comp.get(key):
                yield comp[key]
        for option in comp.get("options") or []:
            yield option["label"]
            if option.get("description"):
                yield option["description"]


async def localized_bot(fake: FakeDiscord, make_bot: Callable[..., Awaitable[GameBot]], server: str,
                        players: dict[str, str]) -> tuple[Driver, list[JSONDict]]:
    """A bot on a server whose preferred locale is ``server``, with members ``players``
    (name → the locale of their Discord client)."""
    fake.default_guild.locale = server
    users = [fake.owner] + [await fake.add_member(n) for n in NAMES[1:len(players)]]
    for user, name in zip(users, players, strict=True):
        fake.user_locales[user["id"]] = players[name]
    bot = await make_bot()
    return Driver(fake, bot), users


def record_drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every string the renderers draw from now on (``render.base.draw_text``, patched in
    ``render.base`` and in each game's renderer module, which import it by name)."""
    import render.base

    for game_id in GAME_IDS:
        importlib.import_module(f"render.{game_id}")
    drawn: list[str] = []
    real = render.base.draw_text

    def recording(draw: Any, xy: Any, text: str, *args: Any, **kwargs: Any) -> None:
        drawn.append(text)
        real(draw, xy, text, *args, **kwargs)

    for name, module in list(sys.modules.items()):
        if (name == "render" or name.startswith("render.")) and getattr(module, "draw_text", None) is real:
            monkeypatch.setattr(module, "draw_text", recording)
    return drawn


async def open_my_view(driver: Driver, user: JSONDict, game: int) -> JSONDict | None:
    """Press My view on the board (the player's private image); returns the reply."""
    board = await driver.board(game)
    hand = next(c["custom_id"] for c in iter_components(board["components"])
                if c.get("custom_id", "").endswith(":hand"))
    last = max(driver.fake.messages)
    await driver.fake.click(user, board, hand)
    await driver.settle()
    return driver.newest_ephemeral(user, after=last)


WHOLE_GAMES = [pytest.param(g, n, id=f"{g}{n}", marks=[pytest.mark.slow] if (g, n) == ("ora", 2) else [])
               for g, n in (("carnival", 3), ("heaven", 4), ("canterbury", 3), ("eguan", 3), ("illumination", 2),
                            ("ora", 1), ("ora", 2))]
"""(game, players) of the whole games played in each language (Ora: the solo
game, with its neutral player, and the two-player game, with work contracts: the longest)."""


@pytest.mark.parametrize("lang", ["zh-TW", "ja"])
@pytest.mark.parametrize(("game_id", "count"), WHOLE_GAMES)
async def test_a_whole_game_in_one_language_shows_no_english(fake, make_bot, monkeypatch, lang: str, game_id: str,
                                                             count: int) -> None:
    drawn = record_drawn(monkeypatch)
    driver, users = await localized_bot(fake, make_bot, lang, {n: lang for n in NAMES[:count]})
    game = await driver.start_game(game_id, users)
    rng = random.Random(7)
    for step in range(5000):
        record = await driver.record(game)
        if record.status != "active":
            break
        if step % 40 == 0:  # every player's own image now and then
            for user in users:
                assert await open_my_view(driver, user, game) is not None
        await driver.play_once(game, rng)
    assert record.status == "finished"
    await driver.delivered()
    seen = [text for message in fake.messages.values() for text in shown_texts(message)]
    threads = [c["name"] for c in fake.channels.values() if c.get("type") == 11]
    assert len(seen) > 50 and threads and len(drawn) > 100
    assert any(m["flags"] & 64 for m in fake.messages.values()), "no private panel was checked"
    bad = leaks(seen + threads, NAMES)
    assert not bad, f"{len(bad)} English texts: {bad[:10]}"
    bad = leaks(drawn, NAMES)
    assert not bad, f"{len(bad)} English texts drawn: {bad[:10]}"


async def test_the_board_speaks_the_servers_language_and_a_panel_the_players(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "ja", {"alice": "zh-TW", "bob": "en-US", "carol": "ja"})
    game = await driver.start_game("carnival", users)
    board = await driver.board(game)
    assert board["embeds"][0]["title"].startswith("罪のカーニバル #")
    assert [c["label"] for c in iter_components(board["components"]) if c.get("label")][:2] == ["プレイ ▶", "自分の画面"]
    panels = {user["username"]: (await driver.open_panel(user, game))["content"] for user in users[:2]}
    assert "你是座位 A" in panels["alice"] and "罪之嘉年華" in panels["alice"]
    assert "you are seat B" in panels["bob"] and "Carnival of Sins" in panels["bob"]


async def test_game_language_sets_a_players_own_and_a_moderator_sets_the_servers(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "en-US", {"alice": "en-US", "bob": "en-US"})
    alice, bob = users
    token = await fake.slash(bob, "game", "language", server="ja")
    await driver.settle()
    assert fake.message_for(token)["content"].startswith("⚠️ Only moderators")
    token = await fake.slash(bob, "game", "language", language="zh_TW")
    await driver.settle()
    assert fake.message_for(token)["content"] == "你的語言：繁體中文（私訊與私人回覆）。\n" \
                                                 "這個伺服器的語言：English，來自伺服器的 Discord 設定。"
    token = await fake.slash(alice, "game", "language", server="ja")
    await driver.settle()
    assert "このサーバーの言語" not in fake.message_for(token)["content"]  # (alice reads English)
    assert "This server's language: 日本語 (public messages and boards; set by a moderator)." in \
        fake.message_for(token)["content"]
    game = await driver.start_game("carnival", users + [await fake.add_member("carol")])
    board = await driver.board(game)
    assert board["embeds"][0]["title"].startswith("罪のカーニバル #")
    assert "你是座位 B" in (await driver.open_panel(bob, game))["content"]
    # the choices are stored: a restarted bot keeps them
    await fake.stop_bot(driver.bot)
    restarted = await make_bot()
    assert restarted.delivery.locales.users[int(bob["id"])] == "zh_TW"
    assert restarted.delivery.locales.public(int(fake.default_guild.id)) == "ja"
    token = await fake.slash(bob, "game", "language", language="auto")
    await Driver(fake, restarted).settle()
    assert fake.message_for(token)["content"].startswith("Your language: English, from your Discord settings")


TRANSLATED_RULES = ("carnival", "heaven", "illumination", "eguan", "canterbury", "ora")
"""The games whose rules.md is translated into every language (all six)."""


@pytest.mark.parametrize("game_id", TRANSLATED_RULES)
@pytest.mark.parametrize("lang", ["zh_TW", "zh_CN", "ja"])
def test_a_translated_rules_file_keeps_the_english_one_s_shape(game_id: str, lang: str) -> None:
    notation = get_notation(game_id)
    english = notation.rules_text()
    translated = rules_in(notation, lang)
    assert translated != english
    for mark in ("•", "`", "\n"):
        assert translated.count(mark) == english.count(mark), mark
    assert translated.count("**") % 2 == 0 and translated.count("**") >= english.count("**")
    assert re.findall(r"`[^`]*`", translated) == re.findall(r"`[^`]*`", english)  # the notation stays


@pytest.mark.parametrize("lang", ["zh-TW", "ja"])
async def test_game_rules_answers_in_the_readers_language(fake, make_bot, lang: str) -> None:
    driver, users = await localized_bot(fake, make_bot, "en-US", {"alice": lang})
    for game_id in TRANSLATED_RULES:
        last = max(fake.messages) if fake.messages else 0
        await fake.slash(users[0], "game", "rules", game=game_id)
        await driver.settle()
        chunks = [m["content"] for mid, m in sorted(fake.messages.items()) if mid > last and m["flags"] & 64]
        assert chunks and all(len(c) <= 2000 for c in chunks)
        expected = rules_in(get_notation(game_id), lang)
        assert "\n".join(chunks).split() == expected.split()
        title = {"carnival": {"zh-TW": "罪之嘉年華", "ja": "罪のカーニバル"}}.get(game_id, {}).get(lang)
        assert (title or {"heaven": "天路", "illumination": "闡明", "eguan": "悪貫" if lang == "ja" else "惡貫",
                           "canterbury": "カンタベリー" if lang == "ja" else "坎特伯里",
                           "ora": "オラ・エト・ラボラ" if lang == "ja" else "祈禱與工作"}[game_id]) in expected.splitlines()[0]


async def test_a_refusal_is_written_in_the_readers_language(fake, make_bot) -> None:
    driver, users = await localized_bot(fake, make_bot, "en-US", {"alice": "en-US", "bob": "zh-TW"})
    game, lobby = await driver.open_lobby(users[0], "carnival")
    await fake.click(users[1], fake.messages[int(lobby["id"])], f"l:{game}:join")
    await driver.settle()
    await fake.click(users[1], fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    refusal = driver.newest_ephemeral(users[1])
    assert refusal is not None and refusal["content"] == "⚠️ 只有主持人或管理員可以開始遊戲。"
    token = await fake.slash(users[0], "game", "board", game="#99")
    await driver.settle()
    assert fake.message_for(token)["content"] == "⚠️ There is no game #99."


async def test_names_are_escaped_in_messages_and_drawn_as_they_are(fake, make_bot) -> None:
    fake.default_guild.locale = "en-US"
    users = [fake.owner, await fake.add_member("b_o_b"), await fake.add_member("**cy**")]
    bot = await make_bot()
    driver = Driver(fake, bot)
    game = await driver.start_game("carnival", users)
    await driver.play_to_end(game, random.Random(3))
    await driver.delivered()
    public = "\n".join(m["content"] for m in driver.public_messages())
    assert "b\\_o\\_b" in public and "\\*\\*cy\\*\\*" in public
    assert "b_o_b" not in public.replace("b\\_o\\_b", "") and "**cy**" not in public
    record = await driver.record(game)
    assert bot.delivery.locales.public_texts(record).plain().name(1) == "b_o_b"


async def test_ora_solo_shows_no_timer_and_a_two_player_game_does(fake, make_bot) -> None:
    """Ora's solo game has no move timer (docs/rules/ora.md §11; engines.base.NO_TIMER): no
    deadline on its board or in its turn notices; a two-player game shows its timer."""
    driver, users = await localized_bot(fake, make_bot, "ja", {"alice": "ja", "bob": "ja"})
    solo = await driver.start_game("ora", users[:1])
    await driver.play_once(solo, random.Random(1))
    record = await driver.record(solo)
    assert record.deadline is not None  # (the abandonment horizon stays stored)
    assert "<t:" not in (await driver.board(solo))["embeds"][0]["description"]
    assert not [m["content"] for m in driver.public_messages() if "<t:" in m["content"]]
    duo = await driver.start_game("ora", users)
    assert "<t:" in (await driver.board(duo))["embeds"][0]["description"]
