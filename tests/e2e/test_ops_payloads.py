"""Slash payloads that do not fit their command (bot/ui/payloads.py):
a private answer naming the option, and no handler runs."""

from __future__ import annotations

from typing import Any

from bot.sandbox.fakecord import EPHEMERAL, FakeDiscord
from bot.text import Texts
from bot.ui.payloads import value_fits
from engines.base import Msg
from tests.e2e.driver import Driver
from tests.reliability.test_fuzz import command_paths

JSONDict = dict[str, Any]


def nest(names: list[str], types: list[int], options: list[JSONDict]) -> list[JSONDict]:
    for name, stype in reversed(list(zip(names[1:], types, strict=True))):
        options = [{"name": name, "type": stype, "options": options}]
    return options


async def test_an_option_of_the_wrong_type_is_answered_privately(driver: Driver, fake: FakeDiscord,
                                                                 players: list[JSONDict]) -> None:
    alice = players[0]
    paths = [p for p in command_paths(fake.commands) if any(o["type"] == 4 for o in p[2])]
    assert paths
    names, types, schema = paths[0]
    option = next(o for o in schema if o["type"] == 4)
    cmd = next(c for c in fake.commands if c["name"] == names[0])
    games = len(await driver.bot.repo.games())
    for wrong in ("12", 1.5, True, 2 ** 60):
        body = {"id": cmd["id"], "name": names[0], "type": 1,
                "options": nest(names, types, [{"name": option["name"], "type": 4, "value": wrong}])}
        payload = fake._interaction(2, alice, body, channel=fake.channel)
        last = max(fake.messages, default=0)
        await fake.dispatch("INTERACTION_CREATE", payload)
        await driver.settle()
        (answer,) = [m for mid, m in fake.messages.items() if mid > last]
        assert answer["flags"] & EPHEMERAL
        assert answer["content"] == Texts(None, [])(Msg("ops.bad_option", {"name": option["name"]}))
    assert len(await driver.bot.repo.games()) == games


def test_values_fit_the_json_shape_of_their_type() -> None:
    resolved = {"users": {"123": {}}, "roles": {"9": {}}}
    assert value_fits(4, 7, {}) and not value_fits(4, True, {}) and not value_fits(4, "7", {})
    assert not value_fits(4, 2 ** 53 + 1, {})
    assert value_fits(10, 1.5, {}) and not value_fits(10, float("nan"), {})
    assert value_fits(5, False, {}) and not value_fits(5, 0, {})
    assert value_fits(3, "", {}) and not value_fits(3, None, {})
    assert value_fits(6, "123", resolved) and not value_fits(6, "124", resolved) and not value_fits(6, 123, resolved)
    assert value_fits(9, "9", resolved) and not value_fits(8, "123", resolved)


async def test_a_value_outside_an_options_choices_is_answered_privately(driver: Driver, fake: FakeDiscord,
                                                                        players: list[JSONDict]) -> None:
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    cmd = next(c for c in fake.commands if c["name"] == "game")
    body = {"id": cmd["id"], "name": "game", "type": 1,
            "options": nest(["game", "watch"], [1], [{"name": "mode", "type": 3, "value": "bogus"},
                                                     {"name": "game", "type": 3, "value": str(game)}])}
    last = max(fake.messages, default=0)
    await fake.dispatch("INTERACTION_CREATE", fake._interaction(2, players[2], body, channel=fake.channel))
    await driver.settle()
    (answer,) = [m for mid, m in fake.messages.items() if mid > last]
    assert answer["flags"] & EPHEMERAL
    assert answer["content"] == "⚠️ " + Texts(None, [])(Msg("ui.error.bad_value", {"value": "bogus", "what": "Choice"}))
    assert await driver.bot.repo.watchers(game) == []
