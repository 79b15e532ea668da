"""Every public event line reaches the game's thread once, in order, with lines riding on the
board edit (``lean_requests``): also when one move starts a chain (a last pick, the reveals,
the AI's and chance moves) that one coalesced board edit draws (Carnival with an AI
seat lost ``alice reveals Sloth.`` and the like from the thread)."""

from __future__ import annotations

import copy
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
from bot.text import Texts
from bot.ui import boards as delivery_module
from bot.ui.boards import RECENT_LINES
from tests.e2e.driver import Driver
from tests.e2e.test_ai_seats import open_with_ais, settled, start

JSONDict = dict[str, Any]


class Snapshots(list[tuple[str, JSONDict]]):
    """``FakeDiscord.message_log`` keeping a copy of each message as it was then (the fake
    logs the live message, which later edits change)."""

    def append(self, item: tuple[str, JSONDict]) -> None:
        super().append((item[0], copy.deepcopy(item[1])))


def thread_reading(fake: FakeDiscord, thread: int, start: str) -> list[tuple[str, list[str]]]:
    """The bot's public messages in ``thread`` as they appeared, in order: ``("board",
    its event lines)`` per board post or edit, ``("lines", its lines)`` per posted message
    of event lines (pings, which mention players and carry a digest, left out; so is the
    ``start`` line, which boards do not carry)."""
    out: list[tuple[str, list[str]]] = []
    for what, msg in fake.message_log:
        if what == "delete" or msg["channel_id"] != str(thread) or msg["flags"] & 64:
            continue
        if msg["embeds"] and msg["attachments"]:  # a board
            text = msg["embeds"][0].get("description", "")
            out.append(("board", [line[2:] for line in text.splitlines() if line.startswith("• ")]))
        elif what == "create" and msg["content"] and "<@" not in msg["content"] and not msg["embeds"]:
            lines = [line for line in msg["content"].splitlines() if line != start]  # (the board leaves it out)
            out.append(("lines", lines))
    return out


def read_through(log: list[str], reading: list[tuple[str, list[str]]]) -> int:
    """How far into ``log`` (the game's public lines, oldest first) a reader of the thread
    got, reading ``reading`` in order: a posted message must continue exactly where they
    are; a board shows the newest lines as of its version, so it must end at or after where
    they are and start no later (no line skipped). Raises AssertionError on a gap or a line
    out of order."""
    at = 0
    for kind, lines in reading:
        if kind == "lines":
            assert log[at:at + len(lines)] == lines, (at, lines, log[at:at + len(lines) + 3])
            at += len(lines)
            continue
        ends = [j for j in range(at, len(log) + 1) if j - len(lines) <= at and log[max(j - len(lines), 0):j] == lines]
        assert ends, (at, lines, log[max(at - 3, 0):at + 10])
        at = ends[0]
    return at


async def test_a_chain_of_moves_loses_no_line_from_the_thread(
        fake: FakeDiscord, make_bot: Callable[..., Awaitable[GameBot]], players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake.message_log = Snapshots()
    d = Driver(fake, await make_bot(ai_iterations=3, lean_requests=True))
    alice, bob = players[:2]
    rng = random.Random(5)
    game = await open_with_ais(d, alice, "carnival", 1)
    lobby = fake.messages[(await d.record(game)).lobby_message_id or 0]
    await fake.click(bob, lobby, f"l:{game}:join")
    await settled(d)
    await start(d, alice, game)
    chained = 0
    for _ in range(40):
        record = await d.record(game)
        if record.status != "active":
            break
        before = record.version
        await d.play_once(game, rng)
        await settled(d)
        chained += (await d.record(game)).version - before > 1
    record = await d.record(game)
    assert record.thread_id is not None and chained  # (some move set off the AI's and chance moves)
    log = await d.bot.delivery.boards.recent_public_lines(record, limit=10**6)
    opening = (await d.bot.delivery.boards.public_lines(record, 0, 1))[0]
    assert len(log) > 40
    assert read_through(log, thread_reading(fake, record.thread_id, opening)) == len(log)
    formatted = 0
    event = Texts.event

    def counted(self: Texts, e: Any) -> str:
        nonlocal formatted
        formatted += 1
        return event(self, e)

    monkeypatch.setattr(Texts, "event", counted)
    assert await d.bot.delivery.boards.recent_public_lines(record, limit=RECENT_LINES) == log[-RECENT_LINES:]
    assert formatted == RECENT_LINES  # (the board's few lines are the only ones formatted)


async def test_a_restart_between_two_moves_shows_each_line_once_in_order(
        fake: FakeDiscord, make_bot: Callable[..., Awaitable[GameBot]], players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The process dies after a move's lines row was marked done and before its board update
    (the board row left pending); the restarted bot knows from the done board rows where the
    thread's lines stand (``Boards._shown_upto``), so its board shows the move's lines and the
    next move's, none twice and none skipped."""
    fake.message_log = Snapshots()
    monkeypatch.setattr(delivery_module, "BOARD_LINES_MAX", 1)  # (more lines than the board carries: posted above)
    first = await make_bot(dm_away_seconds=300, lean_requests=True)
    d1 = Driver(fake, first)
    game = await d1.start_game("carnival", players[:3])
    rng = random.Random(4)
    for _ in range(2):
        await d1.play_once(game, rng)
    await d1.delivered()
    before = await d1.record(game)
    monkeypatch.setattr(delivery_module, "RECENT_LINES", 1)  # (a board that knows nothing unshown: its last line)
    monkeypatch.setattr(first.delivery.boards, "request_board", lambda game, version=None: None)  # (killed before the board update)
    await d1.play_once(game, rng)  # (the last pick of round 1: it reveals three cards)
    await d1.settle()
    record = await d1.record(game)
    unshown = await first.delivery.boards.public_lines(record, before.version, record.version)
    assert len(unshown) > 1
    assert [(r.kind, r.version) for r in await first.repo.pending(game)] == [("board", record.version)]
    await fake.stop_bot(first)

    second = await make_bot(dm_away_seconds=300, lean_requests=True)  # a new process on the same database
    d2 = Driver(fake, second)
    await d2.delivered()
    assert await second.repo.pending(game) == []
    await d2.play_once(game, rng)
    await d2.delivered()
    record = await d2.record(game)
    assert record.thread_id is not None and record.version > before.version + 1
    log = await second.delivery.boards.recent_public_lines(record, limit=10**6)
    opening = (await second.delivery.boards.public_lines(record, 0, 1))[0]
    reading = thread_reading(fake, record.thread_id, opening)
    # the move's older lines posted once, above the board that carries its newest (none lost, none twice)
    assert [lines for kind, lines in reading].count(unshown[:-1]) == 1
    assert read_through(log, reading) == len(log)
