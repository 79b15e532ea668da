"""Carnival of Sins notation and the texts of choices (spec docs/rules/carnival.md §5.1, §11).

``describe_action`` / ``parse_action`` are the typed notation (``greed d10+d12``, smaller
die first; ``parse`` accepts either order and ``+`` or a space). Labels, hints, steps and
prompts are ``Msg`` values (catalog ``bot/text/en/carnival.toml``); the sins' own come
from the effect table (``effects.SIN_TABLE``). Imports ``effects``, ``rules``, ``data``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence

from engines.base import (
    CHANCE,
    IllegalAction,
    Msg,
    Outcome,
    Seat,
    msg,
    normalize_text,
    rank_seats,
    seat_ref,
    seats_ref,
)
from engines.carnival import rules
from engines.carnival.data import SIN_JAPANESE, SIZE
from engines.carnival.effects import SIN_TABLE, effect_of, sin_term
from engines.carnival.types import Action, PrivateView, PublicView, State
from engines.notation import GameNotation


def describe_action(action: Action) -> str:
    """Canonical notation (spec §5.1): ``choose lust``, ``greed d10+d12`` (smaller die
    first), ``wrath d12 aim d8``, ``pride d20``; ``timeout`` for a timed-out pick; chance
    actions get a compact form (``roll d4=3@(10,-20) …``)."""
    kind = action.get("type")
    if kind == "choose":
        return f"choose {action['sin']}"
    if kind in ("greed", "lust"):
        a, b = sorted(action["dice"], key=lambda d: SIZE.get(d, 99))
        return f"{kind} {a}+{b}"
    if kind in ("gluttony", "sloth", "pride"):
        return f"{kind} {action['die']}"
    if kind == "wrath":
        return f"wrath {action['target']} aim {action['aim']}"
    if kind == "first_devil":
        return f"first_devil seat{action['seat']}"
    if kind == "random_sin":
        return f"random_sin seat{action['seat']} {action['sin']}"
    if kind == "roll":
        parts = []
        dice = action.get("dice", {})
        for d, item in (dice.items() if isinstance(dice, dict) else ()):
            where = f"@({item['pos'][0]},{item['pos'][1]})" if "pos" in item else f"@{item.get('zone')}"
            parts.append(f"{d}={item.get('value')}{where}")
        return "roll " + " ".join(parts)
    if kind == "wrath_result":
        txt = f"wrath_result value={action.get('value')}"
        if action.get("off_table"):
            txt += f" off_table penalty={action.get('penalty')}"
        if "landing" in action:
            txt += f" landing={action['landing']}"
        for k in action.get("knocks", []):
            txt += f" knock {k.get('die')}={k.get('value')}"
        return txt
    return str(kind)


def parse_action(text: str, legal: Sequence[Action]) -> Action:
    """The action of ``legal`` whose notation is ``text`` (case and spacing ignored;
    pairs in either order, with ``+`` or a space: ``lust d20 d12``).

    Raises:
        IllegalAction: nothing in ``legal`` matches (code ``unknown_move``).
    """
    wanted = normalize_text(text)
    m = re.fullmatch(r"(greed|lust)\s+(\w+)\s*[+ ]\s*(\w+)", wanted)
    if m:
        a, b = sorted((m.group(2), m.group(3)), key=lambda d: SIZE.get(d if d != "w" else "W", 99))
        wanted = f"{m.group(1)} {a}+{b}"
    for action in legal:
        if normalize_text(describe_action(action)) == wanted:
            return copy.deepcopy(action)
    raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)


def action_label(state: State, action: Action) -> Msg:
    """Button/select text of a choice: ``Greed 貪欲``, ``Take d10+d12 = 18``, ``Aim at
    d8=8 (table) — may knock d6, W`` (spec §11 prompts); chance actions as notation."""
    kind = action.get("type")
    if kind == "choose":
        return msg("label.choose", sin=sin_term(action["sin"]), japanese=SIN_JAPANESE[action["sin"]])
    if kind == "timeout":
        return msg("label.timeout")
    effect = effect_of(action)
    if effect is not None:
        return effect.label(state, action)
    return msg("host.notation", text=describe_action(action))


def action_hint(action: Action) -> Msg | None:
    """The one-line effect of a sin under its name in the R2 select (spec §11), else None."""
    return msg(f"hint.{action['sin']}") if action.get("type") == "choose" else None


def action_path(state: State, action: Action) -> tuple[Msg, ...]:
    """Steps before a choice (Wrath: the target die, then the aim), from the effect table."""
    effect = effect_of(action)
    return () if effect is None else effect.path(state, action)


def action_confirm(state: State, action: Action) -> tuple[Msg, Msg] | None:
    """``(summary, button)`` shown before a choice is applied, from the effect table (Wrath:
    the knock candidates of the aim and the off-table chance, spec §11 Prompts; still one
    engine action, §5.4), else None."""
    effect = effect_of(action)
    return None if effect is None or effect.confirm is None else effect.confirm(state, action)


def has_confirm(action: Action) -> bool:
    """Whether ``action_confirm`` gives a confirmation for ``action`` (its effect has one:
    every ``confirm`` of the effect table returns a pair), without making it."""
    effect = effect_of(action)
    return effect is not None and effect.confirm is not None


def prompt(state: State, seat: Seat) -> Msg:
    """What ``seat`` is asked now (public: never names a face-down pick), spec §11."""
    phase = state["phase"]
    if phase == "choose" and 0 <= seat < state["players"] and not state["random_pending"]:
        if state["picks"][seat] is None:
            return msg("prompt.choose", round=state["round"])
        return msg("prompt.change")
    if seat == CHANCE or seat not in rules.to_move(state):
        return Msg("host.nothing")
    if phase == "pride":
        return SIN_TABLE["pride"].prompt(state)
    pending = rules.pending(state)
    assert pending is not None
    return SIN_TABLE[pending[1]].prompt(state)


def final_outcome(state: State) -> Outcome | None:
    """The result after round 7 (spec §8.2): highest total; tie → best single round
    score; still tied → shared win. The reason lists every total (best first) and says
    how the winner was found. None while the game goes on."""
    if state["phase"] != "over":
        return None
    totals = rules.totals(state)
    best = rules.best_rounds(state)
    ranking = rank_seats(totals, best)
    top = max(totals)
    tied = [s for s in ranking if totals[s] == top]
    top_best = max(best[s] for s in tied)
    winners = [s for s in tied if best[s] == top_best]
    if len(tied) == 1:
        verdict = msg("reason.wins", seat=seat_ref(winners[0]), points=top)
    elif len(winners) == 1:
        verdict = msg("reason.wins_tiebreak", seat=seat_ref(winners[0]), points=top, best=top_best)
    else:
        verdict = msg("reason.share", seats=seats_ref(winners), points=top, best=top_best)
    lines = [msg("reason.total", seat=seat_ref(s), total=totals[s], best=best[s]).to_json() for s in ranking]
    return Outcome(scores=tuple(float(t) for t in totals), ranking=ranking, winners=frozenset(winners),
                   reason=msg("reason.final", totals=lines, verdict=verdict))


class CarnivalNotation(GameNotation[State, Action, PublicView | PrivateView]):
    """Carnival's notation and texts (spec §5.1, §11), paired with ``CarnivalEngine`` by the
    registry: the functions above, as the notation protocol names them."""

    action_label = staticmethod(action_label)
    action_path = staticmethod(action_path)
    action_confirm = staticmethod(action_confirm)
    prompt = staticmethod(prompt)

    def describe_action(self, state: State, action: Action) -> str:
        """Canonical notation (spec §5.1), ``describe_action`` above (it needs no state)."""
        return describe_action(action)

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """Parse notation; pairs in either order (``lust d20 d12``). A seat that has
        picked in R2 may still type a change. Raises like ``Notation.parse_action``."""
        changing = (state["phase"] == "choose" and 0 <= seat < state["players"]
                    and state["picks"][seat] is not None)
        if not changing:
            self.engine._check_can_act(state, seat)
        return parse_action(text, self.engine.legal_actions(state, seat))

    def action_hint(self, state: State, action: Action) -> Msg | None:
        """The sin's one-line effect under its name in the R2 select."""
        return action_hint(action)

    def has_confirm(self, state: State, action: Action) -> bool:
        """Whether the action's effect has a confirmation (Wrath), without making its texts."""
        return has_confirm(action)
