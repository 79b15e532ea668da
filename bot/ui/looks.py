""""🔍 Look at…": one part of the table drawn at phone size, answered privately.

A board drawn for a phone (about 360 px wide) carries less than the whole table; the rest is one
tap away. A game whose renderer has ``zoom_regions(view)`` and ``render_zoom(view, region, *,
names, text)`` (render/registry.py ``has_zoom``) gets a select on its board message
(``bot.ui.components.LookSelect``, ``z:{game}``) listing the regions of the public view, labelled
in the server's language (the board message is public). A pick answers ephemerally, in the
reader's language, with that region drawn in a render worker (bot/render_pool.py, job kind
``zoom``) from the reader's own view: their private view when they hold a seat, else the public
view, so nobody ever sees another seat's hidden information. The answer carries the same select,
with the regions of the reader's own view (a seat may have more, e.g. its hand), to look further.
A DM turn notice carries it too (bot/ui/dm.py ``dm_look``): a DM is private, so its options are
those of the player's own view in their language.

Discord's limits (docs/DISCORD.md): at most ``SELECT_OPTIONS`` options (the first of the game's
order), labels cut apart at ``SELECT_LABEL`` (``bot.ui.limits.distinct_labels``), values (the region
keys) of at most ``SELECT_LABEL`` characters.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.service import HostError, drawn_view, texts
from bot.storage import GameRecord
from bot.ui.context import HostContext
from bot.ui.look_menu import look_select
from bot.ui.panels import game_title
from engines.base import Msg
from render import registry as renders

log = logging.getLogger(__name__)


class Looks:
    """The answer to a "🔍 Look at…" pick (module docstring)."""

    def __init__(self, ctx: HostContext) -> None:
        self.ctx = ctx

    def reader_view(self, record: GameRecord, user_id: int) -> dict[str, Any]:
        """The view ``user_id`` may see of ``record``: their seat's private view when they hold
        one, else the public view."""
        service = self.ctx.service
        seat = record.seat_of(user_id)
        if seat is None:
            return drawn_view(record, service.public_view(record))
        return service.engine(record).player_view(service.state(record), seat)

    async def look(self, interaction: discord.Interaction, game: int, region: str) -> None:
        """Answer privately with ``region`` of game ``game`` drawn from the reader's view, in the
        reader's language, with the select of the regions that view offers.

        Raises:
            HostError: no such game, one of another server or channel (``HostContext.game``),
                a game not started, or a region the reader's view does not offer now.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.ctx.game(interaction, game)
        if record.state is None:
            raise HostError(Msg("ui.error.look_not_started", {"game": record.id}), "not_started")
        view = self.reader_view(record, interaction.user.id)
        regions = renders.zoom_regions(record.game_id, view)
        labels = dict(regions)
        if region not in labels:
            raise HostError(Msg("ui.error.look_gone"), "bad_pick")
        delivery = self.ctx.delivery
        reader = delivery.locales.private(interaction)
        tx = texts(record, reader)
        file = await delivery.transport.render_file("zoom", record, view, tx.locale, "look",
                                          delivery.transport.upload_limit(record.guild_id), region=region)
        if file is None:
            raise HostError(Msg("ui.error.look_gone"), "bad_pick")
        engine = self.ctx.service.engine(record)
        text = tx(Msg("ui.look.shown", {"region": labels[region], "title": game_title(engine, record, reader)}))
        select = look_select(record.id, regions, tx, current=region)
        buttons = discord.ui.View(timeout=None)
        if select is not None:
            buttons.add_item(select)
        await interaction.followup.send(text, ephemeral=True, file=file, view=buttons)
