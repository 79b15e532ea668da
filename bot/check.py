"""``python -m bot.check [DATABASE]``: replay every game's action log and compare it
with the stored snapshot (design §4: the log is the truth, the snapshot a cache).

Exit status 0 when every started game replays to its snapshot, 1 otherwise, and 2 when
there is nothing to check: an SQLite file that is missing, empty, damaged or another program's
is named and left as it is (opening it would create the bot's tables in it, and the start-up
check would no longer see what happened to it), as is a database that cannot be opened.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.service import GameService
from bot.settings import Settings
from bot.storage import Repository, StorageError
from bot.storage.backend import parse_database_url
from bot.storage.backup import unusable
from bot.text import plural_rule


async def check(path: str) -> tuple[int, list[int]]:
    """Replay every started game in the database at ``path``, the archived ones too.

    Returns:
        (games checked, ids of games whose replay differs from the snapshot).
    """
    repo = Repository(path)
    await repo.open()
    try:
        service = GameService(repo)
        await service.upgrade_snapshots()
        games = await repo.games(status=("active", "finished", "abandoned"))
        games += [g for g in [await repo.get_game(i) for i in await repo.archived_ids()] if g is not None]
        bad = [g.id for g in games if g.state is not None and not await service.replay_matches(g.id)]
        return sum(g.state is not None for g in games), bad
    finally:
        await repo.close()


def replayed_line(games: int, differ: int) -> str:
    """The operator's summary of a replay check: ``"1 game replayed, 0 differ"`` (Babel's
    English plural rule picks "game" or "games")."""
    noun = "game" if plural_rule("en")(games) == "one" else "games"
    return f"{games} {noun} replayed, {differ} differ\n"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; prints one line per result."""
    parser = argparse.ArgumentParser(prog="python -m bot.check", description=__doc__)
    parser.add_argument("database", nargs="?", help="SQLite file (default: DATABASE_PATH from .env)")
    args = parser.parse_args(argv)
    path = args.database or Settings.from_env().database_path
    if (why := unusable(path)) is not None:
        sys.stderr.write(f"The database {parse_database_url(path).shown} {why}: nothing checked.\n")
        return 2
    try:
        checked, bad = asyncio.run(check(path))
    except StorageError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    for game in bad:
        sys.stdout.write(f"game #{game}: replay differs from the stored snapshot\n")
    sys.stdout.write(replayed_line(checked, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
