"""Persistent buttons and selects (design §5): ``DynamicItem``s whose ``custom_id``
carries the game, the state version and the verb, so they work after a restart.

custom_id formats (all ≤100 characters):

| item | custom_id | meaning |
|---|---|---|
| ``LobbyButton`` | ``l:{game}:{verb}`` | join / leave / start a lobby |
| ``BoardButton`` | ``g:{game}:{version}:{verb}`` | play / hand / log / rules on a board |
| ``ActionButton`` | ``a:{game}:{version}:{index}`` | play legal action ``index`` |
| ``ActionSelect`` | ``as:{game}:{version}:{page}`` | pick a legal action (values are indices) |
| ``NavButton`` | ``n:{game}:{version}:{page}:{group}`` | page or group navigation in a panel |
| ``DmButton`` | ``d:{game}:{verb}`` | play / hand from a player's DM (``bot/ui/dm.py``) |
| ``LookSelect`` | ``z:{game}`` | look at one part of the table, privately (values are region keys; ``bot/ui/looks.py``) |

Callbacks only parse and hand over to the handler of their route (each item's ``route``,
its custom id's prefix), which the top layer registered in the bot's ``Dispatch``
(``bot/ui/dispatch.py``): an item never imports a handler. Their errors take the one
error path of ``bot/ui/errors.py`` (``Reported``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

import discord

from bot.service import HostError
from bot.text import MissingText, Texts
from bot.ui.checks import check_message
from bot.ui.dispatch import dispatch_of
from bot.ui.errors import report
from bot.ui.limits import BUTTON_LABEL, SELECT_LABEL, clip
from bot.ui.transport import BOARD_BUTTON
from engines.base import Msg


def button_label(verb: str, locale: str = "en", fallback: str | None = None) -> str:
    """The label of a lobby, board or DM button (``ui.button.<verb>``) in ``locale``; a
    verb the catalog lacks (or lacks in ``locale``) shows ``fallback`` (an item's English
    ``LABELS``), else the English catalog's label."""
    try:
        return Texts(None, [], locale, strict=True)(Msg(f"ui.button.{verb}"))
    except MissingText:
        return fallback if fallback is not None else Texts(None, [])(Msg(f"ui.button.{verb}"))


class Reported:
    """Mixin of every persistent item: ``callback`` drops a second delivery of the same
    interaction, refuses a ``custom_id`` that is not on the message it came from
    (``bot.ui.checks.check_message``), runs ``run`` as a handler in flight and sends
    whatever it raises to ``bot.ui.errors.report`` (discord.py would only log it, and the
    user would see "This interaction failed"). The handlers check the game's server and
    channel (``HostContext.game`` / ``seated``) before they change anything."""

    route: ClassVar[str]
    """The name its handler is registered under in the bot's ``Dispatch`` (its custom id's prefix)."""

    async def callback(self, interaction: discord.Interaction) -> None:
        guard = dispatch_of(interaction).guard
        if not guard.first_delivery(interaction):
            return
        try:
            async with guard.tracked():
                check_message(interaction)
                await self.run(interaction)
        except Exception as exc:
            await report(interaction, exc)

    async def run(self, interaction: discord.Interaction) -> None:
        """Handle a press or a pick: hand the item to its route's handler (an item that
        parses a pick first says so)."""
        await dispatch_of(interaction).run(self.route, interaction, self)


class LobbyButton(Reported, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"l:(?P<game>\d+):(?P<verb>join|leave|start)"):
    """Join / Leave / Start on a lobby message."""

    route = "l"

    STYLES = {"join": discord.ButtonStyle.success, "leave": discord.ButtonStyle.secondary,
              "start": discord.ButtonStyle.primary}
    LABELS = {"join": "Join", "leave": "Leave", "start": "Start"}

    def __init__(self, game: int, verb: str, locale: str = "en") -> None:
        super().__init__(discord.ui.Button(label=button_label(verb, locale, self.LABELS.get(verb)),
                                           style=self.STYLES[verb], custom_id=f"l:{game}:{verb}"))
        self.game, self.verb = game, verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbyButton:
        return cls(int(match["game"]), match["verb"])



class BoardButton(Reported, discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=BOARD_BUTTON):
    """The buttons on a board or turn notice."""

    route = "g"

    STYLES = {"play": discord.ButtonStyle.primary, "hand": discord.ButtonStyle.secondary,
              "log": discord.ButtonStyle.secondary, "rules": discord.ButtonStyle.secondary}
    LABELS = {"play": "Play ▶", "hand": "My view", "log": "Log", "rules": "Rules"}

    def __init__(self, game: int, version: int, verb: str, label: str | None = None, locale: str = "en") -> None:
        super().__init__(discord.ui.Button(label=label or button_label(verb, locale, self.LABELS.get(verb)),
                                           style=self.STYLES[verb],
                                           custom_id=f"g:{game}:{version}:{verb}"))
        self.game, self.version, self.verb = game, version, verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> BoardButton:
        return cls(int(match["game"]), int(match["version"]), match["verb"])




class ActionButton(Reported, discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=r"a:(?P<game>\d+):(?P<version>\d+):(?P<index>\d+)"):
    """One legal action in a private panel."""

    route = "a"

    def __init__(self, game: int, version: int, index: int, label: str = "…",
                 style: discord.ButtonStyle = discord.ButtonStyle.primary) -> None:
        super().__init__(discord.ui.Button(label=clip(label, BUTTON_LABEL), style=style,
                                           custom_id=f"a:{game}:{version}:{index}"))
        self.game, self.version, self.index = game, version, index

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ActionButton:
        return cls(int(match["game"]), int(match["version"]), int(match["index"]))



def encode_path(path: tuple[int, ...]) -> str:
    """A decision path in a custom id: ``(2, 0)`` → ``"2.0"``, the root → ``""``."""
    return ".".join(str(i) for i in path)


def decode_path(text: str) -> tuple[int, ...]:
    """Inverse of ``encode_path``; the pre-path group numbers read as before (-1, -2, -3:
    the root; ``k``: group ``k``). Malformed text is the root."""
    if not text or text.startswith("-"):
        return ()
    try:
        return tuple(int(p) for p in text.split("."))
    except ValueError:
        return ()


def picked(interaction: discord.Interaction, select: discord.ui.Select[Any], one: str, not_offered: str) -> str:
    """The one value picked in ``select``, which its message must offer (``ActionSelect.offered``).

    Raises:
        HostError: not exactly one value (catalog key ``one``), or a value the menu does not offer
            (``not_offered``, naming it); code ``bad_pick``.
    """
    values = select.values
    if len(values) != 1:
        raise HostError(Msg(one), "bad_pick")
    if values[0] not in ActionSelect.offered(interaction, select.custom_id):
        raise HostError(Msg(not_offered, {"value": values[0][:40]}), "bad_pick")
    return values[0]


class ActionSelect(Reported, discord.ui.DynamicItem[discord.ui.Select[Any]],
                   template=r"as:(?P<game>\d+):(?P<version>\d+):(?P<page>\d+)(?::(?P<path>[0-9.]*))?"):
    """A select menu of legal actions (one page of at most 25); an option ``s<k>`` opens
    step ``k`` below ``path`` (engines/decisions.py)."""

    route = "as"

    def __init__(self, game: int, version: int, page: int,
                 options: list[discord.SelectOption] | None = None, placeholder: str = "Choose…",
                 *, path: tuple[int, ...] = ()) -> None:
        cid = f"as:{game}:{version}:{page}" + (f":{encode_path(path)}" if path else "")
        super().__init__(discord.ui.Select(
            custom_id=cid, placeholder=clip(placeholder, 150),
            options=options or [discord.SelectOption(label="…", value="0")], min_values=1, max_values=1))
        self.game, self.version, self.page, self.path = game, version, page, path

    @staticmethod
    def option(value: str, label: str, description: str | None = None) -> discord.SelectOption:
        """A select option: a legal action's index, or ``s<k>`` for a step."""
        return discord.SelectOption(label=clip(label, SELECT_LABEL), value=value,
                                    description=clip(description, SELECT_LABEL) if description else None)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ActionSelect:
        return cls(int(match["game"]), int(match["version"]), int(match["page"]),
                   path=decode_path(match["path"] or ""))

    @staticmethod
    def offered(interaction: discord.Interaction, custom_id: str) -> list[str]:
        """The values the select ``custom_id`` of the interaction's message offers (empty
        when the message has no such select)."""
        for row in (interaction.message.components if interaction.message else []):
            for comp in getattr(row, "children", ()):
                if isinstance(comp, discord.SelectMenu) and comp.custom_id == custom_id:
                    return [o.value for o in comp.options]
        return []

    async def run(self, interaction: discord.Interaction) -> None:
        """Hand over the picked value: ``s<k>`` (open step ``k``) or a legal action's index.

        Raises:
            HostError: not exactly one value, or a value the menu does not offer (named),
                or one that is neither a step nor an index.
        """
        value = picked(interaction, self.item, "ui.error.pick_one", "ui.error.not_a_choice")
        if not (value.isdigit() or (value.startswith("s") and value[1:].isdigit())):
            raise HostError(Msg("ui.error.pick_listed"), "bad_pick")
        await dispatch_of(interaction).run(self.route, interaction, self, value)


class NavButton(Reported, discord.ui.DynamicItem[discord.ui.Button[Any]],
                template=r"n:(?P<game>\d+):(?P<version>\d+):(?P<page>\d+):(?P<path>-?[0-9.]*)"):
    """Page and step navigation inside a private panel: open ``path`` (a decision path,
    ``engines/decisions.py``) at ``page``."""

    route = "n"

    def __init__(self, game: int, version: int, page: int, path: tuple[int, ...], label: str = "…",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=clip(label, BUTTON_LABEL), style=style, disabled=disabled,
                                           custom_id=f"n:{game}:{version}:{page}:{encode_path(path)}"))
        self.game, self.version, self.page, self.path = game, version, page, path

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> NavButton:
        return cls(int(match["game"]), int(match["version"]), int(match["page"]), decode_path(match["path"]))



class DmButton(Reported, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"d:(?P<game>\d+):(?P<verb>play|hand)"):
    """Play ▶ / My view on a DM hand message or DM turn notice. The id carries
    the game (no version: a DM lives long; the panel it opens carries the version checks
    of ``ActionButton``), so a check of the interaction's origin can resolve the game and
    accept the seated player's DM."""

    route = "d"

    STYLES = {"play": discord.ButtonStyle.primary, "hand": discord.ButtonStyle.secondary}
    LABELS = {"play": "Play ▶", "hand": "My view"}

    def __init__(self, game: int, verb: str, locale: str = "en") -> None:
        super().__init__(discord.ui.Button(label=button_label(verb, locale, self.LABELS.get(verb)),
                                           style=self.STYLES[verb], custom_id=f"d:{game}:{verb}"))
        self.game, self.verb = game, verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> DmButton:
        return cls(int(match["game"]), match["verb"])



class LookSelect(Reported, discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"z:(?P<game>\d+)"):
    """"🔍 Look at…" on a board message (and on the private answer it gives): the parts of the
    table the game lets a reader look at closely (``render.registry.zoom_regions``); a pick
    answers privately with that part drawn at phone size from the reader's own view
    (``bot.ui.looks.Looks.look``). The id carries the game only: the answer is drawn from
    the game as it is when the pick arrives, so an old board's menu keeps working."""

    route = "z"

    def __init__(self, game: int, options: list[discord.SelectOption] | None = None,
                 placeholder: str = "🔍 Look at…") -> None:
        super().__init__(discord.ui.Select(
            custom_id=f"z:{game}", placeholder=clip(placeholder, 150),
            options=options or [discord.SelectOption(label="…", value="-")], min_values=1, max_values=1))
        self.game = game

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LookSelect:
        return cls(int(match["game"]))

    async def run(self, interaction: discord.Interaction) -> None:
        """Answer the picked region privately.

        Raises:
            HostError: not exactly one value, or a value the menu does not offer (named).
        """
        value = picked(interaction, self.item, "ui.error.pick_one_look", "ui.error.not_a_look")
        await dispatch_of(interaction).run(self.route, interaction, self, value)


DYNAMIC_ITEMS = (LobbyButton, BoardButton, ActionButton, ActionSelect, NavButton, DmButton, LookSelect)
"""Registered in ``setup_hook`` with ``bot.add_dynamic_items``."""


def ours(custom_id: object) -> bool:
    """Whether ``custom_id`` has the shape of one of this bot's persistent items."""
    return isinstance(custom_id, str) and any(
        item.__discord_ui_compiled_template__.fullmatch(custom_id) for item in DYNAMIC_ITEMS)


async def refuse_foreign(interaction: discord.Interaction, items: Sequence[type[Any]] = DYNAMIC_ITEMS) -> None:
    """Answer a component interaction that carries one of our custom ids on a message that
    does not show it (a forged or mismatched ``custom_id``), and a component or modal submit
    whose ``custom_id`` is none of ``items``' (the bot's registered items: nothing would
    answer it): discord.py drops those without calling any item, so without this the user
    would only see "This interaction failed". Nothing is read or changed; the answer is the
    private ``FOREIGN_MESSAGE``. Called for every interaction (``cogs/games.py`` listens); a
    genuine one is left to its item."""
    if interaction.type not in (discord.InteractionType.component, discord.InteractionType.modal_submit):
        return
    data: dict[str, object] = dict(interaction.data or {})
    custom_id = data.get("custom_id")
    try:
        if not (isinstance(custom_id, str)
                and any(item.__discord_ui_compiled_template__.fullmatch(custom_id) for item in items)):
            raise HostError(Msg("ui.error.foreign_message"), "foreign_message")
        if interaction.type is discord.InteractionType.component:
            check_message(interaction)
    except HostError as exc:
        if dispatch_of(interaction).guard.first_delivery(interaction):
            await report(interaction, exc)
