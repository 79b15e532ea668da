"""The operator's storage (migration 006) on both backends: the
figures of ``/game status``, a user anonymised in the games they are done with (and left
alone where they still play), and a server's purge scheduled, called off and carried out;
then migration 006 on a database written by the old code, whose finished games still
replay after a player there asked to be forgotten."""

from __future__ import annotations

import pytest

from bot.check import check
from bot.service import GameService
from bot.storage import Repository
from bot.storage.records import ANON_USER
from engines.base import CHANCE
from engines.registry import get
from tests.bot.test_old_database import old  # noqa: F401  (the fixture: a copy of the old database)

ANN, BO, CY, DI = 101, 102, 103, 104
GUILD, OTHER = 1, 2


class Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


async def played(service: GameService, guild: int, users: tuple[int, ...], moves: int) -> int:
    """A carnival game of ``users`` in ``guild`` with up to ``moves`` first legal moves."""
    lobby = await service.create_lobby(game_id="carnival", guild_id=guild, channel_id=5 + guild, host_user_id=users[0],
                                       host_name="host", options=None, move_timeout=600)
    for uid in users[1:]:
        await service.join(lobby.id, uid, f"u{uid}")
    game = (await service.start(lobby.id, users[0], is_moderator=False)).game
    engine, left = get("carnival"), moves
    while game.status == "active" and left > 0:               # the first waiting seat's first legal move
        left -= 1
        state = service.state(game)
        seat = min(engine.to_move(state) - {CHANCE})
        game = (await service.act(game.id, game.user_of(seat), engine.legal_actions(state, seat)[0])).game
    return game.id


@pytest.fixture
async def repo(database_url: str):
    clock = Clock()
    repository = Repository(database_url, clock=clock)
    await repository.open()
    repository.test_clock = clock  # type: ignore[attr-defined]
    yield repository
    await repository.close()


async def test_status_counts_per_server_and_in_all(repo: Repository) -> None:
    clock = repo.test_clock  # type: ignore[attr-defined]
    service = GameService(repo, clock=clock)
    done = await played(service, GUILD, (ANN, BO, CY), 10_000)
    clock.now += 7200
    running = await played(service, GUILD, (ANN, BO, CY), 4)
    other = await played(service, OTHER, (DI, BO, CY), 2)
    assert (await repo.get_game(done)).status == "finished"
    recent = {g: await repo.count_actions(g) for g in (running, other)}
    pending = {g: len(await repo.pending(g)) for g in (done, running, other)}  # (nothing was delivered)
    assert pending[other] > 0
    all_counts = await repo.operator_counts(day_start=0, hour_ago=clock.now - 3600)
    assert all_counts == {"active": 2, "finished": 1, "actions": recent[running] + recent[other],
                          "pending": sum(pending.values())}
    ours = await repo.operator_counts(day_start=clock.now - 60, hour_ago=0, guild_id=GUILD)
    assert ours == {"active": 1, "finished": 0, "actions": await repo.count_actions(done) + recent[running],
                    "pending": pending[done] + pending[running]}
    size = await repo.database_bytes()
    assert size is not None and size > 0


async def test_anonymise_keeps_the_games_and_spares_running_seats(repo: Repository) -> None:
    service = GameService(repo, clock=repo.test_clock)  # type: ignore[attr-defined]
    done = await played(service, GUILD, (BO, ANN, CY), 10_000)           # BO hosts and plays
    running = await played(service, GUILD, (ANN, BO, CY), 3)
    before = await repo.get_game(done)
    log_before = await repo.log(done)
    assert await repo.anonymise_user(BO, lambda seat: f"#{seat}") == [done]
    record = await repo.get_game(done)
    assert [(s.seat, s.user_id, s.name) for s in record.seats] == [
        (s.seat, ANON_USER, f"#{s.seat}") if s.user_id == BO else (s.seat, s.user_id, s.name) for s in before.seats]
    assert record.host_user_id == ANON_USER and record.state == before.state and record.version == before.version
    entries = await repo.log(done)
    assert [(e.seq, e.action, e.events) for e in entries] == [(e.seq, e.action, e.events) for e in log_before]
    assert [e.user_id for e in entries] == [ANON_USER if e.user_id == BO else e.user_id for e in log_before]
    assert await service.replay_matches(done)
    assert BO in {s.user_id for s in (await repo.get_game(running)).seats}  # still playing: untouched
    assert await repo.anonymise_user(BO, str) == []                       # nothing left to do


async def test_a_guild_purge_is_scheduled_cancelled_and_done(repo: Repository) -> None:
    service = GameService(repo, clock=repo.test_clock)  # type: ignore[attr-defined]
    ours = await played(service, GUILD, (ANN, BO, CY), 3)
    theirs = [await played(service, OTHER, (DI, BO, CY), n) for n in (3, 10_000)]
    await repo.set_quiet_hours(OTHER, (60, 120, "UTC"))
    await repo.record_ratings(theirs[1], OTHER, "carnival", [(DI, 25.0, 8.0, True)])
    await repo.watch(theirs[0], ANN, "end")
    await repo.schedule_guild_purge(OTHER, 100.0, 500.0)
    await repo.schedule_guild_purge(OTHER, 200.0, 900.0)                 # a second departure keeps the first
    assert await repo.guild_purges() == [(OTHER, 100.0, 500.0)]
    assert await repo.guild_purges(due_by=499.0) == []
    assert await repo.cancel_guild_purge(OTHER) and not await repo.cancel_guild_purge(OTHER)
    await repo.schedule_guild_purge(OTHER, 300.0, 600.0)
    assert await repo.guild_purges(due_by=600.0) == [(OTHER, 300.0, 600.0)]
    assert await repo.purge_guild(OTHER) == 2
    for game in theirs:
        assert await repo.get_game(game) is None
        assert await repo.count_actions(game) == 0 and not await repo.outbox(game) and not await repo.watchers(game)
    assert await repo.quiet_hours(OTHER) is None and await repo.ratings(OTHER) == []
    assert await repo.guild_purges() == []
    assert (await repo.get_game(ours)).status == "active" and await repo.count_actions(ours) > 0


async def test_migration_006_on_an_old_database_and_its_games_replay_after_forgetting(old) -> None:  # noqa: F811
    service, path = old
    repo = service.repo
    await service.upgrade_snapshots()
    assert await repo.schema_version() >= 6
    await repo.schedule_guild_purge(7, 1.0, 2.0)
    assert await repo.guild_purges(due_by=2.0) == [(7, 1.0, 2.0)]
    finished = await repo.games(status=("finished",))
    user = finished[0].seats[0].user_id
    changed = await repo.anonymise_user(user, lambda seat: f"#{seat}")
    assert finished[0].id in changed
    await repo.close()
    assert await check(path) == (8, [])
