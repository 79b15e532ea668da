"""Slash commands synced on request, not at every start (discord.py's
convention: a sync spends one of Discord's daily command-update limits and a global one takes
a while to reach every client).

``python -m bot sync [--guild ID]`` (``make sync``) pushes the code's command tree, globally or
to one server (``bot.app.run_sync``). At start the bot compares the global commands Discord holds
with the tree (:func:`compare`) and logs a warning naming what differs (:func:`warn_if_stale`);
a development server (``DEV_GUILD_ID``) is synced at every start instead (``GameBot.setup_hook``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]

_OPTION_DEFAULTS: JSONDict = {"required": False, "autocomplete": False, "choices": [], "options": [],
                              "channel_types": [], "name_localizations": {}, "description_localizations": {}}
_OPTION_KEYS = ("type", "name", "description", "required", "autocomplete", "choices", "channel_types",
                "min_value", "max_value", "min_length", "max_length", "options", "name_localizations",
                "description_localizations")
_COMMAND_KEYS = ("type", "name", "description", "options", "default_member_permissions", "nsfw",
                 "contexts", "integration_types", "name_localizations", "description_localizations")


def _option(o: Mapping[str, Any]) -> JSONDict:
    out: JSONDict = {}
    for k in _OPTION_KEYS:
        v: Any = o.get(k)
        if v is None:
            v = _OPTION_DEFAULTS.get(k)
        if k == "options":
            v = [_option(x) for x in v]
        elif k == "choices":
            v = [{"name": c["name"], "value": c["value"], "name_localizations": c.get("name_localizations") or {}}
                 for c in v]
        elif k == "channel_types":
            v = sorted(v)
        out[k] = v
    return out


def canonical(command: Mapping[str, Any]) -> JSONDict:
    """A command payload (what a sync sends, or what Discord returns) reduced to what a user
    sees, with Discord's defaults filled in, so that the two compare equal when in sync.

    Server-side fields (``id``, ``version``, ``application_id``…) and the deprecated
    ``dm_permission`` are dropped; :func:`diff` counts ``contexts`` and ``integration_types``
    only when the code sets them.
    """
    out: JSONDict = {}
    for k in _COMMAND_KEYS:
        v = command.get(k)
        if k == "type":
            v = v or 1
        elif k == "description":
            v = v or ""
        elif k == "options":
            v = [_option(x) for x in v or []]
        elif k == "default_member_permissions":
            v = None if v is None else str(v)
        elif k == "nsfw":
            v = bool(v)
        elif k in ("contexts", "integration_types"):
            v = None if v is None else sorted(v)
        else:
            v = v or {}
        out[k] = v
    return out


@dataclass(frozen=True)
class CommandDiff:
    """How the commands Discord holds differ from the code's, by command name: ``added`` are in
    the code only, ``removed`` on Discord only, ``changed`` in both with other options, texts or
    permissions. False when in sync."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def describe(self) -> str:
        """One line for the log, e.g. ``added /status; changed /game``."""
        parts = [f"{what} {', '.join('/' + n for n in names)}"
                 for what, names in (("added", self.added), ("removed", self.removed), ("changed", self.changed))
                 if names]
        return "; ".join(parts) or "in sync"


def diff(code: Iterable[Mapping[str, Any]], discord_side: Iterable[Mapping[str, Any]]) -> CommandDiff:
    """Compare the code's command payloads with those Discord holds (see :func:`canonical`)."""

    def key(c: Mapping[str, Any]) -> tuple[int, str]:
        return (c.get("type") or 1, c["name"])

    def same(mine: JSONDict, held: JSONDict) -> bool:
        unset = {k: None for k in ("contexts", "integration_types") if mine[k] is None}
        return mine == dict(held, **unset)  # Discord fills these in when the code leaves them unset

    mine = {key(c): canonical(c) for c in code}
    theirs = {key(c): canonical(c) for c in discord_side}
    return CommandDiff(
        added=tuple(sorted(n for k, n in mine if (k, n) not in theirs)),
        removed=tuple(sorted(n for k, n in theirs if (k, n) not in mine)),
        changed=tuple(sorted(n for (k, n), c in mine.items() if (k, n) in theirs and not same(c, theirs[k, n]))),
    )


async def code_payload(tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None = None,
                       ) -> list[JSONDict]:
    """What ``tree.sync(guild=guild)`` would send (translated when the tree has a translator)."""
    commands = tree._get_all_commands(guild=guild)
    translator = tree.translator
    if translator:
        return [await c.get_translated_payload(tree, translator) for c in commands]
    return [c.to_dict(tree) for c in commands]


async def compare(bot: discord.Client, tree: app_commands.CommandTree[Any]) -> CommandDiff:
    """Fetch the global commands Discord holds for ``bot``'s application and compare them with
    ``tree``'s (one request).

    Raises:
        discord.HTTPException: Discord did not answer.
    """
    assert bot.application_id is not None
    held = await bot.http.get_global_commands(bot.application_id)
    return diff(await code_payload(tree), held)


async def warn_if_stale(bot: discord.Client, tree: app_commands.CommandTree[Any]) -> CommandDiff | None:
    """At start: log a warning when Discord's global commands differ from the code's.

    Returns:
        The difference, or None when Discord could not be asked (logged as a warning too).
    """
    try:
        found = await compare(bot, tree)
    except discord.HTTPException as exc:
        log.warning("could not compare the slash commands with Discord's (%s); skipped", exc)
        return None
    if found:
        log.warning("the slash commands on Discord differ from the code (%s): run `python -m bot sync` "
                    "(make sync) to publish them; until then players see the old ones", found.describe())
    else:
        log.info("slash commands on Discord match the code")
    return found


async def sync(tree: app_commands.CommandTree[Any], guild_id: int | None = None) -> list[str]:
    """Push ``tree``'s commands, globally or to the server ``guild_id`` (the global commands
    copied to it, as at a development start).

    Returns:
        The names of the commands Discord now holds there.

    Raises:
        discord.HTTPException: Discord refused the sync (e.g. the bot is not in that server).
    """
    guild = None if guild_id is None else discord.Object(guild_id)
    if guild is not None:
        tree.copy_global_to(guild=guild)
    return [c.name for c in await tree.sync(guild=guild)]
