"""Discord's global limit across processes: two bot processes (``python -m bot.sandbox.serve``,
shards 0 and 1 of 2 on one PostgreSQL) each send a burst of messages at once against one
offline Discord that counts every bot-token channel request of the application in one
window of 50 a second, as Discord does, and answers a request over it 429 (global). Each
process keeps to its share (``Settings.request_share``: 25 a second; bot/ui/operator.py
``RequestBudget``), so Discord refuses none of them, and all arrive.

The waits poll the offline Discord (bounded, generous limits); nothing is timed. The rate the
offline Discord saw is written to the log of the test (``-s``) for the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from pathlib import Path

import discord.http

from bot.sandbox.fakecord import HANG_GUARD, FakeDiscord
from bot.storage import Repository
from tests.e2e.test_shards import guild_on

BURST = 80
"""Messages each process sends at once: 160 together, over three seconds at 50 a second."""


def busiest_second(times: list[float]) -> int:
    """The most of ``times`` (seconds) in any one second."""
    times = sorted(times)
    most, start = 0, 0
    for end, t in enumerate(times):
        while t - times[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


async def test_two_processes_keep_to_discords_global_limit_together(postgres_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(owner_name="alice", log_names=()) as fake:
        fake.rate_limit_buckets(per_channel=None, global_limit=(50, 1.0))
        api = discord.http.Route.BASE.removesuffix("/api/v10")
        for shard in (0, 1):
            guild_on(fake, shard, 2)
        repo = Repository(postgres_url)
        await repo.open()  # (migrates first, so the two children do not race on an empty schema)
        await repo.close()
        logs = [tmp_path / f"bot{shard}.log" for shard in (0, 1)]
        children: list[asyncio.subprocess.Process] = []
        try:
            for shard, log in zip((0, 1), logs, strict=True):
                with log.open("ab") as err:
                    children.append(await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "bot.sandbox.serve", "--api", api, "--db", postgres_url,
                        "--shard-count", "2", "--shard-ids", str(shard), "--burst", str(BURST),
                        stdout=asyncio.subprocess.DEVNULL, stderr=err))

            def bursts() -> list[float]:
                return [r.arrived for r in fake.calls("POST", r"/channels/\d+/messages")
                        if isinstance(r.json, dict) and str(r.json.get("content", "")).startswith("burst ")]

            guard = time.monotonic() + HANG_GUARD
            while len(bursts()) < 2 * BURST and time.monotonic() < guard:
                assert all(c.returncode is None for c in children), [log.read_text()[-2000:] for log in logs]
                await asyncio.sleep(0.05)
            times = bursts()
            assert [r for r in fake.refusals if "rate limited" in r] == []
            assert len(times) == 2 * BURST, [log.read_text()[-2000:] for log in logs]
            assert busiest_second(times) <= 50
            span = max(times) - min(times)
            print(f"\nglobal limit: {len(times)} bot-token messages from 2 processes in {span:.2f} s"
                  f" ({len(times) / span:.1f}/s), at most {busiest_second(times)} in any one second")
        finally:
            for child in children:
                if child.returncode is None:
                    child.terminate()
                    with contextlib.suppress(ProcessLookupError):
                        await asyncio.wait_for(child.wait(), HANG_GUARD)


def test_busiest_second_counts_a_sliding_second() -> None:
    assert busiest_second([0.0, 0.5, 0.99, 1.0, 1.2]) == 4  # (0.5 to 1.2)
    assert busiest_second([]) == 0
