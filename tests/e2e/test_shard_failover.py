"""Two bot processes for one shard on one PostgreSQL: one acts, the other waits as its
standby (bot/storage/leases.py).

The real bot runs in child processes (``python -m bot.sandbox.serve``, both with
``--shard-count 2 --shard-ids 1``) against the offline Discord of this test. The first
holds the shard's lease and connects; the second waits for the lease before it connects,
so a ``/game new`` makes one lobby. The holder dies by SIGKILL right after committing a
move (before delivering it); the standby takes over, delivers what the kill left, and the
game goes on: every typed move answered and applied exactly once, every newly awaited
player pinged once per decision, the log replays to the snapshot. A holder that loses its
lease session stops (exit status 5) and the standby takes over.

The waits poll the offline Discord and the database (bounded, generous limits); nothing
is timed. The failover time is written to the log of the test (``-s``) for the report.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import re
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import discord.http

from bot.sandbox.fakecord import EPHEMERAL, HANG_GUARD, FakeDiscord, iter_components
from bot.service import GameService
from bot.storage import Repository
from bot.storage.leases import LEASE_APPLICATION, STANDBY_APPLICATION
from tests.e2e.test_shards import Child, answered, guild_on, new_game, settled, typed_move
from tests.reliability.test_move_in_flight import NOT_SAVED, panel_actions, press


async def lease_waiters(url: str) -> tuple[int, int]:
    """(lease sessions holding, lease sessions standing by) on the server of ``url``."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT application_name FROM pg_stat_activity WHERE application_name IN ($1, $2)",
                                LEASE_APPLICATION, STANDBY_APPLICATION)
    finally:
        await conn.close()
    names = [r[0] for r in rows]
    return names.count(LEASE_APPLICATION), names.count(STANDBY_APPLICATION)


@contextlib.asynccontextmanager
async def holder_and_standby(fake: FakeDiscord, url: str, tmp_path: Path, *, crash: str = "",
                             holder: tuple[str, ...] = (), standby: tuple[str, ...] = ()
                             ) -> AsyncIterator[tuple[Repository, Child, Child]]:
    """Two bot processes for shard 1 of 2 on the database ``url``: the holder (started with
    ``crash`` and the ``serve`` options ``holder``), connected, and the standby (options
    ``standby``), waiting for its lease (not connected); with a repository of the test's own.
    Both are stopped afterwards."""
    holder_options, standby_options = holder, standby
    api = discord.http.Route.BASE.removesuffix("/api/v10")
    repo = Repository(url)
    await repo.open()  # (migrates first, so the two children do not race on an empty schema)
    holder = Child(api, url, 1, tmp_path / "holder.log")
    standby = Child(api, url, 1, tmp_path / "standby.log")
    try:
        await holder.start(crash, *holder_options)
        await settled(fake, repo, [holder], identifies=1)
        await standby.start("", *standby_options)

        async def standing_by() -> bool:
            return await lease_waiters(url) == (1, 1)
        await poll(standing_by, "the second process waits for the lease", [holder, standby])
        assert len(fake.identifies) == 1  # (the standby has not connected)
        yield repo, holder, standby
    finally:
        for child in (holder, standby):
            await child.stop()
        await repo.close()


async def poll(check, what: str, children: list[Child]) -> None:  # type: ignore[no-untyped-def]
    guard = time.monotonic() + HANG_GUARD
    while time.monotonic() < guard:
        if await check():
            return
        await asyncio.sleep(0.03)
    raise AssertionError(f"never: {what}; see " + ", ".join(str(c.log) for c in children))


async def lease_row(url: str) -> list[tuple[int, float]]:
    """(token, handover seconds) of the lease of shard 1 of 2: raised at each takeover; how long
    before the last takeover its holder had last renewed it (the server's clock)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT token, handover_s FROM shard_leases WHERE shard_count = 2 AND shard = 1")
    finally:
        await conn.close()
    return [(int(r[0]), float(r[1])) for r in rows]


def stopped(child: Child) -> bool:
    """The process of ``child`` is stopped (SIGSTOP: state ``T`` in /proc)."""
    assert child.proc is not None
    stat = Path(f"/proc/{child.proc.pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "T"


def pings(fake: FakeDiscord, game: int, channel: int) -> collections.Counter[int]:
    """The ping messages of ``game`` in ``channel`` (a "play" button, no embed) per version."""
    out: collections.Counter[int] = collections.Counter()
    for m in fake.channel_messages(channel, ephemeral=False):
        buttons = [c.get("custom_id", "") for c in iter_components(m.get("components") or [])]
        play = [b for b in buttons if re.fullmatch(rf"g:{game}:\d+:play", b)]
        if play and not m["embeds"] and re.search(r"<@\d+>", m["content"]):
            out[int(play[0].split(":")[2])] += 1
    return out


async def test_a_standby_waits_then_takes_over_a_killed_holder_and_nothing_is_lost_or_doubled(
        postgres_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(owner_name="alice", log_names=()) as fake:
        guild = guild_on(fake, 1, 2)
        players = [guild.owner, await guild.add_member("bob")]
        async with holder_and_standby(fake, postgres_url, tmp_path, crash="after_commit:3") as (repo, holder, standby):
            # (the holder dies by SIGKILL right after its 2nd move's commit)
            children = [holder, standby]
            rng = random.Random(5)

            game = await new_game(fake, repo, children, guild, players)
            assert [(g.id, g.status) for g in await repo.games()] == [(game, "active")]  # one lobby, started
            record = await repo.get_game(game)
            assert record is not None
            sent = []
            while holder.alive:
                sent.append(await typed_move(fake, repo, game, players, rng))
                await settled(fake, repo, children, until=sent[-1][0])
            assert holder.proc is not None and holder.proc.returncode == -9 and len(sent) == 2
            killed = time.monotonic()
            children = [standby]

            async def taken_over() -> bool:
                return len(fake.identifies) == 2
            await poll(taken_over, "the standby connects", children)
            print(f"failover: the standby identified {time.monotonic() - killed:.2f} s after the holder's SIGKILL")
            (token, handover), = await lease_row(postgres_url)
            print(f"failover: the lease was taken {handover:.2f} s after the holder's last renewal (lease clock)")
            assert token == 2 and handover < 30  # (the holder renewed it before its kill)
            await settled(fake, repo, children, until=sent[-1][0])  # (it delivers what the kill left)
            for _ in range(4):
                record = await repo.get_game(game)
                assert record is not None
                if record.status != "active":
                    break
                sent.append(await typed_move(fake, repo, game, players, rng))
                await settled(fake, repo, children, until=sent[-1][0])
            assert standby.alive and await lease_waiters(postgres_url) == (1, 0)

            record = await repo.get_game(game)
            assert record is not None
            typed = [e for e in await repo.log(game) if e.kind == "player" and e.user_id is not None]
            public = "\n".join(m["content"] for m in fake.channel_messages(record.home_channel_id, ephemeral=False))
            applied = 0
            for token, text in sent:  # each move answered: in its interaction, else in the channel
                answer = (fake.message_for(token) or {}).get("content", "")
                assert answer.startswith("✓") or f"`{text}` was applied" in public, (token, answer)
                applied += 1
            assert len(typed) == applied == len(sent)  # each applied exactly once
            assert await GameService(repo).replay_matches(game)
            assert await repo.pending() == []
            pinged = pings(fake, game, record.home_channel_id)
            assert pinged and set(pinged.values()) == {1}, pinged  # (no decision pinged twice)
            assert not fake.violations, fake.violations


async def test_a_holder_that_loses_its_lease_stops_and_the_standby_takes_over(
        postgres_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(owner_name="alice", log_names=()) as fake:
        guild = guild_on(fake, 1, 2)
        players = [guild.owner, await guild.add_member("bob")]
        async with holder_and_standby(fake, postgres_url, tmp_path) as (repo, holder, standby):
            children = [holder, standby]
            conn = await asyncpg.connect(postgres_url)
            try:  # the holder's lease session ends (an operator, a network fault)
                await conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                   " WHERE application_name = $1", LEASE_APPLICATION)
            finally:
                await conn.close()
            assert holder.proc is not None
            assert await asyncio.wait_for(holder.proc.wait(), HANG_GUARD) == 5
            assert "lost the lease of shards [1]" in holder.log.read_text()
            children = [standby]

            async def taken_over() -> bool:
                return len(fake.identifies) == 2
            await poll(taken_over, "the standby connects", children)
            game = await new_game(fake, repo, children, guild, players)
            assert [(g.id, g.status) for g in await repo.games()] == [(game, "active")]
            assert not fake.violations, fake.violations


async def lost_move_answered(fake: FakeDiscord, repo: Repository, children: list[Child], token: str, game: int,
                             user: dict) -> None:
    """The standby answered the move of ``token`` that the holder never committed: its
    "thinking…" says, in the player's language, that the move was not saved, above the seat's
    panel as the game stands; a pick from that panel is applied."""
    record = await repo.get_game(game)
    assert record is not None

    async def answered_lost() -> bool:
        return answered(fake, token) and not await repo.moves_in_flight()
    await poll(answered_lost, "the standby answers the lost move", children)
    original = fake.message_for(token)
    assert original is not None and original["flags"] & EPHEMERAL
    assert original["content"].split("\n")[0] == NOT_SAVED["en"]
    actions = panel_actions(original, game)
    assert actions and {v for v, _, _ in actions} == {record.version}
    await press(fake, user, original, actions[0])
    await settled(fake, repo, children)
    after = await repo.get_game(game)
    assert after is not None and after.version > record.version


async def test_a_move_in_flight_when_the_holder_is_killed_is_answered_by_the_standby(
        postgres_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(owner_name="alice", log_names=()) as fake:
        guild = guild_on(fake, 1, 2)
        players = [guild.owner, await guild.add_member("bob")]
        async with holder_and_standby(fake, postgres_url, tmp_path, crash="before_commit:2") as (repo, holder, standby):
            # (the holder dies by SIGKILL right before its first move's commit: the start was its 1st)
            game = await new_game(fake, repo, [holder, standby], guild, players)
            record = await repo.get_game(game)
            assert record is not None
            token, _ = await typed_move(fake, repo, game, players, random.Random(3))
            assert holder.proc is not None and await asyncio.wait_for(holder.proc.wait(), HANG_GUARD) == -9
            user = next(p for p in players if p["id"] == fake.interactions[token]["user_id"])
            await lost_move_answered(fake, repo, [standby], token, game, user)
            assert len(fake.identifies) == 2 and [e.seq for e in await repo.log(game)][-1] == record.version + 1
            assert await GameService(repo).replay_matches(game)
            assert not fake.violations, fake.violations


async def test_a_paused_holder_whose_lease_was_taken_commits_nothing_when_it_wakes(
        postgres_url: str, tmp_path: Path) -> None:
    """The fencing token with real processes: the holder hangs (SIGSTOP) right before its first
    move's commit, its database sessions still open; the standby takes the lease once it is
    stale (8 s without renewal on the server's clock), connects and answers the move as not
    saved. Woken (SIGCONT), the old holder's commit is refused by its lease token: the move
    is not applied, it sends Discord nothing more and stops (status 5)."""
    async with FakeDiscord(owner_name="alice", log_names=()) as fake:
        guild = guild_on(fake, 1, 2)
        players = [guild.owner, await guild.add_member("bob")]
        async with holder_and_standby(fake, postgres_url, tmp_path, holder=("--pause", "before_commit:2"),
                                      standby=("--lease-stale", "8")) as (repo, holder, standby):
            children = [holder, standby]
            game = await new_game(fake, repo, children, guild, players)
            record = await repo.get_game(game)
            assert record is not None
            token, _ = await typed_move(fake, repo, game, players, random.Random(3))

            async def paused() -> bool:
                return stopped(holder)
            await poll(paused, "the holder stops before its commit", children)
            user = next(p for p in players if p["id"] == fake.interactions[token]["user_id"])

            async def taken_over() -> bool:
                return len(fake.identifies) == 2
            await poll(taken_over, "the standby takes the stale lease and connects", children)
            (lease, handover), = await lease_row(postgres_url)
            print(f"failover: a paused holder's lease was taken {handover:.2f} s after its last renewal (lease clock;"
                  " stale after 8 s here)")
            assert lease == 2 and 8 <= handover < 30
            async def answered_lost() -> bool:
                return answered(fake, token) and not await repo.moves_in_flight()
            await poll(answered_lost, "the standby answers the lost move", [standby])
            answer = fake.message_for(token)
            assert answer is not None and answer["content"].split("\n")[0] == NOT_SAVED["en"]
            since = len(fake.requests)

            assert holder.proc is not None
            os.kill(holder.proc.pid, signal.SIGCONT)  # (wakes at its commit)
            assert await asyncio.wait_for(holder.proc.wait(), HANG_GUARD) == 5
            text = holder.log.read_text()
            assert "resumed at before_commit" in text and "lost the lease of shards [1]" in text
            after = await repo.get_game(game)
            assert after is not None and after.version == record.version  # (nothing committed)
            assert fake.message_for(token) is answer and answer["content"].split("\n")[0] == NOT_SAVED["en"]
            assert [r for r in fake.requests[since:] if token in r.path] == []  # (it said nothing)

            await lost_move_answered(fake, repo, [standby], token, game, user)  # (the move, once, on the standby)
            assert [e.seq for e in await repo.log(game)][-1] == record.version + 1
            assert await GameService(repo).replay_matches(game)
            pinged = pings(fake, game, record.home_channel_id)
            assert pinged and set(pinged.values()) == {1}, pinged
            assert not fake.violations, fake.violations
