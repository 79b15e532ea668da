"""E Guan (惡貫) renderer (docs/rules/eguan.md §11 Digital play notes; design §6).

``render_board(view, *, names, text, highlight=None)`` draws every player's 4 × 4 board
from the public view; ``render_private(view, *, names, text)`` draws a seat's hand and
kept card; ``render_placement_preview(view, card_id, *, names, text)`` draws the seat's
own board with the chosen card's 18 placements (anchor × rotation) and the resulting
counts. Views are ``engines.eguan.view.PublicView`` / ``PrivateView``; card, set, title
and icon names come from the catalog through ``text`` (English names) and from
engines/eguan/data.py (shapes, icons, Chinese names).

Icons are told apart without colour: Heart = circle "H", Strength = square "S",
Skill = diamond "K", Evil = hexagon "惡"; a double corner shows "×2".
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from PIL import Image, ImageDraw

from engines.base import Msg
from engines.eguan.data import CARDS, SKILLS, START_ID, TITLES, effect_msg
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
    WIDTH,
    canvas,
    draw_text,
    polygon,
    seat_colour,
    text_width,
    tile,
)

RGB = tuple[int, int, int]
Text = Callable[[Any], str]
"""Formats a message (``Msg`` JSON) for the reader: ``bot.text.Texts``."""

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


def draw_icon(draw: ImageDraw.ImageDraw, cx: float, cy: float, code: str, size: float) -> None:
    """Draw one corner's icon centred at (cx, cy): shape + letter, ×2 for doubles."""
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
    draw_text(draw, (cx, cy), ICON_GLYPH[kind], size=int(size * 0.55), fill=ICON_TEXT[kind], bold=True, anchor="mm")
    if count == 2:
        b = max(11.0, r * 0.7)
        bx, by = cx + r + b * 0.55, cy - r * 0.55
        draw.ellipse((bx - b, by - b, bx + b, by + b), fill=WHITE, outline=INK, width=2)
        draw_text(draw, (bx, by), "×2", size=int(b * 1.35), bold=True, anchor="mm")  # (× from the Latin face)


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
) -> None:
    """Draw a 4 × 4 board: shown corners, topmost-card outlines and anchor labels 1–9."""
    for r in range(4):
        for c in range(4):
            info = cells[r][c]
            box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell)
            draw.rectangle(box, fill=CELL_BG if info else EMPTY_BG, outline=LINE, width=1)
            if info:
                draw_icon(draw, box[0] + cell / 2, box[1] + cell / 2 + 6, str(info["icon"]), cell * 0.46)
    # outline every topmost deed card, with its id in a corner
    for card_id, anchor, _rot in board:
        if card_id in topmost:
            x1, y1, x2, y2 = _block_rect(x0, y0, cell, int(anchor))
            draw.rectangle((x1 + 3, y1 + 3, x2 - 3, y2 - 3), outline=outline, width=4)
            draw.rectangle((x1 + 5, y1 + 5, x1 + 54, y1 + 27), fill=outline)
            draw_text(draw, (x1 + 29, y1 + 16), str(card_id), size=19, fill=WHITE, bold=True, anchor="mm")
    draw.rectangle((x0, y0, x0 + 4 * cell, y0 + 4 * cell), outline=INK, width=3)
    if anchors:
        for a in range(1, 10):
            r, c = (a - 1) // 3, (a - 1) % 3
            ax, ay = x0 + (c + 1) * cell, y0 + (r + 1) * cell
            draw.ellipse((ax - 12, ay - 12, ax + 12, ay + 12), fill=WHITE, outline=MUTED, width=2)
            draw_text(draw, (ax, ay), str(a), size=17, fill=MUTED, bold=True, anchor="mm")


def _counts_line(draw: ImageDraw.ImageDraw, x: float, y: float, counts: dict[str, int], size: int = 24) -> None:
    for kind in ("H", "S", "K", "E"):
        draw_icon(draw, x + 14, y + 14, kind, 28)
        draw_text(draw, (x + 34, y + 14), str(counts.get(kind, 0)), size=size, bold=True, anchor="lm")
        x += 66


def _b(text: Text, key: str, **params: Any) -> str:
    """A board text: catalog ``board.<key>`` in the reader's language."""
    return text(Msg(f"board.{key}", params))


def _label(text: Text, seat: int) -> str:
    """``"A · Ann"``: the seat letter (a badge) and the display name (``Texts.name``)."""
    return _b(text, "seat_label", letter=SEAT_LETTERS[seat % len(SEAT_LETTERS)], name={"seat": seat})


def _term(text: Text, key: str) -> str:
    """The catalog's name of a game term (``card.H01``, ``set.A``, ``title.heart``)."""
    return text(Msg(f"term.{key}"))


def _title(text: Text, key: str) -> str:
    """A title as the boards show it: ``[H] Heart of Stone 鐵石心腸``, ``★ Most Wanted 罪大惡極``."""
    icon, zh = next((i, z) for k, i, z in TITLES if k == key)
    badge = "★" if key == "most_wanted" else _b(text, "title_badge", icon=_b(text, f"letter_{icon}"))
    return _b(text, "title_line", badge=badge, name=_term(text, f"title.{key}"), native=zh)


def _faces(text: Text, letter: str, faces: Sequence[Any] | None = None, sep: str = " · ") -> str:
    """Die faces of a set in a few words: ``1 +1 · 2 steal 1 · ...``."""
    shown = SKILLS[letter] if faces is None else faces
    return sep.join(_b(text, "face", face=f.face, effect=text(effect_msg(f, short=True))) for f in shown)


def render_board(view: PublicView, *, names: Sequence[str], text: Text,
                 highlight: str | None = None) -> Image.Image:
    """Draw the public board: one panel per player (2 per row) and a footer.

    ``text`` formats catalog messages (names of sets, titles, die faces);
    ``highlight`` (optional) is a card id to emphasise on the boards.
    """
    n = int(view["players"])
    rows = (n + 1) // 2
    panel_w, panel_h = 538, 470
    head_h = 76
    final_lines = _final_lines(view, text)
    foot_h = 56 + len(final_lines) * FINAL_LINE_H + (4 if final_lines else 0)
    height = head_h + rows * (panel_h + 8) + foot_h
    img, draw = canvas(height)
    # header
    title = _b(text, "title_round", round=view["round"]) if view["round"] else _b(text, "title_setup")
    draw_text(draw, (18, 14), title, size=34, bold=True)
    status = _status(view, text)
    draw_text(draw, (WIDTH - 18, 20), status, size=22, fill=MUTED, anchor="ra", max_width=520)
    if view.get("final_round") and view["phase"] != "over":
        draw.rectangle((0, 60, WIDTH, 72), fill=HIGHLIGHT)
    seats = view["seats"]
    for s in range(n):
        px = 8 + (s % 2) * (panel_w + 8)
        py = head_h + (s // 2) * (panel_h + 8)
        _draw_panel(draw, px, py, panel_w, panel_h, seats[s], view, names, text, highlight)
    if n % 2 == 1:
        _draw_legend(draw, 8 + panel_w + 8, head_h + (n // 2) * (panel_h + 8), panel_w, panel_h, view, text)
    # footer
    fy = head_h + rows * (panel_h + 8)
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
        parts.append(_b(text, "removed", cards=", ".join(r["card"] for r in view["removed_cards"][-6:])))
    draw_text(draw, (18, fy + 14), "  ·  ".join(parts), size=22, bold=bool(view.get("final_round")), max_width=WIDTH - 36)
    for i, line in enumerate(final_lines):
        draw_text(draw, (18, fy + 50 + i * FINAL_LINE_H), line, size=24, bold=True, max_width=WIDTH - 36)
    return img


FINAL_LINE_H = 34
"""Px between the lines of the final scores in the footer."""


def _final_lines(view: PublicView, text: Text) -> list[str]:
    """The footer's final scores and winners (catalog ``board.final``), broken between scores
    (the runs of two or more spaces that join them) into lines of the board's width at 24 px
    bold: five long names were cut at "… 4 Win…" on one line (trial 8, 0324-board.png). ``[]``
    before the game is over."""
    res = view.get("result")
    if not res:
        return []
    order = sorted(range(int(view["players"])), key=lambda s: res["ranking"].index(s))
    scores = "  ".join(
        _b(text, "score_star" if s in res["winners"] else "score", seat={"seat": s}, score=res["scores"][s])
        for s in order)
    line = _b(text, "final", scores=scores, winners={"seats": list(res["winners"])})
    width = WIDTH - 36
    out: list[str] = []
    for part in re.split(r"\s{2,}", line.strip()):
        trial = f"{out[-1]}  {part}" if out else part
        if out and text_width(trial, 24, True) <= width:
            out[-1] = trial
        else:
            out.append(part)
    return out


def _draw_legend(draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, view: PublicView, text: Text) -> None:
    """Icon key and the die faces of the skill sets in play (fills an empty slot): a
    ``render.base.tile`` of its place (its icons have float corners)."""
    icons = tuple(_b(text, "icon_evil" if kind == "E" else "icon", name=_term(text, f"icon.{kind}"))
                  for kind in ("H", "S", "K", "E"))
    sets = tuple((_set_name(text, letter_), tuple(_faces(text, letter_, half) for half in (SKILLS[letter_][:3],
                                                                                           SKILLS[letter_][3:])))
                 for letter_ in sorted({str(st["skill"]) for st in view["seats"] if st.get("skill")}))
    lines = (_b(text, "key"), icons, _b(text, "outline_key"), _b(text, "titles_key"), sets)
    tile(draw, (x, y), (w + 1, h + 1), ("eguan.legend", w, h, lines), partial(_paint_legend, w, h, lines),
         anywhere=False)


def _paint_legend(w: int, h: int, lines: tuple[Any, ...], draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    key, icons, outline_key, titles_key, sets = lines
    draw.rectangle((x, y, x + w, y + h), fill=BG, outline=LINE, width=2)
    draw_text(draw, (x + 14, y + 12), key, size=24, bold=True)
    ky = y + 48
    for i, (kind, label) in enumerate(zip(("H", "S", "K", "E"), icons, strict=True)):
        kx = x + 14 + (i % 2) * (w // 2)
        draw_icon(draw, kx + 16, ky + (i // 2) * 40 + 16, kind, 30)
        draw_text(draw, (kx + 40, ky + (i // 2) * 40 + 16), label, size=21, anchor="lm")
    ky += 90
    draw_text(draw, (x + 14, ky), outline_key, size=20, fill=MUTED, max_width=w - 28)
    ky += 28
    draw_text(draw, (x + 14, ky), titles_key, size=20, fill=MUTED, max_width=w - 28)
    ky += 34
    for name, halves in sets:
        draw_text(draw, (x + 14, ky), name, size=21, bold=True, max_width=w - 28)
        ky += 28
        for half in halves:
            draw_text(draw, (x + 24, ky), half, size=20, max_width=w - 36)
            ky += 26
        ky += 6


def _set_name(text: Text, letter: str) -> str:
    """``"Set A Thug 打手"``: a skill set's letter, name and native name."""
    return _b(text, "set", set=letter, name=_term(text, f"set.{letter}"), native=SKILLS[letter][0].set_name_zh)


def _status(view: PublicView, text: Text) -> str:
    if view["phase"] == "over":
        return _b(text, "game_over")
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
    names: Sequence[str],
    text: Text,
    highlight: str | None,
) -> None:
    s = int(seat["seat"])
    colour = seat_colour(s)
    active = view.get("active") == s and view["phase"] == "play"
    draw.rectangle((x, y, x + w, y + h), fill=PANEL, outline=colour if active else LINE, width=5 if active else 2)
    # name bar
    draw.rectangle((x, y, x + w, y + 44), fill=colour)
    draw_text(draw, (x + 12, y + 22), _label(text, s), size=26, fill=WHITE, bold=True, anchor="lm", max_width=w - 150)
    if active:
        draw_text(draw, (x + w - 12, y + 22), _b(text, "active"), size=20, fill=WHITE, bold=True, anchor="rm",
                  max_width=130)
    cell = 78
    gx, gy = x + 14, y + 58
    draw_grid(
        draw,
        gx,
        gy,
        cell,
        seat["cells"],
        board=seat["board"],
        topmost=seat["topmost"],
        outline=colour,
    )
    if highlight:
        for card_id, anchor, _rot in seat["board"]:
            if card_id == highlight:
                x1, y1, x2, y2 = _block_rect(gx, gy, cell, int(anchor))
                draw.rectangle((x1, y1, x2, y2), outline=HIGHLIGHT, width=6)
    # info column
    ix = gx + 4 * cell + 16
    iy = gy
    draw_text(draw, (ix, iy), _b(text, "infamy"), size=20, fill=MUTED)
    draw_text(draw, (ix, iy + 22), str(seat["infamy"]), size=52, bold=True)
    iy += 88
    counts = seat["counts"]
    for kind in ("H", "S", "K", "E"):
        draw_icon(draw, ix + 16, iy + 16, kind, 30)
        draw_text(draw, (ix + 40, iy + 16), f"{counts[kind]}", size=26, bold=True, anchor="lm")
        draw_text(draw, (ix + 76, iy + 16), _b(text, f"icon_{kind}"), size=20, fill=MUTED, anchor="lm",
                  max_width=x + w - ix - 82)
        iy += 38
    iy += 4
    skill = seat.get("skill")
    skill_text = _b(text, "set_short", set=skill, name=_term(text, f"set.{skill}")) if skill else (
        _b(text, "skill_chosen" if seat.get("skill_chosen") else "skill_choosing")
    )
    draw_text(draw, (ix, iy), skill_text, size=20, max_width=x + w - ix - 6)
    iy += 28
    draw_text(draw, (ix, iy), _b(text, "hand_kept" if seat["has_kept"] else "hand_no_kept", n=seat["hand_count"]),
              size=20, max_width=x + w - ix - 6)
    iy += 28
    piles = (seat.get("pile_counts") or []) if view["phase"] != "over" else []
    if piles:
        draw_text(draw, (ix, iy), _b(text, "waiting", piles="+".join(str(p) for p in piles)), size=20, fill=MUTED,
                  max_width=x + w - ix - 6)
    # titles under the grid
    ty = gy + 4 * cell + 10
    titles = seat.get("leading_titles") or []
    if not titles:
        draw_text(draw, (x + 14, ty), _b(text, "no_title"), size=20, fill=MUTED)
    for i, t in enumerate(titles):
        draw_text(
            draw,
            (x + 14 + (i % 2) * (w // 2 - 4), ty + (i // 2) * 26),
            _title(text, t),
            size=19,
            bold=True,
            max_width=w // 2 - 18,
        )
    ty += 26 * max(1, (len(titles) + 1) // 2)
    res = view.get("result")
    if res:
        bonus = sum(res["bonus"][k][s] for k in ("H", "S", "K"))
        draw_text(
            draw,
            (x + 14, ty + 2),
            _b(text, "final_score", score=res["scores"][s], infamy=res["infamy"][s], bonus=bonus),
            size=20,
            bold=True,
            max_width=w - 28,
        )


# --------------------------------------------------------------------------- private views


def draw_card(draw: ImageDraw.ImageDraw, x: float, y: float, card: Mapping[str, Any], *, w: int = 200,
              rot: int = 0) -> None:
    """A mini card: its 2 × 2 corners (``card["corners"]``: corner codes), rotated if
    ``rot`` = 180."""
    cell = w / 2
    draw.rectangle((x, y, x + w, y + w), fill=CELL_BG, outline=INK, width=3)
    for corner, (dr, dc) in _CORNER_OFFSET[rot].items():
        cx, cy = x + dc * cell + cell / 2, y + dr * cell + cell / 2
        draw_icon(draw, cx, cy, str(card["corners"][corner]), cell * 0.5)
    draw.line((x + cell, y, x + cell, y + w), fill=LINE, width=1)
    draw.line((x, y + cell, x + w, y + cell), fill=LINE, width=1)


def _req_text(text: Text, card: Mapping[str, Any]) -> str:
    req = card["req"]
    parts = [_b(text, "req", icon=_b(text, f"letter_{k}"), n=req[k]) for k in ("H", "S", "K") if req[k]]
    return _b(text, "needs", req=" ".join(parts)) if parts else _b(text, "needs_nothing")


def render_private(view: PrivateView, *, names: Sequence[str], text: Text) -> Image.Image:
    """Draw a seat's hand and kept card (``view["you"]``): corners, requirement,
    payment now, die mark; plus the seat's skill set faces when known."""
    you = view["you"]
    seat = int(you["seat"])
    cards = list(you["hand"])
    per_row = 4
    card_w = 200
    slot_w = 270
    me = view["seats"][seat]
    rows = (len(cards) + per_row - 1) // per_row
    kept = you.get("kept")
    skill_h = 96
    hand_h = rows * 330 if cards else 110
    height = 76 + skill_h + hand_h + (330 if kept else 60) + 30
    img, draw = canvas(height)
    draw.rectangle((0, 0, WIDTH, 60), fill=seat_colour(seat))
    draw_text(
        draw,
        (16, 30),
        _b(text, "your_hand", seat=_label(text, seat), infamy=me["infamy"]),
        size=28,
        fill=WHITE,
        bold=True,
        anchor="lm",
        max_width=WIDTH - 32,
    )
    y = 76
    skill = you.get("skill")
    if skill:
        faces = SKILLS[str(skill)]
        draw_text(draw, (20, y), _b(text, "your_set", set=skill, name=_term(text, f"set.{skill}"),
                                    native=faces[0].set_name_zh), size=24, bold=True,
                  max_width=WIDTH - 40)
        draw_text(draw, (20, y + 34), _faces(text, str(skill)), size=22, max_width=WIDTH - 40)
    else:
        draw_text(draw, (20, y), _b(text, "no_set"), size=24, fill=MUTED, max_width=WIDTH - 40)
    y += skill_h
    if not cards:
        piles = me.get("pile_counts") or []
        draw_text(draw, (20, y + 4), _b(text, "hand_empty"), size=26, bold=True)
        if piles:
            waiting = sum(int(p) for p in piles)
            draw_text(draw, (20, y + 40), _b(text, "passed_1", n=waiting), size=21, fill=MUTED, max_width=WIDTH - 40)
            rest = _b(text, "passed_topped" if view.get("deck_count") else "passed_no_top")
            draw_text(draw, (20, y + 68), _b(text, "passed_2", rest=rest), size=21, fill=MUTED, max_width=WIDTH - 40)
    for i, card in enumerate(cards):
        cx = 20 + (i % per_row) * slot_w
        cy = y + (i // per_row) * 330
        _card_block(draw, cx, cy, card, card_w, text)
    y += hand_h
    if kept:
        draw_text(draw, (20, y), _b(text, "kept"), size=24, bold=True)
        _card_block(draw, 20, y + 34, kept, card_w, text, marked=False)
        note = _b(text, "kept_usable" if kept.get("usable") else "kept_later")
        draw_text(draw, (20 + slot_w, y + 80), note, size=22, max_width=WIDTH - slot_w - 40)
    else:
        draw_text(draw, (20, y + 10), _b(text, "no_kept"), size=22, fill=MUTED)
    return img


def _card_block(draw: ImageDraw.ImageDraw, x: float, y: float, card: Mapping[str, Any], w: int, text: Text,
                *, marked: bool = True) -> None:
    """A card of the seat's with its id, names, requirement and payment; an unaffordable
    hand card (``marked``) in red."""
    draw_card(draw, x, y, card, w=w)
    die = _b(text, "card_die" if card.get("die") else "card_id", id=card["id"])
    draw_text(draw, (x, y + w + 8), die, size=22, bold=True, max_width=250)
    draw_text(draw, (x, y + w + 36), _b(text, "card_name", native=CARDS[card["id"]].name_zh,
                                          name=_term(text, "card." + card["id"])), size=20, max_width=250)
    pay = int(card.get("payment", 0))
    cost = _b(text, "free") if pay == 0 else _b(text, "pay", n=pay)
    playable = card.get("playable", True) or not marked
    colour = INK if playable else (170, 30, 30)
    draw_text(draw, (x, y + w + 62), _req_text(text, card), size=20, fill=colour, max_width=250)
    draw_text(draw, (x, y + w + 86), cost if playable else _b(text, "cannot_pay", cost=cost), size=20, fill=colour,
              max_width=250)


def render_placement_preview(view: PrivateView, card_id: str, *, names: Sequence[str], text: Text) -> Image.Image:
    """Your board with ``card_id`` (from your hand, your kept card, or — for Schemer 3 —
    one of your topmost cards being moved) and every placement: a table of anchors
    1–9 × ↑0°/↓180° with the resulting visible H S K E (spec §11 Placement flow).

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
    img, draw = canvas(800)
    colour = seat_colour(seat)
    draw.rectangle((0, 0, WIDTH, 60), fill=colour)
    pay = int(card.get("payment", 0))
    cost = _b(text, "free") if pay == 0 else _b(text, "pay_infamy", n=pay)
    name = _term(text, f"card.{card_id}")
    if moving_from is not None:
        what = _b(text, "moving", id=card_id, name=name, anchor=moving_from[1],
                  rot=_term(text, f"rot.{moving_from[2]}"))
    else:
        kept_card = bool(you["kept"] and you["kept"]["id"] == card_id)
        what = _b(text, "placing_kept" if kept_card else "placing", id=card_id, name=name, cost=cost)
    draw_text(draw, (16, 30), _b(text, "preview_title", seat=_label(text, seat), what=what), size=26, fill=WHITE,
              bold=True, anchor="lm", max_width=WIDTH - 32)
    cell = 80
    gx, gy = 20, 80
    counts = board_counts(board)
    draw_grid(draw, gx, gy, cell, cells_view(board), board=board, topmost=topmost(board), outline=colour)
    if moving_from is not None:
        x1, y1, x2, y2 = _block_rect(gx, gy, cell, int(moving_from[1]))
        _dashed_rect(draw, (x1 + 4, y1 + 4, x2 - 4, y2 - 4), HIGHLIGHT, 5)
    draw_text(draw, (gx, gy + 4 * cell + 12), _b(text, "now" if moving_from is None else "without"), size=22,
              bold=True)
    _counts_line(draw, gx + (60 if moving_from is None else 130), gy + 4 * cell + 8, counts)
    # the card in both orientations
    for i, rot in enumerate((0, 180)):
        cx = 380 + i * 180
        draw_text(draw, (cx, 80), _term(text, f"rot.{rot}"), size=24, bold=True)
        draw_card(draw, cx, 112, card, w=150, rot=rot)
    draw_text(draw, (740, 112), _b(text, "card_native", id=card_id, native=CARDS[card_id].name_zh), size=22,
              bold=True, max_width=WIDTH - 760)
    if moving_from is None:
        draw_text(draw, (740, 142), _req_text(text, card), size=22, max_width=WIDTH - 760)
        draw_text(draw, (740, 172), cost, size=22, bold=True, max_width=WIDTH - 760)
        if card.get("die"):
            draw_text(draw, (740, 202), _b(text, "rolls_die"), size=22, max_width=WIDTH - 760)
    else:
        draw_text(draw, (740, 142), _b(text, "no_payment"), size=22, max_width=WIDTH - 760)
    for i, key in enumerate(("help_1", "help_2")):
        draw_text(draw, (380, 290 + 26 * i), _b(text, key), size=20, fill=MUTED, max_width=WIDTH - 400)
    for i, key in enumerate(("help_3", "help_4")):
        draw_text(draw, (380, 352 + 28 * i), _b(text, key), size=22, bold=True, max_width=WIDTH - 400)
    # table of results
    ty = 480
    draw_text(draw, (20, ty), _b(text, "icons_after"), size=22, bold=True, max_width=530)
    draw.rectangle((560, ty + 2, 590, ty + 26), fill=GHOST, outline=LINE)
    draw_text(draw, (598, ty), _b(text, "most_evil"), size=20, fill=MUTED, max_width=WIDTH - 618)
    ty += 36
    col_w = 108
    draw_text(draw, (20, ty + 8), _b(text, "anchor"), size=20, fill=MUTED, max_width=86)
    for a in range(1, 10):
        draw_text(draw, (110 + (a - 1) * col_w + col_w / 2, ty + 8), str(a), size=22, bold=True, anchor="ma")
    results = {(a, r): board_counts([*board, [card["id"], a, r]]) for a in range(1, 10) for r in (0, 180)}
    best_e = max(c["E"] for c in results.values())
    for i, rot in enumerate((0, 180)):
        ry = ty + 44 + i * 84
        draw_text(draw, (20, ry + 20), _term(text, f"rot.{rot}"), size=22, bold=True)
        for a in range(1, 10):
            c = results[(a, rot)]
            bx = 110 + (a - 1) * col_w
            fill = GHOST if c["E"] == best_e else CELL_BG
            draw.rectangle((bx + 3, ry, bx + col_w - 3, ry + 76), fill=fill, outline=LINE)
            draw_text(draw, (bx + col_w / 2, ry + 8), _b(text, "counts_hs", h=c["H"], s=c["S"]), size=20, anchor="ma")
            draw_text(draw, (bx + col_w / 2, ry + 40), _b(text, "counts_ke", k=c["K"], e=c["E"]), size=20, bold=True,
                      anchor="ma")
    return img


def draws_decision(view: PrivateView) -> bool:
    """Whether ``render_decision`` draws an image for this view: while the seat chooses where
    a card goes (``you.pending`` at its ``place`` step, with the card). Cheap: the bot asks it
    before sending a job to a render worker (render/registry.py ``draws_decision``)."""
    pend = view["you"]["pending"]
    if not pend:
        return False
    return pend["step"] == "place" and "card" in pend


def render_decision(view: PrivateView, *, names: Sequence[str], text: Text) -> Image.Image | None:
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


__all__ = ["draws_decision", "render_board", "render_decision", "render_placement_preview", "render_private"]
