"""One turn against AIs is one ping (fresh-user trial, leftover 3; ``bot.ui.notices.answered_by_ais``):
when a person's move is answered by the AI's and the game awaits them again, they get no new
thread ping and no DM turn notice; their open panel is redrawn with the decision instead
(``bot/ui/parked.py``). A person's turn that comes after another person's move still pings
(``tests/e2e/test_ops_pings_once.py``)."""

from __future__ import annotations

import random

from tests.e2e.driver import Driver
from tests.e2e.test_ai_seats import open_with_ais, settled, start


async def test_a_move_answered_by_the_ai_pings_nobody_and_redraws_the_panel(fake, make_bot, players) -> None:
    d = Driver(fake, await make_bot(ai_iterations=3))
    alice = players[0]
    game = await open_with_ais(d, alice, "illumination", 1)
    await start(d, alice, game)
    rng = random.Random(1)
    answered = 0
    for _ in range(40):
        await settled(d)
        before = await d.record(game)
        if before.status != "active" or answered >= 3:
            break
        panel = await d.open_panel(alice, game)
        mark = max(fake.messages)
        for _ in range(5):
            options = d.choices(fake.messages[int(panel["id"])])
            actions = [o for o in options if o[0] != "group"]
            await d.pick(alice, panel, rng.choice(actions or options))
            if actions:
                break
        await settled(d)
        after = await d.record(game)
        ai_moved = any(e.seat == 1 for e in await d.bot.repo.log(game, after=before.version))
        if not (ai_moved and after.status == "active" and 0 in after.waiting):
            continue
        answered += 1
        later = [m for mid, m in sorted(fake.messages.items()) if mid > mark and not m["flags"] & 64]
        assert not [m["content"] for m in later if f"<@{alice['id']}>" in m["content"]], later
        assert not [m["content"] for m in later if m["content"].startswith("🔔")], later
        shown = fake.messages[int(panel["id"])]
        assert "The game moved on" in shown["content"] and d.choices(shown), shown["content"]
    assert answered == 3
