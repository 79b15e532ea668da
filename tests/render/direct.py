"""Boards drawn without the tile memo (``render.base.tile``): every tile painted directly, as the
memo's contract says it must look (tests/render/test_tiles.py), and so that every text of a board is
drawn, none pasted (the layout recorder of tests/render/text_sizes.py, glyph checks, bench/render.py
``--draw``)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Hashable, Iterator

from PIL import ImageDraw

from engines.registry import GAME_IDS
from render import base
from render import registry as renders


def paint_directly(draw: ImageDraw.ImageDraw, xy: tuple[int, int], size: tuple[int, int], key: Hashable,
                   paint: base.Painter, bg: tuple[int, int, int] = base.BG, *, anywhere: bool = True) -> None:
    """``render.base.tile`` without the memo: ``paint`` at ``xy``."""
    paint(draw, *xy)


@contextlib.contextmanager
def tiles_off() -> Iterator[None]:
    """Every ``render.base.tile`` of the renderers (imported by name or called through the module)
    paints directly while the block runs."""
    for game_id in GAME_IDS:
        renders.module(game_id)
    memo = base.tile
    patched = [m for name, m in list(sys.modules.items())
               if (name == "render" or name.startswith("render.")) and getattr(m, "tile", None) is memo]
    for module in patched:
        module.tile = paint_directly  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in patched:
            module.tile = memo  # type: ignore[attr-defined]
