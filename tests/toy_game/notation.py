"""Goofspiel's notation and texts: ``bid 3`` (chance: ``prize 4``); labels and prompts as
messages of its own catalog, ``goofspiel.toml``."""

from __future__ import annotations

from pathlib import Path

from engines.base import Action, Msg, Seat, State, msg
from engines.notation import Notation


class GoofspielNotation(Notation):
    """The notation object the registry pairs with ``GoofspielEngine``."""

    catalog = Path(__file__).with_name("goofspiel.toml")

    def describe_action(self, state: State, action: Action, /) -> str:
        return f"{action['type']} {action['card']}"

    def prompt(self, state: State, seat: Seat, /) -> Msg:
        if seat not in self.engine.to_move(state) or state["prize"] is None:
            return Msg("host.nothing")
        return msg("prompt.bid", round=state["round"], card=state["prize"])

    def action_label(self, state: State, action: Action, /) -> Msg:
        return msg("label.bid", card=action["card"])
