"""The abilities of The Way to Heaven as one table (docs/rules/heaven.md §5.4).

``EFFECTS`` has one ``Effect`` per card kind: when it may be used and with which
parameters (``plans``), what it does for the active player (``resolve``) and whether it is
an attack (§5.5). ``PICKS`` has one ``Pick`` per plan key: how a chosen parameter reads in
a declared USE and how it is labelled as a step of the USE menu. Everything that enumerates,
applies, describes or labels an ability reads these two tables.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from engines.base import Event, Msg, msg, seat_ref, term
from engines.heaven.types import Chance, Params, Plan, PlanValue, State

from .data import (
    CARDS,
    GATE,
    GRACE_DRAW,
    HAND_SIZE,
    HOLINESS_COPIES,
    IGNORANCE_COPIES,
    KINDS,
    NOT_TAKEABLE,
    PUBLIC_SIZE,
)
from .rules import (
    card_list,
    card_ref,
    cards_ref,
    counts,
    event,
    factions,
    may_use_kind,
    one_colour_possible,
    others,
    owner_of_public,
    public_sum,
    without,
)

Pending = Chance | None
"""What a resolved ability still waits for: a chance request in the shape of
``state["chance"]`` (``{"kind": "draw", "seat", "left", "purpose"}`` or
``{"kind": "destroy", "seat"}``), or None when the turn goes on to advancement."""

Planner = Callable[[State, int, frozenset[str]], list[Plan]]
AnyPlan = Callable[[State, int, frozenset[str]], bool]
Resolver = Callable[[State, int, Params, list[Event]], Pending]


@dataclass(frozen=True)
class Effect:
    """One card kind's ability (§5.4).

    Attributes:
        plans: ``(state, seat, chain) -> plans``: every complete parameter list, given that
            ``seat`` may use the kind (faction and lock are checked by ``plans``); empty
            when its condition fails. ``chain`` holds the kinds already in the chain.
        resolve: ``(state, seat, params, events) -> Pending``: applies the ability to the
            state in place (params by plan key) and appends its events.
        attack: True when the resolved ability targets another player (§5.5 windows).
        any_plan: ``(state, seat, chain) -> bool``: whether ``plans`` would give any plan,
            without listing them, for the kinds whose plans are many or recurse (Hypocrisy's
            pairs, the copies, Arrogance's takes); None: ``bool(plans(...))``.
    """

    plans: Planner
    resolve: Resolver
    attack: bool = False
    any_plan: AnyPlan | None = None


# --------------------------------------------------------------------------- conditions and parameters


def plans(st: State, seat: int, kind: str, chain: frozenset[str]) -> list[Plan]:
    """Every complete parameter list for ``seat`` using an ability of ``kind`` in ``st``
    (§5.1 "may use", §5.4 conditions, targets, copy/borrow chains with no kind twice).
    Empty when the ability cannot be used. ``chain`` holds kinds already in the chain
    (including ``kind``)."""
    if not may_use_kind(st, seat, kind):
        return []
    return EFFECTS[kind].plans(st, seat, chain)


def has_plans(st: State, seat: int, kind: str, chain: frozenset[str]) -> bool:
    """Whether ``plans(st, seat, kind, chain)`` is not empty, without listing the plans."""
    if not may_use_kind(st, seat, kind):
        return False
    effect = EFFECTS[kind]
    return effect.any_plan(st, seat, chain) if effect.any_plan is not None else bool(effect.plans(st, seat, chain))


def card_plans(st: State, seat: int, card: str) -> list[Plan]:
    """Plans for USEing hand card ``card`` (§5.3 USE); empty = not usable."""
    kind = CARDS[card].kind
    return plans(st, seat, kind, frozenset({kind}))


def card_usable(st: State, seat: int, card: str) -> bool:
    """Whether ``seat`` may USE hand card ``card`` now: ``card_plans`` is not empty."""
    kind = CARDS[card].kind
    return has_plans(st, seat, kind, frozenset({kind}))


def _copier(side: str, copies: tuple[str, ...]) -> Planner:
    """Holiness / Ignorance: all public cards of ``side``; copy one of ``copies``."""
    def planner(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
        pub: list[str] = st["public"][seat]
        if not pub or any(CARDS[c].side != side for c in pub):
            return []
        return [[["copy", k], *p] for k in copies if k not in chain for p in plans(st, seat, k, chain | {k})]
    return planner


def _copier_any(side: str, copies: tuple[str, ...]) -> AnyPlan:
    """``_copier``'s planner gives a plan: some kind it may copy has one."""
    def any_plan(st: State, seat: int, chain: frozenset[str]) -> bool:
        pub: list[str] = st["public"][seat]
        if not pub or any(CARDS[c].side != side for c in pub):
            return False
        return any(has_plans(st, seat, k, chain | {k}) for k in copies if k not in chain)
    return any_plan


def _arrogance_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    out: list[Plan] = []
    for owner in range(st["players"]):
        if owner != seat and st["positions"][owner] == GATE:
            continue
        for cid in st["public"][owner]:
            k = CARDS[cid].kind
            if k in NOT_TAKEABLE or k in chain:
                continue
            out += [[["take", cid], *p] for p in plans(without(st, cid), seat, k, chain | {k})]
    return out


def _arrogance_any(st: State, seat: int, chain: frozenset[str]) -> bool:
    """``_arrogance_plans`` gives a plan: some card it may take has one."""
    for owner in range(st["players"]):
        if owner != seat and st["positions"][owner] == GATE:
            continue
        for cid in st["public"][owner]:
            k = CARDS[cid].kind
            if k not in NOT_TAKEABLE and k not in chain and has_plans(without(st, cid), seat, k, chain | {k}):
                return True
    return False


def _borrow_plans(side: str, need: Callable[[int, int], bool]) -> Planner:
    """Mercy (side sinner, saints minority) / Shepherd (side saint, saints majority)."""
    def planner(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
        if not need(*counts(st)):
            return []
        if st["options"]["borrow_scope"] == "one":
            facs = factions(st)
            return [[["borrow", s]] for s in range(st["players"]) if s != seat and facs[s] == side]
        return [[]]
    return planner


def _always(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    return [[]]


def _never(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    return []


def _miracle_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    pub = st["public"][seat]
    return [[]] if pub and len({CARDS[c].number for c in pub}) == 1 else []


def _law_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    pub = st["public"][seat]
    return [[["number", v]] for v in (1, 2, 3)] if pub and one_colour_possible(pub) else []


def _greed_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    n_s, n_n = counts(st)
    return [[]] if n_n < n_s else []


def _pride_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    n_s, n_n = counts(st)
    return [[["target", t]] for t in others(st, seat)] if n_n > n_s else []


def _destruction_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    out: list[Plan] = []
    for t in others(st, seat):
        if len(st["public"][t]) + len(st["hands"][t]) < 4:
            continue
        if st["public"][t]:
            out += [[["target", t], ["card", c]] for c in st["public"][t]]
        else:
            out.append([["target", t]])
    return out


def _cruelty_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    pos = st["positions"][seat]
    if not 1 <= pos <= 5:
        return []
    return [[["target", t]] for t in others(st, seat) if st["positions"][t] == pos]


def _hypocrisy_plans(st: State, seat: int, chain: frozenset[str]) -> list[Plan]:
    pub = st["public"][seat]
    out: list[Plan] = []
    for size in (1, 2):
        if len(pub) < size:
            continue
        mine = [list(c) for c in itertools.combinations(pub, size)]
        for t in others(st, seat):
            if len(st["public"][t]) < size:
                continue
            theirs = [list(c) for c in itertools.combinations(st["public"][t], size)]
            out += [[["k", size], ["target", t], ["mine", m], ["theirs", th]] for m in mine for th in theirs]
    return out


def _hypocrisy_any(st: State, seat: int, chain: frozenset[str]) -> bool:
    """``_hypocrisy_plans`` gives a plan: one public card of the seat's and one of another's
    to swap (a pair to swap needs two of each, so one of each already gives a plan)."""
    return bool(st["public"][seat]) and any(st["public"][t] for t in others(st, seat))


# --------------------------------------------------------------------------- resolution


def _nothing(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
    return None


def _borrow(side: str) -> Resolver:
    """Mercy / Shepherd: borrowed += the public sums of the ``side`` players (or the chosen one)."""
    def resolve(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
        facs = factions(st)
        seats = [prm["borrow"]] if "borrow" in prm else [
            s for s in range(st["players"]) if s != seat and facs[s] == side]
        amount = sum(public_sum(st["public"][s]) for s in seats)
        st["turn"]["borrowed"] += amount
        ev.append(event("borrow", seat=seat_ref(seat), amount=amount))
        return None
    return resolve


def _modifier(name: str, *, sacrifice: bool = False) -> Resolver:
    """Miracle / Law / ×3 (Sacrifice also discards a public card at step 2b)."""
    def resolve(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
        st["turn"]["modifier"] = name
        if name == "law":
            st["turn"]["law"] = prm["number"]
        st["turn"]["sacrifice"] = sacrifice
        return None
    return resolve


def _pride(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
    t = prm["target"]
    st["skips"][t] += 1
    ev.append(event("pride", seat=seat_ref(t)))
    return None


def _cruelty(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
    t = prm["target"]
    st["positions"][t] = max(0, st["positions"][t] - 1)
    ev.append(event("cruelty", seat=seat_ref(t), space=st["positions"][t]))
    return None


def _hypocrisy(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
    t = prm["target"]
    pa, pt = st["public"][seat], st["public"][t]
    for m, th in zip(prm["mine"], prm["theirs"], strict=True):
        pa[pa.index(m)] = th
        pt[pt.index(th)] = m
    ev.append(event("swap", seat=seat_ref(seat), target=seat_ref(t)))
    return None


def _destruction(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
    t = prm["target"]
    c = prm.get("card")
    if c is not None and c in st["public"][t]:
        st["public"][t].remove(c)
        st["discard"].append(c)
        ev.append(event("destroy_public", seat=seat_ref(t), card=card_ref(c)))
    return {"kind": "destroy", "seat": t} if st["hands"][t] else None


def _grace(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
    return {"kind": "draw", "seat": seat, "left": GRACE_DRAW, "purpose": "grace"}


def _purge(side: str) -> Resolver:
    """Repentance (purge sinner cards) / Wrath (purge saint cards), then the refill (§5.4, D23)."""
    def resolve(st: State, seat: int, prm: Params, ev: list[Event]) -> Pending:
        purged = [c for c in st["public"][seat] + st["hands"][seat] if CARDS[c].side == side]
        st["public"][seat] = [c for c in st["public"][seat] if CARDS[c].side != side]
        st["hands"][seat] = [c for c in st["hands"][seat] if CARDS[c].side != side]
        st["discard"].extend(purged)
        ev.append(event("purge", seat=seat_ref(seat), cards=card_list(purged)))
        need_pub = PUBLIC_SIZE - len(st["public"][seat])
        need_hand = max(0, HAND_SIZE - len(st["hands"][seat]))
        st["refill_a"] = need_pub
        if need_pub + need_hand > 0:
            return {"kind": "draw", "seat": seat, "left": need_pub + need_hand, "purpose": "refill"}
        return None
    return resolve


EFFECTS: dict[str, Effect] = {
    "holiness": Effect(_copier("saint", HOLINESS_COPIES), _nothing, any_plan=_copier_any("saint", HOLINESS_COPIES)),
    "mercy": Effect(_borrow_plans("sinner", lambda n_s, n_n: n_s < n_n), _borrow("sinner")),
    "miracle": Effect(_miracle_plans, _modifier("miracle")),
    "shepherd": Effect(_borrow_plans("saint", lambda n_s, n_n: n_s > n_n), _borrow("saint")),
    "sacrifice": Effect(_always, _modifier("x3", sacrifice=True)),
    "guardian": Effect(_never, _nothing),          # only as a reaction (§5.5)
    "repentance": Effect(_always, _purge("sinner")),
    "grace": Effect(_always, _grace),
    "paradise": Effect(_never, _nothing),          # passive only
    "ignorance": Effect(_copier("sinner", IGNORANCE_COPIES), _nothing, any_plan=_copier_any("sinner", IGNORANCE_COPIES)),
    "greed": Effect(_greed_plans, _modifier("x3")),
    "pride": Effect(_pride_plans, _pride, attack=True),
    "law": Effect(_law_plans, _modifier("law")),
    "destruction": Effect(_destruction_plans, _destruction, attack=True),
    "cruelty": Effect(_cruelty_plans, _cruelty, attack=True),
    "hypocrisy": Effect(_hypocrisy_plans, _hypocrisy, attack=True, any_plan=_hypocrisy_any),
    "arrogance": Effect(_arrogance_plans, _nothing, any_plan=_arrogance_any),
    "wrath": Effect(_always, _purge("saint")),
}
"""One entry per card kind (§2.1, §5.4). Holiness, Ignorance and Arrogance never resolve
themselves: a chain always ends in another kind."""

if set(EFFECTS) != set(KINDS):
    raise ValueError(f"the effect table and heaven_cards.csv disagree: {sorted(set(EFFECTS) ^ set(KINDS))}")


# --------------------------------------------------------------------------- how parameters read


@dataclass(frozen=True)
class Pick:
    """One plan key (a parameter of a USE).

    Attributes:
        detail: ``(value) -> Msg | None``: the parameter inside a declared USE
            ("target {seat}"); None when it adds nothing (``k`` follows from the cards).
        step: ``(state, seat, value) -> Msg``: the parameter as a step of the USE menu
            ("Target {seat} (space 3)"), for the active ``seat`` in ``state``.
    """

    detail: Callable[[PlanValue], Msg | None]
    step: Callable[[State, int, PlanValue], Msg]


def _seat(v: PlanValue) -> int:
    """The value of a seat key (``borrow``, ``target``)."""
    return cast(int, v)


def _card(v: PlanValue) -> str:
    """The value of a card key (``take``, ``card``)."""
    return cast(str, v)


def _cards(v: PlanValue) -> list[str]:
    """The value of a cards key (``mine``, ``theirs``)."""
    return cast("list[str]", v)


def _take_step(st: State, seat: int, v: PlanValue) -> Msg:
    card = _card(v)
    owner = owner_of_public(st, card)
    if owner == seat:
        return msg("step.take_own", card=card_ref(card))
    return msg("step.take", owner=seat_ref(owner or 0), card=card_ref(card))


PICKS: dict[str, Pick] = {
    "copy": Pick(lambda v: msg("use.copy", kind=term(f"card.{v}")),
                 lambda st, s, v: msg("step.copy", kind=term(f"card.{v}"))),
    "take": Pick(lambda v: msg("use.take", card=card_ref(_card(v))), _take_step),
    "borrow": Pick(lambda v: msg("use.borrow", seat=seat_ref(_seat(v))),
                   lambda st, s, v: msg("step.borrow", seat=seat_ref(_seat(v)),
                                        sum=public_sum(st["public"][_seat(v)]))),
    "number": Pick(lambda v: msg("use.number", n=v), lambda st, s, v: msg("step.number", n=v)),
    "target": Pick(lambda v: msg("use.target", seat=seat_ref(_seat(v))),
                   lambda st, s, v: msg("step.target", seat=seat_ref(_seat(v)), space=st["positions"][_seat(v)])),
    "card": Pick(lambda v: msg("use.remove", card=card_ref(_card(v))),
                 lambda st, s, v: msg("step.remove", card=card_ref(_card(v)))),
    "k": Pick(lambda v: None, lambda st, s, v: msg("step.swap_two" if v == 2 else "step.swap_one")),
    "mine": Pick(lambda v: msg("use.give", cards=cards_ref(_cards(v))),
                 lambda st, s, v: msg("step.give", cards=cards_ref(_cards(v)))),
    "theirs": Pick(lambda v: msg("use.get", cards=cards_ref(_cards(v))),
                   lambda st, s, v: msg("step.get", cards=cards_ref(_cards(v)))),
}
"""One entry per plan key (§5.4 parameters)."""


def _codes(cids: list[str]) -> Msg:
    return msg("cards.codes", codes="+".join(CARDS[c].code for c in cids))


SHORT_PICKS: dict[str, Callable[[PlanValue], Msg]] = {
    "take": lambda v: msg("use.take", card=_codes([_card(v)])),
    "card": lambda v: msg("use.remove", card=_codes([_card(v)])),
    "mine": lambda v: msg("use.give", cards=_codes(_cards(v))),
    "theirs": lambda v: msg("use.get", cards=_codes(_cards(v))),
}
"""Cards by code only, for a USE's button label (a chain or a swap names up to four cards;
the panel's steps above the button name them in full)."""


def plan_msg(card: str, plan: Plan, *, short: bool = False) -> Msg:
    """A declared USE as a message: "Hypocrisy R2: target Bo, give Mercy B1, get Wrath B3"
    (``use.plan``), or just the card (``use.bare``) when it has no parameters. ``short``
    names the cards a plan takes, removes or swaps by code ("give B1, get B3"), so a label fits a button (80 chars)."""
    def detail(key: str, value: PlanValue) -> Msg | None:
        if short and key in SHORT_PICKS:
            return SHORT_PICKS[key](value)
        return PICKS[key].detail(value)

    details = [d.to_json() for d in (detail(cast(str, k), v) for k, v in plan) if d is not None]
    if not details:
        return msg("use.bare", card=card_ref(card))
    return msg("use.plan", card=card_ref(card), details=details)
