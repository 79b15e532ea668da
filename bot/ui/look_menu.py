"""The "🔍 Look at…" select (bot/ui/looks.py says what a pick answers): built from a view's
regions, for the board message (``board_look``), a DM turn notice and a look's own answer."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import discord

from bot.storage import GameRecord
from bot.text import Texts
from bot.ui.components import LookSelect
from bot.ui.limits import SELECT_LABEL, SELECT_OPTIONS, distinct_labels
from engines.base import Msg
from render import registry as renders

log = logging.getLogger(__name__)


def look_select(game: int, regions: Sequence[tuple[str, Msg]], tx: Texts,
                current: str | None = None) -> LookSelect | None:
    """The "🔍 Look at…" select of ``regions`` (``render.registry.zoom_regions``) labelled by
    ``tx`` (names as they are: a select shows no markdown), ``current`` marked as chosen; None
    when there is nothing to look at. Regions past ``SELECT_OPTIONS`` or with a key longer than
    a select value may be are left out (logged)."""
    usable = [(key, label) for key, label in regions if 0 < len(key) <= SELECT_LABEL]
    if len(usable) < len(regions) or len(usable) > SELECT_OPTIONS:
        log.warning("game %s: %d regions to look at, %d listed", game, len(regions), min(len(usable), SELECT_OPTIONS))
    usable = usable[:SELECT_OPTIONS]
    if not usable:
        return None
    plain = tx.plain()
    labels = distinct_labels([plain(label) for _, label in usable], SELECT_LABEL)
    options = [discord.SelectOption(label=label or key[:SELECT_LABEL], value=key, default=key == current)
               for (key, _), label in zip(usable, labels, strict=True)]
    return LookSelect(game, options, plain(Msg("ui.look.placeholder")))


def board_look(record: GameRecord, public: dict[str, Any], tx: Texts) -> LookSelect | None:
    """The board message's "🔍 Look at…" of ``record`` (the regions of its ``public`` view, in the
    language of ``tx``: the server's), or None when its game has none."""
    if record.state is None or not renders.has_zoom(record.game_id):
        return None
    return look_select(record.id, renders.zoom_regions(record.game_id, public), tx)
