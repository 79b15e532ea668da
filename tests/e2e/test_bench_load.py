"""bench/load.py's bot in a child process (``BotChild``): the bot reaches the offline
Discord of the test's process over loopback only, and the bench learns what it needs (every
``service.start``/``act`` result, a game's board, the idle check, logged errors) over the socket
pair, so a table is set up and a measured move played exactly as with the bot in-process."""

from __future__ import annotations

import os
import random
from pathlib import Path

from bench.load import BotChild, LoadTable, Mirror, Step, settle, setup_tables
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.ui.presence import BOARD_SCROLL


async def test_a_bot_in_a_child_process_sets_up_tables_and_plays_a_measured_move(fake: FakeDiscord,
                                                                                  tmp_path: Path) -> None:
    mirror = Mirror(None)
    async with BotChild(fake, mirror, tmp_path / "games.db", "after", {"render_workers": 0}) as child:
        assert child.pid > 0 and child.pid != os.getpid()
        tables: list[LoadTable] = await setup_tables(fake, child, "carnival", 2, 1, 0, mirror)
        assert len({t.game for t in tables}) == 2
        for table in tables:
            record = await child.get(table.game)
            assert record.status == "active"
            assert table.board_id == record.board_message_id and table.board_id in fake.messages
            assert mirror.results[table.game].game.version == record.version  # (the last result: the board's)
            assert mirror.waiting(table.game)  # (someone is to move: the table is not over)

        table = tables[0]
        before = (await child.get(table.game)).version
        seen = mirror.count[table.game]
        step = Step(0)
        table.scan_from = len(fake.requests)
        assert await table.measured_move(step) is True
        assert step.moves == 1
        assert mirror.count[table.game] == seen + 1
        after = await child.get(table.game)
        assert after.version > before and mirror.results[table.game].game.version == after.version
        assert len(step.panel) == 1 and len(step.ack) >= 2  # (Play ▶, any group steps, the pick)
        assert len(step.board) == (1 if mirror.results[table.game].public_changed else 0)  # (board waited for)

        await child.wait_idle()
        await settle(fake, child, mirror.bridge, 0.05, 10)
        assert await child.errors() == []
        proc = child._proc
    assert proc is not None and proc.returncode == 0  # (stopped on request, not killed)


async def test_a_measured_move_that_ends_the_game_waits_for_its_final_board(fake: FakeDiscord, tmp_path: Path) -> None:
    mirror = Mirror(None)
    async with BotChild(fake, mirror, tmp_path / "games.db", "after", {"render_workers": 0}) as child:
        (table,) = await setup_tables(fake, child, "carnival", 1, 3, 0, mirror)
        step = Step(0)
        while True:  # (as --advance plays: a table may reach its game's end)
            for i in range(BOARD_SCROLL):  # (the table talks: each board, the final one too, is posted again)
                await fake.say(fake.owner, f"chat {i}", channel=table.channel)
            table.scan_from = len(fake.requests)
            boards = len(step.board)
            if not await table.measured_move(step):
                break
            last_move_board = len(step.board) - boards
        record = await child.get(table.game)
        assert record.status == "finished" and mirror.waiting(table.game) == []
        assert last_move_board == 1  # (the final board, without a Play button, was waited for and seen)
        final = fake.messages[table.board_id]
        assert table.board_version(final) == record.version  # (read off its Log and Rules buttons)
        assert not any(c.get("custom_id", "").endswith(":play") for c in iter_components(final["components"]))
        assert len(step.panel) == step.moves  # (one Play ▶ a decision, the last one's included)
        await child.wait_idle()
        assert await child.errors() == []


async def test_a_measured_move_follows_a_board_posted_again_while_the_table_was_not_looking(
        fake: FakeDiscord, tmp_path: Path) -> None:
    mirror = Mirror(None)
    async with BotChild(fake, mirror, tmp_path / "games.db", "after", {"render_workers": 0}) as child:
        (table,) = await setup_tables(fake, child, "carnival", 1, 4, 0, mirror)
        first_board = table.board_id
        channel = int(fake.messages[first_board]["channel_id"])
        other = LoadTable(fake, child, table.users, random.Random(9), "carnival", mirror)  # (the same game's
        other.game, other.board_id, other.channel = table.game, first_board, channel  # other client)
        for i in range(BOARD_SCROLL):  # (the table talks: the board scrolls away, the next update posts it again)
            await fake.say(fake.owner, f"chat {i}", channel=channel)
        step = Step(0)
        while first_board in fake.messages:
            other.scan_from = len(fake.requests)
            assert await other.measured_move(step)
        assert other.board_id != first_board  # (the other client followed the board posted again)
        table.scan_from = len(fake.requests)
        assert await table.measured_move(step)  # (Play ▶ on the board posted again, not on the deleted one)
        assert table.board_id == other.board_id == (await child.get(table.game)).board_message_id
        await child.wait_idle()
        assert await child.errors() == []
