"""Resign end to end (issue 16 point 2): ``/game resign`` asks first and changes nothing;
the confirmation marks the seat left with a ``resign`` entry, tells the table publicly, and
the game goes on to its end with that seat played automatically. The host may open a lobby
without taking a seat (``/game new play:False``)."""

from __future__ import annotations

import random
from typing import Any

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def newest_private(driver: Driver, user: JSONDict, after: int) -> JSONDict:
    fake = driver.fake
    found = [m for mid, m in sorted(fake.messages.items())
             if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]
    assert found, "no private answer"
    return found[-1]


async def resign(driver: Driver, user: JSONDict, game: int) -> JSONDict:
    """``/game resign`` then press the confirmation; returns the private answer."""
    fake = driver.fake
    before = await driver.record(game)
    mark = max(fake.messages)
    await fake.slash(user, "game", "resign", game=game)
    await driver.settle()
    ask = newest_private(driver, user, mark)
    assert f"Resign game #{game}?" in ask["content"]
    assert (await driver.record(game)).version == before.version          # asking changes nothing
    confirm = next(c["custom_id"] for c in iter_components(ask["components"]) if c.get("custom_id", "").endswith(":resign"))
    await fake.click(user, ask, confirm)
    await driver.settle()
    return fake.messages[int(ask["id"])]


async def test_carnival_resign_confirms_announces_and_the_seat_plays_on(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    game = await driver.start_game("carnival", [alice, bob, carol])
    mark = max(driver.fake.messages)
    answer = await resign(driver, bob, game)
    assert answer["content"] == f"🏳 You resigned from game #{game}."
    record = await driver.record(game)
    assert [s.status for s in record.seats] == ["active", "left", "active"]
    public = [m["content"] for m in driver.public_messages() if int(m["id"]) > mark]
    assert any(f"resigned from game #{game}" in t and bob["id"] in t for t in public), public
    kinds = [(e.action.get("type"), e.user_id) for e in await bot.repo.log(game) if e.kind == "system"]
    assert ("resign", int(bob["id"])) in kinds
    assert 1 not in bot.service.waiting(record)                          # bob's pick was made for him
    final = await driver.play_to_end(game, random.Random(3))
    assert final.status == "finished"
    autos = [e for e in await bot.repo.log(game) if e.kind == "player" and e.seat == 1 and e.user_id is None]
    assert autos and all(e.events[0]["kind"] == "autoplay" for e in autos)
    assert await bot.service.replay_matches(game)


async def test_illumination_host_without_a_seat_and_a_resign_before_the_end(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game, lobby = await driver.open_lobby(alice, "illumination", play=False)
    assert not (await driver.record(game)).seats
    for user in (bob, carol):
        await fake.click(user, fake.messages[int(lobby["id"])], f"l:{game}:join")
        await driver.settle()
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    record = await driver.record(game)
    assert record.status == "active" and [s.user_id for s in record.seats] == [int(bob["id"]), int(carol["id"])]
    assert record.seat_of(int(alice["id"])) is None
    mark = max(fake.messages)
    await fake.slash(alice, "game", "resign", game=game)                  # the host plays no seat
    await driver.settle()
    assert "not playing" in newest_private(driver, alice, mark)["content"]
    await resign(driver, carol, game)
    final = await driver.play_to_end(game, random.Random(5))
    assert final.status == "finished" and final.seats[1].status == "left"
    assert await bot.service.replay_matches(game)
