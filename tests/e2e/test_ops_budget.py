"""Within Discord's request budget (bench/requests.py): a move's public
lines ride on the board edit, the ping goes through the mover's interaction, the board's
place in its channel is counted from what the bot saw (no history read), a DM needs no
user fetch, and players at the table get no DM (``Presence.present``)."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bench.requests import BUDGET, counted
from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
from bot.ui import boards as delivery_module
from bot.ui.notices import DIGEST_LINES
from tests.e2e.driver import Driver
from tests.e2e.test_pings import dm_turn_notices
from tests.e2e.test_thread_lines import Snapshots, read_through, thread_reading

JSONDict = dict[str, Any]


def channel_lines(fake: FakeDiscord, channel_id: int, after: int) -> list[JSONDict]:
    """Plain messages (no embed, no buttons) after message id ``after``: event line posts."""
    return [m for m in fake.channel_messages(channel_id, ephemeral=False)
            if int(m["id"]) > after and not m["embeds"] and not m["components"]]


async def test_a_move_costs_no_bot_token_request_board_edit_through_play_and_ping_through_the_interaction(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot = await make_bot(dm_away_seconds=300, lean_requests=True)
    driver = Driver(fake, bot)
    alice, bob = players[:2]
    game = await driver.start_game("canterbury", [alice, bob])
    record = await driver.record(game)
    await driver.open_panel((await driver.waiting_users(game))[0], game)  # (the Play ▶ callback is exempt)
    mark, newest = len(fake.requests), max(fake.messages)
    mover = (await driver.waiting_users(game))[0]
    panel = driver.newest_ephemeral(mover)
    assert panel is not None
    rng = random.Random(2)
    for _ in range(5):
        options = [o for o in driver.choices(fake.messages[int(panel["id"])]) if o[0] != "group"] or \
            driver.choices(fake.messages[int(panel["id"])])
        kind = options[0][0]
        await driver.pick(mover, panel, rng.choice(options))
        if kind != "group":
            break
    after = await driver.record(game)
    assert after.version > record.version
    spent = counted(fake.requests[mark:])
    assert spent == []  # the board edit went through the Play ▶ token, the ping as a follow-up
    play = next(t for t, it in reversed(fake.interactions.items())
                if it["message_id"] == record.board_message_id and it["callback"]["type"] == 6)
    edits = [r for r in fake.requests[mark:] if r.method == "PATCH" and r.path.endswith("/messages/@original")
             and fake.interactions[r.path.split("/")[3]]["response_message_id"] == record.board_message_id]
    assert [r.path for r in edits] == [f"/webhooks/{fake.app_id}/{play}/messages/@original"]
    board = fake.messages[after.board_message_id]  # type: ignore[index]
    tx_lines = await bot.delivery.boards.public_lines(after, record.version, after.version)
    assert tx_lines and all(f"• {line}" in board["embeds"][0]["description"] for line in tx_lines)
    assert channel_lines(fake, after.home_channel_id, newest) == []
    pinged = [r for r in fake.requests[mark:] if r.method == "POST" and r.path.startswith("/webhooks/")
              and re.search(r"<@\d+>", (r.json or {}).get("content", ""))]
    awaited = await driver.waiting_users(game)
    if {u["id"] for u in awaited} != {mover["id"]}:  # (who is awaited changed: one ping, as a follow-up)
        assert len(pinged) == 1 and f"<@{awaited[0]['id']}>" in pinged[0].json["content"]


def test_a_board_carries_the_newest_lines_that_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delivery_module, "BOARD_LINES_MAX", 3)
    monkeypatch.setattr(delivery_module, "BOARD_LINES_CHARS", 20)
    assert delivery_module.board_carries([]) == 0
    assert delivery_module.board_carries(["a" * 4] * 5) == 2       # (4 + 3 characters a line)
    assert delivery_module.board_carries(["a", "b", "c", "d"]) == 3
    assert delivery_module.board_carries(["a", "b" * 40]) == 1      # (the newest always)


@pytest.mark.parametrize("limit", [("BOARD_LINES_MAX", 2), ("BOARD_LINES_CHARS", 60)])
async def test_lines_that_do_not_fit_the_board_are_posted_above_it(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch, limit: tuple[str, int]) -> None:
    fake.message_log = Snapshots()
    monkeypatch.setattr(delivery_module, *limit)
    bot = await make_bot(dm_away_seconds=300, lean_requests=True)
    driver = Driver(fake, bot)
    game = await driver.start_game("carnival", players[:3])
    rng = random.Random(4)
    for _ in range(3):  # (the last pick of round 1 reveals three cards: more lines than the board carries)
        await driver.play_once(game, rng)
    await driver.delivered()
    record = await driver.record(game)
    assert record.thread_id is not None
    log = await bot.delivery.boards.recent_public_lines(record, limit=10**6)
    opening = (await bot.delivery.boards.public_lines(record, 0, 1))[0]
    reading = thread_reading(fake, record.thread_id, opening)
    # the older lines posted on their own, the board posted again below them (a reader meets them in order)
    posted = max(i for i, (kind, _) in enumerate(reading) if kind == "lines")
    assert posted > 0 and reading[posted + 1][0] == "board"
    shown = reading[posted + 1][1]
    assert len(shown) == 2 if limit[0] == "BOARD_LINES_MAX" else sum(len(x) + 3 for x in shown) <= 60 or len(shown) == 1
    assert [kind for kind, m in fake.message_log if m["id"] == str(record.board_message_id)][0] == "create"
    assert read_through(log, reading) == len(log)


async def test_the_board_scrolls_without_reading_history(make_bot: Callable[..., Awaitable[GameBot]],
                                                         fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot = await make_bot(dm_away_seconds=300, lean_requests=True)
    driver = Driver(fake, bot)
    game = await driver.start_game("canterbury", players[:2])
    record = await driver.record(game)
    old_board = record.board_message_id
    history = len(fake.calls("GET", r"/channels/\d+/messages"))
    for i in range(8):  # players chat in the thread: the board is pushed up
        await fake.say(players[i % 2], f"hm {i}", channel=record.home_channel_id)
    await driver.settle()
    bot.delivery.boards.request_board(game)
    await driver.settle()
    moved = await driver.record(game)
    assert moved.board_message_id != old_board and old_board not in fake.messages
    assert len(fake.calls("GET", r"/channels/\d+/messages")) == history
    # a restarted bot has not watched the channel: it reads the history once, then counts
    await fake.stop_bot(bot)
    bot2 = await make_bot(dm_away_seconds=300, lean_requests=True)
    bot2.delivery.boards.request_board(game)
    await Driver(fake, bot2).settle()
    bot2.delivery.boards.request_board(game)
    await Driver(fake, bot2).settle()
    assert len(fake.calls("GET", r"/channels/\d+/messages")) == history + 1
    assert (await bot2.service.get(game)).board_message_id == moved.board_message_id


async def test_dms_go_to_players_who_are_away_with_no_user_fetch(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot = await make_bot(dm_away_seconds=300, lean_requests=True)
    driver = Driver(fake, bot)
    alice, bob = players[:2]
    game = await driver.start_game("canterbury", [alice, bob])
    rng = random.Random(3)
    # bob pressed Start's lobby Join a moment ago: at the table, so the turn that comes to him is no DM
    while (await driver.waiting_users(game))[0]["id"] != bob["id"]:
        await driver.play_once(game, rng)
    assert dm_turn_notices(fake, bob) == []
    # bob leaves; once he has been away long enough, alice's move sends him a DM turn notice
    while (await driver.waiting_users(game))[0]["id"] != alice["id"]:
        await driver.play_once(game, rng)
    fake.advance(301)
    while (await driver.waiting_users(game))[0]["id"] == alice["id"]:  # (a turn may take several actions)
        await driver.play_once(game, rng)
    assert (await driver.waiting_users(game))[0]["id"] == bob["id"]
    assert len(dm_turn_notices(fake, bob)) == 1
    assert fake.calls("GET", r"/users/\d+") == []
    assert len(fake.calls("POST", "/users/@me/channels")) == len({r.json["recipient_id"] for r in
                                                                   fake.calls("POST", "/users/@me/channels")})


async def test_a_whole_game_stays_within_the_budget(make_bot: Callable[..., Awaitable[GameBot]],
                                                    fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot = await make_bot(dm_away_seconds=300, lean_requests=True)
    driver = Driver(fake, bot)
    game = await driver.start_game("carnival", players[:3])
    await driver.delivered()
    mark, moves = len(fake.requests), 0
    rng = random.Random(1)
    while (await driver.record(game)).status == "active":
        await driver.play_once(game, rng)
        moves += 1
    await driver.delivered()
    assert moves > 10
    assert len(counted(fake.requests[mark:])) / moves <= BUDGET


async def test_with_lines_folded_into_the_board_the_ping_carries_the_latest_move_too(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    """Lean, a change's public lines ride on the board edit, not in a post just above the
    ping: so the ping's "since your last turn" digest runs up to the change that pinged
    (a trial saw it stop before the latest reveal and throw). (Lines beyond what the board
    carries are still posted above, and then are in the ping too.)"""
    from tests.e2e.test_pings import turn_pings

    bot = await make_bot(lean_requests=True)
    driver = Driver(fake, bot)
    game = await driver.start_game("carnival", players[:3])
    thread = (await driver.record(game)).home_channel_id
    rng = random.Random(5)
    checked = 0
    async for before, after, mark in driver.random_moves(game, rng, 40):
        lines = await bot.delivery.boards.public_lines(after, before.version, after.version)
        pings = turn_pings(fake, thread, after=mark)
        if lines and pings:
            (ping,) = pings
            shown = lines[-DIGEST_LINES:]  # (a longer digest starts with "n earlier lines")
            assert all(f"• {line}" in ping["content"] for line in shown), (shown, ping["content"])
            checked += 1
    assert checked >= 3
