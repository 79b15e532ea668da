"""The game clock (docs/DESIGN.md §5 Time control): reminders at 50 % and 90 % of a
decision's window, the timeout moves at its deadline.

``tick`` is one pass; tests call it with the fake Discord's clock (no waiting). The
running bot runs it every ``Settings.tick_seconds`` in a ``discord.ext.tasks`` loop,
started in ``setup_hook`` and cancelled on close; a failed pass is logged and the loop
goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from discord.ext import tasks

from bot.ui.context import HostContext
from bot.ui.notices import Notices

log = logging.getLogger(__name__)

class Clock:
    """Deadlines, reminders and timeouts for ``ctx``; ``notices`` tells the table."""

    def __init__(self, ctx: HostContext, notices: Notices) -> None:
        self.ctx = ctx
        self.notices = notices
        self.loop = tasks.loop(seconds=ctx.settings.tick_seconds, name="game-clock")(self._pass)

    def start(self, ready: Callable[[], Awaitable[None]]) -> None:
        """Run ``tick`` every ``Settings.tick_seconds``, the first once ``ready()`` returned
        (``Client.wait_until_ready``)."""

        async def wait() -> None:
            await ready()

        self.loop.before_loop(wait)
        self.loop.start()

    async def stop(self) -> None:
        """Cancel the loop and wait for it to end (a pass under way is cancelled too)."""
        task = self.loop.get_task()
        self.loop.cancel()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _pass(self) -> None:
        try:
            await self.tick()
        except Exception:
            log.exception("game clock pass failed")

    async def tick(self, now: float | None = None) -> int:
        """One pass of the clock at ``now`` (unix seconds; default the context's clock):
        the timeout moves of games past their deadline, and the reminders due. Returns
        how many games it looked at; a game that fails is logged and the others go on."""
        now = self.ctx.clock() if now is None else now
        touched = 0
        for record in await self.ctx.repo.due(now):
            touched += 1
            try:
                deadline = record.deadline
                if deadline is None:  # (``due`` only returns games with a deadline)
                    continue
                if now >= deadline:
                    result = await self.ctx.service.expire(record.id, record.version)
                    if result is not None:
                        await self.notices.after(result)
                    continue
                window = record.deadline_window or record.move_timeout
                count = 2 if now >= deadline - window * 0.1 else 1  # the 90 % reminder, else the 50 % one
                if count <= record.reminded:
                    continue
                if await self.ctx.repo.mark_reminded(record.id, record.version, count):
                    await self.notices.notify_turn(record, record.waiting, prefix="⏰ Reminder: ")
            except Exception:
                log.exception("clock failed for game %s", record.id)
        return touched
