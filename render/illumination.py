"""Illumination (闡明) renderer (spec docs/rules/illumination.md §11 board image; design §6).

``render_board(view, *, names, text=None, highlight=None)`` draws the public board from
``player_view(state, None)`` (a ``PublicView``), 1100 px wide, the Reverent's seat at the bottom:

* the Irreverent's panel and mat on top, the Reverent's below the Books: coins, the four token
  counts, hand size, stacks left, sheepfold, a "passed" badge, the public score (Crusade "?"),
  and the mat with each line labelled by the Book it feeds (``→ III``);
* Books I–III side by side with column letters and row numbers; quill spaces in their colour with
  the letter K/Y/R/W; text spaces ruled like parchment; the purple Drollery; tiles in their colour
  with a 2-letter faction code, the colour letter and an owner frame (Reverent gold, Irreverent
  black); face-down tiles dark with the faded code; unbounded conflict groups outlined orange, tied
  bounded groups dashed grey; the tiles staged at each Book in a strip under it;
* the Monastery graph with the Abbot and each altar's slots ``3→2 / 4→4 / 5→7``, and the four
  Battle cards with marker counts.

``render_private(view, *, names, text=None)`` draws a seat's Crusade card and hand from its
``PrivateView``. Names of cards, stations and factions come from the catalog through ``text``
(``bot.text.Texts``) when the host passes it; shapes and colours come from the view and
``engines/illumination/data.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engines.illumination.data import (
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
from engines.illumination.view import CellView, PrivateView, PublicView, TileView
from render.base import BG, INK, LINE, MUTED, PANEL, WHITE, WIDTH, canvas, draw_text, text_width

RGB = tuple[int, int, int]
Formatter = Callable[[Any], str] | None

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
FACE_DOWN_INK: RGB = (125, 120, 132)
GOLD: RGB = (214, 160, 20)
BLACK: RGB = (15, 15, 15)
ORANGE: RGB = (235, 115, 0)
TIE_GREY: RGB = (95, 95, 95)
SIDE_FRAME = {"reverent": GOLD, "irreverent": BLACK}
SIDE_SHORT = {"reverent": "Rev", "irreverent": "Irr"}
TOKEN_CODE = {"bell": "Be", "candle": "Ca", "wine": "Wi", "bread": "Br"}
TOKEN_COLOUR = {t: c for c, t in TOKEN_OF.items()}

MARGIN = 14
BOOK_GAP = 16
CELL = 52
LABEL_W = 18
STRIP_H = 58
MAT_X = WIDTH - MARGIN - 16 - 3 * 50 - 56
"""Left edge (px) of a player's mat of 50 px cells; the score parts line ends 70 px before it."""
PANEL_H = 196
MONASTERY_H = 344


def _say(text: Formatter, key: str, fallback: str, **params: Any) -> str:
    """A catalog text (``term.station.bell``) through the host's formatter, else ``fallback``."""
    if text is None:
        return fallback
    out = text({"msg": key, "params": params})
    return fallback if out == key else out


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) and names[seat] else f"Seat {'AB'[seat]}"


# --------------------------------------------------------------------------- tiles and cells


def _tile(img: Image.Image, x: float, y: float, size: int, tile: TileView, side: str, *, down: bool = False,
          text: Formatter = None) -> None:
    """Paste a tile at (x, y): colour fill, faction code (``board.code.<faction>`` in the
    reader's language), colour letter, owner frame (§11)."""
    faction = tile.get("faction")
    code = _say(text, f"board.code.{faction}", FACTION_CODE[faction]) if faction is not None else ""
    face = _tile_image(size, faction, tile.get("colour"), side, down, code)
    img.paste(face, (int(x), int(y)), face)


TILE_CODE = 0.44
"""A tile's faction code (An, Dr…) in px per px of tile side (22 px on a 52 px cell; was 0.40)."""
TILE_LETTER = 0.30
"""A tile's colour letter (Y, K, W, R) in px per px of tile side (15 px bold on a 52 px cell; was 13 px
regular: 4.5 px at 380 px display width, trial 8)."""


@lru_cache(maxsize=256)
def _tile_image(size: int, faction: str | None, colour: str | None, side: str, down: bool, code: str) -> Image.Image:
    """One tile drawn once on a transparent square (tiles repeat; text rendering is the cost)."""
    face = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(face)
    box = (2, 2, size - 2, size - 2)
    if faction is None or colour is None:  # coin tile (mats only)
        draw.rounded_rectangle(box, radius=6, fill=(235, 200, 90), outline=SIDE_FRAME[side], width=4)
        draw_text(draw, (size / 2, size / 2), "$2", size=int(size * 0.38), anchor="mm", bold=True)
        return face
    letter = COLOUR_LETTER[colour]
    if down:
        draw.rounded_rectangle(box, radius=6, fill=FACE_DOWN, outline=SIDE_FRAME[side] if side == "reverent"
                               else (110, 110, 110), width=2)
        draw_text(draw, (size * 0.41, size * 0.39), code, size=int(size * 0.40), fill=FACE_DOWN_INK, anchor="mm")
        draw_text(draw, (size - 5, size - 4), letter, size=int(size * TILE_LETTER), fill=FACE_DOWN_INK, anchor="rd")
        return face
    draw.rounded_rectangle(box, radius=6, fill=TILE_FILL[colour], outline=SIDE_FRAME[side], width=4)
    ink = TILE_INK[colour]
    draw_text(draw, (size * 0.41, size * 0.39), code, size=int(size * TILE_CODE), fill=ink, anchor="mm", bold=True)
    draw_text(draw, (size - 6, size - 5), letter, size=int(size * TILE_LETTER), fill=ink, anchor="rd", bold=True)
    return face


@lru_cache(maxsize=16)
def _space_image(quill: str | None, drollery: bool) -> Image.Image:
    """An empty Book cell: quill space with its letter, ruled text space, or the Drollery."""
    face = Image.new("RGB", (CELL + 1, CELL + 1), BG)
    draw = ImageDraw.Draw(face)
    box = (0, 0, CELL, CELL)
    if quill is not None:
        draw.rectangle(box, fill=QUILL_FILL[quill], outline=LINE)
        draw_text(draw, (4, 2), COLOUR_LETTER[quill], size=18, fill=QUILL_INK[quill], bold=True)
        draw.line((CELL - 10, 8, CELL - 20, 22), fill=QUILL_INK[quill], width=2)  # a small quill stroke
    else:
        draw.rectangle(box, fill=PARCHMENT, outline=LINE)
        for k in range(1, 5):
            draw.line((5, k * CELL / 5, CELL - 5, k * CELL / 5), fill=RULE, width=1)
    if drollery:
        draw.rounded_rectangle((4, 4, CELL - 4, CELL - 4), radius=8, fill=DROLLERY)
        draw_text(draw, (CELL / 2, CELL / 2), "✿", size=26, fill=WHITE, anchor="mm")
    return face


def _cell(img: Image.Image, x: float, y: float, cell: CellView, sides: list[str] | None,
          text: Formatter = None) -> None:
    """One Book cell and its tile (§11)."""
    img.paste(_space_image(cell["quill"], cell["drollery"]), (int(x), int(y)))
    tile = cell["tile"]
    if tile is not None and sides is not None:
        _tile(img, x, y, CELL, tile, sides[tile["owner"]], down=cell["down"], text=text)


def _dashed_rect(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], colour: RGB, width: int) -> None:
    x0, y0, x1, y1 = box
    dash = 6
    for a, b, horizontal, fixed in ((x0, x1, True, y0), (x0, x1, True, y1), (y0, y1, False, x0), (y0, y1, False, x1)):
        pos = a
        while pos < b:
            end = min(pos + dash, b)
            if horizontal:
                draw.line((pos, fixed, end, fixed), fill=colour, width=width)
            else:
                draw.line((fixed, pos, fixed, end), fill=colour, width=width)
            pos += 2 * dash


# --------------------------------------------------------------------------- Books


def _book_origin(index: int) -> float:
    width = (WIDTH - 2 * MARGIN - 2 * BOOK_GAP) / 3
    return MARGIN + index * (width + BOOK_GAP)


def _draw_books(img: Image.Image, view: PublicView, top: int, names: Sequence[str], text: Formatter = None) -> int:
    draw = ImageDraw.Draw(img)
    sides = view["sides"]
    width = (WIDTH - 2 * MARGIN - 2 * BOOK_GAP) / 3
    grid_left_pad = (width - LABEL_W - 6 * CELL) / 2
    bottom = top
    for index, book in enumerate(view["books"]):
        x0 = _book_origin(index)
        draw.rounded_rectangle((x0, top, x0 + width, top + 34 + 20 + 4 * CELL + STRIP_H + 8), radius=10, fill=PANEL)
        state = _say(text, "board.open", "open") if book["open"] else _say(text, "board.closed", "closed ✓")
        draw_text(draw, (x0 + 10, top + 5), _say(text, "board.book", f"Book {book['name']}", name=book["name"]),
                  size=22, bold=True)
        draw_text(draw, (x0 + width - 10, top + 8), state, size=17, fill=MUTED, anchor="ra")
        gx, gy = x0 + grid_left_pad + LABEL_W, top + 34 + 20
        for k, col in enumerate("abcdef"):
            draw_text(draw, (gx + k * CELL + CELL / 2, gy - 3), col, size=17, fill=MUTED, anchor="md")
        for r in range(4):
            draw_text(draw, (gx - 5, gy + r * CELL + CELL / 2), str(r + 1), size=17, fill=MUTED, anchor="rm")
        places: dict[str, tuple[float, float]] = {}
        for cell in book["cells"]:
            cx = gx + "abcdef".index(cell["column"]) * CELL
            cy = gy + (cell["row"] - 1) * CELL
            places[cell["id"]] = (cx, cy)
            _cell(img, cx, cy, cell, sides, text)
        for group in view["conflicts"]:
            if group["book"] != book["name"]:
                continue
            tied = group["bounded"] and group["counts"][0] == group["counts"][1]
            for cid in group["cells"]:
                px, py = places[cid]
                box = (px + 1, py + 1, px + CELL - 1, py + CELL - 1)
                if tied:
                    _dashed_rect(draw, box, TIE_GREY, 3)
                elif not group["bounded"]:
                    draw.rectangle(box, outline=ORANGE, width=3)
        # the staged strip (tiles waiting at this Book, and an exiled tile landing here)
        sy = gy + 4 * CELL + 6
        draw.line((x0 + 8, sy, x0 + width - 8, sy), fill=LINE, width=1)
        staged = [s["tile"] for s in view["staged"] if s["book"] == book["name"]]
        sx = x0 + 10
        if staged and sides is not None:
            draw_text(draw, (sx, sy + STRIP_H / 2), _say(text, "board.staged", "staged"), size=15, fill=MUTED,
                      anchor="lm")
            sx += 58
            for tile in staged:
                _tile(img, sx, sy + 6, 44, tile, sides[tile["owner"]], text=text)
                sx += 46
        exile = view["exile"]
        if exile is not None and exile["book"] == book["name"] and sides is not None:
            _tile(img, sx, sy + 6, 44, exile["tile"], sides[exile["tile"]["owner"]], text=text)
            draw_text(draw, (sx + 50, sy + STRIP_H / 2),
                      _say(text, "board.exiled_from", f"exiled from {exile['origin']}", origin=exile["origin"]),
                      size=15, fill=INK, anchor="lm")
        bottom = int(sy + STRIP_H + 8)
    return bottom


# --------------------------------------------------------------------------- players


def _token_icon(draw: ImageDraw.ImageDraw, x: float, y: float, token: str, count: int, text: Formatter = None) -> float:
    colour = TOKEN_COLOUR[token]
    draw.ellipse((x, y, x + 30, y + 30), fill=TILE_FILL[colour], outline=INK, width=1)
    draw_text(draw, (x + 15, y + 15), _say(text, f"board.token_code.{token}", TOKEN_CODE[token]), size=15,
              fill=TILE_INK[colour], anchor="mm", bold=True)
    draw_text(draw, (x + 35, y + 15), str(count), size=21, anchor="lm", bold=True)
    return x + 62


def _draw_player(img: Image.Image, view: PublicView, seat: int, top: int, names: Sequence[str],
                 text: Formatter) -> int:
    draw = ImageDraw.Draw(img)
    sides = view["sides"]
    side = sides[seat] if sides else "reverent"
    frame = SIDE_FRAME[side]
    acting = view["active"] if view["phase"] != "exile" or view["active"] is None else 1 - view["active"]
    active = acting == seat and not view["over"]
    draw.rounded_rectangle((MARGIN, top, WIDTH - MARGIN, top + PANEL_H), radius=12, fill=PANEL,
                           outline=(frame if active else LINE), width=4 if active else 1)
    side_name = _say(text, f"term.side.{side}", side.capitalize())
    draw.rectangle((MARGIN + 12, top + 12, MARGIN + 30, top + 30), fill=frame)
    draw_text(draw, (MARGIN + 40, top + 8), f"{'AB'[seat]} · {_name(names, seat)}", size=24, bold=True,
              max_width=430)
    doing = ((_say(text, "board.to_answer", " · to answer the Exilium") if view["phase"] == "exile"
              else _say(text, "board.to_move", " · to move")) if active else "")
    draw_text(draw, (MARGIN + 40, top + 40), _say(text, "board.monk", f"{side_name} monk", side=side_name) + doing,
              size=18, fill=MUTED)
    if view["passed"][seat]:
        draw.rounded_rectangle((MARGIN + 330, top + 40, MARGIN + 420, top + 64), radius=6, fill=(120, 30, 30))
        draw_text(draw, (MARGIN + 375, top + 52), _say(text, "board.passed", "PASSED"), size=16, fill=WHITE,
                  anchor="mm", bold=True)
    # holdings
    y = top + 76
    draw.ellipse((MARGIN + 14, y, MARGIN + 44, y + 30), fill=(235, 200, 90), outline=INK)
    draw_text(draw, (MARGIN + 29, y + 15), "$", size=17, anchor="mm", bold=True)
    draw_text(draw, (MARGIN + 50, y + 15), str(view["coins"][seat]), size=21, anchor="lm", bold=True)
    x: float = MARGIN + 84
    for token in TOKENS:
        x = _token_icon(draw, x, y, token, view["tokens"][seat][token], text)
    items = view["items"][seat]
    draw_text(draw, (x + 4, y + 15), _say(text, "board.items", f"items {items}/7", n=items)
              + (_say(text, "board.items_over", " — over!") if items > 7 else ""), size=17,
              fill=(170, 40, 30) if items > 7 else MUTED, anchor="lm")
    y += 42
    facts = _say(text, "board.facts", f"hand {view['hand_counts'][seat]}  ·  stacks {view['stacks_left'][seat]}  ·  "
                 f"sheepfold {view['sheepfold'][seat]}", hand=view["hand_counts"][seat],
                 stacks=view["stacks_left"][seat], sheep=view["sheepfold"][seat])
    draw_text(draw, (MARGIN + 14, y), facts, size=19)
    y += 32
    parts = view["scores"][seat]
    if parts:
        card = view["crusade"][seat]
        faction = card.split('-', 1)[1] if card else ""
        code = _say(text, f"board.code.{faction}", FACTION_CODE[faction]) if card else ""
        crusade = f"{code} {parts['crusade']}" if card else "?"
        total = parts["total"]
        score = (_say(text, "board.score", f"score {total}", total=total) if view["over"]
                 else _say(text, "board.score_open", f"score {total} + ?", total=total))
        draw_text(draw, (MARGIN + 14, y), score, size=22, bold=True)
        draw_text(draw, (MARGIN + 170, y + 3), _say(
            text, "board.parts", f"rituals {parts['rituals']} · tiles {parts['tiles']} · battles "
            f"{parts['battles']} · crusade {crusade} · sheep {parts['sheepfold']}", rituals=parts["rituals"],
            tiles=parts["tiles"], battles=parts["battles"], crusade=crusade, sheep=parts["sheepfold"]),
            size=19, fill=MUTED, max_width=MAT_X - 70 - (MARGIN + 170))
    # the mat, lines labelled by the Book they feed
    size = 50
    mx = MAT_X
    my = top + 18
    lines = view["lines"][seat]
    for i, tile in enumerate(view["mats"][seat]):
        r, c = divmod(i, 3)
        cx, cy = mx + c * size, my + r * size
        draw.rectangle((cx, cy, cx + size, cy + size), fill=BG, outline=LINE)
        if tile is not None:
            _tile(img, cx, cy, size, tile, side, text=text)
    for k, line in enumerate(LINES):
        book = lines.get(line, "")
        if line.startswith("row"):
            draw_text(draw, (mx + 3 * size + 6, my + k * size + size / 2), f"→{book}", size=16, fill=MUTED,
                      anchor="lm")
        else:
            draw_text(draw, (mx + (k - 3) * size + size / 2, my + 3 * size + 2), f"↓{book}", size=16, fill=MUTED,
                      anchor="ma")
    draw_text(draw, (mx - 10, my + 1.5 * size), _say(text, "board.mat", "mat"), size=16, fill=MUTED, anchor="rm")
    return top + PANEL_H


# --------------------------------------------------------------------------- Monastery and Battle cards


def _draw_monastery(draw: ImageDraw.ImageDraw, view: PublicView, top: int, text: Formatter) -> int:
    left, step = MARGIN + 70, 150
    draw.rounded_rectangle((MARGIN, top, MARGIN + 560, top + MONASTERY_H), radius=12, fill=PANEL)
    draw_text(draw, (MARGIN + 12, top + 6), _say(text, "board.monastery", "Monastery"), size=22, bold=True)
    sides = view["sides"]

    def pos(sid: str) -> tuple[float, float]:
        st = STATIONS[sid]
        return left + (st.col - 1) * step + 60, top + 64 + (st.row - 1) * 112

    for sid, st in STATIONS.items():
        for n in st.neighbours:
            if sid < n:
                draw.line((*pos(sid), *pos(n)), fill=LINE, width=4)
    for sid, st in STATIONS.items():
        x, y = pos(sid)
        name = _say(text, f"term.station.{sid}", sid.capitalize())
        if st.altar and st.token is not None:
            colour = TOKEN_COLOUR[st.token]
            draw.rounded_rectangle((x - 38, y - 26, x + 38, y + 26), radius=8, fill=TILE_FILL[colour], outline=INK,
                                   width=2)
            # (the altar names its token in words: the legend of the token codes on the player panels)
            code = _say(text, f"board.token_code.{st.token}", TOKEN_CODE[st.token])
            word = _say(text, f"term.token.{st.token}", st.token)
            word = word[:1].upper() + word[1:]
            if word == code:  # (a language whose code is the whole word: once is enough)
                draw_text(draw, (x, y - 2), code, size=20, fill=TILE_INK[colour], anchor="mm", bold=True)
            else:
                draw_text(draw, (x, y - 11), code, size=18, fill=TILE_INK[colour], anchor="mm", bold=True)
                size = 15 if text_width(word, 15) <= 70 else 12
                draw_text(draw, (x, y + 12), word, size=size, fill=TILE_INK[colour], anchor="mm", max_width=72)
            # slots: 3→2 / 4→4 / 5→7
            sx = x - 60
            sy = y + 30 if st.row == 1 else y - 58
            for k, tier in enumerate(SLOT_TIERS):
                bx = sx + k * 41
                owner = view["slots"].get(f"{sid}-{tier}")
                fill = WHITE if owner is None or sides is None else SIDE_FRAME[sides[owner]]
                draw.rectangle((bx, sy, bx + 39, sy + 26), fill=fill, outline=INK)
                ink = INK if owner is None or sides is None or sides[owner] == "reverent" else WHITE
                label = f"{tier}→{SLOT_TIERS[tier]}" if owner is None else f"{'AB'[owner]}:{SLOT_TIERS[tier]}"
                draw_text(draw, (bx + 20, sy + 13), label, size=15, fill=ink, anchor="mm")
        else:
            draw.ellipse((x - 22, y - 22, x + 22, y + 22), fill=BG, outline=INK, width=2)
            w = text_width(name, 15) / 2 + 4
            draw.rectangle((x - w, y + 25, x + w, y + 44), fill=PANEL)
            draw_text(draw, (x, y + 26), name, size=15, fill=MUTED, anchor="ma")
        if view["abbot"] == sid:
            ax = x + 52 if st.altar else x  # beside an altar, so its token stays readable
            draw.polygon([(ax - 15, y + 16), (ax + 15, y + 16), (ax, y - 20)], fill=(110, 20, 30), outline=WHITE)
            draw_text(draw, (ax, y + 6), "A", size=16, fill=WHITE, anchor="mm", bold=True)
    draw_text(draw, (MARGIN + 548, top + 10), _say(text, "board.abbot_legend", "▲A the Abbot · slot: tokens→VP / owner:VP"),
              size=15, fill=MUTED, anchor="ra")
    return top + MONASTERY_H


def _draw_battles(draw: ImageDraw.ImageDraw, view: PublicView, top: int, text: Formatter) -> None:
    x0 = MARGIN + 576
    draw.rounded_rectangle((x0, top, WIDTH - MARGIN, top + MONASTERY_H), radius=12, fill=PANEL)
    draw_text(draw, (x0 + 12, top + 6), _say(text, "board.battles", "Battle cards"), size=22, bold=True)
    sides = view["sides"]
    for k, pair in enumerate(PAIRS):
        y = top + 40 + k * 58
        a, b = pair.split("-")
        draw.rounded_rectangle((x0 + 12, y, WIDTH - MARGIN - 12, y + 50), radius=8, fill=WHITE, outline=LINE)
        codes = [_say(text, f"board.code.{f}", FACTION_CODE[f]) for f in (a, b)]
        shown = "↔".join(codes)
        draw_text(draw, (x0 + 22, y + 25), shown, size=20, anchor="lm", bold=True)
        # (the full names beside the codes: the legend of the codes on the books' tiles)
        name = _say(text, f"term.pair.{pair}", f"{a.capitalize()}↔{b.capitalize()}")
        draw_text(draw, (x0 + 32 + text_width(shown, 20, bold=True), y + 25), name, size=16, fill=MUTED,
                  anchor="lm")
        counts = view["markers"][pair]
        if sides is not None:
            rev = sides.index("reverent")
            line = _say(text, "board.counts", f"Rev {counts[rev]} · Irr {counts[1 - rev]}", rev=counts[rev],
                        irr=counts[1 - rev])
            draw_text(draw, (WIDTH - MARGIN - 24, y + 25), line, size=19, anchor="rm")
    y = top + 40 + 4 * 58 + 6
    deck = _say(text, "board.deck", f"Scriptorium deck {view['deck_count']} · discard {len(view['discard'])}",
                n=view["deck_count"], discard=len(view["discard"]))
    draw_text(draw, (x0 + 14, y), deck, size=17)
    if view["discard"]:
        kind = card_kind(view["discard"][-1])
        card = _say(text, f"term.card.{kind}", kind.capitalize())
        draw_text(draw, (x0 + 14, y + 26), _say(text, "board.last_played", "last played: " + card, card=card),
                  size=17, fill=MUTED)


# --------------------------------------------------------------------------- the board


def _status(view: PublicView, names: Sequence[str], text: Formatter = None) -> str:
    if view["over"]:
        winners = view["winners"]
        if len(winners) == 2:
            return _say(text, "board.over_shared", "Game over — a shared victory")
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


def render_board(view: dict[str, Any], *, names: Sequence[str], text: Formatter = None,
                 highlight: str | None = None) -> Image.Image:
    """The public board (§11) as an RGB image 1100 px wide; ``highlight`` (a cell id) is ringed."""
    pv: PublicView = view  # type: ignore[assignment]
    height = 52 + PANEL_H + 10 + (34 + 20 + 4 * CELL + STRIP_H + 8) + 10 + PANEL_H + 10 + MONASTERY_H + MARGIN
    img, draw = canvas(height)
    draw_text(draw, (MARGIN, 12), _say(text, "board.title", "Illumination 闡明"), size=26, bold=True)
    draw_text(draw, (WIDTH - MARGIN, 16), _status(pv, names, text), size=21, anchor="ra", max_width=700)
    sides = pv["sides"]
    rev = sides.index("reverent") if sides else 0
    y = _draw_player(img, pv, 1 - rev, 52, names, text) + 10
    y = _draw_books(img, pv, y, names, text) + 10
    y = _draw_player(img, pv, rev, y, names, text) + 10
    _draw_monastery(draw, pv, y, text)
    _draw_battles(draw, pv, y, text)
    if highlight:
        _ring(draw, pv, highlight, 52 + PANEL_H + 10)
    return img


def _ring(draw: ImageDraw.ImageDraw, view: PublicView, cell_id: str, top: int) -> None:
    width = (WIDTH - 2 * MARGIN - 2 * BOOK_GAP) / 3
    for index, book in enumerate(view["books"]):
        for cell in book["cells"]:
            if cell["id"] == cell_id:
                gx = _book_origin(index) + (width - LABEL_W - 6 * CELL) / 2 + LABEL_W
                cx = gx + "abcdef".index(cell["column"]) * CELL
                cy = top + 54 + (cell["row"] - 1) * CELL
                draw.rectangle((cx - 2, cy - 2, cx + CELL + 2, cy + CELL + 2), outline=(0, 114, 178), width=4)


# --------------------------------------------------------------------------- private view


CARD_W, CARD_H = 250, 150


def render_private(view: dict[str, Any], *, names: Sequence[str], text: Formatter = None) -> Image.Image:
    """A seat's private view (§7, §11): its Crusade card with the count so far, and its hand."""
    pv: PrivateView = view  # type: ignore[assignment]
    seat = pv["seat"]
    hand = pv["hand"]
    rows = max(1, (len(hand) + 3) // 4)
    img, draw = canvas(120 + 190 + rows * (CARD_H + 14) + 20)
    side = pv["sides"][seat] if pv["sides"] else "reverent"
    draw_text(draw, (MARGIN, 12), _say(text, "board.private_title", f"Your private view · {'AB'[seat]} · "
              f"{_name(names, seat)}", letter="AB"[seat], name=_name(names, seat)), size=26, bold=True,
              max_width=WIDTH - 2 * MARGIN)
    side_name = _say(text, f"term.side.{side}", side.capitalize())
    draw_text(draw, (MARGIN, 50), _say(text, "board.private_side", f"{side_name} monk · only you see this",
                                       side=side_name), size=18, fill=MUTED)
    # Crusade
    y = 90
    draw.rounded_rectangle((MARGIN, y, WIDTH - MARGIN, y + 170), radius=12, fill=PANEL, outline=(150, 20, 30), width=3)
    draw_text(draw, (MARGIN + 16, y + 10), _say(text, "board.crusade", "Crusade (secret)"), size=22, bold=True)
    card = pv["my_crusade"]
    if card is not None:
        faction = card.split("-", 1)[1]
        fname = _say(text, f"term.faction.{faction}", faction.capitalize())
        n = pv["my_crusade_n"]
        vp = CRUSADE_VP[min(n, len(CRUSADE_VP) - 1)]
        code = _say(text, f"board.code.{faction}", FACTION_CODE[faction])
        # the tile code beside the name, unless the language's code is the name itself (ja 犬)
        draw_text(draw, (MARGIN + 16, y + 46), fname if code == fname else f"{fname} ({code})", size=30, bold=True)
        draw_text(draw, (MARGIN + 16, y + 92), _say(text, "board.crusade_count", f"face-down {fname} tiles now: {n} → "
                  f"{vp} VP", faction=fname, n=n, vp=vp), size=20)
        table = " · ".join(f"{k}{'+' if k == 5 else ''}: {v}" for k, v in enumerate(CRUSADE_VP))
        draw_text(draw, (MARGIN + 16, y + 126), _say(text, "board.crusade_table", f"n → VP   {table}", table=table),
                  size=18, fill=MUTED)
    y += 190
    draw_text(draw, (MARGIN, y), _say(text, "board.hand", f"Hand ({len(hand)} Scriptorium cards)", n=len(hand)),
              size=22, bold=True)
    y += 34
    if not hand:
        draw_text(draw, (MARGIN, y), _say(text, "board.no_cards", "No cards. Buy one for 2 coins during your turn."),
                  size=19, fill=MUTED)
    for i, cid in enumerate(hand):
        r, c = divmod(i, 4)
        x = MARGIN + c * (CARD_W + 17)
        cy = y + r * (CARD_H + 14)
        kind = card_kind(cid)
        draw.rounded_rectangle((x, cy, x + CARD_W, cy + CARD_H), radius=10, fill=WHITE, outline=(110, 80, 30), width=3)
        draw_text(draw, (x + 12, cy + 8), _say(text, f"term.card.{kind}", kind.capitalize()), size=24, bold=True)
        body = _say(text, f"card_text.{kind}", "")
        _wrap(draw, body, x + 12, cy + 44, CARD_W - 24, 17)
    return img


def _wrap(draw: ImageDraw.ImageDraw, body: str, x: float, y: float, width: float, size: int) -> None:
    line = ""
    for word in body.split():
        trial = f"{line} {word}".strip()
        if text_width(trial, size) > width and line:
            draw_text(draw, (x, y), line, size=size)
            y += size + 5
            line = word
        else:
            line = trial
    if line:
        draw_text(draw, (x, y), line, size=size)
