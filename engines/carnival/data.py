"""Carnival of Sins data: ``carnival.json`` loaded and validated once, the constants the
rules use and the option schema (spec docs/rules/carnival.md §2).

The bottom floor of the engine package: it imports only ``engines.base``. Every number
of the rules (faces, table radii, option ranges) comes from the data file; the English
names and hints of the sins live in the catalog ``bot/text/en/carnival.toml``
(``term.sin.<id>``, ``hint.<id>``); ``name`` here is the published English name, used
only in error messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, NotRequired, TypedDict

from engines.base import OptionSpec

DIE_IDS: Final = ("d4", "d6", "d8", "d10", "d12", "d20", "W")
SIN_IDS: Final = ("greed", "gluttony", "envy", "lust", "pride", "sloth", "wrath")
TABLE_KEYS: Final = ("r_seat", "r_card", "r_play", "knock_sigma", "min_spacing", "max_spacing_rejects")


class DieData(TypedDict):
    """A die of ``carnival.json``."""

    id: str
    colour: str  # "black" | "white"
    faces: int
    shape: str


class SinData(TypedDict):
    """A sin card of ``carnival.json``."""

    id: str
    name: str
    japanese: str
    resolves: str  # "reveal" | "scoring" | "round_end"


class OptionData(TypedDict):
    """An option of ``carnival.json``: its default and its choices or range."""

    default: str | int | float
    choices: NotRequired[list[str]]
    min: NotRequired[float]
    max: NotRequired[float]


class Data(TypedDict):
    """``carnival.json``."""

    rounds: int
    dice: list[DieData]
    sins: list[SinData]
    table: dict[str, int]  # the table constants (TABLE_KEYS), milli-units
    options: dict[str, OptionData]


def load_data(path: Path | None = None) -> Data:
    """Load and validate ``carnival.json`` (dice, sins, table constants, options).

    Returns:
        The parsed JSON object.

    Raises:
        RuntimeError: the dice are not d4…d20 + W (spec §2.1), a die has fewer than 2
            faces, the sins are not the seven of §2.2 (one per round), a table constant
            (§2.4) is not a positive integer, or an option lacks its default.
    """
    path = path or Path(__file__).with_name("carnival.json")
    data: Data = json.loads(path.read_text(encoding="utf-8"))
    ids = tuple(d["id"] for d in data["dice"])
    if ids != DIE_IDS:
        raise RuntimeError(f"carnival.json: unexpected dice {ids}")
    for d in data["dice"]:
        if not isinstance(d["faces"], int) or d["faces"] < 2:
            raise RuntimeError(f"carnival.json: bad faces for {d['id']}")
        if d["colour"] not in ("black", "white"):
            raise RuntimeError(f"carnival.json: bad colour for {d['id']}")
    sins = [s["id"] for s in data["sins"]]
    if sorted(sins) != sorted(SIN_IDS):
        raise RuntimeError(f"carnival.json: unexpected sins {sins}")
    for key in TABLE_KEYS:
        if not isinstance(data["table"][key], int) or data["table"][key] <= 0:
            raise RuntimeError(f"carnival.json: bad table constant {key}")
    if len(sins) != data["rounds"]:
        raise RuntimeError("carnival.json: one sin per round is required")
    for key, spec in data["options"].items():
        if "default" not in spec:
            raise RuntimeError(f"carnival.json: option {key} has no default")
    return data


DATA: Final = load_data()
DICE: Final[tuple[str, ...]] = tuple(d["id"] for d in DATA["dice"])
"""Every die in size order (spec §2.1): d4 < d6 < … < d20, then W."""
BLACK: Final[tuple[str, ...]] = tuple(d["id"] for d in DATA["dice"] if d["colour"] == "black")
"""The six black dice, the only ones that can be taken (spec §2.1)."""
WHITE_DIE: Final = "W"
FACES: Final[dict[str, int]] = {d["id"]: d["faces"] for d in DATA["dice"]}
SHAPES: Final[dict[str, str]] = {d["id"]: d["shape"] for d in DATA["dice"]}
"""The glyph of each die on the board (d4 triangle … d20 hexagon)."""
COLOURS: Final[dict[str, str]] = {d["id"]: d["colour"] for d in DATA["dice"]}
SIZE: Final[dict[str, int]] = {die: i for i, die in enumerate(DICE)}
"""Size order of the dice (tie-breaks and display, spec §2.1)."""
SINS: Final[tuple[str, ...]] = tuple(s["id"] for s in DATA["sins"])
"""The seven sin cards in hand order (spec §2.2)."""
SIN_NAMES: Final[dict[str, str]] = {s["id"]: s["name"] for s in DATA["sins"]}
"""Published English names, for error messages only (text uses ``term.sin.<id>``)."""
SIN_JAPANESE: Final[dict[str, str]] = {s["id"]: s["japanese"] for s in DATA["sins"]}
"""The seed's Japanese name of each sin, printed beside the translated one."""
RESOLVES: Final[dict[str, str]] = {s["id"]: s["resolves"] for s in DATA["sins"]}
"""When each sin acts: ``reveal``, ``scoring`` (Envy) or ``round_end`` (Pride)."""
ROUNDS: Final[int] = DATA["rounds"]
R_SEAT: Final[int] = DATA["table"]["r_seat"]
R_CARD: Final[int] = DATA["table"]["r_card"]
R_PLAY: Final[int] = DATA["table"]["r_play"]
KNOCK_SIGMA: Final[int] = DATA["table"]["knock_sigma"]
MIN_SPACING: Final[int] = DATA["table"]["min_spacing"]
MAX_REJECTS: Final[int] = DATA["table"]["max_spacing_rejects"]

INT_OPTIONS: Final = ("roll_sigma", "wrath_aim_sigma", "wrath_knock_radius")
FLOAT_OPTIONS: Final = ("wrath_knock_prob", "wrath_off_table_prob")

_DESCRIPTIONS: Final = {
    "table_model": "spatial = dice at exact positions on a round table; zones = simpler areas.",
    "roll_sigma": "Spread of the roll around the centre (milli-units, spatial).",
    "wrath_aim_sigma": "Scatter of an aimed Wrath throw (milli-units, spatial).",
    "wrath_knock_radius": "Dice within this distance of a Wrath landing may be knocked (spatial).",
    "wrath_knock_prob": "Chance that each die near a Wrath landing is knocked.",
    "wrath_off_table_prob": "Chance that a Wrath throw flies off the table.",
}


def option_specs() -> tuple[OptionSpec, ...]:
    """The option schema of spec §2.5, defaults and ranges from ``carnival.json``."""
    o = DATA["options"]
    specs = [OptionSpec("table_model", o["table_model"]["default"], "choice",
                        tuple(o["table_model"]["choices"]), description=_DESCRIPTIONS["table_model"])]
    for kind, keys in (("int", INT_OPTIONS), ("float", FLOAT_OPTIONS)):
        specs += [OptionSpec(key, o[key]["default"], kind, (), o[key]["min"], o[key]["max"], _DESCRIPTIONS[key])
                  for key in keys]
    return tuple(specs)
