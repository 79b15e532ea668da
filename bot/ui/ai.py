"""AI seats in play: the host's AI driver, the lobby's **Add AI** select,
``/game autopilot`` and the moderators' hand-over of a seat to an AI.

The driver (``AiPlayers``) is told of every committed change (``GameService.listeners``);
whenever a running game awaits a seat the computer plays (``SeatRecord.is_ai``), it computes
the move in a worker process (``engines.ai.worker.think`` in a
``bot.workers.worker_pool`` of ``Settings.ai_workers`` processes; never on the
event loop) and applies it through ``GameService.act_for_seat`` exactly as a player's move:
a version check, the same log entry, the outbox delivers it. Reactions (a work-contract
answer, an Exilium) are just more seats to move. At start-up and on every clock pass,
``resume`` pokes every active game awaiting an AI seat, so a restart in the middle of an
AI's turn resumes it. ``settled`` waits until no AI move is pending (tests never sleep).

Decisions: an AI seat added in the lobby or handed over
by a moderator gets a synthetic negative user id and the AI's name (``ai.seat_name``, from the
second AI of a level on with the next number, "Bot · Easy 2", kept for the game's life:
``bot.service.next_ai_name``); a
player's own seat on autopilot keeps its player, who takes it back with
``/game autopilot`` with ``on`` False (their own moves stay allowed meanwhile: whoever is first
moves). A table keeps at least one person: a lobby may hold at most all seats but one as AI,
and no seat is handed to an AI when that would leave only AIs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import discord
from discord import app_commands

from bot.service import GameService, HostError, ai_name, seat_names, texts
from bot.storage import GameRecord
from bot.text import host_sentence, locale_of
from bot.ui.arguments import game_number
from bot.ui.checks import check_origin
from bot.ui.context import HostContext
from bot.ui.dispatch import dispatch_of
from bot.ui.lobby_options import timeout_label
from bot.ui.notices import Notices
from bot.ui.panels import lobby_embed, lobby_view
from bot.ui.permissions import is_moderator
from bot.workers import worker_pool
from engines.ai import LEVELS
from engines.ai.worker import think
from engines.base import SEAT_LETTERS, GameError, Msg, seat_letter

log = logging.getLogger(__name__)

MAX_FAILURES = 3
"""How often the driver retries a game whose AI move failed (a worker crash, an engine
refusal) before it leaves that position to the move timer."""


def ai_seats_waited(service: GameService, record: GameRecord) -> list[int]:
    """The active AI seats ``record`` waits for now, lowest first (empty when paused, not
    running or none)."""
    if record.status != "active" or record.paused or record.state is None:
        return []
    waiting = service.waiting(record)
    return sorted(s.seat for s in record.seats if s.is_ai and s.status == "active" and s.seat in waiting)


say = host_sentence
"""The ``ai.*`` sentence ``key`` in ``locale`` (bot/text/en/ai.toml)."""


class AiPlayers:
    """The AI driver of one bot (see the module docstring).

    Args:
        ctx: the host context (its ``settings.ai_workers`` sizes the pool; its
            ``settings.ai_iterations``, when above 0, fixes the search budget: tests).
        notices: delivers each applied AI move.
    """

    def __init__(self, ctx: HostContext, notices: Notices) -> None:
        self.ctx = ctx
        self.notices = notices
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._failures: dict[tuple[int, int], int] = {}
        self._thinking: dict[int, tuple[int, asyncio.Future[dict[str, Any]]]] = {}
        self._stopped: set[int] = set()
        self._closed = False
        ctx.service.listeners.append(self.poke)

    # ------------------------------------------------------------------ driving
    def poke(self, game: int) -> None:
        """``game`` changed: make sure a driver task looks at it (never blocks)."""
        if self._closed:
            return
        task = self._tasks.get(game)
        if task is not None and not task.done():
            self._again.add(game)
            return
        committed = self.ctx.service.changing(game)
        if committed is not None and not ai_seats_waited(self.ctx.service, committed):
            return  # (no AI seat awaited as this change left the game: nothing to read, ``_step`` would stop)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (no loop: a synchronous caller; the next pass resumes it)
            return
        self._tasks[game] = loop.create_task(self._run(game), name=f"ai-{game}")

    async def _run(self, game: int) -> None:
        async with self.ctx.tracked():
            while not self._closed:
                self._again.discard(game)
                try:
                    moved = await self._step(game)
                except Exception:
                    log.exception("AI move in game %s failed", game)
                    moved = False
                if not moved and game not in self._again:
                    return

    async def _step(self, game: int) -> bool:
        """Play one AI move of ``game`` if it awaits an AI seat; True when something moved
        (or the position changed meanwhile), so the caller looks again."""
        service = self.ctx.service
        record = await service.get(game)
        seats = ai_seats_waited(service, record)
        if not seats:
            return False
        seat = seats[0]
        key = (game, record.version)
        if self._failures.get(key, 0) >= MAX_FAILURES:
            return False
        level = next(s.ai_level for s in record.seats if s.seat == seat) or "normal"
        assert record.state is not None
        try:
            action = await self._think(record.game_id, record.state, seat, level,
                                       f"ai:{record.seed}:{record.version}:{seat}", game=game)
        except asyncio.CancelledError:
            if game not in self._stopped:
                raise
            self._stopped.discard(game)
            return True  # (``stop``: the seat changed hands; look at the game again)
        except (GameError, BrokenProcessPool, OSError):
            log.exception("AI of game %s seat %s could not think", game, seat)
            self._failures[key] = self._failures.get(key, 0) + 1
            return self._failures[key] < MAX_FAILURES
        try:
            result = await service.act_for_seat(game, seat, action, expected_version=record.version)
        except HostError as exc:
            if exc.code == "stale":  # someone moved meanwhile: think again on the new position
                return True
            log.info("AI move in game %s refused: %s", game, exc.message)
            return False
        except GameError:
            log.exception("the engine refused the AI's move in game %s", game)
            self._failures[key] = self._failures.get(key, 0) + 1
            return self._failures[key] < MAX_FAILURES
        self._failures.pop(key, None)
        await self.ctx.delivered(self.notices.after(result))
        return True

    async def _think(self, game_id: str, state: dict[str, Any], seat: int, level: str, seed: str, *,
                     game: int) -> dict[str, Any]:
        pool = self._pool
        if pool is None:
            pool = self._pool = worker_pool(self.ctx.settings.ai_workers)
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(pool, think, game_id, state, seat, level, seed, self.ctx.settings.ai_iterations)
        self._thinking[game] = (seat, job)
        try:
            return await job
        except BrokenProcessPool:
            self._pool = None  # (a worker died: the next move gets a fresh pool)
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            if self._thinking.get(game, (None, None))[1] is job:
                del self._thinking[game]

    def stop(self, game: int, seat: int) -> bool:
        """``seat`` of ``game`` is no longer the computer's (a moderator gave it to a person,
        or its player took it back from autopilot): cancel the AI's think for it, if one is
        under way, and look at the game again (another AI seat may be due). A search still
        queued for a worker never runs; one a worker already runs ends within its budget
        and its move is dropped (``act_for_seat`` refuses a seat that is not an AI's, too).
        Returns whether a think was cancelled."""
        seat_job = self._thinking.get(game)
        cancelled = False
        if seat_job is not None and seat_job[0] == seat and not seat_job[1].done():
            cancelled = seat_job[1].cancel()
            if cancelled:
                self._stopped.add(game)
        self.poke(game)
        return cancelled

    async def resume(self) -> list[int]:
        """Poke every active game awaiting an AI seat (at start-up and on each clock pass:
        a restart mid-turn resumes the AI); returns their ids."""
        found = []
        for record in await self.ctx.service.games(status=("active",)):
            if any(s.is_ai for s in record.seats) and ai_seats_waited(self.ctx.service, record):
                found.append(record.id)
                self.poke(record.id)
        return found

    def busy(self) -> bool:
        """Whether an AI move is being computed or applied."""
        return any(not t.done() for t in self._tasks.values())

    async def settled(self) -> None:
        """Wait until every AI move due is made and delivered (those it causes included)."""
        while True:
            tasks = [t for t in self._tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop: cancel the driver tasks and shut the worker processes down."""
        self._closed = True
        for task in self._tasks.values():
            task.cancel()
        for task in self._tasks.values():
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        if self._pool is not None:  # (a search under way ends within its budget; not on the loop)
            await asyncio.to_thread(self._pool.shutdown, wait=True, cancel_futures=True)
            self._pool = None

    # ------------------------------------------------------------------ lobby
    async def lobby_pick(self, interaction: discord.Interaction, game: int, value: str) -> None:
        """The lobby's Add AI select: ``easy``/``normal``/``hard`` seats an AI of that level,
        ``remove`` frees the last AI seat; the lobby message shows the change.

        Raises:
            HostError: a lobby of another server or channel, not the host or a moderator,
                unknown level, full or closed lobby, no AI to remove.
        """
        await interaction.response.defer()
        await self.ctx.game(interaction, game)
        moderator = await is_moderator(self.ctx, interaction)
        if value == "remove":
            record = await self.ctx.service.remove_ai(game, interaction.user.id, is_moderator=moderator)
        else:
            record = await self.ctx.service.add_ai(game, value, interaction.user.id, is_moderator=moderator)
        engine = self.ctx.service.engine(record)
        loc = self.ctx.delivery.locales.public(record.guild_id)  # (the lobby message is public)
        await interaction.edit_original_response(
            embed=lobby_embed(engine, record, timeout_label(record.move_timeout, loc), loc), view=lobby_view(record, loc))

    # ------------------------------------------------------------------ seats
    async def autopilot(self, interaction: discord.Interaction, record: GameRecord, on: bool,
                        level: str | None) -> None:
        """``/game autopilot``: the caller hands their own seat to an AI (``on``) or takes it
        back; announced in the game's thread.

        Raises:
            HostError: not playing in the game, the game is not running, already (not) on
                autopilot, or it would leave only AIs.
        """
        check_origin(interaction, record)
        await interaction.response.defer(ephemeral=True, thinking=True)
        locale = self.ctx.delivery.locales.private(interaction)
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            raise await self.ctx.not_seated(record, interaction.user.id)
        current = next(s for s in record.seats if s.seat == seat)
        if on == current.is_ai:
            raise HostError(say("ai.refuse.already_ai" if on else "ai.refuse.not_ai", locale), "autopilot")
        level = (level or "normal") if on else None
        updated = await self.ctx.service.hand_to_ai(record.id, seat, level, interaction.user.id,
                                                    reason="autopilot", new_bot=False)
        if level is None:
            self.stop(record.id, seat)
        loc = self.ctx.delivery.locales.public(record.guild_id)
        tx = texts(record, loc)  # (names the seat as every public line does: shortened, escaped)
        name = {"seat": seat}
        if level is not None:
            public = tx(Msg("ai.say.autopilot_on", {"name": name, "level": say(f"ai.level.{level}", loc)}))
            private = say("ai.say.autopilot_on_private", locale, game=record.id,
                          level=say(f"ai.level.{level}", locale))
        else:
            public = tx(Msg("ai.say.autopilot_off", {"name": name}))
            private = say("ai.say.autopilot_off_private", locale, game=record.id)
        await self.ctx.delivered(self._announce(updated.home_channel_id, public))
        self.ctx.delivery.boards.request_board(record.id)
        await interaction.followup.send(private, ephemeral=True)

    async def _announce(self, channel_id: int, text: str) -> None:
        await self.ctx.delivery.transport.send_text(channel_id, text)

    async def hand_over(self, interaction: discord.Interaction, record: GameRecord, user: discord.abc.User | None,
                        level: str, *, reason: str, seat: int | None = None) -> None:
        """A moderator's ``/game mod replace … ai:`` or ``/game mod kick … ai:`` (``reason``
        ``replace``/``kick``): the member's seat (or ``seat``, by index) goes to a new AI of
        ``level``; announced in the game's thread, and the moderator is told privately which
        seat went from whom to which AI.

        Raises:
            HostError: the member has no seat, the game is not running, or it would leave
                only AIs.
        """
        check_origin(interaction, record)
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.ctx.service.get(record.id)
        if seat is None:
            seat = record.seat_of(user.id) if user is not None else None
        if seat is None:
            raise HostError(Msg("ai.refuse.no_seat"), "not_a_player")
        uid = record.user_of(seat)
        was_ai = any(s.seat == seat and s.is_bot for s in record.seats)  # (no user to mention: its name)
        updated = await self.ctx.service.hand_to_ai(record.id, seat, level, interaction.user.id,
                                                    reason=reason, new_bot=True)
        loc, mine = self.ctx.delivery.locales.public(record.guild_id), self.ctx.delivery.locales.private(interaction)
        if was_ai:
            def ai_to_ai(key: str, locale: str) -> str:
                return say(key, locale, letter=seat_letter(seat), game=record.id,
                           old=seat_names(record, locale)[seat], name=ai_name(level, locale))
            text, answer = ai_to_ai("table.ai_seat_to_ai", loc), ai_to_ai("table.ai_seat_to_ai_private", mine)
        else:
            text = say(f"ai.say.{'replaced' if reason == 'replace' else 'kicked'}", loc, old=uid, game=record.id,
                       name=ai_name(level, loc))
            answer = say("ai.say.handed_private", mine, letter=seat_letter(seat), game=record.id, old=uid,
                         name=ai_name(level, mine))
        await self.ctx.delivered(self._announce(updated.home_channel_id, text))
        self.ctx.delivery.boards.request_board(record.id)
        await interaction.followup.send(answer, ephemeral=True)


def seat_named(record: GameRecord, value: str) -> int:
    """The seat index a ``seat:`` option names: its letter (``"B"``) or number (``"2"``),
    as ``seat_choices`` offers them.

    Raises:
        HostError: no such seat in ``record`` (``ai.refuse.bad_seat``).
    """
    text = value.strip().upper()
    seat = SEAT_LETTERS.find(text) if len(text) == 1 and text.isalpha() else \
        (int(text) - 1 if text.isascii() and text.isdigit() and len(text) < 3 else -1)
    if not 0 <= seat < len(record.seats):
        raise HostError(Msg("ai.refuse.bad_seat", {"game": record.id, "seat": value[:20]}), "bad_seat")
    return seat


async def seat_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete of a ``seat:`` option (``/game mod replace``): the seats of the chosen game
    of this server, by letter and name, AI seats marked with their level; filtered by what
    was typed. Empty before a game of this server is chosen."""
    number = game_number(getattr(interaction.namespace, "game", None))
    if number is None:
        return []
    try:
        record = await dispatch_of(interaction).service.get(number)
    except HostError:
        return []
    if record.guild_id != interaction.guild_id:
        return []
    locale = locale_of(str(interaction.locale))
    out = []
    names = seat_names(record, locale)  # (two AIs of a level: by their numbers, "Bot · Easy 2")
    for s in record.seats:
        letter = seat_letter(s.seat)
        label = say("ai.seat_choice_ai" if s.is_ai else "ai.seat_choice", locale, letter=letter, name=names[s.seat],
                    level=say(f"ai.level.{s.ai_level}", locale) if s.ai_level in LEVELS else "")
        if current.strip().lower() in label.lower():
            out.append(app_commands.Choice(name=label[:100], value=letter))
    return out[:25]


__all__ = ["AiPlayers", "ai_seats_waited", "say", "seat_choices", "seat_named"]
