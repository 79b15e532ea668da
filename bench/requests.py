"""Request budget bench: bot-token requests per move over whole games.

Usage: ``python -m bench.requests [--game <game_id>|all] [--seed S] [--players N] [--json]``

For every game a fresh :class:`bot.sandbox.fakecord.FakeDiscord` and a real :class:`bot.app.GameBot`
on a temporary database are started; a game is opened, joined and started by 3 members (the game's
nearest allowed count), DMs on (the default: hands and turn notices; the default
``DM_AWAY_SECONDS``), then played to its end by
scripted random legal moves through the board's Play ▶ button and the private panel
(``tests/e2e/driver.py`` ``Driver.play_to_end``), like people click. Counted: every REST request the
bot made with its bot token from the first move to the end (the start's own posts are left out),
i.e. everything but interaction callbacks (``/interactions/…/callback``) and webhook calls
(``/webhooks/…``: the follow-ups and edits of interaction answers), which Discord does not count
against the application's budget. A move is one player's decision (one ``Driver.play_once``).

Printed per game: moves, requests per move, and the split by kind (posts, board edits, deletes,
DM channel and user fetches, history reads, other); beside it the figure measured on the code of
commit d4bc4aa (``BEFORE``, measured with this script at commit d4bc4aa, seed 1, when every
player got every DM). The budget is 1.5 or fewer per move on average for every game
(``BUDGET``); the exit status is 1 when a game is over it, in either run.

A second run (``--away``, default ``AWAY``; 0 skips it) plays the same games with the fake clock
moved on before every move, so each player has left the table by the time the others move: they
count as away and get their DM turn notices (one per turn, carrying their hand), the worst case
for the budget. ``AWAY_BEFORE`` holds that run's figures before the board edit went through the
Play ▶ token and the hand rode on the turn notice. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, Req
from bot.settings import Settings
from bot.ui.presence import DM_AWAY
from engines.registry import ENGINES
from tests.e2e.driver import Driver

log = logging.getLogger("bench.requests")

BUDGET = 1.5
"""Bot-token requests per move, at most, on average over a whole game."""

BEFORE: dict[str, float] = {"carnival": 6.71, "canterbury": 6.05, "heaven": 7.92, "eguan": 7.35,
                            "illumination": 3.59, "ora": 5.78}
"""Requests per move per game at commit d4bc4aa, seed 1, this script."""

AWAY_BEFORE: dict[str, float] = {"carnival": 3.12, "canterbury": 2.48, "heaven": 3.98, "eguan": 3.68,
                                 "illumination": 1.38, "ora": 2.51}
"""Requests per move per game with players away, at commit f7fabd3 (a board edit with the bot
token, a DM hand edit, a DM turn post and the old notice's delete per turn), seed 1, this script."""

AWAY = DM_AWAY + 1
"""Seconds between moves in the run where players leave between their moves."""

EXEMPT = re.compile(r"/interactions/\d+/[\w.-]+/callback|/webhooks/.*")
"""Requests Discord does not count against the bot token's budget."""


def counted(requests: Sequence[Req]) -> list[Req]:
    """The requests of ``requests`` made with the bot token (not callbacks, not webhooks)."""
    return [r for r in requests if not EXEMPT.fullmatch(r.path)]


def kind(r: Req, dm_channels: set[str]) -> str:
    """What a counted request is for: post, dm post, board edit, edit, delete, dm channel,
    user fetch, history, thread, other."""
    if r.method == "POST" and (m := re.fullmatch(r"/channels/(\d+)/messages", r.path)):
        return "dm post" if m[1] in dm_channels else "post"
    if r.method == "PATCH" and (m := re.fullmatch(r"/channels/(\d+)/messages/\d+", r.path)):
        return "dm edit" if m[1] in dm_channels else "edit"
    if r.method == "DELETE" and re.fullmatch(r"/channels/\d+/messages/\d+", r.path):
        return "delete"
    if r.path == "/users/@me/channels":
        return "dm channel"
    if re.fullmatch(r"/users/\d+", r.path):
        return "user fetch"
    if r.method == "GET" and re.fullmatch(r"/channels/\d+/messages", r.path):
        return "history"
    if r.path.endswith("/threads"):
        return "thread"
    return "other"


def players_for(game_id: str, wanted: int) -> int:
    """``wanted`` seats, moved into the game's allowed range."""
    info = ENGINES[game_id].info
    return max(info.min_players, min(info.max_players, wanted))


async def measure(game_id: str, seed: int, players: int, trace: bool = False, away: float = 0.0) -> dict[str, Any]:
    """Play one whole game of ``game_id`` by random legal moves (``seed``); returns moves,
    requests per move and the count of requests per kind. ``away``: seconds the fake clock
    moves on before each move (players leave between their moves, so the others are away
    and get their DMs: ``Presence.present``); 0 = everyone stays at the table."""
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(owner_name="alice") as fake:
            conf = Settings(database_path=str(Path(tmp) / "games.db"), token="offline", tick_seconds=3600)
            bot = GameBot(conf, clock=fake.now)
            await fake.start_bot(bot)
            try:
                users = [fake.owner] + [await fake.add_member(f"p{i}") for i in range(1, players)]
                driver = Driver(fake, bot)
                game = await driver.start_game(game_id, users)
                await driver.delivered()
                start = mark = len(fake.requests)
                rng = random.Random(seed)
                moves = 0
                for _ in range(3000):
                    if (await driver.record(game)).status != "active":
                        break
                    if trace:
                        print(f"move {moves + 1}", file=sys.stderr)
                        await driver.delivered()
                        for r in counted(fake.requests[mark:]):
                            print(f"  {r.method} {r.path} {kind(r, {str(ch['id']) for ch in fake.dm_channels.values()})}",
                                  file=sys.stderr)
                        mark = len(fake.requests)
                    if away:
                        fake.advance(away)
                    await driver.play_once(game, rng)
                    moves += 1
                await driver.delivered()
                if trace:
                    for r in counted(fake.requests[mark:]):
                        print(f"  {r.method} {r.path} {kind(r, {str(ch['id']) for ch in fake.dm_channels.values()})}",
                              file=sys.stderr)
                reqs = counted(fake.requests[start:])
                dm_ids = {str(ch["id"]) for ch in fake.dm_channels.values()}
                kinds = Counter(kind(r, dm_ids) for r in reqs)
                errors = [r.getMessage() for r in fake.errors.records]
            finally:
                await fake.stop_bot(bot)
    return {"game": game_id, "players": players, "moves": moves, "requests": len(reqs),
            "per_move": len(reqs) / max(moves, 1), "kinds": dict(kinds), "errors": errors}


def table(results: Sequence[dict[str, Any]], before_of: dict[str, float] = BEFORE) -> str:
    """The results side by side with ``before_of`` (default ``BEFORE``)."""
    kinds = sorted({k for r in results for k in r["kinds"]})
    head = f"{'game':<13}{'seats':>5}{'moves':>6}{'before':>8}{'after':>7}  " + "  ".join(kinds)
    lines = [head, "-" * len(head)]
    for r in results:
        before = before_of.get(str(r["game"]))
        split = "  ".join(f"{r['kinds'].get(k, 0) / max(int(r['moves']), 1):>{len(k)}.2f}"
                          for k in kinds)
        lines.append(f"{r['game']:<13}{r['players']:>5}{r['moves']:>6}"
                     f"{before if before is not None else float('nan'):>8.2f}{r['per_move']:>7.2f}  {split}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="all", help="a game id, or all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument("--trace", action="store_true", help="list each move's counted requests (stderr)")
    parser.add_argument("--away", type=float, default=AWAY,
                        help="seconds between moves in the second run, where players leave between moves (0: none)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    games = list(ENGINES) if args.game == "all" else [args.game]
    results, away = [], []
    for game_id in games:
        seats = players_for(game_id, args.players)
        results.append(asyncio.run(measure(game_id, args.seed, seats, args.trace)))
        print(f"{game_id}: {results[-1]['per_move']:.2f} requests per move", file=sys.stderr, flush=True)
        if args.away:
            away.append(asyncio.run(measure(game_id, args.seed, seats, args.trace, args.away)))
            print(f"{game_id}, players away: {away[-1]['per_move']:.2f} requests per move", file=sys.stderr,
                  flush=True)
    print(f"Bot-token requests per move over one whole game (seed {args.seed}; budget ≤ {BUDGET}), "
          "players at the table:")
    print(table(results))
    if away:
        print(f"\nThe same games, players leaving between moves ({args.away:.0f} s: the others are away and get "
              "their DM turn notices with their hands; before = this run at commit f7fabd3):")
        print(table(away, AWAY_BEFORE))
    if args.json:
        with contextlib.suppress(BrokenPipeError):
            print(json.dumps({"table": results, "away": away}, indent=1))
    over = [r["game"] for r in results if float(r["per_move"]) > BUDGET]
    over += [f"{r['game']} (players away)" for r in away if float(r["per_move"]) > BUDGET]
    if over:
        print(f"over the budget: {', '.join(map(str, over))}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
