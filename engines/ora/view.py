"""Views of an Ora et Labora state (spec docs/rules/ora.md §7, §11): nothing is hidden, so the
public view is complete and a seat's private view adds only which seat it is.

``PublicView`` is the renderer's input (render/ora.py): names, costs and effect lines come
from ``engines/ora/data.py`` and the text catalog, keyed by the ids given here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from engines.ora import flow as F
from engines.ora import notation as N
from engines.ora import rules as R
from engines.ora.data import INDICATORS, MODES, PHASES


class WheelView(TypedDict):
    """One production-wheel indicator in play (§2.3): ``good`` (or ``joker``), ``age``
    0–12 and its ``value`` now; ``next`` is its value after the next rotation."""

    good: str
    age: int
    value: int
    next: int


class ClergyView(TypedDict):
    """A clergyman on a building: whose (``seat``, the neutral player's index in solo) and
    ``kind`` (``prior``/``lay``)."""

    seat: int
    kind: str


class SpaceView(TypedDict):
    """One landscape space (§2.4): coordinates as typed commands use them, ``terrain``,
    ``card`` (``forest``/``moor``/None), ``piece`` (building or settlement id or None),
    ``clergy`` standing there. A mountain (x = 6) covers rows ``y`` and ``y + 1``."""

    x: int
    y: int
    terrain: str
    card: str | None
    piece: str | None
    clergy: list[ClergyView]


class ScoreView(TypedDict):
    """Live score (§8): ``goods`` (point goods, Wonders, money), ``economic``,
    ``settlements``, ``total``."""

    goods: int
    economic: int
    settlements: int
    total: int


class PlayerView(TypedDict):
    """One landscape owner: a seat, or the solo neutral player (``neutral`` True; no goods,
    no score). ``home`` counts clergy at home by kind; ``supply`` lists settlement cards not
    yet placed; ``spaces`` are sorted by (y, x); ``bought`` is True when the owner's landscape
    purchase of this round/turn is used."""

    seat: int
    neutral: bool
    goods: dict[str, int]
    home: dict[str, int]
    clergy_total: dict[str, int]
    spaces: list[SpaceView]
    supply: list[str]
    score: ScoreView
    bought: bool


class PileView(TypedDict):
    """A shared landscape pile (§2.4): the next ``price`` (None when empty) and ``left``."""

    price: int | None
    left: int


class PendingView(TypedDict):
    """The decision the game waits for: ``seat`` (None: chance or over), ``kind`` (a window
    kind ``action``/``bonus``/``settle``/``neutral`` or a frame ``use``/``pay``/``assign``/
    ``prior``/``borrow``/``build``/``settle``/``fellcut``/``take``/``neutral``/``nprior``),
    ``building`` concerned (or None), ``main_done`` for an action window, and which action window
    of its owner in this round or turn it is (``nth`` of ``of``: ``notation.window_number``)."""

    seat: int | None
    kind: str
    building: str | None
    main_done: bool
    nth: int
    of: int


class PublicView(TypedDict):
    """Everything (§7): ``mode`` code (``std4`` … ``sh4``), ``family`` (spec mode name),
    ``variant``, ``players``, ``unit`` (round, or turn in ``2p``) and ``unit_kind``,
    ``regular_units`` (None: open-ended), ``bonus_round``, ``start_player``,
    ``phases_done`` (0–4), ``next_phase`` (letter and the unit whose start holds it, or
    None), ``contract_price``, ``wheel_side`` (``front``/``back``) with ``wheel`` entries,
    ``entering`` (indicators still to enter: good and unit), ``display`` (building ids in
    order), ``piles``, ``owners`` (seats, then the neutral player), ``pending``,
    ``last_turn`` (two-player end announced), ``over``, ``scores`` per seat."""

    game: str
    mode: str
    family: str
    variant: str
    players: int
    unit: int
    unit_kind: str
    regular_units: int | None
    bonus_round: bool
    start_player: int | None
    phases_done: int
    next_phase: dict[str, Any] | None
    contract_price: int
    wheel_side: str
    wheel: list[WheelView]
    entering: list[dict[str, Any]]
    display: list[str]
    piles: dict[str, PileView]
    owners: list[PlayerView]
    pending: PendingView
    last_turn: bool
    over: bool
    scores: list[int]


class TargetView(TypedDict):
    """A numbered place of the seat's pending decision (``notation.targets``): ``n`` as the
    labels say it, on ``owner``'s landscape at (``x``, ``y``); ``slot``: the kind of landscape
    card (``district``, ``coast``, ``mountain``) a purchase or a taken card would put there
    (``notation.slot``: a slot beside the landscape, its column and top row), None for a space."""

    n: int
    owner: int
    x: int
    y: int
    slot: str | None


class PrivateView(PublicView):
    """The public view plus ``seat`` (whose view it is) and ``targets``: the numbered places of
    the seat's pending decision (empty when the seat does not decide or picks no place)."""

    seat: int
    targets: list[TargetView]


def _spaces(st: Mapping[str, Any], owner: int) -> list[SpaceView]:
    land = st["pl"][owner]["land"]
    here: dict[str, list[ClergyView]] = {}
    for s, p in enumerate(st["pl"]):
        for i, pos in enumerate(p["clergy"]):
            if pos is not None and pos[0] == owner:
                here.setdefault(pos[1], []).append({"seat": s, "kind": "prior" if i == 0 else "lay"})
    out: list[SpaceView] = []
    for k in sorted(land, key=lambda k: (R.xy(k)[1], R.xy(k)[0])):
        t, card, piece = land[k]
        x, y = R.xy(k)
        out.append({"x": x, "y": y, "terrain": t, "card": card, "piece": piece, "clergy": here.get(k, [])})
    return out


def public_view(st: Mapping[str, Any]) -> PublicView:
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
    entering = []
    for good, unit in (("grapes", mode.grapes), ("stone", mode.stone)):
        if unit is not None and unit > st["unit"] and (good != "grapes" or st["variant"] == "france"):
            entering.append({"good": good, "unit": unit})
    districts, plots = R.tiles_taken(st["pl"])
    next_phase = None
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


def player_view(st: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
    """``PublicView`` for ``None``; ``PrivateView`` (the same plus ``seat``) for a seat."""
    view: dict[str, Any] = dict(public_view(st))
    if seat is not None:
        view["seat"] = seat
        numbered = N.targets(st) if F.decider(st) == seat and not st["over"] else {}
        view["targets"] = [{"n": n, "owner": o, "x": x, "y": y, "slot": N.slot(st, o, x, y)} for (o, x, y), n in
                           sorted(numbered.items(), key=lambda item: item[1])]
    return view
