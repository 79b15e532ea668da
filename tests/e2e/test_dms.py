"""Hidden hands in DMs (bot/ui/dm.py) through the offline
Discord: one DM per turn, the turn notice carrying the hand as of then, older notices left alone
and no DM between turns; a player with turn notices off gets one hand message edited in place;
Play ▶ and My view acting on that game from the DM with the usual version checks; a jump link;
closed DMs said once and never retried until /game notify; /game notify per game and for all;
and the playground showing DMs as their recipient's own channel."""

from __future__ import annotations

import copy
import io
import random
from pathlib import Path
from typing import Any

from PIL import Image

from bot.render_pool import THUMBNAIL_WIDTH
from bot.sandbox.fakecord import EPHEMERAL, FakeDiscord, iter_components
from bot.sandbox.play import Playground, real_bot_factory, run_lines
from bot.service import texts
from engines.registry import get as get_engine
from render import registry as renders
from tests.e2e.driver import Driver
from tests.e2e.test_pings import dm_turn_notices, sins, typed

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


def dm_requests(fake: FakeDiscord, user: JSONDict, mark: int = 0) -> list[str]:
    """Method and path of every request to ``user``'s DM channel since request ``mark``."""
    channel = fake.dm_channels.get(user["id"])
    return [] if channel is None else [f"{r.method} {r.path}" for r in fake.requests[mark:]
                                       if r.path.startswith(f"/channels/{channel['id']}/")]


async def test_one_dm_per_turn_the_notice_carries_the_hand(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    # both are awaited (their secret picks): one turn notice each, with the board and the hand as of now
    assert hand_messages(fake, alice, game) == [] and hand_messages(fake, bob, game) == []
    (a_note,) = dm_turn_notices(fake, alice)
    (b_note,) = dm_turn_notices(fake, bob)
    assert dm_posts(fake, alice) == 1 and dm_posts(fake, bob) == 1
    board, hand = a_note["attachments"]
    assert board["filename"].startswith("board.") and hand["filename"].startswith("hand.")
    assert Image.open(io.BytesIO(fake.image_bytes(hand))).width == 720  # (render/carnival.py WIDTH)
    assert Image.open(io.BytesIO(fake.image_bytes(board))).width == THUMBNAIL_WIDTH == 550
    state = bot.service.state(record)
    for user, note in ((alice, a_note), (bob, b_note)):
        first, second = note["content"].split("\n")[:2]
        assert first.startswith("🔔") and "Choose your sin" in first
        assert second.startswith("🔒 Your private view as of <t:") and "**My view**" in second
        seat = record.seat_of(int(user["id"]))
        shown = Image.open(io.BytesIO(fake.image_bytes(note["attachments"][1])))
        own = renders.private_image("carnival", get_engine("carnival").player_view(state, seat), record.names,
                                    texts(record).plain())
        assert own is not None and shown.size == own.size
    ids = {c.get("custom_id") for c in iter_components(a_note["components"])}
    assert {f"d:{game}:play", f"d:{game}:hand"} <= ids
    (link,) = [c for c in iter_components(a_note["components"]) if c.get("style") == 5]
    assert link["url"] == f"https://discord.com/channels/{fake.guild_id}/{record.home_channel_id}"
    # alice's secret pick changes her hidden view: no DM at all (no edit, no post) until her next turn
    mark = len(fake.requests)
    await typed(driver, alice, game, f"choose {(await sins(driver, game, alice))[0]}")
    assert dm_requests(fake, alice, mark) == [] and dm_requests(fake, bob, mark) == []
    # a few more moves: every request to a DM is a post of a turn notice; none is edited or deleted
    rng = random.Random(4)
    for _ in range(8):
        if (await driver.record(game)).status != "active":
            break
        await driver.play_once(game, rng)
    for user in (alice, bob):
        sent = dm_requests(fake, user)
        assert sent and all(r.startswith("POST ") for r in sent)
        notices = dm_turn_notices(fake, user)
        assert len(notices) == len(sent)                                # older notices left as they were
        assert all(n["edited_timestamp"] is None for n in notices)
        assert all(any(a["filename"].startswith("hand.") for a in n["attachments"]) for n in notices)


async def test_turn_notices_off_keep_one_hand_message_edited_in_place(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    token = await fake.slash(alice, "game", "notify", turns=False)
    await driver.settle()
    assert "turn notices **off**" in fake.message_for(token)["content"]
    notices = len(dm_turn_notices(fake, alice))
    (a_hand,) = hand_messages(fake, alice, game)                  # /game notify's refresh sent it
    assert "it changes here as your hand does" in a_hand["content"]
    (attachment,) = a_hand["attachments"]
    assert attachment["filename"].startswith("hand.")
    # a hand DM is silent: the ping is the notification
    post = next(r for r in fake.calls("POST", rf"/channels/{a_hand['channel_id']}/messages")
                if str((r.json or {}).get("content", "")).startswith("🔒"))
    assert post.json.get("flags", 0) & 4096                       # SUPPRESS_NOTIFICATIONS
    # alice's secret pick changes her hidden view: her one message is edited, the image replaced
    await typed(driver, alice, game, f"choose {(await sins(driver, game, alice))[0]}")
    (a_after,) = hand_messages(fake, alice, game)
    assert a_after["id"] == a_hand["id"] and a_after["edited_timestamp"] is not None
    assert a_after["attachments"][0]["id"] != attachment["id"]
    assert hand_messages(fake, bob, game) == []                   # bob's hand rides on his notices
    rng = random.Random(4)
    for _ in range(6):
        if (await driver.record(game)).status != "active":
            break
        await driver.play_once(game, rng)
    assert len(hand_messages(fake, alice, game)) == 1
    assert len(dm_turn_notices(fake, alice)) == notices                   # none since she switched them off


async def test_play_and_my_view_work_from_the_dm_with_version_checks(driver: Driver, players, bot) -> None:
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    version = (await driver.record(game)).version
    hand = dm_turn_notices(fake, bob)[-1]  # (Play ▶ / My view are on every DM of a game)
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
    # the same panel again (a second click on it as it was): told the choice is in, nothing changes
    last = max(fake.messages)
    kind, cid, value = choice
    if value is not None:
        await fake.select(bob, old, cid, [value])
    else:
        await fake.click(bob, old, cid)
    await driver.settle()
    refusal = driver.newest_ephemeral(bob, after=last)
    mentions = ", ".join(f"<@{after.user_of(s)}>" for s in sorted(after.waiting))  # (bob's choice is in)
    assert refusal is not None and refusal["content"] == f"✓ Your choice is already in. Waiting for {mentions}."
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
    assert dm_turn_notices(fake, alice)                                # alice's DMs are unaffected
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
    assert dm_turn_notices(fake, alice)
    # alice: no hand DMs for game one only; no turn notices anywhere
    token = await fake.slash(alice, "game", "notify", hands=False, game=one)
    await driver.settle()
    assert "hand **off**" in fake.message_for(token)["content"]
    token = await fake.slash(alice, "game", "notify", turns=False)
    await driver.settle()
    assert "turn notices **off**" in fake.message_for(token)["content"]
    # turn notices off: game two's hand comes as one message kept up to date; game one's not at all
    assert hand_messages(fake, alice, one) == []
    (hand_two,) = hand_messages(fake, alice, two)
    posts_before = dm_posts(fake, alice)
    for game in (one, two):
        await typed(driver, alice, game, f"choose {(await sins(driver, game, alice))[0]}")
        await typed(driver, bob, game, f"choose {(await sins(driver, game, bob))[0]}")
    assert hand_messages(fake, alice, one) == []                               # hands off for game one
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
    # bob lists his DM channel (his turn notice with his hand, Play ▶ / My view) and presses My view there
    bob_part = text.split("[bob] > dm 2", 1)[1]
    assert "── DM to bob · testbot" in bob_part and "Your private view as of" in bob_part
    assert "Play ▶" in bob_part and "My view" in bob_part
    assert "(only you)" in bob_part.split("[bob] > click 2", 1)[1]
    assert "🖼 " in bob_part and " — open " in bob_part.split("[bob] > click 2", 1)[0]          # the DM images are saved too


async def test_a_replacing_player_awaited_gets_one_dm_the_turn_notice_with_the_hand(
        driver: Driver, players, bot) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    assert 1 in (await driver.record(game)).waiting                       # bob's secret pick is awaited
    await fake.slash(alice, "game", "mod", "replace", game=game, player=bob, member=carol)
    await driver.settle()
    assert (await driver.record(game)).user_of(1) == int(carol["id"])
    assert dm_posts(fake, carol) == 1 and hand_messages(fake, carol, game) == []
    (notice,) = dm_messages(fake, carol)
    assert [a["filename"].split(".")[0] for a in notice["attachments"]] == ["board", "hand"]
    assert "Your private view as of" in notice["content"]


async def test_a_board_is_drawn_small_only_when_a_player_it_waits_for_is_away(driver: Driver, players, bot) -> None:
    """The board's small copy (for DM turn notices) is made only when a person the game waits
    for is away (bot/ui/boards.py ``wants_thumbnail``): at the table nobody gets
    a turn notice, so it would be drawn for nothing."""
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    assert set(record.waiting) == {0, 1}
    delivery = bot.delivery
    delivery.presence.away_after = 300.0
    for user in (alice, bob):
        delivery.presence.last_seen[int(user["id"])] = bot.service.clock()
    delivery.boards.board_thumbnails.pop((game, "en"), None)
    await delivery.boards.board_payload(record)
    assert (game, "en") not in delivery.boards.board_thumbnails
    del delivery.presence.last_seen[int(bob["id"])]  # bob has left the table
    await delivery.boards.board_payload(record)
    version, (data, ext) = delivery.boards.board_thumbnails[game, "en"]
    assert version == record.version and ext == "png" and Image.open(io.BytesIO(data)).width == THUMBNAIL_WIDTH
    # bob reads Japanese: his notice draws its own board in Japanese, so the English small copy is not made
    delivery.locales.users[int(bob["id"])] = "ja"
    delivery.boards.board_thumbnails.clear()
    await delivery.boards.board_payload(record)
    assert not delivery.boards.board_thumbnails


async def test_a_dm_board_is_drawn_in_its_readers_language(driver: Driver, players, bot) -> None:
    """A DM is private, so its board image is drawn in the reader's language (bot/ui/dm.py
    ``board_thumbnail``), as its text is: on a server in English, bob (Japanese) gets the board in
    Japanese and alice the board in English; each language's copy is kept per game."""
    from bot.render_pool import RenderJob, render
    from bot.service import seat_names

    alice, bob = players[:2]
    fake = driver.fake
    await fake.slash(bob, "game", "language", language="ja")
    await driver.settle()
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    public = bot.service.public_view(record)

    def drawn(locale: str) -> bytes:
        done = render(RenderJob("thumbnail", "carnival", public, tuple(seat_names(record, locale)), locale))
        assert done is not None
        return done.data

    english, japanese = drawn("en"), drawn("ja")
    assert english != japanese
    (a_note,) = dm_turn_notices(fake, alice)
    (b_note,) = dm_turn_notices(fake, bob)
    assert b_note["content"].startswith("🔔") and "Choose your sin" not in b_note["content"]
    assert fake.image_bytes(a_note["attachments"][0]) == english
    assert fake.image_bytes(b_note["attachments"][0]) == japanese
    assert bot.delivery.boards.board_thumbnails[game, "ja"] == (record.version, (japanese, "png"))
    assert bot.delivery.boards.board_thumbnails[game, "en"] == (record.version, (english, "png"))


async def test_an_older_record_changes_no_hand(fake, make_bot, players) -> None:
    bot = await make_bot(dm_away_seconds=0)  # (a player who just moved is not "at the table")
    driver = Driver(fake, bot)
    alice, bob = players[:2]
    game = await driver.start_game("carnival", [alice, bob])
    await fake.slash(alice, "game", "notify", turns=False)
    await driver.settle()
    before = await driver.record(game)
    await typed(driver, alice, game, f"choose {(await sins(driver, game, alice))[0]}")
    (shown,) = copy.deepcopy(hand_messages(fake, alice, game))    # (her pick is in it)
    # a delivery overtaken by a later change (the record before her pick) leaves the hand alone
    await bot.flow.notices.dms.update_hands(before)
    await driver.settle()
    (after,) = hand_messages(fake, alice, game)
    assert after["edited_timestamp"] == shown["edited_timestamp"]
    assert [a["id"] for a in after["attachments"]] == [a["id"] for a in shown["attachments"]]


async def test_game_play_in_a_dm_without_a_number_says_what_works_in_a_dm(driver: Driver, players, bot) -> None:
    """No game is played in a DM, and `/game new` does not work there: the refusal names
    what does (a `game` number, `/game mine`, Play ▶ on a turn notice); with the number the
    panel opens."""
    alice, bob = players[:2]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    dm_id = fake.dm_channel(bob)["id"]
    last = max(fake.messages)
    await fake.slash(bob, "game", "play", channel=dm_id)
    await driver.settle()
    told = driver.newest_ephemeral(bob, after=last)
    assert told is not None and told["content"] == (
        "⚠️ No game is played in a DM. Pass the `game` number of a game you play in; `/game mine` lists them, "
        "and Play ▶ on a turn notice opens your panel here.")
    last = max(fake.messages)
    await fake.slash(bob, "game", "play", game=game, channel=dm_id)
    await driver.settle()
    panel = driver.newest_ephemeral(bob, after=last)
    assert panel is not None and panel["channel_id"] == dm_id and driver.choices(panel)
