"""Moderation end to end (DISCORD.md failure mode 13, design §5): a moderator ends a
game, kicks a player (whose moves are then played automatically), replaces a player by
user id (also one who left the server), pauses and resumes; each is logged and
announced. A member without permissions is refused privately and nothing changes."""

from __future__ import annotations

import random
from typing import Any

from bot.sandbox.fakecord import EPHEMERAL
from tests.e2e.driver import Driver
from tests.e2e.test_table_resign import ended_abandoned

JSONDict = dict[str, Any]


def private_to(fake, user: JSONDict, after: int) -> list[str]:
    return [m["content"] for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


def public_since(d: Driver, after: int) -> list[str]:
    return [m["content"] for m in d.public_messages() if int(m["id"]) > after]


async def system_entries(bot, game: int) -> list[tuple[str, int | None]]:
    return [(e.action["type"], e.user_id) for e in await bot.repo.log(game) if e.kind == "system"]


async def test_a_member_without_permissions_is_refused_and_nothing_changes(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    fake.member_permissions(bob, 0)
    before = await driver.record(game)
    count = await bot.repo.count_actions(game)
    last = max(fake.messages)
    commands: list[tuple[str, dict[str, Any]]] = [
        ("end", {"game": game}), ("kick", {"game": game, "member": carol}),
        ("replace", {"game": game, "player": carol, "member": players[3]}),
        ("pause", {"game": game, "paused": True})]
    for name, options in commands:
        await fake.slash(bob, "game", "mod", name, **options)
        await driver.settle()
    told = private_to(fake, bob, last)
    assert len(told) == 4 and all(t.startswith("⚠️ Only moderators") for t in told), told
    after = await driver.record(game)
    assert (after.version, after.status, after.paused, after.seats) == (
        before.version, before.status, before.paused, before.seats)
    assert await bot.repo.count_actions(game) == count
    assert not public_since(driver, last)


async def test_pause_and_resume_are_logged_announced_and_keep_the_clock(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    left = record.deadline - fake.now()
    last = max(fake.messages)
    await fake.slash(alice, "game", "mod", "pause", game=game, paused=True)
    await driver.settle()
    assert (await driver.record(game)).paused
    assert any(t.startswith("⏸ Game #") and alice["id"] in t for t in public_since(driver, last))
    # no move and no timeout while paused
    mark = max(fake.messages)
    await fake.slash(bob, "carnival", "play", action="choose lust", game=game)
    await driver.settle()
    assert any("paused" in t for t in private_to(fake, bob, mark))
    fake.advance(left + 3600)
    await bot.flow.tick()
    await driver.settle()
    paused = await driver.record(game)
    assert paused.version == record.version + 1                  # only the pause entry
    last = max(fake.messages)
    await fake.slash(alice, "game", "mod", "pause", game=game, paused=False)
    await driver.settle()
    resumed = await driver.record(game)
    assert not resumed.paused
    assert any(t.startswith("▶ Game #") for t in public_since(driver, last))
    assert abs((resumed.deadline - fake.now()) - left) < 60       # the time left was kept
    assert (await system_entries(bot, game))[-2:] == [("pause", int(alice["id"])), ("resume", int(alice["id"]))]
    await fake.slash(bob, "carnival", "play", action="choose lust", game=game)
    await driver.settle()
    assert (await driver.record(game)).version == resumed.version + 1
    # the log view shows the moderator lines
    mark = max(fake.messages)
    await fake.slash(bob, "game", "log", game=game)
    await driver.settle()
    log_text = "\n".join(private_to(fake, bob, mark))
    assert "🛡 A moderator paused the game." in log_text and "🛡 A moderator resumed the game." in log_text
    assert await bot.service.replay_matches(game)


async def test_kick_then_moves_are_played_automatically(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    record = await driver.record(game)
    assert 1 in record.waiting
    last = max(fake.messages)
    await fake.slash(alice, "game", "mod", "kick", game=game, member=bob)
    await driver.settle()
    record = await driver.record(game)
    assert record.seats[1].status == "left" and 1 not in record.waiting
    assert ("kick", int(alice["id"])) in await system_entries(bot, game)
    assert any(f"<@{bob['id']}> was removed" in t for t in public_since(driver, last))
    entries = await bot.repo.log(game)
    auto = [e for e in entries if e.kind == "player" and e.seat == 1]
    assert len(auto) == 1 and auto[0].user_id is None
    assert any(ev["kind"] == "autoplay" for ev in auto[0].events)
    # the game goes on without bob: alice and carol pick, bob's later decisions are automatic
    for user in (alice, carol):
        sins = bot.service.state(await driver.record(game))["hands"][(await driver.record(game)).seat_of(int(user["id"]))]
        await fake.slash(user, "carnival", "play", action=f"choose {sins[0]}", game=game)
        await driver.settle()
    record = await driver.record(game)
    assert 1 not in record.waiting
    assert record.version > auto[0].seq
    # bob is told he no longer plays
    mark = max(fake.messages)
    await fake.slash(bob, "carnival", "play", action="choose lust", game=game)
    await driver.settle()
    assert private_to(fake, bob, mark)[0].startswith("⚠️")
    assert await bot.service.replay_matches(game)


async def test_replace_by_user_id_also_after_the_player_left_the_server(driver: Driver, players, bot) -> None:
    alice, bob, carol, dave, erin = players[:5]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, erin])
    # erin leaves the server
    fake.members.remove(erin)
    await fake.dispatch("GUILD_MEMBER_REMOVE", {"guild_id": str(fake.guild_id), "user": erin})
    last = max(fake.messages)
    await fake.slash(alice, "game", "mod", "replace", game=game, player=erin, member=dave)
    await driver.settle()
    record = await driver.record(game)
    assert record.user_of(2) == int(dave["id"]) and record.seat_of(int(erin["id"])) is None
    assert ("replace", int(alice["id"])) in await system_entries(bot, game)
    (entry,) = [e for e in await bot.repo.log(game) if e.action.get("type") == "replace"]
    assert entry.action == {"type": "replace", "seat": 2, "old_user": int(erin["id"]), "new_user": int(dave["id"]),
                            "old_name": "erin", "old_level": None}  # (so erin's moves keep her name)
    assert any(f"now belongs to <@{dave['id']}>" in t for t in public_since(driver, last))
    # dave plays the seat through the panel; the moderator is told what happened
    panel = await driver.open_panel(dave, game)
    assert driver.choices(panel)
    mark = max(fake.messages)
    await fake.slash(alice, "game", "mod", "replace", game=game, player=bob, member=carol)
    await driver.settle()
    assert (await driver.record(game)).user_of(1) == int(carol["id"])
    assert private_to(fake, alice, mark) == [
        f"🛡 Seat B of game #{game} now belongs to <@{carol['id']}> (was <@{bob['id']}>)."]
    # a new player who already sits in the game is refused privately
    mark = max(fake.messages)
    version = (await driver.record(game)).version
    await fake.slash(alice, "game", "mod", "replace", game=game, player=carol, member=dave)
    await driver.settle()
    assert private_to(fake, alice, mark)[0].startswith("⚠️")
    assert (await driver.record(game)).version == version


async def test_end_is_logged_announced_and_stops_the_game(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    last = max(fake.messages)
    await fake.slash(alice, "game", "mod", "end", game=game, reason="test over")
    await driver.settle()
    record = await driver.record(game)
    assert record.status == "abandoned" and record.deadline is None
    assert (await system_entries(bot, game))[-1] == ("end", int(alice["id"]))
    assert any(t.startswith(f"⛔ Game #{game} was ended") and "test over" in t for t in public_since(driver, last))
    board = await driver.board(game)
    assert "ended by a moderator" in board["embeds"][0]["description"]
    assert not any(c.get("custom_id", "").endswith(":play") for row in board["components"]
                   for c in row["components"])
    # nothing more can be played, and ending twice is refused privately
    mark = max(fake.messages)
    await fake.slash(bob, "carnival", "play", action="choose lust", game=game)
    await fake.slash(alice, "game", "mod", "end", game=game)
    await driver.settle()
    assert all(t.startswith("⚠️") for t in private_to(fake, bob, mark) + private_to(fake, alice, mark))
    assert (await driver.record(game)).version == record.version


async def test_kicking_a_member_who_does_not_play_is_refused_with_a_sentence(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    before = await driver.record(game)
    ghost = fake.user("ghost")                                   # not even in the server: a pasted id
    last = max(fake.messages)
    for member in (players[2], ghost):
        await fake.slash(alice, "game", "mod", "kick", game=game, member=member)
        await driver.settle()
    told = private_to(fake, alice, last)
    assert told == ["⚠️ That member is not playing in this running game."] * 2, told
    assert (await driver.record(game)).seats == before.seats
    await fake.slash(alice, "game", "mod", "kick", game=game, member=bob)
    await driver.settle()
    assert private_to(fake, alice, last)[-1] == (
        f"🛡 <@{bob['id']}> no longer plays in game #{game}; their seat is played automatically from now on.")


async def test_kicking_the_last_person_at_a_table_of_ais_ends_the_game_as_abandoned(fake, make_bot,
                                                                                    players) -> None:
    """docs/DESIGN.md §4 "Resign": a kick that would leave only AI seats ends the game as
    abandoned, as a resign does: one ``kick`` entry marked abandoned, both sentences say so,
    no ranking, no ratings, and the AI plays no more."""
    ai_bot = await make_bot(ai_iterations=3)
    driver = Driver(fake, ai_bot)
    alice, bob = players[:2]
    game, lobby = await driver.open_lobby(alice, "carnival", play=False)
    await fake.click(bob, fake.messages[int(lobby["id"])], f"l:{game}:join")
    await driver.settle()
    await fake.select(alice, fake.messages[int(lobby["id"])], f"la:{game}", ["easy"])
    await driver.settle()
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    await ai_bot.flow.ai.settled()
    record = await driver.record(game)
    assert record.status == "active" and [s.is_ai for s in record.seats] == [False, True]
    mark = max(fake.messages)
    await fake.slash(alice, "game", "mod", "kick", game=game, member=bob)
    await driver.settle()
    await ai_bot.flow.ai.settled()
    await driver.settle()
    assert private_to(fake, alice, mark)[-1] == (
        f"🛡 <@{bob['id']}> no longer plays in game #{game}; only AI players were left, so it ended as abandoned "
        "(no ratings change).")
    record = await driver.record(game)
    assert record.status == "abandoned"
    last = (await ai_bot.repo.log(game))[-1]
    assert (last.kind, last.action, last.user_id) == (
        "system", {"type": "kick", "seat": 0, "user": int(bob["id"]), "abandoned": True}, int(alice["id"]))
    await ended_abandoned(driver, game, record.version, mark,
                          f"🛡 <@{bob['id']}> was removed from game #{game} by a moderator; only AI players were "
                          "left, so the game ends as abandoned: no winner, no ratings change.")


async def test_the_log_says_which_seat_a_moderator_gave_or_took_from_whom(driver: Driver, players, bot) -> None:
    """``/game log`` names the seat and the players of a replace and a kick (the names the
    entry stored: ``old_name``), in the reader's language, and the end with its reason."""
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    for command, options in (("replace", {"player": bob, "member": dave}), ("kick", {"member": carol})):
        await fake.slash(alice, "game", "mod", command, game=game, **options)
        await driver.settle()
    lines = await driver.log_lines(alice, game)
    assert "🛡 A moderator gave seat B (bob) to dave." in lines
    assert "🛡 A moderator removed carol from seat C; its moves are played automatically from now on." in lines
    assert not any("moderator: " in line for line in lines)
    fake.user_locales[dave["id"]] = "ja"
    lines = await driver.log_lines(dave, game)
    assert "🛡 モデレーターが席 B（bob）を dave に渡しました。" in lines
    assert "🛡 モデレーターが carol を席 C から外しました。以後その席は自動で進みます。" in lines
    await fake.slash(alice, "game", "mod", "end", game=game, reason="test over")
    await driver.settle()
    assert (await driver.log_lines(alice, game))[-1] == "🛡 A moderator ended the game. Reason: test over"


async def test_a_removed_player_is_told_they_no_longer_play_in_the_running_game_here(driver: Driver, players,
                                                                                    bot) -> None:
    """A player kicked from (or replaced in) the game running in this channel who types
    ``/carnival play`` there is answered about that game, not about their own finished
    game of the channel ("not running"): they no longer play in it. Someone who never
    played in it is told it is not their game."""
    alice, bob, carol, dave, erin = players[:5]
    fake = driver.fake
    earlier = await driver.start_game("carnival", [alice, bob])
    assert (await driver.play_to_end(earlier, random.Random(3))).status == "finished"
    game = await driver.start_game("carnival", [alice, bob, carol])
    await fake.slash(alice, "game", "mod", "kick", game=game, member=bob)
    await driver.settle()
    await fake.slash(alice, "game", "mod", "replace", game=game, player=carol, member=dave)
    await driver.settle()
    removed = f"⚠️ You no longer play in game #{game}: a moderator removed you or gave your seat to someone else."
    for user in (bob, carol):
        for options in ({}, {"action": "choose lust"}):
            mark = max(fake.messages)
            await fake.slash(user, "carnival", "play", **options)
            await driver.settle()
            assert private_to(fake, user, mark) == [removed], (user["name"], options)
    mark = max(fake.messages)
    await fake.slash(erin, "carnival", "play")
    await driver.settle()
    assert private_to(fake, erin, mark) == [
        f"⚠️ Carnival of Sins (罪のカーニバル) #{game} is not your game — you are not playing in it."]


async def test_an_old_panel_in_a_paused_game_and_an_old_play_button_of_a_finished_one_say_why(
        driver: Driver, players, bot) -> None:
    """A pick in a panel opened before ``/game mod pause`` says the game is paused (not that the
    board moved on); Play ▶ on a DM of a game since finished says it is over and where its
    result is (not "not running")."""
    import copy
    import random

    from bot.sandbox.fakecord import iter_components

    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("illumination", [alice, bob])
    user = (await driver.waiting_users(game))[0]
    panel = await driver.open_panel(user, game)
    choice = next(c for c in driver.choices(panel) if c[0] != "group")
    await fake.slash(alice, "game", "mod", "pause", game=game, paused=True)
    await driver.settle()
    version = (await driver.record(game)).version
    mark = max(fake.messages)
    await driver.pick(user, panel, choice)
    assert private_to(fake, user, mark) == ["⚠️ A moderator has paused this game."]
    assert (await driver.record(game)).version == version
    await fake.slash(alice, "game", "mod", "pause", game=game, paused=False)
    await driver.settle()
    board = copy.deepcopy(await driver.board(game))                   # (as a DM's Play ▶ stays pressable)
    play = next(c["custom_id"] for c in iter_components(board["components"]) if c.get("custom_id", "").endswith(":play"))
    final = await driver.play_to_end(game, random.Random(7))
    assert final.status == "finished"
    mark = max(fake.messages)
    await fake.click(bob, board, play)
    await driver.settle()
    assert private_to(fake, bob, mark) == [
        f"⚠️ Illumination (闡明) #{game} is over; its result is in <#{final.home_channel_id}>."]


async def test_a_moderator_command_in_a_dm_says_to_use_it_in_the_server(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    before = await driver.record(game)
    mark = max(fake.messages)
    commands: list[tuple[str, dict[str, Any]]] = [
        ("end", {"game": game}), ("kick", {"game": game, "member": bob}),
        ("replace", {"game": game, "player": bob, "member": players[2]}),
        ("pause", {"game": game, "paused": True}), ("quiet", {"start": "22:00", "end": "07:00"})]
    told = []
    for name, options in commands:
        token = await fake.slash(alice, "game", "mod", name, context="dm", **options)
        await driver.settle()
        told.append((name, (fake.message_for(token) or {}).get("content")))
    assert told == [(name, "⚠️ This command works in a server only: use it there, not in a DM.")
                    for name, _ in commands]
    assert not driver.private_to(bob, mark)
    after = await driver.record(game)
    assert (after.version, after.status, after.paused) == (before.version, before.status, before.paused)


async def test_playing_after_the_end_says_which_game_ended(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake

    async def told(*, thread: int | None = None, **options: Any) -> str:
        token = await fake.slash(bob, "illumination", "play", **options, **({"channel": thread} if thread else {}))
        await driver.settle()
        return (fake.message_for(token) or {}).get("content", "")

    ended = await driver.start_game("illumination", [alice, bob])
    await fake.slash(alice, "game", "mod", "end", game=ended)
    await driver.settle()
    by_moderator = f"⚠️ Illumination (闡明) #{ended} was ended by a moderator."
    assert [await told(), await told(game=ended), await told(action="pass")] == [by_moderator] * 3
    game = await driver.start_game("illumination", [alice, bob])
    final = await driver.play_to_end(game, random.Random(3))
    over = f"⚠️ Illumination (闡明) #{game} is over; its result is in <#{final.home_channel_id}>."
    assert [await told(), await told(thread=final.thread_id), await told(action="pass")] == [over] * 3
    lobby, _ = await bot.service.rematch(game, int(bob["id"]), "bob")  # (a lobby in the same channel)
    await driver.settle()
    then = over[:-1] + f". Lobby #{lobby.id} here begins when its host presses Start."
    assert [await told(), await told(action="pass"), await told(thread=final.thread_id)] == [then, then, over]


async def test_a_moderator_who_kicks_herself_is_told_to_resign_or_leave_and_nothing_changes(
        driver: Driver, players, bot) -> None:
    """Kicking one's own seat would be a resignation logged as moderation, without the
    resign's confirmation: it is refused with the way a player leaves, and nothing changes."""
    alice, bob, carol = players[:3]
    fake = driver.fake
    lobby, _ = await driver.open_lobby(alice, "carnival")
    before = await driver.record(lobby)
    last = max(fake.messages)
    await fake.slash(alice, "game", "mod", "kick", game=lobby, member=alice)
    await driver.settle()
    assert private_to(fake, alice, last) == [
        f"⚠️ You cannot kick yourself: to leave lobby #{lobby}, press Leave on the lobby."]
    assert (await driver.record(lobby)).seats == before.seats and not public_since(driver, last)
    game = await driver.start_game("carnival", [alice, bob, carol])
    before = await driver.record(game)
    count = await bot.repo.count_actions(game)
    for options in ({}, {"ai": "easy"}):
        last = max(fake.messages)
        await fake.slash(alice, "game", "mod", "kick", game=game, member=alice, **options)
        await driver.settle()
        assert private_to(fake, alice, last) == [
            f"⚠️ You cannot kick yourself: to leave game #{game}, use /game resign (it asks you to confirm)."]
        assert not public_since(driver, last)
    after = await driver.record(game)
    assert (after.version, after.status, after.seats) == (before.version, before.status, before.seats)
    assert await bot.repo.count_actions(game) == count
