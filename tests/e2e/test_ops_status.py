"""``/game status`` end to end (bot/ui/operator.py): the bot's owner (the
application's owner: alice) sees every server's figures, the bot-wide ones included (database
size, the backup taken at start, Discord's 429s of the last hour); a moderator of another server (zed, its
owner) sees only that server's games, actions and deliveries; a player without permissions
is refused privately; a moderator's reply comes in their language."""

from __future__ import annotations

import random
from typing import Any

from bot.backup import backup_time
from bot.text import host_sentence
from bot.ui.operator import version
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


async def test_the_owner_sees_everything_a_moderator_their_server_and_a_player_nothing(
        driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    beta = fake.add_guild("Beta", owner_name="zed")
    zed = beta.owner
    fake.user_locales[zed["id"]] = "ja"                                  # zed's Discord speaks Japanese
    yan = await beta.add_member("yan")
    await driver.settle()
    a1 = await driver.start_game("carnival", [alice, bob, carol])
    await driver.start_game("carnival", [alice, bob])
    b1 = await driver.start_game("carnival", [zed, yan], channel=beta.channel)
    await driver.play_once(a1, random.Random(1))
    actions = {g: await bot.repo.count_actions(g) for g in (a1, a1 + 1, b1)}
    fake.rate_limit_next(r"/channels/\d+/messages", 0.01, method="POST")
    await fake.slash(alice, "game", "board", game=a1)                   # one 429, waited out by discord.py
    await driver.settle()
    fake.member_permissions(bob, 0)
    mark = max(fake.messages)
    await fake.slash(alice, "game", "status")
    await fake.slash(zed, "game", "status", channel=beta.channel)
    await fake.slash(bob, "game", "status")
    await fake.slash(yan, "game", "status", channel=beta.channel)
    await driver.settle()

    (owner,) = driver.private_to(alice, mark)
    lines = owner.splitlines()
    assert lines[0] == host_sentence("ops.status_all")
    assert lines[1] == host_sentence("ops.status_uptime", since=int(bot.operator.started), version=version())
    assert lines[2] == host_sentence("ops.status_games", active=3, finished=0)
    assert lines[3] == host_sentence("ops.status_actions", actions=sum(actions.values()))
    assert lines[4] == host_sentence("ops.status_pending", pending=0)
    assert lines[5].startswith("Database size: ") and lines[5].endswith(" MB")
    taken = bot.backups.last                                             # (the backup taken at start)
    assert taken is not None
    at = backup_time(taken, bot.backups.database.stem)
    assert at is not None and lines[6] == host_sentence("ops.status_backup", at=int(at))
    assert lines[7] == host_sentence("ops.status_rate_limits", hits=1)

    (moderator,) = driver.private_to(zed, mark)
    assert moderator.splitlines() == [
        host_sentence("ops.status_server", "ja"),
        host_sentence("ops.status_uptime", "ja", since=int(bot.operator.started), version=version()),
        host_sentence("ops.status_games", "ja", active=1, finished=0),
        host_sentence("ops.status_actions", "ja", actions=actions[b1]),
        host_sentence("ops.status_pending", "ja", pending=0)]
    refused = f"⚠️ {host_sentence('ops.status_refused')}"
    assert driver.private_to(bob, mark) == [refused]
    assert driver.private_to(yan, mark) == [refused]


async def test_a_game_finished_today_is_counted_and_status_in_a_dm_is_the_owners_only(
        driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("illumination", [alice, bob])
    assert (await driver.play_to_end(game, random.Random(3))).status == "finished"
    mark = max(fake.messages)
    await fake.slash(alice, "game", "status", dm=True)
    await fake.slash(bob, "game", "status", dm=True)
    await driver.settle()
    (owner,) = driver.private_to(alice, mark)
    assert host_sentence("ops.status_games", active=0, finished=1) in owner.splitlines()
    assert driver.private_to(bob, mark) == [f"⚠️ {host_sentence('ops.status_refused')}"]
