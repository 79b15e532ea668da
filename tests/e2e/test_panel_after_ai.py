"""A player's open panel after the AI moves (bot/ui/parked.py): the panel that said
"Waiting for …" after the player's pick is redrawn with their decision when the AI's moves
bring the turn back to them, through the offline Discord; and that redraw is their notice:
no new thread ping and no DM turn notice for a turn the AI handed straight back (Carnival's
Pride picks against an AI must not ping once a die)."""

from __future__ import annotations

import random

from tests.e2e.driver import Driver
from tests.e2e.test_ai_seats import open_with_ais, settled, start


async def test_a_waiting_panel_offers_the_players_decision_once_the_ai_has_moved(fake, make_bot, players) -> None:
    d = Driver(fake, await make_bot(ai_iterations=3))
    alice = players[0]
    rng = random.Random(3)
    game = await open_with_ais(d, alice, "illumination", 1)
    await start(d, alice, game)
    redrawn = 0
    for _ in range(40):
        await settled(d)
        record = await d.record(game)
        if record.status != "active" or redrawn >= 2:
            break
        panel = await d.open_panel(alice, game)
        mark = max(fake.messages)
        for _ in range(5):
            options = d.choices(fake.messages[int(panel["id"])])
            actions = [o for o in options if o[0] != "group"]
            picked = (await d.record(game)).version
            await d.pick(alice, panel, rng.choice(actions or options))
            if actions:
                break
        await settled(d)
        record = await d.record(game)
        ai_moved = any(e.kind == "player" and e.seat == 1 for e in await d.bot.repo.log(game, after=picked))
        if ai_moved and 0 in d.bot.service.waiting(record):
            shown = fake.messages[int(panel["id"])]
            assert "Waiting for" not in shown["content"], shown["content"]
            assert "The game moved on" in shown["content"] and d.choices(shown)
            # (and no ping: the redrawn panel is the notice; bot.ui.notices.answered_by_ais)
            later = [m["content"] for mid, m in sorted(fake.messages.items()) if mid > mark and not m["flags"] & 64]
            assert not [c for c in later if f"<@{alice['id']}>" in c or c.startswith("🔔")], later
            redrawn += 1
    assert redrawn == 2
