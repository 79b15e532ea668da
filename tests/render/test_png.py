"""Palette PNGs against a game's fixed palette (render/png.py): the file decodes to exactly the
quantized pixels and is the same bytes every time; the fixed palettes stay nearly as faithful to every
golden image (boards, private views, CJK names) as a palette chosen per image, and keep its flat
colours exact."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from engines.registry import ENGINES
from render import base, png
from render import registry as renders
from tests.golden.images import golden_images


def decoded(data: bytes) -> Image.Image:
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG" and image.mode == "P"
        image.load()
        return image.copy()


def changed(image: Image.Image, data: bytes) -> tuple[int, float]:
    """(the largest error of a channel, the share of pixels off by more than 8) of ``data``."""
    diff = ImageChops.difference(decoded(data).convert("RGB"), image).convert("L")
    return max(diff.getextrema()), sum(diff.histogram()[9:]) / (image.width * image.height)


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_every_game_has_a_fixed_palette_with_its_flat_colours_exact(game_id: str) -> None:
    fixed = png.palette(game_id)
    assert fixed is not None
    colours = png._palettes()[game_id]
    assert len(colours) <= 256 and len(set(colours)) == len(colours)
    board = golden_images(game_id)["mid"]
    assert board is not None
    top = [c for _, c in sorted(board.getcolors(1 << 18) or [], reverse=True)[:3]]
    assert base.BG in top  # (the background is the commonest colour of every board)
    mapped = Image.new("RGB", (len(top), 1))
    mapped.putdata(top)
    back = mapped.quantize(palette=fixed, dither=Image.Dither.NONE).convert("RGB")
    assert [back.getpixel((k, 0)) for k in range(len(top))] == top  # (exact: Pillow's colour cells)
    for colour in top:
        assert f"{colour[0]:02x}{colour[1]:02x}{colour[2]:02x}" in colours


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_the_file_decodes_to_the_quantized_pixels_and_is_the_same_every_time(game_id: str) -> None:
    board = golden_images(game_id)["mid"]
    assert board is not None
    expected = board.quantize(palette=png.palette(game_id), dither=Image.Dither.NONE)
    cold = png.encode(board, game_id)
    assert cold is not None
    assert png.encode(board, game_id) == cold
    image = decoded(cold)
    assert image.size == board.size
    assert image.tobytes() == expected.tobytes()
    assert image.convert("RGB").tobytes() == expected.convert("RGB").tobytes()
    # another board of the game decodes right too
    final = golden_images(game_id)["final"]
    assert final is not None
    again = png.encode(final, game_id)
    assert again is not None
    assert decoded(again).tobytes() == final.quantize(palette=png.palette(game_id), dither=Image.Dither.NONE).tobytes()


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_a_fixed_palette_is_nearly_as_faithful_as_one_chosen_per_image(game_id: str) -> None:
    for kind, image in golden_images(game_id).items():
        if image is None:
            continue
        data = png.encode(image, png.palette_key(game_id, kind))  # (a decision's image: the decisions' palette)
        assert data is not None, kind
        worst, share = changed(image, data)
        own_worst, own_share = changed(image, base.to_png(image))
        # (a fixed palette has fewer steps on a rare ramp: more anti-aliasing pixels off by a few levels,
        # under 0.4 % of any golden image, the largest error as a palette chosen per image)
        assert worst <= max(34, own_worst), (kind, worst, own_worst)
        assert share <= 0.005, (kind, share, own_share)


def test_encode_uses_the_fixed_palette_for_a_game_only() -> None:
    board = golden_images("heaven")["mid"]
    assert board is not None
    assert renders.encode(board, game_id="heaven") == (png.encode(board, "heaven"), "png")
    assert renders.encode(board) == (base.to_png(board), "png")
    assert png.encode(board, "no-such-game") is None
    assert renders.encode(board, game_id="no-such-game") == (base.to_png(board), "png")
    assert png.encode(board.convert("RGBA"), "heaven") is None


def test_a_file_over_the_limit_falls_back_to_jpeg() -> None:
    board = golden_images("heaven")["mid"]
    assert board is not None
    limit = min(len(png.encode(board, "heaven") or b""), len(base.to_png(board))) - 1
    data, ext = renders.encode(board, limit, game_id="heaven")
    assert ext == "jpg" and len(data) <= limit


def test_the_decisions_of_a_game_that_draws_them_have_a_palette_of_their_own() -> None:
    assert png.palette_key("eguan", "decision") == "eguan.decision"
    assert png.palette_key("eguan", "board") == png.palette_key("eguan", "private") == "eguan"
    for game_id in sorted(ENGINES):
        assert (png.palette(png.palette_key(game_id, "decision")) is not None) == renders.has_decision(game_id)
    preview = golden_images("eguan")["decision"]
    assert preview is not None
    data = png.encode(preview, "eguan.decision")
    assert data is not None
    expected = preview.quantize(palette=png.palette("eguan.decision"), dither=Image.Dither.NONE)
    assert decoded(data).tobytes() == expected.tobytes()
    # (the boards' palette lacks the preview's overlay colours: 15 % of its pixels off by more than 8)
    assert changed(preview, png.encode(preview, "eguan") or b"")[1] > 0.05
    assert changed(preview, data)[1] <= 0.005


def test_a_decision_job_is_encoded_with_the_decisions_palette() -> None:
    from bot import render_pool
    from bot.text import Texts
    from tests.render.test_tiles import playout_views

    names = ("Ann", "李白", "さくら")
    text = Texts("eguan", list(names))
    own, image = next((own, image) for _, own in playout_views("eguan", 3, 7, 12)
                      if (image := renders.decision_image("eguan", own, names, text)) is not None)
    done = render_pool.render(render_pool.RenderJob("decision", "eguan", own, names))
    assert done is not None
    expected = png.encode(image, "eguan.decision")
    assert expected is not None and expected != base.to_png(image)
    assert (done.data, done.ext) == (expected, "png")
