"""Discord's limits (DISCORD.md) and helpers that keep every message inside them."""

from __future__ import annotations

MESSAGE_CHARS = 2000
EMBED_DESCRIPTION = 4096
EMBED_TITLE = 256
EMBED_FIELD_VALUE = 1024
EMBED_FIELDS = 25
EMBED_TOTAL = 6000
SELECT_OPTIONS = 25
SELECT_LABEL = 100
BUTTON_LABEL = 80
ROWS = 5
BUTTONS_PER_ROW = 5
CUSTOM_ID = 100
ACK_SECONDS = 3.0
TOKEN_SECONDS = 15 * 60
DEFAULT_UPLOAD = 10 * 1024 * 1024


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in '…' when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def split_text(text: str, limit: int = MESSAGE_CHARS) -> list[str]:
    """Split ``text`` into chunks of at most ``limit`` characters, at line breaks when
    possible (a single over-long line is cut hard). Empty text gives no chunk."""
    chunks: list[str] = []
    current = ""
    for line in text.splitlines():
        while len(line) > limit:
            if current:
                chunks.append(current)
                current = ""
            chunks.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            chunks.append(current)
            current = line
        else:
            current = candidate
    if current.strip():
        chunks.append(current)
    return [c for c in chunks if c.strip()]


def pages(count: int, per_page: int) -> int:
    """Number of pages needed for ``count`` items (at least 1)."""
    return max(1, -(-count // per_page))
