"""Goofspiel's renderer (``render.registry``): the prize, each player's points and hand, who
has bid; the private view adds the reader's own bid."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image, ImageDraw

from engines.base import Msg
from render.base import font

WIDTH, LINE = 480, 34
INK, PAPER = (30, 30, 40), (246, 240, 226)


def _lines(view: dict[str, Any], names: Sequence[str], text: Callable[[Any], str]) -> list[str]:
    if view["over"]:
        lines = [text(Msg("board.over"))]
    else:
        lines = [text(Msg("board.prize", {"round": view["round"], "card": view["prize"] or "—"}))]
    for s in (0, 1):
        row = text(Msg("board.row", {"seat": {"seat": s}, "points": view["points"][s],
                                     "hand": " ".join(str(c) for c in view["hands"][s]) or "—"}))
        lines.append(f"{row} · {text(Msg('board.bid'))}" if view["has_bid"][s] else row)
    return lines


def _draw(lines: list[str]) -> Image.Image:
    image = Image.new("RGB", (WIDTH, LINE * len(lines) + 20), PAPER)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((12, 10 + LINE * i), line, fill=INK, font=font(22))
    return image


def render_board(view: dict[str, Any], *, names: Sequence[str], text: Callable[[Any], str] = str,
                 highlight: Any = None) -> Image.Image:
    """The public board."""
    return _draw(_lines(view, names, text))


def render_private(view: dict[str, Any], *, names: Sequence[str],
                   text: Callable[[Any], str] = str) -> Image.Image:
    """A player's view: the board and their own bid."""
    lines = _lines(view, names, text)
    if view.get("bid") is not None:
        lines.append(text(Msg("board.your_bid", {"card": view["bid"]})))
    return _draw(lines)
