"""Run the real bot in this process against an offline Discord listening on 127.0.0.1
(``bot/sandbox/fakecord.py`` in another process, usually a test): the reliability tests
start it as a child process, kill it, and start it again on the same database.

    python -m bot.sandbox.serve --api http://127.0.0.1:PORT --db PATH|URL [--crash POINT[:N]]
        [--pause POINT[:N]] [--slow-moves SECONDS] [--shard-count N --shard-ids 0,1]
        [--lease-stale SECONDS] [--burst N]

``--db`` takes a file or a database URL (``postgresql://…``: several processes on one
database); ``--shard-count`` / ``--shard-ids`` run the given shards only.

``--crash after_post:2`` installs the one crash hook (``bot.service.crash_hook``): the
second time the code passes the named point (``bot.service.CRASH_POINTS``) the process
sends itself SIGKILL, as a host that loses power would die: no clean-up, no flush.
``--pause before_commit:1`` sends SIGSTOP instead at that point: the process hangs there (a
paused VM, a host swapping) until the test sends SIGCONT, then goes on from the point.
``--lease-stale 6`` takes a hung holder's shard lease after 6 s without renewal, not
``bot.storage.leases.STALE_S``.
``--slow-moves 0.3`` makes every ``GameService.act`` wait that many seconds before it
loads the game (after the interaction was deferred), as a loaded host would be slow there.

``--burst 60`` sends that many messages at once, once the bot is ready, with the bot token
(spread over the text channels of its servers): load on Discord's global limit, which the
bot's ``RequestBudget`` keeps it within (tests/e2e/test_global_limit.py).

Exit codes: 0 after a clean stop (SIGTERM), 4 when the database cannot be used (the
reason and the path on stderr), 5 when the shard lease was lost (PostgreSQL), 2 for bad
arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import time
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl

import bot.service
from bot.service import CRASH_POINTS
from bot.settings import Settings
from bot.storage import StorageError, leases

log = logging.getLogger(__name__)


def install_crash(spec: str, sig: signal.Signals = signal.SIGKILL) -> None:
    """Send this process ``sig`` (SIGKILL; SIGSTOP: it hangs until SIGCONT, then goes on) at
    the ``N``-th pass of the point of ``spec`` (``POINT`` or ``POINT:N``, N ≥ 1, default 1).

    Raises:
        ValueError: an unknown point or a bad count.
    """
    point, _, count = spec.partition(":")
    if point not in CRASH_POINTS:
        raise ValueError(f"unknown crash point {point!r}; known: {', '.join(CRASH_POINTS)}")
    left = int(count or 1)
    if left < 1:
        raise ValueError("the crash count must be at least 1")

    def hook(name: str) -> None:
        nonlocal left
        if name != point:
            return
        left -= 1
        if left == 0:
            sys.stderr.write(f"serve: {time.strftime('%H:%M:%S')} crash point {point} reached; {sig.name}\n")
            sys.stderr.flush()
            os.kill(os.getpid(), sig)
            if sig == signal.SIGSTOP:
                sys.stderr.write(f"serve: {time.strftime('%H:%M:%S')} resumed at {point}\n")
                sys.stderr.flush()

    bot.service.crash_hook = hook


def install_slow_moves(seconds: float) -> None:
    """Make every ``GameService.act`` of this process wait ``seconds`` (asyncio sleep) first:
    the gap between a move's defer and its commit that a loaded host shows, in which the bot
    makes no request and its outbox is empty (tests/reliability/test_sigkill.py)."""
    from bot.service import GameService

    act = GameService.act

    async def slow_act(self: GameService, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(seconds)
        return await act(self, *args, **kwargs)

    GameService.act = slow_act  # type: ignore[method-assign,assignment]


async def burst(client: discord.Client, count: int) -> None:
    """Once ``client`` is ready, send ``count`` messages at once over the text channels of its
    servers (``burst 0``, ``burst 1``, …)."""
    await client.wait_until_ready()
    channels = [c for g in client.guilds for c in g.text_channels]
    await asyncio.gather(*(channels[i % len(channels)].send(f"burst {i}") for i in range(count)))
    sys.stderr.write(f"serve: {time.strftime('%H:%M:%S')} a burst of {count} messages sent\n")


async def serve(api: str, db: str, *, tick_seconds: float, shard_count: int | None = None,
                shard_ids: tuple[int, ...] | None = None, burst_of: int = 0) -> None:
    """Point discord.py at the offline Discord at ``api`` and run the bot until SIGTERM."""
    from bot.app import GameBot

    base = api.rstrip("/")
    discord.http.Route.BASE = f"{base}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(base.replace("http", "ws", 1) + "/gateway")
    settings = Settings(database_path=db, token="offline", tick_seconds=tick_seconds, shard_count=shard_count,
                        shard_ids=shard_ids)
    client = GameBot(settings)
    client._connection.guild_ready_timeout = 0.05
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    runner = asyncio.create_task(client.start(settings.token))
    load = asyncio.create_task(burst(client, burst_of)) if burst_of > 0 else None
    waiter = asyncio.create_task(stop.wait())
    await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if load is not None:
        load.cancel()
    if runner.done():
        waiter.cancel()
        runner.result()  # re-raise a start-up failure
    else:
        await client.close()
        await runner
    if client.lease_lost is not None:
        raise LeaseLost(client.lease_lost)


class LeaseLost(Exception):
    """The bot lost its shard lease and stopped (exit status 5)."""


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bot.sandbox.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", required=True, help="the offline Discord, e.g. http://127.0.0.1:8123")
    parser.add_argument("--db", required=True, help="the SQLite database file")
    parser.add_argument("--crash", default="", help=f"POINT[:N], POINT one of {', '.join(CRASH_POINTS)}")
    parser.add_argument("--pause", default="", help="POINT[:N]: SIGSTOP there (until SIGCONT)")
    parser.add_argument("--lease-stale", type=float, default=None,
                        help="seconds without renewal before a hung holder's lease is taken")
    parser.add_argument("--slow-moves", type=float, default=0.0, help="seconds every move waits before it loads")
    parser.add_argument("--tick", type=float, default=3600.0, help="seconds between clock passes")
    parser.add_argument("--shard-count", type=int, default=None, help="shards of the whole bot")
    parser.add_argument("--shard-ids", default="", help="the shards this process runs, e.g. 0,1")
    parser.add_argument("--burst", type=int, default=0, help="messages to send at once when ready")
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.crash:
        try:
            install_crash(args.crash)
        except ValueError as exc:
            parser.error(str(exc))
    if args.pause:
        try:
            install_crash(args.pause, signal.SIGSTOP)
        except ValueError as exc:
            parser.error(str(exc))
    if args.lease_stale is not None:
        leases.STALE_S = args.lease_stale
    if args.slow_moves > 0:
        install_slow_moves(args.slow_moves)
    try:
        shard_ids = tuple(int(x) for x in args.shard_ids.split(",") if x.strip()) or None
        asyncio.run(serve(args.api, args.db, tick_seconds=args.tick, shard_count=args.shard_count,
                          shard_ids=shard_ids, burst_of=args.burst))
    except StorageError as exc:
        sys.stderr.write(f"The bot cannot start: {exc}\n")
        return 4
    except LeaseLost as exc:
        sys.stderr.write(f"serve: stopped, the shard lease was lost: {exc}\n")
        return 5
    except discord.HTTPException as exc:  # pragma: no cover - the offline Discord refused the login
        sys.stderr.write(f"The offline Discord refused the bot: {exc}\n")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
