"""A player's parked panel ("Nothing for you to decide right now. Waiting for …") is redrawn
when the turn moves on to a seat it did not name, while its own seat is still not awaited
(bot/ui/parked.py: not "Waiting for **Bot · Easy**" after the AI has
moved and the board waits for @alice)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
from tests.e2e.driver import Driver
from tests.e2e.test_ai_seats import open_with_ais, settled, start

JSONDict = dict[str, Any]


async def test_a_waiting_panel_names_whoever_the_game_waits_for_now(
        fake: FakeDiscord, make_bot: Callable[..., Awaitable[GameBot]], players: list[JSONDict]) -> None:
    d = Driver(fake, await make_bot(ai_iterations=3))
    alice, bob, carol = players[:3]
    game = await open_with_ais(d, alice, "carnival", 1)
    lobby = fake.messages[(await d.record(game)).lobby_message_id or 0]
    for user in (bob, carol):
        await fake.click(user, lobby, f"l:{game}:join")
        await settled(d)
    await start(d, alice, game)
    rng = random.Random(7)
    newest: dict[str, int] = {}  # (user id → their newest panel: it replaces the one parked before)
    checked = 0
    for _ in range(60):
        record = await d.record(game)
        if record.status != "active":
            break
        user = rng.choice(await d.waiting_users(game))
        panel = await d.open_panel(user, game)
        newest[user["id"]] = int(panel["id"])
        await d.decide(user, panel, rng)
        await settled(d)
        record = await d.record(game)
        waiting = d.bot.service.waiting(record)
        for uid, mid in newest.items():
            shown = fake.messages[mid]["content"]
            if record.status != "active" or "Waiting for" not in shown or record.seat_of(int(uid)) in waiting:
                continue
            for seat in waiting:
                holder = record.user_of(seat) or 0
                assert (f"<@{holder}>" if holder > 0 else "Bot · Easy") in shown, (seat, shown)
            checked += 1
    assert checked >= 5  # (the game's seed differs run to run: 8 to 20 checks in 40 moves seen)
