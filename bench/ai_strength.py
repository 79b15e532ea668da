"""AI strength bench (issue 15 point 4; engines/ai/): a bench, not a test.

``python -m bench.ai_strength [--games N] [--iterations K] [--only carnival,heaven] [--workers W]``

For every game, the AI (``engines.ai.search`` at the ``normal`` level; ``--iterations``
overrides its iteration count, and the wall-clock cap is off so figures do not depend on the
machine's load) plays N games in one seat against opponents that all use

* ``random``: a uniformly random legal action;
* ``greedy``: one ply: the action that maximises the seat's ``engine.scores()`` after it
  (chance that follows is sampled), ties broken at random.

The AI's seat rotates over the table. A shared win counts as ``1/len(winners)``. Printed per
game and opponent: the AI's win rate with its 95 % Wilson interval, the goal (≥ 90 % against
random, ≥ 60 % against greedy) and the number of games. Ora et Labora solo (one seat) prints
the AI's mean score and its standard deviation beside the random and greedy policies'. Think
time: CPU seconds per AI decision (positions with one legal action excluded), median and p95,
and the iterations run per CPU second.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from engines.ai.search import Budget, budget_of, search
from engines.base import CHANCE, Action, Engine, Seat, State
from engines.registry import ENGINES, GAME_IDS

Policy = Callable[[Engine, State, Seat, random.Random], Action]

TABLES: dict[str, tuple[int, dict[str, Any]]] = {
    "carnival": (2, {}), "canterbury": (2, {}), "heaven": (4, {}), "eguan": (3, {}),
    "illumination": (2, {}), "ora": (2, {}),
}
"""Table size and options per game: the smallest table each game allows (or 2)."""

GOALS = {"random": 0.90, "greedy": 0.60}


def random_policy(engine: Engine, state: State, seat: Seat, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    acts = engine.legal_actions(state, seat)
    return acts[rng.randrange(len(acts))]


def greedy_policy(engine: Engine, state: State, seat: Seat, rng: random.Random) -> Action:
    """One ply: the legal action whose result (chance after it sampled with ``rng``) has the
    highest ``scores()[seat]``; ties at random."""
    acts = list(engine.legal_actions(state, seat))
    if len(acts) == 1:
        return acts[0]
    best: list[Action] = []
    top = -math.inf
    for a in acts:
        st, _ = engine.apply(state, seat, a)
        while engine.to_move(st) == {CHANCE}:
            st, _ = engine.apply(st, CHANCE, engine.sample_chance(st, rng))
        value = engine.scores(st)[seat]
        if value > top:
            top, best = value, [a]
        elif value == top:
            best.append(a)
    return best[rng.randrange(len(best))]


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy}


@dataclass
class GameResult:
    """One finished game: the AI's win share (or its score, solo) and its think times."""

    share: float
    score: float
    think: list[float] = field(default_factory=list)
    iterations: int = 0


def play(game_id: str, players: int, options: dict[str, Any], ai_seat: int | None, opponent: str,
         budget: Budget, seed: int) -> GameResult:
    """One game: ``ai_seat`` searches with ``budget`` (None: nobody does, solo baselines), every
    other seat plays ``opponent``. Deterministic in ``seed``."""
    engine = ENGINES[game_id]
    rng = random.Random(seed)
    ai_rng = random.Random(seed * 7 + 1)
    state = engine.new_game(players, seed, options)
    result = GameResult(0.0, 0.0)
    while movers := sorted(engine.to_move(state)):
        seat = movers[0]
        if seat == CHANCE:
            action = engine.sample_chance(state, rng)
        elif seat == ai_seat:
            found = search(engine, state, seat, budget, ai_rng)
            if found.iterations:
                result.think.append(found.cpu_seconds)
                result.iterations += found.iterations
            action = found.action
        else:
            action = POLICIES[opponent](engine, state, seat, rng)
        state, _ = engine.apply(state, seat, action)
    outcome = engine.outcome(state)
    assert outcome is not None
    me = 0 if ai_seat is None else ai_seat
    result.share = 1.0 / len(outcome.winners) if me in outcome.winners else 0.0
    result.score = float(outcome.scores[me])
    return result


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n`` (95 % for z = 1.96)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


Job = tuple[str, int, dict[str, Any], int | None, str, Budget, int]
"""The arguments of ``play``."""


def _run(job: Job) -> GameResult:
    return play(*job)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank; 0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> None:
    """Run the bench and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40, help="games per game and opponent")
    parser.add_argument("--iterations", type=int, default=None, help="override the normal budget")
    parser.add_argument("--only", default=",".join(GAME_IDS), help="comma-separated game ids")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--solo-games", type=int, default=None, help="Ora solo games (default --games)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    budget = replace(budget_of("normal"), seconds=None)
    if args.iterations is not None:
        budget = replace(budget, iterations=args.iterations)
    print(f"AI: normal level, {budget.iterations} iterations per decision, no wall-clock cap")
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None

    def run_all(jobs: list[Job]) -> list[GameResult]:
        return list(pool.map(_run, jobs)) if pool else [_run(j) for j in jobs]

    print(f"{'game':<13}{'vs':<8}{'games':>6}{'win %':>8}{'95% CI':>15}{'goal':>6}"
          f"{'think med':>10}{'p95 s':>8}{'it/cpu-s':>9}{'wall s':>8}")
    for game_id in args.only.split(","):
        players, options = TABLES[game_id]
        for opponent in args.opponents.split(","):
            t0 = time.perf_counter()
            jobs: list[Job] = [(game_id, players, options, g % players, opponent, budget, args.seed * 100003 + g)
                    for g in range(args.games)]
            results = run_all(jobs)
            wins = sum(r.share for r in results)
            lo, hi = wilson(wins, len(results))
            think = [t for r in results for t in r.think]
            rate = sum(r.iterations for r in results) / max(1e-9, sum(think))
            goal = GOALS[opponent]
            mark = "ok" if lo >= goal else ("?" if hi >= goal else "no")
            print(f"{game_id:<13}{opponent:<8}{len(results):>6}{100 * wins / len(results):>7.1f}%"
                  f"{f'[{100 * lo:.0f}, {100 * hi:.0f}]':>15}{mark:>6}{statistics.median(think):>10.3f}"
                  f"{percentile(think, 0.95):>8.3f}{rate:>9.0f}{time.perf_counter() - t0:>8.0f}", flush=True)
    if "ora" in args.only.split(","):
        n = args.solo_games or args.games
        print(f"\nOra et Labora solo ({n} games each): final score")
        for who in ("ai", "random", "greedy"):
            seat = 0 if who == "ai" else None
            opp = "random" if who == "ai" else who
            solo: list[Job] = [("ora", 1, {}, seat, opp, budget, args.seed * 100003 + g) for g in range(n)]
            results = run_all(solo)
            scores = [r.score for r in results]
            think = [t for r in results for t in r.think]
            extra = (f"  think median {statistics.median(think):.3f} s, p95 {percentile(think, 0.95):.3f} s"
                     if think else "")
            print(f"  {who:<7} mean {statistics.mean(scores):6.1f}  sd {statistics.pstdev(scores):5.1f}"
                  f"  min {min(scores):.0f}  max {max(scores):.0f}{extra}", flush=True)
    if pool:
        pool.shutdown()


if __name__ == "__main__":
    main()
