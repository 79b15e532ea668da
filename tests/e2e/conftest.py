"""Fixtures for end-to-end tests: the offline Discord, bots on a temporary database,
players, and a driver that clicks like people do."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.app import GameBot
from bot.sandbox import fakecord
from bot.sandbox.fakecord import FakeDiscord
from bot.settings import Settings
from tests.discord_openapi import OpenAPICheck, discord_api
from tests.e2e.driver import Driver


@pytest.fixture(autouse=True)
def openapi_checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAPICheck]:
    """Every REST request of every test here, to any fake, validated against Discord's OpenAPI
    description (tests/discord_openapi.py); the test fails on any departure, each listed."""
    check = OpenAPICheck(discord_api())
    monkeypatch.setattr(fakecord, "REQUEST_CHECKS", [check])
    yield check
    assert not check.found, "requests Discord's OpenAPI description does not allow:\n" + "\n".join(check.found)


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(owner_name="alice") as fd:
        yield fd
        assert not fd.errors.records, [r.getMessage() for r in fd.errors.records]
        assert not fd.violations, fd.violations
        assert not fd.unacked(), "interactions left unanswered"


@pytest_asyncio.fixture
async def make_bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[GameBot]]]:
    running: list[GameBot] = []

    async def make(db: Path | None = None, **settings: Any) -> GameBot:
        # (every DM sent and every line and ping posted, the plain ways; test_ops_budget.py: the lean ways)
        settings.setdefault("dm_away_seconds", 0)
        settings.setdefault("lean_requests", False)
        conf = Settings(database_path=str(db or tmp_path / "games.db"), token="offline",
                        tick_seconds=3600, **settings)
        bot = GameBot(conf, clock=fake.now)
        await fake.start_bot(bot)
        running.append(bot)
        return bot

    yield make
    for bot in running:
        if not bot.is_closed():
            await fake.stop_bot(bot)


@pytest_asyncio.fixture
async def bot(make_bot: Callable[..., Awaitable[GameBot]]) -> GameBot:
    return await make_bot()


@pytest_asyncio.fixture
async def players(fake: FakeDiscord) -> list[dict[str, Any]]:
    """alice (owner and moderator), bob, carol, dave, erin, frank."""
    return [fake.owner] + [await fake.add_member(n) for n in ("bob", "carol", "dave", "erin", "frank")]


@pytest_asyncio.fixture
async def driver(fake: FakeDiscord, bot: GameBot) -> Driver:
    return Driver(fake, bot)
