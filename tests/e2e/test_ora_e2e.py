"""Ora et Labora (祈祷与工作) end to end through discord.py and the offline Discord:
a whole solo game and a whole 3-player game by panel clicks, a work contract the
owner answers from his own panel, a district bought by its number on the decision picture, and
a restart in the middle of a settlement phase."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from engines.ora.data import BUILDINGS, SETTLEMENTS
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]
Choice = tuple[str, str, str | None]
SEED = 20261201


@pytest.fixture
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("bot.service.new_seed", lambda: SEED)
    return SEED


# --------------------------------------------------------------------------- helpers


def labelled(panel: JSONDict) -> list[tuple[str, Choice]]:
    """(label, choice) of every option of a private panel: actions and steps."""
    out: list[tuple[str, Choice]] = []
    for c in iter_components(panel.get("components") or []):
        cid = c.get("custom_id", "")
        if c.get("disabled"):
            continue
        if cid.startswith("a:"):
            out.append((c["label"], ("button", cid, None)))
        elif cid.startswith("n:") and c.get("label") not in ("◀ Back", "Back", "◀", "▶", "Next ▶", "◀ Prev"):
            out.append((c["label"], ("group", cid, None)))
        elif cid.startswith("as:"):
            for o in c["options"]:
                kind = "group" if o["value"].startswith("s") else "select"
                out.append((o["label"], (kind, cid, o["value"])))
    return out


async def state_of(driver: Driver, game: int) -> dict[str, Any]:
    return driver.bot.service.state(await driver.record(game))


async def user_of(driver: Driver, game: int, seat: int, people: list[JSONDict]) -> JSONDict:
    record = await driver.record(game)
    return next(p for p in people if p["id"] == str(record.user_of(seat)))


async def choose(driver: Driver, user: JSONDict, game: int, wanted: Callable[[str], bool],
                 panel: JSONDict | None = None) -> JSONDict:
    """Pick the first option whose label satisfies ``wanted`` (a step opens in place and is
    searched again); opens the Play panel when ``panel`` is None. Returns the panel."""
    if panel is None:
        panel = await driver.open_panel(user, game)
    for _ in range(4):
        panel = driver.fake.messages[int(panel["id"])]
        options = labelled(panel)
        match = next((c for label, c in options if wanted(label)), None)
        if match is not None:
            await driver.pick(user, panel, match)
            return driver.fake.messages[int(panel["id"])]
        steps = [c for _, c in options if c[0] == "group"]
        assert steps, (panel["content"], [label for label, _ in options])
        await driver.pick(user, panel, steps[0])
    raise AssertionError("no such option")


QUIET = ("Pass", "Skip / do nothing")


async def play(driver: Driver, game: int, rng: random.Random, max_clicks: int,
               stop: Callable[[dict[str, Any]], bool] | None = None, busy: float = 0.75) -> int:
    """Scripted players: each waiting player opens Play ▶ (or goes on in the panel the last
    click edited) and picks an option at random, avoiding Pass / Skip while anything else is
    offered in a ``busy`` share of picks (three of four by default; a lower share is a cheap
    policy that passes often, so a long game stays quick). Stops when the game ends or
    ``stop(state)`` holds; returns the clicks made."""
    panels: dict[str, JSONDict] = {}
    for click in range(max_clicks):
        record = await driver.record(game)
        if record.status != "active":
            return click
        if stop is not None and stop(driver.bot.service.state(record)):
            return click
        user = rng.choice(await driver.waiting_users(game))
        panel = panels.get(user["id"])
        if panel is not None:
            panel = driver.fake.messages[int(panel["id"])]
            ids = [cid for _, (_, cid, _) in labelled(panel)]
            if not ids or int(ids[0].split(":")[2]) != record.version:
                panel = None
        if panel is None:
            panel = await driver.open_panel(user, game)
        panels[user["id"]] = panel
        options = labelled(panel)
        assert options, panel["content"]
        active = [o for o in options if o[0] not in QUIET]
        pool = active if active and rng.random() < busy else options
        await driver.pick(user, panel, rng.choice(pool)[1])
    raise AssertionError("game did not end")


async def start(driver: Driver, people: list[JSONDict], options: str) -> int:
    return await driver.start_game("ora", people, options={"options": options})


async def finish_checks(driver: Driver, bot: GameBot, game: int, players: int) -> None:
    record = await driver.record(game)
    assert record.status == "finished"
    engine = bot.service.engine(record)
    state = bot.service.state(record)
    outcome = engine.outcome(state)
    assert outcome is not None
    assert outcome.scores == engine.scores(state) and len(outcome.scores) == players
    final = await driver.final_message(game)
    for seat in outcome.winners:
        assert f"<@{record.user_of(seat)}>" in final["content"]
    assert await bot.service.replay_matches(game)
    board = await driver.board(game)
    assert len(board["attachments"]) == 1


# --------------------------------------------------------------------------- whole games


async def test_whole_solo_game_by_clicks(fixed_seed, driver: Driver, players, bot: GameBot) -> None:
    game = await start(driver, players[:1], "variant=france")
    st = await state_of(driver, game)
    assert st["mode"] == "solo" and st["unit"] == 1
    clicks = await play(driver, game, random.Random(3), 3000)
    st = await state_of(driver, game)
    assert st["over"] and st["unit"] == 30 and st["phase"] == 4      # phases A-D, then E after round 30
    assert clicks > 100
    await finish_checks(driver, bot, game, 1)


async def test_whole_three_player_game_by_clicks(fixed_seed, driver: Driver, players, bot: GameBot) -> None:
    game = await start(driver, players[:3], "variant=ireland mode=short")
    st = await state_of(driver, game)
    assert st["mode"] == "sh3" and st["variant"] == "ireland"
    clicks = await play(driver, game, random.Random(5), 4000)
    st = await state_of(driver, game)
    assert st["over"] and st["unit"] == 13                          # 12 rounds + the bonus round
    assert clicks > 150
    await finish_checks(driver, bot, game, 3)


async def test_whole_standard_three_player_game_by_clicks(fixed_seed, driver: Driver, players,
                                                          bot: GameBot) -> None:
    game = await start(driver, players[:3], "variant=france mode=standard")
    st = await state_of(driver, game)
    assert st["mode"] == "std3" and st["variant"] == "france"
    clicks = await play(driver, game, random.Random(8), 4000, busy=0.35)
    st = await state_of(driver, game)
    assert st["over"] and st["unit"] == 25 and st["phase"] == 4      # A-D, E after the bonus round 25
    record = await driver.record(game)
    engine = bot.service.engine(record)
    pieces = [space[2] for p in st["pl"] for space in p["land"].values() if space[2]]
    built = [b for b in pieces if b in BUILDINGS and not b.startswith("L")]   # beyond the heartland's L1-L3
    assert clicks > 150 and len(built) >= 3 and any(b in SETTLEMENTS for b in pieces)
    assert engine.outcome(st) is not None
    await finish_checks(driver, bot, game, 3)


# --------------------------------------------------------------------------- lobby


@pytest.mark.parametrize(("count", "family", "valid"), [(3, "long", "mode=standard (standard), mode=short (short)"),
                                                        (1, "long", "mode=standard (solo)")])
async def test_a_mode_that_does_not_fit_the_seats_is_refused_at_start(driver: Driver, players, count: int,
                                                                      family: str, valid: str) -> None:
    people = players[:count]
    game, lobby = await driver.open_lobby(people[0], "ora", options={"options": f"mode={family}"})
    for user in people[1:]:
        await driver.fake.click(user, driver.fake.messages[int(lobby["id"])], f"l:{game}:join")
        await driver.settle()
    last = max(driver.fake.messages)
    await driver.fake.click(people[0], driver.fake.messages[int(lobby["id"])], f"l:{game}:start")
    await driver.settle()
    assert (await driver.record(game)).status == "lobby"
    answer = driver.newest_ephemeral(people[0], after=last)
    assert answer is not None
    assert answer["content"] == (f"⚠️ Mode {family} does not fit this player count ({count}). "
                                 f"Choose {valid}, or change the seats.")


# --------------------------------------------------------------------------- work contract


async def test_work_contract_answered_by_its_owner(fixed_seed, driver: Driver, players, bot: GameBot) -> None:
    people = players[:3]
    game = await start(driver, people, "start_player=host")
    st = await state_of(driver, game)
    assert st["s0"] == 0 and st["win"]["seat"] == 0
    alice, bob = people[0], await user_of(driver, game, 1, people)
    coins = [p["goods"]["coin"] for p in st["pl"]]
    # Alice (seat A) contracts seat B's Clay Mound for 1 coin: Work contract → "N · Contract Clay Mound of Bob"
    # (the six contracts fit one list: no landscape step)
    panel = await choose(driver, alice, game, lambda label: label == "Work contract")
    bob_name = (await driver.record(game)).names[1]
    await choose(driver, alice, game, lambda label: label.endswith(f" · Contract Clay Mound of {bob_name}"), panel)
    st = await state_of(driver, game)
    top = st["stack"][-1]
    assert top["f"] == "assign" and top["o"] == 1
    assert [p["goods"]["coin"] for p in st["pl"]] == [coins[0] - 1, coins[1] + 1, coins[2]]
    record = await driver.record(game)
    assert bot.service.engine(record).to_move(st) == {1}
    pings = [m for m in driver.public_messages() if f"<@{bob['id']}>" in m["content"]]
    assert pings, "the owner is pinged for his answer"
    # Bob answers from his own panel: he sends his prior
    panel = await driver.open_panel(bob, game)
    labels = [label for label, _ in labelled(panel)]
    assert labels == ["Send a prior", "Send a lay brother"]
    await choose(driver, bob, game, lambda label: label == "Send a prior", panel)
    st = await state_of(driver, game)
    assert st["pl"][1]["clergy"][0] is not None and st["pl"][1]["clergy"][0][0] == 1
    assert st["pl"][0]["clergy"] == [None, None, None]              # the contractor's clergy stay home
    # Alice now resolves the Clay Mound: the wheel (clay at age 1: 2 clay, or the joker)
    assert bot.service.engine(await driver.record(game)).to_move(st) == {0}
    clay = st["pl"][0]["goods"]["clay"]
    panel = await driver.open_panel(alice, game)
    await choose(driver, alice, game, lambda label: "joker" not in label.lower() and "Clay" in label, panel)
    st = await state_of(driver, game)
    assert st["pl"][0]["goods"]["clay"] == clay + 2 and st["wheel"]["clay"] == 0
    assert await bot.service.replay_matches(game)


# --------------------------------------------------------------------------- landscape purchase


async def test_a_district_is_bought_by_its_number_on_the_picture(fixed_seed, driver: Driver, players,
                                                                   bot: GameBot) -> None:
    """After her main action (Cloister Office: 2 coins) Alice's panel comes with the picture of
    her landscape's slots; the district's buttons are "N · Buy district, hills side" with the
    numbers of the picture (row above first: 1 coast, 2 district, 3 mountain …, 8 the district
    below), never a row; picking 2 puts a district above the heartland."""
    from PIL import Image

    people = players[:3]
    game = await start(driver, people, "start_player=host")
    alice = people[0]
    panel = await choose(driver, alice, game, lambda label: "Cloister Office" in label and "prior" in label)
    panel = await choose(driver, alice, game, lambda label: "Coin" in label and "joker" not in label, panel)
    st = await state_of(driver, game)
    assert st["pl"][0]["goods"]["coin"] == 3 and st["win"]["main"]
    panel = driver.fake.messages[int(panel["id"])]
    assert len(panel["attachments"]) == 1, panel["content"]
    image = Image.open(io.BytesIO(driver.fake.image_bytes(panel["attachments"][0])))
    assert image.width == 640
    assert [label for label, _ in labelled(panel)] == [  # (one list: districts and plots in the picture's order)
        "1 · Buy plot, coastal side", "2 · Buy district, hills side", "2 · Buy district, plains side",
        "3 · Buy plot, mountain side", "4 · Buy plot, coastal side", "5 · Buy plot, mountain side",
        "6 · Buy plot, coastal side", "7 · Buy plot, mountain side", "8 · Buy district, hills side",
        "8 · Buy district, plains side", "Flip 1 grain to straw", "Done"]
    assert "🖼 The numbers are those on the picture below." in panel["content"]
    await choose(driver, alice, game, lambda label: label == "2 · Buy district, hills side", panel)
    st = await state_of(driver, game)
    assert [st["pl"][0]["land"][f"{x},-1"][0] for x in range(5)] == [
        "plains", "plains", "plains", "hillside", "hillside"]
    assert st["pl"][0]["goods"]["coin"] == 1
    assert any(line.endswith("buys a district (hills side) for 2 coins.") for line in await driver.log_lines(alice, game))


# --------------------------------------------------------------------------- restart


async def test_restart_in_the_middle_of_a_settlement_phase(fixed_seed, fake: FakeDiscord, make_bot,
                                                           players) -> None:
    people = players[:3]
    bot1 = await make_bot()
    d1 = Driver(fake, bot1)
    game = await start(d1, people, "mode=short")

    def settling(st: dict[str, Any]) -> bool:
        win = st["win"]
        return win is not None and win["kind"] == "settle" and not st["stack"]

    await play(d1, game, random.Random(11), 2000, stop=settling)
    record = await d1.record(game)
    st = d1.bot.service.state(record)
    assert settling(st) and st["phase"] == 0                           # phase A, before its end
    seat = st["win"]["seat"]
    user = await user_of(d1, game, seat, people)
    board = await d1.board(game)
    await fake.stop_bot(bot1)

    bot2 = await make_bot()                                           # a new process on the same database
    d2 = Driver(fake, bot2)
    assert (await d2.record(game)).version == record.version
    play_id = next(c["custom_id"] for c in iter_components(board["components"])
                   if c.get("custom_id", "").endswith(":play"))
    last = max(fake.messages)
    await fake.click(user, fake.messages[int(board["id"])], play_id)  # the board posted before the restart
    await d2.settle()
    panel = d2.newest_ephemeral(user, after=last)
    assert panel is not None
    labels = [label for label, _ in labelled(panel)]
    assert "Done" in labels
    await choose(d2, user, game, lambda label: label == "Done", panel)
    st = await state_of(d2, game)
    assert st["win"] is None or st["win"]["seat"] != seat or st["win"]["kind"] != "settle"
    # the phase goes on to its end on the new process: every player receives the Artists' Colony
    await play(d2, game, random.Random(12), 400, stop=lambda s: s["phase"] == 1)
    record = await d2.record(game)
    st = bot2.service.state(record)
    view = bot2.service.engine(record).player_view(st, None)
    assert st["phase"] == 1 and all("S05" in o["supply"] for o in view["owners"])
    assert await bot2.service.replay_matches(game)
