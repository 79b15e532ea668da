"""Shard leases: at most one process acts for a Discord shard at a time (PostgreSQL).

A lease is a row of ``shard_leases`` (migration 014) per shard of a shard count: its
``token`` (the **fencing token**) is raised at every takeover, and ``holder_pid`` /
``holder_start`` name the database session of its holder, a connection of the lease's own
(not one of the pool's: those come and go). Every time is the server's clock
(``clock_timestamp()``), so no two hosts' clocks are compared.

* **Start**: ``acquire`` takes each shard of the process in shard order. A shard is taken
  (the token raised, in one compare-and-set statement, ``TAKE_SQL``) when nobody holds it,
  when its holder's session is gone, or when its holder has not renewed it for
  ``STALE_S``. Otherwise the process is a standby: it asks again every ``POLL_S``
  (its session's ``application_name`` says ``(standby)`` meanwhile).
* **Holder dies** (kill -9, power loss): the kernel closes its socket, the server ends its
  session, and the standby's next ask (within ``POLL_S``) finds the session gone. A host
  that vanishes without closing its socket, or a holder that hangs (paused, swapped out,
  stuck), stops renewing: its lease is taken after ``STALE_S`` on the server's clock.
* **Fencing**: ``fence_sql`` is the statement that ``Database`` runs in every write
  transaction of the holder, in the same round trip as its ``COMMIT``: it takes the lease
  rows ``FOR SHARE`` (a takeover waits for the commit, a commit after a takeover fails) and
  fails (``database.FENCE_SQLSTATE``) unless their tokens are still this process's. A holder that
  wakes after its lease was taken commits nothing.
* **Lease lost** (the lease connection dropped, a heartbeat failed or found a newer token,
  a write was fenced): ``on_lost`` is called once, at once. The owner stops acting for its
  shards (bot/app.py: the repository refuses writes, Discord is sent nothing more, and the
  process ends; a supervisor starts it again, as a standby).

SQLite needs none of this: one process per file (``leases_for`` gives None).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable
from typing import Any

import asyncpg

from bot.storage.backend import POSTGRESQL, parse_database_url
from bot.storage.records import Shards

log = logging.getLogger(__name__)

HEARTBEAT_S = 2.0
"""Seconds between the holder's renewals of its leases (``RENEW_SQL``)."""
HEARTBEAT_TIMEOUT_S = 8.0
"""How long a renewal may take before the lease counts as lost: generous for a loaded
host, and shorter than ``STALE_S`` minus ``HEARTBEAT_S``, so a holder cut off from the
server stops before a standby may take its shards."""
STALE_S = 15.0
"""A lease not renewed for this long (server clock) may be taken although its holder's
session is still open: the holder hangs, or its host vanished without closing its socket."""
POLL_S = 0.5
"""Seconds between a standby's asks for a held shard."""
KEEPALIVE_IDLE_S, KEEPALIVE_INTERVAL_S, KEEPALIVE_COUNT = 5, 5, 3
"""The server's TCP keepalives on the lease session: the session of a host that vanished
without closing its socket ends after about idle + interval × count seconds (20 s)."""
LEASE_APPLICATION = "sinful-tabletop shard lease"
"""The ``application_name`` of a holder's lease session (``pg_stat_activity``)."""
STANDBY_APPLICATION = f"{LEASE_APPLICATION} (standby)"
"""The ``application_name`` of a lease session while it waits for a held shard."""
TAKE_SQL = """
UPDATE shard_leases l SET token = l.token + 1, holder = $3, holder_pid = pg_backend_pid(),
       holder_start = (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()),
       handover_s = EXTRACT(EPOCH FROM clock_timestamp() - l.renewed_at),
       taken_at = clock_timestamp(), renewed_at = clock_timestamp()
 WHERE l.shard_count = $1 AND l.shard = $2
   AND (l.holder_pid IS NULL
        OR l.renewed_at < clock_timestamp() - make_interval(secs => $4)
        OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.holder_pid
                        AND (a.backend_start IS NULL OR a.backend_start = l.holder_start)))
RETURNING l.token
"""
"""Take shard $2 of $1 for the holder $3 when it is free (never held, given back), its
holder's session is gone, or it was not renewed for $4 seconds: the new token, or no
row. A session is the same one when its pid and start time match (a pid reused after a
server restart is another session); a role that may not see another role's start time
goes by the pid alone. Two standbys asking at once: the second waits for the first's row
lock and finds the shard held again."""
ROW_SQL = ("INSERT INTO shard_leases(shard_count, shard, token, holder, taken_at, renewed_at)"
           " VALUES ($1, $2, 0, '', clock_timestamp(), clock_timestamp()) ON CONFLICT DO NOTHING")
"""The lease row of a shard never held before (token 0, no holder)."""
RENEW_SQL = """
UPDATE shard_leases l SET renewed_at = clock_timestamp()
  FROM unnest($2::bigint[], $3::bigint[]) AS w(shard, token)
 WHERE l.shard_count = $1 AND l.shard = w.shard AND l.token = w.token
"""
"""The heartbeat: renew the leases whose tokens are still ours (one row per lease held)."""
GIVE_BACK_SQL = """
UPDATE shard_leases l SET holder_pid = NULL, holder_start = NULL
  FROM unnest($2::bigint[], $3::bigint[]) AS w(shard, token)
 WHERE l.shard_count = $1 AND l.shard = w.shard AND l.token = w.token
"""
"""A clean stop: the leases are free for a standby's next ask."""


class ShardLeases:
    """The leases of ``shards`` on the PostgreSQL database ``url`` (migrated to 014).

    ``on_lost(reason)`` is called once when a held lease is lost (not after ``close``).
    ``stale_s``: ``STALE_S`` when None (read then: ``python -m bot.sandbox.serve --lease-stale``
    shortens it)."""

    def __init__(self, url: str, shards: Shards, on_lost: Callable[[str], None], *,
                 stale_s: float | None = None) -> None:
        self.url = parse_database_url(url)
        self.shards = shards
        self.on_lost = on_lost
        self.stale_s = STALE_S if stale_s is None else stale_s
        self.held: tuple[int, ...] = ()
        self.tokens: dict[int, int] = {}
        """The fencing token of each shard held."""
        self.lost: str | None = None
        self.holder = f"{socket.gethostname()}:{os.getpid()}"
        """Who this is, as the lease rows name it (``shard_leases.holder``)."""
        self._conn: Any = None
        self._using = asyncio.Lock()
        """The lease connection runs one statement at a time (the heartbeat and a standby's asks)."""
        self._heartbeat: asyncio.Task[None] | None = None
        self._closing = False

    async def acquire(self, *, standby: Callable[[int], None] | None = None) -> None:
        """Take the lease of every shard, waiting as a standby for those another process holds
        (``standby(shard)`` is called once per shard found held before waiting for it; the
        shards already taken are renewed meanwhile). A ``close`` meanwhile ends the wait: it
        returns without them."""
        self._conn = await asyncpg.connect(self.url.target, server_settings={
            "application_name": LEASE_APPLICATION, "lock_timeout": "0",
            "tcp_keepalives_idle": str(KEEPALIVE_IDLE_S), "tcp_keepalives_interval": str(KEEPALIVE_INTERVAL_S),
            "tcp_keepalives_count": str(KEEPALIVE_COUNT)})
        self._conn.add_termination_listener(lambda _conn: self._lose("the lease connection was closed"))
        count = self.shards.count
        for shard in sorted(self.shards.ids):
            try:
                await self._run(ROW_SQL, count, shard)
                token = await self._take(shard)
                if token is None:
                    log.warning("shard %d of %d is held by another process; standing by until it is free",
                                shard, count)
                    if standby is not None:
                        standby(shard)
                    await self._run(f"SET application_name = '{STANDBY_APPLICATION}'")
                    while token is None:
                        await asyncio.sleep(POLL_S)
                        token = await self._take(shard)
                    await self._run(f"SET application_name = '{LEASE_APPLICATION}'")
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                if self._closing:  # (stopped while standing by: ``held`` says what it holds)
                    return
                raise
            if self._closing:
                return
            self.tokens[shard] = token
            self.held = (*self.held, shard)
            if self._heartbeat is None:
                self._heartbeat = asyncio.create_task(self._beat(), name="shard-lease-heartbeat")

    async def _run(self, sql: str, *args: Any) -> str:
        async with self._using:
            return str(await self._conn.execute(sql, *args))

    async def _take(self, shard: int) -> int | None:
        """Take ``shard`` if it may be taken (``TAKE_SQL``): its new token, else None."""
        async with self._using:
            row = await self._conn.fetchrow(TAKE_SQL, self.shards.count, shard, self.holder, self.stale_s)
        if row is None:
            return None
        token = int(row[0])
        log.warning("took over shard %d of %d (lease token %d)", shard, self.shards.count, token)
        return token

    def fence_sql(self) -> str:
        """The statement that fails (``database.FENCE_SQLSTATE``) unless every lease held is still this
        process's (``shard_leases_held``, migration 014); run right before each ``COMMIT``."""
        shards = ",".join(str(int(s)) for s in self.held)
        tokens = ",".join(str(int(self.tokens[s])) for s in self.held)
        return (f"SELECT shard_leases_held({int(self.shards.count)},"
                f" ARRAY[{shards}]::bigint[], ARRAY[{tokens}]::bigint[])")

    async def _beat(self) -> None:
        """Renew the leases held (those taken so far) every ``HEARTBEAT_S``."""
        while not self._closing and self.lost is None:
            await asyncio.sleep(HEARTBEAT_S)
            shards = list(self.held)
            try:
                async with self._using:
                    status = await self._conn.execute(RENEW_SQL, self.shards.count, shards,
                                                      [self.tokens[s] for s in shards], timeout=HEARTBEAT_TIMEOUT_S)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as exc:
                self._lose(f"the lease connection does not answer ({type(exc).__name__}: {exc})")
                with contextlib.suppress(Exception):
                    self._conn.terminate()
                return
            if status != f"UPDATE {len(shards)}":
                self._lose("another process took the lease over (its token is newer)")
                return

    def lose(self, reason: str) -> None:
        """The lease is lost for ``reason`` (a write was fenced): ``on_lost``, once."""
        self._lose(reason)

    def _lose(self, reason: str) -> None:
        if self._closing or self.lost is not None or not self.held:
            return
        self.lost = reason
        log.critical("lost the lease of shards %s: %s; this process stops acting for them",
                     list(self.held), reason)
        self.on_lost(reason)

    async def close(self) -> None:
        """Give the leases back (a standby's next ask takes them) and end the session."""
        self._closing = True
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._heartbeat
        if self._conn is not None:
            if self.held and self.lost is None:
                with contextlib.suppress(Exception):
                    await self._conn.execute(GIVE_BACK_SQL, self.shards.count, list(self.held),
                                             [self.tokens[s] for s in self.held], timeout=5)
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
