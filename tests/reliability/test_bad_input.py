"""Every bad input gets a specific answer and changes nothing.

Timers outside the presets, user ids that are no snowflakes, unknown game numbers and game
names, typed moves naming no card or move, select values a menu does not offer, options
with stray quotes: each is answered privately with a sentence that names what was wrong,
never with the apology for a bug, never with an ERROR log record (the ``fake`` fixture
fails the test on any), and nothing is stored. A second delivery of the same interaction
(Discord retries) is dropped quietly: nothing is applied twice.

Values the Discord client itself would not send (a timer outside its choices, a select
value not on the menu) are sent with ``client_checks=False`` / ``forge=True``.
"""

# ruff: noqa: F811  (the end-to-end fixtures are imported by name and then taken as parameters)
from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from bot.settings import TIMEOUT_PRESETS
from bot.ui.errors import APOLOGY
from engines.registry import ENGINES
from tests.e2e.conftest import bot, driver, fake, make_bot, players  # noqa: F401
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


async def answer(d: Driver, user: JSONDict, send: Any) -> str:
    """Run ``send`` (an awaitable injecting one interaction) and return the one private
    message ``user`` got; nothing public may appear."""
    last = max(d.fake.messages) if d.fake.messages else 0
    await send
    await d.settle()
    new = [m for mid, m in sorted(d.fake.messages.items()) if mid > last]
    assert len(new) == 1 and new[0]["flags"] & EPHEMERAL and d.fake.ephemeral_owner(new[0]) == user["id"], [
        m["content"] for m in new]
    assert new[0]["content"] != APOLOGY
    return str(new[0]["content"])


async def lobbies(d: Driver) -> int:
    return len(await d.bot.repo.games(status=("lobby", "active", "finished", "abandoned")))


PRESETS = ", ".join(TIMEOUT_PRESETS)


@pytest.mark.parametrize("timer", [0, 1, -600, 599, 601, 3 * 24 * 3600 + 1, 2 ** 53])
async def test_a_timer_outside_the_presets_is_refused(driver: Driver, players, timer: int) -> None:
    alice = players[0]
    before = await lobbies(driver)
    told = await answer(driver, alice, driver.fake.slash(alice, "game", "new", game="carnival", timer=timer,
                                                         client_checks=False))
    assert told == f"⚠️ The timer must be one of the presets: {PRESETS}."
    assert await lobbies(driver) == before


async def test_every_preset_timer_opens_a_lobby_with_that_timer(driver: Driver, players) -> None:
    for seconds in TIMEOUT_PRESETS.values():
        game, _ = await driver.open_lobby(players[0], "carnival", timer=seconds)
        assert (await driver.record(game)).move_timeout == seconds


async def test_member_options_take_anyone_and_refuse_those_without_a_seat(driver: Driver, players, bot) -> None:
    """Moderator commands take a user option (a picker, which also takes a pasted
    id), so nothing can be mistyped; a user with no seat is refused by name of the fact."""
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    before = await driver.record(game)
    stranger = fake.user("stranger", id=2 ** 63 - 1)                # the largest snowflake, not in the server
    told = await answer(driver, alice, fake.slash(alice, "game", "mod", "kick", game=game, member=stranger))
    assert told == "⚠️ That member is not playing in this running game."
    told = await answer(driver, alice, fake.slash(alice, "game", "mod", "replace", game=game, player=stranger, member=carol))
    assert told == "⚠️ That user has no seat in this game."
    after = await driver.record(game)
    assert (after.version, after.seats) == (before.version, before.seats)
    await fake.slash(alice, "game", "mod", "replace", game=game, player=bob, member=carol)
    await driver.settle()
    assert (await driver.record(game)).seat_of(int(carol["id"])) == 1


async def test_unknown_game_numbers_and_names_are_refused_by_name(driver: Driver, players) -> None:
    alice = players[0]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, players[1]])
    for given, sentence in (("0", "There is no game #0."), (f"#{game + 1}", f"There is no game #{game + 1}."),
                            ("9" * 18, f"There is no game #{'9' * 18}."),
                            ("9" * 19, f"{'9' * 19!r} is not a game number; write it like `12` or `#12`."),
                            ("-3", "'-3' is not a game number; write it like `12` or `#12`."),
                            ("#", "'#' is not a game number; write it like `12` or `#12`.")):
        for command in (("board",), ("log",), ("hand",), ("mod", "end")):
            told = await answer(driver, alice, fake.slash(alice, "game", *command, game=given))
            assert told == f"⚠️ {sentence}", (command, told)
    known = ", ".join(ENGINES)
    before = await lobbies(driver)
    for command, options in (("new", {}), ("rules", {}), ("prefs", {"settings": "auto=true"})):
        told = await answer(driver, alice, fake.slash(alice, "game", command, game="chess", client_checks=False,
                                                      **options))
        assert told.startswith("⚠️ There is no game called 'chess'; choose one of: ")
        assert set(told.split(": ", 1)[1].rstrip(".").split(", ")) == set(known.split(", "))
    assert await lobbies(driver) == before


@pytest.mark.parametrize("game_id", sorted(ENGINES))
async def test_a_typed_move_naming_no_card_is_refused_by_name(driver: Driver, players, bot, game_id: str) -> None:
    users = players[:ENGINES[game_id].info.min_players]
    fake = driver.fake
    game = await driver.start_game(game_id, users)
    user = (await driver.waiting_users(game))[0]
    before = await driver.record(game)
    for typed in ("play nosuchcard", "take d99", "choose sin-nothing", '"', "999"):
        told = await answer(driver, user, fake.slash(user, game_id, "play", action=typed, game=game))
        assert told.startswith("⚠️ ") and repr(typed) in told, told
    after = await driver.record(game)
    assert (after.version, await bot.repo.count_actions(game)) == (before.version, before.version)


async def open_select_panel(d: Driver, players: list[JSONDict]) -> tuple[int, JSONDict, JSONDict, str]:
    """A running Heaven game whose waiting player's panel is a select menu; returns (game,
    user, panel, the select's custom id)."""
    game = await d.start_game("heaven", players[:4])
    user = (await d.waiting_users(game))[0]
    panel = await d.open_panel(user, game)
    select = next(c for c in iter_components(panel["components"]) if c["type"] == 3)
    return game, user, panel, select["custom_id"]


async def test_select_values_the_menu_does_not_offer_are_refused_by_name(driver: Driver, players, bot) -> None:
    fake = driver.fake
    game, user, panel, cid = await open_select_panel(driver, players)
    before = await driver.record(game)
    shown = fake.messages[int(panel["id"])]["content"]
    for value in ("999", "-1", "s999", "abc", "1.5", "٣", " 0"):
        told = await answer(driver, user, fake.select(user, fake.messages[int(panel["id"])], cid, [value],
                                                      forge=True))
        assert told == f"⚠️ {value!r} is not one of this menu's choices; pick one of the listed moves."
    told = await answer(driver, user, fake.select(user, fake.messages[int(panel["id"])], cid, ["0", "1"],
                                                  forge=True))
    assert told == "⚠️ Pick exactly one of the listed moves."
    assert fake.messages[int(panel["id"])]["content"] == shown          # the panel was not edited
    after = await driver.record(game)
    assert (after.version, await bot.repo.count_actions(game)) == (before.version, before.version)


@pytest.mark.parametrize(("options", "key"), [('table_model="zones', "table_model"),
                                              ("roll_sigma=300 table_model='zones", "table_model"),
                                              ('"table_model=zones', None),
                                              ("roll_sigma=3\\", "roll_sigma")])
async def test_options_with_stray_quotes_are_refused_naming_the_key(driver: Driver, players, options: str,
                                                                    key: str | None) -> None:
    alice = players[0]
    before = await lobbies(driver)
    told = await answer(driver, alice, driver.fake.slash(alice, "game", "new", game="carnival",
                                                         options={"options": options}))
    if key is None:
        assert told == "⚠️ Write options as key=value (got '\"table_model=zones')."
    else:
        assert told.startswith(f"⚠️ Option '{key}' has ") and f'write it as {key}="…"' in told
    assert await lobbies(driver) == before
    told = await answer(driver, alice, driver.fake.slash(alice, "game", "prefs", game="heaven", settings=options))
    assert told.startswith("⚠️ ")


async def test_options_named_as_the_lobby_shows_them_open_the_lobby(driver: Driver, players) -> None:
    """`/game new options:` takes an option's name as the lobby shows it (any catalog
    language, any case) as well as its key; an unknown one is refused listing both."""
    alice = players[0]
    game, _ = await driver.open_lobby(alice, "carnival", options={"options": "wrath KNOCK chance=0.3 roll_sigma=300"})
    record = await driver.record(game)
    assert (record.options["wrath_knock_prob"], record.options["roll_sigma"]) == (0.3, 300)
    before = await lobbies(driver)
    told = await answer(driver, alice, driver.fake.slash(alice, "game", "new", game="carnival",
                                                         options={"options": "knock=0.3"}))
    assert told == ("⚠️ Unknown option 'knock'; name an option as the lobby shows it or by its key: "
                    "Table model (table_model), Roll spread (roll_sigma), Wrath aim scatter (wrath_aim_sigma), "
                    "Wrath knock radius (wrath_knock_radius), Wrath knock chance (wrath_knock_prob), "
                    "Wrath off-table chance (wrath_off_table_prob).")
    assert await lobbies(driver) == before


async def test_quoted_options_parse_and_the_lobby_starts(driver: Driver, players) -> None:
    game, _ = await driver.open_lobby(players[0], "carnival",
                                      options={"options": "table_model=\"zones\" roll_sigma='300'"})
    record = await driver.record(game)
    assert (record.options["table_model"], record.options["roll_sigma"]) == ("zones", 300)
    started = await driver.start_game("carnival", players[:2], options={"options": 'table_model="zones"'})
    assert (await driver.record(started)).status == "active"


async def test_a_second_delivery_of_the_same_interaction_is_dropped(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    # a slash command delivered twice opens one lobby
    before = await lobbies(driver)
    token = await fake.slash(alice, "game", "new", game="carnival")
    await fake.redeliver(token)
    await driver.settle()
    assert await lobbies(driver) == before + 1
    lobby = fake.message_for(token)
    assert lobby is not None
    game = (await bot.repo.games(status=("lobby",)))[-1].id
    # a click delivered twice seats once (a second answer would be Discord's 40060: a violation)
    token = await fake.click(bob, fake.messages[int(lobby["id"])], f"l:{game}:join")
    await fake.redeliver(token)
    await driver.settle()
    assert [s.user_id for s in (await driver.record(game)).seats] == [int(alice["id"]), int(bob["id"])]
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    # a move picked in a panel, delivered twice, is applied once
    user = (await driver.waiting_users(game))[0]
    panel = await driver.open_panel(user, game)
    count = await bot.repo.count_actions(game)
    choice = driver.choices(fake.messages[int(panel["id"])])[0]
    token = await driver.pick(user, panel, choice)
    await fake.redeliver(token)
    await driver.settle()
    entries = await bot.repo.log(game, after=count)
    assert [e.kind for e in entries if e.kind == "player"] == ["player"]
    # a typed move delivered twice: the copy is dropped, not refused as "not your turn"
    last = max(fake.messages)
    token = await fake.slash(alice, "game", "mine")
    await fake.redeliver(token)
    await driver.settle()
    assert len([m for mid, m in fake.messages.items() if mid > last]) == 1
    assert not fake.violations
