"""Pure rule helpers of E Guan (docs/rules/eguan.md): board geometry, visible counts,
payment, Most Wanted, whose turn it is, who a skill may touch, and the final scoring.

Boards are stacks of placements ``[card_id, anchor 1-9, rotation 0|180]``, lowest first
(spec §2.6). Nothing here mutates its arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from engines.base import Seat, present, rank_seats
from engines.eguan.data import (
    ANCHORS,
    CARDS,
    KINDS,
    RESOURCES,
    ROTATIONS,
    SHORTFALL_PRICE,
    SKILLS,
    START_ID,
    TITLE_OF,
    Face,
)
from engines.eguan.types import Action, Die, Kept, Pending, ScoreTable, State

Board = Sequence[Sequence[str | int]]
"""A board: placements ``[card_id, anchor, rotation]``, lowest first."""

Cell = tuple[str, str] | None
"""What a board cell shows: (card id, corner name) of the highest covering card, or None."""


# --------------------------------------------------------------------------- geometry


def pending_of(state: State) -> Pending:
    """The active seat's step (``pending`` is set during a turn)."""
    return present(state["pending"], "a step is pending")


def die_of(state: State) -> Die:
    """This turn's trouble die (``die`` is set once it is rolled)."""
    return present(state["die"], "the trouble die is rolled")


def skill_of(state: State, seat: Seat) -> str:
    """``seat``'s skill set (chosen before play)."""
    skill = state["skills"][seat]
    assert skill is not None, "skills are chosen before play"
    return skill


def kept_of(state: State, seat: Seat) -> Kept:
    """``seat``'s kept card (set while it keeps one)."""
    kept = state["kept"][seat]
    assert kept is not None, "the seat keeps a card"
    return kept


def anchor_rc(anchor: int) -> tuple[int, int]:
    """Anchor label 1-9 → its top-left cell (row, col) (spec §2.6)."""
    return ((anchor - 1) // 3, (anchor - 1) % 3)


@functools.cache
def _corners(anchor: int, rot: int) -> tuple[tuple[str, tuple[int, int]], ...]:
    """``corner_cells`` as pairs, computed once per (anchor, rotation)."""
    r, c = anchor_rc(anchor)
    if rot == 0:
        return (("tl", (r, c)), ("tr", (r, c + 1)), ("bl", (r + 1, c)), ("br", (r + 1, c + 1)))
    return (("tl", (r + 1, c + 1)), ("tr", (r + 1, c)), ("bl", (r, c + 1)), ("br", (r, c)))


def corner_cells(anchor: int, rot: int) -> dict[str, tuple[int, int]]:
    """Cell of each corner of a card placed at ``anchor`` with ``rot`` (spec §2.6 table)."""
    return dict(_corners(anchor, rot))


BOARDS_REMEMBERED = 256
"""Boards whose cells, counts and topmost cards are remembered (``_board_key``: every
view and the undo check's variants ask for them several times per board, the AI's playouts too).
About 7 KiB a board of 12 cards in all three caches (tracemalloc), so under 2 MiB (the memory
guard, bench/footprint.py); a move needs only the boards of its own game."""


def _board_key(board: Board) -> tuple[tuple[str, int, int], ...]:
    """A board as a hashable value: its placements (card id, anchor, rotation) in stack order."""
    return tuple((str(card_id), int(anchor), int(rot)) for card_id, anchor, rot in board)


@functools.lru_cache(maxsize=BOARDS_REMEMBERED)
def _cells(key: tuple[tuple[str, int, int], ...]) -> tuple[tuple[Cell, ...], ...]:
    grid: list[list[Cell]] = [[None] * 4 for _ in range(4)]
    for card_id, anchor, rot in key:
        for corner, (r, c) in _corners(anchor, rot):
            grid[r][c] = (card_id, corner)
    return tuple(tuple(row) for row in grid)


def board_cells(board: Board) -> list[list[Cell]]:
    """4 × 4 grid of what each cell shows: the highest card's corner (spec §2.6)."""
    return [list(row) for row in _cells(_board_key(board))]


@functools.lru_cache(maxsize=BOARDS_REMEMBERED)
def _counts(key: tuple[tuple[str, int, int], ...]) -> tuple[tuple[str, int], ...]:
    counts = {k: 0 for k in KINDS}
    for row in _cells(key):
        for cell in row:
            if cell is not None:
                icon = CARDS[cell[0]].corners[cell[1]]
                if icon is not None:
                    counts[icon[0]] += icon[1]
    return tuple(counts.items())


def board_counts(board: Board) -> dict[str, int]:
    """Visible icon counts {H, S, K, E}; a ``2X`` corner counts 2 (spec §2.6, D10)."""
    return dict(_counts(_board_key(board)))


@functools.lru_cache(maxsize=BOARDS_REMEMBERED)
def _topmost(key: tuple[tuple[str, int, int], ...], deed_only: bool) -> tuple[str, ...]:
    out: list[str] = []
    for i, (card_id, anchor, rot) in enumerate(key):
        mine = {cell for _, cell in _corners(anchor, rot)}
        covered = any(mine & {cell for _, cell in _corners(a2, r2)} for _, a2, r2 in key[i + 1:])
        if not covered and not (deed_only and card_id == START_ID):
            out.append(card_id)
    return tuple(out)


def topmost(board: Board, *, deed_only: bool = True) -> list[str]:
    """Card ids with no cell covered by a later card, in stack order (spec §2.6, D3);
    the starting card only when ``deed_only`` is False (D2)."""
    return list(_topmost(_board_key(board), deed_only))


def stack_index(board: Board, card: str) -> int:
    """Position of ``card`` in the stack.

    Raises:
        ValueError: the card is not on the board.
    """
    for i, placement in enumerate(board):
        if placement[0] == card:
            return i
    raise ValueError(f"{card} is not on that board")


def payment_for(board: Board, card_id: str) -> int:
    """Infamy to pay for ``card_id`` on this board, checked before placing it:
    2 × shortfall over H, S, K (spec §5.1, D9)."""
    counts = board_counts(board)
    card = CARDS[card_id]
    return SHORTFALL_PRICE * sum(max(0, card.req[k] - counts[k]) for k in RESOURCES)


def best_e_placement(board: Board, card: str) -> tuple[int, int]:
    """(anchor, rotation) giving the most visible E; ties: lowest anchor, then 0°
    (spec §11 Timeouts)."""
    best = min((-board_counts([*board, [card, a, r]])["E"], a, r) for a in ANCHORS for r in ROTATIONS)
    return best[1], best[2]


def most_wanted(boards: Sequence[Board]) -> int | None:
    """Seat with strictly the most visible E, or None on a tie (spec §2.4, D11)."""
    es = [board_counts(b)["E"] for b in boards]
    holders = [s for s, e in enumerate(es) if e == max(es)]
    return holders[0] if len(holders) == 1 else None


# --------------------------------------------------------------------------- turns


def active(state: State) -> Seat | None:
    """The seat whose turn it is: seat order from the start player (spec §3 step 6);
    None outside play."""
    if state["phase"] != "play":
        return None
    start = state["start_player"]
    assert start is not None, "the start player is drawn before play"
    return int((start + state["turn_index"]) % state["players"])


def turns_done(state: State) -> int:
    """Turns finished by everyone together (the current one counts once the game is over)."""
    if state["round"] == 0:
        return 0
    done = int((state["round"] - 1) * state["players"] + state["turn_index"])
    return done + (1 if state["phase"] == "over" else 0)


def turn_no(state: State) -> int:
    """The number of the current turn, 1 for the start player's first (0 before play):
    a kept card records it (spec §5.2)."""
    return turns_done(state) + (1 if state["phase"] == "play" else 0)


def turns_taken(state: State) -> list[int]:
    """Turns each seat has finished (spec §8: equal_turns gives everyone the same)."""
    n, done = state["players"], turns_done(state)
    start = state["start_player"] or 0
    return [done // n + (1 if (s - start) % n < done % n else 0) for s in range(n)]


def final_round(state: State) -> bool:
    """True once the round after the end trigger has begun, or the game is over (spec §8)."""
    trig = state["trigger"]
    return trig is not None and (state["round"] > trig["round"] or state["phase"] == "over")


def kept_usable(state: State, seat: Seat) -> bool:
    """True when ``seat`` holds a kept card kept on an earlier turn (spec §5.2, E11)."""
    kept = state["kept"][seat]
    return kept is not None and int(kept["turn"]) < turn_no(state)


def affordable(state: State, seat: Seat, card: str) -> bool:
    """True when ``seat`` can pay for ``card`` on its board now (spec §5.1, E4)."""
    return payment_for(state["boards"][seat], card) <= int(state["infamy"][seat])


def play_choices(state: State, seat: Seat) -> list[Action]:
    """The plays ``seat`` can afford, as actions: ``select`` per hand card in hand order,
    then ``select_kept`` (spec §5.1 PLAY_HAND / PLAY_KEPT; §5.4 ``extra_play``)."""
    out: list[Action] = [
        {"type": "select", "card": c} for c in state["hands"][seat] if affordable(state, seat, c)
    ]
    if kept_usable(state, seat) and affordable(state, seat, kept_of(state, seat)["card"]):
        out.append({"type": "select_kept"})
    return out


def face(state: State) -> Face:
    """The face of the active seat's skill set the die shows now (spec §5.3).

    Raises:
        TypeError: no die has been rolled this turn.
    """
    seat = active(state)
    assert seat is not None
    return SKILLS[skill_of(state, seat)][int(die_of(state)["value"]) - 1]


def opponents(state: State, seat: Seat, harmful: bool) -> list[Seat]:
    """The other seats in seat order after ``seat``; for a harmful effect without the
    Most Wanted holder (spec §5.4 "eligible opponent", D11)."""
    n = state["players"]
    mw = most_wanted(state["boards"]) if harmful else None
    return [(seat + i) % n for i in range(1, n) if (seat + i) % n != mw]


def steal_targets(state: State, seat: Seat, face_: Face) -> list[Seat]:
    """Who ``steal`` / ``steal_richer`` may target: eligible opponents, for
    ``steal_richer`` only those with more Infamy than ``seat`` (spec §5.4)."""
    inf = state["infamy"]
    out = opponents(state, seat, face_.harmful)
    if face_.effect == "steal_richer":
        out = [s for s in out if inf[s] > inf[seat]]
    return out


def remove_options(state: State, seat: Seat) -> list[tuple[Seat, str]]:
    """(opponent, card) pairs ``remove_topmost`` may take: each eligible opponent's topmost
    deed cards, opponents in seat number order (spec §5.4, D2)."""
    return [(s, c) for s in sorted(opponents(state, seat, True)) for c in topmost(state["boards"][s])]


# --------------------------------------------------------------------------- scoring


def score_table(infamy: Sequence[int], counts: Sequence[Mapping[str, int]]) -> ScoreTable:
    """Final scoring from Infamy and visible counts (spec §8 steps 1–4, D11, D13).

    Args:
        infamy: Infamy per seat.
        counts: visible {H, S, K, E} per seat.

    Returns:
        {"infamy", "bonus": {H,S,K: [per seat]}, "titles": [[title keys] per seat],
         "scores", "title_cards", "winners" (sorted seats), "ranking" (best first)}.
    """
    n = len(infamy)
    titles: list[list[str]] = [[] for _ in range(n)]
    bonus = {k: [0] * n for k in RESOURCES}
    for k in RESOURCES:
        m = max(c[k] for c in counts)
        if m >= 1:
            for s in range(n):
                if counts[s][k] == m:
                    bonus[k][s] = m
                    titles[s].append(TITLE_OF[k])
    es = [c["E"] for c in counts]
    top_e = [s for s in range(n) if es[s] == max(es)]
    if len(top_e) == 1:
        titles[top_e[0]].append("most_wanted")
    scores = [int(infamy[s]) + sum(bonus[k][s] for k in RESOURCES) for s in range(n)]
    cards = [len(t) for t in titles]
    tied = [s for s in range(n) if scores[s] == max(scores)]
    top_cards = max(cards[s] for s in tied)
    return {
        "infamy": [int(x) for x in infamy],
        "bonus": bonus,
        "titles": titles,
        "scores": scores,
        "title_cards": cards,
        "winners": [s for s in tied if cards[s] == top_cards],
        "ranking": list(rank_seats(scores, cards)),
    }


def final_scoring(state: State) -> ScoreTable:
    """``score_table`` of the state's Infamy and boards (spec §8); during play it tells
    who leads each title."""
    return score_table(state["infamy"], [board_counts(b) for b in state["boards"]])
