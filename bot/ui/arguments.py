"""The ``game`` argument of the slash commands (STYLE: options are typed, autocomplete
only suggests): ``GameArgument`` turns ``"#12"`` or ``"12"`` into the stored game, refuses
an unknown one by its number, and suggests the caller's games here.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.service import HostError
from bot.storage import GameRecord
from bot.text import Texts, locale_of
from bot.ui.checks import MAX_GAME_NUMBER, check_origin
from bot.ui.dispatch import dispatch_of
from engines.base import Engine, Msg
from engines.registry import ENGINES

CHOICES = 25
"""Discord shows at most this many autocomplete choices."""



def game_number(text: object) -> int | None:
    """``"#12"``, ``" 12 "`` or ``12`` → 12; None for anything else (the raw value of a
    ``game`` option, e.g. as ``interaction.namespace`` holds it for autocomplete)."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text if 0 <= text < MAX_GAME_NUMBER else None
    if not isinstance(text, str):
        return None
    digits = text.strip().removeprefix("#").strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) > len(str(MAX_GAME_NUMBER)) - 1:
        return None
    return int(digits)


def engine_named(game_id: str) -> Engine:
    """The engine of a ``game`` choice (``/game new``, ``rules``, ``prefs``): the Discord
    client offers only the known ones, but a forged value must be refused, not crash.

    Raises:
        HostError: no game of that id (code ``unknown_game``), naming it and the known ones.
    """
    engine = ENGINES.get(game_id)
    if engine is None:
        raise HostError(Msg("ui.error.no_such_game", {"game": game_id[:40], "games": list(ENGINES)}),
                        "unknown_game")
    return engine


ChoiceList = list[app_commands.Choice[int | float | str]]
"""What an autocomplete answers (the values here are game numbers as text)."""


async def game_choices(interaction: discord.Interaction, current: str) -> ChoiceList:
    """The caller's lobbies and running games in this server, with the other games of
    this channel: those waiting on the caller first, then this channel's; filtered by
    what was typed (``current``, matched against the label)."""
    service = dispatch_of(interaction).service
    user = interaction.user.id
    mine = await service.games(user_id=user)
    here = await service.games(channel_id=interaction.channel_id) if interaction.channel_id else []
    games = {g.id: g for g in [*mine, *here] if g.guild_id == interaction.guild_id}
    typed = current.strip().removeprefix("#")

    def rank(g: GameRecord) -> tuple[bool, bool, int]:
        seat = g.seat_of(user)
        waiting = seat is not None and seat in g.waiting
        in_channel = interaction.channel_id in (g.channel_id, g.thread_id)
        return not waiting, not in_channel, g.id

    out: ChoiceList = []
    for g in sorted(games.values(), key=rank):
        seat = g.seat_of(user)
        waiting = seat is not None and seat in g.waiting
        tx = Texts(None, [], locale_of(str(interaction.locale)))
        state = tx(Msg("ui.choice.your_move" if waiting else f"ui.choice.{g.status}"))
        label = f"#{g.id} {tx(Msg(f'ui.game.{g.game_id}'))} — {state}"
        if typed in label:
            out.append(app_commands.Choice(name=label[:100], value=str(g.id)))
    return out[:CHOICES]


class GameArgument(app_commands.Transformer[Any]):
    """A ``game`` option: typed as text (``"#12"`` or ``"12"``), given to the command as
    its ``GameRecord``."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> GameRecord:
        """The stored game ``value`` names.

        Raises:
            HostError: not a game number, no such game, or a game of another server
                (``bot.ui.context.check_origin``).
        """
        number = game_number(value)
        if number is None:
            raise HostError(Msg("ui.error.bad_game_number", {"value": str(value)[:40]}), "bad_game")
        record = await dispatch_of(interaction).service.get(number)
        check_origin(interaction, record)
        return record

    async def autocomplete(self, interaction: discord.Interaction, value: Any, /,
                           ) -> ChoiceList:
        return await game_choices(interaction, str(value))


GameOption = app_commands.Transform[GameRecord, GameArgument]
"""The annotation of a ``game`` parameter: ``game: GameOption`` (or ``GameOption | None``)."""
