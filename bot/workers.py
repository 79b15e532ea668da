"""The bot's worker processes: the render workers (bot/render_pool.py) and the AI's
(bot/ui/ai.py) come from ``worker_pool``, spawned processes that exit once the bot's process
is gone. A bot killed outright (SIGKILL, the OOM killer) has no time to shut its pools down,
and their workers, waiting for jobs, would otherwise live on, orphaned, each holding its
renderers' or engines' memory."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import threading
import time

PARENT_POLL_SECONDS = 1.0
"""How often a worker checks that the bot process that started it still runs."""


def watch_parent(parent: int) -> None:
    """Worker initializer: the worker exits once ``parent`` (the bot's process) is gone."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def worker_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    """A pool of at most ``workers`` spawned processes (at least one), each exiting once this
    process is gone (``watch_parent``)."""
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=max(1, workers), mp_context=multiprocessing.get_context("spawn"),
        initializer=watch_parent, initargs=(os.getpid(),))


def pids(pool: concurrent.futures.ProcessPoolExecutor | None) -> list[int]:
    """The ids of ``pool``'s worker processes started so far (none without a pool)."""
    return sorted(getattr(pool, "_processes", None) or {})
