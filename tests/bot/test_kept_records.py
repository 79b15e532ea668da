"""The records a ``Repository`` keeps of its games (bot/storage/database.py ``GameWrites``):
``kept_game`` gives the game as stored without a trip to the database only while no write
of it by this process started since the record was read (or read back by the commit of
``appended``); a write that ran at any time during that read, or any write of many games,
leaves nothing kept. Each race is played in an exact order: a trip to the database is held
after it read and before it returns while another write runs in full."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.storage import LogEntry, Repository, archive, clock, gamelog, games, operations, outbox


@pytest.fixture
async def repo(database_url):
    r = Repository(database_url, clock=lambda: 1000.0)
    await r.open()
    yield r
    await r.close()


async def started(repo: Repository) -> tuple[int, int]:
    """A running game of Ann (user 10) and Bo (11): (id, version)."""
    g = await repo.create_game(game_id="carnival", guild_id=1, channel_id=2, host_user_id=10,
                               host_name="Ann", seed=1, options={}, move_timeout=100)
    await repo.join(g.id, 11, "Bo", 2)
    version = await repo.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start", "players": 2})],
                                state={"n": 0}, status="active", players=2)
    return g.id, version


async def moved(repo: Repository, game: int, version: int, n: int) -> Any:
    record, _ = await repo.appended(game, version, [LogEntry(0, "player", 0, {"type": f"m{n}"}, user_id=10)],
                                    state={"n": n}, status="active")
    return record


def held(repo: Repository, name: str) -> tuple[asyncio.Event, asyncio.Event]:
    """Hold ``repo``'s next ``name`` trip (``_fetch`` or ``_batch_then``) once it is done,
    before it returns: (set when it is held, set to let it return)."""
    reached, go = asyncio.Event(), asyncio.Event()
    original = getattr(repo, name)

    async def holding(*args: Any, **kwargs: Any) -> Any:
        setattr(repo, name, original)
        done = await original(*args, **kwargs)
        reached.set()
        await go.wait()
        return done

    setattr(repo, name, holding)
    return reached, go


async def raced(call: Awaitable[Any], reached: asyncio.Event, go: asyncio.Event,
                meanwhile: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``call`` until its held trip is done, then ``meanwhile()`` in full, then let ``call`` return."""
    task = asyncio.ensure_future(call)
    await reached.wait()
    await meanwhile()
    go.set()
    return await task


async def test_a_move_keeps_the_record_its_commit_read_back_until_the_game_is_written(repo: Repository) -> None:
    game, version = await started(repo)
    record = await moved(repo, game, version, 1)
    assert repo.kept_game(game) is record
    assert await repo.get_game(game) == record
    await repo.set_fields(game, paused=1)
    assert repo.kept_game(game) is None
    fresh = await repo.get_game(game)  # (read with nothing writing: kept from now on)
    assert fresh.paused and repo.kept_game(game) is fresh


async def test_a_write_during_the_commit_leaves_nothing_kept(repo: Repository) -> None:
    game, version = await started(repo)
    reached, go = held(repo, "_batch_then")
    record = await raced(moved(repo, game, version, 1), reached, go, lambda: repo.set_fields(game, paused=1))
    assert not record.paused  # (read back before the pause was written)
    assert repo.kept_game(game) is None
    assert (await repo.get_game(game)).paused


async def test_a_write_during_a_read_leaves_nothing_kept(repo: Repository) -> None:
    game, version = await started(repo)
    await moved(repo, game, version, 1)
    await repo.set_fields(game, move_timeout=200)  # (nothing kept)
    reached, go = held(repo, "_fetch")
    read = await raced(repo.get_game(game), reached, go, lambda: repo.set_fields(game, paused=1))
    assert read is not None and not read.paused
    assert repo.kept_game(game) is None
    reached, go = held(repo, "_fetch")
    rows, record = await raced(repo.pending_of(game), reached, go, lambda: repo.set_fields(game, paused=0))
    assert record is not None and record.paused
    assert repo.kept_game(game) is None
    assert not (await repo.get_game(game)).paused


async def test_a_write_of_another_game_keeps_the_record(repo: Repository) -> None:
    game, version = await started(repo)
    other, _ = await started(repo)
    record = await moved(repo, game, version, 1)
    await repo.set_fields(other, paused=1)
    assert repo.kept_game(game) is record


async def test_a_write_of_many_games_leaves_nothing_kept(repo: Repository) -> None:
    game, version = await started(repo)
    await moved(repo, game, version, 1)
    await repo.purge_guild(99)  # (another server: it writes no row of this game, but may write many)
    assert repo.kept_game(game) is None


async def test_taking_the_shards_forgets_the_kept_records(repo: Repository) -> None:
    game, version = await started(repo)
    await moved(repo, game, version, 1)
    repo._writes.forget()  # (what ``Database.fence`` does once the leases are held)
    assert repo.kept_game(game) is None


async def test_a_refused_commit_keeps_nothing_new(repo: Repository) -> None:
    game, version = await started(repo)
    record = await moved(repo, game, version, 1)
    with pytest.raises(Exception, match="StaleVersion|stale|version"):
        await moved(repo, game, version, 2)  # (the version moved: nothing written)
    assert repo.kept_game(game) is None  # (a write was tried: the record is not vouched for any more)
    assert await repo.get_game(game) == record


WRITING_SQL = ("UPDATE games", "DELETE FROM games", "INSERT INTO games", "UPDATE seats", "INSERT INTO seats",
               "DELETE FROM seats", "restore(", "restore_for_user(")


@pytest.mark.parametrize("module", [games, gamelog, clock, operations, archive, outbox],
                         ids=lambda m: m.__name__)
def test_every_store_method_writing_a_game_is_counted(module: Any) -> None:
    """A store method whose SQL writes a game's row or seats is marked ``writes_game`` /
    ``writes_games`` (``appended`` counts itself), or is a private helper that only marked
    methods call, so no kept record outlives a write. (``create_game`` makes a new id: no
    record of it was kept.)"""
    unmarked = []
    for cls in [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]:
        methods = {n: m for n, m in vars(cls).items() if inspect.iscoroutinefunction(m)}
        sources = {n: inspect.getsource(inspect.unwrap(m)) for n, m in methods.items()}
        marked = {n for n, m in methods.items()
                  if getattr(m, "writes_game", False) or "self._writes.begin(" in sources[n]}
        for name, source in sources.items():
            if name in marked or name == "create_game" or not any(sql in source for sql in WRITING_SQL):
                continue
            callers = {n for n, s in sources.items() if f"self.{name}(" in s}
            if not (name.startswith("_") and callers and callers <= marked):
                unmarked.append(f"{cls.__name__}.{name}")
    assert unmarked == []
