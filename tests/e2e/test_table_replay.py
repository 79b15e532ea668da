"""Replays and export end to end (issue 16 point 6): ``/game replay`` shows a finished
game's public board step by step (◀ ▶ and a jump menu, edited in place, only for the one
who asked); its last step is the final public board; an unfinished game is refused.
``/game export`` attaches the log as JSON and text with public information only."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest
from PIL import Image

from bot.sandbox.fakecord import EPHEMERAL, iter_components
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
    assert [s.seat for s in steps[1:]] == [e.seat for e in await bot.repo.log(game) if e.kind == "player"]
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
    target = jump["options"][-1]
    await fake.select(viewer, replay, jump["custom_id"], [target["value"]])
    await driver.settle()
    replay = fake.messages[int(replay["id"])]
    assert replay["embeds"][0]["description"].startswith(f"Step {target['value']} of {len(steps) - 1}")
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
