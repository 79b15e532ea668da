"""The Road to Canterbury state and action types (docs/rules/canterbury.md; the layout is
described in ``rules``). Plain JSON-ready dicts, typed for the checker only."""

from __future__ import annotations

from typing import Literal, Required, TypedDict


class Options(TypedDict):
    """The table options."""

    edition: str  # which edition's card list is played


class CardOnPilgrim(TypedDict):
    """A card lying on a pilgrim."""

    kind: str  # card kind
    up: bool  # face up


class DeadPilgrim(TypedDict):
    """A pilgrim that died, with the cubes on it then."""

    pilgrim: str
    cubes: list[int]  # per seat


class Company(TypedDict):
    """One coloured company of the road."""

    pilgrim: str | None  # the pilgrim leading it (None until drawn)
    cards: list[CardOnPilgrim]  # the cards on the pilgrim
    cubes: list[int]  # per seat: cubes on it
    doomed: bool  # its pilgrim is doomed
    dead: list[DeadPilgrim]  # its pilgrims that died


class Frame(TypedDict, total=False):
    """A pending step on the ``stack`` (the top one says who acts next): ``f`` and its keys.

    ``chance`` {what, deck?, purpose?, slot?, seat?, company?, target?}, ``play`` {ctx,
    pass_discards?}, ``give`` {target}, ``philip`` {stage, moved}, ``vitus`` {left}, ``isidore``
    {deck, left, drawn, stage}, ``discard_relic`` {card}, ``turn`` {stage}, ``setup_done`` {}.
    """

    f: Required[str]  # the frame kind
    what: str  # chance: "reveal" | "pilgrim" | "parson_start" | "first_player" | "steal"
    deck: str  # chance reveal/steal, isidore: the deck drawn from
    purpose: str  # chance reveal: "setup_row" | "setup_hand" | "row" | "hand" | "isidore"
    slot: int  # chance reveal for a row: the slot filled
    seat: int  # chance reveal at setup: whose hand
    company: str  # chance pilgrim: the company that gets one
    target: int  # give, chance steal: the seat aimed at
    ctx: str  # play: "main" | "vitus" | … (which cards may be played)
    pass_discards: list[str]  # play: the discards of a pass in progress (state_version 1 logs)
    stage: str  # turn, philip, isidore: where the step is
    moved: bool  # philip: a card was moved
    left: int  # vitus: plays left; isidore: draws left
    drawn: list[str]  # isidore: cards drawn so far
    card: str  # discard_relic: the relic


class State(TypedDict):
    """A Canterbury state (``state_version`` 2), see ``rules``' docstring."""

    game: str  # "canterbury"
    state_version: int  # 2
    players: int  # number of seats
    options: Options  # the table options
    active: int  # the seat whose turn it is
    lastrites_turn: bool  # the active turn is a Last Rites turn
    turn: int  # turns played
    hands: list[list[str]]  # per seat: card kinds in hand, in card order (secret)
    coins: list[int]  # per seat
    decks: dict[str, dict[str, int]]  # deck -> {kind: copies} (secret order)
    discards: dict[str, list[str]]  # deck -> discarded kinds
    rows: dict[str, list[str | None]]  # row -> its 3 slots
    aside: list[str]  # Death cards set aside during setup
    parson: str | None  # the sin the Parson sits on
    companies: dict[str, Company]  # colour -> company
    doom_order: list[str]  # colours in the order they were doomed
    circle: list[list[str]]  # per seat: sins on its circle
    centre: list[int]  # per seat: cubes in the centre
    completions: list[int]  # seats in the order they completed their circle
    road: list[list[int]]  # per road space (5): per seat cubes
    deaths: int  # pilgrims died so far
    tokens: list[int]  # per seat: Last Rites tokens
    token_supply: int  # Last Rites tokens left in the supply
    stack: list[Frame]  # pending steps, last on top


class FinalScores(TypedDict):
    """Final scoring (§8, ``rules.final_scores``): lists by seat (coins before scoring, each
    award, +3 per token, circle strength, totals), the Company awards by colour, the seats best
    first (ties by circle strength, D18) and the seats sharing the best total and strength."""

    coins: list[int]
    road: list[int]
    companies: dict[str, list[int]]
    tokens: list[int]
    strength: list[int]
    totals: list[int]
    ranking: list[int]
    winners: list[int]


class Action(TypedDict, total=False):
    """A Canterbury action, the player's or chance's: its ``type`` and the keys that kind carries.

    Players: ``sin`` {card, company} / ``pardon`` {card, sin} / ``relic`` {card, company?, player?,
    deck?, to?, circle?, face?, pilgrim?} (a card play with its target), ``pass`` {discard}, ``give``
    {card}, ``keep`` {card}, ``parson`` {sin}, ``draw`` {source}, ``lastrites`` {choice}, ``done``.
    Chance: ``first_player`` {seat}, ``parson_start`` {sin}, ``pilgrim`` {pilgrim}, ``reveal`` {card},
    ``steal`` {card}. ``state_version`` 1 logs also hold ``choose`` {card}, ``company`` {company},
    ``back``, ``discard`` {card} and ``confirm``.
    """

    type: Required[Literal["sin", "pardon", "relic", "pass", "give", "keep", "parson", "draw", "lastrites",
                           "done", "first_player", "parson_start", "pilgrim", "reveal", "steal",
                           "choose", "company", "back", "discard", "confirm"]]
    card: str  # the card kind played, given, kept, revealed or stolen
    company: str  # the company (colour) aimed at
    sin: str  # pardon: the sin pardoned; parson, parson_start: the Parson's sin (or later/stay)
    player: int  # relic: the seat aimed at
    deck: str  # relic: the deck a steal draws from
    to: str  # relic: the company a card moves to
    circle: str  # relic: the sin of the circle space
    face: str  # relic: "up" | "down"
    pilgrim: str  # chance pilgrim: the pilgrim drawn
    relic: str  # the relic used
    discard: list[str]  # pass: the cards discarded
    source: str  # draw: where the card comes from
    choice: str  # lastrites: "use" | "keep"
    seat: int  # chance first_player: the first player
