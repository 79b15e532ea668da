"""The table's host sentences (``bot/text/en/table.toml``, keys ``table.*``), for
``bot/ui/table.py`` and the modules it builds on (moderation replies), without importing it."""

from __future__ import annotations

from typing import Any

from bot.text import Texts
from engines.base import Msg

HOST_TEXT = Texts(None, [])
"""The formatter of the table's host sentences that name no player."""


def say(key: str, /, **params: Any) -> str:
    """The host sentence ``table.<key>`` with ``params`` (English until the reader's locale
    reaches the host)."""
    return HOST_TEXT.format(Msg(f"table.{key}", params))
