"""What every handler of ``bot/ui/`` works with (docs/TEMPLATE.md "The host, by role"):
the game service, the repository, the delivery layer, the settings and the clock,
passed in as one ``HostContext`` — never the bot class, so ``bot/app.py`` and
``bot/ui/`` import each other in one direction only (``bot.app`` → ``bot.ui``).

It also counts the handlers in flight (``wait_idle``), keeps delivery failures after a
committed move from surfacing (``delivered``), drops a second delivery of the same
interaction (``first_delivery``) and finds the game a command means (``resolve_game``,
``game``, ``seated``) — refusing a game of another server (docs/DESIGN.md §5 "A game
belongs to its server": ``check_origin``, ``check_message``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import discord

from bot import logsafe
from bot.service import HostError
from engines.base import Msg

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.settings import Settings
    from bot.storage import GameRecord
    from bot.ui.delivery import Delivery
    from bot.ui.flow import Flow

log = logging.getLogger(__name__)

MAX_GAME_NUMBER = 10 ** 18
"""Game numbers are below this (larger ones are nobody's, and would not fit the database)."""

OTHER_SERVER = "Game #{game} belongs to another server; it can only be played and moderated there."
NOT_YOURS_IN_DM = ("Game #{game} is not one of your games; in a DM with the bot you can only use the games "
                   "you play in.")
OTHER_CHANNEL = "That button is not on one of game #{game}'s messages; use the game's own board in <#{channel}>."
FOREIGN_MESSAGE = "That button does not belong to this message; nothing was changed."
UNKNOWN_GAME = "There is no game #{game}."

REMEMBERED_INTERACTIONS = 4096
"""How many interaction ids ``first_delivery`` remembers (Discord retries within seconds)."""


def component_ids(components: Iterable[object]) -> Iterator[tuple[int, str]]:
    """``(component type, custom_id)`` of every component with a custom id in a message's
    components (discord.py ``Component`` objects: action rows and their children, v2
    containers and section accessories), depth first."""
    for comp in components:
        custom_id = getattr(comp, "custom_id", None)
        kind = getattr(comp, "type", None)
        if isinstance(custom_id, str) and isinstance(kind, discord.ComponentType):
            yield kind.value, custom_id
        yield from component_ids(getattr(comp, "children", None) or ())
        for attr in ("accessory", "component"):
            inner = getattr(comp, attr, None)
            if inner is not None:
                yield from component_ids((inner,))


def check_message(interaction: discord.Interaction) -> None:
    """A component interaction must come from a message of this bot that carries the pressed
    ``custom_id`` on a component of that type (docs/DESIGN.md §5: a ``custom_id`` arriving
    on another message changes nothing). Needs no database, so it runs before anything else.

    Raises:
        HostError: ``FOREIGN_MESSAGE`` (code ``foreign_message``).
    """
    message = interaction.message
    me = interaction.client.user
    data: dict[str, object] = dict(interaction.data or {})
    pressed = (data.get("component_type"), data.get("custom_id"))
    if (message is None or me is None or message.author.id != me.id
            or pressed not in set(component_ids(message.components))):
        raise HostError(Msg("ui.error.foreign_message"), "foreign_message")


def _private_to(message: discord.Message | None, user_id: int) -> bool:
    """Whether ``message`` is an ephemeral message the bot sent ``user_id`` (a private panel)."""
    if message is None or not message.flags.ephemeral:
        return False
    meta = message.interaction_metadata
    return meta is not None and meta.user.id == user_id


def check_origin(interaction: discord.Interaction, record: GameRecord) -> None:
    """Refuse anything about ``record`` that comes from elsewhere than its own server
    (docs/DESIGN.md §5 "A game belongs to its server"):

    - in a server: the game must be this server's; a button or select must moreover be on
      the game's own messages — in its channel or thread (lobby, board, pings) or a
      private panel the bot sent this user;
    - in a DM with the bot: the user must play in the game.

    Reads nothing; ``check_message`` has already checked the message itself.

    Raises:
        HostError: ``OTHER_SERVER``, ``NOT_YOURS_IN_DM`` or ``OTHER_CHANNEL`` (codes
            ``other_server``, ``not_yours``, ``other_channel``).
    """
    if interaction.guild_id is None:
        if record.seat_of(interaction.user.id) is None:
            raise HostError(Msg("ui.error.not_yours_in_dm", {"game": record.id}), "not_yours")
        return
    if record.guild_id != interaction.guild_id:
        raise HostError(Msg("ui.error.other_server", {"game": record.id}), "other_server")
    if interaction.type is not discord.InteractionType.component:
        return
    own = {record.channel_id, record.thread_id, record.board_channel_id} - {None}
    if interaction.channel_id in own or _private_to(interaction.message, interaction.user.id):
        return
    raise HostError(Msg("ui.error.other_channel", {"game": record.id, "channel": record.home_channel_id}),
                    "other_channel")


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
        service / delivery / settings: the game service (the handlers' only way to
            storage), delivery layer and settings of the running bot.
        clock: unix time in seconds (tests inject the fake Discord's clock).
    """

    service: GameService
    delivery: Delivery
    settings: Settings
    clock: Callable[[], float]
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
            await self.delivery.drain()
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
        the caller's only lobby or running game here; else the only running game here
        (one the caller was removed from, too: ``seated`` then says they no longer play
        in it); else the caller's only game here (a finished one); else the only game here.

        Raises:
            HostError: a game of another kind, or none or several candidates (the
                message says how to choose).
        """
        if game is not None:
            check_origin(interaction, game)
            if game_id and game.game_id != game_id:
                raise HostError(Msg("ui.error.wrong_game", {"game": game.id, "name": {"msg": f"ui.game.{game_id}"}}),
                                "wrong_game")
            return game
        here = await self.service.games(status=("lobby", "active", "finished"), channel_id=interaction.channel_id)
        if game_id:
            here = [g for g in here if g.game_id == game_id]
        mine = [g for g in here if g.seat_of(interaction.user.id) is not None]
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
        raise HostError(Msg("ui.error.no_game"), "no_game")

    async def game(self, interaction: discord.Interaction, game: int) -> GameRecord:
        """The game numbered ``game``, if ``interaction`` may touch it (``check_origin``).

        Raises:
            HostError: no such game (``UNKNOWN_GAME``), or one of another server / channel.
        """
        logsafe.bind(interaction=interaction.id)
        if not 0 <= game < MAX_GAME_NUMBER:
            raise HostError(Msg("ui.error.unknown_game", {"game": game}), "unknown_game")
        record = await self.service.get(game)
        logsafe.bind(game=record.id)  # (this handler's log lines name the game: LOG_FORMAT=json)
        check_origin(interaction, record)
        return record

    async def seated(self, interaction: discord.Interaction, game: int) -> tuple[GameRecord, int]:
        """The game ``game`` (``HostContext.game``) and the seat of the interaction's user in it.

        Raises:
            HostError: no such game, one of another server, or the user does not play in it.
        """
        record = await self.game(interaction, game)
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            raise await self.not_seated(record, interaction.user.id)
        return record, seat

    async def not_seated(self, record: GameRecord, user_id: int) -> HostError:
        """The refusal for ``user_id``, who has no seat in ``record``: that they no longer
        play in it when they did (``ui.error.resigned``: their seat is marked left by their
        resign; ``ui.error.removed``: by a moderator's kick, or a moderator gave their seat
        to someone else or to an AI, a ``replace``/``ai_seat`` entry whose ``old_user`` they
        are), else that it is not their game (``ui.error.not_your_game``)."""
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
        return HostError(Msg("ui.error.not_your_game"), "not_a_player")
