"""``/game log`` after ``/game mod replace`` (docs/DESIGN.md §4 "A
seat's private lines"): the new holder takes over the seat and its hand, so they read the
seat's private lines from before the replace (the engine's events visible to the seat), but
not the host's personal notes to the old holder ("Played for you: …", "Your preset answer
was played: …"); the old holder, no longer seated, reads the public lines only."""

from __future__ import annotations

from bot.storage import LogEntry, SeatRecord
from bot.ui.notices import holders, sees
from tests.bot.test_pings_against_ais import table
from tests.e2e.driver import Driver


async def test_the_new_holder_reads_the_seats_private_lines_but_not_the_old_holders_notes(
        driver: Driver, players, bot) -> None:
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob, dave])
    for user in (alice, dave):
        await fake.slash(user, "carnival", "play", action="greed")
        await driver.settle()
    record = await driver.record(game)
    assert record.deadline is not None
    fake.advance(record.deadline - fake.now() + 1)
    await bot.flow.tick()                                           # bob's pick is played for him
    await driver.delivered()
    seat = (await driver.record(game)).seat_of(int(bob["id"]))
    timed_out = next(e for e in await bot.repo.log(game) if e.kind == "player" and e.user_id is None)
    kinds = {ev["kind"]: ev for ev in timed_out.events}
    assert kinds["timeout_move"]["visible_to"] == [seat]                 # the host's note to bob
    drawn = [ev for e in await bot.repo.log(game) for ev in e.events if ev["kind"] == "pick_random"]
    assert [ev["visible_to"] for ev in drawn] == [[seat]]                  # the engine's: the seat's secret
    before = await driver.log_lines(bob, game)
    note = next(line for line in before if line.startswith("🔒 Played for you:"))
    picked = next(line for line in before if line.startswith("🔒 ") and "picked for you at random" in line)
    await fake.slash(alice, "game", "mod", "replace", game=game, player=bob, member=carol)
    await driver.settle()
    after = await driver.log_lines(carol, game)
    assert picked in after                                  # the seat's own secret: carol holds it now
    assert note not in after and not any(line.startswith("🔒 Played for you") for line in after), after
    old = await driver.log_lines(bob, game)                 # bob holds no seat: the public lines only
    assert not any(line.startswith("🔒") for line in old), old


def test_holders_follow_replaces_and_kicks_but_not_autopilot() -> None:
    record = table(SeatRecord(1, 0, 111, "alice"), SeatRecord(1, 1, 333, "carol"))
    entries = [LogEntry(1, "player", 1, {}),
               LogEntry(2, "system", None, {"type": "ai_seat", "seat": 1, "level": "easy", "old_user": 222}),
               LogEntry(3, "player", 1, {}),
               LogEntry(4, "system", None, {"type": "replace", "seat": 1, "old_user": 222, "new_user": 333}),
               LogEntry(5, "player", 1, {})]
    assert holders(record, entries, 1) == {1: 222, 2: 222, 3: 222, 4: 333, 5: 333}
    assert holders(record, entries, 0) == {1: 111, 2: 111, 3: 111, 4: 111, 5: 111}
    secret = {"kind": "pick", "visible_to": [1]}
    personal = {"kind": "auto", "visible_to": [1]}
    assert sees(secret, 1, 333, 222) and sees(personal, 1, 333, 333) and not sees(personal, 1, 333, 222)
    assert sees({"kind": "pick", "visible_to": None}, None, None, None) and not sees(secret, None, 222, 222)
    assert not sees(secret, 0, 111, 111)
