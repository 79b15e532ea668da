"""Golden board images (tests/render/golden/<game_id>-<kind>.png), generic over the
registry: each game's renderer, called through ``render/registry.py`` with the names
of ``tests.golden.cases.NAMES`` (CJK included) and a ``bot.text.Texts`` formatter, draws
fixed views of the game of its seed-2 golden case (the largest player count):

* ``initial``: the public board once the opening chance (deal, first player) is done;
* ``mid``: the public board half-way through the log;
* ``final``: the public board of the finished game;
* ``private``: the private view of a seat to move at mid-game (games with a
  ``render_private``);
* ``decision``: the first pending decision from mid-game on for which the game's
  ``render_decision`` draws an image (games that have one).

``compare`` says whether two images are the same board up to anti-aliasing noise.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from functools import cache
from pathlib import Path

from PIL import Image, ImageChops

from bot.text import Texts
from engines.base import CHANCE, State
from render import registry as renderers
from tests.golden.cases import Case, cases, initial_state, play

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "render" / "golden"
"""Where the golden PNGs live."""

KINDS: tuple[str, ...] = ("initial", "mid", "final", "private", "decision")
"""The golden images of a game, in file order."""

MEAN_LIMIT = 0.5
"""Largest mean absolute difference (0–255, averaged over pixels and RGB channels)."""

STRONG_LIMIT = 0.0002
"""Largest share of pixels with a channel differing by more than ``STRONG_DIFF``: about
200 pixels of a 1100×900 board, less than one changed word of text."""

STRONG_DIFF = 64


def image_case(game_id: str) -> Case:
    """The golden game whose states the images of ``game_id`` show (its seed-2 case)."""
    return [c for c in cases() if c.game_id == game_id][-1]


def _states(case: Case) -> list[State]:
    return [initial_state(case)] + [step.after for step in play(case)]


def _movers(case: Case, state: State) -> list[int]:
    return sorted(case.engine.to_move(state) - {CHANCE})


def _decision(case: Case, states: list[State], texts: Texts) -> Image.Image | None:
    if not renderers.has_decision(case.game_id):
        return None
    half = len(states) // 2
    for state in states[half:] + states[:half]:
        for seat in _movers(case, state):
            image = renderers.decision_image(case.game_id, case.engine.player_view(state, seat),
                                             case.names, texts)
            if image is not None:
                return image
    return None


@cache
def golden_images(game_id: str) -> dict[str, Image.Image | None]:
    """The current rendering of each of ``KINDS`` for ``game_id`` (None: the game draws
    no such image). Cached: callers must not modify the images.

    Raises:
        ModuleNotFoundError: the game has no ``render/<game_id>.py``.
    """
    case = image_case(game_id)
    engine, names = case.engine, case.names
    texts = Texts(game_id, names)
    states = _states(case)
    opened = next((s for s in states if CHANCE not in engine.to_move(s)), states[0])
    mid = states[len(states) // 2]
    seat = next(iter(_movers(case, mid)), 0)

    def board(state: State) -> Image.Image:
        return renderers.board_image(game_id, engine.player_view(state, None), names, texts)

    return {
        "initial": board(opened),
        "mid": board(mid),
        "final": board(states[-1]),
        "private": renderers.private_image(game_id, engine.player_view(mid, seat), names, texts),
        "decision": _decision(case, states, texts),
    }


def golden_path(game_id: str, kind: str) -> Path:
    """The golden PNG of ``kind`` for ``game_id``."""
    return GOLDEN_DIR / f"{game_id}-{kind}.png"


def write_png(image: Image.Image, path: Path) -> None:
    """Save ``image`` as a PNG with fixed settings (same pixels, same bytes)."""
    image.save(path, format="PNG", optimize=True)


def compare(actual: Image.Image, expected: Image.Image) -> str | None:
    """None when ``actual`` matches ``expected`` within the tolerance (same size, mean
    difference ≤ ``MEAN_LIMIT``, strongly differing pixels ≤ ``STRONG_LIMIT``), else a
    sentence saying how they differ."""
    if actual.size != expected.size:
        return f"size {actual.size} differs from the golden {expected.size}"
    diff = ImageChops.difference(actual.convert("RGB"), expected.convert("RGB"))
    pixels = diff.width * diff.height
    mean = sum((i % 256) * n for i, n in enumerate(diff.histogram())) / (3 * pixels)
    strong = sum(_max_channel(diff).histogram()[STRONG_DIFF + 1:]) / pixels
    if mean <= MEAN_LIMIT and strong <= STRONG_LIMIT:
        return None
    return (f"mean difference {mean:.3f} (limit {MEAN_LIMIT}), {strong:.4%} of pixels differ "
            f"by more than {STRONG_DIFF} (limit {STRONG_LIMIT:.4%})")


def _max_channel(diff: Image.Image) -> Image.Image:
    red, green, blue = diff.split()
    return ImageChops.lighter(ImageChops.lighter(red, green), blue)


def diff_image(actual: Image.Image, expected: Image.Image) -> Image.Image:
    """The golden image faded, with the pixels that differ by more than 16 in red (on
    the larger of the two canvases when the sizes differ)."""
    width, height = max(actual.width, expected.width), max(actual.height, expected.height)
    a = Image.new("RGB", (width, height), (255, 255, 255))
    a.paste(actual.convert("RGB"))
    e = Image.new("RGB", (width, height), (255, 255, 255))
    e.paste(expected.convert("RGB"))
    faded = Image.blend(e, Image.new("RGB", e.size, (255, 255, 255)), 0.75)
    mask = _max_channel(ImageChops.difference(a, e)).point(lambda v: 255 if v > 16 else 0)
    faded.paste((220, 0, 0), mask=mask)
    return faded


def all_images(games: Collection[str] | None = None) -> Iterator[tuple[str, str, Image.Image | None]]:
    """``(game_id, kind, image)`` for every kind of every registered game (of ``games``
    only, when given), in registry order."""
    for game_id in dict.fromkeys(c.game_id for c in cases()):
        if games is None or game_id in games:
            for kind, image in golden_images(game_id).items():
                yield game_id, kind, image
