"""Palette PNGs of full boards (render/base.py ``palette_image``, ``PALETTE_SAMPLE``): the
palette chosen from the board shrunk by 3 keeps every game's mid-game board as close to
its RGB pixels as the octree over every pixel does, and encodes deterministically."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from engines.registry import ENGINES
from render import base
from tests.golden.images import golden_images


def changed(image: Image.Image, png: bytes) -> tuple[int, float]:
    """(the largest error of a channel, the share of pixels off by more than 8) of ``png``."""
    with Image.open(io.BytesIO(png)) as decoded:
        assert decoded.mode == "P"
        back = decoded.convert("RGB")
    diff = ImageChops.difference(back, image).convert("L")
    return max(diff.getextrema()), sum(diff.histogram()[9:]) / (image.width * image.height)


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_a_board_sampled_for_its_palette_stays_as_faithful(game_id: str, monkeypatch) -> None:
    board = golden_images(game_id)["mid"]
    assert board is not None and board.mode == "RGB"
    assert board.width * board.height >= base.PALETTE_SAMPLE[-1][0]  # (a sampled path is the one tested)
    sampled = base.to_png(board)
    assert base.to_png(board) == sampled                                          # deterministic
    monkeypatch.setattr(base, "PALETTE_SAMPLE", ())
    every_pixel = changed(board, base.to_png(board))
    worst, share = changed(board, sampled)
    assert worst <= max(32, every_pixel[0]) and share <= max(0.005, 2 * every_pixel[1])
