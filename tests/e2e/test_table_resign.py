"""Resign end to end: ``/game resign`` asks first and changes nothing;
the confirmation marks the seat left with a ``resign`` entry, tells the table publicly, and
the game goes on to its end with that seat played automatically, and the seat ranks (and is
rated) after every player who stayed. A resign that would leave only AI players ends the game
as abandoned, unrated. The host may open a lobby without taking a seat (``/game new
play:False``)."""

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
    mark = max(driver.fake.messages)
    await driver.fake.slash(bob, "carnival", "play")                    # bob is told he resigned
    await driver.settle()
    assert driver.private_to(bob, mark) == [f"⚠️ You no longer play in game #{game}: you resigned from it."]
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


async def test_a_resigned_seat_ranks_after_every_player_who_stayed_and_is_rated_last(driver: Driver, players,
                                                                                       bot) -> None:
    alice, bob, dave = players[0], players[1], players[3]
    game = await driver.start_game("carnival", [alice, bob, dave])
    await resign(driver, dave, game)
    final = await driver.play_to_end(game, random.Random(11))
    assert final.status == "finished"
    engine = bot.service.engine(final)
    outcome = engine.outcome(bot.service.state(final))
    assert outcome is not None
    lines = (await driver.final_message(game))["content"].splitlines()
    ranked = [line for line in lines if line[:1].isdigit()]
    assert len(ranked) == 3 and ranked[2].startswith(f"3. <@{dave['id']}> — ") and "👑" not in ranked[2]
    assert [line.split(" — ")[0][3:] for line in ranked[:2]] == \
        [f"<@{players[s]['id']}>" for s in outcome.ranking if s != 2]
    assert "🏳 Resigned or removed, so ranked after every player who stayed: dave." in lines
    stayed_best = next(s for s in outcome.ranking if s != 2)
    if 2 in outcome.winners:  # (the engine's winner resigned: the best who stayed wins, and the reason says so)
        assert "Winner: " in lines[0] and "the best placed of the players who stayed" in lines[0]
        assert "👑" in ranked[0]
    else:
        assert stayed_best in outcome.winners and "👑" in ranked[0]
    rows = {r[1]: r for r in await bot.repo.ratings(driver.fake.guild_id, "carnival")}
    assert rows[int(dave["id"])][5] == 0                                   # never counted a win
    assert rows[int(dave["id"])][2] < min(rows[int(u["id"])][2] for u in (alice, bob))  # rated below both


async def test_resigning_the_last_person_at_a_table_of_ais_ends_the_game_as_abandoned(fake, make_bot,
                                                                                      players) -> None:
    ai_bot = await make_bot(ai_iterations=3)
    driver = Driver(fake, ai_bot)
    alice = players[0]
    game, lobby = await driver.open_lobby(alice, "illumination")
    await fake.select(alice, fake.messages[int(lobby["id"])], f"la:{game}", ["easy"])
    await driver.settle()
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    await ai_bot.flow.ai.settled()
    mark = max(fake.messages)
    await fake.slash(alice, "game", "resign", game=game)
    await driver.settle()
    assert "so the game then ends as abandoned: no winner, no ratings change" in newest_private(driver, alice, mark)["content"]
    answer = await resign_confirmed(driver, alice, game, mark)
    assert answer["content"] == (f"🏳 You resigned from game #{game}; only AI players were left, so it ended as "
                                 "abandoned (no ratings change).")
    await ai_bot.flow.ai.settled()
    await driver.settle()
    record = await driver.record(game)
    assert record.status == "abandoned" and [s.status for s in record.seats] == ["active", "active"]
    last = (await ai_bot.repo.log(game))[-1]
    assert (last.kind, last.action, last.user_id) == (
        "system", {"type": "resign", "seat": 0, "user": int(alice["id"]), "abandoned": True}, int(alice["id"]))
    assert last.events[0]["kind"] == "table.resign"
    await ended_abandoned(driver, game, record.version, mark,
                          f"🏳 <@{alice['id']}> resigned from game #{game}; only AI players were left, so the game "
                          "ends as abandoned: no winner, no ratings change.")


async def ended_abandoned(driver: Driver, game: int, version: int, mark: int, announcement: str) -> None:
    """Check a game that ended as abandoned because its last person left (a resign or a kick):
    ``announcement`` was posted after ``mark``, with no ranking; no ratings; the AI seats play
    no more (still ``version``); the log replays."""
    bot = driver.bot
    public = [m["content"] for m in driver.public_messages() if int(m["id"]) > mark]
    assert announcement in public
    assert not any(t.startswith("🏁") for t in public)                    # no ranking
    record = await driver.record(game)
    assert not await bot.repo.ratings(driver.fake.guild_id, record.game_id)
    assert record.version == version                                     # the AI plays no more
    assert await bot.service.replay_matches(game)


async def resign_confirmed(driver: Driver, user: JSONDict, game: int, mark: int) -> JSONDict:
    """Press the confirmation of the ``/game resign`` question asked after ``mark``."""
    ask = newest_private(driver, user, mark)
    confirm = next(c["custom_id"] for c in iter_components(ask["components"]) if c.get("custom_id", "").endswith(":resign"))
    await driver.fake.click(user, ask, confirm)
    await driver.settle()
    return driver.fake.messages[int(ask["id"])]
