"""A ping only when who is awaited changes, in every
game: over a whole game of random moves by clicks, with every player away (each gets DM turn
notices), each move pings in the thread, and DMs a turn notice to, exactly the players the game
newly waits for (waiting now, not before: ``bot.service.plan_deliveries``), nobody else and
nobody twice; Heaven's simultaneous steps and the reaction windows of Carnival and E Guan
included, wherever the random game goes."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from engines.registry import ENGINES
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]

MOVES = 120
"""Moves played per game at most (the games' random ends come sooner for most)."""


def notices_after(fake: FakeDiscord, mark: int) -> list[str]:
    """User ids of the DM turn notices (🔔) posted after message id ``mark``, one per notice."""
    return [uid for uid, ch in fake.dm_channels.items()
            for m in fake.channel_messages(ch["id"], ephemeral=False)
            if int(m["id"]) > mark and m["content"].startswith("🔔")]


def pings_after(fake: FakeDiscord, channel: int, mark: int) -> list[set[str]]:
    """The users mentioned by each thread ping (a message with Play ▶) after message id ``mark``."""
    return [set(re.findall(r"<@(\d+)>", m["content"].split("\n")[0]))
            for m in fake.channel_messages(channel, ephemeral=False)
            if int(m["id"]) > mark and any(c.get("custom_id", "").endswith(":play")
                                           for c in iter_components(m["components"]))
            and not m["embeds"]]


@pytest.mark.parametrize("game_id", sorted(ENGINES))
async def test_each_move_pings_exactly_the_newly_awaited(
        game_id: str, make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord,
        players: list[JSONDict]) -> None:
    bot = await make_bot(dm_away_seconds=0, lean_requests=True)
    driver = Driver(fake, bot)
    info = ENGINES[game_id].info
    seats = max(info.min_players, min(info.max_players, 3))
    game = await driver.start_game(game_id, players[:seats])
    await driver.delivered()
    rng = random.Random(11)
    changes = 0
    async for before, after, mark in driver.random_moves(game, rng, MOVES):
        # (as bot.service.plan_deliveries: a seat whose decision was made for it in the change, a
        # pre-set answer or a timeout, counts as newly awaited when the game waits for it again; a
        # move the host made by the player's own preference right after their move, Illumination's
        # D41 discard or D42 End turn, is theirs: their panel redraws in place, bot/ui/notices.py)
        entries = await bot.repo.log(game, after=before.version)
        automatic = {e.seat for e in entries if e.kind == "player" and e.user_id is None and e.seat is not None
                     and not (e.events and e.events[0].get("kind") == "auto")}
        still = set(before.waiting) - automatic
        fresh = set() if after.status != "active" else \
            {str(after.user_of(s)) for s in set(after.waiting) - still}
        changes += bool(fresh)
        assert sorted(notices_after(fake, mark)) == sorted(fresh), (before.version, after.version)
        pings = pings_after(fake, after.home_channel_id, mark)
        assert pings == ([fresh] if fresh else []), (before.version, after.version)
    final = await driver.record(game)
    # (every move was checked; a random game that ended soon had few changes of who is awaited)
    assert changes > 3 or (final.status == "finished" and changes >= 1), (changes, final.status, final.version)
