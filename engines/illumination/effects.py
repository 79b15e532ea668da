"""The Scriptorium cards (spec docs/rules/illumination.md §2.7, §5.3): one table entry per card.

``EFFECTS[kind]`` is an ``Effect``: ``options(state, seat)`` lists the parameter dicts of every
legal play of that card in a deterministic order (merged into ``{"type": "play", "card": kind}``
by the engine), and ``resolve(state, seat, action)`` carries it out on the engine's working copy
and returns the events. The card itself goes to the discard pile in the engine.

Action shapes (``"type": "play"`` omitted):

* ``{"card": "motus", "from": "II-f2", "to": "III-f1"}`` / ``{"card": "motus", "altar": "bread"}``
* ``{"card": "mutatio", "cells": ["r1c1", "r2c1"]}``
* ``{"card": "exilium", "from": "III-c4", "book": "III"}``
* ``{"card": "porticus", "lines": ["col2", "col3"]}``
* ``{"card": "scriptum", "tile": "rev-angel-white-1", "cell": "I-d2"}``
* ``{"card": "ritus", "token": "candle"}``
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engines.base import Action, Event, seat_ref, term
from engines.illumination.types import State

from .data import ALTARS, BOOKS, CELL_ORDER, CELLS, LINES, MAT_CELLS, TOKENS, line_cells
from .notation import battle_events, mat_cell_json, reward_json, square_json, tile_json
from .rules import (
    empty_quills,
    empty_texts,
    exile_cells,
    exile_of,
    face_up,
    is_open,
    land,
    owner,
    resolve_battles,
    staged_choices,
    tile_of,
)

Options = Callable[[State, int], list[Action]]
Resolve = Callable[[State, int, Action], list[Event]]


@dataclass(frozen=True)
class Effect:
    """One Scriptorium card: its legal parameters and its resolution (§5.3)."""

    kind: str
    options: Options
    resolve: Resolve


def _own_tiles_in_open_books(state: State, seat: int, *, own: bool) -> list[str]:
    """Cells holding a face-up tile of ``seat`` (``own``) or of the opponent, in open Books (D23)."""
    out = []
    for cell in sorted(state["board"], key=CELL_ORDER.__getitem__):
        tile = face_up(state, cell)
        if tile is not None and (owner(state, tile) == seat) == own and is_open(state, CELLS[cell].book):
            out.append(cell)
    return out


# --------------------------------------------------------------------------- Motus


def _motus_options(state: State, seat: int) -> list[Action]:
    out: list[Action] = []
    targets = [c for b in BOOKS for c in empty_quills(state, b)]
    for src in _own_tiles_in_open_books(state, seat, own=True):
        out += [{"from": src, "to": dst} for dst in targets if dst != src]
    out += [{"altar": a} for a in ALTARS]
    return out


def _motus_resolve(state: State, seat: int, action: Action) -> list[Event]:
    if "altar" in action:
        state["abbot"] = action["altar"]
        return [Event("motus_abbot", params={"seat": seat_ref(seat), "station": term(f"station.{action['altar']}")})]
    src, dst = action["from"], action["to"]
    tile = tile_of(state["board"].pop(src))
    paid = land(state, tile, dst)
    events = [Event("motus_tile", params={"seat": seat_ref(seat), "tile": tile_json(tile),
                                          "from": square_json(src), "to": square_json(dst), "reward": reward_json(*paid)})]
    return events + battle_events(state, resolve_battles(state, (CELLS[dst].book,)))


# --------------------------------------------------------------------------- Mutatio, Porticus


def _mutatio_options(state: State, seat: int) -> list[Action]:
    mat = state["mats"][seat]
    full = [i for i in range(9) if mat[i] is not None]
    return [{"cells": [MAT_CELLS[a], MAT_CELLS[b]]} for i, a in enumerate(full) for b in full[i + 1:]]


def _mutatio_resolve(state: State, seat: int, action: Action) -> list[Event]:
    a, b = (MAT_CELLS.index(c) for c in action["cells"])
    mat = state["mats"][seat]
    mat[a], mat[b] = mat[b], mat[a]
    return [Event("mutatio", params={"seat": seat_ref(seat), "a": mat_cell_json(action["cells"][0]),
                                     "b": mat_cell_json(action["cells"][1])})]


def _porticus_options(state: State, seat: int) -> list[Action]:
    rows, cols = LINES[:3], LINES[3:]
    return [{"lines": [x[i], x[j]]} for x in (rows, cols) for i in range(3) for j in range(i + 1, 3)]


def _porticus_resolve(state: State, seat: int, action: Action) -> list[Event]:
    mat = state["mats"][seat]
    first, second = (line_cells(line) for line in action["lines"])
    for a, b in zip(first, second, strict=True):
        mat[a], mat[b] = mat[b], mat[a]
    a_line, b_line = action["lines"]
    return [Event("porticus", params={"seat": seat_ref(seat), "a": term(f"line.{a_line}"),
                                      "b": term(f"line.{b_line}")})]


# --------------------------------------------------------------------------- Exilium


def _exilium_options(state: State, seat: int) -> list[Action]:
    out: list[Action] = []
    for src in _own_tiles_in_open_books(state, seat, own=False):
        out += [{"from": src, "book": b} for b in BOOKS if [c for c in empty_quills(state, b) if c != src]]
    return out


def _exilium_resolve(state: State, seat: int, action: Action) -> list[Event]:
    src = action["from"]
    tile = tile_of(state["board"].pop(src))
    state["exile"] = {"tile": tile, "from": src, "book": action["book"]}
    events = [Event("exilium", params={"seat": seat_ref(seat), "tile": tile_json(tile), "from": square_json(src),
                                       "book": action["book"], "owner": seat_ref(1 - seat)})]
    cells = exile_cells(state)
    if len(cells) == 1:  # a single legal cell is chosen without a prompt (§11)
        events += land_exile(state, cells[0])
    else:
        state["phase"] = "exile"
    return events


def land_exile(state: State, cell: str) -> list[Event]:
    """The exiled tile lands on ``cell``; its owner collects the rewards; one battle check; the
    card player's MAIN resumes (§5.3 Exilium). Changes the working copy."""
    exile = exile_of(state)
    tile = exile["tile"]
    paid = land(state, tile, cell)
    state["exile"] = None
    state["phase"] = "main"
    events = [Event("exile_land", params={"seat": seat_ref(owner(state, tile)), "tile": tile_json(tile),
                                          "cell": square_json(cell), "reward": reward_json(*paid)})]
    return events + battle_events(state, resolve_battles(state, (CELLS[cell].book,)))


# --------------------------------------------------------------------------- Scriptum, Ritus


def _scriptum_options(state: State, seat: int) -> list[Action]:
    out: list[Action] = []
    for tile, book in staged_choices(state):
        if is_open(state, book):
            out += [{"tile": tile, "cell": c} for c in empty_texts(state, book)]
    return out


def _scriptum_resolve(state: State, seat: int, action: Action) -> list[Event]:
    tile, cell = action["tile"], action["cell"]
    state["staged"] = [s for s in state["staged"] if s[0] != tile]
    paid = land(state, tile, cell, quill_coin=False)
    events = [Event("scriptum", params={"seat": seat_ref(seat), "tile": tile_json(tile),
                                        "cell": square_json(cell), "reward": reward_json(*paid)})]
    return events + battle_events(state, resolve_battles(state, (CELLS[cell].book,)))


def _ritus_options(state: State, seat: int) -> list[Action]:
    return [{"token": t} for t in TOKENS]


def _ritus_resolve(state: State, seat: int, action: Action) -> list[Event]:
    state["tokens"][seat][action["token"]] += 1
    return [Event("ritus", params={"seat": seat_ref(seat), "token": term(f"token.{action['token']}")})]


EFFECTS: dict[str, Effect] = {
    "motus": Effect("motus", _motus_options, _motus_resolve),
    "mutatio": Effect("mutatio", _mutatio_options, _mutatio_resolve),
    "exilium": Effect("exilium", _exilium_options, _exilium_resolve),
    "porticus": Effect("porticus", _porticus_options, _porticus_resolve),
    "scriptum": Effect("scriptum", _scriptum_options, _scriptum_resolve),
    "ritus": Effect("ritus", _ritus_options, _ritus_resolve),
}
"""Card kind → its effect (§5.3), in the deck's order."""
