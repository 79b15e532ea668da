"""Copy a whole database to another backend and verify it by replay.

    python -m bot.migrate sqlite:///data/games.db postgresql://bot:pw@db-host/games

Both ends are opened with ``Repository`` (each migrated to the latest schema first). The
target must hold no game. Every table of the source that the target has is copied in one
transaction of the target, parents first (games, then seats, the action log, the
outbox, preferences, DM and clock tables, and any table a later migration adds), the
columns both have, ids kept; the target's generated ids then continue after the largest
copied one. The copy is verified: every table has as many rows as in the source, every
game's record and log equal the source's, and every game's log replays to its stored
snapshot (``GameService.replay_matches``; snapshots of an older engine state shape are
first rebuilt from the log, as the bot does at start: ``GameService.upgrade_snapshots``).

Stop the bot before copying (a move made during the copy would be missing from it).
Exit codes: 0 copied and verified; 1 verification failed (the report says what); 2 bad
arguments, a source SQLite file that is missing, empty, damaged or another program's (left as
it is), a target that already holds games, or a database that cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass, field
from typing import Any

from bot.service import GameService
from bot.storage import Repository, StorageError
from bot.storage.backend import parse_database_url
from bot.storage.backup import unusable

ALL_STATUSES = ("lobby", "active", "finished", "abandoned")


@dataclass
class Report:
    """What ``copy_database`` did: rows per table, games replayed, and the problems found
    (empty when the copy is verified)."""

    rows: dict[str, int] = field(default_factory=dict)
    games: int = 0
    replayed: int = 0
    rebuilt: int = 0
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report as lines for the operator."""
        out = [f"{table}: {n} row(s)" for table, n in self.rows.items()]
        out += [f"{table}: not in the target's schema, not copied" for table in self.skipped]
        out.append(f"{self.games} game(s); {self.replayed} replayed to their stored snapshot"
                   f" ({self.rebuilt} snapshot(s) of an older engine version rebuilt from the log)")
        out += [f"PROBLEM: {p}" for p in self.problems]
        out.append("verified" if not self.problems else f"{len(self.problems)} problem(s)")
        return out


def _fit(value: Any, kind: str) -> Any:
    """A source value as the target column type ``kind`` wants it (SQLite may keep a whole
    float in an INTEGER column; PostgreSQL's BIGINT refuses floats)."""
    if isinstance(value, float) and kind in ("BIGINT", "INTEGER", "SMALLINT") and value.is_integer():
        return int(value)
    return value


async def copy_database(source: Repository, target: Repository) -> Report:
    """Copy every table of the open ``source`` into the open, empty ``target`` and verify.

    Raises:
        ValueError: the target already holds games (nothing is written).
        StorageError: a database cannot be read or written (nothing is written to the target).
    """
    report = Report()
    if await target.games(status=ALL_STATUSES):
        raise ValueError(f"the target {target.path} already holds games; copy into an empty database")
    have, want = await source.tables(), await target.tables()
    data: list[tuple[str, list[str], list[tuple[Any, ...]]]] = []
    for table, columns in have.items():
        if table not in want:
            report.skipped.append(table)
            continue
        common = [c for c in columns if c in want[table]]
        kinds = [want[table][c] for c in common]
        rows = [tuple(_fit(v, k) for v, k in zip(row, kinds, strict=True)) for row in await source.rows(table, common)]
        data.append((table, common, rows))
        report.rows[table] = len(rows)
    order = {table: i for i, table in enumerate(want)}
    data.sort(key=lambda item: order[item[0]])
    await target.copy_in(data)
    await verify(source, target, report, {table: cols for table, cols, _ in data})
    return report


async def verify(source: Repository, target: Repository, report: Report, columns: dict[str, list[str]]) -> None:
    """Compare ``target`` with ``source`` (row counts, game records, logs) and replay every
    game of the target; problems go to ``report.problems``."""
    for table, cols in columns.items():
        copied = len(await target.rows(table, cols))
        if copied != report.rows[table]:
            report.problems.append(f"{table}: {report.rows[table]} row(s) in the source, {copied} in the target")
    service = GameService(target)
    same: list[int] = []
    for record in await source.games(status=ALL_STATUSES):
        report.games += 1
        copy = await target.get_game(record.id)
        if copy != record:
            report.problems.append(f"game {record.id}: the copied record differs")
        elif await target.log(record.id) != await source.log(record.id):
            report.problems.append(f"game {record.id}: the copied log differs")
        else:
            same.append(record.id)
    # snapshots of an older engine state shape are rebuilt from the log, as the bot does at start
    report.rebuilt = len(await service.upgrade_snapshots())
    for game in same:
        try:
            matches = await service.replay_matches(game)
        except Exception as exc:  # an engine that cannot replay it: say so, go on
            report.problems.append(f"game {game}: replay failed ({type(exc).__name__}: {exc})")
            continue
        if not matches:
            report.problems.append(f"game {game}: the log does not replay to the stored snapshot")
        else:
            report.replayed += 1


async def run(source_url: str, target_url: str) -> int:
    """Open both, copy, verify, print the report; returns the exit code."""
    if (why := await asyncio.to_thread(unusable, source_url)) is not None:  # (opening it would create it)
        sys.stderr.write(f"migrate: the source database {parse_database_url(source_url).shown} {why}: nothing copied\n")
        return 2
    source, target = Repository(source_url), Repository(target_url)
    try:
        await source.open()
        await target.open()
        report = await copy_database(source, target)
    except (ValueError, StorageError) as exc:
        sys.stderr.write(f"migrate: {exc}\n")
        return 2
    finally:
        await source.close()
        await target.close()
    print(f"copied {source.path} -> {target.path}")
    for line in report.lines():
        print(line)
    return 0 if not report.problems else 1


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m bot.migrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="the database to copy, e.g. sqlite:///data/games.db")
    parser.add_argument("target", help="an empty database, e.g. postgresql://bot:pw@db-host/games")
    args = parser.parse_args(argv)
    return asyncio.run(run(args.source, args.target))


if __name__ == "__main__":
    sys.exit(main())
