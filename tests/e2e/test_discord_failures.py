"""The failure modes of ``docs/DISCORD.md`` as end-to-end tests against the offline
Discord, with Carnival of Sins games (the ``fake`` fixture also fails a test on any
logged error, any Discord-limit violation and any unanswered interaction)."""

from __future__ import annotations

import asyncio
import copy
import random
import re
import threading
from typing import Any

import pytest
from PIL import Image

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from bot.service import format_names
from engines.carnival.engine import CarnivalEngine
from engines.registry import notation_of
from render import registry as renders
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


# --------------------------------------------------------------------------- helpers


def ephemerals(fake, user: JSONDict, after: int = 0) -> list[JSONDict]:
    """Ephemeral messages only ``user`` sees, with ids above ``after``, oldest first."""
    return [m for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


def button_choices(d: Driver, panel: JSONDict) -> list[tuple[str, str, str | None]]:
    return [c for c in d.choices(d.fake.messages[int(panel["id"])]) if c[0] == "button"]


async def pick_random(d: Driver, user: JSONDict, panel: JSONDict, rng: random.Random) -> None:
    """One decision in ``panel`` (through a group step when needed)."""
    for _ in range(3):
        options = d.choices(d.fake.messages[int(panel["id"])])
        actions = [o for o in options if o[0] != "group"]
        if actions:
            await d.pick(user, panel, rng.choice(actions))
            return
        await d.pick(user, panel, rng.choice(options))
    raise AssertionError("no action offered")


async def button_panel(d: Driver, game: int, rng: random.Random) -> tuple[JSONDict, JSONDict]:
    """Play at random until the (single) waiting player's panel shows action buttons;
    returns (user, panel)."""
    for _ in range(200):
        users = await d.waiting_users(game)
        user = rng.choice(users)
        panel = await d.open_panel(user, game)
        if len(users) == 1 and len(button_choices(d, panel)) >= 2:
            return user, panel
        await pick_random(d, user, panel, rng)
    raise AssertionError("no button panel came up")


def log_kinds(entries: list[Any]) -> list[str]:
    return [e["kind"] for entry in entries for e in entry.events]


async def typed(d: Driver, user: JSONDict, game: int, text: str) -> str:
    token = await d.fake.slash(user, "carnival", "play", action=text, game=game)
    await d.settle()
    return token


async def sins_of(d: Driver, game: int, user: JSONDict) -> list[str]:
    record = await d.record(game)
    state = d.bot.service.state(record)
    return list(state["hands"][record.seat_of(int(user["id"]))])


# --------------------------------------------------------------------------- 1. restarts and reloads


async def test_old_board_buttons_act_on_the_right_game_after_a_cog_reload(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    first = await driver.start_game("carnival", [alice, bob])
    second = await driver.start_game("carnival", [alice, carol])
    old_board = copy.deepcopy(await driver.board(first))
    for ext in ("cogs.games", "cogs.base"):
        await bot.reload_extension(ext)
    v1, v2 = (await driver.record(first)).version, (await driver.record(second)).version
    last = max(driver.fake.messages)
    await driver.fake.click(alice, old_board, f"g:{first}:{v1}:play")
    await driver.settle()
    panel = driver.newest_ephemeral(alice, after=last)
    assert panel is not None
    ids = [cid for _, cid, _ in driver.choices(panel)]
    assert ids and all(cid.split(":")[1] == str(first) for cid in ids)
    await pick_random(driver, alice, panel, random.Random(1))
    assert (await driver.record(first)).version == v1 + 1
    assert (await driver.record(second)).version == v2
    # the reloaded slash commands work too
    await typed(driver, carol, second, f"choose {(await sins_of(driver, second, carol))[0]}")
    assert (await driver.record(second)).version == v2 + 1


# --------------------------------------------------------------------------- 2. two games, stale panel


async def test_two_games_in_two_channels_and_an_outdated_panel_button(driver: Driver, players, bot,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # (fixed deals: with the host's random seed, game one's button panel was once its last
    # decision, the game was over after the first pick and the old button said so instead of
    # "moved on": a fresh clone's make test)
    monkeypatch.setattr("bot.service.new_seed", lambda: 1)
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    other = await fake.add_channel("more-games")
    one = await driver.start_game("carnival", [alice, bob])
    game_msg = await fake.slash(carol, "game", "new", game="carnival", channel=other)
    await driver.settle()
    lobby = fake.message_for(game_msg)
    two = int(re.search(r"#(\d+)", lobby["embeds"][0]["title"])[1])
    await fake.click(dave, fake.messages[int(lobby["id"])], f"l:{two}:join")
    await driver.settle()
    await fake.click(carol, fake.messages[int(lobby["id"])], f"l:{two}:start")
    await driver.settle()
    r1, r2 = await driver.record(one), await driver.record(two)
    assert fake.channel_of(r2.home_channel_id)["parent_id"] == other["id"]
    assert fake.channel_of(r1.home_channel_id)["parent_id"] == fake.channel["id"]
    # each board's Play button opens a panel of its own game only
    for game, user, untouched in ((one, alice, two), (two, carol, one)):
        before = (await driver.record(untouched)).version
        panel = await driver.open_panel(user, game)
        assert {cid.split(":")[1] for _, cid, _ in driver.choices(panel)} == {str(game)}
        await pick_random(driver, user, panel, random.Random(game))
        assert (await driver.record(untouched)).version == before
    # an action button of an outdated panel: a private "moved on", nothing changes
    user, panel = await button_panel(driver, one, random.Random(4))
    old_panel = copy.deepcopy(fake.messages[int(panel["id"])])
    first, second = button_choices(driver, old_panel)[:2]
    await driver.pick(user, panel, first)
    record = await driver.record(one)
    count = await bot.repo.count_actions(one)
    last = max(fake.messages)
    await fake.click(user, old_panel, second[1])
    await driver.settle()
    notes = [m["content"] for m in ephemerals(fake, user, after=last)]
    assert len(notes) == 1 and "moved on" in notes[0], notes
    assert (await driver.record(one)).version == record.version
    assert await bot.repo.count_actions(one) == count


# --------------------------------------------------------------------------- 3. slow render


async def test_a_slow_render_is_acknowledged_in_time_and_the_board_arrives_by_edit(
        driver: Driver, players, bot, monkeypatch) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    board_id = (await driver.record(game)).board_message_id
    edits_before = sum(1 for kind, m in fake.message_log if kind == "edit" and m["id"] == str(board_id))
    real = renders.board_image
    release = threading.Event()      # the board render waits for it, however long the checks take
    rendering = threading.Event()

    def slow(game_id: str, view: dict[str, Any], names: Any, text: Any = None) -> Image.Image:
        rendering.set()
        assert release.wait(timeout=60), "the test never released the render"
        return real(game_id, view, names, text)

    monkeypatch.setattr(renders, "board_image", slow)
    try:
        panel = await driver.open_panel(alice, game)
        kind, cid, value = driver.choices(panel)[0]
        token = await fake.select(alice, fake.messages[int(panel["id"])], cid, [str(value)])
        await fake.response(token)                         # acknowledged while the render is held
        await fake.wait_for(rendering.is_set)
        # another player's click is answered meanwhile too
        board = await driver.board(game)
        hand = next(c["custom_id"] for c in iter_components(board["components"])
                    if c.get("custom_id", "").endswith(":hand"))
        token2 = await fake.click(bob, board, hand)
        await fake.response(token2)
        held = sum(1 for kind, m in fake.message_log if kind == "edit" and m["id"] == str(board_id))
        assert held == edits_before                          # the board waits for its image
    finally:
        release.set()
    await driver.settle()
    record = await driver.record(game)
    assert record.board_message_id == board_id       # same message, edited
    edits = sum(1 for kind, m in fake.message_log if kind == "edit" and m["id"] == str(board_id))
    assert edits == edits_before + 1
    assert f"g:{game}:{record.version}:play" in [c.get("custom_id") for c in
                                                  iter_components(fake.messages[board_id]["components"])]


# --------------------------------------------------------------------------- 4. double click on a button


async def test_two_clicks_on_one_panel_button_advance_once(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    user, panel = await button_panel(driver, game, random.Random(2))
    _, cid, _ = button_choices(driver, panel)[0]
    before = await bot.repo.count_actions(game)
    version = (await driver.record(game)).version
    fresh = copy.deepcopy(fake.messages[int(panel["id"])])
    last = max(fake.messages)
    t1 = await fake.click(user, fresh, cid)
    await fake.response(t1)                   # the second click comes while the first is handled
    t2 = await fake.click(user, fresh, cid)
    await driver.settle()
    record = await driver.record(game)
    player_entries = [e for e in (await bot.repo.log(game))[before:] if e.kind == "player"]
    assert len(player_entries) == 1 and player_entries[0].user_id == int(user["id"])
    assert record.version > version
    waiting = bot.service.waiting(record)
    notes = [m["content"] for m in ephemerals(fake, user, after=last)]
    if record.seat_of(int(user["id"])) in waiting:  # (a new decision of the player's: the old panel is stale)
        assert len(notes) == 1 and "moved on" in notes[0], notes
    else:  # (the game waits for others: the second click is told that the choice is in)
        mentions = ", ".join(f"<@{record.user_of(s)}>" for s in sorted(waiting))
        assert notes == [f"✓ Your choice is already in. Waiting for {mentions}."]
    assert fake.interactions[t1]["acked_at"] and fake.interactions[t2]["acked_at"]


# --------------------------------------------------------------------------- 5. simultaneous choices


async def test_simultaneous_secret_picks_are_each_taken_once_and_resolve_once(driver: Driver, players, bot) -> None:
    trio = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", trio)
    before = len(await bot.repo.log(game))
    panels = [await driver.open_panel(u, game) for u in trio]
    record = await driver.record(game)
    engine, state = bot.service.engine(record), bot.service.state(record)
    # Envy, Pride, Envy: all three cards are revealed at once (no decision stops the reveal)
    wanted = {0: "envy", 1: "pride", 2: "envy"}
    picks = []
    for user, panel in zip(trio, panels, strict=True):
        seat = record.seat_of(int(user["id"]))
        index = engine.legal_actions(state, seat).index({"type": "choose", "sin": wanted[seat]})
        (kind, cid, value), = [c for c in driver.choices(panel) if c[2] == str(index)]
        assert kind == "select"
        picks.append((user, fake.messages[int(panel["id"])], cid, value))
    await asyncio.gather(*(fake.select(u, p, cid, [str(v)]) for u, p, cid, v in picks))
    await driver.settle()
    new = (await bot.repo.log(game))[before:]
    chosen = [(e.seat, e.action.get("sin")) for e in new if e.kind == "player"]
    assert sorted(chosen) == sorted(wanted.items())
    kinds = log_kinds(new)
    assert kinds.count("all_picked") == 1
    assert kinds.count("reveal") == 3
    assert kinds.count("picked") == 3
    for user, panel in zip(trio, panels, strict=True):
        assert fake.messages[int(panel["id"])]["content"].startswith("✓"), fake.messages[int(panel["id"])]
        assert not [m for m in ephemerals(fake, user, after=int(panel["id"])) if "⚠️" in m["content"]]
    assert await bot.service.replay_matches(game)


# --------------------------------------------------------------------------- 6. contested first-come choice


async def test_a_contested_move_applies_once_and_the_other_is_told(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    user, panel = await button_panel(driver, game, random.Random(6))
    other = next(p for p in (alice, bob, carol) if p["id"] != user["id"])
    record = await driver.record(game)
    state = bot.service.state(record)
    engine = bot.service.engine(record)
    seat = record.seat_of(int(user["id"]))
    _, cid, _ = button_choices(driver, panel)[0]
    notation = notation_of(engine).describe_action(state, engine.legal_actions(state, seat)[int(cid.split(":")[3])])
    before = await bot.repo.count_actions(game)
    last = max(fake.messages)
    t_user, t_other = await asyncio.gather(
        fake.click(user, fake.messages[int(panel["id"])], cid),
        fake.slash(other, "carnival", "play", action=notation, game=game))
    await driver.settle()
    entries = [e for e in (await bot.repo.log(game))[before:] if e.kind == "player"]
    assert [e.user_id for e in entries] == [int(user["id"])]
    told = [m["content"] for m in ephemerals(fake, other, after=last)]
    # refused whichever came first: "not your turn", or (after the winner's move) "not legal now"
    assert len(told) == 1 and told[0].startswith("⚠️"), told
    assert "not your turn" in told[0].lower() or "not a legal move now" in told[0], told
    assert fake.messages[int(panel["id"])]["content"].startswith("✓")


# --------------------------------------------------------------------------- 7. a board edited for days


async def test_board_edited_hundreds_of_times_keeps_one_image_and_reposts_when_refused(
        driver: Driver, players, bot, monkeypatch) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    calls = 0

    def cheap(game_id: str, view: dict[str, Any], names: Any, text: Any = None) -> Image.Image:
        nonlocal calls
        calls += 1
        return Image.new("RGB", (48, 32), (calls % 256, 40, 90))

    monkeypatch.setattr(renders, "board_image", cheap)
    monkeypatch.setattr("bot.ui.presence.BOARD_SCROLL", 10**6)  # (no re-post because the chat moved on)
    rng = random.Random(8)
    first_board = (await driver.record(game)).board_message_id
    for i in range(150):
        fake.advance(900)                                    # 150 × 15 min ≈ 37 hours
        if i % 30 == 0:
            await driver.play_once(game, rng)                # a real move edits it too
        else:
            bot.delivery.boards.request_board(game)
            await bot.flow.wait_idle()
        board = fake.messages[(await driver.record(game)).board_message_id]
        assert len(board["attachments"]) == 1, i
    assert (await driver.record(game)).board_message_id == first_board
    edits = sum(1 for kind, m in fake.message_log if kind == "edit" and m["id"] == str(first_board))
    assert edits >= 150
    # an edit refused by Discord (30046): a fresh board is posted and the pointer follows it
    fake.refuse_edits(first_board)
    bot.delivery.boards.request_board(game)
    await driver.settle()
    record = await driver.record(game)
    assert record.board_message_id != first_board
    fresh = fake.messages[record.board_message_id]
    assert len(fresh["attachments"]) == 1 and fresh["channel_id"] == str(record.home_channel_id)
    assert any(r.startswith("30046") for r in fake.refusals)
    # the old-message edit cap does the same on its own
    fake.old_message_edit_cap = 3
    fake.advance(3700)
    for _ in range(5):
        bot.delivery.boards.request_board(game)
        await bot.flow.wait_idle()
    newest = (await driver.record(game)).board_message_id
    assert newest != record.board_message_id
    assert len(fake.messages[newest]["attachments"]) == 1


# --------------------------------------------------------------------------- 8. DMs closed, DM context


async def test_game_mine_in_a_dm_and_closed_dms_never_stall(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    fake.close_dms(bob)
    await fake.slash(bob, "game", "notify", dm=True)
    await driver.settle()
    game = await driver.start_game("carnival", [alice, bob])
    token = await fake.slash(bob, "game", "mine", context="dm")
    await driver.settle()
    reply = fake.message_for(token)
    assert reply is not None and reply["flags"] & EPHEMERAL
    assert f"#{game} Carnival of Sins" in reply["content"] and "your move" in reply["content"]
    assert fake.interactions[token]["dm"]
    # a lobby cannot be opened from a DM: told privately
    token = await fake.slash(bob, "game", "new", game="carnival", context="dm")
    await driver.settle()
    assert "not in DMs" in fake.message_for(token)["content"]
    # bob still plays by panels; his closed DMs were refused, never an error
    await driver.play_once(game, random.Random(1))
    assert any(r.startswith("50007") for r in fake.refusals)


# --------------------------------------------------------------------------- 9. no secret leaks


async def test_no_secret_in_any_public_artefact_dm_or_log_view(driver: Driver, players, bot, monkeypatch) -> None:
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    await fake.slash(alice, "game", "notify", dm=True)
    await driver.settle()
    seen_views: list[dict[str, Any]] = []
    real = renders.board_image

    def spy(game_id: str, view: dict[str, Any], names: Any, text: Any = None) -> Image.Image:
        seen_views.append(copy.deepcopy(view))
        return real(game_id, view, names, text)

    monkeypatch.setattr(renders, "board_image", spy)
    game = await driver.start_game("carnival", [alice, bob, carol])
    rng = random.Random(5)
    for _ in range(12):
        await driver.play_once(game, rng)
    record = await driver.record(game)
    # a non-player reads the log
    last = max(fake.messages)
    await fake.slash(dave, "game", "log", game=game)
    await driver.settle()
    log_view = "\n".join(m["content"] for m in ephemerals(fake, dave, after=last))
    assert "Log of game" in log_view
    private_lines = set()
    for entry in await bot.repo.log(game):
        for e in entry.events:
            if e["visible_to"] is not None:
                private_lines.add(format_names(e, record.names, record.game_id))
    assert private_lines
    public = driver.public_messages()
    texts = [m["content"] + " ".join(str(e) for e in m["embeds"]) for m in public]
    dms = [m["content"] for ch in fake.dm_channels.values() for m in fake.channel_messages(ch["id"])]
    assert dms and any(m["embeds"] for m in public)
    for line in private_lines:
        for text in [*texts, *dms, log_view]:
            assert line not in text, line
    every = [m["content"] + str(m["embeds"]) + str(m["components"]) for m in fake.messages.values()]
    assert not any(str(record.seed) in t for t in every)
    # every image was drawn from a view without anybody's face-down pick
    assert seen_views
    for view in seen_views:
        assert str(record.seed) not in str(view)
        assert "pick" not in view and "picks" not in view
        assert all("pick" not in seat for seat in view["seats"])


# --------------------------------------------------------------------------- 11. ten games and the clock


async def test_ten_games_at_once_with_the_clock_running(driver: Driver, players, bot) -> None:
    fake = driver.fake
    pairs = [(players[i % 6], players[(i + 1 + i // 6) % 6]) for i in range(10)]
    games = [await driver.start_game("carnival", list(p)) for p in pairs]
    window = (await driver.record(games[0])).deadline_window
    fake.advance(window * 0.55)
    rng = random.Random(11)
    clicks = 0
    for _round in range(2):
        # every waiting player presses Play on their board at once
        wanted = []
        for game in games:
            board = await driver.board(game)
            version = (await driver.record(game)).version
            for user in await driver.waiting_users(game):
                wanted.append((game, user, board, f"g:{game}:{version}:play"))
        last = max(fake.messages)
        await asyncio.gather(*(fake.click(u, b, cid) for _, u, b, cid in wanted))
        await driver.settle()
        picks = []
        for game, user, _, _ in wanted:
            panel = next(m for m in reversed(ephemerals(fake, user, after=last))
                         if any(c.get("custom_id", "").split(":")[1:2] == [str(game)]
                                for c in iter_components(m["components"])))
            options = [c for c in driver.choices(panel) if c[0] != "group"]
            if options:                                  # (a two-step Wrath list: left alone)
                picks.append((user, panel, rng.choice(options)))
        jobs = []
        for user, panel, (kind, cid, value) in picks:
            if kind == "select":
                jobs.append(fake.select(user, panel, cid, [str(value)]))
            else:
                jobs.append(fake.click(user, panel, cid))
        clicks += len(jobs)
        await asyncio.gather(*jobs, bot.flow.tick(fake.now()), bot.flow.tick(fake.now() + window * 0.4))
        await driver.settle()
    messages = [r.getMessage() for r in fake.errors.records]
    assert not any("locked" in m for m in messages)
    applied = 0
    for game in games:
        entries = await bot.repo.log(game)
        record = await driver.record(game)
        assert [e.seq for e in entries] == list(range(1, record.version + 1))
        applied += sum(1 for e in entries if e.kind == "player" and e.user_id is not None)
        assert await bot.service.replay_matches(game)
    confirmed = sum(1 for m in fake.messages.values()
                    if m["flags"] & EPHEMERAL and m["content"].startswith("✓"))
    assert applied == confirmed
    refused = sum(1 for m in fake.messages.values() if m["flags"] & EPHEMERAL and m["content"].startswith("⚠️"))
    assert confirmed + refused == clicks
    assert confirmed >= clicks // 2
    reminders = [m for m in driver.public_messages() if m["content"].startswith("⏰ Reminder")]
    per_game = {}
    for m in reminders:
        per_game[m["channel_id"]] = per_game.get(m["channel_id"], 0) + 1
    assert all(n <= 2 for n in per_game.values()), per_game


# --------------------------------------------------------------------------- 12. upload limit


async def test_boards_fit_a_small_upload_limit(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    fake.upload_limit = LIMIT = 30_000  # under the palette PNG of this board (about 37 kB)
    game = await driver.start_game("carnival", [alice, bob])
    await driver.play_once(game, random.Random(3))
    board = await driver.board(game)
    (attachment,) = board["attachments"]
    assert attachment["size"] <= LIMIT and attachment["filename"] == "board.jpg"
    assert board["embeds"][0]["image"]["url"] == "attachment://board.jpg"
    # a board edited by the clock (no interaction) keeps to the limit too
    record = await driver.record(game)
    fake.advance(record.deadline - fake.now() + 1)
    await bot.flow.tick()
    await driver.settle()
    assert (await driver.record(game)).version > record.version
    (attachment,) = (await driver.board(game))["attachments"]
    assert attachment["size"] <= LIMIT
    # the private view too
    last = max(fake.messages)
    await fake.click(alice, await driver.board(game), f"g:{game}:{(await driver.record(game)).version}:hand")
    await driver.settle()
    private = driver.newest_ephemeral(alice, after=last)
    assert private is not None and private["attachments"]
    assert all(a["size"] <= LIMIT for a in private["attachments"])


# --------------------------------------------------------------------------- 16. threads not allowed


async def test_without_threads_the_game_runs_in_the_channel(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    fake.threads_allowed = False
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    assert record.thread_id is None and not fake.threads()
    assert record.board_channel_id == int(fake.channel["id"])
    assert any(r.startswith("50013") for r in fake.refusals)
    rng = random.Random(16)
    for _ in range(4):
        await driver.play_once(game, rng)
    record = await driver.record(game)
    assert record.version > 4
    texts = [m["content"] for m in fake.channel_messages(fake.channel["id"], ephemeral=False)]
    assert any("has picked" in t for t in texts)



# --------------------------------------------------------------------------- 14. the clock


async def test_a_deadline_passed_while_offline_is_acted_on_exactly_once(fake, make_bot, players,
                                                                        monkeypatch) -> None:
    alice, bob, carol = players[:3]
    # carol's timed-out pick is Wrath (instead of a random sin); her whole turn (the pick
    # and then her Wrath decision) is played automatically, and the next round's picks,
    # hers included, get a fresh window
    real_timeout = CarnivalEngine.timeout_action

    def wrath_on_timeout(self: CarnivalEngine, state: dict[str, Any], seat: int) -> dict[str, Any]:
        if state["phase"] == "choose":
            return {"type": "choose", "sin": "wrath"}
        return real_timeout(self, state, seat)

    monkeypatch.setattr(CarnivalEngine, "timeout_action", wrath_on_timeout)
    bot1 = await make_bot()
    d1 = Driver(fake, bot1)
    game = await d1.start_game("carnival", [alice, bob, carol])
    for user in (alice, bob):
        await typed(d1, user, game, "choose envy")
    record = await d1.record(game)
    assert record.waiting == [2] and record.deadline is not None
    await fake.stop_bot(bot1)
    fake.advance(record.deadline - fake.now() + 60)          # the deadline passes while offline

    def notices(d: Driver) -> list[JSONDict]:
        return [m for m in d.public_messages() if "time ran out" in m["content"]]

    bot2 = await make_bot()                                  # its clock acts at start
    d2 = Driver(fake, bot2)
    await fake.wait_for(lambda: notices(d2))
    await d2.settle()

    async def timeouts() -> list[Any]:
        return [e for e in await bot2.repo.log(game) if any(ev["kind"] == "timeout" for ev in e.events)]

    (entry,) = await timeouts()
    assert entry.seat == 2 and entry.action == {"type": "choose", "sin": "wrath"} and entry.user_id is None
    assert len(notices(d2)) == 1 and "carol" in notices(d2)[0]["content"]
    after = await d2.record(game)
    assert after.version > record.version and after.waiting == [0, 1, 2]   # round 2's picks
    wrath = [e for e in await bot2.repo.log(game) if e.seat == 2 and e.action["type"] == "wrath"]
    assert len(wrath) == 1 and wrath[0].user_id is None                   # played for carol
    assert after.deadline == pytest.approx(fake.now() + after.deadline_window, abs=30)
    # another pass of the clock, and another restart: nothing more
    await bot2.flow.tick()
    await bot2.flow.tick(fake.now() + 1)
    await d2.settle()
    await fake.stop_bot(bot2)
    bot3 = await make_bot()
    d3 = Driver(fake, bot3)
    await bot3.flow.tick()
    await d3.settle()
    assert (await d3.record(game)).version == after.version
    assert len(notices(d3)) == 1
    assert len([e for e in await bot3.repo.log(game) if any(ev["kind"] == "timeout" for ev in e.events)]) == 1
    assert await bot3.service.replay_matches(game)


async def test_reminders_at_half_and_ninety_percent_mention_exactly_the_waiting(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    record = await driver.record(game)
    window = record.deadline_window
    start = record.deadline - window

    def reminders() -> list[JSONDict]:
        return [m for m in driver.public_messages() if m["content"].startswith("⏰ Reminder")]

    def pinged(message: JSONDict) -> set[str]:
        req = next(r for r in fake.calls("POST", r"/channels/\d+/messages")
                   if (r.json or {}).get("content") == message["content"])
        allowed = {str(u) for u in req.json["allowed_mentions"]["users"]}
        assert allowed == set(re.findall(r"<@(\d+)>", message["content"]))
        return allowed

    fake.advance(start + window * 0.5 + 1 - fake.now())
    await bot.flow.tick()
    await bot.flow.tick()
    await driver.settle()
    (half,) = reminders()
    assert pinged(half) == {alice["id"], bob["id"], carol["id"]}
    # alice picks: the clock goes on for bob and carol, without a second half-time reminder
    await typed(driver, alice, game, f"choose {(await sins_of(driver, game, alice))[0]}")
    await bot.flow.tick()
    await driver.settle()
    assert len(reminders()) == 1
    fake.advance(start + window * 0.9 + 1 - fake.now())
    await bot.flow.tick()
    await bot.flow.tick()
    await driver.settle()
    assert len(reminders()) == 2
    assert pinged(reminders()[1]) == {bob["id"], carol["id"]}
    assert (await driver.record(game)).version == record.version + 1   # no timeout yet


async def test_a_game_whose_thread_was_deleted_goes_on_in_its_channel(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    assert record.thread_id is not None
    fake.delete_channel(record.thread_id)                        # a moderator deleted the thread
    user = (await driver.waiting_users(game))[0]
    last = max(fake.messages)
    await fake.slash(user, "game", "play", game=game)            # (no board left to press Play ▶ on)
    await driver.settle()
    panel = driver.newest_ephemeral(user, after=last)
    assert panel is not None
    await driver.pick(user, panel, next(c for c in driver.choices(panel) if c[0] != "group"))
    await driver.delivered()
    moved = await driver.record(game)
    assert moved.thread_id is None and moved.version == record.version + 1
    board = await driver.board(game)                             # a fresh board where the game goes on
    assert board["channel_id"] == str(record.channel_id)
    play = [c["custom_id"] for c in iter_components(board["components"]) if c.get("custom_id", "").endswith(":play")]
    assert len(play) == 1 and play[0].split(":")[2] == str(moved.version), play

    def said() -> list[JSONDict]:  # (the one line that tells the channel why the game is here now)
        return [m for m in fake.channel_messages(record.channel_id, ephemeral=False)
                if m["content"] == "This game's thread was deleted; the game goes on here."]

    assert len(said()) == 1 and int(said()[0]["id"]) < int(board["id"])
    rng = random.Random(3)
    for _ in range(4):                                           # the game plays on there
        await driver.play_once(game, rng)
    assert (await driver.record(game)).version > moved.version
    last = max(fake.messages)
    await fake.slash(alice, "game", "board", game=game)          # and /game board works again
    await driver.settle()
    answer = "\n".join(driver.private_to(alice, last))
    assert "Sorry" not in answer and f"/{record.channel_id}/" in answer, answer
    assert len(said()) == 1  # (said the first time only)
    # (no ERROR was logged: the ``fake`` fixture checks)
