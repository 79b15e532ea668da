"""Deliveries tried again later: after a game's n-th failure in a row that may pass
(``bot.ui.transport.transient``), its work runs again after ``delays[n]`` seconds; one retry
per game waits at a time, whoever asked for it (the board, the outbox)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence

RETRY_DELAYS = (1.0, 2.0, 5.0, 15.0, 60.0)
"""Seconds before a game's delivery is tried again after its n-th failed delivery in a row."""


class Retries:
    """The retries of failed deliveries, per game."""

    def __init__(self, delays: Sequence[float] = RETRY_DELAYS) -> None:
        self.delays = delays
        self._failures: dict[int, int] = {}
        self._waiting: dict[int, asyncio.Task[None]] = {}

    def later(self, game: int, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` after the next delay of ``game`` (nothing when a retry of the game is
        waiting already: it delivers what is pending)."""
        task = self._waiting.get(game)
        if task is not None and not task.done():
            return
        count = self._failures.get(game, 0)
        self._failures[game] = count + 1
        delay = self.delays[min(count, len(self.delays) - 1)]
        self._waiting[game] = asyncio.create_task(self._again(game, delay, work), name=f"outbox-retry-{game}")

    async def _again(self, game: int, delay: float, work: Callable[[], Awaitable[None]]) -> None:
        await asyncio.sleep(delay)
        self._waiting.pop(game, None)
        await work()

    def succeeded(self, game: int) -> None:
        """``game``'s deliveries went through: its next failure waits the first delay again."""
        self._failures.pop(game, None)

    def waiting(self) -> list[asyncio.Task[None]]:
        """The retries still waiting for their turn."""
        return [t for t in self._waiting.values() if not t.done()]

    async def close(self) -> None:
        """Cancel the retries still waiting (shutdown)."""
        for task in list(self._waiting.values()):
            task.cancel()
        for task in list(self._waiting.values()):
            with contextlib.suppress(BaseException):
                await task
