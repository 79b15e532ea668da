"""Image regression for every renderer (tests/render/golden/<game_id>-<kind>.png, made
by ``make golden``): fixed views of each registered game (``tests.golden.images``) are
rendered through render/registry.py and compared with the golden PNGs within a small
tolerance. On a mismatch the current image and a diff image (changed pixels in red)
are written to tmp_path and named in the failure."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from engines.registry import ENGINES
from tests.golden.images import (
    GOLDEN_DIR,
    KINDS,
    compare,
    diff_image,
    golden_images,
    golden_path,
    write_png,
)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game_id", list(ENGINES))
def test_image_matches_golden(game_id: str, kind: str, tmp_path: Path) -> None:
    image = golden_images(game_id)[kind]
    path = golden_path(game_id, kind)
    if image is None:
        assert not path.exists(), f"{path.name} is stale ({game_id} draws no {kind} image): run `make golden`"
        pytest.skip(f"{game_id} draws no {kind} image")
    assert path.exists(), f"{path.name} is missing: run `make golden` and commit it"
    with Image.open(path) as golden:
        expected = golden.convert("RGB")
    problem = compare(image, expected)
    if problem:
        actual_path, diff_path = tmp_path / f"{game_id}-{kind}-actual.png", tmp_path / f"{game_id}-{kind}-diff.png"
        write_png(image, actual_path)
        write_png(diff_image(image, expected), diff_path)
        pytest.fail(f"{path.name}: {problem}; now: {actual_path}, diff: {diff_path} "
                    f"(after a deliberate change run `make golden`)", pytrace=False)


def test_every_golden_png_belongs_to_a_game() -> None:
    for path in GOLDEN_DIR.glob("*.png"):
        game_id, _, kind = path.stem.rpartition("-")
        assert game_id in ENGINES and kind in KINDS, f"{path.name} belongs to no game: run `make golden`"


def _board(colour: tuple[int, int, int], size: tuple[int, int] = (200, 100)) -> Image.Image:
    return Image.new("RGB", size, colour)


def test_compare_tolerates_noise_but_not_a_changed_area(tmp_path: Path) -> None:
    base = _board((250, 247, 240))
    noisy = base.copy()
    noisy.putpixel((5, 5), (0, 0, 0))                 # 1 of 20 000 pixels: anti-aliasing noise
    assert compare(noisy, base) is None
    changed = base.copy()
    changed.paste((0, 0, 0), (10, 10, 30, 30))        # 400 pixels: a changed word
    assert "of pixels differ" in (compare(changed, base) or "")
    assert "size" in (compare(_board((250, 247, 240), (200, 101)), base) or "")
    diff = diff_image(changed, base)
    assert diff.getpixel((15, 15)) == (220, 0, 0) and diff.getpixel((100, 50)) != (220, 0, 0)
