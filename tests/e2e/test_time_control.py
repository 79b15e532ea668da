"""Time control for people with lives (bot/ui/clock.py, DESIGN §5): vacation
days set in the lobby and used only when a deadline would expire; quiet hours set by
moderators (no expiry, no ping inside them; pings held back until they end); every deadline
as <t:…:R>; the board re-posted at the bottom once 8 messages went by; /game mine ordered by
who waits on you and the oldest deadline, with jump links. The clock is the fake's."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.ui.deadlines import DAY, QuietHours
from tests.e2e.driver import Driver
from tests.e2e.test_pings import sins, typed

JSONDict = dict[str, Any]


async def pick_first(driver: Driver, game: int, user: JSONDict) -> None:
    await typed(driver, user, game, f"choose {(await sins(driver, game, user))[0]}")


def timeouts(driver: Driver) -> list[JSONDict]:
    return [m for m in driver.public_messages() if "time ran out" in m["content"]]


def pings_of(fake: FakeDiscord, channel_id: int, user: JSONDict, after: int = 0) -> list[JSONDict]:
    return [m for m in fake.channel_messages(channel_id, ephemeral=False) if int(m["id"]) > after
            and f"<@{user['id']}>" in m["content"].split("\n")[0] and not m["content"].startswith("⏰")
            and any(c.get("custom_id", "").endswith(":play") for c in iter_components(m["components"]))]


async def test_vacation_days_are_set_in_the_lobby_shown_and_used_only_at_expiry(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game, lobby = await driver.open_lobby(alice, "carnival")
    await fake.click(bob, fake.messages[int(lobby["id"])], f"l:{game}:join")
    await driver.settle()
    token = await fake.slash(bob, "game", "vacation", days=1, game=game)
    await driver.settle()
    assert "1 vacation day" in fake.message_for(token)["content"]
    players_field = fake.messages[int(lobby["id"])]["embeds"][0]["fields"][0]["value"]
    assert f"<@{bob['id']}> · 🏖 1 vacation day" in players_field and "🏖" not in players_field.split("\n")[0]
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    assert "Vacation days left: bob 1" in (await driver.board(game))["embeds"][0]["description"]
    # once started, vacation days cannot change
    token = await fake.slash(bob, "game", "vacation", days=3, game=game)
    await driver.settle()
    assert fake.message_for(token)["content"].startswith("⚠️") and "lobby" in fake.message_for(token)["content"]
    # alice picks; bob lets the deadline pass: a day is used instead of the timeout
    await pick_first(driver, game, alice)
    record = await driver.record(game)
    fake.advance(record.deadline - fake.now() - 60)
    await bot.flow.tick()                                      # not yet expired: nothing used
    assert (await driver.record(game)).vacation_left(1) == 1
    fake.advance(120)
    await bot.flow.tick()
    await driver.settle()
    after = await driver.record(game)
    assert after.version == record.version and not timeouts(driver)
    assert after.vacation_left(1) == 0 and after.deadline == record.deadline + DAY
    (note,) = [m for m in driver.public_messages() if m["content"].startswith("🏖")]
    assert "bob is on vacation" in note["content"] and f"<t:{int(after.deadline)}:R>" in note["content"]
    assert "Vacation days left: bob 0" in (await driver.board(game))["embeds"][0]["description"]
    # no day left: the next expiry times out as usual
    fake.advance(DAY)
    await bot.flow.tick()
    await driver.settle()
    assert len(timeouts(driver)) == 1 and (await driver.record(game)).version > record.version


async def test_vacation_without_a_number_means_the_callers_lobby_here_not_their_running_game(
        driver: Driver, players) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    running, lobby = await driver.open_lobby(alice, "carnival")  # (a running game of alice and bob)
    await fake.click(bob, fake.messages[int(lobby["id"])], f"l:{running}:join")
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{running}:start")
    await driver.settle()
    token = await fake.slash(alice, "game", "vacation", days=2)  # (her running game here, no lobby)
    await driver.settle()
    assert fake.message_for(token)["content"] == (
        f"⚠️ Game #{running} has already started. Vacation days are set in the lobby, before a game starts.")
    carol = players[2]
    token = await fake.slash(carol, "game", "vacation", days=2)  # (in no game; only a started game here)
    await driver.settle()
    answer = fake.message_for(token)
    assert answer["flags"] & 64 and answer["content"] == (
        "⚠️ You are not in a game here, and this channel has no lobby. Vacation days are set in a game's lobby, "
        "before it starts: join a lobby, then use `/game vacation` there.")
    assert (await driver.record(running)).vacations == {}
    game, _ = await driver.open_lobby(alice, "canterbury")
    token = await fake.slash(alice, "game", "vacation", days=2)  # (the running game and a lobby of hers here)
    await driver.settle()
    assert "2 vacation days" in fake.message_for(token)["content"]
    assert (await driver.record(game)).vacation_left(0) == 2 and (await driver.record(running)).vacation_left(0) == 0
    token = await fake.slash(carol, "game", "vacation", days=1)  # (the channel's only lobby, not hers)
    await driver.settle()
    assert fake.message_for(token)["content"] == "⚠️ Join the lobby first; then set your vacation days."


async def test_quiet_hours_hold_back_expiry_and_pings_until_they_end(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    fake.member_permissions(carol, 0)
    now = dt.datetime.fromtimestamp(fake.now(), dt.UTC)
    start, end = f"{now.hour}:00", f"{(now.hour + 2) % 24}:00"
    token = await fake.slash(carol, "game", "mod", "quiet", start=start, end=end)   # not a moderator
    await driver.settle()
    assert fake.message_for(token)["content"].startswith("⚠️")
    token = await fake.slash(alice, "game", "mod", "quiet", start=start, end=end, timezone="UTC")
    await driver.settle()
    assert "Quiet hours" in fake.message_for(token)["content"]
    quiet = QuietHours(now.hour * 60, (now.hour + 2) % 24 * 60, "UTC")
    assert quiet.contains(fake.now())
    game = await driver.start_game("carnival", [alice, bob], timer=600)
    record = await driver.record(game)
    thread = record.home_channel_id
    # the start ping waits; the 10-minute deadline falls inside the quiet hours and moves to their end
    assert pings_of(fake, thread, alice) == [] and pings_of(fake, thread, bob) == []
    assert record.deadline == quiet.end_after(fake.now())
    assert re.search(rf"<t:{int(record.deadline)}:R>", (await driver.board(game))["embeds"][0]["description"])
    fake.advance(11 * 60)                                       # past the old 10 minutes, still quiet
    await bot.flow.tick()
    await driver.settle()
    assert (await driver.record(game)).version == record.version and not timeouts(driver)
    assert not [m for m in driver.public_messages() if m["content"].startswith("⏰")]
    # the quiet hours end: the held-back ping goes out once, then the deadline expires
    fake.advance(record.deadline - fake.now() + 1)
    await bot.flow.tick()
    await driver.settle()
    (first,) = pings_of(fake, thread, alice, after=0)[:1]
    assert f"<@{bob['id']}>" in first["content"].split("\n")[0]
    assert len(timeouts(driver)) == 1
    # clearing them: a moderator leaves out start and end
    token = await fake.slash(alice, "game", "mod", "quiet")
    await driver.settle()
    assert "off" in fake.message_for(token)["content"]
    assert await bot.repo.quiet_hours(fake.guild_id) is None


async def test_quiet_hours_parse_zones_and_overnight_periods() -> None:
    berlin = QuietHours(22 * 60, 7 * 60, "Europe/Berlin")
    t = dt.datetime(2026, 1, 15, 22, 30, tzinfo=dt.UTC).timestamp()        # 23:30 in Berlin (UTC+1)
    assert berlin.contains(t)
    assert berlin.end_after(t) == dt.datetime(2026, 1, 16, 6, 0, tzinfo=dt.UTC).timestamp()
    noon = dt.datetime(2026, 1, 15, 11, 0, tzinfo=dt.UTC).timestamp()
    assert not berlin.contains(noon) and berlin.end_after(noon) == noon
    offset = QuietHours(1 * 60, 3 * 60, "UTC+2")
    assert offset.contains(dt.datetime(2026, 1, 15, 0, 30, tzinfo=dt.UTC).timestamp())       # 02:30 local
    assert not offset.contains(dt.datetime(2026, 1, 15, 1, 30, tzinfo=dt.UTC).timestamp())   # 03:30 local


async def test_the_board_is_reposted_at_the_bottom_after_eight_messages(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    thread = record.home_channel_id
    first = record.board_message_id
    # a few messages: the board stays and is edited in place
    for i in range(3):
        await fake.say(bob, f"hello {i}", channel=thread)
    await pick_first(driver, game, alice)
    assert (await driver.record(game)).board_message_id == first
    # the chat goes on; the next board update re-posts it and removes the old one
    for i in range(8):
        await fake.say(bob, f"chat {i}", channel=thread)
    await pick_first(driver, game, bob)
    moved = await driver.record(game)
    assert moved.board_message_id != first and first not in fake.messages
    newest_chat = max(int(m["id"]) for m in fake.channel_messages(thread) if m["author"]["id"] == bob["id"])
    assert moved.board_message_id > newest_chat
    assert len([m for m in fake.channel_messages(thread) if m["embeds"] and m["attachments"]]) == 1


async def test_game_mine_lists_waiting_games_first_oldest_deadline_first_with_links(driver: Driver, players,
                                                                                    bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    later = await driver.start_game("carnival", [alice, bob], timer=72 * 3600)
    sooner = await driver.start_game("carnival", [alice, bob], timer=24 * 3600)
    theirs = await driver.start_game("carnival", [alice, bob])
    await pick_first(driver, theirs, alice)                      # waits on bob only
    lobby, _ = await driver.open_lobby(alice, "carnival")
    token = await fake.slash(alice, "game", "mine")
    await driver.settle()
    lines = fake.message_for(token)["content"].split("\n")
    order = [int(re.match(r"\[#(\d+) ", line)[1]) for line in lines]   # type: ignore[index]
    assert order == [sooner, later, theirs, lobby]
    for game, line in zip(order[:3], lines[:3], strict=True):
        record = await driver.record(game)
        link = f"https://discord.com/channels/{fake.guild_id}/{record.board_channel_id}/{record.board_message_id}"
        assert f"]({link})" in line and f"<t:{int(record.deadline)}:R>" in line
    assert "**your move**" in lines[0] and "**your move**" in lines[1]
    assert f"waiting for <@{bob['id']}>" in lines[2] and "lobby" in lines[3]
