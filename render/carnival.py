"""Carnival of Sins board renderer (spec docs/rules/carnival.md §11 Board image; design §6).

``render_board(view, *, names, text, highlight=None)`` draws the PUBLIC view
(``engines.carnival.types.PublicView``): the round table from above with every seat, each
die drawn as its shape (``engines.carnival.data.SHAPES``: d4 triangle … d20 hexagon, W
white square) with its id and big value, card spots with locked dice (and their ids),
the Devil marker, thin "Sloth would take" lines (spatial), or sectors + centre circle
(zones); then one panel per player and the score sheet. A finished game (spec §8.2)
shows each player's place and the winners instead of a Devil marker or Sloth lines. Dice lying close together never
hide each other: ``place_dice`` (pure, tested) nudges a glyph that would overlap another
glyph, a card spot or a seat label to the nearest free spot, and the board draws a thin
leader line back to a dot at the die's true position. ``render_private(view, *, names,
text)`` draws one seat's view (``PrivateView``): its remaining sins with effect hints and
its current secret pick.

Every word on the images comes from the catalog (``bot/text/en/carnival.toml``, keys
``board.*``, ``term.sin.*``, ``hint.*``) through ``text``, the host's formatter of
``Msg`` values; sin ids, their Japanese names and die shapes come from
``engines/carnival/data.py``. Seat letters appear only as badges.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engines.base import Msg, msg, present, seat_ref, seats_ref, term
from engines.carnival.data import DICE, SHAPES, SIN_JAPANESE, SINS
from engines.carnival.types import DieView, PrivateView, PublicView
from render import base
from render.base import (
    HIGHLIGHT,
    INK,
    LINE,
    PANEL,
    SEAT_LETTERS,
    WHITE,
    TextFormatter,
    canvas,
    draw_text,
    fit_text,
    legend,
    polygon,
    seat_colour,
    text_width,
    wrap_text,
)

Colour = tuple[int, int, int]

FELT: Colour = (34, 102, 68)
FELT_LIGHT: Colour = (52, 128, 88)
RIM: Colour = (110, 72, 40)
DIE_BLACK: Colour = (22, 22, 28)
DEVIL_RED: Colour = (190, 30, 45)
CARD_BACK: Colour = (70, 40, 110)

WIDTH = 720
"""Width (px) of every Carnival image: a phone shows it about 360 px wide, at half size."""
SMALL = 22
"""The smallest text size (px) on the images: 11 px on a 360-px phone (seat labels, die ids,
tags), so the table is drawn at the size of a decision picture (≥ 20 px on 720)."""
NAME_SIZE = 26
"""Names and totals in the player rows, the headings."""
NOTE_SIZE = 20
"""The legends (table, score sheet) and the cards left in the score sheet."""
DIE_VALUE_MIN = 20
"""The smallest die value size (px; two-digit values on the small dice of the card spots
and player rows)."""
TRIANGLE_SCALE = 1.25
"""A d4's triangle is drawn with 1.25 × the radius of the other shapes (its value then
reaches ``DIE_VALUE_MIN`` inside it on the small dice; its area is still the smallest)."""
LETTER_SIZE = 20
"""Seat letters in the badges of the seat labels and panels."""
GREY: Colour = (70, 70, 82)
"""Small secondary text: darker than ``render.base.MUTED`` for contrast at SMALL size."""

SCALE = 0.25
"""Pixels per milli-unit (table radius 1000 → 250 px)."""
TABLE_TOP = 84
TABLE_MARGIN = 82
CX = WIDTH // 2
CY = TABLE_TOP + TABLE_MARGIN + int(1000 * SCALE)
TABLE_BOTTOM = CY + int(1000 * SCALE) + TABLE_MARGIN


def _name(text: TextFormatter, seat: int) -> str:
    """The display name of ``seat`` as every text shows it (``Texts.name``)."""
    return _board(text, "name", name=seat_ref(seat))


def _letter(seat: int) -> str:
    return SEAT_LETTERS[seat % len(SEAT_LETTERS)]


def _board(text: TextFormatter, key: str, **params: Any) -> str:
    """A board text: catalog ``board.<key>``."""
    return text(msg(f"board.{key}", **params))


def _sin_title(text: TextFormatter, sin: str) -> str:
    """The sin's name in the reader's language (``term.sin.<id>``)."""
    return text(msg(f"term.sin.{sin}"))


def _card_title(text: TextFormatter, sin: str) -> str:
    """``Greed 貪欲``: the translated name and the seed's Japanese name."""
    return _board(text, "card", sin=term(f"sin.{sin}"), japanese=SIN_JAPANESE[sin])


def _to_px(x: float, y: float) -> tuple[float, float]:
    return (CX + x * SCALE, CY - y * SCALE)


def _die_px(die: DieView) -> tuple[float, float]:
    """Pixel position of a die lying on the spatial table."""
    pos = die["pos"]
    assert pos is not None, die["id"]
    return _to_px(pos[0], pos[1])


# --------------------------------------------------------------------------- dice shapes


def _shape_points(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    def poly(n: int, rot: float, radius: float = r) -> list[tuple[float, float]]:
        return [
            (cx + radius * math.cos(math.radians(rot + 360 * i / n)),
             cy + radius * math.sin(math.radians(rot + 360 * i / n)))
            for i in range(n)
        ]

    if shape == "triangle":  # (drawn larger: a triangle of radius r holds a smaller digit)
        return [(x, y + r * TRIANGLE_SCALE * 0.22) for x, y in poly(3, -90, TRIANGLE_SCALE * r)]
    if shape == "square":
        return [(cx + (x - cx) * 1.12, cy + (y - cy) * 1.12) for x, y in poly(4, 45)]
    if shape == "diamond":
        return [(cx, cy - r * 1.1), (cx + r * 0.95, cy), (cx, cy + r * 1.1), (cx - r * 0.95, cy)]
    if shape == "kite":
        return [(cx, cy - r * 1.25), (cx + r * 1.05, cy - r * 0.3), (cx, cy + r * 1.05),
                (cx - r * 1.05, cy - r * 0.3)]
    if shape == "pentagon":
        return poly(5, -90)
    return poly(6, 0)  # hexagon


def draw_die(
    draw: ImageDraw.ImageDraw,
    die: str,
    value: int | None,
    cx: float,
    cy: float,
    r: float,
    *,
    label: bool = True,
    highlight: bool = False,
    white_tag: str = "W",
) -> None:
    """Draw one die as its shape centred at (cx, cy) with radius ``r`` px, its value
    big inside and (``label``) its id under it (the white die's: ``white_tag``, the catalog's
    ``board.white_die`` in the reader's language)."""
    white = die == "W"
    shape = SHAPES.get(die, "square")
    pts = _shape_points(shape, cx, cy, r)
    if highlight:
        draw.ellipse((cx - r - 7, cy - r - 7, cx + r + 7, cy + r + 7), outline=HIGHLIGHT, width=4)
    polygon(draw, pts, fill=WHITE if white else DIE_BLACK, outline=INK if white else WHITE, width=2)
    if value is not None:
        size = int(r * (1.05 if shape != "triangle" else 0.85 * TRIANGLE_SCALE))
        if value >= 10:
            size = int(size * 0.82)
        size = max(DIE_VALUE_MIN, size)
        ty = cy + (r * 0.18 * TRIANGLE_SCALE if shape == "triangle" else -r * 0.12 if shape == "kite" else 0)
        draw_text(draw, (cx, ty), str(value), size=size, fill=INK if white else WHITE, bold=True, anchor="mm")
    if label:
        tag = white_tag if white else die
        w = _label_w(die)
        top = _label_top(die, cy, r)
        draw.rounded_rectangle((cx - w / 2, top, cx + w / 2, top + LABEL_H), radius=5,
                               fill=WHITE if not white else (255, 240, 180), outline=INK)
        draw_text(draw, (cx, top + LABEL_H / 2), tag, size=LABEL_SIZE, bold=True, anchor="mm")


# --------------------------------------------------------------------------- helpers


def _seat_angle(seat: int, n: int) -> float:
    return math.radians(-90.0 - 360.0 * seat / n)


def _tag(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, *, size: int = SMALL,
         fill: Colour = PANEL, ink: Colour = INK, bold: bool = False, outline: Colour | None = None) -> float:
    """Rounded tag with ``text``, left edge at x, vertical centre at y; returns its right edge."""
    w = text_width(text, size, bold) + 12
    h = size + 8
    draw.rounded_rectangle((x, y - h / 2, x + w, y + h / 2), radius=6, fill=fill, outline=outline or LINE,
                           width=2)
    draw_text(draw, (x + 6, y), text, size=size, fill=ink, bold=bold, anchor="lm")
    return x + w


def _devil_tag(draw: ImageDraw.ImageDraw, x: float, y: float, text: TextFormatter) -> float:
    return _tag(draw, x, y, _board(text, "devil"), fill=DEVIL_RED, ink=WHITE, bold=True, outline=INK)


def _phase_text(view: PublicView, text: TextFormatter) -> str:
    phase = view["phase"]
    rnd = view["round"]
    if phase == "setup":
        return _board(text, "phase_setup")
    if phase == "roll":
        return _board(text, "phase_roll", round=rnd)
    if phase == "choose":
        waiting = [s for s in view["to_move"] if s >= 0]
        if not waiting:
            return _board(text, "phase_random", round=rnd)
        return _seats_line(text, lambda seats: _board(text, "phase_choose", round=rnd, seats=seats), waiting)
    if phase == "reveal":  # (only a replay pauses here: round 7's forced picks, before their reveals)
        return _board(text, "phase_reveal", round=rnd)
    if phase == "resolve" and (p := view.get("pending")):
        return _board(text, "phase_resolve", seat=seat_ref(p["seat"]), sin=term(f"sin.{p['sin']}"))
    if phase == "wrath_chance":
        return _board(text, "phase_wrath", sin=term("sin.wrath"))
    if phase == "pride" and (pr := view.get("pride")):
        turn = present(pr["turn"], "the Pride round has a player to take")
        return _board(text, "phase_pride", seat=seat_ref(pr["players"][turn]), sin=term("sin.pride"))
    if phase == "over":
        out = view.get("outcome")
        return _seats_line(text, lambda seats: _board(text, "phase_over", seats=seats), out["winners"] if out else [])
    return ""


PHASE_WIDTH = WIDTH - 40
"""Width (px) of the phase line under the title (``SMALL`` size)."""


NAME_KEEP = 4
"""The fewest characters of a name the phase line keeps when it shortens names (``_seats_line``)."""


def _seats_line(text: TextFormatter, line: Callable[[Any], str], seats: Sequence[int]) -> str:
    """``line(seats_ref(seats))`` (a sentence naming ``seats``, e.g. the players a pick waits
    for) when it fits ``PHASE_WIDTH`` at ``SMALL`` size; else the same sentence with every
    name shortened to one common width with '…' (``fit_text``), so that all the names stay
    (a plain cut at the end dropped the last ones); when that would keep fewer than
    ``NAME_KEEP`` characters of a name or make two names alike ("Bot…", "Bot…"), the seat
    letters the badges show ("A, B, C, D and E")."""
    full = line(seats_ref(seats))
    if not seats or text_width(full, SMALL) <= PHASE_WIDTH:
        return full
    order = sorted(seats)
    names = [_name(text, s) for s in order]

    def joined(items: Sequence[str]) -> str:
        if len(items) == 1:
            return items[0]
        head = text(msg("host.comma")).join(items[:-1])
        return text(msg("host.and", head=head, last=items[-1]))

    cap = max(text_width(n, SMALL) for n in names)
    while cap > 0:
        cap -= 8
        short = [fit_text(n, SMALL, cap) for n in names]
        kept = [len(c) - 1 if c != n else len(n) for c, n in zip(short, names, strict=True)]
        if any(k < min(NAME_KEEP, len(n)) for k, n in zip(kept, names, strict=True)) or len(set(short)) < len(short):
            break
        shown = line(joined(short))
        if text_width(shown, SMALL) <= PHASE_WIDTH:
            return shown
    return line(joined([_letter(s) for s in order]))


# --------------------------------------------------------------------------- table layout
#
# The table is laid out by pure helpers (no drawing) so that the placement of the dice
# can be tested: card spots and seat labels are fixed obstacles; each table die is
# then placed greedily (size order d4 … d20, W) at its true position, or — when its
# glyph + id label would overlap an already placed glyph, an obstacle, or another
# die's true-position dot — at the nearest free spot on rings around it. A moved die
# gets a thin leader line back to a dot at its true position.

Box = tuple[float, float, float, float]
"""(left, top, right, bottom) in pixels."""

TABLE_DIE_R = 23
"""Radius (px) of a die glyph lying on the spatial table."""
ZONE_DIE_R = 22
"""Radius (px) of a die glyph in a zone."""
CARD_DIE_R = 19
"""Radius (px) of a die locked on a card spot."""
CARD_COLS = 3
"""Locked dice per row on a card spot."""
CARD_PITCH = 48
"""Horizontal distance (px) of two locked dice on a card spot."""
CARD_ROW_H = 68
"""Height (px) of one row of locked dice (glyph + id) on a card spot."""
GAP = 3.0
"""Minimum free space (px) between two placed boxes."""
CARD_ROOM = 12.0
"""Minimum free space (px) between a table die (glyph + id) and a card spot: the spot's tag
("picked ✓", a sin's name) and the die stay two things on a phone."""
DOT_R = 5.0
"""Radius (px) of the true-position dot of a moved die."""
LEADER_MIN = 8.0
"""A moved die gets a leader line + dot only when its true position lies farther than
this (px) from its glyph box (closer, the glyph itself shows where it lies)."""
RING_STEP = 4.0
"""Distance (px) between two search rings of the placement."""
LABEL_SIZE = SMALL
LABEL_H = 27
LEGEND_SIZE = NOTE_SIZE
"""Text size (px) of the table's legend lines."""
LEGEND_STEP = 30
CARD_HEAD = 34
"""Height (px) of a card spot's title row (over its locked dice)."""
SEAT_LABEL_H = 34
"""Height (px) of a seat's name label outside the rim."""
ZONE_PITCH = 54
"""Horizontal distance (px) of two table dice in a zone."""
ZONE_ROW = 76
"""Vertical distance (px) of two rows of table dice in a zone."""
"""Distance (px) between two legend lines."""


@dataclass(frozen=True, slots=True)
class CardSpot:
    """Geometry of one seat's card spot: centre (x, y), size w × h px, the title shown
    on it and ``inner``, the distance (px) from the table centre to its inner edge."""

    seat: int
    x: float
    y: float
    w: float
    h: float
    title: str
    inner: float

    @property
    def box(self) -> Box:
        return (self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2)


@dataclass(frozen=True, slots=True)
class SeatLabel:
    """Geometry of one seat's name label (outside the rim) and, for the Devil holder,
    its DEVIL tag."""

    seat: int
    box: Box
    name: str
    devil: Box | None


@dataclass(frozen=True, slots=True)
class PlacedDie:
    """Where one table die is drawn: ``anchor`` = its true position (px), ``centre`` =
    the glyph centre, ``box`` = glyph + id label (+ highlight ring), ``moved`` when the
    glyph was nudged away from its true position (a leader line joins the two)."""

    die: str
    anchor: tuple[float, float]
    centre: tuple[float, float]
    box: Box
    moved: bool


def _label_w(die: str) -> float:
    if die == "W":  # (room for "W" or one CJK character: the same box in every language)
        return max(text_width("W", LABEL_SIZE, True), LABEL_SIZE) + 8
    return text_width(die, LABEL_SIZE, True) + 8


def _label_top(die: str, cy: float, r: float) -> float:
    shape = SHAPES.get(die, "square")
    pts = _shape_points(shape, 0.0, 0.0, r)
    return cy + max(y for _, y in pts) + 3


def die_box(die: str, cx: float, cy: float, r: float, *, label: bool = True, highlight: bool = False) -> Box:
    """Pixel box covered by ``draw_die(die, …, cx, cy, r, label=…, highlight=…)``
    (shape outline, id label and highlight ring)."""
    pts = _shape_points(SHAPES.get(die, "square"), cx, cy, r)
    left = min(x for x, _ in pts) - 2
    right = max(x for x, _ in pts) + 2
    top = min(y for _, y in pts) - 2
    bottom = max(y for _, y in pts) + 2
    if label:
        w = _label_w(die)
        left, right = min(left, cx - w / 2), max(right, cx + w / 2)
        bottom = _label_top(die, cy, r) + LABEL_H + 1
    if highlight:
        ring = r + 7 + 3
        left, top, right = min(left, cx - ring), min(top, cy - ring), max(right, cx + ring)
        bottom = max(bottom, cy + ring)
    return (left, top, right, bottom)


def _box_distance(pt: tuple[float, float], box: Box) -> float:
    """Distance (px) from ``pt`` to ``box`` (0 inside)."""
    dx = max(box[0] - pt[0], 0.0, pt[0] - box[2])
    dy = max(box[1] - pt[1], 0.0, pt[1] - box[3])
    return math.hypot(dx, dy)


def boxes_overlap(a: Box, b: Box, gap: float = 0.0) -> bool:
    """True when boxes ``a`` and ``b`` come closer than ``gap`` px."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


Numbers = dict[str, int]
"""The numbers of a decision picture (``render_decision``): by die id (spatial) or zone name."""


def card_layout(view: PublicView, text: TextFormatter, numbers: Numbers | None = None) -> list[CardSpot]:
    """Card spots pulled inside the rim, one per seat (locked dice sit in a row with ids)."""
    n = view["players"]
    r_seat = 1000 * SCALE
    labels = seat_label_layout(view, (), text, numbers)
    out = []
    for s in range(n):
        seat = view["seats"][s]
        ang = _seat_angle(s, n)
        locked = seat["locked"]
        card = seat["card"]
        title = _card_title(text, card) if card else _board(text, "picked")
        cols = min(len(locked), CARD_COLS)
        rows = -(-len(locked) // CARD_COLS)
        w = max(text_width(title, SMALL, True) + 14, CARD_PITCH * cols + 10)
        h = CARD_HEAD + CARD_ROW_H * rows + 2 if locked else CARD_HEAD + 4
        pull = abs(math.cos(ang)) * w / 2 + abs(math.sin(ang)) * h / 2 + 8
        while True:
            px = CX + (r_seat - pull) * math.cos(ang)
            py = CY - (r_seat - pull) * math.sin(ang)
            spot = CardSpot(s, px, py, w, h, title, r_seat - 2 * pull + 8)
            if pull > r_seat * 0.8 or not boxes_overlap(spot.box, labels[s].box, GAP):
                break
            pull += 3
        out.append(spot)
    return out


SIDE_NAME_W = 170
"""Room (px, ``SMALL`` bold) for the name on a seat label at the left or right of the table:
"Bot · Normal" and its translations fit whole (a longer name is cut at the end, so an AI's
level is cut before its name)."""


def seat_label_layout(view: PublicView, names: Sequence[str], text: TextFormatter,
                      numbers: Numbers | None = None) -> list[SeatLabel]:
    """Name labels (and the Devil tag) outside the rim, one per seat; a label at the left
    or right too wide for the room outside the rim lies over the rim, its seat's card
    spot pulled inward to clear it (``card_layout``). With ``numbers`` of the zones (a
    decision picture of the zone table), a seat's label starts with its zone's number."""
    n = view["players"]
    out = []
    dw = text_width(_board(text, "devil"), SMALL, True) + 12
    for s in range(n):
        ang = _seat_angle(s, n)
        sx, sy = _to_px(*view["seat_points"][s])
        side = abs(math.cos(ang)) > 0.6
        h = SEAT_LABEL_H
        number = (numbers or {}).get(f"seat{s}")
        full = _name(text, s) if number is None else _board(text, "numbered", n=number, what=_name(text, s))
        if side:  # (a long name slides the label inward over the rim: card_layout makes room)
            name = fit_text(full, SMALL, SIDE_NAME_W, True)
            w = text_width(name, SMALL, True) + 42
            left = sx - 20 - w if math.cos(ang) < 0 else sx + 20
            left = min(max(left, 4), WIDTH - 4 - w)
            top = sy - h / 2
        else:
            name = fit_text(full, SMALL, 260, True)
            w = text_width(name, SMALL, True) + 42
            left = min(max(sx - w / 2, 4), WIDTH - 4 - w)
            top = sy - h / 2 + (-30 if math.sin(ang) > 0 else 30)
        devil: Box | None = None
        if view.get("devil") == s:  # (under a side label, over a label above the table, beside one below it)
            dx = min(max(left + (w - dw) / 2, 4), WIDTH - 4 - dw)
            dy = top - 4 - (SMALL + 8) / 2 if not side and math.sin(ang) > 0 else top + h + 4 + (SMALL + 8) / 2
            if not side and math.sin(ang) <= 0:  # (under it, the tag would lie on the legend)
                dx = left + w + 6 if left + w + 6 + dw <= WIDTH - 4 else left - 6 - dw
                dy = top + h / 2
            devil = (dx, dy - (SMALL + 8) / 2, dx + dw, dy + (SMALL + 8) / 2)
        out.append(SeatLabel(s, (left, top, left + w, top + h), name, devil))
    return out


def _zone_anchors(view: PublicView, cards: Sequence[CardSpot]) -> dict[str, tuple[float, float]]:
    """Grid positions of the table dice inside their zones (zone table)."""
    n = view["players"]
    r_seat = 1000 * SCALE
    dice = {d["id"]: d for d in view["dice"]}
    out: dict[str, tuple[float, float]] = {}
    for zone, members in (view.get("zones") or {}).items():
        members = [d for d in DICE if d in members and dice[d]["place"] == "table"]
        if not members:
            continue
        if zone == "centre":
            cols = min(3, len(members))
            rows = (len(members) + cols - 1) // cols
            zx, zy = float(CX), CY + 10.0
        else:
            k = int(zone[4:])
            a = _seat_angle(k, n)
            side = abs(math.cos(a)) > 0.6
            inner = cards[k].inner if k < len(cards) else r_seat * 0.7
            rc0 = r_seat * 0.26
            if side:
                room = (inner - rc0) / max(abs(math.cos(a)), 0.01)
                cols = min(2 if room >= ZONE_PITCH + 52 else 1, len(members))
            else:
                cols = min(3, len(members))
            rows = (len(members) + cols - 1) // cols
            ext = abs(math.cos(a)) * cols * ZONE_PITCH / 2 + abs(math.sin(a)) * rows * ZONE_ROW / 2
            rr = max(inner - ext - 4, rc0 + ext) if not side else (inner + rc0) / 2
            zx, zy = CX + rr * math.cos(a), CY - rr * math.sin(a)
        for i, d in enumerate(members):
            c, r = i % cols, i // cols
            out[d] = (zx + (c - (cols - 1) / 2) * ZONE_PITCH, zy + (r - (rows - 1) / 2) * ZONE_ROW - 9)
    return out


def leader_dice(view: PublicView, placed: Sequence[PlacedDie]) -> list[PlacedDie]:
    """The placed dice that get a true-position dot and a leader line (spatial table: a
    glyph nudged farther than ``LEADER_MIN`` from where the die lies)."""
    if view["table_model"] != "spatial":
        return []
    return [p for p in placed if p.moved and _box_distance(p.anchor, p.box) > LEADER_MIN]


def _candidates(ax: float, ay: float, max_dist: float) -> Iterator[tuple[float, float]]:
    """Spots around (ax, ay), nearest first (lazily); on each ring the first spot points
    to the table centre, then alternately either way round (deterministic)."""
    yield (ax, ay)
    base = math.atan2(CY - ay, CX - ax) if (ax, ay) != (CX, CY) else -math.pi / 2
    ring = 1
    while ring * RING_STEP <= max_dist:
        rad = ring * RING_STEP
        k = max(12, int(2 * math.pi * rad / RING_STEP))
        for j in range(k):
            step = (j + 1) // 2 * (1 if j % 2 else -1)
            a = base + 2 * math.pi * step / k
            yield (ax + rad * math.cos(a), ay + rad * math.sin(a))
        ring += 1


def _is_free(box: Box, centre: tuple[float, float], reach: float, blocked: Sequence[Box],
             dots: Sequence[Box]) -> bool:
    """Whether a glyph's ``box`` centred at ``centre`` stays within ``reach`` px of the table centre and
    the board's sides and clear (``boxes_overlap``) of every box of ``blocked`` by ``GAP`` px and of every
    box of ``dots``; the overlap tests written out (the search makes some 350 calls a board)."""
    if math.hypot(centre[0] - CX, centre[1] - CY) > reach or box[0] < 4 or box[2] > WIDTH - 4:
        return False
    left, top, right, bottom = box
    for b in blocked:
        if left < b[2] + GAP and b[0] < right + GAP and top < b[3] + GAP and b[1] < bottom + GAP:
            return False
    for b in dots:
        if left < b[2] and b[0] < right and top < b[3] and b[1] < bottom:
            return False
    return True


def place_dice(view: PublicView, names: Sequence[str], text: TextFormatter, highlight: str | None = None,
               numbers: Numbers | None = None) -> list[PlacedDie]:
    """Place every table die's glyph + id label so that no two overlap and none covers a
    card spot (nor comes within ``CARD_ROOM`` of one), a seat label / Devil tag or another
    die's true-position dot (pure; the
    board image draws exactly these boxes). Dice are placed in size order; each goes
    to its true position when free, else to the nearest free spot. Returns the
    placements in size order (empty before the roll)."""
    if not view.get("rolled"):
        return []
    spatial = view["table_model"] == "spatial"
    dice = {d["id"]: d for d in view["dice"]}
    table = [d for d in DICE if d in dice and dice[d]["place"] == "table"]
    cards = card_layout(view, text, numbers)
    room = CARD_ROOM - GAP  # (the search keeps GAP from every obstacle)
    obstacles: list[Box] = [(c.box[0] - room, c.box[1] - room, c.box[2] + room, c.box[3] + room) for c in cards]
    for lab in seat_label_layout(view, names, text, numbers):
        obstacles.append(lab.box)
        if lab.devil:
            obstacles.append(lab.devil)
    if not spatial:  # (the centre zone's name, and its number on a decision picture, stay readable)
        obstacles.append(_centre_label_box(_centre_label(text, numbers)))
    r_die = TABLE_DIE_R if spatial else ZONE_DIE_R
    if spatial:
        anchors = {d: _die_px(dice[d]) for d in table}
        reach = view.get("r_play", 850) * SCALE + 10  # glyph centres stay on the felt
    else:
        anchors = _zone_anchors(view, cards)
        reach = 1000 * SCALE - r_die - 4
    dots = {d: (a[0] - DOT_R - 2, a[1] - DOT_R - 2, a[0] + DOT_R + 2, a[1] + DOT_R + 2)
            for d, a in anchors.items()} if spatial else {}
    return list(_search(tuple(table), tuple(anchors.get(d, (float(CX), float(CY))) for d in table), reach,
                        tuple(obstacles), tuple(dots.items()), r_die, highlight, base._fonts_key()))


@lru_cache(maxsize=512)
def _search(table: tuple[str, ...], anchors: tuple[tuple[float, float], ...], reach: float,
            obstacles: tuple[Box, ...], dots: tuple[tuple[str, Box], ...], r_die: float,
            highlight: str | None, fonts: tuple[Any, ...]) -> tuple[PlacedDie, ...]:
    """``place_dice``'s search, memoized: a board drawn again with the dice where they were (most
    moves move none) reuses it (about a quarter of a Carnival board's drawing). ``fonts``: the fonts
    (the id labels' widths), so another set of them (``render.base.EXTRA_FONTS``) searches again."""
    placed: list[PlacedDie] = []
    for d, (ax, ay) in zip(table, anchors, strict=True):
        hl = highlight == d
        blocked = [p.box for p in placed] + list(obstacles)
        other_dots = [b for o, b in dots if o != d]
        rel = die_box(d, 0.0, 0.0, r_die, highlight=hl)
        chosen: tuple[float, float] | None = None
        for strict in (True, False):
            for cx, cy in _candidates(ax, ay, 2 * reach):
                box = (cx + rel[0], cy + rel[1], cx + rel[2], cy + rel[3])
                if _is_free(box, (cx, cy), reach, blocked, other_dots if strict else []):
                    chosen = (cx, cy)
                    break
            if chosen:
                break
        if chosen is None:  # cannot happen on a 7-dice table; keep the true position
            chosen = (ax, ay)
        cx, cy = chosen
        moved = math.hypot(cx - ax, cy - ay) > 0.5
        placed.append(PlacedDie(d, (ax, ay), (cx, cy), die_box(d, cx, cy, r_die, highlight=hl), moved))
    return tuple(placed)


def _edge_point(start: tuple[float, float], centre: tuple[float, float], box: Box) -> tuple[float, float] | None:
    """Where the segment from ``start`` to ``centre`` (inside ``box``) enters ``box``; None
    when ``start`` lies inside it."""
    enter = 0.0
    for lo, hi, a, b in ((box[0], box[2], start[0], centre[0]), (box[1], box[3], start[1], centre[1])):
        if b != a:
            enter = max(enter, min((lo - a) / (b - a), (hi - a) / (b - a)))
    if enter <= 0.0:
        return None
    return (start[0] + (centre[0] - start[0]) * enter, start[1] + (centre[1] - start[1]) * enter)


# --------------------------------------------------------------------------- table drawing


CENTRE_LABEL_Y = CY - 1000 * SCALE * 0.26 + 14
"""The y (px) of the centre zone's name (zone table), inside the top of its circle."""


def _centre_label(text: TextFormatter, numbers: Numbers | None) -> str:
    """The centre zone's name, with its number on a decision picture."""
    centre = _board(text, "centre")
    if numbers and "centre" in numbers:
        return _board(text, "numbered", n=numbers["centre"], what=centre)
    return centre


def _centre_label_box(label: str) -> Box:
    w = text_width(label, SMALL, True) / 2 + 2
    return (CX - w, CENTRE_LABEL_Y - SMALL / 2 - 2, CX + w, CENTRE_LABEL_Y + SMALL / 2 + 2)


@dataclass(frozen=True, slots=True)
class Drawn:
    """What ``_draw_table`` drew: whether a nudged die's dot and leader line are on it."""

    nudged: bool


def _number_tag(draw: ImageDraw.ImageDraw, cx: float, top: float, number: int) -> None:
    """A decision picture's number under a die (in place of its id): a yellow tag."""
    label = str(number)
    w = max(text_width(label, LABEL_SIZE, True), LABEL_SIZE) + 8
    draw.rounded_rectangle((cx - w / 2, top, cx + w / 2, top + LABEL_H), radius=5, fill=HIGHLIGHT, outline=INK,
                           width=2)
    draw_text(draw, (cx, top + LABEL_H / 2), label, size=LABEL_SIZE, bold=True, anchor="mm")


def _draw_table(draw: ImageDraw.ImageDraw, view: PublicView, names: Sequence[str], text: TextFormatter,
                highlight: str | None, placed: Sequence[PlacedDie], numbers: Numbers | None = None) -> Drawn:
    """The table, its cards, dice and seat labels, the dice at ``placed`` (``place_dice``). With
    ``numbers`` (a decision picture), each numbered die shows its number in place of its id, and
    the numbered zones theirs on their labels."""
    n = view["players"]
    spatial = view["table_model"] == "spatial"
    r_seat = 1000 * SCALE
    r_play = view.get("r_play", 850) * SCALE
    numbers = numbers or {}
    white = _board(text, "white_die")
    left_seats = _left_seats(view)
    draw.ellipse((CX - r_seat - 10, CY - r_seat - 10, CX + r_seat + 10, CY + r_seat + 10), fill=RIM)
    draw.ellipse((CX - r_seat, CY - r_seat, CX + r_seat, CY + r_seat), fill=FELT)
    dice = {d["id"]: d for d in view["dice"]}
    rolled = bool(view.get("rolled"))
    if spatial:
        draw.ellipse((CX - r_play, CY - r_play, CX + r_play, CY + r_play), outline=FELT_LIGHT, width=2)
    else:
        rc = r_seat * 0.26
        for k in range(n):
            a = _seat_angle(k, n) + math.pi / n
            x0, y0 = CX + rc * math.cos(a), CY - rc * math.sin(a)
            x1, y1 = CX + r_seat * math.cos(a), CY - r_seat * math.sin(a)
            draw.line((x0, y0, x1, y1), fill=FELT_LIGHT, width=3)
        draw.ellipse((CX - rc, CY - rc, CX + rc, CY + rc), fill=FELT_LIGHT, outline=(200, 220, 200), width=2)
        draw_text(draw, (CX, CENTRE_LABEL_Y), _centre_label(text, numbers), size=SMALL, bold=True, anchor="mm",
                  fill=WHITE if "centre" not in numbers else HIGHLIGHT)

    seats = view["seats"]
    seat_pts = view["seat_points"]

    # leader lines + true-position dots of moved dice (under the cards: a die lying
    # under a card spot shows its leader line coming out of the card)
    leaders = leader_dice(view, placed)
    for p in leaders:
        ax, ay = p.anchor
        draw.line((ax, ay, *p.centre), fill=(235, 235, 215), width=2)
    for p in leaders:
        ax, ay = p.anchor
        is_white = p.die == "W"
        draw.ellipse((ax - DOT_R, ay - DOT_R, ax + DOT_R, ay + DOT_R), fill=WHITE if is_white else DIE_BLACK,
                     outline=INK if is_white else WHITE, width=2)

    # table dice glyphs (placed clear of the card spots)
    r_die = TABLE_DIE_R if spatial else ZONE_DIE_R

    def glyph(p: PlacedDie, label: bool) -> None:
        number = numbers.get(p.die)
        draw_die(draw, p.die, dice[p.die]["value"], p.centre[0], p.centre[1], r_die,
                 label=label and number is None, highlight=highlight == p.die, white_tag=white)
        if label and number is not None:
            _number_tag(draw, p.centre[0], _label_top(p.die, p.centre[1], r_die), number)

    for p in placed:
        glyph(p, True)

    # nearest-die lines (spatial): "Sloth would take …", from the seat to the edge of the
    # die's glyph and id label (a moved glyph has its own leader line to its true position); over the
    # dice's id labels, edged in ink, so no label hides one; under the glyphs and card spots
    if spatial and rolled and not numbers:
        where = {p.die: p for p in placed}
        for s, die in enumerate(view.get("nearest") or []):
            if die is None or die not in where:
                continue
            sx, sy = _to_px(*seat_pts[s])
            end = _edge_point((sx, sy), where[die].centre, where[die].box)
            if end is None:
                continue
            ex, ey = end
            draw.line((sx, sy, ex, ey), fill=INK, width=5)
            draw.line((sx, sy, ex, ey), fill=seat_colour(s), width=2)
        for p in placed:  # (the glyphs again, over the lines: a line never covers a value)
            glyph(p, False)

    # cards at their spots (pulled inside the rim) with locked dice and their ids
    for spot in card_layout(view, text, numbers):
        s = spot.seat
        seat = seats[s]
        box = spot.box
        px = spot.x
        head = box[1] + CARD_HEAD / 2 + 1
        if seat["card"]:
            draw.rounded_rectangle(box, radius=6, fill=WHITE, outline=seat_colour(s), width=3)
            draw_text(draw, (px, head), spot.title, size=SMALL, bold=True, anchor="mm")
        elif seat["picked"]:
            draw.rounded_rectangle(box, radius=6, fill=CARD_BACK, outline=seat_colour(s), width=3)
            draw_text(draw, (px, head), _board(text, "picked"), size=SMALL, fill=WHITE, bold=True, anchor="mm")
        else:
            draw.rounded_rectangle(box, radius=6, fill=FELT_LIGHT, outline=seat_colour(s), width=2)
            draw_text(draw, (px, head), _board(text, "thinking") if view["phase"] == "choose" else "",
                      size=SMALL, fill=WHITE, anchor="mm")
        locked = seat["locked"]
        for i, die in enumerate(locked):
            row, col = divmod(i, CARD_COLS)
            in_row = min(CARD_COLS, len(locked) - row * CARD_COLS)
            dx = px + (col - (in_row - 1) / 2) * CARD_PITCH
            dy = box[1] + CARD_HEAD + CARD_DIE_R + 1 + row * CARD_ROW_H
            draw_die(draw, die, dice[die]["value"], dx, dy, CARD_DIE_R, label=False, highlight=highlight == die)
            if die in numbers:
                _number_tag(draw, dx, dy + CARD_DIE_R + 1, numbers[die])
            else:
                draw_text(draw, (dx, dy + CARD_DIE_R + 14), die if die != "W" else white, size=SMALL, bold=True,
                          anchor="mm", fill=INK if seat["card"] else WHITE)

    # seat markers with names (outside the rim); a seat whose player left is greyed
    for lab in seat_label_layout(view, names, text, numbers):
        s = lab.seat
        sx, sy = _to_px(*seat_pts[s])
        gone = s in left_seats
        draw.ellipse((sx - 8, sy - 8, sx + 8, sy + 8), fill=seat_colour(s), outline=INK, width=2)
        left, top, right, bottom = lab.box
        outline = HIGHLIGHT if seats[s]["to_move"] else INK
        draw.rounded_rectangle(lab.box, radius=8, fill=LINE if gone else WHITE, outline=outline,
                               width=3 if seats[s]["to_move"] else 2)
        mid = (top + bottom) / 2
        draw.ellipse((left + 5, mid - 13, left + 31, mid + 13), fill=seat_colour(s), outline=INK)
        draw_text(draw, (left + 18, mid), _letter(s), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
        draw_text(draw, (left + 36, mid), lab.name, size=SMALL, bold=True, anchor="lm", fill=GREY if gone else INK)
        if lab.devil:
            _devil_tag(draw, lab.devil[0], (lab.devil[1] + lab.devil[3]) / 2, text)
    legend(_letter(s) for s in range(n))  # (each seat letter's badge sits beside its name)
    return Drawn(bool(leaders))


def _draw_legend(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, nudged: bool, top: float) -> None:
    """The table's legend from ``top``, one line per mark actually drawn: the "Sloth would
    take" lines (spec §11) and a nudged die's true-position dot and leader line (at most
    ``LEGEND_LINES`` lines, the room every board keeps for them)."""
    y = top + LEGEND_STEP / 2
    for kind, line in _legend_lines(view, text, nudged):
        x = 16.0
        if kind == "nudged":  # (a sample of the mark: a dot and a short leader line)
            draw.line((x + DOT_R, y, x + 28, y), fill=GREY, width=2)
            draw.ellipse((x, y - DOT_R, x + 2 * DOT_R, y + DOT_R), fill=DIE_BLACK, outline=GREY, width=2)
            x += 36
        draw_text(draw, (x, y), line, size=LEGEND_SIZE, fill=GREY, anchor="lm")
        y += LEGEND_STEP


def _legend_lines(view: PublicView, text: TextFormatter, nudged: bool) -> list[tuple[str, str]]:
    """The legend's lines (kind, text), as ``_draw_legend`` draws them."""
    lines: list[tuple[str, str]] = []
    if any(view.get("nearest") or ()):
        lines.append(("sloth", _board(text, "sloth_lines", sin=term("sin.sloth"))))
    if nudged:
        lines.append(("nudged", _board(text, "nudged_note")))
    return lines


LEGEND_LINES = 2
"""Legend lines every table image keeps room for (``_legend_lines`` gives at most two)."""
LEGEND_H = LEGEND_STEP * LEGEND_LINES + 6
"""Height (px) of the legend's room under the table."""
HEADER_H = TABLE_TOP - 6
"""Height (px) of the dark header band over the table."""


def _header(draw: ImageDraw.ImageDraw, left: str, right: str, line: str) -> None:
    """The dark header band: ``left`` (the title) and ``right`` (the round) on its first line,
    ``line`` (what happens now) under them."""
    draw.rectangle((0, 0, WIDTH, HEADER_H), fill=(40, 24, 60))
    draw_text(draw, (WIDTH - 16, 22), right, size=NAME_SIZE, fill=HIGHLIGHT, bold=True, anchor="rm")
    room = WIDTH - 48 - text_width(right, NAME_SIZE, True)
    draw_text(draw, (16, 22), fit_text(left, NAME_SIZE, room, True), size=NAME_SIZE, fill=WHITE, bold=True,
              anchor="lm")
    draw_text(draw, (16, 58), line, size=SMALL, fill=WHITE, anchor="lm")


# --------------------------------------------------------------------------- player rows


ROW_H = 92
"""Height (px) of one player's row under the table (row spacing included)."""
ROW_DIE_R = 17
"""Radius (px) of a locked die in a player's row."""


def _row_tags(view: PublicView, text: TextFormatter, s: int) -> list[tuple[str, Colour, Colour, bool]]:
    """The tags after a player's name: (text, fill, ink, bold), in the order drawn."""
    seat = view["seats"][s]
    tags: list[tuple[str, Colour, Colour, bool]] = []
    if view.get("devil") == s:
        tags.append((_board(text, "devil"), DEVIL_RED, WHITE, True))
    if s in _left_seats(view):
        tags.append((_board(text, "left_game"), GREY, WHITE, True))
    places = view.get("places") or []
    if places:  # the end (spec §8.2): each seat's place, the winners starred
        outcome = view.get("outcome")
        winners = outcome["winners"] if outcome else []
        tags.append((_board(text, "winner") if s in winners else _board(text, "place", n=places[s]),
                     HIGHLIGHT if s in winners else PANEL, INK, True))
    if seat["to_move"] and view["phase"] != "over":
        tags.append((_board(text, "to_move"), HIGHLIGHT, INK, True))
    return tags


def _draw_rows(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, top: int, highlight: str | None) -> None:
    """One row per player from ``top``: badge, name, tags (Devil, left the game, place, to move) and
    total; under them the card of the round, the dice locked on it and their sum."""
    dice = {d["id"]: d for d in view["dice"]}
    white = _board(text, "white_die")
    y = top
    for seat in view["seats"]:
        s = seat["seat"]
        col = seat_colour(s)
        box = (10, y, WIDTH - 10, y + ROW_H - 8)
        draw.rounded_rectangle(box, radius=10, fill=WHITE if not seat["to_move"] else (255, 248, 220),
                               outline=HIGHLIGHT if seat["to_move"] else LINE, width=3 if seat["to_move"] else 2)
        draw.rounded_rectangle((10, y, 20, y + ROW_H - 8), radius=5, fill=col)
        l1 = y + 24
        draw.ellipse((28, l1 - 14, 56, l1 + 14), fill=col, outline=INK, width=2)
        draw_text(draw, (42, l1), _letter(s), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
        total = _board(text, "total", n=seat["total"])
        total_w = text_width(total, NAME_SIZE, True)
        draw_text(draw, (WIDTH - 22, l1), total, size=NAME_SIZE, bold=True, anchor="rm")
        name = fit_text(_name(text, s), NAME_SIZE, 250, True)
        draw_text(draw, (64, l1), name, size=NAME_SIZE, bold=True, anchor="lm")
        x = 64 + text_width(name, NAME_SIZE, True) + 10
        room = WIDTH - 34 - total_w
        for label, fill, ink, bold in _row_tags(view, text, s):
            if x + text_width(label, SMALL, bold) + 12 > room:
                break
            x = _tag(draw, x, l1, label, fill=fill, ink=ink, bold=bold) + 6
        # line 2: the card of the round, the dice locked on it (glyph, then its id) and their sum
        ly = y + 62
        card = seat["card"]
        if card:
            x = _tag(draw, 28, ly, _card_title(text, card), fill=WHITE, bold=True, outline=col)
        elif seat["picked"]:
            label = _board(text, "picked_random" if seat["random_pick"] else "picked")
            x = _tag(draw, 28, ly, label, fill=CARD_BACK, ink=WHITE, bold=True)
        elif view["phase"] == "choose":
            x = _tag(draw, 28, ly, _board(text, "timed_out" if seat["timed_out"] else "choosing"))
        else:
            x = _tag(draw, 28, ly, _board(text, "no_card"), ink=GREY)
        x += 12
        locked = seat["locked"]
        ids = [d if d != "W" else white for d in locked]
        tail = [_board(text, "sum", n=seat["sum"])] if locked else (
            [_board(text, "copied", n=seat["base"])] if card == "envy" and seat["base"] is not None else [])
        penalty = _board(text, "off_table", n=seat["penalty"]) if seat["penalty"] else None
        need = (sum(2 * ROW_DIE_R + 4 + text_width(i, SMALL) + 10 for i in ids)
                + sum(text_width(t, NAME_SIZE, True) + 12 for t in tail)
                + (text_width(penalty, SMALL, True) + 16 if penalty else 0))
        with_ids = x + need <= WIDTH - 20  # (else the glyphs alone: each shape tells its die)
        for die, tag in zip(locked, ids, strict=True):
            draw_die(draw, die, dice[die]["value"], x + ROW_DIE_R, ly, ROW_DIE_R, label=False,
                     highlight=highlight == die)
            x += 2 * ROW_DIE_R + 4
            if with_ids:
                draw_text(draw, (x, ly), tag, size=SMALL, anchor="lm", fill=GREY)
                x += text_width(tag, SMALL) + 10
        for t in tail:
            draw_text(draw, (x + 2, ly), t, size=NAME_SIZE, bold=True, anchor="lm")
            x += text_width(t, NAME_SIZE, True) + 12
        if penalty:
            x = _tag(draw, x + 2, ly, penalty, fill=DEVIL_RED, ink=WHITE, bold=True)
        scores = view["round_scores"]
        if scores and seat["played"]:  # (the last round scored, at the right when it fits)
            last = _board(text, "last_round", round=len(scores), n=scores[-1][s],
                          sin=term(f"sin.{seat['played'][len(scores) - 1]}"))
            if x + 16 + text_width(last, SMALL) <= WIDTH - 22:
                draw_text(draw, (WIDTH - 22, ly), last, size=SMALL, fill=GREY, anchor="rm")
        y += ROW_H


# --------------------------------------------------------------------------- score sheet


SHEET_NAME_W = 110
"""Width (px) of the first column of the score sheet (the "Round" heading, the seat badges)."""
SHEET_ROW_H = 128
"""Height (px) of one player's row of the score sheet (name and total, scores, sins, cards left)."""


def _sin_short(text: TextFormatter, sin: str) -> str:
    """A sin's name cut to fit a score cell: three letters, or two characters of Chinese or Japanese."""
    title = _sin_title(text, sin)
    return title[:3] if title.isascii() else title[:2]


def _draw_sheet(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, top: int) -> int:
    """The score sheet from ``top``, one row per player: each round's score (bold: that round's Devil
    holder) over the sin played, the total, then the cards left; returns its bottom."""
    n = view["players"]
    rounds = view["rounds"]
    total_w = 76
    cell = (WIDTH - 20 - SHEET_NAME_W - total_w) / rounds
    x0 = 10 + SHEET_NAME_W
    y = top
    draw.rectangle((10, y, WIDTH - 10, y + 36), fill=PANEL)
    draw_text(draw, (18, y + 18), _board(text, "round_column"), size=SMALL, bold=True, anchor="lm")
    current = view["round"] if view["phase"] != "over" else None
    for r in range(rounds):
        cx = x0 + cell * (r + 0.5)
        if current == r + 1:
            draw.rectangle((x0 + cell * r, y, x0 + cell * (r + 1), y + 36 + n * SHEET_ROW_H), fill=(255, 248, 220))
        draw_text(draw, (cx, y + 18), str(r + 1), size=SMALL, bold=True, anchor="mm")
    draw_text(draw, (WIDTH - 10 - total_w / 2, y + 18), _board(text, "total_row"), size=SMALL, bold=True,
              anchor="mm")
    y += 36
    devils = view["round_devils"]
    outcome = view.get("outcome")
    winners = set(outcome["winners"] if outcome else [])
    left_seats = _left_seats(view)
    for s in range(n):
        seat = view["seats"][s]
        draw.line((10, y, WIDTH - 10, y), fill=LINE, width=2)
        draw.rounded_rectangle((12, y + 8, 20, y + SHEET_ROW_H - 8), radius=3, fill=seat_colour(s))
        draw.ellipse((26, y + 10, 52, y + 36), fill=seat_colour(s), outline=INK)
        draw_text(draw, (39, y + 23), _letter(s), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
        gone = s in left_seats
        name = fit_text(_name(text, s), SMALL, 420, True)
        draw_text(draw, (60, y + 23), name, size=SMALL, bold=True, anchor="lm", fill=GREY if gone else INK)
        if gone:
            draw_text(draw, (60 + text_width(name, SMALL, True) + 12, y + 23), _board(text, "left_game"),
                      size=NOTE_SIZE, fill=GREY, anchor="lm")
        cell_total = f"{view['totals'][s]}" + (" ★" if s in winners else "")
        draw_text(draw, (WIDTH - 10 - total_w / 2, y + 38), cell_total, size=NAME_SIZE, bold=True, anchor="mm")
        played = seat["played"]
        for r in range(min(rounds, len(view["round_scores"]))):
            cx = x0 + cell * (r + 0.5)
            draw_text(draw, (cx, y + 52), str(view["round_scores"][r][s]), size=SMALL, anchor="mm",
                      bold=r < len(devils) and devils[r] == s)
            if r < len(played):
                draw_text(draw, (cx, y + 78), _sin_short(text, played[r]), size=NOTE_SIZE, fill=GREY, anchor="mm")
        hand = seat["hand"]
        left = (_board(text, "left", n=len(hand), sins=" ".join(_sin_title(text, x) for x in SINS if x in hand))
                if hand else _board(text, "left_none"))
        draw_text(draw, (26, y + 106), left, size=NOTE_SIZE, anchor="lm")
        y += SHEET_ROW_H
    draw.line((10, y, WIDTH - 10, y), fill=LINE, width=2)
    legend(_letter(s) for s in range(n))
    draw_text(draw, (16, y + 20), _board(text, "bold_note"), size=NOTE_SIZE, fill=GREY, anchor="lm")
    return y + 40


# --------------------------------------------------------------------------- public API


def _left_seats(view: PublicView) -> set[int]:
    """The seats whose player left the game: the host's ``left`` key of the view (``render_board``)."""
    left: Any = view.get("left") or ()
    return {int(seat) for seat in left}


def _round_text(view: PublicView, text: TextFormatter) -> str:
    return _board(text, "round", round=view["round"], rounds=view["rounds"])


def render_board(view: PublicView, *, names: Sequence[str], text: TextFormatter, highlight: str | None = None) -> Image.Image:
    """Draw the public board (spec docs/rules/carnival.md §11 Board image): the header (title,
    round, what happens now), the table, its legend and one row per player (tags, card, locked
    dice, total). One height per player count. The score sheet is a zoom (``render_zoom``).

    Args:
        view: ``CarnivalEngine.player_view(state, None)`` (``PublicView``); the host may add
            ``left``: the seats whose player left the game (resigned or removed), marked.
        names: display names by seat.
        text: the host's formatter of messages (``bot.text.Texts`` of this game).
        highlight: a die id (``"d12"``) to ring in yellow, or None.

    Returns:
        An RGB image ``WIDTH`` px wide.
    """
    placed = place_dice(view, names, text, highlight)
    height = TABLE_BOTTOM + LEGEND_H + ROW_H * view["players"] + 4
    img, draw = canvas(height, WIDTH)
    _header(draw, _board(text, "title"), _round_text(view, text), _phase_text(view, text))
    drawn = _draw_table(draw, view, names, text, highlight, placed)
    _draw_legend(draw, view, text, drawn.nudged, TABLE_BOTTOM - 10)
    _draw_rows(draw, view, text, TABLE_BOTTOM + LEGEND_H - 4, highlight)
    return img


def zoom_regions(view: PublicView) -> list[tuple[str, Msg]]:
    """The parts of the table a reader may look at closely: the table, the score sheet, and a seated
    reader's own sins."""
    regions = [("table", msg("board.zoom_table")), ("scores", msg("board.zoom_scores"))]
    if "seat" in view:
        regions.append(("hand", msg("board.zoom_hand")))
    return regions


def render_zoom(view: PublicView, region: str, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """One region of ``zoom_regions`` drawn at phone size (every text ≥ 20 px on 720 px)."""
    if region == "hand" and "seat" in view:
        return render_private(view, names=names, text=text)  # type: ignore[arg-type]
    if region == "scores":
        height = HEADER_H + 52 + 36 + SHEET_ROW_H * view["players"] + 44
        img, draw = canvas(height, WIDTH)
        _header(draw, _board(text, "score_sheet"), _round_text(view, text), _phase_text(view, text))
        _draw_sheet(draw, view, text, HEADER_H + 14)
        return img
    placed = place_dice(view, names, text)
    img, draw = canvas(TABLE_BOTTOM + LEGEND_H, WIDTH)
    model = _board(text, "spatial" if view["table_model"] == "spatial" else "zones")
    _header(draw, model, _round_text(view, text), _phase_text(view, text))
    drawn = _draw_table(draw, view, names, text, None, placed)
    _draw_legend(draw, view, text, drawn.nudged, TABLE_BOTTOM - 10)
    return img


def _wrath_thrower(view: PublicView) -> bool:
    """Whether ``view`` is the private view of the seat that resolves Wrath now."""
    pending: Mapping[str, object] = view.get("pending") or {}
    return (view["phase"] == "resolve" and pending.get("sin") == "wrath" and "seat" in view
            and pending.get("seat") == view.get("seat"))


def draws_decision(view: PublicView) -> bool:
    """Whether ``render_decision`` draws a picture for this view: the Wrath of its seat (the
    target die and the aim, numbered as the panel's choices)."""
    return _wrath_thrower(view)


def decision_numbers(view: PublicView) -> Numbers:
    """The numbers of the Wrath picture, as the panel's choices show them
    (``engines.carnival.effects.wrath_number``): every die by size order (spatial), or every zone
    (zone table)."""
    if view["table_model"] == "spatial":
        return {d: i + 1 for i, d in enumerate(DICE)}
    return {z: i + 1 for i, z in enumerate(["centre"] + [f"seat{k}" for k in range(view["players"])])}


def render_decision(view: PublicView, *, names: Sequence[str], text: TextFormatter) -> Image.Image | None:
    """The Wrath picture of the thrower's panel: the table with a number under every die (spatial:
    the target and the aim buttons read "N · …") or on every zone (zone table: the aims), or None
    when the view's seat has no Wrath to resolve."""
    if not _wrath_thrower(view):
        return None
    numbers = decision_numbers(view)
    placed = place_dice(view, names, text, None, numbers)
    img, draw = canvas(TABLE_BOTTOM + LEGEND_H, WIDTH)
    key = "wrath_picture" if view["table_model"] == "spatial" else "wrath_picture_zones"
    _header(draw, _board(text, "wrath_title", sin=term("sin.wrath")), _round_text(view, text), _board(text, key))
    _draw_table(draw, view, names, text, None, placed, numbers)
    return img


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """Draw one seat's view: current secret pick, remaining sins with one-line
    hints, played sins and the dice now on the table (spec docs/rules/carnival.md §7, §11).

    Args:
        view: ``CarnivalEngine.player_view(state, seat)`` (``PrivateView``).
        names: display names by seat.
        text: the host's formatter of messages (``bot.text.Texts`` of this game).
    """
    seat = int(view["seat"])
    pick = view.get("pick")
    me = view["seats"][seat]
    hand = me["hand"]
    white = _board(text, "white_die")
    height = PRIVATE_TOP + PRIVATE_CARD_H * max(1, len(hand)) + 210
    img, draw = canvas(height, WIDTH)
    col = seat_colour(seat)
    draw.rectangle((0, 0, WIDTH, 60), fill=(40, 24, 60))
    draw.ellipse((12, 14, 44, 46), fill=col, outline=WHITE, width=2)
    draw_text(draw, (28, 30), _letter(seat), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
    legend([_letter(seat)])  # (the badge beside the reader's own name)
    rnd = _round_text(view, text)
    draw_text(draw, (54, 30), fit_text(_board(text, "your_sins", seat=seat_ref(seat)), NAME_SIZE,
                                       WIDTH - 80 - text_width(rnd, NAME_SIZE, True), True),
              size=NAME_SIZE, fill=WHITE, bold=True, anchor="lm")
    draw_text(draw, (WIDTH - 16, 30), rnd, size=NAME_SIZE, fill=HIGHLIGHT, bold=True, anchor="rm")
    y = 84
    if me["card"]:
        status = _board(text, "revealed", card=_card_title(text, me["card"]))
    elif pick:
        status = _board(text, "your_pick_random" if me["random_pick"] else "your_pick", card=_card_title(text, pick))
    elif view["phase"] == "choose":
        status = _board(text, "not_picked")
    else:
        status = _board(text, "no_pick")
    draw_text(draw, (16, y), status, size=NAME_SIZE, bold=True, anchor="lm")
    y += 34
    if view["phase"] == "choose" and view["round"] < view["rounds"]:
        draw_text(draw, (16, y), _board(text, "may_change"), size=SMALL, fill=GREY, anchor="lm")
    y = PRIVATE_TOP
    for sid in hand:
        chosen = sid == pick
        box = (10, y, WIDTH - 10, y + PRIVATE_CARD_H - 8)
        draw.rounded_rectangle(box, radius=10, fill=(255, 246, 200) if chosen else WHITE,
                               outline=HIGHLIGHT if chosen else LINE, width=4 if chosen else 2)
        draw_text(draw, (24, y + 22), _card_title(text, sid), size=NAME_SIZE, bold=True, anchor="lm")
        if chosen:
            tag = _board(text, "your_pick_tag")
            _tag(draw, WIDTH - 28 - text_width(tag, SMALL, True) - 12, y + 22, tag, fill=HIGHLIGHT, bold=True)
        _wrapped(draw, (24, y + 54), text(msg(f"hint.{sid}")), SMALL, WIDTH - 48, 2)
        y += PRIVATE_CARD_H
    if not hand:
        draw_text(draw, (16, y + 20), _board(text, "no_sins"), size=SMALL, anchor="lm")
        y += PRIVATE_CARD_H
    played = ", ".join(_sin_title(text, s) for s in me["played"]) or "—"
    y = int(_wrapped(draw, (16, y + 18), _board(text, "played_list", sins=played), SMALL, WIDTH - 32, 2)) + 16
    if view.get("rolled"):
        draw_text(draw, (16, y + 10), _board(text, "dice_now"), size=SMALL, bold=True, anchor="lm")
        y += 28
        pitch = (WIDTH - 20) / len(view["dice"])
        x = 10 + pitch / 2
        for d in view["dice"]:
            owner = d["owner"]
            draw_die(draw, d["id"], d["value"], x, y + 30, 22, label=True, white_tag=white)
            if d["place"] == "table" or owner is None:
                draw_text(draw, (x, y + 112), _board(text, "where_table"), size=NOTE_SIZE, fill=GREY, anchor="mm")
            else:
                draw.ellipse((x - 13, y + 99, x + 13, y + 125), fill=seat_colour(owner), outline=INK)
                draw_text(draw, (x, y + 112), _letter(owner), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
            x += pitch
        legend(_letter(s) for s in range(view["players"]))  # (the seat letters: the board's badges)
        y += 130
    return img.crop((0, 0, WIDTH, min(height, y + 12)))


PRIVATE_TOP = 150
"""The y (px) where the private view's cards of the hand begin."""
PRIVATE_CARD_H = 116
"""Height (px) of one card of the hand in the private view (name and a hint of two lines)."""


def _wrapped(draw: ImageDraw.ImageDraw, xy: tuple[float, float], line: str, size: int, width: float,
             lines: int) -> float:
    """``line`` drawn from ``xy`` (left, first line's middle) in at most ``lines`` lines of ``width``
    px, broken between words (or characters, for Chinese and Japanese); returns the last line's middle."""
    parts = wrap_text(line, size, width)
    x, y = xy
    for part in parts[:lines]:
        draw_text(draw, (x, y), part, size=size, anchor="lm")
        y += size + 8
    return y - size - 8


