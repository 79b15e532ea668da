"""What every handler of ``bot/ui/`` works with (docs/TEMPLATE.md "The host, by role"):
the game service, the repository, the delivery layer, the settings and the clock,
passed in as one ``HostContext`` — never the bot class, so ``bot/app.py`` and
``bot/ui/`` import each other in one direction only (``bot.app`` → ``bot.ui``).

It also counts the handlers in flight (``wait_idle``), keeps delivery failures after a
committed move from surfacing (``delivered``) and finds the game a command means
(``resolve_game``, ``seated``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import discord

from bot.service import HostError
from engines.registry import get as get_engine

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.settings import Settings
    from bot.storage import GameRecord, Repository
    from bot.ui.delivery import Delivery
    from bot.ui.flow import Flow

log = logging.getLogger(__name__)


@runtime_checkable
class HostsGames(Protocol):
    """A client that carries the handlers (``GameBot`` does): how buttons, checks and
    transformers reach them from ``interaction.client`` without importing the bot."""

    flow: Flow


def flow_of(interaction: discord.Interaction) -> Flow:
    """The handlers of the client an interaction came to.

    Raises:
        TypeError: the client carries no ``flow`` (not a ``GameBot``).
    """
    client = interaction.client
    if not isinstance(client, HostsGames):
        raise TypeError(f"{type(client).__name__} carries no game handlers")
    return client.flow


@dataclass
class HostContext:
    """The parts a handler needs, and the count of handlers in flight.

    Attributes:
        service / repo / delivery / settings: the game service, storage, delivery layer
            and settings of the running bot.
        clock: unix time in seconds (tests inject the fake Discord's clock).
    """

    service: GameService
    repo: Repository
    delivery: Delivery
    settings: Settings
    clock: Callable[[], float]
    _busy: int = field(default=0, init=False)
    _idle: asyncio.Event = field(default_factory=asyncio.Event, init=False)

    def __post_init__(self) -> None:
        self._idle.set()

    @asynccontextmanager
    async def tracked(self) -> AsyncIterator[None]:
        """Count a handler as in flight while the block runs (``wait_idle`` waits for it)."""
        self._busy += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    async def wait_idle(self) -> None:
        """Wait until no handler is in flight and every board update is delivered."""
        while True:
            await self._idle.wait()
            await self.delivery.drain()
            if self._busy == 0:
                return

    @staticmethod
    async def delivered(step: Awaitable[None]) -> None:
        """Await a delivery step after a committed move: a failure is logged and never
        rolls the move back (docs/DESIGN.md §4)."""
        try:
            await step
        except Exception:
            log.exception("delivery after a committed move failed")

    async def resolve_game(self, interaction: discord.Interaction, game: GameRecord | None,
                           game_id: str | None = None) -> GameRecord:
        """The game a command means: ``game`` if given (it must be a ``game_id`` game
        when that is given); else the caller's running game in this channel/thread; else
        the caller's only game here; else the only game here.

        Raises:
            HostError: a game of another kind, or none or several candidates (the
                message says how to choose).
        """
        if game is not None:
            if game_id and game.game_id != game_id:
                raise HostError(f"Game #{game.id} is not a {get_engine(game_id).info.name} game.", "wrong_game")
            return game
        here = await self.repo.games(status=("lobby", "active", "finished"), channel_id=interaction.channel_id)
        if game_id:
            here = [g for g in here if g.game_id == game_id]
        mine = [g for g in here if g.seat_of(interaction.user.id) is not None]
        active_mine = [g for g in mine if g.status == "active"]
        for candidates in (active_mine, mine, here):
            if len(candidates) == 1:
                return candidates[0]
            if len(candidates) > 1:
                if not mine:
                    raise HostError(f"You are not playing in any of the {len(candidates)} games here; pass "
                                    "the `game` number to look at one.", "ambiguous")
                raise HostError("Several games are here; choose one with the `game` option.", "ambiguous")
        raise HostError("No game here. Start one with `/game new`, or pass the `game` number.", "no_game")

    async def seated(self, game: int, user_id: int) -> tuple[GameRecord, int]:
        """The game ``game`` and the seat of ``user_id`` in it.

        Raises:
            HostError: no such game, or the user does not play in it.
        """
        record = await self.service.get(game)
        seat = record.seat_of(user_id)
        if seat is None:
            raise HostError("This is not your game — you are not playing in it.", "not_a_player")
        return record, seat
