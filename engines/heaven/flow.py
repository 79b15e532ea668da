"""The Way to Heaven: the flow of a turn after a move (docs/rules/heaven.md §4–§6): draws and
the deal, the split, the start of a turn, the order of turns, a turn's action and USE with its
Guardian windows, advancing, Grace and refills. ``engine.py`` applies the moves and calls
these; the state's layout is in its docstring.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from engines.base import Event, Msg, seat_ref, term
from engines.heaven.data import GATE, HAND_SIZE, LAST_SPACE
from engines.heaven.effects import EFFECTS, plan_msg
from engines.heaven.rules import (
    can_enter_next,
    card_list,
    card_ref,
    chain_of,
    chance_of,
    end_reason,
    event,
    faction,
    gate_ok,
    grace_room,
    new_turn,
    order_seat,
    owner_of_public,
    use_of,
)
from engines.heaven.types import Action, Plan, State


def request_draw(st: State, seat: int, n: int, purpose: str, ev: list[Event]) -> None:
    st["chance"] = {"kind": "draw", "seat": seat, "left": n, "purpose": purpose}
    continue_draw(st, ev)


def continue_draw(st: State, ev: list[Event]) -> None:
    """Refill the draw pile from the discard pile when needed (§6, D31); finish the
    request when done or when both piles are empty."""
    ch = chance_of(st)
    if ch["left"] > 0 and not st["deck"] and st["discard"]:
        st["deck"] = sorted(st["discard"])
        st["discard"] = []
        ev.append(event("reshuffle", count=len(st["deck"])))
    if ch["left"] > 0 and st["deck"]:
        return
    st["chance"] = None
    after: dict[str, Callable[[], None]] = {
        "deal": lambda: dealt(st, ev),
        "turn": lambda: end_turn(st, ev),
        "guard_owner": lambda: after_action(st, ev),
        "guard_target": lambda: run_use(st, ev),
        "grace": lambda: grace_after_draw(st, ev),
        "refill": lambda: refill_after_draw(st, ch["seat"], ev),
    }
    after[ch["purpose"]]()


def dealt(st: State, ev: list[Event]) -> None:
    st["phase"] = "split"
    ev.append(event("dealt"))

# -- setup split -----------------------------------------------------------
def apply_split(st: State, seat: int, action: Action, ev: list[Event]) -> None:
    """§3.3: a secret choice; all sets are revealed once every seat has chosen."""
    st["split"][seat] = list(action["public"])
    ev.append(event("split", seat=seat_ref(seat)))
    ev.append(event("split_private", seat=seat_ref(seat), cards=card_list(action["public"]),
                    visible_to=frozenset({seat})))
    if any(s is None for s in st["split"]):
        return
    for s in range(st["players"]):
        chosen = st["split"][s]
        assert chosen is not None, "every seat has confirmed its split"
        st["public"][s] = [c for c in st["hands"][s] if c in chosen]
        st["hands"][s] = [c for c in st["hands"][s] if c not in chosen]
        ev.append(event("reveal", seat=seat_ref(s), cards=card_list(st["public"][s]),
                        faction=term(f"faction.{faction(st['public'][s])}")))
    st.update({"split": [None] * st["players"], "phase": "start", "chance": {"kind": "start"}})

# -- turn flow ---------------------------------------------------------------
def start_turn(st: State, ev: list[Event]) -> None:
    """Step 0 (§4): skip a pawn on the Gate or a pending Pride skip, else wait for the action."""
    while True:
        seat = order_seat(st)
        st.update({"turn": new_turn(), "build": None, "use": None})
        if st["positions"][seat] == GATE:
            if advance_order(st, ev):
                return
            continue
        if st["skips"][seat] > 0:
            st["skips"][seat] -= 1
            ev.append(event("skip", seat=seat_ref(seat)))
            if advance_order(st, ev):
                return
            continue
        st["stage"] = "action"
        return


def advance_order(st: State, ev: list[Event]) -> bool:
    """Move to the next seat; at the end of a round check the end (§8, D32, D35).
    Returns True when the game ended."""
    st["turn_index"] += 1
    if st["turn_index"] < st["players"]:
        return False
    if GATE in st["positions"] or st["round"] >= st["options"]["round_limit"]:
        st.update({"phase": "over", "stage": None, "chance": None})
        ev.append(event("game_over", reason=end_reason(st)))
        return True
    st["round"] += 1
    st["turn_index"] = 0
    ev.append(event("round", round=st["round"]))
    return False


def end_turn(st: State, ev: list[Event]) -> None:
    st["stage"] = None
    st["turn"] = new_turn()
    if not advance_order(st, ev):
        start_turn(st, ev)


def after_action(st: State, ev: list[Event]) -> None:
    """Step 2: advancement (§5.6); Gate entry is automatic (D28)."""
    a = order_seat(st)
    st["use"] = None
    pos = st["positions"][a]
    if pos == LAST_SPACE and gate_ok(st, a):
        st["positions"][a] = GATE
        ev.append(event("gate", seat=seat_ref(a)))
        after_advance(st, ev)
    elif pos < LAST_SPACE and can_enter_next(st, a):
        st["stage"] = "advance"
    else:
        after_advance(st, ev)


def after_advance(st: State, ev: list[Event]) -> None:
    """Step 2b (Sacrifice discard), then step 3 (draw offer) (§4)."""
    if st["turn"]["sacrifice"] and st["public"][order_seat(st)]:
        st["turn"]["sacrifice"] = False
        st["stage"] = "sac_discard"
        return
    draw_step(st, ev)


def draw_step(st: State, ev: list[Event]) -> None:
    a = order_seat(st)
    if st["positions"][a] != GATE and len(st["hands"][a]) < HAND_SIZE and (st["deck"] or st["discard"]):
        st["stage"] = "draw_offer"
    else:
        end_turn(st, ev)

# -- player actions in play -------------------------------------------------
def apply_turn(st: State, seat: int, action: Action, ev: list[Event]) -> None:
    a = order_seat(st)
    st["build"] = None
    t = action["type"]
    if t in ("guard", "allow"):
        apply_reaction(st, seat, action, ev)
        return
    card = action.get("card")
    if t == "use":
        declare(st, str(card), action["plan"], ev)
    elif t in ("pass", "add", "discard", "replace"):
        if t == "add":
            assert card is not None
            st["hands"][a].remove(card)
            st["public"][a].append(card)
        elif t == "discard":
            assert card is not None
            st["hands"][a].remove(card)
            st["discard"].append(card)
        elif t == "replace":
            assert card is not None
            st["hands"][a].remove(card)
            pub = st["public"][a]
            pub[pub.index(action["out"])] = card
            st["discard"].append(action["out"])
        params: dict[str, Msg] = {"card": card_ref(str(card))} if card is not None else {}
        if t == "replace":
            params["out"] = card_ref(action["out"])
        ev.append(event(t, visible_to=None, seat=seat_ref(a), **params))
        after_action(st, ev)
    elif t == "advance":
        st["positions"][a] += 1
        ev.append(event("advance", seat=seat_ref(a), to=st["positions"][a]))
        after_advance(st, ev)
    elif t == "stay":
        ev.append(event("stay", seat=seat_ref(a), space=st["positions"][a]))
        after_advance(st, ev)
    elif t == "lose":
        assert card is not None
        st["public"][a].remove(card)
        st["discard"].append(card)
        ev.append(event("sacrifice_discard", seat=seat_ref(a), card=card_ref(str(card))))
        draw_step(st, ev)
    elif t == "keep":
        keep = action["cards"]
        rest = [c for c in st["buffer"] if c not in keep]
        st["hands"][a].extend(keep)
        st["discard"].extend(rest)
        st["buffer"] = []
        ev.append(event("grace_keep", seat=seat_ref(a), kept=len(keep), discarded=card_list(rest)))
        after_action(st, ev)
    elif t == "assign":
        place_refill(st, a, list(action["public"]), ev)
    elif t == "draw":
        st["stage"] = "drawing"
        request_draw(st, a, 1, "turn", ev)
    elif t == "no_draw":
        ev.append(event("no_draw", seat=seat_ref(a)))
        end_turn(st, ev)

# -- USE: declaration, windows, resolution ------------------------------------
def declare(st: State, h: str, plan: Plan, ev: list[Event]) -> None:
    """Declare a USE (§5.4, §5.5, D19, D21): the card is spent, the windows queued —
    the owner of a card Arrogance takes, then the target of an attack."""
    a = order_seat(st)
    attacker_ok = st["options"]["guardian_scope"] == "sinner_card" or faction(st["public"][a]) == "sinner"
    st.update({"build": None, "stage": "resolving"})
    st["hands"][a].remove(h)
    st["discard"].append(h)
    final, taken, params = chain_of(h, plan)
    owner = owner_of_public(st, taken) if taken is not None else None
    target = params.get("target") if EFFECTS[final].attack else None
    windows: list[list[str | int]] = []
    if attacker_ok and owner is not None and owner != a:
        windows.append(["owner", owner])
    if attacker_ok and target is not None and target not in (a, owner):
        windows.append(["target", target])
    st["use"] = {"card": h, "plan": copy.deepcopy(plan), "windows": windows, "removed": False,
                 "cancelled": False}
    ev.append(event("use", seat=seat_ref(a), use=plan_msg(h, plan)))
    run_use(st, ev)


def run_use(st: State, ev: list[Event]) -> None:
    """Open the next window, or remove the taken card (Arrogance, after its owner's
    window, D18), or resolve the final ability (§5.5)."""
    use = use_of(st)
    windows = use["windows"]
    if windows and windows[0][0] == "owner":
        st["stage"] = "react"
        return
    final, taken, params = chain_of(use["card"], use["plan"])
    if taken is not None and not use["removed"]:
        owner = owner_of_public(st, taken)
        if owner is not None:
            st["public"][owner].remove(taken)
        st["discard"].append(taken)
        use["removed"] = True
        ev.append(event("taken", card=card_ref(taken)))
    if windows:
        st["stage"] = "react"
        return
    if use["cancelled"]:
        after_action(st, ev)
        return
    pending = EFFECTS[final].resolve(st, order_seat(st), params, ev)
    if pending is None:
        after_action(st, ev)
    elif pending["kind"] == "draw":
        request_draw(st, pending["seat"], pending["left"], pending["purpose"], ev)
    else:
        st["chance"] = pending


def apply_reaction(st: State, seat: int, action: Action, ev: list[Event]) -> None:
    """A window's answer (§5.5, D19): ALLOW, or GUARD — the card is spent, the defender
    draws 1, and the attack on them is cancelled."""
    use = use_of(st)
    role, _ = use["windows"].pop(0)
    st["stage"] = "resolving"
    if action["type"] == "allow":
        ev.append(event("allow", seat=seat_ref(seat)))
        run_use(st, ev)
        return
    g = action["card"]
    st["hands"][seat].remove(g)
    st["discard"].append(g)
    ev.append(event("guard", seat=seat_ref(seat), card=card_ref(g)))
    if role == "owner":
        use["windows"] = []
        request_draw(st, seat, 1, "guard_owner", ev)
    else:
        use["cancelled"] = True
        request_draw(st, seat, 1, "guard_target", ev)


def grace_after_draw(st: State, ev: list[Event]) -> None:
    a = order_seat(st)
    if st["buffer"] and grace_room(st, a) == 0:
        rest = st["buffer"]
        st["discard"].extend(rest)
        st["buffer"] = []
        ev.append(event("grace_discard", seat=seat_ref(a), discarded=card_list(rest)))
    if not st["buffer"]:
        after_action(st, ev)
        return
    st["stage"] = "grace_keep"


def refill_after_draw(st: State, seat: int, ev: list[Event]) -> None:
    buf = st["buffer"]
    m = min(st["refill_a"], len(buf))
    st["refill_a"] = m
    if m in (0, len(buf)):
        place_refill(st, seat, list(buf[:m]), ev)
    else:
        st["stage"] = "refill_assign"


def place_refill(st: State, seat: int, to_public: list[str], ev: list[Event]) -> None:
    rest = [c for c in st["buffer"] if c not in to_public]
    st["public"][seat].extend(to_public)
    st["hands"][seat].extend(rest)
    st.update({"buffer": [], "refill_a": 0})
    ev.append(event("refill", seat=seat_ref(seat), cards=card_list(to_public), hand=len(rest)))
    after_action(st, ev)
