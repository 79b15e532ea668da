"""Notices through the outbox (migration 010): a moderator's announcement
is queued in the transaction of its change (a ``notice`` row) and a reminder with its claim
(a ``ping`` row with ``reminder``), so a crash after the commit neither loses them (the next
start sends them) nor doubles them (a row sent just before the crash is sent again with the
same nonce, and Discord keeps one message; one that went out as an interaction follow-up,
which carries no nonce, is looked for in the channel first). On both backends (the PostgreSQL migration
changes the CHECK in place)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bot.outbox import typed
from bot.sandbox.fakecord import FakeDiscord
from bot.service import notice_payload
from bot.text import host_sentence
from engines.base import Msg
from tests.e2e.driver import Driver
from tests.reliability.botkit import checked_fake, legal_text, start_bot, two_player_game


@pytest.fixture
async def fake():
    async with checked_fake() as fd:
        yield fd


def posted(fake: FakeDiscord, channel: int, text: str) -> int:
    return sum(m["content"] == text for m in fake.channel_messages(channel, ephemeral=False))


async def test_a_moderators_notice_survives_a_crash_and_is_posted_once(fake: FakeDiscord, database_url: str) -> None:
    bot1, _, game = await two_player_game(fake, database_url)
    mod = int(fake.owner["id"])
    paused = Msg("ui.moderation.paused", {"game": game, "user": mod})
    await bot1.service.set_paused(game, True, mod, notice_payload(paused))   # committed; then the bot "crashed"
    record = await bot1.service.get(game)
    (row,) = [r for r in await bot1.repo.pending(game) if r.kind == "notice"]
    assert row.version == record.version and row.payload == {"msgs": [[paused.key, dict(paused.params)]],
                                                             "mentions": []}
    text = host_sentence(paused.key, **paused.params)
    assert posted(fake, record.home_channel_id, text) == 0
    await bot1.outbox._deliver(record, typed(row))         # sent, and the crash came before it was marked
    await fake.stop_bot(bot1)

    bot2 = await start_bot(fake, database_url)
    await Driver(fake, bot2).settle()
    assert await bot2.repo.pending(game) == []
    assert posted(fake, record.home_channel_id, text) == 1 and fake.nonce_hits == 1
    ended = Msg("ui.moderation.ended", {"game": game, "user": mod})
    await bot2.service.end(game, mod, "", notice_payload(ended, Msg("ui.moderation.reason", {"reason": "spam"})))
    await fake.stop_bot(bot2)                                # the end's notice was never sent

    bot3 = await start_bot(fake, database_url)
    await Driver(fake, bot3).settle()
    both = host_sentence(ended.key, **ended.params) + host_sentence("ui.moderation.reason", reason="spam")
    assert posted(fake, record.home_channel_id, both) == 1
    assert (await bot3.service.get(game)).status == "abandoned" and await bot3.repo.pending(game) == []
    await fake.stop_bot(bot3)


async def test_a_reminder_is_claimed_with_its_row_and_sent_once(fake: FakeDiscord, database_url: str) -> None:
    bot1, _, game = await two_player_game(fake, database_url)
    record = await bot1.service.get(game)
    assert await bot1.repo.claim_reminder(game, record.version, 1, record.waiting)
    assert not await bot1.repo.claim_reminder(game, record.version, 1, record.waiting)  # claimed once
    (row,) = [r for r in await bot1.repo.pending(game) if r.kind == "ping"]
    assert row.payload == {"seats": sorted(record.waiting), "reminder": 1}
    await fake.stop_bot(bot1)                                # the crash: claimed, not sent

    bot2 = await start_bot(fake, database_url)
    await Driver(fake, bot2).settle()
    reminders = [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False)
                 if m["content"].startswith("⏰")]
    assert len(reminders) == 1 and all(f"<@{record.user_of(s)}>" in reminders[0]["content"] for s in record.waiting)
    assert await bot2.repo.pending(game) == []
    await fake.stop_bot(bot2)


async def test_a_reminder_of_a_version_that_moved_on_is_not_sent(fake: FakeDiscord, database_url: str) -> None:
    bot, driver, game = await two_player_game(fake, database_url)
    record = await bot.service.get(game)
    assert await bot.repo.claim_reminder(game, record.version, 1, record.waiting)
    await driver.play_once(game, random.Random(3))           # a move first: its flush finds the old reminder
    await driver.settle()
    assert not [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False)
                if m["content"].startswith("⏰")]
    assert await bot.repo.pending(game) == []
    await fake.stop_bot(bot)


async def test_a_ping_that_went_out_as_a_follow_up_before_a_crash_is_not_posted_again(
        fake: FakeDiscord, database_url: str) -> None:
    bot1, _, game = await two_player_game(fake, database_url)
    rng = random.Random(5)
    for _ in range(50):                                      # moves until one waits for someone new
        user, text = await legal_text(bot1, game, rng)
        await bot1.service.act(game, user, text)             # committed; then only its ping goes out:
        rows = [r for r in await bot1.repo.pending(game) if r.kind == "ping" and r.payload["seats"]]
        if rows:
            break
        await bot1.outbox.flush(game)
    record = await bot1.service.get(game)
    (row,) = rows
    before = len(fake.channel_messages(record.home_channel_id, ephemeral=False))
    await bot1.outbox._deliver(record, typed(dataclasses.replace(row, nonce=None)))  # (as a follow-up: no nonce)
    (ping,) = fake.channel_messages(record.home_channel_id, ephemeral=False)[before:]
    await fake.stop_bot(bot1)                                # the crash, before the row was marked
    fake.advance(5)

    bot2 = await start_bot(fake, database_url)
    await Driver(fake, bot2).settle()
    assert await bot2.repo.pending(game) == []
    assert posted(fake, record.home_channel_id, ping["content"]) == 1
    assert any(r.method == "GET" and r.path == f"/channels/{record.home_channel_id}/messages" for r in fake.requests)
    await fake.stop_bot(bot2)
