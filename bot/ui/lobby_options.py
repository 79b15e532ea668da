"""The lobby's option and timer menus (taps, not typed ``key=value``):
built from each engine's declared options (``EngineInfo.options``, ``OptionSpec``), in the
lobby message under Join / Leave / Start.

| item | custom_id | values |
|---|---|---|
| option | ``lo:{game}:key`` | the option keys (the pick shows its values), and the move timer (``TIMER_KEY``) while an option's values stand in the timer's place |
| timer | ``lo:{game}:timer`` | the ``TIMEOUT_PRESETS`` in seconds (shown until an option is picked) |
| value | ``lo:{game}:v:{key}`` | the values offered for ``key`` (``offered_values``), in the timer's place |

The lobby uses four of Discord's five action rows (Join / Leave / Start, Add AI, the option and
the timer or the values of the option picked): one is left for what comes.

A pick goes to ``bot.ui.lobby.Lobby.choose``; only the host or a moderator changes anything.
The lobby's **Add AI** select (``la:{game}``) goes to ``bot.ui.ai.AiPlayers.lobby_pick``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import discord

from bot.service import HostError
from bot.settings import TIMEOUT_PRESETS
from bot.storage import GameRecord
from bot.text import MissingText, Texts, host_sentence, locale_of
from bot.ui.components import Reported
from bot.ui.dispatch import dispatch_of
from bot.ui.limits import SELECT_LABEL, SELECT_OPTIONS, clip
from bot.ui.table_text import say, tmsg
from engines.ai import LEVELS
from engines.base import Engine, Msg, OptionSpec


def timeout_label(seconds: int, locale: str = "en") -> str:
    """``"24 hours"`` for a preset in English, else a plain duration (whole hours, or
    minutes) in ``locale``."""
    for label, value in TIMEOUT_PRESETS.items():
        if value == seconds and locale_of(locale) == "en":
            return label
    tx = Texts(None, [], locale)
    if seconds % 3600 == 0:
        return tx(Msg("ui.timer.hours", {"n": seconds // 3600}))
    return tx(Msg("ui.timer.minutes", {"n": max(1, seconds // 60)}))


NUMERIC_STEPS = 6
"""A numeric option offers its bounds and this many steps between them (plus its default
and its current value)."""


def offered_values(spec: OptionSpec, current: Any) -> list[Any]:
    """The values a lobby offers for ``spec``, in order: its choices; ``True``/``False``;
    for numbers the bounds, ``NUMERIC_STEPS`` even steps between them, the default and the
    current value (at most ``SELECT_OPTIONS``)."""
    if spec.kind == "choice":
        values = list(spec.choices)
    elif spec.kind == "bool":
        values = [True, False]
    elif spec.minimum is None or spec.maximum is None:
        values = [spec.default]
    else:
        lo, hi = spec.minimum, spec.maximum
        raw = [lo + (hi - lo) * k / NUMERIC_STEPS for k in range(NUMERIC_STEPS + 1)]
        values = [int(round(v)) if spec.kind == "int" else round(v, 3) for v in raw]
    values += [v for v in (spec.default, current) if v not in values]
    if spec.kind in ("int", "float"):
        values.sort()
    return values[:SELECT_OPTIONS]


def shown(value: Any) -> str:
    """A value as a menu shows it (``true``, ``0.5``, ``zones``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def value_text(tx: Texts, value: Any, spec: OptionSpec | None = None) -> str:
    """A value in the reader's words: ``options.true`` / ``options.false`` for a flag; a
    choice of ``spec`` by its name in the game's catalog (``option.<key>.values.<value>``,
    e.g. bot/text/en/heaven.toml ``option.board_side.values``); else the value itself
    (numbers, and the notation ``/game prefs`` and ``/game new`` take)."""
    if isinstance(value, bool):
        return tx(Msg(f"options.{str(value).lower()}"))
    if spec is not None and spec.kind == "choice":
        try:
            return tx.template(f"option.{spec.key}.values.{shown(value)}")
        except MissingText:
            pass
    return shown(value)


def option_text(tx: Texts, spec: OptionSpec, kind: str = "option") -> tuple[str, str]:
    """``(name, about)`` of an option (``kind="option"``) or preference (``"pref"``) of
    ``tx``'s game in its reader's language: the game catalog's ``<kind>.<key>.name`` and
    ``.about`` (e.g. bot/text/en/heaven.toml ``pref.auto_draw``); the key and the English
    ``description`` where the catalog has none."""
    out: list[str] = []
    for part, fallback in (("name", spec.key), ("about", spec.description)):
        try:
            out.append(tx.template(f"{kind}.{spec.key}.{part}"))
        except MissingText:
            out.append(fallback)
    return out[0], out[1]


class LobbySelect(Reported, discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=r"lo:(?P<game>\d+):(?P<what>timer|key|v:[A-Za-z0-9_]{1,60})"):
    """A lobby menu (module docstring)."""

    route = "lo"

    def __init__(self, game: int, what: str, options: list[discord.SelectOption] | None = None,
                 placeholder: str = "…") -> None:
        super().__init__(discord.ui.Select(custom_id=f"lo:{game}:{what}", placeholder=clip(placeholder, 150),
                                           options=options or [discord.SelectOption(label="…", value="0")]))
        self.game, self.what = game, what

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbySelect:
        return cls(int(match["game"]), match["what"])

    async def run(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        if len(values) != 1:
            raise HostError(tmsg("bad_jump"), "bad_pick")
        await dispatch_of(interaction).run(self.route, interaction, self, values[0])


TIMER_KEY = ":timer"
"""The move timer's entry in the option menu (no option key has a colon)."""


def option_rows(record: GameRecord, engine: Engine, key: str | None = None,
                locale: str = "en") -> list[discord.ui.Item[Any]]:
    """The lobby's menus in ``locale``, two rows: the option to change (when the game has
    options: each option's name, value and description, ``option_text``) and in the row
    below, the move timer's presets, or after an option was picked (``key``), that option's
    values. The move timer is in the lobby's menus once: its presets, or, while an option's
    values stand in their place, the option menu's first entry, which brings them back.
    Values are JSON in the menu."""
    items: list[discord.ui.Item[Any]] = []
    tx = Texts(engine.info.game_id, [], locale)
    specs = engine.info.options[:SELECT_OPTIONS - 1]
    spec = next((s for s in specs if s.key == key), None)
    if specs:
        keys = [] if spec is None else [discord.SelectOption(label=clip(tx(Msg("options.label", {
            "name": tx(Msg("ui.lobby.timer")), "value": timeout_label(record.move_timeout, locale)})), SELECT_LABEL),
            value=TIMER_KEY)]
        for s in specs:
            name, about = option_text(tx, s)
            label = tx(Msg("options.label", {"name": name, "value": value_text(tx, record.options.get(s.key, s.default), s)}))
            keys.append(discord.SelectOption(label=clip(label, SELECT_LABEL), value=s.key,
                                             description=clip(about, SELECT_LABEL) if about else None,
                                             default=s.key == key))
        items.append(LobbySelect(record.id, "key", keys, say("lobby_option", locale)))
    if spec is None:
        timers = [discord.SelectOption(label=timeout_label(seconds, locale), value=str(seconds),
                                       default=seconds == record.move_timeout)
                  for seconds in TIMEOUT_PRESETS.values()]
        items.append(LobbySelect(record.id, "timer", timers, say("lobby_timer", locale)))
    else:
        current = record.options.get(spec.key, spec.default)
        values = [discord.SelectOption(label=clip(value_text(tx, v, spec), SELECT_LABEL), value=json.dumps(v),
                                       default=v == current)
                  for v in offered_values(spec, current)]
        items.append(LobbySelect(record.id, f"v:{spec.key}", values,
                                 say("lobby_value", locale, key=option_text(tx, spec)[0])))
    return items


class AiLobbySelect(Reported, discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"la:(?P<game>\d+)"):
    """The lobby's **Add AI** select: a level (easy / normal / hard) fills the next seat;
    the last option frees the last AI seat (``AiPlayers.lobby_pick``)."""

    route = "la"

    def __init__(self, game: int, locale: str = "en") -> None:
        options = [discord.SelectOption(label=host_sentence("ai.add_option", locale, level=host_sentence(f"ai.level.{level}", locale)),
                                        value=level, description=host_sentence("ai.add_option_hint", locale), emoji="🤖")
                   for level in LEVELS]
        options.append(discord.SelectOption(label=host_sentence("ai.remove_option", locale), value="remove",
                                            description=host_sentence("ai.remove_option_hint", locale)))
        super().__init__(discord.ui.Select(custom_id=f"la:{game}", placeholder=host_sentence("ai.add_placeholder", locale),
                                           options=options, min_values=1, max_values=1))
        self.game = game

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> AiLobbySelect:
        return cls(int(match["game"]))

    async def run(self, interaction: discord.Interaction) -> None:
        """Seat or remove an AI.

        Raises:
            HostError: a value the select does not offer.
        """
        values = self.item.values
        if len(values) != 1 or values[0] not in (*LEVELS, "remove"):
            raise HostError(Msg("ai.refuse.unknown_level", {"level": (values or ["?"])[0][:20]}), "bad_level")
        await dispatch_of(interaction).run(self.route, interaction, self, values[0])


AI_ITEMS = (AiLobbySelect,)
"""The lobby's Add AI select (registered beside ``DYNAMIC_ITEMS``)."""
