"""The lobby's menus end to end (taps, not typed ``key=value``): the host
picks the move timer and an option's value in the lobby message, built from the engine's
declared options; another player's pick is refused and changes nothing; the game starts
with what was picked."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from bot.settings import TIMEOUT_PRESETS
from bot.text import catalog
from bot.ui.lobby_options import TIMER_KEY
from engines.registry import get
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def menu(message: JSONDict, custom_id: str) -> JSONDict:
    return next(c for c in iter_components(message["components"]) if c.get("custom_id") == custom_id)


def timer_mentions(lobby: JSONDict) -> int:
    """How many of the lobby's menus name the move timer (a menu's placeholder or an option)."""
    return sum(1 for c in iter_components(lobby["components"]) if c.get("custom_id", "").startswith("lo:")
               and (c.get("placeholder") == "Move timer…"
                    or any(o["label"].startswith("Move timer") for o in c.get("options", []))))


@pytest.mark.parametrize("game_id", ["carnival", "heaven"])
async def test_the_host_picks_timer_and_options_in_the_lobby(driver: Driver, players, bot, game_id: str) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game, lobby = await driver.open_lobby(alice, game_id)
    for user in players[1:get(game_id).info.min_players]:
        await fake.click(user, fake.messages[int(lobby["id"])], f"l:{game}:join")
        await driver.settle()
    lobby = fake.messages[int(lobby["id"])]
    timers = menu(lobby, f"lo:{game}:timer")
    assert [o["label"] for o in timers["options"]] == list(TIMEOUT_PRESETS)
    live = str(TIMEOUT_PRESETS["10 minutes (live)"])
    await fake.select(alice, lobby, f"lo:{game}:timer", [live])
    await driver.settle()
    assert (await driver.record(game)).move_timeout == int(live)
    # the first option: the host opens its values and picks one that is not the default
    spec = get(game_id).info.options[0]
    lobby = fake.messages[int(lobby["id"])]
    keys = menu(lobby, f"lo:{game}:key")
    # the move timer once in the menus: its presets below, not also an entry of the option menu
    assert [o["value"] for o in keys["options"]] == [s.key for s in get(game_id).info.options]
    assert timer_mentions(lobby) == 1
    assert len(lobby["components"]) == 4                                # a row of Discord's five left free
    await fake.select(alice, lobby, f"lo:{game}:key", [spec.key])
    await driver.settle()
    lobby = fake.messages[int(lobby["id"])]
    values = menu(lobby, f"lo:{game}:v:{spec.key}")                   # in the timer's place
    assert len(lobby["components"]) == 4 and f"lo:{game}:timer" not in {
        c.get("custom_id") for c in iter_components(lobby["components"])}
    keys = menu(lobby, f"lo:{game}:key")  # (now the option menu's first entry brings the presets back)
    assert [o["value"] for o in keys["options"]] == [TIMER_KEY] + [s.key for s in get(game_id).info.options]
    assert keys["options"][0]["label"] == "Move timer = 10 minutes (live)" and timer_mentions(lobby) == 1
    wanted = next(o["value"] for o in values["options"] if json.loads(o["value"]) != spec.default)
    # bob, not the host, is refused and nothing changes
    before = await driver.record(game)
    mark = max(fake.messages)
    await fake.select(bob, lobby, f"lo:{game}:v:{spec.key}", [wanted])
    await driver.settle()
    told = [m["content"] for mid, m in fake.messages.items()
            if mid > mark and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == bob["id"]]
    assert told == ["⚠️ Only the host or a moderator can change the lobby's options and timer."]
    assert (await driver.record(game)).options == before.options
    await fake.select(alice, lobby, f"lo:{game}:v:{spec.key}", [wanted])
    await driver.settle()
    record = await driver.record(game)
    assert record.options[spec.key] == json.loads(wanted)
    lobby = fake.messages[int(lobby["id"])]                          # the timer's presets are back
    assert [o["label"] for o in menu(lobby, f"lo:{game}:timer")["options"]] == list(TIMEOUT_PRESETS)
    await fake.select(alice, lobby, f"lo:{game}:key", [spec.key])     # an option opened, then left unchanged:
    await driver.settle()
    await fake.select(alice, fake.messages[int(lobby["id"])], f"lo:{game}:key", [TIMER_KEY])  # the presets again
    await driver.settle()
    lobby = fake.messages[int(lobby["id"])]
    assert [o["label"] for o in menu(lobby, f"lo:{game}:timer")["options"]] == list(TIMEOUT_PRESETS)
    assert timer_mentions(lobby) == 1
    name = catalog(game_id)[f"option.{spec.key}.name"]  # (the option by its name: bot/ui/lobby_options.py)
    assert f"{name} = {json.loads(wanted)}" in lobby["embeds"][0]["fields"][1]["value"]
    await fake.click(alice, lobby, f"l:{game}:start")
    await driver.settle()
    record = await driver.record(game)
    assert record.status == "active" and record.move_timeout == int(live)
    assert record.options[spec.key] == json.loads(wanted)
    assert record.deadline is not None and record.deadline - fake.now() <= int(live)


async def test_a_lobby_says_how_many_players_in_one_number_when_the_game_allows_one(driver: Driver, players) -> None:
    """Illumination is for exactly 2: its lobby says "2 players", not "2–2 players";
    Carnival still gives its range."""
    _, lobby = await driver.open_lobby(players[0], "illumination")
    text = lobby["embeds"][0]["description"]
    assert "2 players." in text and "2–2" not in text
    _, lobby = await driver.open_lobby(players[1], "carnival")
    assert "2–5 players." in lobby["embeds"][0]["description"]


async def test_a_host_who_leaves_hands_the_lobby_to_the_player_who_joined_next(driver: Driver, players) -> None:
    """bob opens, carol then dave join, bob leaves: carol is the host (the lobby names her and
    the channel is told), dave cannot start, carol can; bob is no longer anyone here."""
    bob, carol, dave = players[1:4]
    fake = driver.fake
    game, lobby = await driver.open_lobby(bob, "carnival")
    for user in (carol, dave, bob):
        await fake.click(user, fake.messages[int(lobby["id"])], f"l:{game}:{'leave' if user is bob else 'join'}")
        await driver.settle()
    record = await driver.record(game)
    assert (record.host_user_id, [s.user_id for s in record.seats]) == (int(carol["id"]), [int(carol["id"]),
                                                                                           int(dave["id"])])
    assert f"The host (<@{carol['id']}>) or a moderator presses **Start**." in \
        fake.messages[int(lobby["id"])]["embeds"][0]["description"]
    said = [m["content"] for m in driver.public_messages() if m["content"].startswith("👑")]
    assert said == [f"👑 The host left lobby #{game}: <@{carol['id']}> (who joined next) is the host now — "
                    "they or a moderator press **Start**."]
    mark = max(fake.messages)
    await fake.click(dave, fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    told = [m["content"] for mid, m in fake.messages.items()
            if mid > mark and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == dave["id"]]
    assert told == ["⚠️ Only the host or a moderator can start the game."]
    await fake.click(carol, fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    assert (await driver.record(game)).status == "active"


async def test_a_member_opens_at_most_the_allowed_open_lobbies_a_moderator_more(driver: Driver, players) -> None:
    """OPEN_LOBBIES (3): bob's fourth lobby in the server is refused privately, naming his open
    ones, and posts nothing; once he has left one (handing it on) he may open another; alice,
    a moderator (the owner), is not limited."""
    alice, bob, carol = players[:3]
    fake = driver.fake
    opened = [(await driver.open_lobby(bob, "carnival"))[0] for _ in range(3)]
    mark = max(fake.messages)
    await fake.slash(bob, "game", "new", game="carnival")
    await driver.settle()
    new = [m for mid, m in fake.messages.items() if mid > mark]
    assert [m["content"] for m in new] == [
        "⚠️ You already host as many open lobbies here as a member may "
        f"({', '.join(f'#{g}' for g in opened)}). Start one, or leave it, before you open another."]
    assert new[0]["flags"] & EPHEMERAL and fake.ephemeral_owner(new[0]) == bob["id"]
    assert len(await driver.bot.repo.games(status=("lobby",))) == 3
    lobby = next(m for m in fake.messages.values() if m.get("embeds") and f"#{opened[0]}" in m["embeds"][0]["title"])
    await fake.click(carol, lobby, f"l:{opened[0]}:join")
    await driver.settle()
    await fake.click(bob, fake.messages[int(lobby["id"])], f"l:{opened[0]}:leave")  # (carol hosts it now)
    await driver.settle()
    await driver.open_lobby(bob, "carnival")
    for _ in range(4):
        await driver.open_lobby(alice, "carnival")
    assert len(await driver.bot.repo.games(status=("lobby",))) == 8


async def test_a_burst_of_join_and_leave_presses_makes_two_public_edits(driver: Driver, players) -> None:
    """While the lobby's first redraw is on its way, the presses that follow are merged: one
    more edit, of the lobby as it is after all of them (each press is answered at once)."""
    alice, bob, carol, dave, erin = players[:5]
    fake = driver.fake
    game, lobby = await driver.open_lobby(alice, "carnival")
    edits_before = fake._meta[int(lobby["id"])].edits
    gate = fake.hold(r"/webhooks/\d+/[\w.-]+/messages/@original", "PATCH")
    tokens = [await fake.click(bob, fake.messages[int(lobby["id"])], f"l:{game}:join")]
    await fake.wait_for(lambda: fake.held == 1)
    for user, verb in ((carol, "join"), (dave, "join"), (erin, "join"), (bob, "leave")):
        tokens.append(await fake.click(user, fake.messages[int(lobby["id"])], f"l:{game}:{verb}"))
    await fake.wait_for(lambda: all(fake.interactions[t]["acked_at"] is not None for t in tokens))
    await fake.wait_for(lambda: len(fake.handlers_running()) == 1)  # (only the press whose edit is held)
    assert fake._meta[int(lobby["id"])].edits == edits_before
    gate.set()
    await driver.settle()
    assert fake._meta[int(lobby["id"])].edits == edits_before + 2
    record = await driver.record(game)
    assert {s.user_id for s in record.seats} == {int(u["id"]) for u in (alice, carol, dave, erin)}
    shown = json.dumps(fake.messages[int(lobby["id"])]["embeds"][0])
    assert all(f"<@{u['id']}>" in shown for u in (alice, carol, dave, erin)), shown
    assert f"<@{bob['id']}>" not in shown
