"""Pure rule helpers for The Way to Heaven: factions, counts, the lock, effective values,
the advancement test, and the enumeration of legal ability parameter "plans".

Every function reads a state dict and never mutates it (spec heaven §5.1–§5.4).
"""

from __future__ import annotations

import itertools
from typing import Any

from engines.base import State

from .data import (
    CARDS,
    COLOURS,
    GATE,
    HOLINESS_COPIES,
    IGNORANCE_COPIES,
    KIND_USABLE_BY,
    NOT_TAKEABLE,
    TRACK,
)

Plan = list[list[Any]]
"""A complete parameter list of one USE: ``[[key, value], ...]`` in declaration order."""


# --------------------------------------------------------------------------- derived state


def faction(public: list[str]) -> str:
    """Faction of a public set: ``saint``, ``sinner`` or ``none`` (spec §5.1, D3)."""
    saints = sum(1 for c in public if CARDS[c].side == "saint")
    sinners = len(public) - saints
    if saints > sinners:
        return "saint"
    if sinners > saints:
        return "sinner"
    return "none"


def factions(st: State) -> list[str]:
    """Faction of every seat."""
    return [faction(p) for p in st["public"]]


def counts(st: State) -> tuple[int, int]:
    """``(nS, nN)``: players in saint faction and in sinner faction (spec §5.1)."""
    fs = factions(st)
    return fs.count("saint"), fs.count("sinner")


def majority(st: State) -> str:
    """``saint`` / ``sinner`` when that faction has strictly more players, else ``none``."""
    n_s, n_n = counts(st)
    if n_s > n_n:
        return "saint"
    if n_n > n_s:
        return "sinner"
    return "none"


def locked(st: State) -> bool:
    """The all-in-one-faction lock (spec §5.1, D14)."""
    fs = factions(st)
    return all(f == "saint" for f in fs) or all(f == "sinner" for f in fs)


def may_use_kind(st: State, seat: int, kind: str) -> bool:
    """May ``seat`` use an ability of ``kind`` (usable_by, faction and lock; spec §5.1)?"""
    usable = KIND_USABLE_BY[kind]
    if usable == "any":
        return True
    return faction(st["public"][seat]) == usable and not locked(st)


def public_sum(public: list[str]) -> int:
    """Sum of printed numbers of a public set (Paradise = 3)."""
    return sum(CARDS[c].number for c in public)


def one_colour_possible(public: list[str]) -> bool:
    """True when all cards can be read as one colour (wild = any colour)."""
    return any(all(CARDS[c].colour in (col, "wild") for c in public) for col in COLOURS)


# --------------------------------------------------------------------------- advancement test


def _effective(st: State, seat: int) -> tuple[list[int], list[tuple[str, ...]], bool, int]:
    """Effective numbers, colour options per card, miracle flag and the sum (spec §5.2)."""
    public = st["public"][seat]
    turn = st["turn"]
    mod = turn.get("modifier")
    x3_per_card = mod == "x3" and st["options"]["x3_mode"] == "per_card"
    nums: list[int] = []
    cols: list[tuple[str, ...]] = []
    for cid in public:
        card = CARDS[cid]
        n = card.number
        if x3_per_card:
            n *= 3
        elif mod == "law":
            n = int(turn["law"])
        nums.append(n)
        cols.append(COLOURS if card.colour == "wild" else (card.colour,))
    total = sum(nums)
    if mod == "x3" and st["options"]["x3_mode"] == "sum_only":
        total = 3 * public_sum(public)
    total += int(turn.get("borrowed", 0))
    return nums, cols, mod == "miracle", total


def _colour_readings(cols: list[tuple[str, ...]], miracle: bool) -> list[tuple[str, ...]]:
    readings = [tuple(r) for r in itertools.product(*cols)]
    if miracle:
        readings += [tuple(c for _ in cols) for c in COLOURS]
    return readings


def combo_met(code: str, nums: list[int], cols: tuple[str, ...], c3_rule: str) -> bool:
    """Does one colour reading of exactly 3 cards meet combination ``code`` (spec §2.3, D8, D9)?"""
    if len(nums) != 3:
        return False
    pairs = list(zip(nums, cols, strict=True))
    if code == "C1":
        return all(n == 3 for n in nums) and len(set(cols)) == 1
    if code == "C4":
        return all(n == 2 for n in nums) and len(set(cols)) == 1
    if code == "C3":
        if not all(n == 3 for n in nums):
            return False
        if c3_rule == "all_different":
            return set(cols) == set(COLOURS)
        return len(set(cols)) > 1
    if code in ("C2", "C5"):
        pair_n, single_n = (3, 2) if code == "C2" else (2, 3)
        if sorted(nums) != sorted([pair_n, pair_n, single_n]):
            return False
        pair_cols = [c for n, c in pairs if n == pair_n]
        return pair_cols[0] == pair_cols[1]
    raise ValueError(code)


def combos_met(st: State, seat: int, allowed: tuple[str, ...]) -> list[str]:
    """Allowed combination codes the seat's public set meets now (some wild reading)."""
    nums, cols, miracle, _ = _effective(st, seat)
    if len(nums) != 3:
        return []
    c3 = st["options"]["c3_rule"]
    return [
        code
        for code in allowed
        if any(combo_met(code, nums, r, c3) for r in _colour_readings(cols, miracle))
    ]


def gate_ok(st: State, seat: int) -> bool:
    """The Gate condition (spec §2.3, D28): on 5, saint, 3 public cards, all effective 1s,
    and (``gate_same_colour``) readable as one colour."""
    if st["positions"][seat] != 5 or faction(st["public"][seat]) != "saint":
        return False
    nums, cols, miracle, _ = _effective(st, seat)
    if len(nums) != 3 or any(n != 1 for n in nums):
        return False
    if not st["options"]["gate_same_colour"]:
        return True
    return any(len(set(r)) == 1 for r in _colour_readings(cols, miracle))


def can_enter_next(st: State, seat: int) -> bool:
    """Can ``seat`` enter position p+1 ≤ 5 now (spec §5.2 with §2.3's table)?"""
    pos = st["positions"][seat]
    if pos >= 5:
        return False
    threshold, allowed = TRACK[pos + 1]
    fac = faction(st["public"][seat])
    _, _, _, total = _effective(st, seat)
    sum_ok = total >= threshold
    if st["options"]["board_side"] == "easy":
        return sum_ok or bool(combos_met(st, seat, allowed))
    if fac == "saint":
        return sum_ok
    if fac == "sinner":
        return bool(combos_met(st, seat, allowed))
    return False


def effective_sum(st: State, seat: int) -> int:
    """The seat's advancement sum with this turn's modifiers."""
    return _effective(st, seat)[3]


# --------------------------------------------------------------------------- plans


def _others(st: State, seat: int) -> list[int]:
    """Legal targets: other players not on the Gate (spec §5.4)."""
    return [s for s in range(st["players"]) if s != seat and st["positions"][s] != GATE]


def _without(st: State, card: str) -> State:
    """Shallow copy of ``st`` with ``card`` removed from its owner's public set."""
    out = dict(st)
    out["public"] = [[c for c in p if c != card] for p in st["public"]]
    return out


def owner_of_public(st: State, card: str) -> int | None:
    """Seat whose public set holds ``card``."""
    for s, pub in enumerate(st["public"]):
        if card in pub:
            return s
    return None


def plans(st: State, seat: int, kind: str, chain: frozenset[str]) -> list[Plan]:
    """Every complete parameter list for ``seat`` using an ability of ``kind`` in ``st``
    (spec §5.4: conditions, targets, copy/borrow chains with no kind twice). Empty when
    the ability cannot be used. ``chain`` holds kinds already in the chain (incl. ``kind``)."""
    if not may_use_kind(st, seat, kind):
        return []
    pub: list[str] = st["public"][seat]
    n = st["players"]
    opts = st["options"]
    facs = factions(st)
    n_s, n_n = facs.count("saint"), facs.count("sinner")
    out: list[Plan] = []
    if kind in ("holiness", "ignorance"):
        side = "saint" if kind == "holiness" else "sinner"
        if not pub or any(CARDS[c].side != side for c in pub):
            return []
        for k in HOLINESS_COPIES if kind == "holiness" else IGNORANCE_COPIES:
            if k in chain:
                continue
            for p in plans(st, seat, k, chain | {k}):
                out.append([["copy", k], *p])
        return out
    if kind == "arrogance":
        for owner in range(n):
            if owner != seat and st["positions"][owner] == GATE:
                continue
            for cid in st["public"][owner]:
                k = CARDS[cid].kind
                if k in NOT_TAKEABLE or k in chain:
                    continue
                for p in plans(_without(st, cid), seat, k, chain | {k}):
                    out.append([["take", cid], *p])
        return out
    if kind == "mercy":
        if not n_s < n_n:
            return []
        if opts["borrow_scope"] == "one":
            return [[["borrow", s]] for s in range(n) if facs[s] == "sinner"]
        return [[]]
    if kind == "shepherd":
        if not n_s > n_n:
            return []
        if opts["borrow_scope"] == "one":
            return [[["borrow", s]] for s in range(n) if s != seat and facs[s] == "saint"]
        return [[]]
    if kind == "miracle":
        return [[]] if pub and len({CARDS[c].number for c in pub}) == 1 else []
    if kind == "law":
        return [[["number", v]] for v in (1, 2, 3)] if pub and one_colour_possible(pub) else []
    if kind == "greed":
        return [[]] if n_n < n_s else []
    if kind == "pride":
        if not n_n > n_s:
            return []
        return [[["target", t]] for t in _others(st, seat)]
    if kind == "destruction":
        for t in _others(st, seat):
            if len(st["public"][t]) + len(st["hands"][t]) < 4:
                continue
            if st["public"][t]:
                out.extend([["target", t], ["card", c]] for c in st["public"][t])
            else:
                out.append([["target", t]])
        return out
    if kind == "cruelty":
        pos = st["positions"][seat]
        if not 1 <= pos <= 5:
            return []
        return [[["target", t]] for t in _others(st, seat) if st["positions"][t] == pos]
    if kind == "hypocrisy":
        for size in (1, 2):
            if len(pub) < size:
                continue
            mine = [list(c) for c in itertools.combinations(pub, size)]
            for t in _others(st, seat):
                if len(st["public"][t]) < size:
                    continue
                theirs = [list(c) for c in itertools.combinations(st["public"][t], size)]
                for m in mine:
                    for th in theirs:
                        out.append([["k", size], ["target", t], ["mine", m], ["theirs", th]])
        return out
    if kind in ("sacrifice", "repentance", "grace", "wrath"):
        return [[]]
    return []  # paradise, guardian


def card_plans(st: State, seat: int, card: str) -> list[Plan]:
    """Plans for USEing hand card ``card`` (spec §5.3 USE); empty = not usable."""
    kind = CARDS[card].kind
    if kind in ("paradise", "guardian"):
        return []
    return plans(st, seat, kind, frozenset({kind}))
