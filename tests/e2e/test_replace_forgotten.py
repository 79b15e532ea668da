"""A seat whose player resigned and then used ``/game forget-me`` (user id 0, the anonymous
placeholder name) handed to someone else by a moderator: the public notice and the
moderator's answer name the placeholder (``#B``), never a mention of user 0 (``<@0>``)."""

from __future__ import annotations

from bot.sandbox.fakecord import EPHEMERAL
from tests.e2e.driver import Driver
from tests.e2e.test_table_resign import resign


async def test_replacing_an_anonymised_seat_names_its_placeholder(driver: Driver, players, bot) -> None:
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, carol])
    await resign(driver, bob, game)
    await fake.slash(bob, "game", "forget-me", confirm=True)
    await driver.settle()
    record = await driver.record(game)
    (seat,) = [s for s in record.seats if s.user_id == 0]
    mark = max(fake.messages)
    await fake.slash(alice, "game", "mod", "replace", game=game, seat="ABCDE"[seat.seat], member=dave)
    await driver.settle()
    said = [m for mid, m in sorted(fake.messages.items()) if mid > mark and "now belongs to" in (m.get("content") or "")]
    assert len(said) == 2 and {bool(m.get("flags", 0) & EPHEMERAL) for m in said} == {True, False}, said
    for m in said:
        assert "<@0>" not in m["content"] and f"(was \\{seat.name})" in m["content"], m["content"]
    assert (await driver.record(game)).seat_of(int(dave["id"])) == seat.seat
