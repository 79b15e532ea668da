"""The notation protocol: how a game's moves and decisions are written and read (design §3).

An engine (``engines.base.Engine``) holds the rules; its game's ``Notation`` holds everything a
reader sees of a move: the typed notation and its parser, the moves offered to keyboard
users, the prompt, the labels, hints, steps and confirmations of the panel, the units of a
replay's jump menu and the rules summary. The registry (``engines.registry``) pairs each
game's engine with its notation; a notation reaches the rules only through its ``engine``.

Every method is a pure function of its arguments and returns messages (``Msg``), never prose.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Generic, TypeAlias

from engines.base import (
    A,
    Action,
    GameEngine,
    IllegalAction,
    Msg,
    S,
    Seat,
    State,
    Text,
    V,
    View,
    normalize_text,
)


class GameNotation(Generic[S, A, V]):
    """Base of every game's notation object. Subclasses implement ``describe_action``; the
    other methods have working defaults built on it and on the engine.

    Args:
        engine: the game's engine (its ``legal_actions``, ``to_move`` and checks).

    The hooks take their arguments by position only, so a game may bind its notation module's
    functions to them as they are (``action_label = staticmethod(label)``).

    Attributes:
        catalog: the English catalog of the game's messages (a TOML file, see
            docs/PROTOCOL.md "Text"); None: the host's ``bot/text/en/<game_id>.toml``.
    """

    catalog: Path | None = None

    inline_steps: bool = False
    """Whether a panel shows the steps of a decision whose options are all actions (at most a
    select's 25) as selects of their own beside the decision's other choices, as many as the
    message's rows hold (``bot.ui.panels.build_panel``), so that each of those actions takes
    one press (Illumination: one select per staged tile and per line). Default: one step at a
    time."""

    def __init__(self, engine: GameEngine[S, A, V]) -> None:
        self.engine = engine

    # -- typed notation -----------------------------------------------------------
    def describe_action(self, state: S, action: A, /) -> str:
        """Short canonical notation (``"greed d10+d12"``), used by autocomplete and the log.
        ``parse_action(state, seat, describe_action(state, a)) == a``."""
        raise NotImplementedError

    def parse_action(self, state: S, seat: Seat, text: str, /) -> A:
        """Parse notation typed by a player into one of the seat's legal actions.

        The default matches ``text`` against ``describe_action`` of each legal action
        (case and spacing ignored). Games whose notation has several spellings (e.g.
        unordered pairs) override or extend it.

        Raises:
            NotYourTurn, GameOver: as ``Engine.apply``.
            IllegalAction: nothing legal matches ``text``.
        """
        self.engine._check_can_act(state, seat)
        wanted = normalize_text(text)
        for action in self.engine.legal_actions(state, seat):
            if normalize_text(self.describe_action(state, action)) == wanted:
                return copy.deepcopy(action)
        raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)

    def typed_moves(self, state: S, seat: Seat, /) -> Sequence[A]:
        """Moves offered to keyboard users (``/<game> play`` autocomplete), each accepted
        by ``Engine.apply`` and described by ``describe_action``. Default: the legal actions;
        a game whose panel splits a move into steps may offer the whole moves here (e.g.
        Canterbury's ``sin greed red``)."""
        return self.engine.legal_actions(state, seat)

    # -- the panel ------------------------------------------------------------------
    def prompt(self, state: S, seat: Seat, /) -> Text:
        """What ``seat`` is being asked to decide now, as a ``Msg``
        (``msg("prompt.choose_sin", round=3)``). It is public: it never names a card
        from a hand. ``Msg("host.nothing")`` when the seat is not to move."""
        return Msg("host.your_move") if seat in self.engine.to_move(state) else Msg("host.nothing")

    def public_prompt(self, state: S, seat: Seat, /) -> Text:
        """What the table (the board, a ping in the channel) is told ``seat`` decides now:
        ``prompt``, but for a step of the seat's own panel that the table does not see
        (Illumination's confirmation of a pass: the table sees the turn start). Default:
        ``prompt``."""
        return self.prompt(state, seat)

    def action_label(self, state: S, action: A, /) -> Text:
        """Button/select label for an action, a ``Msg`` whose English form fits 80
        characters. Default: the notation (``Msg("host.notation", {"text": ...})``)."""
        return Msg("host.notation", {"text": self.describe_action(state, action)})

    def action_label_full(self, state: S, action: A, /) -> Text | None:
        """A longer label for an action whose ``action_label`` reads like another legal
        action's (Heaven names cards by code on a button, and nine cards are "G1"): what tells
        it apart, e.g. the cards by name and code. ``DecisionTree.of`` asks for it only for the
        actions whose labels collide. Default: None (the short label is all there is)."""
        return None

    def action_hint(self, state: S, action: A, /) -> Text | None:
        """A short description shown under the label in a select (``"Take 2 equal
        dice"``), or None."""
        return None

    def action_path(self, state: S, action: A, /) -> tuple[Text, ...]:
        """The steps a player taps through before the action itself, outermost first
        (Wrath: ``(msg("step.target", target=seat_ref(2)),)``; a card then a target:
        two steps). Actions sharing a step's label share that step. The shared helper
        ``engines.decisions.DecisionTree`` turns these paths into menus with Back.
        Default: ``()`` (the action is listed directly)."""
        return ()

    def action_labels_of(self, state: S, actions: Sequence[A], /) -> list[Text]:
        """``action_label`` of each of ``actions`` (one decision's, as ``DecisionTree.of`` asks for
        them). A game whose labels share work overrides it (Illumination activates each line once
        for all its squares). Default: ``action_label`` of each."""
        return [self.action_label(state, a) for a in actions]

    def action_paths_of(self, state: S, actions: Sequence[A], /) -> list[tuple[Text, ...]]:
        """``action_path`` of each of ``actions`` (one decision's), as ``action_labels_of``.
        Default: ``action_path`` of each."""
        return [self.action_path(state, a) for a in actions]

    def action_confirm(self, state: S, action: A, /) -> tuple[Text, Text] | None:
        """``(summary, button)`` when choosing ``action`` in a panel should first show
        ``summary`` (what may happen) with a ``button`` that applies it and Back, still one
        engine action (Carnival's Wrath throw, docs/rules/carnival.md §11 Prompts);
        ``engines.decisions.DecisionTree`` adds that step. Default: None (applied at once)."""
        return None

    def has_confirm(self, state: S, action: A, /) -> bool:
        """Whether ``action_confirm(state, action)`` is not None, told without making its texts
        (``DecisionTree.of`` makes them only when the confirmation is shown). A game whose
        confirmations cost something answers it cheaply. Default: by calling
        ``action_confirm``."""
        return self.action_confirm(state, action) is not None

    # -- replays and rules ------------------------------------------------------------
    def replay_marks(self, states: Sequence[S], views: Sequence[V], /) -> list[Msg | None]:
        """The rulebook's unit (a round, a turn, a settlement phase…) each position of a
        replay is in, for ``states`` in order: the start, then the position after each
        replay step (``bot.service.GameService.replay_steps``), with ``views`` their public
        views (``player_view(state, None)``, which the host has made already); None for a
        position in no unit (the set-up before the first one). ``/game replay``'s jump menu
        lists the first position of each run of equal marks (``bot.ui.table.jump_options``);
        a mark is a message of the game's catalog, its numbers counted by the notation.
        Default: the public view's ``round``, as ``table.jump_round`` ("Round 3"), None
        where a view has no round (Carnival, E Guan, Heaven)."""
        out: list[Msg | None] = []
        for view in views:
            number = view.get("round")
            out.append(Msg("table.jump_round", {"round": number})
                       if isinstance(number, int) and not isinstance(number, bool) else None)
        return out

    def rules_text(self) -> str:
        """Rules summary and our decisions in plain words (``/game rules``): the
        ``rules.md`` file next to the notation's module."""
        module = __import__(type(self).__module__, fromlist=["__file__"])
        path = Path(module.__file__ or "").parent / "rules.md"
        return path.read_text(encoding="utf-8") if path.exists() else self.engine.info.name


Notation: TypeAlias = GameNotation[State, Action, View]
"""A notation of any game as the host holds it: states, actions and views as plain JSON dicts
(the registry loads each game's ``NOTATION``, typed by its own ``types.py``, as one of these)."""
