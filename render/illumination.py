"""Illumination (闡明) renderer (spec docs/rules/illumination.md §11 board image; design §6), drawn
for a phone: Discord shows an image about 360 px wide there, so every text of the board is at
least 16 px on its ``BOARD_W`` = 720 px (8 px on the phone) and every text of a picture sent
with a decision or a "Look at…" answer at least 15 px on its ``ZOOM_W`` = 540 px (10 px).

``render_board(view, *, names, text=None, highlight=None)`` draws the public board from
``player_view(state, None)`` (a ``PublicView``), always ``BOARD_H`` px high:

* a status line (whose turn, what they are doing) and one card per player: name, side, the
  public score (Crusade "?"), coins and the four token counts, hand, stacks, sheepfold, a
  "passed" badge, and the mat with each line's Book (``→III``);
* Books I–III side by side: quill spaces in their colour, text spaces ruled, the purple
  Drollery, tiles in their colour with the faction code and an owner frame (Reverent gold,
  Irreverent black), face-down tiles dark; unbounded conflict groups outlined orange, tied
  bounded ones dashed grey; the staged tiles in a strip under their Book; ``highlight`` ringed;
* the Monastery (Abbot, altars and their slots) and the Battle cards' markers.

The rest is one tap away (``zoom_regions`` / ``render_zoom``): one Book at phone size, the
Monastery with its slot values, both players' score parts and mats, and the reader's hand and
Crusade (``render_private``). ``render_decision`` draws the numbered squares of a pending
placement (``draws_decision``): the Book(s) with each legal square numbered as the panel's
buttons number them (``engines/illumination/rules.py numbered_squares``), the first tile's
reward under each number and its best square starred; at the start of a turn, every Book a line
feeds, numbered once, with the lines beside it (``activate_place``).

Names of cards, stations and factions come from the catalog through ``text`` (``bot.text.Texts``)
when the host passes it; shapes and colours come from the view and ``engines/illumination/data.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Any, cast

from PIL import Image, ImageDraw

from engines.base import Msg
from engines.illumination.data import (
    BOOKS,
    COLOUR_LETTER,
    CRUSADE_VP,
    FACTION_CODE,
    LINES,
    PAIRS,
    SLOT_TIERS,
    STATIONS,
    TOKEN_OF,
    TOKENS,
    card_kind,
)
from engines.illumination.view import (
    BookView,
    CellView,
    DecisionView,
    PrivateView,
    PublicView,
    SquareView,
    TileView,
)
from render import base as render_base
from render.base import (
    BG,
    INK,
    LINE,
    MUTED,
    PANEL,
    WHITE,
    Draw,
    Painter,
    TextFormatter,
    canvas,
    draw_text,
    text_width,
)

RGB = tuple[int, int, int]

BOARD_W = 720
"""The board's width (px): 2 image px per phone px."""
ZOOM_W = 540
"""The width (px) of the pictures answering a decision or a "Look at…" (1.5 image px per phone px)."""
BOARD_MIN_FONT = 16
READABLE_FONT = 20
"""The board's counters, small numbers, Book states and deck line: 10 px on a phone (360 of 720 px),
as on the pictures that answer a decision."""
ZOOM_MIN_FONT = 15

TILE_FILL: dict[str, RGB] = {"grey": (128, 128, 134), "yellow": (242, 201, 58), "red": (200, 58, 48),
                             "white": (250, 250, 246)}
TILE_INK: dict[str, RGB] = {"grey": WHITE, "yellow": INK, "red": WHITE, "white": INK}
QUILL_FILL: dict[str, RGB] = {"grey": (70, 70, 76), "yellow": (250, 236, 178), "red": (244, 196, 186),
                              "white": (255, 255, 255)}
QUILL_INK: dict[str, RGB] = {"grey": (235, 235, 235), "yellow": (150, 110, 0), "red": (160, 40, 30),
                             "white": (120, 120, 120)}
PARCHMENT: RGB = (232, 220, 192)
RULE: RGB = (200, 184, 150)
DROLLERY: RGB = (128, 70, 170)
FACE_DOWN: RGB = (52, 48, 58)
FACE_DOWN_INK: RGB = (150, 145, 158)
GOLD: RGB = (214, 160, 20)
BLACK: RGB = (15, 15, 15)
ORANGE: RGB = (235, 115, 0)
TIE_GREY: RGB = (95, 95, 95)
RING: RGB = (0, 114, 178)
PASSED_RED: RGB = (120, 30, 30)
NUMBER_RED: RGB = (170, 20, 40)
SIDE_FRAME = {"reverent": GOLD, "irreverent": BLACK}
TOKEN_CODE = {"bell": "Be", "candle": "Ca", "wine": "Wi", "bread": "Br"}
TOKEN_COLOUR = {t: c for c, t in TOKEN_OF.items()}
COIN_FILL: RGB = (235, 200, 90)

MARGIN = 10


def _say(text: TextFormatter | None, key: str, fallback: str, **params: Any) -> str:
    """A catalog text (``term.station.bell``) through the host's formatter, else ``fallback``."""
    if text is None:
        return fallback
    out = text({"msg": key, "params": params})
    return fallback if out == key else out


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) and names[seat] else f"Seat {'AB'[seat]}"


def _code(text: TextFormatter | None, faction: str) -> str:
    return _say(text, f"board.code.{faction}", FACTION_CODE[faction])


# --------------------------------------------------------------------------- tiles and cells


def _tile(img: Image.Image, x: float, y: float, size: int, tile: TileView, side: str, *, down: bool = False,
          text: TextFormatter | None = None, letter: bool = False) -> None:
    """Paste a tile at (x, y): colour fill, faction code (``board.code.<faction>`` in the reader's
    language), an owner frame (§11); ``letter`` adds the colour's letter in the reader's language
    (``board.colour_code.<colour>``; large pictures only)."""
    faction = tile.get("faction")
    code = _code(text, faction) if faction is not None else ""
    colour = tile.get("colour")
    mark = _say(text, f"board.colour_code.{colour}", COLOUR_LETTER[colour]) if letter and colour else ""
    face = _tile_image(size, faction, colour, side, down, code, mark)
    render_base.paste(img, face, (int(x), int(y)), face)


@lru_cache(maxsize=256)
def _tile_image(size: int, faction: str | None, colour: str | None, side: str, down: bool, code: str,
                letter: str) -> Image.Image:
    """One tile drawn once on a transparent square (tiles repeat; text rendering is the cost)."""
    face = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = Draw(face)
    box = (1, 1, size - 2, size - 2)
    frame = max(2, size // 13)
    code_size = max(BOARD_MIN_FONT, int(size * 0.40))
    if faction is None or colour is None:  # coin tile (mats only)
        draw.rounded_rectangle(box, radius=5, fill=COIN_FILL, outline=SIDE_FRAME[side], width=frame)
        draw_text(draw, (size / 2, size / 2), "$2", size=code_size, anchor="mm", bold=True)
        return face
    centre = (size / 2 - (size * 0.06 if letter else 0), size * (0.42 if letter else 0.5))
    if down:
        draw.rounded_rectangle(box, radius=5, fill=FACE_DOWN, outline=SIDE_FRAME[side] if side == "reverent"
                               else (110, 110, 110), width=2)
        draw_text(draw, centre, code, size=code_size, fill=FACE_DOWN_INK, anchor="mm")
        return face
    draw.rounded_rectangle(box, radius=5, fill=TILE_FILL[colour], outline=SIDE_FRAME[side], width=frame)
    ink = TILE_INK[colour]
    draw_text(draw, centre, code, size=code_size, fill=ink, anchor="mm", bold=True)
    if letter:
        draw_text(draw, (size - frame - 2, size - frame), letter, size=max(ZOOM_MIN_FONT, size // 5),
                  fill=ink, anchor="rd", bold=True)
    return face


@lru_cache(maxsize=32)
def _space_image(size: int, quill: str | None, drollery: bool) -> Image.Image:
    """An empty Book cell: quill space in its colour, ruled text space, or the Drollery."""
    face = Image.new("RGB", (size + 1, size + 1), BG)
    draw = Draw(face)
    box = (0, 0, size, size)
    if quill is not None:
        draw.rectangle(box, fill=QUILL_FILL[quill], outline=LINE)
        draw.line((size * 0.78, size * 0.16, size * 0.6, size * 0.42), fill=QUILL_INK[quill], width=2)  # a quill stroke
    else:
        draw.rectangle(box, fill=PARCHMENT, outline=LINE)
        for k in range(1, 4):
            draw.line((4, k * size / 4, size - 4, k * size / 4), fill=RULE, width=1)
    if drollery:
        draw.rounded_rectangle((3, 3, size - 3, size - 3), radius=6, fill=DROLLERY)
        draw_text(draw, (size / 2, size / 2), "✿", size=max(BOARD_MIN_FONT, int(size * 0.5)), fill=WHITE, anchor="mm")
    return face


def _cell(img: Image.Image, x: float, y: float, size: int, cell: CellView, sides: list[str] | None,
          text: TextFormatter | None = None, letter: bool = False) -> None:
    """One Book cell and its tile (§11), pasted as one memoized square (``_cell_image``)."""
    tile = cell["tile"]
    face: tuple[Any, ...] | None = None
    if tile is not None and sides is not None:
        faction = tile.get("faction")
        colour = tile.get("colour")
        face = (faction, colour, sides[tile["owner"]], cell["down"],
                _code(text, faction) if faction is not None else "",
                _say(text, f"board.colour_code.{colour}", COLOUR_LETTER[colour]) if letter and colour else "")
    square = _cell_image(size, cell["quill"], cell["drollery"], face)
    render_base.paste(img, square, (int(x), int(y)))


@lru_cache(maxsize=256)
def _cell_image(size: int, quill: str | None, drollery: bool, face: tuple[Any, ...] | None) -> Image.Image:
    """A Book cell with its tile (``face``: the arguments of ``_tile_image`` after the size, or None
    for an empty cell): the empty space (``_space_image``) with the tile pasted on it through its
    alpha, the same steps and so the same pixels as pasting both on the board in turn; a cell and
    tile drawn on most boards, memoized per worker (256 squares of at most 81 × 81 px: under 5 MB; boards,
    decisions and zooms of random playouts in four languages: 98 % hits, 3 MB)."""
    space = _space_image(size, quill, drollery)
    if face is None:
        return space
    square = space.copy()
    tile = _tile_image(size, *face)
    square.paste(tile, (0, 0), tile)
    return square


def _dashed_rect(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], colour: RGB, width: int) -> None:
    x0, y0, x1, y1 = box
    dash = 5
    for a, b, horizontal, fixed in ((x0, x1, True, y0), (x0, x1, True, y1), (y0, y1, False, x0), (y0, y1, False, x1)):
        pos = a
        while pos < b:
            end = min(pos + dash, b)
            if horizontal:
                draw.line((pos, fixed, end, fixed), fill=colour, width=width)
            else:
                draw.line((fixed, pos, fixed, end), fill=colour, width=width)
            pos += 2 * dash


def _grid(img: Image.Image, view: PublicView, book: BookView, gx: float, gy: float, size: int,
          text: TextFormatter | None, *, letter: bool = False) -> dict[str, tuple[float, float]]:
    """A Book's 4×6 cells from (gx, gy) with its conflict outlines; returns each cell's corner."""
    draw = Draw(img)
    places: dict[str, tuple[float, float]] = {}
    for cell in book["cells"]:
        cx = gx + "abcdef".index(cell["column"]) * size
        cy = gy + (cell["row"] - 1) * size
        places[cell["id"]] = (cx, cy)
        _cell(img, cx, cy, size, cell, view["sides"], text, letter)
    for group in view["conflicts"]:
        if group["book"] != book["name"]:
            continue
        tied = group["bounded"] and group["counts"][0] == group["counts"][1]
        for cid in group["cells"]:
            px, py = places[cid]
            box = (px + 1, py + 1, px + size - 1, py + size - 1)
            if tied:
                _dashed_rect(draw, box, TIE_GREY, 3)
            elif not group["bounded"]:
                draw.rectangle(box, outline=ORANGE, width=3)
    return places


# --------------------------------------------------------------------------- the board

BOOK_GAP = 8
BOOK_W = (BOARD_W - 2 * MARGIN - 2 * BOOK_GAP) / 3
CELL = 34
STATUS_H = 44
CARD_H = 180
BOOK_HEAD = 30
STRIP_H = 42
BOOK_H = BOOK_HEAD + 4 * CELL + 6 + STRIP_H
BOTTOM_H = 206
BOARD_H = STATUS_H + CARD_H + 8 + BOOK_H + 8 + BOTTOM_H + MARGIN
"""The board's height (px): the same for every position, so the message keeps its size in the chat."""
MAT_CELL = 34


def _status(view: PublicView, names: Sequence[str], text: TextFormatter | None = None) -> str:
    if view["over"]:
        winners = view["winners"]
        if len(winners) == 2:
            return _say(text, "board.over_shared", "Game over — a shared victory")
        broken = view.get("tie_break")
        if broken:  # (equal totals: what broke the tie)
            why = "more face-up tiles" if broken == "tiles" else "more coins + tokens"
            return _say(text, f"board.over_{broken}", f"Game over — {_name(names, winners[0])} wins the tie: {why}",
                        name=_name(names, winners[0]))
        return _say(text, "board.over_one", f"Game over — {_name(names, winners[0])} wins",
                    name=_name(names, winners[0]))
    active = view["active"]
    if active is None:
        return _say(text, "board.setting_up", "Setting up")
    if view["phase"] == "exile":
        return _say(text, "board.waiting_exile", f"Waiting for {_name(names, 1 - active)} (Exilium)",
                    name=_name(names, 1 - active))
    phase = {"turn_start": "choose a line", "confirm_pass": "pass?", "main": "placing", "discard": "discarding"}
    doing = _say(text, f"board.phase.{view['phase']}", phase.get(view["phase"], view["phase"]))
    return _say(text, "board.turn", f"{_name(names, active)}'s turn — {doing}", name=_name(names, active), phase=doing)


def _acting(view: PublicView) -> int | None:
    """The seat the table waits for (the opponent while an Exilium is answered)."""
    if view["over"] or view["active"] is None:
        return None
    return 1 - view["active"] if view["phase"] == "exile" else view["active"]


def _token_chip(draw: ImageDraw.ImageDraw, x: float, y: float, token: str, count: int, text: TextFormatter | None,
                size: int = 28, font: int = BOARD_MIN_FONT) -> float:
    """A token's coloured disc with its code and the count beside it; returns the next x."""
    colour = TOKEN_COLOUR[token]
    draw.ellipse((x, y, x + size, y + size), fill=TILE_FILL[colour], outline=INK, width=1)
    draw_text(draw, (x + size / 2, y + size / 2), _say(text, f"board.token_code.{token}", TOKEN_CODE[token]),
              size=font, fill=TILE_INK[colour], anchor="mm", bold=True)
    label, label_size = str(count), max(font + 2, READABLE_FONT)
    draw_text(draw, (x + size + 3, y + size / 2), label, size=label_size, anchor="lm", bold=True)
    return x + size + 5 + text_width(label, label_size, bold=True) + 6


def _coin_chip(draw: ImageDraw.ImageDraw, x: float, y: float, count: int, size: int = 28,
               font: int = BOARD_MIN_FONT) -> float:
    draw.ellipse((x, y, x + size, y + size), fill=COIN_FILL, outline=INK)
    draw_text(draw, (x + size / 2, y + size / 2), "$", size=font, anchor="mm", bold=True)
    label, label_size = str(count), max(font + 2, READABLE_FONT)
    draw_text(draw, (x + size + 3, y + size / 2), label, size=label_size, anchor="lm", bold=True)
    return x + size + 5 + text_width(label, label_size, bold=True) + 6


def _mat(img: Image.Image, view: PublicView, seat: int, x: float, y: float, size: int, text: TextFormatter | None,
         font: int) -> None:
    """``seat``'s 3×3 mat at (x, y), each line labelled by the Book it feeds (``→III``, ``↓I``)."""
    draw = Draw(img)
    sides = view["sides"]
    side = sides[seat] if sides else "reverent"
    for i, tile in enumerate(view["mats"][seat]):
        r, c = divmod(i, 3)
        cx, cy = x + c * size, y + r * size
        draw.rectangle((cx, cy, cx + size, cy + size), fill=BG, outline=LINE)
        if tile is not None:
            _tile(img, cx, cy, size, tile, side, text=text)
    lines = view["lines"][seat]
    for k, line in enumerate(LINES):
        book = lines.get(line, "")
        if not book:
            continue
        if line.startswith("row"):
            draw_text(draw, (x + 3 * size + 3, y + k * size + size / 2), f"→{book}", size=font, fill=MUTED, anchor="lm")
        else:
            draw_text(draw, (x + (k - 3) * size + size / 2, y + 3 * size + 1), f"↓{book}", size=font, fill=MUTED,
                      anchor="ma")


def _counts(draw: ImageDraw.ImageDraw, x: float, y: float, view: PublicView, seat: int, font: int) -> None:
    """Hand size, stacks left and sheepfold as small drawn icons with their numbers, from (x, y)."""
    values = (view["hand_counts"][seat], view["stacks_left"][seat], view["sheepfold"][seat])
    for k, value in enumerate(values):
        if k == 0:  # a card
            draw.rounded_rectangle((x, y + 1, x + 13, y + 19), radius=2, fill=WHITE, outline=(110, 80, 30), width=2)
        elif k == 1:  # a stack of tiles
            for j in range(3):
                draw.rectangle((x + j * 2, y + 12 - j * 5, x + 12 + j * 2, y + 19 - j * 5), fill=PANEL, outline=INK)
        else:  # a sheep
            draw.ellipse((x, y + 4, x + 18, y + 16), fill=WHITE, outline=INK)
            draw.ellipse((x + 13, y + 2, x + 21, y + 10), fill=INK)
            draw.line((x + 4, y + 16, x + 4, y + 20), fill=INK, width=2)
            draw.line((x + 13, y + 16, x + 13, y + 20), fill=INK, width=2)
        label = str(value)
        draw_text(draw, (x + 24, y + 10), label, size=font, anchor="lm", bold=True)
        x += 24 + text_width(label, font, bold=True) + 10


def _player_card(img: Image.Image, view: PublicView, seat: int, box: tuple[float, float, float, float],
                 names: Sequence[str], text: TextFormatter | None) -> None:
    """One player's card on the board: name, side, score, holdings, counts and the mat."""
    draw = Draw(img)
    x0, y0, x1, y1 = box
    sides = view["sides"]
    side = sides[seat] if sides else "reverent"
    frame = SIDE_FRAME[side]
    active = _acting(view) == seat
    draw.rounded_rectangle(box, radius=10, fill=PANEL, outline=(frame if active else LINE), width=4 if active else 1)
    mat_x = x1 - 8 - 3 * MAT_CELL - 30
    room = mat_x - x0 - 16
    draw.rectangle((x0 + 10, y0 + 12, x0 + 24, y0 + 26), fill=frame)
    draw_text(draw, (x0 + 30, y0 + 7), _name(names, seat), size=20, bold=True, max_width=room - 20)
    side_name = _say(text, f"term.side.{side}", side.capitalize())
    if view["passed"][seat]:
        label = _say(text, "board.passed", "PASSED")
        w = text_width(label, BOARD_MIN_FONT, bold=True) + 12
        draw.rounded_rectangle((x0 + 10, y0 + 35, x0 + 10 + w, y0 + 57), radius=5, fill=PASSED_RED)
        draw_text(draw, (x0 + 10 + w / 2, y0 + 46), label, size=BOARD_MIN_FONT, fill=WHITE, anchor="mm", bold=True)
    else:
        doing = ((_say(text, "board.to_answer_short", " · to answer") if view["phase"] == "exile"
                  else _say(text, "board.to_move", " · to move")) if active else "")
        draw_text(draw, (x0 + 10, y0 + 36), side_name + doing, size=BOARD_MIN_FONT, fill=INK if active else MUTED,
                  bold=active, max_width=room)
    parts = view["scores"][seat]
    if parts:
        total = parts["total"]
        score = (_say(text, "board.score", f"score {total}", total=total) if view["over"]
                 else _say(text, "board.score_open", f"score {total} + ?", total=total))
        draw_text(draw, (x0 + 10, y0 + 60), score, size=24, bold=True, max_width=room)
    y = y0 + 96
    x = _coin_chip(draw, x0 + 10, y, view["coins"][seat])
    for k, token in enumerate(TOKENS):
        if k == 2:  # two rows of chips: coins and two tokens, then two tokens and the item count
            x, y = x0 + 10, y + 32
        x = _token_chip(draw, x, y, token, view["tokens"][seat][token], text)
    items = view["items"][seat]
    draw_text(draw, (x + 2, y + 14), _say(text, "board.items_short", f"{items}/7", n=items), size=READABLE_FONT,
              fill=(170, 40, 30) if items > 7 else MUTED, anchor="lm", bold=items > 7)
    _mat(img, view, seat, mat_x, y0 + 8, MAT_CELL, text, 18)
    _counts(draw, mat_x - 4, y1 - 28, view, seat, READABLE_FONT)


def _fixed(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], key: tuple[Any, ...],
           paint: Callable[[ImageDraw.ImageDraw], None]) -> None:
    """``paint(draw)``, a part of the board drawn first on plain background inside ``box`` and the
    same at every update of a game (a panel and its fixed labels, keyed by ``key``: the texts it
    draws), as a memoized ``render.base.tile`` at the box's place; drawn directly where the box is
    off the pixel grid."""
    x0, y0, x1, y1 = box
    if not all(float(v).is_integer() for v in box):
        paint(draw)
        return
    left, top = int(x0), int(y0)
    size = (int(x1) - left + 1, int(y1) - top + 1)
    painter: Painter = lambda d, _x, _y: paint(d)  # noqa: E731  (painted at the box itself: anywhere=False)
    render_base.tile(draw, (left, top), size, key, painter, BG, anywhere=False)


def _paint_book_panel(box: tuple[float, float, float, float], title: str, state: str,
                      draw: ImageDraw.ImageDraw) -> None:
    """A Book's panel: its background, name and state (open, closed), without the cells."""
    x0, top, _, _ = box
    draw.rounded_rectangle(box, radius=8, fill=PANEL)
    draw_text(draw, (x0 + 8, top + 4), title, size=18, bold=True)
    draw_text(draw, (x0 + BOOK_W - 8, top + 2), state, size=READABLE_FONT, fill=MUTED, anchor="ra")


def _book_panel(img: Image.Image, view: PublicView, index: int, x0: float, top: float, text: TextFormatter | None) -> dict[str, tuple[float, float]]:
    draw = Draw(img)
    book = view["books"][index]
    sides = view["sides"]
    title = _say(text, "board.book", f"Book {book['name']}", name=book["name"])
    state = _say(text, "board.open", "open") if book["open"] else _say(text, "board.closed", "closed ✓")
    box = (x0, top, x0 + BOOK_W, top + BOOK_H)
    _fixed(draw, box, ("illumination.book", title, state), partial(_paint_book_panel, box, title, state))
    gx = x0 + (BOOK_W - 6 * CELL) / 2
    gy = top + BOOK_HEAD
    places = _grid(img, view, book, gx, gy, CELL, text)
    sy = gy + 4 * CELL + 6
    staged = [s["tile"] for s in view["staged"] if s["book"] == book["name"]]
    exile = view["exile"]
    tiles = list(staged) + ([exile["tile"]] if exile is not None and exile["book"] == book["name"] else [])
    if tiles and sides is not None:
        sx = x0 + 8
        label = _say(text, "board.staged_arrow", "→")
        draw_text(draw, (sx, sy + STRIP_H / 2 - 2), label, size=18, fill=MUTED, anchor="lm", bold=True)
        sx += text_width(label, 18, bold=True) + 6
        for tile in tiles:
            _tile(img, sx, sy + 2, 34, tile, sides[tile["owner"]], text=text)
            sx += 37
    return places


def _mini_monastery(img: Image.Image, view: PublicView, box: tuple[float, float, float, float],
                    text: TextFormatter | None) -> None:
    """The Monastery as a 3×3 grid of stations: altars in their token's colour with their three
    slots (the VP of each, filled with the owner's colour once taken), the Abbot's station framed."""
    draw = Draw(img)
    x0, y0, x1, y1 = box
    labels = (_say(text, "board.monastery", "Monastery"),
              *(_say(text, f"board.token_code.{st.token}", TOKEN_CODE[st.token]) for st in STATIONS.values()
                if st.altar and st.token is not None))
    _fixed(draw, box, ("illumination.monastery", labels), partial(_paint_monastery, box, labels))
    sides = view["sides"]
    cw, ch = (x1 - x0 - 16) / 3, (y1 - y0 - 36) / 3
    for sid, st in STATIONS.items():
        cx = x0 + 8 + (st.col - 1) * cw
        cy = y0 + 30 + (st.row - 1) * ch
        cell = (cx + 2, cy + 2, cx + cw - 2, cy + ch - 2)
        abbot = view["abbot"] == sid
        if st.altar and st.token is not None:
            for k, tier in enumerate(SLOT_TIERS):
                owner = view["slots"].get(f"{sid}-{tier}")
                if owner is None or sides is None:
                    continue  # (an open slot is drawn with the panel)
                bx, by = cx + 5 + k * 29, cy + ch - 29
                draw.rectangle((bx, by, bx + 27, by + 24), fill=SIDE_FRAME[sides[owner]], outline=INK)
                draw_text(draw, (bx + 13.5, by + 12), str(SLOT_TIERS[tier]), size=READABLE_FONT,
                          fill=INK if sides[owner] == "reverent" else WHITE, anchor="mm", bold=True)
        else:
            draw_text(draw, (cx + cw / 2, cy + ch * (0.66 if abbot else 0.5)),
                      _say(text, f"term.station.{sid}", sid.capitalize()), size=BOARD_MIN_FONT, fill=MUTED, anchor="mm",
                      max_width=cw - 8)
        if abbot:
            draw.rounded_rectangle(cell, radius=6, outline=(110, 20, 30), width=4)
            _abbot_pawn(draw, cx + cw - 16, cy + 16, 11)


def _paint_monastery(box: tuple[float, float, float, float], labels: tuple[str, ...], draw: ImageDraw.ImageDraw) -> None:
    """The Monastery's panel (``_mini_monastery``): background, title (``labels[0]``), every station's
    box, and each altar's token code (``labels[1:]``, in ``STATIONS`` order) with its open slots; the
    station names, the taken slots and the Abbot are drawn on it."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=8, fill=PANEL)
    draw_text(draw, (x0 + 8, y0 + 4), labels[0], size=18, bold=True)
    cw, ch = (x1 - x0 - 16) / 3, (y1 - y0 - 36) / 3
    codes = iter(labels[1:])
    for st in STATIONS.values():
        cx = x0 + 8 + (st.col - 1) * cw
        cy = y0 + 30 + (st.row - 1) * ch
        cell = (cx + 2, cy + 2, cx + cw - 2, cy + ch - 2)
        if st.altar and st.token is not None:
            colour = TOKEN_COLOUR[st.token]
            draw.rounded_rectangle(cell, radius=6, fill=TILE_FILL[colour], outline=INK, width=1)
            draw_text(draw, (cx + 8, cy + 6), next(codes), size=BOARD_MIN_FONT, fill=TILE_INK[colour], bold=True)
            for k, tier in enumerate(SLOT_TIERS):
                bx, by = cx + 5 + k * 29, cy + ch - 29
                draw.rectangle((bx, by, bx + 27, by + 24), fill=WHITE, outline=INK)
                draw_text(draw, (bx + 13.5, by + 12), str(SLOT_TIERS[tier]), size=READABLE_FONT, fill=INK, anchor="mm",
                          bold=True)
        else:
            draw.rounded_rectangle(cell, radius=6, fill=BG, outline=LINE)


def _abbot_pawn(draw: ImageDraw.ImageDraw, x: float, y: float, r: float) -> None:
    """The Abbot: a dark red pawn centred at (x, y)."""
    draw.polygon([(x - r, y + r), (x + r, y + r), (x, y - r * 0.4)], fill=(110, 20, 30), outline=WHITE)
    draw.ellipse((x - r * 0.5, y - r * 1.1, x + r * 0.5, y - r * 0.1), fill=(110, 20, 30), outline=WHITE)


def _battle_rows(img: Image.Image, view: PublicView, box: tuple[float, float, float, float], text: TextFormatter | None,
                 font: int = BOARD_MIN_FONT) -> None:
    """The four Battle cards: the pair's codes, then each side's markers on its colour."""
    draw = Draw(img)
    x0, y0, x1, y1 = box
    sides = view["sides"]
    labels = (_say(text, "board.battles", "Battle cards"),
              *(f"{_code(text, pair.split('-')[0])}↔{_code(text, pair.split('-')[1])}" for pair in PAIRS))
    _fixed(draw, box, ("illumination.battles", labels, font, sides is not None),
           partial(_paint_battles, box, labels, font, sides is not None))
    row_h = (y1 - y0 - 62) / 4
    if sides is not None:
        rev = sides.index("reverent")
        for k, pair in enumerate(PAIRS):
            y = y0 + 32 + k * row_h
            counts = view["markers"][pair]
            for j, (seat, ink) in enumerate(((rev, INK), (1 - rev, WHITE))):
                bx = x1 - 16 - (2 - j) * 34
                by = y + (row_h - 4) / 2 - 13
                draw_text(draw, (bx + 14, by + 13), str(counts[seat]), size=READABLE_FONT, fill=ink, anchor="mm",
                          bold=True)
    deck = _say(text, "board.deck_short", f"deck {view['deck_count']} · discard {len(view['discard'])}",
                n=view["deck_count"], discard=len(view["discard"]))
    draw_text(draw, (x0 + 10, y1 - 6), deck, size=READABLE_FONT, fill=MUTED, anchor="ld", max_width=x1 - x0 - 20)


def _paint_battles(box: tuple[float, float, float, float], labels: tuple[str, ...], font: int, markers: bool,
                   draw: ImageDraw.ImageDraw) -> None:
    """The Battle cards' panel (``_battle_rows``): background, title (``labels[0]``), each pair's row
    with its codes (``labels[1:]``) and, with ``markers``, the two sides' marker boxes; the counts are
    drawn on it."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=8, fill=PANEL)
    draw_text(draw, (x0 + 8, y0 + 4), labels[0], size=font + 2, bold=True)
    row_h = (y1 - y0 - 62) / 4
    for k, shown in enumerate(labels[1:]):
        y = y0 + 32 + k * row_h
        draw.rounded_rectangle((x0 + 8, y, x1 - 8, y + row_h - 4), radius=6, fill=WHITE, outline=LINE)
        draw_text(draw, (x0 + 16, y + (row_h - 4) / 2), shown, size=font + 1, anchor="lm", bold=True)
        if markers:
            for j, colour in enumerate((GOLD, BLACK)):
                bx = x1 - 16 - (2 - j) * 34
                by = y + (row_h - 4) / 2 - 13
                draw.rounded_rectangle((bx, by, bx + 28, by + 26), radius=5, fill=colour)


def render_board(view: dict[str, Any], *, names: Sequence[str], text: TextFormatter | None = None,
                 highlight: str | None = None) -> Image.Image:
    """The public board (§11) as an RGB image ``BOARD_W`` × ``BOARD_H``; ``highlight`` (a cell id)
    is ringed."""
    pv: PublicView = view  # type: ignore[assignment]
    img, draw = canvas(BOARD_H, BOARD_W)
    acting = _acting(pv)
    draw_text(draw, (MARGIN, 10), _status(pv, names, text), size=22, bold=True, max_width=BOARD_W - 2 * MARGIN)
    sides = pv["sides"]
    rev = sides.index("reverent") if sides else 0
    half = (BOARD_W - 2 * MARGIN - 8) / 2
    top = STATUS_H
    for k, seat in enumerate((rev, 1 - rev)):
        x = MARGIN + k * (half + 8)
        _player_card(img, pv, seat, (x, top, x + half, top + CARD_H), names, text)
    top += CARD_H + 8
    rings: dict[str, tuple[float, float]] = {}
    for index in range(len(BOOKS)):
        rings.update(_book_panel(img, pv, index, MARGIN + index * (BOOK_W + BOOK_GAP), top, text))
    if highlight in rings:
        px, py = rings[highlight]
        draw.rectangle((px - 2, py - 2, px + CELL + 2, py + CELL + 2), outline=RING, width=4)
    top += BOOK_H + 8
    mono_w = 318
    _mini_monastery(img, pv, (MARGIN, top, MARGIN + mono_w, top + BOTTOM_H), text)
    _battle_rows(img, pv, (MARGIN + mono_w + 8, top, BOARD_W - MARGIN, top + BOTTOM_H), text)
    del acting
    return img


# --------------------------------------------------------------------------- look at… (zoom)


ZOOM_CELL = 80


def zoom_regions(view: dict[str, Any]) -> list[tuple[str, Msg]]:
    """The regions a reader may look at closely (``render_zoom``): each Book, the Monastery, the
    players (score parts and mats), and for a seated reader their hand and Crusade."""
    regions: list[tuple[str, Msg]] = [(f"book.{b}", Msg("board.zoom.book", {"name": b})) for b in BOOKS]
    regions += [("monastery", Msg("board.zoom.monastery", {})), ("players", Msg("board.zoom.players", {}))]
    if "seat" in view:
        regions.append(("hand", Msg("board.zoom.hand", {})))
    return regions


def render_zoom(view: dict[str, Any], region: str, *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image:
    """One region of the board at phone size, ``ZOOM_W`` px wide (``zoom_regions``).

    Raises:
        KeyError: not a region of this view.
    """
    if region.startswith("book.") and region[5:] in BOOKS:
        return _zoom_book(view, region[5:], names, text)  # type: ignore[arg-type]
    if region == "monastery":
        return _zoom_monastery(view, text)  # type: ignore[arg-type]
    if region == "players":
        return _zoom_players(view, names, text)  # type: ignore[arg-type]
    if region == "hand" and "seat" in view:
        return render_private(view, names=names, text=text)
    raise KeyError(region)


def _zoom_book(view: PublicView, name: str, names: Sequence[str], text: TextFormatter | None) -> Image.Image:
    book = view["books"][BOOKS.index(name)]
    grid_w = 6 * ZOOM_CELL
    staged = [s["tile"] for s in view["staged"] if s["book"] == name]
    height = 50 + 4 * ZOOM_CELL + 16 + 70 + 60
    img, draw = canvas(height, ZOOM_W)
    state = _say(text, "board.open", "open") if book["open"] else _say(text, "board.closed", "closed ✓")
    draw_text(draw, (MARGIN + 4, 12), _say(text, "board.book", f"Book {name}", name=name), size=26, bold=True)
    draw_text(draw, (ZOOM_W - MARGIN - 4, 16), state, size=20, fill=MUTED, anchor="ra")
    gx = (ZOOM_W - grid_w) / 2
    _grid(img, view, book, gx, 50, ZOOM_CELL, text, letter=True)
    y = 50 + 4 * ZOOM_CELL + 16
    if staged and view["sides"] is not None:
        label = _say(text, "board.staged", "staged")
        draw_text(draw, (MARGIN + 4, y + 30), label, size=20, fill=MUTED, anchor="lm")
        sx = MARGIN + 12 + text_width(label, 20)
        for tile in staged:
            _tile(img, sx, y + 4, 56, tile, view["sides"][tile["owner"]], text=text, letter=True)
            sx += 60
    y += 70
    legend = _say(text, "board.conflict_legend", "orange frame: open battle · dashed: tie")
    draw_text(draw, (MARGIN + 4, y + 8), legend, size=ZOOM_MIN_FONT + 1, fill=MUTED, max_width=ZOOM_W - 2 * MARGIN)
    return img


def _zoom_monastery(view: PublicView, text: TextFormatter | None) -> Image.Image:
    img, draw = canvas(520, ZOOM_W)
    draw_text(draw, (MARGIN + 4, 12), _say(text, "board.monastery", "Monastery"), size=26, bold=True)
    sides = view["sides"]
    step_x, step_y, left, top = 180, 150, 90, 120

    def pos(sid: str) -> tuple[float, float]:
        st = STATIONS[sid]
        return left + (st.col - 1) * step_x, top + (st.row - 1) * step_y

    for sid, st in STATIONS.items():
        for n in st.neighbours:
            if sid < n:
                draw.line((*pos(sid), *pos(n)), fill=LINE, width=5)
    for sid, st in STATIONS.items():
        x, y = pos(sid)
        name = _say(text, f"term.station.{sid}", sid.capitalize())
        if st.altar and st.token is not None:
            colour = TOKEN_COLOUR[st.token]
            draw.rounded_rectangle((x - 62, y - 34, x + 62, y + 34), radius=8, fill=TILE_FILL[colour], outline=INK,
                                   width=2)
            draw_text(draw, (x, y - 12), _say(text, f"board.token_code.{st.token}", TOKEN_CODE[st.token]), size=20,
                      fill=TILE_INK[colour], anchor="mm", bold=True)
            draw_text(draw, (x, y + 14), name, size=ZOOM_MIN_FONT + 1, fill=TILE_INK[colour], anchor="mm",
                      max_width=120)
            sy = y + 40 if st.row == 1 else y - 76
            for k, tier in enumerate(SLOT_TIERS):
                bx = x - 66 + k * 45
                owner = view["slots"].get(f"{sid}-{tier}")
                fill = WHITE if owner is None or sides is None else SIDE_FRAME[sides[owner]]
                ink = INK if owner is None or sides is None or sides[owner] == "reverent" else WHITE
                draw.rectangle((bx, sy, bx + 42, sy + 34), fill=fill, outline=INK)
                draw_text(draw, (bx + 21, sy + 17), f"{tier}→{SLOT_TIERS[tier]}", size=ZOOM_MIN_FONT + 1, fill=ink,
                          anchor="mm")
        else:
            draw.ellipse((x - 26, y - 26, x + 26, y + 26), fill=BG, outline=INK, width=2)
            w = text_width(name, 18) / 2 + 4
            draw.rectangle((x - w, y + 30, x + w, y + 54), fill=BG)
            draw_text(draw, (x, y + 31), name, size=18, fill=MUTED, anchor="ma")
        if view["abbot"] == sid:
            _abbot_pawn(draw, x + (78 if st.altar else 0), y, 18)
    draw_text(draw, (MARGIN + 4, 486), _say(text, "board.slot_legend", "slot: tokens → VP; filled in the owner's colour"),
              size=ZOOM_MIN_FONT + 1, fill=MUTED, max_width=ZOOM_W - 2 * MARGIN)
    return img


def _zoom_players(view: PublicView, names: Sequence[str], text: TextFormatter | None) -> Image.Image:
    """Both players in full: score parts, holdings, counts and the mat."""
    card_h = 320
    img, draw = canvas(2 * card_h + 30, ZOOM_W)
    sides = view["sides"]
    rev = sides.index("reverent") if sides else 0
    for k, seat in enumerate((rev, 1 - rev)):
        top = 10 + k * (card_h + 10)
        side = sides[seat] if sides else "reverent"
        draw.rounded_rectangle((MARGIN, top, ZOOM_W - MARGIN, top + card_h), radius=10, fill=PANEL,
                               outline=SIDE_FRAME[side], width=3 if _acting(view) == seat else 1)
        side_name = _say(text, f"term.side.{side}", side.capitalize())
        draw_text(draw, (MARGIN + 12, top + 10), _name(names, seat), size=24, bold=True, max_width=300)
        draw_text(draw, (MARGIN + 12, top + 42), _say(text, "board.monk", f"{side_name} monk", side=side_name),
                  size=18, fill=MUTED, max_width=300)
        parts = view["scores"][seat]
        y = top + 74
        if parts:
            card = view["crusade"][seat]
            crusade = f"{_code(text, card.split('-', 1)[1])} {parts['crusade']}" if card else "?"
            rows = [("board.part.rituals", "rituals", parts["rituals"]), ("board.part.tiles", "tiles", parts["tiles"]),
                    ("board.part.battles", "battles", parts["battles"]),
                    ("board.part.crusade", "crusade", crusade), ("board.part.sheepfold", "sheepfold", parts["sheepfold"]),
                    ("board.part.total", "total", parts["total"])]
            for j, (key, fallback, value) in enumerate(rows):
                bold = j == len(rows) - 1
                draw_text(draw, (MARGIN + 12, y + j * 26), _say(text, key, fallback), size=18, bold=bold, max_width=190)
                draw_text(draw, (MARGIN + 270, y + j * 26), str(value), size=18, bold=bold, anchor="ra")
        y = top + card_h - 82
        x = _coin_chip(draw, MARGIN + 12, y, view["coins"][seat], size=32, font=18)
        for token in TOKENS:
            x = _token_chip(draw, x, y, token, view["tokens"][seat][token], text, size=32, font=18)
        mx = ZOOM_W - MARGIN - 12 - 3 * 56 - 40
        _mat(img, view, seat, mx, top + 12, 56, text, 18)
        facts = _say(text, "board.facts", f"hand {view['hand_counts'][seat]} · stacks {view['stacks_left'][seat]} · "
                     f"sheepfold {view['sheepfold'][seat]}", hand=view["hand_counts"][seat],
                     stacks=view["stacks_left"][seat], sheep=view["sheepfold"][seat])
        draw_text(draw, (MARGIN + 12, top + card_h - 10), facts, size=ZOOM_MIN_FONT + 1, anchor="ld",
                  max_width=ZOOM_W - 2 * MARGIN - 24)
    return img


# --------------------------------------------------------------------------- numbered squares


def draws_decision(view: dict[str, Any]) -> bool:
    """Whether ``render_decision`` draws a picture for this view: while the seat places a staged
    tile or answers an Exilium (the view's ``decision``). Cheap: asked before a render job."""
    decision = view.get("decision")
    return bool(decision and decision["squares"])


def render_decision(view: dict[str, Any], *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image | None:
    """The numbered squares of the seat's pending placement (§11 turn UI), ``ZOOM_W`` px wide: the
    tiles to place, then each Book holding a legal square, every such square numbered as the
    panel's buttons are (``engines/illumination/rules.py numbered_squares``), the first tile's
    reward under its number and that tile's best square starred (at the start of a turn:
    ``_render_activate``); None for other decisions."""
    if not draws_decision(view):
        return None
    pv: PrivateView = view  # type: ignore[assignment]
    decision = pv["decision"]
    assert decision is not None
    sides = pv["sides"]
    assert sides is not None
    if decision["kind"] == "activate":
        return _render_activate(pv, decision, sides, text)
    lead = decision["tiles"][0] if decision["tiles"] else None
    by_cell = {sq["cell"]: sq for sq in decision["squares"]}
    books = [b for b in pv["books"] if any(c["id"] in by_cell for c in b["cells"])]
    best_cell = _best([sq for sq in decision["squares"] if sq["kind"] == "square"], lead["id"]) if lead else None
    size = ZOOM_CELL if len(books) < 3 else ACTIVATE_CELL  # (three Books: a picture a phone shows whole)
    book_h = 40 + 4 * size + 12
    targets = lead is not None and any(sq["kind"] != "square" for sq in decision["squares"])  # (what cards pick)
    img, draw = canvas(120 + len(books) * book_h + (64 if targets else 40), ZOOM_W)
    if lead is not None:
        faction = lead["faction"] or ""
        tile_name = _say(text, "tile", f"{faction}/{lead['colour']}",
                         faction={"term": f"faction.{faction}"}, colour={"term": f"colour.{lead['colour']}"},
                         code=lead["code"])
        key = "board.pick_exile" if decision["kind"] == "exile" else "board.pick_place"
        title = _say(text, key, f"Where does {tile_name} go? Pick a number", tile=tile_name)
    else:
        title = _say(text, "board.pick_card", "Your cards: pick a number")
    draw_text(draw, (MARGIN + 4, 10), title, size=22, bold=True, max_width=ZOOM_W - 2 * MARGIN)
    x = MARGIN + 4
    for k, tile in enumerate(decision["tiles"]):
        _tile(img, x, 46, 60, tile, sides[tile["owner"]], text=text, letter=True)
        if k == 0:
            draw.rectangle((x - 3, 43, x + 63, 109), outline=RING, width=3)
        x += 70
    if lead is not None:
        legend = _say(text, "board.pick_legend", "★ best square for the framed tile; under a number: what it earns there")
    else:
        legend = _say(text, "board.pick_card_legend", "A number on a tile: a card may move it; on a square: "
                      "a card may put a tile there")
    _wrap(draw, legend, x + 6, 48, ZOOM_W - x - MARGIN - 6, ZOOM_MIN_FONT + 1, fill=MUTED, lines=3)
    top = 120
    for book in books:
        draw_text(draw, (MARGIN + 4, top + 4), _say(text, "board.book", f"Book {book['name']}", name=book["name"]),
                  size=22, bold=True)
        gx = (ZOOM_W - 6 * size) / 2
        gy = top + 40
        places = _grid(img, pv, book, gx, gy, size, text, letter=True)
        for cid, (px, py) in places.items():
            square = by_cell.get(cid)
            if square is None:
                continue
            if square["kind"] == "tile":
                _tile_number(img, px, py, square["n"], size)
            else:
                _number(img, px, py, square, lead["id"] if lead else "", cid == best_cell, text, size=size,
                        ring=DROLLERY if square["kind"] == "text" else NUMBER_RED)
        top += book_h
    if targets:
        _wrap(draw, _say(text, "board.pick_targets_legend", "Purple numbers: empty text spaces a Scriptum can fill. "
                         "A number in a tile's corner: a tile a card can move."),
              MARGIN + 4, top + 2, ZOOM_W - 2 * MARGIN - 4, ZOOM_MIN_FONT + 1, fill=MUTED, lines=2)
    return img


def _reward(gain: list[int | str]) -> tuple[int, int, str]:
    """A square's ``gain`` for one tile: ``[coins, tokens, token kind]`` (``SquareView``)."""
    coins, tokens, token = gain
    return cast(int, coins), cast(int, tokens), cast(str, token)


def _tile_number(img: Image.Image, x: float, y: float, n: int, size: int) -> None:
    """The number of a tile a card may move (``main_targets``): a small disc in the tile's
    top-right corner, clear of its faction code and colour letter."""
    draw = ImageDraw.Draw(img)
    r = 12 if size >= ZOOM_CELL else 11
    cx, cy = x + size - r - 1, y + r + 1
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHITE, outline=NUMBER_RED, width=2)
    draw_text(draw, (cx, cy), str(n), size=ZOOM_MIN_FONT + 1 if n < 10 else ZOOM_MIN_FONT, fill=NUMBER_RED,
              anchor="mm", bold=True)


ACTIVATE_CELL = 64
"""The cell size (px) of the turn-start picture: three Books in one picture a phone shows whole."""
LINE_TILE = 36
"""The size (px) of a line's tiles beside its Book on the turn-start picture."""


def _render_activate(pv: PrivateView, decision: DecisionView, sides: list[str], text: TextFormatter | None) -> Image.Image:
    """The turn-start picture (§11 turn UI, ``activate_place``): each Book a line feeds with its
    empty quill spaces numbered as the panel's options are (one number per square, Book I first),
    and beside it the lines that feed it, their tiles in line order, the one placed first framed."""
    by_cell = {sq["cell"]: sq for sq in decision["squares"]}
    books = [b for b in pv["books"] if any(c["id"] in by_cell for c in b["cells"])]
    size = ACTIVATE_CELL
    head, block = 92, 32 + 4 * size + 16
    img, draw = canvas(head + len(books) * block, ZOOM_W)
    draw_text(draw, (MARGIN + 4, 10), _say(text, "board.pick_activate", "Your turn: pick a line and a number"),
              size=22, bold=True, max_width=ZOOM_W - 2 * MARGIN)
    legend = _say(text, "board.pick_activate_legend",
                  "Beside each Book: the lines that feed it. The framed tile goes on the number you press.")
    _wrap(draw, legend, MARGIN + 4, 44, ZOOM_W - 2 * MARGIN - 4, ZOOM_MIN_FONT + 1, fill=MUTED, lines=2)
    top = head
    for book in books:
        draw_text(draw, (MARGIN + 4, top + 2), _say(text, "board.book", f"Book {book['name']}", name=book["name"]),
                  size=22, bold=True)
        gx, gy = MARGIN + 4, top + 32
        places = _grid(img, pv, book, gx, gy, size, text)
        for cid, (px, py) in places.items():
            square = by_cell.get(cid)
            if square is not None:
                _number(img, px, py, square, "", False, text, size=size)
        lx, ly = gx + 6 * size + 14, gy
        for line in (ln for ln in decision["lines"] if ln["book"] == book["name"]):
            draw_text(draw, (lx, ly), _say(text, f"term.line.{line['line']}", line["line"]), size=BOARD_MIN_FONT,
                      bold=True, max_width=ZOOM_W - lx - MARGIN)
            tx = lx
            for tile in line["tiles"]:
                _tile(img, tx, ly + 24, LINE_TILE, tile, sides[tile["owner"]], text=text)
                if tile["id"] == line["first"]:
                    draw.rectangle((tx - 2, ly + 22, tx + LINE_TILE + 1, ly + 25 + LINE_TILE), outline=RING, width=3)
                tx += LINE_TILE + 4
            ly += 24 + LINE_TILE + 22
        top += block
    return img


def _best(squares: list[SquareView], tile: str) -> str | None:
    """The square where ``tile`` earns most (coins + tokens), the first in numbering on a tie."""
    best, value = None, -1
    for sq in squares:
        gain = sq["gain"].get(tile)
        if gain is not None:
            coins, tokens, _ = _reward(gain)
            if coins + tokens > value:
                best, value = sq["cell"], coins + tokens
    return best


def _number(img: Image.Image, x: float, y: float, square: SquareView, lead: str, best: bool,
            text: TextFormatter | None, *, size: int = ZOOM_CELL, ring: RGB = NUMBER_RED) -> None:
    """A legal square's number in a white disc (``ring`` its outline: red for a quill space, purple
    for a text space), and below it what the framed tile earns there."""
    draw = Draw(img)
    cx, cy = x + size / 2, y + size * (0.38 if lead else 0.5)
    r = round(size * 0.26)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHITE, outline=ring, width=3)
    draw_text(draw, (cx, cy), str(square["n"]), size=round(size * 0.3), fill=ring, anchor="mm", bold=True)
    if best:
        draw.rectangle((x + 2, y + 2, x + size - 2, y + size - 2), outline=GOLD, width=4)
        draw_text(draw, (x + 5, y + 2), "★", size=ZOOM_MIN_FONT + 1, fill=GOLD)
    gain = square["gain"].get(lead)
    if gain is None:
        return
    coins, tokens, token = _reward(gain)
    parts: list[tuple[str, RGB | None]] = []
    if coins:
        parts.append((f"${coins}", None))
    if tokens:
        parts.append((f"+{tokens}", TILE_FILL[TOKEN_COLOUR[token]]))
    if not parts:
        return
    font = ZOOM_MIN_FONT
    widths = [text_width(p, font, bold=True) + (12 if dot else 0) for p, dot in parts]
    total = sum(widths) + 4 * (len(parts) - 1) + 6
    lx = cx - total / 2
    ly = y + size - 16
    draw.rounded_rectangle((lx - 2, ly - 11, lx + total + 2, ly + 11), radius=5, fill=WHITE)
    for (label, dot), w in zip(parts, widths, strict=True):
        if dot is not None:
            draw.ellipse((lx + 1, ly - 5, lx + 11, ly + 5), fill=dot, outline=INK)
            draw_text(draw, (lx + 12, ly), label, size=font, anchor="lm", bold=True)
        else:
            draw_text(draw, (lx + 1, ly), label, size=font, anchor="lm", bold=True)
        lx += w + 4


# --------------------------------------------------------------------------- private view


HAND_W, HAND_H = (ZOOM_W - 2 * MARGIN - 10) // 2, 150


def render_private(view: dict[str, Any], *, names: Sequence[str], text: TextFormatter | None = None) -> Image.Image:
    """A seat's private view (§7, §11), ``ZOOM_W`` px wide: its Crusade card with the count so far,
    and its hand, two cards a row."""
    pv: PrivateView = view  # type: ignore[assignment]
    seat = pv["seat"]
    hand = pv["hand"]
    rows = max(1, (len(hand) + 1) // 2)
    img, draw = canvas(86 + 210 + 40 + rows * (HAND_H + 10) + 10, ZOOM_W)
    side = pv["sides"][seat] if pv["sides"] else "reverent"
    draw_text(draw, (MARGIN, 10), _say(text, "board.private_title", f"Your private view · {'AB'[seat]} · "
              f"{_name(names, seat)}", letter="AB"[seat], name=_name(names, seat)), size=22, bold=True,
              max_width=ZOOM_W - 2 * MARGIN)
    side_name = _say(text, f"term.side.{side}", side.capitalize())
    draw_text(draw, (MARGIN, 44), _say(text, "board.private_side", f"{side_name} monk · only you see this",
                                       side=side_name), size=ZOOM_MIN_FONT + 1, fill=MUTED, max_width=ZOOM_W - 2 * MARGIN)
    y = 80
    draw.rounded_rectangle((MARGIN, y, ZOOM_W - MARGIN, y + 200), radius=12, fill=PANEL, outline=(150, 20, 30), width=3)
    draw_text(draw, (MARGIN + 14, y + 10), _say(text, "board.crusade", "Crusade (secret)"), size=22, bold=True)
    card = pv["my_crusade"]
    if card is not None:
        faction = card.split("-", 1)[1]
        fname = _say(text, f"term.faction.{faction}", faction.capitalize())
        n = pv["my_crusade_n"]
        vp = CRUSADE_VP[min(n, len(CRUSADE_VP) - 1)]
        code = _code(text, faction)
        # the tile code beside the name, unless the language's code is the name itself (ja 犬)
        draw_text(draw, (MARGIN + 14, y + 44), fname if code == fname else f"{fname} ({code})", size=28, bold=True)
        draw_text(draw, (MARGIN + 14, y + 90), _say(text, "board.crusade_count", f"face-down {fname} tiles now: {n} → "
                  f"{vp} VP", faction=fname, n=n, vp=vp), size=18, max_width=ZOOM_W - 2 * MARGIN - 28)
        table = " · ".join(f"{k}{'+' if k == 5 else ''}: {v}" for k, v in enumerate(CRUSADE_VP))
        draw_text(draw, (MARGIN + 14, y + 126), _say(text, "board.crusade_table", f"n → VP   {table}", table=table),
                  size=ZOOM_MIN_FONT + 1, fill=MUTED, max_width=ZOOM_W - 2 * MARGIN - 28)
    y += 216
    draw_text(draw, (MARGIN, y), _say(text, "board.hand", f"Hand ({len(hand)} Scriptorium cards)", n=len(hand)),
              size=22, bold=True)
    y += 36
    if not hand:
        draw_text(draw, (MARGIN, y), _say(text, "board.no_cards", "No cards. Buy one for 2 coins during your turn."),
                  size=18, fill=MUTED, max_width=ZOOM_W - 2 * MARGIN)
    for i, cid in enumerate(hand):
        r, c = divmod(i, 2)
        x = MARGIN + c * (HAND_W + 10)
        cy = y + r * (HAND_H + 10)
        kind = card_kind(cid)
        draw.rounded_rectangle((x, cy, x + HAND_W, cy + HAND_H), radius=10, fill=WHITE, outline=(110, 80, 30), width=3)
        draw_text(draw, (x + 10, cy + 8), _say(text, f"term.card.{kind}", kind.capitalize()), size=22, bold=True)
        _wrap(draw, _say(text, f"card_text.{kind}", ""), x + 10, cy + 42, HAND_W - 20, ZOOM_MIN_FONT + 1)
    return img


def _wrap(draw: ImageDraw.ImageDraw, body: str, x: float, y: float, width: float, size: int, *,
          fill: RGB = INK, lines: int = 99) -> None:
    """``body`` in at most ``lines`` lines of at most ``width`` px (by words; a text without
    spaces by characters)."""
    pieces: list[str] = []  # words with their spaces; CJK text and a word too wide for a line by characters
    for word in body.split(" "):
        if pieces:
            pieces.append(" ")
        wide = text_width(word, size) > width or any(ord(c) >= 0x2E80 for c in word)  # (CJK breaks anywhere)
        pieces += list(word) if wide else [word]
    out: list[str] = []
    line = ""
    for piece in pieces:
        trial = line + piece
        if text_width(trial.rstrip(), size) > width and line.strip():
            out.append(line.rstrip())
            line = piece.lstrip()
        else:
            line = trial
    if line.strip():
        out.append(line.rstrip())
    for k, line in enumerate(out[:lines]):
        draw_text(draw, (x, y + k * (size + 5)), line, size=size, fill=fill)


__all__ = ["BOARD_H", "BOARD_W", "ZOOM_W", "draws_decision", "render_board", "render_decision", "render_private",
           "render_zoom", "zoom_regions"]
