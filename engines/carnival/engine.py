"""Carnival of Sins engine: the flow of a round (spec docs/rules/carnival.md §3–§8).

Seven rounds; each round the Devil holder rolls seven dice (chance ``roll``), every
player secretly picks a sin card (R2, simultaneous), the cards are revealed and
resolved clockwise from the Devil holder (R3, the effect table ``effects.SIN_TABLE``),
Pride players share the leftover dice (R4), and the round is scored (R5, §8.1). Two
table models: ``spatial`` (§2.4) and ``zones`` (§2.6).

The package by floor (each imports only those below it): ``data`` (the data file,
constants, options) < ``rules`` (pure helpers; the state layout is documented there) <
``effects`` (the sin table) < ``chance`` (sampling, checks) and ``notation`` (notation,
labels, prompts, the outcome) < ``view`` < ``flow`` (the reveals, Pride, scoring) < this module.

Action types (player): ``choose``, ``timeout`` (R2 only: "pick at random", the timeout
action; it makes CHANCE draw ``random_sin``), ``greed``, ``gluttony``, ``lust``,
``sloth`` (zones), ``wrath``, ``pride``. Chance: ``first_devil``, ``roll``,
``wrath_result``, ``random_sin``. These shapes are unchanged since ``state_version`` 1,
so old logs replay.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import cast

from engines.base import (
    CHANCE,
    EngineInfo,
    Event,
    GameEngine,
    GameOver,
    IllegalAction,
    NotYourTurn,
    Outcome,
    Seat,
    check_player_count,
    copy_state,
    msg,
    seat_ref,
    validate_options,
)
from engines.carnival import chance, flow, notation, rules, view
from engines.carnival.data import (
    DICE,
    FLOAT_OPTIONS,
    INT_OPTIONS,
    ROUNDS,
    SIN_NAMES,
    SINS,
    option_specs,
)
from engines.carnival.effects import SIN_TABLE, die_ref, sin_term, zone_ref
from engines.carnival.types import Action, Die, Options, PrivateView, PublicView, State


class CarnivalEngine(GameEngine[State, Action, PublicView | PrivateView]):
    """Carnival of Sins (spec docs/rules/carnival.md). State layout: ``rules`` module docstring."""

    info = EngineInfo(
        game_id="carnival",
        name="Carnival of Sins",
        native_name="罪のカーニバル",
        min_players=2,
        max_players=5,
        options=option_specs(),
        has_hidden_info=True,
        state_version=2,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None) -> State:
        """Initial state (spec §3); the first Devil is drawn by chance ``first_devil``.

        Raises:
            InvalidOptions: player count outside 2–5 or a bad option (§2.5).
        """
        check_player_count(self.info, players)
        opts = validate_options(self.info, options)
        for key in INT_OPTIONS:
            opts[key] = int(opts[key])
        for key in FLOAT_OPTIONS:
            opts[key] = float(opts[key])
        n = players
        return {
            "game": self.info.game_id,
            "state_version": self.info.state_version,
            "players": n,
            "options": cast(Options, opts),
            "phase": "setup",
            "round": 1,
            "first_devil": None,
            "reveal_index": 0,
            "hands": [list(SINS) for _ in range(n)],
            "played": [[] for _ in range(n)],
            "picks": [None] * n,
            "random_pick": [False] * n,
            "random_pending": [],
            "dice": {d: {"value": 1, "place": "table", "owner": None, "pos": None, "zone": None} for d in DICE},
            "penalties": [0] * n,
            "throw": None,
            "pride_turn": None,
            "round_scores": [],
        }

    def to_move(self, state: State) -> frozenset[Seat]:
        """Seats to act (spec §4), see ``rules.to_move``."""
        return rules.to_move(state)

    def legal_actions(self, state: State, seat: Seat) -> list[Action]:
        """Legal actions of ``seat`` in §11 order. In R2 a seat that has already picked
        may change its pick (spec §5.4): its list holds the other sins of its hand,
        although ``to_move`` lists only unpicked seats. CHANCE lists ``first_devil``
        and ``random_sin`` outcomes; roll and wrath outcomes are continuous ([])."""
        phase = state["phase"]
        if phase == "over":
            return []
        if seat == CHANCE:
            if phase == "setup":
                return [{"type": "first_devil", "seat": s} for s in range(state["players"])]
            if phase == "choose" and state["random_pending"]:
                s = state["random_pending"][0]
                return [{"type": "random_sin", "seat": s, "sin": x} for x in state["hands"][s]]
            return []
        if not 0 <= seat < state["players"]:
            return []
        if phase == "choose":
            if state["random_pending"]:
                return []
            pick = state["picks"][seat]
            return [{"type": "choose", "sin": x} for x in state["hands"][seat] if x != pick]
        if seat not in self.to_move(state):
            return []
        if phase == "pride":
            return SIN_TABLE["pride"].options(state, seat)
        pending = rules.pending(state)
        return [] if pending is None else SIN_TABLE[pending[1]].options(state, seat)

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply an action (spec §4–§6).

        Raises:
            GameOver: after round 7's scoring.
            NotYourTurn: ``seat`` may not act now (R2: a seat that has picked may
                still send ``choose`` to change its pick).
            IllegalAction: malformed or illegal action, or an invalid scripted chance
                outcome (values outside faces, positions outside the play area,
                knocks that are not candidates, penalty not matching off_table…).
        """
        if state.get("phase") == "over":
            raise GameOver("The game is over.")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("An action must be an object with a 'type'.", code="malformed_action")
        new = copy_state(state)
        events: list[Event] = []
        if seat == CHANCE:
            if CHANCE not in self.to_move(state):
                raise NotYourTurn("No chance outcome is pending.", seat=seat)
            self._apply_chance(new, action, events)
        else:
            self._apply_player(new, seat, action, events)
        return new, tuple(events)

    def _apply_player(self, state: State, seat: Seat, action: Action, events: list[Event]) -> None:
        if not isinstance(seat, int) or not 0 <= seat < state["players"]:
            raise NotYourTurn(f"Seat {seat} is not in this game.", seat=seat)
        phase = state["phase"]
        choosing = phase == "choose" and not state["random_pending"]
        can_change = choosing and state["picks"][seat] is not None and action.get("type") == "choose"
        if seat not in self.to_move(state) and not can_change:
            if phase == "choose" and state["picks"][seat] is not None:
                raise NotYourTurn("You have already picked; you can only change your pick.", seat=seat)
            raise NotYourTurn("It is not your turn.", seat=seat)
        # the R2 timeout (spec D26) is the host's move, not a choice offered to players
        timed_out = action == {"type": "timeout"} and phase == "choose" and state["picks"][seat] is None
        if not timed_out and action not in self.legal_actions(state, seat):
            raise IllegalAction(self._illegal_message(state, seat, action), action=action)
        kind = action["type"]
        if kind == "choose":
            changed = state["picks"][seat] is not None
            state["picks"][seat] = action["sin"]
            state["random_pick"][seat] = False
            events.append(Event("pick", params={"sin": sin_term(action["sin"]), "round": state["round"]},
                                visible_to=frozenset({seat})))
            if not changed:
                events.append(Event("picked", params={"seat": seat_ref(seat)}))
            flow.after_pick(state, events)
        elif kind == "timeout":
            state["random_pending"] = sorted([*state["random_pending"], seat])
            events.append(Event("pick_timeout", params={"seat": seat_ref(seat)}))
        elif kind == "pride":
            SIN_TABLE["pride"].apply(state, seat, action, events)
            state["pride_turn"] = (rules.pride_turn(state) + 1) % len(rules.pride_players(state))
            flow.pride_loop(state, events)
        elif SIN_TABLE[kind].apply(state, seat, action, events):
            flow.next_reveal(state, events)

    def _illegal_message(self, state: State, seat: Seat, action: Action) -> str:
        kind = action.get("type")
        phase = state["phase"]
        if phase == "choose":
            if kind == "choose":
                if action.get("sin") == state["picks"][seat]:
                    return "That sin is already your pick."
                return "You can only pick a sin card still in your hand."
            return "Now every player picks a sin card (choose <sin>)."
        if phase == "pride":
            return SIN_TABLE["pride"].rule
        pending = rules.pending(state)
        sin = pending[1] if pending else None
        if kind != sin:
            return f"You must resolve your {SIN_NAMES[sin] if sin else 'card'} now."
        return SIN_TABLE[str(kind)].rule

    # ------------------------------------------------------------------ flow

    # ------------------------------------------------------------------ chance
    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """Sample the pending chance outcome (spec §6), see ``chance.sample_chance``.

        Raises:
            NotYourTurn: no chance outcome is pending.
        """
        return chance.sample_chance(state, rng)

    def _apply_chance(self, state: State, action: Action, events: list[Event]) -> None:
        phase = state["phase"]
        kind = action["type"]
        if phase == "setup":
            if kind != "first_devil" or action not in self.legal_actions(state, CHANCE):
                raise IllegalAction("Expected first_devil with a seat of this game.", code="invalid_chance")
            state["first_devil"] = action["seat"]
            state["phase"] = "roll"
            events.append(Event("first_devil", params={"seat": seat_ref(action["seat"])}))
        elif phase == "roll":
            self._apply_roll(state, chance.check_roll(state, action), events)
        elif phase == "choose":
            if kind != "random_sin" or action not in self.legal_actions(state, CHANCE):
                raise IllegalAction("Expected random_sin for the first timed-out seat, with a sin from its hand.",
                                    code="invalid_chance")
            seat = action["seat"]
            state["random_pending"].remove(seat)
            state["picks"][seat] = action["sin"]
            state["random_pick"][seat] = True
            events.append(Event("pick_random", params={"sin": sin_term(action["sin"])},
                                visible_to=frozenset({seat})))
            events.append(Event("picked_random", params={"seat": seat_ref(seat)}))
            flow.after_pick(state, events)
        else:
            self._land_throw(state, chance.check_wrath(state, action), events)

    def replay_stages(self, state: State, seat: Seat, action: Action) -> list[tuple[State, tuple[Event, ...]]]:
        """Round 7's roll (spec E14, D21) plays the whole round by itself: a replay pauses on
        its table after the roll, the forced picks face down, before the reveals; every
        other entry is one stage (``Engine.replay_stages``)."""
        full = self.apply(state, seat, action)
        if seat != CHANCE or state["phase"] != "roll" or state["round"] != ROUNDS:
            return [full]
        mid = copy_state(state)
        events: list[Event] = []
        self._apply_roll(mid, chance.check_roll(mid, action), events, reveal=False)
        mid["phase"] = "reveal"
        return [(mid, tuple(events)), (full[0], full[1][len(events):])]

    def _apply_roll(self, state: State, dice: dict[str, Die], events: list[Event], *, reveal: bool = True) -> None:
        """R1 (spec §4): the checked roll lands; the round's per-seat records reset. In
        round 7 the last cards are picked and revealed at once (D21; ``reveal=False``: the
        picks only, for ``replay_stages``)."""
        n = state["players"]
        state["dice"] = dice
        state["reveal_index"] = 0
        state["picks"] = [None] * n
        state["random_pick"] = [False] * n
        state["random_pending"] = []
        state["penalties"] = [0] * n
        state["throw"] = None
        state["pride_turn"] = None
        state["phase"] = "choose"
        holder = rules.holder(state)
        assert holder is not None
        events.append(Event("roll", params={"round": state["round"], "seat": seat_ref(holder),
                                            "dice": [f"{d}={dice[d]['value']}" for d in DICE]}))
        if state["round"] == ROUNDS:  # D21: the last card is played without a prompt
            state["picks"] = [hand[0] for hand in state["hands"]]
            events.append(Event("forced_picks", params={"round": state["round"]}))
            if reveal:
                flow.start_reveal(state, events)

    def _land_throw(self, state: State, result: chance.WrathOutcome, events: list[Event]) -> None:
        """Apply a checked ``wrath_result`` (spec §5.3 Wrath, §6 wrath) and go on revealing."""
        seat = rules.order(state)[state["reveal_index"]]
        target, aim = rules.throw(state)["target"], rules.throw(state)["aim"]
        info = state["dice"][target]
        head = {"seat": seat_ref(seat), "sin": sin_term("wrath"), "target": die_ref(target, info).to_json(),
                "old": info["value"], "value": result.value}
        if result.off_table:
            state["penalties"][seat] = result.penalty
            events.append(Event("wrath_off_table", params=head | {"penalty": result.penalty}))
        elif aim == "none":
            events.append(Event("wrath_reroll", params=head))
        else:
            knocks = []
            for d, new_value, pos in result.knocks:
                knocked = state["dice"][d]
                knocks.append(msg("knock.die", die=die_ref(d, knocked), old=knocked["value"],
                                  value=new_value).to_json())
                knocked["value"] = new_value
                if pos is not None:
                    knocked["pos"] = pos
            lands = msg("lands.near", die=aim) if rules.spatial(state) else msg("lands.zone", zone=zone_ref(aim))
            events.append(Event("wrath_aimed", params=head | {
                "lands": lands.to_json(),
                "knocks": (msg("knocks.some", dice=knocks) if knocks else msg("knocks.none")).to_json()}))
        info["value"] = result.value
        if result.landing is not None:
            info["pos" if rules.spatial(state) else "zone"] = result.landing
        state["throw"] = None
        flow.next_reveal(state, events)

    # ------------------------------------------------------------------ end
    def outcome(self, state: State) -> Outcome | None:
        """Final result after round 7 (spec §8.2), see ``notation.final_outcome``."""
        return notation.final_outcome(state)

    def scores(self, state: State) -> tuple[float, ...]:
        """Running totals per seat (spec §8.1 step 5)."""
        return tuple(float(t) for t in rules.totals(state))

    def timeout_action(self, state: State, seat: Seat) -> Action:
        """Spec §11 timeouts: R2 → ``timeout`` (CHANCE then draws ``random_sin``);
        Greed/Gluttony/Lust/zone Sloth/Pride → first option (highest total); Wrath →
        highest die locked on another card (ties → larger), else highest table die,
        aim none.

        Raises:
            NotYourTurn / GameOver: the seat is not to move.
        """
        self._check_can_act(state, seat)
        if seat == CHANCE:
            raise NotYourTurn("Chance has no timeout.", seat=seat)
        if state["phase"] == "choose":
            return {"type": "timeout"}
        pending = rules.pending(state)
        if pending is not None and pending[1] == "wrath":
            return {"type": "wrath", "target": rules.wrath_targets(state, seat)[0], "aim": "none"}
        return copy.deepcopy(self.legal_actions(state, seat)[0])

    # ------------------------------------------------------------------ views and text
    def player_view(self, state: State, seat: Seat | None) -> PublicView | PrivateView:
        """The public view (``seat=None``) or a seat's private view (spec §7), shaped
        as ``PublicView`` / ``PrivateView`` (``types.py``)."""
        return view.player_view(state, seat, self.info.game_id)

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """Re-draw the face-down picks ``seat`` cannot see (spec §7)."""
        return view.shuffle_hidden(state, seat, rng)

    def reveals(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """A face-down pick was turned up (spec §7, ``view.reveals``)."""
        return view.reveals(before, after)

    def undoable(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """Spec §5.4: a ``choose`` may be taken back while the picks go on; once every player
        has picked (the last pick starts the reveals) it is final, and so is everything else."""
        return action.get("type") == "choose" and after["phase"] == "choose"


