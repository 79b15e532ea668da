"""Carnival of Sins views: what each seat may see (spec docs/rules/carnival.md §7, §11
Board image) and the no-leak shuffle.

``PublicView`` / ``PrivateView`` (``types.py``) are the renderer's input type (``render/carnival.py``).
The public view never holds a face-down pick; a seat's private view adds its own. Views
hold no English: the end reason is ``Msg`` JSON. Imports ``notation``, ``rules``, ``data``.
"""

from __future__ import annotations

import random

from engines.base import Seat, copy_state
from engines.carnival import rules
from engines.carnival.data import COLOURS, DICE, FACES, R_PLAY, ROUNDS, SHAPES
from engines.carnival.notation import final_outcome
from engines.carnival.types import DieView, PrivateView, PublicView, SeatView, State


def _dice(state: State) -> list[DieView]:
    spatial = rules.spatial(state)
    rolled = rules.rolled(state)
    out: list[DieView] = []
    for d in DICE:
        info = state["dice"][d]
        entry: DieView = {
            "id": d, "faces": FACES[d], "shape": SHAPES[d], "colour": COLOURS[d],
            "value": info["value"] if rolled else None,
            "place": info["place"] if rolled else "none",
            "owner": info["owner"],
            "pos": list(info["pos"]) if info["pos"] is not None else None,
            "zone": info["zone"],
        }
        if rolled and spatial:
            entry["location"] = list(rules.location(state, d))
        elif rolled:
            entry["location_zone"] = rules.zone_of(state, d)
        out.append(entry)
    return out


def _seats(state: State, to_move: frozenset[Seat], scored: bool) -> list[SeatView]:
    rolled = rules.rolled(state)
    cards = rules.revealed(state)
    totals = rules.totals(state)
    base = rules.base_scores(state)[0] if scored else None
    out: list[SeatView] = []
    for s in range(state["players"]):
        locked = rules.locked_dice(state, s) if rolled else []
        played = list(state["played"][s])
        out.append({
            "seat": s,
            "hand": list(state["hands"][s]),
            "played": played,
            "previous": played[:-1] if cards[s] is not None else played,
            "picked": rules.picked(state, s),
            "random_pick": bool(state["random_pick"][s]),
            "timed_out": s in state["random_pending"],
            "card": cards[s],
            "locked": locked,
            "sum": sum(rules.value(state, d) for d in locked),
            "penalty": state["penalties"][s],
            "base": base[s] if base is not None else None,
            "total": totals[s],
            "to_move": s in to_move,
        })
    return out


def sloth_to_come(state: State, cards: list[str | None], seat: Seat) -> bool:
    """Whether ``seat`` may still reveal Sloth this round: its card of the round is not
    revealed yet and Sloth is among its cards not yet revealed (the face-down pick
    included, spec §7, so this is public). ``cards`` is ``rules.revealed(state)``."""
    return cards[seat] is None and "sloth" in state["hands"][seat]


def player_view(state: State, seat: Seat | None, game_id: str) -> PublicView | PrivateView:
    """The public view (``seat=None``) or ``seat``'s private view (spec §7): never the
    face-down picks of others. Shapes: see ``PublicView`` / ``PrivateView``."""
    n = state["players"]
    spatial = rules.spatial(state)
    rolled = rules.rolled(state)
    to_move = rules.to_move(state)
    scored = rolled and len(state["round_scores"]) >= rules.dice_round(state) > 0
    nearest: list[str | None] = []
    zones: dict[str, list[str]] = {}
    over = state["phase"] == "over"
    if rolled and spatial:
        cards = rules.revealed(state)
        nearest = [] if over else [rules.sloth_spatial_die(state, s) if sloth_to_come(state, cards, s) else None
                                   for s in range(n)]
    elif rolled:
        zones = {z: [d for d in DICE if rules.zone_of(state, d) == z] for z in rules.zone_names(n)}
    pending = rules.pending(state)
    order = rules.order(state)
    throw = state["throw"]
    pride = rules.pride_players(state) if state["phase"] == "pride" else []
    outcome = final_outcome(state)
    view: PublicView = {
        "game": game_id,
        "players": n,
        "round": min(state["round"], ROUNDS),
        "rounds": ROUNDS,
        "phase": state["phase"],
        "table_model": state["options"]["table_model"],
        "options": state["options"].copy(),
        "devil": None if over else rules.holder(state),
        "round_devil": rules.round_devil(state),
        "round_devils": rules.devils(state)[:len(state["round_scores"])],
        "order": order,
        "reveal_index": state["reveal_index"],
        "to_move": sorted(to_move),
        "rolled": rolled,
        "scored": scored,
        "dice": _dice(state),
        "seat_points": [list(p) for p in rules.seat_points(n)],
        "card_spots": [list(p) for p in rules.card_spots(n)],
        "r_play": R_PLAY,
        "zones": zones,
        "nearest": nearest,
        "seats": _seats(state, to_move, scored),
        "round_scores": [list(r) for r in state["round_scores"]],
        "totals": rules.totals(state),
        "pending": {"seat": pending[0], "sin": pending[1]} if pending else None,
        "throw": None if throw is None else {"seat": order[state["reveal_index"]], **throw},
        "pride": {"players": pride, "turn": state["pride_turn"]} if pride else None,
        "outcome": outcome.to_json() if outcome else None,
        "places": rules.places(state) if over else [],
    }
    if seat is None or not 0 <= seat < n:
        return view
    private: PrivateView = {**view, "seat": seat, "pick": state["picks"][seat]}
    return private


def shuffle_hidden(state: State, seat: Seat | None, rng: random.Random) -> State:
    """Re-draw every face-down pick that ``seat`` cannot see from its owner's hand
    (spec §7); everything else is public."""
    new = copy_state(state)
    for s in range(new["players"]):
        if s != seat and new["picks"][s] is not None:
            new["picks"][s] = rng.choice(new["hands"][s])
    return new


def reveals(before: State, after: State) -> bool:
    """Whether a move from ``before`` to ``after`` turned up a face-down pick that its
    owner's hand left in doubt (spec §7: the hand is public and holds the pick, so the pick
    of a hand of one sin is known before its reveal)."""
    return any(pick is not None and after["picks"][s] is None and len(set(before["hands"][s])) > 1
               for s, pick in enumerate(before["picks"]))
