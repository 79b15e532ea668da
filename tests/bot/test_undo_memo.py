"""The Undo check without replaying the log (bot/service.py ``can_undo``): the
service remembers the state each move was applied to and whether it revealed anything,
and reads only the log's tail; its verdict must be the one of the full computation
(``undo_candidate`` over the whole log, replayed) at every point of long games, for the
mover and the others, in this process and in a fresh one that remembers nothing."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from bot.service import UNDO_TAIL, GameService
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import get


@pytest_asyncio.fixture
async def repo(tmp_path: Path) -> AsyncIterator[Repository]:
    repository = Repository(str(tmp_path / "games.db"))
    await repository.open()
    yield repository
    await repository.close()


async def new_game(service: GameService, game_id: str, users: list[int]) -> int:
    lobby = await service.create_lobby(game_id=game_id, guild_id=1, channel_id=2, host_user_id=users[0],
                                       host_name="u0", options=None, move_timeout=600)
    for k, user in enumerate(users[1:], 1):
        await service.join(lobby.id, user, f"u{k}")
    return (await service.start(lobby.id, users[0], is_moderator=False)).game.id


async def verdicts(service: GameService, game: int, users: list[int]) -> list[bool]:
    record = await service.get(game)
    return [await service.can_undo(record, u) for u in users]


async def full_verdicts(service: GameService, game: int, users: list[int]) -> list[bool]:
    """The verdicts computed the old way: the whole log, replayed, nothing remembered."""
    fresh = GameService(service.repo)
    record = await fresh.get(game)
    entries = await fresh.repo.log(game)
    return [record.seat_of(u) is not None and record.status == "active" and not record.paused
            and fresh.undo_candidate(record, entries, u) is not None for u in users]


async def test_the_remembered_undo_check_agrees_with_the_full_one(repo: Repository) -> None:
    service = GameService(repo)
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for game_id, users in (("carnival", [11, 12, 13]), ("ora", [21, 22]), ("canterbury", [31, 32])):
        game = await new_game(service, game_id, users)
        engine = get(game_id)
        for _ in range(60):
            record = await service.get(game)
            if record.status != "active":
                break
            expected = await full_verdicts(service, game, users)
            assert await verdicts(service, game, users) == expected, (game_id, record.version)
            assert await verdicts(GameService(repo), game, users) == expected, (game_id, record.version)
            for v in expected:
                seen[v] += 1
            if any(expected) and rng.random() < 0.3:  # take one back now and then: undo entries in the tail
                user = users[expected.index(True)]
                await service.undo(game, user)
                continue
            state = service.state(record)
            seat = rng.choice(sorted(s for s in engine.to_move(state) if s != CHANCE))
            user = record.user_of(seat)
            assert user is not None
            await service.act(game, user, rng.choice(list(engine.legal_actions(state, seat))))
        assert (await service.get(game)).version > UNDO_TAIL  # (the tail did not hold the whole log)
    assert seen[True] > 5 and seen[False] > 5


async def test_the_verdict_of_a_version_is_read_once_per_user(repo: Repository) -> None:
    """The panels before and after a move ask ``can_undo`` of the same version; the
    log is read once per (game, version, user), and a new version is asked afresh."""
    service = GameService(repo)
    game = await new_game(service, "carnival", [11, 12, 13])
    record = await service.get(game)
    state = service.state(record)
    moved = await service.act(game, 11, get("carnival").legal_actions(state, 0)[0])
    reads: list[int] = []
    real_log = repo.log

    async def counted_log(game: int, **kwargs: object) -> list:
        reads.append(game)
        return await real_log(game, **kwargs)  # type: ignore[arg-type]

    repo.log = counted_log  # type: ignore[method-assign]
    assert await service.can_undo(moved.game, 11) is True
    assert await service.can_undo(await service.get(game), 11) is True
    assert await service.can_undo(moved.game, 12) is False
    assert len(reads) == 2  # (once for 11, once for 12)
    await service.undo(game, 11)
    reads.clear()
    assert await service.can_undo(await service.get(game), 11) is False
    assert len(reads) == 1
