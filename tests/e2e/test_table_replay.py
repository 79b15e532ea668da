"""Replays and export end to end: ``/game replay`` shows a finished
game's public board step by step (◀ ▶ and a jump menu, edited in place, only for the one
who asked); its last step is the final public board; an unfinished game is refused.
``/game export`` attaches the log as JSON and text with public information only."""

from __future__ import annotations

import io
import json
import random
import re
from typing import Any

import pytest
from PIL import Image

from bot.sandbox.fakecord import EPHEMERAL, iter_components
from bot.service import texts
from engines.base import CHANCE
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def private_messages(driver: Driver, user: JSONDict, after: int) -> list[JSONDict]:
    fake = driver.fake
    return [m for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


def button(message: JSONDict, verb: str) -> JSONDict:
    return next(c for c in iter_components(message["components"]) if c.get("custom_id", "").endswith(f":{verb}"))


@pytest.mark.parametrize(("game_id", "count"), [("carnival", 3), ("illumination", 2)])
async def test_replay_steps_through_the_public_boards_and_export_is_public(driver: Driver, players, bot,
                                                                           game_id: str, count: int) -> None:
    fake = driver.fake
    people = players[:count]
    game = await driver.start_game(game_id, people)
    mark = max(fake.messages)
    await fake.slash(people[0], "game", "replay", game=game)
    await driver.settle()
    assert "has not finished" in private_messages(driver, people[0], mark)[-1]["content"]
    record = await driver.play_to_end(game, random.Random(6))
    steps = await bot.service.replay_steps(record)
    engine = bot.service.engine(record)
    assert steps[-1].view == engine.player_view(bot.service.state(record), None)
    # one step per player entry, plus Carnival's pause inside its automatic round 7 (a chance entry)
    assert [s.seat for s in steps[1:] if s.seat != CHANCE] == [
        e.seat for e in await bot.repo.log(game) if e.kind == "player"]
    assert [s.seat for s in steps].count(CHANCE) == (game_id == "carnival")
    viewer = players[count]                                          # anyone in the server may watch a replay
    mark = max(fake.messages)
    await fake.slash(viewer, "game", "replay", game=game)
    await driver.settle()
    (replay,) = private_messages(driver, viewer, mark)
    assert replay["embeds"][0]["description"].startswith(f"Step 0 of {len(steps) - 1}")
    assert button(replay, "prev")["disabled"] and replay["attachments"]
    first = replay["attachments"][0]["id"]
    await fake.click(viewer, replay, button(replay, "next")["custom_id"])
    await driver.settle()
    replay = fake.messages[int(replay["id"])]
    assert replay["embeds"][0]["description"].startswith(f"Step 1 of {len(steps) - 1}")
    assert replay["attachments"][0]["id"] != first
    Image.open(io.BytesIO(fake.blobs[replay["attachments"][0]["id"]])).verify()
    jump = next(c for c in iter_components(replay["components"]) if c.get("custom_id") == f"tj:{game}")
    # the jump menu names the rulebook's units: Carnival's 7 rounds, Illumination's turns (spec §4.1)
    labels = [o["label"] for o in jump["options"]]
    names = [p["username"] for p in people]
    if game_id == "carnival":
        assert labels == [f"Round {r}" for r in range(1, 8)]
    else:
        assert labels[-1] == "Game over" and len(labels) <= 25          # (over 25 turns: spread, first kept)
        turns = [re.fullmatch(rf"Turn (\d+): ({'|'.join(names)})", label) for label in labels[:-1]]
        numbers = [int(t[1]) for t in turns if t]
        assert len(numbers) == len(turns) and numbers[0] == 1 and numbers == sorted(set(numbers)), labels
    target = jump["options"][-2]
    await fake.select(viewer, replay, jump["custom_id"], [target["value"]])
    await driver.settle()
    replay = fake.messages[int(replay["id"])]
    assert replay["embeds"][0]["description"].split("\n")[0] == (
        f"Step {target['value']} of {len(steps) - 1} · {target['label']}")
    # someone else's forged press on this private replay is not theirs
    mark = max(fake.messages)
    await fake.click(people[0], replay, button(replay, "prev")["custom_id"], forge=True)
    await driver.settle()
    assert [m["content"] for m in private_messages(driver, people[0], mark)] == [
        "⚠️ This panel is not yours: press Play ▶ on the board for your own."]
    # export: JSON and text, no actions and no private lines
    mark = max(fake.messages)
    await fake.slash(people[1], "game", "export", game=game)
    await driver.settle()
    (answer,) = private_messages(driver, people[1], mark)
    names = sorted(a["filename"] for a in answer["attachments"])
    assert names == [f"game-{game}.json", f"game-{game}.txt"]
    blobs = {a["filename"]: fake.blobs[a["id"]] for a in answer["attachments"]}
    data = json.loads(blobs[f"game-{game}.json"])
    log = await bot.repo.log(game)
    assert [e["seq"] for e in data["entries"]] == [e.seq for e in log]
    assert all("action" not in e for e in data["entries"])
    assert all(ev["visible_to"] is None for e in data["entries"] for ev in e["events"])
    private = [ev for e in log for ev in e.events if ev.get("visible_to") is not None]
    text = blobs[f"game-{game}.txt"].decode()
    public_count = sum(1 for e in log for ev in e.events if ev.get("visible_to") is None)
    assert sum(len(e["events"]) for e in data["entries"]) == public_count + 1   # (+ the start line)
    assert len(text.splitlines()) == public_count + 1 + 2                       # (+ heading and result)
    assert data["outcome"]["winners"] == sorted(engine.outcome(bot.service.state(record)).winners)
    if game_id == "carnival":
        assert private                                                   # (secret picks exist to leave out)


async def test_carnival_replay_round_7_is_its_table_after_the_roll_then_its_reveals(
        driver: Driver, players, bot, tmp_path) -> None:
    """Spec E14: round 7 plays itself (forced picks, automatic reveals) in the one chance
    entry of its roll; the replay pauses there: "Round 7" jumps to round 7's table after
    its roll, every card face down, and the next step is its reveals and the end."""
    from bot.ui.table import jump_options
    from render.carnival import render_board

    game = await driver.start_game("carnival", players[:3])
    record = await driver.play_to_end(game, random.Random(6))
    steps = await bot.service.replay_steps(record)
    jumps = {o.label: int(o.value) for o in jump_options(steps, texts(record))}
    assert list(jumps) == [f"Round {r}" for r in range(1, 8)]
    seven = steps[jumps["Round 7"]]
    assert (seven.view["round"], seven.view["phase"], seven.view["rolled"]) == (7, "reveal", True)
    assert all(seat["picked"] and seat["card"] is None for seat in seven.view["seats"])
    assert [e["kind"] for e in seven.events][-2:] == ["roll", "forced_picks"]
    after = steps[jumps["Round 7"] + 1]
    assert after.seat == CHANCE and after.events[0]["kind"] == "reveal"
    assert len(seven.view["round_scores"]) == 6 and steps[-1].view["phase"] == "over"
    names = list(record.names)
    render_board(seven.view, names=names, text=texts(record)).save(tmp_path / "carnival_replay_round7.png")


async def test_a_game_a_moderator_ended_replays_as_its_board_footer_says(driver: Driver, players, bot) -> None:
    """An ended game's board says "/game replay steps through a finished game"; a game a moderator
    ended is over too (README: a game that ended, finished or abandoned, still replays)."""
    fake = driver.fake
    alice, bob, carol = players[:3]
    game = await driver.start_game("carnival", [alice, bob])
    await driver.play_once(game, random.Random(3))
    await fake.slash(fake.owner, "game", "mod", "end", game=game)
    await driver.settle()
    record = await driver.record(game)
    assert record.status == "abandoned"
    board = await driver.board(game)
    assert "/game replay" in board["embeds"][0]["footer"]["text"]
    mark = max(fake.messages)
    await fake.slash(carol, "game", "replay", game=game)
    await driver.settle()
    (replay,) = private_messages(driver, carol, mark)
    steps = await bot.service.replay_steps(record)
    assert replay["embeds"][0]["description"].startswith(f"Step 0 of {len(steps) - 1}")
    assert replay["attachments"]
