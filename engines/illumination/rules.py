"""Rule helpers of Illumination on a state (spec docs/rules/illumination.md), each citing its section.

Queries (``side_of``, ``line_book``, ``empty_quills``, ``rewards``, ``conflict_groups``,
``score_breakdown`` …) never change the state. The few helpers that *do* change one
(``land``, ``resolve_battles``, ``draw_card``, ``gain``) work on the working copy that
``IlluminationEngine.apply`` made (``clone``); each says so.

State shape (plain JSON, seats 0/1; see ``engine.py`` for the whole layout): ``board`` maps an
occupied cell id to ``[tile_id, face_down]``; ``mats[s]`` is 9 tile ids or None in reading
order; ``staged`` is the active seat's ``[[tile_id, book], …]``; ``coins[s]``; ``tokens[s]`` a
dict token → count; ``slots`` slot → seat; ``markers`` pair → ``[seat0, seat1]`` counts.
"""

from __future__ import annotations

from engines.base import present
from engines.illumination.types import Battle, ConflictGroup, Exile, State

from .data import (
    ALTAR_OF_TOKEN,
    BATTLE_MAJORITY_VP,
    BATTLE_SHARED_VP,
    BOOK_CELLS,
    BOOK_INDEX,
    BOOKS,
    CELL_ORDER,
    CELLS,
    CRUSADE_VP,
    DROLLERIES,
    ITEM_LIMIT,
    LINES,
    NEIGHBOURS,
    PAIR_OF,
    PAIRS,
    SLOT_TIERS,
    STATIONS,
    TILES,
    TOKEN_OF,
    TOKENS,
    card_kind,
    line_cells,
)


def seat_of(seat: int | None) -> int:
    """``state["active"]`` or ``state["reverent"]`` once set (every phase after setup)."""
    assert seat is not None, "the seats are set"
    return seat


def tile_of(entry: list[str | bool]) -> str:
    """The tile id of a ``board`` entry ``[tile id, face_down]``."""
    tile = entry[0]
    assert isinstance(tile, str), entry
    return tile


def abbot_of(state: State) -> str:
    """The Abbot's station (set by the setup's chance step)."""
    return present(state["abbot"], "the Abbot is placed")


def exile_of(state: State) -> Exile:
    """The pending Exilium (phase ``exile``)."""
    return present(state["exile"], "an Exilium is pending")


def clone(state: State) -> State:
    """A deep copy of an Illumination state (faster than ``copy.deepcopy``: the shape is known)."""
    st = state.copy()
    st["options"] = state["options"].copy()
    st["crusade"] = list(state["crusade"])
    st["stacks"] = [None if s is None else list(s) for s in state["stacks"]]
    st["deck"] = None if state["deck"] is None else list(state["deck"])
    st["discard"] = list(state["discard"])
    st["mats"] = [list(m) for m in state["mats"]]
    st["staged"] = [list(t) for t in state["staged"]]
    st["board"] = {c: list(v) for c, v in state["board"].items()}
    st["coins"] = list(state["coins"])
    st["tokens"] = [dict(t) for t in state["tokens"]]
    st["hands"] = [list(h) for h in state["hands"]]
    st["sheepfold"] = list(state["sheepfold"])
    st["passed"] = list(state["passed"])
    st["slots"] = dict(state["slots"])
    st["markers"] = {p: list(v) for p, v in state["markers"].items()}
    st["draw"] = None if state["draw"] is None else state["draw"].copy()
    st["exile"] = None if state["exile"] is None else state["exile"].copy()
    return st


# --------------------------------------------------------------------------- sides, lines


def side_of(state: State, seat: int) -> str:
    """``"reverent"`` or ``"irreverent"`` for ``seat`` (§2.2); the Reverent is ``state["reverent"]``."""
    return "reverent" if state["reverent"] == seat else "irreverent"


def owner(state: State, tile: str) -> int:
    """The seat owning ``tile`` (§2.3)."""
    rev = seat_of(state["reverent"])
    return rev if TILES[tile].side == "reverent" else 1 - rev


def line_book(state: State, seat: int, line: str) -> str:
    """The Book that ``seat``'s mat ``line`` feeds (§2.5, D4): line k → Book k for the Reverent,
    and for the Irreverent Book 4−k under ``line_mapping=mirrored``."""
    k = int(line[3])
    if state["options"]["line_mapping"] == "mirrored" and side_of(state, seat) == "irreverent":
        k = 4 - k
    return BOOKS[k - 1]


def line_tiles(state: State, seat: int, line: str) -> list[str]:
    """The tiles on ``seat``'s mat ``line``, in line order."""
    mat = state["mats"][seat]
    return [tile for tile in (mat[i] for i in line_cells(line)) if tile is not None]


def activatable_lines(state: State, seat: int) -> list[str]:
    """Lines holding at least one tile (§5.1 ``activate``, D31)."""
    return [line for line in LINES if line_tiles(state, seat, line)]


def redirect_cost(src: str, dst: str) -> int:
    """Coins to move a staged tile between Books: 1 per step (§5.1 ``redirect``)."""
    return abs(BOOK_INDEX[src] - BOOK_INDEX[dst])


# --------------------------------------------------------------------------- Books


def empty_quills(state: State, book: str) -> list[str]:
    """Empty quill spaces of ``book`` in reading order (§4.2)."""
    board = state["board"]
    return [c for c in BOOK_CELLS[book] if CELLS[c].quill is not None and c not in board]


def is_open(state: State, book: str) -> bool:
    """A Book is open while it has an empty quill space; closed for good otherwise (§4.2, D9)."""
    board = state["board"]
    return any(CELLS[c].quill is not None and c not in board for c in BOOK_CELLS[book])


def empty_texts(state: State, book: str) -> list[str]:
    """Empty text spaces of ``book`` (no tile, no Drollery), for Scriptum (§5.3)."""
    board = state["board"]
    return [c for c in BOOK_CELLS[book] if CELLS[c].quill is None and c not in DROLLERIES and c not in board]


def exile_cells(state: State) -> list[str]:
    """Cells the opponent may choose for the pending Exilium (§5.1 ``exile_cell``): empty quill
    spaces of the named Book other than the tile's original cell, in reading order."""
    exile = exile_of(state)
    return [c for c in empty_quills(state, exile["book"]) if c != exile["from"]]


def first_tile(state: State, seat: int, line: str) -> str | None:
    """The tile of ``seat``'s mat ``line`` placed first when it is activated and placed
    (``activate_place``): the first of ``staged_choices`` once staged, the lowest id of its
    faction tiles; None when it stages none or its Book is closed."""
    tiles = sorted(t for t in line_tiles(state, seat, line) if TILES[t].faction is not None)
    return tiles[0] if tiles and is_open(state, line_book(state, seat, line)) else None


def fed_books(state: State) -> list[str]:
    """At TURN_START, the open Books where a line of the active seat's mat would stage a tile to
    place (its faction tiles' Book, §2.5), Book I first: those of the ``activate_place`` squares."""
    seat = seat_of(state["active"])
    books = {line_book(state, seat, line) for line in activatable_lines(state, seat) if first_tile(state, seat, line)}
    return sorted(books, key=BOOK_INDEX.__getitem__)


def main_targets(state: State) -> list[tuple[str, str]]:
    """The cells a MAIN decision of the active seat picks, as ``(cell, kind)`` in the order the
    decision picture numbers them (Book I first, each in reading order): ``"square"`` an empty
    quill space of a Book where a staged tile waits, or of any Book while the hand holds a Motus
    that can move a tile (§5.3: its destinations); ``"text"`` an empty text space of a Book
    where a staged tile waits, while the hand holds a Scriptum; ``"tile"`` a face-up tile in an
    open Book that a Motus (one's own) or an Exilium (the opponent's) in hand can move."""
    seat = seat_of(state["active"])
    kinds = {card_kind(c) for c in state["hands"][seat]}
    board = state["board"]
    staged = {book for _, book in state["staged"]}
    movable: set[str] = set()
    for cell, entry in board.items():
        if not entry[1] and is_open(state, CELLS[cell].book):
            mine = owner(state, tile_of(entry)) == seat
            if ("motus" in kinds and mine) or ("exilium" in kinds and not mine):
                movable.add(cell)
    motus = "motus" in kinds and any(owner(state, tile_of(board[c])) == seat for c in movable)
    quills = set(BOOKS) if motus else staged
    texts = {b for b in staged if is_open(state, b)} if "scriptum" in kinds else set()
    out: list[tuple[str, str]] = []
    for book in BOOKS:
        for cell in BOOK_CELLS[book]:
            if cell in movable:
                out.append((cell, "tile"))
            elif cell in board or cell in DROLLERIES:
                continue
            elif CELLS[cell].quill is not None:
                if book in quills:
                    out.append((cell, "square"))
            elif book in texts:
                out.append((cell, "text"))
    return out


def numbered_squares(state: State) -> list[str]:
    """The squares of the pending placement in the order they are numbered 1, 2, … on the
    decision picture and in the labels (§11 turn UI): in MAIN the cells of ``main_targets``
    (the empty quill spaces of the Books where staged tiles wait, and what the cards in hand may
    pick); at TURN_START those of
    the Books the lines feed (``fed_books``), one number per square whichever line goes there;
    while an Exilium is answered, the cells it may land on; otherwise none."""
    phase = state["phase"]
    if phase == "main":
        return [c for c, _ in main_targets(state)]
    if phase == "turn_start" and state["active"] is not None:
        return [c for book in fed_books(state) for c in empty_quills(state, book)]
    if phase == "exile" and state["exile"] is not None:
        return exile_cells(state)
    return []


def face_up(state: State, cell: str) -> str | None:
    """The face-up tile on ``cell``, or None."""
    entry = state["board"].get(cell)
    return tile_of(entry) if entry is not None and not entry[1] else None


def rewards(state: State, tile: str, cell: str, *, quill_coin: bool = True) -> tuple[int, int, str]:
    """What landing ``tile`` on ``cell`` pays its owner (§5.2): ``(coins, tokens, token_kind)``.

    Quill match +1 coin (text spaces never, and not at all when ``quill_coin`` is False);
    +1 token of the tile's colour per adjacent face-up tile of that colour (either owner, D10)
    and per adjacent Drollery. Computed on the position before the landing's battle check (D12).
    """
    colour = TILES[tile].colour
    assert colour is not None
    coins = 1 if quill_coin and CELLS[cell].quill == colour else 0
    tokens = 0
    board = state["board"]
    for n in NEIGHBOURS[cell]:
        if n in DROLLERIES:
            tokens += 1
            continue
        entry = board.get(n)
        if entry is not None and not entry[1] and TILES[tile_of(entry)].colour == colour:
            tokens += 1
    return coins, tokens, TOKEN_OF[colour]


_FACTION_CODE: dict[str, int | None] = {
    tile: None if t.faction is None else 2 * PAIRS.index(PAIR_OF[t.faction]) + (t.side != "reverent")
    for tile, t in TILES.items()}
"""Each tile's opposed pair and side as one number, ``2 × pair + side`` (side 0 the Reverent's, 1 the
Irreverent's; None for a coin tile): two tiles of one pair from different sides differ in the lowest
bit alone."""

_QUILL_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    c: tuple(n for n in NEIGHBOURS[c] if CELLS[n].quill is not None) for c in CELLS}
"""Each cell's neighbours that are quill spaces."""


def conflict_groups(state: State, book: str) -> list[ConflictGroup]:
    """The conflict groups of ``book`` (§4.3): connected face-up tiles of one opposed pair that
    include both sides. Each is ``{"pair", "cells" (reading order), "counts": [seat0, seat1],
    "bounded": bool}``; bounded means no adjacent cell is an empty quill space (D13)."""
    board = state["board"]
    code_at: dict[str, int] = {}  # (the face-up faction tiles in reading order: ``_FACTION_CODE``)
    for c in BOOK_CELLS[book]:
        entry = board.get(c)
        if entry is not None and not entry[1]:
            code = _FACTION_CODE[tile_of(entry)]
            if code is not None:
                code_at[c] = code
    # a group holding both sides has two adjacent tiles of one pair from different sides
    if not any(code ^ code_at.get(n, code) == 1 for c, code in code_at.items() for n in NEIGHBOURS[c]):
        return []
    seen: set[str] = set()
    groups: list[ConflictGroup] = []
    for start, code in code_at.items():
        if start in seen:
            continue
        pair = code >> 1
        todo, cells = [start], []
        seen.add(start)
        irreverent = 0
        while todo:
            c = todo.pop()
            cells.append(c)
            irreverent += code_at[c] & 1
            for n in NEIGHBOURS[c]:
                if n not in seen and code_at.get(n, -2) >> 1 == pair:
                    seen.add(n)
                    todo.append(n)
        if not irreverent or irreverent == len(cells):
            continue
        counts = [0, 0]
        rev = seat_of(state["reverent"])
        counts[rev] = len(cells) - irreverent
        counts[1 - rev] = irreverent
        bounded = not any(n not in board for c in cells for n in _QUILL_NEIGHBOURS[c])
        groups.append({"pair": PAIRS[pair], "cells": sorted(cells, key=CELL_ORDER.__getitem__), "counts": counts,
                       "bounded": bounded})
    return groups


# --------------------------------------------------------------------------- working-copy changes


def gain(state: State, seat: int, coins: int, tokens: int, token: str) -> None:
    """Add ``coins`` and ``tokens`` of ``token`` to ``seat`` (changes the working copy)."""
    state["coins"][seat] += coins
    if tokens:
        state["tokens"][seat][token] += tokens


def land(state: State, tile: str, cell: str, *, quill_coin: bool = True) -> tuple[int, int, str]:
    """Put ``tile`` face up on ``cell`` and pay its owner the rewards (§5.2), computed before the
    battle check (D12). Changes the working copy; returns the rewards paid (see ``rewards``)."""
    paid = rewards(state, tile, cell, quill_coin=quill_coin)
    state["board"][cell] = [tile, False]
    gain(state, owner(state, tile), *paid)
    return paid


def resolve_battles(state: State, books: tuple[str, ...] = BOOKS) -> list[Battle]:
    """The battle check (§4.3, D14–D16): every bounded conflict group with unequal counts is
    resolved: the smaller side's tiles turn face down, the winner adds a marker to the pair's
    Battle card, the loser gains 1 coin per flipped tile. Changes the working copy; returns one
    ``{"book", "pair", "winner", "loser", "counts", "flipped": [cells]}`` per battle. ``books``
    limits the check to the Books a change touched (a tile lifted out of a Book only unbounds
    groups there, so the landing's Book is enough; the end-of-turn check passes all three)."""
    battles: list[Battle] = []
    for book in books:
        for group in conflict_groups(state, book):
            counts = group["counts"]
            if not group["bounded"] or counts[0] == counts[1]:
                continue
            winner = 0 if counts[0] > counts[1] else 1
            loser = 1 - winner
            flipped = [c for c in group["cells"] if owner(state, tile_of(state["board"][c])) == loser]
            for c in flipped:  # (a new entry: a copy may share the board's entries, notation ``_trial``)
                state["board"][c] = [state["board"][c][0], True]
            state["markers"][group["pair"]][winner] += 1
            state["coins"][loser] += len(flipped)
            battles.append({"book": book, "pair": group["pair"], "winner": winner, "loser": loser,
                            "counts": counts, "flipped": flipped})
    return battles


def draw_card(state: State, seat: int) -> str | None:
    """Draw the deck's top card into ``seat``'s hand (changes the working copy); None when the
    deck is empty (the caller reshuffles first, §5.1 ``buy_card``)."""
    deck = state["deck"]
    if not deck:
        return None
    card = deck.pop(0)
    state["hands"][seat].append(card)
    return str(card)


# --------------------------------------------------------------------------- spending


def items(state: State, seat: int) -> int:
    """Coins + tokens held (§4.1 step 3)."""
    return int(state["coins"][seat]) + int(sum(state["tokens"][seat].values()))


def over_limit(state: State, seat: int) -> int:
    """How many items ``seat`` must still discard to reach the limit of 7 (D28)."""
    return max(0, items(state, seat) - ITEM_LIMIT)


def discard_default(state: State, seat: int) -> str:
    """The DISCARD timeout default (§11): one item of the smallest non-zero holding among coins,
    bell, candle, wine and bread; ties broken bell, candle, wine, bread, coins."""
    holdings = [(state["tokens"][seat][t], i, t) for i, t in enumerate(TOKENS)]
    holdings.append((state["coins"][seat], len(TOKENS), "coin"))
    return min(h for h in holdings if h[0] > 0)[2]


def exchange_slots(state: State, seat: int) -> list[str]:
    """Slots ``seat`` may exchange into now (§5.1 ``exchange``, D19): the Abbot's altar, an empty
    slot, enough tokens of the altar's kind."""
    station = STATIONS[abbot_of(state)]
    if not station.altar or station.token is None:
        return []
    have = state["tokens"][seat][station.token]
    return [f"{station.id}-{n}" for n in SLOT_TIERS if f"{station.id}-{n}" not in state["slots"] and have >= n]


def slot_parts(slot: str) -> tuple[str, int]:
    """``"candle-5"`` → (``"candle"`` altar station, 5 tokens)."""
    altar, n = slot.rsplit("-", 1)
    return altar, int(n)


def altar_token(altar: str) -> str:
    """The token an altar takes (``"bell"`` altar → ``"bell"``)."""
    token = STATIONS[altar].token
    assert token is not None
    return token


# --------------------------------------------------------------------------- scoring


def face_up_count(state: State, seat: int) -> int:
    """Own face-up tiles in the Books (§8 item 2)."""
    return sum(1 for entry in state["board"].values() if not entry[1] and owner(state, tile_of(entry)) == seat)


def crusade_n(state: State, seat: int) -> int:
    """n for ``seat``'s Crusade (§2.8): the opponent's face-down tiles of the named faction."""
    card = state["crusade"][seat]
    if card is None:
        return 0
    faction = card.split("-", 1)[1]
    return sum(1 for entry in state["board"].values() if entry[1] and TILES[tile_of(entry)].faction == faction)


def score_breakdown(state: State, seat: int, *, crusade: bool) -> dict[str, int]:
    """Score parts of ``seat`` (§8): ``rituals``, ``tiles``, ``battles``, ``crusade`` (0 unless
    ``crusade``), ``sheepfold`` (a penalty, ≤ 0) and ``total``."""
    rituals = sum(SLOT_TIERS[slot_parts(s)[1]] for s, owner_seat in state["slots"].items() if owner_seat == seat)
    battles = 0
    for counts in state["markers"].values():
        mine, theirs = counts[seat], counts[1 - seat]
        if mine > theirs:
            battles += BATTLE_MAJORITY_VP
        elif mine == theirs and mine > 0:
            battles += BATTLE_SHARED_VP
    parts = {
        "rituals": rituals,
        "tiles": face_up_count(state, seat),
        "battles": battles,
        "crusade": CRUSADE_VP[min(crusade_n(state, seat), len(CRUSADE_VP) - 1)] if crusade else 0,
        "sheepfold": -int(state["sheepfold"][seat]),
    }
    parts["total"] = sum(parts.values())
    return parts


ALTAR_STATIONS = ALTAR_OF_TOKEN
"""Token → its altar station (re-exported for the notation)."""


def staged_choices(state: State) -> list[tuple[str, str]]:
    """The active seat's staged tiles as ``(tile, book)``, one per kind of tile and Book: two
    identical tiles (same faction and colour) staged at the same Book are one choice, the
    lower id standing for both (§5.1: which copy moves makes no difference)."""
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []
    for tile, book in sorted(state["staged"], key=lambda s: (BOOK_INDEX[s[1]], s[0])):
        key = (TILES[tile].code, book)
        if key not in seen:
            seen.add(key)
            out.append((tile, book))
    return out


def tie_break(state: State) -> tuple[str, int, int] | None:
    """How the tie-break decided a game whose totals are equal (§8, D35): ``("tiles", winner's,
    loser's)`` face-up tiles in the Books, or ``("items", winner's, loser's)`` coins + tokens
    held (the face-up tiles being equal); None when the totals differ or the victory is shared."""
    totals, ranking, winners = final_result(state)
    if totals[0] != totals[1] or len(winners) != 1:
        return None
    w, o = ranking
    tiles = (face_up_count(state, w), face_up_count(state, o))
    if tiles[0] != tiles[1]:
        return ("tiles", *tiles)
    return ("items", items(state, w), items(state, o))


def final_result(state: State) -> tuple[list[int], tuple[int, ...], frozenset[int]]:
    """Final totals per seat, the ranking and the winners (§8): the higher total wins; ties go to
    more face-up tiles, then more coins + tokens, else the victory is shared (D35)."""
    totals = [score_breakdown(state, s, crusade=True)["total"] for s in (0, 1)]
    keys = [(totals[s], face_up_count(state, s), items(state, s)) for s in (0, 1)]
    ranking = (0, 1) if keys[0] >= keys[1] else (1, 0)
    winners = frozenset({0, 1}) if keys[0] == keys[1] else frozenset({ranking[0]})
    return totals, ranking, winners
