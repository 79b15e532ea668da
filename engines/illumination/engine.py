"""Illumination (闡明) rules engine (spec docs/rules/illumination.md): the protocol and the flow of a turn.

State layout (plain JSON dict; seats 0 and 1):
    game, state_version, players (2), options
    phase: ``setup`` | ``turn_start`` | ``confirm_pass`` | ``main`` | ``exile`` | ``discard`` | ``over``
    reverent: the Reverent's seat (None until sides are set); active: the seat whose turn it is
    abbot: station id; slots: slot → seat; markers: pair → [seat0, seat1]
    crusade: per seat a Crusade card id (secret) · hands: per seat card ids (secret)
    deck: card ids, top first (secret) · discard: card ids, oldest first
    stacks: per seat the face-down tile ids in drawing order (secret to everyone)
    mats: per seat 9 tile ids or None (reading order) · staged: the active seat's [[tile, book], …]
    board: occupied cell → [tile id, face_down]
    coins, tokens (token → count), sheepfold, passed: per seat
    draw: None | {"seat": s} while a reshuffle is pending for a draw by ``s``
    exile: None | {"tile", "from", "book"} while the opponent chooses an Exilium cell

Player actions (see ``notation.describe_action``): ``choose_side``, ``activate``,
``activate_place`` (an activation and the placement of the line's first tile in one action), ``pass``,
``confirm_pass``, ``cancel_pass``, ``place``, ``place_end`` (a placement and ``end_turn`` in one
action), ``redirect``, ``abbot``, ``buy``, ``exchange``,
``play`` (``effects.py``), ``end_turn``, ``discard`` (one item), ``discard_set`` (all the items
over the limit at once), ``exile``. Chance actions: ``chance.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import cast

from engines.base import (
    CHANCE,
    Action,
    EngineInfo,
    Event,
    GameEngine,
    GameOver,
    IllegalAction,
    NotYourTurn,
    Outcome,
    Seat,
    check_player_count,
    msg,
    seat_ref,
    term,
    validate_options,
)
from engines.illumination.types import Options, State

from . import chance, notation, view
from .data import (
    ABBOT_STEP_COST,
    BOOKS,
    CARD_BUY_COST,
    CELLS,
    COIN_TILE_VALUE,
    MAT_CELLS,
    MAT_STACKS,
    OPTIONS,
    PAIRS,
    PREFERENCES,
    SLOT_TIERS,
    STACK_SIZE,
    START_COINS,
    STATIONS,
    TILES,
    TOKENS,
    card_kind,
    line_cells,
)
from .effects import EFFECTS, land_exile
from .rules import (
    abbot_of,
    activatable_lines,
    altar_token,
    clone,
    discard_default,
    draw_card,
    empty_quills,
    exchange_slots,
    exile_cells,
    exile_of,
    final_result,
    is_open,
    land,
    line_book,
    line_tiles,
    over_limit,
    redirect_cost,
    resolve_battles,
    rewards,
    score_breakdown,
    seat_of,
    slot_parts,
    staged_choices,
    tie_break,
)

Handler = Callable[[State, int, Action], list[Event]]


def _best_cell(state: State, tile: str, cells: Sequence[str]) -> str:
    """The cell with the highest immediate reward (coins + tokens) for the tile's owner; ties to
    the earliest in reading order (§11 Exilium timeout default; the autopilot's placement)."""
    best, best_value = cells[0], -1
    for cell in cells:  # cells come in reading order
        coins, tokens, _ = rewards(state, tile, cell)
        if coins + tokens > best_value:
            best, best_value = cell, coins + tokens
    return best


class IlluminationEngine(GameEngine[State, Action, view.PublicView | view.PrivateView]):
    """Illumination for exactly 2 players (spec docs/rules/illumination.md)."""

    info = EngineInfo(
        game_id="illumination",
        name="Illumination",
        native_name="闡明",
        min_players=2,
        max_players=2,
        options=OPTIONS,
        preferences=PREFERENCES,
        has_hidden_info=True,
        state_version=1,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None) -> State:
        """The state before setup's chance events (§3); with ``sides=host`` seat A first chooses
        the Reverent.

        Raises:
            InvalidOptions: a bad option or a player count other than 2.
        """
        check_player_count(self.info, players)
        opts = validate_options(self.info, options)
        return {
            "game": self.info.game_id, "state_version": self.info.state_version, "players": 2, "options": cast(Options, opts),
            "phase": "setup", "reverent": None, "active": None,
            "abbot": "cloister" if opts["abbot_start"] == "cloister" else None,
            "slots": {}, "markers": {p: [0, 0] for p in PAIRS},
            "crusade": [None, None], "hands": [[], []], "deck": None, "discard": [],
            "stacks": [None, None], "mats": [[None] * 9, [None] * 9], "staged": [], "board": {},
            "coins": [0, 0], "tokens": [{t: 0 for t in TOKENS}, {t: 0 for t in TOKENS}],
            "sheepfold": [0, 0], "passed": [False, False], "draw": None, "exile": None,
        }

    def to_move(self, state: State) -> frozenset[Seat]:
        """``{CHANCE}`` during setup and a pending reshuffle; the opponent during an Exilium
        answer (§4.1 EXILE_REACTION); else the active seat; nobody once over."""
        phase = state["phase"]
        if phase == "over":
            return frozenset()
        if chance.pending(state) is not None:
            return frozenset({CHANCE})
        if phase == "setup":
            return frozenset({0})  # sides=host: seat A chooses the Reverent
        if phase == "exile":
            return frozenset({1 - seat_of(state["active"])})
        return frozenset({seat_of(state["active"])})

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        """Every legal action of ``seat`` in a fixed order (§5): in MAIN placements that end the
        turn (§11), placements, redirects,
        Abbot steps, buying, exchanges, cards, then ``end_turn``."""
        if seat == CHANCE or seat not in self.to_move(state):
            return []
        out: list[Action] = []
        for kind in _PHASE_ACTIONS[state["phase"]]:
            out += _GENERATORS[kind](state, seat)
        return out

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """Sample the pending chance event (§6).

        Raises:
            NotYourTurn: no chance event is pending.
        """
        if chance.pending(state) is None or self.outcome(state) is not None:
            raise NotYourTurn("No chance event is pending.", seat=CHANCE)
        return chance.sample(state, rng)

    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply ``action`` (never mutating ``state``).

        Raises:
            GameOver, NotYourTurn: as the protocol says.
            IllegalAction: malformed, illegal here, or an invalid chance outcome.
        """
        if state["phase"] == "over":
            raise GameOver("The game is over.")
        if seat not in self.to_move(state):
            raise NotYourTurn("It is not your turn.", seat=seat)
        kind = action.get("type") if isinstance(action, dict) else None
        if seat == CHANCE:
            chance.check(state, action)
            st = clone(state)
            return st, tuple(_CHANCE_HANDLERS[str(kind)](st, seat, action))
        if kind not in _PHASE_ACTIONS[state["phase"]] or action not in _GENERATORS[kind](state, seat):
            raise IllegalAction(f"That move is not legal now ({kind}).", code="illegal_action", type=kind)
        st = clone(state)
        return st, tuple(_HANDLERS[str(kind)](st, seat, action))

    def outcome(self, state: State) -> Outcome | None:
        """Final scores, ranking and winners once the game is over (§8, D35)."""
        if state["phase"] != "over":
            return None
        totals, ranking, winners = final_result(state)
        if len(winners) == 2:
            reason = msg("reason.shared", score=totals[0])
        else:
            w = ranking[0]
            end = term("end.books" if all(not is_open(state, b) for b in BOOKS) else "end.passed")
            broken = tie_break(state)
            if broken is None:
                reason = msg("reason.win", seat=seat_ref(w), score=totals[w], other=totals[1 - w], end=end)
            else:  # (equal totals: the reason names what broke the tie, D35)
                reason = msg(f"reason.win_{broken[0]}", seat=seat_ref(w), score=totals[w], other=totals[1 - w],
                             mine=broken[1], theirs=broken[2], end=end)
        return Outcome(tuple(float(t) for t in totals), ranking, winners, reason)

    def scores(self, state: State) -> tuple[float, ...]:
        """The public score (§11: rituals + face-up tiles + Battle cards − sheepfold); the final
        score with the Crusades once the game is over."""
        if state["reverent"] is None:
            return (0.0, 0.0)
        over = state["phase"] == "over"
        return tuple(float(score_breakdown(state, s, crusade=over)["total"]) for s in (0, 1))

    def player_view(self, state: State, seat: Seat | None) -> view.PublicView | view.PrivateView:
        """See ``view.player_view`` (§7)."""
        return view.player_view(state, seat)

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """See ``view.shuffle_hidden``."""
        return view.shuffle_hidden(state, seat, rng)

    def reveals(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """A card drawn or played, tiles turned up from a face-down stack, or the Crusades
        shown at the end (§7, ``view.reveals``)."""
        return view.reveals(before, after)

    # ------------------------------------------------------------------ notation and text
    # ------------------------------------------------------------------ host hooks
    def timeout_action(self, state: State, seat: Seat) -> Action:
        """The autopilot of §11: at TURN_START the first line (row1…col3) holding a tile that feeds
        an open Book, else the first holding a tile (never a voluntary pass); in MAIN the first
        staged tile whose Book is open goes to its best cell, else ``end_turn``; an Exilium goes to
        the owner's best cell; a discard from the smallest holding.

        Raises:
            NotYourTurn: ``seat`` is not to move.
        """
        self._check_can_act(state, seat)
        if seat == CHANCE:
            raise NotYourTurn("Chance has no timeout.", seat=seat)
        phase = state["phase"]
        if phase == "setup":
            return {"type": "choose_side", "reverent": 0}
        if phase == "confirm_pass":
            return {"type": "cancel_pass"}
        if phase == "turn_start":
            lines = activatable_lines(state, seat)
            feeding = [ln for ln in lines if is_open(state, line_book(state, seat, ln))]
            return {"type": "activate", "line": (feeding or lines)[0]}
        if phase == "exile":
            return {"type": "exile", "cell": _best_cell(state, exile_of(state)["tile"], exile_cells(state))}
        if phase == "discard":
            return {"type": "discard", "item": discard_default(state, seat)}
        for tile, book in state["staged"]:
            cells = empty_quills(state, book)
            if cells:
                return {"type": "place", "tile": _canonical_staged(state, tile, book), "cell": _best_cell(state, tile, cells)}
        return {"type": "end_turn"}

    def auto_action(self, state: State, seat: Seat, preferences: Mapping[str, object]) -> Action | None:
        """A move that leaves the player no choice, made at once by preference: D41 (``auto_discard``
        on) the item limit's discard when every item held is of one kind, that kind's items over 7
        (``discard`` for one, ``discard_set`` for more); D42 (``auto_end`` on) ``end_turn`` when it
        is the only legal action of MAIN; None otherwise."""
        if seat == CHANCE or seat not in self.to_move(state):
            return None
        if state["phase"] == "main":
            if (not preferences.get("auto_end") or any(is_open(state, book) for _, book in state["staged"])
                    or list(self.legal_actions(state, seat)) != [{"type": "end_turn"}]):
                return None
            return {"type": "end_turn"}
        if state["phase"] != "discard" or not preferences.get("auto_discard"):
            return None
        held = [t for t in TOKENS if state["tokens"][seat][t] > 0] + (["coin"] if state["coins"][seat] > 0 else [])
        need = over_limit(state, seat)
        if len(held) != 1 or need < 1:
            return None
        if need == 1:
            return {"type": "discard", "item": held[0]}
        return {"type": "discard_set", "items": {held[0]: need}}

    def timeout_seconds(self, state: State, seats: frozenset[Seat], default: int) -> int:
        """An Exilium answer waits ``exilium_timeout`` minutes when set and shorter than the move
        timer (§1, D22); everything else waits the move timer."""
        minutes = int(state["options"]["exilium_timeout"])
        if state["phase"] == "exile" and minutes > 0:
            return min(default, minutes * 60)
        return default


def _canonical_staged(state: State, tile: str, book: str) -> str:
    """The id standing for ``tile`` among identical staged tiles at ``book`` (``staged_choices``)."""
    code = TILES[tile].code
    return next(t for t, b in staged_choices(state) if b == book and TILES[t].code == code)


# --------------------------------------------------------------------------- legal action generators


def _gen_choose_side(state: State, seat: int) -> list[Action]:
    return [{"type": "choose_side", "reverent": s} for s in (0, 1)] if state["reverent"] is None else []


def _gen_activate(state: State, seat: int) -> list[Action]:
    return [{"type": "activate", "line": line} for line in activatable_lines(state, seat)]


def _gen_activate_place(state: State, seat: int) -> list[Action]:
    """``activate`` then ``place`` as one action (§11 turn UI): per line, the first tile it stages
    on each empty quill space of its Book (``notation.line_squares``), its best square first
    (``notation.best_square``)."""
    out: list[Action] = []
    for line in activatable_lines(state, seat):
        squares = notation.line_squares(state, line)
        if squares is not None:
            tile, cells = squares
            best = notation.best_square(state, line)
            out += [{"type": "activate_place", "line": line, "tile": tile, "cell": cell}
                    for cell in sorted(cells, key=lambda c: c != best)]
    return out


def _gen_simple(kind: str) -> Callable[[State, int], list[Action]]:
    def gen(state: State, seat: int) -> list[Action]:
        return [{"type": kind}]

    return gen


def _gen_place(state: State, seat: int) -> list[Action]:
    return [{"type": "place", "tile": tile, "cell": cell}
            for tile, book in staged_choices(state) for cell in empty_quills(state, book)]


def _gen_place_end(state: State, seat: int) -> list[Action]:
    """``place`` then ``end_turn`` as one action (§11 turn UI), where the placement leaves no
    staged tile at an open Book (so ``end_turn`` is legal right after it): the last tile's square
    and the end of the turn in one tap."""
    out: list[Action] = []
    for tile, book in staged_choices(state):
        cells = empty_quills(state, book)
        for cell in cells:
            others = [b for t, b in state["staged"] if t != tile]
            closes = len(cells) == 1
            if all(not is_open(state, b) or (b == book and closes) for b in others):
                out.append({"type": "place_end", "tile": tile, "cell": cell})
    return out


def _gen_redirect(state: State, seat: int) -> list[Action]:
    coins = state["coins"][seat]
    open_books = [b for b in BOOKS if is_open(state, b)]
    return [{"type": "redirect", "tile": tile, "book": b} for tile, src in staged_choices(state)
            for b in open_books if b != src and redirect_cost(src, b) <= coins]


def _gen_abbot(state: State, seat: int) -> list[Action]:
    if state["coins"][seat] < ABBOT_STEP_COST:
        return []
    return [{"type": "abbot", "station": s} for s in STATIONS[abbot_of(state)].neighbours]


def _gen_buy(state: State, seat: int) -> list[Action]:
    ok = state["coins"][seat] >= CARD_BUY_COST and (state["deck"] or state["discard"])
    return [{"type": "buy"}] if ok else []


def _gen_exchange(state: State, seat: int) -> list[Action]:
    return [{"type": "exchange", "slot": s} for s in exchange_slots(state, seat)]


def _gen_play(state: State, seat: int) -> list[Action]:
    kinds = {card_kind(c) for c in state["hands"][seat]}
    return [{"type": "play", "card": kind, **params}
            for kind, effect in EFFECTS.items() if kind in kinds for params in effect.options(state, seat)]


def _gen_end_turn(state: State, seat: int) -> list[Action]:
    blocked = any(is_open(state, book) for _, book in state["staged"])
    return [] if blocked else [{"type": "end_turn"}]


def _gen_discard(state: State, seat: int) -> list[Action]:
    out = [{"type": "discard", "item": t} for t in TOKENS if state["tokens"][seat][t] > 0]
    return out + ([{"type": "discard", "item": "coin"}] if state["coins"][seat] > 0 else [])


def _gen_discard_set(state: State, seat: int) -> list[Action]:
    """Every multiset of items that brings ``seat`` down to exactly 7 at once (§5.1 ``discard``),
    when that is 2 items or more (one item is ``discard``): ``{"type": "discard_set", "items":
    {kind: n, …}}``, kinds in the order bell, candle, wine, bread, coin."""
    need = over_limit(state, seat)
    if need < 2:
        return []
    kinds = [t for t in TOKENS if state["tokens"][seat][t] > 0] + (["coin"] if state["coins"][seat] > 0 else [])
    held = {k: state["coins"][seat] if k == "coin" else state["tokens"][seat][k] for k in kinds}
    out: list[Action] = []

    def walk(i: int, left: int, chosen: dict[str, int]) -> None:
        if left == 0:
            out.append({"type": "discard_set", "items": dict(chosen)})
            return
        if i == len(kinds):
            return
        kind = kinds[i]
        for n in range(min(left, held[kind]), -1, -1):
            if n:
                chosen[kind] = n
            walk(i + 1, left - n, chosen)
            chosen.pop(kind, None)

    walk(0, need, {})
    return out


def _gen_exile(state: State, seat: int) -> list[Action]:
    return [{"type": "exile", "cell": c} for c in exile_cells(state)]


_GENERATORS: dict[str, Callable[[State, int], list[Action]]] = {
    "choose_side": _gen_choose_side, "activate_place": _gen_activate_place, "activate": _gen_activate, "pass": _gen_simple("pass"),
    "confirm_pass": _gen_simple("confirm_pass"), "cancel_pass": _gen_simple("cancel_pass"),
    "place": _gen_place, "place_end": _gen_place_end, "redirect": _gen_redirect, "abbot": _gen_abbot, "buy": _gen_buy,
    "exchange": _gen_exchange, "play": _gen_play, "end_turn": _gen_end_turn, "discard": _gen_discard,
    "discard_set": _gen_discard_set,
    "exile": _gen_exile,
}

_PHASE_ACTIONS: dict[str, tuple[str, ...]] = {
    "setup": ("choose_side",),
    "turn_start": ("pass", "activate", "activate_place"),
    "confirm_pass": ("confirm_pass", "cancel_pass"),
    "main": ("place_end", "place", "redirect", "abbot", "buy", "exchange", "play", "end_turn"),
    "exile": ("exile",),
    "discard": ("discard_set", "discard"),
    "over": (),
}


# --------------------------------------------------------------------------- flow (on the working copy)


def _give_card(st: State, seat: int, why: str) -> list[Event]:
    """``seat`` draws the top card (§5.1 buy_card, exchange): a reshuffle first when the deck is
    empty (a pending chance event), nothing when deck and discard pile are both empty."""
    if not st["deck"]:
        if not st["discard"]:
            return [Event("no_card", params={"seat": seat_ref(seat)})]
        st["draw"] = {"seat": seat, "why": why}
        return []
    card = draw_card(st, seat)
    return [Event(f"drew_{why}", params={"seat": seat_ref(seat)}),
            Event("drew_card", params={"card": term(f"card.{card_kind(str(card))}")}, visible_to=frozenset({seat}))]


def _begin_turn(st: State, seat: int) -> list[Event]:
    """TURN_START(seat) (§4.1); an empty mat passes automatically (D31)."""
    st["active"] = seat
    st["phase"] = "turn_start"
    if any(st["mats"][seat]):
        return []
    st["passed"][seat] = True
    return [Event("auto_pass", params={"seat": seat_ref(seat)}), *_end_of_turn(st, seat)]


def _end_of_turn(st: State, seat: int) -> list[Event]:
    """END_OF_TURN(seat) steps 1–3 (§4.1): staged tiles to the sheepfold, the battle check, the
    item limit (DISCARD when over 7); then ``_finish_turn``."""
    events: list[Event] = []
    if st["staged"]:
        n = len(st["staged"])
        st["sheepfold"][seat] += n
        events.append(Event("sheepfold", params={"seat": seat_ref(seat), "n": n,
                                                 "tiles": [notation.tile_json(t) for t, _ in st["staged"]]}))
        st["staged"] = []
    events += notation.battle_events(st, resolve_battles(st))
    if over_limit(st, seat):
        st["phase"] = "discard"
        return events
    return events + _finish_turn(st, seat)


def _finish_turn(st: State, seat: int) -> list[Event]:
    """END_OF_TURN steps 4–6 (§4.1): the end check, the refill in reading order (D33), the next player."""
    if all(not is_open(st, b) for b in BOOKS) or all(st["passed"]):
        return _game_over(st)
    events: list[Event] = []
    stack = st["stacks"][seat]
    if not st["passed"][seat] and stack:
        mat = st["mats"][seat]
        empty = [i for i in range(9) if mat[i] is None]
        new = stack[:min(STACK_SIZE, len(empty))]
        del stack[:STACK_SIZE]
        for i, tile in zip(empty, new, strict=False):
            mat[i] = tile
        events.append(Event("refill", params={"seat": seat_ref(seat), "cells": [MAT_CELLS[i] for i in empty[:len(new)]],
                                              "tiles": [notation.tile_json(t) for t in new]}))
    other = 1 - seat
    return events + _begin_turn(st, other if not st["passed"][other] else seat)


def _game_over(st: State) -> list[Event]:
    """The end (§8): the Crusades are revealed and the game stops."""
    st["phase"] = "over"
    st["staged"] = []
    events = []
    for s in (0, 1):
        parts = score_breakdown(st, s, crusade=True)
        card = str(st["crusade"][s])
        events.append(Event("crusade_reveal", params={"seat": seat_ref(s), "faction": term(f"faction.{card.split('-', 1)[1]}"),
                                                      "vp": parts["crusade"], "total": parts["total"]}))
    return events


# --------------------------------------------------------------------------- action handlers


def _h_choose_side(st: State, seat: int, action: Action) -> list[Event]:
    rev = int(action["reverent"])
    st["reverent"] = rev
    st["coins"][rev] = START_COINS["reverent"]
    st["coins"][1 - rev] = int(st["options"]["irreverent_start_coins"])
    return [Event("sides", params={"reverent": seat_ref(rev), "irreverent": seat_ref(1 - rev),
                                   "coins": st["coins"][1 - rev]})]


def _h_abbot_start(st: State, seat: int, action: Action) -> list[Event]:
    st["abbot"] = action["station"]
    return [Event("abbot_start", params={"station": term(f"station.{action['station']}")})]


def _h_deal_crusade(st: State, seat: int, action: Action) -> list[Event]:
    s = int(action["seat"])
    st["crusade"][s] = action["card"]
    faction = str(action["card"]).split("-", 1)[1]
    return [Event("crusade_dealt", params={"seat": seat_ref(s)}),
            Event("crusade_secret", params={"faction": term(f"faction.{faction}")}, visible_to=frozenset({s}))]


def _h_shuffle_tiles(st: State, seat: int, action: Action) -> list[Event]:
    s = int(action["seat"])
    order = list(action["order"])
    cut = MAT_STACKS * STACK_SIZE
    st["mats"][s] = order[:cut]
    st["stacks"][s] = order[cut:]
    return [Event("tiles_dealt", params={"seat": seat_ref(s)})]


def _h_shuffle_deck(st: State, seat: int, action: Action) -> list[Event]:
    st["deck"] = list(action["order"])
    return _begin_turn(st, seat_of(st["reverent"]))


def _h_reshuffle(st: State, seat: int, action: Action) -> list[Event]:
    st["deck"] = list(action["order"])
    st["discard"] = []
    draw = st["draw"]
    assert draw is not None, "a draw waits for the reshuffle"
    st["draw"] = None
    return [Event("reshuffled", params={"n": len(action["order"])}), *_give_card(st, draw["seat"], draw["why"])]


def _h_activate(st: State, seat: int, action: Action) -> list[Event]:
    line = action["line"]
    book = line_book(st, seat, line)
    tiles = line_tiles(st, seat, line)
    for i in line_cells(line):
        st["mats"][seat][i] = None
    coins = 0
    for tile in tiles:
        if TILES[tile].faction is None:
            coins += COIN_TILE_VALUE
        else:
            st["staged"].append([tile, book])
    st["coins"][seat] += coins
    st["phase"] = "main"
    return [Event("activate", params={"seat": seat_ref(seat), "line": term(f"line.{line}"), "book": book, "coins": coins,
                                      "tiles": [notation.tile_json(t) for t in tiles if TILES[t].faction]})]


def _h_pass(st: State, seat: int, action: Action) -> list[Event]:
    st["phase"] = "confirm_pass"
    return []


def _h_cancel_pass(st: State, seat: int, action: Action) -> list[Event]:
    st["phase"] = "turn_start"
    return []


def _h_confirm_pass(st: State, seat: int, action: Action) -> list[Event]:
    st["passed"][seat] = True
    return [Event("pass", params={"seat": seat_ref(seat)}), *_end_of_turn(st, seat)]


def _h_place(st: State, seat: int, action: Action) -> list[Event]:
    tile, cell = action["tile"], action["cell"]
    st["staged"] = [s for s in st["staged"] if s[0] != tile]
    paid = land(st, tile, cell)
    return [Event("place", params={"seat": seat_ref(seat), "tile": notation.tile_json(tile),
                                   "cell": notation.square_json(cell),
                                   "reward": notation.reward_json(*paid)}),
            *notation.battle_events(st, resolve_battles(st, (CELLS[cell].book,)))]


def _h_activate_place(st: State, seat: int, action: Action) -> list[Event]:
    return (_h_activate(st, seat, {"type": "activate", "line": action["line"]})
            + _h_place(st, seat, {"type": "place", "tile": action["tile"], "cell": action["cell"]}))


def _h_place_end(st: State, seat: int, action: Action) -> list[Event]:
    return _h_place(st, seat, action) + _end_of_turn(st, seat)


def _h_redirect(st: State, seat: int, action: Action) -> list[Event]:
    tile, dst = action["tile"], action["book"]
    entry = next(s for s in st["staged"] if s[0] == tile)
    cost = redirect_cost(entry[1], dst)
    st["coins"][seat] -= cost
    src, entry[1] = entry[1], dst
    return [Event("redirect", params={"seat": seat_ref(seat), "tile": notation.tile_json(tile), "src": src,
                                      "dst": dst, "cost": cost})]


def _h_abbot(st: State, seat: int, action: Action) -> list[Event]:
    st["coins"][seat] -= ABBOT_STEP_COST
    st["abbot"] = action["station"]
    return [Event("abbot", params={"seat": seat_ref(seat), "station": term(f"station.{action['station']}")})]


def _h_buy(st: State, seat: int, action: Action) -> list[Event]:
    st["coins"][seat] -= CARD_BUY_COST
    return _give_card(st, seat, "buy")


def _h_exchange(st: State, seat: int, action: Action) -> list[Event]:
    slot = action["slot"]
    altar, n = slot_parts(slot)
    token = altar_token(altar)
    st["tokens"][seat][token] -= n
    st["slots"][slot] = seat
    return [Event("exchange", params={"seat": seat_ref(seat), "slot": term(f"station.{altar}"), "n": n, "token": term(f"token.{token}"),
                                      "vp": SLOT_TIERS[n]}), *_give_card(st, 1 - seat, "compensation")]


def _h_play(st: State, seat: int, action: Action) -> list[Event]:
    kind = action["card"]
    card = min((c for c in st["hands"][seat] if card_kind(c) == kind), key=lambda c: int(c.rsplit("-", 1)[1]))
    st["hands"][seat].remove(card)
    st["discard"].append(card)
    return EFFECTS[kind].resolve(st, seat, action)


def _h_end_turn(st: State, seat: int, action: Action) -> list[Event]:
    return _end_of_turn(st, seat)


def _h_discard(st: State, seat: int, action: Action) -> list[Event]:
    item = action["item"]
    if item == "coin":
        st["coins"][seat] -= 1
    else:
        st["tokens"][seat][item] -= 1
    term_key = "coin" if item == "coin" else f"token.{item}"
    events = [Event("discard", params={"seat": seat_ref(seat), "item": term(term_key)})]
    if not over_limit(st, seat):
        events += _finish_turn(st, seat)
    return events


def _h_discard_set(st: State, seat: int, action: Action) -> list[Event]:
    chosen = action["items"]
    for item, n in chosen.items():
        if item == "coin":
            st["coins"][seat] -= n
        else:
            st["tokens"][seat][item] -= n
    events = [Event("discard_set", params={"seat": seat_ref(seat), "items": notation.items_json(chosen)})]
    return events + _finish_turn(st, seat)


def _h_exile(st: State, seat: int, action: Action) -> list[Event]:
    return land_exile(st, action["cell"])


_HANDLERS: dict[str, Handler] = {
    "choose_side": _h_choose_side, "activate": _h_activate, "activate_place": _h_activate_place, "pass": _h_pass, "confirm_pass": _h_confirm_pass,
    "cancel_pass": _h_cancel_pass, "place": _h_place, "place_end": _h_place_end, "redirect": _h_redirect, "abbot": _h_abbot, "buy": _h_buy,
    "exchange": _h_exchange, "play": _h_play, "end_turn": _h_end_turn, "discard": _h_discard,
    "discard_set": _h_discard_set, "exile": _h_exile,
}

_CHANCE_HANDLERS: dict[str, Handler] = {
    "assign_sides": _h_choose_side, "abbot_start": _h_abbot_start, "deal_crusade": _h_deal_crusade,
    "shuffle_tiles": _h_shuffle_tiles, "shuffle_deck": _h_shuffle_deck, "reshuffle": _h_reshuffle,
}
