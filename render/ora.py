"""Ora et Labora board image (spec docs/rules/ora.md §11), a first legible version: the
timeline, the production wheel with each indicator's value, the landscape piles, the building
display by stage (cost, E/D, terrain, one-line function), then one panel per landscape owner
(grid with coordinates, cards, buildings, settlements, clergy; goods; settlement supply; score).

Input: ``engines.ora.view.PublicView``; names and costs from ``engines.ora.data``; the
one-line functions through the ``text`` formatter (catalog ``effect.<id>``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image, ImageDraw

from engines.ora.data import BUILDINGS, GOODS, SETTLEMENTS
from render.base import INK, LINE, MUTED, PANEL, WHITE, canvas, draw_text, seat_colour, seat_label

WIDTH = 1400
CELL = 64
TERRAIN_COLOURS: dict[str, tuple[int, int, int]] = {
    "water": (120, 170, 215), "coast": (225, 210, 160), "plains": (190, 215, 150),
    "hillside": (205, 185, 140), "mountain": (150, 140, 135)}
CARD_COLOURS: dict[str, tuple[int, int, int]] = {"forest": (60, 120, 60), "moor": (120, 90, 60)}
COST_ABBR = {"wood": "W", "clay": "C", "stone": "S", "straw": "St", "coin": "$"}

TextFn = Callable[[Any], str]


def _effect(text: TextFn | None, bid: str) -> str:
    if text is None:
        return BUILDINGS[bid].handler
    return text({"msg": f"effect.{bid}", "params": {}})


def _cost(bid: str) -> str:
    cost = BUILDINGS[bid].cost
    return " ".join(f"{n}{COST_ABBR.get(g, g)}" for g, n in cost.items()) or "–"


def _header(draw: ImageDraw.ImageDraw, view: dict[str, Any], names: Sequence[str]) -> int:
    unit = view["unit"]
    total = view["regular_units"]
    kind = "Turn" if view["unit_kind"] == "turn" else "Round"
    when = f"{kind} {unit}" + (" · bonus round" if view["bonus_round"] else (f"/{total}" if total else ""))
    title = f"Ora et Labora · {view['variant'].title()} · {view['mode']} · {when}"
    draw_text(draw, (16, 10), title, size=30, bold=True)
    parts = []
    if view["start_player"] is not None:
        parts.append(f"start: {seat_label(view['start_player'], names)}")
    if view["next_phase"]:
        parts.append(f"phase {view['next_phase']['letter']} at the start of {kind.lower()} "
                     f"{view['next_phase']['unit']}")
    parts.append(f"work contract {view['contract_price']} coin(s)")
    if view["last_turn"]:
        parts.append("LAST TURN")
    if view["over"]:
        parts.append("game over")
    draw_text(draw, (16, 50), " · ".join(parts), size=20, fill=MUTED, max_width=WIDTH - 32)
    return 84


def _wheel(draw: ImageDraw.ImageDraw, view: dict[str, Any], y: int) -> int:
    x = 16
    draw_text(draw, (x, y), f"Wheel ({view['wheel_side']})", size=20, bold=True)
    x += 150
    for entry in view["wheel"]:
        name = "Joker" if entry["good"] == "joker" else GOODS[entry["good"]].name
        draw.rounded_rectangle((x, y - 2, x + 118, y + 48), 8, fill=PANEL, outline=LINE)
        draw_text(draw, (x + 59, y + 2), name, size=17, anchor="ma")
        draw_text(draw, (x + 59, y + 22), f"{entry['value']}  (age {entry['age']})", size=18, bold=True, anchor="ma")
        x += 126
    for entry in view["entering"]:
        draw_text(draw, (x, y + 12), f"{entry['good']} enters {entry['unit']}", size=16, fill=MUTED)
        x += 150
    piles = view["piles"]
    text = (f"Districts: next {piles['district']['price'] or '–'} ({piles['district']['left']} left)   "
            f"Plots: next {piles['plot']['price'] or '–'} ({piles['plot']['left']} left)")
    draw_text(draw, (16, y + 58), text, size=19)
    return y + 92


def _display(draw: ImageDraw.ImageDraw, view: dict[str, Any], y: int, text: TextFn | None) -> int:
    draw_text(draw, (16, y), f"Display ({len(view['display'])})", size=22, bold=True)
    y += 32
    col_w = (WIDTH - 32) // 2
    for i, bid in enumerate(view["display"]):
        b = BUILDINGS[bid]
        cx = 16 + (i % 2) * col_w
        cy = y + (i // 2) * 46
        mark = " (cloister)" if b.cloister else ""
        head = f"{bid} {b.name}{mark} [{b.stage}]  {_cost(bid)}  E{b.economic}/D{b.dwelling}  {'/'.join(b.terrain)}"
        draw_text(draw, (cx, cy), head, size=17, bold=True, max_width=col_w - 12)
        draw_text(draw, (cx + 12, cy + 21), _effect(text, bid), size=15, fill=MUTED, max_width=col_w - 24)
    return y + ((len(view["display"]) + 1) // 2) * 46 + 8


def _grid_size(owner: dict[str, Any]) -> tuple[int, int, int, int]:
    xs = [s["x"] for s in owner["spaces"]]
    ys = [s["y"] for s in owner["spaces"]] + [s["y"] + 1 for s in owner["spaces"] if s["terrain"] == "mountain"]
    return min(xs), max(xs), min(ys), max(ys)


def _panel_height(owner: dict[str, Any]) -> int:
    _, _, y0, y1 = _grid_size(owner)
    return 60 + (y1 - y0 + 1) * CELL + 30 + 96


def _panel(draw: ImageDraw.ImageDraw, owner: dict[str, Any], x: int, y: int, w: int, names: Sequence[str]) -> None:
    h = _panel_height(owner)
    draw.rounded_rectangle((x, y, x + w, y + h), 10, fill=WHITE, outline=LINE)
    seat = owner["seat"]
    title = "Neutral player" if owner["neutral"] else seat_label(seat, names)
    colour = MUTED if owner["neutral"] else seat_colour(seat)
    draw.rectangle((x + 1, y + 1, x + 12, y + h - 1), fill=colour)
    sc = owner["score"]
    home = owner["home"]
    info = (f"home: prior {home['prior']}, lay {home['lay']}/{owner['clergy_total']['lay']}")
    if not owner["neutral"]:
        info += f" · score {sc['total']} (goods {sc['goods']}, econ {sc['economic']}, settl {sc['settlements']})"
    draw_text(draw, (x + 22, y + 8), title, size=22, bold=True, max_width=w * 0.35)
    draw_text(draw, (x + w - 10, y + 12), info, size=17, fill=MUTED, anchor="ra", max_width=w * 0.62)
    gx0, gx1, gy0, gy1 = _grid_size(owner)
    ox, oy = x + 46, y + 62
    for col in range(gx0, gx1 + 1):
        draw_text(draw, (ox + (col - gx0) * CELL + CELL // 2, oy - 4), str(col), size=14, fill=MUTED, anchor="md")
    for row in range(gy0, gy1 + 1):
        draw_text(draw, (ox - 8, oy + (row - gy0) * CELL + CELL // 2), str(row), size=14, fill=MUTED, anchor="rm")
    for s in owner["spaces"]:
        cx = ox + (s["x"] - gx0) * CELL
        cy = oy + (s["y"] - gy0) * CELL
        tall = CELL * (2 if s["terrain"] == "mountain" else 1)
        draw.rectangle((cx, cy, cx + CELL - 2, cy + tall - 2), fill=TERRAIN_COLOURS[s["terrain"]], outline=LINE)
        if s["card"]:
            draw.ellipse((cx + 14, cy + 14, cx + CELL - 16, cy + CELL - 16), fill=CARD_COLOURS[s["card"]])
        piece = s["piece"]
        if piece:
            name = BUILDINGS[piece].name if piece in BUILDINGS else SETTLEMENTS[piece].name
            fill = (250, 245, 230) if piece in BUILDINGS else (255, 225, 200)
            draw.rectangle((cx + 3, cy + 3, cx + CELL - 5, cy + CELL - 5), fill=fill, outline=INK)
            draw_text(draw, (cx + CELL // 2 - 1, cy + 6), piece, size=15, bold=True, anchor="ma")
            draw_text(draw, (cx + CELL // 2 - 1, cy + 24), name, size=10, anchor="ma", max_width=CELL - 8)
        for i, c in enumerate(s["clergy"]):
            r = 8 if c["kind"] == "prior" else 6
            px, py = cx + 10 + i * 16, cy + CELL - 14
            draw.ellipse((px - r, py - r, px + r, py + r), fill=seat_colour(c["seat"]), outline=INK)
    gy = oy + (gy1 - gy0 + 1) * CELL + 8
    if not owner["neutral"]:
        goods = [f"{GOODS[g].name} {n}" for g, n in owner["goods"].items() if n]
        line, lines = "", []
        for item in goods:
            if len(line) + len(item) > 70:
                lines.append(line)
                line = ""
            line += ("  · " if line else "") + item
        lines.append(line or "no goods")
        for i, ln in enumerate(lines[:3]):
            draw_text(draw, (x + 22, gy + i * 22), ln, size=17, max_width=w - 32)
        supply = ", ".join(SETTLEMENTS[s].name for s in owner["supply"])
        draw_text(draw, (x + 22, gy + 70), f"Settlements: {supply or '–'}", size=16, fill=MUTED, max_width=w - 32)


def render_board(view: dict[str, Any], *, names: Sequence[str], text: TextFn | None = None,
                 highlight: str | None = None) -> Image.Image:
    """The public board (``PublicView``): shared part on top, then the owners two per row."""
    owners = view["owners"]
    col_w = (WIDTH - 36) // 2
    rows = [owners[i:i + 2] for i in range(0, len(owners), 2)]
    display_h = 40 + ((len(view["display"]) + 1) // 2) * 46 + 8
    owners_h = sum(max(_panel_height(o) for o in row) + 12 for row in rows)
    img, draw = canvas(84 + 92 + display_h + owners_h + 20, WIDTH)
    y = _header(draw, view, names)
    y = _wheel(draw, view, y)
    y = _display(draw, view, y, text)
    for row in rows:
        for i, owner in enumerate(row):
            _panel(draw, owner, 12 + i * (col_w + 12), y, col_w, names)
        y += max(_panel_height(o) for o in row) + 12
    return img
