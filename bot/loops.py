"""Helpers for ``discord.ext.tasks`` loops (the clock, the backups)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from discord.ext import tasks


async def stop_loop(loop: tasks.Loop[Any]) -> None:
    """Cancel ``loop`` and wait until its task has ended (a pass under way is cancelled
    too; its errors were already reported by the loop)."""
    task = loop.get_task()
    loop.cancel()
    if task is not None:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
