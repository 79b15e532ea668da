"""Panels after an undo and after the end: a panel
redrawn after ``/game undo`` shows the state after the undo only (no "You picked …" of the
pick taken back), and a panel redrawn after the game's last move says the game is over and
offers nothing to press, also when a moderator ends the game."""

from __future__ import annotations

import random

from tests.e2e.driver import Driver
from tests.e2e.test_table_undo import pick_first


async def test_carnival_panel_after_slash_undo_shows_no_taken_back_pick(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    panel = await pick_first(driver, bob, await driver.open_panel(bob, game))
    assert "🔒 You picked" in panel["content"], panel["content"]      # (the pick's private line)
    await fake.slash(bob, "game", "undo", game=game)
    await driver.settle()
    redrawn = fake.messages[int(panel["id"])]["content"]
    assert redrawn.splitlines() == ["*(The game moved on; here is the current position.)*",
                                    "**Choose your sin for round 1.**",
                                    f"*Carnival of Sins (罪のカーニバル) #{game} · you are seat B*"], redrawn


async def test_a_waiting_panel_says_the_game_is_over_after_the_others_last_move(driver: Driver, players) -> None:
    fake = driver.fake
    alice, bob = players[:2]
    rng = random.Random(5)
    game = await driver.start_game("illumination", [alice, bob])
    panels: dict[str, dict] = {}
    mover = ""
    for _ in range(600):
        record = await driver.record(game)
        if record.status != "active":
            break
        user = (await driver.waiting_users(game))[0]
        mover = user["id"]
        panel = panels[mover] = await driver.open_panel(user, game)
        await driver.decide(user, panel, rng)
        await driver.settle()
    else:
        raise AssertionError("the game did not end")
    other = next(uid for uid in panels if uid != mover)   # (their panel waited for the last mover)
    for uid in (mover, other):
        shown = fake.messages[int(panels[uid]["id"])]
        assert shown["content"].splitlines()[-1] == "The game is over.", (uid == mover, shown["content"])
        assert not shown.get("components"), shown


async def test_a_waiting_panel_says_the_game_is_over_when_a_moderator_ends_it(driver: Driver, players) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    panel = await pick_first(driver, bob, await driver.open_panel(bob, game))   # (waits for the others)
    assert panel.get("components"), panel
    await fake.slash(alice, "game", "mod", "end", game=game, reason="closing time")
    await driver.settle()
    assert (await driver.record(game)).status == "abandoned"
    shown = fake.messages[int(panel["id"])]
    assert shown["content"].splitlines()[-1] == "The game is over.", shown["content"]
    assert not shown.get("components"), shown
