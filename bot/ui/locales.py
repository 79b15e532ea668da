"""Who reads in which language: a private reply (ephemeral answers, panels,
My view, errors) is written in the reader's language, public messages and boards in the
server's.

- A reader: the language they chose with ``/game language`` (stored per user), else the
  interaction's ``locale`` (their Discord client's language).
- A server: the language a moderator chose with ``/game language server:<lang>`` (stored
  per guild), else Discord's preferred locale of the server (``guild.preferred_locale``, or
  the ``guild_locale`` its interactions carry).
- A DM: the user's chosen language, else the locale of their last interaction, else the
  server's of the game.

Every value is a catalog locale (``bot.text.locale_of``: ``"en"``, ``"zh_TW"``, ``"zh_CN"``,
``"ja"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.service import GameService, seat_names
from bot.text import DEFAULT_LOCALE, Texts, locale_of

if TYPE_CHECKING:
    from bot.storage import GameRecord

LANGUAGE_NAMES = {"en": "English", "zh_TW": "繁體中文", "zh_CN": "简体中文", "ja": "日本語",
                  "auto": "Discord (auto)"}
"""The choices of ``/game language``, each named in its own language; ``auto``: Discord's."""


class Locales:
    """The languages of servers and users, for one client.

    Attributes:
        guilds / users: the languages chosen with ``/game language`` (loaded from the
            repository by ``load``; set through ``choose_guild`` / ``choose_user``).
    """

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self.guilds: dict[int, str] = {}
        self.users: dict[int, str] = {}
        self._seen_guilds: dict[int, str] = {}
        self._seen_users: dict[int, str] = {}

    async def load(self, service: GameService) -> None:
        """Read the stored choices (``GameService.locales``)."""
        self.guilds, self.users = await service.locales()

    def note(self, interaction: discord.Interaction) -> None:
        """Remember the locales an interaction carries (for DMs and public messages later)."""
        self._seen_users[interaction.user.id] = locale_of(str(interaction.locale))
        if interaction.guild_id is not None and interaction.guild_locale is not None:
            self._seen_guilds[interaction.guild_id] = locale_of(str(interaction.guild_locale))

    def public(self, guild_id: int | None) -> str:
        """The language of a server's public messages and boards (``"en"`` when unknown)."""
        if guild_id is None:
            return DEFAULT_LOCALE
        if guild_id in self.guilds:
            return self.guilds[guild_id]
        guild = self.client.get_guild(guild_id)
        if guild is not None and guild.preferred_locale is not None:
            return locale_of(str(guild.preferred_locale))
        return self._seen_guilds.get(guild_id, DEFAULT_LOCALE)

    def private(self, interaction: discord.Interaction) -> str:
        """The language of a private reply to ``interaction``."""
        self.note(interaction)
        return self.users.get(interaction.user.id) or locale_of(str(interaction.locale))

    def of_user(self, user_id: int, guild_id: int | None = None) -> str:
        """The language of a DM to ``user_id`` (about a game of ``guild_id``)."""
        return self.users.get(user_id) or self._seen_users.get(user_id) or self.public(guild_id)

    # -- formatters ----------------------------------------------------------
    def texts(self, record: GameRecord, locale: str) -> Texts:
        """The formatter of ``record``'s messages in ``locale``."""
        return Texts(record.game_id, seat_names(record, locale), locale)

    def public_texts(self, record: GameRecord) -> Texts:
        """The formatter of ``record``'s public messages and boards: its server's language."""
        return self.texts(record, self.public(record.guild_id))

    def host(self, locale: str) -> Texts:
        """A formatter of host messages only, in ``locale``."""
        return Texts(None, [], locale)
