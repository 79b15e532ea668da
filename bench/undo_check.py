"""CPU per move of the host's engine-side work: the undo check and the views (bot side).

Usage: ``python -m bench.undo_check [--game <game_id>|all] [--games 2] [--moves 150] [--repeat 2]
[--compare PATH]``

For every game, ``--games`` random playouts (seeded, chance sampled, the lowest seat to move picks
a random legal action; at most ``--moves`` player moves each) are played once, not measured. Then,
for each player move (state before, seat, action, state after), the work the bot does with the
engine around it is timed in CPU time of this thread (``time.thread_time``; a figure that holds
under load): ``Engine.reveals`` (the engine's declaration behind the panel's Undo button,
DESIGN §4; on a tree from before it, the host's shuffle check ``bot.service.reveals``),
``player_view`` of the public and of each seat, and the panel's ``DecisionTree.of`` for the next
seat to move. Each is repeated ``--repeat`` times and the smallest total kept. Printed per game:
moves, then ms per move of each part (mean over the moves). With ``--compare PATH`` the same runs on
the code of ``PATH`` (a worktree of the commit before: bench/trees.py) and on this tree, one game
after the other, side by side; both trees play the same moves (the playouts use only the engine
protocol, and the rules did not change). The undo check runs in the bot only where its cheap gates
pass (the mover's own last move, nobody new awaited: ``GameService.undo_candidate``), so its ms here
are per checked move, not per bot move. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import trees

PARTS = ("reveals", "views", "panel tree")


def playout_moves(game_id: str, games: int, moves: int) -> list[tuple[Any, int, Any, Any, int]]:
    """(before, seat, action, after, seed) of every player move of ``games`` seeded playouts."""
    from bench.load import players_for
    from engines.base import CHANCE
    from engines.registry import ENGINES

    engine = ENGINES[game_id]
    n = players_for(game_id)
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        state = engine.new_game(n, seed, {})
        made = 0
        while engine.outcome(state) is None and made < moves:
            to_move = engine.to_move(state)
            if CHANCE in to_move:
                state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
                continue
            seat = min(to_move)
            action = rng.choice(list(engine.legal_actions(state, seat)))
            after, _ = engine.apply(state, seat, action)
            out.append((state, seat, action, after, seed))
            state = after
            made += 1
    return out


def measure(game_id: str, games: int, moves: int, repeat: int) -> dict[str, Any]:
    """ms per move of each of ``PARTS`` for ``game_id`` (the least of ``repeat`` runs)."""
    from bench.load import players_for
    from engines.base import CHANCE
    from engines.decisions import DecisionTree
    from engines.registry import ENGINES, NOTATIONS

    engine = ENGINES[game_id]
    n = players_for(game_id)
    played = playout_moves(game_id, games, moves)

    def views(after: Any) -> None:
        for viewer in (None, *range(n)):
            engine.player_view(after, viewer)

    def tree(after: Any) -> None:
        waiting = sorted(s for s in engine.to_move(after) if s != CHANCE)
        if waiting and engine.outcome(after) is None:
            DecisionTree.of(NOTATIONS[game_id], after, waiting[0])

    declared = getattr(engine, "reveals", None)
    if declared is not None:  # (the engine's declaration)
        def reveals(b: Any, s: int, a: Any, af: Any, seed: int) -> object:
            return declared(b, s, a, af)
    else:  # (a tree from before the declarations: the host's shuffle check)
        from bot import service

        def reveals(b: Any, s: int, a: Any, af: Any, seed: int) -> object:
            return service.reveals(engine, n, b, s, a, af, seed)  # type: ignore[attr-defined]

    work: dict[str, Callable[[Any, int, Any, Any, int], object]] = {
        "reveals": reveals,
        "views": lambda b, s, a, af, seed: views(af),
        "panel tree": lambda b, s, a, af, seed: tree(af),
    }
    out: dict[str, Any] = {"moves": len(played)}
    for part, fn in work.items():
        best = float("inf")
        for _ in range(repeat):
            t = time.thread_time()
            for move in played:
                fn(*move)
            best = min(best, time.thread_time() - t)
        out[part] = best / max(1, len(played)) * 1000
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.undo_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="all", help="a game id or 'all' (default)")
    parser.add_argument("--games", type=int, default=2, help="seeded playouts per game (default 2)")
    parser.add_argument("--moves", type=int, default=150, help="player moves per playout at most (default 150)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per part, the least kept (default 2)")
    parser.add_argument("--compare", type=Path, metavar="PATH", help="also measure the source tree at PATH (before)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # (a child of --compare)
    args = parser.parse_args(argv)
    from engines.registry import GAME_IDS

    games = list(GAME_IDS) if args.game == "all" else [args.game]
    if args.json:
        print(json.dumps({g: measure(g, args.games, args.moves, args.repeat) for g in games}))
        return 0
    runs = ([("before", args.compare.resolve())] if args.compare else []) + [("after", trees.tree_root())]
    print(f"CPU ms per move (thread time, least of {args.repeat}); load average {os.getloadavg()[0]:.1f}")
    head = f"{'game':<13}{'tree':<8}{'moves':>6}" + "".join(f"{p:>12}" for p in PARTS)
    print(head)
    print("-" * len(head))
    for game_id in games:
        for label, root in runs:
            child = trees.in_tree(root, Path(__file__).resolve(), [
                "--game", game_id, "--games", str(args.games), "--moves", str(args.moves),
                "--repeat", str(args.repeat), "--json"])
            if child.returncode:
                print(child.stderr[-4000:], file=sys.stderr)
                return child.returncode
            r = json.loads(child.stdout.strip().splitlines()[-1])[game_id]
            print(f"{game_id:<13}{label:<8}{r['moves']:>6}" + "".join(f"{r[p]:>12.3f}" for p in PARTS), flush=True)
    if args.compare:
        print(f"\nbefore = {args.compare}, after = {trees.tree_root()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
