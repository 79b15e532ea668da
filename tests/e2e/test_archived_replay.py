"""An archived game end to end (bot/storage/archive.py): a Carnival game played to its end
through the offline Discord, archived by the operator's pass a month later, still answers
``/game replay`` (the same steps, the final public board last) and ``/game export`` (the same
files), and still counts on ``/game leaderboard``."""

from __future__ import annotations

import random
from typing import Any

from bot.sandbox.fakecord import EPHEMERAL
from bot.ui.operator import DAY
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def private_answers(driver: Driver, user: JSONDict, after: int) -> list[JSONDict]:
    fake = driver.fake
    return [m for mid, m in sorted(fake.messages.items())
            if mid > after and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == user["id"]]


async def asked(driver: Driver, user: JSONDict, *options: tuple[str, Any], command: str) -> JSONDict:
    mark = max(driver.fake.messages)
    await driver.fake.slash(user, "game", command, **dict(options))
    await driver.settle()
    (answer,) = private_answers(driver, user, mark)
    return answer


def files(driver: Driver, answer: JSONDict) -> dict[str, bytes]:
    return {a["filename"]: driver.fake.blobs[a["id"]] for a in answer["attachments"]}


async def test_an_archived_game_replays_exports_and_counts(driver: Driver, players, bot) -> None:
    people = players[:3]
    game = await driver.start_game("carnival", people)
    record = await driver.play_to_end(game, random.Random(6))
    await driver.settle()
    assert record.status == "finished" and await bot.repo.pending(game) == []
    replay_before = (await asked(driver, players[3], ("game", game), command="replay"))["embeds"][0]["description"]
    export_before = files(driver, await asked(driver, people[1], ("game", game), command="export"))
    board_before = (await asked(driver, people[0], ("game", "carnival"), command="leaderboard"))["content"]
    steps = await bot.service.replay_steps(record)

    assert await bot.operator.archive_due(now=driver.fake.now() + 29 * DAY) == []
    assert await bot.operator.archive_due(now=driver.fake.now() + 31 * DAY) == [game]
    async with bot.repo.connection() as db, db.execute("SELECT COUNT(*) FROM games WHERE id=?", (game,)) as cur:
        assert (await cur.fetchone())[0] == 0

    replay = await asked(driver, players[3], ("game", game), command="replay")
    assert replay["embeds"][0]["description"] == replay_before
    assert replay["embeds"][0]["description"].startswith(f"Step 0 of {len(steps) - 1}") and replay["attachments"]
    assert await bot.service.replay_steps(await bot.service.get(game)) == steps
    assert files(driver, await asked(driver, people[1], ("game", game), command="export")) == export_before
    board = (await asked(driver, people[0], ("game", "carnival"), command="leaderboard"))["content"]
    assert board == board_before and "1 game" in board
