"""Slash-command payloads checked against the command tree before a handler runs
(tests/reliability/test_fuzz.py): every option must be one the command declares,
of its declared type, with a value of that type's JSON shape (a snowflake for users,
channels, roles, mentionables and attachments, present in ``resolved``), and no required
option may be missing. Discord's own client never sends anything else, but a forged or
stale payload would reach the handlers with values of the wrong type; it gets a private
answer instead (``ops.bad_option``), and nothing runs. One exception: a number sent for a
text option (commands not synced yet since the option became text) is read as its text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from bot.text import Texts
from bot.ui.limits import MESSAGE_CHARS, clip
from engines.base import Msg

SNOWFLAKE_TYPES = {6: "users", 7: "channels", 8: "roles", 9: "", 11: "attachments"}
"""Option types whose value is a snowflake, and the ``resolved`` section that holds it
(a mentionable: users or roles)."""

INT_LIMIT = 2 ** 53
"""Discord's integer options lie within ±2^53."""


def _snowflake(value: Any) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit() and 0 < int(value) < 2 ** 64


def value_fits(otype: int, value: Any, resolved: Mapping[str, Any]) -> bool:
    """True when ``value`` has the JSON shape Discord sends for an option of type ``otype``
    (3 string, 4 integer, 5 boolean, 6 user, 7 channel, 8 role, 9 mentionable, 10 number,
    11 attachment), snowflakes found in ``resolved``."""
    if otype == 3:
        return isinstance(value, str)
    if otype == 4:
        return isinstance(value, int) and not isinstance(value, bool) and -INT_LIMIT <= value <= INT_LIMIT
    if otype == 5:
        return isinstance(value, bool)
    if otype == 10:
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if otype in SNOWFLAKE_TYPES:
        if not _snowflake(value):
            return False
        sections = [SNOWFLAKE_TYPES[otype]] if SNOWFLAKE_TYPES[otype] else ["users", "roles"]
        return any(value in (resolved.get(s) or {}) for s in sections)
    return False


def option_problem(tree: app_commands.CommandTree[Any], data: Mapping[str, Any], *,
                   autocomplete: bool = False) -> str | None:
    """The name of the first option of a chat-input payload ``data`` that does not fit the
    command it names in ``tree`` (see the module docstring), or None when all fit or the
    command is unknown (discord.py answers that itself). For ``autocomplete`` exactly one
    option must be focused, one that has autocomplete, holding the partial text typed (a string of at most 100
    characters), and required options may still be missing."""
    if data.get("type", 1) != 1:
        return None
    try:
        command, sent_options = tree._get_app_command_options(data)  # type: ignore[arg-type]
    except discord.DiscordException:
        return None
    if not isinstance(command, app_commands.Command):
        return None
    options: Any = sent_options  # (JSON as Discord sent it, any shape)
    declared = {p.display_name: p for p in command.parameters}
    resolved = data.get("resolved") or {}
    if not isinstance(options, list):
        return "options"
    sent: set[str] = set()
    focused = 0
    for option in options:
        if not isinstance(option, Mapping):
            return "options"
        name = option.get("name")
        param = declared.get(name) if isinstance(name, str) else None
        if param is None or name in sent:
            return str(name)[:40]
        sent.add(param.display_name)
        if (param.type.value == 3 and option.get("type") in (4, 10) and isinstance(option, dict)
                and value_fits(int(option["type"]), option.get("value"), resolved)):
            # (a number where the command takes text: Discord still holds an older version of
            # the command, before `make sync`; read as its text, as discord.py did)
            option["type"], option["value"] = 3, str(option["value"])
        if option.get("type") != param.type.value:
            return param.display_name
        if autocomplete and option.get("focused"):
            if not param.autocomplete or not isinstance(option.get("value"), str) or len(option["value"]) > 100:
                return param.display_name  # (Discord sends the partial text typed, a string)
            focused += 1
            continue
        if not value_fits(param.type.value, option.get("value"), resolved):
            return param.display_name
    if autocomplete and focused != 1:
        return "focused"  # (Discord marks exactly one option as the one being typed)
    if not autocomplete:
        for param in command.parameters:
            if param.required and param.display_name not in sent:
                return param.display_name
    return None


async def refuse(interaction: discord.Interaction, name: str | None) -> None:
    """Answer a payload ``option_problem`` refused: privately with ``ops.bad_option`` (``name``
    None: a payload without a command name, ``ui.error.unreadable``), or no suggestions for
    an autocomplete. A Discord failure is ignored (nothing ran)."""
    try:
        if interaction.type == discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
            return
        said = Msg("ops.bad_option", {"name": name}) if name is not None else Msg("ui.error.unreadable")
        text = Texts(None, [], str(interaction.locale))(said)
        await interaction.response.send_message(clip(("⚠️ " if name is None else "") + text, MESSAGE_CHARS),
                                                ephemeral=True)
    except discord.HTTPException:
        return


COMMAND_TYPES = (1, 2, 3)
"""Application command types discord.py reads (``AppCommandType``: chat input, user, message)."""


def unreadable(data: Any) -> bool:
    """Whether a command or autocomplete payload's ``data`` is one discord.py's command tree
    cannot read (it would raise outside its error handling, and nobody would be answered): no
    object naming a command, a command ``type`` other than 1–3, a ``guild_id`` that is no
    snowflake, or ``options`` (down the chain of subcommands and groups) that are not a list of
    objects, a subcommand without a name."""
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
        return True
    kind = data.get("type", 1)
    if type(kind) is not int or kind not in COMMAND_TYPES:
        return True
    guild = data.get("guild_id")
    if guild and not (isinstance(guild, int | str) and str(guild).isascii() and str(guild).isdigit()):
        return True
    options = data.get("options", [])
    while True:
        if not isinstance(options, list) or not all(isinstance(o, Mapping) for o in options):
            return True
        if not options or options[0].get("type", 0) not in (1, 2):
            return False  # (discord.py looks for a subcommand in the first option only)
        if not isinstance(options[0].get("name"), str):
            return True
        options = options[0].get("options", [])
