"""Card and skill data for E Guan (docs/rules/eguan.md §2), loaded and validated once;
the constants of the rules and the option schema.

``CARDS`` maps a card id to a ``Card``; ``DECK_IDS`` lists the 48 deed cards in file
order; ``SKILLS`` maps a set letter to its six ``Face`` values (index 0 = face 1).
``card_ref``/``card_short``/``set_ref`` name a card or a skill set as a message
parameter: the English names are catalog terms (``term.card.<id>``, ``term.set.<letter>``
in bot/text/en/eguan.toml, checked against the data files by the rule tests); the
original Chinese names are data and go as they are.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from engines.base import JSONObject, Msg, OptionSpec, msg, term

_HERE = Path(__file__).parent

KINDS: tuple[str, ...] = ("H", "S", "K", "E")
"""Icon codes: Heart, Strength, Skill, Evil (spec §2.1)."""

RESOURCES: tuple[str, ...] = ("H", "S", "K")
"""The three resource icons (E never counts as a resource)."""

CORNERS: tuple[str, ...] = ("tl", "tr", "bl", "br")
"""Card corners: top-left, top-right, bottom-left, bottom-right (spec §2.2)."""

ANCHORS: tuple[int, ...] = tuple(range(1, 10))
"""Anchor labels 1-9 in reading order, (0,0) = 1 ... (2,2) = 9 (spec §2.6)."""

ROTATIONS: tuple[int, ...] = (0, 180)
"""A card is placed upright or upside down, never sideways (spec §2.6, D1)."""

TITLES: tuple[tuple[str, str, str], ...] = (
    ("heart", "H", "鐵石心腸"),
    ("strength", "S", "力大無窮"),
    ("skill", "K", "神乎其技"),
    ("most_wanted", "E", "罪大惡極"),
)
"""The title cards (spec §2.4): key, the icon it counts, Chinese name. English names are
the catalog terms ``term.title.<key>``."""

TITLE_OF: dict[str, str] = {icon: key for key, icon, _ in TITLES if icon != "E"}
"""Resource icon → the title awarded for most of it (spec §8 step 2)."""

TITLE_ZH: dict[str, str] = {key: zh for key, _, zh in TITLES}

START_ID = "ST"
"""The starting card Petty Villainy (小奸小惡)."""

EFFECTS: frozenset[str] = frozenset(
    {
        "none",
        "gain",
        "steal",
        "steal_richer",
        "steal_each_richer",
        "all_others_lose",
        "income_again",
        "move_topmost",
        "extra_play",
        "draw_kept",
        "remove_topmost",
    }
)


@dataclass(frozen=True)
class Card:
    """One card row of ``eguan_cards.csv``.

    ``corners`` maps tl/tr/bl/br to ``(kind, count)`` or ``None`` for a blank corner;
    ``req`` maps H/S/K to the icons the board must show.
    """

    id: str
    name_zh: str
    name_en: str
    family: str
    cost: int
    req: dict[str, int]
    corners: dict[str, tuple[str, int] | None]
    codes: dict[str, str]
    trouble_die: bool
    in_deck: bool


@dataclass(frozen=True)
class Face:
    """One die face of a skill set (``eguan_skills.csv``)."""

    id: str
    set: str
    set_name_zh: str
    set_name_en: str
    face: int
    effect: str
    amount: int
    harmful: bool
    text: str


def _corner(code: str) -> tuple[str, int] | None:
    if code == "-":
        return None
    if len(code) == 1 and code in KINDS:
        return (code, 1)
    if len(code) == 2 and code[0] == "2" and code[1] in RESOURCES:
        return (code[1], 2)
    raise ValueError(f"bad corner code {code!r}")


def _load_cards() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    with open(_HERE / "eguan_cards.csv", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            req = {"H": int(row["req_heart"]), "S": int(row["req_strength"]), "K": int(row["req_skill"])}
            codes = {c: row[c].strip() for c in CORNERS}
            card = Card(
                id=row["id"],
                name_zh=row["name_zh"],
                name_en=row["name_en"],
                family=row["family"],
                cost=int(row["cost"]),
                req=req,
                corners={c: _corner(codes[c]) for c in CORNERS},
                codes=codes,
                trouble_die=row["trouble_die"] == "1",
                in_deck=row["in_deck"] == "1",
            )
            if card.cost != sum(req.values()):
                raise ValueError(f"{card.id}: cost {card.cost} != requirement total")
            if card.id in cards:
                raise ValueError(f"duplicate card {card.id}")
            cards[card.id] = card
    return cards


def _validate_cards(cards: dict[str, Card]) -> None:
    deck = [c for c in cards.values() if c.in_deck]
    if len(deck) != 48 or START_ID not in cards or cards[START_ID].in_deck:
        raise ValueError("E Guan needs 48 deed cards and the starting card ST")
    req_tot = {k: sum(c.req[k] for c in deck) for k in RESOURCES}
    icon_tot = {k: 0 for k in KINDS}
    for c in deck:
        e_corners = 0
        for v in c.corners.values():
            if v is not None:
                icon_tot[v[0]] += v[1]
                e_corners += v[0] == "E"
        if e_corners > 1:
            raise ValueError(f"{c.id} has more than one E corner")
    if req_tot != {"H": 45, "S": 45, "K": 45}:
        raise ValueError(f"requirement totals {req_tot}")
    if icon_tot != {"H": 37, "S": 37, "K": 37, "E": 30}:
        raise ValueError(f"corner icon totals {icon_tot}")
    if sum(c.trouble_die for c in deck) != 12:
        raise ValueError("expected 12 die cards")
    if not all(0 <= c.cost <= 6 for c in deck):
        raise ValueError("costs must be 0-6")


def _load_skills() -> dict[str, tuple[Face, ...]]:
    faces: dict[str, list[Face]] = {}
    with open(_HERE / "eguan_skills.csv", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            face = Face(
                id=row["id"],
                set=row["set"],
                set_name_zh=row["set_name_zh"],
                set_name_en=row["set_name_en"],
                face=int(row["face"]),
                effect=row["effect"],
                amount=int(row["amount"]),
                harmful=row["harmful"] == "1",
                text=row["text"],
            )
            if face.effect not in EFFECTS:
                raise ValueError(f"{face.id}: unknown effect {face.effect}")
            faces.setdefault(face.set, []).append(face)
    out: dict[str, tuple[Face, ...]] = {}
    for letter, lst in faces.items():
        lst.sort(key=lambda f: f.face)
        if [f.face for f in lst] != [1, 2, 3, 4, 5, 6]:
            raise ValueError(f"set {letter} must have faces 1-6")
        out[letter] = tuple(lst)
    if sorted(out) != ["A", "B", "C", "D"]:
        raise ValueError("expected skill sets A-D")
    return out


CARDS: dict[str, Card] = _load_cards()
_validate_cards(CARDS)
DECK_IDS: tuple[str, ...] = tuple(c.id for c in CARDS.values() if c.in_deck)
SKILLS: dict[str, tuple[Face, ...]] = _load_skills()
SET_LETTERS: tuple[str, ...] = tuple(sorted(SKILLS))

HAND_SIZE = 5
"""Cards dealt to each player and the refill target (spec §3, §4)."""
START_INFAMY = 2
"""Infamy each player starts with (spec §3)."""
SHORTFALL_PRICE = 2
"""Infamy paid per missing requirement icon (spec §5.1, D9)."""
START_ANCHOR = 5
"""The starting card's anchor label ((1,1) = 5, spec §2.6, D2)."""

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        key="end_rule",
        default="equal_turns",
        choices=("equal_turns", "one_more_each"),
        description="Last card drawn: this round and one more (equal_turns), or a turn each, "
        "drawer last (one_more_each).",
    ),
)
"""The option schema (spec §1 Game options, D14); ``turn_timeout`` is the host's move timer."""


def card_code(card_id: str) -> Msg:
    """A card's code as the reader reads it, as the images draw it (render/eguan.py
    ``card_code``): its icon letter in the reader's language and its number (catalog
    ``board.card_code``: "S12" in English, 力12 in Chinese); the start card ``board.start_code``."""
    if card_id == START_ID:
        return msg("board.start_code")
    if card_id[:1] in ("H", "S", "K") and card_id[1:].isdigit():
        return msg("board.card_code", icon=msg(f"board.letter_{card_id[0]}"), n=card_id[1:])
    return Msg("host.notation", {"text": card_id})


def card_ref(card_id: str) -> JSONObject:
    """A card as a message parameter, ``H01 Crocodile Tears (虛情假意)`` in English
    (catalog ``name.card``): for the log."""
    return msg("name.card", id=card_code(card_id), name=term(f"card.{card_id}"),
               native=CARDS[card_id].name_zh).to_json()


def card_short(card_id: str) -> JSONObject:
    """A card as a message parameter without its Chinese name, ``H01 Crocodile Tears``
    (catalog ``name.card_short``): for labels, which must stay short."""
    return msg("name.card_short", id=card_code(card_id), name=term(f"card.{card_id}")).to_json()


def set_ref(letter: str) -> JSONObject:
    """A skill set as a message parameter, ``Thug (打手, set A)`` (catalog ``name.set``)."""
    return msg("name.set", set=letter, name=term(f"set.{letter}"),
               native=SKILLS[letter][0].set_name_zh).to_json()


def effect_msg(face: Face, short: bool = False) -> Msg:
    """What a die face does in a few words (catalog ``effect.<effect>`` or, for the
    skill-set summaries, ``effect_short.<effect>``) with its amount ``n``."""
    return msg(f"{'effect_short' if short else 'effect'}.{face.effect}", n=face.amount)


def faces_summary(letter: str) -> list[JSONObject]:
    """The six faces of a set as message parameters (``1 +1``, ``2 steal 1``, ...)."""
    return [msg("name.face", face=f.face, effect=effect_msg(f, short=True)).to_json() for f in SKILLS[letter]]
