"""Ora et Labora data (spec docs/rules/ora.md §2), loaded and validated once.

The five CSV files next to this module are copies of the spec's ``data/ora_*.csv``:

* ``GOODS`` — good id → ``Good`` (§2.2); ``COIN5`` is the 5-coin tile, a distinct good for
  "different goods" payments and worth 2 points (G2, D14) but never held: money is one count.
* ``BUILDINGS`` — building id → ``Building`` (§2.5; heartland L1–L3 and the 67 faces).
* ``SETTLEMENTS`` — settlement id → ``Settlement`` (§2.7).
* ``HEARTLAND``, ``NEUTRAL_HEARTLAND``, ``DISTRICT_SIDES``, ``PLOT_SIDES`` — landscape layouts
  (§2.4) as ``(dx, dy, terrain, card, building)`` tuples.
* ``MODES`` — mode code (``std4`` … ``sh4``) → ``Mode`` (§4, ``ora_modes.csv``).
* ``OPTIONS`` — the option schema (§1) and ``mode_code`` which resolves a game's mode from the
  ``mode`` option and the player count (see ``rules.md``: the host checks options before the
  seats are filled, so ``mode`` names a family and the count picks the member).

Raises ``ValueError`` at import time when a file breaks an invariant the engine relies on.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from engines.base import InvalidOptions, OptionSpec

_HERE = Path(__file__).parent

# --------------------------------------------------------------------------- terms

TERRAINS: Final[tuple[str, ...]] = ("water", "coast", "plains", "hillside", "mountain")
"""Terrain kinds (§2.4)."""

CARDS: Final[tuple[str, ...]] = ("forest", "moor")
"""Landscape cards that may lie on plains (§2.4)."""

INDICATORS: Final[tuple[str, ...]] = ("wood", "peat", "grain", "livestock", "clay", "coin", "joker",
                                      "grapes", "stone")
"""Production-wheel indicators in display order (§2.3); the last two enter later."""

START_INDICATORS: Final[tuple[str, ...]] = INDICATORS[:7]
"""Indicators in play from setup (§2.3)."""

BASIC_GOODS: Final[tuple[str, ...]] = ("wood", "peat", "grain", "livestock", "clay", "coin")
"""G6 / D40 basic goods."""

POINT_GOODS: Final[tuple[str, ...]] = ("book", "ceramic", "ornament", "reliquary")
"""G6 / D40 point goods, cheapest first."""

COIN5: Final[str] = "coin5"
"""The 5-coin tile as a payment good (worth 5 coins)."""

CLERGY: Final[tuple[str, ...]] = ("prior", "lay")
"""Clergy kinds (§2.8)."""

PHASES: Final[str] = "ABCDE"
"""Settlement phase letters (§4.3)."""


# --------------------------------------------------------------------------- goods


@dataclass(frozen=True)
class Good:
    """One row of ``ora_goods.csv`` (§2.2). Values are per unit; energy of straw is 0.5."""

    id: str
    name: str
    name_zh: str
    reverse: str
    variant: str
    food: float
    energy: float
    money: int
    points: int
    basic: bool
    point_good: bool


def _rows(name: str) -> list[dict[str, str]]:
    with (_HERE / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _num(text: str) -> float:
    return float(text) if text.strip() else 0.0


def _load_goods() -> dict[str, Good]:
    out: dict[str, Good] = {}
    for row in _rows("ora_goods.csv"):
        good = Good(row["id"], row["name"], row["name_zh"], row["reverse_side"], row["variant"],
                    _num(row["food"]), _num(row["energy"]), int(_num(row["money"])), int(_num(row["points"])),
                    row["basic_good"] == "Y", row["point_good"] == "Y")
        if good.variant not in ("both", "france", "ireland"):
            raise ValueError(f"good {good.id}: bad variant {good.variant!r}")
        out[good.id] = good
    if tuple(g for g in out if out[g].basic) != BASIC_GOODS:
        raise ValueError("ora_goods.csv: basic goods differ from G6")
    if tuple(sorted((g for g in out if out[g].point_good), key=lambda g: out[g].points)) != POINT_GOODS:
        raise ValueError("ora_goods.csv: point goods differ from G6")
    return out


GOODS: Final[dict[str, Good]] = _load_goods()
"""Every good id (``coin5`` included) → ``Good``."""


@cache
def goods_of(variant: str) -> tuple[str, ...]:
    """The goods a player may hold in ``variant`` (``france``/``ireland``), file order,
    without ``coin5`` (money is one count, G2)."""
    return tuple(g for g, good in GOODS.items() if good.variant in ("both", variant) and g != COIN5)


# --------------------------------------------------------------------------- buildings


@dataclass(frozen=True)
class Building:
    """One row of ``ora_buildings.csv`` (§2.5).

    ``cost`` maps good id → count (``coin`` for financed buildings); ``terrain`` lists the
    allowed terrains; ``effect`` is the raw notation interpreted by ``engines.ora.effects``.
    """

    id: str
    name: str
    name_zh: str
    variant: str
    kind: str
    stage: str
    symbol: str
    modes: frozenset[str]
    cost: dict[str, int]
    economic: int
    dwelling: int
    terrain: tuple[str, ...]
    cloister: bool
    handler: str
    effect: str
    confidence: str


HANDLERS: Final[frozenset[str]] = frozenset({
    "wheel", "gain", "convert", "gain+convert", "gain+borrow", "borrow", "build", "build+recall",
    "convert+recall", "convert+passive", "settle", "fell_cut", "joker", "landscape"})
"""The handler groups of §2.6."""

STAGES: Final[tuple[str, ...]] = ("heartland", "start", "A", "B", "C", "D")
"""Building stages in release order."""

MODE_CODES: Final[tuple[str, ...]] = ("std4", "std3", "2p", "2pl", "solo", "sh3", "sh4")
"""Mode codes of §2.1."""


def _load_buildings() -> dict[str, Building]:
    out: dict[str, Building] = {}
    for row in _rows("ora_buildings.csv"):
        cost = {g: int(row[f"cost_{g}"]) for g in ("wood", "clay", "stone", "straw")
                if int(row[f"cost_{g}"] or 0)}
        if int(row["cost_coins"] or 0):
            cost["coin"] = int(row["cost_coins"])
        b = Building(
            row["id"], row["name"], row["name_zh"], row["variant"], row["kind"], row["stage"],
            row["player_symbol"], frozenset(row["modes"].split()), cost, int(row["economic"]),
            int(row["dwelling"]), tuple(row["terrain"].split(";")), row["cloister"] == "Y",
            row["handler"], row["effect"], row["confidence"])
        if b.stage not in STAGES or b.handler not in HANDLERS or not set(b.terrain) <= set(TERRAINS):
            raise ValueError(f"building {b.id}: bad stage, handler or terrain")
        if not b.modes <= set(MODE_CODES):
            raise ValueError(f"building {b.id}: unknown mode in {sorted(b.modes)}")
        out[b.id] = b
    faces = [b for b in out.values() if b.kind == "building"]
    counts = {v: sum(1 for b in faces if b.variant == v) for v in ("both", "france", "ireland")}
    if counts != {"both": 15, "france": 26, "ireland": 26} or len(out) != 70:
        raise ValueError(f"ora_buildings.csv: expected 15/26/26 faces + 3 heartland, got {counts}")
    return out


BUILDINGS: Final[dict[str, Building]] = _load_buildings()
"""Every building id (L1–L3 and the 67 faces) → ``Building``."""

HEARTLAND_BUILDINGS: Final[tuple[str, ...]] = ("L1", "L2", "L3")
"""Clay Mound, Farmyard, Cloister Office."""

WINERY_IDS: Final[tuple[str, ...]] = ("F21", "I21")
"""Winery / Whiskey Distillery: their presence raises the contract price (FR6, D44)."""

GIFT: Final[dict[str, str]] = {"france": "wine", "ireland": "whiskey"}
"""The host's gift good per variant (§5.1, D17)."""


# --------------------------------------------------------------------------- settlements


@dataclass(frozen=True)
class Settlement:
    """One row of ``ora_settlements.csv`` (§2.7). ``phase`` is the index of the settlement
    phase whose end delivers it (``-1``: setup)."""

    id: str
    name: str
    name_zh: str
    phase: int
    food: int
    energy: int
    economic: int
    dwelling: int
    terrain: tuple[str, ...]


def _load_settlements() -> dict[str, Settlement]:
    out: dict[str, Settlement] = {}
    for row in _rows("ora_settlements.csv"):
        arrives = row["arrives"]
        phase = -1 if arrives == "setup" else PHASES.index(arrives.split()[-1])
        out[row["id"]] = Settlement(row["id"], row["name"], row["name_zh"], phase, int(row["food_cost"]),
                                    int(row["energy_cost"]), int(row["economic"]), int(row["dwelling"]),
                                    tuple(row["terrain"].split(";")))
    if list(out) != [f"S0{i}" for i in range(1, 9)]:
        raise ValueError("ora_settlements.csv: expected S01..S08")
    return out


SETTLEMENTS: Final[dict[str, Settlement]] = _load_settlements()
"""S01–S08 → ``Settlement``."""


def settlements_arrived(phases_done: int) -> tuple[str, ...]:
    """Settlement ids a player has received once ``phases_done`` settlement phases have ended
    (§4.3 step 3: S05 at A … S08 at D)."""
    return tuple(s for s, card in SETTLEMENTS.items() if card.phase < phases_done)


# --------------------------------------------------------------------------- landscapes

Space = tuple[int, int, str, str | None, str | None]
"""A layout entry: (dx, dy, terrain, card, building)."""


def _load_landscapes() -> dict[str, list[Space]]:
    out: dict[str, list[Space]] = {}
    for row in _rows("ora_landscapes.csv"):
        key = row["tile"] if row["side"] == "-" else f"{row['tile']}:{row['side']}"
        start = row["starting_card"]
        card = start if start in CARDS else None
        building = None
        if start and card is None:
            found = re.search(r"\((\w+)\)", start)
            if not found or found.group(1) not in BUILDINGS:
                raise ValueError(f"ora_landscapes.csv {row['id']}: unknown start {start!r}")
            building = found.group(1)
        if row["terrain"] not in TERRAINS:
            raise ValueError(f"ora_landscapes.csv {row['id']}: bad terrain")
        out.setdefault(key, []).append((int(row["dx"]), int(row["dy"]), row["terrain"], card, building))
    return out


_LAYOUTS = _load_landscapes()
HEARTLAND: Final[tuple[Space, ...]] = tuple(_LAYOUTS["heartland"])
"""The heartland, (x, y) = (dx, dy) (§2.4)."""
NEUTRAL_HEARTLAND: Final[tuple[Space, ...]] = tuple(_LAYOUTS["neutral heartland (solo)"])
"""The solo neutral heartland (§3 step 9)."""
DISTRICT_SIDES: Final[dict[str, tuple[Space, ...]]] = {
    "hills": tuple(_LAYOUTS["district:hills"]), "plains": tuple(_LAYOUTS["district:plains"])}
"""District sides; dy = 0 is the district's row."""
PLOT_SIDES: Final[dict[str, tuple[Space, ...]]] = {
    "coast": tuple(_LAYOUTS["plot:coast"]), "mountain": tuple(_LAYOUTS["plot:mountain"])}
"""Plot sides; dy = 0/1 are the plot's rows (the mountain is one space at dy = 0)."""
SHORT_EMPTY: Final[tuple[tuple[int, int], ...]] = ((0, 0), (1, 0))
"""Heartland spaces without a card in ``short`` (§2.4)."""

if len(HEARTLAND) != 10 or len(NEUTRAL_HEARTLAND) != 10 or any(len(s) != 5 for s in DISTRICT_SIDES.values()):
    raise ValueError("ora_landscapes.csv: wrong layout sizes")


# --------------------------------------------------------------------------- modes


@dataclass(frozen=True)
class Mode:
    """One row of ``ora_modes.csv`` (§4).

    Attributes:
        code: ``std4`` … ``sh4``.
        family: the spec's ``mode`` value (``standard``, ``two_player``, ``solo``,
            ``two_player_long``, ``short``).
        wheel: value by indicator age 0–12.
        lay: lay brothers per player (1 in ``short``).
        phases: units after which settlement phases A–D come.
        regular: regular units (``None``: open-ended two-player modes).
        bonus: True when a bonus round follows the regular units.
        grapes / stone: entry unit of the indicators (``None``: never).
        remove_at_end: an indicator at age 12 leaves the game (solo).
        goods: starting goods per player.
        districts / plots: price order of the two piles.
        brotherhood: points per cloister building (House of the Brotherhood).
    """

    code: str
    family: str
    players: int
    wheel: tuple[int, ...]
    lay: int
    phases: tuple[int, ...]
    regular: int | None
    bonus: bool
    grapes: int | None
    stone: int | None
    remove_at_end: bool
    goods: dict[str, int]
    districts: tuple[int, ...]
    plots: tuple[int, ...]
    brotherhood: float


def _first_int(text: str) -> int | None:
    found = re.search(r"\d+", text)
    return int(found.group()) if found and "never" not in text else None


def _load_modes() -> dict[str, Mode]:
    out: dict[str, Mode] = {}
    for row in _rows("ora_modes.csv"):
        phases = tuple(_first_int(row[f"settlement_{p}_after"]) or 0 for p in "ABCD")
        regular = int(row["regular_units"]) if row["regular_units"].isdigit() else None
        goods: dict[str, int] = {}
        if row["starting_goods"] != "none":
            for item in row["starting_goods"].split(";"):
                n, g = item.split()
                goods[g] = int(n)
        mode = Mode(
            row["id"], row["mode_option"], int(row["players"]),
            tuple(int(v) for v in row["wheel_values_by_age_0_to_12"].split()),
            int(re.findall(r"\d+", row["clergy_per_player"])[1]), phases, regular,
            row["bonus_round"] != "none", _first_int(row["grapes_enter"]), _first_int(row["stone_enter"]),
            row["indicator_on_last_space"].startswith("removed"), goods,
            tuple(int(v) for v in row["district_prices"].split()),
            tuple(int(v) for v in row["plot_prices"].split()), float(row["brotherhood_points_per_cloister"]))
        if len(mode.wheel) != 13 or len(mode.districts) != 9 or len(mode.plots) != 9 or 0 in phases:
            raise ValueError(f"ora_modes.csv {mode.code}: bad wheel, prices or phases")
        out[mode.code] = mode
    if tuple(out) != MODE_CODES:
        raise ValueError("ora_modes.csv: expected the seven mode codes")
    return out


MODES: Final[dict[str, Mode]] = _load_modes()
"""Mode code → ``Mode``."""

SHORT_ROUND_GOODS: Final[dict[int, tuple[tuple[str, int], ...]]] = {
    1: (("grain", 1), ("livestock", 1)), 2: (("grain", 1), ("clay", 1)), 3: (("grain", 1), ("wood", 1)),
    4: (("grain", 1), ("stone", 1)), 5: (("peat", 1), ("stone", 1)), 6: (("clay", 1), ("stone", 1)),
    7: (("wood", 1), ("stone", 1)), 8: (("stone", 1), ("coin", 5)), 9: (("stone", 1), ("meat", 1)),
    10: (("book", 1), ("grain", 1)), 11: (("ceramic", 1), ("clay", 1)), 12: (("ornament", 1), ("wood", 1))}
"""§4.8 round goods of the short game (the ``extra_rules`` column of ``ora_modes.csv``)."""

SOLO_ROUNDS: Final[int] = 30
"""§4.7."""


def building_set(code: str, variant: str, *, remove_quarry_c: bool = False) -> tuple[str, ...]:
    """The face ids that pass through the display in a game (§2.1: variant ``both`` or the
    chosen one, mode code in ``modes``; ``short4_remove_quarry_c`` drops F29 in ``sh4``)."""
    ids = tuple(b.id for b in BUILDINGS.values()
                if b.kind == "building" and b.variant in ("both", variant) and code in b.modes)
    if code == "sh4" and remove_quarry_c:
        ids = tuple(i for i in ids if i != "F29")
    return ids


# --------------------------------------------------------------------------- options

MODE_FAMILIES: Final[tuple[str, ...]] = ("standard", "long", "short")
"""Values of the ``mode`` option (see ``mode_code``)."""

OPTIONS: Final[tuple[OptionSpec, ...]] = (
    OptionSpec("variant", "france", choices=("france", "ireland"),
               description="Which face of the double-sided buildings is used."),
    OptionSpec("mode", "standard", choices=MODE_FAMILIES,
               description="standard: by player count (1, 2, 3-4); long: long 2-player game; "
                           "short: short 3-4-player game."),
    OptionSpec("short4_remove_quarry_c", False, kind="bool",
               description="Short 4-player game without Quarry (C)."),
    OptionSpec("round_tower_dwelling", 2, choices=(2, 9),
               description="Dwelling value of the Round Tower (printings differ: 2 or 9)."),
    OptionSpec("two_player_turn_cap", 60, choices=(60, 100),
               description="A 2-player game ends at the latest after this many turns (long game: ⅔ as many rounds)."),
    OptionSpec("start_player", "random", choices=("random", "host"),
               description="First start player by chance or the first seat."),
    OptionSpec("wc_reply_timeout", 0, kind="int", minimum=0, maximum=7 * 86400,
               description="Seconds for a work-contract answer; 0 = the move timer."),
    OptionSpec("done_grace", 600, kind="int", minimum=0, maximum=86400,
               description="Seconds a window stays open after the main action."),
)
"""The option schema (§1, §11)."""


FAMILY_COUNTS: Final[dict[str, tuple[int, ...]]] = {"standard": (1, 2, 3, 4), "long": (2,), "short": (3, 4)}
"""The player counts each ``mode`` option value is for (§1 table: ``two_player_long`` is 2
players, ``short`` 3–4; ``standard`` means solo, two-player or standard by the count)."""

def modes_for(players: int) -> list[str]:
    """The ``mode`` option values valid for ``players`` seats (§1), in schema order."""
    return [f for f in MODE_FAMILIES if players in FAMILY_COUNTS[f]]


def mode_code(family: str, players: int) -> str:
    """The mode code for the ``mode`` option value and the player count (§1 table).

    ``standard``: 1 → ``solo``, 2 → ``2p``, 3/4 → ``std3``/``std4``; ``long``: 2 → ``2pl``;
    ``short``: 3/4 → ``sh3``/``sh4``.

    Raises:
        InvalidOptions: a player count outside 1–4, an unknown family, or a family that is
            not for this count (§1: "Any other player count for a mode is rejected at game
            creation"); code ``mode_players``, params ``mode``, ``players``, ``valid`` and
            ``text`` (the sentence as a catalog message, ``error.mode_players``).
    """
    if players not in (1, 2, 3, 4) or family not in MODE_FAMILIES:
        raise InvalidOptions(f"Ora et Labora: no mode for {players} players and mode {family!r}.",
                             key="mode", value=family)
    if players not in FAMILY_COUNTS[family]:
        valid = modes_for(players)
        choices = [{"msg": "error.mode_choice", "params": {
            "value": f, "name": {"term": f"family.{MODES[_code(f, players)].family}"}}} for f in valid]
        raise InvalidOptions(
            f"Ora et Labora: mode={family} does not fit this player count ({players}); choose "
            + " or ".join(f"mode={f}" for f in valid) + ".",
            code="mode_players", key="mode", value=family, players=players, valid=valid,
            text={"msg": "error.mode_players", "params": {"mode": family, "players": players, "choices": choices}})
    return _code(family, players)


def _code(family: str, players: int) -> str:
    if players == 1:
        return "solo"
    if players == 2:
        return "2pl" if family == "long" else "2p"
    if family == "short":
        return f"sh{players}"
    return f"std{players}"


def turn_cap(code: str, cap: int) -> int | None:
    """The last unit allowed by the safety cap (D38): T turns in ``2p``, ⌈2T/3⌉ rounds in
    ``2pl``; ``None`` for the other modes."""
    if code == "2p":
        return cap
    if code == "2pl":
        return math.ceil(2 * cap / 3)
    return None
