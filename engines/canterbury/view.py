"""What each seat may see in The Road to Canterbury (docs/rules/canterbury.md §7, §11).

``player_view(state, None)`` is the public board (``PublicView``: no hand, no coins, no
deck contents); ``player_view(state, seat)`` adds that seat's hand, coins, the payout
each Pardon would earn now and, while it keeps one, the cards St. Isidore showed it
(``PrivateView``). What St. Benedict or St. Isidore showed earlier is in the seat's own
log (events visible to it), not in the view. ``shuffle_hidden`` changes only what a
seat cannot see, for the no-leak conformance test. Renderers take these TypedDicts.
"""

from __future__ import annotations

import random
from typing import NotRequired, TypedDict, cast

from engines.base import JSONObject, Seat, copy_state
from engines.canterbury.data import CARDS, COMPANIES, DECKS, PILGRIMS, ROAD_VALUES, ROWS
from engines.canterbury.rules import (
    circle_strength,
    deck_size,
    distinct,
    end_reason,
    final_scores,
    hand_counts,
    hand_type,
    is_over,
    living,
    pardon_value,
    pardonable,
    pilgrim_deck,
    sort_cards,
)
from engines.canterbury.types import FinalScores, State


class CardOnPilgrim(TypedDict):
    """A card lying on a pilgrim: its kind and whether it is face up (unpardoned)."""

    kind: str
    up: bool


class DeadPilgrim(TypedDict):
    """A pilgrim on a company's dead pile with the cubes left on it."""

    pilgrim: str
    cubes: list[int]


class CompanyView(TypedDict):
    """One company (§2.2): its living pilgrim id and sin (None between a death and the
    next pilgrim, and after the end), cards in play order, ``count`` of them, doom, cubes
    per seat, dead pile."""

    pilgrim: str | None
    sin: str | None
    cards: list[CardOnPilgrim]
    count: int
    doomed: bool
    cubes: list[int]
    dead: list[DeadPilgrim]


class FinalView(FinalScores):
    """Final scoring (§8; ``rules.final_scores``) plus ``reason``, a ``Msg`` as JSON."""

    reason: JSONObject


class PublicView(TypedDict):
    """The public board (§7 "Board" row, §11 "Board image").

    ``step`` names what the active player is deciding: ``play``, ``followup``, ``vitus``,
    ``give``, ``keep``, ``parson``, ``refill``, ``lastrites``, ``chance`` or ``over``.
    ``in_play``: relics being resolved. ``hand_counts``: per seat {sin, pardon, relic,
    total}. ``final``: None until the end.
    """

    game: str
    players: int
    edition: str
    active: int
    lastrites_turn: bool
    turn: int
    step: str
    to_move: list[int]
    in_play: list[str]
    parson: str | None
    circle: list[list[str]]
    centre: list[int]
    circle_strength: list[int]
    completions: list[int]
    companies: dict[str, CompanyView]
    doom_order: list[str]
    road: list[list[int]]
    road_values: list[int]
    deaths: int
    rows: dict[str, list[str | None]]
    deck_sizes: dict[str, int]
    discards: dict[str, list[str]]
    pilgrim_deck: int
    hand_counts: list[dict[str, int]]
    tokens: list[int]
    token_supply: int
    over: bool
    final: FinalView | None


class PardonOption(TypedDict):
    """A Pardon the seat holds that is playable now, with what it would pay (§11)."""

    sin: str
    company: str
    cards: int
    coins: int


class PrivateView(PublicView):
    """The public board plus one seat's secrets (§7)."""

    seat: int
    hand: list[str]
    coins: int
    pardon_options: list[PardonOption]
    isidore_drawn: NotRequired[list[str]]


_STEPS = {"play": "play", "give": "give", "isidore": "keep", "philip": "parson"}
_PLAY_STEPS = {"main": "play", "followup": "followup", "vitus": "vitus"}
_TURN_STEPS = {"t2": "refill", "t4": "lastrites"}


def _step(state: State) -> str:
    if is_over(state):
        return "over"
    top = state["stack"][-1] if state["stack"] else None
    if top is None or top["f"] == "chance":
        return "chance"
    if top["f"] == "play":
        return _PLAY_STEPS[top["ctx"]]
    if top["f"] == "turn":
        return _TURN_STEPS.get(top["stage"], "")
    return _STEPS.get(top["f"], "")


def _company(state: State, co: str) -> CompanyView:
    comp = state["companies"][co]
    pid = comp["pilgrim"]
    return {
        "pilgrim": pid,
        "sin": PILGRIMS[pid] if pid else None,
        "cards": [{"kind": c["kind"], "up": c["up"]} for c in comp["cards"]],
        "count": len(comp["cards"]),
        "doomed": comp["doomed"],
        "cubes": list(comp["cubes"]),
        "dead": [{"pilgrim": d["pilgrim"], "cubes": list(d["cubes"])} for d in comp["dead"]],
    }


def final_view(state: State) -> FinalView | None:
    """The final scoring with its reason, or None while the game goes on."""
    if not is_over(state):
        return None
    f = final_scores(state)
    return {"coins": f["coins"], "road": f["road"], "companies": f["companies"], "tokens": f["tokens"],
            "strength": f["strength"], "totals": f["totals"], "ranking": f["ranking"], "winners": f["winners"],
            "reason": end_reason(f).to_json()}


def public_view(state: State, to_move: list[int]) -> PublicView:
    """The public board (``to_move``: the seats the engine waits for, sorted)."""
    n = state["players"]
    return {
        "game": state["game"],
        "players": n,
        "edition": state["options"]["edition"],
        "active": state["active"],
        "lastrites_turn": state["lastrites_turn"],
        "turn": state["turn"],
        "step": _step(state),
        "to_move": to_move,
        "in_play": [f["card"] for f in state["stack"] if f["f"] == "discard_relic"],
        "parson": state["parson"],
        "circle": [list(c) for c in state["circle"]],
        "centre": list(state["centre"]),
        "circle_strength": [circle_strength(state, q) for q in range(n)],
        "completions": list(state["completions"]),
        "companies": {co: _company(state, co) for co in COMPANIES},
        "doom_order": list(state["doom_order"]),
        "road": [list(r) for r in state["road"]],
        "road_values": list(ROAD_VALUES),
        "deaths": state["deaths"],
        "rows": {r: list(state["rows"][r]) for r in ROWS},
        "deck_sizes": {d: deck_size(state, d) for d in DECKS},
        "discards": {d: list(state["discards"][d]) for d in DECKS},
        "pilgrim_deck": len(pilgrim_deck(state)),
        "hand_counts": [hand_counts(state, q) for q in range(n)],
        "tokens": list(state["tokens"]),
        "token_supply": state["token_supply"],
        "over": is_over(state),
        "final": final_view(state),
    }


def player_view(state: State, seat: Seat | None, to_move: list[int]) -> PublicView | PrivateView:
    """The view of ``seat`` (None: the public), see the module docstring."""
    public = public_view(state, to_move)
    if seat is None or not 0 <= seat < state["players"]:
        return public
    hand = state["hands"][seat]
    options: list[PardonOption] = [] if is_over(state) else [
        {"sin": CARDS[k].sin, "company": co, "cards": pardonable(state, co, CARDS[k].sin),
         "coins": pardon_value(state, co, CARDS[k].sin)}
        for k in distinct(hand) if CARDS[k].kind == "pardon"
        for co in living(state) if pardonable(state, co, CARDS[k].sin)
    ]
    view = cast(PrivateView, {**public, "seat": seat, "hand": list(hand), "coins": state["coins"][seat],
                              "pardon_options": options})
    top = state["stack"][-1] if state["stack"] else None
    if top is not None and top["f"] == "isidore" and seat == state["active"]:
        view["isidore_drawn"] = list(top["drawn"])
    return view


def shuffle_hidden(state: State, seat: Seat | None, rng: random.Random) -> State:
    """Swap other players' hand cards with unseen deck cards of the same back and change
    their coins (§7); ``seat``'s view is unchanged. Coins are public once the game is over."""
    s = copy_state(state)
    top = s["stack"][-1] if s["stack"] else None
    locked = list(top.get("pass_discards", [])) if top is not None else []
    for q in range(s["players"]):
        if q == seat:
            continue
        if not is_over(s):
            s["coins"][q] = rng.randrange(0, 60)
        keep = list(locked) if q == s["active"] else []
        new_hand: list[str] = []
        for k in s["hands"][q]:
            if k in keep:
                keep.remove(k)
                new_hand.append(k)
                continue
            deck = s["decks"][hand_type(k)]
            pool = sort_cards([x for x, v in deck.items() for _ in range(v) if CARDS[x].kind != "death"])
            if pool and rng.random() < 0.7:
                pick = pool[rng.randrange(len(pool))]
                deck[pick] -= 1
                if deck[pick] == 0:
                    del deck[pick]
                deck[k] = deck.get(k, 0) + 1
                new_hand.append(pick)
            else:
                new_hand.append(k)
        s["hands"][q] = sort_cards(new_hand)
    return s


def reveals(before: State, after: State) -> bool:
    """Whether a move from ``before`` to ``after`` showed a hidden card (§7: each hand is its
    owner's secret): some hand lost a card (played, discarded on a pass or by St. Bernard,
    given by St. Benedict)."""
    for old, new in zip(before["hands"], after["hands"], strict=True):
        left = list(new)
        for card in old:
            if card in left:
                left.remove(card)
            else:
                return True
    return False
