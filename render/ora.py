"""Ora et Labora images (spec docs/rules/ora.md §11), phone-first at ``render.base.WIDTH``.

* ``render_board`` — the shared board: the timeline (round or turn, start player, settlement
  phases, bonus round, work-contract price), the production wheel as a 13-space strip with each
  space's value and the indicators on it, the landscape piles with their price rows, the live
  score table, the building display by stage (cost, E/D, terrain, cloister mark, one-line
  function), a key to the id letters on the board (``G`` shared, ``F`` France, …) and one compact
  landscape per owner (coordinates, cards, buildings, settlements, clergy, goods).
* ``render_thumbnail`` — the board's summary for a DM turn notice, 550 px wide (THUMBNAIL_WIDTH): round, next
  phase, each good's wheel value, every seat's points, clergy at home and coins.
* ``render_private`` — one owner's large landscape with names, every good of the variant in a
  grid (zeros greyed), the settlement cards in supply with their costs and the score breakdown.
  Nothing is hidden in this game (§7): it is the seat's own "My view".

Input: ``engines.ora.view.PublicView`` / ``PrivateView``; names, costs, wheel values and
price rows from ``engines.ora.data``; building, good and settlement names and the one-line
functions through the ``text`` formatter (catalog ``term.*`` and ``effect.<id>``) when given.
Seats are told apart by colour and letter; a prior is a round token, a lay brother a square.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from PIL import Image, ImageDraw

from engines.ora.data import BUILDINGS, GOODS, MODES, PHASES, SETTLEMENTS
from engines.ora.view import PlayerView, PrivateView, PublicView
from render.base import (
    BG,
    HIGHLIGHT,
    INK,
    LINE,
    MUTED,
    PANEL,
    SEAT_LETTERS,
    WHITE,
    WIDTH,
    canvas,
    draw_text,
    fit_text,
    seat_colour,
    text_width,
    tile,
)

TextFn = Callable[[Any], str]
RGB = tuple[int, int, int]

MARGIN = 16
TERRAIN_COLOURS: dict[str, RGB] = {
    "water": (120, 170, 215), "coast": (232, 216, 160), "plains": (196, 222, 156),
    "hillside": (212, 186, 140), "mountain": (150, 142, 138)}
FOREST = (46, 110, 52)
MOOR = (110, 80, 52)
BUILDING_FILL = (252, 248, 236)
CLOISTER_FILL = (236, 230, 250)
SETTLEMENT_FILL = (255, 222, 196)
NEUTRAL_COLOUR = (120, 120, 128)
MEMO_TEXTS = False
"""No ``render.registry.OneImageTexts`` for Ora's images: one A/B run found it slower (7.3 against 6.6 ms
a board over 60 boards), within the noise of this shared machine (the same code twice differed by 0.5 ms);
off until measured in a quiet window."""
COLUMN_KEYS = {-2: "board.col_water", -1: "board.col_coast", 5: "board.col_hillside", 6: "board.col_mountain"}
"""Column labels of §11: water, coast, hillside and mountain columns carry their letter
(catalog ``board.col_*``, e.g. "W {x}")."""


# --------------------------------------------------------------------------- text


def _say(text: TextFn | None, key: str, default: str) -> str:
    """The catalog's ``term.<key>`` through ``text`` (``host.notation`` passes a value on), or
    ``default`` (a name from the data files) without a formatter."""
    if text is None:
        return default
    return text({"msg": "host.notation", "params": {"text": {"term": key}}})


def label(text: TextFn | None, key: str, **params: Any) -> str:
    """A board label: the catalog message ``key`` (``board.*`` in bot/text/en/ora.toml) with
    ``params`` (numbers, ``{"term": ..}``, nested message JSON) through ``text``; without a
    formatter the key itself (tests only: the host always passes one)."""
    return key if text is None else text({"msg": key, "params": params})


def _term(key: str) -> dict[str, str]:
    return {"term": key}


def _goods_param(goods: dict[str, int]) -> list[dict[str, Any]]:
    return [{"msg": "goods.item", "params": {"n": n, "good": _term(f"good.{g}")}} for g, n in goods.items() if n]


def _terrains(text: TextFn | None, terrains: Sequence[str]) -> str:
    return "/".join(_say(text, f"terrain.{t}", t) for t in terrains)


def _unit_label(text: TextFn | None, view: PublicView, n: int, key: str = "", **params: Any) -> str:
    """``board.round`` / ``board.turn`` of unit ``n`` (``key`` ``_of``: with the total of
    regular units; ``_phase``: a settlement phase ``letter`` at that unit)."""
    kind = "turn" if view["unit_kind"] == "turn" else "round"
    return label(text, f"board.{kind}{key}", n=n, total=view["regular_units"] or 0, **params)


def building_name(text: TextFn | None, bid: str) -> str:
    """A building's name (catalog ``term.building.<id>``)."""
    return _say(text, f"building.{bid}", BUILDINGS[bid].name)


def good_name(text: TextFn | None, good: str) -> str:
    """A good's name (catalog ``term.good.<id>``)."""
    return _say(text, f"good.{good}", "Joker" if good == "joker" else GOODS[good].name)


def piece_name(text: TextFn | None, piece: str) -> str:
    """A building's or settlement's name."""
    if piece in BUILDINGS:
        return building_name(text, piece)
    return _say(text, f"settlement.{piece}", SETTLEMENTS[piece].name)


def effect_line(text: TextFn | None, bid: str) -> str:
    """The one-line function of a building (catalog ``effect.<id>``; the handler without one)."""
    if text is None:
        return BUILDINGS[bid].handler
    return text({"msg": f"effect.{bid}", "params": {}})


def _owner_title(owner: PlayerView, names: Sequence[str], text: TextFn | None) -> str:
    if owner["neutral"]:
        return label(text, "board.neutral")
    seat = owner["seat"]
    if seat < len(names) and names[seat]:
        return names[seat]
    return label(text, "host.seat", letter=SEAT_LETTERS[seat])


def _wrap(line: str, size: int, width: float, lines: int) -> list[str]:
    """``line`` broken at spaces (between any two characters of a CJK name) into at most
    ``lines`` lines of ``width`` px (the last one shortened with '…')."""
    words = line.split() if " " in line or line.isascii() else list(line)
    joiner = " " if " " in line or line.isascii() else ""
    out: list[str] = []
    cur = ""
    for w in words:
        trial = f"{cur}{joiner}{w}" if cur else w
        if text_width(trial, size) <= width or not cur:
            cur = trial
        else:
            out.append(cur)
            cur = w
    if cur:
        out.append(cur)
    if len(out) > lines:
        out = out[:lines - 1] + [joiner.join(out[lines - 1:])]
    return [fit_text(s, size, width) for s in out]


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
    return 34 + (x1 - x0 + 1) * cell, 22 + (y1 - y0 + 1) * cell


def draw_landscape(draw: ImageDraw.ImageDraw, owner: PlayerView, ox: int, oy: int, cell: int,
                   text: TextFn | None, *, detail: bool, bg: RGB = WHITE) -> None:
    """An owner's landscape (§2.4) with x labels on top (W/C/H/M columns lettered) and y labels
    on the left; ``detail`` adds names and E/D to pieces (the large private image). ``bg``: the
    colour the landscape is drawn on (a space with a piece is a ``render.base.tile``)."""
    x0, x1, y0, y1 = _extent(owner)
    gx, gy = ox + 34, oy + 22
    for col in range(x0, x1 + 1):
        head = label(text, COLUMN_KEYS[col], x=col) if cell >= 60 and col in COLUMN_KEYS else str(col)
        draw_text(draw, (gx + (col - x0) * cell + cell / 2, oy + 18), head, size=14 if cell < 60 else 16,
                  fill=MUTED, anchor="ms", bold=True)
    for row in range(y0, y1 + 1):
        draw_text(draw, (ox + 28, gy + (row - y0) * cell + cell / 2), str(row), size=14 if cell < 60 else 16,
                  fill=MUTED, anchor="rm", bold=True)
    neutral = owner["seat"] if owner["neutral"] else None
    for s in owner["spaces"]:
        piece = s["piece"]
        lines: tuple[str, ...] = ()
        if piece:
            lines = tuple(_wrap(piece_name(text, piece), 16 if detail else 13, cell - 10, 2))
            if detail:
                info = BUILDINGS.get(piece)
                e, d = (info.economic, info.dwelling) if info else (SETTLEMENTS[piece].economic,
                                                                     SETTLEMENTS[piece].dwelling)
                lines += (label(text, "board.values", e=signed(e), d=signed(d)),)
        clergy = tuple((c["seat"], c["kind"], c["seat"] == neutral) for c in s["clergy"])
        paint = partial(_space, s["terrain"], s["card"], piece, clergy, cell, detail, lines)
        xy = (gx + (s["x"] - x0) * cell, gy + (s["y"] - y0) * cell)
        if not piece:  # (a space without a piece is cheap, and its shapes' float corners round by position)
            paint(draw, *xy)
            continue
        tall = cell * (2 if s["terrain"] == "mountain" else 1)  # (the piece covers every shape under it)
        tile(draw, xy, (cell, tall), ("ora.space", s["terrain"], s["card"], piece, clergy, cell, detail, lines), paint, bg)


def _space(terrain: str, card: str | None, piece: str | None, clergy: tuple[tuple[int, str, bool], ...],
           cell: int, detail: bool, lines: tuple[str, ...], draw: ImageDraw.ImageDraw, cx: int, cy: int) -> None:
    """A landscape space at (``cx``, ``cy``): its terrain, card, piece (``lines``: the piece's name
    wrapped, then with ``detail`` its E/D label) and clergy (seat, kind, neutral); with a piece, a
    ``render.base.tile`` of ``cell`` × its height (the piece's card covers the terrain's shapes, whose
    float corners would round otherwise at another position)."""
    tall = cell * (2 if terrain == "mountain" else 1)
    box = (cx, cy, cx + cell - 2, cy + tall - 2)
    draw.rectangle(box, fill=TERRAIN_COLOURS[terrain], outline=LINE)
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
        pb = (cx + 3, cy + 3, cx + cell - 5, cy + tall - 5)
        draw.rectangle(pb, fill=fill, outline=INK, width=2 if info is None else 1)
        id_size = 14 if cell < 70 else 18
        draw_text(draw, (cx + cell / 2, cy + 5), piece, size=id_size, bold=True, anchor="ma")
        size = 16 if detail else 13
        top = cy + (27 if detail else 21)
        names = lines[:-1] if detail else lines
        for i, ln in enumerate(names):
            draw_text(draw, (cx + cell / 2, top + i * (size + 2)), ln, size=size, anchor="ma")
        if detail:
            draw_text(draw, (cx + cell - 8, cy + tall - 8), lines[-1], size=14, fill=MUTED, anchor="rd")
    r = max(6, cell // 8)
    for i, (seat, kind, neutral) in enumerate(clergy):
        clergy_token(draw, cx + r + 5 + i * (2 * r + 3), cy + tall - r - 6, seat, kind, neutral, r)


# --------------------------------------------------------------------------- goods


def goods_grid(draw: ImageDraw.ImageDraw, goods: dict[str, int], x: int, y: int, width: int, cols: int,
               text: TextFn | None, *, zeros: bool, size: int = 16) -> int:
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


def _home_text(owner: PlayerView, text: TextFn | None) -> str:
    home, total = owner["home"], owner["clergy_total"]
    return label(text, "board.home", prior=home["prior"], lay=home["lay"], total=total["lay"])


# --------------------------------------------------------------------------- board parts


def _title(view: PublicView, text: TextFn | None) -> str:
    return label(text, "board.title", variant=_term(f"variant.{view['variant']}"),
                 family=_term(f"family.{view['family']}"), players=view["players"])


def _timeline(draw: ImageDraw.ImageDraw, view: PublicView, y: int, names: Sequence[str],
              text: TextFn | None) -> int:
    unit = view["unit"]
    regular = view["regular_units"]
    mode = MODES[view["mode"]]
    when = _unit_label(text, view, unit, "_of" if regular else "")
    if view["bonus_round"]:
        when = label(text, "board.bonus_round", n=unit)
    if view["over"]:
        when = label(text, "board.over")
    draw_text(draw, (MARGIN, y), when, size=24, bold=True)
    right = WIDTH - MARGIN
    parts: list[str] = [label(text, "board.contract", price=view["contract_price"])]
    if view["next_phase"]:
        parts.insert(0, _unit_label(text, view, view["next_phase"]["unit"], "_phase",
                                    letter=view["next_phase"]["letter"]))
    elif not view["over"] and mode.bonus:
        parts.insert(0, label(text, "board.phase_e"))
    if view["last_turn"]:
        parts.insert(0, label(text, "board.last_turn"))
    info = " · ".join(parts)
    draw_text(draw, (right, y + 4), info, size=18, anchor="ra", max_width=WIDTH - 420)
    start = view["start_player"]
    if start is not None and not view["over"]:
        tag = label(text, "board.turn_seat" if view["unit_kind"] == "turn" else "board.start_seat")
        sx = MARGIN + text_width(when, 24, True) + 20
        draw_text(draw, (sx, y + 4), tag, size=18, fill=MUTED)
        sx += text_width(tag, 18) + 8
        badge(draw, (sx, y + 2), start, 24)
        draw_text(draw, (sx + 30, y + 4), names[start] if start < len(names) else "", size=18,
                  max_width=160)
    # the bar: one tick per unit, phases after their units, bonus round shaded
    y += 44
    last = (regular + (1 if mode.bonus else 0)) if regular else max(30, unit + 3)
    x0, x1 = MARGIN + 6, WIDTH - MARGIN - 6
    step = (x1 - x0) / last
    draw.rounded_rectangle((x0, y, x1, y + 18), 6, fill=PANEL, outline=LINE)
    if unit:
        draw.rounded_rectangle((x0, y, x0 + step * min(unit, last), y + 18), 6, fill=(190, 200, 225))
    if mode.bonus and regular:
        draw.rectangle((x0 + step * regular, y + 1, x1 - 1, y + 17), fill=(235, 215, 150))
    for u in range(5, last + 1, 5):
        draw_text(draw, (x0 + step * (u - 0.5), y + 9), str(u), size=15, fill=INK, anchor="mm")
    for i, after in enumerate(mode.phases):
        px = x0 + step * after
        done = i < view["phases_done"]
        draw.line((px, y - 4, px, y + 22), fill=INK if not done else MUTED, width=3)
        draw_text(draw, (px, y + 22), PHASES[i], size=15, bold=True, anchor="ma", fill=INK if not done else MUTED)
    if regular:
        draw_text(draw, (x1, y + 22), PHASES[-1], size=15, bold=True, anchor="ra")
    if unit:
        ux = x0 + step * (min(unit, last) - 0.5)
        draw.polygon([(ux - 7, y - 9), (ux + 7, y - 9), (ux, y - 1)], fill=INK)
    return y + 44


def _wheel(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFn | None) -> int:
    values = MODES[view["mode"]].wheel
    draw_text(draw, (MARGIN, y), label(text, "board.wheel", side=_term(f"wheel.{view['wheel_side']}")), size=20,
              bold=True)
    kind = "turn" if view["unit_kind"] == "turn" else "round"
    entering = [label(text, f"board.enters_{kind}", good=_term(f"good.{e['good']}"), n=e["unit"])
                for e in view["entering"]]
    if entering:
        draw_text(draw, (WIDTH - MARGIN, y + 2), " · ".join(entering), size=17, fill=MUTED, anchor="ra")
    y += 30
    by_age: dict[int, list[dict[str, Any]]] = {}
    for entry in view["wheel"]:
        by_age.setdefault(entry["age"], []).append(dict(entry))
    stack = max((len(v) for v in by_age.values()), default=1)
    slot = (WIDTH - 2 * MARGIN) / 13
    height = 34 + stack * 26 + 6
    for age in range(13):
        sx = MARGIN + age * slot
        draw.rectangle((sx, y, sx + slot - 3, y + height), fill=PANEL, outline=LINE)
        draw_text(draw, (sx + slot / 2, y + 3), str(values[age]), size=22, bold=True, anchor="ma")
        draw_text(draw, (sx + 4, y + 2), str(age), size=14, fill=MUTED)
        for i, token in enumerate(by_age.get(age, [])):
            g = token["good"]
            ty = y + 34 + i * 26
            fill = (255, 236, 160) if g == "joker" else WHITE
            draw.rounded_rectangle((sx + 4, ty, sx + slot - 7, ty + 22), 8, fill=fill, outline=INK)
            name = good_name(text, g)
            draw_text(draw, (sx + slot / 2 - 1, ty + 11), name, size=fitting_size(name, slot - 14, 14, 11),
                      anchor="mm", max_width=slot - 14)
    return y + height + 10


def fitting_size(line: str, width: float, size: int, smallest: int) -> int:
    """The largest type size from ``size`` down to ``smallest`` at which ``line`` fits
    ``width`` px (``smallest`` when none does: the line is then shortened with '…'); a
    wheel token's good name, "ジョーカー" in Japanese, stays whole."""
    for s in range(size, smallest, -1):
        if text_width(line, s) <= width:
            return s
    return smallest


def _piles(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFn | None) -> int:
    mode = MODES[view["mode"]]
    x = MARGIN
    for pile, prices in (("district", mode.districts), ("plot", mode.plots)):
        left = view["piles"][pile]["left"]
        taken = len(prices) - left
        head = label(text, f"board.{pile}s")
        draw_text(draw, (x, y + 2), head, size=19, bold=True)
        px = x + max(92, int(text_width(head, 19, True)) + 12)
        for i, p in enumerate(prices):
            box = (px, y, px + 26, y + 26)
            if i < taken:
                draw.rectangle(box, fill=WHITE, outline=LINE)
                draw_text(draw, (px + 13, y + 13), str(p), size=15, fill=MUTED, anchor="mm")
                draw.line((px + 3, y + 23, px + 23, y + 3), fill=MUTED, width=2)
            else:
                nxt = i == taken
                draw.rectangle(box, fill=HIGHLIGHT if nxt else PANEL, outline=INK if nxt else LINE,
                               width=2 if nxt else 1)
                draw_text(draw, (px + 13, y + 13), str(p), size=16, bold=nxt, anchor="mm")
            px += 29
        x += (WIDTH - 2 * MARGIN) // 2
    return y + 38


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


def _scores(draw: ImageDraw.ImageDraw, view: PublicView, y: int, names: Sequence[str],
            text: TextFn | None) -> int:
    seats = [o for o in view["owners"] if not o["neutral"]]
    draw_text(draw, (MARGIN, y), label(text, "board.score"), size=20, bold=True)
    draw_text(draw, (WIDTH - MARGIN, y + 3), label(text, "board.score_key"), size=15, fill=MUTED, anchor="ra")
    y += 28
    for o in seats:
        sc = o["score"]
        badge(draw, (MARGIN, y), o["seat"], 24)
        draw_text(draw, (MARGIN + 32, y + 2), _owner_title(o, names, text), size=18, max_width=260)
        draw_text(draw, (MARGIN + 360, y), str(sc["total"]), size=22, bold=True, anchor="ra")
        draw_text(draw, (MARGIN + 376, y + 3), f"= {sum_text([sc['goods'], sc['economic'], sc['settlements']])}",
                  size=17)
        coins = label(text, "board.coins", n=o["goods"].get("coin", 0))
        draw_text(draw, (MARGIN + 560, y + 3), f"{_home_text(o, text)} · {coins}", size=16,
                  fill=MUTED, max_width=WIDTH - MARGIN - 560)
        y += 30
    return y + 6


def _cost_text(bid: str, text: TextFn | None) -> str:
    cost = BUILDINGS[bid].cost
    if not any(cost.values()):
        return label(text, "board.free")
    return label(text, "goods.list", goods=_goods_param(dict(cost)))


def display_height(view: PublicView) -> int:
    """Height of the display section (stage headers plus two columns of entries)."""
    groups = _stages(view["display"])
    return 34 + sum(30 + ((len(ids) + 1) // 2) * ENTRY_H for _, ids in groups) if groups else 64


ENTRY_H = 78


def _stages(display: list[str]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for bid in display:
        stage = BUILDINGS[bid].stage
        if not out or out[-1][0] != stage:
            out.append((stage, []))
        out[-1][1].append(bid)
    return out


def _entry(cloister: bool, col_w: int, lines: tuple[str, str, str, str], draw: ImageDraw.ImageDraw,
           cx: int, cy: int) -> None:
    """A building of the display at (``cx``, ``cy``): its card with ``lines`` (id and name, E/D,
    cost and terrain, function); a ``render.base.tile`` of ``col_w - 7`` × ``ENTRY_H - 5`` px."""
    head, meta, line, effect = lines
    draw.rounded_rectangle((cx, cy, cx + col_w - 8, cy + ENTRY_H - 6), 6,
                           fill=CLOISTER_FILL if cloister else WHITE, outline=LINE)
    draw_text(draw, (cx + col_w - 16, cy + 5), meta, size=15, bold=True, anchor="ra")
    draw_text(draw, (cx + 8, cy + 4), head, size=17, bold=True, max_width=col_w - 90)
    draw_text(draw, (cx + 8, cy + 28), line, size=15, fill=MUTED, max_width=col_w - 24)
    draw_text(draw, (cx + 8, cy + 49), effect, size=15, fill=INK, max_width=col_w - 24)


def _display(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFn | None) -> int:
    draw_text(draw, (MARGIN, y), label(text, "board.display", n=len(view["display"])), size=20, bold=True)
    draw_text(draw, (WIDTH - MARGIN, y + 3), label(text, "board.display_key"), size=15, fill=MUTED, anchor="ra")
    y += 34
    if not view["display"]:
        draw_text(draw, (MARGIN, y), label(text, "board.empty"), size=17, fill=MUTED)
        return y + 30
    col_w = (WIDTH - 2 * MARGIN) // 2
    for stage, ids in _stages(view["display"]):
        head = label(text, "board.start_buildings") if stage == "start" else label(text, "board.stage", stage=stage)
        draw_text(draw, (MARGIN, y), head, size=17, bold=True, fill=MUTED)
        y += 26
        for i, bid in enumerate(ids):
            b = BUILDINGS[bid]
            head = f"{bid} {building_name(text, bid)}" + (" ✚" if b.cloister else "")
            meta = label(text, "board.values", e=signed(b.economic), d=signed(b.dwelling))
            line = label(text, "board.cost", cost=_cost_text(bid, text), terrain=_terrains(text, b.terrain))
            lines = (head, meta, line, effect_line(text, bid))
            tile(draw, (MARGIN + (i % 2) * col_w, y + (i // 2) * ENTRY_H), (col_w - 7, ENTRY_H - 5),
                 ("ora.entry", b.cloister, col_w, lines), partial(_entry, b.cloister, col_w, lines))
        y += ((len(ids) + 1) // 2) * ENTRY_H + 4
    return y


ID_LETTERS = "GFILS"
"""The letters that begin building and settlement ids (docs/rules/ora.md §2: ``G`` shared,
``F`` France, ``I`` Ireland, ``L`` heartland buildings; ``S`` settlements), in key order."""
ID_KEY_H = 28


def id_letters(view: PublicView) -> list[str]:
    """The id letters of every building and settlement the board shows (display and
    landscapes), in ``ID_LETTERS`` order: what the id key explains."""
    shown = {bid[:1] for bid in view["display"]}
    shown |= {s["piece"][:1] for o in view["owners"] for s in o["spaces"] if s["piece"]}
    return [c for c in ID_LETTERS if c in shown]


def _id_key(draw: ImageDraw.ImageDraw, view: PublicView, y: int, text: TextFn | None) -> int:
    """One line saying what the id letters on this board mean (catalog ``board.id.<letter>``)."""
    letters = id_letters(view)
    if letters:
        parts = " · ".join(label(text, f"board.id.{c}") for c in letters)
        draw_text(draw, (MARGIN, y), label(text, "board.id_key", letters=parts), size=16, fill=MUTED,
                  max_width=WIDTH - 2 * MARGIN)
    return y + ID_KEY_H


COMPACT_W = (WIDTH - 2 * MARGIN - 10) // 2
"""Width of one compact landscape panel (two per row)."""


def compact_cell(owner: PlayerView) -> int:
    """Cell size of an owner's compact landscape: as large as the panel allows, 48–80 px
    (a name in 13 px type on two lines)."""
    x0, x1, _, _ = _extent(owner)
    return max(48, min(80, (COMPACT_W - 50) // (x1 - x0 + 1)))


def _compact_height(owner: PlayerView) -> int:
    _, gh = grid_size(owner, compact_cell(owner))
    goods_rows = (sum(1 for n in owner["goods"].values() if n) + 3) // 4
    return 40 + gh + 8 + (max(1, goods_rows) * 25 if not owner["neutral"] else 0) + 74


def _compact(draw: ImageDraw.ImageDraw, owner: PlayerView, x: int, y: int, w: int, h: int,
             names: Sequence[str], text: TextFn | None) -> None:
    draw.rounded_rectangle((x, y, x + w, y + h), 10, fill=WHITE, outline=LINE)
    neutral = owner["neutral"]
    badge(draw, (x + 8, y + 8), None if neutral else owner["seat"], 26)
    draw_text(draw, (x + 42, y + 9), _owner_title(owner, names, text), size=20, bold=True, max_width=w * 0.5)
    if not neutral:
        draw_text(draw, (x + w - 10, y + 10), label(text, "board.pts", n=owner["score"]["total"]), size=20,
                  bold=True, anchor="ra")
    cell = compact_cell(owner)
    gw, gh = grid_size(owner, cell)
    draw_landscape(draw, owner, x + max(6, (w - gw) // 2), y + 40, cell, text, detail=False)
    cy = y + 40 + gh + 8
    if not neutral:
        cy += goods_grid(draw, owner["goods"], x + 10, cy, w - 16, 4, text, zeros=False, size=15)
    draw_text(draw, (x + 10, cy + 4), _home_text(owner, text), size=14, fill=MUTED, max_width=w - 20)
    if not neutral:
        supply = [_term(f"settlement.{s}") for s in owner["supply"]]
        line = label(text, "board.supply", settlements=supply if supply else {"msg": "goods.none", "params": {}})
        for i, part in enumerate(_wrap(line, 14, w - 20, 2)):
            draw_text(draw, (x + 10, cy + 26 + i * 19), part, size=14, fill=MUTED)


def render_board(view: PublicView, *, names: Sequence[str], text: TextFn | None = None,
                 highlight: str | None = None) -> Image.Image:
    """The shared board (``PublicView``; §11 items 1–5), ``WIDTH`` px wide: timeline, wheel,
    piles, scores, display by stage, then every owner's compact landscape two per row.
    ``highlight`` is accepted for the protocol and unused."""
    owners = view["owners"]
    rows = [owners[i:i + 2] for i in range(0, len(owners), 2)]
    row_h = [max(_compact_height(o) for o in row) for row in rows]
    stack = max((sum(1 for e in view["wheel"] if e["age"] == a) for a in range(13)), default=1)
    seats = sum(1 for o in owners if not o["neutral"])
    height = (44 + 88 + 30 + 40 + stack * 26 + 10 + 38 + 34 + seats * 30 + 6 + display_height(view) + 12
              + ID_KEY_H + sum(h + 12 for h in row_h) + 8)
    img, draw = canvas(height)
    draw_text(draw, (MARGIN, 8), _title(view, text), size=28, bold=True)
    y = _timeline(draw, view, 48, names, text)
    y = _wheel(draw, view, y, text)
    y = _piles(draw, view, y, text)
    y = _scores(draw, view, y, names, text)
    y = _id_key(draw, view, _display(draw, view, y, text) + 4, text) + 4
    col_w = COMPACT_W
    for row, h in zip(rows, row_h, strict=True):
        for i, owner in enumerate(row):
            _compact(draw, owner, MARGIN + i * (col_w + 10), y, col_w, h, names, text)
        y += h + 12
    return img


# --------------------------------------------------------------------------- thumbnail


THUMB_W = 550
"""Width (px) of ``render_thumbnail``: bot/render_pool.py ``THUMBNAIL_WIDTH`` (a DM turn notice sends it as
drawn)."""
THUMB_PAD = 12


def render_thumbnail(view: PublicView, *, names: Sequence[str], text: TextFn | None = None) -> Image.Image:
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


def render_owner(view: PublicView, seat: int, *, names: Sequence[str], text: TextFn | None = None) -> Image.Image:
    """One owner's large image (§11 item 5): landscape with names and E/D, the goods grid with
    every good of the variant, settlement supply with costs, clergy at home, score breakdown."""
    owner = _owner_of(view, seat)
    x0, x1, _, _ = _extent(owner)
    cell = max(64, min(110, (WIDTH - 2 * MARGIN - 40) // (x1 - x0 + 1)))
    gw, gh = grid_size(owner, cell)
    neutral = owner["neutral"]
    goods_h = ((len(owner["goods"]) + 4) // 5) * 27 + 8 if not neutral else 0
    supply_h = 30 + len(owner["supply"]) * 24 if not neutral else 0
    height = 110 + gh + 20 + (34 + goods_h if not neutral else 0) + supply_h + 20
    img, draw = canvas(height)
    badge(draw, (MARGIN, 12), None if neutral else seat, 34)
    draw_text(draw, (MARGIN + 44, 12), _owner_title(owner, names, text), size=28, bold=True, max_width=520)
    if not neutral:
        sc = owner["score"]
        draw_text(draw, (WIDTH - MARGIN, 12), label(text, "board.points", n=sc["total"]), size=28, bold=True,
                  anchor="ra")
        draw_text(draw, (WIDTH - MARGIN, 50), label(text, "board.breakdown", goods=sc["goods"],
                  economic=sc["economic"], settlements=signed(sc["settlements"])), size=18, anchor="ra")
    draw_text(draw, (MARGIN, 56), f"{_home_text(owner, text)} · {_unit_label(text, view, view['unit'])}", size=18,
              fill=MUTED)
    draw_text(draw, (MARGIN, 80), label(text, "board.legend"), size=14, fill=MUTED)
    y = 108
    draw_landscape(draw, owner, max(MARGIN, (WIDTH - gw) // 2), y, cell, text, detail=True, bg=BG)
    y += gh + 20
    if not neutral:
        draw_text(draw, (MARGIN, y), label(text, "board.goods"), size=20, bold=True)
        y += 30
        y += goods_grid(draw, owner["goods"], MARGIN, y, WIDTH - 2 * MARGIN, 5, text, zeros=True, size=16) + 8
        draw_text(draw, (MARGIN, y), label(text, "board.supply_title"), size=20, bold=True)
        y += 30
        for s in owner["supply"]:
            card = SETTLEMENTS[s]
            line = label(text, "board.supply_line", s=_term(f"settlement.{s}"), food=card.food, energy=card.energy,
                         e=signed(card.economic), d=signed(card.dwelling), terrain=_terrains(text, card.terrain))
            draw_text(draw, (MARGIN, y), line, size=17)
            y += 24
    return img


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFn | None = None) -> Image.Image:
    """The seat's own image (``PrivateView``): ``render_owner`` of ``view["seat"]``."""
    return render_owner(view, view["seat"], names=names, text=text)


__all__ = ["building_name", "draw_landscape", "effect_line", "good_name", "goods_grid", "render_board",
           "render_owner", "render_private", "render_thumbnail"]
