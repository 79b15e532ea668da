"""render/base.py: fonts fall back instead of crashing (DISCORD.md failure mode 15), and
images are fitted under an upload limit (failure mode 12)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from PIL import Image, ImageChops, ImageFont

from render import base


@pytest.fixture
def fresh_fonts() -> Iterator[None]:
    base.font.cache_clear()
    yield
    base.font.cache_clear()


def test_a_missing_font_file_is_skipped(fresh_fonts, monkeypatch, caplog) -> None:
    monkeypatch.setattr(base, "EXTRA_FONTS", [("/nonexistent/NoSuchFont.ttf", 0)])
    with caplog.at_level(logging.WARNING, logger="render.base"):
        f = base.font(24)
    assert f.getlength("Carnival") > 0
    assert not caplog.records                         # the packaged CJK font was found next


def test_no_font_file_at_all_falls_back_with_a_warning(fresh_fonts, monkeypatch, caplog) -> None:
    monkeypatch.setattr(base, "_font_candidates", lambda bold: [("/nonexistent/a.ttf", 0), ("/nonexistent/b.ttc", 2)])
    with caplog.at_level(logging.WARNING, logger="render.base"):
        f = base.font(22, bold=True)
        img, draw = base.canvas(80, 400)
        base.draw_text(draw, (10, 10), "罪のカーニバル Ünïcødé 🎲", size=22, max_width=200)
    assert any(r.levelno == logging.WARNING and "falling back" in r.getMessage() for r in caplog.records)
    assert f.getlength("abc") > 0
    blank, _ = base.canvas(80, 400)
    assert ImageChops.difference(img, blank).getbbox() is not None      # something was drawn


def test_missing_glyphs_render_without_crashing(fresh_fonts) -> None:
    img, draw = base.canvas(60, 600)
    text = "A · 😈🎲 \U0001fae0 \u0378 \U000e0001 天路"     # emoji, unassigned, tag characters, CJK
    base.draw_text(draw, (5, 5), text, size=20, max_width=300)
    assert base.fit_text(text, 20, 40).endswith("…")
    assert img.size == (600, 60)


@pytest.mark.parametrize("limit", [60_000, 20_000])
def test_fit_under_keeps_to_the_limit(limit: int) -> None:
    img = Image.effect_noise((1100, 900), 80).convert("RGB")     # noise does not compress
    data, ext = base.fit_under(img, limit)
    assert len(data) <= limit and ext == "jpg"
    small = Image.new("RGB", (100, 100), (1, 2, 3))
    data, ext = base.fit_under(small, limit)
    assert ext == "png" and data == base.to_png(small)


def _forget_fonts() -> None:
    for memo in (base.font, base._has_bold_face, base._run_width):
        memo.cache_clear()
    base._clear_tiles()


def _bold_line() -> Image.Image:
    img, draw = base.canvas(50, 400)
    base.draw_text(draw, (10, 10), "Round 5 罪のカーニバル", size=24, bold=True)
    return img


def test_bold_is_a_real_face_not_a_stroke() -> None:
    with pytest.MonkeyPatch.context() as patch:   # (as without the manimgx-fonts-cjk package)
        patch.setattr(base, "_variable_cjk", lambda: None)
        _forget_fonts()
        assert not base.has_bold_face()
        stroked = _bold_line()
    _forget_fonts()
    assert base.has_bold_face()                       # manimgx-fonts-cjk is a dependency
    face = base.font(24, bold=True)
    assert isinstance(face, ImageFont.FreeTypeFont) and face.font.family == "Noto Sans CJK SC"
    real = _bold_line()
    regular, draw = base.canvas(50, 400)
    base.draw_text(draw, (10, 10), "Round 5 罪のカーニバル", size=24)
    assert ImageChops.difference(real, stroked).getbbox() is not None
    assert ImageChops.difference(real, regular).getbbox() is not None
    # a bold face is wider than the regular one, and text_width measures what draw_text draws
    assert base.text_width("Round 5", 24, bold=True) > base.text_width("Round 5", 24) > 0


def test_palette_png_is_smaller_and_keeps_the_picture() -> None:
    img, draw = base.canvas(120, 500)
    draw.rectangle((20, 20, 200, 100), fill=base.SEAT_COLOURS[0])
    base.draw_text(draw, (220, 30), "Alice 天路 · Ünïcødé", size=28, fill=base.SEAT_COLOURS[1], bold=True)
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=False, compress_level=base.PNG_LEVEL)
    rgb = buf.getvalue()
    pal = base.to_png(img)
    assert len(pal) < len(rgb)
    with Image.open(io.BytesIO(pal)) as decoded:
        assert decoded.mode == "P"
        back = decoded.convert("RGB")
    with Image.open(io.BytesIO(rgb)) as decoded:
        assert decoded.convert("RGB").tobytes() == img.tobytes()      # RGB PNG: lossless
    diff = ImageChops.difference(back, img).convert("L")
    assert max(diff.getextrema()) <= 48                               # no pixel far off
    assert sum(diff.histogram()[9:]) <= img.width * img.height // 100  # ≤ 1 % visibly changed
    assert base.to_png(img) == pal                                    # deterministic


def test_the_middle_dot_is_drawn_narrow() -> None:
    """The primary face (Noto Sans CJK SC) draws "·" a full em wide ("Bot · Normal" had a
    gap like a missing letter): it and the other ``NARROW_PUNCTUATION`` come from the Latin
    Noto Sans, the rest of the name from the primary face."""
    from render import base

    runs = base.text_runs("Bot · Normal")
    assert [run for run, _ in runs] == ["Bot ", "·", " ", "Normal"]
    assert runs[1][1] is not None and runs[1][1].endswith(base.LATIN_FACE) and runs[0][1] is None
    assert base.text_width("·", 32) < 0.35 * 32
    assert base.text_width("…", 32) < 0.85 * 32
    assert base.text_width("Bot · Normal", 32, True) < base.text_width("Bot Normal", 32, True) + 0.6 * 32


def test_a_text_of_several_fonts_measures_each_of_its_runs_once() -> None:
    base._text_width.cache_clear()
    base._run_width.cache_clear()
    first = "Alice 🎲 rolls"  # (runs: "Alice ", the die in the emoji face, " ", "rolls")
    width = base.text_width(first, 24)
    assert base._run_width.cache_info().misses == len(base.text_runs(first)) == 4
    longer = first + " 🎲 again"  # (wrapping measures longer and longer lines: their first runs are known)
    assert base.text_width(longer, 24) > width
    assert base._run_width.cache_info().misses == 4 + 2  # ("rolls " and "again" new; "Alice ", the die, " " known)
