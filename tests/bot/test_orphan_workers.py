"""A bot killed outright (SIGKILL) leaves no worker process behind: the render workers
(``Renderer``) and the AI's (``AiPlayers``) come from ``bot.workers.worker_pool``, whose
processes exit once the bot's process is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from bot.sandbox.fakecord import HANG_GUARD

RENDER_WORKERS = """
import asyncio
from bot.render_pool import Renderer
async def main():
    r = Renderer(workers=1)
    r.start()
    while len(r.pids()) < r.slots.total:
        await asyncio.sleep(0.05)
    print(" ".join(map(str, r.pids())), flush=True)
    await asyncio.sleep(60)
asyncio.run(main())
"""

POOL_WORKERS = """
import os, time
from bot.workers import pids, worker_pool
pool = worker_pool(2)
assert pool.submit(os.getpid).result() in pids(pool)
print(" ".join(map(str, pids(pool))), flush=True)
time.sleep(60)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:       # (a zombie is gone but for its parent's wait)
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("script", [RENDER_WORKERS, POOL_WORKERS], ids=["renderer", "worker_pool"])
def test_workers_exit_when_the_bot_process_is_killed_outright(script: str) -> None:
    bot = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None
        pids = [int(p) for p in bot.stdout.readline().split()]
        assert pids and all(alive(p) for p in pids)
    finally:
        bot.kill()
        bot.wait()

    deadline = time.monotonic() + HANG_GUARD
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in pids if alive(p)]
    for pid in left:                               # (leave no orphan behind even when failing)
        os.kill(pid, signal.SIGKILL)
    assert not left, left
