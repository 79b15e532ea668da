"""Seats that left a running game (docs/DESIGN.md §4 "Resign"; bot/service.py ``_seat_leaves``,
``stand_in_action``): in every game the log says the player left, never that their time ran
out, and a kick that leaves no person at the table ends the game as abandoned, as a resign
does."""

from __future__ import annotations

import pytest

from bot.service import GameService, texts
from bot.storage import GameRecord
from engines.base import CHANCE
from engines.registry import GAME_IDS, get

USERS = (101, 102, 103, 104)


@pytest.fixture
async def service(database_url):
    from bot.storage import Repository

    now = [10_000.0]
    repo = Repository(database_url, clock=lambda: now[0])
    await repo.open()
    yield GameService(repo, clock=lambda: now[0])
    await repo.close()


async def started(service: GameService, game_id: str, users: tuple[int, ...]) -> int:
    lobby = await service.create_lobby(game_id=game_id, guild_id=1, channel_id=5, host_user_id=users[0],
                                       host_name=f"u{users[0]}", options=None, move_timeout=600)
    for uid in users[1:]:
        await service.join(lobby.id, uid, f"u{uid}")
    return (await service.start(lobby.id, users[0], is_moderator=False)).game.id


def table_size(game_id: str) -> int:
    info = get(game_id).info
    return max(info.min_players, min(3, info.max_players))


@pytest.mark.parametrize("how", ["resign", "kick"])
@pytest.mark.parametrize("game_id", GAME_IDS)
async def test_a_seat_that_left_is_logged_as_left_never_as_timed_out(service: GameService, game_id: str,
                                                                      how: str) -> None:
    users = USERS[:table_size(game_id)]
    game = await started(service, game_id, users)
    leaver = users[1]
    if how == "resign":
        await service.resign(game, leaver)
    else:
        await service.kick(game, leaver, by_user=users[0])
    record = await service.get(game)
    engine = get(game_id)
    for _ in range(3000):
        if record.status != "active":
            break
        state = service.state(record)
        seat = min(engine.to_move(state) - {CHANCE})
        result = await service.act(game, record.user_of(seat), engine.legal_actions(state, seat)[0],
                                   expected_version=record.version)
        record = result.game
    assert record.status == "finished"
    log = await service.repo.log(game)
    tx = texts(record)
    lines = [tx.event(e) for entry in log for e in entry.events]
    assert not [line for line in lines if "time ran out" in line.lower() or "timed out" in line.lower()]
    stand_ins = [e for e in log if e.kind == "player" and e.seat == 1 and e.user_id is None]
    assert stand_ins, "the seat that left had nothing to play"
    assert all(tx.event(e.events[0]) == "u102 has left; played automatically." for e in stand_ins)


async def test_carnival_pick_of_a_seat_that_left_says_a_random_sin_is_picked(service: GameService) -> None:
    game = await started(service, "carnival", USERS[:3])
    await service.resign(game, USERS[1])
    log = await service.repo.log(game)
    record = await service.get(game)
    tx = texts(record)
    stand_in = next(e for e in log if e.kind == "player" and e.seat == 1)
    assert [tx.event(e) for e in stand_in.events if e["visible_to"] is None] == [
        "u102 has left; played automatically.", "No pick from u102: a random sin will be picked."]


async def test_kicking_the_last_person_ends_the_game_as_abandoned(service: GameService) -> None:
    """After one of two players resigned, a kick of the other leaves nobody: the game ends as
    abandoned with one ``kick`` entry marked abandoned, its notice queued, nothing played."""
    game = await started(service, "carnival", USERS[:2])
    await service.resign(game, USERS[1])
    before = await service.get(game)
    ended = await service.kick(game, USERS[0], by_user=999, notice={"content": "plays on"},
                               abandoned_notice={"content": "abandoned"})
    assert isinstance(ended, GameRecord)
    record = await service.get(game)
    assert record.status == "abandoned" and record.version == before.version + 1
    last = (await service.repo.log(game))[-1]
    assert (last.kind, last.action, last.user_id) == (
        "system", {"type": "kick", "seat": 0, "user": USERS[0], "abandoned": True}, 999)
    assert await service.replay_matches(game)
