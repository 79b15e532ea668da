"""Card and track data for The Way to Heaven (docs/rules/heaven.md §2), loaded and
validated once; the constants of the rules and the option schema (§1).

``CARDS`` maps a card id (``S01``…``N54``) to a ``Card``; ``CARD_IDS`` lists all 54 in file
order; ``KINDS`` the 18 kinds in file order; ``KIND_USABLE_BY`` maps each kind to
``saint``/``sinner``/``any``. ``TRACK`` holds the §2.3 conditions of spaces 1–5 (sum
threshold, allowed combinations). ``OPTIONS`` and ``PREFERENCES`` are the option schema.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from engines.base import OptionSpec

_HERE = Path(__file__).parent

COLOURS: tuple[str, ...] = ("red", "blue", "green")
"""The three real card colours; ``wild`` (Paradise) may be read as any of them."""

COLOUR_LETTER: dict[str, str] = {"red": "R", "blue": "B", "green": "G", "wild": "W"}

GATE = 6
"""Position of the Gate of Heaven (docs/rules/heaven.md §2.3)."""

LAST_SPACE = 5
"""The last path space; the Gate is entered only from here (§2.3)."""

PUBLIC_SIZE = 3
"""Cards in a full public set (§3, §5.3)."""

HAND_SIZE = 3
"""The hand size a draw (§4 step 3), Grace (D22) and a refill (§5.4) fill up to."""

DEAL = 6
"""Cards dealt to each player at setup (§3)."""

GRACE_DRAW = 4
"""Cards Grace draws (§5.4)."""

TRACK: dict[int, tuple[int, tuple[str, ...]]] = {
    1: (7, ("C1", "C2", "C3", "C4", "C5")),
    2: (12, ("C1", "C2", "C3", "C4", "C5")),
    3: (16, ("C1", "C2", "C3")),
    4: (19, ("C1", "C2", "C3")),
    5: (21, ("C1", "C2")),
}
"""Space to enter -> (sum threshold, allowed combination codes) (docs/rules/heaven.md §2.3)."""

HOLINESS_COPIES: tuple[str, ...] = ("mercy", "miracle", "shepherd", "sacrifice", "repentance", "grace")
"""Kinds Holiness may copy (docs/rules/heaven.md §5.4, D17)."""

IGNORANCE_COPIES: tuple[str, ...] = (
    "greed", "pride", "law", "destruction", "cruelty", "hypocrisy", "arrogance", "wrath",
)
"""Kinds Ignorance may copy (docs/rules/heaven.md §5.4, D17)."""

NOT_TAKEABLE: frozenset[str] = frozenset({"arrogance", "paradise", "guardian"})
"""Kinds Arrogance cannot take (docs/rules/heaven.md §5.4, D18)."""



@dataclass(frozen=True)
class Card:
    """One row of ``heaven_cards.csv`` (docs/rules/heaven.md §2.1)."""

    id: str
    kind: str
    name_zh: str
    name_en: str
    side: str
    colour: str
    number: int
    usable_by: str

    @property
    def code(self) -> str:
        """``"R1"``: colour letter and number (the notation of §10)."""
        return f"{COLOUR_LETTER[self.colour]}{self.number}"

    @property
    def short(self) -> str:
        """``"Mercy R1"``: the English name from the data file plus ``code``."""
        return f"{self.name_en} {self.code}"


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
KINDS: tuple[str, ...] = tuple(dict.fromkeys(c.kind for c in CARDS.values()))
"""The 18 kinds in file order (§2.1)."""

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("board_side", "easy", choices=("easy", "advanced"),
               description="Board side: easy (sum or combination) or advanced (saints sum, sinners combination)."),
    OptionSpec("gate_same_colour", True, kind="bool",
               description="The Gate needs three 1s of one colour (true) or of any colours (false)."),
    OptionSpec("c3_rule", "not_all_same", choices=("not_all_same", "all_different"),
               description="Combination C3: three 3s not all one colour, or one of each colour."),
    OptionSpec("x3_mode", "per_card", choices=("per_card", "sum_only"),
               description="Sacrifice/Greed ×3: every public number, or only the sum."),
    OptionSpec("borrow_scope", "all", choices=("all", "one"),
               description="Mercy/Shepherd add the numbers of all such players, or of one chosen player."),
    OptionSpec("guardian_scope", "sinner_card", choices=("sinner_card", "sinner_attacker"),
               description="Guardian answers every attack, or only attacks by a sinner-faction player."),
    OptionSpec("grace_cap", "3", choices=("3", "none"),
               description="Grace keeps cards up to a hand of 3, or any number."),
    OptionSpec("allow_three", False, kind="bool",
               description="Allow an unofficial 3-player game."),
    OptionSpec("round_limit", 40, kind="int", minimum=10, maximum=99,
               description="The game ends after this round even if nobody reached the Gate."),
    OptionSpec("turn_timeout", 0, kind="int", minimum=0, maximum=168,
               description="Hours for every decision except a Guardian reaction; "
                           "0 = the lobby's move timer."),
    OptionSpec("reaction_timeout", 0, kind="int", minimum=0, maximum=168,
               description="Hours for a Guardian reaction; 0 = the lobby's move timer."),
)
"""The game options of docs/rules/heaven.md §1, default first."""

PREFERENCES: tuple[OptionSpec, ...] = (
    OptionSpec("auto_advance", True, kind="bool",
               description="Advance at once whenever you may enter the next space; off = "
                           "you are asked Advance/Stay."),
    OptionSpec("auto_draw", True, kind="bool",
               description="Draw at once whenever your hand has fewer than 3 cards; off = "
                           "you are asked Draw/No draw."),
    OptionSpec("guardian_pref", "ask", choices=("ask", "auto_guard", "never"),
               description="If attacked: ask = a window opens; auto_guard = lowest Guardian, "
                           "else allow; never = allow."),
)
"""The per-player preferences of docs/rules/heaven.md §1 (D20, D29, D30)."""
