"""The board of a pick is asked for as soon as the move is stored (bot/ui/moves.py
``Moves._picked``), not after the mover's panel is drawn and answered: under load the board
is the slow part. Each version is drawn once although the outbox drain asks for
it again (``Boards.request_board(game, version)``), and a change no one else can see (a
changed secret pick in Carnival) asks for no board at all."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.ui.moves import Moves
from bot.ui.parked import ParkedPanels
from tests.e2e.driver import Driver
from tests.e2e.test_ops_board_token import board_edits, lean, shows

JSONDict = dict[str, Any]


async def moved_with_one_board_edit(driver: Driver, fake: FakeDiscord, game: int, rng: random.Random) -> None:
    """Play one random move in ``game`` and check that its board was edited once (not twice)
    and shows the new version."""
    board = (await driver.record(game)).board_message_id
    assert board is not None
    mark = len(fake.requests)
    await driver.play_once(game, rng)
    await driver.delivered()
    after = await driver.record(game)
    own, hooks = board_edits(fake, mark, board)
    assert len(own) + len(hooks) == 1
    assert shows(fake, board, game, after.version)



async def test_the_board_is_on_its_way_before_the_panel_is_drawn_and_drawn_once(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    game = await driver.start_game("heaven", players[:4])
    seen: list[tuple[int, bool]] = []
    panel_after = Moves.panel_after

    async def drawn_after_the_board(self: Moves, interaction: Any, result: Any, seat: int, note: str) -> Any:
        board = result.game.board_message_id
        await bot.delivery.boards.board_settled(game)  # (the board update asked for by the pick, if any)
        seen.append((result.game.version, shows(fake, board, game, result.game.version)))
        return await panel_after(self, interaction, result, seat, note)

    monkeypatch.setattr(Moves, "panel_after", drawn_after_the_board)
    rng = random.Random(3)
    for _ in range(4):
        await moved_with_one_board_edit(driver, fake, game, rng)
    assert seen and all(on_board for _, on_board in seen)            # each before its panel was drawn
    assert [version for version, _ in seen] == sorted({version for version, _ in seen})


async def test_a_changed_secret_pick_asks_for_no_board(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    game = await driver.start_game("carnival", players[:3])
    await driver.delivered()
    record = await driver.record(game)
    board = record.board_message_id
    assert board is not None
    user = (await driver.waiting_users(game))[0]
    asked: list[tuple[int, int | None]] = []
    request_board = bot.delivery.boards.request_board

    def recorded(game: int, version: int | None = None) -> None:
        asked.append((game, version))
        request_board(game, version)

    bot.delivery.boards.request_board = recorded  # type: ignore[method-assign]
    rng = random.Random(1)
    panel = await driver.open_panel(user, game)
    await driver.decide(user, panel, rng)                          # the first pick: others see it was made
    await driver.delivered()
    first = await driver.record(game)
    assert (game, first.version) in asked
    asked.clear()
    mark = len(fake.requests)
    panel = await driver.open_panel(user, game)
    await driver.decide(user, panel, rng)                          # changed before all picked: secret
    await driver.delivered()
    second = await driver.record(game)
    assert second.version == first.version + 1
    assert asked == []                                             # no board asked for
    assert board_edits(fake, mark, board) == ([], [])


async def test_a_board_still_drawing_when_the_outbox_asks_again_is_drawn_once(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    game = await driver.start_game("canterbury", players[:2])
    boards, outbox = bot.delivery.boards, bot.outbox
    payload, flush = boards.board_payload, outbox.flush
    release = asyncio.Event()

    async def slow_payload(record: Any, *args: Any, **kwargs: Any) -> Any:
        await release.wait()  # (the board is still being drawn when the outbox is drained)
        return await payload(record, *args, **kwargs)

    async def drained(game: int, via: Any = None) -> None:
        await flush(game, via)  # (its board row asks for the version being drawn)
        release.set()

    monkeypatch.setattr(boards, "board_payload", slow_payload)
    monkeypatch.setattr(outbox, "flush", drained)
    rng = random.Random(8)
    for _ in range(3):
        release.clear()
        await moved_with_one_board_edit(driver, fake, game, rng)   # drawn once, though asked for twice
        assert not [r for r in await bot.repo.pending(game) if r.kind == "board"]


def board_version(fake: FakeDiscord, board: int, game: int) -> int:
    """The version in the Play ▶ button of message ``board`` (-1 when none)."""
    for c in iter_components(fake.messages[board]["components"]):
        cid = c.get("custom_id", "")
        if cid.startswith(f"g:{game}:") and cid.endswith(":play"):
            return int(cid.split(":")[2])
    return -1


async def test_parked_panels_are_redrawn_once_the_board_shows_the_move_that_handed_them_over(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    game = await driver.start_game("heaven", players[:4])
    board = (await driver.record(game)).board_message_id
    assert board is not None
    seen: list[tuple[int, int]] = []
    redraw = ParkedPanels._redraw

    async def redrawn(self: ParkedPanels, record: Any, seat: int, parked: Any) -> None:
        seen.append((record.version, board_version(fake, board, game)))
        await redraw(self, record, seat, parked)

    monkeypatch.setattr(ParkedPanels, "_redraw", redrawn)
    rng = random.Random(4)
    async for _ in driver.random_moves(game, rng, 24):
        pass
    assert len(seen) >= 4
    assert [version for version, _ in seen] == [min(version, shown) for version, shown in seen]  # (the board first)


async def test_a_panel_without_a_decision_picture_reads_its_seats_view_once_a_version(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await lean(make_bot)
    driver = Driver(fake, bot)
    game = await driver.start_game("heaven", players[:4])
    record = await driver.record(game)
    engine = bot.service.engine(record)
    views: list[tuple[int, int]] = []
    player_view = type(engine).player_view

    def counted(self: Any, state: Any, seat: Any) -> Any:
        views.append((record.version, seat))
        return player_view(self, state, seat)

    monkeypatch.setattr(type(engine), "player_view", counted)
    state = bot.service.state(record)
    moves = bot.flow.moves
    for seat in (0, 1, 0, 1, 0):  # (a Heaven game opens with its secret splits: no picture for anyone)
        assert await moves.decision_file(record, state, seat) is None
    assert views == [(record.version, 0), (record.version, 1)]
