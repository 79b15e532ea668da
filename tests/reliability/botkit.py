"""Shared pieces of the outbox, order and storage-fault tests: an in-process bot on a
temporary database against the offline Discord, a two-player Carnival started by
clicks, and a typed legal move of a waiting player."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
from bot.settings import Settings
from engines.base import CHANCE
from engines.registry import notation_of
from tests.e2e.driver import Driver

JSON = dict[str, Any]


async def start_bot(fake: FakeDiscord, db: Path) -> GameBot:
    """A bot on ``db`` with the fake's clock, connected and ready."""
    bot = GameBot(Settings(database_path=str(db), token="offline", tick_seconds=3600), clock=fake.now)
    await fake.start_bot(bot)
    return bot


async def legal_text(bot: GameBot, game: int, rng: random.Random, seat: int | None = None) -> tuple[int, str]:
    """(user id, notation) of a random legal move of a waiting seat (``seat`` if given)."""
    record = await bot.service.get(game)
    engine = bot.service.engine(record)
    state = bot.service.state(record)
    if seat is None:
        seat = rng.choice(sorted(engine.to_move(state) - {CHANCE}))
    action = rng.choice(list(engine.legal_actions(state, seat)))
    user = record.user_of(seat)
    assert user is not None
    return user, notation_of(engine).describe_action(state, action)


def member(fake: FakeDiscord, user_id: int) -> JSON:
    """The fake member payload of ``user_id``."""
    return next(m for m in fake.members if m["id"] == str(user_id))


async def carnival(driver: Driver, players: list[JSON]) -> int:
    """A started Carnival of ``players``; returns its number."""
    return await driver.start_game("carnival", players)


@contextlib.asynccontextmanager
async def checked_fake(*, errors: bool = True) -> AsyncIterator[FakeDiscord]:
    """The offline Discord; on exit: no payload Discord would refuse, no interaction left
    unanswered and (``errors``) no ERROR log line."""
    async with FakeDiscord(owner_name="alice") as fd:
        yield fd
        if errors:
            assert not fd.errors.records, [r.getMessage() for r in fd.errors.records]
        assert not fd.violations, fd.violations
        assert not fd.unacked()


async def two_player_game(fake: FakeDiscord, db: Path) -> tuple[GameBot, Driver, int]:
    """A bot on ``db`` and a started two-player Carnival of alice and bob."""
    bot = await start_bot(fake, db)
    bob = await fake.add_member("bob")
    driver = Driver(fake, bot)
    return bot, driver, await carnival(driver, [fake.owner, bob])
