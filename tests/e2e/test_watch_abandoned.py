"""Spectators see a game that ends without a move (bot/ui/notices.py ``tell_followers``):
a moderator's kick of the last person (abandoned) and a moderator's ``/game mod end`` update a
``board`` watcher's DM board and send an ``end`` watcher their DM, as a normal end does."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.driver import Driver
from tests.e2e.test_ai_seats import open_with_ais, settled, start

JSONDict = dict[str, Any]


def dms(d: Driver, user: JSONDict) -> list[JSONDict]:
    channel = d.fake.dm_channels.get(user["id"])
    return d.fake.channel_messages(channel["id"]) if channel else []


@pytest.mark.parametrize("how", ["kick", "end"])
async def test_watchers_see_a_game_a_moderator_ended(fake, make_bot, players, how: str) -> None:
    d = Driver(fake, await make_bot(ai_iterations=3))
    alice, bob, carol, dave = players[:4]
    game = await open_with_ais(d, bob, "illumination", 1)
    await start(d, bob, game)
    await fake.slash(carol, "game", "watch", game=game, mode="board")
    await fake.slash(dave, "game", "watch", game=game, mode="end")
    await settled(d)
    (board,) = dms(d, carol)
    first = board["attachments"][0]["id"]
    assert not dms(d, dave)
    if how == "kick":
        await fake.slash(alice, "game", "mod", "kick", game=game, member=bob)   # the last person: abandoned
    else:
        await fake.slash(alice, "game", "mod", "end", game=game)
    await settled(d)
    record = await d.record(game)
    assert record.status == "abandoned"
    (board,) = dms(d, carol)                                             # edited in place, to the end
    assert board["attachments"][0]["id"] != first
    assert [w[4] for w in await d.bot.repo.watchers(game)] == [record.version] * 2   # (each marked: shown)
    (ended,) = dms(d, dave)
    assert ended["content"].endswith("is over. It ended as abandoned: no winner, no ratings change."), ended
