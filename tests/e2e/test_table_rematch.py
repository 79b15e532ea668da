"""Rematch end to end and two fixes: the end message carries Rematch,
which opens a new lobby with the same players (seats rotated), options and timer; a second
press finds that lobby; an ended game's board footer no longer mentions Play; a forged
click on another player's panel is told it is not their panel, and changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def private_to(driver: Driver, user: JSONDict, after: int) -> list[str]:
    fake = driver.fake
    return [m["content"] for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


@pytest.mark.parametrize(("game_id", "options", "count"), [
    ("carnival", {"options": "roll_sigma=300", "timer": 600}, 3),
    ("illumination", {}, 2),
])
async def test_rematch_opens_a_lobby_with_the_same_players_rotated(driver: Driver, players, bot, game_id: str,
                                                                   options: dict[str, Any], count: int) -> None:
    fake = driver.fake
    people = players[:count]
    token = await fake.slash(people[0], "game", "new", options={"game": game_id, **options})
    await driver.settle()
    lobby_message = fake.message_for(token)
    assert lobby_message is not None
    game = int(lobby_message["embeds"][0]["title"].split("#")[1])
    for user in people[1:]:
        await fake.click(user, fake.messages[int(lobby_message["id"])], f"l:{game}:join")
        await driver.settle()
    await fake.click(people[0], fake.messages[int(lobby_message["id"])], f"l:{game}:start")
    await driver.settle()
    old = await driver.record(game)
    await driver.play_to_end(game, random.Random(4))
    board = await driver.board(game)
    assert "Play" not in board["embeds"][0]["footer"]["text"]
    end = await driver.final_message(game)
    rematch = next(c["custom_id"] for c in iter_components(end["components"])
                   if c.get("custom_id", "").endswith(":rematch"))
    mark = max(fake.messages)
    clicker = people[1]
    await fake.click(clicker, end, rematch)
    await driver.settle()
    told = private_to(driver, clicker, mark)
    assert len(told) == 1 and told[0].startswith("🔁 Rematch lobby #")
    lobby_id = int(told[0].split("#")[1].split(" ")[0])
    lobby = await driver.record(lobby_id)
    assert lobby.status == "lobby" and lobby.game_id == game_id and lobby.host_user_id == int(clicker["id"])
    assert [s.user_id for s in lobby.seats] == [s.user_id for s in old.seats[1:] + old.seats[:1]]
    assert (lobby.options, lobby.move_timeout) == (old.options, old.move_timeout)
    public = [m for m in driver.public_messages() if int(m["id"]) > mark]
    assert len(public) == 1 and public[0]["embeds"] and all(p["id"] in public[0]["content"] for p in people)
    # a second press (by another player) finds the same lobby
    mark = max(fake.messages)
    await fake.click(people[0], end, rematch)
    await driver.settle()
    assert private_to(driver, people[0], mark) == [
        f"🔁 The rematch lobby #{lobby_id} is already open in <#{lobby.channel_id}>."]
    # the host starts it from its lobby message
    await fake.click(clicker, fake.messages[int(public[0]["id"])], f"l:{lobby_id}:start")
    await driver.settle()
    assert (await driver.record(lobby_id)).status == "active"


async def test_a_forged_click_on_another_players_panel_is_not_theirs(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    panel = await driver.open_panel(bob, game)
    kind, cid, value = driver.choices(panel)[0]
    before = await driver.record(game)
    mark = max(fake.messages)
    if value is None:
        await fake.click(alice, panel, cid, forge=True)
    else:
        await fake.select(alice, panel, cid, [value], forge=True)
    await driver.settle()
    assert private_to(driver, alice, mark) == ["⚠️ This panel is not yours: press Play ▶ on the board for your own."]
    assert (await driver.record(game)).version == before.version
