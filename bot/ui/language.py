"""``/game language`` (bot/ui/locales.py says who reads in which language): a reader's
own language and, for a moderator, the server's."""

from __future__ import annotations

import discord

from bot.service import HostError
from bot.text import LOCALES
from bot.ui.context import HostContext
from bot.ui.locales import LANGUAGE_NAMES, Locales
from bot.ui.permissions import is_moderator
from engines.base import Msg


async def choose_language(ctx: HostContext, interaction: discord.Interaction, language: str | None,
                          server: str | None) -> None:
    """``/game language``: store the caller's own language (``language``; ``"auto"``: their
    Discord client's again) and, for a moderator, the server's (``server``; ``"auto"``:
    Discord's preferred locale of the server); with neither, show both. Answers privately
    in the caller's (new) language.

    Raises:
        HostError: ``server`` in a DM, or by someone who is not a moderator, or a value
            that is not a choice.
    """
    locales: Locales = ctx.delivery.locales
    for value in (language, server):
        if value is not None and value not in (*LOCALES, "auto"):
            raise HostError(Msg("ui.error.not_a_choice", {"value": value[:40]}), "bad_language")
    if server is not None:
        if interaction.guild_id is None:
            raise HostError(Msg("ui.error.language_dm"), "dm")
        if not await is_moderator(ctx, interaction):
            raise HostError(Msg("ui.error.not_a_moderator"), "forbidden")
    await interaction.response.defer(ephemeral=True, thinking=True)
    if language is not None:
        chosen = None if language == "auto" else language
        await ctx.service.set_user_locale(interaction.user.id, chosen)
        if chosen is None:
            locales.users.pop(interaction.user.id, None)
        else:
            locales.users[interaction.user.id] = chosen
    if server is not None and interaction.guild_id is not None:
        chosen = None if server == "auto" else server
        await ctx.service.set_guild_locale(interaction.guild_id, chosen)
        if chosen is None:
            locales.guilds.pop(interaction.guild_id, None)
        else:
            locales.guilds[interaction.guild_id] = chosen
    tx = locales.host(locales.private(interaction))
    mine = locales.users.get(interaction.user.id)
    lines = [tx(Msg("ui.language.mine", {"language": LANGUAGE_NAMES[mine]}) if mine
                else Msg("ui.language.mine_auto", {"language": LANGUAGE_NAMES[locales.private(interaction)]}))]
    if interaction.guild_id is not None:
        public = locales.public(interaction.guild_id)
        key = "ui.language.server" if interaction.guild_id in locales.guilds else "ui.language.server_auto"
        lines.append(tx(Msg(key, {"language": LANGUAGE_NAMES[public]})))
    await interaction.followup.send("\n".join(lines), ephemeral=True)
