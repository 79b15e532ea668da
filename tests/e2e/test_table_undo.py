"""Undo end to end (docs/DESIGN.md §4 strict policy): the panel after a
move offers Undo only while it is allowed; pressing it appends an ``undo`` entry (the log
keeps the undone action), rebuilds the state by replay without it and tells the table; it
is refused once someone else acted; Ora et Labora (docs/rules/ora.md §5.7) undoes several
own actions in a row."""

from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]
SEED = 20261201


def undo_button(panel: JSONDict) -> str | None:
    """The custom id of the panel's Undo button, if it shows one."""
    return next((c["custom_id"] for c in iter_components(panel.get("components") or [])
                 if c.get("custom_id", "").startswith("t:") and c["custom_id"].endswith(":undo")), None)


async def pick_first(driver: Driver, user: JSONDict, panel: JSONDict) -> JSONDict:
    """Pick the first action of ``panel`` (stepping into the first step when it has only
    steps); returns the panel as it is after the move."""
    for _ in range(5):
        panel = driver.fake.messages[int(panel["id"])]
        options = driver.choices(panel)
        actions = [o for o in options if o[0] != "group"]
        await driver.pick(user, panel, (actions or options)[0])
        if actions:
            return driver.fake.messages[int(panel["id"])]
    raise AssertionError("panel never offered an action")


def private_to(driver: Driver, user: JSONDict, after: int) -> list[str]:
    fake = driver.fake
    return [m["content"] for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


async def test_carnival_undo_of_a_secret_pick_until_someone_else_acts(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    before = await driver.record(game)
    panel = await pick_first(driver, bob, await driver.open_panel(bob, game))
    undo = undo_button(panel)
    assert undo is not None, panel["content"]
    reopened = await driver.open_panel(bob, game)  # (Play ▶ again: the new panel offers it too)
    assert undo_button(reopened) is not None, reopened["content"]
    picked = await driver.record(game)
    assert picked.version == before.version + 1 and picked.state != before.state
    last = max(fake.messages)
    await fake.click(bob, panel, undo)
    await driver.settle()
    undone = await driver.record(game)
    log = await bot.repo.log(game)
    assert log[-1].kind == "system" and log[-1].action == {"type": "undo", "seqs": [picked.version]}
    assert log[-1].user_id == int(bob["id"])
    assert log[-2].seq == picked.version and log[-2].kind == "player"      # the log keeps the undone move
    assert undone.version == picked.version + 1
    assert undone.state == before.state                                   # the state before the pick
    assert undone.deadline == before.deadline                             # the clock was not restarted
    assert await bot.service.replay_matches(game)
    public = [m["content"] for m in driver.public_messages() if int(m["id"]) > last]
    assert any("bob took back their last action." in t for t in public), public
    assert "You took back your last action." in fake.messages[int(panel["id"])]["content"]
    # bob picks again; alice picks after him: now bob may no longer undo
    panel = await pick_first(driver, bob, await driver.open_panel(bob, game))
    assert undo_button(panel) is not None
    await pick_first(driver, alice, await driver.open_panel(alice, game))
    assert undo_button(fake.messages[int(panel["id"])]) is not None   # (the old panel still shows it)
    mark = max(fake.messages)
    count = await bot.repo.count_actions(game)
    await fake.click(bob, fake.messages[int(panel["id"])], undo_button(fake.messages[int(panel["id"])]) or "")
    await driver.settle()
    await fake.slash(bob, "game", "undo", game=game)
    await driver.settle()
    told = private_to(driver, bob, mark)
    assert len(told) == 2 and "moved on" in told[0] and "cannot undo" in told[1], told
    assert await bot.repo.count_actions(game) == count
    # the log shows the undo, the taken-back line struck through
    await fake.slash(bob, "game", "log", game=game)
    await driver.settle()
    shown = "\n".join(private_to(driver, bob, mark))
    assert "bob took back their last action." in shown and "~~" in shown


async def test_carnival_a_pick_that_reveals_another_card_offers_no_undo(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    # cards are revealed clockwise from the Devil holder (docs/rules/carnival.md R3): the
    # first in that order picks first, so the other's last pick turns that hidden card up
    order = bot.service.engine(record).player_view(bot.service.state(record), None)["order"]
    first, last = (next(p for p in (alice, bob) if p["id"] == str(record.user_of(s))) for s in order)
    await pick_first(driver, first, await driver.open_panel(first, game))
    panel = await pick_first(driver, last, await driver.open_panel(last, game))
    assert undo_button(panel) is None, panel["content"]
    record = await driver.record(game)
    assert not await bot.service.can_undo(record, int(last["id"]))
    # and for the reason named: the pick itself turned the other's card up
    log = await bot.repo.log(game)
    pick = next(e for e in reversed(log) if e.kind == "player")
    engine = bot.service.engine(record)
    before = bot.service._replay(record, [e for e in log if e.seq < pick.seq])
    assert before is not None and pick.seat is not None
    after, _ = engine.apply(before, pick.seat, pick.action)
    assert engine.reveals(before, pick.seat, pick.action, after)


async def test_ora_undoes_several_own_actions_in_a_row(driver: Driver, players, bot,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.service.new_seed", lambda: SEED)          # (a fixed start player)
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("ora", [alice, bob])
    # play first choices until a player has made two undoable actions in a row
    history: list[tuple[str, dict[str, Any] | None]] = []
    panel: JSONDict | None = None
    for _ in range(60):
        user = (await driver.waiting_users(game))[0]
        state = (await driver.record(game)).state
        panel = await pick_first(driver, user, await driver.open_panel(user, game))
        history = [*history, (user["id"], state)] if undo_button(panel) else []
        if len(history) >= 2 and history[-1][0] == history[-2][0] == user["id"]:
            break
    else:
        raise AssertionError("no two undoable actions in a row")
    assert panel is not None
    mover = next(p for p in players if p["id"] == history[-1][0])
    first = await driver.record(game)
    await fake.click(mover, panel, undo_button(panel) or "")
    await driver.settle()
    panel = fake.messages[int(panel["id"])]
    assert (await driver.record(game)).state == history[-1][1]
    again = undo_button(panel)
    assert again is not None, panel["content"]                       # a second undo is offered
    await fake.click(mover, panel, again)
    await driver.settle()
    record = await driver.record(game)
    assert record.state == history[-2][1]
    assert record.version == first.version + 2
    undos = [e for e in await bot.repo.log(game) if e.kind == "system" and e.action["type"] == "undo"]
    assert [u.action["seqs"] for u in undos] == [[first.version], [first.version - 1]]
    assert await bot.service.replay_matches(game)
    assert record.seat_of(int(mover["id"])) in bot.service.waiting(record)


async def test_ora_undo_shows_the_decision_picture_of_the_decision_it_goes_back_to(
        driver: Driver, players, bot, monkeypatch: pytest.MonkeyPatch) -> None:
    """After Cloister Office's coin Alice's panel carries the picture of her landscape's slots
    (the districts she may buy, by number). Undo goes back to Cloister Office's own choice,
    which has no picture: the panel drops it (an edit that names no attachments keeps them);
    a second Undo goes back to the main action, whose panel has its picture again, as Play ▶
    would show it."""
    from tests.e2e.test_ora_e2e import choose

    monkeypatch.setattr("bot.service.new_seed", lambda: SEED)
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("ora", [alice, bob], options={"options": "start_player=host"})
    panel = await choose(driver, alice, game, lambda label: "Cloister Office" in label and "prior" in label)
    panel = await choose(driver, alice, game, lambda label: "Coin" in label and "joker" not in label, panel)
    assert len(panel["attachments"]) == 1 and "🖼" in panel["content"], panel["content"]
    await fake.click(alice, panel, undo_button(panel) or "")
    await driver.settle()
    panel = fake.messages[int(panel["id"])]
    assert "Cloister Office, part 1" in panel["content"]
    fresh = await driver.open_panel(alice, game)
    assert fresh["attachments"] == []
    assert panel["attachments"] == []
    assert "🖼" not in panel["content"]
    await fake.click(alice, panel, undo_button(panel) or "")
    await driver.settle()
    panel = fake.messages[int(panel["id"])]
    fresh = await driver.open_panel(alice, game)
    assert "choose your main action" in fresh["content"] and len(fresh["attachments"]) == 1
    assert "choose your main action" in panel["content"]
    assert [a["filename"] for a in panel["attachments"]] == [a["filename"] for a in fresh["attachments"]]
    assert fake.image_bytes(panel["attachments"][0]) == fake.image_bytes(fresh["attachments"][0])
