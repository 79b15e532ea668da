"""Spectators and ratings end to end: ``/game watch`` puts the
public board in a spectator's DMs (one message, edited as the game moves, drawn from the
public view only) or sends one DM at the end; it is refused for players and for a game of
another server; ``/game watch mode:stop`` stops it. A game that finishes normally updates the
server's ratings once (``/game leaderboard``, and with ``player:`` a member's stats); an ended one does not."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.sandbox.fakecord import EPHEMERAL
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def dms(driver: Driver, user: JSONDict) -> list[JSONDict]:
    channel = driver.fake.dm_channels.get(user["id"])
    return driver.fake.channel_messages(channel["id"]) if channel else []


def private_to(driver: Driver, user: JSONDict, after: int) -> list[str]:
    fake = driver.fake
    return [m["content"] for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


@pytest.mark.parametrize("game_id", ["carnival", "illumination"])
async def test_spectators_get_the_public_board_or_the_end_and_ratings_count_once(
        driver: Driver, players, bot, game_id: str) -> None:
    alice, bob, carol, dave, erin = players[:5]
    fake = driver.fake
    game = await driver.start_game(game_id, [alice, bob])
    mark = max(fake.messages)
    await fake.slash(carol, "game", "watch", game=game, mode="board")
    await fake.slash(dave, "game", "watch", game=game, mode="end")
    await fake.slash(erin, "game", "watch", game=game, mode="end")
    await fake.slash(bob, "game", "watch", game=game)                    # a player needs no watching
    await driver.settle()
    assert "You play in game" in private_to(driver, bob, mark)[0]
    (board_dm,) = dms(driver, carol)
    assert board_dm["attachments"] and "public board" in board_dm["content"]
    assert not dms(driver, dave)
    first = board_dm["attachments"][0]["id"]
    await fake.slash(erin, "game", "watch", game=game, mode="stop")
    await driver.settle()
    assert "no longer follow" in private_to(driver, erin, mark)[-1]
    await driver.play_once(game, random.Random(1))
    (board_dm,) = dms(driver, carol)                                     # edited in place
    assert board_dm["attachments"][0]["id"] != first
    record = await driver.play_to_end(game, random.Random(2))
    assert record.status == "finished"
    (ended,) = dms(driver, dave)
    assert "is over" in ended["content"]
    assert len(dms(driver, carol)) == 1 and not dms(driver, erin)
    assert [a["filename"].split(".")[0] for a in dms(driver, carol)[0]["attachments"]] == ["board"]
    # ratings: both players rated once, the winner above
    rows = await bot.repo.ratings(fake.guild_id, game_id)
    assert sorted(r[1] for r in rows) == sorted([int(alice["id"]), int(bob["id"])])
    assert all(r[4] == 1 for r in rows)
    outcome = bot.service.engine(record).outcome(bot.service.state(record))
    assert outcome is not None
    assert sum(r[5] for r in rows) == len(outcome.winners)
    assert not await bot.service.rate(record, outcome)                    # counted once
    mark = max(fake.messages)
    await fake.slash(carol, "game", "leaderboard", game=game_id)
    await fake.slash(carol, "game", "leaderboard", options={"player": bob})
    await fake.slash(bob, "game", "leaderboard")                         # no game: your own stats
    await fake.slash(carol, "game", "leaderboard", game="heaven", options={"player": bob})
    await driver.settle()
    board, stats = private_to(driver, carol, mark)[:2]
    assert board.count(" · 1 game · ") == 2 and f"<@{rows[0][1]}>" in board.splitlines()[1]
    assert board.splitlines()[1].endswith(" · 1 game · 1 win") and "rating 1569? ·" in board.splitlines()[1]
    assert board.splitlines()[-1].startswith("-# A rating starts at 1500")
    assert stats.startswith(f"📊 <@{bob['id']}>: 1 rated game, ") and bot.service.engine(record).info.name in stats
    assert private_to(driver, bob, mark) == [stats]
    assert private_to(driver, carol, mark)[2] == f"<@{bob['id']}> has no rated games in this server yet."


async def test_watch_is_refused_for_a_game_of_another_server_and_ended_games_are_not_rated(
        driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    beta = fake.add_guild("Beta", owner_name="zed")
    zed = beta.owner
    await driver.settle()
    game = await driver.start_game("carnival", [alice, bob])
    mark = max(fake.messages)
    await fake.slash(zed, "game", "watch", game=game, channel=beta.channel)
    await driver.settle()
    assert "another server" in private_to(driver, zed, mark)[0]
    assert not await bot.repo.watchers(game)
    await fake.slash(alice, "game", "mod", "end", game=game)
    await driver.settle()
    assert (await driver.record(game)).status == "abandoned"
    assert not await bot.repo.ratings(fake.guild_id, "carnival")
