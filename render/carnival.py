"""Carnival of Sins board renderer (spec docs/rules/carnival.md §11 Board image; design §6).

``render_board(view, *, names, text, highlight=None)`` draws the PUBLIC view
(``engines.carnival.view.PublicView``): the round table from above with every seat, each
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engines.base import msg, seat_ref, seats_ref, term
from engines.carnival.data import DICE, SHAPES, SIN_JAPANESE, SINS
from engines.carnival.view import DieView, PrivateView, PublicView, SeatView
from render import base
from render.base import (
    BG,
    HIGHLIGHT,
    INK,
    LINE,
    PANEL,
    SEAT_LETTERS,
    WHITE,
    WIDTH,
    canvas,
    draw_text,
    fit_text,
    polygon,
    seat_colour,
    text_width,
)

Colour = tuple[int, int, int]
Text = Callable[[Any], str]
"""The host's formatter of messages (``bot.text.Texts``): ``Msg`` → a line of text."""

FELT: Colour = (34, 102, 68)
FELT_LIGHT: Colour = (52, 128, 88)
RIM: Colour = (110, 72, 40)
DIE_BLACK: Colour = (22, 22, 28)
DEVIL_RED: Colour = (190, 30, 45)
CARD_BACK: Colour = (70, 40, 110)

SMALL = 32
"""The smallest text size (px) on the images: a 1100 px board shown ~380 px wide on a
phone scales it by ~0.35, so this reads as ~11 px there (footnotes, legends, die ids,
the "Played:" chips, "Left:")."""
NAME_SIZE = 36
"""Names and totals in the panels, the headings."""
NOTE_SIZE = 36
"""The legends (table, score sheet), the table model in the header and the Played / Left
strips of the panels: long lines of small words, a size up from ``SMALL`` (12 px on a
380 px phone, capitals 9 px)."""
DIE_VALUE_MIN = 29
"""The smallest die value size (px; two-digit values on the small dice of the card spots
and panels): ~10 px at 380 px display width."""
TRIANGLE_SCALE = 1.25
"""A d4's triangle is drawn with 1.25 × the radius of the other shapes (its value then
reaches ``DIE_VALUE_MIN`` inside it on the small dice; its area is still the smallest)."""
LETTER_SIZE = 30
"""Seat letters in the badges of the seat labels and panels."""
GREY: Colour = (70, 70, 82)
"""Small secondary text: darker than ``render.base.MUTED`` for contrast at SMALL size."""

SCALE = 0.36
"""Pixels per milli-unit (table radius 1000 → 360 px)."""
TABLE_TOP = 104
TABLE_MARGIN = 104
CX = WIDTH // 2
CY = TABLE_TOP + TABLE_MARGIN + int(1000 * SCALE)
TABLE_BOTTOM = CY + int(1000 * SCALE) + TABLE_MARGIN


def _name(text: Text, seat: int) -> str:
    """The display name of ``seat`` as every text shows it (``Texts.name``)."""
    return _board(text, "name", name=seat_ref(seat))


def _letter(seat: int) -> str:
    return SEAT_LETTERS[seat % len(SEAT_LETTERS)]


def _board(text: Text, key: str, **params: Any) -> str:
    """A board text: catalog ``board.<key>``."""
    return text(msg(f"board.{key}", **params))


def _sin_title(text: Text, sin: str) -> str:
    """The sin's name in the reader's language (``term.sin.<id>``)."""
    return text(msg(f"term.sin.{sin}"))


def _card_title(text: Text, sin: str) -> str:
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
) -> None:
    """Draw one die as its shape centred at (cx, cy) with radius ``r`` px, its value
    big inside and (``label``) its id under it."""
    white = die == "W"
    shape = SHAPES.get(die, "square")
    pts = _shape_points(shape, cx, cy, r)
    if highlight:
        draw.ellipse((cx - r - 9, cy - r - 9, cx + r + 9, cy + r + 9), outline=HIGHLIGHT, width=5)
    polygon(draw, pts, fill=WHITE if white else DIE_BLACK, outline=INK if white else WHITE, width=3)
    if value is not None:
        size = int(r * (1.05 if shape != "triangle" else 0.85 * TRIANGLE_SCALE))
        if value >= 10:
            size = int(size * 0.82)
        size = max(DIE_VALUE_MIN, size)
        ty = cy + (r * 0.18 * TRIANGLE_SCALE if shape == "triangle" else -r * 0.12 if shape == "kite" else 0)
        draw_text(draw, (cx, ty), str(value), size=size, fill=INK if white else WHITE, bold=True, anchor="mm")
    if label:
        tag = "W" if white else die
        w = _label_w(die)
        top = _label_top(die, cy, r)
        draw.rounded_rectangle((cx - w / 2, top, cx + w / 2, top + LABEL_H), radius=6,
                               fill=WHITE if not white else (255, 240, 180), outline=INK)
        draw_text(draw, (cx, top + LABEL_H / 2), tag, size=LABEL_SIZE, bold=True, anchor="mm")


# --------------------------------------------------------------------------- helpers


def _seat_angle(seat: int, n: int) -> float:
    return math.radians(-90.0 - 360.0 * seat / n)


def _tag(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, *, size: int = SMALL,
         fill: Colour = PANEL, ink: Colour = INK, bold: bool = False, outline: Colour | None = None) -> float:
    """Rounded tag with ``text``, left edge at x, vertical centre at y; returns its right edge."""
    w = text_width(text, size, bold) + 16
    h = size + 10
    draw.rounded_rectangle((x, y - h / 2, x + w, y + h / 2), radius=8, fill=fill, outline=outline or LINE,
                           width=2)
    draw_text(draw, (x + 8, y), text, size=size, fill=ink, bold=bold, anchor="lm")
    return x + w


def _devil_tag(draw: ImageDraw.ImageDraw, x: float, y: float, text: Text) -> float:
    return _tag(draw, x, y, _board(text, "devil"), fill=DEVIL_RED, ink=WHITE, bold=True, outline=INK)


def _phase_text(view: PublicView, text: Text) -> str:
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
    if phase == "resolve" and view.get("pending"):
        p = view["pending"] or {}
        return _board(text, "phase_resolve", seat=seat_ref(p["seat"]), sin=term(f"sin.{p['sin']}"))
    if phase == "wrath_chance":
        return _board(text, "phase_wrath", sin=term("sin.wrath"))
    if phase == "pride" and view.get("pride"):
        pr = view["pride"] or {}
        return _board(text, "phase_pride", seat=seat_ref(pr["players"][pr["turn"]]), sin=term("sin.pride"))
    if phase == "over":
        out = view.get("outcome") or {}
        return _seats_line(text, lambda seats: _board(text, "phase_over", seats=seats), out.get("winners", []))
    return ""


PHASE_WIDTH = WIDTH - 40
"""Width (px) of the phase line under the title (``SMALL`` size)."""


NAME_KEEP = 4
"""The fewest characters of a name the phase line keeps when it shortens names (``_seats_line``)."""


def _seats_line(text: Text, line: Callable[[Any], str], seats: Sequence[int]) -> str:
    """``line(seats_ref(seats))`` (a sentence naming ``seats``, e.g. the players a pick waits
    for) when it fits ``PHASE_WIDTH`` at ``SMALL`` size; else the same sentence with every
    name shortened to one common width with '…' (``fit_text``), so that all the names stay
    (a plain cut at the end dropped the last ones); when that would keep fewer than
    ``NAME_KEEP`` characters of a name or make two names alike ("Bot…", "Bot…"), the seat
    letters the badges show ("A, B, C, D and E")."""
    full = line(seats_ref(seats))
    if len(seats) < 2 or text_width(full, SMALL) <= PHASE_WIDTH:
        return full
    order = sorted(seats)
    names = [_name(text, s) for s in order]

    def joined(items: Sequence[str]) -> str:
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

TABLE_DIE_R = 32
"""Radius (px) of a die glyph lying on the spatial table."""
ZONE_DIE_R = 30
"""Radius (px) of a die glyph in a zone."""
CARD_DIE_R = 28
"""Radius (px) of a die locked on a card spot."""
CARD_COLS = 3
"""Locked dice per row on a card spot."""
CARD_PITCH = 68
"""Horizontal distance (px) of two locked dice on a card spot."""
CARD_ROW_H = 92
"""Height (px) of one row of locked dice (glyph + id) on a card spot."""
GAP = 4.0
"""Minimum free space (px) between two placed boxes."""
DOT_R = 6.0
"""Radius (px) of the true-position dot of a moved die."""
LEADER_MIN = 10.0
"""A moved die gets a leader line + dot only when its true position lies farther than
this (px) from its glyph box (closer, the glyph itself shows where it lies)."""
RING_STEP = 5.0
"""Distance (px) between two search rings of the placement."""
LABEL_SIZE = SMALL
LABEL_H = 38
LEGEND_SIZE = NOTE_SIZE
"""Text size (px) of the table's legend lines."""
LEGEND_STEP = 46
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
    return text_width("W" if die == "W" else die, LABEL_SIZE, True) + 10


def _label_top(die: str, cy: float, r: float) -> float:
    shape = SHAPES.get(die, "square")
    pts = _shape_points(shape, 0.0, 0.0, r)
    return cy + max(y for _, y in pts) + 4


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
        ring = r + 9 + 3
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


def card_layout(view: PublicView, text: Text) -> list[CardSpot]:
    """Card spots pulled inside the rim, one per seat (locked dice sit in a row with ids)."""
    n = view["players"]
    r_seat = 1000 * SCALE
    labels = seat_label_layout(view, (), text)
    out = []
    for s in range(n):
        seat = view["seats"][s]
        ang = _seat_angle(s, n)
        locked = seat["locked"]
        card = seat["card"]
        title = _card_title(text, card) if card else _board(text, "picked")
        cols = min(len(locked), CARD_COLS)
        rows = -(-len(locked) // CARD_COLS)
        w = max(text_width(title, SMALL, True) + 20, CARD_PITCH * cols + 12)
        h = 48 + CARD_ROW_H * rows + 4 if locked else 52
        pull = abs(math.cos(ang)) * w / 2 + abs(math.sin(ang)) * h / 2 + 10
        while True:
            px = CX + (r_seat - pull) * math.cos(ang)
            py = CY - (r_seat - pull) * math.sin(ang)
            spot = CardSpot(s, px, py, w, h, title, r_seat - 2 * pull + 10)
            if pull > r_seat / 2 or not boxes_overlap(spot.box, labels[s].box, GAP):
                break
            pull += 4
        out.append(spot)
    return out


SIDE_NAME_W = 230
"""Room (px, ``SMALL`` bold) for the name on a seat label at the left or right of the table:
"Bot · Normal" and its translations fit whole (a longer name is cut at the end, so an AI's
level is cut before its name)."""


def seat_label_layout(view: PublicView, names: Sequence[str], text: Text) -> list[SeatLabel]:
    """Name labels (and the Devil tag) outside the rim, one per seat; a label at the left
    or right too wide for the room outside the rim lies over the rim, its seat's card
    spot pulled inward to clear it (``card_layout``)."""
    n = view["players"]
    out = []
    dw = text_width(_board(text, "devil"), SMALL, True) + 16
    for s in range(n):
        ang = _seat_angle(s, n)
        sx, sy = _to_px(*view["seat_points"][s])
        side = abs(math.cos(ang)) > 0.6
        h = 48
        if side:  # (a long name slides the label inward over the rim: card_layout makes room)
            name = fit_text(_name(text, s), SMALL, SIDE_NAME_W, True)
            w = text_width(name, SMALL, True) + 58
            left = sx - 30 - w if math.cos(ang) < 0 else sx + 30
            left = min(max(left, 6), WIDTH - 6 - w)
            top = sy - h / 2
        else:
            name = fit_text(_name(text, s), SMALL, 300, True)
            w = text_width(name, SMALL, True) + 58
            left = sx - w / 2
            top = sy - h / 2 + (-40 if math.sin(ang) > 0 else 40)
        devil: Box | None = None
        if view.get("devil") == s:
            if side:
                dx, dy = min(max(left + (w - dw) / 2, 6), WIDTH - 6 - dw), top + h + 26
            else:
                dx, dy = left + w + 8, top + h / 2
            devil = (dx, dy - (SMALL + 10) / 2, dx + dw, dy + (SMALL + 10) / 2)
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
                cols = min(2 if room >= 76 + 72 else 1, len(members))
            else:
                cols = min(3, len(members))
            rows = (len(members) + cols - 1) // cols
            ext = abs(math.cos(a)) * cols * 38 + abs(math.sin(a)) * rows * 53
            rr = max(inner - ext - 4, rc0 + ext) if not side else (inner + rc0) / 2
            zx, zy = CX + rr * math.cos(a), CY - rr * math.sin(a)
        for i, d in enumerate(members):
            c, r = i % cols, i // cols
            out[d] = (zx + (c - (cols - 1) / 2) * 76, zy + (r - (rows - 1) / 2) * 106 - 12)
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


def place_dice(view: PublicView, names: Sequence[str], text: Text, highlight: str | None = None) -> list[PlacedDie]:
    """Place every table die's glyph + id label so that no two overlap and none covers a
    card spot, a seat label / Devil tag or another die's true-position dot (pure; the
    board image draws exactly these boxes). Dice are placed in size order; each goes
    to its true position when free, else to the nearest free spot. Returns the
    placements in size order (empty before the roll)."""
    if not view.get("rolled"):
        return []
    spatial = view["table_model"] == "spatial"
    dice = {d["id"]: d for d in view["dice"]}
    table = [d for d in DICE if d in dice and dice[d]["place"] == "table"]
    cards = card_layout(view, text)
    obstacles: list[Box] = [c.box for c in cards]
    for lab in seat_label_layout(view, names, text):
        obstacles.append(lab.box)
        if lab.devil:
            obstacles.append(lab.devil)
    r_die = TABLE_DIE_R if spatial else ZONE_DIE_R
    if spatial:
        anchors = {d: _die_px(dice[d]) for d in table}
        reach = view.get("r_play", 850) * SCALE + 14  # glyph centres stay on the felt
    else:
        anchors = _zone_anchors(view, cards)
        reach = 1000 * SCALE - r_die - 6
    dots = {d: (a[0] - DOT_R - 2, a[1] - DOT_R - 2, a[0] + DOT_R + 2, a[1] + DOT_R + 2)
            for d, a in anchors.items()} if spatial else {}
    return list(_search(tuple(table), tuple(anchors.get(d, (float(CX), float(CY))) for d in table), reach,
                        tuple(obstacles), tuple(dots.items()), r_die, highlight, (base.BOLD_FACE, base._fonts_key())))


@lru_cache(maxsize=512)
def _search(table: tuple[str, ...], anchors: tuple[tuple[float, float], ...], reach: float,
            obstacles: tuple[Box, ...], dots: tuple[tuple[str, Box], ...], r_die: float,
            highlight: str | None, fonts: tuple[Any, ...]) -> tuple[PlacedDie, ...]:
    """``place_dice``'s search, memoized: a board drawn again with the dice where they were (most
    moves move none) reuses it (about a quarter of a Carnival board's drawing). ``fonts``: the bold
    option and the fonts (the id labels' widths), so a switch of them (``render.base.configure``)
    searches again."""
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


def _draw_table(draw: ImageDraw.ImageDraw, view: PublicView, names: Sequence[str], text: Text,
                highlight: str | None, placed: Sequence[PlacedDie]) -> bool:
    """The table, its cards, dice and seat labels, the dice at ``placed`` (``place_dice``); True when a
    nudged die's true-position dot and leader line were drawn (the legend then explains them)."""
    n = view["players"]
    spatial = view["table_model"] == "spatial"
    r_seat = 1000 * SCALE
    r_play = view.get("r_play", 850) * SCALE
    draw.ellipse((CX - r_seat - 14, CY - r_seat - 14, CX + r_seat + 14, CY + r_seat + 14), fill=RIM)
    draw.ellipse((CX - r_seat, CY - r_seat, CX + r_seat, CY + r_seat), fill=FELT)
    dice = {d["id"]: d for d in view["dice"]}
    rolled = bool(view.get("rolled"))
    if spatial:
        draw.ellipse((CX - r_play, CY - r_play, CX + r_play, CY + r_play), outline=FELT_LIGHT, width=3)
    else:
        rc = r_seat * 0.26
        for k in range(n):
            a = _seat_angle(k, n) + math.pi / n
            x0, y0 = CX + rc * math.cos(a), CY - rc * math.sin(a)
            x1, y1 = CX + r_seat * math.cos(a), CY - r_seat * math.sin(a)
            draw.line((x0, y0, x1, y1), fill=FELT_LIGHT, width=4)
        draw.ellipse((CX - rc, CY - rc, CX + rc, CY + rc), fill=FELT_LIGHT, outline=(200, 220, 200), width=3)
        draw_text(draw, (CX, CY - rc + 22), _board(text, "centre"), size=SMALL, fill=(225, 240, 225), anchor="mm")

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
        white = p.die == "W"
        draw.ellipse((ax - DOT_R, ay - DOT_R, ax + DOT_R, ay + DOT_R), fill=WHITE if white else DIE_BLACK,
                     outline=INK if white else WHITE, width=2)

    # table dice glyphs (placed clear of the card spots)
    r_die = TABLE_DIE_R if spatial else ZONE_DIE_R
    for p in placed:
        draw_die(draw, p.die, dice[p.die]["value"], p.centre[0], p.centre[1], r_die,
                 highlight=highlight == p.die)

    # nearest-die lines (spatial): "Sloth would take …", from the seat to the edge of the
    # die's glyph and id label (a moved glyph has its own leader line to its true position); over the
    # dice's id labels, edged in ink, so no label hides one; under the glyphs and card spots
    if spatial and rolled:
        where = {p.die: p for p in placed}
        for s, die in enumerate(view.get("nearest") or []):
            if die is None or die not in where:
                continue
            sx, sy = _to_px(*seat_pts[s])
            end = _edge_point((sx, sy), where[die].centre, where[die].box)
            if end is None:
                continue
            ex, ey = end
            draw.line((sx, sy, ex, ey), fill=INK, width=7)
            draw.line((sx, sy, ex, ey), fill=seat_colour(s), width=3)
        for p in placed:  # (the glyphs again, over the lines: a line never covers a value)
            draw_die(draw, p.die, dice[p.die]["value"], p.centre[0], p.centre[1], r_die, label=False,
                     highlight=highlight == p.die)

    # cards at their spots (pulled inside the rim) with locked dice and their ids
    for spot in card_layout(view, text):
        s = spot.seat
        seat = seats[s]
        box = spot.box
        px = spot.x
        if seat["card"]:
            draw.rounded_rectangle(box, radius=8, fill=WHITE, outline=seat_colour(s), width=4)
            draw_text(draw, (px, box[1] + 25), spot.title, size=SMALL, bold=True, anchor="mm")
        elif seat["picked"]:
            draw.rounded_rectangle(box, radius=8, fill=CARD_BACK, outline=seat_colour(s), width=4)
            draw_text(draw, (px, box[1] + 25), _board(text, "picked"), size=SMALL, fill=WHITE, bold=True,
                      anchor="mm")
        else:
            draw.rounded_rectangle(box, radius=8, fill=FELT_LIGHT, outline=seat_colour(s), width=2)
            draw_text(draw, (px, box[1] + 25), _board(text, "thinking") if view["phase"] == "choose" else "",
                      size=SMALL, fill=WHITE, anchor="mm")
        locked = seat["locked"]
        for i, die in enumerate(locked):
            row, col = divmod(i, CARD_COLS)
            in_row = min(CARD_COLS, len(locked) - row * CARD_COLS)
            dx = px + (col - (in_row - 1) / 2) * CARD_PITCH
            dy = box[1] + 48 + CARD_DIE_R + 2 + row * CARD_ROW_H
            draw_die(draw, die, dice[die]["value"], dx, dy, CARD_DIE_R, label=False, highlight=highlight == die)
            draw_text(draw, (dx, dy + CARD_DIE_R + 20), die, size=SMALL, bold=True, anchor="mm",
                      fill=INK if seat["card"] else WHITE)

    # seat markers with names (outside the rim)
    for lab in seat_label_layout(view, names, text):
        s = lab.seat
        sx, sy = _to_px(*seat_pts[s])
        draw.ellipse((sx - 11, sy - 11, sx + 11, sy + 11), fill=seat_colour(s), outline=INK, width=2)
        left, top, right, bottom = lab.box
        outline = HIGHLIGHT if seats[s]["to_move"] else INK
        draw.rounded_rectangle(lab.box, radius=10, fill=WHITE, outline=outline,
                               width=4 if seats[s]["to_move"] else 2)
        draw.ellipse((left + 6, top + 6, left + 42, top + 42), fill=seat_colour(s), outline=INK)
        draw_text(draw, (left + 24, top + 24), _letter(s), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
        draw_text(draw, (left + 50, top + 24), lab.name, size=SMALL, bold=True, anchor="lm")
        if lab.devil:
            _devil_tag(draw, lab.devil[0], (lab.devil[1] + lab.devil[3]) / 2, text)
    return bool(leaders)


def _draw_legend(draw: ImageDraw.ImageDraw, view: PublicView, text: Text, nudged: bool) -> int:
    """The table's legend under it, one line per mark actually drawn: the "Sloth would
    take" lines (spec §11) and a nudged die's true-position dot and leader line. Returns
    the y (px) where the panels begin."""
    lines = _legend_lines(view, text, nudged)
    y = TABLE_BOTTOM - 8
    for kind, line in lines:
        x = 20.0
        if kind == "nudged":  # (a sample of the mark: a dot and a short leader line)
            draw.line((x + DOT_R, y, x + 34, y), fill=GREY, width=2)
            draw.ellipse((x, y - DOT_R, x + 2 * DOT_R, y + DOT_R), fill=DIE_BLACK, outline=GREY, width=2)
            x += 44
        draw_text(draw, (x, y), line, size=LEGEND_SIZE, fill=GREY, anchor="lm", max_width=WIDTH - 20 - x)
        y += LEGEND_STEP
    return _legend_end(len(lines))


def _legend_lines(view: PublicView, text: Text, nudged: bool) -> list[tuple[str, str]]:
    """The legend's lines (kind, text), as ``_draw_legend`` draws them."""
    lines: list[tuple[str, str]] = []
    if any(view.get("nearest") or ()):
        lines.append(("sloth", _board(text, "sloth_lines", sin=term("sin.sloth"))))
    if nudged:
        lines.append(("nudged", _board(text, "nudged_note")))
    return lines


def _legend_end(lines: int) -> int:
    """The y (px) where the panels begin under a legend of ``lines`` lines."""
    return TABLE_BOTTOM + 18 + LEGEND_STEP * max(0, lines - 1)


# --------------------------------------------------------------------------- panels


SCORE_ROW_H = 46
"""Height (px) of a score sheet row."""
PANEL_DIE_R = 28
"""Radius (px) of a locked die in a player's panel."""


def _panel_lines(view: PublicView, text: Text, seat: SeatView) -> tuple[str, list[str], str, bool]:
    """The third line of a panel: the "Played:" label, the chips of the previous sins,
    the "Left n:" text and whether that text needs a line of its own (it does not fit
    after the chips at ``NOTE_SIZE``)."""
    played = _board(text, "played")
    chips = [_sin_title(text, sin)[:5] for sin in seat["previous"]]
    left = seat["hand"]
    if left:
        short = " ".join(_sin_title(text, x)[:5] for x in SINS if x in left)
        txt = _board(text, "left", n=len(left), sins=short)
    else:
        txt = _board(text, "left_none")
    width = 40 + text_width(played, NOTE_SIZE) + 8 + sum(text_width(c, NOTE_SIZE) + 16 + 6 for c in chips) + (
        text_width("—", NOTE_SIZE) if not chips else 0)
    return played, chips, txt, width + 28 + text_width(txt, NOTE_SIZE) > WIDTH - 30


def _panel_height(view: PublicView, text: Text, seat: SeatView) -> int:
    """Height (px) of a player's panel (row spacing included)."""
    return 240 if _panel_lines(view, text, seat)[3] else 190


def _draw_panels(draw: ImageDraw.ImageDraw, view: PublicView, names: Sequence[str], text: Text, top: int,
                 highlight: str | None) -> int:
    dice = {d["id"]: d for d in view["dice"]}
    y = top
    for seat in view["seats"]:
        s = seat["seat"]
        col = seat_colour(s)
        row_h = _panel_height(view, text, seat)
        box = (16, y, WIDTH - 16, y + row_h - 10)
        draw.rounded_rectangle(box, radius=12, fill=WHITE if not seat["to_move"] else (255, 248, 220),
                               outline=HIGHLIGHT if seat["to_move"] else LINE, width=4 if seat["to_move"] else 2)
        draw.rounded_rectangle((16, y, 30, y + row_h - 10), radius=6, fill=col)
        # line 1: letter, name, devil, total
        l1 = y + 34
        draw.ellipse((40, l1 - 21, 82, l1 + 21), fill=col, outline=INK, width=2)
        draw_text(draw, (61, l1), _letter(s), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
        draw_text(draw, (94, l1), _name(text, s), size=NAME_SIZE, bold=True, anchor="lm", max_width=400)
        nx = 94 + min(400, text_width(_name(text, s), NAME_SIZE, True)) + 14
        if view.get("devil") == s:
            nx = _devil_tag(draw, nx, l1, text) + 8
        places = view.get("places") or []
        if places:  # the end (spec §8.2): each seat's place, the winners starred
            winners = (view.get("outcome") or {}).get("winners", [])
            label = _board(text, "winner") if s in winners else _board(text, "place", n=places[s])
            nx = _tag(draw, nx, l1, label, fill=HIGHLIGHT if s in winners else PANEL, bold=True) + 8
        if seat["to_move"] and view["phase"] != "over":
            _tag(draw, nx, l1, _board(text, "to_move"), fill=HIGHLIGHT, bold=True)
        draw_text(draw, (WIDTH - 32, l1), _board(text, "total", n=seat["total"]), size=NAME_SIZE, bold=True,
                  anchor="rm")
        # line 2: current card + locked dice (glyph, then its id)
        ly = y + 92
        card = seat["card"]
        if card:
            x = _tag(draw, 40, ly, _card_title(text, card), fill=(255, 255, 255), bold=True, outline=col)
        elif seat["picked"]:
            label = _board(text, "picked_random" if seat["random_pick"] else "picked")
            x = _tag(draw, 40, ly, label, fill=CARD_BACK, ink=WHITE, bold=True)
        elif view["phase"] == "choose":
            x = _tag(draw, 40, ly, _board(text, "timed_out" if seat["timed_out"] else "choosing"))
        else:
            x = _tag(draw, 40, ly, _board(text, "no_card"), ink=GREY)
        x += 18
        for die in seat["locked"]:
            draw_die(draw, die, dice[die]["value"], x + PANEL_DIE_R, ly, PANEL_DIE_R, label=False,
                     highlight=highlight == die)
            x += 2 * PANEL_DIE_R + 6
            draw_text(draw, (x, ly), die, size=SMALL, anchor="lm", fill=GREY)
            x += text_width(die, SMALL) + 14
        if seat["locked"]:
            total = _board(text, "sum", n=seat["sum"])
            draw_text(draw, (x + 4, ly), total, size=NAME_SIZE, bold=True, anchor="lm")
            x += text_width(total, NAME_SIZE, True) + 16
        elif card == "envy" and seat["base"] is not None:
            draw_text(draw, (x + 4, ly), _board(text, "copied", n=seat["base"]), size=NAME_SIZE, bold=True,
                      anchor="lm")
        if seat["penalty"]:
            _tag(draw, x + 4, ly, _board(text, "off_table", n=seat["penalty"]), fill=DEVIL_RED, ink=WHITE,
                 bold=True)
        # line 3: played strip, and the cards left (on a line of their own when they do not fit)
        py = y + 146
        played, chips, left, wrap = _panel_lines(view, text, seat)
        draw_text(draw, (40, py), played, size=NOTE_SIZE, fill=GREY, anchor="lm")
        px = 40 + text_width(played, NOTE_SIZE) + 8
        if not chips:
            draw_text(draw, (px, py), "—", size=NOTE_SIZE, fill=GREY, anchor="lm")
            px += text_width("—", NOTE_SIZE)
        for chip in chips:
            px = _tag(draw, px, py, chip, size=NOTE_SIZE, fill=PANEL) + 6
        lx, ly3 = (40.0, py + 50) if wrap else (px + 28, py)
        draw_text(draw, (lx, ly3), left, size=NOTE_SIZE, fill=INK, anchor="lm", max_width=WIDTH - 30 - lx)
        y += row_h
    return y


SCORES_EXTRA = 116
"""Height (px) of the score sheet beyond its rows of ``SCORE_ROW_H`` (a header, the rounds and the
total): title 54, the total row's 4 more, the note 52, 6 above it (``render_board``)."""


def _draw_scores(draw: ImageDraw.ImageDraw, view: PublicView, names: Sequence[str], text: Text, top: int) -> int:
    """The score sheet from ``top``; returns its bottom, ``top + SCORES_EXTRA - 6`` plus its rows."""
    n = view["players"]
    rounds = view["rounds"]
    draw_text(draw, (20, top + 26), _board(text, "score_sheet"), size=NAME_SIZE, bold=True, anchor="lm")
    y = top + 54
    label_w = 132
    col_w = (WIDTH - 40 - label_w) / n
    row_h = SCORE_ROW_H
    # header
    draw.rectangle((20, y, WIDTH - 20, y + row_h), fill=PANEL)
    draw_text(draw, (30, y + row_h / 2), _board(text, "round_column"), size=SMALL, bold=True, anchor="lm",
              max_width=label_w - 12)
    for s in range(n):
        cx = 20 + label_w + col_w * (s + 0.5)
        draw.rectangle((20 + label_w + col_w * s + 4, y + 4, 20 + label_w + col_w * s + 14, y + row_h - 4),
                       fill=seat_colour(s))
        draw_text(draw, (cx + 6, y + row_h / 2), _board(text, "seat", letter=_letter(s), name=seat_ref(s)), size=SMALL, bold=True,
                  anchor="mm", max_width=col_w - 26)
    y += row_h
    devils = view["round_devils"]
    current = view["round"] if view["phase"] != "over" else None
    for r in range(rounds):
        fill = (255, 248, 220) if current == r + 1 else (WHITE if r % 2 == 0 else BG)
        draw.rectangle((20, y, WIDTH - 20, y + row_h), fill=fill)
        draw_text(draw, (30, y + row_h / 2), f"{r + 1}", size=SMALL, anchor="lm")
        if r < len(view["round_scores"]):
            row = view["round_scores"][r]
            for s in range(n):
                cx = 20 + label_w + col_w * (s + 0.5)
                played = view["seats"][s]["played"]
                mark = f" {_sin_title(text, played[r])[:3]}" if r < len(played) else ""
                draw_text(draw, (cx, y + row_h / 2), f"{row[s]}{mark}", size=SMALL, anchor="mm", max_width=col_w - 8,
                          bold=r < len(devils) and devils[r] == s)
        y += row_h
    draw.rectangle((20, y, WIDTH - 20, y + row_h + 4), fill=PANEL)
    draw_text(draw, (30, y + row_h / 2 + 2), _board(text, "total_row"), size=SMALL, bold=True, anchor="lm",
              max_width=label_w - 12)
    winners = set((view.get("outcome") or {}).get("winners", []))
    for s in range(n):
        cx = 20 + label_w + col_w * (s + 0.5)
        cell = f"{view['totals'][s]}" + (" ★" if s in winners else "")
        draw_text(draw, (cx, y + row_h / 2 + 2), cell, size=NAME_SIZE, bold=True, anchor="mm")
    y += row_h + 4
    draw_text(draw, (20, y + 26), _board(text, "bold_note"), size=NOTE_SIZE, fill=GREY, anchor="lm",
              max_width=WIDTH - 40)
    return y + 52


# --------------------------------------------------------------------------- public API


def render_board(view: PublicView, *, names: Sequence[str], text: Text, highlight: str | None = None) -> Image.Image:
    """Draw the public board (spec docs/rules/carnival.md §11 Board image).

    Args:
        view: ``CarnivalEngine.player_view(state, None)`` (``PublicView``).
        names: display names by seat.
        text: the host's formatter of messages (``bot.text.Texts`` of this game).
        highlight: a die id (``"d12"``) to ring in yellow, or None.

    Returns:
        An RGB image ``render.base.WIDTH`` px wide.
    """
    placed = place_dice(view, names, text, highlight)
    nudged = bool(leader_dice(view, placed))
    panels = sum(_panel_height(view, text, seat) for seat in view["seats"])
    # (the board's height up front, so no crop copies the image at the end: the legend, the panels,
    # 6 px, the score sheet as _draw_scores lays it out (116 px and its rows), 10 px under it)
    height = min(TABLE_BOTTOM + 18 + LEGEND_STEP + panels + 60 + SCORE_ROW_H * (view["rounds"] + 2) + 110,
                 _legend_end(len(_legend_lines(view, text, nudged))) + panels + SCORES_EXTRA
                 + SCORE_ROW_H * (view["rounds"] + 2) + 10)
    img, draw = canvas(height)
    # header: title, model and round; the phase line
    draw.rectangle((0, 0, WIDTH, TABLE_TOP - 8), fill=(40, 24, 60))
    title = fit_text(_board(text, "title"), NAME_SIZE, 560, True)
    draw_text(draw, (20, 28), title, size=NAME_SIZE, fill=WHITE, bold=True, anchor="lm")
    rnd = _board(text, "round", round=view["round"], rounds=view["rounds"])
    draw_text(draw, (WIDTH - 20, 28), rnd, size=NAME_SIZE, fill=HIGHLIGHT, bold=True, anchor="rm")
    model = _board(text, "spatial" if view["table_model"] == "spatial" else "zones")
    model_right = WIDTH - 44 - text_width(rnd, NAME_SIZE, True)
    draw_text(draw, (model_right, 28), model, size=NOTE_SIZE, fill=(220, 210, 240), anchor="rm",
              max_width=model_right - 20 - text_width(title, NAME_SIZE, True) - 24)
    draw_text(draw, (20, 72), _phase_text(view, text), size=SMALL, fill=WHITE, anchor="lm", max_width=PHASE_WIDTH)
    top = _draw_legend(draw, view, text, _draw_table(draw, view, names, text, highlight, placed))
    y = _draw_panels(draw, view, names, text, top, highlight)
    _draw_scores(draw, view, names, text, y + 6)
    return img


def render_private(view: PrivateView, *, names: Sequence[str], text: Text) -> Image.Image:
    """Draw one seat's private view: current secret pick, remaining sins with one-line
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
    height = 240 + 104 * max(1, len(hand)) + 340
    img, draw = canvas(height)
    col = seat_colour(seat)
    draw.rectangle((0, 0, WIDTH, 80), fill=(40, 24, 60))
    draw.ellipse((16, 16, 64, 64), fill=col, outline=WHITE, width=2)
    draw_text(draw, (40, 40), _letter(seat), size=LETTER_SIZE, fill=WHITE, bold=True, anchor="mm")
    rnd = _board(text, "round", round=view["round"], rounds=view["rounds"])
    draw_text(draw, (78, 40), _board(text, "your_sins", seat=seat_ref(seat)), size=NAME_SIZE, fill=WHITE, bold=True,
              anchor="lm", max_width=WIDTH - 130 - text_width(rnd, NAME_SIZE, True))
    draw_text(draw, (WIDTH - 20, 40), rnd, size=NAME_SIZE, fill=HIGHLIGHT, bold=True, anchor="rm")
    y = 110
    if me["card"]:
        status = _board(text, "revealed", card=_card_title(text, me["card"]))
    elif pick:
        status = _board(text, "your_pick_random" if me["random_pick"] else "your_pick", card=_card_title(text, pick))
    elif view["phase"] == "choose":
        status = _board(text, "not_picked")
    else:
        status = _board(text, "no_pick")
    draw_text(draw, (20, y), status, size=NAME_SIZE, bold=True, anchor="lm", max_width=WIDTH - 40)
    y += 44
    if view["phase"] == "choose" and view["round"] < view["rounds"]:
        draw_text(draw, (20, y), _board(text, "may_change"), size=SMALL, fill=GREY, anchor="lm",
                  max_width=WIDTH - 40)
    y += 36
    for sid in hand:
        chosen = sid == pick
        box = (16, y, WIDTH - 16, y + 94)
        draw.rounded_rectangle(box, radius=12, fill=(255, 246, 200) if chosen else WHITE,
                               outline=HIGHLIGHT if chosen else LINE, width=5 if chosen else 2)
        draw_text(draw, (36, y + 28), _card_title(text, sid), size=NAME_SIZE, bold=True, anchor="lm")
        if chosen:
            tag = _board(text, "your_pick_tag")
            _tag(draw, WIDTH - 40 - text_width(tag, SMALL, True) - 16, y + 28, tag, fill=HIGHLIGHT, bold=True)
        draw_text(draw, (36, y + 68), text(msg(f"hint.{sid}")), size=SMALL, fill=INK, anchor="lm",
                  max_width=WIDTH - 64)
        y += 104
    if not hand:
        draw_text(draw, (20, y + 22), _board(text, "no_sins"), size=SMALL, anchor="lm")
        y += 54
    played = ", ".join(_sin_title(text, s) for s in me["played"]) or "—"
    draw_text(draw, (20, y + 22), _board(text, "played_list", sins=played), size=NOTE_SIZE, anchor="lm",
              max_width=WIDTH - 40)
    y += 58
    if view.get("rolled"):
        draw_text(draw, (20, y + 16), _board(text, "dice_now"), size=SMALL, bold=True, anchor="lm")
        y += 40
        x = 84.0
        for d in view["dice"]:
            if d["place"] == "table" or d["owner"] is None:
                where = _board(text, "where_table")
            else:
                where = fit_text(_board(text, "where_card", seat=seat_ref(d["owner"])), SMALL, 150)
            draw_die(draw, d["id"], d["value"], x, y + 42, 30, label=True)
            draw_text(draw, (x, y + 134), where, size=SMALL, fill=GREY, anchor="mm")
            x += 155
        y += 156
    return img.crop((0, 0, WIDTH, min(height, y + 16)))
