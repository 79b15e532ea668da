"""The table's persistent items (``bot/ui/table.py`` says what they do): ``TableButton``
(``t:{game}:{version}:{verb}``: undo, resign, rematch, a replay's prev / next) and
``ReplaySelect`` (``tj:{game}``); the end message's view (``end_view``) and the check that a
private panel's press comes from that panel (``check_own_panel``)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.service import HostError
from bot.storage import GameRecord
from bot.ui.components import Reported
from bot.ui.dispatch import dispatch_of
from bot.ui.lobby_options import LobbySelect
from bot.ui.table_text import say, tmsg


class TableButton(Reported, discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"t:(?P<game>\d+):(?P<version>\d+):(?P<verb>undo|resign|rematch|prev|next)"):
    """A table button (``bot/ui/table.py``): the game, the version it was offered at, the verb."""

    route = "t"

    STYLES = {"undo": discord.ButtonStyle.secondary, "resign": discord.ButtonStyle.danger,
              "rematch": discord.ButtonStyle.success, "prev": discord.ButtonStyle.secondary,
              "next": discord.ButtonStyle.secondary}

    def __init__(self, game: int, version: int, verb: str, *, disabled: bool = False, locale: str = "en") -> None:
        super().__init__(discord.ui.Button(label=say(f"{verb}_button", locale), style=self.STYLES[verb], disabled=disabled,
                                           custom_id=f"t:{game}:{version}:{verb}"))
        self.game, self.version, self.verb = game, version, verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TableButton:
        return cls(int(match["game"]), int(match["version"]), match["verb"])



class ReplaySelect(Reported, discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"tj:(?P<game>\d+)"):
    """Jump a replay to a round or step (the values are step indices)."""

    route = "tj"

    def __init__(self, game: int, options: list[discord.SelectOption] | None = None, locale: str = "en") -> None:
        super().__init__(discord.ui.Select(custom_id=f"tj:{game}", placeholder=say("jump", locale),
                                           options=options or [discord.SelectOption(label="…", value="0")]))
        self.game = game

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReplaySelect:
        return cls(int(match["game"]))

    async def run(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        if len(values) != 1 or not values[0].isdigit():
            raise HostError(tmsg("bad_jump"), "bad_pick")
        await dispatch_of(interaction).run(self.route, interaction, self, int(values[0]))


TABLE_ITEMS = (TableButton, ReplaySelect, LobbySelect)
"""Registered with the other dynamic items (``bot/app.py``)."""


def check_own_panel(interaction: discord.Interaction) -> None:
    """A press of a private panel's item must come from that panel: a private (ephemeral)
    message the bot sent the presser. Another member's click on it, or a panel's id sent
    from a public message (the board, a ping: only a forged one can be), is told it is not
    their panel before anything is read, so a public message is never redrawn as a panel.

    Raises:
        HostError: ``table.not_your_panel`` (code ``not_your_panel``).
    """
    message = interaction.message
    meta = message.interaction_metadata if message is not None else None
    if message is None or not message.flags.ephemeral or meta is None or meta.user.id != interaction.user.id:
        raise HostError(tmsg("not_your_panel"), "not_your_panel")


def end_view(record: GameRecord, view: discord.ui.View | None, locale: str = "en") -> discord.ui.View:
    """The end message's buttons: ``view`` (the board's) plus Rematch (labels in ``locale``)."""
    view = view or discord.ui.View(timeout=None)
    view.add_item(TableButton(record.id, record.version, "rematch", locale=locale))
    return view
