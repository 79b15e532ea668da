"""The host's one error path, its ``game`` argument and its clock loop, end to end
(bot/ui/errors.py, bot/ui/arguments.py, bot/ui/clock.py): a refusal is a private
sentence and logs nothing; a bug is logged once with its traceback and answered with an
apology, from a command and from a button alike."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from bot.ui.arguments import game_number
from bot.ui.errors import APOLOGY
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def private_to(fake, user: JSONDict, after: int) -> list[str]:
    return [m["content"] for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


def taken_errors(fake) -> list[logging.LogRecord]:
    """The ERROR records logged so far, removed (so the fixture's no-error check passes)."""
    records = list(fake.errors.records)
    fake.errors.records.clear()
    return records


async def test_a_bug_in_a_command_is_logged_once_and_answered_with_an_apology(
        driver: Driver, players, bot, monkeypatch) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug in show_log")

    monkeypatch.setattr(bot.flow.notices, "show_log", broken)
    last = max(fake.messages)
    await fake.slash(alice, "game", "log", game=game)
    await driver.settle()
    assert private_to(fake, alice, last) == [APOLOGY]
    (record,) = taken_errors(fake)
    assert record.exc_info is not None and "a bug in show_log" in str(record.exc_info[1])


async def test_a_bug_behind_a_button_is_logged_once_and_answered_with_an_apology(
        driver: Driver, players, bot, monkeypatch) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise KeyError("a bug in open_panel")

    monkeypatch.setattr(bot.flow.moves, "open_panel", broken)
    board = await driver.board(game)
    play = next(c["custom_id"] for c in iter_components(board["components"]) if c.get("custom_id", "").endswith(":play"))
    last = max(fake.messages)
    await fake.click(alice, board, play)
    await driver.settle()
    assert private_to(fake, alice, last) == [APOLOGY]
    (record,) = taken_errors(fake)
    assert record.exc_info is not None and isinstance(record.exc_info[1], KeyError)


async def test_refusals_from_a_button_and_a_command_are_sentences_and_log_nothing(
        driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    board = await driver.board(game)
    play = next(c["custom_id"] for c in iter_components(board["components"]) if c.get("custom_id", "").endswith(":play"))
    last = max(fake.messages)
    await fake.click(carol, board, play)                               # a HostError behind a button
    await fake.slash(carol, "carnival", "play", action="choose nothing", game=game)   # and in a command
    await fake.slash(alice, "carnival", "play", action="no such move", game=game)     # a GameError
    await driver.settle()
    told = private_to(fake, carol, last)  # (in the order they were answered: Play ▶ answers by a follow-up)
    assert told == [f"⚠️ Carnival of Sins (罪のカーニバル) #{game} is not your game — you are not playing in it."] * 2, told  # (the same words)
    (refused,) = private_to(fake, alice, last)
    assert refused.startswith("⚠️ ") and APOLOGY not in refused
    assert not fake.errors.records


@pytest.mark.parametrize("text, number", [("12", 12), ("#12", 12), (" # 7 ", 7), (3, 3),
                                          ("twelve", None), ("", None), ("#", None), (True, None),
                                          ("²", None), ("9" * 19, None), (-1, None)])
def test_game_number_reads_a_number_with_or_without_its_hash(text: object, number: int | None) -> None:
    assert game_number(text) == number


async def test_the_game_argument_takes_hash_or_bare_numbers_and_refuses_unknown_games(
        driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    for given in (f"#{game}", str(game)):
        last = max(fake.messages)
        await fake.slash(alice, "game", "log", game=given)
        await driver.settle()
        (first, *_) = private_to(fake, alice, last)
        assert first.startswith(f"📜 Log of game #{game} "), first
    for given, sentence in ((f"#{game + 40}", f"⚠️ There is no game #{game + 40}."),
                            ("9" * 30, f"⚠️ '{'9' * 30}' is not a game number; write it like `12` or `#12`."),
                            ("carnival", "⚠️ 'carnival' is not a game number; write it like `12` or `#12`.")):
        last = max(fake.messages)
        await fake.slash(alice, "game", "mod", "end", game=given)     # a moderator command: the check passes first
        await driver.settle()
        assert private_to(fake, alice, last) == [sentence]
    assert (await driver.record(game)).status == "active"
    assert not fake.errors.records


async def test_the_game_argument_suggests_the_callers_games_waiting_ones_first(
        driver: Driver, players, bot) -> None:
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    ours = await driver.start_game("carnival", [alice, bob])
    theirs = await driver.start_game("carnival", [carol, dave])
    lobby, _ = await driver.open_lobby(bob, "carnival")
    choices = await fake.autocomplete(alice, "game", "log", focused="game", game="")
    values = [c["value"] for c in choices]
    # alice's running game (simultaneous picks: it waits on her) first; the channel's other games follow
    assert values[0] == str(ours) and "your move!" in choices[0]["name"], choices
    assert set(values) == {str(ours), str(theirs), str(lobby)}
    narrowed = await fake.autocomplete(alice, "carnival", "play", focused="game", game=f"#{theirs}")
    assert [c["value"] for c in narrowed] == [str(theirs)]
    assert await fake.autocomplete(alice, "game", "log", focused="game", game="#999") == []


async def test_the_clock_loop_runs_from_setup_and_stops_on_close(fake, make_bot, monkeypatch) -> None:
    bot = await make_bot()
    loop = bot.flow.clock.loop
    assert loop.is_running()
    calls: list[float | None] = []

    async def failing(now: float | None = None) -> int:
        calls.append(now)
        raise RuntimeError("a bug in the clock")

    monkeypatch.setattr(bot.flow.clock, "tick", failing)
    await loop()                          # one pass of the loop's body: the failure is logged, not raised
    assert calls == [None]
    (record,) = taken_errors(fake)
    assert record.getMessage() == "game clock pass failed" and record.exc_info is not None
    await fake.stop_bot(bot)
    assert not loop.is_running()


async def test_a_non_players_play_is_refused_naming_the_game(driver: Driver, players, bot) -> None:
    """Any game's `play` by someone without a seat names the game (title and number), by
    its own command and by `/game play`, in the reader's language."""
    carol = players[4]
    fake = driver.fake
    game = await driver.start_game("heaven", players[:4])
    for sub, options in (("heaven", {"game": game}), ("heaven", {}), ("game", {"game": game})):
        last = max(fake.messages)
        await fake.slash(carol, sub, "play", **options)
        await driver.settle()
        assert private_to(fake, carol, last) == [
            f"⚠️ The Way to Heaven (天路) #{game} is not your game — you are not playing in it."], (sub, options)
    fake.user_locales[carol["id"]] = "ja"
    last = max(fake.messages)
    await fake.slash(carol, "heaven", "play", game=game)
    await driver.settle()
    assert private_to(fake, carol, last)[0].startswith(f"⚠️ 天路 #{game} は")
