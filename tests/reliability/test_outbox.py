"""The outbox (trust issue, point 2; docs/DESIGN.md §4), in process: what a move queues,
delivery at start of what a crash left, coalesced board rows, the answer of a typed
move after its token expired, a failed delivery tried again, Discord's nonce, and the
migration on the old database. The SIGKILL trials with a real subprocess are in
test_sigkill.py."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

import bot.service
from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.service import plan_deliveries
from bot.settings import Settings
from bot.storage import OutboxItem, Repository, migrations
from bot.ui.presence import BOARD_SCROLL
from engines.base import Event, Outcome
from tests.e2e.driver import Driver
from tests.reliability.botkit import carnival, checked_fake, legal_text, start_bot, two_player_game

FIXTURE = Path(__file__).parent.parent / "fixtures" / "pre_shape_v1.db"


@pytest.fixture
async def fake():
    async with checked_fake() as fd:
        yield fd


def board_version(fake: FakeDiscord, message_id: int) -> set[int]:
    return {int(c["custom_id"].split(":")[2]) for c in iter_components(fake.messages[message_id]["components"])
            if re.fullmatch(r"g:\d+:\d+:\w+", c.get("custom_id", ""))}


def pings(fake: FakeDiscord, channel: int) -> list[str]:
    return [m["content"] for m in fake.channel_messages(channel, ephemeral=False)
            if not m["embeds"] and m["components"] and "<@" in m["content"]]


def test_a_move_queues_lines_board_ping_and_answer_in_that_order() -> None:
    public, secret = Event("x", params={}), Event("y", params={}, visible_to=frozenset({0}))
    items = plan_deliveries(4, 5, [public, secret], frozenset({0}), frozenset({1}), None, True, {"token": "t"})
    assert [(i.kind, i.version, i.payload) for i in items] == [
        ("lines", 5, {"after": 4}), ("board", 5, {}), ("ping", 5, {"seats": [1], "after": 4}),
        ("answer", 5, {"token": "t", "after": 4})]
    # a seat whose decision was made for it (a timeout) and that decides again is pinged
    items = plan_deliveries(4, 5, [public], frozenset({0, 1}), frozenset({0, 1}), None, True, automatic=frozenset({1}))
    assert [(i.kind, i.payload) for i in items] == [("lines", {"after": 4}), ("board", {}),
                                                   ("ping", {"seats": [1], "after": 4})]
    # only the mover decides again: a ping row naming them, sent only after a restart
    items = plan_deliveries(4, 5, [public], frozenset({0, 1}), frozenset({1}), None, True, movers=frozenset({1}))
    assert [(i.kind, i.payload) for i in items] == [("lines", {"after": 4}), ("board", {}),
                                                   ("ping", {"seats": [], "after": 4, "movers": [1]})]
    # a change only its owner may see leaves the channel and the board alone
    assert plan_deliveries(4, 5, [secret], frozenset({1}), frozenset({1}), None, False) == []
    # the end replaces the ping
    end = Outcome(scores=(1.0, 0.0), ranking=(0, 1), winners=frozenset({0}), reason="done")
    assert [i.kind for i in plan_deliveries(4, 6, [public], frozenset({0}), frozenset(), end, True)] == \
        ["lines", "board", "end"]


async def test_migration_adds_the_outbox_to_the_old_database(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(FIXTURE, db)
    repo = Repository(str(db))
    await repo.open()
    try:
        async with repo.db.execute("PRAGMA user_version") as cur:
            # every migration ran: 003 the outbox, 004 DMs and time, … up to the newest file
            newest = max(int(p.name[:3]) for p in (Path(migrations.__file__).parent).glob("[0-9][0-9][0-9]_*.sql"))
            assert (await cur.fetchone())[0] == newest >= 4
        games = await repo.games(status=("lobby", "active", "finished", "abandoned"))
        assert games and await repo.pending() == []
        await repo.append(games[0].id, games[0].version, [], state=games[0].state or {}, status=games[0].status,
                          outbox=[OutboxItem("board", games[0].version)])
        assert [(r.kind, r.version) for r in await repo.pending()] == [("board", games[0].version)]
    finally:
        await repo.close()


async def test_what_a_crash_left_in_the_outbox_is_delivered_at_start(fake: FakeDiscord, database_url: str) -> None:
    db = database_url
    bot1 = await start_bot(fake, db)
    bob = await fake.add_member("bob")
    game = await carnival(Driver(fake, bot1), [fake.owner, bob])
    rng = random.Random(4)
    # two moves committed and nothing sent: what a crash right after the commit leaves
    for _ in range(2):
        user, text = await legal_text(bot1, game, rng)
        await bot1.service.act(game, user, text)
    record = await bot1.service.get(game)
    pending = await bot1.repo.pending(game)
    assert {r.kind for r in pending} >= {"lines", "board"}
    stale = board_version(fake, record.board_message_id)
    assert stale != {record.version}
    pings_before = len(pings(fake, record.home_channel_id))
    await fake.stop_bot(bot1)

    bot2 = await start_bot(fake, db)
    await Driver(fake, bot2).settle()
    assert board_version(fake, record.board_message_id) == {record.version}
    assert await bot2.repo.pending(game) == []
    fresh = [r for r in pending if r.kind == "ping"]
    assert len(pings(fake, record.home_channel_id)) == pings_before + len(fresh)
    lines = await bot2.delivery.boards.public_lines(record, 0, record.version)
    board = fake.messages[record.board_message_id]  # (the lines ride on the board edit: bench/requests.py)
    assert f"• {lines[-1]}" in board["embeds"][0]["description"]
    await fake.stop_bot(bot2)


async def test_board_rows_coalesce_into_one_edit(fake: FakeDiscord, database_url: str) -> None:
    bot, driver, game = await two_player_game(fake, database_url)
    rng = random.Random(8)
    for _ in range(3):
        user, text = await legal_text(bot, game, rng)
        await bot.service.act(game, user, text)
    record = await bot.service.get(game)
    assert len([r for r in await bot.repo.pending(game) if r.kind == "board"]) == 3
    log_before = len(fake.message_log)
    await bot.outbox.flush(game)
    await driver.settle()
    edits = [m for kind, m in fake.message_log[log_before:] if kind == "edit"
             and m["id"] == str(record.board_message_id)]
    assert len(edits) == 1 and board_version(fake, record.board_message_id) == {record.version}
    assert await bot.repo.pending(game) == []
    await fake.stop_bot(bot)


async def test_an_answer_whose_token_expired_is_given_in_the_channel(fake: FakeDiscord, database_url: str) -> None:
    bot, driver, game = await two_player_game(fake, database_url)
    user, text = await legal_text(bot, game, random.Random(1))
    ticket = {"token": "tok-gone", "app": fake.app_id, "user": user, "text": text, "at": fake.now()}
    await bot.service.act(game, user, text, answer=ticket)  # then the bot "crashed"
    fake.advance(16 * 60)
    await bot.outbox.flush(game)
    await driver.settle()
    record = await bot.service.get(game)
    answers = [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False)
               if m["content"] == f"<@{user}> ✓ your move `{text}` was applied."]
    assert len(answers) == 1
    assert not [r for r in fake.requests if "tok-gone" in r.path]  # the dead token was not used
    done = [r for r in await bot.repo.outbox(game) if r.kind == "answer"]
    assert len(done) == 1 and done[0].done_at is not None and "token" not in done[0].payload  # wiped
    assert {k: v for k, v in ticket.items() if k != "token"}.items() <= done[0].payload.items()  # the rest kept
    await fake.stop_bot(bot)


async def test_a_failed_delivery_is_tried_again(fake: FakeDiscord, database_url: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    bot, driver, game = await two_player_game(fake, database_url)
    bot.delivery.transport.lean = False  # (lines posted on their own, not folded into the board edit)
    bot.delivery.retries.delays = (0.05,)
    bot.http.max_ratelimit_timeout = 1.0  # a 30 s rate limit fails the call instead of sleeping
    user, text = await legal_text(bot, game, random.Random(2))
    await bot.service.act(game, user, text)
    record = await bot.service.get(game)
    fake.rate_limit_next(rf"/channels/{record.home_channel_id}/messages", retry_after=30, method="POST")
    await bot.outbox.flush(game)
    first = [r for r in await bot.repo.pending(game) if r.kind == "lines"]
    assert len(first) == 1 and first[0].attempts == 1  # failed, still pending
    await fake.wait_for(lambda: not bot.delivery.retries._waiting)
    await driver.settle()
    assert await bot.repo.pending(game) == []
    lines = await bot.delivery.boards.public_lines(record, record.version - 1, record.version)
    posted = [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False)
              if m["content"] == "\n".join(lines)]
    assert len(posted) == 1
    await fake.stop_bot(bot)


async def test_a_repeated_nonce_is_posted_once(fake: FakeDiscord, database_url: str) -> None:
    bot = await start_bot(fake, database_url)
    channel = int(fake.channel["id"])
    first = await bot.delivery.transport.post(channel, "once", nonce="n1")
    again = await bot.delivery.transport.post(channel, "once", nonce="n1")
    assert first.id == again.id and fake.nonce_hits == 1
    assert [m["content"] for m in fake.channel_messages(channel, ephemeral=False)] == ["once"]
    await fake.stop_bot(bot)


async def test_a_row_older_than_a_nonce_is_looked_for_before_it_is_posted_again(
        fake: FakeDiscord, database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Posted, then the process died before the row was marked done, and the restart came after
    Discord forgot the nonce: the bot finds its message in the channel and posts nothing again."""
    bot, driver, game = await two_player_game(fake, database_url)
    bot.delivery.transport.lean = False  # (lines posted on their own, not folded into the board edit)
    user, text = await legal_text(bot, game, random.Random(2))

    async def lost(row_ids: object) -> None:  # (the crash: Discord has the messages, the database not the mark)
        return None

    monkeypatch.setattr(bot.repo, "delivered", lost)
    await bot.service.act(game, user, text)
    await bot.outbox.flush(game)
    record = await bot.service.get(game)
    lines = "\n".join(await bot.delivery.boards.public_lines(record, record.version - 1, record.version))
    assert [r.kind for r in await bot.repo.pending(game)].count("lines") == 1
    await fake.stop_bot(bot)
    fake.advance(fake.nonce_lifetime + 60)
    bot2 = GameBot(Settings(database_path=database_url, token="offline", tick_seconds=3600, lean_requests=False),
                   clock=fake.now)  # (lines posted on their own)
    await fake.start_bot(bot2)
    await Driver(fake, bot2).settle()
    posted = [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False) if m["content"] == lines]
    assert len(posted) == 1 and fake.nonce_hits == 0
    assert [r.kind for r in await bot2.repo.pending(game)] == []
    await fake.stop_bot(bot2)


async def test_a_board_posted_before_a_crash_is_found_after_its_nonce_expired(
        fake: FakeDiscord, database_url: str) -> None:
    """The board went out but neither its pointer nor the row's mark was stored: after a restart
    past the nonce's lifetime the bot edits that message instead of posting a second board."""
    bot, driver, game = await two_player_game(fake, database_url)
    await driver.settle()
    await fake.stop_bot(bot)
    repo = Repository(database_url, clock=fake.now)  # (what the crash left: a board row, no pointer)
    await repo.open()
    record = await repo.get_game(game)
    assert record is not None and record.state is not None
    await repo.append(game, record.version, [], state=record.state, status=record.status,
                      outbox=[OutboxItem("board", record.version)])
    await repo.set_fields(game, board_message_id=None)
    await repo.close()
    fake.advance(fake.nonce_lifetime + 60)
    bot2 = await start_bot(fake, database_url)
    await Driver(fake, bot2).settle()
    boards = [m for m in fake.channel_messages(record.home_channel_id, ephemeral=False)
              if any(re.fullmatch(rf"g:{game}:\d+:rules", str(c.get("custom_id"))) for c in iter_components(m["components"]))]
    assert len(boards) == 1 and fake.nonce_hits == 0
    assert (await bot2.service.get(game)).board_message_id == int(boards[0]["id"])
    assert board_version(fake, int(boards[0]["id"])) == {record.version}
    assert await bot2.repo.pending(game) == []
    await fake.stop_bot(bot2)


class Crash(BaseException):
    """The process dies at a crash point (not an ``Exception``: nothing in the bot catches it)."""


async def test_a_board_posted_before_a_crash_shows_the_saved_version_after_the_restart(
        fake: FakeDiscord, database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A board update drew move 1 and posted it as a fresh board (the old one had scrolled
    away) while move 2 committed; the process died before it stored that board. The restart
    posts the board of move 2 with the same nonce (the oldest pending board row's), so
    Discord hands back the board of move 1: the bot brings it to move 2 before it marks the
    rows done, and the game has that one board."""
    bot1, driver, game = await two_player_game(fake, database_url)
    record = await bot1.service.get(game)
    home = record.home_channel_id
    for i in range(BOARD_SCROLL):  # (the table talks: the board scrolls away, the next update re-posts it)
        await fake.say(fake.owner, f"chat {i}", channel=home)
    await driver.settle()
    rng = random.Random(6)
    user, text = await legal_text(bot1, game, rng)
    first = (await bot1.service.act(game, user, text)).game
    gate = fake.hold(rf"/channels/{home}/messages", "POST")
    bot1.delivery.boards.request_board(game, first.version)
    (update,) = bot1.delivery.boards.updating()
    await fake.wait_for(lambda: fake.held == 1)  # (the fresh board of move 1 is on its way)
    user, text = await legal_text(bot1, game, rng)
    second = (await bot1.service.act(game, user, text)).game

    def die(point: str) -> None:
        if point == "after_board_post":
            raise Crash(point)

    monkeypatch.setattr(bot.service, "crash_hook", die)
    gate.set()
    with pytest.raises(Crash):
        await update
    posted = max(int(m["id"]) for m in fake.channel_messages(home, ephemeral=False))
    assert board_version(fake, posted) == {first.version} != {second.version}
    assert (await bot1.service.get(game)).board_message_id == record.board_message_id  # (not stored)
    await fake.stop_bot(bot1)
    monkeypatch.setattr(bot.service, "crash_hook", None)

    bot2 = await start_bot(fake, database_url)
    await Driver(fake, bot2).settle()
    saved = await bot2.service.get(game)
    assert saved.version == second.version and await bot2.repo.pending(game) == []
    boards = [int(m["id"]) for m in fake.channel_messages(home, ephemeral=False)
              if any(re.fullmatch(rf"g:{game}:\d+:rules", str(c.get("custom_id"))) for c in iter_components(m["components"]))]
    assert boards == [posted] == [saved.board_message_id] and fake.nonce_hits == 1  # (one board, posted once)
    assert board_version(fake, posted) == {saved.version}
    await fake.stop_bot(bot2)
