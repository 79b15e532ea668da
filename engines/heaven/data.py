"""Card and track data for The Way to Heaven (spec heaven §2), loaded and validated once.

``CARDS`` maps a card id (``S01``…``N54``) to a ``Card``; ``CARD_IDS`` lists all 54 in file
order; ``KIND_USABLE_BY`` maps each of the 18 kinds to ``saint``/``sinner``/``any``.
``TRACK`` holds the §2.3 conditions of spaces 1–5 (sum threshold, allowed combinations).
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

_HERE = Path(__file__).parent

COLOURS: tuple[str, ...] = ("red", "blue", "green")
"""The three real card colours; ``wild`` (Paradise) may be read as any of them."""

COLOUR_LETTER: dict[str, str] = {"red": "R", "blue": "B", "green": "G", "wild": "W"}

GATE = 6
"""Position of the Gate of Heaven (spec §2.3)."""

TRACK: dict[int, tuple[int, tuple[str, ...]]] = {
    1: (7, ("C1", "C2", "C3", "C4", "C5")),
    2: (12, ("C1", "C2", "C3", "C4", "C5")),
    3: (16, ("C1", "C2", "C3")),
    4: (19, ("C1", "C2", "C3")),
    5: (21, ("C1", "C2")),
}
"""Space to enter -> (sum threshold, allowed combination codes) (spec §2.3)."""

COMBO_TEXT: dict[str, str] = {
    "C1": "three 3s, one colour",
    "C2": "two 3s of one colour + a 2",
    "C3": "three 3s, mixed colours",
    "C4": "three 2s, one colour",
    "C5": "two 2s of one colour + a 3",
}

HOLINESS_COPIES: tuple[str, ...] = ("mercy", "miracle", "shepherd", "sacrifice", "repentance", "grace")
"""Kinds Holiness may copy (spec §5.4, D17)."""

IGNORANCE_COPIES: tuple[str, ...] = (
    "greed", "pride", "law", "destruction", "cruelty", "hypocrisy", "arrogance", "wrath",
)
"""Kinds Ignorance may copy (spec §5.4, D17)."""

NOT_USABLE: frozenset[str] = frozenset({"paradise", "guardian"})
"""Kinds that can never be USEd (D16)."""

NOT_TAKEABLE: frozenset[str] = frozenset({"arrogance", "paradise", "guardian"})
"""Kinds Arrogance cannot take (spec §5.4, D18)."""

ATTACK_KINDS: frozenset[str] = frozenset({"pride", "destruction", "cruelty", "hypocrisy"})
"""Kinds whose resolved effect targets another player (spec §5.5)."""


@dataclass(frozen=True)
class Card:
    """One row of ``heaven_cards.csv`` (spec §2.1)."""

    id: str
    kind: str
    name_zh: str
    name_en: str
    side: str
    colour: str
    number: int
    usable_by: str

    @property
    def short(self) -> str:
        """``"Mercy R1"``: name plus colour letter and number."""
        return f"{self.name_en} {COLOUR_LETTER[self.colour]}{self.number}"


def _load() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    with (_HERE / "heaven_cards.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            card = Card(
                id=row["id"],
                kind=row["kind"],
                name_zh=row["name_zh"],
                name_en=row["name_en"],
                side=row["side"],
                colour=row["colour"],
                number=int(row["number"]),
                usable_by=row["usable_by"],
            )
            if card.id in cards:
                raise ValueError(f"duplicate card id {card.id}")
            if card.side not in ("saint", "sinner") or card.usable_by not in ("saint", "sinner", "any"):
                raise ValueError(f"bad side/usable_by in {card.id}")
            if card.colour not in (*COLOURS, "wild") or card.number not in (1, 2, 3):
                raise ValueError(f"bad colour/number in {card.id}")
            cards[card.id] = card
    if len(cards) != 54:
        raise ValueError("heaven_cards.csv must hold 54 cards")
    kinds = Counter(c.kind for c in cards.values())
    if len(kinds) != 18 or set(kinds.values()) != {3}:
        raise ValueError("heaven_cards.csv must hold 18 kinds of 3 copies")
    sides = Counter(c.side for c in cards.values())
    if sides["saint"] != 27 or sides["sinner"] != 27:
        raise ValueError("heaven_cards.csv must hold 27 saint and 27 sinner cards")
    for colour in COLOURS:
        nums = Counter(c.number for c in cards.values() if c.colour == colour)
        if nums != Counter({1: 9, 2: 6, 3: 2}):
            raise ValueError(f"colour {colour} has the wrong numbers: {dict(nums)}")
    return cards


CARDS: dict[str, Card] = _load()
CARD_IDS: tuple[str, ...] = tuple(CARDS)


def _kind_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for card in CARDS.values():
        if table.setdefault(card.kind, card.usable_by) != card.usable_by:
            raise ValueError(f"kind {card.kind} has mixed usable_by")
    return table


KIND_USABLE_BY: dict[str, str] = _kind_table()
KIND_SIDE: dict[str, str] = {c.kind: c.side for c in CARDS.values()}
KIND_NAME: dict[str, str] = {c.kind: c.name_en for c in CARDS.values()}
KIND_NAME_ZH: dict[str, str] = {c.kind: c.name_zh for c in CARDS.values()}

KIND_TEXT: dict[str, str] = {
    "holiness": "all your public cards saint: copy a saint ability",
    "mercy": "saints are the minority: add the sinners' public sums",
    "miracle": "all public numbers equal: they count as one colour",
    "shepherd": "saints are the majority: add the other saints' sums",
    "sacrifice": "your public numbers ×3, then discard a public card",
    "guardian": "when attacked: cancel the attack, then draw 1",
    "repentance": "discard all your sinner cards, refill to 3 + 3",
    "grace": "draw 4, keep some (hand of 3), discard the rest",
    "paradise": "a 3 of any colour (cannot be used)",
    "ignorance": "all your public cards sinner: copy a sinner ability",
    "greed": "sinners are the minority: your public numbers ×3",
    "pride": "sinners are the majority: a player skips a turn",
    "law": "public cards one colour: read every number as 1, 2 or 3",
    "destruction": "a player with 4+ cards loses a public and a random hand card",
    "cruelty": "push back a pawn on your space by 1",
    "hypocrisy": "swap 1 or 2 public cards with a player",
    "arrogance": "take any public card, discard it and use its ability",
    "wrath": "discard all your saint cards, refill to 3 + 3",
}
"""One line per kind for the hand view (spec §2.1 "ability in one line")."""
