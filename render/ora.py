"""Ora et Labora images (spec docs/rules/ora.md §11), phone-first.

* ``render_board`` — the shared board, ``BOARD_W`` (720) px wide and the same height all game
  long: the round or turn with the next settlement phase and the timeline, whose window it is
  and which action of the round ("second of two"), the production wheel as each good's value,
  the landscape piles, and every seat's points, clergy at home and coins.
* ``zoom_regions`` / ``render_zoom`` — the rest one tap away, ``ZOOM_W`` (640) px wide with text
  of 18 px and more: each landscape (``render_owner``), the building display stage by stage, the
  production wheel space by space.
* ``render_decision`` / ``draws_decision`` — the numbered picture of a decision that picks places
  of a landscape (``PrivateView.targets``: where to build, which forest or moor, a settlement's
  place, a building to use or contract); the labels read "N · outcome" with the same numbers.
* ``render_thumbnail`` — the board's summary for a DM turn notice, 550 px wide (THUMBNAIL_WIDTH).
* ``render_private`` — the seat's own landscape (``render_owner``). Nothing is hidden (§7).

Input: ``engines.ora.types.PublicView`` / ``PrivateView``; names, costs, wheel values and
price rows from ``engines.ora.data``; building, good and settlement names and the one-line
functions through the ``text`` formatter (catalog ``term.*`` and ``effect.<id>``) when given.
Seats are told apart by colour and letter; a prior is a round token, a lay brother a square.
A name is wrapped or moved to a legend, never cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, cast

from PIL import Image, ImageDraw

from engines.base import Msg, msg, seat_ref
from engines.ora.data import BUILDINGS, GOODS, MODES, PHASES, SETTLEMENTS
from engines.ora.notation import SLOT_CELLS
from engines.ora.types import PlayerView, PrivateView, PublicView, SpaceView, TargetView
from render.base import (
    BG,
    HIGHLIGHT,
    INK,
    LINE,
    MUTED,
    PANEL,
    SEAT_LETTERS,
    WHITE,
    TextFormatter,
    canvas,
    draw_text,
    fit_text,
    legend,
    seat_colour,
    text_width,
    tile,
    wrap_text,
)

RGB = tuple[int, int, int]

MARGIN = 16
SLOT = "slot"
"""The terrain of a space drawn where a new district or plot would go (``render_decision``)."""
SLOT_LINE = (190, 182, 168)
TERRAIN_COLOURS: dict[str, RGB] = {
    "water": (120, 170, 215), "coast": (232, 216, 160), "plains": (196, 222, 156),
    "hillside": (212, 186, 140), "mountain": (150, 142, 138), SLOT: (226, 222, 214)}
FOREST = (46, 110, 52)
MOOR = (110, 80, 52)
BUILDING_FILL = (252, 248, 236)
CLOISTER_FILL = (236, 230, 250)
SETTLEMENT_FILL = (255, 222, 196)
NEUTRAL_COLOUR = (120, 120, 128)
MEMO_TEXTS = False
"""No ``render.registry.OneImageTexts`` for Ora's images: it is no faster for them (A/B over 60 boards:
7.3 ms a board with it, 6.6 without, within the noise of a shared machine, where the same code twice
differed by 0.5 ms)."""
# --------------------------------------------------------------------------- text


def _say(text: TextFormatter | None, key: str, default: str) -> str:
    """The catalog's ``term.<key>`` through ``text`` (``host.notation`` passes a value on), or
    ``default`` (a name from the data files) without a formatter."""
    if text is None:
        return default
    return text({"msg": "host.notation", "params": {"text": {"term": key}}})


def label(text: TextFormatter | None, key: str, **params: Any) -> str:
    """A board label: the catalog message ``key`` (``board.*`` in bot/text/en/ora.toml) with
    ``params`` (numbers, ``{"term": ..}``, nested message JSON) through ``text``; without a
    formatter the key itself (tests only: the host always passes one)."""
    return key if text is None else text({"msg": key, "params": params})


def _term(key: str) -> dict[str, str]:
    return {"term": key}


def _goods_param(goods: dict[str, int]) -> list[dict[str, Any]]:
    return [{"msg": "goods.item", "params": {"n": n, "good": _term(f"good.{g}")}} for g, n in goods.items() if n]


def _terrains(text: TextFormatter | None, terrains: Sequence[str]) -> str:
    return "/".join(_say(text, f"terrain.{t}", t) for t in terrains)


def _unit_label(text: TextFormatter | None, view: PublicView, n: int, key: str = "", **params: Any) -> str:
    """``board.round`` / ``board.turn`` of unit ``n`` (``key`` ``_of``: with the total of
    regular units; ``_phase``: a settlement phase ``letter`` at that unit)."""
    kind = "turn" if view["unit_kind"] == "turn" else "round"
    return label(text, f"board.{kind}{key}", n=n, total=view["regular_units"] or 0, **params)


def building_name(text: TextFormatter | None, bid: str) -> str:
    """A building's name (catalog ``term.building.<id>``)."""
    return _say(text, f"building.{bid}", BUILDINGS[bid].name)


def good_name(text: TextFormatter | None, good: str) -> str:
    """A good's name (catalog ``term.good.<id>``)."""
    return _say(text, f"good.{good}", "Joker" if good == "joker" else GOODS[good].name)


def piece_name(text: TextFormatter | None, piece: str) -> str:
    """A building's or settlement's name."""
    if piece in BUILDINGS:
        return building_name(text, piece)
    return _say(text, f"settlement.{piece}", SETTLEMENTS[piece].name)


def effect_line(text: TextFormatter | None, bid: str) -> str:
    """The one-line function of a building (catalog ``effect.<id>``; the handler without one)."""
    if text is None:
        return BUILDINGS[bid].handler
    return text({"msg": f"effect.{bid}", "params": {}})


def _owner_title(owner: PlayerView, names: Sequence[str], text: TextFormatter | None) -> str:
    if owner["neutral"]:
        return label(text, "board.neutral")
    seat = owner["seat"]
    if seat < len(names) and names[seat]:
        return names[seat]
    return label(text, "host.seat", letter=SEAT_LETTERS[seat])


# --------------------------------------------------------------------------- tokens


def badge(draw: ImageDraw.ImageDraw, xy: tuple[float, float], seat: int | None, size: int = 26) -> None:
    """A seat badge: the seat's colour with its letter (neutral: grey ``N``); ``xy`` = top left."""
    x, y = xy
    colour = NEUTRAL_COLOUR if seat is None else seat_colour(seat)
    letter = "N" if seat is None else SEAT_LETTERS[seat % len(SEAT_LETTERS)]
    draw.rounded_rectangle((x, y, x + size, y + size), 6, fill=colour, outline=INK)
    draw_text(draw, (x + size / 2, y + size / 2), letter, size=int(size * 0.62), fill=WHITE, bold=True,
              anchor="mm")


def clergy_token(draw: ImageDraw.ImageDraw, cx: float, cy: float, seat: int, kind: str, neutral: bool,
                 r: int) -> None:
    """A clergyman: prior round, lay brother square; the seat's colour and letter."""
    colour = NEUTRAL_COLOUR if neutral else seat_colour(seat)
    box = (cx - r, cy - r, cx + r, cy + r)
    if kind == "prior":
        draw.ellipse(box, fill=colour, outline=INK, width=2)
    else:
        draw.rectangle(box, fill=colour, outline=INK, width=2)
    draw_text(draw, (cx, cy), "N" if neutral else SEAT_LETTERS[seat % len(SEAT_LETTERS)], size=int(r * 1.5),
              fill=WHITE, bold=True, anchor="mm")


def _tree(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    for dx in (0.3, 0.7):
        cx = x0 + w * dx
        draw.polygon([(cx, y0 + h * 0.12), (cx - w * 0.2, y0 + h * 0.7), (cx + w * 0.2, y0 + h * 0.7)], fill=FOREST)
        draw.rectangle((cx - w * 0.03, y0 + h * 0.7, cx + w * 0.03, y0 + h * 0.85), fill=MOOR)


def _moor(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    x0, y0, x1, y1 = box
    draw.rectangle((x0 + 4, y0 + 4, x1 - 4, y1 - 4), fill=MOOR)
    step = max(6, int((x1 - x0) / 6))
    for i in range(int(x0) + 4, int(x1) - 4, step):
        draw.line((i, y1 - 6, i + step / 2, y0 + 6), fill=(150, 118, 80), width=2)


# --------------------------------------------------------------------------- landscape grid


def _extent(owner: PlayerView) -> tuple[int, int, int, int]:
    xs = [s["x"] for s in owner["spaces"]]
    ys = [s["y"] for s in owner["spaces"]] + [s["y"] + 1 for s in owner["spaces"] if s["terrain"] == "mountain"]
    return min(xs), max(xs), min(ys), max(ys)


def grid_size(owner: PlayerView, cell: int) -> tuple[int, int]:
    """Pixel size of an owner's landscape grid with its coordinate labels."""
    x0, x1, y0, y1 = _extent(owner)
    return GRID_LEFT + (x1 - x0 + 1) * cell, GRID_TOP + (y1 - y0 + 1) * cell


GRID_LEFT = 34
GRID_TOP = 28
NAME_CELL = 104
"""Cells at least this large write a piece's name under its id (when it fits on two lines);
smaller ones leave it to the legend under the landscape."""
TOKEN_R = 12
"""Radius (px) of a clergyman on a landscape: its letter is 18 px."""


def _zoom_cell(owner: PlayerView) -> int:
    """Cell size of an owner's landscape on a ``ZOOM_W`` image: as large as the width allows, 56–130 px."""
    x0, x1, _, _ = _extent(owner)
    return max(56, min(130, (ZOOM_W - 2 * MARGIN - GRID_LEFT) // (x1 - x0 + 1)))


def _cell_name(text: TextFormatter | None, piece: str, cell: int) -> tuple[str, ...]:
    """A piece's name as it is written in its cell: at most two lines of 18 px, each whole; ``()``
    when the cell is too small or the name needs more (the legend names it then)."""
    if cell < NAME_CELL:
        return ()
    lines = _break(piece_name(text, piece), 18, cell - 12)
    fits = len(lines) <= 2 and all(text_width(line, 18) <= cell - 12 for line in lines)
    return tuple(lines) if fits else ()


def draw_landscape(draw: ImageDraw.ImageDraw, owner: PlayerView, ox: int, oy: int, cell: int,
                   text: TextFormatter | None, *, detail: bool, bg: RGB = BG,
                   numbers: dict[tuple[int, int], int] | None = None, axes: bool = True) -> list[str]:
    """An owner's landscape (§2.4) with x labels on top and y labels on the left, every text
    18 px: each piece's id, its name under it where the cell holds it whole (``_cell_name``),
    clergymen along the bottom of their space, below the names. ``numbers``: the numbered places
    of a decision (x, y → n), ringed in yellow with their number under the piece's id and name
    (no clergy there: the buttons say what each does). Returns the pieces whose names are not in
    their cells (for a legend); with ``detail`` False, names are written only in numbered cells;
    with ``axes`` False no coordinate labels (a decision picture: its numbers say the places)."""
    x0, x1, y0, y1 = _extent(owner)
    gx, gy = ox + GRID_LEFT, oy + GRID_TOP
    for col in range(x0, x1 + 1) if axes else ():
        draw_text(draw, (gx + (col - x0) * cell + cell / 2, oy + 22), str(col), size=18, fill=MUTED, anchor="ms",
                  bold=True)
    for row in range(y0, y1 + 1) if axes else ():
        draw_text(draw, (ox + GRID_LEFT - 8, gy + (row - y0) * cell + cell / 2), str(row), size=18, fill=MUTED,
                  anchor="rm", bold=True)
    neutral = owner["seat"] if owner["neutral"] else None
    unnamed: list[str] = []
    numbers = numbers or {}
    for s in owner["spaces"]:
        piece = s["piece"]
        number = numbers.get((s["x"], s["y"]))
        lines = _cell_name(text, piece, cell) if piece and (detail or number is not None) else ()
        if piece and not lines:
            unnamed.append(piece)
        clergy = () if number is not None else tuple((c["seat"], c["kind"], c["seat"] == neutral)
                                                     for c in s["clergy"])
        xy = (gx + (s["x"] - x0) * cell, gy + (s["y"] - y0) * cell)
        paint = partial(_space, s["terrain"], s["card"], piece, clergy, cell, lines, number)
        if not piece or number is not None:  # (cheap, and shapes of float corners that round by position)
            paint(draw, *xy)
            continue
        tall = cell * (2 if s["terrain"] == "mountain" else 1)  # (the piece covers every shape under it)
        tile(draw, xy, (cell, tall), ("ora.space", s["terrain"], s["card"], piece, clergy, cell, lines), paint, bg)
    return unnamed


def _space(terrain: str, card: str | None, piece: str | None, clergy: tuple[tuple[int, str, bool], ...],
           cell: int, lines: tuple[str, ...], number: int | None, draw: ImageDraw.ImageDraw, cx: int,
           cy: int) -> None:
    """A landscape space at (``cx``, ``cy``): its terrain, card, piece (id, then ``lines``: its
    name), clergy (seat, kind, neutral) in a row along the bottom; a decision's ``number`` in a
    yellow circle, under the piece's id and name (``_number_spot``), else in the middle."""
    tall = cell * (2 if terrain == "mountain" else 1)
    box = (cx, cy, cx + cell - 2, cy + tall - 2)
    draw.rectangle(box, fill=TERRAIN_COLOURS[terrain], outline=SLOT_LINE if terrain == SLOT else LINE)
    if terrain == "mountain":
        draw.polygon([(cx + cell * 0.15, cy + tall * 0.62), (cx + cell / 2, cy + tall * 0.3),
                      (cx + cell * 0.85, cy + tall * 0.62)], fill=(120, 112, 108))
    if terrain == "water":
        for k in (0.35, 0.6):
            draw.arc((cx + 6, cy + cell * k - 6, cx + cell - 8, cy + cell * k + 6), 200, 340, fill=WHITE, width=2)
    if card == "forest":
        _tree(draw, (cx + 4, cy + 4, cx + cell - 6, cy + cell - 6))
    elif card == "moor":
        _moor(draw, (cx + 4, cy + cell * 0.3, cx + cell - 6, cy + cell - 6))
    if piece:
        info = BUILDINGS.get(piece)
        fill = SETTLEMENT_FILL if info is None else (CLOISTER_FILL if info.cloister else BUILDING_FILL)
        draw.rectangle((cx + 3, cy + 3, cx + cell - 5, cy + tall - 5), fill=fill, outline=INK,
                       width=2 if info is None else 1)
        draw_text(draw, (cx + cell / 2, cy + 6), piece, size=20 if cell >= 64 else 18, bold=True, anchor="ma")
        for i, ln in enumerate(lines):
            draw_text(draw, (cx + cell / 2, cy + 32 + i * 22), ln, size=18, anchor="ma")
    if number is not None:
        draw.rectangle((cx + 1, cy + 1, cx + cell - 3, cy + tall - 3), outline=HIGHLIGHT, width=4)
        mx, my, r = _number_spot(cell, tall, piece is not None, len(lines))
        mx, my = cx + mx, cy + my
        draw.ellipse((mx - r, my - r, mx + r, my + r), fill=HIGHLIGHT, outline=INK, width=2)
        size = 22 if number < 10 else 19
        draw_text(draw, (mx, my), str(number), size=size if r >= 17 else 18, bold=True, anchor="mm")
    r = TOKEN_R
    for i, (seat, kind, neutral) in enumerate(clergy):
        clergy_token(draw, cx + r + 5 + i * (2 * r + 3), cy + tall - r - 6, seat, kind, neutral, r)


def _number_spot(cell: int, tall: int, piece: bool, lines: int) -> tuple[float, float, int]:
    """Centre (x, y from the space's top left) and radius of a decision's number circle in a
    space ``cell`` px wide and ``tall`` px high: under the piece's id and its ``lines`` of name
    (they stay readable), in the middle of the space when it holds no piece."""
    if not piece:
        return cell / 2 - 1, tall / 2 - 1, min(20, cell // 2 - 8)
    top = 30 if not lines else 32 + lines * 22
    bottom = tall - 5
    return cell / 2 - 1, (top + bottom) / 2, max(12, min(20, (bottom - top) // 2))


# --------------------------------------------------------------------------- goods


def goods_grid(draw: ImageDraw.ImageDraw, goods: dict[str, int], x: int, y: int, width: int, cols: int,
               text: TextFormatter | None, *, zeros: bool, size: int = 16) -> int:
    """Goods as a grid of "name count" cells, ``cols`` per row, in the data file's order; with
    ``zeros`` every good is listed (a zero greyed). Returns the height used."""
    items = [(g, n) for g, n in goods.items() if zeros or n]
    if not items:
        draw_text(draw, (x, y), label(text, "board.no_goods"), size=size, fill=MUTED)
        return size + 8
    col_w = width // cols
    row_h = size + 9
    for i, (g, n) in enumerate(items):
        cx, cy = x + (i % cols) * col_w, y + (i // cols) * row_h
        colour = INK if n else MUTED
        draw.rounded_rectangle((cx, cy, cx + col_w - 6, cy + row_h - 3), 4, fill=PANEL if n else WHITE, outline=LINE)
        mid = cy + (row_h - 3) / 2
        draw_text(draw, (cx + 6, mid), good_name(text, g), size=size, fill=colour, max_width=col_w - 48, anchor="lm")
        draw_text(draw, (cx + col_w - 12, mid), str(n), size=size, fill=colour, bold=bool(n), anchor="rm")
    return ((len(items) + cols - 1) // cols) * row_h


def _home_text(owner: PlayerView, text: TextFormatter | None) -> str:
    home, total = owner["home"], owner["clergy_total"]
    return label(text, "board.home", prior=home["prior"], lay=home["lay"], total=total["lay"])


# --------------------------------------------------------------------------- board parts


def _title(view: PublicView, text: TextFormatter | None) -> str:
    return label(text, "board.title", variant=_term(f"variant.{view['variant']}"),
                 family=_term(f"family.{view['family']}"), players=view["players"])


def signed(n: int) -> str:
    """An integer as the boards write it: a negative one with the minus sign (``−3``)."""
    return f"\u2212{-n}" if n < 0 else str(n)


def sum_text(values: Sequence[int]) -> str:
    """A score breakdown as a sum: ``[0, 8, -3]`` → ``"0 + 8 − 3"`` (a negative part is
    subtracted, never ``+ -3``)."""
    out = signed(values[0]) if values else "0"
    for v in values[1:]:
        out += f" \u2212 {-v}" if v < 0 else f" + {v}"
    return out


def _cost_text(bid: str, text: TextFormatter | None) -> str:
    cost = BUILDINGS[bid].cost
    if not any(cost.values()):
        return label(text, "board.free")
    return label(text, "goods.list", goods=_goods_param(dict(cost)))


def _stages(display: list[str]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for bid in display:
        stage = BUILDINGS[bid].stage
        if not out or out[-1][0] != stage:
            out.append((stage, []))
        out[-1][1].append(bid)
    return out


def render_board(view: PublicView, *, names: Sequence[str], text: TextFormatter | None = None,
                 highlight: str | None = None) -> Image.Image:
    """The shared board (``PublicView``), ``BOARD_W`` px wide, the same height all game long
    (``board_height``: every part has its room reserved): the round or turn and the next
    settlement phase, the timeline, whose window it is and which action, the production wheel
    as each good's value now, the landscape piles, and the score of every seat with its clergy
    at home and coins. The building display, the landscapes and the full wheel are one tap away
    (``zoom_regions`` / ``render_zoom``). ``highlight`` is accepted for the protocol and unused."""
    img, draw = canvas(board_height(view, text), BOARD_W)
    w = BOARD_W
    title = _title(view, text)
    draw_text(draw, (MARGIN, 10), title, size=17, fill=MUTED, max_width=w - 2 * MARGIN)
    key_w = w - 2 * MARGIN - text_width(title, 17) - 20
    ks, key = _lines(label(text, "board.phases_key"), 17, key_w, 1)
    if text_width(key[0], ks) <= key_w:
        draw_text(draw, (w - MARGIN, 10), key[0], size=ks, fill=MUTED, anchor="ra")
        legend(PHASES)
    y = _head(draw, view, 36, text)
    y = _timeline(draw, view, y, w)
    y = _now(draw, view, y, names, text)
    y = _wheel_chips(draw, view, y, text)
    y = _piles(draw, view, y, text)
    y = _scores(draw, view, y, names, text)
    _look(draw, view, y, text)
    return img


BOARD_W = 720
"""Width (px) of Ora's board: every text at least 16 px, 8 px on a 360-px phone."""
ZOOM_W = 640
"""Width (px) of the zoom and decision images: every text at least 18 px (10 px on a phone)."""
HEAD_LINES = 2
CHIP_SIZE = 19
CHIP_H = 32
SCORE_ROW = 60


def _lines(line: str, size: int, width: float, lines: int, bold: bool = False) -> tuple[int, list[str]]:
    """``line`` broken at spaces (between any two characters of a CJK text) into at most
    ``lines`` lines of ``width`` px, at ``size`` or, when it needs more lines, a smaller size
    down to 16 px; the last resort shortens the last line."""
    for s in range(size, 15, -1):
        out = _break(line, s, width, bold)
        if len(out) <= lines:
            return s, out
    out = _break(line, 16, width, bold)
    joiner = " " if " " in line or line.isascii() else ""
    return 16, out[:lines - 1] + [fit_text(joiner.join(out[lines - 1:]), 16, width, bold)]


def _break(line: str, size: int, width: float, bold: bool = False) -> list[str]:
    spaced = " " in line or line.isascii()
    words = line.split() if spaced else list(line)
    joiner = " " if spaced else ""
    out: list[str] = []
    cur = ""
    for word in words:
        trial = f"{cur}{joiner}{word}" if cur else word
        if text_width(trial, size, bold) <= width or not cur:
            cur = trial
        else:
            out.append(cur)
            cur = word
    if cur:
        out.append(cur)
    return out


def _info(view: PublicView, text: TextFormatter | None) -> str:
    mode = MODES[view["mode"]]
    parts: list[str] = [label(text, "board.contract", price=view["contract_price"])]
    if view["next_phase"]:
        parts.insert(0, _unit_label(text, view, view["next_phase"]["unit"], "_phase",
                                    letter=view["next_phase"]["letter"]))
    elif not view["over"] and mode.bonus:
        parts.insert(0, label(text, "board.phase_e"))
    if view["last_turn"]:
        parts.insert(0, label(text, "board.last_turn"))
    return " · ".join(parts)


def _when(view: PublicView, text: TextFormatter | None) -> str:
    if view["over"]:
        return label(text, "board.over")
    if view["bonus_round"]:
        return label(text, "board.bonus_round", n=view["unit"])
    return _unit_label(text, view, view["unit"], "_of" if view["regular_units"] else "")


def _head(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFormatter | None) -> int:
    draw_text(draw, (MARGIN, y), _when(view, text), size=30, bold=True, max_width=BOARD_W - 2 * MARGIN)
    y += 42
    size, lines = _lines(_info(view, text), 19, BOARD_W - 2 * MARGIN, HEAD_LINES)
    for i, line in enumerate(lines):
        draw_text(draw, (MARGIN, y + i * 25), line, size=size)
    return y + HEAD_LINES * 25 + 6


def _timeline(draw: ImageDraw.ImageDraw, view: PublicView, y: int, width: int) -> int:
    """The bar of rounds or turns: one tick per unit, settlement phases A–E after their units,
    the bonus round shaded, the current unit marked."""
    unit = view["unit"]
    regular = view["regular_units"]
    mode = MODES[view["mode"]]
    y += 10
    last = (regular + (1 if mode.bonus else 0)) if regular else max(30, unit + 3)
    x0, x1 = MARGIN + 6, width - MARGIN - 6
    step = (x1 - x0) / last
    draw.rounded_rectangle((x0, y, x1, y + 22), 6, fill=PANEL, outline=LINE)
    if unit:
        draw.rounded_rectangle((x0, y, x0 + step * min(unit, last), y + 22), 6, fill=(190, 200, 225))
    if mode.bonus and regular:
        draw.rectangle((x0 + step * regular, y + 1, x1 - 1, y + 21), fill=(235, 215, 150))
    every = 5 if last <= 30 else 10
    for u in range(every, last + 1, every):
        if u in mode.phases:  # (a phase line at the unit's end: the number left of it)
            draw_text(draw, (x0 + step * u - 5, y + 11), str(u), size=16, fill=INK, anchor="rm")
        else:
            draw_text(draw, (x0 + step * (u - 0.5), y + 11), str(u), size=16, fill=INK, anchor="mm")
    for i, after in enumerate(mode.phases):
        px = x0 + step * after
        done = i < view["phases_done"]
        draw.line((px, y - 4, px, y + 26), fill=INK if not done else MUTED, width=3)
        draw_text(draw, (px, y + 26), PHASES[i], size=16, bold=True, anchor="ma", fill=INK if not done else MUTED)
    if regular and mode.bonus:
        draw_text(draw, (x1, y + 26), PHASES[-1], size=16, bold=True, anchor="ra")
    if unit:
        ux = x0 + step * (min(unit, last) - 0.5)
        draw.polygon([(ux - 7, y - 9), (ux + 7, y - 9), (ux, y - 1)], fill=INK)
    return y + 54


def _doing(view: PublicView, text: TextFormatter | None) -> str:
    """What the seat to move is doing (``board.doing_*``)."""
    pend = view["pending"]
    kind, b = pend["kind"], pend["building"]
    if kind in ("action",):
        if pend["main_done"]:
            return label(text, "board.doing_after")
        return label(text, f"board.doing_{pend['nth']}of{pend['of']}")
    if kind == "bonus":
        return label(text, "board.doing_bonus")
    if kind in ("settle",) and b is None:
        return label(text, "board.doing_settle")
    if kind in ("neutral", "nprior"):
        return label(text, "board.doing_neutral")
    if kind == "assign" and b:
        return label(text, "board.doing_assign", b=_term(f"building.{b}"))
    if b:
        return label(text, "board.doing_use", b=_term(f"building.{b}"))
    return label(text, f"board.doing_frame.{kind}") if kind in FRAME_KINDS else label(text, "board.doing_other")


FRAME_KINDS = ("pay", "borrow", "build", "settle", "fellcut", "take", "prior")
NOW_H = 96


def _now(draw: ImageDraw.ImageDraw, view: PublicView, y: int, names: Sequence[str], text: TextFormatter | None) -> int:
    """Whose window it is and which action (a yellow panel), or the winners at the end."""
    box = (MARGIN - 6, y, BOARD_W - MARGIN + 6, y + NOW_H - 10)
    seat = view["pending"]["seat"]
    if view["over"]:
        best = max(view["scores"]) if view["scores"] else 0
        won = [o for o in view["owners"] if not o["neutral"] and o["score"]["total"] == best]
        draw.rounded_rectangle(box, 10, fill=(255, 246, 200), outline=HIGHLIGHT, width=3)
        names_won = ", ".join(_owner_title(o, names, text) for o in won)
        key = "board.tied" if len(won) > 1 else "board.winner"
        draw_text(draw, (MARGIN + 4, y + 12), label(text, key, names=names_won, n=best), size=24,
                  bold=True, max_width=BOARD_W - 2 * MARGIN - 8)
        return y + NOW_H
    if seat is None:
        draw.rounded_rectangle(box, 10, fill=PANEL, outline=LINE)
        draw_text(draw, (MARGIN + 4, y + 12), label(text, "board.doing_chance"), size=22, bold=True,
                  max_width=BOARD_W - 2 * MARGIN - 8)
        return y + NOW_H
    owner = _owner_of(view, seat)
    draw.rounded_rectangle(box, 10, fill=(255, 246, 200), outline=HIGHLIGHT, width=3)
    badge(draw, (MARGIN + 4, y + 10), seat, 32)
    draw_text(draw, (MARGIN + 46, y + 10), _owner_title(owner, names, text), size=26, bold=True,
              max_width=BOARD_W - 2 * MARGIN - 56)
    size, lines = _lines(_doing(view, text), 21, BOARD_W - 2 * MARGIN - 56, 1)
    draw_text(draw, (MARGIN + 46, y + 48), lines[0], size=size)
    return y + NOW_H


def _chips(view: PublicView, text: TextFormatter | None, goods: Sequence[str], widest: bool = False) -> list[list[str]]:
    """Each wheel good's chip "Name value" laid out in rows across the board (``widest``: every
    value as wide as the wheel's largest, for the room to reserve)."""
    by_good = {e["good"]: e["value"] for e in view["wheel"]}
    if widest:
        by_good = dict.fromkeys(goods, max(MODES[view["mode"]].wheel))
    inner = BOARD_W - 2 * MARGIN
    rows: list[list[str]] = [[]]
    used = 0.0
    for g in goods:
        chip = f"{good_name(text, g)} {by_good.get(g, 0)}"
        w = text_width(chip, CHIP_SIZE) + 22
        if rows[-1] and used + w > inner:
            rows.append([])
            used = 0.0
        rows[-1].append(chip)
        used += w
    return rows


def _wheel_goods(view: PublicView) -> list[str]:
    order = {g: i for i, g in enumerate(GOODS)}
    return sorted((e["good"] for e in view["wheel"]), key=lambda g: (order.get(g, len(order)), g))


def _wheel_rows(view: PublicView, text: TextFormatter | None) -> int:
    """Rows the wheel's chips may need in this game: every indicator of the game's variant
    (the ones still to enter included), so the board keeps its height."""
    everyone = _wheel_goods(view) + [e["good"] for e in view["entering"]]
    if view["variant"] == "france" and "grapes" not in everyone and view["mode"] != "solo":
        everyone.append("grapes")
    if "stone" not in everyone and view["mode"] != "solo":
        everyone.append("stone")
    order = {g: i for i, g in enumerate(GOODS)}
    everyone = sorted(set(everyone), key=lambda g: (order.get(g, len(order)), g))
    return max(1, len(_chips(view, text, everyone, widest=True)))


def _wheel_chips(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFormatter | None) -> int:
    draw_text(draw, (MARGIN, y), label(text, "board.wheel", side=_term(f"wheel.{view['wheel_side']}")), size=21,
              bold=True, max_width=BOARD_W - 2 * MARGIN)
    y += 32
    rows = _chips(view, text, _wheel_goods(view))
    for row in rows:
        x = float(MARGIN)
        for chip in row:
            w = text_width(chip, CHIP_SIZE) + 14
            joker = chip.startswith(good_name(text, "joker") + " ")
            draw.rounded_rectangle((x, y, x + w, y + CHIP_H - 4), 8, fill=(255, 236, 160) if joker else WHITE,
                                   outline=INK)
            draw_text(draw, (x + 7, y + (CHIP_H - 4) / 2), chip, size=CHIP_SIZE, anchor="lm")
            x += w + 8
        y += CHIP_H
    y += (_wheel_rows(view, text) - len(rows)) * CHIP_H
    kind = "turn" if view["unit_kind"] == "turn" else "round"
    entering = [label(text, f"board.enters_{kind}", good=_term(f"good.{e['good']}"), n=e["unit"])
                for e in view["entering"]]
    if entering:
        size, lines = _lines(" · ".join(entering), 17, BOARD_W - 2 * MARGIN, 1)
        draw_text(draw, (MARGIN, y + 2), lines[0], size=size, fill=MUTED)
    return y + 34


def _piles(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFormatter | None) -> int:
    """Districts and plots: each pile's prices, the ones taken crossed out, the next in yellow."""
    mode = MODES[view["mode"]]
    heads = [label(text, f"board.{pile}s") for pile in ("district", "plot")]
    px0 = MARGIN + max(int(text_width(h, 20, True)) for h in heads) + 14
    for (pile, prices), head in zip((("district", mode.districts), ("plot", mode.plots)), heads, strict=True):
        taken = len(prices) - view["piles"][pile]["left"]
        draw_text(draw, (MARGIN, y + 3), head, size=20, bold=True)
        px = px0
        for i, p in enumerate(prices):
            box = (px, y, px + 32, y + 32)
            if i < taken:
                draw.rectangle(box, fill=WHITE, outline=LINE)
                draw_text(draw, (px + 16, y + 16), str(p), size=17, fill=MUTED, anchor="mm")
                draw.line((px + 3, y + 29, px + 29, y + 3), fill=MUTED, width=2)
            else:
                nxt = i == taken
                draw.rectangle(box, fill=HIGHLIGHT if nxt else PANEL, outline=INK if nxt else LINE,
                               width=2 if nxt else 1)
                draw_text(draw, (px + 16, y + 16), str(p), size=18, bold=nxt, anchor="mm")
            px += 36
        y += 40
    return y + 6


def _seat_codes(view: PublicView) -> list[str]:
    """The letters of the seats' badges and clergymen (``N`` the neutral player's): each badge
    stands beside its owner's name, and the clergy key (``board.legend``) says whose a token is."""
    return [SEAT_LETTERS[o["seat"]] if not o["neutral"] else "N" for o in view["owners"]]


def _scores(draw: ImageDraw.ImageDraw, view: PublicView, y: int, names: Sequence[str],
            text: TextFormatter | None) -> int:
    """Each seat: badge, name, points; under it clergy at home, coins and the score's parts."""
    seats = [o for o in view["owners"] if not o["neutral"]]
    legend(_seat_codes(view))
    head = label(text, "board.score")
    draw_text(draw, (MARGIN, y), head, size=21, bold=True)
    hw = text_width(head, 21, True) + 16
    ks, key_lines = _lines(label(text, "board.score_key"), 16, BOARD_W - 2 * MARGIN - hw, 1)
    draw_text(draw, (BOARD_W - MARGIN, y + 4), key_lines[0], size=ks, fill=MUTED, anchor="ra")
    y += 32
    moving = view["pending"]["seat"]
    for o in seats:
        sc = o["score"]
        if o["seat"] == moving and not view["over"]:
            draw.rounded_rectangle((MARGIN - 6, y - 4, BOARD_W - MARGIN + 6, y + SCORE_ROW - 6), 8,
                                   fill=(255, 246, 200))
        badge(draw, (MARGIN, y), o["seat"], 28)
        points = label(text, "board.pts", n=sc["total"])
        pw = text_width(points, 24, True)
        draw_text(draw, (BOARD_W - MARGIN, y), points, size=24, bold=True, anchor="ra")
        draw_text(draw, (MARGIN + 38, y + 1), _owner_title(o, names, text), size=22, bold=True,
                  max_width=BOARD_W - 2 * MARGIN - 48 - pw)
        coins = label(text, "board.coins", n=o["goods"].get("coin", 0))
        parts = label(text, "board.parts", sum=sum_text([sc["goods"], sc["economic"], sc["settlements"]]))
        line = f"{_home_text(o, text)} · {coins} · {parts}"
        size, lines = _lines(line, 17, BOARD_W - 2 * MARGIN - 38, 1)
        draw_text(draw, (MARGIN + 38, y + 32), lines[0], size=size, fill=MUTED)
        y += SCORE_ROW
    return y + 4


def _look(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFormatter | None) -> int:
    """The key to the parts one tap away (the "Look at…" select of the board message)."""
    stages = " · ".join(f"{_stage_name(text, stage)} {len(ids)}" for stage, ids in _stages(view["display"]))
    line = label(text, "board.look", n=len(view["display"]), stages=stages or label(text, "board.empty"))
    size, lines = _lines(line, 17, BOARD_W - 2 * MARGIN, 2)
    for i, part in enumerate(lines):
        draw_text(draw, (MARGIN, y + 4 + i * 24), part, size=size, fill=MUTED)
    return y + 4 + 2 * 24 + 8


def board_height(view: PublicView, text: TextFormatter | None) -> int:
    """The board's height: the same for every position of one game (rows reserved for every
    wheel indicator of the game and every seat)."""
    seats = sum(1 for o in view["owners"] if not o["neutral"])
    return (36 + 42 + HEAD_LINES * 25 + 6 + 64 + NOW_H + 32 + _wheel_rows(view, text) * CHIP_H + 34 + 86
            + 32 + seats * SCORE_ROW + 4 + 60)


def _stage_name(text: TextFormatter | None, stage: str) -> str:
    return label(text, "board.start_buildings") if stage == "start" else label(text, "board.stage", stage=stage)


# --------------------------------------------------------------------------- zoom regions


def zoom_regions(view: PublicView) -> list[tuple[str, Msg]]:
    """The parts of the board one tap away (``render_zoom``), each as (region key, label): the
    reader's landscape first when the view is a seat's, every other landscape, the building
    display stage by stage, and the production wheel."""
    mine = view.get("seat")
    out: list[tuple[str, Msg]] = []
    owners = sorted(view["owners"], key=lambda o: o["seat"] != mine)
    for o in owners:
        if o["seat"] == mine:
            out.append((f"land:{o['seat']}", msg("zoom.land_mine")))
        elif o["neutral"]:
            out.append((f"land:{o['seat']}", msg("zoom.land_neutral")))
        else:
            out.append((f"land:{o['seat']}", msg("zoom.land", owner=seat_ref(o["seat"]))))
    for stage, ids in _stages(view["display"]):
        key = "zoom.display_start" if stage == "start" else "zoom.display_stage"
        out.append((f"display:{stage}", msg(key, stage=stage, n=len(ids))))
    out.append(("wheel", msg("zoom.wheel")))
    return out


def render_zoom(view: PublicView, region: str, *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image:
    """One region of ``zoom_regions`` drawn at phone size (``ZOOM_W`` px wide, text ≥ 18 px).

    Raises:
        KeyError: no such region in this view.
    """
    kind, _, arg = region.partition(":")
    if kind == "land" and arg.lstrip("-").isdigit() and any(o["seat"] == int(arg) for o in view["owners"]):
        return render_owner(view, int(arg), names=names, text=text)
    if kind == "display" and any(stage == arg for stage, _ in _stages(view["display"])):
        return _display_zoom(view, arg, text)
    if kind == "wheel" and not arg:
        return _wheel_zoom(view, text)
    raise KeyError(region)


ENTRY_H = 128


def _display_zoom(view: PublicView, stage: str, text: TextFormatter | None) -> Image.Image:
    """The buildings of one stage of the display, one card a row: id and name (wrapped, never
    cut), E/D values, cost and terrain, and the function."""
    ids = next(ids for s, ids in _stages(view["display"]) if s == stage)
    inner = ZOOM_W - 2 * MARGIN
    cards = []
    for bid in ids:
        b = BUILDINGS[bid]
        meta = label(text, "board.values", e=signed(b.economic), d=signed(b.dwelling))
        head = f"{bid} {building_name(text, bid)}" + (" ✚" if b.cloister else "")
        hs, head_lines = _lines(head, 22, inner - 24 - text_width(meta, 19, True) - 12, 2, bold=True)
        cost = label(text, "board.cost", cost=_cost_text(bid, text), terrain=_terrains(text, b.terrain))
        cs, cost_lines = _lines(cost, 19, inner - 24, 2)
        es, effect_lines = _lines(effect_line(text, bid), 19, inner - 24, 3)
        h = 12 + len(head_lines) * (hs + 6) + 4 + len(cost_lines) * (cs + 6) + len(effect_lines) * (es + 6) + 10
        cards.append((bid, b.cloister, meta, (hs, head_lines), (cs, cost_lines), (es, effect_lines), h))
    title = label(text, "zoom.display_title", stage=_stage_name(text, stage), n=len(ids))
    height = 14 + 40 + 30 + sum(c[-1] + 10 for c in cards) + 10
    img, draw = canvas(height, ZOOM_W)
    draw_text(draw, (MARGIN, 12), title, size=26, bold=True, max_width=inner)
    ks, key_lines = _lines(label(text, "board.display_key"), 18, inner, 1)
    draw_text(draw, (MARGIN, 52), key_lines[0], size=ks, fill=MUTED)
    y = 14 + 40 + 30
    for _bid, cloister, meta, (hs, hl), (cs, cl), (es, el), h in cards:
        draw.rounded_rectangle((MARGIN, y, ZOOM_W - MARGIN, y + h), 8, fill=CLOISTER_FILL if cloister else WHITE,
                               outline=LINE)
        draw_text(draw, (ZOOM_W - MARGIN - 12, y + 12), meta, size=19, bold=True, anchor="ra")
        ty = y + 12
        for line in hl:
            draw_text(draw, (MARGIN + 12, ty), line, size=hs, bold=True)
            ty += hs + 6
        ty += 4
        for line in cl:
            draw_text(draw, (MARGIN + 12, ty), line, size=cs, fill=MUTED)
            ty += cs + 6
        for line in el:
            draw_text(draw, (MARGIN + 12, ty), line, size=es)
            ty += es + 6
        y += h + 10
    return img


def _wheel_zoom(view: PublicView, text: TextFormatter | None) -> Image.Image:
    """The production wheel space by space (§2.3): each space's value and the indicators on it
    (0 is where a used indicator goes; every rotation moves them one space on)."""
    values = MODES[view["mode"]].wheel
    by_age: dict[int, list[str]] = {}
    for entry in view["wheel"]:
        by_age.setdefault(entry["age"], []).append(entry["good"])
    inner = ZOOM_W - 2 * MARGIN
    rows = []
    for age in range(13):
        chips = [good_name(text, g) for g in by_age.get(age, [])]
        lines: list[list[str]] = [[]]
        used = 0.0
        for chip in chips:
            w = text_width(chip, 19) + 22
            if lines[-1] and used + w > inner - 120:
                lines.append([])
                used = 0.0
            lines[-1].append(chip)
            used += w
        rows.append((age, lines))
    heights = [max(44, 8 + len(lines) * 36) for _, lines in rows]
    height = 14 + 40 + 34 + sum(heights) + 16
    img, draw = canvas(height, ZOOM_W)
    draw_text(draw, (MARGIN, 12), label(text, "board.wheel", side=_term(f"wheel.{view['wheel_side']}")), size=26,
              bold=True, max_width=inner)
    ks, key_lines = _lines(label(text, "zoom.wheel_key"), 18, inner, 1)
    draw_text(draw, (MARGIN, 54), key_lines[0], size=ks, fill=MUTED)
    y = 14 + 40 + 34
    for (age, lines), h in zip(rows, heights, strict=True):
        draw.rectangle((MARGIN, y, ZOOM_W - MARGIN, y + h - 4), fill=PANEL, outline=LINE)
        draw_text(draw, (MARGIN + 10, y + (h - 4) / 2), str(age), size=18, fill=MUTED, anchor="lm")
        draw_text(draw, (MARGIN + 84, y + (h - 4) / 2), str(values[age]), size=26, bold=True, anchor="rm")
        cy = y + 6
        for line in lines:
            x = float(MARGIN + 110)
            for chip in line:
                w = text_width(chip, 19) + 14
                fill = (255, 236, 160) if chip == good_name(text, "joker") else WHITE
                draw.rounded_rectangle((x, cy, x + w, cy + 30), 8, fill=fill, outline=INK)
                draw_text(draw, (x + 7, cy + 15), chip, size=19, anchor="lm")
                x += w + 8
            cy += 36
        y += h
    return img


# --------------------------------------------------------------------------- decision picture


def draws_decision(view: PrivateView) -> bool:
    """Whether ``render_decision`` draws a picture: the seat's pending decision picks places of
    a landscape (``view["targets"]``)."""
    return bool(view.get("targets"))


def render_decision(view: PrivateView, *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image | None:
    """The numbered picture of the seat's pending decision: each landscape with a numbered
    place (``targets``, the numbers of the labels "N · …"), cropped to its spaces, every
    candidate ringed in yellow with its number; None when the decision picks no place."""
    marks = view.get("targets") or []
    if not marks:
        return None
    by_owner: dict[int, dict[tuple[int, int], int]] = {}
    slots: dict[int, list[TargetView]] = {}
    for t in marks:
        by_owner.setdefault(t["owner"], {})[(t["x"], t["y"])] = t["n"]
        if t.get("slot"):
            slots.setdefault(t["owner"], []).append(t)
    inner = ZOOM_W - 2 * MARGIN
    panels = []
    for seat, numbers in by_owner.items():
        owner = _with_slots(_owner_of(view, seat), slots.get(seat, []))
        cell = _zoom_cell(owner)
        gw, gh = grid_size(owner, cell)
        shown = [s["piece"] for s in owner["spaces"]  # (the pieces not named in their cells: draw_landscape)
                 if s["piece"] and ((s["x"], s["y"]) not in numbers or not _cell_name(text, s["piece"], cell))]
        key = wrap_text(label(text, "zoom.slots"), 18, inner) if seat in slots else []
        if shown:
            key += wrap_text(" · ".join(f"{p} {piece_name(text, p)}" for p in shown), 18, inner)
        panels.append((owner, numbers, cell, gw, gh + len(key) * 24 + (6 if key else 0), key))
    ts, title_lines = _lines(label(text, "zoom.pick_number"), 22, inner, 2, bold=True)
    head = 14 + len(title_lines) * (ts + 8)
    height = head + sum(50 + h + 16 for _, _, _, _, h, _ in panels) + 8
    img, draw = canvas(height, ZOOM_W)
    for i, line in enumerate(title_lines):
        draw_text(draw, (MARGIN, 12 + i * (ts + 8)), line, size=ts, bold=True)
    y = head
    for owner, numbers, cell, gw, h, key in panels:
        neutral = owner["neutral"]
        legend([s["piece"] for s in owner["spaces"] if s["piece"]] + _seat_codes(view))  # (named in cells or key)
        badge(draw, (MARGIN, y + 6), None if neutral else owner["seat"], 30)
        draw_text(draw, (MARGIN + 40, y + 7), _owner_title(owner, names, text), size=22, bold=True,
                  max_width=inner - 40)
        ox = max(MARGIN, (ZOOM_W - gw) // 2)
        draw_landscape(draw, owner, ox, y + 46, cell, text, detail=False, numbers=numbers, axes=False)
        ky = y + 46 + h - len(key) * 24
        for line in key:
            draw_text(draw, (MARGIN, ky), line, size=18, fill=MUTED)
            ky += 24
        y += 50 + h + 16
    return img


def _with_slots(owner: PlayerView, marks: Sequence[TargetView]) -> PlayerView:
    """``owner`` with the spaces of the numbered slots ``marks`` (``TargetView.slot``: where a
    district or plot would go) added as ``SLOT`` spaces, each space once."""
    if not marks:
        return owner
    taken = {(s["x"], s["y"]) for s in owner["spaces"]}
    extra: list[SpaceView] = []
    for t in marks:
        for dx, dy in SLOT_CELLS[str(t["slot"])]:
            xy = (t["x"] + dx, t["y"] + dy)
            if xy not in taken:
                taken.add(xy)
                extra.append({"x": xy[0], "y": xy[1], "terrain": SLOT, "card": None, "piece": None, "clergy": []})
    spaces = sorted([*owner["spaces"], *extra], key=lambda s: (s["y"], s["x"]))
    return cast("PlayerView", {**owner, "spaces": spaces})


# --------------------------------------------------------------------------- owner image


# --------------------------------------------------------------------------- thumbnail


THUMB_W = 550
"""Width (px) of ``render_thumbnail``: bot/render_pool.py ``THUMBNAIL_WIDTH`` (a DM turn notice sends it as
drawn)."""
THUMB_PAD = 12


def render_thumbnail(view: PublicView, *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image:
    """The board's summary for a DM turn notice (``PublicView``), drawn at ``THUMB_W`` px (the
    whole board scaled to 480 px wide had 4–12 px type): the title, the round or turn and the
    next settlement phase, the production wheel as each good's value now, and every seat's
    points, clergy at home and coins, the seat to move on a yellow row. Type 17–22 px (12–15 px
    on a phone). The full board is in the board message."""
    seats = [o for o in view["owners"] if not o["neutral"]]
    order = {g: i for i, g in enumerate(GOODS)}
    wheel = sorted(view["wheel"], key=lambda e: (order.get(e["good"], len(order)), e["good"]))
    chips = [f"{good_name(text, e['good'])} {e['value']}" for e in wheel]
    inner = THUMB_W - 2 * THUMB_PAD
    rows: list[list[str]] = [[]]
    used = 0.0
    for chip in chips:
        w = text_width(chip, 18) + 20
        if rows[-1] and used + w > inner:
            rows.append([])
            used = 0.0
        rows[-1].append(chip)
        used += w
    height = 12 + 32 + 30 + 28 + 34 + 30 * len(rows) + 8 + 32 + 58 * len(seats) + 8
    img, draw = canvas(height, THUMB_W)
    y = 10
    draw_text(draw, (THUMB_PAD, y), _title(view, text), size=20, bold=True, max_width=inner)
    y += 32
    regular = view["regular_units"]
    when = _unit_label(text, view, view["unit"], "_of" if regular else "")
    if view["bonus_round"]:
        when = label(text, "board.bonus_round", n=view["unit"])
    if view["over"]:
        when = label(text, "board.over")
    draw_text(draw, (THUMB_PAD, y), when, size=22, bold=True, max_width=inner)
    y += 30
    parts = [label(text, "board.contract", price=view["contract_price"])]
    if view["next_phase"]:
        parts.insert(0, _unit_label(text, view, view["next_phase"]["unit"], "_phase",
                                    letter=view["next_phase"]["letter"]))
    if view["last_turn"]:
        parts.insert(0, label(text, "board.last_turn"))
    draw_text(draw, (THUMB_PAD, y), " · ".join(parts), size=17, fill=MUTED, max_width=inner)
    y += 28
    draw_text(draw, (THUMB_PAD, y), label(text, "board.wheel", side=_term(f"wheel.{view['wheel_side']}")),
              size=18, bold=True, max_width=inner)
    y += 30
    for row in rows:
        x = float(THUMB_PAD)
        for chip in row:
            w = text_width(chip, 18) + 14
            draw.rounded_rectangle((x, y, x + w, y + 26), 6, fill=WHITE, outline=INK)
            draw_text(draw, (x + 7, y + 13), chip, size=18, anchor="lm")
            x += w + 6
        y += 30
    y += 8
    draw_text(draw, (THUMB_PAD, y), label(text, "board.score"), size=18, bold=True)
    y += 32
    moving = (view.get("pending") or {}).get("seat")
    legend(_seat_codes(view))
    for o in seats:
        box = (THUMB_PAD - 4, y - 4, THUMB_W - THUMB_PAD + 4, y + 50)
        if o["seat"] == moving and not view["over"]:
            draw.rounded_rectangle(box, 8, fill=(255, 246, 200), outline=HIGHLIGHT, width=3)
        badge(draw, (THUMB_PAD, y), o["seat"], 26)
        points = label(text, "board.pts", n=o["score"]["total"])
        pw = text_width(points, 22, True)
        draw_text(draw, (THUMB_W - THUMB_PAD, y + 1), points, size=22, bold=True, anchor="ra")
        draw_text(draw, (THUMB_PAD + 34, y + 1), _owner_title(o, names, text), size=20, bold=True,
                  max_width=inner - 34 - pw - 10)
        coins = label(text, "board.coins", n=o["goods"].get("coin", 0))
        draw_text(draw, (THUMB_PAD + 34, y + 28), f"{_home_text(o, text)} · {coins}", size=17, fill=MUTED,
                  max_width=inner - 34)
        y += 58
    return img.crop((0, 0, THUMB_W, min(height, y + 6)))


# --------------------------------------------------------------------------- private


def _owner_of(view: PublicView, seat: int) -> PlayerView:
    return next(o for o in view["owners"] if o["seat"] == seat)


def render_owner(view: PublicView, seat: int, *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image:
    """One owner's landscape at phone size (``ZOOM_W`` px wide, text ≥ 18 px): name, points and
    their parts, clergy at home, the landscape (ids, names where the cell holds them, clergy
    along the bottom of a space, never over a name), a legend naming every piece not named in
    its cell, the goods (every good of the variant, zeros greyed) and the settlements in supply."""
    owner = _owner_of(view, seat)
    cell = _zoom_cell(owner)
    gw, gh = grid_size(owner, cell)
    neutral = owner["neutral"]
    inner = ZOOM_W - 2 * MARGIN
    unnamed = [s["piece"] for s in owner["spaces"] if s["piece"] and not _cell_name(text, s["piece"], cell)]
    named = " · ".join(f"{p} {piece_name(text, p)}" for p in unnamed)
    legend_lines = _break(named, 18, inner) if named else []
    supply_lines: list[str] = []
    for s in owner["supply"]:
        card = SETTLEMENTS[s]
        supply_lines += _break(label(text, "board.supply_line", s=_term(f"settlement.{s}"), food=card.food,
                                     energy=card.energy, e=signed(card.economic), d=signed(card.dwelling),
                                     terrain=_terrains(text, card.terrain)), 18, inner)
    goods_rows = (len(owner["goods"]) + 2) // 3
    home = f"{_home_text(owner, text)} · {_unit_label(text, view, view['unit'])}"
    hs, home_lines = _lines(home, 18, inner, 2)
    ls, legend_key = _lines(label(text, "board.legend"), 18, inner, 2)
    head = 56 + (34 if not neutral else 0) + len(home_lines) * 24 + len(legend_key) * 24 + 8
    height = (head + gh + 14 + len(legend_lines) * 24 + 10
              + (40 + goods_rows * 30 + 12 + 40 + len(supply_lines) * 24 if not neutral else 0) + 12)
    img, draw = canvas(height, ZOOM_W)
    legend([s["piece"] for s in owner["spaces"] if s["piece"]] + _seat_codes(view))
    badge(draw, (MARGIN, 12), None if neutral else seat, 34)
    points = "" if neutral else label(text, "board.points", n=owner["score"]["total"])
    pw = text_width(points, 26, True) if points else 0
    draw_text(draw, (MARGIN + 44, 13), _owner_title(owner, names, text), size=26, bold=True,
              max_width=inner - 44 - pw - 12)
    y = 56
    if not neutral:
        sc = owner["score"]
        draw_text(draw, (ZOOM_W - MARGIN, 13), points, size=26, bold=True, anchor="ra")
        bs, parts = _lines(label(text, "board.breakdown", goods=sc["goods"], economic=sc["economic"],
                                 settlements=signed(sc["settlements"])), 18, inner, 1)
        draw_text(draw, (MARGIN, y), parts[0], size=bs)
        y += 34
    for line in home_lines:
        draw_text(draw, (MARGIN, y), line, size=hs, fill=MUTED)
        y += 24
    for line in legend_key:
        draw_text(draw, (MARGIN, y), line, size=ls, fill=MUTED)
        y += 24
    y += 8
    draw_landscape(draw, owner, max(MARGIN, (ZOOM_W - gw) // 2), y, cell, text, detail=True)
    y += gh + 14
    for line in legend_lines:
        draw_text(draw, (MARGIN, y), line, size=18)
        y += 24
    y += 10
    if not neutral:
        draw_text(draw, (MARGIN, y), label(text, "board.goods"), size=22, bold=True)
        y += 40
        y += goods_grid(draw, owner["goods"], MARGIN, y, inner, 3, text, zeros=True, size=18) + 12
        draw_text(draw, (MARGIN, y), label(text, "board.supply_title_short"), size=22, bold=True,
                  max_width=inner)
        y += 40
        for line in supply_lines:
            draw_text(draw, (MARGIN, y), line, size=18)
            y += 24
    return img


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image:
    """The seat's own image (``PrivateView``): ``render_owner`` of ``view["seat"]``."""
    return render_owner(view, view["seat"], names=names, text=text)


__all__ = ["building_name", "draw_landscape", "draws_decision", "effect_line", "good_name", "goods_grid",
           "render_board", "render_decision", "render_owner", "render_private", "render_thumbnail", "render_zoom",
           "zoom_regions"]
