"""Replay speed of the kennerspiel importer over a record set, in commands per second.

``python -m bench.ora_kennerspiel [--as-recorded] [DIR_OR_FILES…]`` replays every game of the
kennerspiel records (default: ``../shared/ora-kennerspiel/records``) through
``engines.ora.importer`` and prints the commands it followed, the games followed to the end,
and the rate (wall clock and per CPU second). Goal: ≥ 20,000 commands/s over the set.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from engines.ora import importer as I

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "ora-kennerspiel" / "records"


def files(paths: list[str]) -> list[Path]:
    """The ``.jsonl`` files named, or found in the folders named (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths or [str(DEFAULT)]):
        out += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ora_kennerspiel", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--as-recorded", action="store_true")
    args = parser.parse_args(argv)
    games = [json.loads(line) for f in files(args.paths) for line in f.read_text().splitlines() if line.strip()]
    commands = followed = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for game in games:
        result = I.replay_game(game, as_recorded=args.as_recorded)
        commands += result.commands
        followed += result.followed
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{len(games)} games, {followed} followed to the end, {commands} commands replayed")
    print(f"{commands / wall:,.0f} commands/s wall, {commands / cpu:,.0f} per CPU second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
