"""Pure rule helpers of The Road to Canterbury: queries on a state, never changes
(docs/rules/canterbury.md). Each cites the spec section it implements.

State shape (a JSON-ready dict, built by ``CanterburyEngine.new_game``):
``players``; ``options`` {edition}; ``active`` seat; ``lastrites_turn``; ``turn`` (count);
``hands`` [[card kind]] (sorted in card order); ``coins`` [int]; ``decks`` {deck: {kind:
copies}}; ``discards`` {deck: [kind]}; ``rows`` {row: [kind | None] × 3}; ``aside`` (Death
cards set aside during setup); ``parson`` sin | None; ``companies`` {colour: {pilgrim,
cards [{kind, up}], cubes [int], doomed, dead [{pilgrim, cubes}]}}; ``doom_order``
[colour]; ``circle`` [[sin]]; ``centre`` [int]; ``completions`` [seat]; ``road``
[[int] per seat] × 5; ``deaths``; ``tokens`` [int]; ``token_supply``; ``stack`` of frames
(the top one says who decides next, see ``engines/canterbury/engine.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from engines.base import Msg, msg, rank_seats, seat_ref, seats_ref
from engines.canterbury.data import (
    CARDS,
    COMPANIES,
    DECKS,
    DOOM_CARDS,
    HAND_SIZE,
    ORDER_INDEX,
    PASS_FINE,
    PILGRIMS,
    ROAD_VALUES,
    SOURCES,
    TABLES,
    TOKEN_VALUE,
    TURN_CAP,
    awards,
)
from engines.canterbury.types import Action, FinalScores, State

# --------------------------------------------------------------------------- cards


def hand_type(kind: str) -> str:
    """The card back (deck) of a kind: ``sin``, ``pardon`` or ``relic`` (§2.3, D19)."""
    return CARDS[kind].deck


def sort_cards(cards: Sequence[str]) -> list[str]:
    """Cards in the row order of the card data file (§11 display orders)."""
    return sorted(cards, key=lambda k: ORDER_INDEX[k])


def distinct(cards: Sequence[str]) -> list[str]:
    """The kinds among ``cards``, once each, in card order."""
    return sort_cards(list(dict.fromkeys(cards)))


def sin_on(kind: str, pilgrim_sin: str) -> str:
    """The sin of a card lying on a pilgrim (§2.3): a Sin card its own sin, a Death card
    or the Underpants the pilgrim's sin."""
    card = CARDS[kind]
    return card.sin if card.kind == "sin" else pilgrim_sin


def card_of(action: Action) -> str | None:
    """The hand card a ``sin``/``pardon``/``relic`` action plays (``sin-greed``), else None."""
    t = action.get("type")
    try:
        kind = f"{t}-{action['relic' if t == 'relic' else 'sin']}" if t in ("sin", "pardon", "relic") else None
    except (KeyError, TypeError):
        return None
    return kind if kind in CARDS else None


# --------------------------------------------------------------------------- board


def living(state: State) -> list[str]:
    """Companies with a living pilgrim, in display order (§2.2)."""
    return [c for c in COMPANIES if state["companies"][c]["pilgrim"] is not None]


def pilgrim_sin(state: State, company: str) -> str:
    """The sin of ``company``'s living pilgrim (§2.2)."""
    pilgrim = state["companies"][company]["pilgrim"]
    assert pilgrim is not None, company
    return PILGRIMS[pilgrim]


def pilgrim_deck(state: State) -> list[str]:
    """The pilgrim cards not yet drawn, in data order (§3 step 3, §5.8 step 7)."""
    used = {c["pilgrim"] for c in state["companies"].values()}
    used |= {d["pilgrim"] for c in state["companies"].values() for d in c["dead"]}
    return [p for p in PILGRIMS if p not in used]


def pardonable(state: State, company: str, sin: str) -> int:
    """How many face-up cards on ``company``'s pilgrim have ``sin`` there (§5.3 step 1)."""
    comp = state["companies"][company]
    if comp["pilgrim"] is None:
        return 0
    psin = pilgrim_sin(state, company)
    return sum(1 for card in comp["cards"] if card["up"] and sin_on(card["kind"], psin) == sin)


def pardon_coins(points: int) -> int:
    """Coins for pardon points (§2.5, D3): 1/4/9/16, capped at 16."""
    table: list[int] = TABLES["pardon_payout"]
    return table[min(points, len(table) - 1)]


def pardon_value(state: State, company: str, sin: str) -> int:
    """What a Pardon of ``sin`` on ``company`` pays now (§5.3 steps 2–3)."""
    return pardon_coins(pardonable(state, company, sin) + (1 if state["parson"] == sin else 0))


def dooms(state: State, company: str) -> bool:
    """True when one more card on ``company``'s pilgrim would doom it (§5.7)."""
    comp = state["companies"][company]
    return not comp["doomed"] and len(comp["cards"]) + 1 >= DOOM_CARDS


def circle_strength(state: State, seat: int) -> int:
    """Cubes on the 7 sin spaces + 7 × cubes in the centre (§2.6)."""
    return int(len(state["circle"][seat]) + TABLES["centre_weight"] * state["centre"][seat])


def deck_size(state: State, deck: str) -> int:
    """Cards left in a deck (face down)."""
    return int(sum(state["decks"][deck].values()))


def can_draw(state: State, deck: str) -> bool:
    """A deck or its discard pile holds a card (§5.10, D21)."""
    return deck_size(state, deck) + len(state["discards"][deck]) > 0


def source_ok(state: State, source: str) -> bool:
    """``draw <source>`` is possible (§5.1 ``draw``): hand < 5 and the slot holds a card /
    the deck or its discard pile holds a card."""
    if len(state["hands"][state["active"]]) >= HAND_SIZE:
        return False
    name, _, rest = source.partition("-")
    if rest.startswith("row:"):
        return state["rows"][name][int(rest[4:]) - 1] is not None
    return can_draw(state, name)


def sources(state: State) -> list[str]:
    """The available refill sources in panel order (§5.10)."""
    return [src for src in SOURCES if source_ok(state, src)]


def discard_limit(state: State) -> int:
    """How many cards a pass may discard (§2.6: 3 in 2021, any number in 2011)."""
    if state["options"]["edition"] == "2011":
        return len(state["hands"][state["active"]])
    return int(TABLES["pass_discard_limit_2021"])


def pass_fine(state: State) -> int:
    """The fine the active player pays for passing (§5.5): 3, or all they have."""
    return min(PASS_FINE, int(state["coins"][state["active"]]))


def discard_sets(state: State) -> list[list[str]]:
    """Every choice of cards to discard when passing (§5.5), smallest first, each a
    sorted list of hand cards (copies of a kind are interchangeable)."""
    hand = sort_cards(state["hands"][state["active"]])
    out: list[list[str]] = []
    for size in range(min(discard_limit(state), len(hand)) + 1):
        seen: set[tuple[str, ...]] = set()
        for combo in combinations(hand, size):
            if combo not in seen:
                seen.add(combo)
                out.append(list(combo))
    return out


def lastrites_allowed(state: State) -> bool:
    """T4 is offered (§5.9): a token held, and in 2021 not after a Last Rites turn."""
    seat = state["active"]
    return bool(state["tokens"][seat] > 0
                and (state["options"]["edition"] == "2011" or not state["lastrites_turn"]))


# --------------------------------------------------------------------------- deaths and the end


def death_winners(state: State, company: str) -> tuple[list[int], bool]:
    """Who scores ``company``'s dying pilgrim (§5.8 step 3, D12): the seats with most cubes,
    then most Sin cards in hand; and whether the Sin-card tie-break was used. Empty when
    nobody has a cube (§5.8 step 2)."""
    cubes = state["companies"][company]["cubes"]
    if sum(cubes) == 0:
        return [], False
    best = max(cubes)
    tied = [q for q in range(state["players"]) if cubes[q] == best]
    if len(tied) == 1:
        return tied, False
    sins = {q: sum(1 for c in state["hands"][q] if CARDS[c].kind == "sin") for q in tied}
    most = max(sins.values())
    return [q for q in tied if sins[q] == most], True


def is_over(state: State) -> bool:
    """The journey has ended (§8): the fifth pilgrim died, or the safety turn cap passed."""
    return bool(state["deaths"] >= len(ROAD_VALUES) or state["turn"] > TURN_CAP)


def place_awards(counts: Sequence[int], strength: Sequence[int], table: Sequence[int]) -> list[int]:
    """Majority awards (§8 "Placing players"): only players with ≥1 cube are placed;
    order by count then circle strength; equal players share the first award of their
    group and use up as many places. Returns the award per seat."""
    placed = sorted((s for s in range(len(counts)) if counts[s] > 0),
                    key=lambda s: (-counts[s], -strength[s]))
    out = [0] * len(counts)
    i = 0
    while i < len(placed):
        j = i
        key = (counts[placed[i]], strength[placed[i]])
        while j < len(placed) and (counts[placed[j]], strength[placed[j]]) == key:
            j += 1
        value = table[i] if i < len(table) else 0
        for s in placed[i:j]:
            out[s] = value
        i = j
    return out


def final_scores(state: State) -> FinalScores:
    """Final scoring (§8), from the board as it stands.

    Returns:
        ``{"coins", "road", "companies": {colour: [..]}, "tokens", "strength", "totals"}``
        (lists by seat: coins before scoring, each award, +3 per token, circle strength,
        totals), ``"ranking"`` (seats best first, ties by circle strength, D18) and
        ``"winners"`` (seats sharing the best total and strength).
    """
    n = state["players"]
    strength = [circle_strength(state, q) for q in range(n)]
    road = place_awards([sum(space[q] for space in state["road"]) for q in range(n)], strength,
                        awards("road_awards", n))
    companies: dict[str, list[int]] = {}
    for co in COMPANIES:
        comp = state["companies"][co]
        counts = [comp["cubes"][q] + sum(d["cubes"][q] for d in comp["dead"]) for q in range(n)]
        companies[co] = place_awards(counts, strength, awards("company_awards", n))
    tokens = [TOKEN_VALUE * state["tokens"][q] for q in range(n)]
    coins = [int(c) for c in state["coins"]]
    totals = [coins[q] + road[q] + sum(companies[co][q] for co in COMPANIES) + tokens[q] for q in range(n)]
    ranking = rank_seats(totals, strength)
    top = ranking[0]
    winners = [q for q in range(n) if totals[q] == totals[top] and strength[q] == strength[top]]
    return {"coins": coins, "road": road, "companies": companies, "tokens": tokens, "strength": strength,
            "totals": totals, "ranking": list(ranking), "winners": winners}


def end_reason(final: FinalScores) -> Msg:
    """Why the game ended as it did (§8 step 4, D18), from ``final_scores``: a shared win,
    a win on circle strength, or a clear win."""
    winners, totals, strength = final["winners"], final["totals"], final["strength"]
    top = final["ranking"][0]
    if len(winners) > 1:
        return msg("reason.shared", seats=seats_ref(winners), total=totals[top])
    if sum(1 for t in totals if t == totals[top]) > 1:
        return msg("reason.strength", seat=seat_ref(top), total=totals[top], strength=strength[top])
    return msg("reason.win", seat=seat_ref(top), total=totals[top])


def hand_counts(state: State, seat: int) -> dict[str, int]:
    """Public hand size per card back plus ``total`` (D19)."""
    hand = state["hands"][seat]
    return {y: sum(1 for k in hand if hand_type(k) == y) for y in DECKS} | {"total": len(hand)}
