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
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.service import HostError
from bot.text import MissingText, Texts, locale_of
from bot.ui.context import flow_of
from bot.ui.limits import MESSAGE_CHARS, clip
from engines.base import GameError, Msg

if TYPE_CHECKING:
    from bot.ui.context import HostContext

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


def engine_sentence(error: GameError, locale: str = "en") -> str:
    """An engine's refusal in ``locale``: its ``text`` parameter when the engine gave the
    sentence as a catalog message (``{"msg": key, "params": {...}}``, looked up in the
    games' catalogs), else its English ``message``."""
    text = error.params.get("text")
    if isinstance(text, dict) and isinstance(text.get("msg"), str):
        from engines.registry import GAME_IDS

        for game_id in GAME_IDS:
            tx = Texts(game_id, [], locale)
            try:
                tx.template(text["msg"])
            except MissingText:
                continue
            return tx(text)
    return error.message


def reader_locale(interaction: discord.Interaction) -> str:
    """The language of a private reply to ``interaction`` (``bot/ui/locales.py``): the
    reader's chosen one when the client carries the handlers, else the interaction's."""
    try:
        return flow_of(interaction).ctx.delivery.locales.private(interaction)
    except (TypeError, AttributeError):
        return locale_of(str(interaction.locale))


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer ``error`` privately: its sentence for a refusal; for anything else, log it
    with its traceback and apologise. A Discord failure while answering is logged too,
    never raised."""
    locale = reader_locale(interaction)
    text = refusal(error, locale)
    if text is None:
        log.error("unexpected error handling an interaction", exc_info=error)
        text = "⚠️ " + Texts(None, [], locale)(Msg("ui.error.apology"))
    elif isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        log.warning("command out of date: %s", error)
    try:
        text = clip(text, MESSAGE_CHARS)
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not tell the user about an error: %s", exc)


class GameTree(app_commands.CommandTree[Any]):
    """The bot's command tree: every command error goes to ``report``, and every call
    counts as a handler in flight (``HostContext.tracked``) once ``attach`` was called."""

    context: HostContext | None = None

    def attach(self, context: HostContext) -> None:
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
        from bot import logsafe
        from bot.ui import payloads  # (options of the wrong shape never reach a handler)

        logsafe.bind(interaction=interaction.id)

        bad = payloads.option_problem(self, interaction.data or {},
                                      autocomplete=interaction.type == discord.InteractionType.autocomplete)
        if bad is not None:
            await payloads.refuse(interaction, bad)
            return
        if self.context is None:
            await super()._call(interaction)
            return
        async with self.context.tracked():
            await super()._call(interaction)

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        await report(interaction, error)
