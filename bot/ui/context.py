"""What every handler of ``bot/ui/`` works with (docs/TEMPLATE.md "The host, by role"):
the game service (the only way to storage), the delivery layer, the settings and the clock,
passed in as one ``HostContext`` — never the bot class, so ``bot/app.py`` and
``bot/ui/`` import each other in one direction only (``bot.app`` → ``bot.ui``).

It also counts the handlers in flight (``wait_idle``), keeps delivery failures after a
committed move from surfacing (``delivered``), drops a second delivery of the same
interaction (``first_delivery``) and finds the game a command means (``resolve_game``,
``game``, ``seated``) — refusing a game of another server (docs/DESIGN.md §5 "A game
belongs to its server": ``bot.ui.checks.check_origin``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import discord

from bot import logsafe
from bot.service import HostError, game_over
from bot.ui.checks import MAX_GAME_NUMBER, check_origin
from engines.base import Msg

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.settings import Settings
    from bot.storage import GameRecord
    from bot.ui.delivery import Delivery
    from bot.ui.outbox_drain import Outbox

log = logging.getLogger(__name__)

REMEMBERED_INTERACTIONS = 4096
"""How many interaction ids ``first_delivery`` remembers (Discord retries within seconds)."""


@dataclass
class Parts:
    """The parts of the running bot below the outbox: what the composer of pings and the end
    (``bot.ui.notices.TurnNotices``) and the DMs work with, built before the outbox.

    Attributes:
        service / delivery / settings: the game service (the handlers' only way to
            storage), delivery layer and settings of the running bot.
        clock: unix time in seconds (tests inject the fake Discord's clock).
    """

    service: GameService
    delivery: Delivery
    settings: Settings
    clock: Callable[[], float]

    @staticmethod
    async def delivered(step: Awaitable[None]) -> None:
        """Await a delivery step after a committed move: a failure is logged and never
        rolls the move back (docs/DESIGN.md §4)."""
        try:
            await step
        except Exception:
            log.exception("delivery after a committed move failed")


@dataclass
class HostContext(Parts):
    """The parts a handler needs (``Parts`` and the ``outbox``), and the count of handlers in
    flight."""

    outbox: Outbox
    _busy: int = field(default=0, init=False)
    _idle: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    _seen: collections.OrderedDict[int, None] = field(default_factory=collections.OrderedDict, init=False)
    _spawned: set[asyncio.Task[None]] = field(default_factory=set, init=False)

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

    def spawn(self, work: Awaitable[None], name: str) -> asyncio.Task[None]:
        """Run ``work`` as a task counted in flight from now (not only once it starts), so
        ``wait_idle`` never returns between a change and the work it set off; the task is
        held until done (the loop keeps tasks weakly)."""
        self._busy += 1
        self._idle.clear()

        async def run() -> None:
            try:
                await work
            finally:
                self._busy -= 1
                if self._busy == 0:
                    self._idle.set()
        task = asyncio.get_running_loop().create_task(run(), name=name)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)
        return task

    async def wait_idle(self) -> None:
        """Wait until no handler is in flight and every board update is delivered."""
        while True:
            await self._idle.wait()
            await self.outbox.drain()
            if self._busy == 0:
                return

    def first_delivery(self, interaction: discord.Interaction) -> bool:
        """True the first time an interaction id arrives; False for a copy (Discord may deliver
        an interaction twice): the caller drops it quietly, nothing is applied twice."""
        if interaction.id in self._seen:
            log.info("dropped a second delivery of interaction %s", interaction.id)
            return False
        self._seen[interaction.id] = None
        while len(self._seen) > REMEMBERED_INTERACTIONS:
            self._seen.popitem(last=False)
        return True

    async def resolve_game(self, interaction: discord.Interaction, game: GameRecord | None,
                           game_id: str | None = None, *, playing: bool = False) -> GameRecord:
        """The game a command means: ``game`` if given (it must be a ``game_id`` game
        when that is given); else the caller's running game in this channel/thread; else
        the caller's only lobby or running game here; else the only running game here
        (one the caller was removed from, too: ``seated`` then says they no longer play
        in it); else the caller's only game here (a finished one); else the only game here.

        ``playing`` (a move: ``/<game> play``, ``/game play``): without a running game here,
        the caller's game that ended here last (finished, or ended by a moderator) is the one
        meant, so the refusal names it (``bot.service.not_running``); with a lobby of theirs
        here too, the refusal names both (``ui.error.game_over_lobby``).

        Raises:
            HostError: a game of another kind, or none or several candidates (the
                message says how to choose; in a DM, where no game is played, it says
                what works there).
        """
        if game is not None:
            check_origin(interaction, game)
            if game_id and game.game_id != game_id:
                raise HostError(Msg("ui.error.wrong_game", {"game": game.id, "name": {"msg": f"ui.game.{game_id}"}}),
                                "wrong_game")
            return game
        statuses = ("lobby", "active", "finished", "abandoned") if playing else ("lobby", "active", "finished")
        here = await self.service.games(status=statuses, channel_id=interaction.channel_id)
        if game_id:
            here = [g for g in here if g.game_id == game_id]
        mine = [g for g in here if g.seat_of(interaction.user.id) is not None]
        if playing and not any(g.status == "active" for g in here):
            ended = [g for g in mine if g.status in ("finished", "abandoned")]
            lobbies = [g for g in mine if g.status == "lobby"]
            if ended:
                last = max(ended, key=lambda g: (g.updated_at, g.id))
                if len(lobbies) != 1:
                    return last
                said = game_over(last)
                raise HostError(Msg(f"{said.key}_lobby", {**said.params, "lobby": lobbies[0].id}), "not_active")
            here = [g for g in here if g.status != "abandoned"]
            mine = [g for g in mine if g.status != "abandoned"]
        active_mine = [g for g in mine if g.status == "active"]
        live_mine = [g for g in mine if g.status != "finished"]
        active_here = [g for g in here if g.status == "active"]  # (before a finished game of the caller's)
        for candidates in (active_mine, live_mine, active_here, mine, here):
            if len(candidates) == 1:
                return candidates[0]
            if len(candidates) > 1:
                if not mine:
                    raise HostError(Msg("ui.error.ambiguous_not_mine", {"n": len(candidates)}), "ambiguous")
                raise HostError(Msg("ui.error.ambiguous"), "ambiguous")
        raise HostError(Msg("ui.error.no_game" if interaction.guild_id is not None else "ui.error.no_game_dm"), "no_game")

    async def game(self, interaction: discord.Interaction, game: int, *, kept: bool = False) -> GameRecord:
        """The game numbered ``game``, if ``interaction`` may touch it (``check_origin``);
        ``kept``: as ``GameService.get``.

        Raises:
            HostError: no such game (``UNKNOWN_GAME``), or one of another server / channel.
        """
        logsafe.bind(interaction=interaction.id)
        if not 0 <= game < MAX_GAME_NUMBER:
            raise HostError(Msg("ui.error.unknown_game", {"game": game}), "unknown_game")
        record = await self.service.get(game, kept=kept)
        logsafe.bind(game=record.id)  # (this handler's log lines name the game: LOG_FORMAT=json)
        check_origin(interaction, record)
        return record

    async def seated(self, interaction: discord.Interaction, game: int, *,
                     kept: bool = False) -> tuple[GameRecord, int]:
        """The game ``game`` (``HostContext.game``, ``kept`` as there) and the seat of the
        interaction's user in it.

        Raises:
            HostError: no such game, one of another server, or the user does not play in it.
        """
        record = await self.game(interaction, game, kept=kept)
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            raise await self.not_seated(record, interaction.user.id)
        return record, seat

    async def not_seated(self, record: GameRecord, user_id: int) -> HostError:
        """The refusal for ``user_id``, who has no seat in ``record``: that they no longer
        play in it when they did (``ui.error.resigned``: their seat is marked left by their
        resign; ``ui.error.removed``: by a moderator's kick, or a moderator gave their seat
        to someone else or to an AI, a ``replace``/``ai_seat`` entry whose ``old_user`` they
        are), else that it is not their game (``ui.error.not_your_game``, which names it: its title and number)."""
        left = next((s.seat for s in record.seats if s.user_id == user_id and s.status == "left"), None)
        entries = await self.service.log(record.id) if record.state is not None else []
        for e in reversed(entries):
            act = e.action
            if e.kind != "system":
                continue
            if left is not None and act.get("type") in ("resign", "kick") and act.get("seat") == left:
                key = "resigned" if act["type"] == "resign" else "removed"
                return HostError(Msg(f"ui.error.{key}", {"game": record.id}), "not_a_player")
            handed = act.get("type") == "replace" or (act.get("type") == "ai_seat" and act.get("reason") != "autopilot")
            if handed and act.get("old_user") == user_id:
                return HostError(Msg("ui.error.removed", {"game": record.id}), "not_a_player")
        return HostError(Msg("ui.error.not_your_game", {"game": record.id, "name": {"msg": f"ui.game.{record.game_id}"}}),
                         "not_a_player")
