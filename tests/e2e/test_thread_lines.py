"""Every public event line reaches the game's thread once, in order, with lines riding on the
board edit (``lean_requests``): also when one move starts a chain (a last pick, the reveals,
the AI's and chance moves) that one coalesced board edit draws (trial 8: Carnival with an AI
seat lost ``alice reveals Sloth.`` and the like from the thread)."""

from __future__ import annotations

import copy
import random
from collections.abc import Awaitable, Callable
from typing import Any

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
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
        fake: FakeDiscord, make_bot: Callable[..., Awaitable[GameBot]], players: list[JSONDict]) -> None:
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
    log = await d.bot.delivery.recent_public_lines(record, limit=10**6)
    opening = (await d.bot.delivery.public_lines(record, 0, 1))[0]
    assert len(log) > 40
    assert read_through(log, thread_reading(fake, record.thread_id, opening)) == len(log)
