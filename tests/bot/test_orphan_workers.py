"""A bot killed outright (SIGKILL) leaves no worker process behind: the render workers and
the AI's workers watch the bot's process and exit once it is gone (``watch_parent``)."""

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

AI_WORKERS = """
import os, time
from bot.ui.ai import ai_pool
pool = ai_pool(2)
assert pool.submit(os.getpid).result() in pool._processes
print(" ".join(map(str, pool._processes)), flush=True)
time.sleep(60)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:       # (a zombie is gone but for its parent's wait)
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("script", [RENDER_WORKERS, AI_WORKERS], ids=["render", "ai"])
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
