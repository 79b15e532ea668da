"""How a persistent button or select, a check or a transformer reaches the code above it
without importing it (docs/DESIGN.md "Layers").

discord.py builds a persistent item from its ``custom_id`` and hands it the interaction
only, so the one way up is ``interaction.client``: the bot carries one ``Dispatch`` (``routing``), built
by the top layer (``bot/app.py``) once its handlers exist. It holds the parts a check or a
transformer reads (the service, the settings, the languages), the
``Guard`` that counts a handler in flight, and ``routes``: each item's route name (its
``custom_id`` prefix) → the handler that answers it. An item knows its route name, never
its handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import discord

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.settings import Settings
    from bot.ui.locales import Locales

Route = Callable[..., Awaitable[None]]
"""A handler of one kind of item: called with the interaction, the item, and what the item
parsed from the pick (a select's value), if anything."""


class Guard(Protocol):
    """Drops a second delivery of an interaction and counts a handler in flight
    (``bot.ui.context.HostContext`` is one)."""

    def first_delivery(self, interaction: discord.Interaction) -> bool: ...

    def tracked(self) -> AbstractAsyncContextManager[None]: ...


@dataclass(frozen=True)
class Dispatch:
    """What the bot offers its items, checks and transformers (module docstring)."""

    service: GameService
    settings: Settings
    locales: Locales
    guard: Guard
    routes: Mapping[str, Route]

    async def run(self, route: str, interaction: discord.Interaction, *args: Any) -> None:
        """Hand ``interaction`` (and ``args``: the item, what it parsed) to the handler of ``route``.

        Raises:
            KeyError: no handler was registered for ``route`` (a bug of the top layer).
        """
        await self.routes[route](interaction, *args)


@runtime_checkable
class Dispatching(Protocol):
    """A client that carries a ``Dispatch`` as ``routing`` (``GameBot`` does)."""

    routing: Dispatch


def dispatch_of(interaction: discord.Interaction) -> Dispatch:
    """The ``Dispatch`` of the client an interaction came to.

    Raises:
        TypeError: the client carries none (not a ``GameBot``).
    """
    client = interaction.client
    if not isinstance(client, Dispatching):
        raise TypeError(f"{type(client).__name__} carries no dispatch")
    return client.routing
