"""Data deletion end to end (bot/ui/operator.py): ``/game forget-me`` is
refused while the user still has a seat in a running game (the games are listed), asks
before it deletes, then deletes their preferences, language, DM settings, spectator entries
and ratings and replaces their id and name in the games they are done with (finished, or
left by resigning) by the anonymous placeholder; the games keep their scores and still
replay to their snapshots (``make check``). A server the bot is removed from is purged once
``GUILD_PURGE_DAYS`` have passed, announced in the log; adding the bot back first calls the
purge off."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

from bot.check import check
from bot.storage.records import ANON_USER
from bot.text import host_sentence
from bot.ui.operator import DAY, anon_name
from tests.e2e.driver import Driver
from tests.e2e.test_table_resign import resign

JSONDict = dict[str, Any]


async def test_forget_me_asks_refuses_while_playing_and_anonymises_finished_games(
        driver: Driver, players, bot, tmp_path) -> None:
    alice, bob, carol, dave = players[:4]
    fake = driver.fake
    uid = int(bob["id"])
    done = await driver.start_game("illumination", [alice, bob])
    finished = await driver.play_to_end(done, random.Random(5))
    assert finished.status == "finished"
    outcome_before = bot.service.engine(finished).outcome(bot.service.state(finished))
    running = await driver.start_game("carnival", [bob, carol, dave])
    watched = await driver.start_game("carnival", [carol, dave])
    await fake.slash(bob, "game", "watch", game=watched, mode="end")
    await fake.slash(bob, "game", "notify", hands=False)
    await fake.slash(bob, "game", "prefs", game="heaven", settings="auto_advance=false")
    await driver.settle()
    assert await bot.repo.ratings(fake.guild_id, user_id=uid)
    assert await bot.repo.preferences(uid, "heaven")

    mark = max(fake.messages)
    await fake.slash(bob, "game", "forget-me", confirm=True)            # still seated in a running game
    await driver.settle()
    assert driver.private_to(bob, mark) == [
        "⚠️ " + host_sentence("ops.forget_playing", games=f"#{running}")]
    assert await bot.repo.preferences(uid, "heaven")                      # nothing deleted

    await resign(driver, bob, running)
    await fake.slash(bob, "game", "language", language="ja")
    await driver.settle()
    assert bot.delivery.locales.users[uid] == "ja"
    mark = max(fake.messages)
    await fake.slash(bob, "game", "forget-me")                           # no confirm: it asks first
    await driver.settle()
    assert driver.private_to(bob, mark) == [host_sentence("ops.forget_ask", "ja")]
    assert await bot.repo.preferences(uid, "heaven")

    mark = max(fake.messages)
    await fake.slash(bob, "game", "forget-me", confirm=True)
    await driver.settle()
    assert driver.private_to(bob, mark) == [host_sentence("ops.forget_done", "ja", games=2)]
    assert not await bot.repo.preferences(uid, "heaven")
    assert not await bot.repo.ratings(fake.guild_id, user_id=uid)
    assert not await bot.repo.watchers(watched)
    assert uid not in bot.delivery.locales.users
    for game in (done, running):
        record = await driver.record(game)
        assert all(s.user_id != uid for s in record.seats)
        (seat,) = [s for s in record.seats if s.user_id == ANON_USER]
        assert seat.name == anon_name(seat.seat)
        entries = await bot.repo.log(game)
        assert all(e.user_id != uid for e in entries)
        assert all(uid not in (e.action.get(k) for k in ("user", "old_user", "new_user")) for e in entries)
        assert any(e.user_id == ANON_USER for e in entries)             # their moves are kept, anonymous
    (resigned,) = [e for e in await bot.repo.log(running) if e.action.get("type") == "resign"]
    assert resigned.action["user"] == ANON_USER and resigned.user_id == ANON_USER
    record = await driver.record(done)
    assert record.status == "finished" and record.version == finished.version
    assert bot.service.engine(record).outcome(bot.service.state(record)) == outcome_before
    assert await bot.service.replay_matches(done) and await bot.service.replay_matches(running)
    assert int(alice["id"]) in {s.user_id for s in record.seats}           # the others are untouched
    await driver.play_to_end(running, random.Random(6))                   # the game goes on without them
    assert (await driver.record(running)).status == "finished"
    assert await check(str(tmp_path / "games.db")) == (3, [])


@pytest.mark.parametrize("back", [False, True])
async def test_a_server_the_bot_left_is_purged_after_the_grace_period_unless_it_comes_back(
        driver: Driver, players, bot, caplog, back: bool) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    beta = fake.add_guild("Beta", owner_name="zed")
    zed = beta.owner
    yan = await beta.add_member("yan")
    await driver.settle()
    ours = await driver.start_game("carnival", [alice, bob])
    theirs = await driver.start_game("carnival", [zed, yan], channel=beta.channel)
    await bot.repo.set_quiet_hours(beta.id, (22 * 60, 7 * 60, "UTC"))
    caplog.set_level(logging.INFO, logger="bot.ui.operator")
    await fake.remove_bot(beta)
    await driver.settle()
    assert [g for g, _, _ in await bot.repo.guild_purges()] == [beta.id]
    assert "removed from server" in caplog.text
    if back:
        await fake.add_bot_back(beta)
        await driver.settle()
        assert not await bot.repo.guild_purges()
        assert "purge is cancelled" in caplog.text
    assert await bot.operator.purge_due(fake.now() + 29 * DAY) == []       # GUILD_PURGE_DAYS=30: not yet
    assert (await driver.record(theirs)).status == "active"
    purged = await bot.operator.purge_due(fake.now() + 30 * DAY + 1)
    if back:
        assert purged == [] and (await driver.record(theirs)).status == "active"
        return
    assert purged == [beta.id]
    assert f"purged the data of server {beta.id}" in caplog.text
    assert not await bot.repo.games(status=("lobby", "active", "finished", "abandoned"), channel_id=int(beta.channel["id"]))
    assert await bot.repo.count_actions(theirs) == 0 and not await bot.repo.outbox(theirs)
    assert await bot.repo.quiet_hours(beta.id) is None and not await bot.repo.guild_purges()
    assert (await driver.record(ours)).status == "active"                   # the other server keeps its games
