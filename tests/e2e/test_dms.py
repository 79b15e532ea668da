"""Hidden hands in DMs (issue 10 items 1–2; bot/ui/dm.py) through the offline Discord: one DM
hand message per player and game, edited in place when the hidden part changes; Play ▶ and My
view acting on that game from the DM with the usual version checks; a jump link; closed DMs
said once and never retried until /game notify; /game notify per game and for all; and the
playground showing DMs as their recipient's own channel."""

from __future__ import annotations

import copy
import io
import random
from pathlib import Path
from typing import Any

from PIL import Image

from bot.sandbox.fakecord import EPHEMERAL, FakeDiscord, iter_components
from bot.sandbox.play import Playground, real_bot_factory, run_lines
from tests.e2e.driver import Driver
from tests.e2e.test_pings import sins, typed

JSONDict = dict[str, Any]


def dm_messages(fake: FakeDiscord, user: JSONDict) -> list[JSONDict]:
    """The bot's messages in ``user``'s DM channel (ephemeral answers left out)."""
    channel = fake.dm_channels.get(user["id"])
    return [] if channel is None else fake.channel_messages(channel["id"], ephemeral=False)


def hand_messages(fake: FakeDiscord, user: JSONDict, game: int) -> list[JSONDict]:
    return [m for m in dm_messages(fake, user) if m["content"].startswith("🔒")
            and any(c.get("custom_id") == f"d:{game}:hand" for c in iter_components(m["components"]))]


def dm_posts(fake: FakeDiscord, user: JSONDict) -> int:
    """How many times the bot tried to post in ``user``'s DM channel."""
    channel = fake.dm_channels.get(user["id"])
    return 0 if channel is None else len(fake.calls("POST", rf"/channels/{channel['id']}/messages"))


def closed_notices(driver: Driver, user: JSONDict) -> list[JSONDict]:
    return [m for m in driver.public_messages() if m["content"].startswith("📪") and f"<@{user['id']}>" in m["content"]]


async def test_each_player_gets_one_hand_dm_edited_in_place(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    (a_hand,) = hand_messages(fake, alice, game)
    (b_hand,) = hand_messages(fake, bob, game)
    assert "seat A" in a_hand["content"] and "seat B" in b_hand["content"]
    (attachment,) = a_hand["attachments"]
    assert attachment["filename"].startswith("hand.")
    assert Image.open(io.BytesIO(fake.image_bytes(attachment))).width == 1100
    ids = {c.get("custom_id") for c in iter_components(a_hand["components"])}
    assert {f"d:{game}:play", f"d:{game}:hand"} <= ids
    (link,) = [c for c in iter_components(a_hand["components"]) if c.get("style") == 5]
    assert link["url"] == f"https://discord.com/channels/{fake.guild_id}/{record.home_channel_id}"
    # a hand DM is silent: the ping is the notification
    post = next(r for r in fake.calls("POST", rf"/channels/{a_hand['channel_id']}/messages")
                if "🔒" in str(r.json or r.form))
    assert post is not None
    # alice's secret pick changes her hidden view: her one message is edited, bob's is not
    await typed(driver, alice, game, f"choose {(await sins(driver, game, alice))[0]}")
    (a_after,) = hand_messages(fake, alice, game)
    (b_after,) = hand_messages(fake, bob, game)
    assert a_after["id"] == a_hand["id"] and a_after["edited_timestamp"] is not None
    assert a_after["attachments"][0]["id"] != attachment["id"]             # the image was replaced
    assert b_after["edited_timestamp"] is None
    # a few more moves: still one hand message each
    rng = random.Random(4)
    for _ in range(6):
        if (await driver.record(game)).status != "active":
            break
        await driver.play_once(game, rng)
    assert len(hand_messages(fake, alice, game)) == 1 and len(hand_messages(fake, bob, game)) == 1


async def test_play_and_my_view_work_from_the_dm_with_version_checks(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    version = (await driver.record(game)).version
    (hand,) = hand_messages(fake, bob, game)
    dm_id = fake.dm_channels[bob["id"]]["id"]
    # My view from the DM: an ephemeral private view in the DM
    last = max(fake.messages)
    await fake.click(bob, hand, f"d:{game}:hand")
    await driver.settle()
    view = driver.newest_ephemeral(bob, after=last)
    assert view is not None and view["channel_id"] == dm_id and view["attachments"]
    # Play ▶ from the DM opens bob's panel there; a pick there moves the game
    last = max(fake.messages)
    await fake.click(bob, hand, f"d:{game}:play")
    await driver.settle()
    panel = driver.newest_ephemeral(bob, after=last)
    assert panel is not None and panel["channel_id"] == dm_id and panel["flags"] & EPHEMERAL
    choice = next(c for c in driver.choices(panel) if c[0] != "group")
    old = copy.deepcopy(panel)
    await driver.pick(bob, panel, choice)
    after = await driver.record(game)
    assert after.version == version + 1 and after.seat_of(int(bob["id"])) not in after.waiting
    assert fake.messages[int(panel["id"])]["content"].startswith("✓")
    # the same panel again (a second click on it as it was): refused, nothing changes
    last = max(fake.messages)
    kind, cid, value = choice
    if value is not None:
        await fake.select(bob, old, cid, [value])
    else:
        await fake.click(bob, old, cid)
    await driver.settle()
    refusal = driver.newest_ephemeral(bob, after=last)
    assert refusal is not None and refusal["content"].startswith("⚠️")
    assert (await driver.record(game)).version == version + 1
    # a non-player pressing a DM button of this game (say, forwarded) is told privately
    carol = players[2]
    last = max(fake.messages)
    await fake.click(carol, hand, f"d:{game}:play", channel=fake.dm_channel(carol)["id"])
    await driver.settle()
    told = driver.newest_ephemeral(carol, after=last)
    assert told is not None and told["content"].startswith("⚠️") and "your game" in told["content"]


async def test_closed_dms_are_said_once_never_retried_and_resumed_by_notify(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    fake.close_dms(bob)
    game = await driver.start_game("carnival", [alice, bob])
    assert dm_posts(fake, bob) == 1                                   # the hand DM was tried once
    assert any(r.startswith("50007") for r in fake.refusals)
    (notice,) = closed_notices(driver, bob)
    assert notice["channel_id"] == str((await driver.record(game)).home_channel_id)
    assert "My view" in notice["content"] and "/game notify" in notice["content"]
    req = next(r for r in fake.calls("POST", r"/channels/\d+/messages") if (r.json or {}).get("content")
               == notice["content"])
    assert [str(u) for u in req.json["allowed_mentions"]["users"]] == [bob["id"]]
    # turns go on: no DM is tried again, nothing is said again, the game never stalls
    rng = random.Random(8)
    for _ in range(8):
        if (await driver.record(game)).status != "active":
            break
        await driver.play_once(game, rng)
    assert dm_posts(fake, bob) == 1 and len(closed_notices(driver, bob)) == 1
    assert hand_messages(fake, alice, game)                            # alice's DMs are unaffected
    # My view (ephemeral) still works for bob
    record = await driver.record(game)
    if record.status == "active":
        last = max(fake.messages)
        await fake.click(bob, await driver.board(game), f"g:{game}:{record.version}:hand")
        await driver.settle()
        assert driver.newest_ephemeral(bob, after=last)["attachments"]
    # bob opens his DMs and runs /game notify: DMs are tried again and his hand arrives
    fake.close_dms(bob, False)
    token = await fake.slash(bob, "game", "notify")
    await driver.settle()
    assert "try again" in fake.message_for(token)["content"]
    if (await driver.record(game)).status == "active":
        assert len(hand_messages(fake, bob, game)) == 1


async def test_notify_switches_hands_and_turn_notices_per_game_and_for_all(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    one = await driver.start_game("carnival", [alice, bob])
    two = await driver.start_game("carnival", [alice, bob])
    assert hand_messages(fake, alice, one) and hand_messages(fake, alice, two)
    # alice: no hand DMs for game one only; no turn notices anywhere
    token = await fake.slash(alice, "game", "notify", hands=False, game=one)
    await driver.settle()
    assert "hand **off**" in fake.message_for(token)["content"]
    token = await fake.slash(alice, "game", "notify", turns=False)
    await driver.settle()
    assert "turn notices **off**" in fake.message_for(token)["content"]
    (hand_one,) = hand_messages(fake, alice, one)
    (hand_two,) = hand_messages(fake, alice, two)
    posts_before = dm_posts(fake, alice)
    for game in (one, two):
        await typed(driver, alice, game, f"choose {(await sins(driver, game, alice))[0]}")
        await typed(driver, bob, game, f"choose {(await sins(driver, game, bob))[0]}")
    assert fake.messages[int(hand_one["id"])]["edited_timestamp"] is None     # hands off for game one
    assert fake.messages[int(hand_two["id"])]["edited_timestamp"] is not None  # still on for game two
    assert dm_posts(fake, alice) == posts_before                               # no turn notices
    turn_notices = [m for m in dm_messages(fake, bob) if m["content"].startswith("🔔")]
    assert turn_notices                                                        # bob kept his
    # the thread ping still comes for alice
    pings = [m for m in driver.public_messages() if f"<@{alice['id']}>" in m["content"].split("\n")[0]
             and any(c.get("custom_id", "").endswith(":play") for c in iter_components(m["components"]))]
    assert len(pings) >= 2


async def test_playground_shows_dms_as_their_own_channel(tmp_path: Path) -> None:
    out: list[str] = []
    script = """\
/game new game:carnival
as bob
click 1
as alice
click 3
dm
as bob
dm 2
click 2
"""
    async with FakeDiscord(owner_name="alice") as fake:
        pg = Playground(fake, real_bot_factory(tmp_path / "games.db", fake), images_dir=tmp_path / "images",
                        out=out.append)
        await pg.start()
        marker = len(out)
        await run_lines(pg, script.splitlines())
        await pg.stop()
        assert not fake.violations and not fake.errors.records
    text = "\n".join(out[marker:])
    after_start = text.split("[alice] > click 3", 1)[1]
    before_bob = after_start.split("[bob] > dm 2", 1)[0]
    # alice sees her own DM channel, and only a count of bob's
    assert "── DM to alice · testbot" in before_bob and "DM to bob" not in before_bob
    assert "in bob's DMs)" in before_bob
    # bob lists his DM channel (his hand, with Play ▶ / My view) and presses My view there
    bob_part = text.split("[bob] > dm 2", 1)[1]
    assert "── DM to bob · testbot" in bob_part and "your private view (seat B)" in bob_part
    assert "Play ▶" in bob_part and "My view" in bob_part
    assert "(only you)" in bob_part.split("[bob] > click 2", 1)[1]
    assert "image: " in bob_part.split("[bob] > click 2", 1)[0]          # the DM images are saved too
