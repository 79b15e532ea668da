"""One digest of every decision tree and outcome over seeded random playouts, to show that a change
to engine code (a faster rules helper, a faster label) changed nothing a player sees.

Usage: ``python -m bench.decisions_digest [--game all] [--games 40] [--compare PATH]``

For each game, ``--games`` seeded random playouts (seed k: ``new_game(players, k)``, chance sampled and
a random seat of those to move picking a random legal action, both from ``random.Random(k)``; at most
400 moves): at every state, for every seat to move, the whole ``DecisionTree`` (each action's path of
step labels and its label, ``describe``, and its hint), then the action taken, the state after it and
its events; at the end the outcome. All of it is hashed as canonical JSON (``Msg`` texts as their key
and parameters). ``--compare`` computes the same on another source tree's code (a ``git worktree``:
``bench.trees.in_tree``) and says whether each game's digest is the same. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from bench import trees

MAX_MOVES = 400


def _plain(value: Any) -> Any:
    """JSON for what ``json`` does not know: a ``Msg`` as its key and parameters, a set as a sorted list."""
    from engines.base import Msg

    if isinstance(value, Msg):
        return {"key": value.key, "params": value.params}
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, tuple):
        return list(value)
    return repr(value)


def digest(game_id: str, games: int) -> tuple[str, int]:
    """The digest of ``games`` seeded playouts of ``game_id`` and how many trees it covers."""
    from engines import registry
    from engines.base import CHANCE
    from engines.decisions import DecisionTree

    notation = registry.notation(game_id)
    engine = notation.engine
    players = max(engine.info.min_players, min(3, engine.info.max_players))
    h = hashlib.sha256()

    def add(value: Any) -> None:
        h.update(json.dumps(value, default=_plain, sort_keys=True, ensure_ascii=False).encode())

    count = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = engine.new_game(players, seed, {})
        for _ in range(MAX_MOVES):
            if engine.outcome(state) is not None:
                break
            to_move = engine.to_move(state)
            if CHANCE in to_move:
                state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
                continue
            for seat in sorted(to_move):
                tree = DecisionTree.of(notation, state, seat)
                add([tree.describe(), tree.hints])
                count += 1
            seat = rng.choice(sorted(to_move))
            action = rng.choice(list(engine.legal_actions(state, seat)))
            state, events = engine.apply(state, seat, action)
            add([action, state, events])
        add(engine.outcome(state))
    return h.hexdigest(), count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.decisions_digest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="all", help="a game id or 'all' (default)")
    parser.add_argument("--games", type=int, default=40, help="seeded playouts per game (default 40)")
    parser.add_argument("--compare", type=Path, metavar="PATH", help="another source tree to digest too")
    parser.add_argument("--json-out", action="store_true", help=argparse.SUPPRESS)  # (a child of --compare)
    args = parser.parse_args(argv)
    from engines.registry import GAME_IDS

    games = list(GAME_IDS) if args.game == "all" else [args.game]
    ours = {g: digest(g, args.games) for g in games}
    if args.json_out:
        print(json.dumps(ours))
        return 0
    theirs: dict[str, list[Any]] = {}
    if args.compare is not None:
        done = trees.in_tree(args.compare, Path(__file__), ["--game", args.game, "--games", str(args.games),
                                                             "--json-out"])
        if done.returncode:
            print(done.stderr, file=sys.stderr)
            return 1
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
    for game in games:
        text, count = ours[game]
        line = f"{game:<13} {args.games} playouts, {count:>6} trees  this tree {text[:16]}"
        if theirs:
            other = theirs[game][0]
            line += f"  other tree {other[:16]}  {'same' if other == text else 'DIFFERENT'}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
