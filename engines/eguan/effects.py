"""The skill effects of E Guan as a table (docs/rules/eguan.md §5.4): one entry per
``effect`` of engines/eguan/eguan_skills.csv saying what it does, and one entry per
decision an effect opens (who it can target, what choosing does, how it is labelled and
prompted, what a timeout plays: §11).

``EFFECTS[face.effect].resolve(state, seat, face, events)`` applies a die face in place;
it returns True when the effect is done, False when the effect's decision
(``Effect.opens``) must follow; ``resolve_face`` then sets ``state["pending"]``.
``DECISIONS[step]`` serves that decision's legal actions, their labels and its prompt.
The state-changing helpers shared with the turn flow (gain, steal, keep, Most Wanted)
live here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engines.base import Event, Msg, Seat, msg, seat_ref, term
from engines.eguan import data
from engines.eguan.data import Face, card_ref, card_short
from engines.eguan.rules import (
    active,
    board_counts,
    face,
    kept_of,
    most_wanted,
    opponents,
    play_choices,
    remove_options,
    skill_of,
    stack_index,
    steal_targets,
    topmost,
    turn_no,
)
from engines.eguan.types import Action, State

Events = list[Event]
"""Events of one ``apply``, appended in order."""


def event(kind: str, *, private: Seat | None = None, **params: object) -> Event:
    """An event of kind ``kind`` (catalog ``event.<kind>``) with ``params``; ``private``:
    the only seat that may see it (None: public). Msg values among the params (and in
    lists) are stored as their JSON form, so they nest."""
    def plain(value: object) -> object:
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value.to_json() if isinstance(value, Msg) else value

    return Event(kind, params={k: plain(v) for k, v in params.items()},
                 visible_to=None if private is None else frozenset({private}))


# --------------------------------------------------------------------------- shared state changes


def gain(state: State, seat: Seat, amount: int, ev: Events, kind: str = "gain") -> None:
    """``seat`` gains ``amount`` Infamy from the bank (spec §5.4 ``gain``)."""
    state["infamy"][seat] += amount
    ev.append(event(kind, seat=seat_ref(seat), amount=amount))


def steal(state: State, seat: Seat, target: Seat, amount: int, ev: Events) -> None:
    """Move min(amount, target's Infamy) from ``target`` to ``seat`` (spec §5.4, D15)."""
    got = min(amount, state["infamy"][target])
    state["infamy"][target] -= got
    state["infamy"][seat] += got
    ev.append(event("steal", seat=seat_ref(seat), target=seat_ref(target), amount=got))


def set_kept(state: State, seat: Seat, card: str) -> None:
    """``card`` becomes ``seat``'s kept card this turn; a previous one leaves the game
    hidden (spec §5.2, D21)."""
    old = state["kept"][seat]
    if old is not None:
        state["removed_kept"][seat].append(old["card"])
    state["kept"][seat] = {"card": card, "turn": turn_no(state)}


def most_wanted_changed(state: State, before: int | None, ev: Events) -> None:
    """Announce a change of the Most Wanted holder after a board change (spec D11)."""
    now = most_wanted(state["boards"])
    if now != before:
        ev.append(event("most_wanted_none") if now is None else event("most_wanted", seat=seat_ref(now)))


def remove_card(state: State, seat: Seat, target: Seat, card: str, ev: Events) -> None:
    """Take ``card`` off ``target``'s board, face up out of the game (spec §5.4
    ``remove_topmost``, D21)."""
    before = most_wanted(state["boards"])
    board = state["boards"][target]
    board.pop(stack_index(board, card))
    state["removed_cards"].append({"seat": target, "card": card})
    ev.append(event("remove", seat=seat_ref(seat), target=seat_ref(target), card=card_ref(card)))
    most_wanted_changed(state, before, ev)


def _nothing(seat: Seat, why: str, ev: Events) -> bool:
    ev.append(event("no_effect", seat=seat_ref(seat), why=msg(f"why.{why}")))
    return True


# --------------------------------------------------------------------------- effects


Resolve = Callable[[State, Seat, Face, Events], bool]
"""Apply a die face for the roller in place; True when done, False when the roller must
decide (or chance must draw): ``resolve_face`` then opens the effect's ``opens`` step."""


@dataclass(frozen=True)
class Effect:
    """One skill effect (a value of the ``effect`` column, spec §5.4).

    Attributes:
        resolve: what the face does (see ``Resolve``).
        opens: the decision (a key of ``DECISIONS``) or chance step it may open, or None.
    """

    resolve: Resolve
    opens: str | None = None


def _gain(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    gain(state, seat, f.amount, ev)
    return True


def _income_again(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    gain(state, seat, min(f.amount, board_counts(state["boards"][seat])["E"]), ev)
    return True


def _steal(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    targets = steal_targets(state, seat, f)
    if not targets:
        return _nothing(seat, "no_target", ev)
    if len(targets) > 1:
        return False
    steal(state, seat, targets[0], f.amount, ev)  # a single target is chosen automatically
    return True


def _steal_each_richer(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    inf = state["infamy"]
    richer = [s for s in opponents(state, seat, f.harmful) if inf[s] > inf[seat]]  # decided once
    if not richer:
        return _nothing(seat, "no_richer", ev)
    for s in richer:
        steal(state, seat, s, f.amount, ev)
    return True


def _all_others_lose(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    for s in sorted(opponents(state, seat, f.harmful)):
        lost = min(f.amount, state["infamy"][s])
        state["infamy"][s] -= lost
        ev.append(event("lose", seat=seat_ref(s), amount=lost))
    return True


def _move_topmost(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    if not topmost(state["boards"][seat]):
        return _nothing(seat, "no_move", ev)
    return False


def _extra_play(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    if not play_choices(state, seat):
        return _nothing(seat, "no_extra", ev)
    return False


def _draw_kept(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    if state["deck"]:
        return False  # a chance draw (spec §6)
    gain(state, seat, 1, ev, "gain_empty_deck")  # D19
    return True


def _remove_topmost(state: State, seat: Seat, f: Face, ev: Events) -> bool:
    options = remove_options(state, seat)
    if not options:
        return _nothing(seat, "no_remove", ev)
    if len(options) > 1:
        return False
    remove_card(state, seat, *options[0], ev)
    return True


EFFECTS: dict[str, Effect] = {
    "none": Effect(lambda state, seat, f, ev: True),
    "gain": Effect(_gain),
    "income_again": Effect(_income_again),
    "steal": Effect(_steal, "target"),
    "steal_richer": Effect(_steal, "target"),
    "steal_each_richer": Effect(_steal_each_richer),
    "all_others_lose": Effect(_all_others_lose),
    "move_topmost": Effect(_move_topmost, "move_pick"),
    "extra_play": Effect(_extra_play, "extra_pick"),
    "draw_kept": Effect(_draw_kept, "draw_kept"),
    "remove_topmost": Effect(_remove_topmost, "remove"),
}
"""Every skill effect, by the ``effect`` column (spec §5.4)."""

if set(EFFECTS) != data.EFFECTS:  # pragma: no cover - a data file out of step with the code
    raise ValueError(f"effects without an entry: {sorted(data.EFFECTS ^ set(EFFECTS))}")


def resolve_face(state: State, value: int, ev: Events) -> bool:
    """Resolve die face ``value`` of the active seat's set (spec §5.3 step 3): announce it
    and apply its effect; True when done, False when a decision is pending."""
    seat = active(state)
    assert seat is not None
    f = data.SKILLS[skill_of(state, seat)][value - 1]
    ev.append(event("face", seat=seat_ref(seat), face=f.id, text=term(f"face.{f.id}")))
    effect = EFFECTS[f.effect]
    if effect.resolve(state, seat, f, ev):
        return True
    assert effect.opens is not None
    state["pending"] = {"step": effect.opens}
    return False


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Decision:
    """A choice a skill effect asks of the roller (spec §5.4, §11 private prompts).

    Attributes:
        actions: the legal actions of the roller, in a fixed order.
        apply: apply one of them in place; True when the effect is done.
        prompt: what the roller is asked (public: names no secret card).
        timeout: what a timeout plays (spec §11 Timeouts).
        label / hint / path: the action's label, select description and the steps
            before it; a label of None leaves the action's generic label
            (``engines/eguan/notation.py``).
    """

    actions: Callable[[State, Seat], list[Action]]
    apply: Callable[[State, Seat, Action, Events], bool]
    prompt: Callable[[State], Msg]
    timeout: Callable[[State, Seat], Action]
    label: Callable[[State, Action], Msg | None] = lambda state, action: None
    hint: Callable[[State, Action], Msg | None] = lambda state, action: None
    path: Callable[[State, Action], tuple[Msg, ...]] = lambda state, action: ()


def _skip(state: State, seat: Seat, action: Action, ev: Events) -> bool:
    ev.append(event("skip", seat=seat_ref(seat)))
    return True


def _richest(state: State, seats: list[Seat]) -> Seat:
    """The seat with the most Infamy; ties: the first in ``seats`` (seat order after the
    roller, spec §11 Timeouts)."""
    best = max(state["infamy"][s] for s in seats)
    return next(s for s in seats if state["infamy"][s] == best)


def _target_actions(state: State, seat: Seat) -> list[Action]:
    return [{"type": "target", "seat": s} for s in steal_targets(state, seat, face(state))]


def _target_apply(state: State, seat: Seat, action: Action, ev: Events) -> bool:
    steal(state, seat, action["seat"], face(state).amount, ev)
    return True


def _remove_apply(state: State, seat: Seat, action: Action, ev: Events) -> bool:
    remove_card(state, seat, action["seat"], action["card"], ev)
    return True


def _remove_timeout(state: State, seat: Seat) -> Action:
    options = remove_options(state, seat)
    target = _richest(state, [s for s in opponents(state, seat, True) if any(o[0] == s for o in options)])
    return {"type": "remove", "seat": target, "card": topmost(state["boards"][target])[-1]}


def _move_apply(state: State, seat: Seat, action: Action, ev: Events) -> bool:
    if action["type"] == "skip":
        return _skip(state, seat, action, ev)
    state["pending"] = {"step": "place", "card": action["card"], "purpose": "move"}
    return False


def _extra_apply(state: State, seat: Seat, action: Action, ev: Events) -> bool:
    if action["type"] == "skip":
        return _skip(state, seat, action, ev)
    card = action["card"] if action["type"] == "select" else kept_of(state, seat)["card"]
    state["pending"] = {"step": "place", "card": card, "purpose": "extra"}
    return False


DECISIONS: dict[str, Decision] = {
    "target": Decision(
        actions=_target_actions,
        apply=_target_apply,
        prompt=lambda state: msg("prompt.target", amount=face(state).amount),
        timeout=lambda state, seat: {"type": "target", "seat": _richest(state, steal_targets(state, seat, face(state)))},
        label=lambda state, action: msg("label.target", amount=face(state).amount, target=seat_ref(action["seat"])),
        hint=lambda state, action: msg("hint.target", infamy=state["infamy"][action["seat"]]),
    ),
    "remove": Decision(
        actions=lambda state, seat: [{"type": "remove", "seat": s, "card": c} for s, c in remove_options(state, seat)],
        apply=_remove_apply,
        prompt=lambda state: msg("prompt.remove"),
        timeout=_remove_timeout,
        label=lambda state, action: msg("label.remove", target=seat_ref(action["seat"]), card=card_short(action["card"])),
        path=lambda state, action: (msg("step.player", target=seat_ref(action["seat"])),),
    ),
    "move_pick": Decision(
        actions=lambda state, seat: [*(Action(type="move", card=c) for c in topmost(state["boards"][seat])),
                                     {"type": "skip"}],
        apply=_move_apply,
        prompt=lambda state: msg("prompt.move_pick"),
        timeout=lambda state, seat: {"type": "skip"},
        label=lambda state, action: msg("label.move", card=card_short(action["card"])) if action["type"] == "move"
        else None,
    ),
    "extra_pick": Decision(
        actions=lambda state, seat: [*play_choices(state, seat), {"type": "skip"}],
        apply=_extra_apply,
        prompt=lambda state: msg("prompt.extra_pick"),
        timeout=lambda state, seat: {"type": "skip"},
    ),
}
"""The decisions skill effects open, by their ``pending`` step (spec §5.4, §11)."""
