"""Exactly one ping each time the game starts waiting for a player
(bot/ui/notices.py): after a move, after a timeout's automatic move, when a reaction window
opens and closes, after a kick or a replace, and after a restart — mentioning only the newly
awaited, with the prompt, a Play button, the "since your last turn" digest, and in the DM a
small board image. The clock is the fake Discord's (no waiting)."""

from __future__ import annotations

import io
import re
from typing import Any

from PIL import Image

from bot.render_pool import THUMBNAIL_WIDTH
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.ui.notices import digest_lines
from tests.e2e.driver import Driver
from tests.e2e.test_heaven_e2e import open_hypocrisy_attack, split_keeping
from tests.e2e.test_heaven_e2e import start as start_heaven

JSONDict = dict[str, Any]


def turn_pings(fake: FakeDiscord, channel_id: int, after: int = 0) -> list[JSONDict]:
    """Turn pings (not reminders) in a game's thread: a first line mentioning players, and a Play button."""
    return [m for m in fake.channel_messages(channel_id, ephemeral=False) if int(m["id"]) > after
            and re.search(r"<@\d+>", m["content"].split("\n")[0]) and not m["content"].startswith(("⏰", "🛡", "📪"))
            and any(c.get("custom_id", "").endswith(":play") for c in iter_components(m["components"]))]


def mentioned(fake: FakeDiscord, message: JSONDict) -> set[str]:
    """The users a message pinged (its allowed mentions), checked against the ids written in it."""
    req = next(r for r in fake.calls("POST", r"/channels/\d+/messages")
               if (r.json or {}).get("content") == message["content"])
    allowed = {str(u) for u in req.json["allowed_mentions"]["users"]}
    assert allowed == set(re.findall(r"<@(\d+)>", message["content"].split("\n")[0]))
    return allowed


async def waiting_ids(driver: Driver, game: int) -> set[str]:
    return {u["id"] for u in await driver.waiting_users(game)}


async def typed(driver: Driver, user: JSONDict, game: int, text: str) -> None:
    await driver.fake.slash(user, "carnival", "play", action=text, game=game)
    await driver.settle()


async def sins(driver: Driver, game: int, user: JSONDict) -> list[str]:
    record = await driver.record(game)
    return list(driver.bot.service.state(record)["hands"][record.seat_of(int(user["id"]))])


def dm_turn_notices(fake: FakeDiscord, user: JSONDict) -> list[JSONDict]:
    channel = fake.dm_channels.get(user["id"])
    return [] if channel is None else [m for m in fake.channel_messages(channel["id"], ephemeral=False)
                                       if m["content"].startswith("🔔")]


async def test_start_and_moves_ping_only_the_newly_awaited_once(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    thread = (await driver.record(game)).home_channel_id
    (start,) = turn_pings(fake, thread)
    assert mentioned(fake, start) == {alice["id"], bob["id"], carol["id"]}
    assert "Choose your sin" in start["content"] and re.search(r"<t:\d+:R>", start["content"])
    # alice and bob pick: the game still waits for carol, already pinged: no ping
    mark = max(fake.messages)
    for user in (alice, bob):
        await typed(driver, user, game, f"choose {(await sins(driver, game, user))[0]}")
    assert turn_pings(fake, thread, after=mark) == []
    # carol's pick ends the picks: whoever decides next (not carol herself, who has her panel) is pinged once
    await typed(driver, carol, game, f"choose {(await sins(driver, game, carol))[0]}")
    expected = await waiting_ids(driver, game) - {carol["id"]}
    pings = turn_pings(fake, thread, after=mark)
    assert set().union(*(mentioned(fake, p) for p in pings)) == expected
    assert len(pings) == (1 if expected else 0)
    # each pinged player got one more DM turn notice with a small board image (and their hand);
    # the older ones are left as they were
    for user in players[:3]:
        first, *more = dm_turn_notices(fake, user)
        assert len(more) == (1 if user["id"] in expected else 0)
        assert first["edited_timestamp"] is None
    for user in (u for u in players[:3] if u["id"] in expected):
        notice = dm_turn_notices(fake, user)[-1]
        board, hand = notice["attachments"]
        assert board["filename"].startswith("board.") and hand["filename"].startswith("hand.")
        assert Image.open(io.BytesIO(fake.image_bytes(board))).width == THUMBNAIL_WIDTH
        assert "Since your last turn" in notice["content"]
        assert any(c.get("custom_id") == f"d:{game}:play" for c in iter_components(notice["components"]))


async def test_a_timeout_pings_the_timed_out_player_for_their_next_decision(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    for user in (alice, bob):
        await typed(driver, user, game, "choose envy")
    record = await driver.record(game)
    assert record.waiting == [2]
    thread = record.home_channel_id
    mark = max(fake.messages)
    fake.advance(record.deadline - fake.now() + 1)
    await bot.flow.tick()
    await driver.settle()
    # carol's pick was played for her; whatever she decides next (her sin's choice, or round 2's
    # pick) is a new wait: she is pinged again, with everyone else the game now waits for
    now_waiting = await waiting_ids(driver, game)
    after = await driver.record(game)
    assert carol["id"] in now_waiting
    (ping,) = turn_pings(fake, thread, after=mark)
    assert mentioned(fake, ping) == now_waiting
    assert "time ran out" in " ".join(m["content"] for m in fake.channel_messages(thread) if int(m["id"]) > mark)
    # the digest is redacted per reader: what was played for carol is hers alone
    entries = await bot.repo.log(game)
    timed_out = next(e for e in entries if any(ev["kind"] == "timeout" for ev in e.events))
    hers = digest_lines(after, entries, 2, after=timed_out.seq - 1, upto=timed_out.seq)
    assert any(line.startswith("🔒 Played for you") for line in hers)
    assert not any("Played for you" in line for line in digest_lines(after, entries, 0, after=timed_out.seq - 1, upto=timed_out.seq))
    assert "Played for you" not in dm_turn_notices(fake, alice)[-1]["content"]
    assert "Played for you" not in ping["content"]
    assert "Since your last turn" in dm_turn_notices(fake, carol)[-1]["content"]
    # another pass of the clock: no second ping
    await bot.flow.tick()
    await driver.settle()
    assert len(turn_pings(fake, thread, after=mark)) == 1


async def test_a_reaction_window_pings_the_reactor_on_open_and_the_next_on_close(driver: Driver, players, bot,
                                                                                monkeypatch) -> None:
    monkeypatch.setattr("bot.service.new_seed", lambda: 20261129)
    people = players[:4]
    fake = driver.fake
    game = await start_heaven(driver, people, "reaction_timeout=2")
    await split_keeping(driver, game, people, ("hypocrisy", "guardian"))
    mark = max(fake.messages)
    a, t = await open_hypocrisy_attack(driver, game, people, want_target_guardian=True)
    record = await driver.record(game)
    thread = record.home_channel_id
    opened = [p for p in turn_pings(fake, thread, after=mark) if "may guard" in p["content"]]
    assert len(opened) == 1 and mentioned(fake, opened[0]) == {str(record.user_of(t))}
    # the window times out: those the game now waits for are pinged once, the attacked player not again
    mark = max(fake.messages)
    fake.advance(2 * 3600 + 60)
    await bot.flow.tick()
    await driver.settle()
    closing = turn_pings(fake, thread, after=mark)
    now_waiting = await waiting_ids(driver, game)
    assert len(closing) == 1 and mentioned(fake, closing[0]) == now_waiting
    assert str(record.user_of(t)) not in now_waiting or record.user_of(t) == record.user_of(a)


async def test_a_kick_pings_the_next_player_and_never_the_kicked(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    for user in (alice, carol):
        await typed(driver, user, game, f"choose {(await sins(driver, game, user))[0]}")
    record = await driver.record(game)
    assert record.waiting == [1]
    mark = max(fake.messages)
    await fake.slash(alice, "game", "mod", "kick", game=game, member=bob)
    await driver.settle()
    pings = turn_pings(fake, record.home_channel_id, after=mark)
    now_waiting = await waiting_ids(driver, game)
    assert now_waiting and bob["id"] not in now_waiting
    assert len(pings) == 1 and mentioned(fake, pings[0]) == now_waiting


async def test_a_replace_is_one_message_pinging_the_new_player(driver: Driver, players, bot) -> None:
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    for user in (alice, bob):
        await typed(driver, user, game, f"choose {(await sins(driver, game, user))[0]}")
    record = await driver.record(game)
    mark = max(fake.messages)
    await fake.slash(alice, "game", "mod", "replace", game=game, player=carol, member=dave)
    await driver.settle()
    (message,) = [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False) if int(m["id"]) > mark
                  and f"<@{dave['id']}>" in m["content"]]
    assert message["content"].startswith("🛡") and "Choose your sin" in message["content"]
    req = next(r for r in fake.calls("POST", r"/channels/\d+/messages")
               if (r.json or {}).get("content") == message["content"])
    assert [str(u) for u in req.json["allowed_mentions"]["users"]] == [dave["id"]]
    play = next(c["custom_id"] for c in iter_components(message["components"])
                if c.get("custom_id", "").endswith(":play"))
    assert turn_pings(fake, record.home_channel_id, after=mark) == []   # no second ping
    # dave plays from that message
    last = max(fake.messages)
    await fake.click(dave, message, play)
    await driver.settle()
    panel = driver.newest_ephemeral(dave, after=last)
    assert panel is not None and driver.choices(panel)
    assert dm_turn_notices(fake, dave)


async def test_after_a_restart_an_undelivered_ping_goes_out_once(fake, make_bot, players, monkeypatch) -> None:
    alice, bob = players[:2]
    bot1 = await make_bot()
    d1 = Driver(fake, bot1)
    game = await d1.start_game("carnival", [alice, bob])
    await typed(d1, alice, game, f"choose {(await sins(d1, game, alice))[0]}")
    thread = (await d1.record(game)).home_channel_id
    # bob's pick is committed, then the bot dies before it tells anyone (its notices never run)
    delivered = bot1.flow.notices.after

    async def crash(*args: Any, **kwargs: Any) -> None:
        return None

    monkeypatch.setattr(bot1.flow.notices, "after", crash)
    await typed(d1, bob, game, f"choose {(await sins(d1, game, bob))[0]}")
    monkeypatch.setattr(bot1.flow.notices, "after", delivered)
    waiting = await waiting_ids(d1, game)
    assert waiting
    mark = max(fake.messages)
    assert turn_pings(fake, thread, after=mark) == []
    await fake.stop_bot(bot1)
    fake.advance(60)
    bot2 = await make_bot()                                  # its first clock pass catches up
    d2 = Driver(fake, bot2)
    await fake.wait_for(lambda: turn_pings(fake, thread, after=mark))
    await d2.settle()
    (ping,) = turn_pings(fake, thread, after=mark)
    assert mentioned(fake, ping) == waiting
    # the old board's Play button works, and another restart pings nobody again
    await fake.stop_bot(bot2)
    bot3 = await make_bot()
    d3 = Driver(fake, bot3)
    await bot3.flow.tick()
    await d3.settle()
    assert len(turn_pings(fake, thread, after=mark)) == 1
    user = next(p for p in players if p["id"] in waiting)
    assert d3.choices(await d3.open_panel(user, game))


async def test_reminders_are_not_digests_and_do_not_repeat_the_ping(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    fake.advance(record.deadline_window * 0.5 + 1)
    await bot.flow.tick()
    await driver.settle()
    reminders = [m for m in driver.public_messages() if m["content"].startswith("⏰ Reminder")]
    assert len(reminders) == 1 and "Since your last turn" not in reminders[0]["content"]
    assert len(turn_pings(fake, record.home_channel_id)) == 1
    reminder_dms = [m for m in fake.channel_messages(fake.dm_channels[bob["id"]]["id"]) if m["content"].startswith("⏰")]
    assert len(reminder_dms) == 1 and not reminder_dms[0]["attachments"]


async def test_every_public_message_of_a_game_pings_only_players_it_awaits(driver: Driver, players, bot) -> None:
    """Through a three-player game, as the offline Discord reads ``allowed_mentions``: each public
    message notifies only players the game then awaits (a turn ping: exactly those its first line
    names; the end message: its winners), never a role, @everyone or @here; moves and boards
    notify nobody."""
    import random

    fake = driver.fake
    game = await driver.start_game("carnival", players[:3])
    record = await driver.record(game)
    guild_channels = {str(record.channel_id), str(record.home_channel_id)}
    seen = 0
    async for _before, after, mark in driver.random_moves(game, random.Random(7), 40):
        awaited = {str(after.user_of(s)) for s in after.waiting} if after.status == "active" else set()
        for message in fake.channel_messages(record.home_channel_id, ephemeral=False):
            if int(message["id"]) <= mark or message["channel_id"] not in guild_channels:
                continue
            users, roles, everyone = fake.pinged(message)
            assert (roles, everyone) == ([], False), message["content"]
            if message["content"].startswith("🏁"):  # (the end message pings its winners, crowned)
                assert users == {u for line in message["content"].splitlines() if "👑" in line
                                 for u in re.findall(r"<@(\d+)>", line)} != set()
                continue
            assert users <= awaited, (message["content"], users, awaited)
            if message in turn_pings(fake, record.home_channel_id, after=mark):
                assert users == set(re.findall(r"<@(\d+)>", message["content"].split("\n")[0]))
                seen += 1
    assert seen >= 5
