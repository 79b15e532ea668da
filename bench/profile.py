"""Where a move's CPU goes: the load bench at one fixed rate, sampled by py-spy, grouped by subsystem.

Usage: ``python -m bench.profile --game <game_id> [--rate 10] [--step 8] [--tables 24] [--hz 200] [--gil]``
(py-spy must be installed in the environment for the measurement only: ``pip install py-spy``; it is not
a dependency of the project).

One process runs the fake Discord, the bot (``render_workers=0``: drawing and encoding in threads of this
process, so they are sampled too) and the bench's players, as ``bench.load`` does. The tables are set up
unsampled; then ``py-spy record --pid <this process> --threads --nonblocking --format raw`` samples every
thread for the step while moves arrive at ``--rate`` per second. Each sample (a stack, idle ones left out by
py-spy) goes to the first subsystem of ``SUBSYSTEMS`` that one of its frames belongs to, read from the leaf
outwards with generic frames (the standard library: asyncio, json, logging, ...) skipped, so a JSON dump
inside discord.py counts as discord.py and a JSON load of a state in bot/service.py as the service. A second
table gives cross-cutting shares (JSON, logging, asyncio's own loop) wherever they are called from.

The shares are of sampled, non-idle thread time (wall time of running threads: an estimate of CPU); the
CPU ms per move printed beside them is process time (``time.process_time``) over the step divided by the
moves made, so ``share × cpu ms/move`` estimates each subsystem's ms per move. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bot_latency import running_bot
from bench.load import Mirror, Step, line, run_step, setup_tables
from bot.sandbox.fakecord import FakeDiscord

ANYWHERE: list[tuple[str, re.Pattern[str]]] = [
    ("PNG encoding", re.compile(r"^(encode|to_png|to_jpeg|fit_under) \(render/")),
    ("thumbnail scaling", re.compile(r"^small \(bot/render_pool")),
    ("drawing", re.compile(r"\((render|PIL)/")),
]
"""Subsystems that own a sample wherever their frame is in the stack (checked first, in this order)."""

SUBSYSTEMS: list[tuple[str, re.Pattern[str]]] = [
    ("engine", re.compile(r"\(engines/")),
    ("storage", re.compile(r"\((bot/storage|aiosqlite|sqlite3)/")),
    ("fake Discord", re.compile(r"\((bot/sandbox/|aiohttp/web)")),
    ("discord.py", re.compile(r"\((discord|aiohttp|multidict|yarl)/")),
    ("bench", re.compile(r"\(bench/(?!profile)")),
    ("bot text", re.compile(r"\(bot/text/")),
    ("bot ui", re.compile(r"\((bot/ui|cogs)/")),
    ("bot service", re.compile(r"\(bot/")),
]
"""Subsystem of a frame, first match wins per frame (py-spy raw frames read ``function (path:line)``, paths
relative to the tree or to site-packages)."""

CROSS: list[tuple[str, re.Pattern[str], bool]] = [
    ("JSON", re.compile(r"\(json/"), False),
    ("logging", re.compile(r"\(logging/"), False),
    ("deepcopy", re.compile(r"^deepcopy \("), False),
    ("dataclasses.replace/asdict", re.compile(r"^(replace|asdict|_asdict_inner) \(dataclasses"), False),
    ("asyncio's loop (leaf)", re.compile(r"\(asyncio/|\(selectors"), True),
    ("threading/queue (leaf)", re.compile(r"\((threading|queue|concurrent/)"), True),
]
"""Cross-cutting shares: samples with such a frame anywhere (or, where the flag says so, as the leaf)."""


def classify(frames: list[str]) -> str:
    """The subsystem of one sampled stack (``frames`` root first)."""
    for name, pattern in ANYWHERE:
        if any(pattern.search(frame) for frame in frames):
            return name
    for frame in reversed(frames):
        for name, pattern in SUBSYSTEMS:
            if pattern.search(frame):
                return name
    return "other (asyncio, threads, stdlib)"


def tables(raw: str) -> tuple[collections.Counter[str], collections.Counter[str], int]:
    """Samples per subsystem, per cross-cutting share and in all, from py-spy's raw (collapsed) output."""
    per: collections.Counter[str] = collections.Counter()
    cross: collections.Counter[str] = collections.Counter()
    total = 0
    for text in raw.splitlines():
        stack, _, count = text.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [f.replace(str(Path.cwd()) + "/", "") for f in stack.split(";")[1:]]  # [0] is the thread
        total += n
        per[classify(frames)] += n
        for name, pattern, leaf in CROSS:
            if any(pattern.search(f) for f in (frames[-1:] if leaf else frames)):
                cross[name] += n
    return per, cross, total


async def profiled(game_id: str, rate: float, seconds: float, tables_n: int, seed: int, hz: int,
                   out: Path, gil: bool = False) -> Step:
    """Set up ``tables_n`` games, then one step at ``rate`` sampled by py-spy into ``out``
    (``gil``: only the thread holding the interpreter lock, ``py-spy --gil``)."""
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    if spy is None:
        raise SystemExit("py-spy is not installed (pip install py-spy into the environment, for the measurement)")
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        async with FakeDiscord(owner_name="alice") as fake, running_bot(fake, Path(tmp) / "games.db", render_workers=0) as bot:
            mirror = Mirror(bot)
            tabs = await setup_tables(fake, bot, game_id, tables_n, seed, 0, mirror)
            proc = subprocess.Popen([spy, "record", "--pid", str(os.getpid()), "--threads", "--nonblocking",
                                     "--rate", str(hz), "--format", "raw", "--duration", str(int(seconds + 3)),
                                     "--output", str(out), *(["--gil"] if gil else [])],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            await asyncio.sleep(1.0)  # py-spy attaches
            cpu0 = time.process_time()
            step = await run_step(fake, tabs, rate, seconds, random.Random(seed))
            step.cpu_s = time.process_time() - cpu0
            while proc.poll() is None:
                await asyncio.sleep(0.2)
    return step


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--step", type=float, default=8.0)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--hz", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw output here")
    parser.add_argument("--gil", action="store_true",
                        help="sample only the thread holding the interpreter lock (no thread waiting for it is"
                             " counted; C code that lets the lock go, Pillow's encoding, SQLite, is left out)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = args.raw or Path(tmp) / "raw.txt"
        step = asyncio.run(profiled(args.game, args.rate, args.step, args.tables, args.seed, args.hz, out, args.gil))
        per, cross, total = tables(out.read_text())
    cpu = step.cpu_s / step.moves * 1000 if step.moves else float("nan")
    print(f"{args.game}: {line(step)}; load average {load:.1f} → {os.getloadavg()[0]:.1f}")
    print(f"{'subsystem':<34}{'share':>7}{'ms/move':>9}")
    for name, n in per.most_common():
        print(f"{name:<34}{n / total:>7.1%}{n / total * cpu:>9.1f}")
    print(f"{'(cross-cutting, anywhere)':<34}")
    for name, n in cross.most_common():
        print(f"  {name:<32}{n / total:>7.1%}{n / total * cpu:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
