"""The storage backends: database URLs, the PostgreSQL translation, two
processes' connections on one database (compare-and-set, lobby seats, claimed reminders
and held-back pings), shards, and PostgreSQL faults."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from bot.sandbox.localpg import STATEMENT_TIMEOUT_MS, free_port
from bot.service import GameService
from bot.settings import Settings
from bot.storage import LogEntry, OutboxItem, Repository, Shards, StaleVersion, StorageUnwritable
from bot.storage.backend import parse_database_url, to_numbered
from bot.storage.clock import due_query
from bot.storage.database import IDLE_IN_TRANSACTION_MS

# Discord's documented example: a guild id and its shard out of 2 (snowflake >> 22 is the ms timestamp)
GUILD_SHARD0 = 4 << 22
GUILD_SHARD1 = (5 << 22) | 12345


def test_database_urls() -> None:
    assert parse_database_url("data/games.db").target == "data/games.db"
    assert parse_database_url("sqlite:///data/games.db").target == "data/games.db"
    assert parse_database_url("sqlite:////abs/games.db").target == "/abs/games.db"
    assert parse_database_url("sqlite:///:memory:").target == ":memory:"
    pg = parse_database_url("postgresql://bot:s3cret@db.example:5433/games")
    assert (pg.backend, pg.target) == ("postgresql", "postgresql://bot:s3cret@db.example:5433/games")
    assert "s3cret" not in pg.shown and pg.shown == "postgresql://bot:***@db.example:5433/games"
    with pytest.raises(ValueError, match="mysql"):
        parse_database_url("mysql://x/y")


def test_placeholders_are_numbered_for_postgresql() -> None:
    assert to_numbered("SELECT a FROM t WHERE a=? AND b IN (?,?)") == "SELECT a FROM t WHERE a=$1 AND b IN ($2,$3)"
    assert to_numbered("SELECT '?' , \"q?\" FROM t -- why?\nWHERE x=?") == \
        "SELECT '?' , \"q?\" FROM t -- why?\nWHERE x=$1"


def test_postgresql_has_its_own_migration_where_the_sql_differs() -> None:
    """Every migration that declares integer or real columns has a PostgreSQL file (64-bit
    integers for Discord ids, double-precision times, identity ids); the rest are shared."""
    folder = Path(__file__).parents[2] / "bot" / "storage" / "migrations"
    sqlite_only = {"INTEGER", "REAL", "AUTOINCREMENT"}

    def words(path: Path) -> set[str]:
        return {w.strip("(),;") for w in path.read_text(encoding="utf-8").upper().split()}

    for shared in sorted(folder.glob("[0-9]*_*.sql")):
        own = folder / "pg" / shared.name
        if words(shared) & sqlite_only:
            assert own.exists(), shared.name
        if own.exists():
            assert not words(own) & sqlite_only, own.name


def test_settings_database_url_and_shards() -> None:
    s = Settings.from_env({"DATABASE_URL": "postgresql://u@h/db", "SHARD_COUNT": "4", "SHARD_IDS": "1, 3"},
                          dotenv_path=None)
    assert (s.database_path, s.postgres, s.shard_count, s.shard_ids) == ("postgresql://u@h/db", True, 4, (1, 3))
    assert s.shards == Shards(4, (1, 3))
    s = Settings.from_env({"DATABASE_URL": "sqlite:///x/y.db", "SHARD_COUNT": "2"}, dotenv_path=None)
    assert (s.database_path, s.postgres, s.shards) == ("x/y.db", False, Shards(2, (0, 1)))
    assert Settings.from_env({}, dotenv_path=None).shards is None
    with pytest.raises(ValueError, match="SHARD_COUNT"):
        Settings.from_env({"SHARD_IDS": "0"}, dotenv_path=None)
    with pytest.raises(ValueError, match="0..1"):
        Settings.from_env({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, dotenv_path=None)


def test_shard_of_a_server_is_discords_rule() -> None:
    assert Shards.of(GUILD_SHARD0, 2) == 0 and Shards.of(GUILD_SHARD1, 2) == 1
    assert Shards.of(None, 3) == 0  # no server: shard 0, as Discord sends DMs
    assert Shards.of(81384788765712384, 16) == (81384788765712384 >> 22) % 16
    assert Shards(2, (1,)).owns(GUILD_SHARD1) and not Shards(2, (1,)).owns(GUILD_SHARD0)


@pytest.fixture
async def two(database_url):
    """Two repositories on one database: what two bot processes have."""
    now = [1000.0]
    a = Repository(database_url, clock=lambda: now[0])
    b = Repository(database_url, clock=lambda: now[0])
    await a.open()
    await b.open()
    yield a, b
    await a.close()
    await b.close()


async def lobby(repo: Repository, guild: int = 1, timeout: int = 100):
    return await repo.create_game(game_id="carnival", guild_id=guild, channel_id=2, host_user_id=10,
                                  host_name="Ann", seed=42, options={}, move_timeout=timeout)


async def test_two_connections_compare_and_set_one_append_wins(two) -> None:
    a, b = two
    g = await lobby(a)

    async def write(repo: Repository, tag: str) -> str:
        try:
            await repo.append(g.id, 0, [LogEntry(0, "player", 0, {"type": tag})], state={"t": tag}, status="active")
            return tag
        except StaleVersion:
            return "stale"

    results = await asyncio.gather(*(write(r, f"m{i}") for i, r in enumerate([a, b, a, b])))
    winners = [r for r in results if r != "stale"]
    assert len(winners) == 1
    assert [e.action["type"] for e in await b.log(g.id)] == winners
    assert (await a.get_game(g.id)).state == {"t": winners[0]}


async def test_joins_from_two_connections_take_distinct_seats(two) -> None:
    a, b = two
    g = await lobby(a)
    await asyncio.gather(*(r.join(g.id, 20 + i, f"p{i}", 9) for i, r in enumerate([a, b, a, b, a, b])))
    seats = (await b.get_game(g.id)).seats
    assert [s.seat for s in seats] == list(range(7))
    assert sorted(s.user_id for s in seats) == [10, 20, 21, 22, 23, 24, 25]


async def test_a_reminder_and_held_back_pings_are_claimed_once(two) -> None:
    a, b = two
    g = await lobby(a)
    await a.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start"})], state={}, status="active",
                   deadline=1100.0, waiting=[0])
    claims = await asyncio.gather(a.mark_reminded(g.id, 1, 1), b.mark_reminded(g.id, 1, 1))
    assert sorted(claims) == [False, True]
    assert not await a.mark_reminded(g.id, 1, 1)  # the same reminder again: already claimed
    assert await b.mark_reminded(g.id, 1, 2)  # the 90 % one
    await a.defer_pings(g.id, [0])
    await b.defer_pings(g.id, [0])  # (already held: no second row)
    assert await b.deferred_pings() == {g.id: [0]}
    assert sorted(await asyncio.gather(a.clear_deferred_pings(g.id), b.clear_deferred_pings(g.id))) == [False, True]


async def test_each_shard_sees_only_its_servers_deadlines_and_outbox(database_url) -> None:
    now = [1000.0]
    whole = Repository(database_url, clock=lambda: now[0])
    shard0 = Repository(database_url, clock=lambda: now[0], shards=Shards(2, (0,)))
    shard1 = Repository(database_url, clock=lambda: now[0], shards=Shards(2, (1,)))
    for r in (whole, shard0, shard1):
        await r.open()
    try:
        games = {}
        for guild in (GUILD_SHARD0, GUILD_SHARD1):
            g = await lobby(whole, guild)
            await whole.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start"})], state={},
                               status="active", deadline=1100.0, waiting=[0], outbox=[OutboxItem("board", 1)])
            await whole.defer_pings(g.id, [0])
            games[guild] = g.id
        assert [g.id for g in await whole.due(1100.0)] == [games[GUILD_SHARD0], games[GUILD_SHARD1]]
        assert [g.id for g in await shard0.due(1100.0)] == [games[GUILD_SHARD0]]
        assert [g.id for g in await shard1.due(1100.0)] == [games[GUILD_SHARD1]]
        assert list(await shard1.deferred_pings()) == [games[GUILD_SHARD1]]
        assert [r.game for r in await shard0.pending()] == [games[GUILD_SHARD0]]
        assert [r.game for r in await shard0.pending(games[GUILD_SHARD1])] == [games[GUILD_SHARD1]]  # asked by id
    finally:
        for r in (whole, shard0, shard1):
            await r.close()


async def test_a_delivered_answer_forgets_its_token(two) -> None:
    a, _ = two
    g = await lobby(a)
    await a.append(g.id, 0, [LogEntry(0, "system", None, {"type": "start"})], state={}, status="active",
                   outbox=[OutboxItem("answer", 1, {"token": "secret", "after": 0}), OutboxItem("board", 1)])
    rows = await a.pending(g.id)
    await a.delivered([r.id for r in rows])
    assert [(r.kind, r.payload, r.done_at) for r in await a.outbox(g.id)] == [
        ("answer", {"after": 0}, 1000.0), ("board", {}, 1000.0)]


async def test_postgresql_unreachable_is_a_storage_fault() -> None:
    repo = Repository(f"postgresql://nobody:pw@127.0.0.1:{free_port()}/none", busy_timeout_ms=200)
    with pytest.raises(StorageUnwritable) as err:
        await repo.open()
    assert "pw@" not in str(err.value) and "127.0.0.1" in str(err.value)


async def test_postgresql_connection_lost_is_reopened_by_the_next_call(postgres_url: str) -> None:
    repo = Repository(postgres_url)
    await repo.open()
    try:
        g = await lobby(repo)
        killer = await asyncpg.connect(postgres_url.split("?", 1)[0])
        try:
            await killer.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                 " WHERE pid <> pg_backend_pid() AND datname = current_database()")
        finally:
            await killer.close()
        g = await repo.join(g.id, 11, "Bo", 5)  # the dropped connection is found at BEGIN and reopened
        assert [s.user_id for s in g.seats] == [10, 11]
        assert (await repo.get_game(g.id)).seats == g.seats
    finally:
        await repo.close()


async def test_a_deadline_fires_once_when_two_processes_expire_it(database_url: str) -> None:
    now = [10_000.0]
    a = GameService(Repository(database_url, clock=lambda: now[0]), clock=lambda: now[0])
    b = GameService(Repository(database_url, clock=lambda: now[0]), clock=lambda: now[0])
    await a.repo.open()
    await b.repo.open()
    try:
        lobby = await a.create_lobby(game_id="carnival", guild_id=1, channel_id=5, host_user_id=101,
                                     host_name="Ann", options=None, move_timeout=600)
        await a.join(lobby.id, 102, "Bo")
        game = (await a.start(lobby.id, 101, is_moderator=False)).game
        await a.act(game.id, 101, "choose greed")
        game = await b.get(game.id)
        now[0] = game.deadline + 1
        results = await asyncio.gather(a.expire(game.id, game.version), b.expire(game.id, game.version))
        assert sum(r is not None for r in results) == 1
        timeouts = [e for e in await a.repo.log(game.id) if e.kind == "player" and e.user_id is None]
        assert [e.seat for e in timeouts] == [1]
        assert await b.replay_matches(game.id)
    finally:
        await a.repo.close()
        await b.repo.close()


async def test_the_shard_filter_goes_through_an_index(database_url: str) -> None:
    """A process of shards 1 and 3 of 4 indexes the games by shard, status and deadline
    (``games_by_shard_of_4``) and drops the index on the shard alone it replaces; its filters
    (the outbox, the held-back pings) go through it (SQLite's plan; PostgreSQL's clock below)."""
    old = Repository(database_url)  # (a database the old code indexed by the shard alone)
    await old.open()
    async with old.connection() as db:
        await db.execute("CREATE INDEX games_shard_of_4 ON games(((COALESCE(guild_id, 0) / 4194304) % 4))")
    await old.close()
    repo = Repository(database_url, shards=Shards(4, (1, 3)))
    await repo.open()
    try:
        assert repo.shards is not None
        assert await indexes(repo) >= {"games_by_shard_of_4", "games_status"}
        assert "games_shard_of_4" not in await indexes(repo)
        where, params = repo.shards.where("g.guild_id")
        sql = f"SELECT g.id FROM games g WHERE {where}"
        if repo.backend == "sqlite":
            async with repo.connection() as db, db.execute(f"EXPLAIN QUERY PLAN {sql}", params) as cur:
                plan = " ".join(str(r[-1]) for r in await cur.fetchall())
            assert "games_by_shard_of_4" in plan, plan
        on_1, on_0 = await lobby(repo, GUILD_SHARD1), await lobby(repo, GUILD_SHARD0)  # (shards 1 and 0 of 4)
        assert (Shards.of(on_1.guild_id, 4), Shards.of(on_0.guild_id, 4)) == (1, 0)
        async with repo.connection() as db, db.execute(sql, params) as cur:
            assert [int(r[0]) for r in await cur.fetchall()] == [on_1.id]
    finally:
        await repo.close()


async def test_a_test_databases_sessions_have_a_statement_timeout(postgres_url: str) -> None:
    """The fixture's URL bounds every statement of its sessions (the repository's pool and any
    connection a test opens): a statement waiting for what never comes fails its test."""
    repo = Repository(postgres_url)
    await repo.open()
    try:
        async with repo.connection() as db, db.execute("SHOW statement_timeout") as cur:
            assert (await cur.fetchone())[0] == f"{STATEMENT_TIMEOUT_MS // 60_000}min"
    finally:
        await repo.close()
    conn = await asyncpg.connect(postgres_url)
    try:
        assert await conn.fetchval("SELECT current_setting('statement_timeout')") == "1min"
    finally:
        await conn.close()


async def test_a_pool_session_hanging_inside_a_transaction_is_ended_by_the_server(postgres_url: str) -> None:
    """A process that hangs mid-transaction (paused) frees its row locks after
    ``IDLE_IN_TRANSACTION_MS`` for the process that took its shards over."""
    repo = Repository(postgres_url)
    await repo.open()
    try:
        async with repo.connection() as db, db.execute("SHOW idle_in_transaction_session_timeout") as cur:
            assert (await cur.fetchone())[0] == f"{IDLE_IN_TRANSACTION_MS // 1000}s"
    finally:
        await repo.close()


async def indexes(repo: Repository) -> set[str]:
    """The names of the indexes of ``games``."""
    sql = ("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'games'"
           if repo.backend == "postgresql" else "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='games'")
    async with repo.connection() as db, db.execute(sql) as cur:
        return {str(r[0]) for r in await cur.fetchall()}


async def test_the_clock_of_a_shard_reads_its_games_through_the_shard_index(postgres_url: str) -> None:
    """PostgreSQL, 4,000 games (most finished, as a server's are), ANALYZEd: the clock's query
    of shards 1 and 3 of 4 (``due_query``) reads ``games_by_shard_of_4`` alone, each shard's
    active games with a deadline as one range, and no other index or table scan."""
    repo = Repository(postgres_url, shards=Shards(4, (1, 3)))
    await repo.open()
    try:
        rows = [("carnival", k << 22, 5, 1, "active" if k % 5 == 0 else "finished", 1, "{}", 600,  # (shard k % 4)
                 1000.0 + k if k % 5 == 0 else None, 1.0, 1.0) for k in range(4000)]
        async with repo.connection() as db:
            await db.executemany(
                "INSERT INTO games(game_id, guild_id, channel_id, host_user_id, status, seed, options, move_timeout,"
                " deadline, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
            await db.execute("ANALYZE games")
            sql, params = due_query(3000.0, repo.shards)
            async with db.execute(f"EXPLAIN (COSTS OFF) {sql}", params) as cur:
                plan = "\n".join(str(r[0]) for r in await cur.fetchall())
        assert "games_by_shard_of_4" in plan and "games_status" not in plan and "Seq Scan" not in plan, plan
        due = await repo.due(3000.0)
        assert sorted(g.id for g in due) == sorted(
            k + 1 for k, r in enumerate(rows) if r[4] == "active" and r[8] <= 3300.0 and Shards.of(r[1], 4) in (1, 3))
        # (the first reminder is due at half the 600 s window: deadline - 300)
        assert due
    finally:
        await repo.close()
