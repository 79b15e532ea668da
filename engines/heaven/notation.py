"""Notation, labels, hints, menu steps and prompts of The Way to Heaven
(docs/rules/heaven.md §5.3–§5.6, §11 Private prompts).

Notation is typed text with card ids and seat letters (``use N40 target C card S06``,
``replace S01 N30``); every other text here is a ``Msg`` formatted by the host with
``bot/text/en/heaven.toml``. A USE is one whole action whose menu steps are the card, the
chain, then the parameters (``action_path``); the shared ``engines/decisions.py`` shows
them one at a time with Back.
"""

from __future__ import annotations

from typing import cast

from engines.base import CHANCE, Msg, msg, seat_letter, seat_ref, term
from engines.decisions import MAX_DEPTH
from engines.heaven.types import Action, Plan, PlanValue, State
from engines.heaven.view import PrivateView, PublicView
from engines.notation import GameNotation

from .data import CARDS, LAST_SPACE
from .effects import PICKS, plan_msg
from .rules import (
    CHAIN_KEYS,
    can_enter_next,
    card_ref,
    cards_ref,
    faction,
    grace_room,
    new_turn,
    order_seat,
    public_sum,
    table_number,
    to_move,
    use_of,
    with_public,
)


def _value(key: PlanValue, value: PlanValue) -> str:
    if key in ("target", "borrow"):
        return seat_letter(cast(int, value))
    if isinstance(value, list):
        return "+".join(str(v) for v in value)
    return str(value)


def describe_action(state: State, action: Action) -> str:
    """Canonical short notation (§5.3): ``pass``, ``add S01``, ``replace S01 N30``,
    ``use N47 k 1 target B mine S05 theirs N52``, ``split S01 S02 N30``, ``keep S03 N31``
    / ``keep none``, ``guard S16``, ``start C``, ``draw N40`` (chance)."""
    t = action.get("type")
    if t in ("draw", "destroy") and "card" in action:
        return f"{t} {action['card']}"
    if t == "start":
        return f"start {seat_letter(action['seat'])}"
    if t == "split":
        return "split " + " ".join(action["public"])
    if t == "use":
        pairs = " ".join(f"{k} {_value(k, v)}" for k, v in action.get("plan") or [])
        return f"use {action['card']}" + (f" {pairs}" if pairs else "")
    if t in ("add", "discard", "guard", "lose"):
        return f"{t} {action['card']}"
    if t == "replace":
        return f"replace {action['card']} {action['out']}"
    if t == "keep":
        return "keep " + (" ".join(action["cards"]) or "none")
    if t == "assign":
        return "assign " + " ".join(action["public"])
    if t == "pick":  # a state_version 1 log: one detail of a USE
        return f"{action['key']} {_value(action['key'], action['value'])}"
    return str(t)


def set_hint(state: State, seat: int, public: list[str], position: int) -> Msg:
    """``saint · sum 7 · space 1 ✓``: the faction and sum ``public`` would show and
    whether ``seat`` could then enter the next space (§2.3, §5.1); the hint of a setup
    split and of a refill assignment, where the set decides the faction."""
    fac = term(f"faction.{faction(public)}")
    if position >= LAST_SPACE:
        return msg("hint.set", faction=fac, sum=public_sum(public))
    ok = can_enter_next(with_public(state, seat, public, position), seat)
    return msg("hint.set_space", faction=fac, sum=public_sum(public), space=position + 1,
               mark=msg("hint.yes" if ok else "hint.no"))


def _split_seat(state: State, action: Action) -> int:
    chosen = set(action["public"])
    return next((s for s in range(state["players"]) if chosen <= set(state["hands"][s])), 0)


def _reactor(state: State) -> int:
    use = state["use"]
    return int(use["windows"][0][1]) if use and use["windows"] else order_seat(state)


PICKED = ("take", "card", "mine", "theirs")
"""The plan keys that pick public cards on the table: their labels say the cards' numbers
(``table_number``) as the decision picture shows them."""


def _numbers(state: State, plan: Plan) -> str:
    """The numbers of the public cards a plan picks: "3" (taken or removed), "2⇄5" (a swap:
    given, then got); "" when it picks none."""
    got = {k: v for k, v in plan if k in PICKED}
    one = [table_number(state, str(v)) for k, v in plan if k in ("take", "card")]
    if "mine" in got and "theirs" in got:
        mine = "+".join(str(table_number(state, c)) for c in cast("list[str]", got["mine"]))
        theirs = "+".join(str(table_number(state, c)) for c in cast("list[str]", got["theirs"]))
        one_text = "+".join(str(n) for n in one)
        return (one_text + " · " if one_text else "") + f"{mine}⇄{theirs}"
    return "+".join(str(n) for n in one)


def _numbered(label: Msg, numbers: str) -> Msg:
    """``label`` after the numbers of the cards it picks ("3 · Use Arrogance B2: …")."""
    return msg("label.numbered", n=numbers, label=label) if numbers else label


def action_label_full(state: State, action: Action) -> Msg | None:
    """A USE's label with every card by name and code ("Use Hypocrisy R2: target Bo, give
    Wrath R3, get Pride G1"), for a panel where its short label (cards by code: nine cards
    are "G1") reads like another's (§11 Private prompts: the USE flows offer only legal
    choices, so each must be told apart); None for the other actions (their labels name
    cards in full already)."""
    if action.get("type") != "use":
        return None
    return _numbered(msg("label.use", use=plan_msg(action["card"], action["plan"])),
                     _numbers(state, action["plan"]))


def action_label(state: State, action: Action) -> Msg:
    """The button / select text of a legal action (§11 Private prompts), English ≤ 80
    characters for the common cases; a USE names the whole declaration, after the numbers of the
    public cards it picks ("3 · Use …": ``table_number``, as the decision picture shows them; a
    swap by those numbers only, "1+2⇄7+8 · Use Hypocrisy R2: target Cy")."""
    t = action.get("type")
    if t == "split":
        return msg("label.cards", cards=cards_ref(action["public"]))
    if t == "assign":
        return msg("label.cards", cards=cards_ref(action["public"]))
    if t == "pass":
        return msg("label.pass")
    if t in ("add", "discard", "guard", "lose"):
        return msg(f"label.{t}", card=card_ref(action["card"]))
    if t == "replace":
        return msg("label.replace", out=card_ref(action["out"]), card=card_ref(action["card"]))
    if t == "use":  # (a swap's cards are its numbers: "1+2⇄7+8 · Use Hypocrisy R2: target Cy")
        told = [p for p in action["plan"] if p[0] not in ("mine", "theirs")]
        return _numbered(msg("label.use", use=plan_msg(action["card"], told, short=True)),
                         _numbers(state, action["plan"]))
    if t == "allow":
        holds = any(CARDS[c].kind == "guardian" for c in state["hands"][_reactor(state)])
        return msg("label.allow" if holds else "label.ok")
    if t == "advance":
        return msg("label.advance", space=state["positions"][order_seat(state)] + 1)
    if t == "keep":
        return msg("label.keep", cards=cards_ref(action["cards"])) if action["cards"] else msg("label.keep_none")
    if t in ("stay", "no_draw") or (t == "draw" and "card" not in action):
        return msg(f"label.{t}")
    return Msg("host.notation", {"text": describe_action(state, action)})


def action_hint(state: State, action: Action) -> Msg | None:
    """The description under a setup split or a refill assignment (``set_hint``): the
    faction, sum and first-space test the chosen set gives; None otherwise."""
    t = action.get("type")
    if t == "split":
        seat = _split_seat(state, action)
        return set_hint({**state, "turn": new_turn()}, seat, list(action["public"]), 0)
    if t == "assign":
        a = order_seat(state)
        return set_hint(state, a, [*state["public"][a], *action["public"]], state["positions"][a])
    return None


def action_path(state: State, action: Action) -> tuple[Msg, ...]:
    """The menu steps before an action (``engines/decisions.py``): REPLACE by the hand
    card; USE by the card, the chain (``copy``/``take``), then each parameter but the
    last (at most ``MAX_DEPTH`` steps; the action's own label names it all)."""
    t = action.get("type")
    if t == "replace":
        return (msg("step.replace", card=card_ref(action["card"])),)
    if t != "use":
        return ()
    seat = order_seat(state)
    steps = [msg("step.use", card=card_ref(action["card"]))]
    plan = action["plan"]
    chain = [p for p in plan if p[0] in CHAIN_KEYS]
    rest = [p for p in plan if p[0] not in CHAIN_KEYS]
    if chain:
        (key, value), *more = chain
        first = _numbered(PICKS[cast(str, key)].step(state, seat, value), _numbers(state, [[key, value]]))
        details = [d.to_json() for d in (PICKS[cast(str, k)].detail(v) for k, v in more) if d is not None]
        steps.append(msg("step.chain", first=first, then=details) if details else first)
    steps += [_numbered(PICKS[cast(str, k)].step(state, seat, v), _numbers(state, [[k, v]]) if k != "mine" else
                        "+".join(str(table_number(state, c)) for c in cast("list[str]", v))) for k, v in rest[:-1]]
    return tuple(steps[:MAX_DEPTH])


def prompt(state: State, seat: int) -> Msg:
    """What ``seat`` must decide now (§4, §5.5, §11). Public: it never names a hand card
    (a REACT prompt names the declared USE, which is public)."""
    if seat == CHANCE or seat not in to_move(state):
        return msg("host.nothing")
    if state["phase"] == "split":
        return msg("prompt.split")
    stage = state["stage"]
    if stage == "react":
        use = use_of(state)
        return msg("prompt.react", attacker=seat_ref(order_seat(state)), use=plan_msg(use["card"], use["plan"]))
    if stage == "advance":
        return msg("prompt.advance", space=state["positions"][seat] + 1)
    if stage == "grace_keep":
        return msg("prompt.grace_keep", room=grace_room(state, seat))
    if stage == "refill_assign":
        n = state["refill_a"]
        return msg("prompt.refill_one") if n == 1 else msg("prompt.refill_many", n=n)
    if stage in ("action", "sac_discard", "draw_offer"):
        return msg(f"prompt.{stage}", round=state["round"])
    return msg("host.your_move")


class HeavenNotation(GameNotation[State, Action, PublicView | PrivateView]):
    """Heaven's notation and texts, paired with ``HeavenEngine`` by the registry: the
    functions above, as the notation protocol names them."""

    describe_action = staticmethod(describe_action)
    action_label = staticmethod(action_label)
    action_label_full = staticmethod(action_label_full)
    action_hint = staticmethod(action_hint)
    action_path = staticmethod(action_path)
    prompt = staticmethod(prompt)
