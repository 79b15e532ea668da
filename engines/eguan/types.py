"""E Guan state and action types (docs/rules/eguan.md; the layout is described in
``engine``'s docstring). Plain JSON-ready dicts, typed for the checker only."""

from __future__ import annotations

from typing import Literal, NotRequired, Required, TypedDict


class Options(TypedDict):
    """The table options (``engine.EguanEngine.info.options``)."""

    end_rule: str  # when the game ends after the last card is drawn (spec §8)


class Pile(TypedDict):
    """Cards passed to a seat in a round."""

    round: int  # the round they were passed in
    cards: list[str]  # card ids


class Kept(TypedDict):
    """A seat's secret kept card."""

    card: str  # card id
    turn: int  # the turn it was kept on


class RemovedCard(TypedDict):
    """A card taken off a board (face up)."""

    seat: int  # whose board it left
    card: str  # card id


class Pending(TypedDict):
    """The step the active seat is in (``None`` between turns)."""

    step: str  # "refill" | "main" | "roll" | "adjust" | "draw_kept" | "place" | an effects.DECISIONS step
    card: NotRequired[str]  # place: the card being placed
    purpose: NotRequired[str]  # place: "main" | "extra" | "move"


class Die(TypedDict):
    """This turn's trouble die."""

    roll: int  # the face rolled
    value: int  # the face after an adjustment


class Trigger(TypedDict):
    """When the last card was drawn (spec §8)."""

    round: int
    seat: int


Placed = list[str | int]
"""A card on a board: [card id, anchor 1-9, rotation 0|180]."""


class State(TypedDict):
    """An E Guan state (``state_version`` 2)."""

    game: str  # "eguan"
    state_version: int  # 2
    players: int  # number of seats
    options: Options  # the table options
    phase: str  # "deal" | "skill" | "start" | "play" | "over"
    deck: list[str]  # sorted card ids still in the deck (secret; draws are uniform)
    hands: list[list[str]]  # per seat: card ids in hand (secret)
    piles: list[list[Pile]]  # per seat: cards passed to it
    kept: list[Kept | None]  # per seat: its secret kept card
    removed_kept: list[list[str]]  # per seat: ids of its kept cards removed (secret)
    infamy: list[int]  # per seat
    skills: list[str | None]  # per seat: skill set "A".."D" (secret until all chose)
    boards: list[list[Placed]]  # per seat: stack of placed cards, lowest first
    removed_cards: list[RemovedCard]  # cards taken off boards (face up)
    start_player: int | None  # the seat that starts each round
    round: int  # 0 before play
    turn_index: int  # position in the round
    pending: Pending | None  # the active seat's step
    die: Die | None  # this turn's trouble die
    trigger: Trigger | None  # the draw of the last card


class Action(TypedDict, total=False):
    """An E Guan action, the player's or chance's: its ``type`` and the keys that kind carries.

    Players: ``skill`` {set}, ``select`` {card} (play a hand card), ``select_kept`` {}, ``keep``
    {card}, ``pass`` {}, ``place`` {anchor, rot}, ``back`` {}, ``adjust`` {delta}, and the
    effects' decisions: ``target`` {seat}, ``remove`` {seat, card}, ``move`` {card}, ``skip`` {}.
    Chance: ``draw`` {card}, ``start`` {seat}, ``roll`` {value}.
    """

    type: Required[Literal["skill", "select", "select_kept", "keep", "pass", "place", "back", "adjust",
                           "target", "remove", "move", "skip", "draw", "start", "roll"]]
    set: str  # skill: the skill set "A".."D"
    card: str  # select, keep, remove, move, draw: a card id
    seat: int  # target, remove: the seat aimed at; start: the start player
    anchor: int  # place: the anchor 1-9
    rot: int  # place: the rotation 0 or 180
    delta: int  # adjust: -1, 0 or +1 on the die
    value: int  # roll: the die's face


class ScoreTable(TypedDict):
    """Final scoring (``rules.score_table``, spec §8): Infamy, the title bonuses by resource,
    each seat's title keys, scores, title cards, the winners (sorted) and the seats best first."""

    infamy: list[int]
    bonus: dict[str, list[int]]
    titles: list[list[str]]
    scores: list[int]
    title_cards: list[int]
    winners: list[int]
    ranking: list[int]
