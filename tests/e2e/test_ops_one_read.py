"""A move reads its game once at most (bot/storage/database.py ``GameWrites``): Play ▶, the
pick, the outbox drain and the board update take the record the last commit read back
(``GameService.get(kept=True)``, ``Repository.kept_game``) while nothing wrote the game
since, instead of each reading the game row again; the board's log entries come from the
process's ``LogTail``. A panel pressed after the game changed under it is still refused
with its clear message: a kept record is the game as stored, as a fresh read is."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
from bot.storage.records import GAME_SQL
from bot.text import Texts
from engines.base import Msg
from tests.e2e.driver import Driver
from tests.e2e.test_ops_board_token import lean, shows

JSONDict = dict[str, Any]


def game_reads(bot: GameBot) -> list[int]:
    """Count the trips to the database that read a game's row (``GAME_SQL``)."""
    reads = [0]
    fetch = bot.repo._fetch

    async def counting(queries: Any) -> Any:
        reads[0] += any(sql == GAME_SQL for sql, _ in queries)
        return await fetch(queries)

    bot.repo._fetch = counting  # type: ignore[method-assign]
    return reads


async def test_a_move_reads_its_game_at_most_once(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    game = await driver.start_game("canterbury", players[:2])
    rng = random.Random(4)
    await driver.play_once(game, rng)  # (the first board after the start was posted: its pointer written)
    await driver.delivered()
    reads = game_reads(bot)
    per_move = []
    for _ in range(6):
        user = (await driver.waiting_users(game))[0]
        board = await driver.board(game)
        before = (await driver.record(game)).version
        reads[0] = 0
        play = next(c["custom_id"] for c in board["components"][0]["components"] if c["custom_id"].endswith(":play"))
        mark = max(fake.messages)
        await fake.click(user, board, play)
        await driver.settle()
        panel = driver.newest_ephemeral(user, after=mark)
        assert panel is not None
        await driver.decide(user, panel, rng)
        await driver.delivered()
        per_move.append(reads[0])
        after = await driver.record(game)
        assert after.version > before
        assert shows(fake, int(board["id"]), game, after.version)  # (the board drawn from the kept record)
    assert per_move == [0] * 6


async def panel_after_a_move(make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord,
                             players: list[JSONDict]) -> tuple[GameBot, Driver, int, JSONDict, JSONDict, random.Random]:
    """A Canterbury game one move in, and the panel its awaited player opened: (bot, driver,
    game, that player, the panel, the game's rng)."""
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    game = await driver.start_game("canterbury", players[:2])
    rng = random.Random(2)
    await driver.play_once(game, rng)
    await driver.delivered()
    user = (await driver.waiting_users(game))[0]
    panel = await driver.open_panel(user, game)
    return bot, driver, game, user, panel, rng


async def test_a_pick_pressed_twice_at_once_moves_once_and_refuses_the_other(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot, driver, game, user, panel, rng = await panel_after_a_move(make_bot, fake, players)
    before = await driver.record(game)
    assert bot.service.kept(game) is not None  # (the pick starts from the kept record)
    actions = [o for o in driver.choices(panel) if o[0] != "group"]
    kind, cid, value = actions[0]
    message = fake.messages[int(panel["id"])]
    mark = max(fake.messages)
    if value is None:
        first = fake.click(user, message, cid)
        second = fake.click(user, message, cid)
    else:
        first = fake.select(user, message, cid, [str(value)])
        second = fake.select(user, message, cid, [str(value)])
    await asyncio.gather(first, second)
    await driver.delivered()
    after = await driver.record(game)
    assert after.version == before.version + 1 + sum(  # (the move, and the chance steps it caused)
        1 for e in await bot.service.log(game, after=before.version + 1) if e.kind == "chance")
    answers = sorted((it["callback"]["type"], it["callback"]["data"]["content"])
                     for it in list(fake.interactions.values())[-2:])
    awaited = await driver.waiting_users(game)
    refusal = ("⚠️ " + Texts(None, [], "en")(Msg("ui.error.panel_stale")) if user in awaited  # (its next decision)
               else f"✓ Your choice is already in. Waiting for <@{awaited[0]['id']}>.")  # (the other player's turn)
    assert [t for t, _ in answers] == [4, 7]                         # one refused, one panel redrawn in place
    assert answers[0][1] == refusal                                  # the stale press: its choice is in
    assert answers[1][1].startswith("✓ ")                            # the move
    assert driver.private_to(user, mark) == [refusal]


async def test_a_panel_pressed_after_a_pause_is_refused_as_paused(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot, driver, game, user, panel, rng = await panel_after_a_move(make_bot, fake, players)
    mark = max(fake.messages)
    kept = bot.service.kept(game)
    assert kept is not None and not kept.paused
    await bot.service.set_paused(game, True)  # (a moderator's pause, after the panel was drawn)
    now = bot.service.kept(game)
    assert now is None or now.paused
    before = await driver.record(game)
    await driver.decide(user, panel, rng)
    await driver.delivered()
    after = await driver.record(game)
    assert after.version == before.version and after.paused  # (nothing moved)
    assert driver.private_to(user, mark) == ["⚠️ " + Texts(None, [], "en")(Msg("ui.error.paused"))]
