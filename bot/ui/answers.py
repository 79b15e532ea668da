"""Answering a component press with the message it redraws (one Discord call instead
of a deferral and an edit), within a bound that keeps Discord's 3 seconds (docs/DISCORD.md
"Interaction tokens"). Used by the private panels' picks and steps (bot/ui/moves.py); any handler
that now defers and then edits the message pressed can use it the same way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import discord

from bot import logsafe

log = logging.getLogger(__name__)

T = TypeVar("T")

ANSWER_WAIT = 0.5
"""Seconds a pick or a step in a panel waits for its redrawn panel before it defers
(``update_in_place``). Discord wants the first answer within 3 s of the interaction's
creation (docs/DISCORD.md), and the handler may start late (gateway lag, a busy event
loop) while the deferral itself needs a round trip; the capacity bench asks more: every
answer within 1 s (``bench/load.py`` ``ACK_MAX``), so the bound is half of that, leaving
0.5 s for the deferral. A move nearly always takes far less (tens of ms; a board is due
within 0.4 s at p95, ``BOARD_P95``); the bound is met under database lock waits (a busy
load) or a slow decision image, and those moves cost the two requests they always did."""

Edit = dict[str, Any]
"""The keyword arguments of a panel's edit (``content``, ``view``, maybe ``attachments``)."""


async def _answered(step: Awaitable[Any], what: str) -> bool:
    """Await a Discord answer whose failure must not raise (the work behind it is done or
    runs on); True when Discord accepted it, else False with a warning logged."""
    try:
        await step
    except discord.HTTPException as exc:
        log.warning("%s failed: %s", what, exc)
        return False
    return True


async def update_in_place(interaction: discord.Interaction, work: Coroutine[Any, Any, tuple[T, Edit]],
                          acknowledged: Callable[[], Awaitable[None]] | None = None) -> T:
    """Run ``work`` (a component press's handling: its value and the ``Edit`` of the
    message pressed) and answer ``interaction`` with that edit: in the callback itself
    (type 7 UPDATE_MESSAGE, ``response.edit_message``) when ``work`` is done within
    ``ANSWER_WAIT`` seconds, else by a deferred update (type 6) at the bound and an edit of
    ``@original`` (the message pressed) when ``work`` is done. ``work`` runs once as a task
    whichever way the race goes: the bound never cancels it, so a pick's move is
    committed exactly once; a cancelled caller leaves it running to its end. A refused
    answer (e.g. 10062, an answer too late) is logged, not raised: the value is returned
    all the same, and ``@original`` stays editable only when the answer went through.
    ``acknowledged`` is awaited once the deferral went through, while ``work`` runs on (a
    pick remembers its move in flight there: ``bot.service.InFlight``).

    Returns:
        ``work``'s value.

    Raises:
        Whatever ``work`` raises (a refusal, before or after the deferral: ``report``
        answers it privately, by a message or a follow-up).
    """
    logsafe.bind(interaction=interaction.id)  # (before the task: it runs in a copy of this context, and
    # what it binds stays there; the lines this handler logs after it, the outbox's among them, name it too)
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=ANSWER_WAIT)
    if done:
        value, edit = task.result()
        await _answered(interaction.response.edit_message(**edit), "answering a press with its panel")
        return value
    deferred = await _answered(interaction.response.defer(), "deferring a slow press")
    if deferred and acknowledged is not None:
        await acknowledged()
    value, edit = await task
    if deferred:
        await _answered(interaction.edit_original_response(**edit), "editing a panel after a deferral")
    return value
