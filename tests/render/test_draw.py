"""``render.base.Draw.rounded_rectangle`` (memoized masks) sets exactly the pixels Pillow's sets: random
boxes on and off the pixel grid, partly off the image, every radius, outline width, colour and corner
choice, over something drawn before."""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from render.base import Draw, _rounded_masks


def shapes(count: int, seed: int) -> list[tuple[tuple[float, ...], float, object, object, int, object]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        x0, y0 = rng.randrange(-30, 160), rng.randrange(-30, 110)
        w = rng.choice([0, 1, 2, 3, 5, 8, 13, 20, 40, 90, 150])
        h = rng.choice([0, 1, 2, 3, 5, 8, 13, 20, 40, 90])
        box: tuple[float, ...] = (x0, y0, x0 + w, y0 + h)
        if rng.random() < 0.5:
            box = tuple(v + rng.choice([0.0, 0.25, 0.5, 0.75, 1 / 3]) for v in box)
        radius = rng.choice([0, 1, 2, 3, 4, 6, 8, 10, 12, 20, 50, 2.5, 7.3, 0.5])
        fill = rng.choice([None, (200, 10, 10), (7, 7, 7)])
        outline = rng.choice([None, (10, 200, 10), fill])
        width = rng.choice([0, 1, 2, 3, 5])
        corners = rng.choice([None, (True, False, True, False), (False,) * 4, (True, True, False, False)])
        if fill is not None or outline is not None:
            out.append((box, radius, fill, outline, width, corners))
    return out


def drawn(draw_class: type[ImageDraw.ImageDraw], shape: tuple) -> bytes | str:
    box, radius, fill, outline, width, corners = shape
    image = Image.new("RGB", (200, 150), (7, 7, 7))
    draw = draw_class(image)
    draw.rectangle((40, 40, 120, 90), fill=(9, 99, 199))
    try:
        draw.rounded_rectangle(box, radius, fill=fill, outline=outline, width=width, corners=corners)
    except ValueError as exc:  # (Pillow refuses some tiny boxes; so must Draw)
        return f"ValueError {exc}"
    return image.tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_the_pixels_are_pillows(seed: int) -> None:
    for shape in shapes(500, seed):
        assert drawn(Draw, shape) == drawn(ImageDraw.ImageDraw, shape), shape


def test_most_board_shapes_are_memoized() -> None:
    _rounded_masks.cache_clear()
    image = Image.new("RGB", (300, 200), (7, 7, 7))
    Draw(image).rounded_rectangle((10.0, 20.0, 110.0, 60.0), 8, fill=(200, 10, 10), outline=(10, 200, 10), width=2)
    Draw(image).rounded_rectangle((30, 70, 130, 110), 8, fill=(200, 10, 10), outline=(10, 200, 10), width=2)
    assert _rounded_masks.cache_info().hits == 1 and _rounded_masks.cache_info().misses == 1
