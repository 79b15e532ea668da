"""Pure rule helpers on an Ora et Labora state (spec docs/rules/ora.md).

State shapes used here (``types``; ``flow``'s docstring tells the whole state):

* a *landscape* ``land`` is a dict ``"x,y"`` → ``[terrain, card, piece]`` (§2.4): ``card`` is
  ``"forest"``/``"moor"``/``None``, ``piece`` a building or settlement id or ``None``. A
  mountain is one space keyed by its top row (``"6,y"``, M@y).
* ``goods`` is a dict good id → count (``coin`` is the money count, G2).
* a clergyman's position is ``None`` (home) or ``[owner, "x,y"]``; ``pl[o]["clergy"]`` lists
  the prior first, then the lay brothers (§2.8).

Payments (G4, G5, G7): named goods are taken with grain standing in for missing straw (G4);
value payments are listed as irredundant bundles (no good can be left out), least waste first;
``coin5`` in a payment means five coins.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from engines.base import present
from engines.ora.data import (
    BUILDINGS,
    COIN5,
    DISTRICT_SIDES,
    GOODS,
    MODES,
    PLOT_SIDES,
    POINT_GOODS,
    SETTLEMENTS,
    STAGES,
    WINERY_IDS,
    Mode,
    Space,
    building_set,
)
from engines.ora.types import Goods, Land, Player, State

# --------------------------------------------------------------------------- coordinates


def key(x: int, y: int) -> str:
    """The landscape key of space (x, y)."""
    return f"{x},{y}"


_XY: dict[str, tuple[int, int]] = {}


def xy(k: str) -> tuple[int, int]:
    """Inverse of ``key`` (memoised: keys repeat endlessly)."""
    found = _XY.get(k)
    if found is None:
        a, b = k.split(",")
        found = _XY[k] = (int(a), int(b))
    return found


def make_land(layout: Iterable[Space], *, empty: Iterable[tuple[int, int]] = ()) -> Land:
    """A landscape from a layout (§2.4, ``data.HEARTLAND``); ``empty`` spaces get no card."""
    blank = set(empty)
    return {key(x, y): [t, None if (x, y) in blank else c, b] for x, y, t, c, b in layout}


def neighbours(land: Land, k: str) -> list[str]:
    """Orthogonal neighbours of space ``k`` that exist (§2.4; M@y touches only (5,y), (5,y+1))."""
    x, y = xy(k)
    if x == 6:
        return [n for n in (key(5, y), key(5, y + 1)) if n in land]
    out = [n for n in (key(x - 1, y), key(x, y - 1), key(x, y + 1)) if n in land]
    if x == 5:
        out += [m for m in (key(6, y), key(6, y - 1)) if m in land]
    elif key(x + 1, y) in land:
        out.append(key(x + 1, y))
    return out


class _Keep(enum.Enum):
    KEEP = enum.auto()


_KEEP = _Keep.KEEP
"""``set_space``'s "leave it as it is"."""


def set_space(land: Land, k: str, *, card: str | None | _Keep = _KEEP, piece: str | None | _Keep = _KEEP) -> None:
    """Change a space's card and/or piece by replacing its list (states share space lists
    between versions, so a space list is never changed in place)."""
    t, c, b = land[k]
    land[k] = [t, c if card is _KEEP else card, b if piece is _KEEP else piece]


def find(land: Land, piece: str) -> str | None:
    """The key of the space holding ``piece``, or None."""
    for k, space in land.items():
        if space[2] == piece:
            return k
    return None


def pieces(land: Land) -> list[tuple[str, str]]:
    """``(key, piece id)`` of every building and settlement on ``land``, in key order."""
    return [(k, s[2]) for k, s in land.items() if s[2] is not None]


def cloister_count(land: Land) -> int:
    """Cloister buildings on ``land`` (the Cloister Office included)."""
    return sum(1 for s in land.values() if s[2] in BUILDINGS and BUILDINGS[s[2]].cloister)


def cards(land: Land, card: str) -> list[str]:
    """Keys holding a ``card`` (``"forest"``/``"moor"``), key order."""
    return [k for k, s in land.items() if s[1] == card]


def cloister_ok(land: Land, k: str) -> bool:
    """A cloister building on ``k`` touches a cloister building (§2.5)."""
    return any((piece := land[n][2]) in BUILDINGS and BUILDINGS[piece].cloister for n in neighbours(land, k))


def build_spaces(land: Land, bid: str) -> list[str]:
    """Spaces of ``land`` where ``bid`` may be built (§2.5: empty, terrain, cloister rule)."""
    b = BUILDINGS[bid]
    return [k for k, s in land.items()
            if s[1] is None and s[2] is None and s[0] in b.terrain and (not b.cloister or cloister_ok(land, k))]


def neutral_spaces(land: Land, bid: str) -> list[str]:
    """Solo neutral build targets for ``bid`` (§4.7 step 1): an empty space (terrain ignored,
    cloister rule kept) or a neutral building of the same kind (cloister or not)."""
    b = BUILDINGS[bid]
    out = []
    for k, s in land.items():
        if s[1] is None and s[2] is None:
            if not b.cloister or cloister_ok(land, k):
                out.append(k)
        elif s[2] in BUILDINGS and BUILDINGS[s[2]].cloister == b.cloister:
            out.append(k)
    return out


def settle_spaces(land: Land, sid: str) -> list[str]:
    """Empty spaces of an allowed terrain for settlement ``sid`` (§2.7)."""
    terrain = SETTLEMENTS[sid].terrain
    return [k for k, s in land.items() if s[1] is None and s[2] is None and s[0] in terrain]


# --------------------------------------------------------------------------- landscape tiles


def central_rows(land: Land) -> list[int]:
    """Rows of the central strip (heartland and districts), sorted."""
    return sorted(xy(k)[1] for k in land if k[0] == "0" and k[1] == ",")


def district_rows(land: Land) -> list[int]:
    """Legal rows for a new district (§2.4): directly above or below the central strip."""
    rows = central_rows(land)
    return [rows[0] - 1, rows[-1] + 1]


def plot_rows(land: Land, side: str) -> list[int]:
    """Legal top rows for a new plot of ``side`` (``coast``/``mountain``; §2.4, D28, E14)."""
    inner, edge = (0, -1) if side == "coast" else (4, 5)
    ys = [xy(k)[1] for k in land]
    out = []
    for y in range(min(ys) - 2, max(ys) + 2):
        if key(edge, y) in land or key(edge, y + 1) in land:
            continue
        if (key(inner, y) in land or key(inner, y + 1) in land
                or key(edge, y - 1) in land or key(edge, y + 2) in land):
            out.append(y)
    return out


def place_tile(land: Land, tile: str, side: str, y: int) -> None:
    """Put a district (``tile="district"``) or plot of ``side`` with top row ``y`` onto ``land``
    (in place), with its forest/moor cards."""
    layout = DISTRICT_SIDES[side] if tile == "district" else PLOT_SIDES[side]
    for dx, dy, t, c, _ in layout:
        land[key(dx, y + dy)] = [t, c, None]


def tiles_taken(pl: Sequence[Player]) -> tuple[int, int]:
    """``(districts, plots)`` taken from the two shared piles so far (§2.4): counted on the
    landscapes (a district is a central row beyond the heartland; a plot has two water or one
    mountain space)."""
    districts = plots = 0
    for p in pl:
        d, q = _land_tiles(p["land"])
        districts += d
        plots += q
    return districts, plots


_TILES: dict[int, tuple[Land, int, int, int]] = {}
"""``_land_tiles`` memo: ``id(land)`` → (``land``, its size then, districts, plots). A landscape
only gains spaces (``place_tile``) and a space's terrain never changes (``set_space``), so the
same dict with the same size has the same tiles; the entry holds ``land``, so its id is not
reused while the entry lives."""


def copy_land(land: Land) -> Land:
    """A copy of ``land`` (sharing its space lists, which are replaced, never changed), with
    ``land``'s ``tiles_taken`` memo carried over."""
    out = dict(land)
    hit = _TILES.get(id(land))
    if hit is not None and hit[0] is land and hit[1] == len(land):
        if len(_TILES) >= 512:
            _TILES.clear()
        _TILES[id(out)] = (out, hit[1], hit[2], hit[3])
    return out


def _land_tiles(land: Land) -> tuple[int, int]:
    """``(districts, plots)`` on one landscape (``tiles_taken``)."""
    hit = _TILES.get(id(land))
    if hit is not None and hit[0] is land and hit[1] == len(land):
        return hit[2], hit[3]
    central = water = plots = 0
    for k, s in land.items():
        if k[0] == "0" and k[1] == ",":
            central += 1
        elif s[0] == "mountain":
            plots += 1
        elif s[0] == "water":
            water += 1
    if len(_TILES) >= 512:
        _TILES.clear()
    _TILES[id(land)] = (land, len(land), central - 2, plots + water // 2)
    return central - 2, plots + water // 2


def next_price(mode: Mode, tile: str, taken: int) -> int | None:
    """Price of the next district/plot (``tile``) after ``taken`` purchases, None when empty."""
    prices = mode.districts if tile == "district" else mode.plots
    return prices[taken] if taken < len(prices) else None


# --------------------------------------------------------------------------- clergy


def occupied(pl: Sequence[Player], owner: int, k: str) -> bool:
    """True when any clergyman stands on space ``k`` of ``owner``'s landscape (§2.5)."""
    for p in pl:
        for pos in p["clergy"]:
            if pos is not None and pos[0] == owner and pos[1] == k:
                return True
    return False


def occupant_kinds(pl: Sequence[Player], owner: int, k: str) -> list[str]:
    """``"prior"``/``"lay"`` of each clergyman on that space."""
    out = []
    for p in pl:
        for i, pos in enumerate(p["clergy"]):
            if pos is not None and pos[0] == owner and pos[1] == k:
                out.append("prior" if i == 0 else "lay")
    return out


def home(p: Player, kind: str) -> int | None:
    """Index of a clergyman of ``kind`` at home (the first lay brother for ``lay``), or None."""
    clergy = p["clergy"]
    if kind == "prior":
        return 0 if clergy[0] is None else None
    for i in range(1, len(clergy)):
        if clergy[i] is None:
            return i
    return None


def recall_if_all_placed(p: Player) -> bool:
    """§4.2 step 1: a player whose clergymen are all placed takes them all home."""
    if all(pos is not None for pos in p["clergy"]):
        p["clergy"] = [None] * len(p["clergy"])
        return True
    return False


# --------------------------------------------------------------------------- prices, wheel


@cache
def game_set(code: str, variant: str, remove: bool) -> frozenset[str]:
    """The building ids of a game (``data.building_set``), cached."""
    return frozenset(building_set(code, variant, remove_quarry_c=remove))


def in_game(st: State) -> frozenset[str]:
    """The face ids that pass through this game's display."""
    return game_set(st["mode"], st["variant"], bool(st["opts"]["short4_remove_quarry_c"]))


def contract_price(st: State) -> int:
    """Work-contract price (§2.5, FR6, D44): 2 once the Winery/Whiskey Distillery of the game
    has left the display after its stage came out (it reached a landscape), else 1."""
    for bid in WINERY_IDS:
        released = st["phase"] >= STAGES.index(BUILDINGS[bid].stage) - 1
        if released and bid in in_game(st) and bid not in st["display"]:
            return 2
    return 1


def wheel_value(st: State, ind: str) -> int | None:
    """Current value of indicator ``ind`` (§2.3), None when not in play."""
    age = st["wheel"].get(ind)
    return None if age is None else MODES[st["mode"]].wheel[age]


# --------------------------------------------------------------------------- goods and payments


def value(good: str, kind: str) -> float:
    """A good's value of ``kind`` (``food``/``energy``/``points``); ``coin5`` = 5 coins."""
    g = GOODS[good]
    return g.food if kind == "food" else g.energy if kind == "energy" else g.points


def held(goods: Mapping[str, int], good: str) -> int:
    """How many of ``good`` can be paid (``coin5``: whole 5-coin groups)."""
    if good == COIN5:
        return goods.get("coin", 0) // 5
    return goods.get(good, 0)


def add(goods: Goods, good: str, n: int) -> None:
    """Add ``n`` of ``good`` (``coin5`` adds five coins each), in place."""
    if good == COIN5:
        good, n = "coin", 5 * n
    goods[good] = goods.get(good, 0) + n


def named_ok(goods: Mapping[str, int], named: Mapping[str, int]) -> bool:
    """True when ``named`` goods can be paid, grain standing in for missing straw (G4)."""
    short = 0
    for g, n in named.items():
        have = held(goods, g)
        if g == "straw":
            short = max(0, n - have)
        elif have < n:
            return False
    return short <= goods.get("grain", 0) - named.get("grain", 0)


def take(goods: Goods, named: Mapping[str, int]) -> Goods:
    """Remove ``named`` goods (in place; missing straw taken as grain, G4). Returns what was
    actually removed (so it can be given back)."""
    out: Goods = {}
    for g, n in named.items():
        if not n:
            continue
        if g == "straw" and goods.get("straw", 0) < n:
            flip = n - goods.get("straw", 0)
            out["grain"] = out.get("grain", 0) + flip
            goods["grain"] -= flip
            n -= flip
        if g == COIN5:
            g, n = "coin", 5 * n
        goods[g] -= n
        if goods[g] < 0:
            raise ValueError(f"not enough {g}")
        out[g] = out.get(g, 0) + n
    return out


@cache
def value_goods(variant_goods: tuple[str, ...], kind: str) -> tuple[str, ...]:
    """Goods that count for a ``kind`` payment, highest value first (``coin5`` for points)."""
    pool = [g for g in variant_goods if value(g, kind) > 0 and not (kind == "points" and g == "coin")]
    if kind == "points":
        pool.append(COIN5)
    return tuple(sorted(pool, key=lambda g: (-value(g, kind), g)))


def total_value(goods: Mapping[str, int], kind: str, pool: Iterable[str]) -> float:
    """Sum of the ``kind`` values of the goods held in ``pool``."""
    values = _VALUES[kind]
    total: float = 0
    for g in pool:
        total += (goods.get("coin", 0) // 5 if g == COIN5 else goods.get(g, 0)) * values[g]
    return total


_VALUES: dict[str, dict[str, float]] = {
    kind: {g: value(g, kind) for g in GOODS} for kind in ("food", "energy", "points")}
"""``value`` by kind and good (``total_value``)."""


def bundles(goods: Mapping[str, int], kind: str, target: float, pool: Sequence[str],
            limit: int | None = None) -> list[dict[str, int]]:
    """Irredundant payments of ``target`` (G5): multisets of ``pool`` goods worth at least
    ``target`` from which no good can be left out, least waste first, then fewest goods.
    ``limit`` keeps the first ones only (the search stops after ``4 × limit`` candidates)."""
    if target <= 0:
        return [{}]
    found: list[tuple[float, int, list[tuple[str, int]]]] = []
    cap = None if limit is None else 4 * limit
    avail = [(g, value(g, kind), held(goods, g)) for g in pool if held(goods, g) > 0]

    def walk(i: int, total: float, chosen: list[tuple[str, int]]) -> None:
        if cap is not None and len(found) >= cap:
            return
        if i == len(avail):
            return
        g, v, h = avail[i]
        for c in range(min(h, int(-(-(target - total) // v))), 0, -1):
            t = total + c * v
            pick = [*chosen, (g, c)]
            if t >= target:
                found.append((t - target, sum(n for _, n in pick), pick))
            else:
                walk(i + 1, t, pick)
        walk(i + 1, total, chosen)

    walk(0, 0.0, [])
    found.sort(key=lambda f: (f[0], f[1], [(g, -n) for g, n in f[2]]))
    out = [dict(f[2]) for f in found]
    return out if limit is None else out[:limit]


def point_sets(limit: float) -> list[dict[str, int]]:
    """Maximal sets of point goods worth at most ``limit`` points (D40): no further point good
    fits. Most points first."""
    vals = [(g, GOODS[g].points) for g in reversed(POINT_GOODS)]
    out: list[tuple[int, dict[str, int]]] = []

    def walk(i: int, left: float, chosen: dict[str, int]) -> None:
        if i == len(vals):
            if left < vals[-1][1]:
                out.append((int(limit - left), dict(chosen)))
            return
        g, v = vals[i]
        for c in range(int(left // v), -1, -1):
            if c:
                chosen[g] = c
            walk(i + 1, left - c * v, chosen)
            chosen.pop(g, None)

    walk(0, limit, {})
    out.sort(key=lambda o: (-o[0], [(g, -o[1].get(g, 0)) for g in reversed(POINT_GOODS)]))
    return [o[1] for o in out if o[1]]


# --------------------------------------------------------------------------- scoring


def dwelling(st: State, piece: str) -> int:
    """Dwelling value D of a building or settlement (D1 option for the Round Tower)."""
    if piece in SETTLEMENTS:
        return SETTLEMENTS[piece].dwelling
    if piece == "I35":
        return int(st["opts"]["round_tower_dwelling"])
    return BUILDINGS[piece].dwelling


def economic(piece: str) -> int:
    """Economic value E of a building or settlement (§8.2)."""
    return SETTLEMENTS[piece].economic if piece in SETTLEMENTS else BUILDINGS[piece].economic


def money_points(coins: int, wine: int, whiskey: int) -> int:
    """§8.1 money with the best wine/whiskey conversion (D31)."""
    return max(2 * ((coins + w + 2 * h) // 5) + (wine - w) + (whiskey - h)
               for w in range(wine + 1) for h in range(whiskey + 1))


def settlement_value(st: State, land: Land, k: str) -> int:
    """§8.3 for the settlement on ``k``: its D, the D of adjacent buildings/settlements and 3
    per adjacent empty water space (a Houseboat on water counts its D only, D30)."""
    total = dwelling(st, present(land[k][2], "a settlement stands on k"))
    for n in neighbours(land, k):
        space = land[n]
        if space[2] is not None:
            total += dwelling(st, space[2])
        elif space[0] == "water" and space[1] is None:
            total += 3
    return total


def score(st: State, owner: int) -> dict[str, int]:
    """Score breakdown of ``owner`` (§8): ``goods`` (point goods, Wonders, money), ``economic``,
    ``settlements`` and ``total``."""
    p = st["pl"][owner]
    goods = p["goods"]
    land = p["land"]
    point_goods = sum(GOODS[g].points * goods.get(g, 0) for g in (*POINT_GOODS, "wonder"))
    money = money_points(goods.get("coin", 0), goods.get("wine", 0), goods.get("whiskey", 0))
    econ = sum(economic(piece) for _, piece in pieces(land))
    dwell = sum(settlement_value(st, land, k) for k, piece in pieces(land) if piece in SETTLEMENTS)
    return {"goods": point_goods + money, "economic": econ, "settlements": dwell,
            "total": point_goods + money + econ + dwell}
