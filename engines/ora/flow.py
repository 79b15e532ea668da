"""The flow of an Ora et Labora game (spec docs/rules/ora.md §4, §5): rounds/turns, action
windows, settlement phases, the bonus round, and the resolution of building functions.

State (a JSON-ready dict; ``new_state`` builds it; ``types.State`` types it):

* ``mode`` (code ``std4`` … ``sh4``), ``variant``, ``n`` (players), ``opts`` (options).
* ``s0``: round-1 start seat (``None`` until the CHANCE outcome, §6); ``unit``: current round
  (or turn in ``two_player``); ``phase``: settlement phases completed (0–5); ``last``: the
  two-player last turn is under way (§4.5).
* ``wheel``: indicator → age (absent = not in play, §2.3); ``display``: building ids (§2.5).
* ``pl``: per owner (seats, then the solo neutral player) ``goods``, ``clergy`` (prior, lay
  brothers; ``None`` = home or ``[owner, "x,y"]``), ``land`` (see ``rules``), ``bought`` (the
  unit of the last landscape bought in an action window).
* ``queue``: what comes next in this unit (``["window", seat, kind]``, ``["settle", seat]``,
  ``["phase_end"]``, ``["neutral_build"]``, ``["neutral_recall"]``, ``["unit_end"]``,
  ``["end"]``); ``win``: the open window ``{"seat", "kind", "main", "used", "bought"}`` (kind
  ``action``/``bonus``/``settle``/``neutral``); ``stack``: pending decisions (frames, last on
  top): ``use`` (a building function, part by part), ``pay`` (a payment in steps), ``assign``
  (work-contract answer, §5.2), ``prior`` (prior bonus), ``borrow``, ``build``, ``settle``,
  ``fellcut``, ``take``, ``neutral``, ``nprior``.

Every function mutates the state it is given (the engine passes a copy) and appends events;
illegal input raises ``IllegalAction`` (the copy is dropped, so nothing is half-applied).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import cast

from engines.base import Event, IllegalAction, JSONObject, present, seat_ref
from engines.base import term as term_ref
from engines.ora import rules as R
from engines.ora.data import (
    BUILDINGS,
    COIN5,
    GIFT,
    HEARTLAND,
    MODES,
    NEUTRAL_HEARTLAND,
    PHASES,
    POINT_GOODS,
    SETTLEMENTS,
    SHORT_EMPTY,
    SHORT_ROUND_GOODS,
    SOLO_ROUNDS,
    START_INDICATORS,
    goods_of,
    settlements_arrived,
    turn_cap,
)
from engines.ora.effects import EFFECTS, FRAME_TERMS, VALUE_KINDS, Part, Term
from engines.ora.types import Action, Frame, Options, Pick, Player, QueueItem, Requirement, State, Window

Events = list[Event]

BUNDLES_SHOWN = 12
"""Irredundant payment bundles offered as one-tap options (least waste first, §11)."""

USER_FRAMES = frozenset({"use", "pay", "borrow", "build", "prior", "settle", "fellcut", "take"})
"""Frames decided by their user, during which free conversions are allowed (G3, D16)."""


def ev(kind: str, **params: object) -> Event:
    """A public event ``kind`` with ``params``."""
    return Event(kind, params=params)


def b_ref(bid: str) -> dict[str, str]:
    """A message parameter naming building ``bid`` (catalog ``term.building.<id>``)."""
    return term_ref(f"building.{bid}")


def good_ref(good: str) -> dict[str, str]:
    """A message parameter naming a good (catalog ``term.good.<good>``, §2.1)."""
    return term_ref(f"good.{good}")


def goods_ref(goods: Mapping[str, int]) -> list[JSONObject] | JSONObject:
    """A message parameter for a goods bundle: a list of ``goods.item`` messages ("2 Clay",
    joined by the catalog's comma), or the ``goods.none`` message when it is empty."""
    items: list[JSONObject] = [{"msg": "goods.item", "params": {"n": n, "good": {"term": f"good.{g}"}}}  # msg(...).to_json()
             for g, n in goods.items() if n]
    return items or {"msg": "goods.none", "params": {}}


def goods_text(goods: Mapping[str, int]) -> str:
    """Notation of a goods bundle: ``"peat_coal*2 wood"`` (count omitted when 1)."""
    return " ".join(g if n == 1 else f"{g}*{n}" for g, n in goods.items() if n)


# --------------------------------------------------------------------------- setup


def new_state(code: str, variant: str, players: int, opts: Options, s0: int | None) -> State:
    """The state before round 1 (§3). ``s0`` is the start seat, or None when CHANCE picks it."""
    mode = MODES[code]
    names = goods_of(variant)
    pl: list[Player] = []
    for _ in range(players):
        goods = {g: 0 for g in names}
        goods.update(mode.goods)
        pl.append({"goods": goods, "clergy": [None] * (1 + mode.lay),
                   "land": R.make_land(HEARTLAND, empty=SHORT_EMPTY if mode.family == "short" else ()),
                   "bought": -1})
    if code == "solo":
        pl.append({"goods": {g: 0 for g in names}, "clergy": [None] * 3,
                   "land": R.make_land(NEUTRAL_HEARTLAND), "bought": -1})
    chosen = R.game_set(code, variant, bool(opts["short4_remove_quarry_c"]))
    st: State = {
        "game": "ora", "mode": code, "variant": variant, "n": players, "opts": opts.copy(),
        "s0": s0, "unit": 0, "phase": 0, "last": False, "over": False,
        "wheel": {i: 0 for i in START_INDICATORS},
        "display": [b for b in BUILDINGS if b in chosen and BUILDINGS[b].stage == "start"],
        "pl": pl, "queue": [], "win": None, "stack": [],
    }
    return st


# --------------------------------------------------------------------------- timeline


def start_seat(st: State, unit: int | None = None) -> int:
    """Start player (turn owner in ``two_player``) of ``unit`` (§4.2, §4.5, §4.6)."""
    u = int(st["unit"] if unit is None else unit)
    s0 = present(st["s0"], "the start seat is known")
    if st["mode"] == "2p":
        return s0 if u % 2 == 1 else 1 - s0
    return (s0 + u - 1) % int(st["n"])


def is_bonus_round(st: State) -> bool:
    """The current unit is the bonus round (§4.4)."""
    mode = MODES[st["mode"]]
    return mode.bonus and mode.regular is not None and st["unit"] == mode.regular + 1


def neutral(st: State) -> int | None:
    """Owner index of the solo neutral player, or None."""
    return st["n"] if st["mode"] == "solo" else None


def advance(st: State, out: Events) -> None:
    """Run the flow until a decision is needed or the game is over."""
    while not st["over"]:
        if st["stack"]:
            if _auto_frame(st, out):
                continue
            return
        win = st["win"]
        if win is not None:
            if _window_closes(st, win):
                st["win"] = None
                continue
            return
        if not st["queue"]:
            _begin_unit(st, out)
            continue
        _run_item(st, st["queue"].pop(0), out)


def _begin_unit(st: State, out: Events) -> None:
    mode = MODES[st["mode"]]
    st["unit"] += 1
    u = st["unit"]
    for p in st["pl"]:
        R.recall_if_all_placed(p)
    wheel = st["wheel"]
    for ind in list(wheel):
        if wheel[ind] == 12 and mode.remove_at_end:
            del wheel[ind]
            out.append(ev("indicator_removed", good=good_ref(ind)))
        else:
            wheel[ind] = min(12, wheel[ind] + 1)
    if st["variant"] == "france" and mode.grapes == u:
        wheel["grapes"] = 0
        out.append(ev("indicator_enters", good=good_ref("grapes")))
    if mode.stone == u:
        wheel["stone"] = 0
        out.append(ev("indicator_enters", good=good_ref("stone")))
    bonus = is_bonus_round(st)
    out.append(ev("bonus_round" if bonus else ("turn" if st["mode"] == "2p" else "round"), n=u,
                  start=seat_ref(start_seat(st))))
    if mode.family == "short" and u in SHORT_ROUND_GOODS:
        for p in st["pl"][:st["n"]]:
            for g, n in SHORT_ROUND_GOODS[u]:
                R.add(p["goods"], g, n)
    if bonus:
        for p in st["pl"]:
            p["clergy"][0] = None
    queue: list[QueueItem] = []
    if st["phase"] < 4 and mode.phases[st["phase"]] + 1 == u:
        out.append(ev("phase", letter=PHASES[st["phase"]]))
        if st["mode"] == "solo":
            queue += [["neutral_build"], ["neutral_recall"]]
        queue += _settle_turns(st) + [["phase_end"]]
    start = start_seat(st)
    n = st["n"]
    if st["mode"] == "solo":
        queue += [["window", 0, "action"]] * 2
    elif st["mode"] == "2p":
        queue += [["window", start, "action"]] * (1 if st["last"] else 2)
    elif st["mode"] == "2pl":
        queue += [["window", start, "action"], ["window", start, "action"], ["window", 1 - start, "action"]]
    elif bonus:
        queue += [["window", (start + i) % n, "bonus"] for i in range(n)]
    else:
        queue += [["window", (start + i) % n, "action"] for i in range(n)]
        queue.append(["window", start, "action"])
    st["queue"] = queue + [["unit_end"]]


def _settle_turns(st: State) -> list[QueueItem]:
    start = start_seat(st)
    return [["settle", (start + i) % st["n"]] for i in range(st["n"])]


def _run_item(st: State, item: QueueItem, out: Events) -> None:
    kind = item[0]
    if kind == "window":
        st["win"] = {"seat": cast(int, item[1]), "kind": cast(str, item[2]), "main": False, "used": [],
                     "bought": False}
    elif kind == "settle":
        st["win"] = {"seat": cast(int, item[1]), "kind": "settle", "main": False, "used": [], "bought": False}
    elif kind == "phase_end":
        st["phase"] += 1
        letter = PHASES[st["phase"] - 1]
        chosen = R.in_game(st)
        new = [b for b in BUILDINGS if b in chosen and BUILDINGS[b].stage == letter]
        st["display"] += new
        out.append(ev("phase_end", letter=letter, buildings=[b_ref(b) for b in new],
                      settlement=[term_ref(f"settlement.{s}") for s in SETTLEMENTS
                                  if SETTLEMENTS[s].phase == st["phase"] - 1][:1]))
    elif kind == "neutral_build":
        if st["display"]:
            st["win"] = {"seat": 0, "kind": "neutral", "main": True, "used": [], "bought": True}
            st["stack"].append({"f": "neutral", "placed": []})
    elif kind == "neutral_recall":
        if R.recall_if_all_placed(st["pl"][st["n"]]):
            out.append(ev("neutral_recall"))
    elif kind == "unit_end":
        _unit_end(st, out)
    elif kind == "end":
        st["over"] = True
        out.append(ev("game_end"))


def ended_at_cap(st: State) -> int | None:
    """The unit (a turn in ``2p``, a round in ``2pl``) after which the two-player safety cap
    (D38) ended the game; None when the game is not over or ended by its own rule (``_unit_end``)."""
    cap = turn_cap(st["mode"], int(st["opts"]["two_player_turn_cap"]))
    if not st["over"] or cap is None or st["unit"] < cap:
        return None
    if st["mode"] == "2p":
        return None if st["last"] else int(st["unit"])
    display_end = st["phase"] >= 4 and len(st["display"]) <= 3 and not st["opts"].get("display_end_checked_by_host")
    return None if display_end else int(st["unit"])


def _unit_end(st: State, out: Events) -> None:
    mode = MODES[st["mode"]]
    u = st["unit"]
    code = st["mode"]
    cap = turn_cap(code, int(st["opts"]["two_player_turn_cap"]))
    if code == "solo":
        if u >= SOLO_ROUNDS:
            out.append(ev("phase", letter="E"))
            st["queue"] = [["settle", 0], ["end"]]
    elif code == "2p":
        if st["last"] or (cap is not None and u >= cap):
            st["queue"] = [["end"]]
        elif st["phase"] >= 4 and len(st["display"]) <= 1:
            st["last"] = True
            out.append(ev("last_turn", seat=seat_ref(start_seat(st, u + 1))))
    elif code == "2pl":
        # ``display_end_checked_by_host``: set only by the kennerspiel importer (its K18), which
        # checks the display itself before the round's last window
        display_end = st["phase"] >= 4 and len(st["display"]) <= 3 and not st["opts"].get("display_end_checked_by_host")
        if display_end or (cap is not None and u >= cap):
            st["queue"] = [["end"]]
    elif mode.regular is not None and u == mode.regular + 1:
        out.append(ev("phase", letter="E"))
        st["queue"] = _settle_turns(st) + [["end"]]


# --------------------------------------------------------------------------- deciders


def decider(st: State) -> int | None:
    """The seat that decides now (None when the game is over or the start seat is pending)."""
    if st["over"] or st["s0"] is None:
        return None
    if st["stack"]:
        top = st["stack"][-1]
        if top["f"] == "assign":
            return top["o"] if top["o"] < st["n"] else 0
        if top["f"] in ("neutral", "nprior"):
            return 0
        return int(top["u"])
    return None if st["win"] is None else int(st["win"]["seat"])


def legal(st: State) -> list[Action]:
    """Every legal action of the deciding seat, in a fixed order (§5): the pending decision's
    options, then free actions (G3, §5.3), then ``done``."""
    seat = decider(st)
    if seat is None:
        return []
    if st["stack"]:
        top = st["stack"][-1]
        out = frame_options(st, top)
        if top["f"] in USER_FRAMES and st["win"] is not None and st["win"]["seat"] == seat:
            out += conversions(st, seat)
        return out
    win = present(st["win"], "a window is open when no frame is")
    out = []
    if win["kind"] == "settle":
        if not win["main"]:
            out += settle_options(st, seat)
            out += purchases(st, seat)
        out += conversions(st, seat)
        out.append({"type": "done"})
        return out
    if not win["main"]:
        out += main_actions(st, seat)
    out += purchases(st, seat)
    out += conversions(st, seat)
    if win["main"]:
        out.append({"type": "done"})
    return out


# --------------------------------------------------------------------------- free actions


def conversions(st: State, seat: int) -> list[Action]:
    """Free conversions of G3 (flip grain, sell wine/whiskey), every count."""
    goods = st["pl"][seat]["goods"]
    out: list[Action] = [{"type": "flip_grain", "n": n} for n in range(1, goods.get("grain", 0) + 1)]
    out += [{"type": "sell_wine", "n": n} for n in range(1, goods.get("wine", 0) + 1)]
    out += [{"type": "sell_whiskey", "n": n} for n in range(1, goods.get("whiskey", 0) + 1)]
    return out


def can_convert(st: State, seat: int) -> bool:
    """Whether ``conversions`` lists anything (grain, wine or whiskey held), without listing."""
    goods: Mapping[str, int] = st["pl"][seat]["goods"]
    return goods.get("grain", 0) > 0 or goods.get("wine", 0) > 0 or goods.get("whiskey", 0) > 0


def can_buy_now(st: State, seat: int) -> bool:
    """The seat's landscape allowance is open in the current window (§4.2, §4.3, §5.3)."""
    win = st["win"]
    if win is None or st["stack"] or win["seat"] != seat or win["kind"] == "neutral":
        return False
    if win["kind"] == "settle":
        return not win["bought"] and not win["main"]
    return bool(st["pl"][seat]["bought"] != st["unit"])


def tile_options(st: State, seat: int, tile: str, *, price: bool,
                 taken: tuple[int, int] | None = None) -> list[Action]:
    """District/plot placements open to ``seat`` (each side and legal row); with ``price`` only
    when the seat can pay the pile's next price. ``taken``: ``rules.tiles_taken`` if known."""
    counts = taken if taken is not None else R.tiles_taken(st["pl"])
    cost = R.next_price(MODES[st["mode"]], tile, counts[0 if tile == "district" else 1])
    if cost is None or (price and st["pl"][seat]["goods"]["coin"] < cost):
        return []
    land = st["pl"][seat]["land"]
    verb = ("buy_" if price else "take_") + tile
    if tile == "district":
        return [{"type": verb, "side": side, "y": y} for side in ("hills", "plains") for y in R.district_rows(land)]
    return [{"type": verb, "side": side, "y": y} for side in ("coast", "mountain") for y in R.plot_rows(land, side)]


def _may_buy(st: State, seat: int) -> bool:
    """The seat's allowance is open and its coins reach the cheapest price of either pile."""
    if not can_buy_now(st, seat):
        return False
    mode = MODES[st["mode"]]
    coins: int = st["pl"][seat]["goods"]["coin"]
    return coins >= min(mode.districts[-1], mode.plots[-1], mode.districts[0], mode.plots[0])


def purchases(st: State, seat: int) -> list[Action]:
    """Landscape purchases open now (§5.3)."""
    if not _may_buy(st, seat):
        return []
    taken = R.tiles_taken(st["pl"])
    return (tile_options(st, seat, "district", price=True, taken=taken)
            + tile_options(st, seat, "plot", price=True, taken=taken))


def can_purchase(st: State, seat: int) -> bool:
    """Whether ``purchases`` lists anything, without listing the plots when a district can
    be bought."""
    if not _may_buy(st, seat):
        return False
    taken = R.tiles_taken(st["pl"])
    mode = MODES[st["mode"]]
    coins = st["pl"][seat]["goods"]["coin"]
    price = R.next_price(mode, "district", taken[0])
    if price is not None and price <= coins:  # a district has its two rows (rules.district_rows)
        return True
    price = R.next_price(mode, "plot", taken[1])
    if price is None or price > coins:
        return False
    land = st["pl"][seat]["land"]
    return bool(R.plot_rows(land, "coast") or R.plot_rows(land, "mountain"))


def do_free(st: State, seat: int, action: Action, out: Events) -> bool:
    """Apply a free action if ``action`` is one; False when it is not a free action."""
    t = action["type"]
    goods = st["pl"][seat]["goods"]
    if t in ("flip_grain", "sell_wine", "sell_whiskey"):
        top = st["stack"][-1] if st["stack"] else None
        if (top is not None and top["f"] not in USER_FRAMES) or st["win"] is None or st["win"]["seat"] != seat:
            raise IllegalAction("Free conversions only in your own window.", code="not_now")
        n = _count(action)
        src = {"flip_grain": "grain", "sell_wine": "wine", "sell_whiskey": "whiskey"}[t]
        if src not in goods or goods[src] < n:
            raise IllegalAction(f"You do not have {n} {src}.", code="missing_goods", good=src)
        goods[src] -= n
        if t == "flip_grain":
            goods["straw"] += n
        else:
            goods["coin"] += n * (1 if src == "wine" else 2)
        return True
    if t in ("buy_district", "buy_plot"):
        tile = t[4:]  # among the purchases, the ones of this tile's pile
        if not _may_buy(st, seat) or action not in tile_options(st, seat, tile, price=True):
            raise IllegalAction("That landscape cannot be bought now.", code="cannot_buy")
        taken = R.tiles_taken(st["pl"])[0 if tile == "district" else 1]
        cost = R.next_price(MODES[st["mode"]], tile, taken) or 0
        goods["coin"] -= cost
        R.place_tile(st["pl"][seat]["land"], tile, action["side"], action["y"])
        win = present(st["win"], "conversions and purchases only in a window")
        if win["kind"] == "settle":
            win["bought"] = True
        else:
            st["pl"][seat]["bought"] = st["unit"]
        out.append(ev("bought", seat=seat_ref(seat), tile=term_ref(f"tile.{tile}"), side=term_ref(f"side.{action['side']}"),
                      y=action["y"], price=cost))
        return True
    return False


def _count(action: Action) -> int:
    n = action.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise IllegalAction("A count must be a positive whole number.", code="bad_count")
    return n


def _window_closes(st: State, win: Window) -> bool:
    """A window closes by itself when only ``done`` is left (or a settlement was placed)."""
    if win["kind"] == "neutral":
        return True
    if win["kind"] == "settle":
        if win["main"]:
            return True
        return not (can_convert(st, win["seat"]) or settle_options(st, win["seat"])
                    or can_purchase(st, win["seat"]))
    if not win["main"]:
        return False
    return not (can_convert(st, win["seat"]) or can_purchase(st, win["seat"]))


# --------------------------------------------------------------------------- main actions


def my_buildings(st: State, owner: int) -> list[tuple[str, str]]:
    """``(key, building id)`` of the buildings on ``owner``'s landscape."""
    return [(k, b) for k, b in R.pieces(st["pl"][owner]["land"]) if b in BUILDINGS]


def used_key(owner: int, bid: str) -> str:
    """Chain-guard key of a building instance (FR10); ``owner`` -1 is the display."""
    return f"{owner}:{bid}"


def main_actions(st: State, seat: int) -> list[Action]:
    """The main actions open to ``seat`` (§5.1; bonus round §4.4)."""
    p = st["pl"][seat]
    out: list[Action] = []
    win = present(st["win"], "main actions only in a window")
    used = win["used"]
    if win["kind"] == "bonus":
        if p["clergy"][0] is None:
            for o in range(len(st["pl"])):
                for _k, b in my_buildings(st, o):
                    out.append({"type": "bonus", "owner": o, "b": b})
        out += build_options(st, seat)
        out.append({"type": "pass"})
        return out
    kinds = [c for c in ("prior", "lay") if R.home(p, c) is not None]
    for k, b in my_buildings(st, seat):
        if used_key(seat, b) in used or R.occupied(st["pl"], seat, k):
            continue
        out += [{"type": "place", "b": b, "c": c} for c in kinds]
    price = R.contract_price(st)
    gift = GIFT[st["variant"]]
    coins = p["goods"]["coin"]
    for o in range(len(st["pl"])):
        if o == seat or all(c is not None for c in st["pl"][o]["clergy"]):
            continue
        for k, b in my_buildings(st, o):
            if used_key(o, b) in used or R.occupied(st["pl"], o, k):
                continue
            if coins >= price:
                out.append({"type": "contract", "owner": o, "b": b})
            if p["goods"].get(gift, 0) >= 1:
                out.append({"type": "contract", "owner": o, "b": b, "gift": True})
    out += card_actions(st, seat, "fell_trees")
    out += card_actions(st, seat, "cut_peat")
    out += build_options(st, seat)
    out.append({"type": "pass"})
    return out


def card_actions(st: State, seat: int, verb: str) -> list[Action]:
    """Fell Trees / Cut Peat options (§5.1, D27): each card × indicator; a bare action when
    the seat has no card."""
    card, good = ("forest", "wood") if verb == "fell_trees" else ("moor", "peat")
    spaces = R.cards(st["pl"][seat]["land"], card)
    if not spaces:
        return [{"type": verb}]
    inds = _indicators(st, good)
    out: list[Action] = []
    for k in spaces:
        x, y = R.xy(k)
        out += [{"type": verb, "x": x, "y": y, "joker": j} for j in inds]
    return out


def _indicators(st: State, good: str) -> list[bool]:
    """WHEEL(g) choices (§2.3): False = g's own indicator, True = the joker; ``[False]`` (yields
    nothing) when neither is in play."""
    out = []
    if good in st["wheel"]:
        out.append(False)
    if "joker" in st["wheel"]:
        out.append(True)
    return out or [False]


def build_options(st: State, seat: int) -> list[Action]:
    """``build`` actions open to ``seat`` (§5.1): display buildings it can pay × legal spaces."""
    goods = st["pl"][seat]["goods"]
    affordable = [b for b in st["display"] if R.named_ok(goods, BUILDINGS[b].cost)]
    if not affordable:
        return []
    land = st["pl"][seat]["land"]
    empty = [(k, s[0]) for k, s in land.items() if s[1] is None and s[2] is None]
    cloister = {k for k, _ in empty if R.cloister_ok(land, k)}
    out: list[Action] = []
    for b in affordable:
        info = BUILDINGS[b]
        for k, terrain in empty:
            if terrain in info.terrain and (not info.cloister or k in cloister):
                x, y = R.xy(k)
                out.append({"type": "build", "b": b, "x": x, "y": y})
    return out


def do_main(st: State, seat: int, action: Action, out: Events) -> None:
    """Apply a main action (§5.1) in the open window."""
    win = present(st["win"], "main actions only in a window")
    t = action["type"]
    if win["kind"] not in ("action", "bonus") or win["main"]:
        raise IllegalAction("Your main action is already taken.", code="main_taken")
    bonus = win["kind"] == "bonus"
    if t == "pass":
        win["main"] = True
        out.append(ev("passed", seat=seat_ref(seat)))
        return
    if t == "build":
        _build(st, seat, action, out)
        win["main"] = True
        return
    if bonus and t != "bonus":
        raise IllegalAction("In the bonus round only build, bonus placement or pass.", code="bonus_round")
    if t == "bonus":
        if not bonus:
            raise IllegalAction("Bonus placement is only for the bonus round.", code="not_bonus")
        owner, b = _owner(st, action), str(action.get("b"))
        k = R.find(st["pl"][owner]["land"], b) if b in BUILDINGS else None
        if k is None or st["pl"][seat]["clergy"][0] is not None:
            raise IllegalAction("No such building, or your prior is not at home.", code="bad_target")
        st["pl"][seat]["clergy"][0] = [owner, k]
        win["main"] = True
        out.append(ev("bonus_placed", seat=seat_ref(seat), b=b_ref(b), owner=_owner_ref(st, owner)))
        push_use(st, seat, owner, b)
        return
    if t == "place":
        b, c = str(action.get("b")), action.get("c")
        land = st["pl"][seat]["land"]
        k = R.find(land, b) if b in BUILDINGS else None
        if k is None or c not in ("prior", "lay") or R.occupied(st["pl"], seat, k):
            raise IllegalAction("Place a clergyman on an unoccupied building of yours.", code="bad_target")
        if used_key(seat, b) in win["used"]:
            raise IllegalAction("That building was already used in this window.", code="chain_guard")
        i = R.home(st["pl"][seat], c)
        if i is None:
            raise IllegalAction(f"Your {c} is not at home.", code="no_clergy")
        st["pl"][seat]["clergy"][i] = [seat, k]
        win["main"] = True
        out.append(ev("placed", seat=seat_ref(seat), b=b_ref(b), clergy=term_ref(f"clergy.{c}")))
        push_use(st, seat, seat, b)
        return
    if t == "contract":
        _contract(st, seat, action, out)
        win["main"] = True
        return
    if t in ("fell_trees", "cut_peat"):
        _fell_cut(st, seat, action, out)
        win["main"] = True
        return
    raise IllegalAction(f"Unknown action {t!r}.", code="unknown_action")


def _owner(st: State, action: Action) -> int:
    o = action.get("owner")
    if not isinstance(o, int) or isinstance(o, bool) or not 0 <= o < len(st["pl"]):
        raise IllegalAction("No such landscape.", code="bad_owner")
    return o


def _owner_ref(st: State, owner: int) -> dict[str, str] | dict[str, int]:
    return {"term": "neutral"} if owner == neutral(st) else seat_ref(owner)


def _contract(st: State, seat: int, action: Action, out: Events) -> None:
    owner, b = _owner(st, action), str(action.get("b"))
    gift = bool(action.get("gift", False))
    land = st["pl"][owner]["land"]
    k = R.find(land, b) if b in BUILDINGS else None
    if owner == seat or k is None or R.occupied(st["pl"], owner, k):
        raise IllegalAction("Contract an unoccupied building of another player.", code="bad_target")
    if all(c is not None for c in st["pl"][owner]["clergy"]):
        raise IllegalAction("That player has no clergyman at home.", code="no_clergy")
    if used_key(owner, b) in present(st["win"], "contracts only in a window")["used"]:
        raise IllegalAction("That building was already used in this window.", code="chain_guard")
    goods = st["pl"][seat]["goods"]
    price = R.contract_price(st)
    if gift:
        g = GIFT[st["variant"]]
        if goods.get(g, 0) < 1:
            raise IllegalAction(f"You have no {g} to give.", code="missing_goods", good=g)
        goods[g] -= 1
    else:
        if goods["coin"] < price:
            raise IllegalAction(f"The contract costs {price} coins.", code="missing_goods", good="coin")
        goods["coin"] -= price
        if owner != neutral(st):
            st["pl"][owner]["goods"]["coin"] += price
    out.append(ev("contract", seat=seat_ref(seat), owner=_owner_ref(st, owner), b=b_ref(b),
                  pay=goods_ref({GIFT[st["variant"]]: 1} if gift else {"coin": price})))
    push_use(st, seat, owner, b, clergy_from=owner)
    st["stack"].append({"f": "assign", "o": owner, "u": seat, "b": b, "k": k})


def _fell_cut(st: State, seat: int, action: Action, out: Events) -> None:
    t = action["type"]
    card, good = ("forest", "wood") if t == "fell_trees" else ("moor", "peat")
    land = st["pl"][seat]["land"]
    if "x" not in action:
        if R.cards(land, card):
            raise IllegalAction("Choose which card to remove.", code="choose_space")
        out.append(ev("no_card", seat=seat_ref(seat), verb=term_ref(f"action.{t}")))
        return
    k = _space(action)
    joker = bool(action.get("joker", False))
    if land.get(k, [None, None])[1] != card:
        raise IllegalAction(f"There is no {card} card on that space of yours.", code="bad_space")
    if joker not in _indicators(st, good):
        raise IllegalAction("That indicator is not in play.", code="bad_indicator")
    R.set_space(land, k, card=None)
    n = use_wheel(st, seat, good, joker)
    out.append(ev("felled" if t == "fell_trees" else "cut", seat=seat_ref(seat), x=R.xy(k)[0], y=R.xy(k)[1],
                  goods=goods_ref({good: n})))


def _space(action: Action) -> str:
    x, y = action.get("x"), action.get("y")
    if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool) or isinstance(y, bool):
        raise IllegalAction("A space needs whole-number x and y.", code="bad_space")
    return R.key(x, y)


def use_wheel(st: State, seat: int, good: str, joker: bool) -> int:
    """WHEEL(good) with the chosen indicator (§2.3): the user receives its value, the indicator
    goes to age 0; in ``short`` every player also receives one (§4.8). Returns the amount."""
    ind = "joker" if joker else good
    if ind not in st["wheel"]:
        return 0
    n = R.wheel_value(st, ind) or 0
    st["wheel"][ind] = 0
    R.add(st["pl"][seat]["goods"], good, n)
    if MODES[st["mode"]].family == "short":
        for p in st["pl"][:st["n"]]:
            R.add(p["goods"], good, 1)
    return n


def _build(st: State, seat: int, action: Action, out: Events) -> None:
    b = str(action.get("b"))
    k = _space(action)
    if b not in st["display"]:
        raise IllegalAction("That building is not in the display.", code="not_in_display")
    goods = st["pl"][seat]["goods"]
    cost = BUILDINGS[b].cost
    if not R.named_ok(goods, cost):
        raise IllegalAction("You cannot pay that building's cost.", code="missing_goods")
    land = st["pl"][seat]["land"]
    if k not in R.build_spaces(land, b):
        raise IllegalAction("That building cannot stand on that space.", code="bad_space")
    R.take(goods, cost)
    R.set_space(land, k, piece=b)
    st["display"].remove(b)
    x, y = R.xy(k)
    out.append(ev("built", seat=seat_ref(seat), b=b_ref(b), x=x, y=y))
    if b in ("F21", "I21"):
        out.append(ev("price_rises", price=2))
    if st["pl"][seat]["clergy"][0] is None:
        st["stack"].append({"f": "prior", "u": seat, "b": b, "k": k})


# --------------------------------------------------------------------------- settlements


def settle_options(st: State, seat: int) -> list[Action]:
    """Settlements ``seat`` can place and pay now (§2.7), every legal space."""
    p = st["pl"][seat]
    land = p["land"]
    out: list[Action] = []
    names = goods_of(st["variant"])
    food = R.total_value(p["goods"], "food", R.value_goods(names, "food"))
    energy = R.total_value(p["goods"], "energy", R.value_goods(names, "energy"))
    for s in supply(st, seat):
        card = SETTLEMENTS[s]
        if food < card.food or energy < card.energy:
            continue
        for k in R.settle_spaces(land, s):
            x, y = R.xy(k)
            out.append({"type": "settle", "s": s, "x": x, "y": y})
    return out


def supply(st: State, seat: int) -> list[str]:
    """Settlement cards in ``seat``'s supply: arrived (§4.3) and not yet placed."""
    placed = {piece for _, piece in R.pieces(st["pl"][seat]["land"])}
    return [s for s in settlements_arrived(st["phase"]) if s not in placed]


def _value_ok(st: State, goods: Mapping[str, int], need: Mapping[str, float]) -> bool:
    names = goods_of(st["variant"])
    return all(R.total_value(goods, kind, R.value_goods(names, kind)) >= amount
               for kind, amount in need.items() if amount > 0)


def start_settle(st: State, seat: int, action: Action) -> None:
    """A ``settle`` choice: opens its food/energy payment (completed by ``finish_pay``)."""
    if action not in settle_options(st, seat):
        raise IllegalAction("That settlement cannot be placed there now.", code="bad_settlement")
    card = SETTLEMENTS[action["s"]]
    req: list[Requirement] = [[kind, float(amount)] for kind, amount in (("food", card.food), ("energy", card.energy))
                              if amount]
    st["stack"].append({"f": "pay", "u": seat, "req": req, "res": {}, "sp": [], "act": action.copy(),
                        "ctx": "settle"})


def _place_settlement(st: State, seat: int, action: Action, out: Events) -> None:
    k = _space(action)
    R.set_space(st["pl"][seat]["land"], k, piece=action["s"])
    x, y = R.xy(k)
    out.append(ev("settled", seat=seat_ref(seat), s=term_ref(f"settlement.{action['s']}"), x=x, y=y))


# --------------------------------------------------------------------------- functions


def push_use(st: State, user: int, owner: int, b: str, *, clergy_from: int | None = None) -> None:
    """Start resolving ``b``'s function for ``user`` (FR1); ``owner`` -1 = the display.
    Marks the building used for this window (FR10)."""
    present(st["win"], "functions are used in a window")["used"].append(used_key(owner, b))
    st["stack"].append({"f": "use", "u": user, "o": owner, "b": b, "i": 0, "prev": True})


def part_of(frame: Frame) -> Part | None:
    """The part of a ``use`` frame to decide now, or None when all are done."""
    parts = EFFECTS[frame["b"]].parts
    return parts[frame["i"]] if frame["i"] < len(parts) else None


def _only_frame(part: Part) -> Term | None:
    alt = part.alts[0]
    if not part.choose and alt.pay.empty and len(alt.get) == 1 and alt.get[0].kind in FRAME_TERMS:
        return alt.get[0]
    return None


def _auto_frame(st: State, out: Events) -> bool:
    """Resolve the top frame if it needs no decision; True when something changed."""
    top = st["stack"][-1]
    f = top["f"]
    if f == "use":
        part = part_of(top)
        if part is None:
            st["stack"].pop()
            return True
        if part.needs_previous and not top["prev"]:
            top["i"] += 1
            top["prev"] = False
            return True
        if part.auto:
            top["i"] += 1
            top["prev"] = True
            _gain(st, top, part, {"type": "do", "n": 1}, out)
            return True
        only = _only_frame(part)
        if only is not None:
            top["i"] += 1
            top["prev"] = True
            _open_frame(st, top, only)
            return True
        if not has_part_options(st, top, part):
            top["i"] += 1
            top["prev"] = False
            return True
        return False
    if f == "pay":
        if not top["req"]:
            finish_pay(st, out)
            return True
        return False
    if f == "assign":
        owner = st["pl"][top["o"]]
        kinds = [c for c in ("prior", "lay") if R.home(owner, c) is not None]
        if len(kinds) == 1:
            _assign(st, kinds[0], out)
            return True
        return False
    if f == "neutral":
        if not st["display"]:
            st["stack"].pop()
            n = neutral(st)
            if n is not None and st["pl"][n]["clergy"][0] is None and top["placed"]:
                st["stack"].append({"f": "nprior", "placed": top["placed"]})
            return True
        return False
    if not frame_options(st, top):
        st["stack"].pop()
        return True
    return False


def _open_frame(st: State, use: Frame, term: Term) -> None:
    u = use["u"]
    if term.kind == "borrow":
        st["stack"].append({"f": "borrow", "u": u, "t": term.arg, "o": use["o"], "b": use["b"]})
    elif term.kind == "build":
        st["stack"].append({"f": "build", "u": u})
    elif term.kind == "settle":
        st["stack"].append({"f": "settle", "u": u})
    elif term.kind == "fell_cut":
        st["stack"].append({"f": "fellcut", "u": u, "left": ["fell_trees", "cut_peat"]})
    elif term.kind == "landscape":
        st["stack"].append({"f": "take", "u": u, "left": ["district", "plot"]})


def _assign(st: State, kind: str, out: Events) -> None:
    top = st["stack"].pop()
    owner = st["pl"][top["o"]]
    i = R.home(owner, kind)
    if i is None:
        raise IllegalAction(f"No {kind} at home.", code="no_clergy")
    owner["clergy"][i] = [top["o"], top["k"]]
    out.append(ev("assigned", owner=_owner_ref(st, top["o"]), clergy=term_ref(f"clergy.{kind}"), b=b_ref(top["b"])))


# -- part options -----------------------------------------------------------


def entitlement(st: State, user: int, arg: str) -> float:
    """Point-goods entitlement (D40): ``cards`` = forest + moor cards of the user (Festival
    Ground); ``cloisters`` = k × cloister buildings of the user (Brotherhood, §4.6/§4.7 k)."""
    land = st["pl"][user]["land"]
    if arg == "cards":
        return float(len(R.cards(land, "forest")) + len(R.cards(land, "moor")))
    return MODES[st["mode"]].brotherhood * R.cloister_count(land)


def _wheel_picks(st: State, user: int, term: Term) -> list[tuple[str, bool]]:
    """A ``wheel`` pick's choices: each good held with each indicator it may use (none when
    neither its goods' indicators nor the joker are in play)."""
    if not ({*term.options, "joker"} & set(st["wheel"])):
        return []
    return [(g, j) for g in term.options for j in _indicators(st, g) if g in st["pl"][user]["goods"]]


def _pick_options(st: State, user: int, part: Part) -> list[list[Pick]]:
    lists: list[Sequence[Pick]] = []
    for term in part.picks:
        if term.kind in ("choice", "basic"):
            lists.append([g for g in term.options if g in st["pl"][user]["goods"]])
        elif term.kind == "joker":
            lists.append(list(term.options) if "joker" in st["wheel"] else [])
        elif term.kind == "points":
            lists.append(R.point_sets(entitlement(st, user, term.arg)))
        elif term.kind == "wheel":
            lists.append([[g, j] for g, j in _wheel_picks(st, user, term)])
    out = []
    basics = [i for i, t in enumerate(part.picks) if t.kind == "basic"]
    for combo in itertools.product(*lists):
        if len(basics) > 1 and len({combo[i] for i in basics}) < len(basics):
            continue
        out.append(list(combo))
    return out


def need_of(part: Part, action: Action) -> tuple[dict[str, int], dict[str, float], int, int]:
    """What a ``do`` choice pays in total: named goods, value by kind, k different, forests."""
    named: dict[str, int] = {}
    value: dict[str, float] = {}
    different = forest = 0
    if not part.choose and not part.alts[0].pay.value and action["n"] >= 1:  # n times one alternative
        pay, n = part.alts[0].pay, action["n"]
        for g, c in pay.named:
            named[g] = named.get(g, 0) + c * n
        return named, value, pay.different, pay.forest * n
    alts = [part.alts[i] for i in action["alts"]] if part.choose else [part.alts[0]] * action["n"]
    for alt in alts:
        for g, c in alt.pay.named:
            named[g] = named.get(g, 0) + c
        for kind, a in alt.pay.value:
            value[kind] = value.get(kind, 0.0) + a
        different = max(different, alt.pay.different)
        forest += alt.pay.forest
    return named, value, different, forest


def _affordable(st: State, user: int, part: Part, action: Action) -> bool:
    goods = st["pl"][user]["goods"]
    named, value, different, forest = need_of(part, action)
    if part.ordered:
        trial = dict(goods)
        for i in action["alts"]:
            alt = part.alts[i]
            if not R.named_ok(trial, dict(alt.pay.named)):
                return False
            R.take(trial, dict(alt.pay.named))
            for t in alt.get:
                if t.kind == "goods":
                    R.add(trial, t.good, t.n)
        return True
    if not R.named_ok(goods, named):
        return False
    rest = dict(goods)
    if named:
        R.take(rest, named)
    if value and not _value_ok(st, rest, value):
        return False
    if different and len(_different_pool(st, rest)) < different:
        return False
    return not forest or len(R.cards(st["pl"][user]["land"], "forest")) >= forest


_PICK_ORDER: dict[str, tuple[str, ...]] = {}
"""``_different_pool``: a variant's goods in file order, then ``coin5``."""


def _different_pool(st: State, goods: Mapping[str, int], after: str | None = None,
                    *, together: bool = True) -> list[str]:
    """Goods that can still be picked for "k different goods" (G7), in file order after
    ``after``: held goods, ``coin5`` with five coins, straw also from a grain to flip (G4).
    ``together``: the goods can all be given together (``coin`` and ``coin5`` then need six
    coins); otherwise each is a possible next pick (``coin5`` with five coins)."""
    order = _PICK_ORDER.get(st["variant"])
    if order is None:
        order = _PICK_ORDER[st["variant"]] = (*goods_of(st["variant"]), COIN5)
    start = order.index(after) + 1 if after is not None else 0
    out = []
    coins = goods.get("coin", 0)
    grain = goods.get("grain", 0)
    for g in order[start:]:
        if g == COIN5:
            if coins >= 5 + (1 if together and "coin" in out else 0):
                out.append(g)
        elif g == "straw":
            if goods.get("straw", 0) > 0 or grain - (1 if together and "grain" in out else 0) > 0:
                out.append(g)
        elif goods.get(g, 0) > 0:
            out.append(g)
    return out


def _lone_wheel(part: Part) -> bool:
    """The part's one choice is a production-wheel good (its options are ``wheel`` actions)."""
    return len(part.picks) == 1 and part.picks[0].kind == "wheel"


def _wheel_options(st: State, user: int, part: Part) -> list[Action]:
    """A lone wheel part's options: each good with each indicator it may use."""
    return [{"type": "wheel", "good": g, "joker": j} for g, j in _wheel_picks(st, user, part.picks[0])]


def part_options(st: State, use: Frame, part: Part) -> list[Action]:
    """The ``do``/``wheel`` choices of a part (§5.4), without ``skip``: every affordable
    repetition count (or list of alternatives) with every pick."""
    user = use["u"]
    if _lone_wheel(part):
        return _wheel_options(st, user, part)
    picks = _pick_options(st, user, part) if part.picks else [[]]
    out: list[Action] = []
    if part.choose:
        for seq in _alt_lists(st, user, part):
            out.append({"type": "do", "alts": seq})
        return out
    n = 1
    while part.cap is None or n <= part.cap:
        base: Action = {"type": "do", "n": n}
        if not _affordable(st, user, part, base):
            break
        for pk in picks:
            out.append({**base, "pick": pk} if pk else base)
        n += 1
    return out


def has_part_options(st: State, use: Frame, part: Part) -> bool:
    """Whether ``part_options`` lists anything, without listing: a pick for a lone wheel
    pick; else one affordable alternative within the caps, or one affordable repetition with
    a pick for every pick term."""
    user = use["u"]
    if _lone_wheel(part):
        return bool(_pick_options(st, user, part))
    if part.cap is not None and part.cap < 1:
        return False
    if part.choose:
        return any((alt.cap is None or alt.cap > 0)
                   and _affordable(st, user, part, {"type": "do", "alts": [i]})
                   for i, alt in enumerate(part.alts))
    return _affordable(st, user, part, {"type": "do", "n": 1}) and (
        not part.picks or bool(_pick_options(st, user, part)))


def _alt_lists(st: State, user: int, part: Part) -> list[list[int]]:
    out: list[list[int]] = []
    cap = part.cap if part.cap is not None else 99

    def walk(seq: list[int]) -> None:
        if len(seq) >= cap:
            return
        first = 0 if part.ordered or not seq else seq[-1]
        for i in range(first, len(part.alts)):
            alt_cap = part.alts[i].cap
            if alt_cap is not None and seq.count(i) >= alt_cap:
                continue
            nxt = [*seq, i]
            if _affordable(st, user, part, {"type": "do", "alts": nxt}):
                out.append(nxt)
                walk(nxt)

    walk([])
    return out


def _listed_repetition(st: State, use: Frame, part: Part, action: Action) -> bool:
    """Whether ``action`` (a repetition count with a pick) is among ``part_options``, without
    listing them: the count is within the cap and affordable (what a count needs grows with
    it, so every smaller count is affordable too) and the pick is one of the part's picks."""
    n = action.get("n")
    if type(n) is not int or n < 1 or (part.cap is not None and n > part.cap):
        return False
    user = use["u"]
    base: Action = {"type": "do", "n": n}
    if not _affordable(st, user, part, base):
        return False
    picks = _pick_options(st, user, part) if part.picks else [[]]
    return any(action == ({**base, "pick": pk} if pk else base) for pk in picks)


def _check_do(st: State, use: Frame, part: Part, action: Action) -> None:
    if action["type"] == "wheel":
        if not _lone_wheel(part) or action not in _wheel_options(st, use["u"], part):
            raise IllegalAction("That indicator cannot be used here.", code="bad_indicator")
        return
    if part.choose:
        seq = action.get("alts")
        if not isinstance(seq, list) or not seq or set(action) - {"type", "alts"}:
            raise IllegalAction("Choose the alternatives by number.", code="bad_choice")
    elif set(action) - {"type", "n", "pick"}:
        raise IllegalAction("Unknown parameters.", code="bad_choice")
    elif _listed_repetition(st, use, part, action):
        return
    options = part_options(st, use, part)
    if action not in options and not _smaller_points_ok(st, use, part, action, options):
        raise IllegalAction("That choice is not possible with your goods.", code="cannot_pay")


def _smaller_points_ok(st: State, use: Frame, part: Part, action: Action,
                       options: list[Action]) -> bool:
    """D40: point goods worth at most the entitlement. The options list the sets no further
    point good fits into (one tap each); any set within the entitlement, a smaller one or
    none, is accepted too (as any sufficient payment is, G5)."""
    idx = [i for i, t in enumerate(part.picks) if t.kind == "points"]
    pick = action.get("pick")
    if not idx or not isinstance(pick, list) or len(pick) != len(part.picks):
        return False
    for i in idx:
        chosen = pick[i]
        if not isinstance(chosen, dict) or any(
                g not in POINT_GOODS or not isinstance(n, int) or isinstance(n, bool) or n < 0
                for g, n in chosen.items()):
            return False
        if sum(R.value(g, "points") * n for g, n in chosen.items()) > entitlement(st, use["u"], part.picks[i].arg):
            return False

    def without_points(a: Action) -> dict[str, object]:
        return {**a, "pick": [None if i in idx else x for i, x in enumerate(a.get("pick", []))]}

    return any(without_points(o) == without_points(action) for o in options)


def do_part(st: State, action: Action, out: Events) -> None:
    """A ``do``/``wheel``/``skip`` decision on the top ``use`` frame (FR2, FR3)."""
    use = st["stack"][-1]
    part = part_of(use)
    if part is None:
        raise IllegalAction("Nothing to decide here.", code="not_now")
    if action["type"] == "skip":
        use["i"] += 1
        use["prev"] = False
        return
    _check_do(st, use, part, action)
    user = use["u"]
    goods = st["pl"][user]["goods"]
    if action["type"] == "wheel":
        use["i"] += 1
        use["prev"] = True
        n = use_wheel(st, user, action["good"], bool(action["joker"]))
        out.append(ev("produced", seat=seat_ref(user), b=b_ref(use["b"]), goods=goods_ref({action["good"]: n})))
        return
    if part.ordered:
        use["i"] += 1
        use["prev"] = True
        _gain(st, use, part, action, out)
        return
    named, value, different, forest = need_of(part, action)
    res = R.take(goods, named) if named else {}
    req: list[Requirement] = []
    if forest:
        req.append(["forest", forest, None])
    if different:
        req.append(["different", different, None])
    req += [[kind, value[kind]] for kind in VALUE_KINDS if value.get(kind)]
    st["stack"].append({"f": "pay", "u": user, "req": req, "res": res, "sp": [], "act": action.copy(),
                        "ctx": "part"})


def _gain(st: State, use: Frame, part: Part, action: Action, out: Events,
          spaces: list[str] | None = None) -> None:
    """Receive what a resolved part gives (after its payment), open follow-up frames."""
    user = use["u"]
    p = st["pl"][user]
    goods = p["goods"]
    before = dict(goods)
    if part.ordered:
        for i in action["alts"]:
            alt = part.alts[i]
            R.take(goods, dict(alt.pay.named))
            for t in alt.get:
                if t.kind == "goods":
                    R.add(goods, t.good, t.n)
    else:
        if part.choose:
            alts = [part.alts[i] for i in action["alts"]]
        else:
            alts = [part.alts[0]] * int(action.get("n", 1))
        picks = list(action.get("pick", []))
        for k in spaces or []:
            R.set_space(p["land"], k, card=None)
        frames: list[Term] = []
        for alt in alts:
            pick_i = 0
            for t in alt.get:
                if t.kind == "goods":
                    R.add(goods, t.good, t.n)
                elif t.kind in ("choice", "basic"):
                    R.add(goods, cast(str, picks[pick_i]), t.n)
                    pick_i += 1
                elif t.kind == "joker":
                    pick = cast(str, picks[pick_i])
                    pick_i += 1
                    n = R.wheel_value(st, "joker") or 0
                    st["wheel"]["joker"] = 0
                    R.add(goods, pick, n)
                    if MODES[st["mode"]].family == "short":
                        for q in st["pl"][:st["n"]]:
                            R.add(q["goods"], pick, 1)
                elif t.kind == "points":
                    for g, c in cast("dict[str, int]", picks[pick_i]).items():
                        R.add(goods, g, c)
                    pick_i += 1
                elif t.kind == "livestock_tiers":
                    coins = 0
                    for low, c in t.tiers:
                        if goods.get("livestock", 0) >= low:
                            coins = c
                    R.add(goods, "coin", coins)
                elif t.kind == "recall_all":
                    p["clergy"] = [None] * len(p["clergy"])
                    out.append(ev("recalled", seat=seat_ref(user)))
                elif t.kind == "recall_prior":
                    p["clergy"][0] = None
                elif t.kind in FRAME_TERMS:
                    frames.append(t)
        for t in frames:
            _open_frame(st, use, t)
    delta = {g: goods[g] - before.get(g, 0) for g in goods if goods[g] != before.get(g, 0)}
    gained = {g: n for g, n in delta.items() if n > 0}
    paid = {g: -n for g, n in delta.items() if n < 0}
    if gained or paid:
        kind = "converted" if gained and paid else ("produced" if gained else "spent")
        out.append(ev(kind, seat=seat_ref(user), b=b_ref(use["b"]), goods=goods_ref(gained), paid=goods_ref(paid)))


# -- payments ---------------------------------------------------------------


def pay_options(st: State, frame: Frame) -> list[Action]:
    """Options of a payment step (G5, G7): one-tap bundles (least waste first) and single
    additions for value payments; one good at a time (file order) for k different goods; one
    forest card at a time for REMOVE_FOREST."""
    user = frame["u"]
    goods = st["pl"][user]["goods"]
    req = frame["req"][0]
    kind, owed = cast(str, req[0]), cast(float, req[1])
    if kind == "forest":
        forests = R.cards(st["pl"][user]["land"], "forest")
        after = cast("str | None", req[2])
        usable = forests[forests.index(after) + 1:] if after in forests else forests
        return [{"type": "forest", "x": R.xy(k)[0], "y": R.xy(k)[1]}
                for i, k in enumerate(usable) if len(usable) - i >= owed]
    if kind == "different":
        return [{"type": "pick", "good": g}
                for g in _different_pool(st, goods, cast("str | None", req[2]), together=False)
                if _different_pick_leaves_enough(st, goods, req, g)]
    amount = float(owed)
    pool = R.value_goods(goods_of(st["variant"]), kind)
    shown = R.bundles(goods, kind, amount, pool, BUNDLES_SHOWN)
    out: list[Action] = [{"type": "pay", "goods": b} for b in shown]
    for g in pool:
        v = R.value(g, kind)
        top = min(R.held(goods, g), int(-(-amount // v)))
        out += [{"type": "add", "good": g, "n": c} for c in range(1, top + 1)
                if c * v < amount or {g: c} not in shown]
    return out


def _different_pick_leaves_enough(st: State, goods: Mapping[str, int], req: Requirement, g: str) -> bool:
    """Whether, once ``g`` (a good of the pool) is given, enough different goods are left for
    the rest of a "k different goods" step ``req``."""
    trial = dict(goods)
    R.take(trial, {g: 1})
    left = cast(float, req[1]) - 1
    return len(_different_pool(st, trial, g)) >= left


def _different_pick_listed(st: State, frame: Frame, action: Action) -> bool:
    """Whether ``action`` is among ``pay_options`` of a "k different goods" step, without
    listing them."""
    if action.keys() != {"type", "good"} or action["type"] != "pick":
        return False
    goods = st["pl"][frame["u"]]["goods"]
    req = frame["req"][0]
    g = action["good"]
    return (g in _different_pool(st, goods, cast("str | None", req[2]), together=False)
            and _different_pick_leaves_enough(st, goods, req, g))


def do_pay(st: State, action: Action, out: Events) -> None:
    """Apply one payment step on the top ``pay`` frame (or ``skip``: give everything back)."""
    frame = st["stack"][-1]
    user = frame["u"]
    goods = st["pl"][user]["goods"]
    t = action["type"]
    if t == "skip":
        st["stack"].pop()
        for g, n in frame["res"].items():
            goods[g] += n
        if frame["ctx"] == "part":
            use = st["stack"][-1]
            use["i"] += 1
            use["prev"] = False
        return
    req = frame["req"][0]
    kind, owed = cast(str, req[0]), cast(float, req[1])
    if kind == "forest":
        if t != "forest" or action not in pay_options(st, frame):
            raise IllegalAction("Choose one of your forest cards.", code="bad_space")
        k = _space(action)
        frame["sp"].append(k)
        req[1] = owed - 1
        req[2] = k
    elif kind == "different":
        if not _different_pick_listed(st, frame, action):
            raise IllegalAction("Choose a good you have that is not chosen yet.", code="bad_good")
        g = action["good"]
        for src, n in R.take(goods, {g: 1}).items():
            frame["res"][src] = frame["res"].get(src, 0) + n
        req[1] = owed - 1
        req[2] = g
    else:
        chosen = _pay_goods(st, action, kind)
        total = sum(R.value(g, kind) * n for g, n in chosen.items())
        if t == "pay" and total < owed:
            raise IllegalAction(f"Those goods are worth {total:g} {kind}, {owed:g} needed.", code="cannot_pay")
        if t == "add" and total >= owed:
            t = "pay"
        for g, n in chosen.items():
            if R.held(goods, g) < n:
                raise IllegalAction(f"You do not have {n} {g}.", code="missing_goods", good=g)
        for g, n in chosen.items():
            for src, m in R.take(goods, {g: n}).items():
                frame["res"][src] = frame["res"].get(src, 0) + m
        req[1] = float(owed) - total
    left = cast(float, req[1])
    if (kind in ("forest", "different") and left <= 0) or (kind in VALUE_KINDS and left <= 1e-9):
        frame["req"].pop(0)


def _pay_goods(st: State, action: Action, kind: str) -> dict[str, int]:
    pool = set(R.value_goods(goods_of(st["variant"]), kind))
    chosen: object
    if action["type"] == "add":
        chosen = {action.get("good"): action.get("n")}
    elif action["type"] == "pay":
        chosen = action.get("goods")
    else:
        raise IllegalAction(f"Pay {kind} with goods.", code="bad_payment")
    if not isinstance(chosen, dict) or not chosen:
        raise IllegalAction("A payment lists goods and counts.", code="bad_payment")
    for g, n in chosen.items():
        if g not in pool or not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise IllegalAction(f"{g} does not pay {kind}.", code="bad_payment", good=str(g))
    return {str(g): int(n) for g, n in chosen.items()}


def finish_pay(st: State, out: Events) -> None:
    """All steps of the top ``pay`` frame are done: consume the payment and resolve."""
    frame = st["stack"].pop()
    act = frame["act"]
    user = frame["u"]
    if frame["ctx"] == "settle":
        _place_settlement(st, user, act, out)
        if st["stack"] and st["stack"][-1]["f"] == "settle":
            st["stack"].pop()
        elif st["win"] is not None and st["win"]["kind"] == "settle":
            st["win"]["main"] = True
        return
    use = st["stack"][-1]
    part = part_of(use)
    use["i"] += 1
    use["prev"] = True
    if part is not None:
        _gain(st, use, part, act, out, spaces=list(frame["sp"]))


# --------------------------------------------------------------------------- other frames


def borrow_targets(st: State, frame: Frame) -> list[tuple[int, str]]:
    """Target buildings of ``USE_OTHER`` (FR7, D20–D22): ``(owner, id)``, owner -1 = display."""
    used = present(st["win"], "borrowing only in a window")["used"]
    target = frame["t"]
    out: list[tuple[int, str]] = []
    if target == "display":
        out = [(-1, b) for b in st["display"]]
    elif target == "neighbour":
        if frame["o"] < 0:
            return []
        land = st["pl"][frame["o"]]["land"]
        k = R.find(land, frame["b"])
        if k is None:
            return []
        for nk in R.neighbours(land, k):
            b = land[nk][2]
            if b in BUILDINGS and not R.occupied(st["pl"], frame["o"], nk):
                out.append((frame["o"], b))
    else:
        for o in range(len(st["pl"])):
            for k, b in my_buildings(st, o):
                if target == "prior":
                    ok = "prior" in R.occupant_kinds(st["pl"], o, k)
                else:
                    ok = R.occupied(st["pl"], o, k)
                if ok:
                    out.append((o, b))
    return [(o, b) for o, b in out
            if not (o == frame["o"] and b == frame["b"]) and used_key(o, b) not in used]


def frame_options(st: State, frame: Frame) -> list[Action]:
    """The options of a pending frame (``skip`` included where declining is allowed)."""
    f = frame["f"]
    skip: list[Action] = [{"type": "skip"}]
    if f == "use":
        part = part_of(frame)
        return (part_options(st, frame, part) + skip) if part is not None else []
    if f == "pay":
        return pay_options(st, frame) + skip
    if f == "assign":
        owner = st["pl"][frame["o"]]
        return [{"type": "assign", "c": c} for c in ("prior", "lay") if R.home(owner, c) is not None]
    if f == "prior":
        return [{"type": "prior"}, *skip] if st["pl"][frame["u"]]["clergy"][0] is None else []
    if f == "borrow":
        targets = borrow_targets(st, frame)
        borrows: list[Action] = [{"type": "borrow", "owner": o, "b": b} for o, b in targets]
        return borrows + skip if targets else []
    if f == "build":
        builds = build_options(st, frame["u"])
        return builds + skip if builds else []
    if f == "settle":
        opts = settle_options(st, frame["u"])
        return opts + skip if opts else []
    if f == "fellcut":
        out: list[Action] = []
        for verb in frame["left"]:
            out += [a for a in card_actions(st, frame["u"], verb) if "x" in a]
        return out + skip if out else []
    if f == "take":
        out = []
        for tile in frame["left"]:
            out += tile_options(st, frame["u"], tile, price=False)
        return out + skip if out else []
    if f == "neutral":
        n = neutral(st)
        assert n is not None
        land = st["pl"][n]["land"]
        return [{"type": "neutral", "b": b, "x": R.xy(k)[0], "y": R.xy(k)[1]}
                for b in st["display"] for k in R.neutral_spaces(land, b)]
    if f == "nprior":
        n = neutral(st)
        assert n is not None
        land = st["pl"][n]["land"]
        gift = GIFT[st["variant"]]
        goods = st["pl"][0]["goods"]
        out = []
        for b in frame["placed"]:
            k = R.find(land, b)
            if k is None or R.occupied(st["pl"], n, k):
                continue
            if goods["coin"] >= R.contract_price(st):
                out.append({"type": "neutral_prior", "b": b})
            if goods.get(gift, 0):
                out.append({"type": "neutral_prior", "b": b, "gift": True})
        return out + skip if out else []
    return []


def do_frame(st: State, action: Action, out: Events) -> None:
    """Apply a decision on the top frame (other than ``use`` parts and payments)."""
    frame = st["stack"][-1]
    f = frame["f"]
    t = action["type"]
    if f in ("pay",):
        do_pay(st, action, out)
        return
    if f == "use":
        do_part(st, action, out)
        return
    if f == "settle" and t == "settle":
        start_settle(st, frame["u"], action)
        return
    if f == "pay" or action not in frame_options(st, frame):
        raise IllegalAction("That is not one of the choices now.", code="not_a_choice")
    if t == "skip":
        st["stack"].pop()
        if f == "neutral":
            raise IllegalAction("Every display building must be placed.", code="must_place")
        return
    if f == "assign":
        _assign(st, action["c"], out)
    elif f == "prior":
        st["stack"].pop()
        st["pl"][frame["u"]]["clergy"][0] = [frame["u"], frame["k"]]
        out.append(ev("prior_bonus", seat=seat_ref(frame["u"]), b=b_ref(frame["b"])))
        push_use(st, frame["u"], frame["u"], frame["b"])
    elif f == "borrow":
        st["stack"].pop()
        out.append(ev("borrowed", seat=seat_ref(frame["u"]), b=b_ref(action["b"])))
        push_use(st, frame["u"], action["owner"], action["b"])
    elif f == "build":
        st["stack"].pop()
        _build(st, frame["u"], action, out)
    elif f == "fellcut":
        frame["left"].remove(t)
        _fell_cut(st, frame["u"], action, out)
    elif f == "take":
        tile = t[5:]
        frame["left"].remove(tile)
        R.place_tile(st["pl"][frame["u"]]["land"], tile, action["side"], action["y"])
        out.append(ev("took", seat=seat_ref(frame["u"]), tile=term_ref(f"tile.{tile}"),
                      side=term_ref(f"side.{action['side']}"), y=action["y"]))
    elif f == "neutral":
        n = neutral(st)
        assert n is not None
        k = _space(action)
        land = st["pl"][n]["land"]
        R.set_space(land, k, piece=action["b"])
        st["display"].remove(action["b"])
        frame["placed"].append(action["b"])
        out.append(ev("neutral_built", b=b_ref(action["b"]), x=action["x"], y=action["y"]))
    elif f == "nprior":
        n = neutral(st)
        assert n is not None
        st["stack"].pop()
        goods = st["pl"][0]["goods"]
        if action.get("gift"):
            goods[GIFT[st["variant"]]] -= 1
        else:
            goods["coin"] -= R.contract_price(st)
        st["pl"][n]["clergy"][0] = [n, present(R.find(st["pl"][n]["land"], action["b"]), "a listed building")]
        out.append(ev("neutral_prior", b=b_ref(action["b"])))
        push_use(st, 0, n, action["b"])
