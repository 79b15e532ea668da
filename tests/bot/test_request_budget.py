"""A process's share of Discord's global limit (bot/ui/operator.py ``RequestBudget``,
``Settings.request_share``): the share by shards, places held until ``WINDOW`` after each
answer, and only bot-token requests counted (tests/e2e/test_global_limit.py: two real
processes against the offline Discord)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace

import aiohttp
import pytest
from multidict import CIMultiDict
from yarl import URL

from bot.settings import Settings
from bot.ui.operator import WINDOW, RateLimits, RequestBudget


def test_each_process_gets_its_shards_part_of_the_global_limit() -> None:
    assert Settings().request_share == 50
    assert Settings(shard_count=2, shard_ids=(1,)).request_share == 25
    assert Settings(shard_count=2).request_share == 50  # (one process runs both)
    assert Settings(shard_count=4, shard_ids=(0, 1, 2)).request_share == 37
    assert Settings(shard_count=3, shard_ids=(2,)).request_share == 16  # (3 × 16 ≤ 50)
    assert Settings(shard_count=64, shard_ids=(5,)).request_share == 1
    env = Settings.from_env({"DISCORD_GLOBAL_LIMIT": "120", "SHARD_COUNT": "4", "SHARD_IDS": "3"}, dotenv_path=None)
    assert (env.discord_global_limit, env.request_share) == (120, 30)
    assert Settings.from_env({}, dotenv_path=None).discord_global_limit == 50
    with pytest.raises(ValueError, match="DISCORD_GLOBAL_LIMIT"):
        Settings.from_env({"DISCORD_GLOBAL_LIMIT": "0"}, dotenv_path=None)


async def test_a_place_is_free_again_a_window_after_its_answer() -> None:
    freed: list[tuple[float, Callable[[], None]]] = []
    budget = RequestBudget(2, later=lambda delay, fn: freed.append((delay, fn)))
    await budget.take()
    await budget.take()
    third = asyncio.create_task(budget.take())
    await asyncio.sleep(0)
    assert not third.done() and budget.waited == 1
    budget.done()  # (the first was answered: its place frees a window later, not now)
    await asyncio.sleep(0)
    assert not third.done() and [d for d, _ in freed] == [WINDOW]
    freed.pop()[1]()
    await asyncio.wait_for(third, 1)
    assert budget.waited == 1


async def test_only_requests_with_the_bot_token_take_a_place() -> None:
    freed: list[Callable[[], None]] = []
    budget = RequestBudget(1, later=lambda delay, fn: freed.append(fn))
    config = budget.attach(RateLimits(lambda: 0.0).trace())
    config.freeze()

    async def request(headers: dict[str, str]) -> SimpleNamespace:
        context = SimpleNamespace()
        params = aiohttp.TraceRequestStartParams("POST", URL("http://x/api/v10/channels/1/messages"),
                                                 CIMultiDict(headers))
        for handler in config.on_request_start:
            await handler(None, context, params)  # type: ignore[arg-type]
        return context

    bot = await request({"Authorization": "Bot offline"})
    for _ in range(3):  # interaction callbacks and webhooks: no bot token, no place
        await request({})
    waiting = asyncio.create_task(request({"Authorization": "Bot offline"}))
    await asyncio.sleep(0)
    assert not waiting.done()
    for handler in config.on_request_exception:
        await handler(None, bot, None)  # type: ignore[arg-type]
        await handler(None, bot, None)  # type: ignore[arg-type]  (a place is given back once)
    assert len(freed) == 1
    freed.pop()()
    await asyncio.wait_for(waiting, 1)
