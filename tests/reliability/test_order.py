"""Messages in log order (trust issue, point 3; docs/DESIGN.md §5).

The offline Discord rate-limits like Discord (buckets per route and channel, a global
limit, 429 with ``retry_after`` and the ``X-RateLimit-*`` headers); a burst of moves in
several games at once must still put each game's public event lines into its channel in
the order of its log (the newest on the board, any a change had beyond those posted), and
board edits still coalesce.
"""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.service import texts
from bot.ui.boards import BOARD_LINES_MAX, RECENT_LINES
from tests.e2e.driver import Driver
from tests.reliability.botkit import carnival, checked_fake, legal_text, member, start_bot

GAMES = 4
ROUNDS = 4


@pytest.fixture
async def fake():
    async with checked_fake() as fd:
        yield fd


def is_line(message: dict) -> bool:
    """A public event line message (not a board, a ping, or the end)."""
    return not message["embeds"] and not message["components"] and not message["flags"] & 64


async def test_a_burst_across_games_keeps_each_games_lines_in_log_order(fake: FakeDiscord, tmp_path) -> None:
    bot = await start_bot(fake, tmp_path / "games.db")
    driver = Driver(fake, bot)
    players = [fake.owner] + [await fake.add_member(n) for n in ("bob", "carol", "dave")]
    games = [await carnival(driver, [players[i % 4], players[(i + 1) % 4]]) for i in range(GAMES)]
    first_line = {g: max(fake.messages) for g in games}
    log_before = len(fake.message_log)
    # Discord's limits, scaled down so a short burst meets them: 2 requests per route and
    # channel, 4 bot requests in all, per 0.3 s
    fake.rate_limit_buckets(per_channel=(2, 0.3), global_limit=(4, 0.3))
    rng = random.Random(5)
    commits = 0
    for _ in range(ROUNDS):
        sends = []
        for game in games:
            record = await bot.service.get(game)
            if record.status != "active":
                continue
            for seat in sorted(bot.service.waiting(record)):  # everyone the game waits for, at once
                user_id, text = await legal_text(bot, game, rng, seat)
                sends.append(fake.slash(member(fake, user_id), "carnival", "play", action=text, game=game))
        await asyncio.gather(*sends)
        commits += len(sends)
        await driver.delivered()  # (a 429 that outlasts discord.py's retries is tried again later)
    limited = [r for r in fake.refusals if r.startswith("0 ")]
    assert limited, fake.refusals  # 429s happened, and discord.py slept and retried
    for game in games:
        record = await bot.service.get(game)
        tx = texts(record)
        expected = [tx.event(e) for entry in await bot.repo.log(game) for e in entry.events
                    if e.get("visible_to") is None]
        posted = [line for m in fake.channel_messages(record.home_channel_id, ephemeral=False)
                  if int(m["id"]) > first_line[game] and is_line(m) for line in m["content"].split("\n")]
        board = fake.messages[record.board_message_id]
        # the newest lines ride on the board (bench/requests.py): the last RECENT_LINES, or all
        # the lines its last edit had unshown when more (a 429 that delayed it let them gather),
        # up to BOARD_LINES_MAX; lines a change had beyond what the board carries were posted:
        # in log order, each once
        shown = [line[2:] for line in board["embeds"][0]["description"].split("\n") if line.startswith("• ")]
        assert RECENT_LINES <= len(shown) <= BOARD_LINES_MAX, (game, shown)
        assert shown == expected[-len(shown):], game
        rest = iter(expected)
        assert all(line in rest for line in posted), game  # (a subsequence of the log: in order, none twice)
        versions = {c["custom_id"].split(":")[2] for c in iter_components(board["components"])
                    if re.fullmatch(r"g:\d+:\d+:\w+", c.get("custom_id", ""))}
        assert versions == {str(record.version)}
        assert not await bot.repo.pending(game)
    boards = {str((await bot.service.get(g)).board_message_id) for g in games}
    edits = [m["id"] for kind, m in fake.message_log[log_before:] if kind == "edit" and m["id"] in boards]
    assert 0 < len(edits) <= commits  # never more edits than changes (coalescing: test_outbox.py)
    await fake.stop_bot(bot)
