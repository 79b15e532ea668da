"""The Way to Heaven state and action types (docs/rules/heaven.md; the layout is described in
``engine``'s docstring). Plain JSON-ready dicts, typed for the checker only."""

from __future__ import annotations

from typing import Literal, NotRequired, Required, TypedDict


class Options(TypedDict):
    """The table options (``data.OPTIONS``), coerced by ``new_game``."""

    board_side: str  # "easy" | "advanced"
    gate_same_colour: bool  # the Gate needs cards of one colour
    c3_rule: str  # "not_all_same" | "all_different"
    x3_mode: str  # "per_card" | "sum_only"
    borrow_scope: str  # "all" | "one"
    guardian_scope: str  # "sinner_card" | "sinner_attacker"
    grace_cap: str  # "3" | "none"
    allow_three: bool  # three players may play
    round_limit: int  # the game ends after this round
    turn_timeout: int  # hours for a decision (0: the lobby's timer)
    reaction_timeout: int  # hours for a Guardian reaction (0: the lobby's timer)


class Chance(TypedDict):
    """The chance request pending: a ``draw``, the ``start`` player, or a ``destroy``."""

    kind: str  # "draw" | "start" | "destroy"
    seat: NotRequired[int]  # draw: who draws; destroy: whose card is destroyed
    left: NotRequired[int]  # draw: cards still to draw
    purpose: NotRequired[str]  # draw: "deal" | "grace" | "refill" | …


PlanValue = str | int | list[str]
"""A parameter's value: a card kind (``copy``) or card id (``take``, ``card``), a seat
(``borrow``, ``target``), Law's ``number``, the swap size ``k``, or cards (``mine``, ``theirs``)."""

Plan = list[list[PlanValue]]
"""A complete parameter list of one USE: ``[[key, value], ...]`` in declaration order
(§5.4: ``copy``/``take`` steps of a chain first, then the final ability's parameters)."""


class Params(TypedDict, total=False):
    """The final ability's parameters by key (``rules.chain_of``; ``effects.PICKS`` reads each)."""

    borrow: int  # Mercy / Shepherd with borrow_scope "one": the seat borrowed from
    number: int  # Law: 1, 2 or 3
    target: int  # an attack's target seat
    card: str  # Destruction: the public card removed
    k: int  # Hypocrisy: how many cards are swapped
    mine: list[str]  # Hypocrisy: the user's public cards given
    theirs: list[str]  # Hypocrisy: the target's public cards taken


class Use(TypedDict):
    """The declared USE while its Guardian windows run (§5.5)."""

    card: str  # the card used
    plan: Plan  # its whole declaration
    windows: list[list[str | int]]  # Guardian windows still to run: [role, seat]
    removed: bool  # the used card has left play
    cancelled: bool  # a Guardian cancelled it


class Build(TypedDict):
    """A USE half-declared by a ``state_version`` 1 log."""

    card: str
    chosen: Plan  # the parameters picked so far


class Turn(TypedDict):
    """The turn-scoped effects (§4: they expire at its end)."""

    modifier: str | None  # the modifier ability in force
    law: int | None  # Law's number
    borrowed: int  # how many cards were borrowed this turn
    sacrifice: bool  # a sacrifice was made this turn


class State(TypedDict):
    """A Heaven state (``state_version`` 2)."""

    game: str  # "heaven"
    state_version: int  # 2
    players: int  # number of seats
    options: Options  # the table options
    phase: str  # "deal" | "split" | "start" | "play" | "over"
    deck: list[str]  # draw-pile card ids (secret, kept sorted: every draw is a uniform chance pick)
    discard: list[str]  # discard pile, oldest first (public)
    hands: list[list[str]]  # per seat: hand card ids (secret)
    public: list[list[str]]  # per seat: public card ids
    positions: list[int]  # per seat: track position 0..6
    skips: list[int]  # per seat: pending Pride skips
    split: list[list[str] | None]  # per seat: the 3 chosen public ids (secret until all confirmed)
    start: int | None  # the start player
    round: int  # the round number
    turn_index: int  # the active seat is ``(start + turn_index) % players``
    stage: str | None  # action | react | advance | sac_discard | grace_keep | refill_assign | draw_offer | …
    chance: Chance | None  # the chance request pending
    use: Use | None  # the declared USE while its Guardian windows run
    build: Build | None  # a USE half-declared by a state_version 1 log
    buffer: list[str]  # cards drawn by Grace / a refill, not yet placed (secret, owner = active)
    refill_a: int  # public slots to fill from ``buffer``
    turn: Turn  # the turn-scoped effects


ActionType = Literal["split", "use", "pick", "cancel", "guard", "allow", "advance", "stay", "pass", "discard",
                     "keep", "assign", "replace", "add", "lose", "no_draw", "draw", "start", "destroy"]
"""Every kind of Heaven action."""


class Action(TypedDict, total=False):
    """A Heaven action, the player's or chance's: its ``type`` and the keys that kind carries
    (``notation.describe_action`` spells each). ``use`` carries the whole declaration; the
    ``state_version`` 1 steps ``pick`` {key, value} and ``cancel`` replay old logs."""

    type: Required[ActionType]
    public: list[str]  # split: the 3 cards shown; assign: the buffer cards put in public
    card: str  # use, guard, add, replace, discard, lose; chance draw, destroy: a card id
    cards: list[str]  # keep: the Grace cards kept
    plan: Plan  # use: the whole declaration
    key: str  # pick (state_version 1): a parameter
    value: str | int  # pick (state_version 1): its value
    out: str  # replace: the public card given up
    seat: int  # chance start: the start player
