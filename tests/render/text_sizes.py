"""Text sizes and layout of the images as a player sees them on a phone (docs/DISCORD.md: Discord
shows an image inline about ``PHONE`` px wide on a phone).

Two recorders:

* ``recording()`` / ``drawn_texts(draw)``: every text run drawn (``Drawn``: font size and text),
  through ``render.base._blit`` (every renderer draws text with ``render.base.draw_text``);
* ``layout(draw)``: the ``Layout`` of one image: every string drawn (one ``draw_text`` call: its
  ink box in the returned image's px, its font size, and the full text when ``fit_text`` cut it
  with '…'), the panels drawn (``ImageDraw`` rectangles and rounded rectangles), and the codes
  the image declares a legend for (``render.base.legend``). Parts drawn on images of their own
  and pasted (a tile, a cropped board) are moved with them (``Image.paste``, ``render.base.paste``,
  ``crop``/``copy``/``convert``); memoized tiles are drawn directly (``tests.render.direct.tiles_off``) and the renderers'
  memoized part images are forgotten first, so every string of the image is seen.

The checks of the phone-first contract, each over one ``Layout`` (``bench/phone.py`` runs them
over every game; docs/DISCORD.md "Phone limits"):

* ``small_texts``: effective size (font px × ``PHONE`` ÷ image width) below a floor
  (``BOARD_FLOOR`` everywhere, ``DECISION_FLOOR`` on images attached to a decision or a zoom);
* ``overlaps``: two strings whose ink boxes intersect by more than ``SLACK`` px each way (the
  same text drawn twice at nearly the same place, a shadow, is one string);
* ``outside``: a string that leaves the image, or its panel: the panel of a string is the
  topmost panel drawn before it, at least ``PANEL_MIN`` px, that holds the start of its ink box
  (``SLACK`` px in, halfway down), or the panel that one is a band of (a bar's fill, a row's
  stripe: as high or as wide as a panel drawn before it, inside it); the whole ink box must lie
  in that panel (``SLACK`` px of tolerance). A string that starts on the background, or on a
  mark smaller than ``PANEL_MIN``, has no panel and only has to stay in the image;
* ``cut_labels``: a string shortened with '…' by ``fit_text``, unless the cut falls inside a
  player name longer than ``NAME_KEPT`` characters;
* ``latin_codes``: in Chinese and Japanese, a string made of Latin code letters only (capitals
  and digits: "S", "H2", "K · 3") whose codes the image gives no legend for (``explained``);
* ``height_spread``: (max − min) ÷ min of a game's board heights.

Usage: ``python -m tests.render.text_sizes [game_id …]`` prints the smallest texts of the golden
images.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from render import base
from tests.render.direct import tiles_off

PHONE_WIDTH = 380
"""Display width (px) the golden-image floors of tests/render/test_text_sizes.py were set at."""

PHONE = 360
"""Display width (px) of an image inline on a phone: the phone-first contract's."""

BOARD_FLOOR = 8.0
"""Least effective size (px at ``PHONE`` display width) of any string on any image."""

DECISION_FLOOR = 10.0
"""Least effective size of a string on an image attached to a decision or a zoom."""

PANEL_MIN = (32, 16)
"""Least (width, height) px of a rectangle that counts as a panel."""

SLACK = 2
"""Px by which boxes may overlap or leave their panel without a report (anti-aliasing, a
descender touching a frame)."""

NAME_KEPT = 16
"""Player names up to this many characters must never be cut; longer ones may be."""

HEIGHT_SPREAD = 0.10
"""Largest (max − min) ÷ min of the board heights of one game (one player count, language and
set of names)."""

Box = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Drawn:
    """One text run drawn: its font ``size`` (px, image scale) and the ``text`` (one font run)."""

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


def phone_px(size: float, width: int, phone: int = PHONE_WIDTH) -> float:
    """A font ``size`` (px) of an image ``width`` px wide, at ``phone`` px display width."""
    return size * phone / width


def effective(size: float, width: int) -> float:
    """The effective size of a font ``size`` (px) on an image ``width`` px wide: at ``PHONE``."""
    return size * PHONE / width


# -- the layout recorder ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shown:
    """One string drawn (one ``draw_text`` call): ``text`` as drawn, its font ``size`` px, its
    ink ``box`` (x0, y0, x1, y1; end exclusive) in image px, its drawing ``order`` and ``full``,
    the text before ``fit_text`` cut it (None when not cut)."""

    text: str
    size: int
    box: Box
    order: int
    full: str | None = None


@dataclass(frozen=True, slots=True)
class Panel:
    """A rectangle drawn: its ``box`` in image px (inclusive corners, as Pillow's) and ``order``."""

    box: Box
    order: int


@dataclass
class Layout:
    """What one image shows: its size, the strings, the panels and the codes it has a legend for."""

    width: int
    height: int
    texts: list[Shown] = field(default_factory=list)
    panels: list[Panel] = field(default_factory=list)
    legends: set[str] = field(default_factory=set)


class _Recorder:
    """Items drawn on each image (by ``id``; the images are held so ids stay theirs)."""

    def __init__(self) -> None:
        self.images: dict[int, tuple[Any, list[Shown | Panel]]] = {}
        self.order = 0
        self.cuts: dict[str, str] = {}
        self.legends: set[str] = set()
        self.group: tuple[Any, Any, int] | None = None  # (draw_text's frame, image, index of its string)
        self.inside_rect = False

    def items(self, image: Any) -> list[Shown | Panel]:
        entry = self.images.get(id(image))
        if entry is None or entry[0] is not image:
            entry = self.images[id(image)] = (image, [])
        return entry[1]

    def next_order(self) -> int:
        self.order += 1
        return self.order

    def text(self, draw: Any, xy: tuple[float, float], text: str, face: Any, anchor: str, stroke: int) -> None:
        if not text.strip() or not hasattr(face, "getbbox"):
            return
        image = getattr(draw, "_image", None)
        if image is None:
            return
        box = _ink(draw, xy, text, face, anchor, stroke)
        if box is None:
            return
        caller = sys._getframe(2)
        items = self.items(image)
        if caller.f_code is base.draw_text.__code__:
            if self.group is not None and self.group[0] is caller and self.group[1] is image:
                index = self.group[2]
                old = items[index]
                assert isinstance(old, Shown)
                items[index] = Shown(old.text, old.size, _union(old.box, box), old.order, old.full)
                return
            whole = str(caller.f_locals.get("text", text))
            size = int(caller.f_locals.get("size", getattr(face, "size", 0)))
            full = self.cuts.get(whole) if whole.endswith("…") else None
            items.append(Shown(whole, size, box, self.next_order(), full))
            self.group = (caller, image, len(items) - 1)
            return
        self.group = None
        items.append(Shown(text, int(getattr(face, "size", 0)), box, self.next_order()))

    def rectangle(self, draw: Any, xy: Any, filled: bool) -> None:
        image = getattr(draw, "_image", None)
        if image is None or self.inside_rect:
            return
        box = _box(xy)
        if box is not None:
            if filled:
                self.cover(image, box)
            self.items(image).append(Panel(box, self.next_order()))

    def cover(self, image: Any, box: Box) -> None:
        """Forget the strings of ``image`` that a fill or a paste over ``box`` hides."""
        entry = self.images.get(id(image))
        if entry is None or entry[0] is not image:
            return
        entry[1][:] = [i for i in entry[1] if isinstance(i, Panel) or not _within(i.box, box, 0)]
        self.group = None

    def moved(self, source: Any, target: Any, dx: int, dy: int) -> None:
        """``source``'s items drawn onto ``target`` at (dx, dy) (a paste, a crop, a copy)."""
        if source is target:
            return
        entry = self.images.get(id(source))
        if entry is None or entry[0] is not source:
            self.cover(target, (dx, dy, dx + source.width - 1, dy + source.height - 1))
            return
        self.cover(target, (dx, dy, dx + source.width - 1, dy + source.height - 1))
        out = self.items(target)
        for item in entry[1]:
            if isinstance(item, Shown):
                out.append(Shown(item.text, item.size, _shift(item.box, dx, dy), self.next_order(), item.full))
            else:
                out.append(Panel(_shift(item.box, dx, dy), self.next_order()))


def _ink(draw: Any, xy: tuple[float, float], text: str, face: Any, anchor: str, stroke: int) -> Box | None:
    """The box of the pixels ``render.base._blit`` inks for ``text`` (its memoized glyph mask, at
    the place ``_blit`` puts it), or Pillow's ``textbbox`` for lines of text or a face that is not
    FreeType (``_blit`` leaves those to ``ImageDraw.text``)."""
    x, y = xy
    if not isinstance(face, ImageFont.FreeTypeFont) or "\n" in text:
        left, top, right, bottom = draw.textbbox(xy, text, font=face, anchor=anchor, stroke_width=stroke)
        return (int(left), int(top), int(right + 0.999), int(bottom + 0.999))
    start = (math.modf(x)[0], math.modf(y)[0])
    mask, offset = base._mask(face, text, draw.fontmode, stroke, anchor, start)
    bbox = mask.getbbox()
    if bbox is None:
        return None
    left, top = int(x) + offset[0], int(y) + offset[1]
    return (left + bbox[0], top + bbox[1], left + bbox[2], top + bbox[3])


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _shift(box: Box, dx: int, dy: int) -> Box:
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


def _box(xy: Any) -> Box | None:
    """Pillow's rectangle ``xy`` (two points or four numbers) as (x0, y0, x1, y1), or None."""
    try:
        flat = [float(v) for point in xy for v in (point if isinstance(point, (tuple, list)) else (point,))]
    except TypeError:
        return None
    if len(flat) != 4:
        return None
    x0, y0, x1, y1 = flat
    return (int(min(x0, x1)), int(min(y0, y1)), int(max(x0, x1)), int(max(y0, y1)))


def _forget_memoized_parts() -> None:
    """Forget the renderers' memoized functions (``functools.lru_cache``: part images such as
    Illumination's tiles), so their parts are drawn, and seen, again."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("render.") or name in ("render.base", "render.png", "render.registry"):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == name:
                value.cache_clear()


@contextmanager
def _recorder() -> Iterator[_Recorder]:
    rec = _Recorder()
    blit = base._blit
    rectangle, rounded = ImageDraw.ImageDraw.rectangle, ImageDraw.ImageDraw.rounded_rectangle
    stamped = base.Draw.rounded_rectangle  # (the boards' own: recorded as Pillow's, the same pixels)
    paste, crop, copy, convert = Image.Image.paste, Image.Image.crop, Image.Image.copy, Image.Image.convert
    base_paste = base.paste

    def hooked_blit(draw: Any, xy: Any, text: str, face: Any, fill: Any, anchor: str, stroke: int) -> None:
        rec.text(draw, xy, text, face, anchor, stroke)
        blit(draw, xy, text, face, fill, anchor, stroke)

    def hooked_rectangle(self: Any, xy: Any, *args: Any, **kwargs: Any) -> Any:
        rec.rectangle(self, xy, (args[0] if args else kwargs.get("fill")) is not None)
        return rectangle(self, xy, *args, **kwargs)

    def hooked_rounded(self: Any, xy: Any, *args: Any, **kwargs: Any) -> Any:
        rec.rectangle(self, xy, (args[1] if len(args) > 1 else kwargs.get("fill")) is not None)
        rec.inside_rect = True
        try:
            return rounded(self, xy, *args, **kwargs)
        finally:
            rec.inside_rect = False

    def hooked_paste(self: Any, im: Any, box: Any = None, mask: Any = None) -> Any:
        out = paste(self, im, box, mask)
        if isinstance(im, Image.Image):
            dx, dy = (int(box[0]), int(box[1])) if box is not None and len(box) >= 2 else (0, 0)
            rec.moved(im, self, dx, dy)
        return out

    def hooked_base_paste(image: Any, part: Any, xy: Any, mask: Any = None) -> None:
        base_paste(image, part, xy, mask)
        rec.moved(part, image, int(xy[0]), int(xy[1]))

    def hooked_crop(self: Any, box: Any = None) -> Any:
        out = crop(self, box)
        dx, dy = (-int(box[0]), -int(box[1])) if box is not None else (0, 0)
        rec.moved(self, out, dx, dy)
        return out

    def hooked_copy(self: Any) -> Any:
        out = copy(self)
        rec.moved(self, out, 0, 0)
        return out

    def hooked_convert(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = convert(self, *args, **kwargs)
        rec.moved(self, out, 0, 0)
        return out

    def cut(full: str, short: str) -> None:
        rec.cuts[short] = full

    _forget_memoized_parts()
    base._blit = hooked_blit
    ImageDraw.ImageDraw.rectangle = hooked_rectangle  # type: ignore[method-assign]
    ImageDraw.ImageDraw.rounded_rectangle = hooked_rounded  # type: ignore[method-assign]
    base.Draw.rounded_rectangle = hooked_rounded  # type: ignore[method-assign]
    Image.Image.paste = hooked_paste  # type: ignore[method-assign]
    base.paste = hooked_base_paste
    Image.Image.crop = hooked_crop  # type: ignore[method-assign]
    Image.Image.copy = hooked_copy  # type: ignore[method-assign]
    Image.Image.convert = hooked_convert  # type: ignore[method-assign]
    base.LAYOUT_HOOKS["cut"] = cut
    base.LAYOUT_HOOKS["legend"] = rec.legends.update
    try:
        with tiles_off():
            yield rec
    finally:
        base._blit = blit
        ImageDraw.ImageDraw.rectangle = rectangle  # type: ignore[method-assign]
        ImageDraw.ImageDraw.rounded_rectangle = rounded  # type: ignore[method-assign]
        base.Draw.rounded_rectangle = stamped  # type: ignore[method-assign]
        Image.Image.paste = paste  # type: ignore[method-assign]
        base.paste = base_paste
        Image.Image.crop = crop  # type: ignore[method-assign]
        Image.Image.copy = copy  # type: ignore[method-assign]
        Image.Image.convert = convert  # type: ignore[method-assign]
        base.LAYOUT_HOOKS.pop("cut", None)
        base.LAYOUT_HOOKS.pop("legend", None)


def layout(draw: Callable[[], Any]) -> tuple[Any, Layout | None]:
    """``(image, layout)``: the image ``draw()`` returns (None: no layout) and what it shows."""
    with _recorder() as rec:
        image = draw()
    if image is None:
        return None, None
    entry = rec.images.get(id(image))
    items = entry[1] if entry is not None and entry[0] is image else []
    texts = [i for i in items if isinstance(i, Shown)]
    panels = [i for i in items if isinstance(i, Panel)]
    return image, Layout(image.width, image.height, texts, panels, set(rec.legends))


# -- the checks ---------------------------------------------------------------------------


def small_texts(shown: Layout, floor: float) -> list[Shown]:
    """The strings whose effective size (``effective``) is below ``floor``."""
    return [t for t in shown.texts if effective(t.size, shown.width) < floor - 1e-9]


def least_size(shown: Layout) -> float | None:
    """The smallest effective size of a string of ``shown`` (None: no string)."""
    return min((effective(t.size, shown.width) for t in shown.texts), default=None)


def _meet(a: Box, b: Box, slack: int = SLACK) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def overlaps(shown: Layout) -> list[tuple[Shown, Shown]]:
    """Pairs of strings whose ink boxes intersect by more than ``SLACK`` px both ways; the same
    text drawn twice within ``SLACK`` px (a shadow, an outline) is not a pair."""
    out: list[tuple[Shown, Shown]] = []
    texts = sorted(shown.texts, key=lambda t: t.box[0])
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if b.box[0] >= a.box[2] - SLACK:
                break
            if not _meet(a.box, b.box):
                continue
            if a.text == b.text and all(abs(p - q) <= SLACK for p, q in zip(a.box, b.box, strict=True)):
                continue
            out.append((a, b) if a.order < b.order else (b, a))
    return out


def panel_of(shown: Layout, text: Shown) -> Panel | None:
    """The panel ``text`` starts in: the topmost panel drawn before it, at least ``PANEL_MIN``,
    holding the start of its ink box (``SLACK`` px in from its left edge, halfway down), or the
    panel that one is a band of (``_band_of``: a bar's fill stands for its bar)."""
    x0, y0, _, y1 = text.box
    point = (x0 + SLACK, (y0 + y1) // 2)
    best: Panel | None = None
    for p in shown.panels:
        if p.order > text.order:
            continue
        px0, py0, px1, py1 = p.box
        if px1 - px0 < PANEL_MIN[0] or py1 - py0 < PANEL_MIN[1]:
            continue
        if px0 <= point[0] <= px1 and py0 <= point[1] <= py1 and (best is None or p.order > best.order):
            best = p
    while best is not None:  # a band of a panel (a bar's fill, a row's stripe) stands for that panel
        band = best
        best = next((p for p in shown.panels if p.order < band.order and _band_of(band.box, p.box)), None)
        if best is None:
            return band
    return best


def _band_of(band: Box, panel: Box) -> bool:
    """Whether ``band`` lies in ``panel`` from its top to its bottom or from its left to its right
    (1 px of tolerance)."""
    inside = (band[0] >= panel[0] - 1 and band[1] >= panel[1] - 1 and band[2] <= panel[2] + 1
              and band[3] <= panel[3] + 1)
    across = abs(band[1] - panel[1]) <= 1 and abs(band[3] - panel[3]) <= 1
    down = abs(band[0] - panel[0]) <= 1 and abs(band[2] - panel[2]) <= 1
    return inside and (across or down) and band != panel


def _within(inner: Box, outer: Box, slack: int = SLACK) -> bool:
    """Whether ``inner`` (ink box: end exclusive) lies in ``outer`` (Pillow's inclusive corners)."""
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + 1 + slack and inner[3] <= outer[3] + 1 + slack)


def outside(shown: Layout) -> list[tuple[Shown, Panel | None]]:
    """Strings that leave the image (``None``) or their panel (``panel_of``)."""
    out: list[tuple[Shown, Panel | None]] = []
    whole = (0, 0, shown.width - 1, shown.height - 1)
    for t in shown.texts:
        if not _within(t.box, whole):
            out.append((t, None))
            continue
        panel = panel_of(shown, t)
        if panel is not None and not _within(t.box, panel.box):
            out.append((t, panel))
    return out


def cut_labels(shown: Layout, names: Sequence[str]) -> list[Shown]:
    """Strings ``fit_text`` cut with '…', but those cut inside a player name of more than
    ``NAME_KEPT`` characters (the part kept ends within that name)."""
    long = [n for n in names if len(n) > NAME_KEPT]
    out: list[Shown] = []
    for t in shown.texts:
        if t.full is None:
            continue
        kept = len(t.text) - 1
        if any(start <= kept < start + len(n) for n in long for start in _starts(t.full, n)):
            continue
        out.append(t)
    return out


def _starts(text: str, part: str) -> Iterator[int]:
    start = text.find(part)
    while start >= 0:
        yield start
        start = text.find(part, start + 1)


CODE = re.compile(r"[A-Z][A-Z0-9]*")
"""A Latin code: a capital, then capitals or digits ("S", "H2", "VP")."""

CODE_TEXT = re.compile(r"^[\sA-Z0-9.,:;/+×x=#()\[\]·•|–-]*$")
"""A string of codes, numbers and signs only (no other letters)."""


def codes_of(text: str) -> list[str]:
    """The Latin codes of ``text`` when it is made of codes, numbers and signs only, else []."""
    if not CODE_TEXT.match(text):
        return []
    return CODE.findall(text.replace("×", " ").replace("x", " "))


def latin_codes(shown: Layout, names: Sequence[str]) -> list[Shown]:
    """Strings made of Latin codes only (``codes_of``) whose codes have no legend in the image
    (``render.base.legend``); player names are not codes. For Chinese and Japanese images."""
    own = {n.strip() for n in names}
    return [t for t in shown.texts
            if t.text.strip() not in own and any(not explained(c, shown.legends) for c in codes_of(t.text))]


def explained(code: str, legends: set[str]) -> bool:
    """Whether a legend explains ``code``: the code itself, or its letters before its number
    ("H" explains "H2" and "H01")."""
    return code in legends or code.rstrip("0123456789") in legends


def height_spread(heights: Iterable[int]) -> float:
    """(max − min) ÷ min of ``heights`` (0 for none)."""
    values = list(heights)
    return (max(values) - min(values)) / min(values) if values else 0.0


# -- the golden images --------------------------------------------------------------------


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
    """Per game and golden image kind, the width, the smallest font size and its effective
    size (at ``PHONE`` px); then the texts of each game below ``DECISION_FLOOR`` there."""
    from tests.golden.cases import cases

    lines = [f"{'game':<13}{'image':<10}{'width':>6}{'min px':>8}{f'@{PHONE}':>7}  smallest text"]
    small: list[str] = []
    for game_id in dict.fromkeys(c.game_id for c in cases()):
        if games and game_id not in games:
            continue
        for kind, (image, seen) in golden_texts(game_id).items():
            least = min(seen, key=lambda d: d.size)
            lines.append(f"{game_id:<13}{kind:<10}{image.width:>6}{least.size:>8}"
                         f"{effective(least.size, image.width):>7.1f}  {least.text[:40]!r}")
            for d in sorted(set(seen), key=lambda d: d.size):
                if effective(d.size, image.width) < DECISION_FLOOR:
                    small.append(f"  {game_id}-{kind}: {d.size} px ({effective(d.size, image.width):.1f}) "
                                 f"{d.text[:50]!r}")
    return "\n".join(lines + (["", f"texts under {DECISION_FLOOR:g} px at {PHONE} px display width:"] + small
                              if small else []))


if __name__ == "__main__":
    print(report(sys.argv[1:]))
