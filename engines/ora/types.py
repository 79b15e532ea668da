"""Ora et Labora state and action types (spec docs/rules/ora.md; ``flow.new_state`` builds the
state, ``flow``'s docstring tells how it moves). Plain JSON-ready dicts, typed for the checker
only: the keys are short because every stored game and every replay step carries them."""

from __future__ import annotations

from typing import NotRequired, Required, TypedDict

Space = list[str | None]
"""One landscape space: ``[terrain, card, piece]`` (§2.4): ``terrain`` a terrain id, ``card``
``"forest"``/``"moor"``/None, ``piece`` a building or settlement id or None. A space list is
replaced, never changed in place (``rules.set_space``; states share them)."""

Land = dict[str, Space]
"""A landscape: ``"x,y"`` → its space (a mountain is one space keyed by its top row)."""

Goods = dict[str, int]
"""Good id → count (``coin`` is the money count, G2)."""

Position = list[int | str]
"""Where a clergyman stands: ``[owner, "x,y"]`` (the owner of the landscape, the key of the
space)."""

QueueItem = list[str | int]
"""What comes next in a unit: ``["window", seat, kind]``, ``["settle", seat]``, ``["phase_end"]``,
``["neutral_build"]``, ``["neutral_recall"]``, ``["unit_end"]`` or ``["end"]``."""

Requirement = list[str | float | None]
"""One step of a payment: ``[kind, amount, after]``: ``kind`` ``forest``/``different`` (a count
of forest cards or of different goods; ``after`` the last card key or good given, None before)
or a value kind ``food``/``energy``/``points`` (``[kind, amount]``, the value still owed)."""

Pick = str | list[str | bool] | dict[str, int] | None
"""One pick of a ``do`` choice: a good (``choice``, ``basic``, ``joker`` terms), ``[good, joker]``
(``wheel`` term) or a set of point goods (``points`` term, D40); None stands for a point set in
comparisons only."""


class Options(TypedDict):
    """The table options (``data.OPTIONS``), coerced by ``new_game``."""

    variant: str  # "france" | "ireland"
    mode: str  # "standard" | "long" | "short"
    short4_remove_quarry_c: bool  # short 4-player game without Quarry (C), D37
    round_tower_dwelling: int  # 2 | 9 (D1)
    two_player_turn_cap: int  # 60 | 100 (D38)
    start_player: str  # "random" | "host" (D39)
    wc_reply_timeout: int  # seconds for a work-contract answer; 0 = the move timer
    done_grace: int  # seconds a window stays open after the main action
    display_end_checked_by_host: NotRequired[bool]  # set only by the kennerspiel importer (K18)


class Player(TypedDict):
    """A landscape owner: a seat, or the solo neutral player (the last one)."""

    goods: Goods
    clergy: list[Position | None]  # the prior first, then the lay brothers; None = home (§2.8)
    land: Land
    bought: int  # the unit of the last landscape bought in an action window (-1: none)


class Window(TypedDict):
    """The open window: whose it is, its kind, whether its main action is taken, the buildings
    used in it (chain guard FR10, ``flow.used_key``) and, in a settlement turn, whether a
    landscape was bought."""

    seat: int
    kind: str  # "action" | "bonus" | "settle" | "neutral"
    main: bool
    used: list[str]
    bought: bool


class Frame(TypedDict, total=False):
    """A pending decision on the stack (last on top), by its kind ``f``:

    * ``use`` {u, o, b, i, prev}: a building function, part ``i`` next; ``prev``: the part
      before was done (FR3).
    * ``pay`` {u, req, res, sp, act, ctx}: a payment in steps: what is still owed (``req``),
      the goods taken so far (``res``, given back on skip), the forest spaces given (``sp``),
      the action it pays for and its ``ctx`` (``part`` or ``settle``).
    * ``assign`` {o, u, b, k}: the work-contract answer of owner ``o`` (§5.2).
    * ``prior`` {u, b, k}: the prior bonus after a build.
    * ``borrow`` {u, t, o, b}: USE_OTHER of target kind ``t`` from building ``b`` of ``o``.
    * ``build``, ``settle`` {u}; ``fellcut``, ``take`` {u, left}: the verbs or tiles left.
    * ``neutral`` {placed}, ``nprior`` {placed}: the solo neutral build and its prior.
    """

    f: Required[str]
    u: int  # the deciding user
    o: int  # an owner (-1: the display)
    b: str  # a building id
    k: str  # a space key
    i: int  # use: the part to decide
    prev: bool  # use: the previous part was done
    req: list[Requirement]  # pay: the steps still owed
    res: Goods  # pay: the goods taken so far
    sp: list[str]  # pay: the forest spaces given
    act: Action  # pay: the action paid for
    ctx: str  # pay: "part" | "settle"
    t: str  # borrow: "display" | "neighbour" | "prior" | "occupied"
    left: list[str]  # fellcut: verbs left; take: tiles left
    placed: list[str]  # neutral, nprior: buildings placed for the neutral player


class State(TypedDict):
    """An Ora et Labora state (``state_version`` 1)."""

    game: str  # "ora"
    state_version: NotRequired[int]  # 1 (set by ``new_game`` after ``flow.new_state``)
    mode: str  # the mode code, "std4" … "sh4" (§4)
    variant: str  # "france" | "ireland"
    n: int  # players
    opts: Options
    s0: int | None  # round-1 start seat (None until the CHANCE outcome, §6)
    unit: int  # the current round (turn in two_player)
    phase: int  # settlement phases completed (0–5)
    last: bool  # the two-player last turn is under way (§4.5)
    over: bool
    wheel: dict[str, int]  # indicator → age (absent: not in play, §2.3)
    display: list[str]  # building ids (§2.5)
    pl: list[Player]  # per owner: the seats, then the solo neutral player
    queue: list[QueueItem]  # what comes next in this unit
    win: Window | None  # the open window
    stack: list[Frame]  # pending decisions, last on top


class Action(TypedDict, total=False):
    """An Ora action, the player's or chance's: its ``type`` and the keys
    that kind carries. Chance: ``start_player`` {seat}. Main actions: ``place`` {b, c},
    ``contract`` {owner, b, gift?}, ``bonus`` {owner, b}, ``fell_trees`` / ``cut_peat``
    {x, y, joker} (bare without a card), ``build`` {b, x, y}, ``pass``. Free: ``flip_grain`` /
    ``sell_wine`` / ``sell_whiskey`` {n}, ``buy_district`` / ``buy_plot`` {side, y}. Decisions:
    ``settle`` {s, x, y}, ``do`` {n, pick?} or {alts}, ``wheel`` {good, joker}, ``pay``
    {goods}, ``add`` {good, n}, ``pick`` {good}, ``forest`` {x, y}, ``assign`` {c},
    ``prior``, ``borrow`` {owner, b}, ``take_district`` / ``take_plot`` {side, y},
    ``neutral`` {b, x, y}, ``neutral_prior`` {b, gift?}, ``skip``, ``done``."""

    type: Required[str]
    seat: int  # start_player
    b: str  # a building id
    c: str  # place, assign: "prior" | "lay"
    owner: int  # contract, bonus, borrow: the landscape owner (-1: the display)
    gift: bool  # contract, neutral_prior: pay with the gift good instead of coins
    x: int
    y: int  # a space, or a tile's top row
    joker: bool  # fell_trees, cut_peat, wheel: the joker indicator
    n: int  # a count
    side: str  # buy_*, take_*: the tile's side
    s: str  # settle: the settlement id
    good: str  # wheel, add, pick
    goods: Goods  # pay: the bundle
    alts: list[int]  # do: the alternatives chosen, by index
    pick: list[Pick]  # do: one pick per pick term of the part


# --------------------------------------------------------------------------- views (view.py builds them)


class WheelView(TypedDict):
    """One production-wheel indicator in play (§2.3): ``good`` (or ``joker``), ``age``
    0–12 and its ``value`` now; ``next`` is its value after the next rotation."""

    good: str
    age: int
    value: int
    next: int


class ClergyView(TypedDict):
    """A clergyman on a building: whose (``seat``, the neutral player's index in solo) and
    ``kind`` (``prior``/``lay``)."""

    seat: int
    kind: str


class SpaceView(TypedDict):
    """One landscape space (§2.4): coordinates as typed commands use them, ``terrain``,
    ``card`` (``forest``/``moor``/None), ``piece`` (building or settlement id or None),
    ``clergy`` standing there. A mountain (x = 6) covers rows ``y`` and ``y + 1``."""

    x: int
    y: int
    terrain: str
    card: str | None
    piece: str | None
    clergy: list[ClergyView]


class ScoreView(TypedDict):
    """Live score (§8): ``goods`` (point goods, Wonders, money), ``economic``,
    ``settlements``, ``total``."""

    goods: int
    economic: int
    settlements: int
    total: int


class PlayerView(TypedDict):
    """One landscape owner: a seat, or the solo neutral player (``neutral`` True; no goods,
    no score). ``home`` counts clergy at home by kind; ``supply`` lists settlement cards not
    yet placed; ``spaces`` are sorted by (y, x); ``bought`` is True when the owner's landscape
    purchase of this round/turn is used."""

    seat: int
    neutral: bool
    goods: dict[str, int]
    home: dict[str, int]
    clergy_total: dict[str, int]
    spaces: list[SpaceView]
    supply: list[str]
    score: ScoreView
    bought: bool


class PileView(TypedDict):
    """A shared landscape pile (§2.4): the next ``price`` (None when empty) and ``left``."""

    price: int | None
    left: int


class PhaseView(TypedDict):
    """The next settlement phase: its ``letter`` and the ``unit`` whose start holds it."""

    letter: str
    unit: int


class EnteringView(TypedDict):
    """An indicator still to enter the wheel: its ``good`` and the ``unit`` it enters in."""

    good: str
    unit: int


class PendingView(TypedDict):
    """The decision the game waits for: ``seat`` (None: chance or over), ``kind`` (a window
    kind ``action``/``bonus``/``settle``/``neutral`` or a frame ``use``/``pay``/``assign``/
    ``prior``/``borrow``/``build``/``settle``/``fellcut``/``take``/``neutral``/``nprior``),
    ``building`` concerned (or None), ``main_done`` for an action window, and which action window
    of its owner in this round or turn it is (``nth`` of ``of``: ``notation.window_number``)."""

    seat: int | None
    kind: str
    building: str | None
    main_done: bool
    nth: int
    of: int


class PublicView(TypedDict):
    """Everything (§7): ``mode`` code (``std4`` … ``sh4``), ``family`` (spec mode name),
    ``variant``, ``players``, ``unit`` (round, or turn in ``2p``) and ``unit_kind``,
    ``regular_units`` (None: open-ended), ``bonus_round``, ``start_player``,
    ``phases_done`` (0–4), ``next_phase`` (letter and the unit whose start holds it, or
    None), ``contract_price``, ``wheel_side`` (``front``/``back``) with ``wheel`` entries,
    ``entering`` (indicators still to enter: good and unit), ``display`` (building ids in
    order), ``piles``, ``owners`` (seats, then the neutral player), ``pending``,
    ``last_turn`` (two-player end announced), ``over``, ``scores`` per seat."""

    game: str
    mode: str
    family: str
    variant: str
    players: int
    unit: int
    unit_kind: str
    regular_units: int | None
    bonus_round: bool
    start_player: int | None
    phases_done: int
    next_phase: PhaseView | None
    contract_price: int
    wheel_side: str
    wheel: list[WheelView]
    entering: list[EnteringView]
    display: list[str]
    piles: dict[str, PileView]
    owners: list[PlayerView]
    pending: PendingView
    last_turn: bool
    over: bool
    scores: list[int]


class TargetView(TypedDict):
    """A numbered place of the seat's pending decision (``notation.targets``): ``n`` as the
    labels say it, on ``owner``'s landscape at (``x``, ``y``); ``slot``: the kind of landscape
    card (``district``, ``coast``, ``mountain``) a purchase or a taken card would put there
    (``notation.slot``: a slot beside the landscape, its column and top row), None for a space."""

    n: int
    owner: int
    x: int
    y: int
    slot: str | None


class PrivateView(PublicView):
    """The public view plus ``seat`` (whose view it is) and ``targets``: the numbered places of
    the seat's pending decision (empty when the seat does not decide or picks no place)."""

    seat: int
    targets: list[TargetView]
