"""Shared drawing helpers for every board renderer (design §6).

Renderers are pure: ``render_board(view, *, names, highlight=...) -> Image`` takes a
view (never a state), imports nothing from ``discord``, and is deterministic.
This module holds the theme, the fonts (Noto Sans CJK from the ``noto-cjk-sans-otc``
package, so Chinese and Japanese names render), text helpers and PNG encoding.
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

WIDTH = 1100
"""Standard board width in pixels (phone-first: 1000–1200 px)."""

# High-contrast, colour-blind-safe palette (Okabe–Ito) plus neutrals.
BG = (250, 247, 240)
INK = (25, 25, 30)
MUTED = (110, 110, 120)
PANEL = (236, 231, 220)
LINE = (160, 150, 135)
WHITE = (255, 255, 255)
HIGHLIGHT = (255, 210, 60)
SEAT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (0, 114, 178),    # blue
    (213, 94, 0),     # vermillion
    (0, 158, 115),    # bluish green
    (204, 121, 167),  # reddish purple
    (230, 159, 0),    # orange
    (86, 180, 233),   # sky blue
)
SEAT_LETTERS = "ABCDEF"
"""Seat letters drawn beside colours so seats are told apart without colour."""

EXTRA_FONTS: list[tuple[str, int]] = []
"""(path, face index) pairs tried before the packaged Noto Sans CJK (tests use it to
simulate a missing font)."""

_DEBIAN_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"


def _font_candidates(bold: bool) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = list(EXTRA_FONTS)
    try:
        import noto_cjk_sans_otc

        base = str(noto_cjk_sans_otc.FONT_PATH)
        if bold:
            bold_path = base.replace("Regular", "Bold")
            if os.path.exists(bold_path):
                out.append((bold_path, 2))
        out.append((base, 2))  # face 2 = Simplified Chinese; covers Japanese kana too
    except ImportError:  # pragma: no cover - the package is a hard dependency
        pass
    out.append((_DEBIAN_CJK, 2))
    return out


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A font of ``size`` px covering CJK; falls back to Pillow's built-in font with a
    warning when no font file can be opened (DISCORD.md failure mode 15)."""
    for path, index in _font_candidates(bold):
        try:
            return ImageFont.truetype(path, size, index=index)
        except OSError:
            continue
    log.warning("No CJK font found; falling back to Pillow's default font")
    return ImageFont.load_default(size)


def canvas(height: int, width: int = WIDTH) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A new RGB board of ``width`` × ``height`` px on the background colour."""
    img = Image.new("RGB", (width, height), BG)
    return img, ImageDraw.Draw(img)


def text_width(text: str, size: int, bold: bool = False) -> float:
    """Rendered width of ``text`` in px."""
    return font(size, bold).getlength(text)


def fit_text(text: str, size: int, max_width: float, bold: bool = False) -> str:
    """``text`` shortened with '…' so it fits ``max_width`` px."""
    if text_width(text, size, bold) <= max_width:
        return text
    while text and text_width(text + "…", size, bold) > max_width:
        text = text[:-1]
    return text + "…"


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    *,
    size: int = 22,
    fill: tuple[int, int, int] = INK,
    bold: bool = False,
    anchor: str = "la",
    max_width: float | None = None,
) -> None:
    """Draw ``text`` at ``xy`` (Pillow anchor semantics), shortened to ``max_width``.
    ``bold`` uses a bold face when one is installed, else a thin stroke of the text's own
    colour (the packaged Noto Sans CJK has only the regular weight)."""
    if max_width is not None:
        text = fit_text(text, size, max_width, bold)
    stroke = max(1, size // 26) if bold and not has_bold_face() else 0
    draw.text(xy, clean_text(text), font=font(size, bold), fill=fill, anchor=anchor, stroke_width=stroke,
              stroke_fill=fill)


@lru_cache(maxsize=1)
def has_bold_face() -> bool:
    """True when a real bold font file is available."""
    return any("Bold" in path for path, _ in _font_candidates(True)[len(EXTRA_FONTS):] if os.path.exists(path))


BIDI_CONTROLS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"))


def clean_text(text: str) -> str:
    """``text`` without bidirectional control characters (a name with U+202E must not
    reverse the rest of a line)."""
    return text.translate(BIDI_CONTROLS)


def seat_colour(seat: int) -> tuple[int, int, int]:
    """The colour of ``seat`` (cycled)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def seat_label(seat: int, names: Sequence[str]) -> str:
    """``"A · Alice"``: the seat letter and the player's name."""
    name = names[seat] if seat < len(names) else f"Seat {seat + 1}"
    return f"{SEAT_LETTERS[seat % len(SEAT_LETTERS)]} · {name}"


def to_png(image: Image.Image) -> bytes:
    """Encode as PNG bytes (deterministic: no timestamps)."""
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=False, compress_level=3)  # ~40 % faster than 6, ~15 % larger
    return buf.getvalue()


def to_jpeg(image: Image.Image, quality: int = 85) -> bytes:
    """Encode as JPEG bytes (used by the delivery layer when a PNG is too large)."""
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=quality, optimize=True)
    return buf.getvalue()


def fit_under(image: Image.Image, limit: int) -> tuple[bytes, str]:
    """Encode ``image`` to at most ``limit`` bytes: PNG if it fits, else JPEG at
    falling quality, then downscaled (DISCORD.md: attachments).

    Returns:
        (bytes, extension) with extension ``"png"`` or ``"jpg"``.
    """
    data = to_png(image)
    if len(data) <= limit:
        return data, "png"
    img = image
    while True:
        for quality in (85, 70, 50):
            data = to_jpeg(img, quality)
            if len(data) <= limit:
                return data, "jpg"
        if img.width < 64:
            return data, "jpg"
        img = img.resize((img.width * 3 // 4, img.height * 3 // 4))
