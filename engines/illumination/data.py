"""Component data of Illumination (spec docs/rules/illumination.md §2), loaded and validated once.

The three CSV files next to this module are copies of ``docs/rules/data/illumination_*.csv``:

* ``CELLS``: cell id (``"II-c3"``) → ``Cell`` (Book, row 1–4, column a–f, quill colour or None
  for a text space, Drollery at setup); ``BOOK_CELLS`` lists each Book's cells in reading order;
  ``NEIGHBOURS`` gives the orthogonally adjacent cells within the same Book (§2.4).
* ``TILES``: tile id (``"rev-angel-red-1"``) → ``Tile`` (side, faction or None for a coin tile,
  colour or None) (§2.3).
* ``STATIONS``: the Monastery graph (§2.6), ``SLOTS`` its 12 scoring slots.
* ``CARDS``: the 24 Scriptorium card ids by kind (§2.7); ``CRUSADE_POOL`` and ``CRUSADE_VP`` (§2.8).

Everything else is a small constant with the section it comes from.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from engines.base import OptionSpec

_HERE = Path(__file__).parent

SIDES: tuple[str, str] = ("reverent", "irreverent")
"""Side names (§2.2); a state stores which seat is the Reverent."""

SIDE_PREFIX: dict[str, str] = {"reverent": "rev", "irreverent": "irr"}

FACTIONS: dict[str, tuple[str, ...]] = {
    "reverent": ("angel", "knight", "monk", "dog"),
    "irreverent": ("demon", "dragon", "rabbit", "squirrel"),
}
"""Each side's four factions (§2.2)."""

PAIRS: tuple[str, ...] = ("angel-demon", "knight-dragon", "monk-rabbit", "dog-squirrel")
"""The opposed pairs, one Battle card each (§2.2, §2.9)."""

PAIR_OF: dict[str, str] = {f: p for p in PAIRS for f in p.split("-")}
"""Faction → its opposed pair."""

FACTION_CODE: dict[str, str] = {
    "angel": "An", "knight": "Kn", "monk": "Mo", "dog": "Do",
    "demon": "De", "dragon": "Dr", "rabbit": "Ra", "squirrel": "Sq",
}
"""Two-letter faction codes, independent of colour (§11 board image)."""

COLOURS: tuple[str, ...] = ("grey", "yellow", "red", "white")
"""Tile colours (§2.1)."""

COLOUR_LETTER: dict[str, str] = {"grey": "K", "yellow": "Y", "red": "R", "white": "W"}
"""A tile colour's letter: the letter of the quill it matches (a grey tile matches the black
quill ``K``, D2), so equal letters mean a quill match."""

TOKEN_OF: dict[str, str] = {"grey": "bell", "yellow": "candle", "red": "wine", "white": "bread"}
"""Tile colour → ritual token (§2.1)."""

TOKENS: tuple[str, ...] = ("bell", "candle", "wine", "bread")
"""Ritual token kinds in the spec's order (§2.1)."""

ITEM_LIMIT = 7
"""Coins + tokens kept at the end of one's own turn (§4.1 step 3, D28)."""

COIN_TILE_VALUE = 2
"""Coins paid by a coin tile on activation (D6)."""

BOOKS: tuple[str, ...] = ("I", "II", "III")
"""The shared Books, left to right as the Reverent sees them (§2.4)."""

BOOK_INDEX: dict[str, int] = {b: i for i, b in enumerate(BOOKS)}

COLUMNS = "abcdef"
ROWS = 4

MAT_CELLS: tuple[str, ...] = tuple(f"r{r}c{c}" for r in (1, 2, 3) for c in (1, 2, 3))
"""The 3×3 player mat in reading order (§2.5)."""

LINES: tuple[str, ...] = ("row1", "row2", "row3", "col1", "col2", "col3")
"""Mat lines in the autopilot's order (§2.5, §11)."""


def line_cells(line: str) -> tuple[int, int, int]:
    """The mat indices (0–8, reading order) of ``line`` (``"row2"`` → (3, 4, 5)).

    Raises:
        KeyError: not a line name.
    """
    if line not in LINES:
        raise KeyError(line)
    k = int(line[3]) - 1
    if line.startswith("row"):
        return (3 * k, 3 * k + 1, 3 * k + 2)
    return (k, k + 3, k + 6)


STACK_SIZE = 3
TILES_PER_SIDE = 36
MAT_STACKS = 3
"""Stacks 1–3 start on the mat (§3 step 7)."""

START_COINS = {"reverent": 1}
"""The Reverent's start coins; the Irreverent's are the option ``irreverent_start_coins`` (§3 step 8)."""

CARD_BUY_COST = 2
ABBOT_STEP_COST = 1

SLOT_TIERS: dict[int, int] = {3: 2, 4: 4, 5: 7}
"""Tokens spent → VP (§2.6)."""

CRUSADE_VP: tuple[int, ...] = (0, 2, 5, 9, 14, 20)
"""Crusade VP by n face-down tiles of the named faction, index 5 meaning 5+ (§2.8)."""

BATTLE_MAJORITY_VP = 4
BATTLE_SHARED_VP = 2
"""Battle card VP (§2.9, D17)."""

CARD_KINDS: tuple[str, ...] = ("motus", "mutatio", "exilium", "porticus", "scriptum", "ritus")
CARD_COPIES: dict[str, int] = {"motus": 5, "mutatio": 3, "exilium": 4, "porticus": 3, "scriptum": 4, "ritus": 5}
"""The Scriptorium deck (§2.7)."""

CARDS: tuple[str, ...] = tuple(f"{k}-{i}" for k in CARD_KINDS for i in range(1, CARD_COPIES[k] + 1))
"""All 24 card ids, ``motus-1`` … ``ritus-5``."""


def card_kind(card: str) -> str:
    """``"motus-3"`` → ``"motus"``."""
    return card.rsplit("-", 1)[0]


CRUSADE_POOL: dict[str, tuple[str, ...]] = {
    side: tuple(f"crusade-{f}" for f in FACTIONS[other])
    for side, other in (("reverent", "irreverent"), ("irreverent", "reverent"))
}
"""A side's Crusade pool names the opponent's factions (§2.8)."""

BLANK_STATIONS: tuple[str, ...] = ("gate", "well", "cloister", "garden", "crypt")
"""Where the Abbot may start (§3 step 3)."""


@dataclass(frozen=True)
class Cell:
    """One cell of a Book (``illumination_books.csv``, §2.4).

    Attributes:
        id: ``"II-c3"``; book: ``"II"``; row: 1–4; column: ``"a"``–``"f"``.
        quill: the tile colour a quill space matches (``"grey"`` for a black quill), None
            for a text space.
        drollery: True on the three text spaces that hold a Drollery from setup.
    """

    id: str
    book: str
    row: int
    column: str
    quill: str | None
    drollery: bool


@dataclass(frozen=True)
class Tile:
    """One illumination tile (``illumination_tiles.csv``, §2.3).

    Attributes:
        id: ``"rev-angel-red-1"``; side: ``"reverent"``/``"irreverent"``;
        faction / colour: None for a coin tile.
    """

    id: str
    side: str
    faction: str | None
    colour: str | None

    @property
    def code(self) -> str:
        """``"AnR"`` (faction code + colour letter), ``"$"`` for a coin tile."""
        if self.faction is None or self.colour is None:
            return "$"
        return FACTION_CODE[self.faction] + COLOUR_LETTER[self.colour]


@dataclass(frozen=True)
class Station:
    """A Monastery station (``illumination_monastery.csv``, §2.6)."""

    id: str
    altar: bool
    token: str | None
    row: int
    col: int
    neighbours: tuple[str, ...]


def _rows(name: str) -> list[dict[str, str]]:
    with (_HERE / name).open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _load_cells() -> dict[str, Cell]:
    cells: dict[str, Cell] = {}
    for row in _rows("illumination_books.csv"):
        quill = row["matches_tile_colour"] or None
        if row["space"] not in ("quill", "text") or (row["space"] == "quill") != (quill in COLOURS):
            raise ValueError(f"bad space in {row['cell_id']}")
        cell = Cell(row["cell_id"], row["book"], int(row["row"]), row["column"], quill,
                    row["drollery_at_setup"] == "1")
        if cell.id != f"{cell.book}-{cell.column}{cell.row}" or cell.book not in BOOKS:
            raise ValueError(f"bad cell id {cell.id}")
        if cell.drollery and cell.quill is not None:
            raise ValueError(f"the Drollery on {cell.id} must sit on a text space")
        cells[cell.id] = cell
    if len(cells) != len(BOOKS) * ROWS * len(COLUMNS):
        raise ValueError("illumination_books.csv must hold 72 cells")
    if sum(c.quill is not None for c in cells.values()) != 54:
        raise ValueError("illumination_books.csv must hold 54 quill spaces")
    for book in BOOKS:
        if sum(c.drollery for c in cells.values() if c.book == book) != 1:
            raise ValueError(f"Book {book} must hold one Drollery")
    return cells


def _load_tiles() -> dict[str, Tile]:
    tiles: dict[str, Tile] = {}
    for row in _rows("illumination_tiles.csv"):
        side = row["owner"]
        tile = Tile(row["tile_id"], side, row["faction"] or None, row["colour"] or None)
        if side not in SIDES or not tile.id.startswith(SIDE_PREFIX[side] + "-"):
            raise ValueError(f"bad owner of {tile.id}")
        if row["kind"] == "faction":
            if tile.faction not in FACTIONS[side] or tile.colour not in COLOURS:
                raise ValueError(f"bad faction tile {tile.id}")
        elif row["kind"] != "coin" or tile.faction or tile.colour:
            raise ValueError(f"bad coin tile {tile.id}")
        tiles[tile.id] = tile
    for side in SIDES:
        own = [t for t in tiles.values() if t.side == side]
        if len(own) != TILES_PER_SIDE or sum(t.faction is None for t in own) != 4:
            raise ValueError(f"{side} must own 36 tiles, 4 of them coin tiles")
    return tiles


def _load_stations() -> dict[str, Station]:
    stations: dict[str, Station] = {}
    for row in _rows("illumination_monastery.csv"):
        stations[row["station_id"]] = Station(row["station_id"], row["kind"] == "altar", row["token"] or None,
                                              int(row["grid_row"]), int(row["grid_col"]),
                                              tuple(row["neighbours"].split(";")))
    for s in stations.values():
        if any(s.id not in stations[n].neighbours for n in s.neighbours):
            raise ValueError(f"Monastery edges of {s.id} are not symmetric")
    if sorted(s.token for s in stations.values() if s.altar) != sorted(TOKENS):  # type: ignore[type-var]
        raise ValueError("the Monastery needs one altar per token")
    return stations


CELLS: dict[str, Cell] = _load_cells()
BOOK_CELLS: dict[str, tuple[str, ...]] = {
    b: tuple(c.id for c in sorted((c for c in CELLS.values() if c.book == b), key=lambda c: (c.row, c.column)))
    for b in BOOKS
}
"""Each Book's cells in reading order (rows 1→4, columns a→f)."""

CELL_ORDER: dict[str, int] = {c: i for b in BOOKS for i, c in enumerate(BOOK_CELLS[b], start=100 * BOOK_INDEX[b])}
"""Global reading order of cells (Book I first)."""

DROLLERIES: frozenset[str] = frozenset(c.id for c in CELLS.values() if c.drollery)


def _neighbours(cell: Cell) -> tuple[str, ...]:
    col = COLUMNS.index(cell.column)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        r, c = cell.row + dr, col + dc
        if 1 <= r <= ROWS and 0 <= c < len(COLUMNS):
            out.append(f"{cell.book}-{COLUMNS[c]}{r}")
    return tuple(out)


NEIGHBOURS: dict[str, tuple[str, ...]] = {c.id: _neighbours(c) for c in CELLS.values()}
TILES: dict[str, Tile] = _load_tiles()
SIDE_TILES: dict[str, tuple[str, ...]] = {s: tuple(t for t in TILES if TILES[t].side == s) for s in SIDES}
STATIONS: dict[str, Station] = _load_stations()
ALTARS: tuple[str, ...] = tuple(s.id for s in STATIONS.values() if s.altar)
ALTAR_OF_TOKEN: dict[str, str] = {str(s.token): s.id for s in STATIONS.values() if s.altar}
SLOTS: tuple[str, ...] = tuple(f"{a}-{n}" for a in ALTARS for n in SLOT_TIERS)
"""The 12 scoring slots, ``bell-3`` … ``wine-5`` (§2.6)."""


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("line_mapping", "mirrored", choices=("mirrored", "same"),
               description="mirrored: each player counts Books from their own seat; same: line k feeds Book k."),
    OptionSpec("abbot_start", "random_blank", choices=("random_blank", "cloister"),
               description="The Abbot starts on a random blank station, or on the cloister."),
    OptionSpec("exilium_timeout", 0, kind="int", minimum=0, maximum=10080,
               description="Minutes the opponent has to answer an Exilium; 0 = the game's move timer."),
    OptionSpec("irreverent_start_coins", "5", choices=("5", "6"),
               description="The Irreverent's start coins (balance lever; 5 is the seed's value)."),
    OptionSpec("sides", "random", choices=("random", "host"),
               description="Who is the Reverent: random, or chosen by seat A (the lobby's host)."),
)
"""The option schema (§1 Options), defaults first."""

PREFERENCES: tuple[OptionSpec, ...] = (
    OptionSpec("auto_discard", True, kind="bool",
               description="When all your items are of one kind, discard down to 7 at once; off: you are asked."),
    OptionSpec("auto_end", True, kind="bool",
               description="End your turn at once when nothing else is legal (no undo then); off: you are asked."),
)
"""The per-player preferences (§1 Preferences)."""
