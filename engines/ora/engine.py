"""Ora et Labora (祈祷与工作): the engine protocol wired to the flow (spec docs/rules/ora.md).

The rules live in ``flow.py`` (the order of play and function resolution), ``rules.py``
(geometry, payments, scoring) and ``effects.py`` (the building notation); this class checks
who may act, copies the state, applies, and answers the host's questions.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import cast

from engines.base import (
    CHANCE,
    NO_TIMER,
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
    present,
    rank_seats,
    seats_ref,
    validate_options,
)
from engines.ora import chance as C
from engines.ora import flow as F
from engines.ora import notation as N
from engines.ora import rules as R
from engines.ora import view as V
from engines.ora.data import OPTIONS, mode_code
from engines.ora.types import Action, Options, PrivateView, PublicView, State

FREE = frozenset({"flip_grain", "sell_wine", "sell_whiskey", "buy_district", "buy_plot"})
SOLO_TIMEOUT = NO_TIMER
"""Solo has no timeouts except abandonment (§11): ``NO_TIMER`` (a year) stands for "none"."""


def _copy(state: State) -> State:
    """A copy that ``flow`` can change without changing ``state`` (its shape is known: faster
    than a generic deep copy). It shares only lists that are replaced, never changed: the
    landscape's space lists and the clergy's positions."""
    st = state.copy()
    st["opts"] = state["opts"].copy()
    st["wheel"] = dict(state["wheel"])
    st["display"] = list(state["display"])
    st["queue"] = [list(q) for q in state["queue"]]
    win = state["win"]
    st["win"] = None if win is None else {**win, "used": list(win["used"])}
    st["stack"] = copy_state(state["stack"]) if state["stack"] else []
    st["pl"] = [{"goods": dict(p["goods"]),
                 "clergy": list(p["clergy"]),  # positions are replaced, never changed
                 "land": R.copy_land(p["land"]),  # space lists are replaced, never changed (rules.set_space)
                 "bought": p["bought"]} for p in state["pl"]]
    return st


def _does_nothing(action: Action) -> bool:
    """Fell Trees / Cut Peat without a card (D27): legal, but it changes nothing and spends the
    main action as a pass does, so the panel does not offer it (docs/rules/ora.md D27)."""
    return action["type"] in ("fell_trees", "cut_peat") and "x" not in action


class OraEngine(GameEngine[State, Action, PublicView | PrivateView]):
    """Ora et Labora for 1–4 players, France or Ireland, every mode of §4."""

    info = EngineInfo(
        game_id="ora", name="Ora et Labora", native_name="祈祷与工作", min_players=1, max_players=4,
        options=OPTIONS, has_hidden_info=False, state_version=1)

    # -- lifecycle ----------------------------------------------------------------
    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None) -> State:
        """The state before round 1 (§3); CHANCE picks the start seat unless ``solo`` or
        ``start_player: host`` (then seat 0 starts and round 1 begins at once).

        Raises:
            InvalidOptions: bad player count or option.
        """
        check_player_count(self.info, players)
        opts = validate_options(self.info, options)
        code = mode_code(str(opts["mode"]), players)
        s0 = 0 if code == "solo" or opts["start_player"] == "host" else None
        st = F.new_state(code, str(opts["variant"]), players, cast(Options, opts), s0)
        st["state_version"] = self.info.state_version
        if s0 is not None:
            F.advance(st, [])
        return st

    def to_move(self, state: State) -> frozenset[Seat]:
        """The deciding seat, ``{CHANCE}`` before the start seat is known, empty when over."""
        if state["over"]:
            return frozenset()
        if state["s0"] is None:
            return frozenset({CHANCE})
        seat = F.decider(state)
        return frozenset() if seat is None else frozenset({seat})

    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        """The deciding seat's options (``flow.legal``) without the ones that do nothing
        (``_does_nothing``: Fell Trees or Cut Peat without a card, D27, which ``apply`` still
        accepts typed), the places of one kind of action in the order of their numbers in the
        decision picture (``notation.in_number_order``); payments list irredundant bundles and single additions (any sufficient
        payment is also accepted by ``apply``)."""
        if seat == CHANCE or seat not in self.to_move(state):
            return []
        return N.in_number_order(state, [a for a in F.legal(state) if not _does_nothing(a)])

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """The start seat (§6).

        Raises:
            NotYourTurn: chance is not pending.
        """
        if CHANCE not in self.to_move(state):
            raise NotYourTurn("No chance event is pending.")
        return C.sample_chance(state, rng)

    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply ``action`` (see ``flow``).

        Raises:
            GameOver, NotYourTurn, IllegalAction: as the protocol says.
        """
        st = _copy(state)
        return st, self.apply_in_place(st, seat, action)

    def apply_in_place(self, st: State, seat: Seat, action: Action) -> tuple[Event, ...]:
        """``apply`` on ``st`` itself, without a copy: for a caller that owns ``st`` (a copy of
        its own), since an action refused part-way may leave ``st`` half-changed. A free action
        (``FREE``: conversions, landscape purchases) is checked whole before it changes
        anything, so a refused one leaves ``st`` as it was.

        Raises:
            GameOver, NotYourTurn, IllegalAction: as ``apply``.
        """
        if st["over"]:
            raise GameOver("The game is over.")
        if seat != (CHANCE if st["s0"] is None else F.decider(st)):  # ``to_move``, the game not over
            raise NotYourTurn("It is not your turn.", seat=seat)
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("An action must be an object with a 'type'.", code="malformed_action")
        out: list[Event] = []
        if seat == CHANCE:
            st["s0"] = C.check_chance(st, action)
            out.append(Event("start_player", params={"seat": {"seat": st["s0"]}}))
            F.advance(st, out)
            return tuple(out)
        t = action["type"]
        try:
            if t in FREE:
                F.do_free(st, seat, action, out)
            elif st["stack"]:
                F.do_frame(st, action, out)
            else:
                win = present(st["win"], "a window is open when no frame is")
                if t == "done":
                    if not (win["main"] or win["kind"] == "settle"):
                        raise IllegalAction("Take a main action or pass first.", code="main_first")
                    st["win"] = None
                elif win["kind"] == "settle":
                    if t != "settle":
                        raise IllegalAction("In a settlement turn: buy, settle or done.", code="settle_turn")
                    F.start_settle(st, seat, action)
                else:
                    F.do_main(st, seat, action, out)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise IllegalAction(f"Malformed action: {exc}.", code="malformed_action") from None
        F.advance(st, out)
        return tuple(out)

    # -- results ------------------------------------------------------------------
    def outcome(self, state: State) -> Outcome | None:
        """Final scores (§8) once the game is over; all tied leaders share the win."""
        if not state["over"]:
            return None
        scores = self.scores(state)
        ranking = rank_seats(scores)
        best = max(scores)
        winners = frozenset(s for s in range(len(scores)) if scores[s] == best)
        if state["mode"] == "solo":
            reason = msg("reason.solo", score=int(best))
        elif len(winners) > 1:
            reason = msg("reason.score_tied", winners=seats_ref(winners), score=int(best))
        else:
            reason = msg("reason.score", winners=seats_ref(winners), score=int(best))
        capped = F.ended_at_cap(state)
        if capped is not None:  # (the safety cap ended it, D38: the reason says so)
            unit = "turn" if state["mode"] == "2p" else "round"
            reason = msg(f"reason.capped_{unit}", result=reason, n=capped)
        return Outcome(scores, ranking, winners, reason)

    def scores(self, state: State) -> tuple[float, ...]:
        """Live totals per seat (§8)."""
        return tuple(float(R.score(state, s)["total"]) for s in range(state["n"]))

    def score_breakdown(self, state: State, seat: Seat) -> dict[str, int]:
        """``goods``/``economic``/``settlements``/``total`` of ``seat`` (§8)."""
        return R.score(state, seat)

    def player_view(self, state: State, seat: Seat | None) -> PublicView | PrivateView:
        """``types.PublicView`` / ``types.PrivateView`` (``view.player_view``)."""
        return V.player_view(state, seat)

    # -- notation -----------------------------------------------------------------
    # -- time -----------------------------------------------------------------------
    def timeout_action(self, state: State, seat: Seat) -> Action:
        """§11: an open window passes (or closes once its main action is taken); a pending
        function, payment, prior bonus or borrowed use is declined; a work-contract owner
        places a lay brother if one is home, else the prior; a settlement turn ends.

        Raises:
            NotYourTurn: the seat is not to move.
        """
        self._check_can_act(state, seat)
        if state["stack"]:
            top = state["stack"][-1]
            if top["f"] == "assign":
                owner = state["pl"][top["o"]]
                return {"type": "assign", "c": "lay" if R.home(owner, "lay") is not None else "prior"}
            if top["f"] == "neutral":
                return F.frame_options(state, top)[0]
            return {"type": "skip"}
        win = present(state["win"], "a window is open when no frame is")
        if win["kind"] in ("action", "bonus") and not win["main"]:
            return {"type": "pass"}
        return {"type": "done"}

    def timeout_seconds(self, state: State, seats: frozenset[Seat], default: int) -> int:
        """``wc_reply_timeout`` for a work-contract answer, ``done_grace`` for a window whose
        main action is taken, none in solo (§11); otherwise the move timer."""
        if state["mode"] == "solo":
            return SOLO_TIMEOUT
        if state["stack"] and state["stack"][-1]["f"] == "assign":
            return int(state["opts"]["wc_reply_timeout"]) or default
        win = state["win"]
        if win is not None and win["main"] and not state["stack"] and win["kind"] != "settle":
            return min(default, int(state["opts"]["done_grace"]) or default)
        return default
