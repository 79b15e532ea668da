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
from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image, ImageDraw

from engines.base import msg, seat_letter, seat_ref, term
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
    WIDTH,
    canvas,
    draw_text,
    fit_text,
    seat_colour,
    text_width,
)

Text = Callable[[Any], str]
"""Formats a message (``Msg`` JSON) for the reader (``render/registry.py``)."""

DOOMED = (200, 20, 20)
GREY = (185, 182, 176)
DARK = (45, 45, 50)
PAD = 20
HEAD = 100


def _b(text: Text, key: str, **params: Any) -> str:
    """A ``board.<key>`` text."""
    return text(msg(f"board.{key}", **params))


def _label(text: Text, seat: int) -> str:
    """``"A · Ann"``: the seat letter (a badge) and the display name (``Texts.name``)."""
    return _b(text, "seat_label", letter=seat_letter(seat), name=seat_ref(seat))


def _term(text: Text, key: str) -> str:
    """The published name of a game term (``term.<key>``)."""
    return _b(text, "name", name=term(key))


def card_text(text: Text, kind: str) -> str:
    """Short text of a card kind ("Greed", "Pardon: Greed", "DEATH (red)", a relic's name)."""
    card = CARDS[kind]
    if card.kind == "sin":
        return _b(text, "card_sin", sin=term(f"sin.{card.sin}"))
    if card.kind == "pardon":
        return _b(text, "card_pardon", sin=term(f"sin.{card.sin}"))
    if card.kind == "death":
        return _b(text, "card_death", company=term(f"company.{card.company}"))
    return _term(text, f"card.{kind}")


def _face_name(text: Text, kind: str) -> str:
    """A card's name on a row slot or in the hand: the sin for Sin and Pardon cards."""
    card = CARDS[kind]
    return _term(text, f"sin.{card.sin}") if card.sin else card_text(text, kind)


def _cube(draw: ImageDraw.ImageDraw, x: float, y: float, seat: int, size: int = 26, count: int | None = None) -> float:
    """A seat cube: coloured square with the seat badge; returns the right edge."""
    draw.rectangle([x, y, x + size, y + size], fill=seat_colour(seat), outline=INK, width=2)
    draw_text(draw, (x + size / 2, y + size / 2), seat_letter(seat), size=int(size * 0.85), fill=WHITE, bold=True,
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


# --------------------------------------------------------------------------- sections


def _banner(draw: ImageDraw.ImageDraw, view: PublicView, names: Sequence[str], text: Text, y: int) -> int:
    n = view["players"]
    draw.rectangle([0, y, WIDTH, y + 64], fill=DARK)
    draw_text(draw, (PAD, y + 32), _b(text, "title"), size=30, fill=WHITE, bold=True, anchor="lm")
    if view["over"]:
        winners = view["final"]["winners"] if view["final"] else []
        line = (_b(text, "winner", names=[_label(text, w) for w in winners]) if winners
                else _b(text, "game_over"))
        draw_text(draw, (WIDTH - PAD, y + 32), line, size=26, fill=HIGHLIGHT, bold=True, anchor="rm",
                  max_width=WIDTH - 420)
    else:
        seat = view["active"] % n
        key = "turn_lastrites" if view["lastrites_turn"] else "turn"
        line = _b(text, key, turn=view["turn"], player=_label(text, seat))
        draw.rectangle([WIDTH - PAD - 8 - text_width(line, 26, True) - 16, y + 12, WIDTH - PAD, y + 52],
                       fill=seat_colour(seat))
        draw_text(draw, (WIDTH - PAD - 8, y + 32), line, size=26, fill=WHITE, bold=True, anchor="rm")
    y += 64
    parts = []
    if view["step"] and not view["over"]:
        parts.append(_b(text, "now", step=_b(text, f"step.{view['step']}")))
    if view["in_play"]:
        parts.append(_b(text, "in_play", cards=[card_text(text, k) for k in view["in_play"]]))
    parts += [_b(text, "edition", edition=view["edition"]),
              _b(text, "deaths", deaths=view["deaths"], of=len(ROAD_VALUES))]
    draw_text(draw, (PAD, y + 18), "  ·  ".join(parts), size=22, fill=INK, anchor="lm", max_width=WIDTH - 2 * PAD)
    return y + 40


CIRCLE_CUBE = 26
"""Px of a seat cube on a sin of the Circle (its letter ``_cube``: 0.85 of it, 22 px); 22 px when
four cubes share a sin (their row must stay inside the sin's circle)."""
CIRCLE_CUBE_OF_4 = 22
BANNER_H = 104
"""Height (px) of ``_banner``: the title bar (64) and the status line (40)."""
CIRCLE_H = 490
"""Height (px) of ``_circle``: its 470 px box and 20 px under it."""
ROAD_H = 188
"""Height (px) of ``_road``: the title (38), the spaces and the note under them (150)."""
ROWS_H = 188
"""Height (px) of ``_rows``: the title (40), two rows of 54 and the relic line (40)."""
PARDONER_LINE = 24
"""Font size (px) of a pardoner's hand and strength lines (``_scoreboard``; were 20 px: 6.9 px at
380 px display width, now 8.3 px)."""


def _circle(draw: ImageDraw.ImageDraw, view: PublicView, text: Text, x0: int, y0: int) -> int:
    """The Circle of Sin in a 470×470 box."""
    size = 470
    cx, cy = x0 + size // 2, y0 + size // 2 + 10
    draw_text(draw, (x0 + 10, y0), _b(text, "circle"), size=26, bold=True)
    ring = 165
    draw.ellipse([cx - ring, cy - ring, cx + ring, cy + ring], outline=LINE, width=3)
    n = view["players"]
    for i, sin in enumerate(SINS):
        ang = -math.pi / 2 + 2 * math.pi * i / len(SINS)
        sx, sy = cx + ring * math.cos(ang), cy + ring * math.sin(ang)
        r = 58
        parson = view["parson"] == sin
        if parson:
            draw.ellipse([sx - r - 8, sy - r - 8, sx + r + 8, sy + r + 8], fill=HIGHLIGHT, outline=INK, width=3)
        draw.ellipse([sx - r, sy - r, sx + r, sy + r], fill=SIN_FILL[sin], outline=INK, width=2)
        draw_text(draw, (sx, sy - 28), _term(text, f"sin.{sin}"), size=21, fill=WHITE, bold=True, anchor="mm")
        draw_text(draw, (sx, sy - 7), _b(text, "circle_native", native=sin_zh(sin)), size=17, fill=WHITE,
                  anchor="mm")
        owners = [q for q in range(n) if sin in view["circle"][q]]
        cs = CIRCLE_CUBE if len(owners) <= 3 else CIRCLE_CUBE_OF_4  # (four stay inside the circle)
        total = len(owners) * (cs + 4) - 4
        bx = sx - total / 2
        for q in owners:
            _cube(draw, bx, sy + 10, q, cs)
            bx += cs + 4
        if parson:
            draw.rectangle([sx - 44, sy + r - 6, sx + 44, sy + r + 18], fill=INK)
            draw_text(draw, (sx, sy + r + 6), _b(text, "parson_tag"), size=17, fill=HIGHLIGHT, bold=True,
                      anchor="mm")
    # centre
    cr = 84
    draw.ellipse([cx - cr, cy - cr, cx + cr, cy + cr], fill=PANEL, outline=INK, width=2)
    draw_text(draw, (cx, cy - 52), _b(text, "centre"), size=20, bold=True, anchor="mm")
    centre = view["centre"]
    if any(centre):
        cells = [q for q in range(n) if centre[q]]
        width = sum(26 + 4 + text_width(f"×{centre[q]}", 20, True) + 6 for q in cells)
        bx = cx - width / 2
        for q in cells:
            bx = _cube(draw, bx, cy - 34, q, 24, centre[q] if centre[q] > 1 else None) + 8
    else:
        draw_text(draw, (cx, cy - 22), _b(text, "nothing"), size=22, fill=MUTED, anchor="mm")
    where = _term(text, f"sin.{view['parson']}") if view["parson"] else _b(text, "nothing")
    draw_text(draw, (cx, cy + 12), _b(text, "parson", sin=where), size=18, anchor="mm", bold=True)
    draw_text(draw, (cx, cy + 38), _b(text, "lastrites_left", n=view["token_supply"]), size=16, anchor="mm")
    return y0 + size + 20


def _road(draw: ImageDraw.ImageDraw, view: PublicView, text: Text, x0: int, y0: int, w: int) -> int:
    draw_text(draw, (x0, y0), _b(text, "road"), size=26, bold=True)
    y = y0 + 38
    values = view["road_values"]
    gap = 8
    cw = (w - gap * (len(values) - 1)) / len(values)
    nxt = view["deaths"]
    for k, v in enumerate(values):
        x = x0 + k * (cw + gap)
        fill = HIGHLIGHT if k == nxt and not view["over"] else PANEL
        draw.rounded_rectangle([x, y, x + cw, y + 110], radius=10, fill=fill, outline=INK, width=2)
        draw_text(draw, (x + cw / 2, y + 20), _b(text, "road_space", space=k + 1, value=v), size=22, bold=True,
                  anchor="mm")
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
        draw_text(draw, (x0, y + 122), _b(text, "road_next"), size=18, fill=MUTED)
    return y + 150


def _scoreboard(draw: ImageDraw.ImageDraw, view: PublicView, names: Sequence[str], text: Text, x0: int, y0: int,
                w: int) -> int:
    draw_text(draw, (x0, y0), _b(text, "pardoners"), size=26, bold=True)
    y = y0 + 38
    for q in range(view["players"]):
        active = q == view["active"] and not view["over"]
        draw.rounded_rectangle([x0, y, x0 + w, y + 114], radius=10, fill=HIGHLIGHT if active else PANEL,
                               outline=seat_colour(q), width=4)
        _cube(draw, x0 + 10, y + 10, q, 32)
        draw_text(draw, (x0 + 52, y + 26), _label(text, q), size=24, bold=True, anchor="lm",
                  max_width=w - 62)
        hc = view["hand_counts"][q]
        done = view["completions"].count(q)
        line1 = _b(text, "hand", total=hc["total"], sin=hc["sin"], pardon=hc["pardon"], relic=hc["relic"],
                   tokens=view["tokens"][q])
        line2 = _b(text, "strength", n=len(view["circle"][q]), centre=view["centre"][q],
                   strength=view["circle_strength"][q])
        line2 += _b(text, "road_cubes", n=sum(r[q] for r in view["road"]))
        if done:
            line2 += _b(text, "completions", ticks="✓" * done)
        draw_text(draw, (x0 + 12, y + 62), line1, size=PARDONER_LINE, anchor="lm", max_width=w - 24)
        draw_text(draw, (x0 + 12, y + 92), line2, size=PARDONER_LINE, fill=INK, anchor="lm", max_width=w - 24)
        y += 122
    return y


def _pilgrim_card(text: Text, kind: str, up: bool) -> str:
    if CARDS[kind].kind == "death":
        return _b(text, "death_up" if up else "death_down")
    if kind == NICHOLAS:
        return _term(text, f"short.{kind}")
    return card_text(text, kind)


def _company(draw: ImageDraw.ImageDraw, comp: CompanyView, co: str, text: Text, x0: int, y0: int, w: int,
             h: int) -> None:
    draw.rounded_rectangle([x0, y0, x0 + w, y0 + h], radius=12, fill=PANEL, outline=COMPANY_FILL[co], width=4)
    draw.rounded_rectangle([x0, y0, x0 + w, y0 + HEAD], radius=12, fill=COMPANY_FILL[co])
    fg = COMPANY_INK[co]
    head = _b(text, "company", company=term(f"company.{co}")).upper()
    draw_text(draw, (x0 + 12, y0 + 8), head, size=18, fill=fg, bold=True)
    if comp["pilgrim"] and comp["sin"]:
        draw_text(draw, (x0 + 12, y0 + 30), _term(text, f"pilgrim.{comp['pilgrim']}"), size=30, fill=fg, bold=True,
                  max_width=w - 100)
        sin = comp["sin"]
        draw_text(draw, (x0 + 12, y0 + 84), _b(text, "pilgrim_sin", sin=term(f"sin.{sin}"), native=sin_zh(sin)),
                  size=20, fill=fg, anchor="lm")
        draw_text(draw, (x0 + w - 12, y0 + 40), _b(text, "count", count=comp["count"]), size=34, fill=fg,
                  bold=True, anchor="rm")
        draw_text(draw, (x0 + w - 12, y0 + 72), _b(text, "cards"), size=18, fill=fg, anchor="rm")
    else:
        draw_text(draw, (x0 + 12, y0 + 30), _b(text, "no_pilgrim"), size=26, fill=fg)
    y = y0 + HEAD + 8
    if comp["doomed"]:
        draw.rectangle([x0 + 8, y, x0 + w - 8, y + 32], fill=DOOMED)
        draw_text(draw, (x0 + w / 2, y + 16), _b(text, "doomed"), size=20, fill=WHITE, bold=True, anchor="mm")
        y += 40
    # cubes on the living pilgrim
    cubes = _b(text, "cubes")
    draw_text(draw, (x0 + 12, y + 13), cubes, size=20, anchor="lm")
    after = max(x0 + 84, x0 + 12 + text_width(cubes, 20) + 8)  # (a longer label, e.g. ja キューブ, pushes on)
    if any(comp["cubes"]):
        _cube_row(draw, after, y, comp["cubes"])
    else:
        draw_text(draw, (after, y + 13), _b(text, "no_cubes_here"), size=20, fill=MUTED, anchor="lm")
    y += 36
    # cards: two columns
    cw = (w - 30) / 2
    chh = 34
    for i, card in enumerate(comp["cards"]):
        col, row = i % 2, i // 2
        cx = x0 + 10 + col * (cw + 10)
        cy = y + row * (chh + 6)
        kind = card["kind"]
        label = _pilgrim_card(text, kind, card["up"])
        if card["up"]:
            draw.rounded_rectangle([cx, cy, cx + cw, cy + chh], radius=6, fill=card_fill(kind), outline=INK,
                                   width=2)
            draw_text(draw, (cx + 8, cy + chh / 2), label, size=19, fill=WHITE, bold=True, anchor="lm",
                      max_width=cw - 12)
        else:
            draw.rounded_rectangle([cx, cy, cx + cw, cy + chh], radius=6, fill=GREY, outline=MUTED, width=2)
            draw_text(draw, (cx + 8, cy + chh / 2), _b(text, "pardoned", card=label), size=18, fill=DARK,
                      anchor="lm", max_width=cw - 12)
    rows = (len(comp["cards"]) + 1) // 2
    y += max(rows, 1) * (chh + 6) + 4
    if not comp["cards"]:
        draw_text(draw, (x0 + 12, y - 30), _b(text, "no_cards_yet"), size=19, fill=MUTED)
    if any(not c["up"] for c in comp["cards"]):
        draw_text(draw, (x0 + 12, y), _b(text, "pardoned_key"), size=18, fill=MUTED)
    # dead pile
    dy = y0 + h - 16 - 30 * max(1, len(comp["dead"]))
    draw.line([x0 + 10, dy - 8, x0 + w - 10, dy - 8], fill=LINE, width=2)
    if comp["dead"]:
        for d in comp["dead"]:
            name = _b(text, "dead", pilgrim=term(f"pilgrim.{d['pilgrim']}"))
            draw_text(draw, (x0 + 12, dy + 13), fit_text(name, 20, 150), size=20, anchor="lm")
            if any(d["cubes"]):
                _cube_row(draw, x0 + 165, dy, d["cubes"], 24)
            else:
                draw_text(draw, (x0 + 165, dy + 13), _b(text, "no_cubes"), size=18, fill=MUTED, anchor="lm")
            dy += 30
    else:
        draw_text(draw, (x0 + 12, dy + 13), _b(text, "dead_empty"), size=19, fill=MUTED, anchor="lm")


def _rows(draw: ImageDraw.ImageDraw, view: PublicView, text: Text, y0: int) -> int:
    draw_text(draw, (PAD, y0), _b(text, "rows"), size=26, bold=True)
    y = y0 + 40
    sizes = view["deck_sizes"]
    discards = view["discards"]
    for name in ("sin", "pardon"):
        draw_text(draw, (PAD, y + 22), _b(text, f"row_{name}"), size=22, bold=True, anchor="lm")
        x = PAD + 130
        for slot, kind in enumerate(view["rows"][name]):
            bw = 190
            if kind:
                draw.rounded_rectangle([x, y, x + bw, y + 44], radius=8, fill=card_fill(kind), outline=INK, width=2)
                draw_text(draw, (x + 10, y + 22), _b(text, "slot", slot=slot + 1, card=_face_name(text, kind)),
                          size=20, fill=WHITE, bold=True, anchor="lm", max_width=bw - 14)
            else:
                draw.rounded_rectangle([x, y, x + bw, y + 44], radius=8, outline=MUTED, width=2)
                draw_text(draw, (x + 10, y + 22), _b(text, "slot_empty", slot=slot + 1), size=20, fill=MUTED,
                          anchor="lm")
            x += bw + 10
        draw_text(draw, (x + 4, y + 12), _b(text, "deck_info", deck=sizes[name], discard=len(discards[name])),
                  size=19, anchor="lm", max_width=WIDTH - x - PAD)
        if discards[name]:
            draw_text(draw, (x + 4, y + 34), _b(text, "top", card=card_text(text, discards[name][-1])), size=17,
                      fill=MUTED, anchor="lm", max_width=WIDTH - x - PAD)
        y += 54
    relic = _b(text, "relic_deck", deck=sizes["relic"], discard=len(discards["relic"]))
    if discards["relic"]:
        relic += _b(text, "relic_top", card=card_text(text, discards["relic"][-1]))
    relic += _b(text, "pilgrims_left", n=view["pilgrim_deck"])
    draw_text(draw, (PAD, y + 12), relic, size=20, anchor="lm", max_width=WIDTH - 2 * PAD)
    return y + 40


def _final(draw: ImageDraw.ImageDraw, view: PublicView, names: Sequence[str], text: Text, y0: int) -> int:
    final = view["final"]
    if not final:
        return y0
    draw_text(draw, (PAD, y0), _b(text, "final"), size=28, bold=True)
    y = y0 + 42
    cols = ["player", "coins", "road", *COMPANIES, "tokens", "total"]
    xs = [PAD, 380, 490, 590, 690, 800, 900, 1000]
    for c, x in zip(cols, xs, strict=True):
        draw_text(draw, (x, y), _b(text, f"col_{c}"), size=20, bold=True, fill=MUTED)
    y += 30
    for q in final["ranking"]:
        win = q in final["winners"]
        if win:
            draw.rectangle([PAD - 6, y - 4, WIDTH - PAD, y + 30], fill=HIGHLIGHT)
        vals = [_label(text, q), final["coins"][q], final["road"][q],
                *(final["companies"][co][q] for co in COMPANIES), final["tokens"][q], final["totals"][q]]
        for i, (v, x) in enumerate(zip(vals, xs, strict=True)):
            draw_text(draw, (x, y), str(v), size=22, bold=win or i == 7, max_width=(xs[1] - xs[0] - 10) if i == 0
                      else None)
        y += 36
    draw_text(draw, (PAD, y + 4), text(final["reason"]), size=20, fill=INK, max_width=WIDTH - 2 * PAD)
    return y + 40


# --------------------------------------------------------------------------- public entry points


def render_board(view: PublicView, *, names: Sequence[str], text: Text, highlight: str | None = None) -> Image.Image:
    """Draw the public board (§11 "Board image").

    Args:
        view: ``player_view(state, None)`` (``PublicView``).
        names: display names by seat.
        text: formats a ``Msg`` or its JSON (``bot.text.Texts`` of the game and its names).
        highlight: a company id (``red``/``yellow``/``blue``) to outline, or None.
    Returns:
        An RGB image ``WIDTH`` px wide.
    """
    img, draw = canvas(_board_height(view))
    y = _banner(draw, view, names, text, 0)
    top = y + 10
    bottom_left = _circle(draw, view, text, PAD, top)
    rx = PAD + 490
    rw = WIDTH - rx - PAD
    ry = _road(draw, view, text, rx, top, rw)
    ry = _scoreboard(draw, view, names, text, rx, ry + 6, rw)
    y = max(bottom_left, ry) + 10
    ch = _company_height(view)
    cw = (WIDTH - 2 * PAD - 2 * 14) // 3
    for i, co in enumerate(COMPANIES):
        x = PAD + i * (cw + 14)
        _company(draw, view["companies"][co], co, text, x, y, cw, ch)
        if highlight == co:
            draw.rounded_rectangle([x - 5, y - 5, x + cw + 5, y + ch + 5], radius=14, outline=HIGHLIGHT, width=6)
    y += ch + 20
    y = _rows(draw, view, text, y)
    _final(draw, view, names, text, y + 6)
    return img


def _board_height(view: PublicView) -> int:
    """The height (px) of ``render_board``'s image, known before drawing (so that no crop copies the
    board at the end): the sections' heights as ``_banner``, ``_circle``, ``_road``, ``_scoreboard``,
    ``_rows`` and ``_final`` lay them out, 10 px under the last."""
    top = BANNER_H + 10
    right = top + ROAD_H + 6 + 38 + 122 * view["players"]
    y = max(top + CIRCLE_H, right) + 10 + _company_height(view) + 20 + ROWS_H + 6
    final = view["final"]
    if final:
        y += 42 + 30 + 36 * len(final["ranking"]) + 40
    return y + 10


def _company_height(view: PublicView) -> int:
    h = 0
    for co in COMPANIES:
        comp = view["companies"][co]
        rows = max(1, (len(comp["cards"]) + 1) // 2)
        extra = 40 if comp["doomed"] else 0
        h = max(h, HEAD + 8 + extra + 36 + rows * 40 + 30 + 30 * max(1, len(comp["dead"])) + 30)
    return h


def render_private(view: PrivateView, *, names: Sequence[str], text: Text) -> Image.Image:
    """Draw one seat's private view (``player_view(state, seat)``, §11 "Private views"):
    hand, coins, what each playable Pardon pays, the cards St. Isidore shows."""
    seat = view["seat"]
    hand = view["hand"]
    options = view["pardon_options"]
    drawn = view.get("isidore_drawn", [])
    height = 200 + 60 * max(1, len(hand)) + 34 * len(options) + (80 if drawn else 0) + 120
    img, draw = canvas(height)
    draw.rectangle([0, 0, WIDTH, 70], fill=seat_colour(seat))
    draw_text(draw, (PAD, 35), _b(text, "your_hand", player=_label(text, seat)), size=30, fill=WHITE,
              bold=True, anchor="lm", max_width=WIDTH - 320)
    draw_text(draw, (WIDTH - PAD, 35), _b(text, "coins", coins=view["coins"]), size=32, fill=WHITE, bold=True,
              anchor="rm")
    y = 90
    if not hand:
        draw_text(draw, (PAD, y), _b(text, "empty_hand"), size=24, fill=MUTED)
        y += 50
    for kind in hand:
        draw.rounded_rectangle([PAD, y, PAD + 560, y + 50], radius=10, fill=card_fill(kind), outline=INK, width=2)
        draw_text(draw, (PAD + 14, y + 25), _b(text, f"type_{CARDS[kind].deck}"), size=18, fill=WHITE, anchor="lm",
                  bold=True)
        draw_text(draw, (PAD + 110, y + 25), _face_name(text, kind), size=24, fill=WHITE, bold=True, anchor="lm",
                  max_width=440)
        if CARDS[kind].kind == "relic":
            draw_text(draw, (PAD + 575, y + 25), text(msg(f"help.{kind[len('relic-'):]}")), size=20,
                      fill=INK, anchor="lm", max_width=WIDTH - PAD - (PAD + 575))
        y += 60
    if drawn:
        y += 6
        draw_text(draw, (PAD, y), _b(text, "isidore", cards=[card_text(text, k) for k in drawn]), size=22,
                  bold=True, max_width=WIDTH - 2 * PAD)
        y += 50
    if options:
        y += 6
        draw_text(draw, (PAD, y), _b(text, "pardons"), size=24, bold=True)
        y += 36
        for o in options:
            line = _b(text, "pardon_option_one" if o["coins"] == 1 else "pardon_option", sin=term(f"sin.{o['sin']}"),
                      company=term(f"company.{o['company']}"), cards=o["cards"], coins=o["coins"])
            draw_text(draw, (PAD + 10, y), line, size=22)
            y += 34
    return img.crop((0, 0, WIDTH, y + 20)).convert("RGB") if y + 20 < height else img


__all__ = ["render_board", "render_private", "card_text"]
