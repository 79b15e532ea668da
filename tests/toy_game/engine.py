"""Goofspiel's rules (SPEC.md): two players bid cards 1..N for prizes 1..N, in secret."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import (
    CHANCE,
    Action,
    Engine,
    EngineInfo,
    Event,
    IllegalAction,
    NotYourTurn,
    OptionSpec,
    Outcome,
    Seat,
    State,
    check_player_count,
    copy_state,
    msg,
    rank_seats,
    seat_ref,
    seats_ref,
    validate_options,
)

INFO = EngineInfo(
    game_id="goofspiel", name="Goofspiel", native_name="Goofspiel", min_players=2, max_players=2,
    options=(OptionSpec("cards", 5, kind="int", minimum=3, maximum=8,
                        description="Each player's cards and the prizes: 1 up to this number."),),
    has_hidden_info=True,
)


class GoofspielEngine(Engine):
    """The rules of SPEC.md. State: ``cards`` (N), ``round``, ``prize`` (the card up, None
    before it is turned), ``prizes`` (still face down), ``hands``, ``bids`` (secret until both
    are in), ``points``, ``last`` (the last round's bids and winner), ``over``."""

    info = INFO

    def new_game(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        check_player_count(self.info, players)
        n = int(validate_options(self.info, options)["cards"])
        cards = list(range(1, n + 1))
        return {"game": self.info.game_id, "state_version": self.info.state_version, "players": players,
                "cards": n, "round": 0, "prize": None, "prizes": list(cards), "hands": [list(cards), list(cards)],
                "bids": [None, None], "points": [0, 0], "last": None, "over": False}

    def to_move(self, state: State) -> frozenset[Seat]:
        if state["over"]:
            return frozenset()
        if state["prize"] is None:
            return frozenset({CHANCE})
        return frozenset(s for s in (0, 1) if state["bids"][s] is None)

    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        if seat not in self.to_move(state):
            return []
        if seat == CHANCE:
            return [{"type": "prize", "card": c} for c in state["prizes"]]
        return [{"type": "bid", "card": c} for c in state["hands"][seat]]

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        if CHANCE not in self.to_move(state):
            raise NotYourTurn("No prize is to be turned.", seat=CHANCE)
        return {"type": "prize", "card": rng.choice(state["prizes"])}

    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        self._check_can_act(state, seat)
        if action not in self.legal_actions(state, seat):
            raise IllegalAction(f"{action!r} is not a legal move now.")
        st = copy_state(state)
        card = int(action["card"])
        if seat == CHANCE:
            st["prizes"].remove(card)
            st["prize"], st["round"] = card, st["round"] + 1
            return st, (Event("prize", params={"round": st["round"], "card": card}),)
        st["bids"][seat] = card
        events = [Event("bid_made", params={"card": card}, visible_to=frozenset({seat})),
                  Event("bid", params={"seat": seat_ref(seat)})]
        if None not in st["bids"]:
            events.append(self._reveal(st))
        return st, tuple(events)

    @staticmethod
    def _reveal(st: State) -> Event:
        """Both bids are in: they leave the hands, the higher takes the prize (a tie: nobody)."""
        bids, prize = list(st["bids"]), st["prize"]
        for s in (0, 1):
            st["hands"][s].remove(bids[s])
        winner = None if bids[0] == bids[1] else (0 if bids[0] > bids[1] else 1)
        if winner is not None:
            st["points"][winner] += prize
        st["last"] = {"bids": bids, "prize": prize, "winner": winner}
        st["bids"], st["prize"] = [None, None], None
        st["over"] = not st["prizes"]
        if winner is None:
            return Event("tie", params={"bid": bids[0], "card": prize})
        return Event("won", params={"seat": seat_ref(winner), "bid": bids[winner], "other": seat_ref(1 - winner),
                                    "other_bid": bids[1 - winner], "card": prize})

    def outcome(self, state: State) -> Outcome | None:
        if not state["over"]:
            return None
        points = state["points"]
        ranking = rank_seats(points)
        best = ranking[0]
        if points[0] == points[1]:
            return Outcome(tuple(float(p) for p in points), ranking, frozenset({0, 1}),
                           msg("reason.share", seats=seats_ref((0, 1)), points=points[0]))
        return Outcome(tuple(float(p) for p in points), ranking, frozenset({best}),
                       msg("reason.wins", seat=seat_ref(best), points=points[best], other=seat_ref(1 - best),
                           other_points=points[1 - best]))

    def scores(self, state: State) -> tuple[float, ...]:
        return tuple(float(p) for p in state["points"])

    def player_view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        view = {key: state[key] for key in ("cards", "round", "prize", "prizes", "hands", "points", "last", "over")}
        view["prizes"] = sorted(state["prizes"])
        view["has_bid"] = [b is not None for b in state["bids"]]
        if seat is not None and 0 <= seat < 2:
            view["seat"], view["bid"] = seat, state["bids"][seat]
        return view

    def reveals(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """The second bid of a round shows the other seat's, secret until then (unless it was that
        seat's last card: no secret)."""
        other = 1 - seat
        return action.get("type") == "bid" and 0 <= seat < 2 and before["bids"][other] is not None \
            and len(before["hands"][other]) > 1

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        st = copy_state(state)
        for s in (0, 1):
            if s != seat and st["bids"][s] is not None:
                st["bids"][s] = rng.choice(st["hands"][s])
        return st
