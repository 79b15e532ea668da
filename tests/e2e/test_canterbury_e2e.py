"""The Road to Canterbury end to end through discord.py and the offline Discord: whole
2- and 3-player games by panel clicks, restarts in the middle of multi-step relics and
with a Last Rites prompt pending, typed moves with autocomplete, and a check that no
hand or coin total ever reaches a public message (spec canterbury §7, D20).

Positions that random play reaches too rarely (a chosen relic in hand, a Last Rites
token) are reached by ordinary clicks with a *rigged deck*: the engine's
``sample_chance`` is wrapped so that listed outcomes are drawn when they are possible.
Every rigged outcome is a legal chance action, so the log still replays exactly.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from bot.sandbox.fakecord import iter_components
from bot.service import format_names, ranks
from bot.text import Texts
from engines.canterbury.data import CARDS
from engines.registry import get as get_engine
from tests.e2e.driver import Driver, rig_chance

JSONDict = dict[str, Any]
ENGINE = get_engine("canterbury")
NAV = ("◀ Prev", "Next ▶", "◀ Back")
QUIET = 0.005
CATALOG = Texts("canterbury", [])


def card_name(kind: str) -> str:
    """A card's English name from the catalog ("Greed (Sin card)")."""
    return CATALOG.template(f"term.card.{kind}")


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``rig(action, ...)``: see ``tests.e2e.driver.rig_chance``."""
    return rig_chance(monkeypatch, ENGINE)


def panel_options(panel: JSONDict) -> list[tuple[str, str, str, str | None]]:
    """(label, kind, custom_id, value) of every action a panel offers (groups included)."""
    out: list[tuple[str, str, str, str | None]] = []
    for c in iter_components(panel.get("components") or []):
        cid = c.get("custom_id", "")
        if c.get("disabled"):
            continue
        if cid.startswith("a:"):
            out.append((c["label"], "button", cid, None))
        elif cid.startswith("as:"):
            out += [(o["label"] + (f" — {o['description']}" if o.get("description") else ""),
                     "select", cid, o["value"]) for o in c["options"]]
        elif cid.startswith("n:") and c.get("label") not in NAV:
            out.append((c["label"], "group", cid, None))
    return out


def _matcher(want: Callable[[str], bool] | str) -> Callable[[str], bool]:
    return (lambda label: label.startswith(want)) if isinstance(want, str) else want


class Table:
    """Plays Canterbury through panels: keeps each player's private panel open and
    re-opens it from the board when it no longer offers a decision."""

    def __init__(self, driver: Driver, game: int, haste: float = 0.75) -> None:
        self.d = driver
        self.fake = driver.fake
        self.game = game
        self.haste = haste
        self.panels: dict[str, int] = {}

    async def state(self) -> JSONDict:
        record = await self.d.record(self.game)
        return self.d.bot.service.state(record)

    async def seat_user(self, seat: int) -> JSONDict:
        record = await self.d.record(self.game)
        uid = str(record.user_of(seat))
        return next(m for m in self.fake.members if m["id"] == uid)

    async def settle(self) -> None:
        """Like ``Driver.settle`` with shorter quiet periods: the flow's own idle wait
        covers every handler and board edit, the fake's idle only the gateway hop."""
        await self.fake.idle(QUIET)
        await self.d.bot.flow.wait_idle()
        await self.fake.idle(QUIET)

    async def open_panel(self, user: JSONDict) -> JSONDict:
        """Press Play ▶ on the current board; returns the private panel."""
        board = await self.d.board(self.game)
        play = next(c["custom_id"] for c in iter_components(board["components"])
                    if c.get("custom_id", "").endswith(":play"))
        last = max(self.fake.messages)
        await self.fake.click(user, board, play)
        await self.settle()
        panel = self.d.newest_ephemeral(user, after=last)
        assert panel is not None, "no panel arrived"
        return panel

    async def panel(self, user: JSONDict) -> JSONDict:
        """The user's panel showing the current decision (opened from the board if needed)."""
        version = (await self.d.record(self.game)).version
        mid = self.panels.get(user["id"])
        if mid is not None:
            msg = self.fake.messages[mid]
            opts = panel_options(msg)
            if opts and all(f":{version}:" in cid for _, _, cid, _ in opts):
                return msg
        msg = await self.open_panel(user)
        self.panels[user["id"]] = int(msg["id"])
        return msg

    async def click(self, user: JSONDict, option: tuple[str, str, str, str | None]) -> None:
        label, kind, cid, value = option
        msg = self.fake.messages[self.panels[user["id"]]]
        if kind == "select":
            await self.fake.select(user, msg, cid, [str(value)])
        else:
            await self.fake.click(user, msg, cid)
        await self.settle()

    async def choose(self, seat: int, want: Callable[[str], bool] | str,
                     via: Callable[[str], bool] | str | None = None) -> str:
        """Click the first offered option whose label matches (a prefix or a predicate);
        when it is not offered yet, open the step matching ``via`` (the card of a card
        play; any step when None) and look there. Returns the label."""
        match = _matcher(want)
        step = _matcher(via) if via is not None else (lambda label: True)
        user = await self.seat_user(seat)
        for _ in range(4):
            panel = await self.panel(user)
            opts = panel_options(panel)
            hit = [o for o in opts if o[1] != "group" and match(o[0])]
            if hit:
                await self.click(user, hit[0])
                return hit[0][0]
            groups = [o for o in opts if (o[1] == "group" or str(o[3]).startswith("s")) and step(o[0])]
            single = [o for o in opts if o not in groups and via is not None and step(o[0])]
            if not groups and single:  # a card with one target: its step is the action itself
                await self.click(user, single[0])
                return single[0][0]
            assert groups, f"no option like {want!r} in {[o[0] for o in opts]}"
            await self.click(user, groups[0])
        raise AssertionError(f"never found {want!r}")

    async def step(self, rng: random.Random) -> None:
        """One decision by the player the game waits for, picked like a casual player in a
        hurry: never ← Back, rarely pass or stop early, often a Sin card onto the pilgrim
        closest to death (``haste``) so that a whole game fits in the time budget."""
        users = await self.d.waiting_users(self.game)
        assert len(users) == 1, users                      # only the active player acts (§4)
        user = users[0]
        for _ in range(4):
            panel = await self.panel(user)
            opts = panel_options(panel)
            assert opts, panel["content"]
            for label, *_ in opts:
                assert 0 < len(label) <= 100, label
            acts = [o for o in opts if o[1] != "group"]
            if not acts:
                await self.click(user, rng.choice(opts))
                continue
            keen = [o for o in acts if not o[0].startswith(("← Back", "Pass", "Done"))]
            if keen and rng.random() < self.haste:
                # hurry the pilgrims along: a Sin card onto the fullest pilgrim, blind Sin draws
                fill = {o: re.search(r" \((?:red|yellow|blue), (\d+)/7", o[0]) for o in keen}
                sins = [o for o in keen if fill[o]]
                picks = [o for o in keen if o[0].startswith("Play ") and "(Sin card)" in o[0]]
                draws = [o for o in keen if o[0].startswith("Draw blind from the Sin deck")]
                if sins:
                    await self.click(user, max(sins, key=lambda o: int(fill[o][1])))  # type: ignore[index]
                    return
                if picks or draws:
                    await self.click(user, rng.choice(picks or draws))
                    return
            pool = keen if keen and rng.random() < 0.9 else [o for o in acts if o[0] != "← Back"] or acts
            await self.click(user, rng.choice(pool))
            return
        raise AssertionError("the panel never offered an action")


def public_text(message: JSONDict) -> str:
    return message["content"] + " " + " ".join(str(e) for e in message["embeds"])


class LeakWatch:
    """After every decision: no public message (content or embed) shows a hand card or a
    coin total, compared against each seat's private view and the private events."""

    COINS = re.compile(r"(\d+) coin")

    def __init__(self, driver: Driver, game: int) -> None:
        self.d = driver
        self.game = game
        self.seen = 0
        self.public_lines: set[str] = set()
        self.private_lines: set[str] = set()
        self.payouts: set[int] = set()
        self.log_len = 0
        self.checks = 0

    async def check(self) -> None:
        bot = self.d.bot
        record = await self.d.record(self.game)
        state = bot.service.state(record)
        log = await bot.repo.log(self.game)
        step_payouts: set[int] = set()
        for entry in log[self.log_len:]:
            for e in entry.events:
                line = format_names(e, record.names, record.game_id)
                if e["visible_to"] is None:
                    self.public_lines.add(line)
                    params = e.get("params") or {}
                    for key in ("coins", "award"):
                        if isinstance(params.get(key), int):
                            step_payouts.add(params[key])
                    if e["kind"] == "hildegard":
                        step_payouts.add(5)
                else:
                    self.private_lines.add(line)
        self.log_len = len(log)
        self.payouts |= step_payouts
        over = record.status == "finished"
        views = [ENGINE.player_view(state, s) for s in range(state["players"])]
        public = ENGINE.player_view(state, None)
        assert "hand" not in public and "coins" not in public and "notes" not in public
        hand_names = {card_name(k) for v in views for k in v["hand"]}
        messages = self.d.public_messages()
        fresh = [m for m in messages if int(m["id"]) > self.seen]
        board = await self.d.board(self.game)
        if board not in fresh:
            fresh.append(board)                           # the board is edited in place
        self.seen = max([int(m["id"]) for m in messages] + [self.seen])
        for m in fresh:
            text = public_text(m)
            for line in self.private_lines:
                assert line not in text, line
            rest = text
            for line in sorted(self.public_lines, key=len, reverse=True):
                rest = rest.replace(line, "")
            for name in hand_names:
                assert name not in rest, (name, rest)
            if over and ("Final scoring" in text or "Game over" in text or text.startswith("🏁")):
                continue
            for amount in self.COINS.findall(text):
                assert int(amount) in self.payouts, (amount, text)
            for v in views:
                if v["coins"] not in step_payouts:
                    assert f" {v['coins']} coin" not in rest, (v["coins"], rest)
        self.checks += 1


async def play_through(table: Table, rng: random.Random, watch: LeakWatch | None = None,
                       max_steps: int = 600) -> None:
    for _ in range(max_steps):
        record = await table.d.record(table.game)
        if record.status != "active":
            return
        await table.step(rng)
        if watch is not None:
            await watch.check()
    raise AssertionError("the game did not end")


async def assert_final(driver: Driver, game: int) -> None:
    """The game is over, the 🏁 message ranks everyone with the engine's totals, and the
    log replays to the stored state."""
    bot = driver.bot
    record = await driver.record(game)
    assert record.status == "finished"
    state = bot.service.state(record)
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    final = ENGINE.player_view(state, None)["final"]
    assert state["deaths"] == 5 or state["turn"] > 600
    assert outcome.scores == tuple(float(t) for t in final["totals"])
    for q in range(state["players"]):
        parts = final["coins"][q] + final["road"][q] + sum(final["companies"][c][q] for c in final["companies"])
        assert parts + final["tokens"][q] == final["totals"][q]
    ends = [await driver.final_message(game)]
    winners = ", ".join(record.names[w] for w in sorted(outcome.winners))
    assert f"{winners} wins with" in ends[0]["content"] or "Shared win" in ends[0]["content"]
    board = await driver.board(game)
    assert "{p" not in ends[0]["content"] and "{p" not in board["embeds"][0]["description"]
    places = ranks(outcome)                   # (tied scores share a place: bot.ui.notices.ranking_lines)
    for seat in outcome.ranking:
        place = places[seat]
        assert f"{place}. <@{record.user_of(seat)}> — {final['totals'][seat]}" in ends[0]["content"]
    scoring = [m for m in driver.fake.channel_messages(record.thread_id, ephemeral=False)
               if "Final scoring —" in m["content"]]
    assert len(scoring) == 1
    assert await bot.service.replay_matches(game)


# --------------------------------------------------------------------------- whole games


async def test_two_player_game_to_the_final_scores_by_clicks(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    game = await driver.start_game("canterbury", [alice, bob])
    record = await driver.record(game)
    assert record.options == {"edition": "2021"}
    board = await driver.board(game)
    assert board["embeds"][0]["title"] == f"The Road to Canterbury #{game}"
    table = Table(driver, game)
    watch = LeakWatch(driver, game)
    await watch.check()
    await play_through(table, random.Random(21), watch)
    await driver.settle()
    await watch.check()
    assert watch.checks > 50
    await assert_final(driver, game)
    board = await driver.board(game)
    assert len(board["attachments"]) == 1
    assert "Game over" in board["embeds"][0]["description"]


async def test_three_player_2011_edition_game_by_clicks(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    game = await driver.start_game("canterbury", [alice, bob, carol],
                                   options={"options": "edition=2011"})  # /game new … options:edition=2011
    record = await driver.record(game)
    assert record.options == {"edition": "2011"}
    state = bot.service.state(record)
    assert state["options"]["edition"] == "2011" and state["players"] == 3
    table = Table(driver, game)
    watch = LeakWatch(driver, game)
    await play_through(table, random.Random(5), watch)
    await driver.settle()
    await watch.check()
    await assert_final(driver, game)


# --------------------------------------------------------------------------- restarts


def is_sin_card(label: str) -> bool:
    return label.startswith("Play ") and "(Sin card)" in label


def on(company: str) -> Callable[[str], bool]:
    return lambda label: f"({company}, " in label and "/7" in label


async def refill(table: Table, seat: int, source: str) -> None:
    """Draw blind from ``source`` until the hand is full (T2 is over)."""
    while (await table.state())["stack"][-1] == {"f": "turn", "stage": "t2"}:
        await table.choose(seat, f"Draw blind from the {source} deck")


async def play_sin_and_draw(table: Table, seat: int, company: str, source: str) -> None:
    """A whole ordinary turn by clicks: a Sin card onto ``company``, one card drawn."""
    await table.choose(seat, on(company), via=is_sin_card)
    await table.choose(seat, f"Draw blind from the {source} deck")


async def restart(fake, make_bot, old) -> tuple[Driver, Any]:
    await fake.stop_bot(old)
    bot = await make_bot()                      # a new process on the same database file
    return Driver(fake, bot), bot


async def press_old(fake, driver: Driver, user: JSONDict, message: JSONDict,
                    want: Callable[[str], bool]) -> JSONDict:
    """Press, on a message from before the restart, the component whose label matches;
    a board's Play ▶ answers with a fresh panel, which is returned."""
    last = max(fake.messages)
    for label, kind, cid, value in panel_options(message) + [
            (c.get("label", ""), "button", c["custom_id"], None)
            for c in iter_components(message["components"]) if c.get("custom_id", "").startswith("g:")]:
        if want(label):
            if kind == "select":
                await fake.select(user, message, cid, [str(value)])
            else:
                await fake.click(user, message, cid)
            await driver.settle()
            return driver.newest_ephemeral(user, after=last) or fake.messages[int(message["id"])]
    raise AssertionError(f"nothing to press in {[o[0] for o in panel_options(message)]}")


async def test_restart_in_the_middle_of_benedict_philip_and_isidore(fake, make_bot, players, rig) -> None:
    alice, bob = players[:2]
    rig({"type": "first_player", "seat": 0},
        {"type": "reveal", "card": "relic-benedict"}, {"type": "reveal", "card": "relic-philip"},
        {"type": "reveal", "card": "relic-isidore"})
    d1 = Driver(fake, await make_bot())
    game = await d1.start_game("canterbury", [alice, bob])
    t = Table(d1, game)
    await play_sin_and_draw(t, 0, "red", "Relic")          # alice draws St. Benedict's Eggs
    assert "relic-benedict" in (await t.state())["hands"][0]
    await play_sin_and_draw(t, 1, "yellow", "Pardon")

    # St. Benedict: steal a random Sin card from bob, then restart before giving one back
    await t.choose(0, "Benedict: take a random Sin card from bob", via="Play St. Benedict's Scrambled Eggs")
    state = await t.state()
    assert state["stack"][-1]["f"] == "give"
    panel = t.fake.messages[t.panels[alice["id"]]]
    assert "St. Benedict: choose a card to give to bob." in panel["content"]
    gives = [o[0] for o in panel_options(panel)]
    assert gives and all(g.startswith("Give ") for g in gives)
    hands = [list(h) for h in state["hands"]]
    d2, bot2 = await restart(fake, make_bot, d1.bot)
    await press_old(fake, d2, alice, panel, lambda label: label == gives[0])  # the old panel's button
    t = Table(d2, game)
    state = await t.state()
    given = next(k for k in hands[0] if card_name(k) == gives[0][len("Give "):])
    assert len(state["hands"][0]) == 4 and len(state["hands"][1]) == 5
    assert sorted(state["hands"][1]) == sorted(hands[1] + [given])
    assert state["stack"][-1] == {"f": "turn", "stage": "t2"}
    public = " ".join(public_text(m) for m in d2.public_messages())
    assert "alice gives a card to bob: a card was exchanged." in public
    assert f"gives {card_name(given)}" not in public           # only alice and bob know which
    await t.choose(0, "Draw blind from the Relic deck")       # St. Philip's Finger
    await play_sin_and_draw(t, 1, "yellow", "Pardon")

    # St. Philip: "later", a follow-up Sin card, then restart with the second window open
    await t.choose(0, "Philip: move the Parson", via="Play St. Philip's Accusing Finger")
    await t.choose(0, "Move the Parson later")
    await t.choose(0, on("blue"), via=is_sin_card)
    state = await t.state()
    assert state["stack"][-1]["f"] == "philip" and state["stack"][-1]["stage"] == "after"
    parson = state["parson"]
    old_board = await d2.board(game)
    d3, bot3 = await restart(fake, make_bot, d2.bot)
    panel = await press_old(fake, d3, alice, old_board, lambda label: label == "Play ▶")
    assert "St. Philip: move the Parson now, or leave it." in panel["content"]
    labels = [o[0] for o in panel_options(panel)]
    target = next(s for s in ("Pride", "Sloth") if s.lower() != parson)
    move = f"{ {'Pride': 1, 'Sloth': 7}[target]} · Move the Parson to {target}"  # (its number on the picture)
    assert move in labels and "Leave the Parson where it is" in labels
    await press_old(fake, d3, alice, panel, lambda label: label == move)
    t = Table(d3, game)
    assert (await t.state())["parson"] == target.lower()
    await t.choose(0, "Draw blind from the Relic deck")       # St. Isidore's Eyeball
    await refill(t, 0, "Pardon")
    await play_sin_and_draw(t, 1, "yellow", "Pardon")

    # St. Isidore: three Pardon cards seen, restart before keeping one
    await t.choose(0, "Isidore: look at 3 Pardon cards, keep 1", via="Play St. Isidore's Eyeball")
    state = await t.state()
    frame = state["stack"][-1]
    assert frame["f"] == "isidore" and len(frame["drawn"]) == 3
    old_board = await d3.board(game)
    d4, bot4 = await restart(fake, make_bot, d3.bot)
    panel = await press_old(fake, d4, alice, old_board, lambda label: label == "Play ▶")
    assert "St. Isidore: choose the card to keep." in panel["content"]
    keep = sorted(frame["drawn"])[0]
    await press_old(fake, d4, alice, panel, lambda label: label == f"Keep {card_name(keep)}")
    t = Table(d4, game)
    state = await t.state()
    assert keep in state["hands"][0]
    rest = list(frame["drawn"])
    rest.remove(keep)
    assert state["discards"]["pardon"][-2:] == rest
    top = state["stack"][-1]
    if top["f"] == "play":                                   # the optional follow-up
        assert top["ctx"] == "followup"
        await t.choose(0, "Done")
    state = await t.state()                                   # hand full again: bob's turn
    assert state["active"] == 1 and state["stack"][-1]["ctx"] == "main" and len(state["hands"][0]) == 5
    assert await bot4.service.replay_matches(game)


async def test_restart_with_a_last_rites_prompt_pending(fake, make_bot, players, rig) -> None:
    alice, bob = players[:2]
    rig({"type": "first_player", "seat": 0})
    d1 = Driver(fake, await make_bot())
    game = await d1.start_game("canterbury", [alice, bob])
    t = Table(d1, game)
    for turn in range(6):                                   # six Sin cards onto red …
        await play_sin_and_draw(t, turn % 2, "red", "Pardon")
    label = await t.choose(0, on("red"), via=is_sin_card)  # … and alice's seventh dooms it
    assert "(red, 7/7: doomed, +token)" in label, label
    await t.choose(0, "Draw blind from the Pardon deck")
    state = await t.state()
    assert state["active"] == 0 and state["stack"][-1] == {"f": "turn", "stage": "t4"}
    assert state["tokens"] == [1, 0] and state["token_supply"] == 4 and state["deaths"] == 1
    assert state["road"][0] == [1, 1]                      # died unpardoned: a cube each
    old_board = await d1.board(game)
    assert "Use a Last Rites token to take another turn?" in old_board["embeds"][0]["description"]
    d2, bot2 = await restart(fake, make_bot, d1.bot)
    panel = await press_old(fake, d2, alice, old_board, lambda label: label == "Play ▶")
    labels = [o[0] for o in panel_options(panel)]
    assert labels == ["Use Last Rites (take another turn)", "Keep the token (+3 at the end)"]
    await press_old(fake, d2, alice, panel, lambda label: label.startswith("Use Last Rites"))
    state = bot2.service.state(await d2.record(game))
    assert state["active"] == 0 and state["lastrites_turn"] and state["tokens"] == [0, 0]
    board = await d2.board(game)
    assert "(Last Rites turn)" in board["embeds"][0]["description"]
    public = " ".join(public_text(m) for m in d2.public_messages())
    assert "alice uses Last Rites and takes another turn." in public
    assert await bot2.service.replay_matches(game)


# --------------------------------------------------------------------------- typed moves


async def test_typed_whole_moves_with_autocomplete(driver: Driver, players, bot, rig) -> None:
    alice, bob = players[:2]
    rig({"type": "first_player", "seat": 0})
    game = await driver.start_game("canterbury", [alice, bob])
    record = await driver.record(game)
    state = bot.service.state(record)
    sins = [k for k in CARDS if k in state["hands"][0]]          # setup deals Sin cards only
    choices = await driver.fake.autocomplete(alice, "canterbury", "play", focused="action", action="")
    expected = [f"sin {k[4:]} {co}" for k in sins for co in ("red", "yellow", "blue")] + ["pass"]
    assert [c["value"] for c in choices] == expected
    first = choices[0]
    assert first["name"].startswith(f"{expected[0]} · {card_name(sins[0])[:-11]} on the ")
    narrowed = await driver.fake.autocomplete(alice, "canterbury", "play", focused="action", action="yel")
    assert [c["value"] for c in narrowed] == [v for v in expected if v.endswith(" yellow")]
    # a whole move typed at once, as the spec writes it
    version = record.version
    await driver.fake.slash(alice, "canterbury", "play", action=expected[0])
    await driver.settle()
    state = bot.service.state(await driver.record(game))
    assert state["companies"]["red"]["cards"] == [{"kind": sins[0], "up": True}]
    assert state["stack"][-1] == {"f": "turn", "stage": "t2"}
    choices = await driver.fake.autocomplete(alice, "canterbury", "play", focused="action", action="deck")
    assert [c["value"] for c in choices] == ["draw sin-deck", "draw pardon-deck", "draw relic-deck"]
    await driver.fake.slash(alice, "canterbury", "play", action="draw pardon-deck")
    await driver.settle()
    assert (await driver.record(game)).version > version
    # bob: an impossible move is refused privately and changes nothing
    version = (await driver.record(game)).version
    last = max(driver.fake.messages)
    await driver.fake.slash(bob, "canterbury", "play", action="sin greed purple")
    await driver.settle()
    reply = driver.newest_ephemeral(bob, after=last)
    assert reply is not None and reply["content"].startswith("⚠️")
    assert (await driver.record(game)).version == version
    # bob passes typing his discards: pays 3 coins, the cards are shown, T2 follows
    hand = bot.service.state(await driver.record(game))["hands"][1]
    out = hand[:2]
    await driver.fake.slash(bob, "canterbury", "play", action=f"pass discard {','.join(out)}")
    await driver.settle()
    state = bot.service.state(await driver.record(game))
    view = ENGINE.player_view(state, 1)
    assert view["coins"] == 0 and len(view["hand"]) == 3
    assert state["discards"]["sin"][-2:] == out
    public = " ".join(public_text(m) for m in driver.public_messages())
    assert (f"bob plays no card, pays the fine and discards {card_name(out[0])}, {card_name(out[1])}."
            in public)
    assert "You pay 3 coins." not in public
    assert await bot.service.replay_matches(game)
