"""Notation and text of Illumination (spec docs/rules/illumination.md §2.4 cell names, §11 turn UI).

``describe_action`` gives the canonical short notation (``AnR II-b3``, ``row1``, ``motus II-f2
III-f1``, ``exchange candle-5``); ``parse_action`` reads it back with the spec's spellings of
cells (``2b3``, ``ii c3``, ``II-C3`` are all ``II-b3``) and a bare cell for a placement.
Labels, hints, steps (``action_path``) and prompts are ``Msg`` values; their English is in
``bot/text/en/illumination.toml``. Event builders shared by the engine and the card effects
(``tile_msg``, ``reward_msg``, ``battle_events``) live here too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engines.base import (
    CHANCE,
    JSON,
    Action,
    Event,
    IllegalAction,
    JSONObject,
    Msg,
    Seat,
    Text,
    msg,
    seat_letter,
    seat_ref,
    term,
)
from engines.illumination.types import Battle, State
from engines.illumination.view import PrivateView, PublicView
from engines.notation import GameNotation

from .data import CARD_BUY_COST, CELLS, COIN_TILE_VALUE, MAT_CELLS, SLOT_TIERS, TILES, line_cells
from .rules import (
    activatable_lines,
    altar_token,
    empty_quills,
    exile_of,
    first_tile,
    is_open,
    items,
    land,
    line_book,
    line_tiles,
    numbered_squares,
    over_limit,
    redirect_cost,
    resolve_battles,
    rewards,
    seat_of,
    slot_parts,
    staged_choices,
    tile_of,
)

_CELL = re.compile(r"(?<![a-z0-9])(iii|ii|i|[123])\s*-?\s*([a-f])\s*([1-4])(?![a-z0-9])")
_BOOK_OF = {"1": "I", "2": "II", "3": "III", "i": "I", "ii": "II", "iii": "III"}


def canonical_cells(text: str) -> str:
    """``text`` lower-cased with every cell name in canonical form (``"2b3"`` → ``"ii-b3"``) and
    single spaces (§2.4: case-insensitive, separator optional, 1/2/3 for I/II/III)."""
    low = re.sub(r"\s+", " ", text.strip().lower())
    return _CELL.sub(lambda m: f"{_BOOK_OF[m.group(1)].lower()}-{m.group(2)}{m.group(3)}", low)


# --------------------------------------------------------------------------- message parts


def tile_json(tile: str) -> JSONObject:
    """``Angel/red`` as a nested message parameter (``Msg.to_json`` form, built directly: events
    are made on every move); a coin tile is ``coin tile``."""
    t = TILES[tile]
    if t.faction is None:
        return {"msg": "tile_coin", "params": {}}
    return {"msg": "tile", "params": {"faction": {"term": f"faction.{t.faction}"},
                                      "colour": {"term": f"colour.{t.colour}"}, "code": t.code}}


def square_json(cell: str) -> JSONObject:
    """A Book's square as the board shows it, for a log line: ``Book II, row 3, column 2``
    (rows counted from the top, columns from the left: the board draws no coordinates, and the
    numbers of a decision picture last only for that decision); the parameter of an event that
    names a square."""
    c = CELLS[cell]
    return {"msg": "square", "params": {"book": c.book, "row": c.row, "col": "abcdef".index(c.column) + 1}}


def mat_cell_json(cell: str) -> JSONObject:
    """A cell of a player's mat (``r1c2``) by its row and column in words: ``Row 1, Col 2``
    (§2.5; the lines' names the mat and the panel use)."""
    return {"msg": "mat_cell", "params": {"row": {"term": f"line.row{cell[1]}"}, "col": {"term": f"line.col{cell[3]}"}}}


def tile_msg(tile: str) -> Msg:
    """``tile_json`` as a ``Msg``."""
    return Msg.from_json(tile_json(tile))


def reward_json(coins: int, tokens: int, token: str) -> JSONObject:
    """``+1 coin, +1 bread`` (or ``no reward``) as a nested message parameter (§5.2)."""
    items: list[JSON] = []
    if coins:
        items.append({"msg": "reward.coins", "params": {"n": coins, "unit": {"term": "coin" if coins == 1 else "coins"}}})
    if tokens:
        items.append({"msg": "reward.tokens", "params": {"n": tokens, "token": {"term": f"token.{token}"}}})
    return {"msg": "reward.list", "params": {"items": items}} if items else {"msg": "reward.none", "params": {}}


def items_json(chosen: dict[str, int]) -> list[JSONObject]:
    """``{"bell": 2, "coin": 1}`` as a list parameter: ``2 bell, 1 coin``."""
    out: list[JSONObject] = []
    for item, n in chosen.items():
        key = ("coins" if n > 1 else "coin") if item == "coin" else f"token.{item}"
        out.append({"msg": "item_count", "params": {"n": n, "item": {"term": key}}})
    return out


def reward_msg(coins: int, tokens: int, token: str) -> Msg:
    """``reward_json`` as a ``Msg`` (the hint of a landing)."""
    return Msg.from_json(reward_json(coins, tokens, token))


def battle_events(state: State, battles: list[Battle]) -> list[Event]:
    """One public ``battle`` event per resolved battle (§4.3; §11 log lines)."""
    out = []
    for b in battles:
        w, lo = b["winner"], b["loser"]
        faction = TILES[tile_of(state["board"][b["flipped"][0]])].faction
        out.append(Event("battle", params={
            "pair": term(f"pair.{b['pair']}"), "book": b["book"], "winner": seat_ref(w), "loser": seat_ref(lo),
            "won": b["counts"][w], "lost": b["counts"][lo], "flipped": len(b["flipped"]),
            "faction": term(f"faction.{faction}"), "cells": list(b["flipped"])}))
    return out


# --------------------------------------------------------------------------- notation


def _code(tile: str) -> str:
    return TILES[tile].code


def describe_action(state: State, action: Action) -> str:
    """Canonical notation of ``action`` (round-trips through ``parse_action``)."""
    t = action.get("type")
    if t == "place":
        return f"{_code(action['tile'])} {action['cell']}"
    if t == "place_end":
        return f"{_code(action['tile'])} {action['cell']} end"
    if t == "activate":
        return str(action["line"])
    if t == "activate_place":
        return f"{action['line']} {_code(action['tile'])} {action['cell']}"
    if t == "redirect":
        src = next((b for tile, b in state["staged"] if tile == action["tile"]), "?")
        return f"{_code(action['tile'])} {src}>{action['book']}"
    if t == "abbot":
        return f"abbot {action['station']}"
    if t == "exchange":
        return f"exchange {action['slot']}"
    if t == "discard":
        return f"discard {action['item']}"
    if t == "discard_set":
        return "discard " + " ".join(f"{n} {item}" for item, n in action["items"].items())
    if t == "exile":
        return str(action["cell"])
    if t == "choose_side":
        return f"reverent {seat_letter(action['reverent'])}"
    if t == "play":
        card = action["card"]
        if card == "motus":
            return f"motus {action['altar']}" if "altar" in action else f"motus {action['from']} {action['to']}"
        if card in ("mutatio", "porticus"):
            a, b = action["cells" if card == "mutatio" else "lines"]
            return f"{card} {a} {b}"
        if card == "exilium":
            return f"exilium {action['from']} {action['book']}"
        if card == "scriptum":
            return f"scriptum {_code(action['tile'])} {action['cell']}"
        return f"ritus {action['token']}"
    if t in ("pass", "confirm_pass", "cancel_pass", "buy", "end_turn"):
        return {"pass": "pass", "confirm_pass": "pass confirm", "cancel_pass": "pass cancel", "buy": "buy",
                "end_turn": "end"}[t]
    # chance outcomes
    if t == "assign_sides":
        return f"sides {seat_letter(action['reverent'])}"
    if t == "abbot_start":
        return f"abbot start {action['station']}"
    if t == "deal_crusade":
        return f"crusade {seat_letter(action['seat'])} {action['card']}"
    if t == "shuffle_tiles":
        return f"tiles {seat_letter(action['seat'])}"
    return str(t)


def parse_action(state: State, legal: list[Action], text: str) -> Action:
    """The legal action ``text`` names (spellings of §2.4; a bare cell places the one staged tile
    that may go there).

    Raises:
        IllegalAction: nothing matches (``unknown_move``), or a bare cell fits several staged
            tiles (``ambiguous_move``).
    """
    wanted = canonical_cells(text)
    for action in legal:
        if canonical_cells(describe_action(state, action)) == wanted:
            return dict(action)
    if re.fullmatch(r"(i|ii|iii)-[a-f][1-4]", wanted):
        hits = [a for a in legal if a.get("type") == "place" and a["cell"].lower() == wanted]  # (not place_end)
        if len(hits) == 1:
            return dict(hits[0])
        if len({_code(a["tile"]) for a in hits}) > 1:
            raise IllegalAction(f"Several staged tiles can go to {text.strip()}; name the tile too, e.g. "
                                f"'{describe_action(state, hits[0])}'.", code="ambiguous_move", text=text,
                                example=describe_action(state, hits[0]))
    raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)


# --------------------------------------------------------------------------- labels, hints, paths


def _staged_book(state: State, tile: str) -> str:
    return str(next(b for t, b in state["staged"] if t == tile))


def action_label(state: State, action: Action, lines: _Lines | None = None) -> Msg:
    """The button/select label of ``action`` (§11 turn UI), English ≤ 80 characters. ``lines``:
    ``state``'s lines, when worked out already (``action_labels_of``)."""
    t = action.get("type")
    if t == "activate":
        return activate_label(state, action["line"])
    if t in ("activate_place", "place", "place_end", "exile"):
        lines = lines or _Lines(state)
    if t == "activate_place":
        assert lines is not None
        after = lines.activated(action["line"])  # (numbered on the turn-start picture: one number per square)
        return msg("label.activate_place", line=term(f"line.{action['line']}"), n=lines.number(action["cell"]),
                   tile=tile_msg(action["tile"]), outcome=place_outcome(after, action["tile"], action["cell"]))
    if t == "place":
        assert lines is not None
        n = lines.number(action["cell"])
        outcome = place_outcome(state, action["tile"], action["cell"])
        if action["tile"] != lines.lead():  # (the prompt names the first tile)
            return msg("label.place_tile", n=n, tile=tile_msg(action["tile"]), outcome=outcome)
        return msg("label.place", n=n, outcome=outcome)
    if t == "place_end":
        assert lines is not None
        n = lines.number(action["cell"])
        outcome = place_outcome(state, action["tile"], action["cell"])
        left = sum(1 for tile, _ in state["staged"] if tile != action["tile"])
        if left:
            return msg("label.place_end_sheepfold", n=n, outcome=outcome, k=left)
        return msg("label.place_end", n=n, outcome=outcome)
    if t == "redirect":
        src = _staged_book(state, action["tile"])
        return msg("label.redirect", tile=tile_msg(action["tile"]), src=src, dst=action["book"],
                   cost=redirect_cost(src, action["book"]))
    if t == "abbot":
        return msg("label.abbot", station=term(f"station.{action['station']}"))
    if t == "buy":
        return msg("label.buy", cost=CARD_BUY_COST)
    if t == "exchange":
        altar, n = slot_parts(action["slot"])
        return msg("label.exchange", slot=term(f"station.{altar}"), n=n, token=term(f"token.{altar_token(altar)}"),
                   vp=SLOT_TIERS[n])
    if t == "end_turn":
        n = len(state["staged"])
        return msg("label.end_turn_sheepfold", n=n) if n else msg("label.end_turn")
    if t == "discard":
        return msg("label.discard", item=term("coin" if action["item"] == "coin" else f"token.{action['item']}"))
    if t == "discard_set":
        return msg("label.discard_set", items=items_json(action["items"]))
    if t == "exile":
        assert lines is not None
        return msg("label.exile", n=lines.number(action["cell"]),
                   outcome=place_outcome(state, exile_of(state)["tile"], action["cell"], exile=True))
    if t == "choose_side":
        return msg("label.choose_side", seat=seat_ref(action["reverent"]))
    if t in ("pass", "confirm_pass", "cancel_pass"):
        return msg(f"label.{t}")
    if t == "play":
        return _card_label(state, action, lines or _Lines(state))
    return Msg("host.notation", {"text": describe_action(state, action)})


def activate_label(state: State, line: str) -> Msg:
    """``line``, the Book it feeds and what it stages (its coin tiles as coins)."""
    seat = seat_of(state["active"])
    tiles = line_tiles(state, seat, line)
    coins = COIN_TILE_VALUE * sum(1 for tile in tiles if TILES[tile].faction is None)
    what: list[JSONObject] = [tile_json(tile) for tile in tiles if TILES[tile].faction is not None]
    if coins:
        what.append({"msg": "reward.coins", "params": {"n": coins, "unit": {"term": "coins"}}})
    return msg("label.activate", line=term(f"line.{line}"), book=line_book(state, seat, line), tiles=what)


def _activated(state: State, line: str) -> State:
    """``state`` after the active seat activates ``line`` (the first half of ``activate_place``):
    the mats and the staged tiles copied, the rest shared with ``state`` (read only)."""
    seat = seat_of(state["active"])
    after = state.copy()
    after["mats"] = [list(m) for m in state["mats"]]
    after["staged"] = [list(t) for t in state["staged"]]
    book = line_book(after, seat, line)
    for i in line_cells(line):
        tile = after["mats"][seat][i]
        after["mats"][seat][i] = None
        if tile is not None and TILES[tile].faction is not None:
            after["staged"].append([tile, book])
    after["phase"] = "main"
    return after


FLAT_SQUARES = 22
"""At most this many ``activate_place`` actions stand at the top of the turn-start panel, beside
Pass and the step to activate only, within one select of 24 options; more are grouped by line."""


class _Lines:
    """The lines of the active seat's mat in ``state``, each worked out once: the state after
    activating it (``_activated``), its ``line_squares`` and ``best_square``, and whether a panel
    groups the squares by line. A panel asks the same of every square of a line (an Illumination
    turn start has up to some 50 ``activate_place`` actions), so ``action_labels_of`` and
    ``action_paths_of`` share one per decision. ``state`` must not change while one is in use."""

    def __init__(self, state: State) -> None:
        self.state = state
        self._after: dict[str, State] = {}
        self._squares: dict[str, tuple[str, list[str]] | None] = {}
        self._best: dict[str, str | None] = {}
        self._grouped: bool | None = None
        self._labels: dict[str, Msg] = {}
        self._numbers: dict[str, int] | None = None
        self._lead: tuple[str | None] | None = None
        self._ending: list[tuple[str, str]] | None = None

    def activated(self, line: str) -> State:
        """``_activated(state, line)`` (shared: read only)."""
        after = self._after.get(line)
        if after is None:
            after = self._after[line] = _activated(self.state, line)
        return after

    def squares(self, line: str) -> tuple[str, list[str]] | None:
        """``line_squares(state, line)``."""
        if line not in self._squares:
            seat = seat_of(self.state["active"])
            tile = first_tile(self.state, seat, line)
            self._squares[line] = (None if tile is None
                                   else (tile, empty_quills(self.state, line_book(self.state, seat, line))))
        return self._squares[line]

    def best(self, line: str) -> str | None:
        """``best_square(state, line)``."""
        if line not in self._best:
            squares = self.squares(line)
            if squares is None:
                self._best[line] = None
            else:
                tile, cells = squares
                after = self.activated(line)
                gains = [sum(rewards(after, tile, cell)[:2]) for cell in cells]
                self._best[line] = cells[gains.index(max(gains))]
        return self._best[line]

    def label(self, line: str) -> Msg:
        """``activate_label(state, line)`` (shared: read only)."""
        said = self._labels.get(line)
        if said is None:
            said = self._labels[line] = activate_label(self.state, line)
        return said

    def number(self, cell: str) -> int | str:
        """``picture_number(state, cell)``."""
        if self._numbers is None:
            self._numbers = {c: n for n, c in reversed(list(enumerate(numbered_squares(self.state), start=1)))}
        return self._numbers.get(cell, cell)

    def lead(self) -> str | None:
        """The first placeable tile (``placeable_tiles``), None when there is none."""
        if self._lead is None:
            placeable = placeable_tiles(self.state)
            self._lead = (placeable[0][0] if placeable else None,)
        return self._lead[0]

    def ending(self) -> list[tuple[str, str]]:
        """``_ending_tiles(state)``."""
        if self._ending is None:
            self._ending = _ending_tiles(self.state)
        return self._ending

    def grouped(self) -> bool:
        """Whether the turn-start panel groups the squares by line (more than ``FLAT_SQUARES``)."""
        if self._grouped is None:
            squares = (self.squares(line) for line in activatable_lines(self.state, seat_of(self.state["active"])))
            self._grouped = sum(len(s[1]) for s in squares if s is not None) > FLAT_SQUARES
        return self._grouped


_LAST_LINES: list[_Lines] = []
"""The ``_Lines`` of the state whose decisions were labelled last (``_lines_of``)."""


def _lines_of(state: State) -> _Lines:
    """``_Lines(state)``, shared by the calls on the very same state object one after the other
    (a decision tree's paths, then the labels of each decision it shows): states are read only
    (``GameService.state``), and the one kept holds its state, so its id is not reused."""
    if _LAST_LINES and _LAST_LINES[0].state is state:
        return _LAST_LINES[0]
    lines = _Lines(state)
    _LAST_LINES[:] = [lines]
    return lines


def line_squares(state: State, line: str) -> tuple[str, list[str]] | None:
    """The first tile ``line`` would stage (``placeable_tiles`` after activating it) and the empty
    quill spaces of its Book, in reading order; None when the line stages no tile to place."""
    return _Lines(state).squares(line)


def best_square(state: State, line: str) -> str | None:
    """The square of ``line_squares`` where the tile earns most (coins + tokens, §5.2), the first
    in numbering on a tie (the decision picture's star); None when the line places no tile."""
    return _Lines(state).best(line)


def picture_number(state: State, cell: str) -> int | str:
    """The number of ``cell`` on the decision picture (``rules.numbered_squares``: what the
    cards in hand may pick is numbered there too); the cell's name if it is not on it."""
    squares = numbered_squares(state)
    return squares.index(cell) + 1 if cell in squares else cell


def mat_place(state: State, cell: str) -> Msg:
    """A cell of the active seat's mat by its tile and its row and column in words
    (``Angel/red (Row 1, Col 2)``), as the board draws the mat: no ``r1c2`` code."""
    tile = state["mats"][seat_of(state["active"])][MAT_CELLS.index(cell)]
    what = tile_msg(tile) if tile is not None else msg("tile_none")
    return msg("mat_place", tile=what, row=term(f"line.row{cell[1]}"), col=term(f"line.col{cell[3]}"))


def _card_label(state: State, action: Action, lines: _Lines) -> Msg:
    card = action["card"]
    if card == "motus":
        if "altar" in action:
            return msg("label.motus_abbot", station=term(f"station.{action['altar']}"))
        tile = tile_of(state["board"][action["from"]])
        return msg("label.motus_tile", tile=tile_msg(tile), src=lines.number(action["from"]),
                   dst=lines.number(action["to"]))
    if card == "mutatio":
        a, b = action["cells"]
        return msg("label.mutatio", a=mat_place(state, a), b=mat_place(state, b))
    if card == "porticus":
        a, b = action["lines"]
        return msg("label.porticus", a=term(f"line.{a}"), b=term(f"line.{b}"))
    if card == "exilium":
        tile = tile_of(state["board"][action["from"]])
        return msg("label.exilium", tile=tile_msg(tile), src=lines.number(action["from"]), book=action["book"])
    if card == "scriptum":
        return msg("label.scriptum", tile=tile_msg(action["tile"]), cell=lines.number(action["cell"]))
    return msg("label.ritus", token=term(f"token.{action['token']}"))


def placeable_tiles(state: State) -> list[tuple[str, str]]:
    """The staged tiles that may still be placed, one per kind of tile and Book (``staged_choices``
    at open Books); the first is the one the panel offers first (``action_path``)."""
    return [(t, b) for t, b in staged_choices(state) if is_open(state, b)]


def _ending_tiles(state: State) -> list[tuple[str, str]]:
    """The placeable tiles whose every placement may also end the turn (``place_end``): the
    last tile to place (its Book's other staged tiles, if any, wait in closed Books)."""
    placeable = placeable_tiles(state)
    if len(placeable) != 1:
        return []
    tile, _ = placeable[0]
    return placeable if not any(t != tile and is_open(state, b) for t, b in state["staged"]) else []


def _trial(state: State) -> State:
    """A copy of ``state`` for ``place_outcome`` to land a tile on and settle its battles in:
    what those change copied (the board's mapping, whose entries they replace and never change:
    ``land``, ``resolve_battles``; coins, tokens, markers; the staged tiles), the rest (the
    deck, the hands, the mats, ...) shared and only read."""
    trial = state.copy()
    trial["board"] = dict(state["board"])
    trial["coins"] = list(state["coins"])
    trial["tokens"] = [dict(t) for t in state["tokens"]]
    trial["markers"] = {p: list(v) for p, v in state["markers"].items()}
    return trial


def place_outcome(state: State, tile: str, cell: str, *, exile: bool = False) -> Msg:
    """What landing ``tile`` on ``cell`` does, in a few words for its button (§5.2, §4.3): the
    reward, the battle it settles (won or lost, from the tile owner's side; several as a count of
    each) and the Book it closes: ``+1 coin, +1 bread, wins a battle``."""
    trial = _trial(state)
    if exile:
        trial["board"].pop(exile_of(trial)["from"], None)
    trial["staged"] = [s for s in trial["staged"] if s[0] != tile]
    paid = land(trial, tile, cell)
    seat = seat_of(trial["reverent"]) if TILES[tile].side == "reverent" else 1 - seat_of(trial["reverent"])
    parts: list[Msg] = []
    coins, tokens, token = paid
    if coins:
        parts.append(msg("reward.coins", n=coins, unit=term("coin" if coins == 1 else "coins")))
    if tokens:
        parts.append(msg("reward.tokens", n=tokens, token=term(f"token.{token}")))
    book = CELLS[cell].book
    battles = resolve_battles(trial, (book,))
    if len(battles) == 1:
        key = "outcome.wins" if battles[0]["winner"] == seat else "outcome.loses"
        parts.append(msg(key))
    elif battles:
        won = sum(b["winner"] == seat for b in battles)
        parts.append(msg("outcome.battles", won=won, lost=len(battles) - won))
    if not is_open(trial, book):
        parts.append(msg("outcome.closes", book=book))
    return msg("outcome.list", items=[p.to_json() for p in parts]) if parts else msg("reward.none")


def action_hint(state: State, action: Action) -> Msg | None:
    """The cost of an Abbot step, the reward of a card's landing (Motus, Scriptum); None for
    other actions (a placement's outcome is in its label)."""
    t = action.get("type")
    if t == "play" and action["card"] == "motus" and "to" in action:
        tile = tile_of(state["board"][action["from"]])
        lifted = state.copy()
        lifted["board"] = {c: v for c, v in state["board"].items() if c != action["from"]}
        return reward_msg(*rewards(lifted, tile, action["to"]))
    if t == "play" and action["card"] == "scriptum":
        return reward_msg(*rewards(state, action["tile"], action["cell"], quill_coin=False))
    return None


def action_path(state: State, action: Action, lines: _Lines | None = None) -> tuple[Msg, ...]:
    """The steps before ``action`` in a long panel (§11): the first placeable tile's numbered
    squares at the top, a step for each other staged tile;
    Redirect; Abbot; Exchange; Play card → card → (Book → tile → Book) for Motus and
    Exilium, so no list exceeds 24 options. ``lines``: ``state``'s lines, when worked out
    already (``action_paths_of``)."""
    t = action.get("type")
    if t == "activate":  # activating without placing: one step down (``activate_place`` is at the top)
        return (msg("step.activate"),)
    if t == "activate_place":  # each line's first tile's squares: at the top, or its best one and a step
        lines = lines or _Lines(state)
        if not lines.grouped() or action["cell"] == lines.best(action["line"]):
            return ()  # (grouped: each line's best square stays at the top)
        return (lines.label(action["line"]),)
    if t == "place_end":  # the last tile's squares, ending the turn, at the top of the panel
        return ()
    if t == "place":
        lines = lines or _Lines(state)
        lead = lines.lead()
        if any(a_tile == action["tile"] for a_tile, _ in lines.ending()):
            return (msg("step.place_keep"),)  # placing it without ending the turn: one step down
        if action["tile"] == lead:  # the first tile's squares at the top of the panel
            return ()
        return (msg("step.place", tile=tile_msg(action["tile"]), book=CELLS[action["cell"]].book),)
    if t == "redirect":  # (its label names the tile and both Books: at most 3 tiles × 2 Books)
        return (msg("step.redirect"),)
    if t in ("abbot", "exchange"):
        return (msg(f"step.{t}"),)
    if t != "play":
        return ()
    card, play = action["card"], msg("step.play")
    if card == "motus" and "from" in action:
        src = action["from"]
        tile = tile_of(state["board"][src])
        return (play, msg("step.motus_from", book=CELLS[src].book),
                msg("step.tile_on", tile=tile_msg(tile), cell=(lines or _Lines(state)).number(src)),
                msg("step.to_book", book=CELLS[action["to"]].book))
    if card == "motus":
        return (play, msg("step.motus_abbot"))
    if card == "exilium":
        src = action["from"]
        tile = tile_of(state["board"][src])
        return (play, msg("step.exilium_from", book=CELLS[src].book),
                msg("step.tile_on", tile=tile_msg(tile), cell=(lines or _Lines(state)).number(src)))
    if card == "mutatio":
        first = action["cells"][0]
        return (play, msg("step.card", card=term("card.mutatio")), msg("step.mat_cell", cell=mat_place(state, first)))
    if card == "scriptum":
        return (play, msg("step.card", card=term("card.scriptum")),
                msg("step.tile_at", tile=tile_msg(action["tile"]), book=CELLS[action["cell"]].book))
    return (play, msg("step.card", card=term(f"card.{card}")))


def prompt(state: State, seat: int) -> Msg:
    """What ``seat`` decides now (public: never names a card from a hand)."""
    phase = state["phase"]
    if phase == "setup":
        return msg("prompt.choose_side")
    if phase == "turn_start":
        return msg("prompt.turn_start")
    if phase == "confirm_pass":
        return msg("prompt.confirm_pass")
    if phase == "main":
        placeable = placeable_tiles(state)
        if not placeable:
            return msg("prompt.main_done", n=len(state["staged"]))
        tile, book = placeable[0]
        return msg("prompt.main", tile=tile_msg(tile), book=book, n=len(state["staged"]))
    if phase == "exile":
        exile = exile_of(state)
        return msg("prompt.exile", seat=seat_ref(seat_of(state["active"])), tile=tile_msg(exile["tile"]),
                   book=exile["book"])
    if phase == "discard":
        return msg("prompt.discard", items=items(state, seat), n=over_limit(state, seat))
    return Msg("host.nothing")



class IlluminationNotation(GameNotation[State, Action, PublicView | PrivateView]):
    """Illumination's notation and texts (``AnR II-b3``, ``row1``, ``exchange candle-5``), paired
    with ``IlluminationEngine`` by the registry: the functions above, as the notation protocol
    names them."""

    inline_steps = True  # (§11 Turn UI: each staged tile's squares, each line's, a select of its own)
    describe_action = staticmethod(describe_action)
    action_label = staticmethod(action_label)
    action_hint = staticmethod(action_hint)
    action_path = staticmethod(action_path)

    def action_labels_of(self, state: State, actions: Sequence[Action]) -> list[Text]:
        """``action_label`` of each of ``actions``, each line activated once for all its squares
        (and for the other decisions of ``state``: ``_lines_of``)."""
        lines = _lines_of(state)
        return [action_label(state, a, lines) for a in actions]

    def action_paths_of(self, state: State, actions: Sequence[Action]) -> list[tuple[Text, ...]]:
        """``action_path`` of each of ``actions``, each line's squares and best square worked out once."""
        lines = _lines_of(state)
        return [action_path(state, a, lines) for a in actions]

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """Parse typed notation (``II-b3``, ``2b3``, ``AnR ii c3``).

        Raises:
            GameOver, NotYourTurn: as ``apply``.
            IllegalAction: nothing or several legal moves match.
        """
        self.engine._check_can_act(state, seat)
        return parse_action(state, list(self.engine.legal_actions(state, seat)), text)

    def prompt(self, state: State, seat: Seat) -> Text:
        """What ``seat`` decides now (``prompt``)."""
        if seat == CHANCE or seat not in self.engine.to_move(state):
            return msg("host.nothing")
        return prompt(state, seat)

    def public_prompt(self, state: State, seat: Seat) -> Text:
        """``prompt``, the confirmation of a pass told as the turn start it still is: only the
        passing player's panel asks "Pass for the rest of the game?" (§11 Turn UI)."""
        if state["phase"] == "confirm_pass" and seat == state["active"]:
            return msg("prompt.turn_start")
        return self.prompt(state, seat)

    def replay_marks(self, states: Sequence[State], views: Sequence[PublicView | PrivateView]) -> list[Msg | None]:
        """Spec §4.1: the game is a sequence of turns (TURN_START → MAIN → END_OF_TURN), the
        Reverent's first (D29); a passed player's turns are skipped, so one seat may take
        several in a row. A turn begins at each position at TURN_START of another seat than
        the position before, or after one that was not at TURN_START (a cancelled pass goes
        back to TURN_START in the same turn); each position is in the turn under way, by its
        number and player (``replay.turn``), the set-up (choosing sides, the deal) in none,
        the end in ``replay.end`` (§8). (``Notation.replay_marks``)"""
        out: list[Msg | None] = []
        turn, before, active = 0, "setup", None
        for st in states:
            phase = st["phase"]
            if phase == "turn_start" and (before not in ("turn_start", "confirm_pass") or st["active"] != active):
                turn += 1
            before, active = phase, st["active"]
            if phase == "over":
                out.append(msg("replay.end"))
            else:
                out.append(msg("replay.turn", turn=turn, seat=seat_ref(seat_of(st["active"]))) if turn else None)
        return out

