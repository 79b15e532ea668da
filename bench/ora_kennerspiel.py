"""Replay speed of the kennerspiel importer over a record set, in commands per second.

``python -m bench.ora_kennerspiel [--as-recorded] [DIR_OR_FILES…]`` replays every game of the
kennerspiel records (default: ``tests/engines/records/kennerspiel``) through
``engines.ora.importer`` and prints, per file and in all, the games followed to the end with
every seat's breakdown equal to the record's, the commands replayed, and the rate (wall clock
and per CPU second). Goal: ≥ 20,000 commands/s over the set. ``make ora-kennerspiel`` runs it
with ``--as-recorded``. ``--repeat N`` replays the set N times and counts each game's least
time (steadier on a loaded machine). ``--before TREE --pairs N`` measures another source tree (a
``git worktree`` of an older commit) and this one side by side in one run: N pairs of runs,
before and after in turn (``bench.trees.in_tree``), each printing its rate per CPU second.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

from bench.trees import in_tree
from engines.ora import importer as I

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "engines" / "records" / "kennerspiel"


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
    parser.add_argument("--repeat", type=int, default=1, help="replays of the set; each game's least time counts")
    parser.add_argument("--before", type=Path, help="another source tree, measured in turn with this one")
    parser.add_argument("--pairs", type=int, default=3, help="with --before: pairs of runs")
    args = parser.parse_args(argv)
    if args.before is not None:
        return side_by_side(args.before, [*args.paths, *(["--as-recorded"] if args.as_recorded else []),
                                          "--repeat", str(args.repeat)], args.pairs)
    commands = total = equal = 0
    wall = cpu = 0.0
    for f in files(args.paths):
        games = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        same = []
        for i, game in enumerate(games):
            walls, cpus = [], []
            for _ in range(max(1, args.repeat)):
                w, c = time.perf_counter(), time.process_time()
                result = I.replay_game(game, as_recorded=args.as_recorded)
                walls.append(time.perf_counter() - w)
                cpus.append(time.process_time() - c)
            wall += min(walls)
            cpu += min(cpus)
            commands += result.commands
            if result.followed and result.scores == game["scores"] and result.seat_colors == game["seatColors"]:
                same.append(i)
        total += len(games)
        equal += len(same)
        print(f"{f.name}: {len(same)}/{len(games)} equal breakdowns {same}")
    print(f"{equal}/{total} games followed to the end with every breakdown equal; {commands} commands replayed")
    print(f"{commands / wall:,.0f} commands/s wall, {commands / cpu:,.0f} per CPU second")
    return 0 if equal == total else 1


def side_by_side(before: Path, bench_args: list[str], pairs: int) -> int:
    """Run this bench on ``before``'s code and on this tree's, in turn, ``pairs`` times; print
    each pair's rates per CPU second and the medians."""
    here = Path(__file__).resolve().parents[1]
    rates: dict[str, list[float]] = {"before": [], "after": []}
    for pair in range(1, pairs + 1):
        for name, tree in (("before", before.resolve()), ("after", here)):
            done = in_tree(tree, Path(__file__).resolve(), bench_args)
            found = re.search(r"([\d,]+) per CPU second", done.stdout)
            if found is None:
                sys.stdout.write(done.stdout + done.stderr)
                return 1
            rates[name].append(float(found.group(1).replace(",", "")))
            if pair == 1:
                sys.stdout.write(f"{name}: {done.stdout.splitlines()[-2]}\n")
        sys.stdout.write(f"pair {pair}: before {rates['before'][-1]:,.0f}  after {rates['after'][-1]:,.0f}\n")
    b, a = statistics.median(rates["before"]), statistics.median(rates["after"])
    sys.stdout.write(f"median: before {b:,.0f}  after {a:,.0f}  (x{a / b:.2f}) commands per CPU second\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
