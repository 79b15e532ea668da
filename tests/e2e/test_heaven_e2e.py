"""The Way to Heaven (天路) end to end through discord.py and the offline Discord: whole
games by panel clicks on both board sides, a Guardian window that times out, a pre-set
Guardian answer, a restart with a window open, a USE declared through the panel's steps
(engines/decisions.py), and no hand in any public message."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from bot.service import format_names, texts
from bot.ui.panels import NAV_LABELS
from engines.heaven.data import CARDS
from engines.heaven.rules import active, chain_of
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]
SEED = 20261129
"""A fixed game seed (the host draws one per game): deals are the same on every run."""


@pytest.fixture
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("bot.service.new_seed", lambda: SEED)
    return SEED


# --------------------------------------------------------------------------- helpers


def labelled(panel: JSONDict) -> list[tuple[str, tuple[str, str, str | None]]]:
    """(label, choice) of every action and every step of a private panel (buttons, step
    buttons and select options; a step's select label ends in " ▸")."""
    out: list[tuple[str, tuple[str, str, str | None]]] = []
    for c in iter_components(panel.get("components") or []):
        cid = c.get("custom_id", "")
        if c.get("disabled"):
            continue
        if cid.startswith("a:"):
            out.append((c["label"], ("button", cid, None)))
        elif cid.startswith("n:") and c["label"] not in NAV_LABELS:
            out.append((c["label"], ("group", cid, None)))
        elif cid.startswith("as:"):
            out += [(o["label"].removesuffix(" ▸"), ("group" if o["value"].startswith("s") else "select", cid,
                                                     o["value"])) for o in c["options"]]
    return out


async def choose(driver: Driver, user: JSONDict, game: int, wanted: Callable[[str], bool],
                 panel: JSONDict | None = None) -> JSONDict:
    """Pick the first action whose label satisfies ``wanted`` (opening the Play panel when
    ``panel`` is None); returns the panel as edited after the pick."""
    if panel is None:
        panel = await driver.open_panel(user, game)
    panel = driver.fake.messages[int(panel["id"])]
    options = labelled(panel)
    match = next((choice for label, choice in options if wanted(label)), None)
    assert match is not None, (panel["content"], [label for label, _ in options])
    await driver.pick(user, panel, match)
    return driver.fake.messages[int(panel["id"])]


async def declare(driver: Driver, user: JSONDict, game: int, steps: list[Callable[[str], bool]],
                  whole: Callable[[str], bool], check: Callable[[], Awaitable[None]] | None = None) -> int:
    """Declare a USE through the Play panel: open the steps matching ``steps`` (a step with
    a single option opens by itself, a short list shows no steps at all) until an action
    whose label satisfies ``whole`` is offered, and pick it. ``check`` runs after each step
    (nothing is applied before the last pick). Returns the number of steps opened."""
    panel = await driver.open_panel(user, game)
    version = (await driver.record(game)).version
    for opened in range(len(steps) + 1):
        panel = driver.fake.messages[int(panel["id"])]
        options = labelled(panel)
        done = next((c for label, c in options if c[0] != "group" and whole(label)), None)
        if done is not None:
            await driver.pick(user, panel, done)
            return opened
        found = [(i, c) for i, step in enumerate(steps) for label, c in options if step(label)]
        assert found, (panel["content"], [label for label, _ in options])
        i, choice = max(found, key=lambda f: f[0])
        steps = steps[i + 1:]
        await driver.pick(user, panel, choice)
        assert (await driver.record(game)).version == version      # a step applies nothing
        if check is not None:
            await check()
    raise AssertionError("the USE was never offered whole")


async def start(driver: Driver, people: list[JSONDict], options: str = "") -> int:
    """``/game new game:heaven options:<options>``, joins, Start (``options`` is also the name
    of the fake's own parameter, hence the dict)."""
    return await driver.start_game("heaven", people, options={"options": options} if options else {})


def has(*words: str) -> Callable[[str], bool]:
    return lambda label: all(w in label for w in words)


async def state_of(driver: Driver, game: int) -> dict[str, Any]:
    record = await driver.record(game)
    return driver.bot.service.state(record)


async def user_of(driver: Driver, game: int, seat: int, people: list[JSONDict]) -> JSONDict:
    record = await driver.record(game)
    return next(p for p in people if p["id"] == str(record.user_of(seat)))


def kinds(cards: list[str]) -> list[str]:
    return [CARDS[c].kind for c in cards]


async def split_keeping(driver: Driver, game: int, people: list[JSONDict], keep: tuple[str, ...]) -> None:
    """Every player picks, in the setup select, a public set holding as few ``keep`` kinds
    as possible (so attack cards and Guardians stay in hand)."""
    for user in people:
        panel = await driver.open_panel(user, game)
        options = labelled(panel)
        assert len(options) == 20 and all(" — " not in label for label, _ in options)

        def cost(label: str) -> int:
            return sum(label.count(CARDS_NAME[k]) for k in keep)

        best = min(options, key=lambda o: cost(o[0]))[1]
        await driver.pick(user, panel, best)


CARDS_NAME = {c.kind: c.name_en for c in CARDS.values()}


async def open_hypocrisy_attack(driver: Driver, game: int, people: list[JSONDict],
                                want_target_guardian: bool,
                                check: Callable[[], Awaitable[None]] | None = None) -> tuple[int, int]:
    """Play turns (``cycle_a_card``) until the active player holds Hypocrisy and another
    player fits (holds a Guardian, or not); the active player then swaps 1 card with them
    by clicks. Returns (attacker seat, target seat) with the window open."""
    names = (await driver.record(game)).names
    for _ in range(12):
        st = await state_of(driver, game)
        a = seat_of(st)
        hyp = [c for c in st["hands"][a] if CARDS[c].kind == "hypocrisy"]
        targets = [s for s in range(st["players"]) if s != a and st["positions"][s] < 6
                   and ("guardian" in kinds(st["hands"][s])) == want_target_guardian]
        user = await user_of(driver, game, a, people)
        if hyp and targets:
            t = targets[0]
            # dozens of declarations (k, target, cards): the panel steps through them
            assert await declare(driver, user, game, *swap_one(CARDS[hyp[0]].short, names[t]), check=check) >= 2
            st = await state_of(driver, game)
            assert st["stage"] == "react" and driver.bot.service.engine(
                await driver.record(game)).to_move(st) == {t}
            return a, t
        await cycle_a_card(driver, game, user, st)
    raise AssertionError("no Hypocrisy attack came up")


def seat_of(st: dict[str, Any]) -> int:
    a = active(st)
    assert a is not None
    return a


def swap_one(card: str, target: str) -> tuple[list[Callable[[str], bool]], Callable[[str], bool]]:
    """The steps and the whole label of a Hypocrisy ``card`` swapping 1 card with ``target``."""
    return ([has(f"Use {card}"), has("Swap 1 card"), has(f"Target {target} ("), has("Give your")],
            lambda label: re.fullmatch(rf"\d+⇄\d+ · Use {re.escape(card)}: target {re.escape(target)}", label) is not None)


async def cycle_a_card(driver: Driver, game: int, user: JSONDict, st: dict[str, Any]) -> None:
    """The active player discards a hand card that is neither Hypocrisy nor a Guardian and
    draws (or passes), advancing when offered: hands change until an attack comes up."""
    a = seat_of(st)
    junk = [c for c in st["hands"][a] if CARDS[c].kind not in ("hypocrisy", "guardian")]
    wanted = has("Discard", CARDS[junk[0]].short) if junk else has("Pass")
    panel = await choose(driver, user, game, wanted)
    st = await state_of(driver, game)
    while active(st) == a:   # advance / Sacrifice / draw offers
        panel = await choose(driver, user, game,
                             lambda label: label.startswith(("Advance", "Draw 1", "Sacrifice")), panel)
        st = await state_of(driver, game)


def public_texts(driver: Driver) -> list[str]:
    return [m["content"] + " ".join(str(e) for e in m["embeds"]) for m in driver.public_messages()]


class SecrecyWatch:
    """Called after every click: no card that is in a hand now (read from the private views)
    and was never public shows in a public message posted since the previous call or in the
    board as it stands. Cards once public (table or discard) are excluded for good: they
    come back to hands only through a reshuffle of the discard pile."""

    def __init__(self, driver: Driver, game: int, seats: int) -> None:
        self.driver, self.game, self.seats = driver, game, seats
        self.seen_public: set[str] = set()
        self.last = max(driver.fake.messages)
        self.checks = 0

    async def __call__(self) -> None:
        driver = self.driver                  # called right after a click, which settled
        record = await driver.record(self.game)
        engine = driver.bot.service.engine(record)
        state = driver.bot.service.state(record)
        public = engine.player_view(state, None)
        assert "hand" not in public and "buffer" not in public
        self.seen_public.update(c["label"] for pile in public["public"] for c in pile)
        self.seen_public.update(c["label"] for c in public["discard"])
        hands = {c["label"] for seat in range(self.seats) for c in engine.player_view(state, seat)["hand"]}
        secret = hands - self.seen_public
        fresh = [m for mid, m in driver.fake.messages.items() if mid > self.last and not m["flags"] & 64]
        # a DM may show its recipient what they were shown privately (their hand, their draws)
        tx = texts(record)
        shown: dict[int, set[str]] = {s: {c["label"] for c in engine.player_view(state, s)["hand"]}
                                      for s in range(self.seats)}
        for entry in await driver.bot.repo.log(self.game):
            for e in entry.events:
                for s in e.get("visible_to") or ():
                    shown[s] |= {label for label in secret if label in tx.event(e)}
        for m in [*fresh, await driver.board(self.game)]:
            text = m["content"] + " ".join(str(e) for e in m["embeds"])
            channel = driver.fake.channel_of(m["channel_id"]) or {}
            seat = record.seat_of(int(channel["recipients"][0]["id"])) if channel.get("type") == 1 else None
            leaked = [label for label in secret - shown.get(seat, set()) if label in text]
            assert not leaked, (leaked, text[:300])
        self.last = max(driver.fake.messages)
        self.checks += 1


async def play_randomly(driver: Driver, game: int, rng: random.Random, max_steps: int,
                        after_click: Callable[[], Awaitable[None]] | None = None) -> int:
    """Random decisions by clicks until the game ends; a player whose panel was edited
    with their next decision goes on in it (as people do) instead of pressing Play ▶
    again. Returns the number of clicks."""
    panels: dict[str, JSONDict] = {}
    for step in range(max_steps):
        record = await driver.record(game)
        if record.status != "active":
            return step
        user = rng.choice(await driver.waiting_users(game))
        panel = panels.get(user["id"])
        if panel is not None:
            panel = driver.fake.messages[int(panel["id"])]
            ids = [cid for _, cid, _ in driver.choices(panel)]
            if not ids or int(ids[0].split(":")[2]) != record.version:
                panel = None
        if panel is None:
            panel = await driver.open_panel(user, game)
        panels[user["id"]] = panel
        options = driver.choices(panel)
        actions = [o for o in options if o[0] != "group"]
        await driver.pick(user, panel, rng.choice(actions or options))
        if after_click is not None:
            await after_click()
    raise AssertionError("game did not end")


# --------------------------------------------------------------------------- whole games


@pytest.mark.parametrize(("count", "side", "seed"), [(4, "easy", 3), (6, "advanced", 8)])
async def test_whole_game_by_clicks(fixed_seed, driver: Driver, players, bot: GameBot, count: int, side: str,
                                    seed: int) -> None:
    people = players[:count]
    # advance and draw are automatic by default (spec D29, D30); the first player turns
    # them off and is asked every time
    await driver.fake.slash(people[0], "game", "prefs", game="heaven", settings="auto_advance=false auto_draw=false")
    await driver.settle()
    game = await start(driver, people, f"board_side={side} round_limit=10")
    record = await driver.record(game)
    assert record.options["board_side"] == side
    watch = SecrecyWatch(driver, game, count) if count == 4 else None
    clicks = await play_randomly(driver, game, random.Random(seed), 900, watch)  # watch: no hand goes public
    await driver.settle()
    record = await driver.record(game)
    assert clicks > 10 * count
    assert record.status == "finished"
    engine = bot.service.engine(record)
    state = bot.service.state(record)
    outcome = engine.outcome(state)
    assert outcome is not None and outcome.winners
    assert state["round"] <= 10 and max(state["positions"]) == max(outcome.scores)
    final = await driver.final_message(game)
    for seat in outcome.winners:
        assert f"<@{record.user_of(seat)}>" in final["content"]
    assert await bot.service.replay_matches(game)
    log = await bot.repo.log(game)
    texts = [format_names(e, record.names, record.game_id) for entry in log for e in entry.events]
    assert any("preset answer" in t for t in texts)          # auto_advance / auto_draw were used
    assert any(t.endswith("advances to space 1.") for t in texts)
    board = await driver.board(game)
    assert len(board["attachments"]) == 1 and "Game over" in board["embeds"][0]["description"]
    # private lines (draws, own picks) never reached a public message either
    private_lines = {format_names(e, record.names, record.game_id) for entry in log for e in entry.events
                     if e["visible_to"] is not None}
    assert any(line.startswith("You draw") for line in private_lines)
    texts = public_texts(driver)
    for line in private_lines:
        assert not any(line in text for text in texts), line
    assert not any(str(record.seed) in text for text in texts)
    assert watch is None or watch.checks > 50


# --------------------------------------------------------------------------- Guardian windows


async def test_guardian_window_times_out_to_no_defence(fixed_seed, driver: Driver, players,
                                                       bot: GameBot) -> None:
    people = players[:4]
    game = await start(driver, people, "reaction_timeout=2")
    await split_keeping(driver, game, people, ("hypocrisy", "guardian"))
    watch = SecrecyWatch(driver, game, 4)
    a, t = await open_hypocrisy_attack(driver, game, people, want_target_guardian=True, check=watch)
    record = await driver.record(game)
    names = record.names
    assert record.deadline is not None and record.deadline_window == 2 * 3600   # reaction_timeout
    ping = [m for m in driver.public_messages() if f"<@{record.user_of(t)}>" in m["content"]
            and "may guard" in m["content"]]
    assert ping, "the attacked player is pinged for the window"
    before = await state_of(driver, game)
    params = chain_of(before["use"]["card"], before["use"]["plan"])[2]
    mine, theirs = params["mine"], params["theirs"]
    driver.fake.advance(2 * 3600 - 60)
    await bot.flow.tick()
    await driver.settle()
    assert (await state_of(driver, game))["stage"] == "react"            # not yet
    driver.fake.advance(120)
    assert await bot.flow.tick() >= 1
    await driver.settle()
    st = await state_of(driver, game)
    assert st["stage"] != "react" and st["use"] is None
    assert theirs[0] in st["public"][a] and mine[0] in st["public"][t]     # the swap went through
    assert "guardian" in kinds(st["hands"][t])                            # held, but no defence
    notice = f"{names[t]}'s time ran out; their move was played automatically."
    assert any(notice in text for text in public_texts(driver))
    assert any(f"{names[t]} allows it." in text for text in public_texts(driver))
    assert await bot.service.replay_matches(game)


async def test_auto_defend_plays_the_guardian_without_asking(fixed_seed, driver: Driver, players,
                                                             bot: GameBot) -> None:
    people = players[:4]
    for user in people:
        await driver.fake.slash(user, "game", "prefs", game="heaven", settings="guardian_pref=auto_guard")
        await driver.settle()
        reply = driver.newest_ephemeral(user)
        assert reply is not None and "`guardian_pref` = **auto_guard**" in reply["content"]
    game = await start(driver, people)
    await split_keeping(driver, game, people, ("hypocrisy", "guardian"))
    st = await state_of(driver, game)
    # open_hypocrisy_attack asserts the window; with auto_guard it must never open, so drive by hand
    for _ in range(12):
        st = await state_of(driver, game)
        a = seat_of(st)
        hyp = [c for c in st["hands"][a] if CARDS[c].kind == "hypocrisy"]
        targets = [s for s in range(4) if s != a and "guardian" in kinds(st["hands"][s])]
        user = await user_of(driver, game, a, people)
        if hyp and targets:
            break
        await cycle_a_card(driver, game, user, st)
    else:
        raise AssertionError("no attack came up")
    t = targets[0]
    target_user = await user_of(driver, game, t, people)
    guards = sorted(c for c in st["hands"][t] if CARDS[c].kind == "guardian")
    record = await driver.record(game)
    last = max(driver.fake.messages)
    await declare(driver, user, game, *swap_one(CARDS[hyp[0]].short, record.names[t]))
    after = await state_of(driver, game)
    assert after["stage"] != "react"
    assert guards[0] in after["discard"] and guards[0] not in after["hands"][t]
    assert after["public"][t] == st["public"][t]                           # nothing was swapped
    assert len(after["hands"][t]) == len(st["hands"][t])                   # Guardian spent, 1 drawn
    new = [m for mid, m in driver.fake.messages.items() if mid > last]
    assert not any(f"<@{target_user['id']}>" in m["content"] and "may guard" in m["content"] for m in new)
    names = record.names
    assert any(f"{names[t]} guards with {CARDS[guards[0]].short}!" in text for text in public_texts(driver))
    log = await bot.repo.log(game)
    preset = [e for entry in log for e in entry.events if e["kind"] == "auto" and "GUARD" in format_names(e, record.names, record.game_id)]
    assert preset and all(e["visible_to"] == [t] for e in preset)
    assert all(e["visible_to"] is not None for entry in log for e in entry.events if e["kind"] == "auto")


async def test_restart_with_a_window_open_old_play_button_then_preset_on_timeout(fixed_seed, fake: FakeDiscord, make_bot,
                                                                players) -> None:
    people = players[:4]
    bot1 = await make_bot()
    d1 = Driver(fake, bot1)
    game = await start(d1, people)
    await split_keeping(d1, game, people, ("hypocrisy", "guardian"))
    a, t = await open_hypocrisy_attack(d1, game, people, want_target_guardian=True)
    target = await user_of(d1, game, t, people)
    record = await d1.record(game)
    notice = [m for m in d1.public_messages() if f"<@{target['id']}>" in m["content"] and "may guard" in m["content"]]
    assert notice
    old = notice[-1]
    guard = sorted(c for c in bot1.service.state(record)["hands"][t] if CARDS[c].kind == "guardian")[0]
    await fake.stop_bot(bot1)

    bot2 = await make_bot()                                   # a new process on the same database
    d2 = Driver(fake, bot2)
    assert (await d2.record(game)).version == record.version
    play = next(c["custom_id"] for c in iter_components(old["components"])
                if c.get("custom_id", "").endswith(":play"))
    last = max(fake.messages)
    await fake.click(target, old, play)
    await d2.settle()
    panel = d2.newest_ephemeral(target, after=last)
    assert panel is not None
    labels = [label for label, _ in labelled(panel)]
    assert labels == [f"GUARD with {CARDS[guard].short} (then draw 1)", "ALLOW (no defence)"]
    # instead of pressing GUARD the player pre-sets guardian_pref=auto_guard now: the window's timeout
    # then plays the Guardian (a pre-set answer beats the timeout default of no defence)
    await fake.slash(target, "game", "prefs", game="heaven", settings="guardian_pref=auto_guard")
    await d2.settle()
    assert (await state_of(d2, game))["stage"] == "react"
    fake.advance(24 * 3600 + 1)                               # the lobby's move timer (default)
    assert await bot2.flow.tick() >= 1
    await d2.settle()
    st = await state_of(d2, game)
    assert st["stage"] != "react" and guard in st["discard"]
    names = record.names
    assert any(f"{names[t]}'s time ran out; their move was played automatically." in text
               for text in public_texts(d2))
    assert any(f"{names[t]} guards with {CARDS[guard].short}!" in text for text in public_texts(d2))
    assert await bot2.service.replay_matches(game)


async def test_a_stale_panel_of_a_seat_whose_choice_is_in_says_so_and_whom_the_game_waits_for(
        fixed_seed, driver: Driver, players, bot: GameBot) -> None:
    """The simultaneous public sets: a player with two panels open chooses in one, then picks
    in the other: the game changes nothing and says, privately, in the reader's language, that
    the choice is in and whom it waits for (as the parked panel says), not "moved on"."""
    fake = driver.fake
    four = players[:4]
    game = await driver.start_game("heaven", four)
    alice, bob = four[:2]
    first, second = await driver.open_panel(alice, game), await driver.open_panel(alice, game)
    await driver.pick(alice, second, driver.choices(second)[0])
    record = await driver.record(game)
    others = ", ".join(f"<@{u['id']}>" for u in four[1:])
    mark = max(fake.messages)
    await driver.pick(alice, first, driver.choices(first)[1])
    assert driver.private_to(alice, mark) == [f"✓ Your choice is already in. Waiting for {others}."]
    fake.user_locales[bob["id"]] = "ja"
    first, second = await driver.open_panel(bob, game), await driver.open_panel(bob, game)
    await driver.pick(bob, second, driver.choices(second)[0])
    mark = max(fake.messages)
    await driver.pick(bob, first, driver.choices(first)[1])
    rest = ", ".join(f"<@{u['id']}>" for u in four[2:])
    assert driver.private_to(bob, mark) == [f"✓ あなたの選択は受け付け済みです。 {rest} を待っています。"]
    after = await driver.record(game)
    assert after.version == record.version + 1 and bot.service.waiting(after) == {2, 3}
