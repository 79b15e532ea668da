"""E Guan (惡貫) end to end through discord.py and the offline Discord: whole 3- and
4-player games to the final scores by panel clicks (with both end rules), the
placement preview carried by the private Play panel (and by no other game's), a restart
between a trouble-die roll and its ±1 decision, typed moves, ``/game rules``, and a
check that no hand, waiting pile, kept card or unrevealed skill choice reaches a
public message or the public board image (docs/rules/eguan.md §7, §11).

Positions that random play reaches too rarely (a kept card from an earlier turn when
a die card is played) are reached by ordinary clicks with a *rigged deck*: the
engine's ``sample_chance`` is wrapped so that listed outcomes are drawn when they are
possible. Every rigged outcome is a legal chance action, so the log still replays.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from bot.sandbox.fakecord import iter_components
from bot.service import format_names, ranks, texts
from engines.base import CHANCE, Action
from engines.eguan.data import CARDS, SKILLS
from engines.eguan.rules import active, board_counts, final_scoring, turns_taken
from engines.registry import GAME_IDS
from engines.registry import get as get_engine
from render import png
from render import registry as renders
from render.eguan import render_decision
from tests.e2e.driver import Driver, rig_chance

JSONDict = dict[str, Any]
ENGINE = get_engine("eguan")
NAV = ("◀ Prev", "Next ▶", "◀ Back")
QUIET = 0.005
SET_NAMES = [w for faces in SKILLS.values() for w in (faces[0].set_name_en, faces[0].set_name_zh)]


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``rig(action, ...)``: see ``tests.e2e.driver.rig_chance``."""
    return rig_chance(monkeypatch, ENGINE)


def deal(*hands: list[str]) -> list[Action]:
    """Chance draws that deal these hands (the deal fills seat 0 first, then seat 1 …)."""
    return [{"type": "draw", "card": c} for hand in hands for c in hand]


def panel_options(panel: JSONDict) -> list[tuple[str, str, str, str | None]]:
    """(label, kind, custom_id, value) of every action a panel offers (groups included);
    a select option's label is ``"name — description"`` as the engine wrote it."""
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


def public_text(message: JSONDict) -> str:
    parts = [message.get("content") or ""]
    for e in message.get("embeds") or []:
        parts += [e.get("title") or "", e.get("description") or ""]
        parts += [f"{f.get('name')} {f.get('value')}" for f in e.get("fields") or []]
        parts.append((e.get("footer") or {}).get("text") or "")
    return "\n".join(parts)


class Table:
    """Plays E Guan through panels: keeps each player's private panel open and re-opens
    it from the board when it no longer offers the current decision. After every click
    it checks the placement preview: present exactly while the seat chooses a placement."""

    def __init__(self, driver: Driver, game: int) -> None:
        self.d = driver
        self.fake = driver.fake
        self.game = game
        self.panels: dict[str, int] = {}
        self.previews = 0

    async def state(self) -> JSONDict:
        return self.d.bot.service.state(await self.d.record(self.game))

    async def seat_user(self, seat: int) -> JSONDict:
        record = await self.d.record(self.game)
        uid = str(record.user_of(seat))
        return next(m for m in self.fake.members if m["id"] == uid)

    async def settle(self) -> None:
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
        await self.check_preview(user, panel)
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

    async def check_preview(self, user: JSONDict, panel: JSONDict) -> None:
        """A panel carries the placement preview (one PNG, the exact render of the
        seat's own view) while its seat chooses a placement, and nothing otherwise."""
        record = await self.d.record(self.game)
        state = self.d.bot.service.state(record)
        seat = record.seat_of(int(user["id"]))
        pend = state.get("pending") or {}
        attachments = panel.get("attachments") or []
        if record.status == "active" and active(state) == seat and pend.get("step") == "place":
            assert [a["filename"] for a in attachments] == ["preview.png"], panel["content"]
            image = render_decision(ENGINE.player_view(state, seat), names=record.names, text=texts(record))
            assert image is not None
            data, _ = renders.encode(image, game_id=png.palette_key("eguan", "decision"))  # (bot/render_pool.py DECISION_PALETTE)
            assert self.fake.image_bytes(attachments[0]) == data
            lines = panel["content"].split("\n")  # (the text points at it, right below the prompt)
            prompt = next(i for i, line in enumerate(lines) if line.startswith("**"))
            assert lines[prompt + 1] == "🖼 The numbers are those on the picture below.", panel["content"]
            self.previews += 1
        else:
            assert attachments == [], panel["content"]
            assert "🖼" not in panel["content"]

    async def click(self, user: JSONDict, option: tuple[str, str, str, str | None]) -> None:
        label, kind, cid, value = option
        msg = self.fake.messages[self.panels[user["id"]]]
        if kind == "select":
            await self.fake.select(user, msg, cid, [str(value)])
        else:
            await self.fake.click(user, msg, cid)
        await self.settle()
        await self.check_preview(user, self.fake.messages[self.panels[user["id"]]])

    async def choose(self, seat: int, want: Callable[[str], bool] | str) -> str:
        """Click the first offered option whose label matches (a prefix or a predicate);
        steps through a group menu when the action is one level down. Returns the label."""
        match = (lambda label: label.startswith(want)) if isinstance(want, str) else want
        user = await self.seat_user(seat)
        for _ in range(4):
            panel = await self.panel(user)
            opts = panel_options(panel)
            hit = [o for o in opts if o[1] != "group" and match(o[0])]
            if hit:
                await self.click(user, hit[0])
                return hit[0][0]
            groups = [o for o in opts if o[1] == "group"]
            if not groups:
                break
            await self.click(user, groups[0])
        raise AssertionError(f"no option matching in {[o[0] for o in panel_options(await self.panel(user))]}")

    async def play_randomly(self, rng: random.Random, watch: LeakWatch | None = None,
                            max_steps: int = 1500) -> None:
        """Cheap random play by clicks until the game ends: cards are played more often
        than kept (as people do), ← Back is taken now and then."""
        for step in range(max_steps):
            record = await self.d.record(self.game)
            if record.status != "active":
                return
            state = self.d.bot.service.state(record)
            seat = rng.choice(sorted(ENGINE.to_move(state) - {CHANCE}))
            user = await self.seat_user(seat)
            panel = await self.panel(user)
            opts = [o for o in panel_options(panel) if o[1] != "group"]
            assert opts, panel["content"]
            plays = [o for o in opts if o[0].startswith(("Play ", "Extra: play ", "Stay at", "+1 ", "−1 "))]
            backs = [o for o in opts if o[0].startswith("← Back")]
            others = [o for o in opts if o not in backs]
            if backs and rng.random() < 0.05:
                pick = backs[0]
            elif plays and rng.random() < 0.75:
                pick = rng.choice(plays)
            else:
                pick = rng.choice(others)
            await self.click(user, pick)
            if watch is not None and step % 12 == 0:
                await watch.check()
        raise AssertionError("game did not end")


class LeakWatch:
    """Checks that nothing secret reaches a public artefact: channel messages and embeds
    never name a card held in a hand, a waiting pile or as a kept card (current or
    removed), nor a skill set before all are revealed; the public view holds none of
    those and the board image is exactly the render of the public view."""

    def __init__(self, driver: Driver, game: int) -> None:
        self.d = driver
        self.game = game
        self.checks = 0

    async def check(self) -> None:
        record = await self.d.record(self.game)
        state = self.d.bot.service.state(record)
        names = record.names
        n = state["players"]
        secret: dict[int, set[str]] = {}
        for s in range(n):
            cards = set(state["hands"][s]) | set(state["removed_kept"][s])
            cards |= {c for p in state["piles"][s] for c in p["cards"]}
            if state["kept"][s] is not None:
                cards.add(state["kept"][s]["card"])
            secret[s] = cards
        hidden = set().union(*secret.values()) | set(state["deck"])
        public_msgs = self.d.public_messages()
        text = "\n".join(public_text(m) for m in public_msgs)
        for card in hidden:
            c = CARDS[card]
            for word in (card, c.name_en, c.name_zh):
                assert word not in text, f"secret card {card} ({word}) in a public message"
        if any(x is None for x in state["skills"]):
            for word in SET_NAMES:
                assert word not in text, f"skill set {word} public before everyone chose"
        public = ENGINE.player_view(state, None)
        dump = json.dumps(public, ensure_ascii=False)
        for card in hidden:
            assert f'"{card}"' not in dump, card
        if any(x is None for x in state["skills"]):
            assert all(st["skill"] is None for st in public["seats"])
        # private views: each seat sees its own secrets and no other seat's
        for s in range(n):
            mine = json.dumps(ENGINE.player_view(state, s), ensure_ascii=False)
            for card in set(state["hands"][s]):
                assert f'"{card}"' in mine
            for other in range(n):
                if other != s:
                    for card in secret[other] - secret[s]:
                        assert f'"{card}"' not in mine, (card, s, other)
        # the board image is the public view drawn
        board = await self.d.board(self.game)
        assert len(board["attachments"]) == 1
        image = renders.board_image("eguan", public, names, texts(record))
        data, _ = renders.encode(image, self.d.bot.delivery.transport.upload_limit(record.guild_id), game_id="eguan")
        assert self.d.fake.image_bytes(board["attachments"][0]) == data
        self.checks += 1


async def choose_skills(table: Table, sets: list[str], watch: LeakWatch | None = None) -> None:
    """Each seat picks its skill set in its panel; before the last pick nothing public
    names a chosen set; the chooser's panel confirms privately."""
    for seat, letter_ in enumerate(sets):
        name = SKILLS[letter_][0].set_name_en
        label = await table.choose(seat, name)
        user = await table.seat_user(seat)
        panel = table.fake.messages[table.panels[user["id"]]]
        assert f"You chose {name}" in panel["content"]
        assert label.startswith(f"{name} {SKILLS[letter_][0].set_name_zh} — 1 ")
        if watch is not None and seat < len(sets) - 1:
            await watch.check()


async def assert_final(driver: Driver, game: int) -> JSONDict:
    """The end as players see it: one 🏁 message ranking everyone with the final scores,
    one public final-scores line, the board's Game over, and an exact replay."""
    record = await driver.record(game)
    assert record.status == "finished"
    state = driver.bot.service.state(record)
    result = final_scoring(state)
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    # the engine's scores are Infamy plus each held title's bonus (spec §8)
    counts = [board_counts(b) for b in state["boards"]]
    for s in range(state["players"]):
        bonus = sum(counts[s][k] for k in "HSK" if counts[s][k] == max(c[k] for c in counts) and counts[s][k])
        assert result["scores"][s] == state["infamy"][s] + bonus
    public = driver.fake.channel_messages(record.thread_id, ephemeral=False)
    ends = [await driver.final_message(game)]
    places = ranks(outcome)                   # (tied scores share a place: bot.ui.notices.ranking_lines)
    for seat in outcome.ranking:
        place = places[seat]
        line = f"{place}. <@{record.user_of(seat)}> — {result['scores'][seat]}"
        assert line in ends[0]["content"]
        if seat in outcome.winners:
            assert line + " 👑" in ends[0]["content"]
    finals = [m for m in public if "Final scores:" in m["content"]]
    assert len(finals) == 1
    rows = ", ".join(f"{record.names[s]} {result['scores'][s]}" for s in range(state["players"]))
    assert f"Final scores: {rows}." in finals[0]["content"]
    board = await driver.board(game)
    assert len(board["attachments"]) == 1
    assert board["embeds"][0]["description"].startswith("🏁 **Game over.** ")
    assert format_names(outcome.reason, record.names, "eguan") in board["embeds"][0]["description"]
    assert await driver.bot.service.replay_matches(game)
    return state


# --------------------------------------------------------------------------- whole games


async def test_three_player_game_to_the_final_scores_by_clicks(driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    game = await driver.start_game("eguan", [alice, bob, carol])
    record = await driver.record(game)
    assert record.thread_id is not None
    board = await driver.board(game)
    assert board["embeds"][0]["title"] == f"E Guan (惡貫) #{game}"
    assert board["embeds"][0]["image"]["url"] == "attachment://board.png"
    table = Table(driver, game)
    watch = LeakWatch(driver, game)
    await watch.check()
    await choose_skills(table, ["A", "C", "D"], watch)
    public = " ".join(public_text(m) for m in driver.public_messages())
    assert ("Skill sets: alice Thug (打手, set A), bob Fence (銷贓, set C), carol Ruffian (惡霸, set D)."
            in public)
    await table.play_randomly(random.Random(11), watch)
    await driver.settle()
    state = await assert_final(driver, game)
    assert state["options"]["end_rule"] == "equal_turns"
    assert len(set(turns_taken(state))) == 1             # everyone had the same number of turns
    assert table.previews > 20 and watch.checks > 5


async def test_four_player_game_with_one_more_each(driver: Driver, players, bot) -> None:
    alice, bob, carol, dave = players[:4]
    game = await driver.start_game("eguan", [alice, bob, carol, dave],
                                   options={"options": "end_rule=one_more_each"})
    record = await driver.record(game)
    assert record.options == {"end_rule": "one_more_each"}
    table = Table(driver, game)
    watch = LeakWatch(driver, game)
    await choose_skills(table, ["B", "B", "A", "C"])
    await table.play_randomly(random.Random(4), watch)
    await driver.settle()
    state = await assert_final(driver, game)
    # after the last draw every player took exactly one more turn, the drawer last
    entries = await bot.repo.log(game)
    events = [e for entry in entries for e in entry.events]
    trigger = next(e for e in events if e["kind"] == "end_trigger")
    after = [e["params"] for e in events[events.index(trigger):] if e["kind"] == "turn"]
    drawer = trigger["params"]["seat"]["seat"]
    assert texts(record).event(trigger) == f"{record.names[drawer]} draws the last card: the end is near."
    assert [t["seat"]["seat"] for t in after] == [(drawer + i) % 4 for i in range(1, 5)]
    assert turns_taken(state)[drawer] == max(turns_taken(state))


# --------------------------------------------------------------------------- the preview


async def table_with_k05(driver: Driver, players: list[JSONDict], rig: Any) -> Table:
    """A 3-player E Guan past the skills (A, B, C), alice to play first with K05 Graft and
    Swap (whose placement step has a preview) in her hand."""
    rig(*deal(["H02", "H01", "K05", "S05", "H09"], ["S01", "S03", "S07", "S08", "S10"],
              ["K01", "K03", "K07", "K08", "K10"]), {"type": "start", "seat": 0})
    game = await driver.start_game("eguan", players[:3])
    t = Table(driver, game)
    await choose_skills(t, ["A", "B", "C"])
    return t


async def test_a_preview_is_drawn_once_per_version_and_seat(driver: Driver, players, bot, rig,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    alice = players[0]
    t = await table_with_k05(driver, players, rig)
    renderer = bot.delivery.transport.renderer
    drawn: list[int] = []
    run = renderer.run

    async def counted(job: Any) -> Any:
        if job.kind == "decision":
            drawn.append(1)
        return await run(job)

    monkeypatch.setattr(renderer, "run", counted)
    await t.panel(alice)
    await t.choose(0, "Play K05 Graft and Swap")  # (the panel after the pick: the placement and its preview)
    first = t.fake.messages[t.panels[alice["id"]]]
    assert len(drawn) == 1
    t.panels.pop(alice["id"])
    again = await t.panel(alice)  # Play ▶ from the board at the same version: the same picture, not drawn again
    assert [a["filename"] for a in again["attachments"]] == ["preview.png"]
    assert t.fake.image_bytes(again["attachments"][0]) == t.fake.image_bytes(first["attachments"][0])
    assert len(drawn) == 1
    await t.choose(0, "← Back")  # (the pick taken back: a new version)
    await t.choose(0, "Play K05 Graft and Swap")
    assert len(drawn) == 2


async def test_placement_preview_comes_and_goes_with_the_placement_step(driver: Driver, players, bot,
                                                                         rig) -> None:
    alice, bob = players[:2]
    t = await table_with_k05(driver, players, rig)
    game = t.game
    panel = await t.panel(alice)   # (her skill panel, redrawn when the round came to her)
    assert "**Round 1: play a card or keep one face down (you have 2 Infamy).**" in panel["content"].splitlines()
    opts = [o[0] for o in panel_options(panel)]
    assert opts[:3] == ["Play H02 Walk On By — free · 🎲 trouble die", "Play H01 Crocodile Tears — free",
                        "Play K05 Graft and Swap — pay 2 Infamy"]
    assert not any(o.startswith("Play H09") for o in opts)   # needs H3: 4 Infamy, alice has 2
    assert "Keep H09 Stone Cold — face down, ends your turn" in opts
    await t.choose(0, "Play K05 Graft and Swap")
    panel = t.fake.messages[t.panels[alice["id"]]]
    assert panel["content"].startswith("✓ Play K05 Graft and Swap\n**Choose where to place the card")
    labels = [o[0] for o in panel_options(panel)]
    assert len(labels) == 19 and labels[-1] == "← Back: not K05 Graft and Swap"
    assert labels[0] == "1 ↑0° · Evil 1 — pay 2 Infamy → H1 S2 K2 E1"     # K05 (K H - S): its S covers the start H
    image = Image.open(io.BytesIO(t.fake.image_bytes(panel["attachments"][0])))
    assert image.width == 720  # render.eguan.PREVIEW_W
    # the public board and its prompt say nothing about the chosen card
    board = await driver.board(game)
    assert "Choose where to place the card you picked" in board["embeds"][0]["description"]
    assert "K05" not in public_text(board) and "Graft" not in public_text(board)
    # Back drops the preview; another card brings a new one; Play ▶ from the board too
    await t.choose(0, "← Back")
    assert t.fake.messages[t.panels[alice["id"]]]["attachments"] == []
    await t.choose(0, "Play H01 Crocodile Tears")
    t.panels.pop(alice["id"])
    panel = await t.panel(alice)                              # a fresh panel from the board
    assert panel["content"].startswith("**Choose where to place the card you picked")
    assert len(panel["attachments"]) == 1
    await t.choose(0, "5 ↓180°")
    state = await t.state()
    assert state["boards"][0][-1] == ["H01", 5, 180] and active(state) == 1
    assert t.fake.messages[t.panels[alice["id"]]]["attachments"] == []
    assert "alice plays H01 Crocodile Tears (虛情假意) at 5 ↓180°." in \
        " ".join(public_text(m) for m in driver.public_messages())
    # a typed move answers with the next decision and its preview
    last = max(t.fake.messages)
    await driver.fake.slash(bob, "eguan", "play", action="play S01")
    await t.settle()
    reply = driver.newest_ephemeral(bob, after=last)
    # (confirmed in the words of its button)
    assert reply is not None and reply["content"].startswith("✓ Play S01 Throw Your Weight Around\n**Choose where to place")
    assert [a["filename"] for a in reply["attachments"]] == ["preview.png"]
    assert t.previews >= 3
    assert await bot.service.replay_matches(game)


async def test_a_decision_without_a_picture_sends_no_attachment(driver: Driver, players, bot) -> None:
    """Carnival draws a picture only for Wrath's aim: its first decision (a sin) has none."""
    assert {"eguan", "heaven", "carnival"} <= {g for g in GAME_IDS if renders.has_decision(g)}
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    panel = await driver.open_panel(alice, game)
    assert panel["attachments"] == []
    edits_before = len(driver.fake.calls("PATCH", r"/webhooks/.*"))
    token = await driver.pick(alice, panel, driver.choices(panel)[0])
    # (the panel after the pick is the pick's answer itself, type 7: bot/ui/answers.py update_in_place)
    answer = driver.fake.interactions[token]["callback"]
    assert answer["type"] == 7 and answer["data"].get("attachments", []) == []
    edits = driver.fake.calls("PATCH", r"/webhooks/.*")[edits_before:]
    assert all((r.json or {}).get("attachments", []) == [] for r in edits)


# --------------------------------------------------------------------------- skill decisions


async def test_skill_decisions_by_clicks(driver: Driver, players, bot, rig) -> None:
    """Schemer 3 (move, with a preview of the card being moved), Thug 6 (target),
    Ruffian 3 (remove) and Schemer 6 (extra play, with a preview), all by clicks."""
    alice, bob, carol = players[:3]
    rig(*deal(["S02", "H01", "H03", "H05", "H07"], ["S04", "S01", "S03", "S05", "S07"],
              ["K04", "K02", "K01", "K03", "K05"]), {"type": "start", "seat": 0},
        *[{"type": "roll", "value": v} for v in (3, 6, 3, 6)])
    game = await driver.start_game("eguan", [alice, bob, carol])
    t = Table(driver, game)
    await choose_skills(t, ["B", "A", "D"])
    await t.choose(0, "Play S02 Stir Up Trouble")
    await t.choose(0, "1 ↑0°")                                 # rolls 3: B3 move
    panel = t.fake.messages[t.panels[alice["id"]]]
    assert "You may move one of your topmost cards (or skip)." in panel["content"]
    assert [o[0] for o in panel_options(panel)] == ["Move S02 Stir Up Trouble", "Skip"]
    await t.choose(0, "Move S02")                             # the preview shows the card lifted
    panel = t.fake.messages[t.panels[alice["id"]]]
    labels = [o[0] for o in panel_options(panel)]
    assert labels[0] == "1 ↑0° · Evil 2 — move (where it is) → H0 S1 K1 E2"
    assert labels[-1] == "← Back: move another card, or skip"
    assert len(panel["attachments"]) == 1
    await t.choose(0, "9 ↓180°")                              # covers the start E: E 1
    state = await t.state()
    assert state["boards"][0] == [["ST", 5, 0], ["S02", 9, 180]] and active(state) == 1
    await t.choose(1, "Play S04 Might Makes Right")
    await t.choose(1, "1 ↑0°")                                # rolls 6: A6 steal 2
    panel = t.fake.messages[t.panels[bob["id"]]]
    assert "Choose the player to steal 2 Infamy from." in panel["content"]
    assert [o[0] for o in panel_options(panel)] == ["Steal 2 from carol — has 2 Infamy",
                                                    "Steal 2 from alice — has 3 Infamy"]
    await t.choose(1, "Steal 2 from alice")
    state = await t.state()
    assert state["infamy"][:2] == [1, 2 + 2 + 1]              # bob: +2 stolen, +1 income
    await t.choose(2, "Play K04 Fish in Troubled Waters")
    await t.choose(2, "5 ↑0°")                                # rolls 3: D3 remove
    panel = t.fake.messages[t.panels[carol["id"]]]
    assert [o[0] for o in panel_options(panel)] == ["Remove alice's S02 Stir Up Trouble",
                                                    "Remove bob's S04 Might Makes Right"]
    await t.choose(2, "Remove bob's S04")
    state = await t.state()
    assert state["boards"][1] == [["ST", 5, 0]] and state["removed_cards"] == [{"seat": 1, "card": "S04"}]
    await t.choose(0, "Play K02 Flimflam")                    # carol's pile: K02 K01 K03 K05
    await t.choose(0, "3 ↑0°")                                # rolls 6: B6 extra play
    panel = t.fake.messages[t.panels[alice["id"]]]
    assert "You may play one more card, without the die (or skip)." in panel["content"]
    assert [o[0] for o in panel_options(panel)][:2] == ["Extra: play K01 Pickpocket — free",
                                                        "Extra: play K03 Petty Thief — free"]
    await t.choose(0, "Extra: play K01")
    assert len(t.fake.messages[t.panels[alice["id"]]]["attachments"]) == 1
    await t.choose(0, "7 ↑0°")
    state = await t.state()
    assert [p[0] for p in state["boards"][0]] == ["ST", "S02", "K02", "K01"] and active(state) == 1
    public = " ".join(public_text(m) for m in driver.public_messages())
    for line in ("alice moves S02 Stir Up Trouble (惹是生非) to 9 ↓180°.", "bob steals 2 Infamy from alice.",
                 "carol removes S04 Might Makes Right (恃強凌弱) from bob's board.",
                 "alice plays K01 Pickpocket (順手牽羊) at 7 ↑0°."):
        assert line in public, line
    assert t.previews >= 4
    assert await bot.service.replay_matches(game)


# --------------------------------------------------------------------------- restart


async def restart(fake, make_bot, old) -> tuple[Driver, Any]:
    await fake.stop_bot(old)
    bot = await make_bot()                      # a new process on the same database file
    return Driver(fake, bot), bot


async def test_restart_between_the_roll_and_the_die_modifier(fake, make_bot, players, rig) -> None:
    alice, bob, carol = players[:3]
    # carol passes her die card S02 (free) to alice, who kept H01 in round 1
    rig(*deal(["H01", "H03", "H05", "H07", "H08"], ["S01", "S03", "S05", "S07", "S08"],
              ["K01", "S02", "K03", "K05", "K07"]), {"type": "start", "seat": 0}, {"type": "roll", "value": 4})
    d1 = Driver(fake, await make_bot())
    game = await d1.start_game("eguan", [alice, bob, carol])
    t = Table(d1, game)
    await choose_skills(t, ["A", "A", "A"])
    await t.choose(0, "Keep H01 Crocodile Tears")
    await t.choose(1, "Keep S01")
    await t.choose(2, "Keep K01")
    state = await t.state()
    assert state["round"] == 2 and active(state) == 0 and state["kept"][0] == {"card": "H01", "turn": 1}
    assert {"S02", "K03", "K05", "K07"} <= set(state["hands"][0]) and len(state["hands"][0]) == 5
    infamy = state["infamy"][0]
    await t.choose(0, "Play S02 Stir Up Trouble")
    await t.choose(0, "1 ↑0°")                   # S02 (E - - -) at 1: E at (0,0)
    state = await t.state()
    assert state["pending"] == {"step": "adjust"} and state["die"] == {"roll": 4, "value": 4}
    panel = t.fake.messages[t.panels[alice["id"]]]
    assert panel["attachments"] == []
    assert "You rolled 4: spend your kept card to change it by 1?" in panel["content"]
    old_board = await d1.board(game)
    assert "You rolled 4" in old_board["embeds"][0]["description"]
    d2, bot2 = await restart(fake, make_bot, d1.bot)
    # the old board's Play ▶ opens a fresh panel with the modifier choice
    play = next(c["custom_id"] for c in iter_components(old_board["components"])
                if c.get("custom_id", "").endswith(":play"))
    last = max(fake.messages)
    await fake.click(alice, old_board, play)
    await d2.settle()
    panel = d2.newest_ephemeral(alice, after=last)
    assert panel is not None
    labels = [o[0] for o in panel_options(panel)]
    assert labels == ["−1 → 3 — spends your kept card: gain 1 Infamy", "Stay at 4 — no effect",
                      "+1 → 5 — spends your kept card: steal 1 from a richer player"]
    option = next(o for o in panel_options(panel) if o[0].startswith("−1"))
    assert option[1] == "select"                  # labels with hints are a select menu
    await fake.select(alice, panel, option[2], [str(option[3])])
    await d2.settle()
    state = bot2.service.state(await d2.record(game))
    assert state["kept"][0] is None and state["removed_kept"][0] == ["H01"]
    events = [e for entry in await bot2.repo.log(game) for e in entry.events]
    adjusts = [e for e in events if e["kind"] == "adjust"]
    assert [e["params"] for e in adjusts] == [{"seat": {"seat": 0}, "delta": -1, "value": 3}]
    assert texts(await d2.record(game)).event(adjusts[0]) == "alice spends the kept card to turn the die into 3."
    assert [e["params"]["face"] for e in events if e["kind"] == "face"] == ["A3"]
    e = board_counts(state["boards"][0])["E"]
    assert state["infamy"][0] == infamy + 1 + e       # A3 gains 1, then income
    assert active(state) == 1
    public = " ".join(public_text(m) for m in d2.public_messages())
    assert "alice spends the kept card to turn the die into 3." in public
    assert "alice's A3: Gain 1 Infamy." in public and "H01" not in public
    assert await bot2.service.replay_matches(game)
