"""Palette PNGs against a fixed per-game palette, compressed band by band with the bands memoized
(the render workers' CPU per move).

A game's boards use a known set of colours (the theme, the seat colours, the game's own) and the
anti-aliasing ramps between them, so one palette of at most 256 colours chosen once from many boards
of the game (``render/palettes.json``, made by ``python -m bench.render --make-palettes``) serves
every board: no palette is computed per board (the sample and the octree of
``render.base.palette_image``), and the same pixels always give the same palette indices. Then the
image data (PNG filter type 0 on every row) is cut into bands of ``BAND_ROWS`` rows and each band
is deflated on its own (a fresh raw deflate stream ended by a sync flush, so the bands concatenate
into one valid stream); a band equal to one compressed before (byte for byte: the key is the band's
index bytes) is not compressed again. Between two moves most of a board is the same (bench/render.py
``--moves``: 65-90 % of 16-row bands), so most of the deflating is skipped. A band equal to the band
at the same place of the last board of the game and size (``_boards``: a memcmp, even when that
board was another table's) takes that board's compressed band without hashing its bytes for the memo.

What the encoder does not skip (measured on Carnival boards of 1100 × 2160, thread CPU):
quantizing every pixel (``Image.quantize``, 3-4 ms, the same for a plain image: a cost per pixel, not
the colour cache it builds), deflating the changed bands (1-2 ms). Quantizing only the rows that
changed since the last board would need a comparison of the RGB pixels, and that costs as much
(``ImageChops.difference`` 1-2.6 ms, ``tobytes`` 1.6 ms, with 50 % of the bands changed between
boards of two tables): measured, no gain.

Decisions' images (E Guan's placement previews) have a palette of their own (``palette_key``).

The file decodes to exactly the pixels of ``image.quantize(palette=...)`` (a standard PNG: colour
type 3, bit depth 8, no interlace); it is 0-10 % larger than one zlib stream over the whole image
(the dictionary restarts at each band). Fidelity (tests/render/test_png.py, every golden image): the
flat colours exact (the palette maker drops the entries that would take their colour cell in
Pillow's mapping), the largest error of a channel 13-33 (a palette per board: 7-34), 0.02-0.4 % of
the pixels off by more than 8 (per board: under 0.07 %), all of them anti-aliasing steps of text
edges; no visible difference at 1100 or 380 px wide.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

from PIL import Image

PALETTES = Path(__file__).with_name("palettes.json")
"""``{game_id: ["rrggbb", ...]}``: each game's fixed palette (at most 256 colours)."""

BAND_ROWS = 16
"""Rows of a band compressed (and memoized) on its own: 16 keeps 65-90 % of the bands of a board
equal to the previous board's (bench/render.py ``--moves``), where 64 keeps 55-85 %."""

LEVEL = 1
"""zlib level of a band (``render.base.PNG_LEVEL``)."""

BAND_BYTES = 24 * 1024 * 1024
"""Bytes of memoized bands kept per process (key and compressed data; least recently used dropped
first): about 12 boards of 1100 × 1800 whose bands all differ; the bands that every board of a game
shares (headers, frames, empty panels) stay, being used at every board."""

_bands: OrderedDict[tuple[str, bytes], tuple[bytes, int]] = OrderedDict()
_band_bytes = 0

BOARD_BYTES = 8 * 1024 * 1024
"""Bytes of the last boards' palette indices kept per process, one board per game and size
(``encode``; least recently used dropped first): three boards of 1100 × 2200 (2.4 MB each). The
compressed bands they refer to are the objects of ``_bands``, counted there."""

_boards: OrderedDict[tuple[str, tuple[int, int]], tuple[list[bytes], list[tuple[bytes, int]]]] = OrderedDict()
_board_bytes = 0


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


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def _adler32_combine(a1: int, a2: int, len2: int) -> int:
    """zlib's ``adler32_combine``: the Adler-32 of A + B from those of A and B and len(B)."""
    base = 65521
    rem = len2 % base
    sum1 = a1 & 0xFFFF
    sum2 = (rem * sum1) % base
    sum1 = (sum1 + (a2 & 0xFFFF) + base - 1) % base
    sum2 = (sum2 + (a1 >> 16) + (a2 >> 16) + base - rem) % base
    return sum1 | (sum2 << 16)


def _band(key: str, indices: bytes, width: int) -> tuple[bytes, int]:
    """(raw deflate bytes ended by a sync flush, Adler-32) of the image data of the rows
    ``indices`` (palette indices, ``width`` a row): each row behind its filter type byte (0,
    none); memoized."""
    global _band_bytes
    full = (key, indices)
    found = _bands.get(full)
    if found is not None:
        _bands.move_to_end(full)
        return found
    data = b"".join(b"\x00" + indices[start:start + width] for start in range(0, len(indices), width))
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    out = (packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH), zlib.adler32(data))
    _bands[full] = out
    _band_bytes += len(indices) + len(out[0]) + 100
    while _band_bytes > BAND_BYTES and len(_bands) > 1:
        (_, old), (packed, _) = _bands.popitem(last=False)
        _band_bytes -= len(old) + len(packed) + 100
    return out


def clear() -> None:
    """Forget the memoized bands and last boards (tests, the benchmark)."""
    global _band_bytes, _board_bytes
    _bands.clear()
    _band_bytes = 0
    _boards.clear()
    _board_bytes = 0


def _remember(key: tuple[str, tuple[int, int]], pieces: list[bytes], bands: list[tuple[bytes, int]]) -> None:
    """Keep a board's index bands and their compressed bands as the last board of its game and
    size (``BOARD_BYTES``)."""
    global _board_bytes
    old = _boards.pop(key, None)
    if old is not None:
        _board_bytes -= sum(map(len, old[0]))
    _boards[key] = (pieces, bands)
    _board_bytes += sum(map(len, pieces))
    while _board_bytes > BOARD_BYTES and len(_boards) > 1:
        _, (dropped, _) = _boards.popitem(last=False)
        _board_bytes -= sum(map(len, dropped))


def encode(image: Image.Image, game_id: str) -> bytes | None:
    """``image`` (RGB) as a palette PNG against the fixed palette of ``game_id`` (a game id or a
    ``palette_key``; no dithering: every pixel takes the palette's nearest colour, Pillow's
    ``Image.quantize(palette=...)``), the deflating memoized by band and the bands kept as the last
    board of the key and size (module doc); deterministic: the same bytes whatever the memos hold.
    None when there is no such palette or the image is not RGB (the caller encodes it otherwise)."""
    fixed = palette(game_id)
    if fixed is None or image.mode != "RGB":
        return None
    indexed = image.quantize(palette=fixed, dither=Image.Dither.NONE)
    width, height = indexed.size
    raw = indexed.tobytes()
    stride = width * BAND_ROWS
    pieces = [raw[start:start + stride] for start in range(0, len(raw), stride)]
    key = (game_id, indexed.size)
    last = _boards.get(key)
    bands: list[tuple[bytes, int]] = []
    for k, piece in enumerate(pieces):
        # (a band as the last board of the game and size had it: its bands, no hashing)
        if last is not None and piece == last[0][k]:
            bands.append(last[1][k])
        else:
            bands.append(_band(game_id, piece, width))
    _remember(key, pieces, bands)
    parts: list[bytes] = [b"\x78\x01"]  # (zlib header: deflate, 32 KiB window, fastest)
    adler = 1
    for piece, (packed, band_adler) in zip(pieces, bands, strict=True):
        parts.append(packed)
        adler = _adler32_combine(adler, band_adler, len(piece) + len(piece) // width)
    parts.append(b"\x03\x00")  # (a final empty block)
    parts.append(struct.pack(">I", adler))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join((b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header), _chunk(b"PLTE", _colours(game_id)),
                     _chunk(b"IDAT", b"".join(parts)), _chunk(b"IEND", b"")))


@lru_cache(maxsize=32)
def _colours(game_id: str) -> bytes:
    """The PLTE chunk's data of ``game_id``: its fixed palette, 256 entries (as
    ``Image.quantize(palette=...)`` gives it to the image)."""
    fixed = palette(game_id)
    return bytes(((fixed.getpalette() or []) if fixed is not None else [])[:768])
