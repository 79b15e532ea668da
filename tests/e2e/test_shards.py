"""Shards and several processes on one database.

The offline Discord speaks the sharded gateway (IDENTIFY with ``shard: [id, count]``;
each connection gets the servers on its shard, ``(guild_id >> 22) % count``, and their
events only). One process can run both shards; two processes (``python -m
bot.sandbox.serve``, shards 0 and 1) share one PostgreSQL database, each serving the
games of its own servers; one of them dies by SIGKILL right after committing a move and
is started again, and no move is lost or applied twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import discord.http

from bot.app import GameBot, ShardedGameBot
from bot.sandbox.fakecord import HANG_GUARD, LOADING, FakeDiscord, FakeGuild
from bot.service import GameService
from bot.settings import Settings
from bot.storage import Repository, Shards
from engines.base import CHANCE
from engines.registry import get as get_engine
from engines.registry import notation_of

JSON = dict[str, Any]


def guild_on(fake: FakeDiscord, shard: int, count: int) -> FakeGuild:
    """A server of ``fake`` on ``shard`` of ``count`` (the default one if it is; else a new one:
    a snowflake's shard is its millisecond timestamp modulo ``count``)."""
    for guild in fake.guilds.values():
        if Shards.of(guild.id, count) == shard:
            return guild
    for _ in range(4 * count):
        fake.advance(0.001)
        guild = fake.add_guild(f"server on shard {shard}")
        if Shards.of(guild.id, count) == shard:
            return guild
    raise AssertionError("no server id on that shard")


async def test_one_process_runs_both_shards_of_its_servers(fake: FakeDiscord, tmp_path: Path) -> None:
    g0, g1 = guild_on(fake, 0, 2), guild_on(fake, 1, 2)
    settings = Settings(database_path=str(tmp_path / "g.db"), token="offline", tick_seconds=3600, shard_count=2)
    bot = GameBot(settings, clock=fake.now)
    assert isinstance(bot, ShardedGameBot) and bot.repo.shards == Shards(2, (0, 1))
    await fake.start_bot(bot)
    try:
        assert sorted(i["shard"] for i in fake.identifies) == [[0, 2], [1, 2]]
        assert {g0.id, g1.id} <= {g.id for g in bot.guilds}
        assert bot.get_guild(g1.id).shard_id == 1 and bot.get_guild(g0.id).shard_id == 0  # type: ignore[union-attr]
        token = await fake.slash(g1.owner, "game", "new", game="carnival", channel=g1.channel)
        await fake.idle(0.05)
        await bot.flow.wait_idle()
        assert fake.message_for(token) is not None
        assert [(g.guild_id, g.status) for g in await bot.repo.games()] == [(g1.id, "lobby")]
    finally:
        await fake.stop_bot(bot)


async def test_a_process_of_one_shard_gets_only_its_servers(fake: FakeDiscord, tmp_path: Path) -> None:
    g0, g1 = guild_on(fake, 0, 2), guild_on(fake, 1, 2)
    settings = Settings(database_path=str(tmp_path / "g.db"), token="offline", tick_seconds=3600, shard_count=2,
                        shard_ids=(1,))
    bot = GameBot(settings, clock=fake.now)
    await fake.start_bot(bot)
    try:
        assert [i["shard"] for i in fake.identifies] == [[1, 2]]
        assert fake.shards_connected == [(1, 2)]
        on_shard1 = {gid for gid in fake.guilds if Shards.of(gid, 2) == 1}
        assert {g.id for g in bot.guilds} == on_shard1 and g1.id in on_shard1 and g0.id not in on_shard1
    finally:
        await fake.stop_bot(bot)


# ---------------------------------------------------------------------- two processes, one PostgreSQL
class Child:
    """The bot in a child process running ``shard`` of 2 on the database ``url``."""

    def __init__(self, api: str, url: str, shard: int, log: Path) -> None:
        self.api, self.url, self.shard, self.log = api, url, shard, log
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, crash: str = "", *options: str) -> None:
        """Start it (``crash``: ``serve --crash``; ``options``: more of ``serve``'s arguments)."""
        args = [sys.executable, "-m", "bot.sandbox.serve", "--api", self.api, "--db", self.url,
                "--shard-count", "2", "--shard-ids", str(self.shard), *options]
        if crash:
            args += ["--crash", crash]
        with self.log.open("ab") as err:
            err.write(f"--- start shard {self.shard} {crash or 'no crash'} {' '.join(options)}\n".encode())
            self.proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.DEVNULL, stderr=err)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def stop(self) -> None:
        if self.alive:
            assert self.proc is not None
            with contextlib.suppress(ProcessLookupError):
                self.proc.terminate()
                self.proc.send_signal(signal.SIGCONT)  # (a paused one takes its SIGTERM now)
            with contextlib.suppress(ProcessLookupError):
                await asyncio.wait_for(self.proc.wait(), HANG_GUARD)


async def settled(fake: FakeDiscord, repo: Repository, children: list[Child], *, identifies: int = 0,
                  until: str | None = None) -> None:
    """Wait until ``identifies`` connections were made, every bot has read the events sent to it and
    answered every interaction it still may (and interaction ``until`` has its final answer: its
    "thinking" message replaced), the outbox is empty and nobody made a request for a moment (or a
    child died: then return at once). Events decide; the moment is only a last look."""
    guard = time.monotonic() + HANG_GUARD
    quiet_since, seen = time.monotonic(), len(fake.requests)
    while time.monotonic() < guard:
        await asyncio.sleep(0.03)
        for child in children:
            if child.proc is not None and child.proc.returncode is not None and child.proc.returncode != 0:
                await child.proc.wait()
                return
        if len(fake.requests) != seen:
            quiet_since, seen = time.monotonic(), len(fake.requests)
            continue
        if len(fake.identifies) < identifies:
            continue
        await fake.caught_up()
        if fake.awaiting_ack() or fake.in_flight or (until is not None and not answered(fake, until)):
            continue
        if time.monotonic() - quiet_since < 0.3 or len(fake.requests) != seen:
            continue
        if not await repo.pending():
            return
    raise TimeoutError("the bots never settled; see " + ", ".join(str(c.log) for c in children))


def answered(fake: FakeDiscord, token: str) -> bool:
    """Whether interaction ``token`` has its final answer (no "thinking" message left)."""
    original = fake.message_for(token)
    return original is not None and not original["flags"] & LOADING


async def new_game(fake: FakeDiscord, repo: Repository, children: list[Child], guild: FakeGuild,
                   players: list[JSON]) -> int:
    token = await fake.slash(players[0], "game", "new", game="carnival", channel=guild.channel)
    await settled(fake, repo, children)
    lobby = fake.message_for(token)
    assert lobby is not None, [c.log.read_text()[-2000:] for c in children]
    game = int(re.search(r"#(\d+)", lobby["embeds"][0]["title"])[1])  # type: ignore[index]
    await fake.click(players[1], fake.messages[int(lobby["id"])], f"l:{game}:join")
    await settled(fake, repo, children)
    await fake.click(players[0], fake.messages[int(lobby["id"])], f"l:{game}:start")
    await settled(fake, repo, children)
    return game


async def typed_move(fake: FakeDiscord, repo: Repository, game: int, players: list[JSON],
                     rng: random.Random) -> tuple[str, str]:
    """Send one legal typed move of a waiting player of ``game``; returns its token and text."""
    record = await repo.get_game(game)
    assert record is not None and record.state is not None and record.status == "active"
    engine = get_engine(record.game_id)
    state = engine.state_from_json(record.state)
    seat = rng.choice(sorted(engine.to_move(state) - {CHANCE}))
    text = notation_of(engine).describe_action(state, rng.choice(list(engine.legal_actions(state, seat))))
    user = next(p for p in players if p["id"] == str(record.user_of(seat)))
    token = await fake.slash(user, record.game_id, "play", action=text, game=game, channel=record.home_channel_id)
    return token, text


async def test_two_processes_share_one_postgresql_and_a_killed_one_loses_nothing(
        postgres_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(owner_name="alice", log_names=()) as fake:
        api = discord.http.Route.BASE.removesuffix("/api/v10")
        guilds = [guild_on(fake, 0, 2), guild_on(fake, 1, 2)]
        players = [[g.owner, await g.add_member(f"bob{i}")] for i, g in enumerate(guilds)]
        repo = Repository(postgres_url)
        await repo.open()  # (migrates first, so the two children do not race on an empty schema)
        children = [Child(api, postgres_url, shard, tmp_path / f"bot{shard}.log") for shard in (0, 1)]
        rng = random.Random(17)
        sent: dict[int, list[tuple[str, str]]] = {}
        try:
            await children[0].start()
            await children[1].start(crash="after_commit:2")  # SIGKILL right after its 2nd move commit
            await settled(fake, repo, children, identifies=2)
            assert sorted(tuple(i["shard"]) for i in fake.identifies) == [(0, 2), (1, 2)]
            games = [await new_game(fake, repo, children, g, p) for g, p in zip(guilds, players, strict=True)]
            assert children[1].alive  # (the start was its first)
            sent = {g: [] for g in games}
            for _ in range(6):  # moves in both games; shard 1 dies on its first one
                for game, table in zip(games, players, strict=True):
                    if game == games[1] and not children[1].alive:
                        continue
                    sent[game].append(await typed_move(fake, repo, game, table, rng))
                    await settled(fake, repo, children, until=sent[game][-1][0])
            assert children[1].proc is not None and children[1].proc.returncode == -9
            assert len(sent[games[1]]) == 1 and len(sent[games[0]]) == 6  # shard 0 went on alone
            await children[1].start()  # the same shard again: it delivers what the kill left
            await settled(fake, repo, children, identifies=3)
            for _ in range(4):
                for game, table in zip(games, players, strict=True):
                    sent[game].append(await typed_move(fake, repo, game, table, rng))
                    await settled(fake, repo, children, until=sent[game][-1][0])
            service = GameService(repo)
            for game, guild in zip(games, guilds, strict=True):
                record = await repo.get_game(game)
                assert record is not None and record.guild_id == guild.id
                typed = [e for e in await repo.log(game) if e.kind == "player" and e.user_id is not None]
                public = "\n".join(m["content"] for m in fake.channel_messages(record.home_channel_id,
                                                                               ephemeral=False))
                applied = refused = 0
                for token, text in sent[game]:  # each move answered: in its interaction, else in the channel
                    answer = (fake.message_for(token) or {}).get("content", "")
                    if answer.startswith("✓") or f"`{text}` was applied" in public:
                        applied += 1
                    else:
                        assert answer.startswith("⚠️"), (token, answer)
                        refused += 1
                assert len(typed) == applied and applied > refused  # each applied move logged exactly once
                assert await service.replay_matches(game)
            assert await repo.pending() == []
            assert not fake.violations, fake.violations
        finally:
            for child in children:
                await child.stop()
            await repo.close()
