"""The game clock (docs/DESIGN.md §5 Time control): reminders at 50 % and 90 % of a
decision's window, the timeout moves at its deadline — and, for people with lives:
vacation days, quiet hours, and the pings held back by them.

- **Vacation days** (per player and game, set in the lobby with ``/game vacation``): when a
  deadline would expire while a player with days left is among those waited for, one day
  of each such player is used and the deadline moves a day on instead; announced in the
  thread, shown on the lobby and the board. The game waits for that player anyway, so the
  others waited for get the same day (one clock per game).
- **Quiet hours** (per server, set by moderators with ``/game mod quiet``): inside them no
  deadline expires (a deadline falling inside is moved to their end, so the timestamp
  shown is the real one), no reminder goes out, and turn pings are held back
  (``deferred_pings``) and sent when they end.
- **After a restart** the pings a change committed before it never sent are sent by the
  outbox (``Outbox.resume``: its pending ping rows), not by the clock.

``tick`` is one pass; tests call it with the fake Discord's clock (no waiting). The
running bot runs it every ``Settings.tick_seconds`` in a ``discord.ext.tasks`` loop,
started in ``setup_hook`` and cancelled on close; a failed pass is logged and the loop
goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

import discord
from discord.ext import tasks

from bot.loops import stop_loop
from bot.service import HostError
from bot.storage import GameRecord
from bot.text import Texts
from bot.ui.context import HostContext
from bot.ui.deadlines import DAY, MAX_VACATION_DAYS, QuietHours, parse_clock, parse_zone, quiet_hours
from bot.ui.lobby_options import timeout_label
from bot.ui.panels import lobby_embed, lobby_view
from engines.base import Msg

if TYPE_CHECKING:
    from bot.ui.notices import Notices

log = logging.getLogger(__name__)

class Clock:
    """Deadlines, reminders, timeouts, vacation days and quiet hours for ``ctx``;
    ``notices`` tells the table."""

    def __init__(self, ctx: HostContext, notices: Notices,
                 after_pass: Sequence[Callable[[], Awaitable[object]]] = ()) -> None:
        self.ctx = ctx
        self.notices = notices
        self.loop = tasks.loop(seconds=ctx.settings.tick_seconds, name="game-clock")(self._pass)
        self.after_pass = tuple(after_pass)
        """Run at the end of every pass (the AI driver's ``resume``, bot/ui/ai.py)."""

    def start(self, ready: Callable[[], Awaitable[None]]) -> None:
        """Run ``tick`` every ``Settings.tick_seconds``, the first once ``ready()`` returned
        (``Client.wait_until_ready``)."""

        async def wait() -> None:
            await ready()

        self.loop.before_loop(wait)
        self.loop.start()

    async def stop(self) -> None:
        """Cancel the loop and wait for it to end (a pass under way is cancelled too)."""
        await stop_loop(self.loop)

    async def _pass(self) -> None:
        try:
            async with self.ctx.tracked():  # (a pass in flight counts: ``wait_idle`` waits for it)
                await self.tick()
        except Exception:
            log.exception("game clock pass failed")

    async def tick(self, now: float | None = None) -> int:
        """One pass of the clock at ``now`` (unix seconds; default the context's clock):
        the pings held back by quiet hours that have ended; then the games past their
        deadline (a vacation day, or the timeout moves) and the reminders due — none inside
        their server's quiet hours.
        Returns how many games with a deadline it looked at; a game that fails is logged
        and the others go on."""
        now = self.ctx.clock() if now is None else now
        await self.send_deferred(now)
        touched = 0
        for record in await self.ctx.service.due(now):
            touched += 1
            try:
                deadline = record.deadline
                if deadline is None:  # (``due`` only returns games with a deadline)
                    continue
                quiet = await quiet_hours(self.ctx, record.guild_id)
                if quiet is not None and quiet.contains(now):
                    continue
                if now >= deadline:
                    if await self.use_vacation(record, now):
                        continue
                    result = await self.ctx.service.expire(record.id, record.version)
                    if result is not None:
                        await self.notices.after(result)
                    continue
                window = record.deadline_window or record.move_timeout
                count = 2 if now >= deadline - window * 0.1 else 1  # the 90 % reminder, else the 50 % one
                if count <= record.reminded:
                    continue
                async with self.ctx.service.lock(record.id):  # (a move under way keeps its count)
                    marked = await self.ctx.service.claim_reminder(record.id, record.version, count, record.waiting)
                if marked:  # (queued with the claim: the outbox sends it once, crash or not)
                    await self.ctx.outbox.flush(record.id)
            except Exception:
                log.exception("clock failed for game %s", record.id)
        for hook in self.after_pass:
            try:
                await hook()
            except Exception:
                log.exception("a clock pass hook failed")
        return touched

    async def send_deferred(self, now: float) -> None:
        """Send the pings quiet hours held back, for servers whose quiet hours are over, to
        the players the game still waits for."""
        for game, seats in (await self.ctx.service.deferred_pings()).items():
            try:
                record = await self.ctx.service.get(game)
                quiet = await quiet_hours(self.ctx, record.guild_id)
                if quiet is not None and quiet.contains(now):
                    continue
                if not await self.ctx.service.clear_deferred_pings(game):
                    continue  # (another process claimed them)
                waiting = sorted(set(seats) & set(record.waiting))
                if record.status == "active" and waiting:
                    await self.notices.turns.notify_turn(record, waiting)
            except Exception:
                log.exception("held-back pings of game %s failed", game)

    async def use_vacation(self, record: GameRecord, now: float) -> bool:
        """At an expired deadline: if players waited for have vacation days left, use one
        day of each and move the deadline a day on (past quiet hours), announced in the
        thread. Returns True when a day was used (or the game moved on meanwhile)."""
        active = {s.seat for s in record.seats if s.status == "active"}
        seats = [s for s in record.waiting if s in active and record.vacation_left(s) > 0]
        if not seats or record.deadline is None:
            return False
        vacations = {k: dict(v) for k, v in record.vacations.items()}
        for seat in seats:
            vacations[str(record.user_of(seat))]["used"] += 1
        deadline = record.deadline + DAY
        if deadline <= now:  # (the bot was offline past the day too: a day from now)
            deadline = now + DAY
        quiet = await quiet_hours(self.ctx, record.guild_id)
        if quiet is not None:
            deadline = quiet.end_after(deadline)
        if not await self.ctx.service.set_deadline(record.id, record.version, deadline, window=DAY,
                                                vacations=vacations):
            return True
        record = await self.ctx.service.get(record.id)
        tx = self.ctx.delivery.locales.public_texts(record)
        left = tx(Msg("host.comma")).join(f"{tx.name(s)} {record.vacation_left(s)}" for s in seats)
        key = "ui.clock.vacation" if len(seats) == 1 else "ui.clock.vacation_many"
        await self.ctx.delivery.transport.send_text(record.home_channel_id, tx(Msg(key, {
            "who": {"seats": list(seats)}, "left": left, "when": f"<t:{int(deadline)}:R>"})))
        self.ctx.delivery.boards.request_board(record.id)
        return True

    # ------------------------------------------------------------------ commands
    async def lobby_of(self, interaction: discord.Interaction) -> GameRecord:
        """The lobby ``/game vacation`` means without a number: the caller's only lobby in this
        channel, else the channel's only lobby (``set_vacation`` then says to join it first).
        Running and finished games are no candidates: vacation days are set before a game starts.

        Raises:
            HostError: several lobbies here (``ambiguous``); no lobby here: the caller's running
                game here has started (``vacation_started``, naming it), or the caller plays in no
                game here (``vacation_no_lobby``: how vacation days are set).
        """
        here = await self.ctx.service.games(status=("lobby", "active"), channel_id=interaction.channel_id)
        lobbies = [g for g in here if g.status == "lobby"]
        candidates = [g for g in lobbies if g.seat_of(interaction.user.id) is not None] or lobbies
        if len(candidates) > 1:
            raise HostError(Msg("ui.error.ambiguous"), "ambiguous")
        if not candidates:
            running = [g for g in here if g.seat_of(interaction.user.id) is not None]
            if running:
                raise HostError(Msg("ui.error.vacation_started", {"game": running[-1].id}), "not_lobby")
            raise HostError(Msg("ui.error.vacation_no_lobby"), "not_lobby")
        return candidates[0]

    async def set_vacation(self, interaction: discord.Interaction, record: GameRecord, days: int) -> None:
        """``/game vacation``: the caller's vacation days for the lobby ``record``; the
        lobby message shows them to everyone.

        Raises:
            HostError: not a lobby, the caller is not in it, or too many days.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        if not 0 <= days <= MAX_VACATION_DAYS:
            raise HostError(Msg("ui.error.bad_days", {"max": MAX_VACATION_DAYS}), "bad_days")
        if record.status != "lobby":
            raise HostError(Msg("ui.error.vacation_started", {"game": record.id}), "not_lobby")
        if not await self.ctx.service.set_vacation(record.id, interaction.user.id, days):
            raise HostError(Msg("ui.error.vacation_join_first"), "not_a_player")
        record = await self.ctx.service.get(record.id)
        if record.lobby_message_id is not None:
            engine = self.ctx.service.engine(record)
            message = self.ctx.delivery.transport.channel(record.channel_id).get_partial_message(record.lobby_message_id)

            async def edit() -> None:
                locale = self.ctx.delivery.locales.public(record.guild_id)
                await message.edit(embed=lobby_embed(engine, record, timeout_label(record.move_timeout, locale), locale),
                                   view=lobby_view(record, locale))

            await self.ctx.delivered(edit())
        tx = Texts(None, [], self.ctx.delivery.locales.private(interaction))
        await interaction.followup.send(tx(Msg("ui.clock.vacation_set_one" if days == 1 else "ui.clock.vacation_set",
                                               {"n": days, "game": record.id})), ephemeral=True)

    async def set_quiet(self, interaction: discord.Interaction, start: str | None, end: str | None,
                        zone: str | None) -> None:
        """``/game mod quiet`` (moderators): set the server's quiet hours, clear them (no
        ``start``/``end``), or show them.

        Raises:
            HostError: used in a DM, only one of start and end, a bad time or zone.
        """
        if interaction.guild_id is None:
            raise HostError(Msg("ui.error.quiet_dm"), "dm")
        if (start is None) != (end is None):
            raise HostError(Msg("ui.error.quiet_both"), "bad_time")
        await interaction.response.defer(ephemeral=True, thinking=True)
        if start is None or end is None:
            await self.ctx.service.set_quiet_hours(interaction.guild_id, None)
            tx = Texts(None, [], self.ctx.delivery.locales.private(interaction))
            await interaction.followup.send(tx(Msg("ui.clock.quiet_off")), ephemeral=True)
            return
        zone = (zone or "UTC").strip()
        parse_zone(zone)
        quiet = QuietHours(parse_clock(start), parse_clock(end), zone)
        if quiet.start == quiet.end:
            raise HostError(Msg("ui.error.quiet_same"), "bad_time")
        await self.ctx.service.set_quiet_hours(interaction.guild_id, (quiet.start, quiet.end, quiet.zone))
        tx = Texts(None, [], self.ctx.delivery.locales.private(interaction))
        await interaction.followup.send(tx(Msg("ui.clock.quiet_on", {"hours": quiet.describe()})), ephemeral=True)
