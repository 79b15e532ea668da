"""The Way to Heaven (天路) renderer (docs/rules/heaven.md §11 Digital play notes; design §6).

``render_board(view, *, names, text, highlight=None)`` draws the public board from
``player_view(state, None)``: the track 0–6 with its condition rows (advanced side: a
saint sum row and a sinner combination row; easy side: one shared row), every pawn (seat
letter on the seat colour), one strip per player (faction badge, public cards, hand count,
skips, Gate marker), and a footer (draw pile, discard top, saint/sinner/none counts, lock).

``render_private(view, *, names, text)`` draws a seat's hand from ``player_view(state, seat)``.

``text`` formats the messages the views carry (``Msg`` JSON: the declared USE, the end
reason, the next-space test, the abilities) and this module's own lines (catalog
``bot/text/en/heaven.toml`` ``board.*``): ``bot.text.Texts`` for the game and the reader.

Cards are colour-blind safe: every card shows its colour as a letter and word
("R · red"), its number, its name and an S/N side mark.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from PIL import Image, ImageDraw

from engines.base import msg, seat_letter
from engines.heaven.data import COLOUR_LETTER, COLOURS
from engines.heaven.view import CardView, PrivateView, PublicView
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
    tile,
)

TextFormatter = Callable[[Any], str]

RGB = tuple[int, int, int]

CARD_FILL: dict[str, RGB] = {
    "red": (250, 214, 210),
    "blue": (206, 224, 250),
    "green": (210, 240, 212),
    "wild": (246, 236, 196),
}
CARD_EDGE: dict[str, RGB] = {
    "red": (190, 40, 40),
    "blue": (30, 90, 190),
    "green": (30, 130, 60),
    "wild": (170, 120, 20),
}
SAINT_INK: RGB = (150, 110, 10)
SINNER_INK: RGB = (120, 30, 110)
FACTION_FILL: dict[str, RGB] = {"saint": (255, 236, 170), "sinner": (232, 205, 235), "none": (225, 225, 225)}
SPACE_NAMES = {0: "city", 6: "gate"}
"""Track spaces with a name (catalog ``board.space_<name>`` and ``board.space_<name>_native``)."""
assert set(CARD_FILL) == set(CARD_EDGE) == {*COLOURS, "wild"}, "a fill and an edge per card colour"

MARGIN = 20
COL_W = (WIDTH - 2 * MARGIN) // 7
STRIP_H = 118
CARD_W = 200
CARD_H = 96


def _b(text: TextFormatter, key: str, **params: Any) -> str:
    """A board text: catalog ``board.<key>`` in the reader's language."""
    return text(msg(f"board.{key}", **params))


def _name(text: TextFormatter, seat: int) -> str:
    """``"A Ann"``: seat letter (a badge) and display name (``Texts.name``)."""
    return _b(text, "seat", letter=seat_letter(seat), name={"seat": seat})


def _short(text: TextFormatter, card: CardView) -> str:
    """``"Mercy R1"``: a card's name in the reader's language and its colour-number code
    (catalog ``card``; the view's ``label`` is the English one)."""
    code = f"{COLOUR_LETTER[str(card['colour'])]}{card['number']}"
    return text(msg("card", name=msg(f"term.card.{card['kind']}"), code=code))


def _faction(text: TextFormatter, fac: str) -> str:
    return _b(text, f"faction_{fac}")


def _pawn(draw: ImageDraw.ImageDraw, cx: float, cy: float, seat: int, r: int = 19, ring: bool = False,
          size: int = 22) -> None:
    if ring:
        draw.ellipse((cx - r - 5, cy - r - 5, cx + r + 5, cy + r + 5), fill=HIGHLIGHT)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=seat_colour(seat), outline=INK, width=2)
    draw_text(draw, (cx, cy), seat_letter(seat), size=size, fill=WHITE, bold=True, anchor="mm")


def _wrap(text: str, size: int, width: float, lines: int) -> list[str]:
    """``text`` in at most ``lines`` lines of ``width`` pixels (the last one shortened)."""
    out: list[str] = []
    words = _TOKEN.findall(text)
    while words and len(out) < lines:
        line = words.pop(0).strip()
        while words and fit_text(line + words[0], size, width, False) == line + words[0]:
            line += words.pop(0)
        out.append(line.strip())
        while words and words[0].isspace():
            words.pop(0)
    if words:
        out[-1] = fit_text(out[-1] + "".join(words), size, width, False)
    return out


_TOKEN = re.compile(r"\s*(?:[（「『]?[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef][、。，：；！？）」』]?|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+)")
"""Wrapping units: a Latin word, or one CJK character (with a following closing mark)."""


def _card(draw: ImageDraw.ImageDraw, x: float, y: float, card: CardView, text: TextFormatter, w: int = CARD_W,
          h: int = CARD_H, mark: str | None = None, bg: RGB | None = None) -> None:
    """One card box of the board: colour letter+word, big number, name (en + zh), S/N corner
    (the private view draws a card as a row with its ability: ``_hand_row``).
    ``bg``: the colour under the card when known, so it is a ``render.base.tile`` (at integer
    ``x``, ``y``)."""
    col = str(card["colour"])
    lines = [f"{COLOUR_LETTER[col]}{card['number']}", text(msg(f"colour.{col}")),
             "S" if card["side"] == "saint" else "N"]
    name = text(msg(f"term.card.{card['kind']}"))
    lines.append(_b(text, "card_name", name=name, native=card["name_zh"]))
    paint = partial(_paint_card, col, w, h, tuple(lines), mark)
    if bg is None or x != int(x) or y != int(y):
        paint(draw, x, y)  # (float corners: drawn where they are)
        return
    tile(draw, (int(x), int(y)), (w + 1, h + 1), ("heaven.card", col, w, h, tuple(lines), mark), paint, bg)


def _paint_card(col: str, w: int, h: int, lines: tuple[str, ...], mark: str | None,
                draw: ImageDraw.ImageDraw, x: float, y: float) -> None:
    number, colour, side, name = lines[:4]
    draw.rounded_rectangle((x, y, x + w, y + h), radius=10, fill=CARD_FILL[col], outline=CARD_EDGE[col], width=4)
    draw_text(draw, (x + 12, y + 6), number, size=34, bold=True, fill=CARD_EDGE[col])
    draw_text(draw, (x + 66, y + 13), colour, size=22, fill=INK, max_width=w - 100)
    sx, sy = x + w - 22, y + 22
    draw.ellipse((sx - 15, sy - 15, sx + 15, sy + 15),
                 fill=SAINT_INK if side == "S" else SINNER_INK)
    draw_text(draw, (sx, sy), side, size=20, fill=WHITE, bold=True, anchor="mm")
    draw_text(draw, (x + 12, y + 50), name, size=22, fill=INK, bold=True, max_width=w - 20)
    if mark:
        draw_text(draw, (x + w - 10, y + h - 6), mark, size=20, fill=INK, bold=True, anchor="rd")


def _status(view: PublicView, text: TextFormatter) -> str:
    phase = view["phase"]
    if phase == "over":
        winners = [_name(text, w) for w in view["winners"]]
        return _b(text, "over_many" if len(winners) > 1 else "over_one", winners=", ".join(winners))
    if phase == "deal":
        return _b(text, "dealing")
    if phase == "split":
        waiting = [seat_letter(s) for s, done in enumerate(view["split_done"]) if not done]
        return _b(text, "splitting", seats=", ".join(waiting))
    if phase == "start":
        return _b(text, "choosing_start")
    active = view["active"]
    who = _name(text, active) if active is not None else "?"
    r = view["reacting"]
    if view["stage"] == "react" and r is not None:
        return _b(text, "reacting", who=who, target=_name(text, r))
    return _b(text, "to_play", who=who)


def render_board(view: PublicView, *, names: Sequence[str], text: TextFormatter,
                 highlight: str | None = None) -> Image.Image:
    """Draw the public board from ``player_view(state, None)``; ``text`` formats its messages.

    Uses view keys: players, phase, stage, round, round_limit, start, active, options
    (board_side, gate_same_colour), track, positions, public, factions, public_sums,
    counts, majority, lock, hand_counts, skips, split_done, deck_count, discard,
    declared, reacting, turn, winners, end_reason. ``highlight`` (a seat letter) rings a pawn.
    """
    n = int(view["players"])
    advanced = view["options"]["board_side"] == "advanced"
    track_h = 300 if advanced else 260
    height = 120 + track_h + 70 + n * (STRIP_H + 8) + 120
    img, draw = canvas(height)

    # -- header
    side = _b(text, "side_advanced" if advanced else "side_easy")
    draw_text(draw, (MARGIN, 14), _b(text, "title"), size=34, bold=True)
    rnd = view["round"]
    limit = view["round_limit"]
    rtext = _b(text, "round", round=rnd, limit=limit) if rnd else _b(text, "setup")
    draw_text(draw, (WIDTH - MARGIN, 18), _b(text, "round_side", round=rtext, side=side), size=22, anchor="ra")
    last = view["phase"] == "play" and rnd == limit
    status = _status(view, text)
    draw.rounded_rectangle((MARGIN, 62, WIDTH - MARGIN, 108), radius=8,
                           fill=(255, 226, 200) if last else PANEL)
    draw_text(draw, (MARGIN + 12, 85), _b(text, "last_round", status=status) if last else status, size=22,
              bold=True,
              anchor="lm", max_width=WIDTH - 2 * MARGIN - 24)

    # -- track
    y0 = 120
    track = {int(t["space"]): t for t in view["track"]}
    row_y = y0 + 46
    for sp in range(7):
        x = MARGIN + sp * COL_W
        fill = (255, 244, 200) if sp == 6 else ((230, 222, 210) if sp == 0 else WHITE)
        draw.rounded_rectangle((x + 3, y0, x + COL_W - 3, y0 + track_h - 8), radius=10, fill=fill,
                               outline=LINE, width=2)
        draw_text(draw, (x + COL_W / 2, y0 + 8), str(sp), size=30, bold=True, anchor="ma")
        if sp in SPACE_NAMES:
            draw_text(draw, (x + COL_W / 2, row_y), _b(text, f"space_{SPACE_NAMES[sp]}"), size=22, anchor="ma",
                      bold=True, max_width=COL_W - 12)
            draw_text(draw, (x + COL_W / 2, row_y + 28), _b(text, f"space_{SPACE_NAMES[sp]}_native"), size=20,
                      anchor="ma", max_width=COL_W - 12)
            if sp == 6:
                colour_rule = _b(text, "gate_one_colour" if view["options"]["gate_same_colour"] else "gate_any_colour")
                draw_text(draw, (x + COL_W / 2, row_y + 58), _b(text, "gate_rule"), size=20, anchor="ma",
                          max_width=COL_W - 12)
                draw_text(draw, (x + COL_W / 2, row_y + 82), colour_rule, size=20, anchor="ma", max_width=COL_W - 12)
            continue
        t = track[sp]
        combos = "C" + "".join(c[1] for c in t["combos"])
        combos = combos if len(t["combos"]) < 5 else "C1–C5"
        if advanced:
            draw_text(draw, (x + COL_W / 2, row_y), _b(text, "row_saint"), size=20, fill=SAINT_INK, anchor="ma",
                      bold=True, max_width=COL_W - 12)
            draw_text(draw, (x + COL_W / 2, row_y + 24), _b(text, "sum_at_least", sum=t["sum"]), size=22,
                      anchor="ma", max_width=COL_W - 12)
            draw.line((x + 14, row_y + 56, x + COL_W - 14, row_y + 56), fill=LINE, width=1)
            draw_text(draw, (x + COL_W / 2, row_y + 62), _b(text, "row_sinner"), size=20, fill=SINNER_INK,
                      anchor="ma", bold=True, max_width=COL_W - 12)
            draw_text(draw, (x + COL_W / 2, row_y + 86), ", ".join(t["combos"]) if len(t["combos"]) < 5
                      else "C1–C5", size=20, anchor="ma")
        else:
            draw_text(draw, (x + COL_W / 2, row_y), _b(text, "sum_at_least", sum=t["sum"]), size=22, anchor="ma",
                      max_width=COL_W - 12)
            draw_text(draw, (x + COL_W / 2, row_y + 28), _b(text, "or"), size=20, fill=MUTED, anchor="ma")
            draw_text(draw, (x + COL_W / 2, row_y + 54), ", ".join(t["combos"]) if len(t["combos"]) < 5
                      else "C1–C5", size=20, anchor="ma")
    # pawns: 3 per row, two rows at the bottom of each column
    pawn_top = y0 + track_h - 100
    by_space: dict[int, list[int]] = {}
    for s, p in enumerate(view["positions"]):
        by_space.setdefault(int(p), []).append(s)
    letters = [seat_letter(s) for s in range(n)]
    ring = letters.index(highlight) if highlight in letters else None
    for sp, seats in by_space.items():
        x = MARGIN + sp * COL_W
        for i, s in enumerate(seats):
            cx = x + COL_W / 2 + ((i % 3) - 1) * 44
            cy = pawn_top + 22 + (i // 3) * 46
            _pawn(draw, cx, cy, s, ring=(s == ring or s == view["active"]))

    # -- legend
    ly = y0 + track_h + 4
    for i, line in enumerate(text(msg(f"board.legend_{k}")) for k in (1, 2)):
        draw_text(draw, (MARGIN, ly + i * 28), line, size=20, fill=INK, max_width=WIDTH - 2 * MARGIN)

    # -- player strips
    sy = ly + 66
    factions = view["factions"]
    for s in range(n):
        y = sy + s * (STRIP_H + 8)
        active = view["active"] == s and view["phase"] == "play"
        draw.rounded_rectangle((MARGIN, y, WIDTH - MARGIN, y + STRIP_H), radius=10,
                               fill=(255, 246, 214) if active else PANEL,
                               outline=HIGHLIGHT if active else LINE, width=4 if active else 2)
        if active:
            draw_text(draw, (MARGIN + 6, y + STRIP_H / 2), "▶", size=26, anchor="lm", fill=INK)
        _pawn(draw, MARGIN + 50, y + 26, s, r=20)
        draw_text(draw, (MARGIN + 80, y + 26), text({"msg": "board.name", "params": {"name": {"seat": s}}}),
                  size=24, bold=True, anchor="lm", max_width=240)
        fac = str(factions[s]) if view["phase"] in ("play", "over") else "none"
        if view["phase"] in ("play", "over"):
            badge = _faction(text, fac)
        elif view["phase"] == "split":
            badge = _b(text, "chosen" if view["split_done"][s] else "choosing")
        else:
            badge = "—"
        bx = MARGIN + 30
        draw.rounded_rectangle((bx, y + 52, bx + 190, y + 82), radius=8, fill=FACTION_FILL[fac], outline=INK)
        draw_text(draw, (bx + 95, y + 67), badge, size=20, bold=True, anchor="mm", max_width=180)
        pos = int(view["positions"][s])
        parts = [_b(text, "on_gate") if pos == 6 else _b(text, "space", space=pos)]
        if s in view["winners"]:
            parts.insert(0, _b(text, "winner"))
        parts.append(_b(text, "hand", n=view["hand_counts"][s]))
        if view["skips"][s]:
            parts.append(_b(text, "skips", n=view["skips"][s]))
        info = " · ".join(parts)
        cards = view["public"][s]
        cx0 = WIDTH - MARGIN - 3 * (CARD_W + 10)
        # (the sum stands right of the faction badge, so the info line below has the whole width)
        draw_text(draw, (MARGIN + 30, y + 88), info, size=20, fill=INK, max_width=cx0 - 12 - (MARGIN + 30))
        for i in range(3):
            x = cx0 + i * (CARD_W + 10)
            if i < len(cards):
                _card(draw, x, y + 11, cards[i], text, bg=(255, 246, 214) if active else PANEL)
            else:
                draw.rounded_rectangle((x, y + 11, x + CARD_W, y + 11 + CARD_H), radius=10, outline=LINE,
                                       width=2)
                hidden = view["phase"] in ("deal", "split")
                draw_text(draw, (x + CARD_W / 2, y + 11 + CARD_H / 2), _b(text, "face_down" if hidden else "empty"),
                          size=20, fill=MUTED,
                          anchor="mm")
        if cards:
            draw_text(draw, (cx0 - 12, y + 67), _b(text, "sum", sum=view["public_sums"][s]), size=20,
                      anchor="rm", fill=MUTED, max_width=cx0 - 12 - (bx + 200))

    # -- footer
    fy = sy + n * (STRIP_H + 8) + 4
    counts = view["counts"]
    maj = _b(text, f"majority_{view['majority']}")
    line = _b(text, "counts", saint=counts["saint"], sinner=counts["sinner"], none=counts["none"], majority=maj)
    if view["lock"]:
        line = " · ".join((line, _b(text, "lock")))
    draw_text(draw, (MARGIN, fy), line, size=22, bold=True, max_width=WIDTH - 2 * MARGIN)
    discard = view["discard"]
    top = _b(text, "top", card=_short(text, discard[-1])) if discard else _b(text, "empty")
    start = view["start"]
    line = _b(text, "piles", deck=view["deck_count"], discard=len(discard), top=top)
    if start is not None:
        line = " · ".join((line, _b(text, "start_player", seat=_name(text, start))))
    draw_text(draw, (MARGIN, fy + 34), line, size=22, max_width=WIDTH - 2 * MARGIN)
    turn = view["turn"]
    extra = []
    if turn["modifier"] == "x3":
        extra.append(_b(text, "times_three"))
    elif turn["modifier"] == "law":
        extra.append(_b(text, "law", n=turn["law"]))
    elif turn["modifier"] == "miracle":
        extra.append(_b(text, "miracle"))
    if turn["borrowed"]:
        extra.append(_b(text, "borrowed", n=turn["borrowed"]))
    if view["end_reason"] is not None:
        extra.append(text(view["end_reason"]))
    if view["declared"] is not None:
        extra.append(text(msg("board.declared", use=view["declared"])))
    if extra:
        draw_text(draw, (MARGIN, fy + 68), " · ".join(extra), size=22, fill=SINNER_INK,
                  max_width=WIDTH - 2 * MARGIN)
    return img


HAND_TEXT = 29
"""Font size (px) of a hand row's ability lines, key and mark: 10 px on a phone (Discord shows an
image about 380 px wide there: tests/render/text_sizes.py), as Carnival's smallest text."""
HAND_NAME = 32
HAND_CODE = 44
HAND_LINES = 3
"""Ability lines at most per hand row (the last one shortened)."""
ROW_GAP = 10
ROW_TEXT_X = 150
"""Px from a hand row's left edge to its name and ability lines (the code and colour word left of it)."""


def _row_lines(card: CardView, text: TextFormatter, width: int) -> tuple[str, ...]:
    """A hand row's texts: code, colour word, S/N, name (en + zh), then who may use it and its
    ability wrapped in ``HAND_LINES`` lines of ``width`` px at ``HAND_TEXT`` px."""
    col = str(card["colour"])
    name = text(msg(f"term.card.{card['kind']}"))
    ability = text(msg("board.usable", who=msg(f"usable.{card['usable_by']}"), ability=card["ability"]))
    return (f"{COLOUR_LETTER[col]}{card['number']}", text(msg(f"colour.{col}")),
            "S" if card["side"] == "saint" else "N", _b(text, "card_name", name=name, native=card["name_zh"]),
            *_wrap(ability, HAND_TEXT, width, HAND_LINES))


def _row_height(lines: Sequence[str]) -> int:
    """Px of a hand row with these texts (``_row_lines``): name line, then its ability lines."""
    return 16 + 42 + (len(lines) - 4) * 36 + 14


def _hand_row(draw: ImageDraw.ImageDraw, y: int, card: CardView, text: TextFormatter,
              mark: str | None = None) -> int:
    """One card of the private view as a full-width row (readable on a phone: ``HAND_TEXT``):
    colour-number code and colour word on the left, the S/N disc on the right, the name and who
    may use it with its ability in up to ``HAND_LINES`` lines, and ``mark`` (✓ usable, ★ public)
    bottom right. Returns the row's height (px)."""
    col = str(card["colour"])
    x, w = MARGIN, WIDTH - 2 * MARGIN
    mark_w = int(text_width(mark, HAND_TEXT, True)) + 24 if mark else 0
    lines = _row_lines(card, text, w - ROW_TEXT_X - 60 - mark_w)
    h = _row_height(lines)
    number, colour, side, name = lines[:4]
    draw.rounded_rectangle((x, y, x + w, y + h), radius=12, fill=CARD_FILL[col], outline=CARD_EDGE[col], width=4)
    draw_text(draw, (x + 16, y + 8), number, size=HAND_CODE, bold=True, fill=CARD_EDGE[col])
    draw_text(draw, (x + 16, y + 64), colour, size=HAND_TEXT, fill=INK, max_width=ROW_TEXT_X - 24)
    sx, sy = x + w - 30, y + 30
    draw.ellipse((sx - 19, sy - 19, sx + 19, sy + 19), fill=SAINT_INK if side == "S" else SINNER_INK)
    draw_text(draw, (sx, sy), side, size=HAND_TEXT, fill=WHITE, bold=True, anchor="mm")
    draw_text(draw, (x + ROW_TEXT_X, y + 12), name, size=HAND_NAME, fill=INK, bold=True,
              max_width=w - ROW_TEXT_X - 70)
    for i, line in enumerate(lines[4:]):
        draw_text(draw, (x + ROW_TEXT_X, y + 58 + i * 36), line, size=HAND_TEXT, fill=INK)
    if mark:
        draw_text(draw, (x + w - 14, y + h - 10), mark, size=HAND_TEXT, fill=INK, bold=True, anchor="rd")
    return h


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """Draw a seat's hand from ``player_view(state, seat)``: one full-width row per card (hand
    cards with usable ones marked, the split choice during setup, cards drawn but not yet placed,
    the public set), then the faction and the next-space test; texts at least ``HAND_TEXT`` px
    (10 px on a phone).

    Uses view keys: seat, hand, usable, split_choice, buffer, next_test, public, factions, phase.
    """
    seat = int(view["seat"])
    hand = view["hand"]
    buffer = view["buffer"]
    public = view["public"][seat]
    usable = set(view["usable"])
    chosen = set(view["split_choice"] or [])

    def mark_of(card: CardView) -> str | None:
        return (_b(text, "usable_mark") if card["id"] in usable
                else _b(text, "public_mark") if card["id"] in chosen else None)

    def rows_h(cards: Sequence[CardView], marks: bool) -> int:
        width = WIDTH - 2 * MARGIN - ROW_TEXT_X - 60
        return sum(_row_height(_row_lines(c, text, width - (int(text_width(m, HAND_TEXT, True)) + 24
                                                               if marks and (m := mark_of(c)) else 0)))
                   + ROW_GAP for c in cards)

    height = (112 + (rows_h(hand, True) if hand else 50) + (56 + rows_h(buffer, False) if buffer else 0)
              + (56 + rows_h(public, False) if public else 0)
              + 20 + (110 if view["next_test"] else 44 if view["phase"] == "play" else 0))
    img, draw = canvas(height)
    _pawn(draw, MARGIN + 24, 36, seat, r=24, size=HAND_TEXT)
    draw_text(draw, (MARGIN + 60, 36), _b(text, "your_hand", seat={"seat": seat}, n=len(hand)), size=HAND_NAME,
              bold=True, anchor="lm", max_width=WIDTH - 2 * MARGIN - 64)
    key = "usable_key" if view["phase"] == "play" else ("chosen_key" if chosen else "choose_public")
    draw_text(draw, (MARGIN, 68), _b(text, key), size=HAND_TEXT, fill=MUTED, max_width=WIDTH - 2 * MARGIN)
    y = 112
    if not hand:
        draw_text(draw, (MARGIN, y), _b(text, "no_hand"), size=HAND_TEXT, fill=MUTED)
        y += 50
    for card in hand:
        y += _hand_row(draw, y, card, text, mark_of(card)) + ROW_GAP
    if buffer:
        draw_text(draw, (MARGIN, y + 8), _b(text, "buffer"), size=HAND_TEXT, bold=True)
        y += 56
        for card in buffer:
            y += _hand_row(draw, y, card, text) + ROW_GAP
    if public:
        draw_text(draw, (MARGIN, y + 8), _b(text, "your_public"), size=HAND_TEXT, bold=True)
        y += 56
        for card in public:
            y += _hand_row(draw, y, card, text) + ROW_GAP
    test = view["next_test"]
    fac = view["factions"][seat]
    y += 10
    if view["phase"] == "play":
        draw_text(draw, (MARGIN, y), _b(text, "your_faction", faction=_faction(text, str(fac or "none"))),
                  size=HAND_TEXT, bold=True)
    if test:
        met = test["met"]
        draw.rounded_rectangle((MARGIN, y + 44, WIDTH - MARGIN, y + 100), radius=8,
                               fill=(210, 240, 212) if met else (245, 225, 225))
        draw_text(draw, (MARGIN + 12, y + 72), ("✓ " if met else "X ") + text(test["text"]), size=HAND_TEXT,
                  anchor="lm", max_width=WIDTH - 2 * MARGIN - 24)
    return img


__all__ = ["render_board", "render_private"]
