"""What each seat may see in E Guan (docs/rules/eguan.md §7): the public view, a seat's
private view, and ``shuffle_hidden`` for the no-leak conformance test.

The TypedDicts are the renderer's input type (render/eguan.py). Views carry ids, codes
and numbers, never English: names come from engines/eguan/data.py or the catalog.
"""

from __future__ import annotations

import copy
import random
from typing import NotRequired, TypedDict

from engines.base import Seat, copy_state
from engines.eguan.data import CARDS, SET_LETTERS
from engines.eguan.rules import (
    Board,
    active,
    board_cells,
    board_counts,
    final_round,
    final_scoring,
    kept_of,
    kept_usable,
    most_wanted,
    payment_for,
    topmost,
    turn_no,
    turns_taken,
)
from engines.eguan.types import ScoreTable, State


class CellView(TypedDict):
    """What one board cell shows: the card, which of its corners, the icon code."""

    card: str
    corner: str
    icon: str


class SeatView(TypedDict):
    """One player's public side (spec §7, §11 Board image)."""

    seat: int
    infamy: int
    skill: str | None  # None until every seat has chosen (spec D17)
    skill_chosen: bool
    board: list[list[str | int]]  # [card_id, anchor, rotation], lowest first
    cells: list[list[CellView | None]]  # 4 × 4, row 0 at the top
    counts: dict[str, int]  # visible H, S, K, E
    topmost: list[str]
    hand_count: int
    pile_counts: list[int]
    has_kept: bool
    removed_kept_count: int
    turns_taken: int
    leading_titles: list[str]  # title keys held if the game ended now (spec §8)


class Trigger(TypedDict):
    """When the last card was drawn (spec §8)."""

    round: int
    seat: int


class Die(TypedDict):
    """The trouble die this turn: the roll and the value after ADJUST (spec §5.3)."""

    roll: int
    value: int


class PublicPending(TypedDict):
    """The active seat's decision, as far as everyone may know it."""

    step: str
    purpose: NotRequired[str]  # place: "main" | "extra" | "move"
    card: NotRequired[str]  # only for a move: the card is on the board


class RemovedCard(TypedDict):
    """A card removed from a board by Ruffian 3, face up (spec D21)."""

    seat: int
    card: str


class PublicView(TypedDict):
    """The public view (``player_view(state, None)``): boards, counts, Infamy and the
    turn; hands, piles and kept cards only as counts (spec §7)."""

    game: str
    players: int
    phase: str  # "deal" | "skill" | "start" | "play" | "over"
    round: int
    turn_no: int
    active: int | None
    start_player: int | None
    end_rule: str
    deck_count: int
    triggered: bool
    trigger: Trigger | None
    final_round: bool
    most_wanted: int | None
    pending: PublicPending | None
    die: Die | None
    removed_cards: list[RemovedCard]
    seats: list[SeatView]
    result: ScoreTable | None  # once over
    scores: list[float]


class CardView(TypedDict):
    """A card of the seat's own: its data plus what it costs on the seat's board now."""

    id: str
    cost: int
    req: dict[str, int]
    corners: dict[str, str]  # tl/tr/bl/br → corner code ("-", "H", "2S", ...)
    die: bool
    payment: int
    playable: bool


class KeptView(CardView):
    """The seat's kept card and from when it is usable (spec §5.2)."""

    kept_turn: int
    usable: bool


class PrivatePending(TypedDict):
    """The seat's own decision, with the card picked for placing."""

    step: str
    purpose: NotRequired[str]
    card: NotRequired[str]
    payment: NotRequired[int]


class You(TypedDict):
    """A seat's secrets (spec §7)."""

    seat: int
    hand: list[CardView]
    kept: KeptView | None
    removed_kept: list[str]
    skill: str | None
    pending: PrivatePending | None


class PrivateView(PublicView):
    """The view of one seat: the public view plus ``you``."""

    you: You


def card_view(state: State, seat: Seat, card_id: str) -> CardView:
    """``card_id``'s data with its payment on ``seat``'s board (spec §5.1)."""
    card = CARDS[card_id]
    pay = payment_for(state["boards"][seat], card_id)
    return {"id": card.id, "cost": card.cost, "req": dict(card.req), "corners": dict(card.codes),
            "die": card.trouble_die, "payment": pay, "playable": pay <= int(state["infamy"][seat])}


def cells_view(board: Board) -> list[list[CellView | None]]:
    """What each of the 16 cells shows (``rules.board_cells``) with its icon code."""
    return [[None if c is None else {"card": c[0], "corner": c[1], "icon": CARDS[c[0]].codes[c[1]]} for c in row]
            for row in board_cells(board)]


def _seat_view(state: State, seat: Seat, skills_public: bool, titles: list[str], taken: int) -> SeatView:
    board = state["boards"][seat]
    return {
        "seat": seat,
        "infamy": state["infamy"][seat],
        "skill": state["skills"][seat] if skills_public else None,
        "skill_chosen": state["skills"][seat] is not None,
        "board": [list(p) for p in board],
        "cells": cells_view(board),
        "counts": board_counts(board),
        "topmost": topmost(board),
        "hand_count": len(state["hands"][seat]),
        "pile_counts": [len(p["cards"]) for p in state["piles"][seat]],
        "has_kept": state["kept"][seat] is not None,
        "removed_kept_count": len(state["removed_kept"][seat]),
        "turns_taken": taken,
        "leading_titles": titles,
    }


def public_view(state: State) -> PublicView:
    """The public view (spec §7: everything but hands, piles, kept cards and, until all
    have chosen, the skill sets)."""
    scoring = final_scoring(state)
    over = state["phase"] == "over"
    skills_public = all(x is not None for x in state["skills"])
    taken = turns_taken(state)
    pend = state["pending"]
    pending: PublicPending | None = None
    if pend is not None:
        pending = {"step": pend["step"]}
        if pend["step"] == "place":
            pending["purpose"] = pend["purpose"]
            if pend["purpose"] == "move":
                pending["card"] = pend["card"]
    result: ScoreTable | None = None
    if over:
        result = {"infamy": scoring["infamy"], "bonus": scoring["bonus"], "titles": scoring["titles"],
                  "scores": scoring["scores"], "title_cards": scoring["title_cards"],
                  "winners": scoring["winners"], "ranking": scoring["ranking"]}
    return {
        "game": state["game"],
        "players": state["players"],
        "phase": state["phase"],
        "round": state["round"],
        "turn_no": turn_no(state),
        "active": active(state),
        "start_player": state["start_player"],
        "end_rule": state["options"]["end_rule"],
        "deck_count": len(state["deck"]),
        "triggered": state["trigger"] is not None,
        "trigger": copy.deepcopy(state["trigger"]),
        "final_round": final_round(state),
        "most_wanted": most_wanted(state["boards"]),
        "pending": pending,
        "die": copy.deepcopy(state["die"]),
        "removed_cards": copy.deepcopy(state["removed_cards"]),
        "seats": [_seat_view(state, s, skills_public, scoring["titles"][s], taken[s])
                  for s in range(state["players"])],
        "result": result,
        "scores": [float(x) for x in (scoring["scores"] if over else state["infamy"])],
    }


def private_view(state: State, seat: Seat) -> PrivateView:
    """The view of ``seat``: the public view plus its hand (with payments), its kept
    card, its removed kept cards, its skill set and its pending decision (spec §7)."""
    kept: KeptView | None = None
    k = state["kept"][seat]
    if k is not None:
        kept = {**card_view(state, seat, k["card"]), "kept_turn": k["turn"], "usable": kept_usable(state, seat)}
    pending: PrivatePending | None = None
    pend = state["pending"]
    if active(state) == seat and pend is not None:
        pending = {"step": pend["step"]}
        if pend["step"] == "place":
            pending["purpose"] = pend["purpose"]
            pending["card"] = pend["card"]
            pending["payment"] = 0 if pend["purpose"] == "move" else payment_for(state["boards"][seat], pend["card"])
    you: You = {
        "seat": seat,
        "hand": [card_view(state, seat, c) for c in state["hands"][seat]],
        "kept": kept,
        "removed_kept": list(state["removed_kept"][seat]),
        "skill": state["skills"][seat],
        "pending": pending,
    }
    return {**public_view(state), "you": you}


def shuffle_hidden(state: State, seat: Seat | None, rng: random.Random) -> State:
    """A copy of ``state`` with everything ``seat`` cannot see redealt (the deck, other
    hands, all waiting piles, other kept and removed kept cards, other skill choices
    during setup), every size kept. A card another seat is placing stays put: it is in
    that seat's hand or kept slot."""
    st = copy_state(state)
    n = st["players"]
    others = [s for s in range(n) if s != seat]
    pend = st["pending"]
    fixed: set[str] = set()
    if pend is not None and pend.get("step") == "place" and active(st) != seat:
        fixed.add(pend["card"])
    pool: list[str] = list(st["deck"])
    for s in others:
        pool += [c for c in st["hands"][s] if c not in fixed]
        if st["kept"][s] is not None and kept_of(st, s)["card"] not in fixed:
            pool.append(kept_of(st, s)["card"])
        pool += st["removed_kept"][s]
    for s in range(n):
        for p in st["piles"][s]:
            pool += p["cards"]
    rng.shuffle(pool)

    def take(k: int) -> list[str]:
        out = pool[:k]
        del pool[:k]
        return out

    st["deck"] = sorted(take(len(st["deck"])))
    for s in others:
        st["hands"][s] = [c if c in fixed else take(1)[0] for c in st["hands"][s]]
        if st["kept"][s] is not None and kept_of(st, s)["card"] not in fixed:
            kept_of(st, s)["card"] = take(1)[0]
        st["removed_kept"][s] = take(len(st["removed_kept"][s]))
    for s in range(n):
        for p in st["piles"][s]:
            p["cards"] = take(len(p["cards"]))
    if st["phase"] == "skill":
        for s in others:
            if st["skills"][s] is not None:
                st["skills"][s] = rng.choice(SET_LETTERS)
    return st


def reveals(before: State, after: State) -> bool:
    """Whether a move from ``before`` to ``after`` showed something hidden (§7): a card lies on
    a board that lay on none (played from a hand or the kept slot: the card a player is
    placing is shown only when it lands), a hand holds a card it did not (a waiting pile taken
    up: hidden from its recipient until then, D5), or the skill choices became public (the
    last one made)."""
    placed = {c[0] for board in before["boards"] for c in board}
    if any(c[0] not in placed for board in after["boards"] for c in board):
        return True
    for old, new in zip(before["hands"], after["hands"], strict=True):
        if any(c not in old for c in new):
            return True
    return bool(before["phase"] == "skill" and after["phase"] != "skill")
