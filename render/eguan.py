"""E Guan (惡貫) renderer (docs/rules/eguan.md §11 Digital play notes; design §6).

``render_board(view, *, names, text, highlight=None)`` draws every player's 4 × 4 board
from the public view; ``render_private(view, *, names, text)`` draws a seat's hand and
kept card; ``render_placement_preview(view, card_id, *, names, text)`` draws the seat's
own board with the chosen card's 18 placements (anchor × rotation) and the resulting
counts. Views are ``engines.eguan.view.PublicView`` / ``PrivateView``; card, set, title
and icon names come from the catalog through ``text`` (English names) and from
engines/eguan/data.py (shapes, icons, Chinese names).

``zoom_regions(view)`` / ``render_zoom(view, region, *, names, text)``: one player's board at
phone size, or the key (icons and the die faces of the sets in play).

Phone first: boards are ``BOARD_W`` px wide with texts of at least 16 px (8 px on a phone
showing them 360 px wide); the placement preview and the zooms, shown with a decision, are
``PREVIEW_W`` px wide with texts of at least 20 px (10 px on a phone).

Icons are told apart without colour: Heart = circle, Strength = square, Skill = diamond,
Evil = hexagon "惡", each with its letter in the reader's language (catalog
``board.letter_H`` …: "H" in English, 心 in Chinese); a double corner shows "×2".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

from PIL import Image, ImageDraw

from engines.base import Msg
from engines.eguan.data import CARDS, SKILLS, START_ID, TITLES, effect_msg
from engines.eguan.data import card_code as data_card_code
from engines.eguan.rules import board_counts, topmost
from engines.eguan.view import PrivateView, PublicView, SeatView, cells_view
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
    polygon,
    seat_colour,
    text_width,
    tile,
    wrap_text,
)

RGB = tuple[int, int, int]

ICON_FILL: dict[str, RGB] = {
    "H": (204, 51, 51),  # red
    "S": (240, 200, 40),  # yellow
    "K": (150, 150, 160),  # grey
    "E": (40, 30, 10),  # near-black with gold glyph
}
ICON_TEXT: dict[str, RGB] = {"H": WHITE, "S": INK, "K": INK, "E": (255, 205, 60)}
ICON_GLYPH = {"H": "H", "S": "S", "K": "K", "E": "惡"}
CELL_BG = (255, 253, 248)
EMPTY_BG = (222, 216, 204)
GHOST = (255, 236, 150)

# Corner → offset of its cell inside the 2 × 2 block for each rotation (spec §2.6).
_CORNER_OFFSET: dict[int, dict[str, tuple[int, int]]] = {
    0: {"tl": (0, 0), "tr": (0, 1), "bl": (1, 0), "br": (1, 1)},
    180: {"tl": (1, 1), "tr": (1, 0), "bl": (0, 1), "br": (0, 0)},
}


def _parse_icon(code: str) -> tuple[str, int] | None:
    if not code or code == "-":
        return None
    if len(code) == 2 and code[0] == "2":
        return code[1], 2
    return code, 1


Glyphs = tuple[tuple[str, str], ...]
"""The letter drawn in each icon, in the reader's language (``glyphs``); hashable, for tile keys."""


def glyphs(text: TextFormatter) -> Glyphs:
    """Each icon's letter in the reader's language: catalog ``board.letter_<kind>``, 惡 for Evil."""
    return tuple((k, _b(text, f"letter_{k}")) for k in ("H", "S", "K")) + (("E", "惡"),)


def draw_icon(draw: ImageDraw.ImageDraw, cx: float, cy: float, code: str, size: float,
              letters: Glyphs = (), min_text: int = 16) -> None:
    """Draw one corner's icon centred at (cx, cy): shape + letter (``letters``: the reader's,
    ``glyphs``; English ones when empty), ×2 for doubles; texts at least ``min_text`` px."""
    parsed = _parse_icon(code)
    if parsed is None:
        return
    kind, count = parsed
    r = size / 2
    fill = ICON_FILL[kind]
    if kind == "H":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=INK, width=2)
    elif kind == "S":
        q = r * 0.88
        draw.rectangle((cx - q, cy - q, cx + q, cy + q), fill=fill, outline=INK, width=2)
    elif kind == "K":
        pts = [(cx, cy - r * 1.1), (cx + r * 1.1, cy), (cx, cy + r * 1.1), (cx - r * 1.1, cy)]
        polygon(draw, pts, fill=fill, outline=INK, width=2)
    else:
        pts = [
            (cx + r * math.cos(math.pi / 3 * i + math.pi / 6), cy + r * math.sin(math.pi / 3 * i + math.pi / 6))
            for i in range(6)
        ]
        polygon(draw, pts, fill=fill, outline=INK, width=2)
    glyph = dict(letters).get(kind, ICON_GLYPH[kind])
    draw_text(draw, (cx, cy), glyph, size=max(min_text, int(size * 0.55)), fill=ICON_TEXT[kind], bold=True, anchor="mm")
    if count == 2:
        b = max(13.0, r * 0.7, min_text / 1.3)
        bx, by = cx + r + b * 0.45, cy + r * 0.6
        draw.ellipse((bx - b, by - b, bx + b, by + b), fill=WHITE, outline=INK, width=2)
        draw_text(draw, (bx, by), "×2", size=max(min_text, int(b * 1.3)), bold=True, anchor="mm")  # (× from the Latin face)


def _block_rect(x0: float, y0: float, cell: float, anchor: int) -> tuple[float, float, float, float]:
    r, c = (anchor - 1) // 3, (anchor - 1) % 3
    return (x0 + c * cell, y0 + r * cell, x0 + (c + 2) * cell, y0 + (r + 2) * cell)


def draw_grid(
    draw: ImageDraw.ImageDraw,
    x0: float,
    y0: float,
    cell: float,
    cells: Sequence[Sequence[Any]],
    *,
    board: Sequence[Sequence[Any]] = (),
    topmost: Sequence[str] = (),
    outline: RGB = INK,
    anchors: bool = True,
    letters: Glyphs = (),
    codes: Mapping[str, str] | None = None,
    badge: int = 19,
) -> None:
    """Draw a 4 × 4 board: shown corners, topmost-card outlines with their codes (``codes``:
    card id → the code the reader reads, ``card_code``; the id when missing) at ``badge`` px,
    and anchor labels 1–9 (at ``badge`` px too)."""
    badged = {divmod(int(anchor) - 1, 3) for card_id, anchor, _rot in board if card_id in topmost}
    for r in range(4):
        for c in range(4):
            info = cells[r][c]
            box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell)
            draw.rectangle(box, fill=CELL_BG if info else EMPTY_BG, outline=LINE, width=1)
            if info:
                size = cell * 0.48
                cy = box[1] + (max(cell / 2, badge + 10 + size / 2) if (r, c) in badged else cell / 2)
                draw_icon(draw, box[0] + cell * 0.45, cy, str(info["icon"]), size, letters, min(badge, BIG))
    # outline every topmost deed card, with its id in a corner
    for card_id, anchor, _rot in board:
        if card_id in topmost:
            x1, y1, x2, y2 = _block_rect(x0, y0, cell, int(anchor))
            code = (codes or {}).get(str(card_id), str(card_id))
            bw = text_width(code, badge, True) + 10
            draw.rectangle((x1 + 3, y1 + 3, x2 - 3, y2 - 3), outline=outline, width=4)
            draw.rectangle((x1 + 5, y1 + 5, x1 + 5 + bw, y1 + 9 + badge), fill=outline)
            draw_text(draw, (x1 + 5 + bw / 2, y1 + 7 + badge / 2), code, size=badge, fill=WHITE, bold=True,
                      anchor="mm")
    draw.rectangle((x0, y0, x0 + 4 * cell, y0 + 4 * cell), outline=INK, width=3)
    if anchors:
        r0 = badge * 0.7 + 2
        for a in range(1, 10):
            r, c = (a - 1) // 3, (a - 1) % 3
            ax, ay = x0 + (c + 1) * cell, y0 + (r + 1) * cell
            draw.ellipse((ax - r0, ay - r0, ax + r0, ay + r0), fill=WHITE, outline=INK, width=2)
            draw_text(draw, (ax, ay), str(a), size=badge, fill=INK, bold=True, anchor="mm")


def _counts_line(draw: ImageDraw.ImageDraw, x: float, y: float, counts: Mapping[str, int], letters: Glyphs,
                 size: int = 24, icon: int = 37, step: int = 78) -> None:
    """The four icon counts in a row from (x, y) (top left): icon, then its number (the preview's)."""
    for kind in ("H", "S", "K", "E"):
        draw_icon(draw, x + icon / 2, y + icon / 2, kind, icon, letters, BIG)
        draw_text(draw, (x + icon + 5, y + icon / 2), str(counts.get(kind, 0)), size=size, bold=True, anchor="lm")
        x += step


def _b(text: TextFormatter, key: str, **params: Any) -> str:
    """A board text: catalog ``board.<key>`` in the reader's language."""
    return text(Msg(f"board.{key}", params))


def _label(text: TextFormatter, seat: int) -> str:
    """``"A · Ann"``: the seat letter (a badge) and the display name (``Texts.name``)."""
    return _b(text, "seat_label", letter=SEAT_LETTERS[seat % len(SEAT_LETTERS)], name={"seat": seat})


def _term(text: TextFormatter, key: str) -> str:
    """The catalog's name of a game term (``card.H01``, ``set.A``, ``title.heart``)."""
    return text(Msg(f"term.{key}"))


def _title(text: TextFormatter, key: str, short: bool = False) -> str:
    """A title as the boards show it: ``[H] Heart of Stone 鐵石心腸``, ``★ Most Wanted 罪大惡極``;
    ``short``: without the Chinese name (catalog ``board.title_short``)."""
    icon, zh = next((i, z) for k, i, z in TITLES if k == key)
    badge = "★" if key == "most_wanted" else _b(text, "title_badge", icon=_b(text, f"letter_{icon}"))
    if short:
        return _b(text, "title_short", badge=badge, name=_term(text, f"title.{key}"))
    return _b(text, "title_line", badge=badge, name=_term(text, f"title.{key}"), native=zh)


def card_code(text: TextFormatter, card_id: str) -> str:
    """A card's code as the reader reads it (engines/eguan/data.py ``card_code``: "S12" in
    English, 力12 in Chinese; the labels name cards so too)."""
    return text(data_card_code(card_id))


def _codes(text: TextFormatter, board: Sequence[Sequence[Any]]) -> dict[str, str]:
    return {str(p[0]): card_code(text, str(p[0])) for p in board}




def _faces(text: TextFormatter, letter: str, faces: Sequence[Any] | None = None, sep: str = " · ") -> str:
    """Die faces of a set in a few words: ``1 +1 · 2 steal 1 · ...``."""
    shown = SKILLS[letter] if faces is None else faces
    return sep.join(_b(text, "face", face=f.face, effect=text(effect_msg(f, short=True))) for f in shown)


BOARD_W = 720
"""Width (px) of the public board: on a phone (360 px) its 16-px texts read at 8 px."""
PANEL_W, PANEL_H = 348, 394
"""One player's panel on the board (two per row)."""
HEAD_H = 96
FOOT_H = 62
CELL = 56
"""A board cell of a panel: icons 29 px, their letters 16 px."""
SMALL = 16
"""The board's smallest text (px)."""


def render_board(view: PublicView, *, names: Sequence[str], text: TextFormatter,
                 highlight: str | None = None) -> Image.Image:
    """Draw the public board (``BOARD_W`` wide, one height per player count): a header (round,
    who is to play, the die), one panel per player (2 per row; with three players the key fills
    the fourth place) and a footer (deck, start player, end of the game, removed cards).

    ``text`` formats catalog messages (names of sets, titles, die faces);
    ``highlight`` (optional) is a card id to emphasise on the boards.
    """
    n = int(view["players"])
    rows = (n + 1) // 2
    height = HEAD_H + rows * (PANEL_H + 8) + FOOT_H
    img, draw = canvas(height, BOARD_W)
    letters = glyphs(text)
    title = _b(text, "title_round", round=view["round"]) if view["round"] else _b(text, "title_setup")
    draw_text(draw, (12, 10), title, size=28, bold=True, max_width=BOARD_W - 24)
    for i, line in enumerate(wrap_text(_status(view, text), 20, BOARD_W - 24, True)[:2]):
        draw_text(draw, (12, 48 + i * 22), line, size=20, bold=True, fill=INK)
    if view.get("final_round") and view["phase"] != "over":
        draw.rectangle((0, HEAD_H - 6, BOARD_W, HEAD_H - 2), fill=HIGHLIGHT)
    seats = view["seats"]
    for s in range(n):
        px = 8 + (s % 2) * (PANEL_W + 8)
        py = HEAD_H + (s // 2) * (PANEL_H + 8)
        _draw_panel(draw, px, py, PANEL_W, PANEL_H, seats[s], view, letters, text, highlight)
    if n % 2 == 1:
        _draw_legend(draw, 8 + PANEL_W + 8, HEAD_H + (n // 2) * (PANEL_H + 8), PANEL_W, PANEL_H, view, text)
    fy = HEAD_H + rows * (PANEL_H + 8)
    for i, line in enumerate(_footer(view, text)[:2]):
        draw_text(draw, (12, fy + 4 + i * 26), line, size=18, bold=bool(view.get("final_round")))
    return img


def _footer(view: PublicView, text: TextFormatter) -> list[str]:
    """The footer's lines: deck, start player, how the game ends, the cards removed lately."""
    start = view.get("start_player")
    parts = [_b(text, "deck", n=view["deck_count"])]
    if start is not None:
        parts.append(_b(text, "start", seat={"seat": start}))
    if view.get("triggered") and view["phase"] != "over":
        if view.get("final_round"):
            parts.append(_b(text, "final_round"))
        elif view.get("end_rule") == "one_more_each":
            parts.append(_b(text, "end_one_more"))
        else:
            parts.append(_b(text, "end_round"))
    if view.get("removed_cards"):
        parts.append(_b(text, "removed", cards=", ".join(card_code(text, r["card"])
                                                           for r in view["removed_cards"][-4:])))
    out: list[str] = []
    for part in parts:
        trial = f"{out[-1]}  ·  {part}" if out else part
        if out and text_width(trial, 18, True) <= BOARD_W - 24:
            out[-1] = trial
        else:
            out.extend(wrap_text(part, 18, BOARD_W - 24, True))
    return out


def _winners(view: PublicView, text: TextFormatter) -> str:
    """The header's end line: the winners (catalog ``board.game_over_winners``)."""
    res: dict[str, Any] = dict(view.get("result") or {})
    return _b(text, "game_over_winners", winners={"seats": list(res.get("winners") or [])})


def _legend_lines(view: PublicView, text: TextFormatter) -> tuple[Any, ...]:
    icons = tuple(_b(text, "icon_evil" if kind == "E" else "icon", name=_term(text, f"icon.{kind}"))
                  for kind in ("H", "S", "K", "E"))
    sets = tuple((_set_name(text, letter_), tuple(_faces(text, letter_, (f,)) for f in SKILLS[letter_]))
                 for letter_ in sorted({str(st["skill"]) for st in view["seats"] if st.get("skill")}))
    return (_b(text, "key"), icons, _b(text, "outline_key"), _b(text, "titles_key"), sets, glyphs(text))


def _draw_legend(draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, view: PublicView, text: TextFormatter) -> None:
    """Icon key and the die faces of the skill sets in play (fills an empty slot): a
    ``render.base.tile`` of its place (its icons have float corners)."""
    lines = _legend_lines(view, text)
    def paint(tile_draw: ImageDraw.ImageDraw, tx: int, ty: int) -> None:
        _paint_legend(w, h, lines, 17, tile_draw, tx, ty)

    tile(draw, (x, y), (w + 1, h + 1), ("eguan.legend", w, h, lines), paint, anywhere=False)


def _paint_legend(w: int, h: int, lines: tuple[Any, ...], size: int, draw: ImageDraw.ImageDraw, x: int,
                  y: int) -> int:
    """The key: icons with their names, what an outline and the titles mean, then each set in
    play with its six die faces, wrapped at ``size`` px to the width ``w``."""
    key, icons, outline_key, titles_key, sets, letters = lines
    pad = 12
    draw.rectangle((x, y, x + w, y + h), fill=BG, outline=LINE, width=2)
    draw_text(draw, (x + pad, y + 8), key, size=size + 4, bold=True)
    icon = size * 2
    ky = y + 16 + size + 8
    for i, (kind, label) in enumerate(zip(("H", "S", "K", "E"), icons, strict=True)):
        kx = x + pad + (i % 2) * (w // 2)
        draw_icon(draw, kx + icon / 2, ky + (i // 2) * (icon + 6) + icon / 2, kind, icon, letters, size)
        draw_text(draw, (kx + icon + 8, ky + (i // 2) * (icon + 6) + icon / 2), label, size=size, anchor="lm",
                  max_width=w // 2 - icon - 12)
    ky += 2 * (icon + 6) + 4
    line_h = size + 6
    for note in (outline_key, titles_key):
        for line in wrap_text(note, size, w - 2 * pad):
            draw_text(draw, (x + pad, ky), line, size=size, fill=MUTED)
            ky += line_h
    ky += 4
    for name, faces in sets:
        draw_text(draw, (x + pad, ky), name, size=size, bold=True, max_width=w - 2 * pad)
        ky += line_h
        for line in _join_lines(faces, size, w - 2 * pad - 10):
            draw_text(draw, (x + pad + 10, ky), line, size=size)
            ky += line_h
        ky += 2
    return ky - y


def _join_lines(parts: Sequence[str], size: int, width: float, sep: str = " · ") -> list[str]:
    """``parts`` joined by ``sep`` into lines of at most ``width`` px, broken between parts."""
    out: list[str] = []
    for part in parts:
        trial = f"{out[-1]}{sep}{part}" if out else part
        if out and text_width(trial, size) <= width:
            out[-1] = trial
        else:
            out.append(part)
    return out


def _set_name(text: TextFormatter, letter: str) -> str:
    """``"Set A Thug 打手"``: a skill set's letter, name and native name."""
    return _b(text, "set", set=letter, name=_term(text, f"set.{letter}"), native=SKILLS[letter][0].set_name_zh)


def _status(view: PublicView, text: TextFormatter) -> str:
    if view["phase"] == "over":
        return _winners(view, text)
    if view["phase"] == "skill":
        return _b(text, "choosing_skills")
    if view["phase"] in ("deal", "start"):
        return _b(text, "setting_up")
    active = view.get("active")
    if active is None:
        return ""
    line = _b(text, "to_play", seat=_label(text, active))
    die = view.get("die")
    if die:
        line = _b(text, "die_changed" if die["value"] != die["roll"] else "die", status=line, roll=die["roll"],
                  value=die["value"])
    return line


def _draw_panel(
    draw: ImageDraw.ImageDraw,
    x: int,
    y: int,
    w: int,
    h: int,
    seat: SeatView,
    view: PublicView,
    letters: Glyphs,
    text: TextFormatter,
    highlight: str | None,
    *,
    scale: float = 1.0,
) -> None:
    """One player's panel at (x, y), ``w`` × ``h``: name bar, the 4 × 4 board, Infamy and the
    icon counts right of it; the skill set, hand, kept card, leading titles and (at the end)
    the final score under it. ``scale`` enlarges everything (the zoom draws it at 1.25)."""
    def z(v: float) -> int:
        return int(round(v * scale))

    s = int(seat["seat"])
    colour = seat_colour(s)
    active = view.get("active") == s and view["phase"] == "play"
    draw.rectangle((x, y, x + w, y + h), fill=PANEL, outline=colour if active else LINE, width=5 if active else 2)
    bar = z(38)
    draw.rectangle((x, y, x + w, y + bar), fill=colour)
    mark = _b(text, "active") if active else ""
    mark_w = text_width(mark, z(SMALL), True) + z(16) if mark else 0
    draw_text(draw, (x + z(10), y + bar / 2), _label(text, s), size=z(20), fill=WHITE, bold=True, anchor="lm",
              max_width=w - z(20) - mark_w)
    if mark:
        draw_text(draw, (x + w - z(8), y + bar / 2), mark, size=z(SMALL), fill=WHITE, bold=True, anchor="rm")
    cell = z(CELL)
    gx, gy = x + z(8), y + bar + z(8)
    draw_grid(draw, gx, gy, cell, seat["cells"], board=seat["board"], topmost=seat["topmost"], outline=colour,
              anchors=False, letters=letters, codes=_codes(text, seat["board"]), badge=z(SMALL))
    if highlight:
        for card_id, anchor, _rot in seat["board"]:
            if card_id == highlight:
                x1, y1, x2, y2 = _block_rect(gx, gy, cell, int(anchor))
                draw.rectangle((x1, y1, x2, y2), outline=HIGHLIGHT, width=6)
    # info column: Infamy, then the four counts
    ix = gx + 4 * cell + z(10)
    col_w = x + w - ix - z(6)
    iy = gy
    draw_text(draw, (ix, iy), _b(text, "infamy"), size=z(SMALL), fill=MUTED, max_width=col_w)
    draw_text(draw, (ix, iy + z(18)), str(seat["infamy"]), size=z(40), bold=True)
    iy += z(70)
    counts = seat["counts"]
    for kind in ("H", "S", "K", "E"):
        draw_icon(draw, ix + z(15), iy + z(15), kind, z(30), letters, z(SMALL))
        draw_text(draw, (ix + z(38), iy + z(15)), f"{counts[kind]}", size=z(22), bold=True, anchor="lm")
        iy += z(38)
    # under the board
    line_h = z(SMALL + 6)
    ty = gy + 4 * cell + z(8)
    skill = seat.get("skill")
    skill_text = _b(text, "set_short", set=skill, name=_term(text, f"set.{skill}")) if skill else (
        _b(text, "skill_chosen" if seat.get("skill_chosen") else "skill_choosing")
    )
    draw_text(draw, (x + z(10), ty), skill_text, size=z(SMALL), max_width=w - z(20))
    ty += line_h
    hand = _b(text, "hand_kept" if seat["has_kept"] else "hand_no_kept", n=seat["hand_count"])
    piles = (seat.get("pile_counts") or []) if view["phase"] != "over" else []
    if piles:
        hand = f"{hand} · {_b(text, 'waiting', piles='+'.join(str(p) for p in piles))}"
    draw_text(draw, (x + z(10), ty), hand, size=z(SMALL), max_width=w - z(20))
    ty += line_h
    titles = seat.get("leading_titles") or []
    if not titles:
        draw_text(draw, (x + z(10), ty), _b(text, "no_title"), size=z(SMALL), fill=MUTED)
    half = (w - z(20)) // 2
    for i, t in enumerate(titles[:4]):
        draw_text(draw, (x + z(10) + (i % 2) * half, ty + (i // 2) * line_h), _title(text, t, short=True),
                  size=z(SMALL), bold=True, max_width=half - z(6))
    ty += 2 * line_h
    res = view.get("result")
    if res:
        bonus = sum(res["bonus"][k][s] for k in ("H", "S", "K"))
        star = "★ " if s in res["winners"] else ""
        draw_text(draw, (x + z(10), ty + z(2)),
                  star + _b(text, "final_score", score=res["scores"][s], infamy=res["infamy"][s], bonus=bonus),
                  size=z(SMALL), bold=True, max_width=w - z(20))


# --------------------------------------------------------------------------- private views


def draw_card(draw: ImageDraw.ImageDraw, x: float, y: float, card: Mapping[str, Any], *, w: int = 200,
              rot: int = 0, letters: Glyphs = (), min_text: int = 16) -> None:
    """A mini card: its 2 × 2 corners (``card["corners"]``: corner codes), rotated if
    ``rot`` = 180."""
    cell = w / 2
    draw.rectangle((x, y, x + w, y + w), fill=CELL_BG, outline=INK, width=3)
    for corner, (dr, dc) in _CORNER_OFFSET[rot].items():
        cx, cy = x + dc * cell + cell / 2, y + dr * cell + cell / 2
        draw_icon(draw, cx, cy, str(card["corners"][corner]), cell * 0.5, letters, min_text)
    draw.line((x + cell, y, x + cell, y + w), fill=LINE, width=1)
    draw.line((x, y + cell, x + w, y + cell), fill=LINE, width=1)


def _req_text(text: TextFormatter, card: Mapping[str, Any]) -> str:
    req = card["req"]
    parts = [_b(text, "req", icon=_b(text, f"letter_{k}"), n=req[k]) for k in ("H", "S", "K") if req[k]]
    return _b(text, "needs", req=" ".join(parts)) if parts else _b(text, "needs_nothing")


PRIVATE_W = 720
"""Width (px) of the private view: its 18-px texts read at 9 px on a phone."""
HAND_CARD = 150
HAND_SLOT = 228
HAND_TEXT = 18
HAND_LINE = 24


def _card_lines(card: Mapping[str, Any], text: TextFormatter, *, marked: bool = True) -> list[tuple[str, bool, RGB]]:
    """The lines under a card of the seat's: code (and trouble die), names (wrapped),
    requirement, payment; an unaffordable hand card (``marked``) in red."""
    code = card_code(text, str(card["id"]))
    out: list[tuple[str, bool, RGB]] = [(_b(text, "card_die" if card.get("die") else "card_id", id=code), True, INK)]
    name = _b(text, "card_name", native=CARDS[card["id"]].name_zh, name=_term(text, "card." + card["id"]))
    out += [(line, False, INK) for line in wrap_text(name, HAND_TEXT, HAND_SLOT - 12)]
    pay = int(card.get("payment", 0))
    cost = _b(text, "free") if pay == 0 else _b(text, "pay", n=pay)
    playable = card.get("playable", True) or not marked
    colour = INK if playable else (170, 30, 30)
    out += [(line, False, colour) for line in wrap_text(_req_text(text, card), HAND_TEXT, HAND_SLOT - 12)]
    out += [(line, False, colour) for line in wrap_text(cost if playable else _b(text, "cannot_pay", cost=cost),
                                                   HAND_TEXT, HAND_SLOT - 12)]
    return out


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """Draw a seat's hand and kept card (``view["you"]``): corners, requirement,
    payment now, die mark; plus the seat's skill set faces when known (``PRIVATE_W`` wide)."""
    you = view["you"]
    seat = int(you["seat"])
    cards = list(you["hand"])
    per_row = 3
    letters = glyphs(text)
    me = view["seats"][seat]
    kept = you.get("kept")
    skill = you.get("skill")
    width = PRIVATE_W - 40
    if skill:
        faces = SKILLS[str(skill)]
        skill_lines = [(line, True) for line in wrap_text(_b(text, "your_set", set=skill, name=_term(text, f"set.{skill}"),
                                                            native=faces[0].set_name_zh), 20, width, True)]
        skill_lines += [(line, False) for line in wrap_text(_faces(text, str(skill)), HAND_TEXT, width)]
    else:
        skill_lines = [(line, False) for line in wrap_text(_b(text, "no_set"), 20, width)]
    blocks = [_card_lines(c, text) for c in cards]
    rows = [blocks[i:i + per_row] for i in range(0, len(blocks), per_row)]
    row_h = [HAND_CARD + 10 + max(len(b) for b in row) * HAND_LINE + 16 for row in rows]
    empty_lines: list[str] = []
    if not cards:
        piles = me.get("pile_counts") or []
        if piles:
            rest = _b(text, "passed_topped" if view.get("deck_count") else "passed_no_top")
            line = _b(text, "passed_1", n=sum(int(p) for p in piles)) + " " + _b(text, "passed_2", rest=rest)
            empty_lines = wrap_text(line, HAND_TEXT, width)
    kept_lines = _card_lines(kept, text, marked=False) if kept else []
    note = wrap_text(_b(text, "kept_usable" if kept and kept.get("usable") else "kept_later"), HAND_TEXT,
                PRIVATE_W - HAND_SLOT - 40) if kept else []
    hand_h = sum(row_h) if cards else 44 + len(empty_lines) * HAND_LINE + 10
    kept_h = (34 + max(HAND_CARD + 10 + len(kept_lines) * HAND_LINE, len(note) * HAND_LINE) + 10) if kept else 44
    height = 64 + len(skill_lines) * 26 + 16 + hand_h + kept_h + 10
    img, draw = canvas(height, PRIVATE_W)
    draw.rectangle((0, 0, PRIVATE_W, 52), fill=seat_colour(seat))
    draw_text(draw, (16, 26), _b(text, "your_hand", seat=_label(text, seat), infamy=me["infamy"]), size=24,
              fill=WHITE, bold=True, anchor="lm", max_width=PRIVATE_W - 32)
    y = 64
    for line, bold in skill_lines:
        draw_text(draw, (20, y), line, size=20 if bold or not skill else HAND_TEXT, bold=bold,
                  fill=INK if skill else MUTED)
        y += 26
    y += 16
    if not cards:
        draw_text(draw, (20, y), _b(text, "hand_empty"), size=22, bold=True)
        for i, line in enumerate(empty_lines):
            draw_text(draw, (20, y + 34 + i * HAND_LINE), line, size=HAND_TEXT, fill=MUTED)
    for r, row in enumerate(rows):
        for i, lines in enumerate(row):
            card = cards[r * per_row + i]
            _card_block(draw, 20 + i * HAND_SLOT, y, card, lines, letters)
        y += row_h[r]
    if not cards:
        y += hand_h
    if kept:
        draw_text(draw, (20, y), _b(text, "kept"), size=20, bold=True)
        _card_block(draw, 20, y + 34, kept, kept_lines, letters)
        for i, line in enumerate(note):
            draw_text(draw, (20 + HAND_SLOT, y + 34 + HAND_CARD // 2 - 12 + i * HAND_LINE), line, size=HAND_TEXT)
    else:
        draw_text(draw, (20, y + 8), _b(text, "no_kept"), size=20, fill=MUTED)
    return img


def _card_block(draw: ImageDraw.ImageDraw, x: float, y: float, card: Mapping[str, Any],
                lines: Sequence[tuple[str, bool, RGB]], letters: Glyphs) -> None:
    """A card of the seat's with its lines (``_card_lines``) under it."""
    draw_card(draw, x, y, card, w=HAND_CARD, letters=letters)
    for i, (line, bold, colour) in enumerate(lines):
        draw_text(draw, (x, y + HAND_CARD + 10 + i * HAND_LINE), line, size=HAND_TEXT, bold=bold, fill=colour)


PREVIEW_W = 720
"""Width (px) of the placement preview and the zooms: their 20-px texts read at 10 px on a phone."""
BIG = 20
"""The preview's smallest text (px)."""


def render_placement_preview(view: PrivateView, card_id: str, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """Your board with ``card_id`` (from your hand, your kept card, or — for Schemer 3 —
    one of your topmost cards being moved) and every placement: a table of anchors
    1–9 × ↑0°/↓180° with the resulting visible icons, the most Evil marked (spec §11
    Placement flow). ``PREVIEW_W`` wide, texts of at least ``BIG`` px.

    When the card is on the board (a move), the board is drawn without it, its old
    place dashed, and the results are for the board without it.

    Raises:
        KeyError: ``card_id`` is neither in the hand, the kept card nor on the board.
    """
    you = view["you"]
    seat = int(you["seat"])
    me = view["seats"][seat]
    pool: list[Mapping[str, Any]] = [*you["hand"], *([you["kept"]] if you["kept"] else [])]
    card = next((c for c in pool if c["id"] == card_id), None)
    board = [list(p) for p in me["board"]]
    moving_from: list[Any] | None = None
    if card is None:
        placed = next((p for p in board if p[0] == card_id and card_id != START_ID), None)
        if placed is None:
            raise KeyError(card_id)
        data = CARDS[card_id]
        card = {"id": card_id, "corners": dict(data.codes), "req": dict(data.req), "die": data.trouble_die,
                "payment": 0}
        moving_from = placed
        board.remove(placed)
    letters = glyphs(text)
    W = PREVIEW_W
    head_h = 86
    cell = 84
    gx, gy = 20, head_h + 16
    table_y = gy + 4 * cell + 104
    row_h = 46
    height = table_y + 40 + 9 * row_h + 50
    img, draw = canvas(height, W)
    colour = seat_colour(seat)
    draw.rectangle((0, 0, W, head_h), fill=colour)
    pay = int(card.get("payment", 0))
    cost = _b(text, "free") if pay == 0 else _b(text, "pay_infamy", n=pay)
    name = _term(text, f"card.{card_id}")
    code = card_code(text, card_id)
    if moving_from is not None:
        what = _b(text, "moving", id=code, name=name, anchor=moving_from[1],
                  rot=_term(text, f"rot.{moving_from[2]}"))
    else:
        kept_card = bool(you["kept"] and you["kept"]["id"] == card_id)
        what = _b(text, "placing_kept" if kept_card else "placing", id=code, name=name, cost=cost)
    draw_text(draw, (16, 8), _label(text, seat), size=24, fill=WHITE, bold=True, max_width=W - 32)
    what_lines = wrap_text(what, 22, W - 32, True)
    for i, line in enumerate(what_lines[:2]):
        draw_text(draw, (16, 40 + i * 22), line, size=22 if len(what_lines) == 1 else BIG, fill=WHITE, bold=True)
    counts = board_counts(board)
    draw_grid(draw, gx, gy, cell, cells_view(board), board=board, topmost=topmost(board), outline=colour,
              letters=letters, codes=_codes(text, board), badge=BIG)
    if moving_from is not None:
        x1, y1, x2, y2 = _block_rect(gx, gy, cell, int(moving_from[1]))
        _dashed_rect(draw, (x1 + 4, y1 + 4, x2 - 4, y2 - 4), HIGHLIGHT, 5)
    now = _b(text, "now" if moving_from is None else "without")
    draw_text(draw, (gx, gy + 4 * cell + 18), now, size=22, bold=True)
    _counts_line(draw, gx + text_width(now, 22, True) + 12, gy + 4 * cell + 10, counts, letters)
    # the card in both orientations, then what it needs and costs
    rx = gx + 4 * cell + 24
    for i, rot in enumerate((0, 180)):
        cx = rx + i * 162
        draw_text(draw, (cx, gy), _term(text, f"rot.{rot}"), size=22, bold=True)
        draw_card(draw, cx, gy + 32, card, w=146, rot=rot, letters=letters, min_text=BIG)
    info = [(_b(text, "card_title", id=code, name=name), True)]
    if moving_from is None:
        info += [(_req_text(text, card), False), (cost, True)]
        if card.get("die"):
            info.append((_b(text, "rolls_die"), False))
    else:
        info.append((_b(text, "no_payment"), False))
    iy = gy + 32 + 146 + 12
    for line, bold in info:
        for part in wrap_text(line, BIG, W - rx - 16, bold):
            draw_text(draw, (rx, iy), part, size=BIG, bold=bold)
            iy += 27
    # table: one row per anchor, a column per rotation
    results = {(a, r): board_counts([*board, [card["id"], a, r]]) for a in range(1, 10) for r in (0, 180)}
    best_e = max(c["E"] for c in results.values())
    draw_text(draw, (20, table_y - 40), _b(text, "icons_after"), size=BIG, bold=True, max_width=W - 40)
    col_x = (20 + 64, 20 + 64 + 314)
    for i, rot in enumerate((0, 180)):
        draw_text(draw, (col_x[i] + 157, table_y + 6), _term(text, f"rot.{rot}"), size=22, bold=True, anchor="ma")
    for a in range(1, 10):
        ry = table_y + 40 + (a - 1) * row_h
        draw.ellipse((20 + 8, ry + 4, 20 + 46, ry + 42), fill=WHITE, outline=INK, width=2)
        draw_text(draw, (20 + 27, ry + 23), str(a), size=22, bold=True, anchor="mm")
        for i, rot in enumerate((0, 180)):
            c = results[(a, rot)]
            bx = col_x[i]
            draw.rectangle((bx + 3, ry + 2, bx + 311, ry + row_h - 2), fill=GHOST if c["E"] == best_e else CELL_BG,
                           outline=LINE)
            _counts_line(draw, bx + 10, ry + 5, c, letters, size=22, icon=36, step=75)
    ky = table_y + 40 + 9 * row_h + 10
    draw.rectangle((20, ky + 2, 50, ky + 28), fill=GHOST, outline=LINE)
    draw_text(draw, (60, ky), _b(text, "most_evil"), size=BIG, fill=INK, max_width=W - 80)
    return img


def draws_decision(view: PrivateView) -> bool:
    """Whether ``render_decision`` draws an image for this view: while the seat chooses where
    a card goes (``you.pending`` at its ``place`` step, with the card). Cheap: the bot asks it
    before sending a job to a render worker (render/registry.py ``draws_decision``)."""
    pend = view["you"]["pending"]
    if not pend:
        return False
    return pend["step"] == "place" and "card" in pend


def render_decision(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image | None:
    """The image for the seat's pending decision, shown in its private Play panel:
    the placement preview (``render_placement_preview``) while the seat chooses where
    a card goes (a play, a kept-card play, an extra play or a Schemer move); None for
    every other decision (``draws_decision``)."""
    pend = view["you"]["pending"]
    if not pend or not draws_decision(view):
        return None
    return render_placement_preview(view, pend["card"], names=names, text=text)


def _dashed_rect(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill: RGB, width: int) -> None:
    x1, y1, x2, y2 = box
    dash = 14
    for x in range(int(x1), int(x2), dash * 2):
        draw.line((x, y1, min(x + dash, x2), y1), fill=fill, width=width)
        draw.line((x, y2, min(x + dash, x2), y2), fill=fill, width=width)
    for y in range(int(y1), int(y2), dash * 2):
        draw.line((x1, y, x1, min(y + dash, y2)), fill=fill, width=width)
        draw.line((x2, y, x2, min(y + dash, y2)), fill=fill, width=width)


ZOOM_SCALE = 2.0
"""A zoomed panel is the board's panel drawn this much larger (its 16-px texts at 32 px)."""
ZOOM_KEY_TEXT = 24


def zoom_regions(view: PublicView | PrivateView) -> list[tuple[str, Msg]]:
    """The regions ``render_zoom`` draws at phone size: each player's board (``seat:<n>``, the
    reader's own first when seated), then the key (``key``: icons, outlines, titles, the die
    faces of the sets in play). Labels are catalog messages (``board.zoom_*``)."""
    n = int(view["players"])
    you = cast(dict[str, Any], view).get("you")
    own = you["seat"] if you else None
    order = ([int(own)] if own is not None else []) + [s for s in range(n) if s != own]
    out: list[tuple[str, Msg]] = []
    for s in order:
        key = "zoom_mine" if s == own else "zoom_seat"
        out.append((f"seat:{s}", Msg(f"board.{key}", {"letter": SEAT_LETTERS[s % len(SEAT_LETTERS)],
                                                       "name": {"seat": s}})))
    out.append(("key", Msg("board.zoom_key")))
    return out


def render_zoom(view: PublicView | PrivateView, region: str, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """One region of ``zoom_regions`` at phone size (``PREVIEW_W`` wide, texts of at least
    ``BIG`` px): a player's panel drawn ``ZOOM_SCALE`` times larger with the anchors of its
    board, or the key.

    Raises:
        KeyError: ``region`` is not one of ``zoom_regions(view)``.
    """
    if region not in {key for key, _ in zoom_regions(view)}:
        raise KeyError(region)
    if region == "key":
        lines = _legend_lines(view, text)
        w = PREVIEW_W - 24
        scratch, sdraw = canvas(2400, PREVIEW_W)
        h = _paint_legend(w, 2400, lines, ZOOM_KEY_TEXT, sdraw, 12, 12) + 12
        img, draw = canvas(h + 24, PREVIEW_W)
        _paint_legend(w, h, lines, ZOOM_KEY_TEXT, draw, 12, 12)
        return img
    s = int(region.split(":", 1)[1])
    w, h = int(PANEL_W * ZOOM_SCALE), int(PANEL_H * ZOOM_SCALE)
    img, draw = canvas(h + 24, PREVIEW_W)
    _draw_panel(draw, 12, 12, w, h, view["seats"][s], view, glyphs(text), text, None, scale=ZOOM_SCALE)
    return img


__all__ = ["draws_decision", "render_board", "render_decision", "render_placement_preview", "render_private",
           "render_zoom", "zoom_regions"]
