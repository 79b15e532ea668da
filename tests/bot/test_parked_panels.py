"""``bot.ui.parked.ParkedPanels.refresh`` when two refreshes of one game are in flight (a load
bench logged ``KeyError: (13, 3)``: the later refresh forgot a panel the earlier one, waiting on
an edit, was about to read): they run one after the other, and each panel is redrawn once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from typing import Any

import pytest

from bot.storage import GameRecord, SeatRecord
from bot.ui.parked import ParkedPanels

OVER = GameRecord(id=13, game_id="heaven", guild_id=1, channel_id=2, thread_id=None, board_channel_id=None,
                  board_message_id=None, lobby_message_id=None, host_user_id=100, status="finished",
                  paused=False, seed=1, options={}, players=4, state={}, version=40, move_timeout=3600,
                  deadline=None, reminded=0, waiting=[], deadline_window=None, created_at=0.0, updated_at=0.0,
                  seats=tuple(SeatRecord(13, s, 100 + s, f"p{s}") for s in range(4)))


class FakeService:
    def __init__(self) -> None:
        self.listeners: list[Any] = []
        self.record = replace(OVER, status="active", version=39)

    async def get(self, game: int) -> GameRecord:
        return self.record

    def waiting(self, record: GameRecord) -> frozenset[int]:
        return frozenset({0})


class FakeRepo:
    async def log(self, game: int, after: int = 0) -> list[Any]:
        return []


class FakeContext:
    def __init__(self) -> None:
        self.service, self.repo = FakeService(), FakeRepo()

    @contextlib.asynccontextmanager
    async def tracked(self):
        yield

    def clock(self) -> float:
        return 0.0


async def test_two_refreshes_of_a_game_redraw_each_parked_panel_once(caplog: pytest.LogCaptureFixture) -> None:
    released = asyncio.Event()
    edits: list[int] = []

    def editor(seat: int):
        async def edit(**payload: Any) -> None:
            await released.wait()          # (the first redraw is slow: the second refresh arrives)
            edits.append(seat)
        return edit

    async def draw(record: GameRecord, seat: int, reader: str, user_id: int, note: str) -> dict[str, Any]:
        return {"content": f"over {seat}"}

    ctx = FakeContext()
    parked = ParkedPanels(ctx, draw)  # type: ignore[arg-type]
    for seat in (2, 3):
        await parked.park(ctx.service.record, seat, 100 + seat, "en", editor(seat))
    assert sorted(parked.panels) == [(13, 2), (13, 3)]
    ctx.service.record = OVER                  # (the game ended: both panels are redrawn)
    with caplog.at_level(logging.ERROR, logger="bot"):
        first = asyncio.create_task(parked.refresh(13))
        second = asyncio.create_task(parked.refresh(13))
        for _ in range(5):
            await asyncio.sleep(0)         # (both refreshes started; the first waits on its edit)
        released.set()
        await asyncio.gather(first, second)
    assert edits == [2, 3]
    assert parked.panels == {}
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


class CommittingService(FakeService):
    """A service that tells its listeners of a change with the record it committed, and
    counts the reads of the game."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.committed: GameRecord | None = None

    async def get(self, game: int) -> GameRecord:
        self.reads += 1
        return self.record

    def waiting(self, record: GameRecord) -> frozenset[int]:
        return frozenset({0}) if record.status == "active" else frozenset()

    def changing(self, game: int) -> GameRecord | None:
        return self.committed

    def commit(self, record: GameRecord) -> None:
        self.record = self.committed = record
        for listener in self.listeners:
            listener(record.id)
        self.committed = None


class SpawningContext(FakeContext):
    def __init__(self) -> None:
        self.service, self.repo = CommittingService(), FakeRepo()
        self.tasks: list[asyncio.Task[None]] = []

    def spawn(self, work: Any, name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.tasks.append(task)
        return task


async def test_parked_panels_draw_from_the_committed_record_and_read_only_when_it_is_unknown() -> None:
    drawn: list[tuple[int, int]] = []

    async def draw(record: GameRecord, seat: int, reader: str, user_id: int, note: str) -> dict[str, Any]:
        drawn.append((seat, record.version))
        return {"content": "panel"}

    async def edit(**payload: Any) -> None:
        pass

    ctx = SpawningContext()
    service = CommittingService()
    ctx.service = service
    parked = ParkedPanels(ctx, draw)  # type: ignore[arg-type]
    service.commit(service.record)                      # (the move that left the game at version 39)
    await parked.park(service.record, 2, 102, "en", edit)
    assert service.reads == 0 and sorted(parked.panels) == [(13, 2)]
    older = replace(service.record, version=38)         # (a panel drawn before the last change: read)
    await parked.park(older, 3, 103, "en", edit)
    assert service.reads == 1 and sorted(parked.panels) == [(13, 2), (13, 3)] and drawn == []
    service.commit(OVER)                                # (the game ended: both panels say so, from OVER)
    await asyncio.gather(*ctx.tasks)
    assert service.reads == 1 and sorted(drawn) == [(2, 40), (3, 40)] and parked.panels == {}


async def test_a_refresh_redraws_the_panels_after_the_board_update_under_way() -> None:
    """The board goes first: a refresh waits for the game's board update (``board``) before it draws or
    edits a panel; the panels it hands over are then redrawn as before."""
    board_done = asyncio.Event()
    order: list[str] = []

    async def board(game: int) -> None:
        order.append(f"waited for the board of #{game}")
        await board_done.wait()

    async def draw(record: GameRecord, seat: int, reader: str, user_id: int, note: str) -> dict[str, Any]:
        order.append(f"drew {seat}")
        return {"content": "panel"}

    def editor(seat: int):
        async def edit(**payload: Any) -> None:
            order.append(f"edited {seat}")
        return edit

    ctx = FakeContext()
    parked = ParkedPanels(ctx, draw, board)  # type: ignore[arg-type]
    for seat in (2, 3):
        await parked.park(ctx.service.record, seat, 100 + seat, "en", editor(seat))
    ctx.service.record = OVER
    refresh = asyncio.create_task(parked.refresh(13))
    for _ in range(5):
        await asyncio.sleep(0)
    assert order == ["waited for the board of #13"] and sorted(parked.panels) == [(13, 2), (13, 3)]
    board_done.set()
    await refresh
    assert order == ["waited for the board of #13", "drew 2", "edited 2", "drew 3", "edited 3"]
    assert parked.panels == {}
