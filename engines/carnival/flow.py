"""Carnival of Sins: the flow of a round after a pick (docs/rules/carnival.md §4–§8): the reveals
in order, Pride's turns, the round's scoring and the end after round 7. ``engine.py`` applies the
moves and calls these.
"""

from __future__ import annotations

from engines.base import Event, Msg, msg, seat_ref, seats_ref
from engines.carnival import rules
from engines.carnival.data import ROUNDS
from engines.carnival.effects import SIN_TABLE, sin_term, take, take_event
from engines.carnival.notation import final_outcome
from engines.carnival.types import State


def after_pick(state: State, events: list[Event]) -> None:
    if state["random_pending"] or any(p is None for p in state["picks"]):
        return
    events.append(Event("all_picked", params={}))
    start_reveal(state, events)


def start_reveal(state: State, events: list[Event]) -> None:
    state["phase"] = "reveal"
    state["reveal_index"] = 0
    advance(state, events)


def next_reveal(state: State, events: list[Event]) -> None:
    state["phase"] = "reveal"
    state["reveal_index"] += 1
    advance(state, events)


def advance(state: State, events: list[Event]) -> None:
    """Reveal and resolve cards until a decision or chance is needed (spec §4 R3,
    §5.2: 0 options → nothing, 1 → applied, several → the player chooses)."""
    while state["phase"] == "reveal":
        if state["reveal_index"] >= state["players"]:
            start_pride(state, events)
            return
        seat = rules.order(state)[state["reveal_index"]]
        sin = state["picks"][seat]
        assert sin is not None, "every seat has picked before the reveal"
        state["picks"][seat] = None
        state["hands"][seat].remove(sin)
        state["played"][seat].append(sin)
        how = msg("note.random") if state["random_pick"][seat] else msg("note.none")
        events.append(Event("reveal", params={"seat": seat_ref(seat), "sin": sin_term(sin),
                                              "how": how.to_json()}))
        effect = SIN_TABLE[sin]
        options = effect.options(state, seat) if effect.when == "reveal" else []
        if len(options) > 1:
            state["phase"] = "resolve"
            return
        if effect.when == "reveal" and not options:
            events.append(take_event(state, seat, sin, []))
        if options and not effect.apply(state, seat, options[0], events):
            return  # a chance outcome follows
        state["reveal_index"] += 1


def start_pride(state: State, events: list[Event]) -> None:
    """R4 (spec §5.3 Pride): one Pride player takes every table die; several take one
    at a time in reveal order."""
    players = rules.pride_players(state)
    if len(players) == 1:
        seat = players[0]
        table = rules.table_dice(state)
        who = {"seat": seat_ref(seat), "sin": sin_term("pride")}
        if table:
            total = sum(rules.value(state, d) for d in table)
            events.append(Event("pride_all", params=who | {
                "dice": " + ".join(f"{d}={rules.value(state, d)}" for d in table), "total": total}))
        else:
            events.append(Event("pride_none", params=who))
        take(state, seat, table)
    if len(players) < 2:
        score_round(state, events)
        return
    state["phase"] = "pride"
    state["pride_turn"] = 0
    pride_loop(state, events)


def pride_loop(state: State, events: list[Event]) -> None:
    table = rules.table_dice(state)
    if len(table) == 1:
        seat = rules.pride_players(state)[rules.pride_turn(state)]
        events.append(Event("pride_last", params={"seat": seat_ref(seat), "sin": sin_term("pride"),
                                                  "die": f"{table[0]}={rules.value(state, table[0])}"}))
        take(state, seat, table)
        table = []
    if not table:
        state["pride_turn"] = None
        score_round(state, events)


def score_round(state: State, events: list[Event]) -> None:
    """Round scoring and cleanup (spec §8.1, R6); the end after round 7 (§8.2)."""
    state["phase"] = "scoring"
    result = rules.round_result(state)
    cards = rules.revealed(state)
    order = rules.order(state)
    base, scores = result["base"], result["scores"]
    parts = []
    for s in order:
        who = {"seat": seat_ref(s), "n": base[s]}
        if result["copy_from"][s] >= 0:
            part = msg("score.envy", sin=sin_term("envy"), source=seat_ref(result["copy_from"][s]), **who)
        elif cards[s] == "wrath":
            part = msg("score.wrath_off" if state["penalties"][s] else "score.wrath", sin=sin_term("wrath"),
                       **who)
        else:
            part = msg("score.base", **who)
        parts.append(part.to_json())
    params = {
        "round": state["round"],
        "base": parts,
        "white": result["white"],
        "bonus": seats_ref(s for s in range(state["players"]) if result["bonus"][s]),
        "scores": [msg("score.base", seat=seat_ref(s), n=scores[s]).to_json() for s in order],
    }
    if state["round"] < ROUNDS:
        events.append(Event("round_scored", params=params | {
            "devil": seat_ref(result["next"]),
            "why": msg(f"why.{result['why']}", sin=sin_term("pride")).to_json()}))
    else:  # spec §8.2: the game ends here, no next Devil
        events.append(Event("last_round_scored", params=params))
    state["round_scores"].append(scores)
    state["throw"] = None
    state["round"] += 1
    if state["round"] > ROUNDS:
        state["phase"] = "over"
        outcome = final_outcome(state)
        assert outcome is not None and isinstance(outcome.reason, Msg)
        events.append(Event("game_over", params={"reason": outcome.reason.to_json()}))
    else:
        state["phase"] = "roll"
