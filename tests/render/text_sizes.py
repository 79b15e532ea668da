"""Text sizes of the board images as a player sees them on a phone (docs/DISCORD.md: Discord
shows an image inline about ``PHONE_WIDTH`` px wide on a phone, 550 px on desktop).

``drawn_texts(draw)`` calls ``draw()`` (a renderer call) and records every text it draws,
through ``render.base._blit`` (every renderer draws text with ``render.base.draw_text``);
``report()`` measures the golden images of every game (``tests.golden.images``): the image
width, the smallest font size in image px and that size at ``PHONE_WIDTH`` px display width
(font size × PHONE_WIDTH / image width; the height of a capital is about 0.73 of it).

Usage: ``python -m tests.render.text_sizes [game_id …]`` prints the table (and the smallest
texts of each game).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from render import base

PHONE_WIDTH = 380
"""Display width (px) of a board inline on a phone (the brief of issue 'boards readable on a phone')."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """One text drawn: its font ``size`` (px, image scale) and the ``text`` (one font run)."""

    size: int
    text: str


@contextmanager
def recording() -> Iterator[list[Drawn]]:
    """Record every text run drawn inside the block (``render.base._blit``)."""
    seen: list[Drawn] = []
    original = base._blit

    def blit(draw: Any, xy: Any, text: str, face: Any, *args: Any) -> None:
        if text.strip():
            seen.append(Drawn(int(getattr(face, "size", 0)), text))
        original(draw, xy, text, face, *args)

    base._blit = blit  # type: ignore[assignment]
    try:
        yield seen
    finally:
        base._blit = original


def drawn_texts(draw: Callable[[], Any]) -> tuple[Any, list[Drawn]]:
    """``(image, texts)``: the image ``draw()`` returns and the texts it drew."""
    with recording() as seen:
        image = draw()
    return image, seen


def phone_px(size: float, width: int) -> float:
    """A font ``size`` (px) of an image ``width`` px wide, at ``PHONE_WIDTH`` display width."""
    return size * PHONE_WIDTH / width


def golden_texts(game_id: str) -> dict[str, tuple[Any, list[Drawn]]]:
    """For each golden image kind of ``game_id`` that the game draws: (image, texts drawn)."""
    from bot.text import Texts
    from engines.base import CHANCE, State
    from render import registry as renderers
    from tests.golden.images import _decision, _movers, _states, image_case

    case = image_case(game_id)
    engine, names = case.engine, case.names
    texts = Texts(game_id, names)
    states: list[State] = _states(case)
    opened = next((s for s in states if CHANCE not in engine.to_move(s)), states[0])
    mid = states[len(states) // 2]
    seat = next(iter(_movers(case, mid)), 0)
    draws: dict[str, Callable[[], Any]] = {
        "initial": lambda: renderers.board_image(game_id, engine.player_view(opened, None), names, texts),
        "mid": lambda: renderers.board_image(game_id, engine.player_view(mid, None), names, texts),
        "final": lambda: renderers.board_image(game_id, engine.player_view(states[-1], None), names, texts),
        "private": lambda: renderers.private_image(game_id, engine.player_view(mid, seat), names, texts),
        "decision": lambda: _decision(case, states, texts),
    }
    out: dict[str, tuple[Any, list[Drawn]]] = {}
    for kind, draw in draws.items():
        image, seen = drawn_texts(draw)
        if image is not None:
            out[kind] = (image, seen)
    return out


def report(games: list[str]) -> str:
    """The table of ``main``: per game and image kind, the width, the smallest font size
    and its size at ``PHONE_WIDTH``; then the texts of each game below 10 px there."""
    from tests.golden.cases import cases

    lines = [f"{'game':<13}{'image':<10}{'width':>6}{'min px':>8}{'@380':>7}  smallest text"]
    small: list[str] = []
    for game_id in dict.fromkeys(c.game_id for c in cases()):
        if games and game_id not in games:
            continue
        for kind, (image, seen) in golden_texts(game_id).items():
            least = min(seen, key=lambda d: d.size)
            lines.append(f"{game_id:<13}{kind:<10}{image.width:>6}{least.size:>8}"
                         f"{phone_px(least.size, image.width):>7.1f}  {least.text[:40]!r}")
            for d in sorted(set(seen), key=lambda d: d.size):
                if phone_px(d.size, image.width) < 10:
                    small.append(f"  {game_id}-{kind}: {d.size} px ({phone_px(d.size, image.width):.1f}) {d.text[:50]!r}")
    return "\n".join(lines + (["", "texts under 10 px at 380 px display width:"] + small if small else []))


if __name__ == "__main__":
    print(report(sys.argv[1:]))
