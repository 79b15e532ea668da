"""Carnival of Sins rule helpers: pure functions of a state (spec docs/rules/carnival.md).

The geometry of the virtual table (§2.4, §2.6), the state accessors, what a state
implies without storing it (reveal order, this round's cards, the Devil holders, the
totals), the option lists of every sin (§5.3) and the round scoring (§8.1). Nothing here
changes a state. Imports only ``data.py`` (and ``engines.base`` types).

State layout (``state_version`` 2; JSON-ready)::

    game, state_version, players, options
    phase          "setup" | "roll" | "choose" | "resolve" | "wrath_chance" | "pride" | "over"
    round          1..7 (8 after the end)
    first_devil    seat that drew the Devil card at setup (None before ``first_devil``)
    reveal_index   how many cards of this round's reveal order are revealed
    hands          per seat: sins not yet revealed (public, §7; includes the face-down pick)
    played         per seat: sins revealed so far, in round order (public history, D24)
    picks          per seat: SECRET face-down pick of this round (None = not picked / revealed)
    random_pick    per seat: True when the pick was made by chance ``random_sin``
    random_pending seats whose R2 pick timed out and wait for chance ``random_sin``
    dice           {die id: {value, place "table"|"card", owner, pos [x, y] | None, zone | None}}
    penalties      per seat: Wrath off-table penalty this round (0 = none)
    throw          {target, aim} of the Wrath throw waiting for chance ``wrath_result``, or None
    pride_turn     index into the Pride players during R4, else None
    round_scores   per scored round: round score per seat (§8.1 step 5)

Derived (here, never stored): the reveal order, this round's revealed cards, the Devil
holder of every round (§8.1 step 4 applied to each scored round), the totals.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from engines.base import CHANCE, Seat, present
from engines.carnival.data import (
    BLACK,
    DICE,
    R_CARD,
    R_PLAY,
    R_SEAT,
    ROUNDS,
    SIZE,
    WHITE_DIE,
)
from engines.carnival.types import Die, Landing, RoundResult, State, Throw

IN_ROUND = ("choose", "reveal", "resolve", "wrath_chance", "pride", "scoring")
"""Phases between a round's roll and its scoring."""

# --------------------------------------------------------------------------- geometry


def round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero (spec §2.4)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def _point(k: int, n: int, radius: int) -> tuple[int, int]:
    angle = math.radians(-90.0 - 360.0 * k / n)
    return (round_half_away(radius * math.cos(angle)), round_half_away(radius * math.sin(angle)))


@functools.cache
def _points(n: int, radius: int) -> tuple[tuple[int, int], ...]:
    """The ``n`` points of ``_point`` on ``radius``, computed once per (n, radius) (the
    views, the undo check's shuffles and Sloth ask for them at every move)."""
    return tuple(_point(k, n, radius) for k in range(n))


def seat_points(n: int) -> list[tuple[int, int]]:
    """Seat points on the rim (radius R_seat, milli-units) for ``n`` seats (spec §2.4 table)."""
    return list(_points(n, R_SEAT))


def card_spots(n: int) -> list[tuple[int, int]]:
    """Card spots (radius R_card, milli-units) for ``n`` seats (spec §2.4 table)."""
    return list(_points(n, R_CARD))


def inside(x: int, y: int) -> bool:
    """True when (x, y) lies in the play area x²+y² ≤ R_play² (spec §2.4)."""
    return x * x + y * y <= R_PLAY * R_PLAY


def clip(x: int, y: int) -> tuple[int, int]:
    """Nudge a point outside the play area back onto its rim (spec §2.4 Clip):
    (trunc(x·850/r), trunc(y·850/r)). Points inside are returned unchanged."""
    if inside(x, y):
        return (x, y)
    r = math.sqrt(x * x + y * y)
    cx, cy = int(x * R_PLAY / r), int(y * R_PLAY / r)
    while not inside(cx, cy):  # float safety; never triggers in practice
        if abs(cx) >= abs(cy):
            cx -= 1 if cx > 0 else -1
        else:
            cy -= 1 if cy > 0 else -1
    return (cx, cy)


def dist2(a: Sequence[int], b: Sequence[int]) -> int:
    """Exact squared distance of two integer points (spec §2.4)."""
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def zone_names(n: int) -> list[str]:
    """Zones of the zone table: ``centre`` then ``seat0``…``seat<n-1>`` (spec §2.6)."""
    return ["centre"] + [f"seat{k}" for k in range(n)]


def zone_search_order(seat: Seat, n: int) -> list[str]:
    """Sloth's zone search order for ``seat`` (spec §2.6): own zone, centre, then the
    other seat zones by increasing distance, clockwise neighbour first."""
    out = [f"seat{seat}", "centre"]
    for d in range(1, n):
        for k in ((seat + d) % n, (seat - d) % n):
            z = f"seat{k}"
            if z not in out:
                out.append(z)
    return out


def zone_seat(zone: str) -> Seat | None:
    """The seat of zone ``seat<k>`` (``None`` for ``centre``)."""
    return int(zone[4:]) if zone.startswith("seat") else None


# --------------------------------------------------------------------------- accessors


def spatial(state: State) -> bool:
    """True for the spatial table (§2.4), False for the zone table (§2.6)."""
    return bool(state["options"]["table_model"] == "spatial")


def table_dice(state: State, include_white: bool = False) -> list[str]:
    """Dice lying on the table in size order: the black table dice (§2.1), and W too
    when ``include_white``."""
    ids = DICE if include_white else BLACK
    return [d for d in ids if state["dice"][d]["place"] == "table"]


def value(state: State, die: str) -> int:
    """The value ``die`` shows."""
    return int(state["dice"][die]["value"])


def card_owner(info: Die) -> Seat:
    """The seat whose card holds a die with ``place == "card"``."""
    return present(info["owner"], "a die on a card has an owner")


def pride_turn(state: State) -> int:
    """The index into the Pride players during R4 (``pride_turn`` is set then)."""
    return present(state["pride_turn"], "pride_turn is set in R4")


def throw(state: State) -> Throw:
    """The Wrath throw in the air (``throw`` is set in phase ``wrath_chance``)."""
    return present(state["throw"], "a Wrath throw is in the air")


def location(state: State, die: str) -> tuple[int, int]:
    """A die's location (spec §2.4): its position on the table, or its holder's card spot."""
    info = state["dice"][die]
    if info["place"] == "card":
        return _points(state["players"], R_CARD)[card_owner(info)]
    pos = info["pos"]
    assert pos is not None, die
    return (int(pos[0]), int(pos[1]))


def zone_of(state: State, die: str) -> str:
    """A die's zone (spec §2.6): its zone on the table, or ``seat<owner>`` when locked."""
    info = state["dice"][die]
    if info["place"] == "card":
        return f"seat{info['owner']}"
    return str(info["zone"])


def locked_dice(state: State, seat: Seat) -> list[str]:
    """The black dice on ``seat``'s card, in size order (spec §2.1 locked die)."""
    dice = state["dice"]
    return [d for d in BLACK if dice[d]["place"] == "card" and dice[d]["owner"] == seat]


def single_key(state: State, die: str) -> tuple[int, int]:
    """Sort key of single-die options: value, then size, both descending (spec §11)."""
    return (-value(state, die), -SIZE[die])


def sorted_pair(pair: Sequence[str]) -> list[str]:
    """An unordered pair written smaller die first (spec §5.1)."""
    return sorted(pair, key=SIZE.__getitem__)


def sorted_pairs(state: State, pairs: list[list[str]]) -> list[list[str]]:
    """Pairs by total descending, then larger die, then smaller die, both descending
    in size order (spec §11 button order)."""
    def key(p: list[str]) -> tuple[int, int, int]:
        return (-(value(state, p[0]) + value(state, p[1])), -SIZE[p[1]], -SIZE[p[0]])
    return sorted((sorted_pair(p) for p in pairs), key=key)


# --------------------------------------------------------------------------- derived facts


def rolled(state: State) -> bool:
    """True once the first roll of the game has happened (the dice have values)."""
    return not (state["phase"] == "setup" or (state["phase"] == "roll" and state["round"] == 1))


def dice_round(state: State) -> int:
    """The round the dice and cards on the table belong to: the current round from its
    roll to its scoring, then the round just scored until the next roll (0 before any)."""
    return int(state["round"]) if state["phase"] in IN_ROUND else int(state["round"]) - 1


def clockwise(first: Seat, n: int) -> list[Seat]:
    """Seats clockwise from ``first`` (spec §2.3): the reveal order when ``first`` holds
    the Devil (§4 R3)."""
    return [(first + i) % n for i in range(n)]


def next_devil(order: Sequence[Seat], cards: Sequence[str | None],
               scores: Sequence[int]) -> tuple[Seat, str]:
    """Who holds the Devil after a round and why (spec §8.1 step 4).

    Args:
        order: the round's reveal order.
        cards: each seat's card of the round.
        scores: each seat's round score.

    Returns:
        (seat, reason) with reason ``pride`` (one Pride player), ``last_pride`` (the last
        of several), ``lowest`` or ``lowest_tied`` (revealed last among the tied).
    """
    prides = [s for s in order if cards[s] == "pride"]
    if prides:
        return prides[-1], "pride" if len(prides) == 1 else "last_pride"
    low = min(scores)
    tied = [s for s in order if scores[s] == low]
    return tied[-1], "lowest" if len(tied) == 1 else "lowest_tied"


def devils(state: State) -> list[Seat]:
    """The Devil holder at the start of each round so far, and after the last scored
    round the holder of the next one: the setup draw, then §8.1 step 4 applied to each
    scored round (its cards are ``played[s][k]``, its scores ``round_scores[k]``).
    Empty before the setup draw."""
    first = state["first_devil"]
    if first is None:
        return []
    n = state["players"]
    out: list[Seat] = [int(first)]
    for k, scores in enumerate(state["round_scores"]):
        cards = [p[k] if k < len(p) else None for p in state["played"]]
        out.append(next_devil(clockwise(out[k], n), cards, scores)[0])
    return out


def holder(state: State) -> Seat | None:
    """The seat holding the Devil card now (None before the setup draw)."""
    chain = devils(state)
    return chain[-1] if chain else None


def round_devil(state: State) -> Seat | None:
    """This round's Devil holder, the roller (spec §4): during a round the holder; after
    its scoring, still that round's roller until the next roll."""
    r = dice_round(state)
    return devils(state)[r - 1] if r >= 1 else None


def order(state: State) -> list[Seat]:
    """This round's reveal order, clockwise from its Devil holder (spec §4 R3)."""
    h = round_devil(state)
    return [] if h is None or dice_round(state) < 1 else clockwise(h, state["players"])


def revealed(state: State) -> list[str | None]:
    """Each seat's revealed card of the dice round (None while face down or before it)."""
    r = dice_round(state)
    return [p[r - 1] if r >= 1 and len(p) >= r else None for p in state["played"]]


def pending(state: State) -> tuple[Seat, str] | None:
    """(seat, sin) of the R3 decision waiting (phase ``resolve``), else None: the seat
    whose card was revealed last resolves it (spec §4 R3)."""
    if state["phase"] != "resolve":
        return None
    seat = order(state)[state["reveal_index"]]
    return seat, state["played"][seat][-1]


def to_move(state: State) -> frozenset[Seat]:
    """Seats to act (spec §4): CHANCE for first_devil/roll/wrath/random_sin; every
    unpicked seat in R2; the resolving or Pride-picking seat; nobody at the end."""
    phase = state["phase"]
    if phase in ("setup", "roll", "wrath_chance"):
        return frozenset({CHANCE})
    if phase == "choose":
        if state["random_pending"]:
            return frozenset({CHANCE})
        return frozenset(s for s in range(state["players"]) if state["picks"][s] is None)
    if phase == "resolve":
        return frozenset({order(state)[state["reveal_index"]]})
    if phase == "pride":
        return frozenset({pride_players(state)[pride_turn(state)]})
    return frozenset()


def totals(state: State) -> list[int]:
    """Each seat's total: the sum of its round scores (spec §8.1 step 5)."""
    return [sum(r[s] for r in state["round_scores"]) for s in range(state["players"])]


def best_rounds(state: State) -> list[int]:
    """Each seat's best single round score (spec §8.2 tie-break; 0 before any round)."""
    return [max((r[s] for r in state["round_scores"]), default=0) for s in range(state["players"])]


def places(state: State) -> list[int]:
    """Each seat's final place, 1 = the winners (spec §8.2: total, then best single round;
    seats equal on both share a place, the next place skips as many): ``[1, 3, 2]``."""
    key = list(zip(totals(state), best_rounds(state), strict=True))
    return [1 + sum(1 for other in key if other > mine) for mine in key]


def picked(state: State, seat: Seat) -> bool:
    """True when ``seat`` has a card down or revealed this round (public, spec §7)."""
    if state["phase"] not in ("choose", "reveal", "resolve", "wrath_chance", "pride"):
        return False
    return (state["picks"][seat] is not None or revealed(state)[seat] is not None
            or state["round"] == ROUNDS)


# --------------------------------------------------------------------------- option lists (§5.3)


def greed_options(state: State) -> list[list[str]]:
    """Unordered pairs of table dice with equal values, §11 order (spec §5.3 Greed)."""
    table = table_dice(state)
    pairs = [[a, b] for i, a in enumerate(table) for b in table[i + 1:] if value(state, a) == value(state, b)]
    return sorted_pairs(state, pairs)


def gluttony_options(state: State) -> list[str]:
    """Table dice showing the maximum table value, larger die first (spec §5.3 Gluttony)."""
    table = table_dice(state)
    if not table:
        return []
    top = max(value(state, d) for d in table)
    return sorted((d for d in table if value(state, d) == top), key=lambda d: -SIZE[d])


def lust_options(state: State, seat: Seat) -> list[list[str]]:
    """Pairs {odd, even}: table dice or dice locked on another player's card, at least
    one from the table (spec §5.3 Lust, D14)."""
    dice = state["dice"]
    pool = [d for d in BLACK
            if dice[d]["place"] == "table" or (dice[d]["place"] == "card" and dice[d]["owner"] != seat)]
    pairs = [[a, b] for i, a in enumerate(pool) for b in pool[i + 1:]
             if (value(state, a) + value(state, b)) % 2 == 1
             and "table" in (dice[a]["place"], dice[b]["place"])]
    return sorted_pairs(state, pairs)


def sloth_spatial_die(state: State, seat: Seat) -> str | None:
    """The table die nearest to ``seat``'s seat point; ties → smaller die (spec §5.3, D6)."""
    table = table_dice(state)
    if not table:
        return None
    sp = _points(state["players"], R_SEAT)[seat]
    return min(table, key=lambda d: (dist2(location(state, d), sp), SIZE[d]))


def sloth_zone_options(state: State, seat: Seat) -> list[str]:
    """Table dice of the first zone in ``seat``'s search order holding one (spec §2.6, §5.3)."""
    table = table_dice(state)
    for zone in zone_search_order(seat, state["players"]):
        here = [d for d in table if state["dice"][d]["zone"] == zone]
        if here:
            return sorted(here, key=lambda d: single_key(state, d))
    return []


def sloth_options(state: State, seat: Seat) -> list[str]:
    """What Sloth may take: the nearest die (spatial, no choice) or the first zone's dice."""
    if spatial(state):
        die = sloth_spatial_die(state, seat)
        return [] if die is None else [die]
    return sloth_zone_options(state, seat)


def wrath_targets(state: State, seat: Seat) -> list[str]:
    """Black dice not on ``seat``'s card: locked dice first, then table dice, each by
    value then size descending (spec §5.1 wrath, §11 order)."""
    dice = state["dice"]
    cand = [d for d in BLACK if not (dice[d]["place"] == "card" and dice[d]["owner"] == seat)]
    locked = [d for d in cand if dice[d]["place"] == "card"]
    table = [d for d in cand if dice[d]["place"] == "table"]
    return sorted(locked, key=lambda d: single_key(state, d)) + sorted(table, key=lambda d: single_key(state, d))


def wrath_aims(state: State, target: str) -> list[str]:
    """Aims for ``target``: ``none`` then every other die (spatial), or ``none``,
    ``centre``, ``seat<k>`` (zones) — spec §5.1 wrath."""
    if spatial(state):
        return ["none"] + [d for d in DICE if d != target]
    return ["none"] + zone_names(state["players"])


def aim_landing(state: State, aim: str) -> tuple[int, int] | str:
    """The nominal landing of an aim: the aim die's location (spatial) or the zone."""
    return location(state, aim) if spatial(state) else aim


def knock_candidates(state: State, target: str, landing: Landing | tuple[int, int]) -> list[str]:
    """Dice that may be knocked by a throw of ``target`` landing at ``landing`` (a
    point, spatial) or into zone ``landing`` (zones), in size order — spec §6 wrath step 5."""
    if spatial(state):
        assert not isinstance(landing, str), "a spatial landing is a point"
        r2 = state["options"]["wrath_knock_radius"] ** 2
        return [d for d in DICE if d != target and dist2(location(state, d), landing) <= r2]
    return [d for d in DICE if d != target and zone_of(state, d) == landing]


def pride_players(state: State) -> list[Seat]:
    """Pride players of this round in reveal order (spec §5.3 Pride)."""
    cards = revealed(state)
    return [s for s in order(state) if cards[s] == "pride"]


# --------------------------------------------------------------------------- scoring (§8.1)


def base_scores(state: State) -> tuple[list[int], list[int]]:
    """(base score per seat, Envy copy source or -1) — spec §8.1 steps 1–2 (D17, D18)."""
    n = state["players"]
    cards = revealed(state)
    base = [0] * n
    for s in range(n):
        if cards[s] == "wrath":
            base[s] = -state["penalties"][s]
        elif cards[s] != "envy":
            base[s] = sum(value(state, d) for d in locked_dice(state, s))
    h = round_devil(state)
    copy_from = [-1] * n
    for s in range(n):
        if cards[s] == "envy" and h is not None:
            base[s] = 0 if cards[h] == "envy" else base[h]
            copy_from[s] = h
    return base, copy_from


def round_result(state: State) -> RoundResult:
    """The scoring of the dice round (spec §8.1): ``base``, ``copy_from`` (Envy source or
    -1), ``white`` (W's value), ``bonus`` per seat (D19), ``scores`` per seat, ``next``
    (the next Devil holder) and ``why`` (see ``next_devil``)."""
    base, copy_from = base_scores(state)
    white = value(state, WHITE_DIE)
    low = min(base)
    bonus = [white if b == low else 0 for b in base]
    scores = [b + w for b, w in zip(base, bonus, strict=True)]
    nxt, why = next_devil(order(state), revealed(state), scores)
    return {"base": base, "copy_from": copy_from, "white": white, "bonus": bonus, "scores": scores,
            "next": nxt, "why": why}
