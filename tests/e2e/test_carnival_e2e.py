"""Carnival of Sins end to end through discord.py and the offline Discord (issue: the
game host and Carnival playable end to end)."""

from __future__ import annotations

import random

from bot.service import format_names, texts
from engines.carnival import rules
from tests.e2e.driver import Driver


async def test_whole_three_player_game_by_clicks(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    game = await driver.start_game("carnival", [alice, bob, carol])
    record = await driver.record(game)
    assert record.thread_id is not None                      # a thread per game
    board = await driver.board(game)
    assert board["channel_id"] == str(record.thread_id)
    assert board["embeds"][0]["image"]["url"] == "attachment://board.png"
    record = await driver.play_to_end(game, random.Random(7))
    await driver.settle()
    assert record.status == "finished"
    state = bot.service.state(record)
    outcome = bot.service.engine(record).outcome(state)
    assert outcome is not None and outcome.reason
    final = await driver.final_message(game)
    for seat in outcome.winners:
        assert f"<@{record.user_of(seat)}>" in final["content"]
    assert await bot.service.replay_matches(game)
    # the board was edited in place and carries exactly one image
    board = await driver.board(game)
    assert len(board["attachments"]) == 1


async def test_restart_mid_round_old_buttons_still_work(fake, make_bot, players, tmp_path) -> None:
    alice, bob, carol = players[:3]
    bot1 = await make_bot()
    d1 = Driver(fake, bot1)
    game = await d1.start_game("carnival", [alice, bob, carol])
    rng = random.Random(3)
    for _ in range(4):
        await d1.play_once(game, rng)
    old_board = await d1.board(game)
    version = (await d1.record(game)).version
    await fake.stop_bot(bot1)

    bot2 = await make_bot()                       # a new process on the same database file
    d2 = Driver(fake, bot2)
    assert (await d2.record(game)).version == version
    user = (await d2.waiting_users(game))[0]
    play = next(c for c in old_board["components"][0]["components"] if c["custom_id"].endswith(":play"))
    last = max(fake.messages)
    await fake.click(user, old_board, play["custom_id"])
    await d2.settle()
    panel = d2.newest_ephemeral(user, after=last)
    assert panel is not None and d2.choices(panel)
    record = await d2.play_to_end(game, rng)
    assert record.status == "finished"
    assert await bot2.service.replay_matches(game)


async def test_double_click_applies_once_and_the_second_is_told(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    panel = await driver.open_panel(alice, game)
    before = await bot.repo.count_actions(game)
    kind, cid, value = driver.choices(panel)[0]
    assert kind == "select"
    fresh = driver.fake.messages[int(panel["id"])]
    t1 = await driver.fake.select(alice, fresh, cid, [str(value)])
    t2 = await driver.fake.select(alice, fresh, cid, [str(value)])
    await driver.settle()
    assert await bot.repo.count_actions(game) == before + 1
    record = await driver.record(game)
    notes = [m["content"] for m in driver.fake.messages.values()
             if m["flags"] & 64 and driver.fake.ephemeral_owner(m) == alice["id"]
             and ("moved on" in m["content"] or "already in" in m["content"])]
    if record.seat_of(int(alice["id"])) in record.waiting:  # (a new decision of hers: the old panel is stale)
        assert len(notes) == 1 and "moved on" in notes[0], notes
    else:  # (the game waits for bob: the second pick is told her choice is in)
        assert notes == [f"✓ Your choice is already in. Waiting for <@{bob['id']}>."]
    assert driver.fake.interactions[t1]["acked_at"] and driver.fake.interactions[t2]["acked_at"]


async def test_non_player_pressing_play_is_told_privately(driver: Driver, players, bot) -> None:
    alice, bob, carol, dave = players[:4]
    game = await driver.start_game("carnival", [alice, bob])
    version = (await driver.record(game)).version
    board = await driver.board(game)
    last = max(driver.fake.messages)
    await driver.fake.click(dave, board, f"g:{game}:{version}:play")
    await driver.settle()
    reply = driver.newest_ephemeral(dave, after=last)
    assert reply is not None and "not your game" in reply["content"]
    assert (await driver.record(game)).version == version


async def test_illegal_typed_move_gets_a_private_error_and_changes_nothing(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    version = (await driver.record(game)).version
    last = max(driver.fake.messages)
    await driver.fake.slash(alice, "carnival", "play", action="greed d4+d20")
    await driver.settle()
    reply = driver.newest_ephemeral(alice, after=last)
    assert reply is not None and reply["content"].startswith("⚠️")
    assert (await driver.record(game)).version == version
    # the typed path works for a legal move, and autocomplete offers it
    choices = await driver.fake.autocomplete(alice, "carnival", "play", focused="action", action="lus")
    assert [c["value"] for c in choices] == ["choose lust"]
    await driver.fake.slash(alice, "carnival", "play", action="choose lust")
    await driver.settle()
    assert (await driver.record(game)).version == version + 1


async def test_player_with_closed_dms_plays_a_whole_game(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    driver.fake.close_dms(bob)
    await driver.fake.slash(bob, "game", "notify", dm=True)
    await driver.settle()
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.play_to_end(game, random.Random(11))
    assert record.status == "finished"


async def test_nothing_secret_reaches_a_public_message(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    game = await driver.start_game("carnival", [alice, bob, carol])
    rng = random.Random(5)
    record = await driver.record(game)
    # after one secret pick, the public side shows only "picked"
    await driver.play_once(game, rng)
    record = await driver.play_to_end(game, rng)
    private_lines = set()
    for entry in await bot.repo.log(game):
        for e in entry.events:
            if e["visible_to"] is not None:
                private_lines.add(format_names(e, record.names, record.game_id))
    public = driver.public_messages()
    texts = [m["content"] + " ".join(str(e) for e in m["embeds"]) for m in public]
    assert texts
    for line in private_lines:
        assert not any(line in t for t in texts), line
    assert not any(str(record.seed) in t for t in texts)


async def test_public_lines_are_the_catalog_texts_with_display_names(driver: Driver, players, bot) -> None:
    """The thread reads each public event in the English catalog with the players' names
    (bot.service.texts), never a catalog key or a seat placeholder."""
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.play_to_end(game, random.Random(13))
    tx = texts(record)
    public = [e for entry in await bot.repo.log(game) for e in entry.events if e["visible_to"] is None]
    kinds = {e["kind"] for e in public}
    assert {"first_devil", "roll", "picked", "reveal", "round_scored", "game_over"} <= kinds
    content = "\n".join(m["content"] for m in driver.public_messages())
    reveal = next(tx.event(e) for e in public if e["kind"] == "reveal")
    assert reveal.split(" reveals ")[0] in ("alice", "bob") and reveal in content
    scored = [tx.event(e) for e in public if e["kind"] in ("round_scored", "last_round_scored")]
    assert public[-2]["kind"] == "last_round_scored" and "next Devil" not in scored[-1]
    assert len(scored) == 7 and all(line.startswith(f"Round {i + 1}: base ") for i, line in enumerate(scored))
    assert not any("{" in tx.event(e) or "event." in tx.event(e) for e in public)


async def test_long_typed_move_and_repeated_option_are_refused_privately(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    version = (await driver.record(game)).version
    last = max(driver.fake.messages)
    await driver.fake.slash(alice, "carnival", "play", action="x" * 200)
    await driver.settle()
    reply = driver.newest_ephemeral(alice, after=last)
    assert reply is not None and reply["content"].startswith("⚠️") and len(reply["content"]) <= 2000
    assert (await driver.record(game)).version == version
    last = max(driver.fake.messages)
    await driver.fake.slash(alice, "game", "new",
                            options={"game": "carnival", "options": "table_model=zones table_model=spatial"})
    await driver.settle()
    reply = driver.newest_ephemeral(alice, after=last)
    assert reply is not None and "given twice" in reply["content"]


async def test_game_board_reposts_and_says_where(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    old = await driver.board(game)
    token = await driver.fake.slash(bob, "game", "board", game=f"#{game}")
    await driver.settle()
    new = await driver.board(game)
    assert new["id"] != old["id"]
    assert int(old["id"]) not in driver.fake.messages                 # one live board, not a pile
    record = await driver.record(game)
    link = f"https://discord.com/channels/{driver.fake.default_guild.id}/{record.thread_id}/{new['id']}"
    assert driver.fake.message_for(token)["content"] == f"Board posted: {link}"


async def test_a_typed_move_forgives_case_spaces_and_a_prefix_and_a_refusal_lists_the_closest(
        driver: Driver, players, bot) -> None:
    """bot/typed_moves.py through ``/carnival play``: a shouted, spaced-out prefix is the move;
    a move nothing fits is refused privately with the five closest legal notations."""
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    version = (await driver.record(game)).version
    mark = max(driver.fake.messages)
    await driver.fake.slash(alice, "carnival", "play", action="chose  gred", game=game)
    await driver.settle()
    told = driver.private_to(alice, mark)
    assert told[0].startswith("⚠️ 'chose  gred': not a legal move now. The closest legal moves: `choose greed`, ")
    assert told[0].count("`choose ") == 5 and (await driver.record(game)).version == version
    mark = max(driver.fake.messages)
    await driver.fake.slash(alice, "carnival", "play", action="  CHOOSE   Lu ", game=game)
    await driver.settle()
    assert driver.private_to(alice, mark)[0].startswith("✓ Lust")
    record = await driver.record(game)
    assert bot.service.state(record)["picks"][0] == "lust"


async def test_wrath_asks_to_confirm_the_throw_with_its_knock_candidates_and_back_changes_the_aim(
        driver: Driver, players, bot) -> None:
    """Spec §11 Prompts: target, then aim, then a confirmation listing the dice near the aim
    point (with values), the knock chance and the off-table chance and penalty, with Throw
    and Back; nothing is applied before Throw, and Throw is one engine action (§5.4)."""
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    for user in (alice, bob):
        await driver.fake.slash(user, "carnival", "play", action="choose wrath", game=game)
        await driver.settle()
    record = await driver.record(game)
    state = bot.service.state(record)
    (user,) = await driver.waiting_users(game)
    seat = record.seat_of(int(user["id"]))
    assert state["phase"] == "resolve" and bot.service.engine(record).to_move(state) == {seat}
    panel = await driver.open_panel(user, game)
    target = driver.choices(panel)[0]                        # the first target (a step)
    assert target[0] == "group"
    await driver.pick(user, panel, target)
    aims = driver.choices(driver.fake.messages[int(panel["id"])])
    assert len(aims) == 7 and all(kind == "group" for kind, _, _ in aims)   # no aim throws at once
    await driver.pick(user, panel, aims[1])                  # aim at the first other die
    shown = driver.fake.messages[int(panel["id"])]
    version = (await driver.record(game)).version
    assert version == record.version                         # nothing applied yet
    action = bot.service.engine(record).legal_actions(state, seat)[int(driver.choices(shown)[0][1].split(":")[-1])]
    near = rules.knock_candidates(state, action["target"], rules.aim_landing(state, action["aim"]))
    listed = ", ".join(f"{d}={rules.value(state, d)}" for d in near)
    content = shown["content"]
    assert f"Dice within 150 of the aim point (the landing scatters a little): {listed}; " \
           "each is knocked (rerolled) with a 50% chance." in content
    assert "Off-table chance 8%: you then score minus the number it shows off the table" in content
    labels = [c["label"] for row in shown["components"] for c in row["components"]]
    assert labels == ["Throw", "◀ Back"]
    back = next(c for row in shown["components"] for c in row["components"] if c["label"] == "◀ Back")
    await driver.fake.click(user, shown, back["custom_id"])
    await driver.settle()
    again = driver.choices(driver.fake.messages[int(panel["id"])])
    assert again == aims                                     # Back: the aims of the same target
    await driver.pick(user, panel, aims[0])                  # change the aim: no aim
    shown = driver.fake.messages[int(panel["id"])]
    assert "gently in place: nothing is knocked." in shown["content"]
    await driver.pick(user, panel, driver.choices(shown)[0])  # Throw
    record = await driver.record(game)
    throws = [e.action for e in await bot.service.repo.log(game) if e.action.get("type") == "wrath"]
    assert throws == [{"type": "wrath", "target": action["target"], "aim": "none"}]   # one engine action
    assert record.version > version and bot.service.state(record)["phase"] != "wrath_chance"
