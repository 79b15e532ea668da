"""Carnival of Sins state and action types (spec docs/rules/carnival.md; the layout is
described in ``rules``). Plain JSON-ready dicts, typed for the checker only."""

from __future__ import annotations

from typing import Literal, NotRequired, Required, TypedDict

from engines.base import OutcomeJSON


class Options(TypedDict):
    """The table options of spec §2.5 (``data.option_specs``), coerced by ``new_game``."""

    table_model: str  # "spatial" (§2.4) or "zones" (§2.6)
    roll_sigma: float  # spread of a roll around the table centre
    wrath_aim_sigma: float  # spread of a Wrath throw around its aim
    wrath_knock_radius: int  # how near a Wrath landing a die must be to be knocked
    wrath_knock_prob: float  # chance that each die near the landing is knocked
    wrath_off_table_prob: float  # chance that a Wrath throw flies off the table


class Die(TypedDict):
    """One die of the state's ``dice``."""

    value: int  # the face up
    place: str  # "table" or "card" (locked on a player's card)
    owner: int | None  # the seat whose card holds it (None on the table)
    pos: list[int] | None  # [x, y] on the spatial table, else None
    zone: str | None  # its zone on the zones table, else None


class Throw(TypedDict):
    """The Wrath throw waiting for chance ``wrath_result``."""

    target: str  # the thrown die
    aim: str  # a die or zone aimed at, or "none" (a gentle reroll)


class State(TypedDict):
    """A Carnival state (``state_version`` 2), see ``rules``' docstring."""

    game: str  # "carnival"
    state_version: int  # 2
    players: int  # 2..5 seats
    options: Options  # the table options
    phase: str  # "setup" | "roll" | "choose" | "resolve" | "wrath_chance" | "pride" | "over"
    round: int  # 1..7 (8 after the end)
    first_devil: int | None  # seat that drew the Devil card at setup
    reveal_index: int  # how many cards of this round's reveal order are revealed
    hands: list[list[str]]  # per seat: sins not yet revealed (public; includes the pick)
    played: list[list[str]]  # per seat: sins revealed so far, in round order
    picks: list[str | None]  # per seat: SECRET face-down pick of this round
    random_pick: list[bool]  # per seat: the pick was made by chance ``random_sin``
    random_pending: list[int]  # seats whose pick timed out, waiting for ``random_sin``
    dice: dict[str, Die]  # die id -> its value and place
    penalties: list[int]  # per seat: Wrath off-table penalty this round (0 = none)
    throw: Throw | None  # the Wrath throw in the air, or None
    pride_turn: int | None  # index into the Pride players during R4, else None
    round_scores: list[list[int]]  # per scored round: round score per seat (§8.1 step 5)


class RollEntry(TypedDict):
    """One die of a ``roll``: its value and position (spatial) or zone (zones)."""

    value: int
    pos: NotRequired[list[int]]
    zone: NotRequired[str]


class Knock(TypedDict):
    """A die knocked by a Wrath throw: its new value and position (spatial) or zone (zones)."""

    die: str
    value: int
    pos: NotRequired[list[int]]
    zone: NotRequired[str]


TakeKind = Literal["gluttony", "sloth", "pride"]
"""The sins whose choice is one die (``die``)."""


Landing = list[int] | str
"""Where a thrown die lands: ``[x, y]`` (spatial) or a zone (zones)."""


class Action(TypedDict, total=False):
    """A Carnival action, the player's or chance's: its ``type`` and the keys that kind carries.

    Players: ``choose`` {sin} (R2: pick a sin card face down), ``timeout`` {} (R2's timeout:
    pick at random), ``greed`` / ``lust`` {dice}, ``gluttony`` / ``sloth`` / ``pride`` {die},
    ``wrath`` {target, aim}. Chance: ``first_devil`` {seat}, ``roll`` {dice}, ``random_sin``
    {seat, sin}, ``wrath_result`` {off_table, value, penalty?, landing?, knocks}.
    """

    type: Required[Literal["choose", "timeout", "greed", "lust", "gluttony", "sloth", "pride", "wrath",
                           "first_devil", "roll", "random_sin", "wrath_result"]]
    sin: str  # choose, random_sin: the sin card
    seat: int  # first_devil, random_sin: the seat drawn for
    die: str  # gluttony, sloth, pride: the die taken
    dice: list[str] | dict[str, RollEntry]  # greed, lust: the two dice taken; roll: every die's entry
    target: str  # wrath: the thrown die
    aim: str  # wrath: the die or zone aimed at, or "none"
    off_table: bool  # wrath_result: the throw flew off the table
    value: int  # wrath_result: the target's new value
    penalty: int  # wrath_result: the Wrath player's penalty (off the table only)
    landing: Landing  # wrath_result: where a table target lands ([x, y] or a zone)
    knocks: list[Knock]  # wrath_result: the dice knocked


class DieView(TypedDict):
    """One die: ``id``, ``faces``, ``shape``, ``colour`` (data file), ``value`` (None
    before the first roll), ``place`` (``table``/``card``/``none`` before the roll),
    ``owner`` (seat of the card it lies on), ``pos`` ([x, y] milli-units, spatial),
    ``zone`` (zones), and its ``location`` (spatial: position or card spot) or
    ``location_zone`` (zones: zone or ``seat<owner>``) once rolled."""

    id: str
    faces: int
    shape: str
    colour: str
    value: int | None
    place: str
    owner: int | None
    pos: list[int] | None
    zone: str | None
    location: NotRequired[list[int]]
    location_zone: NotRequired[str]


class SeatView(TypedDict):
    """One seat: ``hand`` (sins not yet revealed), ``played`` (revealed, round order),
    ``previous`` (played before this round's card), ``picked`` (a card is down or
    revealed), ``random_pick``, ``timed_out``, ``card`` (this round's revealed sin),
    ``locked`` (dice on its card), ``sum`` (their values), ``penalty`` (Wrath off-table),
    ``base`` (its base score once the round is scored, else None), ``total``, ``to_move``."""

    seat: int
    hand: list[str]
    played: list[str]
    previous: list[str]
    picked: bool
    random_pick: bool
    timed_out: bool
    card: str | None
    locked: list[str]
    sum: int
    penalty: int
    base: int | None
    total: int
    to_move: bool


class PendingView(TypedDict):
    """The R3 decision: the deciding ``seat`` and the ``sin`` it decides for."""

    seat: int
    sin: str


class ThrowView(Throw):
    """The Wrath throw in the air: the thrower's ``seat`` with the throw's ``target`` and ``aim``."""

    seat: int


class PrideView(TypedDict):
    """R4: the Pride ``players`` in order and the index of the one whose ``turn`` it is."""

    players: list[int]
    turn: int | None


class RoundResult(TypedDict):
    """The scoring of the dice round (``rules.round_result``, spec §8.1)."""

    base: list[int]  # base score per seat
    copy_from: list[int]  # per seat: the Envy source, or -1
    white: int  # W's value
    bonus: list[int]  # per seat (D19)
    scores: list[int]  # per seat
    next: int  # the next Devil holder
    why: str  # see ``rules.next_devil``


class PublicView(TypedDict):
    """The public view (``player_view(state, None)``): everything but the face-down picks.

    ``round`` is capped at ``rounds``; ``devil`` is the holder now (None once the game is
    over: no round follows, spec §8.2), ``round_devil`` the roller of the dice round,
    ``round_devils`` the roller of each scored round; ``pending`` {seat, sin} of the R3
    decision; ``throw`` {seat, target, aim} of the Wrath throw in the air; ``pride``
    {players, turn} in R4; ``nearest`` the die Sloth would take per seat (spatial, while
    the game goes on; None for a seat that cannot reveal Sloth this round,
    ``sloth_to_come``); ``zones`` the dice per zone (zones); ``outcome`` the ``Outcome``
    JSON at the end (its ``reason`` a ``Msg`` JSON) and ``places`` each seat's final
    place (``rules.places``; empty before the end)."""

    game: str
    players: int
    round: int
    rounds: int
    phase: str
    table_model: str
    options: Options
    devil: int | None
    round_devil: int | None
    round_devils: list[int]
    order: list[int]
    reveal_index: int
    to_move: list[int]
    rolled: bool
    scored: bool
    dice: list[DieView]
    seat_points: list[list[int]]
    card_spots: list[list[int]]
    r_play: int
    zones: dict[str, list[str]]
    nearest: list[str | None]
    seats: list[SeatView]
    round_scores: list[list[int]]
    totals: list[int]
    pending: PendingView | None
    throw: ThrowView | None
    pride: PrideView | None
    outcome: OutcomeJSON | None
    places: list[int]


class PrivateView(PublicView):
    """A seat's view: the public view plus ``seat`` and its face-down ``pick`` (or None)."""

    seat: int
    pick: str | None
