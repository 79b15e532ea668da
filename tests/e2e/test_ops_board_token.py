"""The board edited through the Play ▶ interaction (bot/ui/tokens.py
``note_board_interaction``, docs/DISCORD.md "Interaction tokens"): Play ▶ on the board is
answered by a deferred update, so its token's ``@original`` is the board message and the
move's board edit costs no bot-token request; a token Discord refuses, one near its 15
minutes, one this process never held (a restart) or one pressed elsewhere (a ping) falls
back to the bot-token edit, and nothing is lost or doubled."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, Req, iter_components
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def board_edits(fake: FakeDiscord, mark: int, board: int) -> tuple[list[Req], list[Req]]:
    """(bot-token PATCHes of message ``board``, webhook PATCHes of an ``@original`` that is
    ``board``) since request ``mark`` (the panels' own ``@original`` edits left out)."""
    own = [r for r in fake.requests[mark:] if r.method == "PATCH" and r.path.endswith(f"/messages/{board}")]
    hooks = [r for r in fake.requests[mark:] if r.method == "PATCH"
             and (m := re.fullmatch(r"/webhooks/\d+/([\w.-]+)/messages/@original", r.path))
             and fake.interactions[m[1]]["response_message_id"] == board]
    return own, hooks


def play_token(fake: FakeDiscord, board: int) -> str:
    """The token of the newest Play ▶ press on message ``board``."""
    return next(t for t, it in reversed(fake.interactions.items()) if it["message_id"] == board
                and str((it["payload"]["data"] or {}).get("custom_id", "")).endswith(":play"))


async def pick_once(driver: Driver, user: JSONDict, panel: JSONDict, rng: random.Random) -> None:
    """Pick actions in ``panel`` until one is applied (a group first opens its step two)."""
    await driver.decide(user, panel, rng)


async def lean(make_bot: Callable[..., Awaitable[GameBot]]) -> GameBot:
    return await make_bot(dm_away_seconds=300, lean_requests=True)


async def canterbury(make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord,
                     players: list[JSONDict]) -> tuple[GameBot, Driver, int]:
    """A lean bot, its driver and a started two-player Canterbury game."""
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    return bot, driver, await driver.start_game("canterbury", players[:2])


def shows(fake: FakeDiscord, board: int, game: int, version: int) -> bool:
    """True when message ``board`` carries the buttons of ``game`` at ``version``."""
    return any(c.get("custom_id", "").startswith(f"g:{game}:{version}:")
               for c in iter_components(fake.messages[board]["components"]))


async def test_every_move_edits_the_board_through_the_play_token(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot, driver, game = await canterbury(make_bot, fake, players)
    rng = random.Random(5)
    for _ in range(6):
        record = await driver.record(game)
        board = record.board_message_id
        assert board is not None
        mark = len(fake.requests)
        await driver.play_once(game, rng)
        after = await driver.record(game)
        own, hooks = board_edits(fake, mark, board)
        assert own == []
        assert [r.path for r in hooks] == [f"/webhooks/{fake.app_id}/{play_token(fake, board)}/messages/@original"]
        assert fake.interactions[play_token(fake, board)]["callback"]["type"] == 6  # a deferred update
        assert shows(fake, board, game, after.version)                        # the board shows the move
        assert len(fake.messages[board]["attachments"]) == 1
        assert after.board_message_id == board
    assert not [r for r in await bot.repo.pending(game) if r.kind == "board"]


async def test_a_refused_or_old_token_falls_back_to_the_bot_token(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot, driver, game = await canterbury(make_bot, fake, players)
    rng = random.Random(6)
    # Discord refuses the token (expired or invalidated): one refused webhook edit, then the bot token's
    board = (await driver.record(game)).board_message_id
    assert board is not None
    mover = (await driver.waiting_users(game))[0]
    panel = await driver.open_panel(mover, game)
    fake.revoke_token(play_token(fake, board))
    mark = len(fake.requests)
    await pick_once(driver, mover, panel, rng)
    own, hooks = board_edits(fake, mark, board)
    assert len(hooks) == 1 and len(own) == 1
    assert any(r.startswith("50027") for r in fake.refusals)
    assert shows(fake, board, game, (await driver.record(game)).version)
    assert bot.delivery.tokens.board_tokens.get(game) is None                     # forgotten: not tried again
    # a token within a minute of its 15 is not tried at all
    mover = (await driver.waiting_users(game))[0]
    panel = await driver.open_panel(mover, game)
    fake.advance(14 * 60 + 1)
    mark = len(fake.requests)
    await pick_once(driver, mover, panel, rng)
    own, hooks = board_edits(fake, mark, board)
    assert hooks == [] and len(own) == 1
    # Play ▶ pressed on a ping (its @original is the ping) is no board token
    record = await driver.record(game)
    mover = (await driver.waiting_users(game))[0]
    ping = next(m for m in reversed(fake.channel_messages(record.home_channel_id, ephemeral=False))
                if int(m["id"]) != board and any(c.get("custom_id", "").endswith(":play")
                                                for c in iter_components(m["components"])))
    play = next(c["custom_id"] for c in iter_components(ping["components"]) if c.get("custom_id", "").endswith(":play"))
    last = max(fake.messages)
    await fake.click(mover, ping, play)
    await driver.settle()
    panel = driver.newest_ephemeral(mover, after=last)
    assert panel is not None
    mark = len(fake.requests)
    await pick_once(driver, mover, panel, rng)
    own, hooks = board_edits(fake, mark, board)
    assert hooks == [] and len(own) == 1
    assert fake.messages[int(ping["id"])]["content"] == ping["content"]      # the ping was not touched
    fake.refusals.clear()  # (the refusal was this test's doing)


async def test_a_restart_between_the_commit_and_the_edit_edits_once_with_the_bot_token(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: Any) -> None:
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    alice, bob = players[:2]
    game = await driver.start_game("canterbury", [alice, bob])
    record = await driver.record(game)
    board = record.board_message_id
    assert board is not None
    mover = (await driver.waiting_users(game))[0]
    panel = await driver.open_panel(mover, game)

    async def crashed(game: int, via: Any = None) -> None:  # (the process dies right after the commit)
        return None

    monkeypatch.setattr(bot.outbox, "flush", crashed)
    monkeypatch.setattr(bot.delivery.boards, "request_board", lambda game, version=None: None)  # (nor the early board)
    await pick_once(driver, mover, panel, random.Random(7))
    moved = await driver.record(game)
    assert moved.version > record.version
    pending = {r.kind for r in await bot.repo.pending(game)}
    assert "board" in pending
    await fake.stop_bot(bot)
    mark, posts = len(fake.requests), len(fake.channel_messages(record.home_channel_id, ephemeral=False))
    bot2 = await lean(make_bot)
    await Driver(fake, bot2).delivered()
    own, hooks = board_edits(fake, mark, board)
    assert hooks == [] and len(own) == 1                                      # the new process holds no token
    assert (await bot2.service.get(game)).board_message_id == board         # no second board
    assert shows(fake, board, game, moved.version)
    assert await bot2.repo.pending(game) == []
    awaited = {str(moved.user_of(s)) for s in moved.waiting}
    new = [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False)][posts:]
    pinged = [m for m in new if re.search(r"<@\d+>", m["content"])]
    # the ping row, once (a row left by a crash pings a mover still awaited too: their panel may be lost)
    assert len(pinged) == 1 and all(f"<@{u}>" in pinged[0]["content"] for u in awaited)
    # a second resume finds nothing to send again
    mark = len(fake.requests)
    assert await bot2.outbox.resume() == []
    await Driver(fake, bot2).delivered()
    assert board_edits(fake, mark, board) == ([], [])


async def test_the_hours_edit_cap_holds_for_the_play_token_too(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    """A board older than an hour has Discord's edit cap whichever token edits it: an ``@original``
    edit over the cap is refused (30046) as a bot-token edit is, and the bot posts a fresh board."""
    bot, driver, game = await canterbury(make_bot, fake, players)
    rng = random.Random(7)
    board = (await driver.record(game)).board_message_id
    assert board is not None
    fake.old_message_edit_cap = 1
    fake.advance(3700)                                        # the board is over an hour old
    mark = len(fake.requests)
    await driver.play_once(game, rng)                         # its one late edit, through the Play token
    own, hooks = board_edits(fake, mark, board)
    assert (len(own), len(hooks)) == (0, 1) and (await driver.record(game)).board_message_id == board
    mark = len(fake.requests)
    await driver.play_once(game, rng)
    await driver.delivered()
    own, hooks = board_edits(fake, mark, board)
    assert len(hooks) == 1 and len(own) == 1                  # refused both ways…
    assert [r.split(" ")[1] for r in fake.refusals if r.startswith("30046")] == ["PATCH", "PATCH"]
    assert any("/webhooks/" in r for r in fake.refusals if r.startswith("30046"))
    record = await driver.record(game)
    assert record.board_message_id not in (None, board)       # …so a fresh board carries the game on
    assert record.board_message_id is not None and shows(fake, record.board_message_id, game, record.version)
    assert not [r for r in await bot.repo.pending(game) if r.kind == "board"]
    fake.refusals.clear()  # (the refusals were this test's doing)


async def test_interaction_routes_rate_limited_the_bot_waits_as_told(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    """With Discord's per-interaction buckets (one request per callback and per webhook in a
    quarter of a second), the panel, its follow-ups and the board edits through the Play token
    all arrive, none before a 429's ``retry_after`` (a violation the fake records)."""
    bot, driver, game = await canterbury(make_bot, fake, players)
    fake.rate_limit_buckets(per_channel=None, global_limit=None, per_interaction=(1, 0.25))
    rng = random.Random(8)
    for _ in range(4):
        board = (await driver.record(game)).board_message_id
        assert board is not None
        await driver.play_once(game, rng)
        await driver.delivered()
        record = await driver.record(game)
        assert record.board_message_id == board and shows(fake, board, game, record.version)
    limited = [r for r in fake.requests if r.path.startswith("/webhooks/")]
    tokens = [re.fullmatch(r"/webhooks/\d+/([\w.-]+).*", r.path)[1] for r in limited]  # type: ignore[index]
    assert max(tokens.count(t) for t in tokens) >= 2          # a webhook met its limit: the bot waited
    assert not await bot.repo.pending(game)
    fake.refusals.clear()
