"""Board renderer for The Road to Canterbury (spec canterbury §11 "Board image").

``render_board`` draws the public view (``player_view(state, None)``): the turn
banner, the Circle of Sin with every player's cubes, the centre and the Parson,
the Road with its five spaces, the public scoreboard (never coins), the three
companies with their pilgrims' cards, and the face-up rows with deck sizes.
``render_private`` draws one seat's hand, coins and notes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from engines.canterbury.engine import RELIC_HELP
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
    seat_label,
    text_width,
)

SINS = ("pride", "greed", "lust", "envy", "gluttony", "wrath", "sloth")
SIN_NAMES = {"pride": "Pride", "greed": "Greed", "lust": "Lust", "envy": "Envy",
             "gluttony": "Gluttony", "wrath": "Wrath", "sloth": "Sloth"}
SIN_ZH = {"pride": "傲慢", "greed": "貪婪", "lust": "色慾", "envy": "嫉妒",
          "gluttony": "暴食", "wrath": "暴怒", "sloth": "懶惰"}
SIN_FILL = {
    "pride": (120, 60, 160), "greed": (200, 150, 20), "lust": (200, 60, 110), "envy": (40, 140, 70),
    "gluttony": (190, 100, 40), "wrath": (190, 40, 40), "sloth": (90, 110, 140),
}
COMPANIES = ("red", "yellow", "blue")
COMPANY_FILL = {"red": (196, 48, 43), "yellow": (222, 170, 20), "blue": (40, 92, 180)}
COMPANY_TEXT = {"red": WHITE, "yellow": INK, "blue": WHITE}
PILGRIM_NAMES = {"knight": "Knight", "friar": "Friar", "wife_of_bath": "Wife of Bath",
                 "prioress": "Prioress", "monk": "Monk", "miller": "Miller", "man_of_law": "Man of Law"}
RELIC_NAMES = {
    "felix": "St. Felix's Hairball", "bernard": "St. Bernard's Collar", "hildegard": "St. Hildegard's Comb",
    "vincent": "St. Vincent's Fingernail", "benedict": "St. Benedict's Scrambled Eggs",
    "philip": "St. Philip's Accusing Finger", "wilgefortis": "St. Wilgefortis's Beard",
    "nicholas": "St. Nicholas's Underpants", "vitus": "St. Vitus's Dancing Shoes",
    "anselm": "St. Anselm's Quill", "isidore": "St. Isidore's Eyeball", "jonah": "St. Jonah's Snorkel",
}
DOOMED = (200, 20, 20)
GREY = (185, 182, 176)
DARK = (45, 45, 50)
PAD = 20
HEAD = 100
STEP_TEXT = {
    "play": "choosing a card", "followup": "may play a follow-up card", "vitus": "St. Vitus extra play",
    "give": "St. Benedict: giving a card", "keep": "St. Isidore: keeping a card",
    "parson": "St. Philip: moving the Parson", "refill": "refilling the hand",
    "lastrites": "deciding on Last Rites", "chance": "drawing…", "over": "game over",
}


def _letter(seat: int) -> str:
    return SEAT_LETTERS[seat % len(SEAT_LETTERS)]


def card_text(kind: str) -> str:
    """Short English text for a card kind ("Greed", "Pardon: Greed", "DEATH (red)")."""
    if kind.startswith("sin-"):
        return SIN_NAMES.get(kind[4:], kind)
    if kind.startswith("pardon-"):
        return "Pardon: " + SIN_NAMES.get(kind[7:], kind)
    if kind.startswith("death-"):
        return f"DEATH ({kind[6:]})"
    if kind.startswith("relic-"):
        return RELIC_NAMES.get(kind[6:], kind)
    return kind


def _card_fill(kind: str, pilgrim_sin: str | None = None) -> tuple[int, int, int]:
    if kind.startswith("sin-") or kind.startswith("pardon-"):
        return SIN_FILL.get(kind.split("-", 1)[1], DARK)
    if kind.startswith("death-"):
        return (20, 20, 20)
    if kind == "relic-nicholas":
        return (110, 40, 130)
    return (95, 80, 50)


def _cube(draw: ImageDraw.ImageDraw, x: float, y: float, seat: int, size: int = 26, count: int | None = None) -> float:
    """A seat cube: coloured square with the seat letter; returns the right edge."""
    draw.rectangle([x, y, x + size, y + size], fill=seat_colour(seat), outline=INK, width=2)
    draw_text(draw, (x + size / 2, y + size / 2), _letter(seat), size=int(size * 0.7), fill=WHITE, bold=True,
              anchor="mm")
    right = x + size
    if count is not None and count != 1:
        draw_text(draw, (right + 3, y + size / 2), f"×{count}", size=max(18, int(size * 0.75)), anchor="lm",
                  bold=True)
        right += 4 + text_width(f"×{count}", max(18, int(size * 0.75)), True)
    return right


def _cube_row(draw: ImageDraw.ImageDraw, x: float, y: float, counts: Sequence[int], size: int = 26) -> float:
    for seat, n in enumerate(counts):
        if n > 0:
            x = _cube(draw, x, y, seat, size, n) + 8
    return x


def _fmt(text: str, names: Sequence[str]) -> str:
    for i, name in enumerate(names):
        text = text.replace(f"{{p{i}}}", name)
    return text


# --------------------------------------------------------------------------- sections


def _banner(draw: ImageDraw.ImageDraw, view: dict[str, Any], names: Sequence[str], y: int) -> int:
    n = view["players"]
    draw.rectangle([0, y, WIDTH, y + 64], fill=DARK)
    draw_text(draw, (PAD, y + 32), "The Road to Canterbury", size=30, fill=WHITE, bold=True, anchor="lm")
    if view["over"]:
        final = view.get("final") or {}
        winners = final.get("winners", [])
        msg = "Winner: " + ", ".join(seat_label(w, names) for w in winners) if winners else "Game over"
        draw_text(draw, (WIDTH - PAD, y + 32), msg, size=26, fill=HIGHLIGHT, bold=True, anchor="rm",
                  max_width=WIDTH - 420)
    else:
        seat = view["active"] % n
        lr = " · LAST RITES TURN" if view.get("lastrites_turn") else ""
        text = f"Turn {view['turn']}: {seat_label(seat, names)}{lr}"
        draw.rectangle([WIDTH - PAD - 8 - text_width(text, 26, True) - 16, y + 12, WIDTH - PAD, y + 52],
                       fill=seat_colour(seat))
        draw_text(draw, (WIDTH - PAD - 8, y + 32), text, size=26, fill=WHITE, bold=True, anchor="rm")
    y += 64
    step = STEP_TEXT.get(view.get("step", ""), "")
    in_play = [card_text(k) for k in view.get("in_play", [])]
    sub = f"Now: {step}" if step and not view["over"] else ""
    if in_play:
        sub += "  ·  Relic in play: " + ", ".join(in_play)
    sub += f"  ·  Edition {view['edition']}  ·  Deaths {view['deaths']}/5"
    draw_text(draw, (PAD, y + 18), sub.strip(" ·"), size=22, fill=INK, anchor="lm", max_width=WIDTH - 2 * PAD)
    return y + 40


def _circle(draw: ImageDraw.ImageDraw, view: dict[str, Any], x0: int, y0: int) -> int:
    """The Circle of Sin in a 470×470 box."""
    size = 470
    cx, cy = x0 + size // 2, y0 + size // 2 + 10
    draw_text(draw, (x0 + 10, y0), "Circle of Sin", size=26, bold=True)
    ring = 165
    draw.ellipse([cx - ring, cy - ring, cx + ring, cy + ring], outline=LINE, width=3)
    n = view["players"]
    for i, sin in enumerate(SINS):
        ang = -math.pi / 2 + 2 * math.pi * i / len(SINS)
        sx, sy = cx + ring * math.cos(ang), cy + ring * math.sin(ang)
        r = 58
        parson = view.get("parson") == sin
        if parson:
            draw.ellipse([sx - r - 8, sy - r - 8, sx + r + 8, sy + r + 8], fill=HIGHLIGHT, outline=INK, width=3)
        draw.ellipse([sx - r, sy - r, sx + r, sy + r], fill=SIN_FILL[sin], outline=INK, width=2)
        draw_text(draw, (sx, sy - 28), SIN_NAMES[sin], size=21, fill=WHITE, bold=True, anchor="mm")
        draw_text(draw, (sx, sy - 7), SIN_ZH[sin], size=17, fill=WHITE, anchor="mm")
        owners = [q for q in range(n) if sin in view["circle"][q]]
        cs = 22
        total = len(owners) * (cs + 4) - 4
        bx = sx - total / 2
        for q in owners:
            _cube(draw, bx, sy + 10, q, cs)
            bx += cs + 4
        if parson:
            draw.rectangle([sx - 44, sy + r - 6, sx + 44, sy + r + 18], fill=INK)
            draw_text(draw, (sx, sy + r + 6), "PARSON", size=17, fill=HIGHLIGHT, bold=True, anchor="mm")
    # centre
    cr = 84
    draw.ellipse([cx - cr, cy - cr, cx + cr, cy + cr], fill=PANEL, outline=INK, width=2)
    draw_text(draw, (cx, cy - 52), "Centre", size=20, bold=True, anchor="mm")
    centre = view["centre"]
    if any(centre):
        cells = [q for q in range(n) if centre[q]]
        width = sum(26 + 4 + text_width(f"×{centre[q]}", 20, True) + 6 for q in cells)
        bx = cx - width / 2
        for q in cells:
            bx = _cube(draw, bx, cy - 34, q, 24, centre[q] if centre[q] > 1 else None) + 8
    else:
        draw_text(draw, (cx, cy - 22), "—", size=22, fill=MUTED, anchor="mm")
    parson = view.get("parson")
    draw_text(draw, (cx, cy + 12), f"Parson: {SIN_NAMES.get(parson or '', '—')}", size=18, anchor="mm", bold=True)
    draw_text(draw, (cx, cy + 38), f"Last Rites left: {view['token_supply']}", size=16, anchor="mm")
    return y0 + size + 20


def _road(draw: ImageDraw.ImageDraw, view: dict[str, Any], x0: int, y0: int, w: int) -> int:
    draw_text(draw, (x0, y0), "The Road to Canterbury", size=26, bold=True)
    y = y0 + 38
    values = view["road_values"]
    gap = 8
    cw = (w - gap * (len(values) - 1)) / len(values)
    nxt = view["deaths"]
    for k, v in enumerate(values):
        x = x0 + k * (cw + gap)
        fill = HIGHLIGHT if k == nxt and not view["over"] else PANEL
        draw.rounded_rectangle([x, y, x + cw, y + 110], radius=10, fill=fill, outline=INK, width=2)
        draw_text(draw, (x + cw / 2, y + 20), f"{k + 1}: +{v}", size=22, bold=True, anchor="mm")
        counts = view["road"][k]
        row_y = y + 42
        cx = x + 8
        for q, c in enumerate(counts):
            if c:
                if cx + 50 > x + cw:
                    cx = x + 8
                    row_y += 32
                cx = _cube(draw, cx, row_y, q, 24, c) + 6
    if not view["over"]:
        draw_text(draw, (x0, y + 122), "Highlighted: space for the next death", size=18, fill=MUTED)
    return y + 150


def _scoreboard(draw: ImageDraw.ImageDraw, view: dict[str, Any], names: Sequence[str], x0: int, y0: int,
                w: int) -> int:
    draw_text(draw, (x0, y0), "Pardoners", size=26, bold=True)
    y = y0 + 38
    n = view["players"]
    for q in range(n):
        active = q == view["active"] and not view["over"]
        draw.rounded_rectangle([x0, y, x0 + w, y + 102], radius=10, fill=HIGHLIGHT if active else PANEL,
                               outline=seat_colour(q), width=4)
        _cube(draw, x0 + 10, y + 10, q, 32)
        draw_text(draw, (x0 + 52, y + 26), seat_label(q, names), size=24, bold=True, anchor="lm",
                  max_width=w - 62)
        hc = view["hand_counts"][q]
        road = sum(r[q] for r in view["road"])
        comp = "✓" * view["completions"].count(q)
        line1 = f"Hand {hc['total']} (S{hc['sin']} P{hc['pardon']} R{hc['relic']})  Tokens {view['tokens'][q]}"
        line2 = f"Circle {len(view['circle'][q])}/7 + centre {view['centre'][q]} = str. {view['circle_strength'][q]}"
        line2 += f"  Road {road}" + (f"  7 sins {comp}" if comp else "")
        draw_text(draw, (x0 + 12, y + 58), line1, size=20, anchor="lm", max_width=w - 24)
        draw_text(draw, (x0 + 12, y + 84), line2, size=20, fill=INK, anchor="lm", max_width=w - 24)
        y += 110
    return y


def _company(draw: ImageDraw.ImageDraw, view: dict[str, Any], co: str, x0: int, y0: int, w: int, h: int) -> None:
    comp = view["companies"][co]
    draw.rounded_rectangle([x0, y0, x0 + w, y0 + h], radius=12, fill=PANEL, outline=COMPANY_FILL[co], width=4)
    draw.rounded_rectangle([x0, y0, x0 + w, y0 + HEAD], radius=12, fill=COMPANY_FILL[co])
    fg = COMPANY_TEXT[co]
    draw_text(draw, (x0 + 12, y0 + 8), f"{co.upper()} COMPANY", size=18, fill=fg, bold=True)
    if comp["pilgrim"]:
        name = PILGRIM_NAMES.get(comp["pilgrim"], comp["pilgrim"])
        draw_text(draw, (x0 + 12, y0 + 30), name, size=30, fill=fg, bold=True, max_width=w - 100)
        sin = comp["sin"]
        draw_text(draw, (x0 + 12, y0 + 84), f"Sin: {SIN_NAMES[sin]} {SIN_ZH[sin]}", size=20, fill=fg,
                  anchor="lm")
        cnt = f"{comp['count']}/7"
        draw_text(draw, (x0 + w - 12, y0 + 40), cnt, size=34, fill=fg, bold=True, anchor="rm")
        draw_text(draw, (x0 + w - 12, y0 + 72), "cards", size=18, fill=fg, anchor="rm")
    else:
        draw_text(draw, (x0 + 12, y0 + 30), "(no pilgrim)", size=26, fill=fg)
        sin = None
    y = y0 + HEAD + 8
    if comp["doomed"]:
        draw.rectangle([x0 + 8, y, x0 + w - 8, y + 32], fill=DOOMED)
        draw_text(draw, (x0 + w / 2, y + 16), "DOOMED — dies this turn", size=20, fill=WHITE, bold=True,
                  anchor="mm")
        y += 40
    # cubes on the living pilgrim
    draw_text(draw, (x0 + 12, y + 13), "Cubes:", size=20, anchor="lm")
    if any(comp["cubes"]):
        _cube_row(draw, x0 + 84, y, comp["cubes"])
    else:
        draw_text(draw, (x0 + 84, y + 13), "none", size=20, fill=MUTED, anchor="lm")
    y += 36
    # cards: two columns
    cw = (w - 30) / 2
    chh = 34
    for i, card in enumerate(comp["cards"]):
        col, row = i % 2, i // 2
        cx = x0 + 10 + col * (cw + 10)
        cy = y + row * (chh + 6)
        kind = card["kind"]
        if card["up"]:
            draw.rounded_rectangle([cx, cy, cx + cw, cy + chh], radius=6, fill=_card_fill(kind, sin), outline=INK,
                                   width=2)
            label = card_text(kind) if kind != "relic-nicholas" else "Underpants"
            if kind.startswith("death-"):
                label = "DEATH"
            draw_text(draw, (cx + 8, cy + chh / 2), label, size=19, fill=WHITE, bold=True, anchor="lm",
                      max_width=cw - 12)
        else:
            draw.rounded_rectangle([cx, cy, cx + cw, cy + chh], radius=6, fill=GREY, outline=MUTED, width=2)
            label = card_text(kind) if kind != "relic-nicholas" else "Underpants"
            if kind.startswith("death-"):
                label = "Death"
            draw_text(draw, (cx + 8, cy + chh / 2), f"✓ {label}", size=18, fill=DARK, anchor="lm",
                      max_width=cw - 12)
    rows = (len(comp["cards"]) + 1) // 2
    y += max(rows, 1) * (chh + 6) + 4
    if not comp["cards"]:
        draw_text(draw, (x0 + 12, y - 30), "no cards yet", size=19, fill=MUTED)
    if any(not c["up"] for c in comp["cards"]):
        draw_text(draw, (x0 + 12, y), "Grey ✓ = pardoned (face down)", size=18, fill=MUTED)
    # dead pile
    dy = y0 + h - 16 - 30 * max(1, len(comp["dead"]))
    draw.line([x0 + 10, dy - 8, x0 + w - 10, dy - 8], fill=LINE, width=2)
    if comp["dead"]:
        for d in comp["dead"]:
            nm = PILGRIM_NAMES.get(d["pilgrim"], str(d["pilgrim"]))
            draw_text(draw, (x0 + 12, dy + 13), fit_text(f"† {nm}", 20, 150), size=20, anchor="lm")
            if any(d["cubes"]):
                _cube_row(draw, x0 + 165, dy, d["cubes"], 24)
            else:
                draw_text(draw, (x0 + 165, dy + 13), "no cubes", size=18, fill=MUTED, anchor="lm")
            dy += 30
    else:
        draw_text(draw, (x0 + 12, dy + 13), "Dead pile: empty", size=19, fill=MUTED, anchor="lm")


def _rows(draw: ImageDraw.ImageDraw, view: dict[str, Any], y0: int) -> int:
    draw_text(draw, (PAD, y0), "Face-up cards and decks", size=26, bold=True)
    y = y0 + 40
    sizes = view["deck_sizes"]
    discards = view["discards"]
    for name, label in (("sin", "Sin row"), ("pardon", "Pardon row")):
        draw_text(draw, (PAD, y + 22), label, size=22, bold=True, anchor="lm")
        x = PAD + 130
        for slot, kind in enumerate(view["rows"][name]):
            bw = 190
            if kind:
                draw.rounded_rectangle([x, y, x + bw, y + 44], radius=8, fill=_card_fill(kind), outline=INK, width=2)
                draw_text(draw, (x + 10, y + 22), f"{slot + 1}. {card_text(kind).replace('Pardon: ', '')}", size=20, fill=WHITE, bold=True,
                          anchor="lm", max_width=bw - 14)
            else:
                draw.rounded_rectangle([x, y, x + bw, y + 44], radius=8, outline=MUTED, width=2)
                draw_text(draw, (x + 10, y + 22), f"{slot + 1}. (empty)", size=20, fill=MUTED, anchor="lm")
            x += bw + 10
        top = discards[name][-1] if discards[name] else None
        info = f"Deck {sizes[name]} · Discard {len(discards[name])}"
        draw_text(draw, (x + 4, y + 12), info, size=19, anchor="lm", max_width=WIDTH - x - PAD)
        if top:
            draw_text(draw, (x + 4, y + 34), f"top: {card_text(top)}", size=17, fill=MUTED, anchor="lm",
                      max_width=WIDTH - x - PAD)
        y += 54
    top = discards["relic"][-1] if discards["relic"] else None
    relic = f"Relic deck {sizes['relic']} · Relic discard {len(discards['relic'])}"
    if top:
        relic += f" (top: {card_text(top)})"
    relic += f" · Pilgrims left {view['pilgrim_deck']}"
    draw_text(draw, (PAD, y + 12), relic, size=20, anchor="lm", max_width=WIDTH - 2 * PAD)
    return y + 40


def _final(draw: ImageDraw.ImageDraw, view: dict[str, Any], names: Sequence[str], y0: int) -> int:
    final = view.get("final")
    if not final:
        return y0
    draw_text(draw, (PAD, y0), "Final scoring", size=28, bold=True)
    y = y0 + 42
    cols = ["Player", "Coins", "Road", "Red", "Yellow", "Blue", "Tokens", "Total"]
    xs = [PAD, 380, 490, 590, 690, 800, 900, 1000]
    for c, x in zip(cols, xs, strict=True):
        draw_text(draw, (x, y), c, size=20, bold=True, fill=MUTED)
    y += 30
    for q in final["ranking"]:
        win = q in final["winners"]
        if win:
            draw.rectangle([PAD - 6, y - 4, WIDTH - PAD, y + 30], fill=HIGHLIGHT)
        vals = [seat_label(q, names), final["coins"][q], final["road"][q], final["companies"]["red"][q],
                final["companies"]["yellow"][q], final["companies"]["blue"][q], final["tokens"][q],
                final["totals"][q]]
        for i, (v, x) in enumerate(zip(vals, xs, strict=True)):
            draw_text(draw, (x, y), str(v), size=22, bold=win or i == 7, max_width=(xs[1] - xs[0] - 10) if i == 0
                      else None)
        y += 36
    draw_text(draw, (PAD, y + 4), _fmt(str(final.get("reason", "")), names), size=20, fill=INK,
              max_width=WIDTH - 2 * PAD)
    return y + 40


# --------------------------------------------------------------------------- public entry points


def render_board(view: dict[str, Any], *, names: Sequence[str], highlight: str | None = None) -> Image.Image:
    """Draw the public board from ``player_view(state, None)`` (spec §11).

    Args:
        view: the public view (keys: players, active, turn, step, lastrites_turn, edition, deaths,
            parson, circle, centre, circle_strength, completions, companies, road, road_values, rows,
            deck_sizes, discards, pilgrim_deck, hand_counts, tokens, token_supply, in_play, over, final).
        names: display names by seat.
        highlight: a company id (``red``/``yellow``/``blue``) to outline, or None.
    Returns:
        An RGB image ``WIDTH`` px wide.
    """
    height = 2000
    img, draw = canvas(height)
    y = _banner(draw, view, names, 0)
    top = y + 10
    bottom_left = _circle(draw, view, PAD, top)
    rx = PAD + 490
    rw = WIDTH - rx - PAD
    ry = _road(draw, view, rx, top, rw)
    ry = _scoreboard(draw, view, names, rx, ry + 6, rw)
    y = max(bottom_left, ry) + 10
    # companies
    ch = _company_height(view)
    cw = (WIDTH - 2 * PAD - 2 * 14) // 3
    for i, co in enumerate(COMPANIES):
        x = PAD + i * (cw + 14)
        _company(draw, view, co, x, y, cw, ch)
        if highlight == co:
            draw.rounded_rectangle([x - 5, y - 5, x + cw + 5, y + ch + 5], radius=14, outline=HIGHLIGHT, width=6)
    y += ch + 20
    y = _rows(draw, view, y)
    y = _final(draw, view, names, y + 6)
    return img.crop((0, 0, WIDTH, y + 10))


def _company_height(view: dict[str, Any]) -> int:
    h = 0
    for co in COMPANIES:
        comp = view["companies"][co]
        rows = max(1, (len(comp["cards"]) + 1) // 2)
        extra = 40 if comp["doomed"] else 0
        h = max(h, HEAD + 8 + extra + 36 + rows * 40 + 30 + 30 * max(1, len(comp["dead"])) + 30)
    return h


def render_private(view: dict[str, Any], *, names: Sequence[str]) -> Image.Image:
    """Draw one seat's private view (``player_view(state, seat)``): hand, coins,
    pardon payouts and notes from St. Benedict / St. Isidore.

    Keys used beyond the public ones: seat, hand, coins, notes, pardon_options,
    isidore_drawn (optional), selected (optional).
    """
    seat = int(view.get("seat", 0))
    hand: list[str] = list(view.get("hand", []))
    notes: list[str] = list(view.get("notes", []))
    options: list[dict[str, Any]] = list(view.get("pardon_options", []))
    drawn: list[str] = list(view.get("isidore_drawn", []))
    height = 200 + 60 * max(1, len(hand)) + 34 * len(options) + 32 * len(notes) + (80 if drawn else 0) + 120
    img, draw = canvas(height)
    draw.rectangle([0, 0, WIDTH, 70], fill=seat_colour(seat))
    draw_text(draw, (PAD, 35), f"Your hand — {seat_label(seat, names)}", size=30, fill=WHITE, bold=True,
              anchor="lm", max_width=WIDTH - 320)
    draw_text(draw, (WIDTH - PAD, 35), f"Coins: {view.get('coins', 0)}", size=32, fill=WHITE, bold=True,
              anchor="rm")
    y = 90
    selected = view.get("selected")
    if not hand:
        draw_text(draw, (PAD, y), "(no cards)", size=24, fill=MUTED)
        y += 50
    for kind in hand:
        fill = _card_fill(kind)
        draw.rounded_rectangle([PAD, y, PAD + 560, y + 50], radius=10, fill=fill, outline=INK, width=2)
        kind_label = {"sin": "SIN", "pardon": "PARDON", "relic": "RELIC"}.get(kind.split("-", 1)[0], "")
        draw_text(draw, (PAD + 14, y + 25), kind_label, size=18, fill=WHITE, anchor="lm", bold=True)
        draw_text(draw, (PAD + 110, y + 25), card_text(kind).replace("Pardon: ", ""), size=24, fill=WHITE,
                  bold=True, anchor="lm", max_width=440)
        help_x = PAD + 575
        if selected == kind:
            draw_text(draw, (help_x, y + 25), "◀ selected", size=22, bold=True, anchor="lm")
            help_x += 130
            selected = None
        if kind.startswith("relic-"):
            draw_text(draw, (help_x, y + 25), RELIC_HELP.get(kind[6:], ""), size=20, fill=INK, anchor="lm",
                      max_width=WIDTH - PAD - help_x)
        y += 60
    if drawn:
        y += 6
        draw_text(draw, (PAD, y), "St. Isidore shows: " + ", ".join(card_text(k) for k in drawn), size=22,
                  bold=True, max_width=WIDTH - 2 * PAD)
        y += 50
    if options:
        y += 6
        draw_text(draw, (PAD, y), "Pardons you can play now", size=24, bold=True)
        y += 36
        for o in options:
            line = (f"{SIN_NAMES.get(o['sin'], o['sin'])} on {o['company']}: {o['cards']} card(s) → "
                    f"{o['coins']} coin{'s' if o['coins'] != 1 else ''}")
            draw_text(draw, (PAD + 10, y), line, size=22)
            y += 34
    if notes:
        y += 6
        draw_text(draw, (PAD, y), "Remember", size=24, bold=True)
        y += 36
        for note in notes:
            draw_text(draw, (PAD + 10, y), _fmt(note, names), size=20, max_width=WIDTH - 2 * PAD - 10)
            y += 32
    return img.crop((0, 0, WIDTH, y + 20)).convert("RGB") if y + 20 < height else img


__all__ = ["render_board", "render_private", "card_text", "BG"]
