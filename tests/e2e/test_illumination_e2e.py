"""Illumination (闡明) end to end through discord.py and the offline Discord: whole games by
taps, a restart while the opponent is answering an Exilium, a discard at the item limit by the
stepper, and no Crusade, hand or stack in any public message or board image (spec
docs/rules/illumination.md §7, §11)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.service import format_names, texts
from bot.ui.panels import offered_choices
from engines.illumination import ENGINE as E
from engines.illumination import NOTATION as N
from engines.illumination.chance import pending
from engines.illumination.data import CARDS, SIDE_TILES, TILES
from engines.illumination.rules import numbered_squares
from render import registry as renders
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]
SEED = 20261201


@pytest.fixture(autouse=True)
def _one_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game of this module gets the same host seed, so each run deals the same."""
    monkeypatch.setattr("bot.service.new_seed", lambda: SEED)


# --------------------------------------------------------------------------- helpers


def labelled(panel: JSONDict) -> list[tuple[str, tuple[str, str, str | None]]]:
    """The panel's choices (``offered_choices``: actions and steps, no paging) with their labels."""
    components = panel.get("components") or []
    names: dict[tuple[str, str | None], str] = {}
    for c in iter_components(components):
        names[(c.get("custom_id", ""), None)] = c.get("label", "")
        names.update({(c["custom_id"], o["value"]): o["label"] for o in c.get("options", [])})
    return [(names[(cid, value)], (kind, cid, value)) for kind, cid, value in offered_choices(components)]


async def state_of(driver: Driver, game: int) -> dict[str, Any]:
    return driver.bot.service.state(await driver.record(game))


async def user_of(driver: Driver, game: int, seat: int, people: list[JSONDict]) -> JSONDict:
    record = await driver.record(game)
    return next(p for p in people if p["id"] == str(record.user_of(seat)))


def public_texts(driver: Driver) -> list[str]:
    return [m["content"] + " ".join(str(e) for e in m["embeds"]) for m in driver.public_messages()]


class SecrecyWatch:
    """After every tap: the board image is exactly the one drawn from a state whose hidden parts
    (deck, stacks, the hands and the Crusades) were reshuffled, so it shows none of them; and no
    public message names a Crusade before the end."""

    def __init__(self, driver: Driver, game: int) -> None:
        self.driver, self.game, self.checks = driver, game, 0
        self.rng = random.Random(5)

    async def __call__(self) -> None:
        driver = self.driver
        record = await driver.record(self.game)
        state = driver.bot.service.state(record)
        board = await driver.board(self.game)
        blob = driver.fake.blobs[board["attachments"][-1]["id"]]
        other = E.shuffle_hidden(state, None, self.rng)
        image = renders.board_image("illumination", E.player_view(other, None), record.names, texts(record))
        assert renders.encode(image, game_id="illumination")[0] == blob, "the public board depends on hidden information"
        if state["phase"] != "over":
            for text in public_texts(driver):
                assert "Crusade:" not in text and "crusade-" not in text
        self.checks += 1


def prefer(label: str, eager_pass: bool) -> float:
    """A tapping player's taste: place tiles, answer, discard, send a tile waiting at a closed
    Book to an open one rather than to the sheepfold; pass only when ``eager_pass``."""
    if eager_pass and (label.startswith("Pass") or label.startswith("Yes, pass")):
        return -1
    if re.match(r"\d+ · ", label):  # a numbered square
        return 0
    if label == "Redirect" or re.search(r": Book I* → I", label):
        return 0.5
    if label.startswith(("Discard", "End turn", "No, go back")):
        return 1
    if label.startswith("Pass"):
        return 9
    return 2


async def play_by_taps(driver: Driver, game: int, rng: random.Random, max_taps: int,
                       watch: SecrecyWatch | None = None, pass_after: int | None = None) -> int:
    """Taps until the game ends: the waiting player opens Play ▶ (or goes on in the panel the last
    tap edited) and picks among the options it likes best (passing once ``pass_after`` taps were
    made); the board is checked by ``watch`` every 4th tap. Returns the number of taps."""
    last: tuple[str, int] | None = None  # (user id, panel message id) of the previous tap
    for tap in range(max_taps):
        record = await driver.record(game)
        if record.status != "active":
            return tap
        user = (await driver.waiting_users(game))[0]
        # the same player goes on in the panel their tap just edited, when it shows this version
        edited = driver.fake.messages[last[1]] if last is not None and last[0] == user["id"] else None
        fresh = edited is not None and all(f":{record.version}:" in cid for _, cid, _ in driver.choices(edited))
        panel = edited if edited is not None and fresh and driver.choices(edited) else await driver.open_panel(user, game)
        last = (user["id"], int(panel["id"]))
        options = labelled(panel)
        assert options, panel["content"]
        eager = pass_after is not None and tap >= pass_after
        best = min(prefer(label, eager) for label, _ in options)
        liked = [c for label, c in options if prefer(label, eager) == best]
        await driver.pick(user, panel, rng.choice(liked))
        if watch is not None and tap % 4 == 0:
            await watch()
    raise AssertionError("game did not end")


async def type_move(driver: Driver, user: JSONDict, game: int, text: str) -> JSONDict:
    """``/illumination play action:<text>``; returns the private confirmation."""
    last = max(driver.fake.messages)
    await driver.fake.slash(user, "illumination", "play", action=text, game=game)
    await driver.settle()
    reply = driver.newest_ephemeral(user, after=last)
    assert reply is not None
    return reply


async def autopilot_turn(driver: Driver, game: int, people: list[JSONDict]) -> None:
    """The active player plays the §11 autopilot move by move, typed (until the turn passes)."""
    st = await state_of(driver, game)
    seat = st["active"]
    user = await user_of(driver, game, seat, people)
    while st["active"] == seat and st["phase"] != "over":
        text = N.describe_action(st, E.timeout_action(st, seat))
        reply = await type_move(driver, user, game, text)
        assert reply["content"].startswith("✓"), reply["content"]
        st = await state_of(driver, game)


def tile_order(side: str, first: list[str]) -> list[str]:
    """``side``'s shuffle with tiles named like ``coin`` / ``angel-red`` first."""
    used: list[str] = []
    for name in first:
        tid = next(t for t in SIDE_TILES[side] if t not in used and
                   (TILES[t].faction is None if name == "coin" else t.startswith(f"{side[:3]}-{name}-")))
        used.append(tid)
    return used + [t for t in SIDE_TILES[side] if t not in used]


async def start(driver: Driver, people: list[JSONDict], monkeypatch: pytest.MonkeyPatch, *,
                rev_first: list[str] | None = None, irr_first: list[str] | None = None,
                deck_first: list[str] | None = None) -> int:
    """A game between people[0] (the Reverent) and people[1], with rigged shuffles."""
    deck = (deck_first or []) + [c for c in CARDS if c not in (deck_first or [])]
    rig(monkeypatch, [{"type": "assign_sides", "reverent": 0},
                      {"type": "shuffle_tiles", "seat": 0, "order": tile_order("reverent", rev_first or [])},
                      {"type": "shuffle_tiles", "seat": 1, "order": tile_order("irreverent", irr_first or [])},
                      {"type": "shuffle_deck", "order": deck}])
    return await driver.start_game("illumination", people)


def rig(monkeypatch: pytest.MonkeyPatch, wanted: list[dict[str, Any]]) -> None:
    """Draw each of ``wanted`` when its chance event is pending (same type and seat); other chance
    events stay random. (The driver's ``rig_chance`` matches against listed chance outcomes, and
    shuffles cannot be listed.) The log still replays exactly."""
    original = E.sample_chance

    def sample(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        event = pending(state)
        for i, action in enumerate(wanted):
            if event is not None and action["type"] == event["type"] and action.get("seat") == event.get("seat"):
                return wanted.pop(i)
        return original(state, rng)

    monkeypatch.setattr(E, "sample_chance", sample)


# --------------------------------------------------------------------------- whole games


@pytest.mark.parametrize(("seed", "pass_after"), [(3, None), (11, 40)])
async def test_whole_game_by_taps(driver: Driver, players, bot: GameBot, seed: int,
                                  pass_after: int | None) -> None:
    """To the Books' end (seed 3, the board checked for secrets), and to both players passing."""
    people = players[:2]
    game = await driver.start_game("illumination", people)
    watch = SecrecyWatch(driver, game) if seed == 3 else None
    taps = await play_by_taps(driver, game, random.Random(seed), 1500, watch, pass_after)
    await driver.settle()
    record = await driver.record(game)
    assert record.status == "finished" and taps > 40
    state = bot.service.state(record)
    outcome = E.outcome(state)
    assert outcome is not None and outcome.winners
    final = await driver.final_message(game)
    for seat in outcome.winners:
        assert f"<@{record.user_of(seat)}>" in final["content"]
    assert await bot.service.replay_matches(game)
    board = await driver.board(game)
    assert "Game over" in board["embeds"][0]["description"]
    log = await bot.repo.log(game)
    private = {format_names(e, record.names, record.game_id) for entry in log for e in entry.events
               if e["visible_to"] is not None}
    assert any(line.startswith("Your Crusade:") for line in private)
    shown = public_texts(driver)
    for line in private:
        assert not any(line in text for text in shown), line
    assert watch is None or watch.checks > 10
    assert state["passed"] == [True, True] if pass_after else not any(E.player_view(state, None)["books"][b]["open"]
                                                                     for b in range(3))
    kinds = {entry.action.get("type") for entry in log}
    assert "place" in kinds and kinds & {"activate", "activate_place"} and kinds & {"end_turn", "place_end"}


# --------------------------------------------------------------------------- Exilium and a restart


async def test_restart_during_an_exilium_answer(fake: FakeDiscord, make_bot, players,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    people = players[:2]
    alice, bob = people
    bot1 = await make_bot()
    d1 = Driver(fake, bot1)
    game = await start(d1, people, monkeypatch, rev_first=["coin"], deck_first=["exilium-1"])
    await autopilot_turn(d1, game, people)            # alice (Reverent): row1 with its coin tile
    await autopilot_turn(d1, game, people)            # bob (Irreverent)
    st = await state_of(d1, game)
    assert st["active"] == 0 and st["coins"][0] >= 2
    await type_move(d1, alice, game, "row1")
    reply = await type_move(d1, alice, game, "buy")
    assert "You drew Exilium" in reply["content"]     # only alice sees what she drew
    assert not any("You drew" in t for t in public_texts(d1))
    st = await state_of(d1, game)
    exile = next(a for a in E.legal_actions(st, 0) if a.get("card") == "exilium"
                 and len([c for c in st["board"] if c.startswith(a["book"] + "-")]) < 15)
    await type_move(d1, alice, game, N.describe_action(st, exile))
    st = await state_of(d1, game)
    assert st["phase"] == "exile" and E.to_move(st) == {1}
    ping = [m for m in d1.public_messages() if f"<@{bob['id']}>" in m["content"] and "exiled your" in m["content"]]
    assert ping, "bob is pinged to choose the cell"
    board = await d1.board(game)
    assert "exiled your" in board["embeds"][0]["description"]
    record = await d1.record(game)
    await fake.stop_bot(bot1)

    bot2 = await make_bot()                            # a new process on the same database
    d2 = Driver(fake, bot2)
    assert (await d2.record(game)).version == record.version
    play = next(c["custom_id"] for c in iter_components(ping[-1]["components"])
                if c.get("custom_id", "").endswith(":play"))
    last = max(fake.messages)
    await fake.click(bob, ping[-1], play)
    await d2.settle()
    panel = d2.newest_ephemeral(bob, after=last)
    assert panel is not None
    options = labelled(panel)
    cells = [a["cell"] for a in E.legal_actions(st, 1)]
    assert cells == numbered_squares(st)
    labels = [label for label, _ in options]
    assert [label.split(" · ")[0] for label in labels] == [str(n) for n in range(1, len(cells) + 1)]
    assert all(label.split(" · ")[1].startswith("+") or label.endswith("no reward") for label in labels)
    # alice cannot act while bob answers
    refused = await type_move(d2, alice, game, "end")
    assert refused["content"].startswith("⚠️")
    pick = options[-1]
    await d2.pick(bob, panel, pick[1])
    st2 = await state_of(d2, game)
    assert st2["phase"] == "main" and E.to_move(st2) == {0}
    assert st2["board"][cells[-1]][0] == st["exile"]["tile"]
    assert await bot2.service.replay_matches(game)


async def test_exilium_answer_times_out_to_the_best_cell(driver: Driver, players, bot: GameBot,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    people = players[:2]
    alice = people[0]
    game = await start(driver, people, monkeypatch, rev_first=["coin"], deck_first=["exilium-1"])
    await autopilot_turn(driver, game, people)
    await autopilot_turn(driver, game, people)
    await type_move(driver, alice, game, "row1")
    await type_move(driver, alice, game, "buy")
    st = await state_of(driver, game)
    exile = next(a for a in E.legal_actions(st, 0) if a.get("card") == "exilium")
    await type_move(driver, alice, game, N.describe_action(st, exile))
    st = await state_of(driver, game)
    if st["phase"] != "exile":
        pytest.skip("a single legal cell was chosen at once")
    best = E.timeout_action(st, 1)["cell"]
    record = await driver.record(game)
    driver.fake.advance(record.move_timeout + 1)
    assert await bot.flow.tick() >= 1
    await driver.settle()
    st2 = await state_of(driver, game)
    assert st2["board"][best][0] == st["exile"]["tile"] and st2["phase"] == "main"
    assert any("time ran out" in t for t in public_texts(driver))


# --------------------------------------------------------------------------- the item limit


async def test_discard_stepper_at_the_item_limit(driver: Driver, players, bot: GameBot,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    people = players[:2]
    bob = people[1]
    game = await start(driver, people, monkeypatch, irr_first=["coin", "coin", "demon-red"])
    await autopilot_turn(driver, game, people)                 # alice
    await type_move(driver, bob, game, "row1")                 # bob: 5 + 4 coins
    st = await state_of(driver, game)
    while st["staged"] and any(a["type"] == "place" for a in E.legal_actions(st, 1)):
        await type_move(driver, bob, game, N.describe_action(st, E.timeout_action(st, 1)))
        st = await state_of(driver, game)
    panel = await driver.open_panel(bob, game)
    end = next(c for label, c in labelled(panel) if label.startswith("End turn"))
    await driver.pick(bob, panel, end)
    st = await state_of(driver, game)
    items = st["coins"][1] + sum(st["tokens"][1].values())
    assert st["phase"] == "discard" and items > 7
    panel = driver.fake.messages[int(panel["id"])]
    assert f"You hold {items} items: discard {items - 7} more" in panel["content"]
    for left in range(items - 7, 0, -1):  # one item a tap; the prompt counts down
        panel = driver.fake.messages[int(panel["id"])]
        assert f"discard {left} more" in panel["content"]
        options = labelled(panel)
        assert all(label.startswith("Discard ") for label, _ in options)
        # the whole discard in one choice as well (one tap), and one item at a time
        assert (f"Discard {left} coins" in [label for label, _ in options]) == (left >= 2)
        coin = next(c for label, c in options if label == "Discard 1 coin")
        await driver.pick(bob, panel, coin)
    st = await state_of(driver, game)
    assert st["coins"][1] + sum(st["tokens"][1].values()) == 7
    assert st["phase"] == "turn_start" and st["active"] == 0
    log = await bot.repo.log(game)
    assert [e.action for e in log if e.action.get("type") == "discard"] == [{"type": "discard", "item": "coin"}] * (items - 7)
    assert any("discards 1 coin (item limit 7)" in t for t in public_texts(driver))



@pytest.mark.parametrize("auto", [True, False])
async def test_a_discard_that_leaves_no_choice_is_made_at_once(driver: Driver, players, bot: GameBot,
                                                               monkeypatch: pytest.MonkeyPatch, auto: bool) -> None:
    """D41: only coins over the limit: the host discards them as Bob ends his turn (the log holds
    his discard, so the game replays); with ``auto_discard=false`` he is asked."""
    people = players[:2]
    bob = people[1]
    game = await start(driver, people, monkeypatch, irr_first=["coin", "coin", "coin"])
    if not auto:
        await driver.fake.slash(bob, "game", "prefs", game="illumination", settings="auto_discard=false")
        await driver.settle()
    await autopilot_turn(driver, game, people)                 # alice
    await type_move(driver, bob, game, "row1")                 # bob: 5 + 3 × 2 coins, nothing staged
    st = await state_of(driver, game)
    assert st["coins"][1] == 11 and not any(st["tokens"][1].values())
    panel = await driver.open_panel(bob, game)
    end = next(c for label, c in labelled(panel) if label.startswith("End turn"))
    await driver.pick(bob, panel, end)
    st = await state_of(driver, game)
    log = await bot.repo.log(game)
    discards = [(e.seat, e.action) for e in log if e.action.get("type", "").startswith("discard")]
    if auto:
        assert st["coins"][1] == 7 and st["phase"] == "turn_start" and st["active"] == 0
        assert discards == [(1, {"type": "discard_set", "items": {"coin": 4}})]
    else:
        assert st["phase"] == "discard" and discards == []
        panel = driver.fake.messages[int(panel["id"])]
        assert "Discard 4 coins" in [label for label, _ in labelled(panel)]
    assert await bot.service.replay_matches(game)
