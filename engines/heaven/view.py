"""What each seat may see in The Way to Heaven (docs/rules/heaven.md §3, §11): the public
view (public sets, pawns, counts, the declared USE) and a seat's private view (its hand,
its secret split choice, cards it drew and must still place, the test it meets now).

``PublicView`` / ``PrivateView`` are the renderer's input types. Sentences in a view are
``Msg`` JSON (``{"msg": key, "params": {...}}``): the renderer formats them with its
``text`` keyword.
"""

from __future__ import annotations

import random
from typing import TypedDict, cast

from engines.base import JSONObject, Msg, Seat, copy_state, msg
from engines.heaven.types import Options, State

from .data import CARDS, GATE, LAST_SPACE, TRACK
from .effects import card_usable, plan_msg
from .rules import (
    can_enter_next,
    combos_met,
    counts,
    effective_sum,
    end_reason,
    faction,
    factions,
    gate_ok,
    locked,
    majority,
    order_seat,
    public_sum,
    to_move,
    winners,
)

MsgJSON = JSONObject
"""``Msg.to_json()``: ``{"msg": key, "params": {...}}``."""


class CardView(TypedDict):
    """One card as views show it (§2.1; ``name``/``name_zh`` from the data file,
    ``label`` "Mercy R1", ``ability`` the one-line ability ``ability.<kind>``)."""

    id: str
    kind: str
    name: str
    name_zh: str
    side: str
    colour: str
    number: int
    label: str
    usable_by: str
    ability: MsgJSON


class TrackSpace(TypedDict):
    """The §2.3 condition of one path space."""

    space: int
    sum: int
    combos: list[str]


class TurnView(TypedDict):
    """This turn's modifiers (§5.2): ``x3`` / ``law`` / ``miracle`` or None, Law's
    number, the borrowed numbers."""

    modifier: str | None
    law: int | None
    borrowed: int


class Counts(TypedDict):
    """Players per faction (§5.1)."""

    saint: int
    sinner: int
    none: int


class PublicView(TypedDict):
    """The public view (``player_view(state, None)``); ``active``/``reacting``/``start``
    are seats or None; ``declared`` is the USE waiting for reactions, ``end_reason`` why
    the game ended (both ``Msg`` JSON or None)."""

    game: str
    players: int
    phase: str
    stage: str | None
    round: int
    round_limit: int
    start: int | None
    active: int | None
    to_move: list[int]
    options: Options
    track: list[TrackSpace]
    positions: list[int]
    on_gate: list[bool]
    public: list[list[CardView]]
    factions: list[str]
    public_sums: list[int]
    counts: Counts
    majority: str
    lock: bool
    hand_counts: list[int]
    skips: list[int]
    split_done: list[bool]
    deck_count: int
    discard: list[CardView]
    buffer_count: int
    turn: TurnView
    declared: MsgJSON | None
    reacting: int | None
    winners: list[int]
    end_reason: MsgJSON | None


class NextTest(TypedDict):
    """The test the seat meets now for its next space (§2.3, §5.2): ``space`` (None on
    the Gate), ``met``, and ``text`` (``Msg`` JSON, e.g. "Space 1: sum ≥ 7 (you have 6)
    or C1/C2/C3/C4/C5 — not met")."""

    space: int | None
    met: bool
    text: MsgJSON


class PrivateView(PublicView):
    """The public view plus ``seat``'s secrets: its hand, split choice, the cards it drew
    and must still place (``buffer``), the hand cards it may USE now, its next test."""

    seat: int
    hand: list[CardView]
    split_choice: list[str] | None
    buffer: list[CardView]
    usable: list[str]
    next_test: NextTest | None


def card_view(cid: str) -> CardView:
    """One card for a view (§2.1): a fresh dict each call (callers may change it), copied
    from one built once per card (cards never change; views are drawn for every
    viewer and every variant of the undo check, bot/service.py ``reveals``).

    Raises:
        KeyError: no such card.
    """
    built = _CARD_VIEWS.get(cid)
    if built is None:
        c = CARDS[cid]
        built = _CARD_VIEWS[cid] = {
            "id": c.id, "kind": c.kind, "name": c.name_en, "name_zh": c.name_zh, "side": c.side,
            "colour": c.colour, "number": c.number, "label": c.short, "usable_by": c.usable_by,
            "ability": msg(f"ability.{c.kind}").to_json(),
        }
    ability = built["ability"]
    return {**built, "ability": {"msg": ability["msg"], "params": dict(cast(JSONObject, ability["params"]))}}


_CARD_VIEWS: dict[str, CardView] = {}


def _met(met: bool) -> Msg:
    return msg("test.met" if met else "test.not_met")


def next_test(st: State, seat: int) -> NextTest:
    """Which next-space test ``seat`` meets now (§11 "show each player … which next-space
    test they currently meet"; §2.3, §5.2)."""
    pos = st["positions"][seat]
    if pos >= GATE:
        return {"space": None, "met": False, "text": msg("test.on_gate").to_json()}
    if pos == LAST_SPACE:
        met = gate_ok(st, seat)
        colour = msg("test.one_colour" if st["options"]["gate_same_colour"] else "empty")
        return {"space": GATE, "met": met, "text": msg("test.gate", colour=colour, met=_met(met)).to_json()}
    need, allowed = TRACK[pos + 1]
    met = can_enter_next(st, seat)
    have = combos_met(st, seat, allowed)
    total = effective_sum(st, seat)
    fac = faction(st["public"][seat])
    combos = "/".join(allowed)
    if st["options"]["board_side"] == "easy":
        rule = msg("test.easy", need=need, sum=total, combos=combos)
    elif fac in ("saint", "sinner"):
        rule = msg(f"test.{fac}", need=need, sum=total, combos=combos)
    else:
        rule = msg("test.none")
    having = msg("test.have", combos=list(have)) if have else msg("empty")
    text = msg("test.space", space=pos + 1, rule=rule, have=having, met=_met(met))
    return {"space": pos + 1, "met": met, "text": text.to_json()}


def public_view(st: State) -> PublicView:
    """What everyone sees (§11 Board image): no hand, no draw pile order, no split choice."""
    n = st["players"]
    n_s, n_n = counts(st)
    use = st["use"]
    react = use is not None and st["stage"] == "react" and bool(use["windows"])
    over = st["phase"] == "over"
    return {
        "game": st["game"],
        "players": n,
        "phase": st["phase"],
        "stage": st["stage"],
        "round": st["round"],
        "round_limit": st["options"]["round_limit"],
        "start": st["start"],
        "active": order_seat(st) if st["phase"] == "play" else None,
        "to_move": sorted(to_move(st)),
        "options": st["options"].copy(),
        "track": [{"space": sp, "sum": thr, "combos": list(combos)} for sp, (thr, combos) in sorted(TRACK.items())],
        "positions": list(st["positions"]),
        "on_gate": [p == GATE for p in st["positions"]],
        "public": [[card_view(c) for c in pub] for pub in st["public"]],
        "factions": factions(st),
        "public_sums": [public_sum(p) for p in st["public"]],
        "counts": {"saint": n_s, "sinner": n_n, "none": n - n_s - n_n},
        "majority": majority(st),
        "lock": locked(st) if st["phase"] in ("play", "over", "start") else False,
        "hand_counts": [len(h) for h in st["hands"]],
        "skips": list(st["skips"]),
        "split_done": [c is not None for c in st["split"]],
        "deck_count": len(st["deck"]),
        "discard": [card_view(c) for c in st["discard"]],
        "buffer_count": len(st["buffer"]),
        "turn": {"modifier": st["turn"]["modifier"], "law": st["turn"]["law"], "borrowed": st["turn"]["borrowed"]},
        "declared": plan_msg(use["card"], use["plan"]).to_json() if use is not None else None,
        "reacting": int(use["windows"][0][1]) if react and use is not None else None,
        "winners": winners(st) if over else [],
        "end_reason": end_reason(st).to_json() if over else None,
    }


def player_view(st: State, seat: Seat | None) -> PublicView | PrivateView:
    """The public view (``seat`` None or not a seat) or the public view plus ``seat``'s
    secrets (``PrivateView``)."""
    view = public_view(st)
    if seat is None or not 0 <= seat < st["players"]:
        return view
    split = st["split"][seat]
    mine_active = view["active"] == seat
    playing = st["phase"] == "play"
    private: PrivateView = {
        **view,
        "seat": seat,
        "hand": [card_view(c) for c in st["hands"][seat]],
        "split_choice": list(split) if split is not None else None,
        "buffer": [card_view(c) for c in st["buffer"]] if mine_active else [],
        "usable": [c for c in st["hands"][seat] if card_usable(st, seat, c)] if playing else [],
        "next_test": next_test(st, seat) if playing else None,
    }
    return private


def shuffle_hidden(st: State, seat: Seat | None, rng: random.Random) -> State:
    """A state that differs from ``st`` only in what ``seat`` cannot see (the no-leak
    check): other players' hands (their secret split choices follow their cards), the
    draw pile, and the cards another player drew and must still place."""
    out = copy_state(st)  # (the undo check shuffles many variants)
    others = [s for s in range(out["players"]) if s != seat]
    pool: list[str] = list(out["deck"])
    for s in others:
        pool += out["hands"][s]
    buffer_hidden = out["phase"] != "play" or order_seat(out) != seat
    if buffer_hidden:
        pool += out["buffer"]
    rng.shuffle(pool)
    for s in others:
        old = out["hands"][s]
        new = [pool.pop() for _ in old]
        split = out["split"][s]
        if split is not None:
            out["split"][s] = [new[old.index(c)] for c in split]
        out["hands"][s] = new
    if buffer_hidden:
        out["buffer"] = [pool.pop() for _ in out["buffer"]]
    out["deck"] = sorted(pool)
    if out["build"] is not None and out["build"]["card"] not in out["hands"][order_seat(out)]:
        out["build"] = None  # a legacy half-declared USE of a hand that was reshuffled
    return out


def reveals(before: State, after: State) -> bool:
    """Whether a move from ``before`` to ``after`` turned a hidden card face up (§7): a card of
    a hand, of the draw pile or of the cards a player drew and must still place lies in a
    public set or on the discard pile after it (the secret split too: every public set is
    shown when the last player confirms)."""
    hidden = {*before["deck"], *before["buffer"], *(c for hand in before["hands"] for c in hand)}
    return any(c in hidden for c in after["discard"]) or \
        any(c in hidden for cards in after["public"] for c in cards)
