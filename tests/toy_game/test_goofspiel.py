"""Goofspiel, the test's own game (SPEC.md), hosted by one line (``conftest.py``): its rules
and notation, then a whole game through the offline Discord: ``/game new`` → Join → Start →
both players bid by the panel's buttons → the result posted. Nothing of it is in the
production code: its engine, notation, renderer, AI hook and text file are in this folder."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.sandbox.fakecord import iter_components
from bot.text import Texts
from cogs.base import cog_class
from engines.ai import choose
from engines.base import CHANCE, Action, NotYourTurn
from engines.registry import ENGINES, GAMES, NOTATIONS
from render import registry as renders
from tests.e2e.driver import Driver, rig_chance
from tests.toy_game import ENGINE, NOTATION

JSONDict = dict[str, Any]


def play(state: dict[str, Any], *moves: tuple[int, Action]) -> dict[str, Any]:
    for seat, action in moves:
        state, _ = ENGINE.apply(state, seat, action)
    return state


def prize(card: int) -> tuple[int, Action]:
    return CHANCE, {"type": "prize", "card": card}


def bids(a: int, b: int) -> tuple[tuple[int, Action], tuple[int, Action]]:
    return (0, {"type": "bid", "card": a}), (1, {"type": "bid", "card": b})


def test_the_one_line_hosts_it_beside_the_six() -> None:
    assert list(ENGINES)[-1] == "goofspiel" and len(ENGINES) == 7
    assert GAMES["goofspiel"].notation is NOTATIONS["goofspiel"] is NOTATION
    assert renders.module("goofspiel").__name__ == "tests.toy_game.board"
    assert cog_class("goofspiel").__cog_group_name__ == "goofspiel"
    assert Texts(None, []).template("ui.game.goofspiel") == "Goofspiel"


def test_the_higher_bid_takes_the_prize_and_a_tie_takes_nothing() -> None:
    state = play(ENGINE.new_game(2, 1, {"cards": 3}), prize(3), *bids(2, 1), prize(1), *bids(3, 3))
    assert state["points"] == [3, 0] and state["hands"] == [[1], [2]] and state["prize"] is None
    state = play(state, prize(2), *bids(1, 2))
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.scores == (3.0, 2.0) and outcome.winners == frozenset({0})
    assert Texts("goofspiel", ["Ann", "Bo"])(outcome.reason) == "Ann wins with 3 points against Bo with 2."


def test_a_bid_is_secret_until_both_are_in() -> None:
    state = play(ENGINE.new_game(2, 1, {}), prize(4))
    after, events = ENGINE.apply(state, 0, {"type": "bid", "card": 5})
    assert ENGINE.player_view(after, None)["has_bid"] == [True, False] and "bid" not in ENGINE.player_view(after, None)
    assert ENGINE.player_view(after, 0)["bid"] == 5 and ENGINE.player_view(after, 1)["bid"] is None
    assert [(e.kind, e.visible_to) for e in events] == [("bid_made", frozenset({0})), ("bid", None)]
    assert ENGINE.to_move(after) == frozenset({1})
    with pytest.raises(NotYourTurn):
        ENGINE.apply(after, 0, {"type": "bid", "card": 1})
    assert choose(ENGINE, after, 1, "easy", random.Random(1)) in ENGINE.legal_actions(after, 1)


def test_notation_labels_and_prompts() -> None:
    state = play(ENGINE.new_game(2, 1, {}), prize(4))
    tx = Texts("goofspiel", ["Ann", "Bo"], strict=True)
    assert [NOTATION.describe_action(state, a) for a in ENGINE.legal_actions(state, 1)] == [
        "bid 1", "bid 2", "bid 3", "bid 4", "bid 5"]
    assert NOTATION.parse_action(state, 1, "  BID 3 ") == {"type": "bid", "card": 3}
    assert tx(NOTATION.action_label(state, {"type": "bid", "card": 3})) == "Bid 3"
    assert tx(NOTATION.prompt(state, 0)) == "Round 1: bid a card for the prize 4."
    assert NOTATION.rules_text().startswith("**Goofspiel**")


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    return rig_chance(monkeypatch, ENGINE)


async def bid(driver: Driver, user: JSONDict, game: int, card: int) -> None:
    """Press Play ▶ on the board, then the panel's ``Bid <card>`` button."""
    panel = await driver.open_panel(user, game)
    buttons = {c["label"]: c["custom_id"] for c in iter_components(panel["components"]) if c.get("label")}
    await driver.pick(user, panel, ("button", buttons[f"Bid {card}"], None))


async def test_a_whole_game_through_the_offline_discord(driver: Driver, players: list[JSONDict],
                                                        rig: Callable[..., None]) -> None:
    alice, bob = players[:2]
    rig(*(prize(c)[1] for c in (2, 3, 1)))
    game = await driver.start_game("goofspiel", [alice, bob], options={"options": "cards=3"})
    board = await driver.board(game)
    assert "Round 1: bid a card for the prize 2." in board["embeds"][0]["description"]
    for a, b in ((3, 1), (1, 2), (2, 3)):   # Ann takes 2; Bo takes 3; Bo takes 1
        await bid(driver, alice, game, a)
        await bid(driver, bob, game, b)
    await driver.delivered()
    record = await driver.record(game)
    assert record.status == "finished"
    final = await driver.final_message(game)
    assert "bob wins with 4 points against alice with 2." in final["content"]
    lines = await driver.log_lines(alice, game)
    assert any("alice bids 3 against bob's 1 and takes the prize 2." in line for line in lines), lines


def test_its_reveal_declaration_agrees_with_the_oracle(goofspiel) -> None:
    """A game with hidden information declares its reveals (``Engine.reveals``; docs/TEMPLATE.md):
    Goofspiel's second bid of a round shows the first; the oracle of tests/engines/test_reveals.py
    agrees on every move of its seeded playouts."""
    from engines.registry import ENGINES
    from tests.engines.test_reveals import check, playouts, shown

    report = check(goofspiel.game_id, playouts(ENGINES[goofspiel.game_id]))
    assert report.disagreements == [], shown(report)
    assert report.declared[True] and report.declared[False], report.declared
