"""The lobby (docs/DESIGN.md §5): ``/game new`` opens a message with Join / Leave / Start;
Start closes it, opens the game's thread and posts the board.

Handlers raise refusals (``GameError``, ``HostError``); ``bot/ui/errors.py`` answers them.
"""

from __future__ import annotations

import json
import logging
import shlex

import discord

from bot.service import ActResult, HostError
from bot.settings import TIMEOUT_PRESETS
from bot.storage import GameRecord
from bot.text import LOCALES, Texts
from bot.ui.arguments import engine_named
from bot.ui.components import ActionSelect
from bot.ui.context import HostContext
from bot.ui.errors import reader_locale
from bot.ui.lobby_options import option_text, timeout_label
from bot.ui.notices import Notices
from bot.ui.panels import game_title, lobby_embed, lobby_view
from bot.ui.permissions import is_moderator
from bot.ui.table_text import tmsg
from engines.base import InvalidOptions, Msg
from engines.registry import get as get_engine
from render.base import clean_text

log = logging.getLogger(__name__)


def _open_quote(text: str) -> int | None:
    """The index of the quote in ``text`` that is never closed (shell rules: a backslash
    escapes outside single quotes), or None when every quote is closed."""
    quote: str | None = None
    start = 0
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote is None and ch in "'\"":
            quote, start = ch, i
        elif ch == quote:
            quote = None
    return start if quote is not None else None


def parse_options(text: str | None) -> dict[str, str]:
    """``"table_model=zones roll_sigma=300"`` → ``{"table_model": "zones", "roll_sigma": "300"}``;
    values may be quoted (``name="two words"``); a key may be several words, as an option's
    name is (``Wrath knock chance=0.3``: the words before the ``=``).

    Raises:
        InvalidOptions: an item without ``=``, a key given twice, or a quote that is never
            closed (naming the key it is in).
    """
    text = text or ""
    try:
        items = shlex.split(text)
    except ValueError:  # "No closing quotation" / "No escaped character"
        at = _open_quote(text)
        before = text[:at] if at is not None else text.rstrip("\\")
        words = before.split()
        item = words[-1] if words and not before[-1:].isspace() else ""
        key = item.partition("=")[0].strip() if "=" in item else ""
        if not key:
            got = text[at:].split()[0] if at is not None else text.split()[-1]
            raise InvalidOptions(f"Write options as key=value (got {got[:40]!r}).", key=got[:40],
                                 text=Msg("refusal.option_syntax", {"got": got[:40]}).to_json()) from None
        what = "a quote that is never closed" if at is not None else "a lone backslash at the end"
        raise InvalidOptions(f"Option '{key}' has {what}; write it as {key}=\"…\" or leave the quotes out.",
                             key=key, text=Msg("refusal.option_quote" if at is not None else "refusal.option_backslash",
                                               {"key": key[:40]}).to_json()) from None
    out: dict[str, str] = {}
    pending: list[str] = []  # (the words of a key of several words, before the one with its "=")
    for item in items:
        key, sep, value = item.partition("=")
        if not sep and item:
            pending.append(item)
            continue
        key = " ".join([*pending, key.strip()]).strip()
        if not sep or not key:
            raise InvalidOptions(f"Write options as key=value (got {item!r}).", key=item,
                                 text=Msg("refusal.option_syntax", {"got": item[:40]}).to_json())
        pending = []
        if key in out:
            raise InvalidOptions(f"Option '{key}' is given twice.", key=key,
                                 text=Msg("refusal.option_twice", {"key": key[:40]}).to_json())
        out[key] = value.strip()
    if pending:
        got = " ".join(pending)
        raise InvalidOptions(f"Write options as key=value (got {got!r}).", key=got,
                             text=Msg("refusal.option_syntax", {"got": got[:40]}).to_json())
    return out


def _folded(name: str) -> str:
    """A key or an option's name as it is compared: runs of spaces as one, case-folded."""
    return " ".join(name.split()).casefold()


def option_keys(game_id: str, typed: dict[str, str], locale: str = "en") -> dict[str, str]:
    """``typed`` (``parse_options``) with each key as the engine knows it: an option is named
    by its key (``wrath_knock_prob``) or by its name as the lobby shows it in any of the
    catalog languages (``Wrath knock chance``; ``option_text``), case-insensitive.

    Raises:
        InvalidOptions: a key that names no option (the message, in ``locale``, lists each
            option's name and key), or one option named twice.
    """
    specs = get_engine(game_id).info.options
    names = {_folded(spec.key): spec.key for spec in specs}
    for locale_ in LOCALES:
        tx = Texts(game_id, [], locale_)
        for spec in specs:
            names.setdefault(_folded(option_text(tx, spec)[0]), spec.key)
    out: dict[str, str] = {}
    for given, value in typed.items():
        key = names.get(_folded(given))
        if key is None:
            tx = Texts(game_id, [], locale)
            known = [f"{option_text(tx, spec)[0]} ({spec.key})" for spec in specs]
            raise InvalidOptions(f"Unknown option '{given}'; name an option as the lobby shows it or by its key: "
                                 f"{', '.join(known) or 'none'}.", key=given, known=[spec.key for spec in specs],
                                 text=Msg("refusal.option_unknown_named", {
                                     "key": given[:40], "known": known or Msg("refusal.option_none").to_json()}).to_json())
        if key in out:
            raise InvalidOptions(f"Option '{key}' is given twice.", key=key,
                                 text=Msg("refusal.option_twice", {"key": key[:40]}).to_json())
        out[key] = value
    return out


class Lobby:
    """Opening, joining, starting; ``notices`` tells the table once the game runs."""

    def __init__(self, ctx: HostContext, notices: Notices) -> None:
        self.ctx = ctx
        self.notices = notices
        self._redraw_next: dict[int, discord.Interaction] = {}
        """Per lobby: the newest Join/Leave press whose redraw has not started yet (``_redraw``)."""
        self._redrawing: set[int] = set()

    async def new_game(self, interaction: discord.Interaction, game_id: str, options: str | None,
                       timeout: int | None, *, seated: bool = True) -> None:
        """``/game new``: open a lobby message with Join / Leave / Start (``seated`` False:
        the host runs the lobby without taking a seat).

        Raises:
            HostError: used in a DM, a timer that is not one of ``TIMEOUT_PRESETS``, an
                unknown game, or a member (not a moderator) who already hosts
                ``Settings.open_lobbies`` open lobbies in the server.
            InvalidOptions: bad options (``parse_options``, ``option_keys``, then the engine's
                schema).
        """
        if interaction.guild_id is None:
            raise HostError(Msg("ui.error.lobby_dm"), "dm")
        if timeout is not None and timeout not in TIMEOUT_PRESETS.values():
            raise HostError(Msg("ui.error.bad_timer", {"presets": list(TIMEOUT_PRESETS)}), "bad_timer")
        engine = engine_named(game_id)
        limit = None if await is_moderator(self.ctx, interaction) else self.ctx.settings.open_lobbies
        record = await self.ctx.service.create_lobby(
            game_id=game_id, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            host_user_id=interaction.user.id, host_name=clean_text(interaction.user.display_name)[:80],
            options=option_keys(game_id, parse_options(options), reader_locale(interaction)), move_timeout=timeout or self.ctx.settings.move_timeout, seated=seated,
            open_limit=limit)
        locale = self.ctx.delivery.locales.public(record.guild_id)
        view = lobby_view(record, locale)
        embed = lobby_embed(engine, record, timeout_label(record.move_timeout, locale), locale)
        if view is None:  # (a new lobby is open: it always has buttons)
            await interaction.response.send_message(embed=embed)
        else:
            await interaction.response.send_message(embed=embed, view=view)
        message = await interaction.original_response()
        await self.ctx.service.set_fields(record.id, lobby_message_id=message.id)

    async def click(self, interaction: discord.Interaction, game: int, verb: str) -> None:
        """Join / Leave / Start pressed on a lobby (``verb``).

        Raises:
            HostError: a lobby of another server or channel (``HostContext.game``), or the
                service's refusal (closed or full lobby, not the host…).
        """
        await interaction.response.defer()  # before the database: its lock can wait under load
        before = await self.ctx.game(interaction, game)
        name = clean_text(interaction.user.display_name)[:80]
        if verb == "join":
            record = await self.ctx.service.join(game, interaction.user.id, name)
        elif verb == "leave":
            record = await self.ctx.service.leave(game, interaction.user.id)
            if record.status == "lobby" and record.host_user_id != before.host_user_id:  # (the host left)
                locale = self.ctx.delivery.locales.public(record.guild_id)
                await self.ctx.delivery.transport.send_text(record.channel_id, Texts(None, [], locale)(Msg(
                    "ui.lobby.new_host", {"host": record.host_user_id, "game": record.id})),
                    mentions=[record.host_user_id])
        else:
            result = await self.ctx.service.start(game, interaction.user.id,
                                                  is_moderator=await is_moderator(self.ctx, interaction))
            await self.started(interaction, result)
            return
        await self._redraw(game, interaction)

    async def _redraw(self, game: int, interaction: discord.Interaction) -> None:
        """Redraw lobby ``game``'s message after a Join or Leave. Presses that come while an
        edit is under way are merged into one more edit, through the newest press's
        interaction, of the lobby as it is then: a burst of presses makes two public edits,
        not one each (each press was already answered by its deferral)."""
        self._redraw_next[game] = interaction
        if game in self._redrawing:
            return
        self._redrawing.add(game)
        try:
            while (newest := self._redraw_next.pop(game, None)) is not None:
                record = await self.ctx.service.get(game)
                if record.status == "active":  # (started meanwhile: Start drew its own message)
                    continue
                engine = get_engine(record.game_id)
                locale = self.ctx.delivery.locales.public(record.guild_id)
                await newest.edit_original_response(
                    embed=lobby_embed(engine, record, timeout_label(record.move_timeout, locale), locale),
                    view=lobby_view(record, locale))
        finally:
            self._redrawing.discard(game)
            self._redraw_next.pop(game, None)

    async def choose(self, interaction: discord.Interaction, game: int, what: str, value: str) -> None:
        """A pick in a lobby menu (``bot.ui.lobby_options``): ``timer`` sets the move timer,
        ``key`` shows that option's values, ``v:<key>`` sets the option; the lobby message is
        redrawn with the new settings. Only the host or a moderator may change them.

        Raises:
            HostError: not the host or a moderator, a closed lobby, or a value the menu
                does not offer.
            InvalidOptions: the engine refuses the value.
        """
        await interaction.response.defer()
        record = await self.ctx.game(interaction, game)
        moderator = await is_moderator(self.ctx, interaction)
        key: str | None = None
        offered = ActionSelect.offered(interaction, f"lo:{game}:{what}")
        if value not in offered:
            raise HostError(tmsg("lobby_bad_value"), "bad_pick")
        if what == "key":
            if interaction.user.id != record.host_user_id and not moderator:
                raise HostError(tmsg("lobby_not_host"), "forbidden")
            key = value
        elif what == "timer":
            record = await self.ctx.service.set_lobby(game, interaction.user.id, is_moderator=moderator,
                                                      move_timeout=int(value))
        else:
            record = await self.ctx.service.set_lobby(game, interaction.user.id, is_moderator=moderator,
                                                      options={what[2:]: json.loads(value)})
        engine = get_engine(record.game_id)
        locale = self.ctx.delivery.locales.public(record.guild_id)
        await interaction.edit_original_response(
            embed=lobby_embed(engine, record, timeout_label(record.move_timeout, locale), locale),
            view=lobby_view(record, locale, key))

    async def started(self, interaction: discord.Interaction, result: ActResult) -> None:
        """After Start: close the lobby message, open a thread, post the board, ping.
        The game has started whatever Discord answers: failures are logged, not shown."""
        try:
            await self._announce_start(interaction, result)
        except Exception:
            log.exception("delivering the start of game %s failed", result.game.id)

    async def _announce_start(self, interaction: discord.Interaction, result: ActResult) -> None:
        record = result.game
        engine = get_engine(record.game_id)
        locale = self.ctx.delivery.locales.public(record.guild_id)
        await interaction.edit_original_response(
            embed=lobby_embed(engine, record, timeout_label(record.move_timeout, locale), locale), view=None)
        thread_id = await self.open_thread(record, interaction)
        if thread_id:
            await self.ctx.service.set_fields(record.id, thread_id=thread_id)
            record = await self.ctx.service.get(record.id)
            await self.ctx.delivery.transport.send_text(record.channel_id, Texts(None, [], locale)(Msg(
                "ui.lobby.started", {"title": game_title(engine, record, locale), "thread": thread_id})))
        await self.ctx.delivery.boards.post_board(record)
        await self.notices.after(ActResult(record, result.entries, result.events, frozenset(),
                                           result.waiting_after, result.outcome), board=False)

    async def open_thread(self, record: GameRecord, interaction: discord.Interaction) -> int | None:
        """A public thread for the game from its lobby message; None (use the channel) when
        threads are not allowed here or the command was used inside a thread."""
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel) or record.lobby_message_id is None:
            return None
        engine = get_engine(record.game_id)
        try:
            message = channel.get_partial_message(record.lobby_message_id)
            name = Texts(None, [], self.ctx.delivery.locales.public(record.guild_id))(Msg(
                "ui.thread", {"game": {"msg": f"ui.game.{engine.info.game_id}"}, "id": record.id}))
            thread = await message.create_thread(name=name[:100],
                                                 auto_archive_duration=10080)
            return thread.id
        except (discord.HTTPException, ValueError) as exc:
            log.info("no thread for game %s (%s); using the channel", record.id, exc)
            return None
