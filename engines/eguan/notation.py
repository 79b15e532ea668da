"""Notation and texts of E Guan's actions (docs/rules/eguan.md §5, §11): the typed
notation (``describe_action`` / ``parse_action``) and, as ``Msg`` values formatted by
the host from bot/text/en/eguan.toml, the labels, hints, steps and prompts.

Notation: ``play H01``, ``play kept``, ``keep H01``, ``pass``, ``at 5 180``, ``back``,
``skill A``, ``adjust +1`` / ``adjust 0`` / ``adjust -1``, ``target B``, ``remove B S10``,
``move S10``, ``skip``; chance: ``draw H01``, ``roll 4``, ``start B``. Seats are their
letters (``engines.base.seat_letter``), as typed; texts name players by ``seat_ref``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import CHANCE, IllegalAction, Msg, Seat, msg, normalize_text, seat_letter, term
from engines.eguan.data import CARDS, SKILLS, card_short, effect_msg, faces_summary
from engines.eguan.effects import DECISIONS
from engines.eguan.rules import (
    active,
    board_counts,
    die_of,
    kept_of,
    payment_for,
    pending_of,
    skill_of,
    stack_index,
)
from engines.eguan.types import Action, State
from engines.eguan.view import PrivateView, PublicView
from engines.notation import GameNotation


def describe_action(action: Action) -> str:
    """The short notation of ``action`` (see the module docstring)."""
    t = action.get("type")
    if t == "select":
        return f"play {action['card']}"
    if t == "select_kept":
        return "play kept"
    if t == "place":
        return f"at {action['anchor']} {action['rot']}"
    if t == "adjust":
        d = int(action["delta"])
        return f"adjust {'+' if d > 0 else ''}{d}"
    if t in ("target", "start"):
        return f"{t} {seat_letter(action['seat'])}"
    if t == "remove":
        return f"remove {seat_letter(action['seat'])} {action['card']}"
    if t in ("keep", "move", "draw"):
        return f"{t} {action['card']}"
    if t == "skill":
        return f"skill {action['set']}"
    if t == "roll":
        return f"roll {action['value']}"
    return str(t)


def parse_action(text: str, legal: Sequence[Action]) -> Action:
    """The legal action whose notation is ``text`` (case and spacing ignored;
    ``adjust 1`` is ``adjust +1``).

    Raises:
        IllegalAction: nothing in ``legal`` matches.
    """
    wanted = normalize_text(text)
    for action in legal:
        spelled = normalize_text(describe_action(action))
        if wanted in (spelled, spelled.replace("+", "")):
            return action.copy()
    raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)


# --------------------------------------------------------------------------- labels


def _cost(pay: int) -> Msg:
    return msg("part.pay", n=pay) if pay else msg("part.free")


def _placed_card(state: State) -> tuple[Seat, str, str]:
    seat = active(state)
    assert seat is not None
    return seat, pending_of(state)["card"], pending_of(state)["purpose"]


def _placed(state: State, action: Action) -> tuple[Msg, dict[str, int]]:
    """What a placement costs (or that it moves the card) and the visible icons after it."""
    seat, card, purpose = _placed_card(state)
    board = [list(p) for p in state["boards"][seat]]
    if purpose == "move":
        here = board.pop(stack_index(board, card))[1:] == [action["anchor"], action["rot"]]
        cost = msg("part.move_here" if here else "part.move")
    else:
        cost = _cost(payment_for(board, card))
    return cost, board_counts([*board, [card, action["anchor"], action["rot"]]])


def action_label(state: State, action: Action) -> Msg:
    """The button or select label of ``action``: ``Play H01 Crocodile Tears``,
    ``5 ↓180° · Evil 3`` (the anchor and rotation as the placement preview numbers them, and
the Evil icons visible after it), ``Stay at 4``, ``Steal 2 from Bo`` (catalog ``label.*``)."""
    t = action.get("type")
    step = (state["pending"]["step"] if state["pending"] else None)
    decision = DECISIONS.get(step or "")
    own = decision.label(state, action) if decision is not None else None
    if own is not None:
        return own
    seat = active(state)
    if t == "skill":
        return msg("label.skill", name=term(f"set.{action['set']}"), native=SKILLS[action["set"]][0].set_name_zh)
    if t in ("select", "select_kept"):
        assert seat is not None
        card = action["card"] if t == "select" else kept_of(state, seat)["card"]
        kind = ("extra" if step == "extra_pick" else "play") + ("_kept" if t == "select_kept" else "")
        return msg(f"label.{kind}", card=card_short(card))
    if t == "keep":
        return msg("label.keep", card=card_short(action["card"]))
    if t == "place":
        return msg("label.place", anchor=action["anchor"], rot=term(f"rot.{action['rot']}"),
                   e=_placed(state, action)[1]["E"])
    if t == "back":
        _, card, purpose = _placed_card(state)
        return msg("label.back_move") if purpose == "move" else msg("label.back", card=card_short(card))
    if t == "adjust":
        value = die_of(state)["roll"] + action["delta"]
        kind = {-1: "adjust_down", 0: "adjust_stay", 1: "adjust_up"}[int(action["delta"])]
        return msg(f"label.{kind}", value=value)
    if t in ("pass", "skip"):
        return msg(f"label.{t}")
    return Msg("host.notation", {"text": describe_action(action)})


def action_hint(state: State, action: Action) -> Msg | None:
    """The select description under a label: what a card costs, what a placement gives,
    what a die face does (catalog ``hint.*``); None when the label says it all."""
    t = action.get("type")
    step = (state["pending"]["step"] if state["pending"] else None)
    decision = DECISIONS.get(step or "")
    if decision is not None and t not in ("select", "select_kept"):
        return decision.hint(state, action)
    seat = active(state)
    if t == "skill":
        return msg("hint.skill", faces=faces_summary(action["set"]))
    if t in ("select", "select_kept"):
        assert seat is not None
        card = action["card"] if t == "select" else kept_of(state, seat)["card"]
        die = CARDS[card].trouble_die and step != "extra_pick"  # an extra play rolls no die (§5.3)
        return msg("hint.play", cost=_cost(payment_for(state["boards"][seat], card)),
                   die=msg("part.die" if die else "part.none"))
    if t == "keep":
        return msg("hint.keep")
    if t == "place":
        cost, c = _placed(state, action)
        return msg("hint.place", cost=cost, h=c["H"], s=c["S"], k=c["K"], e=c["E"])
    if t == "adjust":
        assert seat is not None
        f = SKILLS[skill_of(state, seat)][die_of(state)["roll"] + action["delta"] - 1]
        return msg("hint.adjust_stay" if action["delta"] == 0 else "hint.adjust", effect=effect_msg(f))
    return None


def action_path(state: State, action: Action) -> tuple[Msg, ...]:
    """The steps before ``action`` when the list is long (``engines/decisions.py``):
    play or keep, then the card; the rotation, then the anchor; the player, then the card."""
    t = action.get("type")
    step = (state["pending"]["step"] if state["pending"] else None)
    decision = DECISIONS.get(step or "")
    if decision is not None:
        return decision.path(state, action)
    if t in ("select", "select_kept"):
        return (msg("step.play"),)
    if t == "keep":
        return (msg("step.keep"),)
    if t == "place":
        return (msg("step.rotation", rot=term(f"rot.{action['rot']}")),)
    return ()


def prompt(state: State, seat: Seat, to_move: frozenset[Seat]) -> Msg:
    """What ``seat`` is asked now (public: a card picked for placing stays unnamed,
    spec §7); ``host.nothing`` when it is not to move."""
    if seat == CHANCE or seat not in to_move:
        return Msg("host.nothing")
    if state["phase"] == "skill":
        return msg("prompt.skill")
    step = pending_of(state)["step"]
    decision = DECISIONS.get(step)
    if decision is not None:
        return decision.prompt(state)
    if step == "main":
        if not state["hands"][seat]:
            return msg("prompt.main_empty")
        return msg("prompt.main", round=state["round"], infamy=state["infamy"][seat])
    if step == "place":
        _, card, purpose = _placed_card(state)
        return msg("prompt.place_move", card=card_short(card)) if purpose == "move" else msg("prompt.place")
    if step == "adjust":
        return msg("prompt.adjust", roll=die_of(state)["roll"])
    raise IllegalAction(f"no prompt for step {step}")  # pragma: no cover - every step is above


class EguanNotation(GameNotation[State, Action, PublicView | PrivateView]):
    """E Guan's notation and texts (spec §5, §11), paired with ``EguanEngine`` by the registry:
    the functions above, as the notation protocol names them."""

    action_label = staticmethod(action_label)
    action_hint = staticmethod(action_hint)
    action_path = staticmethod(action_path)

    def describe_action(self, state: State, action: Action) -> str:
        """``describe_action`` above (it needs no state)."""
        return describe_action(action)

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """``parse_action`` above, among the seat's legal actions.

        Raises:
            NotYourTurn, GameOver: as ``apply``; IllegalAction: nothing legal matches.
        """
        self.engine._check_can_act(state, seat)
        return parse_action(text, self.engine.legal_actions(state, seat))

    def prompt(self, state: State, seat: Seat) -> Msg:
        """``prompt`` above, with the seats to move."""
        return prompt(state, seat, self.engine.to_move(state))
