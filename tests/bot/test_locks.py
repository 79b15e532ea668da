"""Per-game tables that must not grow with the number of games (bot/locks.py)."""

from __future__ import annotations

import asyncio
import gc

from bot.locks import KeyedLocks
from bot.ui.boards import THUMBNAILS_KEPT


async def test_a_lock_is_shared_while_in_use_and_forgotten_after() -> None:
    locks: KeyedLocks[int] = KeyedLocks()
    order: list[str] = []

    async def hold(name: str, entered: asyncio.Event, release: asyncio.Event) -> None:
        async with locks[7]:
            order.append(f"{name} in")
            entered.set()
            await release.wait()
            order.append(f"{name} out")

    first_in, second_in, go = asyncio.Event(), asyncio.Event(), asyncio.Event()
    first = asyncio.create_task(hold("a", first_in, go))
    await first_in.wait()
    second = asyncio.create_task(hold("b", second_in, go))
    await asyncio.sleep(0)  # (b now waits for a's lock: the same object)
    assert len(locks) == 1 and order == ["a in"]
    go.set()
    await asyncio.gather(first, second)
    assert order == ["a in", "a out", "b in", "b out"]
    del first, second
    gc.collect()
    assert len(locks) == 0


async def test_a_thousand_games_leave_no_locks_and_few_thumbnails(tmp_path) -> None:
    from bot.service import GameService
    from bot.storage import Repository
    from bot.ui.delivery import Delivery
    from bot.ui.outbox_drain import Outbox

    repo = Repository(str(tmp_path / "g.db"))
    await repo.open()
    service = GameService(repo)
    delivery = Delivery.build(None, service, repo)  # type: ignore[arg-type]
    outbox = Outbox(delivery.transport, delivery.boards, service, repo, delivery.retries, None)  # type: ignore[arg-type]
    for game in range(1000):
        async with service.lock(game), outbox._game_locks[game]:
            pass
        delivery.boards.board_thumbnails[game, "en"] = (1, None)  # type: ignore[assignment]
    gc.collect()
    assert len(service._locks) == 0 and len(outbox._game_locks) == 0
    assert list(delivery.boards.board_thumbnails) == [(g, "en") for g in range(1000 - THUMBNAILS_KEPT, 1000)]
    await repo.close()


async def test_what_delivery_remembers_of_channels_and_users_is_bounded(tmp_path) -> None:
    """Nothing grows without bound — message counts per channel, DM channel ids
    and last interactions are kept for the most recent channels and users only."""
    from bot.service import GameService
    from bot.storage import Repository
    from bot.ui import presence as delivery_module
    from bot.ui.delivery import Delivery

    repo = Repository(str(tmp_path / "g.db"))
    await repo.open()
    delivery = Delivery.build(None, GameService(repo), repo)  # type: ignore[arg-type]
    channels = delivery_module.WATCHED_CHANNELS + 50
    for channel in range(channels):
        for message in range(3):
            delivery.transport.scroll.note_message(channel, 1000 * channel + message)
    assert len(delivery.transport.scroll._seen) == len(delivery.transport.scroll._seen_from) == delivery_module.WATCHED_CHANNELS
    newest = channels - 1
    assert list(delivery.transport.scroll._seen[newest]) == [1000 * newest, 1000 * newest + 1, 1000 * newest + 2]
    assert delivery.transport.scroll._seen_from[newest] == 1000 * newest and 0 not in delivery.transport.scroll._seen
    for user in range(delivery_module.KNOWN_USERS + 10):
        delivery.presence.last_seen[user] = float(user)
    assert len(delivery.presence.last_seen) == delivery_module.KNOWN_USERS and 0 not in delivery.presence.last_seen
    await repo.close()
