"""Slash commands in the reader's language: a discord.py
``app_commands.Translator`` (installed with ``tree.set_translator`` before the commands are
synced) that gives Discord the names, descriptions, option names and choices of every
command from the catalogs (``bot/text/en/cmd.toml``, keys ``cmd.*``) in each translated
language.

Keys, from where a string sits (``key_of``):

- a command or group name: ``cmd.name.<name>`` (``play`` is one word whatever its group);
- an option name: ``cmd.option.<name>``;
- a description: ``cmd.desc.<command path>`` and an option's ``cmd.param.<command
  path>.<option>``, the path joined by ``_`` (``game_new``), a game's own group
  (``/carnival play``) as ``per_game`` (``cmd.desc.per_game_play``), the group itself
  ``cmd.desc.<game>``;
- a choice: ``cmd.choice.<value>`` (game ids, ``t<seconds>`` for the timer presets);
  the languages of ``/game language`` are named in their own language and not translated.

Discord's rules for a localized command or option name (lowercase, no spaces, 1–32
letters, digits, ``-`` or ``_``) are checked by ``valid_name``.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands

from bot.text import LOCALES, MissingText, Texts, locale_of
from engines.base import Msg
from engines.registry import ENGINES

log = logging.getLogger(__name__)

NAME = re.compile(r"^[-_\w]{1,32}$")
"""Discord's pattern of a command or option name (``\\w``: letters and digits of any script)."""

Location = app_commands.TranslationContextLocation


def valid_name(name: str) -> bool:
    """Whether ``name`` may be a localized command or option name (Discord: lowercase, no
    spaces, 1–32 word characters or dashes)."""
    return bool(NAME.fullmatch(name)) and name == name.lower()


def _path(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> str:
    parts = command.qualified_name.split()
    if len(parts) > 1 and parts[0] in ENGINES:
        parts[0] = "per_game"
    return "_".join(parts)


def key_of(string: app_commands.locale_str, context: app_commands.TranslationContextTypes) -> str | None:
    """The catalog key of one command string, or None for one that is not translated."""
    data = context.data
    location = context.location
    if location in (Location.command_name, Location.group_name):
        return f"cmd.name.{string.message}"
    if location is Location.parameter_name:
        return f"cmd.option.{string.message}"
    if location in (Location.command_description, Location.group_description):
        if isinstance(data, app_commands.Group) and data.name in ENGINES and data.parent is None:
            return f"cmd.desc.{data.name}"
        return f"cmd.desc.{_path(data)}" if isinstance(data, app_commands.Command | app_commands.Group) else None
    if location is Location.parameter_description and isinstance(data, app_commands.Parameter):
        return f"cmd.param.{_path(data.command)}.{data.name}"
    if location is Location.choice_name and isinstance(data, app_commands.Choice):
        value = data.value
        if value in LOCALES:
            return None
        return f"cmd.choice.t{value}" if isinstance(value, int) else f"cmd.choice.{value}"
    return None


class CatalogTranslator(app_commands.Translator):
    """Command strings from the ``cmd.*`` catalog entries; English (None) for a string the
    catalog lacks (logged) and for English locales."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = locale_of(str(locale))
        if lang == "en" or not str(locale).lower().startswith(("zh", "ja")):
            return None
        key = key_of(string, context)
        if key is None:
            return None
        try:
            return Texts(None, [], lang, strict=True)(Msg(key))
        except MissingText:
            log.warning("command string %s has no %s translation", key, lang)
            return None
