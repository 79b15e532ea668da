"""Illumination state types (spec docs/rules/illumination.md; the layout is described in
``engine.py``). Plain JSON-ready dicts, typed for the checker only."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class Options(TypedDict):
    """The table options of spec §1 (``data.OPTIONS``), coerced by ``new_game``."""

    line_mapping: str  # "mirrored" (each seat counts Books from its side) or "same"
    abbot_start: str  # "random_blank" or "cloister": where the Abbot starts
    exilium_timeout: int  # minutes the opponent has to answer an Exilium; 0 = the move timer
    irreverent_start_coins: str  # "5" or "6": the Irreverent's start coins
    sides: str  # "random" or "host" (seat A chooses the Reverent)


class Draw(TypedDict):
    """A draw waiting for a reshuffle of the discard pile (§6)."""

    seat: int  # the seat that draws
    why: str  # what the card is drawn for (the give-card reason)


Exile = TypedDict("Exile", {"tile": str, "from": str, "book": str})
"""An Exilium waiting for the opponent's choice of cell (§4.1 EXILE_REACTION): the exiled
``tile`` id, the cell it came ``from`` and the ``book`` it goes to."""


class State(TypedDict):
    """An Illumination game state; seats 0 and 1."""

    game: str  # "illumination"
    state_version: int  # the engine's ``info.state_version``
    players: int  # 2
    options: Options  # the table options
    phase: str  # "setup" | "turn_start" | "confirm_pass" | "main" | "exile" | "discard" | "over"
    reverent: int | None  # the Reverent's seat (None until sides are set)
    active: int | None  # the seat whose turn it is (None during setup)
    abbot: str | None  # the Abbot's station id (None until setup places it)
    slots: dict[str, int]  # scoring slot -> the seat that took it
    markers: dict[str, list[int]]  # altar pair -> [seat 0, seat 1] marker counts
    crusade: list[str | None]  # per seat: SECRET Crusade card id
    hands: list[list[str]]  # per seat: SECRET card ids
    deck: list[str] | None  # SECRET card ids, top first (None before setup deals it)
    discard: list[str]  # card ids, oldest first
    stacks: list[list[str] | None]  # per seat: face-down tile ids in drawing order (secret to all)
    mats: list[list[str | None]]  # per seat: 9 tile ids or None, in reading order
    staged: list[list[str]]  # the active seat's staged tiles, each [tile id, book]
    board: dict[str, list[str | bool]]  # occupied cell -> [tile id, face_down]
    coins: list[int]  # per seat
    tokens: list[dict[str, int]]  # per seat: token -> count
    sheepfold: list[int]  # per seat: sheep in the sheepfold
    passed: list[bool]  # per seat: has passed this round
    draw: Draw | None  # a draw waiting for a reshuffle, else None
    exile: Exile | None  # an Exilium waiting for the opponent's cell, else None


class ConflictGroup(TypedDict):
    """A conflict group of a Book (``rules.conflict_groups``, §4.3): connected face-up tiles of
    one opposed ``pair`` holding both sides; ``cells`` in reading order, ``counts`` per seat,
    ``bounded`` when no adjacent cell is an empty quill space (D13)."""

    pair: str
    cells: list[str]
    counts: list[int]
    bounded: bool


class Battle(TypedDict):
    """A resolved battle (``rules.resolve_battles``, §4.3, D14–D16): its Book and pair, the
    winning and losing seats, the counts per seat and the cells turned face down."""

    book: str
    pair: str
    winner: int
    loser: int
    counts: list[int]
    flipped: list[str]


class ChanceEvent(TypedDict):
    """The chance event a state waits for (``chance.pending``): its ``type`` and, for a
    Crusade deal or a tile shuffle, the ``seat``."""

    type: str  # "reshuffle" | "assign_sides" | "abbot_start" | "deal_crusade" | "shuffle_tiles" | "shuffle_deck"
    seat: NotRequired[int]
