"""The checks every handler, item and transformer makes before it reads a game
(docs/DESIGN.md §5 "A game belongs to its server"): a component's ``custom_id`` must be on
the message it came from (``check_message``), and a game must be touched from its own
server, channel or its player's DM (``check_origin``). They read nothing."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import discord

from bot.service import HostError
from engines.base import Msg

if TYPE_CHECKING:
    from bot.storage import GameRecord

MAX_GAME_NUMBER = 10 ** 18
"""Game numbers are below this (larger ones are nobody's, and would not fit the database)."""

OTHER_SERVER = "Game #{game} belongs to another server; it can only be played and moderated there."
NOT_YOURS_IN_DM = ("Game #{game} is not one of your games; in a DM with the bot you can only use the games "
                   "you play in.")
OTHER_CHANNEL = "That button is not on one of game #{game}'s messages; use the game's own board in <#{channel}>."
FOREIGN_MESSAGE = "That button does not belong to this message; nothing was changed."
UNKNOWN_GAME = "There is no game #{game}."


def component_ids(components: Iterable[object]) -> Iterator[tuple[int, str]]:
    """``(component type, custom_id)`` of every component with a custom id in a message's
    components (discord.py ``Component`` objects: action rows and their children, v2
    containers and section accessories), depth first."""
    for comp in components:
        custom_id = getattr(comp, "custom_id", None)
        kind = getattr(comp, "type", None)
        if isinstance(custom_id, str) and isinstance(kind, discord.ComponentType):
            yield kind.value, custom_id
        yield from component_ids(getattr(comp, "children", None) or ())
        for attr in ("accessory", "component"):
            inner = getattr(comp, attr, None)
            if inner is not None:
                yield from component_ids((inner,))


def check_message(interaction: discord.Interaction) -> None:
    """A component interaction must come from a message of this bot that carries the pressed
    ``custom_id`` on a component of that type (docs/DESIGN.md §5: a ``custom_id`` arriving
    on another message changes nothing). Needs no database, so it runs before anything else.

    Raises:
        HostError: ``FOREIGN_MESSAGE`` (code ``foreign_message``).
    """
    message = interaction.message
    me = interaction.client.user
    data: dict[str, object] = dict(interaction.data or {})
    pressed = (data.get("component_type"), data.get("custom_id"))
    if (message is None or me is None or message.author.id != me.id
            or pressed not in set(component_ids(message.components))):
        raise HostError(Msg("ui.error.foreign_message"), "foreign_message")


def _private_to(message: discord.Message | None, user_id: int) -> bool:
    """Whether ``message`` is an ephemeral message the bot sent ``user_id`` (a private panel)."""
    if message is None or not message.flags.ephemeral:
        return False
    meta = message.interaction_metadata
    return meta is not None and meta.user.id == user_id


def check_origin(interaction: discord.Interaction, record: GameRecord) -> None:
    """Refuse anything about ``record`` that comes from elsewhere than its own server
    (docs/DESIGN.md §5 "A game belongs to its server"):

    - in a server: the game must be this server's; a button or select must moreover be on
      the game's own messages — in its channel or thread (lobby, board, pings) or a
      private panel the bot sent this user;
    - in a DM with the bot: the user must play in the game.

    Reads nothing; ``check_message`` has already checked the message itself.

    Raises:
        HostError: ``OTHER_SERVER``, ``NOT_YOURS_IN_DM`` or ``OTHER_CHANNEL`` (codes
            ``other_server``, ``not_yours``, ``other_channel``).
    """
    if interaction.guild_id is None:
        if record.seat_of(interaction.user.id) is None:
            raise HostError(Msg("ui.error.not_yours_in_dm", {"game": record.id}), "not_yours")
        return
    if record.guild_id != interaction.guild_id:
        raise HostError(Msg("ui.error.other_server", {"game": record.id}), "other_server")
    if interaction.type is not discord.InteractionType.component:
        return
    own = {record.channel_id, record.thread_id, record.board_channel_id} - {None}
    if interaction.channel_id in own or _private_to(interaction.message, interaction.user.id):
        return
    raise HostError(Msg("ui.error.other_channel", {"game": record.id, "channel": record.home_channel_id}),
                    "other_channel")
