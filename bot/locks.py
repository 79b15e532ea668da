"""Per-key asyncio locks that do not outlive their use (docs/DESIGN.md §4: one writer per game).

A bot that hosts thousands of games must not keep a lock for every game it ever touched
(point 3): ``KeyedLocks`` hands out one ``asyncio.Lock`` per key while anyone
holds or waits for it, and forgets it when nobody refers to it any more (a weak mapping:
the lock is referenced by the coroutines using it, and dropped with the last of them).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class KeyedLocks(Generic[K]):
    """``locks[key]`` → the one ``asyncio.Lock`` of ``key`` while it is in use.

    Two callers that ask for the same key while either still holds (or awaits) the lock
    get the same object; once no one refers to it, the entry disappears (``len``)."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[K, asyncio.Lock] = weakref.WeakValueDictionary()

    def __getitem__(self, key: K) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    def __len__(self) -> int:
        return len(self._locks)
