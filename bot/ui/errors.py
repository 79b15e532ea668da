"""One error path for every command and component (docs/DISCORD.md, STYLE: "checks fail
with a sentence").

A refusal — ``GameError`` (the engine's), ``HostError`` (the host's), a failed check,
an argument that does not convert — becomes a private ``⚠️`` reply with its sentence
and changes nothing. Anything else is a bug: it is logged once with its traceback and
answered privately with a short apology.

``GameTree.on_error`` is the path of slash commands; ``GameItem`` (the base of every
persistent button and select in ``bot/ui/components.py``) sends its callback's errors
down the same ``report``.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot import logsafe
from bot.service import HostError, HostNotice
from bot.storage import LeaseLost
from bot.text import MissingText, Texts, escape_name, locale_of
from bot.ui import payloads
from bot.ui.dispatch import Guard, dispatch_of
from bot.ui.limits import MESSAGE_CHARS, clip
from engines.base import GameError, Msg

log = logging.getLogger(__name__)

APOLOGY = "⚠️ Sorry — that failed on our side; the game is unchanged. Please try again."
"""The private answer to an unexpected error (the traceback goes to the log)."""

STALE_COMMANDS = "⚠️ This command has just changed; try again in a minute (Discord is updating it)."


def refusal(error: BaseException, locale: str = "en") -> str | None:
    """The private sentence (in ``locale``) for an error a user can cause, or None for a bug.

    Looks through discord.py's wrappers (``CommandInvokeError.original``, a
    ``TransformerError``'s cause) to the ``GameError`` / ``HostError`` inside.
    """
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    elif isinstance(error, app_commands.TransformerError):
        cause = error.__cause__
        if isinstance(cause, GameError | HostError):
            error = cause
        else:
            return "⚠️ " + Texts(None, [], locale)(Msg("ui.error.bad_value", {
                "value": str(error.value)[:40], "what": error.transformer._error_display_name}))
    if isinstance(error, HostNotice):
        return error.text(locale)
    if isinstance(error, HostError):
        return f"⚠️ {error.text(locale)}"
    if isinstance(error, GameError):
        return f"⚠️ {engine_sentence(error, locale)}"
    if isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        return "⚠️ " + Texts(None, [], locale)(Msg("ui.error.stale_commands"))
    if isinstance(error, app_commands.CheckFailure) and isinstance(getattr(error, "key", None), str):
        return "⚠️ " + Texts(None, [], locale)(Msg(error.key))  # type: ignore[attr-defined]
    if isinstance(error, app_commands.CheckFailure | app_commands.CommandOnCooldown):
        return f"⚠️ {error}"
    return None


class InGame(GameError):
    """An engine's refusal met in a known game: ``error`` with the ``game_id`` whose catalog
    words it, and the ``move`` as the player typed it (None for a button), so the reader's
    sentence can quote it (``engine_sentence``). Raised by ``bot/ui/moves.py`` in place of
    ``error``; ``code``, ``params`` and the English ``message`` are the engine's."""

    def __init__(self, error: GameError, game_id: str, move: str | None = None) -> None:
        super().__init__(error.message, code=error.code, **error.params)
        self.error, self.game_id, self.move = error, game_id, move


def _class_code(error: GameError) -> str:
    """The code of the engines/base.py class of ``error`` (``illegal_action`` for an
    ``IllegalAction`` raised with the code ``unknown_move``)."""
    for cls in type(error).__mro__:
        code = cls.__dict__.get("code")
        if isinstance(code, str):
            return code
    return GameError.code


def _try(tx: Texts, key: str, params: dict[str, Any]) -> tuple[str, str] | None:
    """``(sentence, template)`` of ``key`` filled with ``params``, or None when no catalog
    has ``key`` or its template names a parameter ``params`` lacks."""
    try:
        template = tx.template(key)
        return template.format_map({k: tx.value(v) for k, v in params.items()}), template
    except (MissingText, KeyError, IndexError, ValueError):
        return None


def engine_sentence(error: GameError, locale: str = "en", game_id: str | None = None,
                    move: str | None = None) -> str:
    """An engine's refusal in ``locale`` (bot/text/en/refusal.toml), the first that exists of:
    its ``text`` parameter when that is a catalog message (``{"msg": key, "params": {...}}``,
    looked up in ``game_id``'s catalog, or in every game's when None); the game's
    ``error.<code>``; the host's ``refusal.<code>``; the sentence of its class
    (``refusal.not_your_turn``, ``refusal.illegal_action``, ...). Templates take the error's
    parameters and ``{move}``: ``move``, else a typed ``text`` string the engine kept; a
    sentence that does not quote a known move is prefixed with it (``refusal.quoted``; markdown
    and mentions escaped).
    ``InGame`` carries its own game and move. The English ``message`` is for logs only."""
    if isinstance(error, InGame):
        return engine_sentence(error.error, locale, error.game_id, error.move if move is None else move)
    text = error.params.get("text")
    typed = move if move is not None else (text if isinstance(text, str) else None)
    typed = escape_name(typed.strip()[:80]) if typed is not None and typed.strip() else None  # (shown, never pinging)
    params = {k: v for k, v in error.params.items() if k != "text"}
    if typed is not None:
        params["move"] = typed
    found: tuple[str, str] | None = None
    if isinstance(text, dict) and isinstance(text.get("msg"), str):
        from engines.registry import ENGINES

        for gid in (game_id,) if game_id else ENGINES:
            tx = Texts(gid, [], locale)
            try:
                tx.template(text["msg"])
            except MissingText:
                continue
            found = tx(text), ""
            break
    tx = Texts(game_id, [], locale)
    keys = ([f"error.{error.code}"] if game_id else []) + [f"refusal.{error.code}", f"refusal.{_class_code(error)}",
                                                           "refusal.game_error"]
    for key in keys:
        if found is not None:
            break
        found = _try(tx, key, params)
    sentence, template = found or (error.message, "")
    if typed is not None and "{move}" not in template:
        quoted = _try(tx, "refusal.quoted", {"move": typed, "sentence": sentence})
        sentence = quoted[0] if quoted else sentence
    return sentence


def reader_locale(interaction: discord.Interaction) -> str:
    """The language of a private reply to ``interaction`` (``bot/ui/locales.py``): the
    reader's chosen one when the client carries a ``Dispatch``, else the interaction's."""
    try:
        return dispatch_of(interaction).locales.private(interaction)
    except (TypeError, AttributeError):
        return locale_of(str(interaction.locale))


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer ``error`` privately: its sentence for a refusal; for anything else, log it
    with its traceback and apologise. A Discord failure while answering is logged too,
    never raised. A write refused because this process lost its shard lease (``LeaseLost``)
    is not answered: the process stops and the new holder answers the move (as lost)."""
    cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
    if isinstance(cause, LeaseLost):  # (the process that now holds the shard answers it, not this one)
        log.warning("not answered: %s", cause.reason)
        return
    locale = reader_locale(interaction)
    text = refusal(error, locale)
    if text is None:
        log.error("unexpected error handling an interaction", exc_info=error)
        text = "⚠️ " + Texts(None, [], locale)(Msg("ui.error.apology"))
    elif isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        log.warning("command out of date: %s", error)
    try:
        text = clip(text, MESSAGE_CHARS)
        if interaction.type == discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])  # (an autocomplete is answered with choices only)
        elif interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not tell the user about an error: %s", exc)


class GameTree(app_commands.CommandTree[Any]):
    """The bot's command tree: every command error goes to ``report``, and every call
    counts as a handler in flight (``HostContext.tracked``) once ``attach`` was called."""

    context: Guard | None = None

    def attach(self, context: Guard) -> None:
        """Count calls in ``context`` (``GameBot.__init__`` does this)."""
        self.context = context

    def _from_interaction(self, interaction: discord.Interaction) -> None:
        # (a second delivery of the same interaction — Discord retries — is dropped quietly
        # here, before discord.py schedules the command)
        if self.context is not None and not self.context.first_delivery(interaction):
            return
        super()._from_interaction(interaction)

    async def _call(self, interaction: discord.Interaction) -> None:
        # (overrides discord.py's dispatch, which also runs on_error, so the whole
        # handler and its error answer count as one call in flight)
        logsafe.bind(interaction=interaction.id)

        if payloads.unreadable(interaction.data):
            await payloads.refuse(interaction, None)
            return
        bad = payloads.option_problem(self, interaction.data or {},
                                      autocomplete=interaction.type == discord.InteractionType.autocomplete)
        if bad is not None:
            await payloads.refuse(interaction, bad)
            return
        if self.context is None:
            await self._read(interaction)
            return
        async with self.context.tracked():
            await self._read(interaction)

    async def _read(self, interaction: discord.Interaction) -> None:
        """discord.py's dispatch of ``interaction``. It wraps a handler's errors in
        ``AppCommandError`` (answered by ``on_error``) and logs an autocomplete's; anything
        else it raises comes from reading a payload of a shape ``payloads.unreadable`` does not
        look into (``resolved``, a context menu's target): logged as a warning and answered
        privately with ``ui.error.unreadable``, as the gateway's guard does (``bot/gateway.py``)."""
        try:
            await super()._call(interaction)
        except app_commands.AppCommandError:
            raise
        except Exception as exc:
            log.warning("dropped a command payload discord.py could not read: %s: %s", type(exc).__name__, exc)
            if not interaction.response.is_done():
                await payloads.refuse(interaction, None)

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        await report(interaction, error)
