"""The table's host sentences (``bot/text/en/table.toml``, keys ``table.*``), for
``bot/ui/table.py`` and the modules it builds on (moderation replies), without importing it."""

from __future__ import annotations

from typing import Any

from bot.text import host_sentence
from engines.base import Msg


def say(key: str, /, locale: str = "en", **params: Any) -> str:
    """The host sentence ``table.<key>`` with ``params``, in ``locale`` (a catalog or Discord
    locale; bot/ui/locales.py picks the reader's)."""
    return host_sentence(f"table.{key}", locale, **params)


def tmsg(key: str, /, **params: Any) -> Msg:
    """The message ``table.<key>`` (a refusal: ``HostError`` formats it in the reader's locale)."""
    return Msg(f"table.{key}", params)
