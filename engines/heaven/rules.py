"""Pure rule helpers for The Way to Heaven: factions, counts, the lock, effective values,
the advancement test, targets, the turn order, the end, and the message parameters that
name cards (docs/rules/heaven.md §5.1–§5.4, §8).

Every function reads a state dict and never mutates it.
"""

from __future__ import annotations

import itertools
from typing import cast

from engines.base import CHANCE, Event, JSONObject, Msg, msg, present, seats_ref, term
from engines.heaven.types import Build, Chance, Params, Plan, State, Turn, Use

from .data import (
    CARDS,
    COLOURS,
    GATE,
    HAND_SIZE,
    KIND_USABLE_BY,
    LAST_SPACE,
    TRACK,
)

CHAIN_KEYS: frozenset[str] = frozenset({"copy", "take"})
"""Plan keys that lead to another ability (Holiness/Ignorance ``copy``, Arrogance ``take``)."""


# --------------------------------------------------------------------------- derived state


def chance_of(st: State) -> Chance:
    """The chance request pending (``chance`` is set while CHANCE is to move)."""
    return present(st["chance"], "a chance request is pending")


def use_of(st: State) -> Use:
    """The declared USE (``use`` is set while its Guardian windows run)."""
    return present(st["use"], "a USE is declared")


def build_of(st: State) -> Build:
    """The USE half-declared by a state_version 1 log (``build`` is set then)."""
    return present(st["build"], "a USE is being declared")


def faction(public: list[str]) -> str:
    """Faction of a public set: ``saint``, ``sinner`` or ``none`` (§5.1, D3)."""
    saints = sum(1 for c in public if CARDS[c].side == "saint")
    sinners = len(public) - saints
    if saints > sinners:
        return "saint"
    if sinners > saints:
        return "sinner"
    return "none"


def factions(st: State) -> list[str]:
    """Faction of every seat (§5.1)."""
    return [faction(p) for p in st["public"]]


def counts(st: State) -> tuple[int, int]:
    """``(nS, nN)``: players in saint faction and in sinner faction (§5.1)."""
    fs = factions(st)
    return fs.count("saint"), fs.count("sinner")


def majority(st: State) -> str:
    """``saint`` / ``sinner`` when that faction has strictly more players, else ``none`` (§5.1)."""
    n_s, n_n = counts(st)
    if n_s > n_n:
        return "saint"
    if n_n > n_s:
        return "sinner"
    return "none"


def locked(st: State) -> bool:
    """The all-in-one-faction lock (§5.1, D14)."""
    fs = factions(st)
    return all(f == "saint" for f in fs) or all(f == "sinner" for f in fs)


def may_use_kind(st: State, seat: int, kind: str) -> bool:
    """May ``seat`` use an ability of ``kind`` (usable_by, faction and lock; §5.1)?"""
    usable = KIND_USABLE_BY[kind]
    if usable == "any":
        return True
    return faction(st["public"][seat]) == usable and not locked(st)


def public_sum(public: list[str]) -> int:
    """Sum of printed numbers of a public set (Paradise = 3; §5.1)."""
    return sum(CARDS[c].number for c in public)


def one_colour_possible(public: list[str]) -> bool:
    """True when all cards can be read as one colour (wild = any colour; §5.4 Law)."""
    return any(all(CARDS[c].colour in (col, "wild") for c in public) for col in COLOURS)


# --------------------------------------------------------------------------- advancement test


def _effective(st: State, seat: int) -> tuple[list[int], list[tuple[str, ...]], bool, int]:
    """Effective numbers, colour options per card, miracle flag and the sum (§5.2)."""
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
            law = turn["law"]
            assert law is not None, "Law names a number"
            n = int(law)
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
    """Does one colour reading of exactly 3 cards meet combination ``code`` (§2.3, D8, D9)?

    Raises:
        ValueError: ``code`` is not C1–C5.
    """
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
    """Allowed combination codes the seat's public set meets now (some wild reading; §5.2)."""
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
    """The Gate condition (§2.3, D28): on 5, saint, 3 public cards, all effective 1s,
    and (``gate_same_colour``) readable as one colour."""
    if st["positions"][seat] != LAST_SPACE or faction(st["public"][seat]) != "saint":
        return False
    nums, cols, miracle, _ = _effective(st, seat)
    if len(nums) != 3 or any(n != 1 for n in nums):
        return False
    if not st["options"]["gate_same_colour"]:
        return True
    return any(len(set(r)) == 1 for r in _colour_readings(cols, miracle))


def can_enter_next(st: State, seat: int) -> bool:
    """Can ``seat`` enter position p+1 ≤ 5 now (§5.2 with §2.3's table)?"""
    pos = st["positions"][seat]
    if pos >= LAST_SPACE:
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
    """The seat's advancement sum with this turn's modifiers (§5.2)."""
    return _effective(st, seat)[3]


def with_public(st: State, seat: int, public: list[str], position: int) -> State:
    """A shallow copy of ``st`` where ``seat`` holds ``public`` on ``position``: the trial
    of a setup split or a refill choice (§3, §5.4 Refill) before it is made."""
    return {**st, "public": [public if s == seat else p for s, p in enumerate(st["public"])],
            "positions": [position if s == seat else p for s, p in enumerate(st["positions"])]}


# --------------------------------------------------------------------------- targets and chains


def others(st: State, seat: int) -> list[int]:
    """Legal targets: other players not on the Gate (§5.4)."""
    return [s for s in range(st["players"]) if s != seat and st["positions"][s] != GATE]


def without(st: State, card: str) -> State:
    """Shallow copy of ``st`` with ``card`` removed from its owner's public set (§5.4
    Arrogance: the taken card is judged after its removal, D18)."""
    out = st.copy()
    out["public"] = [[c for c in p if c != card] for p in st["public"]]
    return out


def owner_of_public(st: State, card: str) -> int | None:
    """Seat whose public set holds ``card``, or None."""
    for s, pub in enumerate(st["public"]):
        if card in pub:
            return s
    return None


def table_number(st: State, card: str) -> int:
    """``card``'s number among the public cards on the table (1, 2, … in seat order, each seat's
    public set in its order): the number the decision picture (render/heaven.py
    ``render_decision``) draws on it and the labels of the choices that pick it say."""
    n = 0
    for pub in st["public"]:
        for c in pub:
            n += 1
            if c == card:
                return n
    raise KeyError(card)


def chain_of(card: str, plan: Plan) -> tuple[str, str | None, Params]:
    """The declared chain of a USE of hand card ``card`` (§5.4 Copy/borrow chains):
    ``(final kind, the public card Arrogance takes or None, the final ability's
    parameters by key)``."""
    kind = CARDS[card].kind
    taken: str | None = None
    i = 0
    while i < len(plan) and plan[i][0] in CHAIN_KEYS:
        key, value = plan[i]
        if key == "take":
            taken = str(value)
            kind = CARDS[taken].kind
        else:
            kind = str(value)
        i += 1
    return kind, taken, cast(Params, {k: v for k, v in plan[i:]})


# --------------------------------------------------------------------------- turns and the end


def new_turn() -> Turn:
    """The turn-scoped effects at the start of a turn (§4: they expire at its end)."""
    return {"modifier": None, "law": None, "borrowed": 0, "sacrifice": False}


def order_seat(st: State) -> int:
    """The seat whose turn it is in the round order from the start player (§3.4, §4)."""
    start = st["start"]
    assert start is not None, "the start player is drawn before play"
    return int((start + st["turn_index"]) % st["players"])


def active(st: State) -> int | None:
    """The active player while the game is in play (§4), else None."""
    return order_seat(st) if st["phase"] == "play" else None


def grace_room(st: State, seat: int) -> int:
    """How many of the cards Grace drew ``seat`` may keep (§5.4, D22, ``grace_cap``)."""
    buf = st["buffer"]
    if st["options"]["grace_cap"] == "none":
        return len(buf)
    return max(0, min(len(buf), HAND_SIZE - len(st["hands"][seat])))


def grace_subsets(st: State, seat: int) -> list[list[str]]:
    """Every choice of drawn cards to keep, largest first (§5.4 Grace)."""
    buf = st["buffer"]
    out: list[list[str]] = []
    for size in range(grace_room(st, seat), -1, -1):
        out += [list(c) for c in itertools.combinations(buf, size)]
    return out


def winners(st: State) -> list[int]:
    """The winners once the game is over (§8, D32, D35): every pawn on the Gate, else
    (round limit) the pawns furthest along."""
    positions: list[int] = st["positions"]
    on_gate = [s for s, p in enumerate(positions) if p == GATE]
    if on_gate:
        return on_gate
    best = max(positions)
    return [s for s, p in enumerate(positions) if p == best]


# --------------------------------------------------------------------------- message parameters


def card_ref(cid: str) -> Msg:
    """A card named in a message: ``card`` = "{name} {code}" with the kind's published
    name as the term ``card.<kind>`` and ``code`` its colour letter and number ("Mercy R1")."""
    card = CARDS[cid]
    return msg("card", name=term(f"card.{card.kind}"), code=card.code)


def cards_ref(cids: list[str]) -> Msg:
    """Several cards joined by " + " (``cards.none`` for none): nested ``join`` messages."""
    if not cids:
        return msg("cards.none")
    out = card_ref(cids[-1])
    for cid in reversed(cids[:-1]):
        out = msg("cards.join", head=card_ref(cid), tail=out)
    return out


def card_list(cids: list[str]) -> list[JSONObject] | Msg:
    """Several cards joined by ", " (the host joins a list so), or ``cards.none`` ("nothing")."""
    return [card_ref(c).to_json() for c in cids] if cids else msg("cards.none")


def event(kind: str, *, visible_to: frozenset[int] | None = None, **params: object) -> Event:
    """``Event(kind, params=..., visible_to=...)`` with ``Msg`` parameters stored as JSON
    (catalog key ``event.<kind>``)."""
    return Event(kind, params=dict(msg(kind, **params).params), visible_to=visible_to)


def to_move(st: State) -> frozenset[int]:
    """Seats to act (§4): every seat still choosing during the setup split; the reacting
    seat in a Guardian window; ``{CHANCE}`` while chance is pending; empty at the end."""
    if st["phase"] == "over":
        return frozenset()
    if st["chance"] is not None:
        return frozenset({CHANCE})
    if st["phase"] == "split":
        return frozenset(s for s in range(st["players"]) if st["split"][s] is None)
    if st["stage"] == "react":
        return frozenset({int(use_of(st)["windows"][0][1])})
    return frozenset({order_seat(st)})


def end_reason(st: State) -> Msg:
    """Why the game ended (§8): ``reason.gate`` (winners on the Gate) or ``reason.limit``
    (the round limit; the winners' space), ``_one`` or ``_many`` by the number of winners."""
    won = winners(st)
    count = "one" if len(won) == 1 else "many"
    if st["positions"][won[0]] == GATE:
        return msg(f"reason.gate_{count}", winners=seats_ref(won))
    return msg(f"reason.limit_{count}", winners=seats_ref(won), space=st["positions"][won[0]])
