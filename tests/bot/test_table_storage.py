"""The table's storage and service parts (migration 005, ``bot/service.py``
undo and ratings) on a database written by the old code (``tests/fixtures/pre_shape_v1.db``,
schema 2): it migrates, its games play on to the end and are rated once, an undo in an old
game replays, and places in an outcome are shared only by true ties."""

from __future__ import annotations

import random

import pytest

from bot.check import check
from bot.service import GameService, HostError, ranks
from bot.storage import Repository
from engines.base import CHANCE, Outcome
from engines.registry import get
from tests.bot.test_old_database import old  # noqa: F401  (the fixture: a copy of the old database)


@pytest.fixture
async def upgraded(old):  # noqa: F811  (pytest passes the imported fixture)
    """The old database (``tests/bot/test_old_database.py``'s ``old``) with its snapshots rebuilt."""
    service, path = old
    await service.upgrade_snapshots()
    return service, path


async def play_to_end(service: GameService, game: int, rng: random.Random) -> None:
    for _ in range(3000):
        record = await service.get(game)
        if record.status != "active":
            return
        engine = get(record.game_id)
        state = service.state(record)
        seat = rng.choice(sorted(s for s in engine.to_move(state) if s != CHANCE))
        user = record.user_of(seat)
        assert user is not None
        await service.act(game, user, rng.choice(list(engine.legal_actions(state, seat))))
    raise AssertionError("game did not end")


async def test_an_old_database_migrates_and_its_games_finish_rated_once(upgraded) -> None:
    service, path = upgraded
    repo = service.repo
    assert await repo.migrate() >= 5
    assert await repo.ratings(1) == []                                   # nothing rated from before
    active = [g for g in await repo.games(status=("active",))]
    for g in active:
        await play_to_end(service, g.id, random.Random(g.id))
    for g in active:
        record = await service.get(g.id)
        outcome = get(record.game_id).outcome(service.state(record))
        assert outcome is not None
        rows = {r[1]: r for r in await repo.ratings(1, record.game_id)}
        for seat in record.seats:
            _, _, mu, sigma, games, wins = rows[seat.user_id]
            assert (games, wins) == (1, int(seat.seat in outcome.winners)) and sigma < 25 / 3
        assert not await service.rate(record, outcome)
    await repo.close()
    assert await check(path) == (8, [])
    await repo.open()


async def test_undo_in_an_old_game_appends_and_replays(upgraded) -> None:
    service, path = upgraded
    record = await service.get(1)                                        # the old active carnival game
    engine = get(record.game_id)
    state = service.state(record)
    seat = min(s for s in engine.to_move(state) if s != CHANCE)
    user = record.user_of(seat)
    assert user is not None
    before = record.state
    moved = await service.act(1, user, engine.legal_actions(state, seat)[0])
    assert await service.can_undo(moved.game, user)
    result = await service.undo(1, user)
    assert result.game.state == before and result.game.version == moved.game.version + 1
    assert (await repo_log_tail(service, 1)) == {"type": "undo", "seqs": [moved.game.version]}
    others = sorted(s for s in engine.to_move(service.state(result.game)) if s not in (CHANCE, seat))
    other = result.game.user_of(others[0])
    assert other is not None
    await service.act(1, other, engine.legal_actions(service.state(result.game), others[0])[0])
    with pytest.raises(HostError) as refused:                            # someone else acted since
        await service.undo(1, user)
    assert refused.value.code == "undo"
    await service.repo.close()
    assert await check(path) == (8, [])
    await service.repo.open()


async def repo_log_tail(service: GameService, game: int) -> dict[str, object]:
    return (await service.repo.log(game))[-1].action


def test_places_are_shared_only_by_true_ties() -> None:
    from engines.base import Msg

    reason = Msg("reason.x")
    assert ranks(Outcome((3, 5, 5, 1), (1, 2, 0, 3), frozenset({1, 2}), reason)) == [3, 1, 1, 4]
    # equal scores but a tie-break decided the winner: not shared
    assert ranks(Outcome((5, 5), (1, 0), frozenset({1}), reason)) == [2, 1]


async def test_watchers_and_ratings_are_stored_portably_and_forgotten_with_the_user(tmp_path) -> None:
    repo = Repository(str(tmp_path / "new.db"))
    await repo.open()
    try:
        game = await repo.create_game(game_id="carnival", guild_id=5, channel_id=6, host_user_id=1, host_name="a",
                                      seed=1, options={}, move_timeout=60)
        await repo.watch(game.id, 7, "board")
        await repo.watch(game.id, 7, "end")                              # a second call changes the mode
        await repo.watch(game.id, 8, "board")
        assert [(w[0], w[1]) for w in await repo.watchers(game.id)] == [(7, "end"), (8, "board")]
        assert await repo.record_ratings(game.id, 5, "carnival", [(7, 30.0, 7.0, True), (9, 20.0, 7.0, False)])
        assert not await repo.record_ratings(game.id, 5, "carnival", [(7, 99.0, 1.0, True)])
        assert [r[1] for r in await repo.ratings(5, "carnival")] == [7, 9]          # best first
        assert await repo.ratings(5, user_id=7) == [("carnival", 7, 30.0, 7.0, 1, 1)]
        assert await repo.delete_user_data(7) == 2                       # the watcher row and the rating
        assert [w[0] for w in await repo.watchers(game.id)] == [8]
        assert [r[1] for r in await repo.ratings(5)] == [9]
        assert await repo.unwatch(game.id, 8) == (0, 0) and await repo.unwatch(game.id, 8) is None
    finally:
        await repo.close()


async def test_a_crash_right_after_the_final_move_keeps_its_ratings(upgraded, monkeypatch) -> None:
    """The ratings are written in the transaction of the final move: with a crash at
    ``after_commit`` of every move (the rest of ``act`` never runs), the game still ends
    finished and rated once."""
    import bot.service as service_module

    service, _ = upgraded
    game = next(g for g in await service.repo.games(status=("active",)))

    class Crash(Exception):
        pass

    def hook(name: str) -> None:
        if name == "after_commit":
            raise Crash

    monkeypatch.setattr(service_module, "crash_hook", hook)
    rng = random.Random(5)
    record = await service.get(game.id)
    while record.status == "active":
        engine = get(record.game_id)
        state = service.state(record)
        seat = rng.choice(sorted(s for s in engine.to_move(state) if s != CHANCE))
        with pytest.raises(Crash):
            await service.act(game.id, record.user_of(seat), rng.choice(list(engine.legal_actions(state, seat))))
        record = await service.get(game.id)
    assert record.status == "finished"
    rated = {r[1]: (r[4], r[5]) for r in await service.repo.ratings(1, record.game_id)}
    outcome = get(record.game_id).outcome(service.state(record))
    assert outcome is not None
    assert {s.user_id: rated[s.user_id] for s in record.seats} == {
        s.user_id: (1, int(s.seat in outcome.winners)) for s in record.seats}


async def test_ai_seats_are_not_rated_and_the_old_ratings_of_ai_seats_are_not_listed(tmp_path) -> None:
    """An AI seat's user id is synthetic (-1 is the first AI of every game, of any level): it is
    nobody to rate. It plays in the game's ranking as a new player, and only the people get a
    rating; a rating stored for one before is not listed."""
    repo = Repository(str(tmp_path / "new.db"))
    await repo.open()
    try:
        service = GameService(repo)
        lobby = await service.create_lobby(game_id="carnival", guild_id=5, channel_id=6, host_user_id=1,
                                           host_name="a", options=None, move_timeout=60)
        await service.add_ai(lobby.id, "easy", 1, is_moderator=False)
        await service.join(lobby.id, 2, "b")
        record = (await service.start(lobby.id, 1, is_moderator=False)).game
        assert [s.user_id for s in record.seats] == [1, -1, 2]
        outcome = Outcome(scores=[3.0, 2.0, 1.0], ranking=[0, 1, 2], winners=[0], reason="")
        rated = await service.ratings_of(record, outcome)
        assert rated is not None
        assert [(user, won) for user, _, _, won in rated[2]] == [(1, True), (2, False)]
        assert await repo.record_ratings(record.id, 5, "carnival", [(-1, 40.0, 5.0, True), *rated[2]])
        assert [r[1] for r in await repo.ratings(5, "carnival")] == [1, 2]
        assert await repo.ratings(5, "carnival", user_id=-1) == []
    finally:
        await repo.close()
