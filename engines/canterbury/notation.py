"""Notation and text of The Road to Canterbury (docs/rules/canterbury.md §5.1, §5.6, §11
"Prompts"): ``describe``/``parse`` of typed moves; each action's label, hint and path of
steps, and the prompt of each decision, all as ``Msg`` (templates in
``bot/text/en/canterbury.toml``).

Notation (§5.1): ``sin greed red``, ``pardon greed red``, ``relic felix red greed``,
``relic vincent blue p1``, ``relic benedict p1 pardon``, ``relic anselm pilgrim red`` /
``relic anselm circle sloth``, ``relic wilgefortis red death-red blue``, ``relic jonah red
sin-pride down``, ``pass`` / ``pass discard pardon-pride,sin-wrath``, ``done``,
``give <card>``, ``keep <card>``, ``parson <sin>|later|stay``, ``draw <source>``,
``lastrites use|keep``; chance: ``reveal <card>``, ``steal <card>``, ``pilgrim <id>``,
``first_player p0``, ``parson_start <sin>``. Players are ``p0``, ``p1``, ``p2`` (§5.6).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Literal

from engines.base import CHANCE, IllegalAction, Msg, Seat, msg, normalize_text, seat_ref
from engines.canterbury.data import CARDS, HAND_SIZE, SINS, TOKEN_VALUE
from engines.canterbury.effects import (
    EMPTY,
    card_t,
    cards_list,
    deck_t,
    play_label,
    play_path,
    sin_t,
)
from engines.canterbury.rules import card_of, deck_size, pass_fine, sort_cards
from engines.canterbury.types import Action, State
from engines.canterbury.view import PrivateView, PublicView
from engines.notation import GameNotation

_RELIC_KEYS: tuple[Literal["company", "card", "to", "face", "sin"], ...] = ("company", "card", "to", "face", "sin")
_ONE_WORD: dict[str, Literal["card", "sin", "source", "choice", "pilgrim", "company"]] = {"give": "card", "keep": "card", "reveal": "card", "steal": "card", "choose": "card",
             "discard": "card", "parson": "sin", "parson_start": "sin", "draw": "source", "lastrites": "choice",
             "pilgrim": "pilgrim", "company": "company"}
"""Actions written as their type and one parameter (``draw sin-deck``), including chance
outcomes (``reveal``, ``steal``, ``pilgrim``, ``parson_start``) and old-log taps
(``choose``, ``discard``, ``company``)."""
PASS_LIST = 3
"""A pass label lists at most this many discards (80 characters); longer ones name what stays."""


def describe(action: Action) -> str:
    """Short canonical notation of an action (the module docstring)."""
    t = action.get("type")
    if t in ("sin", "pardon"):
        return f"{t} {action['sin']} {action['company']}"
    if t == "relic":
        parts = ["relic", str(action["relic"])]
        parts += [str(action[k]) for k in _RELIC_KEYS if k in action]
        if "player" in action:
            parts.append(f"p{action['player']}")
        if "deck" in action:
            parts.append(str(action["deck"]))
        if "pilgrim" in action:
            parts += ["pilgrim", str(action["pilgrim"])]
        if "circle" in action:
            parts += ["circle", str(action["circle"])]
        return " ".join(parts)
    if t == "pass":
        cards = action.get("discard") or []
        return "pass discard " + ",".join(cards) if cards else "pass"
    if t == "first_player":
        return f"first_player p{action['seat']}"
    if t in _ONE_WORD:
        return f"{t} {action[_ONE_WORD[t]]}"
    return str(t)


def parse_pass(text: str) -> Action | None:
    """``pass discard a,b`` in any card order → ``{"type": "pass", "discard": [...]}`` with
    the cards in card order; None when ``text`` is not that shape or names no card kind."""
    words = normalize_text(text).split(" ")
    if len(words) != 3 or words[:2] != ["pass", "discard"]:
        return None
    cards = [k.strip() for k in words[2].split(",") if k.strip()]
    if not cards or not all(k in CARDS for k in cards):
        return None
    return {"type": "pass", "discard": sort_cards(cards)}


# --------------------------------------------------------------------------- labels and paths


def parson_number(sin: str) -> int:
    """The number of a sin on the Parson picture of St. Philip's panel (render/canterbury.py
    ``render_decision``) and on its buttons: the Circle's order (D7) from 1."""
    return SINS.index(sin) + 1


def label(state: State, action: Action) -> Msg:
    """Button text of an action (fits 80 characters in English; §11 "Prompts": each
    target says what it does)."""
    t = action.get("type")
    if card_of(action) is not None:
        return play_label(state, action)
    if t == "pass":
        cards = action.get("discard") or []
        if not cards:
            return msg("label.pass_keep", fine=pass_fine(state))
        if len(cards) <= PASS_LIST:
            return msg("label.pass", fine=pass_fine(state), cards=cards_list(cards, short=True))
        kept = list(state["hands"][state["active"]])  # a long discard (2011) says what stays
        for kind in cards:
            kept.remove(kind)
        if not kept:
            return msg("label.pass_all", fine=pass_fine(state))
        return msg("label.pass_but", fine=pass_fine(state), cards=cards_list(kept, short=True))
    if t == "done":
        return msg("label.done")
    if t in ("give", "keep"):
        return msg(f"label.{t}", card=card_t(action["card"]))
    if t == "parson":
        sin = action["sin"]
        if sin in ("later", "stay"):
            return msg(f"label.parson_{sin}")
        return msg("label.parson", n=parson_number(sin), sin=sin_t(sin))
    if t == "draw":
        name, _, rest = str(action["source"]).partition("-")
        if rest.startswith("row:"):
            in_row = state["rows"][name][int(rest[4:]) - 1]
            assert in_row is not None, "a row slot offered holds a card"
            return msg("label.take", card=card_t(in_row), deck=deck_t(name), slot=int(rest[4:]))
        size = deck_size(state, name) or len(state["discards"][name])
        return msg("label.draw", deck=deck_t(name), left=size,
                   death=msg("label.draw_death") if name == "sin" else EMPTY)
    if t == "lastrites":
        return msg("label.lastrites_use") if action["choice"] == "use" else msg("label.lastrites_keep",
                                                                                  value=TOKEN_VALUE)
    return msg("host.notation", text=describe(action))


def path(state: State, action: Action) -> tuple[Msg, ...]:
    """The steps before an action (``Notation.action_path``): a card play goes through its
    card (and, for some relics, a pilgrim: §11 "select a hand card → buttons with only
    its legal targets"); a pass through "Pass" and how many cards it discards."""
    if action.get("type") == "pass":
        n = len(action.get("discard") or [])
        count = msg("step.discard", n=n) if n else msg("step.discard_none")
        return (msg("step.pass", fine=pass_fine(state)), count)
    return play_path(state, action)


# --------------------------------------------------------------------------- prompts


def prompt(state: State) -> Msg:
    """What the active player decides now (public: it never names a hand card)."""
    top = state["stack"][-1]
    f = top["f"]
    if f == "play":
        if top["ctx"] == "main":
            return msg("prompt.play_lastrites" if state["lastrites_turn"] else "prompt.play")
        return msg(f"prompt.{top['ctx']}")
    if f == "give":
        return msg("prompt.give", target=seat_ref(top["target"]))
    if f == "isidore":
        return msg("prompt.keep")
    if f == "philip":
        return msg(f"prompt.philip_{top['stage']}")
    if f == "turn" and top["stage"] == "t2":
        return msg("prompt.refill", n=len(state["hands"][state["active"]]), size=HAND_SIZE)
    if f == "turn" and top["stage"] == "t4":
        return msg("prompt.lastrites")
    return Msg("host.your_move")


class CanterburyNotation(GameNotation[State, Action, PublicView | PrivateView]):
    """Canterbury's notation and texts (§5.1, §5.6, §11), paired with ``CanterburyEngine`` by the
    registry: the functions above, as the notation protocol names them."""

    action_label = staticmethod(label)
    action_path = staticmethod(path)

    def describe_action(self, state: State, action: Action) -> str:
        """Short canonical notation (§5.1, §5.6): ``sin greed red``, ``pass discard …``
        (``describe``: it needs no state)."""
        return describe(action)

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """Parse typed notation into a legal action (§5.1); ``pass discard`` names its cards
        in any order.

        Raises:
            NotYourTurn, GameOver: as ``apply``.
            IllegalAction: nothing legal matches ``text``.
        """
        self.engine._check_can_act(state, seat)
        legal = self.engine.legal_actions(state, seat)
        wanted = normalize_text(text)
        for action in legal:
            if normalize_text(describe(action)) == wanted:
                return copy.deepcopy(action)
        typed = parse_pass(text)
        if typed is not None and typed in legal:
            return typed
        raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)

    def typed_moves(self, state: State, seat: Seat) -> list[Action]:
        """Autocomplete offers every legal action except passes that discard (there are
        dozens; ``pass discard a,b`` is still accepted when typed)."""
        return [a for a in self.engine.legal_actions(state, seat) if not (a["type"] == "pass" and a["discard"])]

    def prompt(self, state: State, seat: Seat) -> Msg:
        """What ``seat`` must decide now (public)."""
        if seat == CHANCE or seat not in self.engine.to_move(state):
            return Msg("host.nothing")
        return prompt(state)

    def replay_marks(self, states: Sequence[State], views: Sequence[PublicView | PrivateView]) -> list[Msg | None]:
        """Spec §4: the game is a sequence of turns of the active player (T1–T5), a Last
        Rites turn (T4, §5.9) among them; each position is in the turn under way, by its
        number and player (the board's ``board.turn`` / ``board.turn_lastrites``), the
        set-up before turn 1 in none, the end in ``board.game_over`` (§8).
        (``Notation.replay_marks``)"""
        out: list[Msg | None] = []
        for s in states:
            if s["turn"] == 0:
                out.append(None)
            elif not self.engine.to_move(s):
                out.append(msg("board.game_over"))
            else:
                out.append(msg("board.turn_lastrites" if s["lastrites_turn"] else "board.turn",
                               turn=s["turn"], player=seat_ref(s["active"])))
        return out

