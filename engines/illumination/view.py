"""Views of Illumination (spec docs/rules/illumination.md §7): what the public and each seat may see.

``player_view(state, None)`` is a ``PublicView``: everything on the table (Books with face-down
tiles' faction and colour, mats, staged tiles, coins, tokens, counts of hands and stacks, the
Monastery, Battle markers, the discard pile). ``player_view(state, seat)`` is a ``PrivateView``:
the public view plus that seat's hand and Crusade card. Both Crusades are public once the game
is over. ``shuffle_hidden`` reshuffles what a viewer cannot see (the deck, every stack, the other
hand and Crusade) for the conformance no-leak check.
"""

from __future__ import annotations

import random
from typing import TypedDict

from engines.illumination.types import State

from .data import BOOK_CELLS, BOOKS, CELLS, CRUSADE_POOL, DROLLERIES, LINES, TILES, TOKENS
from .rules import (
    clone,
    conflict_groups,
    crusade_n,
    exile_of,
    final_result,
    first_tile,
    is_open,
    items,
    line_book,
    line_tiles,
    main_targets,
    numbered_squares,
    owner,
    rewards,
    score_breakdown,
    side_of,
    staged_choices,
    tie_break,
    tile_of,
)


class TileView(TypedDict):
    """A tile as the views show it: ``code`` such as ``"AnR"`` (``"$"`` for a coin tile)."""

    id: str
    code: str
    faction: str | None
    colour: str | None
    owner: int


class CellView(TypedDict):
    """One Book cell: ``quill`` is the matching tile colour or None (text space)."""

    id: str
    row: int
    column: str
    quill: str | None
    drollery: bool
    tile: TileView | None
    down: bool


class BookView(TypedDict):
    name: str
    open: bool
    cells: list[CellView]


class StagedView(TypedDict):
    tile: TileView
    book: str


class ExileView(TypedDict):
    tile: TileView
    origin: str
    book: str


class ConflictView(TypedDict):
    book: str
    pair: str
    cells: list[str]
    counts: list[int]
    bounded: bool


class PublicView(TypedDict):
    """The public view (§7 Public; §11 board image)."""

    game: str
    phase: str  # (a pass waiting for its confirmation is "turn_start" but in the passing seat's own view)
    active: int | None
    sides: list[str] | None
    line_mapping: str
    books: list[BookView]
    lines: list[dict[str, str]]
    mats: list[list[TileView | None]]
    staged: list[StagedView]
    coins: list[int]
    tokens: list[dict[str, int]]
    items: list[int]
    hand_counts: list[int]
    stacks_left: list[int]
    sheepfold: list[int]
    passed: list[bool]
    abbot: str | None
    slots: dict[str, int]
    markers: dict[str, list[int]]
    deck_count: int
    discard: list[str]
    exile: ExileView | None
    conflicts: list[ConflictView]
    scores: list[dict[str, int]]
    crusade: list[str | None]
    crusade_n: list[int | None]
    over: bool
    winners: list[int]
    tie_break: str | None
    """What broke a tie of equal totals (``rules.tie_break``): ``"tiles"``, ``"items"``, or None."""


class SquareView(TypedDict):
    """One numbered cell of a pending decision: ``kind`` ``"square"`` (an empty quill space),
    ``"text"`` (an empty text space, for a Scriptum) or ``"tile"`` (a face-up tile a card may
    move, ``rules.main_targets``); ``gain`` maps each tile that may go there to what landing it
    pays its owner, ``[coins, tokens, token kind]`` (§5.2; none on a tile)."""

    n: int
    cell: str
    kind: str
    gain: dict[str, list[int | str]]


class LineView(TypedDict):
    """A line of the mat at TURN_START that stages a tile to place: its ``tiles`` in line order
    (coin tiles too), the ``book`` they go to and the ``first`` tile placed (``activate_place``)."""

    line: str
    book: str
    tiles: list[TileView]
    first: str


class DecisionView(TypedDict):
    """The seat's pending placement (§11 turn UI): ``kind`` ``"place"`` (MAIN, the staged tiles
    that may still be placed, one per kind of tile and Book), ``"activate"`` (TURN_START: each
    line's first tile, placed as the line is activated; ``lines``) or ``"exile"`` (the exiled
    tile); ``squares`` numbered as the labels number them (``rules.numbered_squares``)."""

    kind: str
    tiles: list[TileView]
    squares: list[SquareView]
    lines: list[LineView]


class PrivateView(PublicView):
    """A seat's view: the public view plus its hand and Crusade (§7 Owner only), and its
    pending placement when it has one (``decision``, else None)."""

    seat: int
    hand: list[str]
    my_crusade: str | None
    my_crusade_n: int
    decision: DecisionView | None


def tile_view(state: State, tile: str) -> TileView:
    """The view of one tile."""
    t = TILES[tile]
    return {"id": tile, "code": t.code, "faction": t.faction, "colour": t.colour, "owner": owner(state, tile)}


_BOOK_SPACES: dict[str, tuple[tuple[str, int, str, str | None, bool], ...]] = {
    book: tuple((cid, CELLS[cid].row, CELLS[cid].column, CELLS[cid].quill, cid in DROLLERIES)
                for cid in BOOK_CELLS[book]) for book in BOOKS}
"""Per Book, the fixed part of each cell's view (id, row, column, quill, drollery), read once
(``public_view`` is built several times per move, by the undo check too)."""


def public_view(state: State) -> PublicView:
    """The public view of ``state`` (no secret: §7)."""
    ready = state["reverent"] is not None
    board = state["board"]
    books: list[BookView] = []
    for book in BOOKS:
        cells: list[CellView] = []
        for cid, row, column, quill, drollery in _BOOK_SPACES[book]:
            entry = board.get(cid)
            cells.append({"id": cid, "row": row, "column": column, "quill": quill, "drollery": drollery,
                          "tile": tile_view(state, tile_of(entry)) if entry else None, "down": bool(entry and entry[1])})
        books.append({"name": book, "open": is_open(state, book), "cells": cells})
    over = state["phase"] == "over"
    exile = state["exile"]
    return {
        "game": "illumination",
        "phase": "turn_start" if state["phase"] == "confirm_pass" else state["phase"],
        "active": state["active"],
        "sides": [side_of(state, s) for s in (0, 1)] if ready else None,
        "line_mapping": state["options"]["line_mapping"],
        "books": books,
        "lines": [{line: line_book(state, s, line) for line in LINES} if ready else {} for s in (0, 1)],
        "mats": [[tile_view(state, t) if t is not None else None for t in state["mats"][s]] for s in (0, 1)],
        "staged": [{"tile": tile_view(state, t), "book": b} for t, b in state["staged"]],
        "coins": list(state["coins"]),
        "tokens": [{k: state["tokens"][s][k] for k in TOKENS} for s in (0, 1)],
        "items": [items(state, s) for s in (0, 1)],
        "hand_counts": [len(h) for h in state["hands"]],
        "stacks_left": [len(st) // 3 if st is not None else 0 for st in state["stacks"]],
        "sheepfold": list(state["sheepfold"]),
        "passed": list(state["passed"]),
        "abbot": state["abbot"],
        "slots": dict(state["slots"]),
        "markers": {p: list(v) for p, v in state["markers"].items()},
        "deck_count": len(state["deck"] or []),
        "discard": list(state["discard"]),
        "exile": ({"tile": tile_view(state, exile["tile"]), "origin": exile["from"], "book": exile["book"]}
                  if exile else None),
        "conflicts": [{"book": b, **g} for b in BOOKS for g in conflict_groups(state, b)] if ready else [],
        "scores": [score_breakdown(state, s, crusade=over) if ready else {} for s in (0, 1)],
        "crusade": list(state["crusade"]) if over else [None, None],
        "crusade_n": [crusade_n(state, s) for s in (0, 1)] if over else [None, None],
        "over": over,
        "winners": sorted(final_result(state)[2]) if over else [],
        "tie_break": broken[0] if over and (broken := tie_break(state)) else None,
    }


def player_view(state: State, seat: int | None) -> PublicView | PrivateView:
    """``PublicView`` for ``seat`` None (or not 0/1), else that seat's ``PrivateView`` (§7)."""
    view = public_view(state)
    if seat is None or seat not in (0, 1):
        return view
    private: PrivateView = {
        **view, "seat": seat, "hand": sorted(state["hands"][seat]), "my_crusade": state["crusade"][seat],
        "my_crusade_n": crusade_n(state, seat), "decision": decision_view(state, seat)}
    if state["phase"] == "confirm_pass" and seat == state["active"]:
        private["phase"] = "confirm_pass"  # (the passing player's own question)
    return private


def decision_view(state: State, seat: int) -> DecisionView | None:
    """``seat``'s pending placement with its numbered squares, or None (not ``seat``'s
    placement to make: another phase, another seat to move, nothing staged in an open Book, no
    line to activate that stages a tile in an open Book)."""
    phase = state["phase"]
    lines: list[LineView] = []
    if phase == "main" and state["active"] == seat:
        kind = "place"
        tiles = [(t, b) for t, b in staged_choices(state) if is_open(state, b)]
    elif phase == "turn_start" and state["active"] == seat:
        kind = "activate"
        tiles = []
        for line in LINES:
            first = first_tile(state, seat, line)
            if first is None:
                continue
            book = line_book(state, seat, line)
            lines.append({"line": line, "book": book, "first": first,
                          "tiles": [tile_view(state, t) for t in line_tiles(state, seat, line)]})
            if (first, book) not in tiles:
                tiles.append((first, book))
    elif phase == "exile" and state["exile"] is not None and state["active"] == 1 - seat:
        kind = "exile"
        tiles = [(exile_of(state)["tile"], exile_of(state)["book"])]
    else:
        return None
    kinds = dict(main_targets(state)) if kind == "place" else {}
    if not tiles and not kinds:
        return None
    squares: list[SquareView] = []
    for n, cell in enumerate(numbered_squares(state), start=1):
        book = CELLS[cell].book
        what = kinds.get(cell, "square")
        gain: dict[str, list[int | str]] = (
            {} if what == "tile" else {t: list(rewards(state, t, cell)) for t, b in tiles if b == book})
        squares.append({"n": n, "cell": cell, "kind": what, "gain": gain})
    return {"kind": kind, "tiles": [tile_view(state, t) for t, _ in tiles], "squares": squares, "lines": lines}


def shuffle_hidden(state: State, seat: int | None, rng: random.Random) -> State:
    """A copy of ``state`` differing only in what ``seat`` cannot see (§7): the deck order, the
    contents of every face-down stack, and the other seat's hand and Crusade."""
    st = clone(state)
    for s in (0, 1):
        stack = st["stacks"][s]
        if stack:
            rng.shuffle(stack)
    pool = list(st["deck"] or [])
    others = [s for s in (0, 1) if s != seat]
    for s in others:
        pool += st["hands"][s]
    rng.shuffle(pool)
    for s in others:
        st["hands"][s] = [pool.pop() for _ in st["hands"][s]]
        if st["crusade"][s] is not None and st["reverent"] is not None and st["phase"] != "over":
            st["crusade"][s] = rng.choice(CRUSADE_POOL[side_of(st, s)])
    if st["deck"] is not None:
        st["deck"] = pool
    return st



def reveals(before: State, after: State) -> bool:
    """Whether a move from ``before`` to ``after`` showed something hidden (§7): a hand gained
    a card (a purchase or a compensation draw: the top of the deck, which nobody knew) or lost
    one (a card played face up), a refill turned tiles up from a face-down stack, or the game
    ended (both Crusades are shown)."""
    if after["phase"] == "over" and before["phase"] != "over":
        return True
    if any(sorted(old) != sorted(new) for old, new in zip(before["hands"], after["hands"], strict=True)):
        return True
    return any(old != new for old, new in zip(before["stacks"], after["stacks"], strict=True))
