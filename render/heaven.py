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

from collections.abc import Callable, Sequence
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
FACTION_TEXT = {"saint": "SAINT 聖徒", "sinner": "SINNER 罪人", "none": "NO FACTION"}
FACTION_FILL: dict[str, RGB] = {"saint": (255, 236, 170), "sinner": (232, 205, 235), "none": (225, 225, 225)}
SPACE_NAMES = {0: "City 毀滅之城", 6: "Gate 天堂之門"}
assert set(CARD_FILL) == set(CARD_EDGE) == {*COLOURS, "wild"}, "a fill and an edge per card colour"

MARGIN = 20
COL_W = (WIDTH - 2 * MARGIN) // 7
STRIP_H = 118
CARD_W = 200
CARD_H = 96


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"


def _pawn(draw: ImageDraw.ImageDraw, cx: float, cy: float, seat: int, r: int = 19, ring: bool = False) -> None:
    if ring:
        draw.ellipse((cx - r - 5, cy - r - 5, cx + r + 5, cy + r + 5), fill=HIGHLIGHT)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=seat_colour(seat), outline=INK, width=2)
    draw_text(draw, (cx, cy), seat_letter(seat), size=22, fill=WHITE, bold=True, anchor="mm")


def _wrap(text: str, size: int, width: float, lines: int) -> list[str]:
    """``text`` in at most ``lines`` lines of ``width`` pixels (the last one shortened)."""
    out: list[str] = []
    words = text.split()
    while words and len(out) < lines:
        line = words.pop(0)
        while words and fit_text(f"{line} {words[0]}", size, width, False) == f"{line} {words[0]}":
            line = f"{line} {words.pop(0)}"
        out.append(line)
    if words:
        out[-1] = fit_text(f"{out[-1]} {' '.join(words)}", size, width, False)
    return out


def _card(draw: ImageDraw.ImageDraw, x: float, y: float, card: CardView, text: TextFormatter, w: int = CARD_W,
          h: int = CARD_H, mark: str | None = None, detail: bool = False) -> None:
    """One card box: colour letter+word, big number, name (en + zh), S/N corner; with
    ``detail`` also who may use it and its ability in three small lines (the hand view)."""
    col = str(card["colour"])
    draw.rounded_rectangle((x, y, x + w, y + h), radius=10, fill=CARD_FILL[col], outline=CARD_EDGE[col], width=4)
    draw_text(draw, (x + 12, y + 6), f"{COLOUR_LETTER[col]}{card['number']}", size=34, bold=True,
              fill=CARD_EDGE[col])
    draw_text(draw, (x + 66, y + 13), text(msg(f"colour.{col}").to_json()), size=22, fill=INK, max_width=w - 100)
    side = "S" if card["side"] == "saint" else "N"
    sx, sy = x + w - 22, y + 22
    draw.ellipse((sx - 15, sy - 15, sx + 15, sy + 15),
                 fill=SAINT_INK if side == "S" else SINNER_INK)
    draw_text(draw, (sx, sy), side, size=20, fill=WHITE, bold=True, anchor="mm")
    draw_text(draw, (x + 12, y + 50), f"{card['name']} {card['name_zh']}", size=22, fill=INK, bold=True,
              max_width=w - 20)
    if detail:
        line_text = text(msg("board.usable", who=msg(f"usable.{card['usable_by']}"),
                             ability=card["ability"]).to_json())
        for i, line in enumerate(_wrap(line_text, 17, w - 20, 3)):
            draw_text(draw, (x + 12, y + 80 + i * 21), line, size=17, fill=MUTED)
    if mark:
        draw_text(draw, (x + w - 10, y + h - 6), mark, size=20, fill=INK, bold=True, anchor="rd")


def _status(view: PublicView, names: Sequence[str]) -> str:
    phase = view["phase"]
    if phase == "over":
        winners = ", ".join(f"{seat_letter(w)} {_name(names, w)}" for w in view["winners"])
        return "GAME OVER — winner" + ("s: " if len(view["winners"]) > 1 else ": ") + winners
    if phase == "deal":
        return "Dealing 6 cards to each player…"
    if phase == "split":
        waiting = [seat_letter(s) for s, done in enumerate(view["split_done"]) if not done]
        return "Choosing public sets — waiting for " + ", ".join(waiting)
    if phase == "start":
        return "Choosing the start player…"
    active = view["active"]
    who = f"{seat_letter(active)} {_name(names, active)}" if active is not None else "?"
    r = view["reacting"]
    if view["stage"] == "react" and r is not None:
        return f"{who} attacks — waiting for {seat_letter(r)} {_name(names, r)} to react"
    return f"{who} to play"


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
    side = "advanced side 進階版" if advanced else "easy side 簡易版"
    draw_text(draw, (MARGIN, 14), "The Way to Heaven 天路", size=34, bold=True)
    rnd = view["round"]
    limit = view["round_limit"]
    rtext = f"Round {rnd} / {limit}" if rnd else "Setup"
    draw_text(draw, (WIDTH - MARGIN, 18), f"{rtext} · {side}", size=22, anchor="ra")
    last = view["phase"] == "play" and rnd == limit
    status = _status(view, names)
    draw.rounded_rectangle((MARGIN, 62, WIDTH - MARGIN, 108), radius=8,
                           fill=(255, 226, 200) if last else PANEL)
    draw_text(draw, (MARGIN + 12, 85), ("LAST ROUND · " if last else "") + status, size=22, bold=True,
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
            draw_text(draw, (x + COL_W / 2, row_y), SPACE_NAMES[sp].split()[0], size=22, anchor="ma", bold=True)
            draw_text(draw, (x + COL_W / 2, row_y + 28), SPACE_NAMES[sp].split()[1], size=20, anchor="ma")
            if sp == 6:
                colour_rule = "one colour" if view["options"]["gate_same_colour"] else "any colours"
                draw_text(draw, (x + COL_W / 2, row_y + 58), "saint, 1+1+1", size=20, anchor="ma")
                draw_text(draw, (x + COL_W / 2, row_y + 82), colour_rule, size=20, anchor="ma")
            continue
        t = track[sp]
        combos = "C" + "".join(c[1] for c in t["combos"])
        combos = combos if len(t["combos"]) < 5 else "C1–C5"
        if advanced:
            draw_text(draw, (x + COL_W / 2, row_y), "Saint", size=20, fill=SAINT_INK, anchor="ma", bold=True)
            draw_text(draw, (x + COL_W / 2, row_y + 24), f"sum ≥ {t['sum']}", size=22, anchor="ma")
            draw.line((x + 14, row_y + 56, x + COL_W - 14, row_y + 56), fill=LINE, width=1)
            draw_text(draw, (x + COL_W / 2, row_y + 62), "Sinner", size=20, fill=SINNER_INK, anchor="ma",
                      bold=True)
            draw_text(draw, (x + COL_W / 2, row_y + 86), ", ".join(t["combos"]) if len(t["combos"]) < 5
                      else "C1–C5", size=20, anchor="ma")
        else:
            draw_text(draw, (x + COL_W / 2, row_y), f"sum ≥ {t['sum']}", size=22, anchor="ma")
            draw_text(draw, (x + COL_W / 2, row_y + 28), "or", size=20, fill=MUTED, anchor="ma")
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
    for i, line in enumerate(text(msg(f"board.legend_{k}").to_json()) for k in (1, 2)):
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
        draw_text(draw, (MARGIN + 80, y + 26), _name(names, s), size=24, bold=True, anchor="lm", max_width=240)
        fac = str(factions[s]) if view["phase"] in ("play", "over") else "none"
        if view["phase"] in ("play", "over"):
            badge = FACTION_TEXT[fac]
        elif view["phase"] == "split":
            badge = "chosen ✓" if view["split_done"][s] else "choosing…"
        else:
            badge = "—"
        bx = MARGIN + 30
        draw.rounded_rectangle((bx, y + 52, bx + 190, y + 82), radius=8, fill=FACTION_FILL[fac], outline=INK)
        draw_text(draw, (bx + 95, y + 67), badge, size=20, bold=True, anchor="mm")
        pos = int(view["positions"][s])
        info = "on the Gate" if pos == 6 else f"space {pos}"
        if s in view["winners"]:
            info = "★ WINNER · " + info
        info += f" · hand {view['hand_counts'][s]}"
        if view["skips"][s]:
            info += f" · skips {view['skips'][s]}"
        draw_text(draw, (MARGIN + 30, y + 88), info, size=20, fill=INK, max_width=330)
        cards = view["public"][s]
        cx0 = WIDTH - MARGIN - 3 * (CARD_W + 10)
        for i in range(3):
            x = cx0 + i * (CARD_W + 10)
            if i < len(cards):
                _card(draw, x, y + 11, cards[i], text)
            else:
                draw.rounded_rectangle((x, y + 11, x + CARD_W, y + 11 + CARD_H), radius=10, outline=LINE,
                                       width=2)
                hidden = view["phase"] in ("deal", "split")
                draw_text(draw, (x + CARD_W / 2, y + 11 + CARD_H / 2), "face down" if hidden else "empty",
                          size=20, fill=MUTED,
                          anchor="mm")
        if cards:
            draw_text(draw, (cx0 - 12, y + STRIP_H - 10), f"sum {view['public_sums'][s]}", size=20,
                      anchor="rd", fill=MUTED)

    # -- footer
    fy = sy + n * (STRIP_H + 8) + 4
    counts = view["counts"]
    maj = {"saint": "saints are the majority", "sinner": "sinners are the majority",
           "none": "no majority"}[view["majority"]]
    draw_text(draw, (MARGIN, fy), f"Saints {counts['saint']} · Sinners {counts['sinner']} · "
              f"None {counts['none']} → {maj}" + (" · LOCK: faction cards blocked" if view["lock"] else ""),
              size=22, bold=True, max_width=WIDTH - 2 * MARGIN)
    discard = view["discard"]
    top = f"top {discard[-1]['label']}" if discard else "empty"
    start = view["start"]
    start_text = f" · start player {seat_letter(start)}" if start is not None else ""
    draw_text(draw, (MARGIN, fy + 34), f"Draw pile {view['deck_count']} · discard {len(discard)} ({top})"
              + start_text, size=22, max_width=WIDTH - 2 * MARGIN)
    turn = view["turn"]
    extra = []
    if turn["modifier"] == "x3":
        extra.append("×3 this turn")
    elif turn["modifier"] == "law":
        extra.append(f"Law: numbers read as {turn['law']}")
    elif turn["modifier"] == "miracle":
        extra.append("Miracle: one colour this turn")
    if turn["borrowed"]:
        extra.append(f"borrowed +{turn['borrowed']}")
    if view["end_reason"] is not None:
        extra.append(text(view["end_reason"]))
    if view["declared"] is not None:
        extra.append(text(msg("board.declared", use=view["declared"]).to_json()))
    if extra:
        draw_text(draw, (MARGIN, fy + 68), " · ".join(extra), size=22, fill=SINNER_INK,
                  max_width=WIDTH - 2 * MARGIN)
    return img


def render_private(view: PrivateView, *, names: Sequence[str], text: TextFormatter) -> Image.Image:
    """Draw a seat's hand from ``player_view(state, seat)``: hand cards (usable ones marked),
    the split choice during setup, cards drawn but not yet placed, and the next-space test.

    Uses view keys: seat, hand, usable, split_choice, buffer, next_test, public, factions, phase.
    """
    seat = int(view["seat"])
    hand = view["hand"]
    buffer = view["buffer"]
    rows = 1 + (len(hand) - 1) // 4 if hand else 1
    brows = (1 + (len(buffer) - 1) // 4) if buffer else 0
    public = view["public"][seat]
    hand_h = CARD_H + 86  # room for the ability lines and the "✓ usable" / "★ public" mark
    height = (100 + rows * (hand_h + 14) + (50 + brows * (hand_h + 14) if brows else 0) + 150
              + (44 + CARD_H + 14 if public else 0))
    img, draw = canvas(height)
    _pawn(draw, MARGIN + 22, 36, seat, r=22)
    draw_text(draw, (MARGIN + 56, 36), f"{_name(names, seat)} — your hand ({len(hand)})", size=28, bold=True,
              anchor="lm", max_width=WIDTH - 2 * MARGIN - 60)
    usable = set(view["usable"])
    chosen = set(view["split_choice"] or [])
    draw_text(draw, (MARGIN, 70), "✓ = can be used now" if view["phase"] == "play" else
              ("★ = chosen for your public set" if chosen else "Choose 3 cards to make public"), size=20,
              fill=MUTED)
    cw = (WIDTH - 2 * MARGIN - 3 * 12) // 4
    y = 100
    if not hand:
        draw_text(draw, (MARGIN, y + 20), "(no cards in hand)", size=24, fill=MUTED)
    for i, card in enumerate(hand):
        x = MARGIN + (i % 4) * (cw + 12)
        cy = y + (i // 4) * (hand_h + 14)
        mark = "✓ usable" if card["id"] in usable else ("★ public" if card["id"] in chosen else None)
        _card(draw, x, cy, card, text, w=cw, h=hand_h, mark=mark, detail=True)
    y += rows * (hand_h + 14)
    if buffer:
        draw_text(draw, (MARGIN, y + 10), "Drawn, still to place:", size=22, bold=True)
        y += 50
        for i, card in enumerate(buffer):
            x = MARGIN + (i % 4) * (cw + 12)
            _card(draw, x, y + (i // 4) * (hand_h + 14), card, text, w=cw, h=hand_h, detail=True)
        y += brows * (hand_h + 14)
    if public:
        draw_text(draw, (MARGIN, y + 10), "Your public set:", size=22, bold=True)
        y += 44
        for i, card in enumerate(public):
            _card(draw, MARGIN + i * (cw + 12), y, card, text, w=cw)
        y += CARD_H + 14
    test = view["next_test"]
    fac = view["factions"][seat]
    y += 10
    if view["phase"] == "play":
        draw_text(draw, (MARGIN, y), f"Your faction: {FACTION_TEXT.get(fac, fac)}", size=22, bold=True)
    if test:
        met = test["met"]
        draw.rounded_rectangle((MARGIN, y + 36, WIDTH - MARGIN, y + 80), radius=8,
                               fill=(210, 240, 212) if met else (245, 225, 225))
        draw_text(draw, (MARGIN + 12, y + 58), ("✓ " if met else "X ") + text(test["text"]), size=22,
                  anchor="lm", max_width=WIDTH - 2 * MARGIN - 24)
    return img


__all__ = ["render_board", "render_private"]
