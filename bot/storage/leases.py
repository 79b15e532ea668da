"""Shard leases: at most one process acts for a Discord shard at a time (PostgreSQL).

A lease is a PostgreSQL session advisory lock, ``pg_advisory_lock(key, shard)``, held on a
connection of its own (not one of the pool's: the pool's connections come and go, a session
lock lives exactly as long as its session). ``key`` is ``hashtext`` of the schema and the
shard count, so databases sharing a server (tests: one schema each) and differently sharded
bots never meet.

* **Start**: ``acquire`` takes the locks of every shard of the process, in shard order (two
  processes asking for overlapping sets cannot deadlock). A shard held by another process
  is waited for (``pg_advisory_lock`` blocks in the server): the process is a standby and
  takes over the moment the holder's session ends.
* **Holder dies** (kill -9, power loss): the kernel closes its socket and the server ends
  the session at once, releasing the locks; a host that vanishes without closing its
  socket is found by TCP keepalives (``KEEPALIVE_*``: about 20 s).
* **Lease lost** (the lease connection dropped: the server restarted, an operator ended the
  session, the network failed): asyncpg reports the connection closed, or the heartbeat
  (``HEARTBEAT_S``, ``HEARTBEAT_TIMEOUT_S``) fails; ``on_lost`` is called once, at once. The owner stops acting for
  its shards (bot/app.py: the repository refuses writes and the process ends; a supervisor
  starts it again, as a standby).

SQLite needs none of this: one process per file (``leases_for`` gives None).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import asyncpg

from bot.storage.backend import POSTGRESQL, parse_database_url
from bot.storage.records import Shards

log = logging.getLogger(__name__)

HEARTBEAT_S = 2.0
"""Seconds between the lease connection's heartbeats (a ``SELECT 1``)."""
HEARTBEAT_TIMEOUT_S = 8.0
"""How long a heartbeat may take before the lease counts as lost: generous for a loaded
host, and shorter than the server's keepalive verdict below, so a holder cut off from the
server stops before the server frees its shards for a standby."""
KEEPALIVE_IDLE_S, KEEPALIVE_INTERVAL_S, KEEPALIVE_COUNT = 5, 5, 3
"""The server's TCP keepalives on the lease session: a holder whose host vanished
without closing the socket loses its locks after about idle + interval × count seconds
(20 s)."""
LEASE_APPLICATION = "sinful-tabletop shard lease"
"""The ``application_name`` of lease sessions (``pg_stat_activity``: who holds what)."""

KEY_SQL = "hashtext(current_schema() || ':shards:' || $1::text)"


class ShardLeases:
    """The leases of ``shards`` on the PostgreSQL database ``url``.

    ``on_lost(reason)`` is called once when a held lease is lost (not after ``close``)."""

    def __init__(self, url: str, shards: Shards, on_lost: Callable[[str], None]) -> None:
        self.url = parse_database_url(url)
        self.shards = shards
        self.on_lost = on_lost
        self.held: tuple[int, ...] = ()
        self.lost: str | None = None
        self._conn: Any = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._closing = False

    async def acquire(self, *, standby: Callable[[int], None] | None = None) -> None:
        """Hold the lease of every shard, waiting as a standby for those another process holds
        (``standby(shard)`` is called once per shard found held before waiting for it). A
        ``close`` meanwhile ends the wait: it returns without them."""
        self._conn = await asyncpg.connect(self.url.target, server_settings={
            "application_name": LEASE_APPLICATION, "lock_timeout": "0",
            "tcp_keepalives_idle": str(KEEPALIVE_IDLE_S), "tcp_keepalives_interval": str(KEEPALIVE_INTERVAL_S),
            "tcp_keepalives_count": str(KEEPALIVE_COUNT)})
        count = str(self.shards.count)
        for shard in sorted(self.shards.ids):
            try:
                if not await self._conn.fetchval(f"SELECT pg_try_advisory_lock({KEY_SQL}, $2)", count, shard):
                    log.warning("shard %d of %d is held by another process; standing by until it is free",
                                shard, self.shards.count)
                    if standby is not None:
                        standby(shard)
                    await self._conn.execute(f"SELECT pg_advisory_lock({KEY_SQL}, $2)", count, shard)
                    log.warning("took over shard %d of %d", shard, self.shards.count)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                if self._closing:  # (stopped while standing by: ``held`` says what it holds)
                    return
                raise
            self.held = (*self.held, shard)
        self._conn.add_termination_listener(lambda _conn: self._lose("the lease connection was closed"))
        self._heartbeat = asyncio.create_task(self._beat(), name="shard-lease-heartbeat")

    async def _beat(self) -> None:
        while not self._closing and self.lost is None:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                await self._conn.fetchval("SELECT 1", timeout=HEARTBEAT_TIMEOUT_S)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as exc:
                self._lose(f"the lease connection does not answer ({type(exc).__name__}: {exc})")
                with contextlib.suppress(Exception):
                    self._conn.terminate()
                return

    def _lose(self, reason: str) -> None:
        if self._closing or self.lost is not None or not self.held:
            return
        self.lost = reason
        log.critical("lost the lease of shards %s: %s; this process stops acting for them",
                     list(self.held), reason)
        self.on_lost(reason)

    async def close(self) -> None:
        """Give the leases back (the session ends; a standby takes over at once)."""
        self._closing = True
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._heartbeat
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._conn.close(), timeout=5)
            if not self._conn.is_closed():
                self._conn.terminate()
        self.held = ()


def leases_for(url: str, shards: Shards | None, on_lost: Callable[[str], None]) -> ShardLeases | None:
    """The leases a process on the database ``url`` running ``shards`` needs: None for SQLite
    (one process per file). An unsharded bot on PostgreSQL runs every server: it holds the
    one lease of "shard 0 of 1", so a second unsharded process waits as its standby."""
    if parse_database_url(url).backend != POSTGRESQL:
        return None
    return ShardLeases(url, shards or Shards(1, (0,)), on_lost)
