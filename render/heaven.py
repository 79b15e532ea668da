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

from collections.abc import Sequence
from functools import partial
from typing import Any

from PIL import Image, ImageDraw

from engines.base import Msg, msg, seat_letter
from engines.heaven.data import COLOURS
from engines.heaven.view import CardView, PrivateView, PublicView
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
    seat_colour,
    text_width,
    tile,
    wrap_text,
)
from render.base import (
    legend as base_legend,
)

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
COMBOS = ("C1", "C2", "C3", "C4", "C5")
"""The combinations the board's key (catalog ``board.legend_1``/``_2``) explains."""
"""Track spaces with a name (catalog ``board.space_<name>`` and ``board.space_<name>_native``)."""
assert set(CARD_FILL) == set(CARD_EDGE) == {*COLOURS, "wild"}, "a fill and an edge per card colour"

def _b(text: TextFormatter, key: str, **params: Any) -> str:
    """A board text: catalog ``board.<key>`` in the reader's language."""
    return text(msg(f"board.{key}", **params))


def _name(text: TextFormatter, seat: int) -> str:
    """``"A Ann"``: seat letter (a badge) and display name (``Texts.name``)."""
    return _b(text, "seat", letter=seat_letter(seat), name={"seat": seat})


BOARD_W = 720
"""Width (px) of the public board: on a phone (360 px) its 16-px texts read at 8 px."""
SMALL = 16
"""The board's smallest text (px)."""
MARGIN = 12
COL_W = (BOARD_W - 2 * MARGIN) // 7
TRACK_H = 236
"""The track's height, the same on both board sides (a board keeps its height)."""
STRIP_H = 98
CARD_W = 140
CARD_H = 76


def _code(text: TextFormatter, card: CardView) -> str:
    """A card's colour-number code as the reader reads it: the colour's letter in the reader's
    language (catalog ``board.letter_<colour>``: "R" in English, 紅 in Chinese) and the number."""
    return _b(text, "code", letter=_b(text, f"letter_{card['colour']}"), n=card["number"])


def _side_mark(text: TextFormatter, side: str) -> str:
    """A card's side mark in the reader's language (catalog ``board.mark_saint``: "S", 聖)."""
    return _b(text, f"mark_{side}")


def _short(text: TextFormatter, card: CardView) -> str:
    """``"Mercy R1"``: a card's name in the reader's language and its code (``_code``)."""
    return text(msg("card", name=msg(f"term.card.{card['kind']}"), code=_code(text, card)))


def _faction(text: TextFormatter, fac: str) -> str:
    return _b(text, f"faction_{fac}")


def _pawn(draw: ImageDraw.ImageDraw, cx: float, cy: float, seat: int, r: int = 19, ring: bool = False,
          size: int = 22) -> None:
    if ring:
        draw.ellipse((cx - r - 4, cy - r - 4, cx + r + 4, cy + r + 4), fill=HIGHLIGHT)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=seat_colour(seat), outline=INK, width=2)
    draw_text(draw, (cx, cy), seat_letter(seat), size=size, fill=WHITE, bold=True, anchor="mm")




def _card(draw: ImageDraw.ImageDraw, x: float, y: float, card: CardView, text: TextFormatter, w: int = CARD_W,
          h: int = CARD_H, mark: str | None = None, bg: RGB | None = None) -> None:
    """One card box of the board: code (colour letter and number) and colour word, the side
    mark (聖/罪 or S/N in the reader's language) top right, the name under them
    (the private view draws a card as a row with its ability: ``_hand_row``).
    ``bg``: the colour under the card when known, so it is a ``render.base.tile`` (at integer
    ``x``, ``y``)."""
    col = str(card["colour"])
    lines = (_code(text, card), text(msg(f"colour.{col}")), _side_mark(text, str(card["side"])),
             text(msg(f"term.card.{card['kind']}")), str(card["side"]))
    paint = partial(_paint_card, col, w, h, lines, mark)
    if bg is None or x != int(x) or y != int(y):
        paint(draw, x, y)  # (float corners: drawn where they are)
        return
    tile(draw, (int(x), int(y)), (w + 1, h + 1), ("heaven.card", col, w, h, lines, mark), paint, bg)


def _paint_card(col: str, w: int, h: int, lines: tuple[str, ...], mark: str | None,
                draw: ImageDraw.ImageDraw, x: float, y: float) -> None:
    number, colour, side, name, which = lines
    draw.rounded_rectangle((x, y, x + w, y + h), radius=8, fill=CARD_FILL[col], outline=CARD_EDGE[col], width=3)
    draw_text(draw, (x + 8, y + 4), number, size=26, bold=True, fill=CARD_EDGE[col])
    nx = x + 14 + text_width(number, 26, True)
    sx, sy = x + w - 17, y + 17
    if colour != number.rstrip("0123456789"):  # (a colour letter that is the colour's word says it already)
        draw_text(draw, (nx, y + 11), colour, size=SMALL, fill=INK, max_width=sx - 14 - nx)
    draw.ellipse((sx - 13, sy - 13, sx + 13, sy + 13), fill=SAINT_INK if which == "saint" else SINNER_INK)
    draw_text(draw, (sx, sy), side, size=SMALL, fill=WHITE, bold=True, anchor="mm")
    draw_text(draw, (x + 8, y + 44), name, size=18, fill=INK, bold=True)
    if mark:
        draw_text(draw, (x + w - 8, y + h - 4), mark, size=SMALL, fill=INK, bold=True, anchor="rd")


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


def _height(n: int) -> int:
    return 112 + TRACK_H + 8 + 3 * 22 + 8 + n * (STRIP_H + 6) + 96


def _paint_space(number: str, number_size: int, fill: RGB, items: tuple[tuple[str, int, RGB, bool], ...],
                 col_w: int, track_h: int, rows: int, draw: ImageDraw.ImageDraw, x: float, y0: float) -> None:
    """One space of the track, ``col_w`` wide with its left edge at ``x`` (``_draw_track``): its box,
    its number, and its conditions ``items`` (text, size, colour, bold) wrapped in the column from
    ``rows`` px below the top, without the pawns."""
    draw.rounded_rectangle((x + 2, y0, x + col_w - 2, y0 + track_h), radius=8, fill=fill, outline=LINE, width=2)
    draw_text(draw, (x + col_w / 2, y0 + 4), number, size=number_size, bold=True, anchor="ma")
    y = y0 + rows
    for line, size, ink, bold in items:
        for part in wrap_text(line, size, col_w - 10, bold):
            draw_text(draw, (x + col_w / 2, y), part, size=size, fill=ink, bold=bold, anchor="ma")
            y += size + 4


def _draw_track(draw: ImageDraw.ImageDraw, view: PublicView, text: TextFormatter, y0: int, width: int,
                small: int, highlight: str | None = None) -> None:
    """The track 0–6 from ``y0``, ``width`` px wide (``TRACK_H`` × ``small`` / ``SMALL`` tall):
    each space's conditions (wrapped at ``small`` px and up) and the pawns on it."""
    n = int(view["players"])
    advanced = view["options"]["board_side"] == "advanced"
    k = small / SMALL
    col_w = (width - 2 * MARGIN) // 7
    track_h = int(TRACK_H * k)
    big = small + 1
    track = {int(t["space"]): t for t in view["track"]}
    row_y = y0 + int(36 * k)
    for sp in range(7):
        x = MARGIN + sp * col_w
        fill = (255, 244, 200) if sp == 6 else ((230, 222, 210) if sp == 0 else WHITE)
        items: list[tuple[str, int, RGB, bool]]
        if sp in SPACE_NAMES:
            items = [(_b(text, f"space_{SPACE_NAMES[sp]}"), big, INK, True),
                     (_b(text, f"space_{SPACE_NAMES[sp]}_native"), small, INK, False)]
            if sp == 6:
                colour_rule = _b(text, "gate_one_colour" if view["options"]["gate_same_colour"] else "gate_any_colour")
                items += [(_b(text, "gate_rule"), small, INK, False), (colour_rule, small, INK, False)]
        else:
            t = track[sp]
            combos = ", ".join(t["combos"]) if len(t["combos"]) < 5 else "C1–C5"
            if advanced:
                items = [(_b(text, "row_saint"), small, SAINT_INK, True),
                         (_b(text, "sum_at_least", sum=t["sum"]), big, INK, False),
                         (_b(text, "row_sinner"), small, SINNER_INK, True), (combos, small, INK, False)]
            else:
                items = [(_b(text, "sum_at_least", sum=t["sum"]), big, INK, False),
                         (_b(text, "or"), small, MUTED, False), (combos, small, INK, False)]
        # (a space's box and conditions are the same at every update: a memoized tile)
        paint = partial(_paint_space, str(sp), int(24 * k), fill, tuple(items), col_w, track_h, row_y - y0)
        tile(draw, (x, y0), (col_w, track_h + 1), ("heaven.space", str(sp), int(24 * k), fill, tuple(items), col_w,
                                                    track_h, row_y - y0), paint)
    # pawns: 3 per row, two rows at the bottom of each column
    r = int(13 * k)
    pawn_top = y0 + track_h - 4 * r - 14
    by_space: dict[int, list[int]] = {}
    for s, p in enumerate(view["positions"]):
        by_space.setdefault(int(p), []).append(s)
    letters = [seat_letter(s) for s in range(n)]
    ring = letters.index(highlight) if highlight in letters else None
    for sp, seats in by_space.items():
        x = MARGIN + sp * col_w
        for i, s in enumerate(seats):
            cx = x + col_w / 2 + ((i % 3) - 1) * (2 * r + 4)
            cy = pawn_top + r + 2 + (i // 3) * (2 * r + 6)
            _pawn(draw, cx, cy, s, r=r, size=small, ring=(s == ring or s == view["active"]))


def render_board(view: PublicView, *, names: Sequence[str], text: TextFormatter,
                 highlight: str | None = None) -> Image.Image:
    """Draw the public board from ``player_view(state, None)`` (``BOARD_W`` wide, one height
    per player count); ``text`` formats its messages.

    Uses view keys: players, phase, stage, round, round_limit, start, active, options
    (board_side, gate_same_colour), track, positions, public, factions, public_sums,
    counts, majority, lock, hand_counts, skips, split_done, deck_count, discard,
    declared, reacting, turn, winners, end_reason. ``highlight`` (a seat letter) rings a pawn.
    """
    n = int(view["players"])
    advanced = view["options"]["board_side"] == "advanced"
    img, draw = canvas(_height(n), BOARD_W)
    W = BOARD_W

    # -- header
    side = _b(text, "side_advanced" if advanced else "side_easy")
    draw_text(draw, (MARGIN, 8), _b(text, "title"), size=26, bold=True)
    rnd = view["round"]
    limit = view["round_limit"]
    rtext = _b(text, "round", round=rnd, limit=limit) if rnd else _b(text, "setup")
    draw_text(draw, (W - MARGIN, 14), _b(text, "round_side", round=rtext, side=side), size=18, anchor="ra")
    last = view["phase"] == "play" and rnd == limit
    status = _status(view, text)
    status = _b(text, "last_round", status=status) if last else status
    draw.rounded_rectangle((MARGIN, 44, W - MARGIN, 104), radius=8, fill=(255, 226, 200) if last else PANEL)
    lines = wrap_text(status, 20, W - 2 * MARGIN - 20, True)
    for i, line in enumerate(lines[:2]):
        draw_text(draw, (MARGIN + 10, 74 + (i - (len(lines[:2]) - 1) / 2) * 26), line, size=20, bold=True,
                  anchor="lm")

    # -- track
    y0 = 112
    _draw_track(draw, view, text, y0, W, SMALL, highlight)

    # -- legend
    ly = y0 + TRACK_H + 8
    legend = [part for k in (1, 2) for part in wrap_text(text(msg(f"board.legend_{k}")), SMALL, W - 2 * MARGIN)]
    for i, line in enumerate(legend[:3]):
        draw_text(draw, (MARGIN, ly + i * 22), line, size=SMALL, fill=INK)
    base_legend((*COMBOS, *(seat_letter(s) for s in range(n))))  # (the key above; a pawn's letter by its name)

    # -- player strips
    sy = ly + 3 * 22 + 8
    factions = view["factions"]
    cx0 = W - MARGIN - 3 * (CARD_W + 6) + 2
    for s in range(n):
        y = sy + s * (STRIP_H + 6)
        active = view["active"] == s and view["phase"] == "play"
        bg = (255, 246, 214) if active else PANEL
        draw.rounded_rectangle((MARGIN, y, W - MARGIN, y + STRIP_H), radius=8, fill=bg,
                               outline=HIGHLIGHT if active else LINE, width=4 if active else 2)
        _pawn(draw, MARGIN + 22, y + 20, s, r=14, size=SMALL)
        left_w = cx0 - 8 - (MARGIN + 42)
        draw_text(draw, (MARGIN + 42, y + 20), ("▶ " if active else "") + text({"msg": "board.name",
                                                                               "params": {"name": {"seat": s}}}),
                  size=18, bold=True, anchor="lm", max_width=left_w)
        fac = str(factions[s]) if view["phase"] in ("play", "over") else "none"
        if view["phase"] in ("play", "over"):
            badge = _faction(text, fac)
        elif view["phase"] == "split":
            badge = _b(text, "chosen" if view["split_done"][s] else "choosing")
        else:
            badge = "—"
        bw = text_width(badge, SMALL, True) + 16
        draw.rounded_rectangle((MARGIN + 10, y + 36, MARGIN + 10 + bw, y + 58), radius=6, fill=FACTION_FILL[fac],
                               outline=INK)
        draw_text(draw, (MARGIN + 10 + bw / 2, y + 47), badge, size=SMALL, bold=True, anchor="mm")
        cards = view["public"][s]
        if cards:
            draw_text(draw, (cx0 - 10, y + 47), _b(text, "sum", sum=view["public_sums"][s]), size=SMALL,
                      anchor="rm", fill=INK, bold=True)
        pos = int(view["positions"][s])
        parts = [_b(text, "on_gate") if pos == 6 else _b(text, "space", space=pos)]
        if s in view["winners"]:
            parts.insert(0, _b(text, "winner"))
        parts.append(_b(text, "hand", n=view["hand_counts"][s]))
        if view["skips"][s]:
            parts.append(_b(text, "skips", n=view["skips"][s]))
        for i, line in enumerate(wrap_text(" · ".join(parts), SMALL, cx0 - 8 - (MARGIN + 10))[:2]):
            draw_text(draw, (MARGIN + 10, y + 60 + i * 18), line, size=SMALL, fill=INK)
        for i in range(3):
            x = cx0 + i * (CARD_W + 6)
            if i < len(cards):
                _card(draw, x, y + 11, cards[i], text, bg=bg)
            else:
                draw.rounded_rectangle((x, y + 11, x + CARD_W, y + 11 + CARD_H), radius=8, outline=LINE, width=2)
                hidden = view["phase"] in ("deal", "split")
                draw_text(draw, (x + CARD_W / 2, y + 11 + CARD_H / 2), _b(text, "face_down" if hidden else "empty"),
                          size=SMALL, fill=MUTED, anchor="mm")

    # -- footer
    fy = sy + n * (STRIP_H + 6) + 4
    counts = view["counts"]
    maj = _b(text, f"majority_{view['majority']}")
    line = _b(text, "counts", saint=counts["saint"], sinner=counts["sinner"], none=counts["none"], majority=maj)
    if view["lock"]:
        line = " · ".join((line, _b(text, "lock")))
    lines_out: list[tuple[str, bool, RGB]] = [(part, True, INK) for part in wrap_text(line, 18, W - 2 * MARGIN, True)]
    discard = view["discard"]
    top = _b(text, "top", card=_short(text, discard[-1])) if discard else _b(text, "empty")
    start = view["start"]
    line = _b(text, "piles", deck=view["deck_count"], discard=len(discard), top=top)
    if start is not None:
        line = " · ".join((line, _b(text, "start_player", seat=_name(text, start))))
    lines_out += [(part, False, INK) for part in wrap_text(line, SMALL, W - 2 * MARGIN)]
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
        lines_out += [(part, False, SINNER_INK) for part in wrap_text(" · ".join(extra), SMALL, W - 2 * MARGIN)]
    for i, (part, bold, fill) in enumerate(lines_out[:4]):
        draw_text(draw, (MARGIN, fy + i * 23), part, size=18 if bold else SMALL, bold=bold, fill=fill)
    return img


PRIVATE_W = 720
"""Width (px) of the private view."""
HAND_TEXT = 19
"""Font size (px) of a hand row's ability lines, key and mark: 9.5 px on a phone showing the
private view 360 px wide."""
HAND_NAME = 21
HAND_CODE = 29
ROW_GAP = 7
ROW_TEXT_X = 100
"""Px from a hand row's left edge to its name and ability lines (the code and colour word left of it)."""
LINE_H = 24


def _row_lines(card: CardView, text: TextFormatter, width: int) -> tuple[str, ...]:
    """A hand row's texts: code, colour word, side mark, name (en + zh), then who may use it and
    its ability wrapped in lines of ``width`` px at ``HAND_TEXT`` px."""
    col = str(card["colour"])
    name = text(msg(f"term.card.{card['kind']}"))
    ability = text(msg("board.usable", who=msg(f"usable.{card['usable_by']}"), ability=card["ability"]))
    return (_code(text, card), text(msg(f"colour.{col}")), _side_mark(text, str(card["side"])),
            _b(text, "card_name", name=name, native=card["name_zh"]),
            *wrap_text(ability, HAND_TEXT, width))


def _row_height(lines: Sequence[str]) -> int:
    """Px of a hand row with these texts (``_row_lines``): name line, then its ability lines."""
    return 8 + 30 + (len(lines) - 4) * LINE_H + 10


def _hand_row(draw: ImageDraw.ImageDraw, y: int, card: CardView, text: TextFormatter,
              mark: str | None = None, width: int = PRIVATE_W) -> int:
    """One card of the private view as a full-width row (readable on a phone: ``HAND_TEXT``):
    colour-number code and colour word on the left, the side disc on the right, the name and who
    may use it with its ability, and ``mark`` (✓ usable, ★ public) bottom right. Returns the
    row's height (px)."""
    col = str(card["colour"])
    x, w = MARGIN, width - 2 * MARGIN
    mark_w = int(text_width(mark, HAND_TEXT, True)) + 16 if mark else 0
    lines = _row_lines(card, text, w - ROW_TEXT_X - 40 - mark_w)
    h = _row_height(lines)
    number, colour, side, name = lines[:4]
    draw.rounded_rectangle((x, y, x + w, y + h), radius=8, fill=CARD_FILL[col], outline=CARD_EDGE[col], width=3)
    draw_text(draw, (x + 10, y + 4), number, size=HAND_CODE, bold=True, fill=CARD_EDGE[col])
    if colour != number.rstrip("0123456789"):
        draw_text(draw, (x + 10, y + 42), colour, size=HAND_TEXT, fill=INK, max_width=ROW_TEXT_X - 14)
    sx, sy = x + w - 20, y + 20
    draw.ellipse((sx - 14, sy - 14, sx + 14, sy + 14), fill=SAINT_INK if card["side"] == "saint" else SINNER_INK)
    draw_text(draw, (sx, sy), side, size=HAND_TEXT, fill=WHITE, bold=True, anchor="mm")
    draw_text(draw, (x + ROW_TEXT_X, y + 7), name, size=HAND_NAME, fill=INK, bold=True,
              max_width=w - ROW_TEXT_X - 44)
    for i, line in enumerate(lines[4:]):
        draw_text(draw, (x + ROW_TEXT_X, y + 38 + i * LINE_H), line, size=HAND_TEXT, fill=INK)
    if mark:
        draw_text(draw, (x + w - 10, y + h - 6), mark, size=HAND_TEXT, fill=INK, bold=True, anchor="rd")
    return h


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """Draw a seat's hand from ``player_view(state, seat)`` (``PRIVATE_W`` wide): one full-width
    row per card (hand cards with usable ones marked, the split choice during setup, cards drawn
    but not yet placed, the public set), then the faction and the next-space test; texts at least
    ``HAND_TEXT`` px.

    Uses view keys: seat, hand, usable, split_choice, buffer, next_test, public, factions, phase.
    """
    W = PRIVATE_W
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
        width = W - 2 * MARGIN - ROW_TEXT_X - 40
        return sum(_row_height(_row_lines(c, text, width - (int(text_width(m, HAND_TEXT, True)) + 16
                                                               if marks and (m := mark_of(c)) else 0)))
                   + ROW_GAP for c in cards)

    test = view["next_test"]
    test_lines = wrap_text(("✓ " if test["met"] else "× ") + text(test["text"]), HAND_TEXT, W - 2 * MARGIN - 20) if test else []
    height = (76 + (rows_h(hand, True) if hand else 34) + (38 + rows_h(buffer, False) if buffer else 0)
              + (38 + rows_h(public, False) if public else 0)
              + 12 + (30 + len(test_lines) * LINE_H + 20 if test else 30 if view["phase"] == "play" else 0))
    img, draw = canvas(height, W)
    _pawn(draw, MARGIN + 16, 22, seat, r=16, size=HAND_TEXT)
    draw_text(draw, (MARGIN + 40, 22), _b(text, "your_hand", seat={"seat": seat}, n=len(hand)), size=HAND_NAME,
              bold=True, anchor="lm", max_width=W - 2 * MARGIN - 44)
    base_legend((seat_letter(seat),))  # (the pawn by the name)
    key = {"play": "usable_key", "split": "chosen_key" if chosen else "choose_public"}.get(view["phase"])
    if key is not None:  # (no hint once the game is over: nothing is chosen or used any more)
        draw_text(draw, (MARGIN, 44), _b(text, key), size=HAND_TEXT, fill=MUTED, max_width=W - 2 * MARGIN)
    y = 76
    if not hand:
        draw_text(draw, (MARGIN, y), _b(text, "no_hand"), size=HAND_TEXT, fill=MUTED)
        y += 34
    for card in hand:
        y += _hand_row(draw, y, card, text, mark_of(card)) + ROW_GAP
    if buffer:
        draw_text(draw, (MARGIN, y + 6), _b(text, "buffer"), size=HAND_TEXT, bold=True)
        y += 38
        for card in buffer:
            y += _hand_row(draw, y, card, text) + ROW_GAP
    if public:
        draw_text(draw, (MARGIN, y + 6), _b(text, "your_public"), size=HAND_TEXT, bold=True)
        y += 38
        for card in public:
            y += _hand_row(draw, y, card, text) + ROW_GAP
    fac = view["factions"][seat]
    y += 8
    if view["phase"] == "play":
        draw_text(draw, (MARGIN, y), _b(text, "your_faction", faction=_faction(text, str(fac or "none"))),
                  size=HAND_TEXT, bold=True)
    if test:
        met = test["met"]
        draw.rounded_rectangle((MARGIN, y + 30, W - MARGIN, y + 30 + len(test_lines) * LINE_H + 12), radius=8,
                               fill=(210, 240, 212) if met else (245, 225, 225))
        for i, line in enumerate(test_lines):
            draw_text(draw, (MARGIN + 10, y + 36 + i * LINE_H), line, size=HAND_TEXT)
    return img


ZOOM_W = 680
"""Width (px) of a zoom (``render_zoom``): its texts of at least ``HAND_TEXT`` px read at 10 px on
a phone."""
ZOOM_TEXT = 20


def zoom_regions(view: PublicView | PrivateView) -> list[tuple[str, Msg]]:
    """The regions ``render_zoom`` draws at phone size: the track with its conditions
    (``track``), then each player's public cards with their abilities (``seat:<n>``, the
    reader's own first when seated). Labels are catalog messages (``board.zoom_*``)."""
    n = int(view["players"])
    seat = view.get("seat")
    own = seat if isinstance(seat, int) else None
    order = ([own] if own is not None else []) + [s for s in range(n) if s != own]
    out: list[tuple[str, Msg]] = [("track", msg("board.zoom_track"))]
    for s in order:
        key = "zoom_mine" if s == own else "zoom_seat"
        out.append((f"seat:{s}", msg(f"board.{key}", letter=seat_letter(s), name={"seat": s})))
    return out


def _space_lines(view: PublicView, text: TextFormatter, sp: int, width: float) -> list[tuple[str, bool, RGB]]:
    """A track space's name and conditions as lines of ``width`` px at ``ZOOM_TEXT`` px."""
    out: list[tuple[str, bool, RGB]] = []
    if sp in SPACE_NAMES:
        name = " ".join((_b(text, f"space_{SPACE_NAMES[sp]}"), _b(text, f"space_{SPACE_NAMES[sp]}_native")))
        out += [(line, True, INK) for line in wrap_text(name, ZOOM_TEXT, width, True)]
        if sp == 6:
            rule = " · ".join((_b(text, "gate_rule"), _b(text, "gate_one_colour" if view["options"]["gate_same_colour"]
                                                          else "gate_any_colour")))
            out += [(line, False, INK) for line in wrap_text(rule, ZOOM_TEXT, width)]
        return out
    t = next(t for t in view["track"] if int(t["space"]) == sp)
    combos = ", ".join(t["combos"]) if len(t["combos"]) < 5 else "C1–C5"
    total = _b(text, "sum_at_least", sum=t["sum"])
    if view["options"]["board_side"] == "advanced":
        parts = [(f"{_b(text, 'row_saint')}: {total}", SAINT_INK), (f"{_b(text, 'row_sinner')}: {combos}", SINNER_INK)]
    else:
        parts = [(f"{total} {_b(text, 'or')} {combos}", INK)]
    for line, fill in parts:
        out += [(part, False, fill) for part in wrap_text(line, ZOOM_TEXT, width)]
    return out


def _track_zoom(view: PublicView, text: TextFormatter) -> Image.Image:
    """The track as a list, one row per space (its number, name, conditions and the pawns on
    it), then the combinations' key: ``ZOOM_W`` wide, texts of ``ZOOM_TEXT`` px."""
    W = ZOOM_W
    n = int(view["players"])
    pawns_w = n * 36 + 8
    text_w = W - 2 * MARGIN - 56 - pawns_w
    rows = [_space_lines(view, text, sp, text_w) for sp in range(7)]
    heights = [max(44, len(lines) * 27 + 14) for lines in rows]
    legend = [part for k in (1, 2) for part in wrap_text(text(msg(f"board.legend_{k}")), ZOOM_TEXT, W - 2 * MARGIN)]
    who = wrap_text(" · ".join(_name(text, s) for s in range(n)), ZOOM_TEXT, W - 2 * MARGIN)
    img, draw = canvas(12 + sum(h + 6 for h in heights) + 8 + (len(legend) + len(who)) * 27 + 10, W)
    y = 12
    for sp, (lines, h) in enumerate(zip(rows, heights, strict=True)):
        fill = (255, 244, 200) if sp == 6 else ((230, 222, 210) if sp == 0 else WHITE)
        draw.rounded_rectangle((MARGIN, y, W - MARGIN, y + h), radius=8, fill=fill, outline=LINE, width=2)
        draw_text(draw, (MARGIN + 28, y + h / 2), str(sp), size=28, bold=True, anchor="mm")
        for i, (line, bold, colour) in enumerate(lines):
            draw_text(draw, (MARGIN + 56, y + 7 + i * 27), line, size=ZOOM_TEXT, bold=bold, fill=colour)
        here = [s for s, p in enumerate(view["positions"]) if int(p) == sp]
        for i, s in enumerate(here):
            _pawn(draw, W - MARGIN - pawns_w + 22 + i * 36, y + h / 2, s, r=14, size=ZOOM_TEXT,
                  ring=s == view["active"])
        y += h + 6
    y += 8
    for line in legend + who:
        draw_text(draw, (MARGIN, y), line, size=ZOOM_TEXT)
        y += 27
    base_legend((*COMBOS, *(seat_letter(s) for s in range(n))))
    return img


def render_zoom(view: PublicView | PrivateView, region: str, *, names: Sequence[str],
                text: TextFormatter) -> Image.Image:
    """One region of ``zoom_regions`` at phone size (``ZOOM_W`` wide, texts of at least
    ``HAND_TEXT`` px): the track as a list of its spaces with the combinations' key, or a
    player's pawn, faction, sum, space and hand size with each public card as a row with its
    ability.

    Raises:
        KeyError: ``region`` is not one of ``zoom_regions(view)``.
    """
    if region not in {key for key, _ in zoom_regions(view)}:
        raise KeyError(region)
    W = ZOOM_W
    if region == "track":
        return _track_zoom(view, text)
    s = int(region.split(":", 1)[1])
    cards = view["public"][s]
    fac = str(view["factions"][s]) if view["phase"] in ("play", "over") else "none"
    pos = int(view["positions"][s])
    parts = [_b(text, "on_gate") if pos == 6 else _b(text, "space", space=pos),
             _b(text, "hand", n=view["hand_counts"][s])]
    if cards:
        parts.insert(0, _b(text, "sum", sum=view["public_sums"][s]))
    if view["skips"][s]:
        parts.append(_b(text, "skips", n=view["skips"][s]))
    info = wrap_text(" · ".join(parts), ZOOM_TEXT, W - 2 * MARGIN)
    width = W - 2 * MARGIN - ROW_TEXT_X - 40
    rows = sum(_row_height(_row_lines(c, text, width)) + ROW_GAP for c in cards)
    top = 60 + len(info) * 27 + 10
    img, draw = canvas(top + (rows if cards else 34) + 10, W)
    _pawn(draw, MARGIN + 18, 24, s, r=18, size=ZOOM_TEXT)
    name = text({"msg": "board.name", "params": {"name": {"seat": s}}})
    draw_text(draw, (MARGIN + 46, 24), name, size=22, bold=True, anchor="lm",
              max_width=W - 2 * MARGIN - 60 - text_width(_faction(text, fac), ZOOM_TEXT, True) - 24)
    badge = _faction(text, fac)
    bw = text_width(badge, ZOOM_TEXT, True) + 16
    draw.rounded_rectangle((W - MARGIN - bw, 10, W - MARGIN, 38), radius=6, fill=FACTION_FILL[fac], outline=INK)
    draw_text(draw, (W - MARGIN - bw / 2, 24), badge, size=ZOOM_TEXT, bold=True, anchor="mm")
    for i, line in enumerate(info):
        draw_text(draw, (MARGIN, 56 + i * 27), line, size=ZOOM_TEXT)
    base_legend((seat_letter(s),))  # (the pawn by the name)
    y = top
    if not cards:
        draw_text(draw, (MARGIN, y), _b(text, "empty"), size=ZOOM_TEXT, fill=MUTED)
    for card in cards:
        y += _hand_row(draw, y, card, text, width=W) + ROW_GAP
    return img


PICKING_KINDS = frozenset({"arrogance", "destruction", "hypocrisy", "ignorance"})
"""Card kinds whose USE may pick public cards on the table (Arrogance takes one, Destruction
removes one, Hypocrisy swaps, Ignorance copies a sinner ability that may): while the seat may
use one, its panel shows the numbered table (``render_decision``)."""
DECISION_W = 720
DECISION_TEXT = 20
"""The decision picture's smallest text (px of ``DECISION_W``: 10 px on a phone)."""
PICK_CARD_W = 206
PICK_CARD_H = 96


def draws_decision(view: PrivateView) -> bool:
    """Whether ``render_decision`` draws a picture: the seat is to play its turn's action and
    may use a card that picks public cards (``PICKING_KINDS``). Cheap (render/registry.py)."""
    if view.get("phase") != "play" or view.get("stage") != "action" or view.get("active") != view.get("seat"):
        return False
    usable = set(view.get("usable") or ())
    return any(c["id"] in usable and c["kind"] in PICKING_KINDS for c in view.get("hand") or ())


def render_decision(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image | None:
    """The table for a USE that picks public cards: every player's public cards, numbered 1, 2, …
    in seat order (engines/heaven/rules.py ``table_number``: the numbers the choices' labels
    start with), with each player's pawn, name, faction, sum and space; the seat's own row
    marked. ``DECISION_W`` wide, texts of at least ``DECISION_TEXT`` px. None when
    ``draws_decision`` says no."""
    if not draws_decision(view):
        return None
    W = DECISION_W
    n = int(view["players"])
    me = int(view["seat"])
    row_h = 38 + PICK_CARD_H + 12
    title = wrap_text(_b(text, "pick_title"), 22, W - 2 * MARGIN, True)
    top = 12 + len(title) * 30 + 8
    img, draw = canvas(top + n * (row_h + 6) + 6, W)
    for i, line in enumerate(title):
        draw_text(draw, (MARGIN, 12 + i * 30), line, size=22, bold=True)
    number = 0
    for s in range(n):
        y = top + s * (row_h + 6)
        bg = (255, 246, 214) if s == me else PANEL
        draw.rounded_rectangle((MARGIN, y, W - MARGIN, y + row_h), radius=8, fill=bg,
                               outline=HIGHLIGHT if s == me else LINE, width=4 if s == me else 2)
        _pawn(draw, MARGIN + 20, y + 19, s, r=14, size=DECISION_TEXT)
        fac = str(view["factions"][s])
        pos = int(view["positions"][s])
        where = _b(text, "on_gate") if pos == 6 else _b(text, "space", space=pos)
        facts = " · ".join((_faction(text, fac), _b(text, "sum", sum=view["public_sums"][s]), where))
        facts_w = text_width(facts, DECISION_TEXT)
        draw_text(draw, (MARGIN + 42, y + 19), text({"msg": "board.name", "params": {"name": {"seat": s}}}),
                  size=DECISION_TEXT, bold=True, anchor="lm", max_width=W - 2 * MARGIN - 64 - facts_w)
        draw_text(draw, (W - MARGIN - 10, y + 19), facts, size=DECISION_TEXT, anchor="rm")
        cards = view["public"][s]
        for i in range(3):
            x = MARGIN + 10 + i * (PICK_CARD_W + 14)
            cy = y + 38
            if i >= len(cards):
                draw.rounded_rectangle((x, cy, x + PICK_CARD_W, cy + PICK_CARD_H), radius=8, outline=LINE, width=2)
                draw_text(draw, (x + PICK_CARD_W / 2, cy + PICK_CARD_H / 2), _b(text, "empty"), size=DECISION_TEXT,
                          fill=MUTED, anchor="mm")
                continue
            number += 1
            _pick_card(draw, x, cy, cards[i], text, number)
    base_legend(seat_letter(s) for s in range(n))  # (each pawn by its name)
    return img


def _pick_card(draw: ImageDraw.ImageDraw, x: float, y: float, card: CardView, text: TextFormatter,
               number: int) -> None:
    """A public card of the decision picture: its number in a black disc, code, side mark and
    name at ``DECISION_TEXT`` px and up."""
    col = str(card["colour"])
    w, h = PICK_CARD_W, PICK_CARD_H
    draw.rounded_rectangle((x, y, x + w, y + h), radius=8, fill=CARD_FILL[col], outline=CARD_EDGE[col], width=3)
    draw.ellipse((x + 6, y + 6, x + 44, y + 44), fill=INK)
    draw_text(draw, (x + 25, y + 25), str(number), size=24, fill=WHITE, bold=True, anchor="mm")
    code = _code(text, card)
    draw_text(draw, (x + 52, y + 8), code, size=28, bold=True, fill=CARD_EDGE[col])
    sx, sy = x + w - 20, y + 22
    draw.ellipse((sx - 16, sy - 16, sx + 16, sy + 16), fill=SAINT_INK if card["side"] == "saint" else SINNER_INK)
    draw_text(draw, (sx, sy), _side_mark(text, str(card["side"])), size=DECISION_TEXT, fill=WHITE, bold=True,
              anchor="mm")
    draw_text(draw, (x + 10, y + 56), text(msg(f"term.card.{card['kind']}")), size=22, bold=True)


__all__ = ["draws_decision", "render_board", "render_decision", "render_private", "render_zoom",
           "zoom_regions"]
