"""No tofu (trust issue, point 7): a name or text in any common script, or with emoji,
draws with a font that has its glyphs (render/base.py fallback faces), right-to-left
text is shaped and ordered, and a character no font has is drawn as its name."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from render.base import _coverage, _primary, _shaped, canvas, draw_text, missing_glyphs, text_runs, text_width

NAMES = {
    "latin": "Zoë Ångström",
    "cyrillic": "Мария",
    "greek": "Ελένη",
    "arabic": "محمد علي",
    "hebrew": "שרה לוי",
    "thai": "สมชาย",
    "devanagari": "देवी",
    "bengali": "বাংলা",
    "tamil": "தமிழ்",
    "georgian": "ქეთევანი",
    "armenian": "Հայկ",
    "ethiopic": "ሰላም",
    "khmer": "ខ្មែរ",
    "chinese": "李小龍",
    "japanese": "さくら",
    "korean": "김민지",
    "emoji": "🎲 Dice Queen 👑",
    "emoji_sequence": "👨‍👩‍👧 ❤️",
}


@pytest.mark.parametrize("script", sorted(NAMES))
def test_every_character_has_a_font_that_draws_it(script: str) -> None:
    name = NAMES[script]
    assert missing_glyphs(name) == []
    primary = _primary()
    assert primary is not None
    for run, path in text_runs(name):
        cover = _coverage(*primary) if path is None else _coverage(path)
        assert all(ord(c) in cover for c in run if not c.isspace()), (script, run, path)


def test_scripts_outside_cjk_use_their_own_faces() -> None:
    assert [p.split("/")[-1] if p else None for _, p in text_runs(NAMES["arabic"])] == ["NotoSansArabic[wght].ttf"]
    assert [p.split("/")[-1] if p else None for _, p in text_runs(NAMES["thai"])] == ["NotoSansThai[wght].ttf"]
    assert text_runs("Ann") == [("Ann", None)]            # the primary face alone: pixels as before
    # a word is drawn in one face where one covers it all (no Greek word in two typefaces)
    assert len(text_runs(NAMES["greek"])) == 1


def test_right_to_left_runs_are_in_visual_order() -> None:
    runs = text_runs("محمد Ann")                       # a right-to-left paragraph: Ann stands left
    assert runs[0][0] == "Ann" and runs[-1][0].strip() == "محمد"
    runs = text_runs("Ann محمد")                       # a left-to-right paragraph: Ann stands left
    assert runs[0][0].strip() == "Ann" and runs[-1][0] == "محمد"


def test_a_character_no_font_has_is_drawn_as_its_name() -> None:
    text = "x\u0378y"                                    # an unassigned code point: no font has it
    assert missing_glyphs(text) == ["\u0378"]
    assert "".join(run for run, _ in text_runs(text)) == "x‹U+0378›y"


def test_emoji_and_bidi_controls_are_dropped_or_drawn_not_boxed() -> None:
    assert "".join(r for r, _ in text_runs("\u202eevil")) == "evil"
    assert "".join(r for r, _ in text_runs("❤️")) == "❤"   # the variation selector is dropped


FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
COUPLE = "\U0001F469\U0001F3FD\u200d\U0001F91D\u200d\U0001F468\U0001F3FF"


def _ink_width(text: str) -> int:
    img, draw = canvas(80, 600)
    blank = img.copy()
    draw_text(draw, (10, 10), text, size=40)
    box = ImageChops.difference(img, blank).getbbox()
    assert box is not None
    return box[2] - box[0]


@pytest.mark.skipif(not _shaped(), reason="Pillow without libraqm draws no ligatures")
def test_an_emoji_zwj_sequence_is_drawn_as_one_glyph() -> None:
    """The family emoji (man, woman, girl, boy joined by U+200D) is one glyph of Noto Emoji
    (its ligature, libraqm shaping), not four faces side by side; skin tones go with their
    emoji; a joiner inside a word of another script drops no letter."""
    assert [r for r, _ in text_runs(f"Ann {FAMILY}!")] == ["Ann ", FAMILY, "!"]
    assert text_width(FAMILY, 20) == text_width("\U0001F468", 20)
    assert _ink_width(FAMILY) < _ink_width(FAMILY.replace("\u200d", "")) / 2   # one glyph, not four faces
    assert "".join(r for r, _ in text_runs(COUPLE)) == COUPLE
    assert "".join(r for r, _ in text_runs("\u0915\u094d\u200d\u0937")) == "\u0915\u094d\u0937"


def test_without_shaping_an_emoji_zwj_sequence_is_its_first_face_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from render import base

    monkeypatch.setattr(base, "_shaped", lambda: False)
    base._text_runs.cache_clear()
    try:
        assert [r for r, _ in text_runs(f"Ann {FAMILY}!")] == ["Ann ", "\U0001F468", "!"]
        assert text_width(FAMILY, 20) == text_width("\U0001F468", 20)
        assert "".join(r for r, _ in text_runs(COUPLE)) == "\U0001F469"
    finally:
        base._text_runs.cache_clear()


@pytest.mark.parametrize("script", ["arabic", "thai", "emoji", "devanagari"])
def test_drawn_text_has_ink_and_width(script: str) -> None:
    img, draw = canvas(80, 600)
    blank = img.copy()
    draw_text(draw, (300, 40), NAMES[script], size=28, anchor="mm")
    assert ImageChops.difference(img, blank).getbbox() is not None
    assert text_width(NAMES[script], 28) > 20


def test_a_board_with_names_in_many_scripts_renders(tmp_path) -> None:
    from bot.text import Texts
    from engines.registry import get
    from render.registry import board_image

    engine = get("carnival")
    state = engine.new_game(5, 1, None)
    names = [NAMES[s] for s in ("arabic", "thai", "emoji", "hebrew", "devanagari")]
    image = board_image("carnival", engine.player_view(state, None), names, Texts("carnival", names, strict=True))
    assert isinstance(image, Image.Image) and image.width == 720  # (render/carnival.py WIDTH)
    image.save(tmp_path / "scripts.png")


def test_every_character_drawn_from_the_catalogs_and_renderers_has_a_glyph() -> None:
    """No tofu and no ‹Name› from our own texts on images: every character of the catalog
    entries that boards draw (``board.*`` and ``term.*``, English and translations) and of
    the renderers' source has a font that draws it; the fallback's brackets too."""
    from pathlib import Path

    from babel.messages.pofile import read_po

    root = Path(__file__).resolve().parents[2]
    drawn = [p.read_text(encoding="utf-8") for p in (root / "render").glob("*.py")]
    for po in (root / "bot" / "text" / "locale").glob("*/LC_MESSAGES/messages.po"):
        with po.open("rb") as f:
            catalog = read_po(f)
        drawn += [f"{m.string} {m.auto_comments}" for m in catalog
                  if isinstance(m.id, str) and m.id.startswith(("board.", "term.")) and isinstance(m.string, str)]
    chars = {c for t in drawn for c in t if not c.isspace() and ord(c) > 0x7f}
    assert sorted(missing_glyphs("".join(sorted(chars)) + "‹›")) == []
