"""Board renderer for The Road to Canterbury (docs/rules/canterbury.md §11 "Board image").

``render_board`` draws the public view (``engines.canterbury.view.PublicView``): the turn
banner, the Circle of Sin with every player's cubes, the centre and the Parson, the Road
with its five spaces, the public scoreboard (never coins), the three companies with their
pilgrims' cards, and the face-up rows with deck sizes. ``render_private`` draws one seat's
hand, coins and pardon payouts (``PrivateView``). Every word comes from the catalog
through ``text`` (``board.*``, ``help.*`` and ``term.*`` keys of
``bot/text/en/canterbury.toml``); colours and Chinese names from
``engines/canterbury/data.py``; seat letters are badges only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from engines.base import Msg, msg, seat_letter, seat_ref, term
from engines.canterbury.data import (
    CARDS,
    COMPANIES,
    COMPANY_FILL,
    COMPANY_INK,
    NICHOLAS,
    ROAD_VALUES,
    SIN_FILL,
    SINS,
    card_fill,
    sin_zh,
)
from engines.canterbury.view import CompanyView, PrivateView, PublicView
from render.base import (
    HIGHLIGHT,
    INK,
    LINE,
    MUTED,
    PANEL,
    WHITE,
    TextFormatter,
    canvas,
    draw_text,
    fit_text,
    legend,
    seat_colour,
    text_width,
    wrap_text,
)

WIDTH = 720
"""Width (px) of every Canterbury image: a phone shows it about 360 px wide, at half size (every
text on the board ≥ 16 px, 8 px there; on the zooms ≥ 20 px)."""
DOOMED = (200, 20, 20)
GREY = (185, 182, 176)
DARK = (45, 45, 50)
PAD = 14


def _b(text: TextFormatter, key: str, **params: Any) -> str:
    """A ``board.<key>`` text."""
    return text(msg(f"board.{key}", **params))


def _label(text: TextFormatter, seat: int) -> str:
    """``"A · Ann"``: the seat letter (a badge) and the display name (``Texts.name``)."""
    return _b(text, "seat_label", letter=seat_letter(seat), name=seat_ref(seat))


def _term(text: TextFormatter, key: str) -> str:
    """The published name of a game term (``term.<key>``)."""
    return _b(text, "name", name=term(key))


def card_text(text: TextFormatter, kind: str) -> str:
    """Short text of a card kind ("Greed", "Pardon: Greed", "DEATH (red)", a relic's name)."""
    card = CARDS[kind]
    if card.kind == "sin":
        return _b(text, "card_sin", sin=term(f"sin.{card.sin}"))
    if card.kind == "pardon":
        return _b(text, "card_pardon", sin=term(f"sin.{card.sin}"))
    if card.kind == "death":
        return _b(text, "card_death", company=term(f"company.{card.company}"))
    return _term(text, f"card.{kind}")


def _face_name(text: TextFormatter, kind: str) -> str:
    """A card's name on a row slot or in the hand: the sin for Sin and Pardon cards."""
    card = CARDS[kind]
    return _term(text, f"sin.{card.sin}") if card.sin else card_text(text, kind)


def _cube(draw: ImageDraw.ImageDraw, x: float, y: float, seat: int, size: int = 22, count: int | None = None) -> float:
    """A seat cube: coloured square with the seat badge; returns the right edge."""
    draw.rectangle([x, y, x + size, y + size], fill=seat_colour(seat), outline=INK, width=2)
    draw_text(draw, (x + size / 2, y + size / 2), seat_letter(seat), size=max(16, int(size * 0.8)), fill=WHITE,
              bold=True, anchor="mm")
    right = x + size
    if count is not None and count != 1:
        draw_text(draw, (right + 2, y + size / 2), f"×{count}", size=max(16, int(size * 0.8)), anchor="lm",
                  bold=True)
        right += 3 + text_width(f"×{count}", max(16, int(size * 0.8)), True)
    return right


def _cube_row(draw: ImageDraw.ImageDraw, x: float, y: float, counts: Sequence[int], size: int = 22) -> float:
    for seat, n in enumerate(counts):
        if n > 0:
            x = _cube(draw, x, y, seat, size, n) + 6
    return x


# --------------------------------------------------------------------------- sections


def _lines(draw: ImageDraw.ImageDraw, x: float, y: float, line: str, size: int, width: float, most: int,
           step: int, **kw: Any) -> float:
    """``line`` wrapped (``_wrap``) in at most ``most`` lines from (x, y) (top left), ``step`` px apart;
    returns the y under the last line drawn."""
    for part in wrap_text(line, size, width, bool(kw.get("bold")))[:most]:
        draw_text(draw, (x, y), part, size=size, **kw)
        y += step
    return y


def _left(view: PublicView) -> set[int]:
    """The seats whose player left the game (the host's ``left`` key of the view)."""
    left: Any = view.get("left") or ()
    return {int(seat) for seat in left}


BANNER_H = 56
"""Height (px) of the title bar."""
STATUS_H = 56
"""Height (px) of the status lines under the title bar (two lines of 18 px)."""


def _banner(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, title: str) -> int:
    """The title bar (``title``, whose turn or the winners) and up to two status lines; returns their bottom."""
    n = view["players"]
    draw.rectangle([0, 0, WIDTH, BANNER_H], fill=DARK)
    if view["over"]:
        winners = view["final"]["winners"] if view["final"] else []
        line = (_b(text, "winner", names=[_label(text, w) for w in winners]) if winners
                else _b(text, "game_over"))
        fill = HIGHLIGHT
        draw_text(draw, (WIDTH - PAD, BANNER_H / 2), line, size=22, fill=fill, bold=True, anchor="rm")
        right = text_width(line, 22, True) + 24
    else:
        seat = view["active"] % n
        key = "turn_lastrites" if view["lastrites_turn"] else "turn"
        line = _b(text, key, turn=view["turn"], player=_label(text, seat))
        w = text_width(line, 22, True)
        draw.rounded_rectangle([WIDTH - PAD - w - 16, 9, WIDTH - PAD, BANNER_H - 9], radius=6, fill=seat_colour(seat))
        draw_text(draw, (WIDTH - PAD - 8, BANNER_H / 2), line, size=22, fill=WHITE, bold=True, anchor="rm")
        right = w + 40
    room = WIDTH - 2 * PAD - right
    if text_width(title, 24, True) <= room:
        draw_text(draw, (PAD, BANNER_H / 2), title, size=24, fill=WHITE, bold=True, anchor="lm")
    parts = []
    if view["step"] and not view["over"]:
        parts.append(_b(text, "now", step=_b(text, f"step.{view['step']}")))
    if view["in_play"]:
        parts.append(_b(text, "in_play", cards=[card_text(text, k) for k in view["in_play"]]))
    parts += [_b(text, "deaths", deaths=view["deaths"], of=len(ROAD_VALUES)),
              _b(text, "edition", edition=view["edition"])]
    _lines(draw, PAD, BANNER_H + 6, "  ·  ".join(parts), 18, WIDTH - 2 * PAD, 2, 24, fill=INK)
    return BANNER_H + STATUS_H


CIRCLE_BOX = 372
"""Width and height (px) of the Circle of Sin's box (its title included)."""
SIN_R = 46
"""Radius (px) of a sin of the Circle."""


def _circle(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, x0: int, y0: int, k: float = 1.0,
            numbers: dict[str, int] | None = None) -> int:
    """The Circle of Sin in a square box of ``CIRCLE_BOX`` × ``k`` px under its title (``k`` > 1: the
    decision picture, with ``numbers`` in yellow badges outside the sins); returns its bottom."""
    size = round(CIRCLE_BOX * k)
    title = round(20 * k)
    draw_text(draw, (x0, y0), _b(text, "circle"), size=title, bold=True)
    top = y0 + round(28 * k)
    cx, cy = x0 + size // 2, top + (size - round(28 * k)) // 2
    ring = round(128 * k)
    draw.ellipse([cx - ring, cy - ring, cx + ring, cy + ring], outline=LINE, width=3)
    n = view["players"]
    word = round(16 * k)
    for i, sin in enumerate(SINS):
        ang = -math.pi / 2 + 2 * math.pi * i / len(SINS)
        sx, sy = cx + ring * math.cos(ang), cy + ring * math.sin(ang)
        r = round(SIN_R * k)
        parson = view["parson"] == sin
        if parson:
            draw.ellipse([sx - r - 6, sy - r - 6, sx + r + 6, sy + r + 6], fill=HIGHLIGHT, outline=INK, width=2)
        draw.ellipse([sx - r, sy - r, sx + r, sy + r], fill=SIN_FILL[sin], outline=INK, width=2)
        draw_text(draw, (sx, sy - 22 * k), _term(text, f"sin.{sin}"), size=word, fill=WHITE, bold=True, anchor="mm")
        draw_text(draw, (sx, sy - 3 * k), _b(text, "circle_native", native=sin_zh(sin)), size=word, fill=WHITE,
                  anchor="mm")
        owners = [q for q in range(n) if sin in view["circle"][q]]
        cs = round(20 * k)
        total = len(owners) * (cs + 2) - 2
        bx = sx - total / 2
        for q in owners:
            _cube(draw, bx, sy + 9 * k, q, cs)
            bx += cs + 2
        if numbers and sin in numbers:  # (outside the sin, away from the centre)
            out = ring + r + 20 * k
            nx, ny = cx + out * math.cos(ang), cy + out * math.sin(ang)
            br = round(16 * k)
            draw.ellipse([nx - br, ny - br, nx + br, ny + br], fill=HIGHLIGHT, outline=INK, width=2)
            draw_text(draw, (nx, ny), str(numbers[sin]), size=round(20 * k), bold=True, anchor="mm")
    cr = round(62 * k)
    draw.ellipse([cx - cr, cy - cr, cx + cr, cy + cr], fill=PANEL, outline=INK, width=2)
    draw_text(draw, (cx, cy - 30 * k), _b(text, "centre"), size=round(18 * k), bold=True, anchor="mm")
    centre = view["centre"]
    if any(centre):
        cells = [q for q in range(n) if centre[q]]
        rows = [cells[:2], cells[2:4], cells[4:]]
        yy = cy - 14 * k
        cube = round(22 * k)
        count = max(16, int(cube * 0.8))
        for row in rows:
            if not row:
                continue
            width = sum(cube + 3 + (text_width(f"×{centre[q]}", count, True) if centre[q] > 1 else 0) + 6
                        for q in row)
            bx = cx - width / 2
            for q in row:
                bx = _cube(draw, bx, yy, q, cube, centre[q] if centre[q] > 1 else None) + 6
            yy += cube + 4
    else:
        draw_text(draw, (cx, cy + 4 * k), _b(text, "nothing"), size=round(20 * k), fill=MUTED, anchor="mm")
    return y0 + size


ROAD_ROW = 52
"""Height (px) of one space of the Road."""


def _road(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, x0: int, y0: int, w: int) -> int:
    """The Road: five spaces, one a row, the next death's space marked; returns its bottom."""
    draw_text(draw, (x0, y0), _b(text, "road_short"), size=20, bold=True)
    y = y0 + 30
    nxt = view["deaths"]
    for k, v in enumerate(view["road_values"]):
        fill = HIGHLIGHT if k == nxt and not view["over"] else PANEL
        draw.rounded_rectangle([x0, y, x0 + w, y + ROAD_ROW - 6], radius=8, fill=fill, outline=INK, width=2)
        label = _b(text, "road_space", space=k + 1, value=v)
        mid = y + (ROAD_ROW - 6) / 2
        draw_text(draw, (x0 + 10, mid), label, size=18, bold=True, anchor="lm")
        cx = x0 + 18 + max(text_width(label, 18, True), 60)
        for q, c in enumerate(view["road"][k]):
            if c:
                cx = _cube(draw, cx, mid - 11, q, 22, c) + 6
        if k == nxt and not view["over"]:
            draw_text(draw, (x0 + w - 10, mid), _b(text, "road_next_tag"), size=16, bold=True, anchor="rm")
        y += ROAD_ROW
    where = _term(text, f"sin.{view['parson']}") if view["parson"] else _b(text, "nothing")
    under = _lines(draw, x0 + 2, y + 4, _b(text, "parson", sin=where), 18, w - 4, 2, 24, fill=INK, bold=True)
    under = _lines(draw, x0 + 2, under, _b(text, "lastrites_left", n=view["token_supply"]), 18, w - 4, 2, 24,
                   fill=INK)
    return int(under)


PARDONER_H = 66
"""Height (px) of one pardoner's row (two lines)."""


def _scoreboard(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, y0: int) -> int:
    """One row per pardoner: badge, name, hand and tokens; Circle, centre, strength, Road and the
    7-sin completions (never coins); a player who left is greyed and tagged. Returns the bottom."""
    left = _left(view)
    y = y0
    for q in range(view["players"]):
        active = q == view["active"] and not view["over"]
        gone = q in left
        draw.rounded_rectangle([PAD - 4, y, WIDTH - PAD + 4, y + PARDONER_H - 6], radius=8,
                               fill=HIGHLIGHT if active else (LINE if gone else PANEL), outline=seat_colour(q), width=3)
        _cube(draw, PAD + 4, y + 6, q, 24)
        name = fit_text(_name_of(text, q), 20, 230, True)
        draw_text(draw, (PAD + 36, y + 18), name, size=20, bold=True, anchor="lm", fill=MUTED if gone else INK)
        hc = view["hand_counts"][q]
        hand = _b(text, "hand", total=hc["total"], sin=hc["sin"], pardon=hc["pardon"], relic=hc["relic"],
                  tokens=view["tokens"][q])
        x = PAD + 36 + text_width(name, 20, True) + 10
        if gone:
            tag = _b(text, "left_game")
            w = text_width(tag, 16, True) + 12
            draw.rounded_rectangle([x, y + 7, x + w, y + 29], radius=5, fill=MUTED)
            draw_text(draw, (x + 6, y + 18), tag, size=16, bold=True, fill=WHITE, anchor="lm")
        draw_text(draw, (WIDTH - PAD - 6, y + 18), hand, size=18, anchor="rm")
        line2 = _b(text, "strength", n=len(view["circle"][q]), centre=view["centre"][q],
                   strength=view["circle_strength"][q])
        line2 += _b(text, "road_cubes", n=sum(r[q] for r in view["road"]))
        done = view["completions"].count(q)
        if done:
            line2 += _b(text, "completions", ticks="✓" * done)
        draw_text(draw, (PAD + 6, y + 44), line2, size=18, anchor="lm")
        y += PARDONER_H
    legend(seat_letter(q) for q in range(view["players"]))  # (each cube's letter: its pardoner's badge)
    return y


def _name_of(text: TextFormatter, seat: int) -> str:
    return _b(text, "name", name=seat_ref(seat))


def _pilgrim_card(text: TextFormatter, kind: str, up: bool) -> str:
    if CARDS[kind].kind == "death":
        return _b(text, "death_up" if up else "death_down")
    if kind == NICHOLAS:
        return _term(text, f"short.{kind}")
    return card_text(text, kind)


COMPANY_H = 150
"""Height (px) of a company's summary on the board."""


def _company_summary(draw: ImageDraw.ImageDraw, comp: CompanyView, co: str, text: TextFormatter, x0: int, y0: int,
                     w: int) -> None:
    """A company on the board: its name, the living pilgrim and sin, its cards (n/7), the cubes on
    it and DOOMED when it dies this turn (its cards and dead pile: the companies zoom)."""
    h = COMPANY_H - 10
    draw.rounded_rectangle([x0, y0, x0 + w, y0 + h], radius=10, fill=PANEL, outline=COMPANY_FILL[co], width=3)
    draw.rounded_rectangle([x0, y0, x0 + w, y0 + 84], radius=10, fill=COMPANY_FILL[co])
    fg = COMPANY_INK[co]
    draw_text(draw, (x0 + 8, y0 + 14), _b(text, "company", company=term(f"company.{co}")).upper(), size=16, fill=fg,
              bold=True, anchor="lm")
    if comp["pilgrim"] and comp["sin"]:
        count = _b(text, "count", count=comp["count"])
        cw = text_width(count, 22, True)
        draw_text(draw, (x0 + w - 8, y0 + 14), count, size=22, fill=fg, bold=True, anchor="rm")
        pilgrim = _term(text, f"pilgrim.{comp['pilgrim']}")
        size = 20 if text_width(pilgrim, 20, True) <= w - 16 else 16
        draw_text(draw, (x0 + 8, y0 + 42), pilgrim, size=size, fill=fg, bold=True, anchor="lm")
        sin = comp["sin"]
        draw_text(draw, (x0 + 8, y0 + 68), _b(text, "pilgrim_sin", sin=term(f"sin.{sin}"), native=sin_zh(sin)),
                  size=16, fill=fg, anchor="lm")
        del cw
    else:
        draw_text(draw, (x0 + 8, y0 + 42), _b(text, "no_pilgrim"), size=18, fill=fg, anchor="lm")
    y = y0 + 96
    if comp["doomed"]:
        draw.rectangle([x0 + 4, y - 8, x0 + w - 4, y + 16], fill=DOOMED)
        draw_text(draw, (x0 + w / 2, y + 4), _b(text, "doomed_short"), size=16, fill=WHITE, bold=True, anchor="mm")
        y += 24
    if any(comp["cubes"]):
        x: float = x0 + 8
        for q, c in enumerate(comp["cubes"]):
            if c:
                if x + 46 > x0 + w:
                    break
                x = _cube(draw, x, y, q, 22, c) + 6
    else:
        draw_text(draw, (x0 + 8, y + 11), _b(text, "no_cubes_on", what=_b(text, "cubes")), size=16, fill=MUTED,
                  anchor="lm")


def _company(draw: ImageDraw.ImageDraw, comp: CompanyView, co: str, text: TextFormatter, x0: int, y0: int, w: int) -> int:
    """A company in full (the companies zoom, every text ≥ 20 px): pilgrim, sin, count, cubes, its
    cards (face down: pardoned) and its dead pile; returns its bottom."""
    fg = COMPANY_INK[co]
    top = y0
    draw.rounded_rectangle([x0, y0, x0 + w, y0 + 90], radius=10, fill=COMPANY_FILL[co])
    head = _b(text, "company", company=term(f"company.{co}")).upper()
    draw_text(draw, (x0 + 10, y0 + 18), head, size=20, fill=fg, bold=True, anchor="lm")
    if comp["pilgrim"] and comp["sin"]:
        draw_text(draw, (x0 + w - 10, y0 + 46), _b(text, "count", count=comp["count"]), size=24, fill=fg, bold=True,
                  anchor="rm")
        draw_text(draw, (x0 + 10, y0 + 46), _term(text, f"pilgrim.{comp['pilgrim']}"), size=22, fill=fg, bold=True,
                  anchor="lm")
        sin = comp["sin"]
        draw_text(draw, (x0 + 10, y0 + 72), _b(text, "pilgrim_sin", sin=term(f"sin.{sin}"), native=sin_zh(sin)),
                  size=20, fill=fg, anchor="lm")
    else:
        draw_text(draw, (x0 + 10, y0 + 46), _b(text, "no_pilgrim"), size=20, fill=fg, anchor="lm")
    y = y0 + 100
    if comp["doomed"]:
        draw.rectangle([x0, y, x0 + w, y + 30], fill=DOOMED)
        draw_text(draw, (x0 + w / 2, y + 15), _b(text, "doomed_short"), size=20, fill=WHITE, bold=True, anchor="mm")
        y += 38
    if any(comp["cubes"]):
        x: float = x0 + 4
        for q, c in enumerate(comp["cubes"]):
            if c:
                x = _cube(draw, x, y, q, 26, c) + 6
    else:
        draw_text(draw, (x0 + 4, y + 12), _b(text, "no_cubes_on", what=_b(text, "cubes")), size=20, fill=MUTED,
                  anchor="lm")
    y += 34
    for card in comp["cards"]:
        kind = card["kind"]
        label = _pilgrim_card(text, kind, card["up"])
        if card["up"]:
            draw.rounded_rectangle([x0, y, x0 + w, y + 32], radius=6, fill=card_fill(kind), outline=INK, width=2)
            draw_text(draw, (x0 + 8, y + 16), label, size=20, fill=WHITE, bold=True, anchor="lm")
        else:
            draw.rounded_rectangle([x0, y, x0 + w, y + 32], radius=6, fill=GREY, outline=MUTED, width=2)
            draw_text(draw, (x0 + 8, y + 16), _b(text, "pardoned", card=label), size=20, fill=DARK, anchor="lm")
        y += 38
    if not comp["cards"]:
        draw_text(draw, (x0 + 4, y + 12), _b(text, "no_cards_yet"), size=20, fill=MUTED, anchor="lm")
        y += 34
    draw.line([x0, y + 2, x0 + w, y + 2], fill=LINE, width=2)
    y += 8
    if comp["dead"]:
        for d in comp["dead"]:
            draw_text(draw, (x0 + 4, y + 12), _b(text, "dead", pilgrim=term(f"pilgrim.{d['pilgrim']}")), size=20,
                      anchor="lm")
            y += 28
            if any(d["cubes"]):
                _cube_row(draw, x0 + 4, y, d["cubes"], 26)
                y += 28
    else:
        draw_text(draw, (x0 + 4, y + 12), _b(text, "dead_empty"), size=20, fill=MUTED, anchor="lm")
        y += 28
    del top
    return y


ROWS_H = 112
"""Height (px) of the face-up rows on the board (two rows of 48 and 16 px under them)."""


def _rows(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, y0: int, size: int = 18) -> int:
    """The Sin and Pardon rows of face-up cards, each with its deck and discard sizes; returns the bottom."""
    y = y0
    sizes = view["deck_sizes"]
    discards = view["discards"]
    label_w = max(text_width(_b(text, f"row_{name}"), size, True) for name in ("sin", "pardon")) + 12
    small = 20 if size >= 22 else 16
    deck_w = max(max(text_width(_b(text, "deck_short", deck=sizes[name]), small),
                     text_width(_b(text, "discard_short", discard=len(discards[name])), small))
                 for name in ("sin", "pardon")) + 8
    bw = (WIDTH - 2 * PAD - label_w - deck_w - 3 * 6) / 3
    for name in ("sin", "pardon"):
        draw_text(draw, (PAD, y + 20), _b(text, f"row_{name}"), size=size, bold=True, anchor="lm")
        x = PAD + label_w
        for slot, kind in enumerate(view["rows"][name]):
            if kind:
                draw.rounded_rectangle([x, y, x + bw, y + 40], radius=6, fill=card_fill(kind), outline=INK, width=2)
                draw_text(draw, (x + 6, y + 20), _b(text, "slot", slot=slot + 1, card=_face_name(text, kind)),
                          size=size, fill=WHITE, bold=True, anchor="lm")
            else:
                draw.rounded_rectangle([x, y, x + bw, y + 40], radius=6, outline=MUTED, width=2)
                draw_text(draw, (x + 6, y + 20), _b(text, "slot_empty", slot=slot + 1), size=size, fill=MUTED,
                          anchor="lm")
            x += bw + 6
        draw_text(draw, (WIDTH - PAD, y + 10), _b(text, "deck_short", deck=sizes[name]), size=small, anchor="rm")
        draw_text(draw, (WIDTH - PAD, y + 31), _b(text, "discard_short", discard=len(discards[name])), size=small,
                  anchor="rm", fill=MUTED)
        y += 48
    return y


def _final(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, y0: int) -> int:
    """The final scoring table (game over) from ``y0``; returns its bottom."""
    final = view["final"]
    if not final:
        return y0
    draw_text(draw, (PAD, y0), _b(text, "final"), size=20, bold=True)
    y = y0 + 30
    cols = ["coins", "road", *COMPANIES, "tokens", "total"]
    name_w = 190
    cw = (WIDTH - 2 * PAD - name_w) / len(cols)
    xs = [PAD + name_w + cw * (i + 0.5) for i in range(len(cols))]
    draw_text(draw, (PAD, y + 12), _b(text, "col_player"), size=16, bold=True, fill=MUTED, anchor="lm")
    for c, x in zip(cols, xs, strict=True):
        draw_text(draw, (x, y + 12), _b(text, f"col_{c}"), size=16, bold=True, fill=MUTED, anchor="mm")
    y += 28
    for q in final["ranking"]:
        win = q in final["winners"]
        if win:
            draw.rectangle([PAD - 4, y, WIDTH - PAD + 4, y + 28], fill=HIGHLIGHT)
        draw_text(draw, (PAD, y + 14), fit_text(_label(text, q), 18, name_w - 8, True), size=18, bold=True, anchor="lm")
        vals = [final["coins"][q], final["road"][q], *(final["companies"][co][q] for co in COMPANIES),
                final["tokens"][q], final["totals"][q]]
        for i, (v, x) in enumerate(zip(vals, xs, strict=True)):
            draw_text(draw, (x, y + 14), str(v), size=18, bold=win or i == len(vals) - 1, anchor="mm")
        y += 30
    return int(_lines(draw, PAD, y + 4, text(final["reason"]), 16, WIDTH - 2 * PAD, 3, 22, fill=INK))


# --------------------------------------------------------------------------- public entry points


def _bottom_h(players: int) -> int:
    """Room (px) under the companies: the face-up rows in play, the final scoring at the end."""
    return max(ROWS_H, 30 + 28 + 30 * players + 4 + 3 * 22) + 6


def _board_height(view: PublicView) -> int:
    """The height (px) of ``render_board``'s image: one height per player count."""
    n = view["players"]
    top = BANNER_H + STATUS_H + 6
    return top + CIRCLE_BOX + 6 + PARDONER_H * n + 8 + COMPANY_H + 6 + _bottom_h(n)


def render_board(view: PublicView, *, names: Sequence[str], text: TextFormatter, highlight: str | None = None) -> Image.Image:
    """Draw the public board (§11 "Board image") for a phone: the title bar (whose turn), the
    status, the Circle of Sin beside the Road, one row per pardoner, the three companies in short
    and the face-up rows (the final scoring at the end). The companies in full and the decks are
    zooms (``render_zoom``).

    Args:
        view: ``player_view(state, None)`` (``PublicView``); the host may add ``left``: the seats
            whose player left the game (resigned or removed), marked.
        names: display names by seat.
        text: formats a ``Msg`` or its JSON (``bot.text.Texts`` of the game and its names).
        highlight: a company id (``red``/``yellow``/``blue``) to outline, or None.
    Returns:
        An RGB image ``WIDTH`` px wide.
    """
    img, draw = canvas(_board_height(view), WIDTH)
    y = _banner(draw, view, text, _b(text, "title")) + 6
    bottom = _circle(draw, view, text, PAD - 4, y)
    rx = PAD + CIRCLE_BOX + 4
    _road(draw, view, text, rx, y, WIDTH - PAD - rx)
    y = bottom + 6
    y = _scoreboard(draw, view, text, y) + 8
    cw = (WIDTH - 2 * PAD - 2 * 8) // 3
    for i, co in enumerate(COMPANIES):
        x = PAD + i * (cw + 8)
        _company_summary(draw, view["companies"][co], co, text, x, y, cw)
        if highlight == co:
            draw.rounded_rectangle([x - 4, y - 4, x + cw + 4, y + COMPANY_H - 6], radius=12, outline=HIGHLIGHT,
                                   width=4)
    y += COMPANY_H + 6
    if view["final"]:
        _final(draw, view, text, y)
    else:
        _rows(draw, view, text, y)
    return img


def zoom_regions(view: PublicView) -> list[tuple[str, Msg]]:
    """The parts of the table a reader may look at closely: the companies in full (cards, dead
    piles) and the face-up rows with the decks and discards."""
    return [("companies", msg("board.zoom_companies")), ("rows", msg("board.zoom_rows"))]


def render_zoom(view: PublicView, region: str, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """One region of ``zoom_regions`` drawn at phone size (every text ≥ 20 px on 720 px)."""
    if region == "companies":
        img, draw = canvas(1400, WIDTH)
        draw.rectangle([0, 0, WIDTH, 50], fill=DARK)
        draw_text(draw, (PAD, 25), _b(text, "companies"), size=24, fill=WHITE, bold=True, anchor="lm")
        cw = (WIDTH - 2 * PAD - 2 * 8) // 3
        bottom = 0
        for i, co in enumerate(COMPANIES):
            bottom = max(bottom, _company(draw, view["companies"][co], co, text, PAD + i * (cw + 8), 62, cw))
        y = bottom + 6
        if any(not c["up"] for co in COMPANIES for c in view["companies"][co]["cards"]):
            y = int(_lines(draw, PAD, y, _b(text, "pardoned_key"), 20, WIDTH - 2 * PAD, 2, 28, fill=MUTED))
        legend(seat_letter(q) for q in range(view["players"]))  # (the cubes' letters: as on the board)
        return img.crop((0, 0, WIDTH, y + 10))
    img, draw = canvas(520, WIDTH)
    draw.rectangle([0, 0, WIDTH, 50], fill=DARK)
    draw_text(draw, (PAD, 25), _b(text, "rows"), size=24, fill=WHITE, bold=True, anchor="lm")
    y = _rows(draw, view, text, 64, size=22) + 8
    sizes = view["deck_sizes"]
    discards = view["discards"]
    for name in ("sin", "pardon"):
        if discards[name]:
            line = _b(text, f"row_{name}") + ": " + _b(text, "top", card=card_text(text, discards[name][-1]))
            y = int(_lines(draw, PAD, y, line, 20, WIDTH - 2 * PAD, 2, 28, fill=INK))
    relic = _b(text, "relic_deck", deck=sizes["relic"], discard=len(discards["relic"]))
    if discards["relic"]:
        relic += _b(text, "relic_top", card=card_text(text, discards["relic"][-1]))
    relic += _b(text, "pilgrims_left", n=view["pilgrim_deck"])
    y = int(_lines(draw, PAD, y + 4, relic, 20, WIDTH - 2 * PAD, 3, 28, fill=INK))
    return img.crop((0, 0, WIDTH, y + 10))


DECISION_K = 1.6
"""Scale of the Circle of Sin on the Parson picture (every text ≥ 25 px on 720 px)."""


def _moves_parson(view: PublicView) -> bool:
    """Whether ``view`` is the private view of the player who moves the Parson now (St. Philip)."""
    return "seat" in view and view["step"] == "parson" and view["active"] == view.get("seat")


def draws_decision(view: PublicView) -> bool:
    """Whether ``render_decision`` draws a picture for this view: St. Philip's Parson move of its seat
    (the sins numbered as the panel's buttons)."""
    return _moves_parson(view)


def render_decision(view: PublicView, *, names: Sequence[str], text: TextFormatter) -> Image.Image | None:
    """The Parson picture of St. Philip's panel: the Circle of Sin with every sin numbered as its
    button ("N · Move the Parson to …", ``engines.canterbury.notation.parson_number``), or None when
    the view's seat has no Parson to move."""
    if not _moves_parson(view):
        return None
    size = round(CIRCLE_BOX * DECISION_K)
    img, draw = canvas(60 + 24 + size + 50, WIDTH)  # (the badges lie outside the sins: 24 px over, 50 under)
    draw.rectangle([0, 0, WIDTH, 50], fill=DARK)
    draw_text(draw, (PAD, 25), _b(text, "parson_picture"), size=22, fill=WHITE, bold=True, anchor="lm")
    legend(seat_letter(q) for q in range(view["players"]))  # (the cubes' letters: as on the board)
    _circle(draw, view, text, (WIDTH - size) // 2, 60 + 24, DECISION_K,
            {sin: i + 1 for i, sin in enumerate(SINS) if sin != view["parson"]})  # (it moves elsewhere)
    return img


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """Draw one seat's private view (``player_view(state, seat)``, §11 "Private views"):
    hand, coins, what each playable Pardon pays, the cards St. Isidore shows."""
    seat = view["seat"]
    hand = view["hand"]
    options = view["pardon_options"]
    drawn = view.get("isidore_drawn", [])
    height = 90 + 90 * max(1, len(hand)) + 90 + 60 * len(options) + 200
    img, draw = canvas(height, WIDTH)
    draw.rectangle([0, 0, WIDTH, 60], fill=seat_colour(seat))
    coins = _b(text, "coins", coins=view["coins"])
    draw_text(draw, (WIDTH - PAD, 30), coins, size=24, fill=WHITE, bold=True, anchor="rm")
    mine = _b(text, "your_hand", player=_label(text, seat))
    draw_text(draw, (PAD, 30), fit_text(mine, 24, WIDTH - 3 * PAD - text_width(coins, 24, True), True), size=24,
              fill=WHITE, bold=True, anchor="lm")
    legend([seat_letter(seat)])  # (the reader's letter beside their name)
    y = 76
    if not hand:
        draw_text(draw, (PAD, y), _b(text, "empty_hand"), size=22, fill=MUTED)
        y += 44
    for kind in hand:
        relic = CARDS[kind].kind == "relic"
        h = 84 if relic else 50
        draw.rounded_rectangle([PAD, y, WIDTH - PAD, y + h], radius=8, fill=card_fill(kind), outline=INK, width=2)
        kind_tag = _b(text, f"type_{CARDS[kind].deck}")
        draw_text(draw, (PAD + 10, y + 25), kind_tag, size=20, fill=WHITE, anchor="lm", bold=True)
        draw_text(draw, (PAD + 24 + text_width(kind_tag, 20, True), y + 25), _face_name(text, kind), size=22,
                  fill=WHITE, bold=True, anchor="lm")
        if relic:
            draw.rectangle([PAD + 6, y + 44, WIDTH - PAD - 6, y + h - 6], fill=PANEL)
            draw_text(draw, (PAD + 12, y + 62), text(msg(f"help.{kind[len('relic-'):]}")), size=20, fill=INK,
                      anchor="lm")
        y += h + 8
    if drawn:
        y = int(_lines(draw, PAD, y + 6, _b(text, "isidore", cards=[card_text(text, k) for k in drawn]), 20,
                       WIDTH - 2 * PAD, 3, 28, bold=True)) + 6
    if options:
        y += 6
        draw_text(draw, (PAD, y), _b(text, "pardons"), size=22, bold=True)
        y += 34
        for o in options:
            line = _b(text, "pardon_option_one" if o["coins"] == 1 else "pardon_option", sin=term(f"sin.{o['sin']}"),
                      company=term(f"company.{o['company']}"), cards=o["cards"], coins=o["coins"])
            y = int(_lines(draw, PAD + 8, y, line, 20, WIDTH - 2 * PAD - 8, 2, 28)) + 4
    return img.crop((0, 0, WIDTH, y + 16)) if y + 16 < height else img


__all__ = ["render_board", "render_private", "render_zoom", "zoom_regions", "render_decision", "draws_decision",
           "card_text", "WIDTH"]
