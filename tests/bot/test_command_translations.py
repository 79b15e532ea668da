"""Slash commands localized through ``app_commands.Translator`` (bot/ui/commands.py):
every name, description, option and choice of every command has a
translation in each language of ``bot.text.TRANSLATED``, the English catalog
(bot/text/en/cmd.toml) says what the code says, and the localized names keep Discord's
rules (lowercase, no spaces, at most 32 characters; unique among their siblings)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.app import GameBot
from bot.settings import Settings
from bot.text import TRANSLATED, catalog
from bot.ui.commands import CatalogTranslator, key_of, valid_name

DISCORD_LOCALES = {"zh_TW": "zh-TW", "zh_CN": "zh-CN", "ja": "ja"}


class Recorder(app_commands.Translator):
    """Keeps every command string the tree asks about, with its key."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[str, app_commands.TranslationContextLocation]] = {}
        self.untranslated: list[str] = []

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        key = key_of(string, context)
        if key is None:
            self.untranslated.append(string.message)
        else:
            self.seen[key] = (string.message, context.location)
        return None


async def payloads(translator: app_commands.Translator) -> list[dict[str, Any]]:
    bot = GameBot(Settings(database_path=":memory:", token="offline"))
    await bot.load_commands()
    await bot.tree.set_translator(translator)
    return [await c.get_translated_payload(bot.tree, translator) for c in bot.tree.get_commands()]


async def test_every_command_string_has_a_translation_in_every_language() -> None:
    recorder = Recorder()
    await payloads(recorder)
    english = catalog("cmd")
    assert len(recorder.seen) > 100
    assert set(recorder.untranslated) <= {"English", "繁體中文", "简体中文", "日本語"}  # named in their own language
    stale = {k: (m, english.get(k)) for k, (m, _) in recorder.seen.items() if english.get(k) != m}
    assert not stale, f"bot/text/en/cmd.toml differs from the code: {stale}"
    names = (app_commands.TranslationContextLocation.command_name, app_commands.TranslationContextLocation.group_name,
             app_commands.TranslationContextLocation.parameter_name)
    for lang in TRANSLATED:
        translated = catalog("cmd", lang)
        missing = sorted(set(recorder.seen) - set(translated))
        assert not missing, f"{lang}: {missing}"
        bad = [translated[k] for k, (_, where) in recorder.seen.items() if where in names
               and not valid_name(translated[k])]
        assert not bad, f"{lang}: names Discord refuses: {bad}"
        assert all(len(translated[k]) <= 100 for k in recorder.seen)


def _siblings(payload: dict[str, Any], locale: str) -> list[list[str]]:
    """The localized names of each list of options/subcommands (they must be unique)."""
    groups = []
    options = payload.get("options") or []
    if options:
        groups.append([(o.get("name_localizations") or {}).get(locale, o["name"]) for o in options])
        for option in options:
            groups += _siblings(option, locale)
    return groups


@pytest.mark.parametrize("lang", TRANSLATED)
async def test_the_synced_commands_carry_each_languages_names(lang: str) -> None:
    locale = DISCORD_LOCALES[lang]
    sent = await payloads(CatalogTranslator())
    game = next(c for c in sent if c["name"] == "game")
    assert game["name_localizations"][locale] == catalog("cmd", lang)["cmd.name.game"]
    assert game["description_localizations"][locale] == catalog("cmd", lang)["cmd.desc.game"]
    new = next(o for o in game["options"] if o["name"] == "new")
    option = next(o for o in new["options"] if o["name"] == "game")
    assert option["name_localizations"][locale] == catalog("cmd", lang)["cmd.option.game"]
    assert {c["name_localizations"][locale] for c in option["choices"]} == {
        catalog("cmd", lang)[f"cmd.choice.{c['value']}"] for c in option["choices"]}
    assert "fr" not in game["name_localizations"] and "en-US" not in game["name_localizations"]
    tops = [(c.get("name_localizations") or {}).get(locale, c["name"]) for c in sent]
    for names in [tops, *(g for c in sent for g in _siblings(c, locale))]:
        assert not [n for n, k in Counter(names).items() if k > 1], names


async def test_every_command_leaves_room_under_discords_25_subcommands() -> None:
    """Discord allows 25 subcommands and groups under a command and 25 in a group: ``/game`` has
    21 (the moderators' in ``/game mod``), at least two below the limit, so a new command does
    not meet it; every other command and group keeps that room too."""
    commands = await payloads(Recorder())

    def widths(payload: dict[str, Any], path: str) -> list[tuple[str, int]]:
        subs = [o for o in payload.get("options") or [] if o["type"] in (1, 2)]
        return [(path, len(subs))] + [w for o in subs for w in widths(o, f"{path} {o['name']}")]

    counted = dict(w for c in commands for w in widths(c, c["name"]))
    game = next(c for c in commands if c["name"] == "game")
    assert counted["game"] == 21
    assert {o["name"] for o in game["options"] if o["type"] == 2} == {"mod"}
    assert [o["name"] for o in next(o for o in game["options"] if o["name"] == "mod")["options"]] == [
        "quiet", "end", "kick", "replace", "pause"]
    assert max(counted.values()) <= 23, counted
