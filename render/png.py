"""Palette PNGs against a fixed per-game palette, encoded by Pillow.

A game's boards use a known set of colours (the theme, the seat colours, the game's own) and the
anti-aliasing ramps between them, so one palette of at most 256 colours chosen once from many boards
of the game (``render/palettes.json``, made by ``python -m bench.render --make-palettes``) serves
every board: no palette is computed per board (the sample and the octree of
``render.base.palette_image``), and the same pixels always give the same palette indices. Every
pixel takes the palette's nearest colour (``Image.quantize(palette=...)``, no dithering) and Pillow's
PNG encoder writes the file at zlib level ``LEVEL``.

Pillow's encoder, not a deflate of our own: a banded encoder that memoized each 16-row band between
boards (most bands of a board are those of the board before) saved 0.8-2.2 ms of a board's thread
CPU on the 720-px boards (encode 1.7-3.2 ms against Pillow's 2.6-4.3 ms, draw 3.9-7.6 ms; ``python -m
bench.render --moves 30 --png-before <a tree of commit 0fd2aad>``, 4 tables × 30 moves, 2 simulated
workers, the same pixels, two runs) for files 0-9 % larger: under a tenth of a move's CPU budget of
25 ms, not worth an encoder of our own.

Decisions' images (E Guan's placement previews) have a palette of their own (``palette_key``).

Fidelity (tests/render/test_png.py, every golden image): the flat colours exact (the palette maker
drops the entries that would take their colour cell in Pillow's mapping), the largest error of a
channel 13-33 (a palette per board: 7-34), 0.02-0.4 % of the pixels off by more than 8 (per board:
under 0.07 %), all of them anti-aliasing steps of text edges; no visible difference at 720 or 360 px
wide.
"""

from __future__ import annotations

import io
import json
from functools import lru_cache
from pathlib import Path

from PIL import Image

PALETTES = Path(__file__).with_name("palettes.json")
"""``{game_id: ["rrggbb", ...]}``: each game's fixed palette (at most 256 colours)."""

LEVEL = 1
"""zlib level of the files (as ``render.base.PNG_LEVEL``)."""

@lru_cache(maxsize=1)
def _palettes() -> dict[str, list[str]]:
    if not PALETTES.exists():
        return {}
    data: dict[str, list[str]] = json.loads(PALETTES.read_text(encoding="utf-8"))
    return data


def palette_key(game_id: str, kind: str) -> str:
    """The key in ``render/palettes.json`` of the images of ``kind`` of ``game_id``: the game id for
    its boards and private views (``"board"``, ``"private"``), ``"<game_id>.decision"`` for the images
    of its pending decisions (E Guan's placement previews: colours of their own, their overlays)."""
    return f"{game_id}.decision" if kind == "decision" else game_id


@lru_cache(maxsize=32)
def palette(game_id: str) -> Image.Image | None:
    """The fixed palette of ``game_id`` (or of a ``palette_key``) as a 1 × 1 "P" image (for ``Image.quantize(palette=...)``),
    or None when ``render/palettes.json`` has none for it."""
    colours = _palettes().get(game_id)
    if not colours:
        return None
    flat = b"".join(bytes.fromhex(c) for c in colours)
    image = Image.new("P", (1, 1), 0)
    image.putpalette(flat + flat[-3:] * (256 - len(colours)))  # (unused entries repeat the last)
    return image


def encode(image: Image.Image, game_id: str) -> bytes | None:
    """``image`` (RGB) as a palette PNG against the fixed palette of ``game_id`` (a game id or a
    ``palette_key``; no dithering: every pixel takes the palette's nearest colour); deterministic.
    None when there is no such palette or the image is not RGB (the caller encodes it otherwise)."""
    fixed = palette(game_id)
    if fixed is None or image.mode != "RGB":
        return None
    buf = io.BytesIO()
    image.quantize(palette=fixed, dither=Image.Dither.NONE).save(buf, "PNG", optimize=False, compress_level=LEVEL)
    return buf.getvalue()
