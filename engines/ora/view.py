"""Views of an Ora et Labora state (spec docs/rules/ora.md §7, §11): nothing is hidden, so the
public view is complete and a seat's private view adds only which seat it is.

``PublicView`` (``types``, beside the state's types) is the renderer's input (render/ora.py):
names, costs and effect lines come from ``engines/ora/data.py`` and the text catalog, keyed by
the ids given here.
"""

from __future__ import annotations

from typing import cast

from engines.ora import flow as F
from engines.ora import notation as N
from engines.ora import rules as R
from engines.ora.data import INDICATORS, MODES, PHASES
from engines.ora.types import (
    ClergyView,
    EnteringView,
    PendingView,
    PhaseView,
    PlayerView,
    PrivateView,
    PublicView,
    SpaceView,
    State,
    WheelView,
)


def _spaces(st: State, owner: int) -> list[SpaceView]:
    land = st["pl"][owner]["land"]
    here: dict[str, list[ClergyView]] = {}
    for s, p in enumerate(st["pl"]):
        for i, pos in enumerate(p["clergy"]):
            if pos is not None and pos[0] == owner:
                here.setdefault(cast(str, pos[1]), []).append({"seat": s, "kind": "prior" if i == 0 else "lay"})
    out: list[SpaceView] = []
    for k in sorted(land, key=lambda k: (R.xy(k)[1], R.xy(k)[0])):
        t, card, piece = land[k]
        x, y = R.xy(k)
        out.append({"x": x, "y": y, "terrain": cast(str, t), "card": card, "piece": piece, "clergy": here.get(k, [])})
    return out


def public_view(st: State) -> PublicView:
    """The public view of ``st`` (see ``PublicView``)."""
    mode = MODES[st["mode"]]
    n = st["n"]
    neutral = F.neutral(st)
    owners: list[PlayerView] = []
    for o, p in enumerate(st["pl"]):
        clergy = p["clergy"]
        sc = R.score(st, o)
        owners.append({
            "seat": o, "neutral": o == neutral,
            "goods": {g: c for g, c in p["goods"].items()} if o != neutral else {},
            "home": {"prior": int(clergy[0] is None), "lay": sum(1 for c in clergy[1:] if c is None)},
            "clergy_total": {"prior": 1, "lay": len(clergy) - 1},
            "spaces": _spaces(st, o),
            "supply": F.supply(st, o) if o != neutral else [],
            "score": {"goods": sc["goods"], "economic": sc["economic"], "settlements": sc["settlements"],
                      "total": sc["total"]},
            "bought": p["bought"] == st["unit"],
        })
    wheel: list[WheelView] = []
    for ind in INDICATORS:
        if ind in st["wheel"]:
            age = st["wheel"][ind]
            wheel.append({"good": ind, "age": age, "value": mode.wheel[age], "next": mode.wheel[min(12, age + 1)]})
    entering: list[EnteringView] = []
    for good, unit in (("grapes", mode.grapes), ("stone", mode.stone)):
        if unit is not None and unit > st["unit"] and (good != "grapes" or st["variant"] == "france"):
            entering.append({"good": good, "unit": unit})
    districts, plots = R.tiles_taken(st["pl"])
    next_phase: PhaseView | None = None
    if st["phase"] < 4:
        next_phase = {"letter": PHASES[st["phase"]], "unit": mode.phases[st["phase"]] + 1}
    seat = F.decider(st)
    top = st["stack"][-1] if st["stack"] else None
    win = st["win"]
    pending: PendingView = {
        "seat": seat,
        "kind": top["f"] if top else (win["kind"] if win else ("over" if st["over"] else "chance")),
        "building": top.get("b") if top else None,
        "main_done": bool(win and win["main"]),
        "nth": 1, "of": 1,
    }
    pending["nth"], pending["of"] = N.window_number(st)
    return {
        "game": "ora", "mode": st["mode"], "family": mode.family, "variant": st["variant"], "players": n,
        "unit": st["unit"], "unit_kind": "turn" if st["mode"] == "2p" else "round",
        "regular_units": mode.regular, "bonus_round": F.is_bonus_round(st),
        "start_player": F.start_seat(st) if st["s0"] is not None and st["unit"] else st["s0"],
        "phases_done": st["phase"], "next_phase": next_phase, "contract_price": R.contract_price(st),
        "wheel_side": "back" if st["mode"] == "2p" else "front", "wheel": wheel, "entering": entering,
        "display": list(st["display"]),
        "piles": {"district": {"price": R.next_price(mode, "district", districts), "left": 9 - districts},
                  "plot": {"price": R.next_price(mode, "plot", plots), "left": 9 - plots}},
        "owners": owners, "pending": pending, "last_turn": bool(st["last"]), "over": bool(st["over"]),
        "scores": [owners[s]["score"]["total"] for s in range(n)],
    }


def player_view(st: State, seat: int | None) -> PublicView | PrivateView:
    """``PublicView`` for ``None``; ``PrivateView`` (the same plus ``seat``) for a seat."""
    view = public_view(st)
    if seat is None:
        return view
    numbered = N.targets(st) if F.decider(st) == seat and not st["over"] else {}
    private: PrivateView = {
        **view, "seat": seat,
        "targets": [{"n": n, "owner": o, "x": x, "y": y, "slot": N.slot(st, o, x, y)}
                    for (o, x, y), n in
                    sorted(numbered.items(), key=lambda item: item[1])]}
    return private
