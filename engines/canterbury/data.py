"""The Road to Canterbury's data, loaded and validated once (docs/rules/canterbury.md §2).

``canterbury_cards.csv`` lists every card kind (deck, kind, sin or company, copies and
the seed's Chinese name), ``canterbury_pilgrims.csv`` the seven pilgrims and their sins,
``canterbury_tables.json`` the orders, sizes and money tables of §2.5. English names are
not data: they are the ``term.*`` keys of ``bot/text/en/canterbury.toml`` (``card.<id>``,
``short.<id>``, ``pilgrim.<id>``, ``sin.<id>``, ``company.<id>``, ``deck.<id>``).

Also here: the option schema, the board colours the renderer uses, and the display
orders of §11 (draw sources, timeout sources).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

from engines.base import OptionSpec

_DIR = Path(__file__).parent


@dataclass(frozen=True)
class CardKind:
    """One row of ``canterbury_cards.csv`` (§2.3).

    Attributes:
        id: ``sin-greed``, ``death-red``, ``pardon-lust``, ``relic-felix``.
        deck: the deck (card back): ``sin``, ``pardon`` or ``relic``.
        kind: ``sin``, ``death``, ``pardon`` or ``relic``.
        sin: the sin of a Sin or Pardon card ("" otherwise).
        company: the company colour of a Death card ("" otherwise).
        count: copies in the deck.
        name_zh: the seed's (Traditional Chinese) name.
    """

    id: str
    deck: str
    kind: str
    sin: str
    company: str
    count: int
    name_zh: str


class Tables(TypedDict):
    """``canterbury_tables.json``: the game's lists and numbers (awards by player count)."""

    sins: list[str]
    companies: list[str]
    decks: list[str]
    rows: list[str]
    row_size: int
    hand_size: int
    start_coins: int
    last_rites_tokens: int
    doom_cards: int
    pardon_payout: list[int]
    completion_awards: dict[str, list[int]]
    road_awards: dict[str, list[int]]
    company_awards: dict[str, list[int]]
    road_values: list[int]
    token_value: int
    pass_fine: int
    pass_discard_limit_2021: int
    centre_weight: int
    turn_cap: int


def _load() -> tuple[Tables, dict[str, CardKind], dict[str, str]]:
    tables: Tables = json.loads((_DIR / "canterbury_tables.json").read_text(encoding="utf-8"))
    cards: dict[str, CardKind] = {}
    with (_DIR / "canterbury_cards.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            card = CardKind(row["id"], row["deck"], row["kind"], row["sin"], row["company"],
                            int(row["count"]), row["name_zh"])
            cards[card.id] = card
    pilgrims: dict[str, str] = {}
    with (_DIR / "canterbury_pilgrims.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            pilgrims[row["id"]] = row["sin"]
    sins = tables["sins"]
    totals = {d: sum(c.count for c in cards.values() if c.deck == d) for d in tables["decks"]}
    if totals != {"sin": 44, "pardon": 21, "relic": 12}:
        raise RuntimeError(f"canterbury card data: bad deck sizes {totals}")
    for c in cards.values():
        if c.kind in ("sin", "pardon") and (c.sin not in sins or c.id != f"{c.kind}-{c.sin}"):
            raise RuntimeError(f"canterbury card data: bad sin in {c.id}")
        if c.kind == "death" and c.company not in tables["companies"]:
            raise RuntimeError(f"canterbury card data: bad company in {c.id}")
        if c.kind == "relic" and not c.id.startswith("relic-"):
            raise RuntimeError(f"canterbury card data: bad relic id {c.id}")
    if sorted(pilgrims.values()) != sorted(sins):
        raise RuntimeError("canterbury pilgrim data: every sin needs one pilgrim")
    return tables, cards, pilgrims


TABLES, CARDS, PILGRIMS = _load()
"""The tables of ``canterbury_tables.json``; card kinds by id (file order = display order,
§11); pilgrim id → its sin (§2.2)."""

SINS: tuple[str, ...] = tuple(TABLES["sins"])
"""The Circle of Sin, clockwise (D7)."""
COMPANIES: tuple[str, ...] = tuple(TABLES["companies"])
DECKS: tuple[str, ...] = tuple(TABLES["decks"])
ROWS: tuple[str, ...] = tuple(TABLES["rows"])
CARD_ORDER: tuple[str, ...] = tuple(CARDS)
ORDER_INDEX: dict[str, int] = {k: i for i, k in enumerate(CARD_ORDER)}
NICHOLAS = "relic-nicholas"
HAND_SIZE: int = TABLES["hand_size"]
ROW_SIZE: int = TABLES["row_size"]
DOOM_CARDS: int = TABLES["doom_cards"]
PASS_FINE: int = TABLES["pass_fine"]
TOKEN_VALUE: int = TABLES["token_value"]
TURN_CAP: int = TABLES["turn_cap"]
ROAD_VALUES: tuple[int, ...] = tuple(TABLES["road_values"])
HILDEGARD_COINS = 5
"""St. Hildegard's Comb (§5.6)."""
ISIDORE_DRAWS = 3
VITUS_PLAYS = 2
FOLLOWUP_TYPES: tuple[str, ...] = ("sin", "pardon")
"""What a relic follow-up may be (D22)."""

SOURCES: tuple[str, ...] = (
    "sin-row:1", "sin-row:2", "sin-row:3", "pardon-row:1", "pardon-row:2", "pardon-row:3",
    "sin-deck", "pardon-deck", "relic-deck",
)
"""Refill sources (§5.1 ``draw``) in the order the panel lists them."""
TIMEOUT_SOURCES: tuple[str, ...] = (
    "sin-deck", "pardon-deck", "relic-deck",
    "sin-row:1", "sin-row:2", "sin-row:3", "pardon-row:1", "pardon-row:2", "pardon-row:3",
)
"""Refill sources in the timeout's order (§11 Timeouts, T2)."""

EDITION = OptionSpec(
    key="edition",
    default="2021",
    choices=("2021", "2011"),
    description="2021 rules (discard ≤3 when passing, no two Last Rites in a row) or 2011.",
)
"""The one option (§2.6)."""

# Board colours (renderer input; §11 "Board image").
SIN_FILL: dict[str, tuple[int, int, int]] = {
    "pride": (120, 60, 160), "greed": (200, 150, 20), "lust": (200, 60, 110), "envy": (40, 140, 70),
    "gluttony": (190, 100, 40), "wrath": (190, 40, 40), "sloth": (90, 110, 140),
}
COMPANY_FILL: dict[str, tuple[int, int, int]] = {"red": (196, 48, 43), "yellow": (222, 170, 20),
                                                 "blue": (40, 92, 180)}
COMPANY_INK: dict[str, tuple[int, int, int]] = {"red": (255, 255, 255), "yellow": (25, 25, 30),
                                                "blue": (255, 255, 255)}
DEATH_FILL = (20, 20, 20)
NICHOLAS_FILL = (110, 40, 130)
RELIC_FILL = (95, 80, 50)


def awards(table: Literal["road_awards", "company_awards", "completion_awards"], players: int) -> tuple[int, ...]:
    """A money table of §2.5 for ``players`` (``"road_awards"``, ``"company_awards"``,
    ``"completion_awards"``)."""
    return tuple(TABLES[table][str(players)])


def sin_zh(sin: str) -> str:
    """The seed's Chinese name of a sin (its Sin card's name, §2.1)."""
    return CARDS[f"sin-{sin}"].name_zh


def card_fill(kind: str) -> tuple[int, int, int]:
    """The colour a card of ``kind`` is drawn in: its sin, black for Death, purple for the
    Underpants, brown for other relics."""
    card = CARDS[kind]
    if card.sin:
        return SIN_FILL[card.sin]
    if card.kind == "death":
        return DEATH_FILL
    return NICHOLAS_FILL if kind == NICHOLAS else RELIC_FILL
