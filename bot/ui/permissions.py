"""Who counts as a moderator (docs/DESIGN.md §5): Manage Server, Manage Messages or
Administrator in the server, or the server's moderator role; and the ``moderator_only``
check of the moderator commands (its parts come from the bot's ``Dispatch``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

import discord
from discord import app_commands

from bot.ui.dispatch import dispatch_of

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.settings import Settings



class Knows(Protocol):
    """What ``is_moderator`` reads: the settings and the game service (``HostContext`` and
    ``Dispatch`` both carry them)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def service(self) -> GameService: ...


T = TypeVar("T")

NOT_A_MODERATOR = ("Only moderators (Manage Server or Manage Messages, or the moderator role) "
                   "can do that.")


class NotModerator(app_commands.CheckFailure):
    """The caller may not moderate; the message is the sentence they are shown (``key``:
    its catalog message, formatted in the reader's language by ``bot/ui/errors.py``)."""

    key = "ui.error.not_a_moderator"


SERVER_ONLY = "This command works in a server only: use it there, not in a DM."


class ServerOnly(app_commands.CheckFailure):
    """A server's command used in a DM with the bot (``key``: its catalog message, as
    ``NotModerator``'s)."""

    key = "ui.error.server_only"


async def is_moderator(ctx: Knows, interaction: discord.Interaction) -> bool:
    """Manage Server, Manage Messages or Administrator in the server, or the server's
    moderator role (``Settings.moderator_role_id`` or the one stored for the server)."""
    member = interaction.user
    if not isinstance(member, discord.Member):
        return False
    perms = member.guild_permissions
    if perms.manage_guild or perms.manage_messages or perms.administrator:
        return True
    roles = {r.id for r in member.roles}
    configured = ctx.settings.moderator_role_id
    stored = await ctx.service.moderator_role(member.guild.id)
    return bool(roles & {r for r in (configured, stored) if r})


def moderator_only() -> Callable[[T], T]:
    """An ``app_commands.check``: the command runs for moderators only (``is_moderator``),
    in a server; in a DM it is refused privately with ``SERVER_ONLY`` (``ServerOnly``: nobody
    moderates a DM), others with ``NOT_A_MODERATOR`` (``NotModerator``)."""

    async def predicate(interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None:
            raise ServerOnly(SERVER_ONLY)
        if await is_moderator(dispatch_of(interaction), interaction):
            return True
        raise NotModerator(NOT_A_MODERATOR)

    return app_commands.check(predicate)
