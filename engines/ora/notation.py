"""Ora et Labora notation, labels, hints, paths and prompts (spec docs/rules/ora.md §5, §11).

The typed notation follows philihp/kennerspiel's commands where it can (``build G06 3 1``,
``use LB2`` → ``use L2 lay``, ``cut_peat 0 0 joker``), in lower case, one decision per
command. Landscape owners are seat letters, ``N`` is the solo neutral player and ``display``
the building display. Goods bundles are written ``peat_coal*2 wood``.

| action | notation |
|---|---|
| place / contract / bonus | ``use G07 lay``, ``contract B L1 [gift]``, ``bonus B G07`` |
| fell / cut | ``fell_trees 1 0 [joker]``, ``cut_peat 0 0``, ``fell_trees`` (no card) |
| build / settle / neutral | ``build G06 3 1``, ``settle S02 3 1``, ``neutral G12 3 1`` |
| free | ``flip_grain 2``, ``sell_wine 1``, ``sell_whiskey 1``, ``buy_district hills 2``, ``buy_plot coast 0`` |
| function parts | ``do 3x``, ``do 1x coin``, ``do 1x points:ornament*2+book``, ``do #1 #2``, ``wheel grain joker`` |
| payments | ``pay meat peat_coal*2``, ``add grain 2``, ``pick wood``, ``forest 1 0`` |
| answers | ``assign lay``, ``prior``, ``borrow B G07``, ``take_district plains -1``, ``neutral_prior G03 [gift]``, ``skip``, ``pass``, ``done`` |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.base import (
    CHANCE,
    SEAT_LETTERS,
    IllegalAction,
    Msg,
    Seat,
    msg,
    present,
    seat_letter,
    seat_ref,
    term,
)
from engines.notation import GameNotation
from engines.ora import flow as F
from engines.ora import rules as R
from engines.ora.data import BUILDINGS, GOODS, MODES, PHASES, SETTLEMENTS
from engines.ora.types import Action, Pick, PrivateView, PublicView, State

FLIP_TYPES = ("flip_grain", "sell_wine", "sell_whiskey")
TILE_TYPES = ("buy_district", "buy_plot", "take_district", "take_plot")
PAGE = 20
"""Options per page when a list has to be split (§11: lists over 25 are split)."""


def owner_code(st: State, owner: int) -> str:
    """Notation of a landscape owner: seat letter, ``N`` (neutral) or ``display``."""
    if owner < 0:
        return "display"
    if owner == F.neutral(st):
        return "N"
    return seat_letter(owner)


def parse_owner(st: State, text: str) -> int:
    """Inverse of ``owner_code``.

    Raises:
        IllegalAction: no such owner.
    """
    t = text.upper()
    if t == "DISPLAY":
        return -1
    n = F.neutral(st)
    if t == "N" and n is not None:
        return n
    if len(t) == 1 and t in SEAT_LETTERS and SEAT_LETTERS.index(t) < st["n"]:
        return SEAT_LETTERS.index(t)
    raise IllegalAction(f"No landscape {text!r}.", code="bad_owner")


def goods_text(goods: Mapping[str, int]) -> str:
    """``"peat_coal*2 wood"``."""
    return F.goods_text(goods)


def parse_goods(tokens: list[str], sep: str = " ") -> dict[str, int]:
    """Inverse of ``goods_text`` for a token list (``good`` or ``good*n``).

    Raises:
        IllegalAction: an unknown good or a bad count.
    """
    out: dict[str, int] = {}
    for tok in tokens:
        good, _, count = tok.partition("*")
        if good not in GOODS:
            raise IllegalAction(f"Unknown good {good!r}.", code="bad_good")
        try:
            n = int(count) if count else 1
        except ValueError:
            raise IllegalAction(f"Bad count in {tok!r}.", code="bad_count") from None
        out[good] = out.get(good, 0) + n
    return out


def _pick_text(pick: Pick) -> str:
    if isinstance(pick, dict):
        return "points:" + "+".join(g if n == 1 else f"{g}*{n}" for g, n in pick.items())
    return str(pick)


def describe(st: State, a: Action) -> str:
    """The notation of action ``a`` (see the module table)."""
    t = str(a["type"])
    if t in ("pass", "done", "skip", "prior"):
        return t
    if t == "start_player":
        return f"start {seat_letter(a['seat'])}"
    if t == "place":
        return f"use {a['b']} {a['c']}"
    if t == "contract":
        return f"contract {owner_code(st, a['owner'])} {a['b']}" + (" gift" if a.get("gift") else "")
    if t in ("bonus", "borrow"):
        return f"{t} {owner_code(st, a['owner'])} {a['b']}"
    if t in ("fell_trees", "cut_peat"):
        if "x" not in a:
            return t
        return f"{t} {a['x']} {a['y']}" + (" joker" if a["joker"] else "")
    if t in ("build", "settle", "neutral"):
        return f"{t} {a['b' if t != 'settle' else 's']} {a['x']} {a['y']}"
    if t in FLIP_TYPES:
        return f"{t} {a['n']}"
    if t in TILE_TYPES:
        return f"{t} {a['side']} {a['y']}"
    if t == "do":
        head = " ".join(f"#{i + 1}" for i in a["alts"]) if "alts" in a else f"{a['n']}x"
        return " ".join(["do", head, *(_pick_text(p) for p in a.get("pick", []))])
    if t == "wheel":
        return f"wheel {a['good']}" + (" joker" if a["joker"] else "")
    if t == "pay":
        return f"pay {goods_text(a['goods'])}"
    if t == "add":
        return f"add {a['good']} {a['n']}"
    if t == "pick":
        return f"pick {a['good']}"
    if t == "forest":
        return f"forest {a['x']} {a['y']}"
    if t == "assign":
        return f"assign {a['c']}"
    if t == "neutral_prior":
        return f"neutral_prior {a['b']}" + (" gift" if a.get("gift") else "")
    return t


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise IllegalAction(f"{text!r} is not a number.", code="bad_number") from None


def parse(st: State, text: str) -> Action:
    """Parse notation into an action dict (legality is checked by ``apply``).

    Raises:
        IllegalAction: the text is not notation of any action.
    """
    tok = text.strip().split()
    if not tok:
        raise IllegalAction("Empty move.", code="unknown_move", text=text)
    t, rest = tok[0].lower(), tok[1:]
    bad = IllegalAction(f"'{text.strip()}' is not a move.", code="unknown_move", text=text)
    try:
        if t in ("pass", "done", "skip", "prior") and not rest:
            return {"type": t}
        if t == "use" and len(rest) == 2:
            return {"type": "place", "b": rest[0].upper(), "c": rest[1].lower()}
        if t == "contract" and len(rest) in (2, 3):
            a: Action = {"type": "contract", "owner": parse_owner(st, rest[0]), "b": rest[1].upper()}
            if len(rest) == 3:
                if rest[2].lower() != "gift":
                    raise bad
                a["gift"] = True
            return a
        if t in ("bonus", "borrow") and len(rest) == 2:
            return {"type": t, "owner": parse_owner(st, rest[0]), "b": rest[1].upper()}
        if t in ("fell_trees", "cut_peat"):
            if not rest:
                return {"type": t}
            if len(rest) in (2, 3):
                joker = len(rest) == 3
                if joker and rest[2].lower() != "joker":
                    raise bad
                return {"type": t, "x": _int(rest[0]), "y": _int(rest[1]), "joker": joker}
        if t == "settle" and len(rest) == 3:
            return {"type": t, "s": rest[0].upper(), "x": _int(rest[1]), "y": _int(rest[2])}
        if t in ("build", "neutral") and len(rest) == 3:
            return {"type": t, "b": rest[0].upper(), "x": _int(rest[1]), "y": _int(rest[2])}
        if t in FLIP_TYPES and len(rest) == 1:
            return {"type": t, "n": _int(rest[0])}
        if t in TILE_TYPES and len(rest) == 2:
            return {"type": t, "side": rest[0].lower(), "y": _int(rest[1])}
        if t == "do" and rest:
            a = {"type": "do"}
            picks = rest
            if rest[0].startswith("#"):
                alts = []
                while picks and picks[0].startswith("#"):
                    alts.append(_int(picks[0][1:]) - 1)
                    picks = picks[1:]
                a["alts"] = alts
            elif rest[0].endswith("x"):
                a["n"] = _int(rest[0][:-1])
                picks = rest[1:]
            else:
                raise bad
            if picks:
                a["pick"] = [parse_goods(p[7:].split("+")) if p.startswith("points:") else p.lower()
                             for p in picks]
            return a
        if t == "wheel" and len(rest) in (1, 2):
            if len(rest) == 2 and rest[1].lower() != "joker":
                raise bad
            return {"type": "wheel", "good": rest[0].lower(), "joker": len(rest) == 2}
        if t == "pay" and rest:
            return {"type": "pay", "goods": parse_goods([r.lower() for r in rest])}
        if t == "add" and len(rest) == 2:
            return {"type": "add", "good": rest[0].lower(), "n": _int(rest[1])}
        if t == "pick" and len(rest) == 1:
            return {"type": "pick", "good": rest[0].lower()}
        if t == "forest" and len(rest) == 2:
            return {"type": "forest", "x": _int(rest[0]), "y": _int(rest[1])}
        if t == "assign" and len(rest) == 1:
            return {"type": "assign", "c": rest[0].lower()}
        if t == "neutral_prior" and len(rest) in (1, 2):
            a = {"type": "neutral_prior", "b": rest[0].upper()}
            if len(rest) == 2:
                if rest[1].lower() != "gift":
                    raise bad
                a["gift"] = True
            return a
        if t == "start" and len(rest) == 1:
            return {"type": "start_player", "seat": parse_owner(st, rest[0])}
    except IllegalAction:
        raise
    raise bad


# --------------------------------------------------------------------------- numbered places


SPACE_TYPES = frozenset({"fell_trees", "cut_peat", "build", "settle", "forest", "neutral"})
"""Actions that pick a space of a landscape (``x``, ``y``); ``neutral`` on the neutral one."""
BUILDING_TYPES = frozenset({"place", "contract", "bonus", "borrow", "neutral_prior"})
"""Actions that pick a building on a landscape (``owner`` and ``b``; ``place`` the actor's own,
``neutral_prior`` the neutral player's; ``borrow`` from the display has no place)."""


SLOT_X = {"district": 0, "coast": -2, "mountain": 5}
"""The column that stands for a new landscape card's slot in the numbering (``target``): a
district's row starts at x 0, a coastal plot's at x −2, a mountain plot's at x 5 (§2.4,
``data.DISTRICT_SIDES``/``PLOT_SIDES``); no space of the landscape is there yet."""
SLOT_CELLS = {"district": tuple((dx, 0) for dx in range(5)), "coast": ((0, 0), (1, 0), (0, 1), (1, 1)),
              "mountain": ((0, 0), (1, 0), (0, 1), (1, 1))}
"""The spaces (dx, dy from the slot's column and top row) a new card of each kind covers."""


def slot(st: State, owner: int, x: int, y: int) -> str | None:
    """The kind of landscape card (``district``, ``coast``, ``mountain``) whose slot is the
    numbered place ``(owner, x, y)`` (``target`` of a purchase or a taken card), or None for a
    space of the landscape."""
    if R.key(x, y) in st["pl"][owner]["land"]:
        return None
    return next((k for k, col in SLOT_X.items() if col == x), None)


def target(st: State, a: Action) -> tuple[int, int, int] | None:
    """The landscape place action ``a`` picks: ``(owner, x, y)``, or None (no place, or a
    building of the display); a district or plot to buy or take picks its slot (``SLOT_X``
    column, its top row)."""
    t = a.get("type")
    seat = F.decider(st)
    if t in TILE_TYPES:
        if seat is None:
            return None
        kind = "district" if t.endswith("district") else str(a["side"])
        return seat, SLOT_X[kind], int(a["y"])
    if t in SPACE_TYPES and "x" in a:
        if t == "neutral":
            n = F.neutral(st)
            return None if n is None else (n, int(a["x"]), int(a["y"]))
        return None if seat is None else (seat, int(a["x"]), int(a["y"]))
    if t in BUILDING_TYPES:
        owner = seat if t == "place" else (F.neutral(st) if t == "neutral_prior" else a.get("owner"))
        if not isinstance(owner, int) or owner < 0 or seat is None:
            return None
        k = R.find(st["pl"][owner]["land"], str(a["b"]))
        if k is None:
            return None
        x, y = R.xy(k)
        return owner, x, y
    return None


_SEEN: list[tuple[State, dict[tuple[int, int, int], int], dict[str, int]]] = []
"""The numbering and the count of legal actions by type of the last few states asked (``targets``,
``_one_list``): each of a decision's labels and paths asks."""


def _decision(st: State, actions: Sequence[Action] | None = None
              ) -> tuple[dict[tuple[int, int, int], int], dict[str, int]]:
    for known, seen_numbers, seen_counts in _SEEN:
        if known is st:
            return seen_numbers, seen_counts
    seat = F.decider(st)
    places: set[tuple[int, int, int]] = set()
    counts: dict[str, int] = {}
    if seat is not None and not st["over"] and st["s0"] is not None:
        for a in F.legal(st) if actions is None else actions:
            counts[a["type"]] = counts.get(a["type"], 0) + 1
            place = target(st, a)
            if place is not None:
                places.add(place)
    order = sorted(places, key=lambda p: (p[0] != seat, p[0], slot(st, *p) is not None, p[2], p[1]))
    numbers = {p: i + 1 for i, p in enumerate(order)}
    _SEEN.insert(0, (st, numbers, counts))
    del _SEEN[4:]
    return numbers, counts


def targets(st: State, actions: Sequence[Action] | None = None) -> dict[tuple[int, int, int], int]:
    """The numbered places of the pending decision: ``(owner, x, y)`` → its number from 1, for
    every place a legal action picks (``target``); the decider's own landscape first, then the
    other owners in seat order, each row by row (y, then x), its spaces before the slots of
    new landscape cards (``slot``). The decision picture
    (render/ora.py ``render_decision``) and the labels ("3 · …") use the same numbers.
    ``actions``: the legal actions when the caller has them (else ``flow.legal``)."""
    return _decision(st, actions)[0]


def _one_list(st: State, kind: str) -> bool:
    """Whether the legal actions of ``kind`` make a short list (``ONE_LIST``): then they are
    listed under their kind's step at once, each label saying building, owner and number."""
    return _decision(st)[1].get(kind, 0) <= ONE_LIST


ONE_LIST = 12
"""The most options of one kind listed at once under its step; more go through a building or
owner step first (over random playouts of 2–4 players: the longest tenth of the menus at 12
options as with the step always there, 4.29 taps a turn on average against 4.42)."""


def in_number_order(st: State, actions: list[Action]) -> list[Action]:
    """``actions`` (the legal ones) with each run of one type (``_run_kind``) in the order of
    the numbers of their places (``targets``; stable: the clergy of one building keep their
    order), so a menu reads 1, 2, 3 … as the picture does."""
    numbers = targets(st, actions)
    if not numbers:
        return actions
    out: list[Action] = []
    run: list[Action] = []
    for a in actions:
        if run and _run_kind(a) != _run_kind(run[-1]):
            out += _by_number(st, run, numbers)
            run = []
        run.append(a)
    return out + _by_number(st, run, numbers)


def _run_kind(a: Action) -> str:
    """What a run of ``in_number_order`` shares: the action's type; districts and plots to buy
    (or to take) make one run, so their slots read in the picture's order."""
    t = str(a["type"])
    return t.split("_")[0] if t in TILE_TYPES else t


def _by_number(st: State, run: list[Action], numbers: dict[tuple[int, int, int], int]) -> list[Action]:
    def key(a: Action) -> int:
        place = target(st, a)
        return numbers.get(place, 0) if place is not None else 0
    return sorted(run, key=key)


def number_of(st: State, a: Action) -> int | None:
    """The number of the place ``a`` picks in the decision picture, or None."""
    place = target(st, a)
    return None if place is None else targets(st).get(place)


# --------------------------------------------------------------------------- labels


_b = F.b_ref
_g = F.good_ref
_goods_msg = F.goods_ref


def _owner_ref(st: State, owner: int) -> dict[str, str] | dict[str, int]:
    if owner < 0:
        return term("display")
    if owner == F.neutral(st):
        return term("neutral")
    return seat_ref(owner)


def label(st: State, a: Action) -> Msg:
    """The button/select label of ``a`` (a ``Msg``; English under 80 characters): an action that
    picks a place of a landscape reads "N · outcome" with N its number in the decision picture
    (``targets``)."""
    n = number_of(st, a)
    if n is not None:
        return msg("label.numbered", n=n, what=_outcome(st, a))
    return _plain_label(st, a)


def _wheel_yield(st: State, good: str, joker: bool) -> int:
    """What WHEEL(good) gives now with the good's indicator or the joker (§2.3)."""
    ind = "joker" if joker else good
    age = st["wheel"].get(ind)
    return 0 if age is None else MODES[st["mode"]].wheel[age]


def _outcome(st: State, a: Action) -> Msg:
    """What a numbered action does, in a few words (the number says where)."""
    t = a["type"]
    if t in ("fell_trees", "cut_peat"):
        good = "wood" if t == "fell_trees" else "peat"
        return msg(f"label.{t}_yield" + ("_joker" if a["joker"] else ""), n=_wheel_yield(st, good, a["joker"]),
                   good=_g(good))
    if t == "build":
        return msg("label.build_here", b=_b(a["b"]))
    if t == "neutral":
        return msg("label.neutral_here", b=_b(a["b"]))
    if t == "settle":
        return msg("label.settle_here", s=term(f"settlement.{a['s']}"))
    if t == "forest":
        return msg("label.forest_here")
    return _plain_label(st, a)


def _plain_label(st: State, a: Action) -> Msg:
    t = a["type"]
    if t in ("pass", "done", "skip", "prior"):
        return msg(f"label.{t}")
    if t == "start_player":
        return msg("label.start_player", seat=seat_ref(a["seat"]))
    if t == "place":
        return msg("label.place", b=_b(a["b"]), clergy=term(f"clergy.{a['c']}"))
    if t == "contract":
        return msg("label.contract_gift" if a.get("gift") else "label.contract", b=_b(a["b"]),
                   owner=_owner_ref(st, a["owner"]))
    if t in ("bonus", "borrow"):
        return msg(f"label.{t}", b=_b(a["b"]), owner=_owner_ref(st, a["owner"]))
    if t in ("fell_trees", "cut_peat"):
        if "x" not in a:
            return msg(f"label.{t}_none")
        return msg(f"label.{t}", x=a["x"], y=a["y"],
                   ind=term("good.joker" if a["joker"] else ("good.wood" if t == "fell_trees" else "good.peat")))
    if t == "build":
        return msg("label.build", b=_b(a["b"]), x=a["x"], y=a["y"])
    if t == "neutral":
        return msg("label.neutral", b=_b(a["b"]), x=a["x"], y=a["y"])
    if t == "settle":
        return msg("label.settle", s=term(f"settlement.{a['s']}"), x=a["x"], y=a["y"])
    if t in FLIP_TYPES:
        return msg(f"label.{t}", n=a["n"])
    if t in TILE_TYPES:
        return msg(f"label.{t}", side=term(f"side.{a['side']}"), y=a["y"])
    if t == "do":
        if "alts" in a:
            return msg("label.do_alts", alts=" ".join(f"#{i + 1}" for i in a["alts"]),
                       picks=[_pick_msg(p) for p in a.get("pick", [])])
        if a.get("pick"):
            return msg("label.do_pick", n=a["n"], picks=[_pick_msg(p) for p in a["pick"]])
        return msg("label.do", n=a["n"])
    if t == "wheel":
        return msg("label.wheel_joker" if a["joker"] else "label.wheel", good=_g(a["good"]))
    if t == "pay":
        return msg("label.pay", goods=_goods_msg(a["goods"]))
    if t == "add":
        return msg("label.add", n=a["n"], good=_g(a["good"]))
    if t == "pick":
        return msg("label.pick", good=_g(a["good"]))
    if t == "forest":
        return msg("label.forest", x=a["x"], y=a["y"])
    if t == "assign":
        return msg("label.assign", clergy=term(f"clergy.{a['c']}"))
    if t == "neutral_prior":
        return msg("label.neutral_prior_gift" if a.get("gift") else "label.neutral_prior", b=_b(a["b"]))
    return msg("host.notation", text=describe(st, a))


def _pick_msg(pick: Pick) -> Mapping[str, object]:
    if isinstance(pick, dict):
        return msg("goods.list", goods=_goods_msg(pick)).to_json()
    return _g(str(pick))


def hint(st: State, a: Action) -> Msg | None:
    """A short description under a label: a building's effect line, a payment's waste."""
    t = a["type"]
    if t in ("place", "contract", "bonus", "borrow", "build", "neutral", "neutral_prior"):
        return msg(f"effect.{a['b']}")
    if t == "settle":
        card = SETTLEMENTS[a["s"]]
        return msg("hint.settle", food=card.food, energy=card.energy, e=card.economic, d=card.dwelling)
    return None


def _stage(st: State, a: Action) -> tuple[Msg, ...]:
    """A stage step for display buildings when the display holds more than 25."""
    if len(st["display"]) <= 25 or (a["type"] == "borrow" and a["owner"] >= 0):
        return ()
    return (msg("step.stage", stage=BUILDINGS[a["b"]].stage),)


def path(st: State, a: Action) -> tuple[Msg, ...]:
    """The tap steps before ``a`` (§11): kind of action, then, when that kind has more options
    than one select holds, the building or owner (the place is the number in the decision
    picture); free actions under one step; long lists in pages of ``PAGE``."""
    t = a["type"]
    seat = F.decider(st)
    goods = st["pl"][seat]["goods"] if seat is not None else {}
    if t in FLIP_TYPES:
        held = goods.get({"flip_grain": "grain", "sell_wine": "wine", "sell_whiskey": "whiskey"}[t], 0)
        steps = [msg("step.free"), msg(f"step.{t}")]
        if held > 25:
            lo = (a["n"] - 1) // PAGE * PAGE + 1
            steps.append(msg("step.page", lo=lo, hi=min(held, lo + PAGE - 1)))
        return tuple(steps)
    if t in ("buy_district", "buy_plot"):
        return (msg("step.free"), msg(f"step.{t}"), msg("step.side", side=term(f"side.{a['side']}")))
    if t in ("take_district", "take_plot"):
        return (msg(f"step.{t}"), msg("step.side", side=term(f"side.{a['side']}")))
    if t == "place":
        return (msg("step.place"),) if _one_list(st, t) else (msg("step.place"), msg("step.building", b=_b(a["b"])))
    if t in ("contract", "bonus"):
        if _one_list(st, t):
            return (msg(f"step.{t}"),)
        return (msg(f"step.{t}"), msg("step.owner", owner=_owner_ref(st, a["owner"])))
    if t == "borrow":
        return (msg("step.owner", owner=_owner_ref(st, a["owner"])), *_stage(st, a))
    if t in ("fell_trees", "cut_peat"):
        return (msg(f"step.{t}"),) if "x" in a else ()
    if t == "build" and _one_list(st, t):
        return (msg("step.build"),)
    if t in ("build", "neutral"):
        return (msg(f"step.{t}"), *_stage(st, a), msg("step.building", b=_b(a["b"])))
    if t == "settle":
        return (msg("step.settle"), msg("step.settlement", s=term(f"settlement.{a['s']}")))
    if t == "do":
        if "n" in a and a.get("pick"):
            return (msg("step.reps", n=a["n"]),) if a["n"] > 1 else (msg("step.pick_goods"),)
        if "n" in a and a["n"] > 25:
            lo = (a["n"] - 1) // PAGE * PAGE + 1
            return (msg("step.page", lo=lo, hi=lo + PAGE - 1),)
        if "alts" in a:
            return (msg("step.first_alt", alt=a["alts"][0] + 1),) if len(a["alts"]) > 1 else ()
        return ()
    if t == "add":
        return (msg("step.add"), msg("step.add_good", good=_g(a["good"])))
    if t == "neutral_prior":
        return (msg("step.building", b=_b(a["b"])),)
    return ()


def prompt(st: State, seat: int) -> Msg:
    """What ``seat`` is asked now (public: nothing is secret in this game)."""
    if st["over"]:
        return msg("host.nothing")
    if st["s0"] is None:
        return msg("prompt.chance")
    if F.decider(st) != seat:
        return msg("host.nothing")
    if st["stack"]:
        top = st["stack"][-1]
        f = top["f"]
        if f == "use":
            return msg("prompt.use", b=_b(top["b"]), part=top["i"] + 1)
        if f == "pay":
            req = top["req"][0]
            if req[0] in ("food", "energy", "points"):
                return msg("prompt.pay_value", amount=f"{req[1]:g}", kind=term(f"value.{req[0]}"))
            if req[0] == "different":  # (picked in the goods' list order: the options are the ones that can come next)
                return msg("prompt.pay_different_next", n=req[1])
            return msg(f"prompt.pay_{req[0]}", n=req[1])
        if f == "assign":
            if top["o"] == F.neutral(st):  # (solo: the player chooses for the neutral player, §5.2)
                return msg("prompt.assign_neutral", b=_b(top["b"]))
            return msg("prompt.assign", b=_b(top["b"]), seat=seat_ref(top["u"]))
        if f == "prior":
            return msg("prompt.prior", b=_b(top["b"]))
        return msg(f"prompt.{f}")
    win = present(st["win"], "a window is open when no frame is")
    if win["kind"] == "settle":
        return msg("prompt.settle_turn")
    if win["main"]:
        return msg("prompt.after_main")
    if win["kind"] == "bonus":
        return msg("prompt.bonus")
    nth, total = window_number(st)
    return msg(f"prompt.main_{nth}of{total}", unit=st["unit"],
               kind=term("unit.turn" if st["mode"] == "2p" else "unit.round"))


def window_number(st: State) -> tuple[int, int]:
    """Which action window of its owner in this round (turn in ``two_player``) the open window
    is, and how many that owner has (§4.2: the start player's second action at the end of the
    round; §4.5–4.7: two in a row): ``(1, 1)``, ``(1, 2)`` or ``(2, 2)``; ``(1, 1)`` with no
    action window open."""
    win = st["win"]
    if win is None or win["kind"] not in ("action", "bonus"):
        return 1, 1
    seat = int(win["seat"])
    later = sum(1 for q in st["queue"] if q[0] == "window" and q[1] == seat)
    if win["kind"] == "bonus":
        total = 1
    elif st["mode"] == "solo":
        total = 2
    elif st["mode"] == "2p":
        total = 1 if st["last"] else 2
    else:
        total = 2 if seat == F.start_seat(st) else 1
    return max(1, min(total, total - later)), total


def building_name(bid: str) -> str:
    """English name of a building (for docs and tests; text goes through the catalog)."""
    return BUILDINGS[bid].name


class OraNotation(GameNotation[State, Action, PublicView | PrivateView]):
    """Ora et Labora's notation and texts, paired with ``OraEngine`` by the registry: the
    functions above, as the notation protocol names them."""

    describe_action = staticmethod(describe)
    action_label = staticmethod(label)
    action_hint = staticmethod(hint)
    action_path = staticmethod(path)
    prompt = staticmethod(prompt)

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """Parse notation (``notation.parse``) and check it applies.

        Raises:
            NotYourTurn, GameOver: as ``apply``; IllegalAction: not notation or not legal now.
        """
        self.engine._check_can_act(state, seat)
        action = parse(state, text)
        self.engine.apply(state, seat, action)
        return action

    def typed_moves(self, state: State, seat: Seat) -> Sequence[Action]:
        """The legal actions (every decision is one short command), with the bare Fell Trees /
        Cut Peat that the panel leaves out (D27)."""
        if seat == CHANCE or seat not in self.engine.to_move(state):
            return []
        return F.legal(state)

    def replay_marks(self, states: Sequence[State], views: Sequence[PublicView | PrivateView]) -> list[Msg | None]:
        """Spec §4: the game is a sequence of rounds (turns in ``two_player``, §4.5; the
        bonus round, §4.4), with settlement phases A–E between them (§4.3: its settlement
        turns, and in ``solo`` the neutral player's build before them, §4.7); each position
        is in its round, turn or bonus round (the board's ``board.round``, ``board.turn``,
        ``board.bonus_round``) or settlement phase (``replay.settlement``), the set-up before
        round 1 in none, the end in ``board.over`` (§8). (``Notation.replay_marks``)"""
        out: list[Msg | None] = []
        for st in states:
            win = st["win"]
            if st["over"]:
                out.append(msg("board.over"))
            elif not st["unit"]:
                out.append(None)
            elif win is not None and win["kind"] in ("settle", "neutral"):
                out.append(msg("replay.settlement", letter=PHASES[min(int(st["phase"]), len(PHASES) - 1)]))
            else:
                unit = "bonus_round" if F.is_bonus_round(st) else "turn" if st["mode"] == "2p" else "round"
                out.append(msg(f"board.{unit}", n=st["unit"]))
        return out

