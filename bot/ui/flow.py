"""The handlers of the host, by role (docs/TEMPLATE.md "The host, by role"), wired to
one ``HostContext``: ``lobby`` (bot/ui/lobby.py), ``moves`` (moves.py), ``notices``
(notices.py), ``clock`` (clock.py), ``moderation`` (moderation.py) and ``looks`` (looks.py).

``GameBot`` holds one ``Flow`` as ``bot.flow``; buttons, checks and transformers reach it
through ``interaction.client`` (``bot.ui.context.flow_of``), cogs through their bot.
"""

from __future__ import annotations

from bot.ui.ai import AiPlayers
from bot.ui.clock import Clock
from bot.ui.context import HostContext
from bot.ui.lobby import Lobby
from bot.ui.looks import Looks
from bot.ui.moderation import Moderation
from bot.ui.moves import Moves
from bot.ui.notices import Notices
from bot.ui.table import Table


class Flow:
    """Every role's handlers over ``ctx``."""

    def __init__(self, ctx: HostContext) -> None:
        self.ctx = ctx
        self.notices = Notices(ctx)
        self.lobby = Lobby(ctx, self.notices)
        self.moves = Moves(ctx, self.notices)
        self.clock = Clock(ctx, self.notices)
        self.moderation = Moderation(ctx, self.notices)
        self.table = Table(ctx, self.notices)
        self.ai = AiPlayers(ctx, self.notices)
        self.looks = Looks(ctx)
        self.clock.after_pass.append(self.ai.resume)

    async def wait_idle(self) -> None:
        """Wait until no handler is in flight and every board update is delivered."""
        await self.ctx.wait_idle()

    async def tick(self, now: float | None = None) -> int:
        """One pass of the game clock at ``now`` (``Clock.tick``)."""
        return await self.clock.tick(now)
