"""The bot with render worker processes (``RENDER_WORKERS``; bot/render_pool.py):
boards, the DM hand and E Guan's placement preview are drawn by the workers, not the bot's
process, and reach Discord as the very bytes the bot drew in its own process before."""

from __future__ import annotations

import os

from bot.service import texts
from engines.registry import get as get_engine
from render import registry as renders
from tests.e2e.driver import Driver
from tests.e2e.test_dms import hand_messages
from tests.e2e.test_eguan_e2e import rig, table_with_k05  # noqa: F401 - (rig: a fixture)

ENGINE = get_engine("eguan")


async def test_boards_hands_and_previews_come_from_the_workers(fake, make_bot, players, rig) -> None:  # noqa: F811
    bot = await make_bot(render_workers=1, dm_away_seconds=0)
    driver = Driver(fake, bot)
    alice, bob, carol = players[:3]
    table = await table_with_k05(driver, players, rig)
    game = table.game
    await table.choose(0, "Play K05 Graft and Swap")  # (Table checks the preview's bytes)
    assert table.previews >= 1
    record = await driver.record(game)
    state = bot.service.state(record)
    board = await driver.board(game)
    public = renders.board_image("eguan", ENGINE.player_view(state, None), record.names, texts(record).plain())
    assert fake.image_bytes(board["attachments"][0]) == renders.encode(public, game_id="eguan")[0]
    # (alice's hand rides on her turn notices; /game notify's refresh posts it as it is now)
    await bot.flow.notices.dms.update_hands(record, [int(alice["id"])], force=True)
    hands = hand_messages(fake, alice, game)
    assert len(hands) == 1 and len(hands[0]["attachments"]) == 1
    hand = renders.private_image("eguan", ENGINE.player_view(state, 0), record.names, texts(record).plain())
    assert hand is not None
    assert fake.image_bytes(hands[0]["attachments"][0]) == renders.encode(hand, game_id="eguan")[0]
    pids = bot.delivery.transport.renderer.pids()
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids
    assert bot.delivery.transport.renderer.done >= 4  # (boards, hands and the preview went through the workers)
