"""The Road to Canterbury: the flow after a move (docs/rules/canterbury.md §4, §5.5, §5.11, §8):
``advance`` runs every automatic step of the frame stack until a decision is needed; a pass,
a refill draw, the turns, pilgrim deaths and the end. ``engine.py`` applies the moves and calls
these.
"""

from __future__ import annotations

from engines.base import Event, msg, seat_ref, seats_ref
from engines.canterbury.data import COMPANIES, ROAD_VALUES, ROW_SIZE, ROWS, TABLES, TIMEOUT_SOURCES, TURN_CAP
from engines.canterbury.effects import (
    EMPTY,
    add_to_hand,
    allowed_types,
    card_t,
    cards_list,
    deck_t,
    on,
    play_frame,
    take_from_hand,
)
from engines.canterbury.rules import (
    death_winners,
    end_reason,
    final_scores,
    hand_type,
    is_over,
    lastrites_allowed,
    pass_fine,
    source_ok,
)
from engines.canterbury.types import Frame, State


def pass_cards(s: State, cards: list[str], events: list[Event]) -> None:
    """§5.5: pay the fine (or all coins when nothing is playable) and discard."""
    seat = s["active"]
    fine = pass_fine(s)
    s["coins"][seat] -= fine
    for kind in cards:
        take_from_hand(s, seat, kind)
        s["discards"][hand_type(kind)].append(kind)
    events.append(Event("pass", params={"seat": seat_ref(seat), "cards": cards_list(cards).to_json()}))
    events.append(Event("fine", params={"fine": fine}, visible_to=frozenset({seat})))


def draw(s: State, source: str, events: list[Event]) -> None:
    """§5.10: take a face-up card (its slot is refilled) or draw from a deck."""
    seat = s["active"]
    name, _, rest = source.partition("-")
    if rest.startswith("row:"):
        slot = int(rest[4:]) - 1
        kind = s["rows"][name][slot]
        assert kind is not None, "a row slot offered holds a card"
        s["rows"][name][slot] = None
        add_to_hand(s, seat, kind)
        events.append(Event("take", params={"seat": seat_ref(seat), "card": card_t(kind), "deck": deck_t(name)}))
        s["stack"].append({"f": "chance", "what": "reveal", "deck": name, "purpose": "row", "slot": slot})
    else:
        s["stack"].append({"f": "chance", "what": "reveal", "deck": name, "purpose": "hand"})


def frame(s: State, f: str) -> Frame:
    frame: Frame = next(fr for fr in reversed(s["stack"]) if fr["f"] == f)
    return frame

# ------------------------------------------------------------------ automatic steps
def advance(s: State, events: list[Event]) -> None:
    """Run automatic steps until a decision or chance outcome is needed (§5.11)."""
    while s["stack"] and not is_over(s):
        top = s["stack"][-1]
        f = top["f"]
        if f == "chance":
            if top["what"] == "reveal" and sum(s["decks"][top["deck"]].values()) == 0:
                deck = top["deck"]
                if s["discards"][deck]:  # the discard pile becomes the deck (D21)
                    for k in s["discards"][deck]:
                        s["decks"][deck][k] = s["decks"][deck].get(k, 0) + 1
                    s["discards"][deck] = []
                    events.append(Event("reshuffle", params={"deck": deck_t(deck)}))
                else:
                    s["stack"].pop()  # nothing to draw: the source is unavailable
                continue
            return
        if f == "play":
            if top["ctx"] != "main" and not any(hand_type(k) in allowed_types(top["ctx"])
                                                for k in s["hands"][s["active"]]):
                s["stack"].pop()  # skipped as `done` (§5.11)
                if top["ctx"] == "vitus":
                    frame(s, "vitus")["left"] = 0
                continue
            return
        if f == "give":
            return
        if f == "philip":
            if top["stage"] == "after" and top["moved"]:
                s["stack"].pop()
                continue
            return
        if f == "isidore":
            deck = top["deck"]
            avail = sum(s["decks"][deck].values()) + len(s["discards"][deck]) > 0
            if top["stage"] == "draw" and top["left"] > 0 and avail:
                top["left"] -= 1
                s["stack"].append({"f": "chance", "what": "reveal", "deck": deck, "purpose": "isidore"})
                continue
            top["stage"] = "keep"
            if top["drawn"]:
                return
            s["stack"].pop()
            continue
        if f == "vitus":
            if top["left"] > 0 and s["hands"][s["active"]]:
                top["left"] -= 1
                s["stack"].append(play_frame("vitus"))
            else:
                s["stack"].pop()
            continue
        if f == "discard_relic":
            s["stack"].pop()
            s["discards"]["relic"].append(top["card"])
            continue
        if f == "setup_done":
            s["stack"].pop()
            for k in s["aside"]:
                s["decks"]["sin"][k] = s["decks"]["sin"].get(k, 0) + 1
            s["aside"] = []
            s["coins"] = [TABLES["start_coins"]] * s["players"]
            s["token_supply"] = TABLES["last_rites_tokens"]
            start_turn(s, s["active"], False, events)
            continue
        if f == "turn":
            if turn_step(s, top, events):
                return
            continue
        raise AssertionError(f"unknown frame {f}")  # pragma: no cover


def start_turn(s: State, seat: int, lastrites: bool, events: list[Event]) -> None:
    s["stack"] = [{"f": "turn", "stage": "t1"}]
    s["active"] = seat
    s["lastrites_turn"] = lastrites
    s["turn"] += 1
    events.append(Event("lastrites_turn" if lastrites else "turn", params={"seat": seat_ref(seat),
                                                                           "turn": s["turn"]}))
    if s["turn"] > TURN_CAP:
        events.append(Event("cap", params={}))
        finish(s, events)


def next_turn(s: State, events: list[Event]) -> None:
    start_turn(s, (s["active"] + 1) % s["players"], False, events)


def turn_step(s: State, top: Frame, events: list[Event]) -> bool:
    """One automatic step of the turn frame (§4 T1–T5); True when a decision is needed."""
    stage = top["stage"]
    if stage == "t1":
        top["stage"] = "t2start"
        s["stack"].append(play_frame("main"))
        return False
    if stage == "t2start":
        top["stage"] = "t2"
        for r in reversed(ROWS):
            for slot in reversed(range(ROW_SIZE)):
                if s["rows"][r][slot] is None:
                    s["stack"].append({"f": "chance", "what": "reveal", "deck": r, "purpose": "row",
                                       "slot": slot})
        return False
    if stage == "t2":
        if any(source_ok(s, src) for src in TIMEOUT_SOURCES):
            return True
        top["stage"] = "t3"
        return False
    if stage == "t3":
        if s["doom_order"]:
            co = s["doom_order"].pop(0)
            resolve_death(s, co, events)
            if not is_over(s):
                s["stack"].append({"f": "chance", "what": "pilgrim", "company": co})
            return False
        top["stage"] = "t4"
        return False
    if stage == "t4":
        if lastrites_allowed(s):
            return True
        next_turn(s, events)
        return False
    raise AssertionError(stage)  # pragma: no cover


def resolve_death(s: State, co: str, events: list[Event]) -> None:
    """§5.8 steps 1–6."""
    comp = s["companies"][co]
    n = s["players"]
    k = s["deaths"] + 1
    value = ROAD_VALUES[k - 1]
    cubes = comp["cubes"]
    winners, tiebreak = death_winners(s, co)
    where = on(s, co)
    if not winners:
        for q in range(n):
            s["road"][k - 1][q] += 1
        events.append(Event("death_unpardoned", params=where | {"space": k}))
    else:
        for q in winners:
            cubes[q] -= 1
            s["road"][k - 1][q] += 1
            s["coins"][q] += value
        events.append(Event("death", params=where | {
            "winners": seats_ref(winners), "space": k, "coins": value,
            "tiebreak": (msg("text.sin_tiebreak") if tiebreak else EMPTY).to_json()}))
    for card in comp["cards"]:
        s["discards"][hand_type(card["kind"])].append(card["kind"])
    pilgrim = comp["pilgrim"]
    assert pilgrim is not None, co
    comp["dead"].append({"pilgrim": pilgrim, "cubes": list(cubes)})
    comp.update({"pilgrim": None, "cards": [], "cubes": [0] * n, "doomed": False})
    s["deaths"] = k
    if k >= len(ROAD_VALUES):
        events.append(Event("end", params={}))
        finish(s, events)


def finish(s: State, events: list[Event]) -> None:
    """§8: the journey is over (``rules.is_over``); announce the final scoring."""
    s["stack"] = []
    final = final_scores(s)
    events.append(Event("final", params={"reason": end_reason(final).to_json()}))
    for q in final["ranking"]:
        events.append(Event("final_row", params={
            "seat": seat_ref(q), "coins": final["coins"][q], "road": final["road"][q],
            **{co: final["companies"][co][q] for co in COMPANIES},
            "tokens": final["tokens"][q], "total": final["totals"][q], "strength": final["strength"][q]}))
