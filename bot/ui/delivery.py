"""The delivery layer (docs/DESIGN.md "Layers"): every message the bot posts or edits goes
through one of its parts, each with one job, built in this order (none is handed another
after it was built):

| part | module | job |
|---|---|---|
| ``transport`` | ``bot/ui/transport.py`` | posts, DMs, deletes; Discord's limits, nonces, one queue per channel |
| ``presence`` | ``bot/ui/presence.py`` | who is at the table (``Presence``); ``ScrollWatch`` (on ``transport``): where the boards stand |
| ``tokens`` | ``bot/ui/tokens.py`` | the last Play ▶ token of each board |
| ``boards`` | ``bot/ui/boards.py`` | board edits: coalesced, through a token where one is held |
| ``locales`` | ``bot/ui/locales.py`` | who reads in which language |

Above them (it needs the handlers' ``Composer`` of pings and the end), ``bot/ui/outbox_drain.py``
``Outbox`` sends the rows the service queued in the outbox.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot.render_pool import Renderer
from bot.ui.boards import Boards
from bot.ui.locales import Locales
from bot.ui.presence import DM_AWAY, Presence, ScrollWatch
from bot.ui.retries import Retries
from bot.ui.tokens import BoardTokens
from bot.ui.transport import Transport

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.storage import Repository


@dataclass(frozen=True)
class Delivery:
    """The parts of the delivery layer (module docstring)."""

    transport: Transport
    presence: Presence
    tokens: BoardTokens
    boards: Boards
    locales: Locales
    retries: Retries

    @classmethod
    def build(cls, client: discord.Client, service: GameService, repo: Repository, *,
              clock: Callable[[], float] | None = None, renderer: Renderer | None = None,
              lean: bool = True, away_after: float = DM_AWAY) -> Delivery:
        """The parts for ``client``, in dependency order (``clock``: the service's by default;
        ``renderer``: drawing in threads of this process by default)."""
        clock = clock or service.clock
        transport = Transport(client, clock, ScrollWatch(client), renderer or Renderer(0), lean=lean)
        presence = Presence(clock, away_after)
        tokens = BoardTokens(transport)
        locales = Locales(client)
        retries = Retries()
        boards = Boards(transport, tokens, presence, locales, service, repo, retries)
        return cls(transport, presence, tokens, boards, locales, retries)
