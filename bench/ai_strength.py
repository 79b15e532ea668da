"""AI strength bench (engines/ai/): a bench, not a test.

``python -m bench.ai_strength [--games N] [--iterations K] [--only carnival,heaven] [--workers W]
[--out FILE [--resume]] [--report FILE ...]``

For every game, the AI (``engines.ai.search`` at the ``normal`` level, ``engines.ai.budget_for``; ``--iterations``
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

Long runs: ``--out FILE`` appends each finished game to FILE as one JSON line (``record``) as
soon as it ends, ``--resume`` skips the games FILE already holds (same game, opponent, seed and
iteration count), and ``--report FILE ...`` prints the table from such files without playing.
Games are interleaved over the game/opponent pairs: the next game goes to the pair that has
used the least CPU time so far (then the fewest games), so every pair gets games early and a
cheap pair gets more of them than an expensive one; a pair already significant (10 games, the
95 % interval above one half) waits until the others are too (``schedule``). ``--sequential``
stops a pair once its interval decides its goal either way (``decided``; at least
``SEQUENTIAL_MIN`` games, ``--games`` at most), and the ladder report says per pair whether it
is decided and, if not, how many games it would need at its rate so far (``games_needed``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any

from engines.ai.hooks import hooks_for
from engines.ai.search import LEVELS, Budget, budget_for, follow_through, search
from engines.base import CHANCE, Action, Engine, Seat, State
from engines.heaven.data import GATE
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


def lead(values: Sequence[float], seat: Seat) -> float:
    """``seat``'s value less the best other seat's (its own value when it plays alone)."""
    others = [v for s, v in enumerate(values) if s != seat]
    return float(values[seat]) - (max(others) if others else 0.0)


def position_value(engine: Engine, state: State) -> list[float]:
    """Each seat's value of ``state``: the final scores once it is over, else the game's
    ``evaluate`` hook (scores so far and what is in reach, ``engines/<game>/ai.py``), else
    ``engine.scores``."""
    outcome = engine.outcome(state)
    if outcome is not None:
        return [float(x) for x in outcome.scores]
    evaluate = hooks_for(engine).evaluate
    return [float(x) for x in (evaluate(state) if evaluate is not None else engine.scores(state))]


def one_ply(engine: Engine, state: State, seat: Seat, actions: Sequence[Action], rng: random.Random,
            samples: int = 3) -> list[tuple[float, float]]:
    """Per action: the mean and the spread (population standard deviation) of ``seat``'s lead
    (``lead`` of ``position_value``) one ply on, over ``samples`` determinizations from
    ``seat``'s view (``engines/<game>/ai.py``): the chance after the action sampled, and the
    seat's own later steps of the same decision (a placement after picking a card) taken
    greedily (``engines.ai.search.follow_through``), so a first step is valued as the move it
    begins."""
    hooks = hooks_for(engine)
    det = hooks.determinize
    evaluate = hooks.evaluate if hooks.evaluate is not None else engine.scores
    leads: list[list[float]] = [[] for _ in actions]
    for _ in range(samples):
        base = det(state, seat, rng)
        for i, action in enumerate(actions):
            st, _ = engine.apply(base, seat, action)
            st = follow_through(engine, evaluate, st, seat, rng)
            leads[i].append(lead(position_value(engine, st), seat))
    return [(statistics.mean(x), statistics.pstdev(x)) for x in leads]


BLUNDER_POINTS = 3.0
"""A blunder: a move whose one-ply value is at least this many points below the best move's."""

RISK_SLACK = 0.5
"""The best move is "not riskier" when its spread is at most the chosen move's plus this."""


def is_blunder(values: Sequence[tuple[float, float]], chosen: int) -> bool:
    """Whether ``chosen`` is a blunder among ``values`` (``one_ply``): some move whose spread
    is at most the chosen's plus ``RISK_SLACK`` has a mean at least ``BLUNDER_POINTS`` higher."""
    mean, spread = values[chosen]
    return any(m - mean >= BLUNDER_POINTS and sd <= spread + RISK_SLACK for m, sd in values)


CLOSE_POINTS = 1.5
"""A close call: some move's one-ply mean is at least ``BLUNDER_POINTS - CLOSE_POINTS`` above
the chosen move's in the first measurement (``check_blunder``)."""

RECHECK_SAMPLES = 24
"""Determinizations a close call is measured over again (``check_blunder``)."""


def check_blunder(engine: Engine, state: State, seat: Seat, actions: Sequence[Action], chosen: int,
                  rng: random.Random) -> tuple[bool, bool]:
    """Whether playing ``actions[chosen]`` is a blunder (``is_blunder``): measured over three
    determinizations (``one_ply``), and where that is a close call (a move ``CLOSE_POINTS`` or
    less short of ``BLUNDER_POINTS`` better, or a blunder), measured again over
    ``RECHECK_SAMPLES`` and judged by that: one noisy measurement (Carnival's dice after a
    pick) neither makes nor clears a blunder.

    Returns:
        (a blunder by the three samples alone, a blunder by the judgment above).
    """
    values = one_ply(engine, state, seat, actions, rng)
    first = is_blunder(values, chosen)
    if max(m for m, _ in values) - values[chosen][0] < BLUNDER_POINTS - CLOSE_POINTS:
        return first, False
    return first, is_blunder(one_ply(engine, state, seat, actions, rng, samples=RECHECK_SAMPLES), chosen)


def greedy_policy(engine: Engine, state: State, seat: Seat, rng: random.Random) -> Action:
    """One ply with a real evaluation: the legal action with the best lead (``one_ply``, one
    determinization from the seat's view, the chance after it sampled, the game's
    ``evaluate`` hook); ties at random."""
    acts = list(engine.legal_actions(state, seat))
    if len(acts) == 1:
        return acts[0]
    values = [m for m, _ in one_ply(engine, state, seat, acts, rng, samples=1)]
    top = max(values)
    best = [a for a, v in zip(acts, values, strict=True) if v == top]
    return best[rng.randrange(len(best))]


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy}


@dataclass
class GameResult:
    """One finished game: the AI's win share (or its score, solo) and its think times."""

    share: float
    score: float
    think: list[float] = field(default_factory=list)
    iterations: int = 0
    cpu: float = 0.0
    moves: int = 0
    cap: bool = False
    think_by: dict[str, list[float]] = field(default_factory=dict)
    cuts: dict[str, int] = field(default_factory=dict)
    checked: int = 0
    blunders: int = 0
    first_blunders: int = 0


MOVE_CAP = 20000
"""Moves after which the bench stops a game (none of the six comes near it; it counts as a cap)."""

CAPS: dict[str, Callable[[State], bool]] = {"heaven": lambda st: GATE not in st["positions"]}
"""Per game: whether a finished game ended by a cap instead of its goal (The Way to Heaven:
the round limit, docs/rules/heaven.md D35, with no pawn on the Gate)."""


def play(game_id: str, players: int, options: dict[str, Any], ai_seat: int | None, opponent: str,
         budget: Budget, seed: int, level: str = "normal", split: bool = False,
         blunders: bool = True) -> GameResult:
    """One game. Side A is ``level`` (an AI level, searching with ``budget`` at ``normal``,
    else that level's budget, no wall-clock cap): in seat ``ai_seat`` alone, or with
    ``split`` in every other seat from it (2 seats of 4, 1 or 2 of 3); every other seat is
    side B, ``opponent`` (an AI level or a ``POLICIES`` name). ``ai_seat`` None: nobody
    searches (solo baselines). The win share is A's part of the winners. With ``blunders``,
    every decision at the normal level is checked (``check_blunder``) on a stream of
    its own, so the check does not change the game. Deterministic in ``seed``."""
    cpu0 = time.process_time()
    engine = ENGINES[game_id]
    rng = random.Random(seed)
    check_rng = random.Random(seed * 11 + 5)
    state = engine.new_game(players, seed, options)
    result = GameResult(0.0, 0.0)
    a_seats = set() if ai_seat is None else (
        {(ai_seat + 2 * k) % players for k in range((players + 1) // 2)} if split else {ai_seat})
    side = {s: (level if s in a_seats else opponent) for s in range(players)}
    budgets = {name: (budget if name == "normal" else replace(budget_for(engine, name), seconds=None))
               for name in set(side.values()) if name in LEVELS}
    ai_rngs = {s: random.Random(seed * 7 + 1 + 1000 * s) for s in range(players) if side[s] in budgets}
    while movers := sorted(engine.to_move(state)):
        if result.moves >= MOVE_CAP:
            result.cap = True
            break
        seat = movers[0]
        if seat == CHANCE:
            action = engine.sample_chance(state, rng)
        elif side[seat] in budgets:
            name = side[seat]
            found = search(engine, state, seat, budgets[name], ai_rngs[seat])
            if found.iterations:
                result.think_by.setdefault(name, []).append(found.cpu_seconds)
                cap = LEVELS[name].seconds
                if cap is not None and found.cpu_seconds > cap:
                    result.cuts[name] = result.cuts.get(name, 0) + 1
                if seat in a_seats:
                    result.think.append(found.cpu_seconds)
                    result.iterations += found.iterations
                if blunders and name == "normal":
                    acts = list(engine.legal_actions(state, seat))
                    first, blunder = check_blunder(engine, state, seat, acts, acts.index(found.action), check_rng)
                    result.checked += 1
                    result.blunders += blunder
                    result.first_blunders += first
            action = found.action
        else:
            action = POLICIES[opponent](engine, state, seat, rng)
        state, _ = engine.apply(state, seat, action)
        result.moves += 1
    outcome = engine.outcome(state)
    if outcome is None:
        scores = list(engine.scores(state))
        winners = {s for s in range(players) if scores[s] == max(scores)}
        final = scores
    else:
        winners, final = set(outcome.winners), list(outcome.scores)
        result.cap = result.cap or (game_id in CAPS and CAPS[game_id](state))
    me = 0 if ai_seat is None else ai_seat
    result.share = len(winners & a_seats) / len(winners) if a_seats else (1.0 if me in winners else 0.0)
    result.score = float(final[me])
    result.cpu = time.process_time() - cpu0
    return result


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n`` (95 % for z = 1.96)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank; 0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


SOLO = {"solo-ai": ("random", True), "solo-random": ("random", False), "solo-greedy": ("greedy", False),
        "solo-easy": ("easy", True), "solo-normal": ("normal", True), "solo-hard": ("hard", True)}
"""Ora et Labora solo rows: the name in a results file -> (the policy or the AI's level,
whether an AI plays). ``solo-ai`` is the normal level of older results files."""

LADDER = ("hard-normal", "normal-easy", "normal-greedy")
"""The ladder's pairs ``A-B`` (``ladder_jobs``): side A against side B, an AI level or a policy."""

LADDER_GOALS = {"hard-normal": 0.60, "normal-easy": 0.60, "normal-greedy": 0.75}
"""The goal per ladder pair: A's win share (docs/AI.md)."""


@dataclass(frozen=True)
class Job:
    """One game of the bench: the arguments of ``play`` and the row it counts in (``vs``)."""

    game_id: str
    vs: str
    players: int
    options: dict[str, Any]
    ai_seat: int | None
    opponent: str
    budget: Budget
    seed: int
    level: str = "normal"
    split: bool = False

    @property
    def key(self) -> tuple[str, str, int, int]:
        """(game, row, seed, iterations): what names a game in a results file."""
        return (self.game_id, self.vs, self.seed, self.budget.iterations)

    @property
    def row(self) -> tuple[str, str, int]:
        """(game, row, iterations): the report row the game counts in."""
        return (self.game_id, self.vs, self.budget.iterations)


BLUNDER_CHECK = True
"""Whether ``_run`` checks the normal level's decisions for blunders (``--no-blunders``)."""


def _run(job: Job) -> GameResult:
    return play(job.game_id, job.players, job.options, job.ai_seat, job.opponent, job.budget, job.seed,
                job.level, job.split, BLUNDER_CHECK)


def record(job: Job, result: GameResult) -> dict[str, Any]:
    """The JSON line of one finished game: ``game``, ``vs`` (``random``, ``greedy`` or a
    ``SOLO`` row), ``players``, ``seed``, ``ai_seat``, ``iterations`` (the budget per decision),
    ``share`` (the AI's win share), ``score`` (its final score), ``think`` (CPU seconds per
    searched decision), ``iters`` (iterations run), ``cpu`` (CPU seconds of the whole game)
    and ``moves``; a ladder game (or one with the newer counts) adds ``level`` (side A),
    ``cap`` (ended by a cap), ``think_by`` (CPU seconds per decision by AI level, both sides),
    ``cuts`` (decisions per level whose CPU time passed the level's wall-clock cap, which would
    have cut them on an idle machine), ``checked``, ``blunders`` (normal-level decisions,
    ``check_blunder``) and ``blunders_3`` (those a blunder by its first three samples alone)."""
    line = {"game": job.game_id, "vs": job.vs, "players": job.players, "seed": job.seed,
            "ai_seat": job.ai_seat, "iterations": job.budget.iterations, "share": result.share,
            "score": result.score, "think": [round(t, 4) for t in result.think],
            "iters": result.iterations, "cpu": round(result.cpu, 3), "moves": result.moves}
    if job.split or job.level != "normal" or result.cap or result.think_by or result.checked:
        line.update(level=job.level, cap=result.cap,
                    think_by={k: [round(t, 4) for t in v] for k, v in sorted(result.think_by.items())},
                    cuts=dict(sorted(result.cuts.items())), checked=result.checked, blunders=result.blunders,
                    blunders_3=result.first_blunders)
    return line


def read_records(paths: Iterable[str]) -> list[dict[str, Any]]:
    """The records of results files (a missing file is empty; a torn line, from a run killed
    while writing, is skipped)."""
    out: list[dict[str, Any]] = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except FileNotFoundError:
            continue
        for line in lines:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def jobs_for(game_ids: Sequence[str], opponents: Sequence[str], games: int, solo_games: int,
             budget: Budget, seed: int) -> list[list[Job]]:
    """Per game/opponent pair (then the Ora solo rows), its games in seed order. Game ``g``
    has seed ``seed * 100003 + g`` and puts the AI in seat ``g % players``."""
    pairs: list[list[Job]] = []
    for game_id in game_ids:
        players, options = TABLES[game_id]
        for opponent in opponents:
            pairs.append([Job(game_id, opponent, players, options, g % players, opponent, budget,
                              seed * 100003 + g) for g in range(games)])
    if "ora" in game_ids:
        for vs in ("solo-ai", "solo-random", "solo-greedy"):
            policy, ai = SOLO[vs]
            pairs.append([Job("ora", vs, 1, {}, 0 if ai else None, policy, budget, seed * 100003 + g)
                          for g in range(solo_games)])
    return [jobs for jobs in pairs if jobs]


def ladder_jobs(game_ids: Sequence[str], pairs: Sequence[str], games: int, solo_games: int,
                budget: Budget, seed: int, solo_levels: Sequence[str] = ("easy", "normal", "hard")) -> list[list[Job]]:
    """Per game and ladder pair ``A-B`` (``LADDER``), its games in seed order: game ``g`` has
    seed ``seed * 100003 + g``, side A from seat ``g % players`` every other seat (``play``
    with ``split``); then the Ora solo rows of ``solo_levels``."""
    out: list[list[Job]] = []
    for game_id in game_ids:
        players, options = TABLES[game_id]
        for pair in pairs:
            a, b = pair.split("-")
            out.append([Job(game_id, pair, players, options, g % players, b, budget, seed * 100003 + g, a, True)
                        for g in range(games)])
    if "ora" in game_ids:
        for lvl in solo_levels:
            out.append([Job("ora", f"solo-{lvl}", 1, {}, 0, "random", budget, seed * 100003 + g, lvl)
                        for g in range(solo_games)])
    return [jobs for jobs in out if jobs]


SEQUENTIAL_MIN = 10
"""With ``--sequential``: games a pair plays at least before its interval may stop it."""


def goal_of(vs: str) -> float | None:
    """The goal of a row ``vs``: ``GOALS`` (against a policy) or ``LADDER_GOALS`` (a ladder
    pair); None for a row without one (a solo row, a pair outside the ladder)."""
    return GOALS.get(vs, LADDER_GOALS.get(vs))


def decided(wins: float, games: int, goal: float) -> str | None:
    """``"met"`` when the 95 % Wilson interval of ``wins`` of ``games`` lies at or above
    ``goal``, ``"missed"`` when it lies below, else None (more games needed)."""
    lo, hi = wilson(wins, games)
    return "met" if lo >= goal else "missed" if hi < goal else None


def games_needed(rate: float, goal: float, most: int = 100000) -> int | None:
    """The fewest games at which a win rate ``rate`` would decide ``goal`` (``decided``), or
    None when none up to ``most`` would (``rate`` at the goal)."""
    n = 1
    while n <= most:
        if decided(rate * n, n, goal) is not None:
            hi = n
            lo = n // 2
            while hi - lo > 1:  # the interval narrows as n grows: the first deciding n
                mid = (lo + hi) // 2
                if decided(rate * mid, mid, goal) is not None:
                    hi = mid
                else:
                    lo = mid
            return hi
        n *= 2
    return None


SETTLED_GAMES = 10
"""Games after which a pair whose interval is above one half yields to the unsettled ones."""


ORDERS = ("cpu", "cheapest")
"""``schedule`` orders: ``cpu`` (least CPU so far first) and ``cheapest`` (the cheapest pair
that has not met its goal first)."""


def schedule(pairs: Sequence[Sequence[Job]], done: Iterable[dict[str, Any]], workers: int,
             sink: Callable[[Job, GameResult], None],
             run: Callable[[Job], GameResult] = _run, order: str = "cpu", sequential: bool = False) -> None:
    """Play every job of ``pairs`` whose key is not among the records ``done``, handing each
    result to ``sink`` as it finishes; ``workers`` processes at a time (1: here, with ``run``).
    The next job goes to an unsettled pair before a settled one (``SETTLED``: at least
    ``SETTLED_GAMES`` games and a 95 % interval above one half, or a solo row with that many
    games), then to the pair with the least CPU seconds so far (``done`` included), then the
    fewest games (a game in flight counts as half), then the first in ``pairs``.

    ``order="cheapest"`` (to make pairs significant one after the other when CPU is short): a
    pair whose goal is not met yet (the 95 % interval's lower bound below ``GOALS``; a solo row:
    fewer than ``SETTLED_GAMES`` games) goes first, the one with the least CPU seconds per game
    so far (a pair with no game: 0) first, so each is finished before a dearer one starts; once
    every goal is met, the fewest games go first (then the cheapest), so the pairs grow evenly.
    ``sequential``: a pair with a goal (``goal_of``) that has played ``SEQUENTIAL_MIN`` games
    or more and whose interval is ``decided`` either way plays no more (its games in flight
    finish); solo rows play all theirs.

    Raises ValueError on another ``order``."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}: one of {ORDERS}")
    done = list(done)
    have = {(r["game"], r["vs"], r["seed"], r["iterations"]) for r in done}
    spent: dict[tuple[str, str, int], list[float]] = {}  # CPU seconds, games, win shares
    counted: dict[tuple[str, str, int], int] = {}  # games finished (none in flight)
    for r in done:
        counted[(r["game"], r["vs"], r["iterations"])] = counted.get((r["game"], r["vs"], r["iterations"]), 0) + 1
        c = spent.setdefault((r["game"], r["vs"], r["iterations"]), [0.0, 0.0, 0.0])
        c[0] += r["cpu"]
        c[1] += 1
        c[2] += r["share"]
    queues = [[j for j in jobs if j.key not in have] for jobs in pairs]

    def cost(i: int) -> tuple[bool, float, float, int]:
        c = spent.setdefault(pairs[i][0].row, [0.0, 0.0, 0.0])
        games = int(c[1])
        vs = pairs[i][0].vs
        if order == "cheapest":
            met = games >= SETTLED_GAMES if vs in SOLO else wilson(c[2], games)[0] >= GOALS.get(vs, LADDER_GOALS.get(vs, 0.5))
            per_game = c[0] / games if games else 0.0
            return (met, c[1], per_game, i) if met else (met, per_game, c[1], i)
        settled = games >= SETTLED_GAMES and (vs in SOLO or wilson(c[2], games)[0] > 0.5)
        return (settled, c[0], c[1], i)

    def stopped(i: int) -> bool:
        goal = goal_of(pairs[i][0].vs)
        if not sequential or goal is None:
            return False
        row = pairs[i][0].row
        games = counted.get(row, 0)
        return games >= SEQUENTIAL_MIN and decided(spent[row][2], games, goal) is not None

    def take() -> Job | None:
        for i, q in enumerate(queues):
            if q and stopped(i):
                q.clear()
        waiting = [i for i, q in enumerate(queues) if q]
        return queues[min(waiting, key=cost)].pop(0) if waiting else None

    def finish(job: Job, result: GameResult) -> None:
        c = spent.setdefault(job.row, [0.0, 0.0, 0.0])
        c[0] += result.cpu
        c[1] += 1
        c[2] += result.share
        counted[job.row] = counted.get(job.row, 0) + 1
        sink(job, result)

    if workers <= 1:
        while (job := take()) is not None:
            finish(job, run(job))
        return
    running: dict[Future[GameResult], Job] = {}
    with ProcessPoolExecutor(workers) as pool:
        while True:
            while len(running) < workers and (job := take()) is not None:
                running[pool.submit(_run, job)] = job
                spent.setdefault(job.row, [0.0, 0.0, 0.0])[1] += 0.5
            if not running:
                return
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for fut in finished:
                job = running.pop(fut)
                spent[job.row][1] -= 0.5
                finish(job, fut.result())


NAMES = {"carnival": "Carnival of Sins", "canterbury": "Canterbury", "heaven": "The Way to Heaven",
         "eguan": "E Guan", "illumination": "Illumination", "ora": "Ora et Labora"}


MARKS = {"ok": "met, significant", "ok?": "met, not significant", "no?": "below, not significant",
         "no": "missed, significant"}
"""The goal marks of ``report`` (text form -> Markdown form): ``ok`` the 95 % interval's lower
bound reaches the goal; ``ok?`` the point estimate does, the lower bound does not; ``no?`` the
point estimate is below the goal, the upper bound is not; ``no`` the upper bound is below it."""


def report(records: Sequence[dict[str, Any]], markdown: bool = False) -> str:
    """The table of ``records`` (``record`` lines), one row per game, opponent and iteration
    count: games, the AI's win % with its 95 % Wilson interval and the goal mark (``MARKS``:
    whether the point estimate reaches the goal, and whether the interval shows it), think time
    p50 and p95 (CPU seconds per searched decision), iterations per CPU second and CPU seconds per
    game; then the Ora solo rows (mean score, spread, min, max). ``markdown``: Markdown rows."""
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for r in records:
        if r["vs"] in GOALS or r["vs"] in ("solo-ai", "solo-random", "solo-greedy"):
            groups.setdefault((r["game"], r["vs"], r["iterations"]), []).append(r)
    order = {g: i for i, g in enumerate(GAME_IDS)}
    vs_order = {"random": 0, "greedy": 1, **{k: 2 + i for i, k in enumerate(SOLO)}}
    if markdown:
        lines = ["| game | vs | iterations | games | AI win % | 95 % CI | goal | think p50 (s) "
                 "| think p95 (s) | it / CPU s | CPU s / game |",
                 "|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|"]
    else:
        lines = [f"{'game':<13}{'vs':<8}{'iters':>6}{'games':>6}{'win %':>8}{'95% CI':>12}{'goal':>6}"
                 f"{'p50 s':>8}{'p95 s':>8}{'it/cpu-s':>9}{'cpu/game':>9}"]
    solo: list[str] = []
    for (game_id, vs, iters), rows in sorted(groups.items(), key=lambda kv: (
            order.get(kv[0][0], 99), vs_order.get(kv[0][1], 99), kv[0][2])):
        think = [t for r in rows for t in r["think"]]
        rate = sum(r["iters"] for r in rows) / max(1e-9, sum(think))
        p50, p95 = (statistics.median(think), percentile(think, 0.95)) if think else (0.0, 0.0)
        cpu = statistics.mean(r["cpu"] for r in rows)
        if vs in SOLO:
            scores = [r["score"] for r in rows]
            timing = f"  think p50 {p50:.2f} s p95 {p95:.2f} s" if think else ""
            solo.append(f"{vs.removeprefix('solo-'):<7} ({iters} it) games {len(rows):>3}  mean "
                        f"{statistics.mean(scores):6.1f}  sd {statistics.pstdev(scores):5.1f}  min "
                        f"{min(scores):.0f}  max {max(scores):.0f}{timing}")
            continue
        wins = sum(r["share"] for r in rows)
        lo, hi = wilson(wins, len(rows))
        goal = GOALS[vs]
        mark = "ok" if lo >= goal else "ok?" if wins / len(rows) >= goal else "no?" if hi >= goal else "no"
        pct = 100 * wins / len(rows)
        if markdown:
            lines.append(f"| {NAMES.get(game_id, game_id)} ({rows[0]['players']} p) | {vs} | {iters} "
                         f"| {len(rows)} | {pct:.1f} | [{100 * lo:.0f}, {100 * hi:.0f}] "
                         f"| {MARKS[mark]} "
                         f"| {p50:.2f} | {p95:.2f} | {rate:.0f} | {cpu:.0f} |")
        else:
            lines.append(f"{game_id:<13}{vs:<8}{iters:>6}{len(rows):>6}{pct:>7.1f}%"
                         f"{f'[{100 * lo:.0f}, {100 * hi:.0f}]':>12}{mark:>6}{p50:>8.3f}{p95:>8.3f}"
                         f"{rate:>9.0f}{cpu:>9.0f}")
    if solo:
        lines += ["", "Ora et Labora solo: final score"] + ([""] if markdown else [])
        lines += [f"{'    ' if markdown else '  '}{s}" for s in solo]
    return "\n".join(lines)


def ladder_report(records: Sequence[dict[str, Any]]) -> str:
    """The ladder's tables from ``records`` (the lines with a ``level``):

    * per game and pair ``A-B``: games, A's win % with its 95 % Wilson interval, the goal mark
      (``MARKS`` against ``LADDER_GOALS``), whether the interval has ``decided`` the goal
      (``met``, ``missed`` or ``open``) and, when open, the games it would need at the rate so
      far (``games_needed``), the share of games that ended by a cap, the blunder rate of the
      normal level's decisions (``check_blunder``) and the seeds played;
    * per game and AI level (both sides of every pair): decisions, think time p50, p95 and
      max (CPU seconds), and the share of decisions whose CPU time passed the level's
      wall-clock cap (``LEVELS``), which a search on an idle machine would have been cut at;
    * per game: the cap share, the mean number of moves (chance included: how long the games
      ran), the blunder rate over every game of the file (``check_blunder``; beside it the rate
      by the first three samples alone, where the file has it) and the normal level's
      think-time p95;
    * Ora et Labora solo: the final score per level.
    """
    rows = [r for r in records if "level" in r]
    order = {g: i for i, g in enumerate(GAME_IDS)}
    pair_order = {p: i for i, p in enumerate(LADDER)}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["game"], r["vs"]), []).append(r)
    lines = [f"{'game':<13}{'pair':<15}{'games':>6}{'A win %':>9}{'95% CI':>12}{'goal':>6}{'decided':>9}"
             f"{'needed':>8}{'cap %':>7}{'blunders':>14}  seeds"]
    solo: list[str] = []
    for (game_id, vs), rs in sorted(groups.items(), key=lambda kv: (
            order.get(kv[0][0], 99), pair_order.get(kv[0][1], 50), kv[0][1])):
        seeds = sorted(r["seed"] for r in rs)
        span = _spans(seeds)
        if vs in SOLO:
            scores = [r["score"] for r in rs]
            solo.append(f"  {vs.removeprefix('solo-'):<7} games {len(rs):>3}  mean {statistics.mean(scores):6.1f}  "
                        f"sd {statistics.pstdev(scores):5.1f}  min {min(scores):.0f}  max {max(scores):.0f}  seeds {span}")
            continue
        wins = sum(r["share"] for r in rs)
        lo, hi = wilson(wins, len(rs))
        goal = LADDER_GOALS.get(vs)
        mark = "-" if goal is None else (
            "ok" if lo >= goal else "ok?" if wins / len(rs) >= goal else "no?" if hi >= goal else "no")
        verdict = "-" if goal is None else decided(wins, len(rs), goal) or "open"
        need = games_needed(wins / len(rs), goal) if goal is not None and verdict == "open" else None
        needed = "-" if goal is None or verdict != "open" else ">100k" if need is None else str(need)
        checked = sum(r.get("checked", 0) for r in rs)
        bl = sum(r.get("blunders", 0) for r in rs)
        blunder = f"{100 * bl / checked:.1f}% of {checked}" if checked else "-"
        caps = 100 * sum(1 for r in rs if r.get("cap")) / len(rs)
        lines.append(f"{game_id:<13}{vs:<15}{len(rs):>6}{100 * wins / len(rs):>8.1f}%"
                     f"{f'[{100 * lo:.0f}, {100 * hi:.0f}]':>12}{mark:>6}{verdict:>9}{needed:>8}{caps:>6.0f}%"
                     f"{blunder:>14}  {span}")
    lines += ["", f"{'game':<13}{'level':<8}{'decisions':>10}{'p50 s':>8}{'p95 s':>8}{'max s':>8}{'cap cut %':>10}"]
    per_game: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        per_game.setdefault(r["game"], []).append(r)
    for game_id in sorted(per_game, key=lambda g: order.get(g, 99)):
        rs = per_game[game_id]
        for lvl in LEVELS:
            think = [t for r in rs for t in r.get("think_by", {}).get(lvl, [])]
            if not think:
                continue
            cuts = sum(r.get("cuts", {}).get(lvl, 0) for r in rs)
            lines.append(f"{game_id:<13}{lvl:<8}{len(think):>10}{statistics.median(think):>8.3f}"
                         f"{percentile(think, 0.95):>8.3f}{max(think):>8.3f}{100 * cuts / len(think):>9.1f}%")
    lines += ["", f"{'game':<13}{'games':>6}{'cap %':>7}{'moves':>7}{'normal decisions':>18}{'blunders':>10}"
                  f"{'3 samples':>11}{'normal p95 s':>14}"]
    for game_id in sorted(per_game, key=lambda g: order.get(g, 99)):
        rs = [r for r in per_game[game_id] if r["vs"] not in SOLO]
        if not rs:
            continue
        checked = sum(r.get("checked", 0) for r in rs)
        bl = sum(r.get("blunders", 0) for r in rs)
        caps = 100 * sum(1 for r in rs if r.get("cap")) / len(rs)
        rate = f"{100 * bl / checked:.1f}%" if checked else "-"
        with_first = [r for r in rs if "blunders_3" in r]
        first_checked = sum(r.get("checked", 0) for r in with_first)
        first = f"{100 * sum(r['blunders_3'] for r in with_first) / first_checked:.1f}%" if first_checked else "-"
        moves = statistics.mean(r["moves"] for r in rs)
        think = [t for r in rs for t in r.get("think_by", {}).get("normal", [])]
        p95 = f"{percentile(think, 0.95):.3f}" if think else "-"
        lines.append(f"{game_id:<13}{len(rs):>6}{caps:>6.0f}%{moves:>7.0f}{checked:>18}{rate:>10}{first:>11}{p95:>14}")
    if solo:
        lines += ["", "Ora et Labora solo: final score per level"] + solo
    return "\n".join(lines)


def _spans(seeds: Sequence[int]) -> str:
    """``seeds`` (sorted) as runs: ``100003-100012,100020``."""
    runs: list[list[int]] = []
    for x in seeds:
        if runs and x == runs[-1][1] + 1:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return ",".join(f"{a}-{b}" if b != a else f"{a}" for a, b in runs)


def root_visits(game_ids: Sequence[str], level: str = "normal", per_seed: int = 6,
                seeds: Sequence[int] = (3, 8)) -> str:
    """How decisively the search picks, per game: on positions of random games (``seeds``;
    every 7th position where the mover has 4 or more legal actions, up to ``per_seed`` a seed),
    one search at ``level`` (no wall-clock cap, search seed 1): the mean share of the root
    visits the top action got, how many decisions had the top two within one visit, and the
    CPU seconds per decision."""
    lines = []
    for game_id in game_ids:
        engine = ENGINES[game_id]
        players = TABLES[game_id][0]
        budget = replace(budget_for(engine, level), seconds=None)
        found: list[tuple[State, Seat]] = []
        for seed in seeds:
            rng = random.Random(seed)
            state = engine.new_game(players, seed, {})
            count = taken = 0
            while movers := sorted(engine.to_move(state)):
                if movers == [CHANCE]:
                    state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
                    continue
                seat = rng.choice(movers)
                acts = list(engine.legal_actions(state, seat))
                if len(acts) >= 4:
                    count += 1
                    if count % 7 == 0 and taken < per_seed:
                        found.append((state, seat))
                        taken += 1
                state, _ = engine.apply(state, seat, rng.choice(acts))
        tops, near, cpu, widths = [], 0, [], []
        for state, seat in found:
            result = search(engine, state, seat, budget, random.Random(1))
            v = sorted(result.visits, reverse=True)
            tops.append(v[0] / sum(v))
            near += v[0] - v[1] <= 1
            cpu.append(result.cpu_seconds)
            widths.append(len(v))
        if found:
            lines.append(f"{game_id:<13} positions {len(found):>2} actions {statistics.mean(widths):5.1f} "
                         f"top visit share {statistics.mean(tops):.2f} top two within 1 visit {near}/{len(found)} "
                         f"cpu mean {statistics.mean(cpu):.2f} max {max(cpu):.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run the bench (or, with ``--report``, print the table of results files)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40, help="games per game and opponent")
    parser.add_argument("--iterations", type=int, default=None, help="override the normal budget")
    parser.add_argument("--only", default=",".join(GAME_IDS), help="comma-separated game ids")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--solo-games", type=int, default=None, help="Ora solo games (default --games)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--order", choices=ORDERS, default="cpu",
                        help="cpu: least CPU so far first; cheapest: the cheapest unmet goal first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None, help="append each finished game to this JSON-lines file")
    parser.add_argument("--resume", action="store_true", help="skip the games --out already holds")
    parser.add_argument("--report", nargs="+", default=None, metavar="FILE",
                        help="print the table of these results files and exit")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown rows")
    parser.add_argument("--ladder", default=None, metavar="PAIRS",
                        help=f"play the ladder: comma-separated A-B pairs of levels or policies "
                             f"(e.g. {','.join(LADDER)}; 'all' for those) instead of --opponents")
    parser.add_argument("--solo-levels", default="easy,normal,hard",
                        help="with --ladder: the AI levels of the Ora solo rows ('' for none)")
    parser.add_argument("--sequential", action="store_true",
                        help=f"stop a pair once its 95 %% interval decides its goal either way "
                             f"(after {SEQUENTIAL_MIN} games at least; --games is the most)")
    parser.add_argument("--no-blunders", action="store_true",
                        help="do not check the normal level's decisions for blunders (faster)")
    parser.add_argument("--root-visits", action="store_true",
                        help="print how decisively the normal level picks on positions of random games (root_visits)")
    args = parser.parse_args(argv)
    if args.root_visits:
        print(root_visits(args.only.split(",")))
        return
    global BLUNDER_CHECK
    BLUNDER_CHECK = not args.no_blunders
    if args.report:
        records = read_records(args.report)
        if any("level" not in r for r in records):
            print(report(records, markdown=args.markdown))
        if any("level" in r for r in records):
            print(ladder_report(records))
        return
    game_ids = args.only.split(",")
    pairs: list[list[Job]] = []
    for game_id in game_ids:  # load every game's hooks now: edits made during a long run do not leak in
        budget = replace(budget_for(ENGINES[game_id], "normal"), seconds=None)
        if args.iterations is not None:
            budget = replace(budget, iterations=args.iterations)
        print(f"AI in {game_id}: normal level, {budget.iterations} iterations per decision, "
              "no wall-clock cap", flush=True)
        solo_games = args.games if args.solo_games is None else args.solo_games
        if args.ladder:
            ladder = LADDER if args.ladder == "all" else tuple(args.ladder.split(","))
            levels = [x for x in args.solo_levels.split(",") if x]
            pairs += ladder_jobs([game_id], ladder, args.games, solo_games, budget, args.seed, levels)
        else:
            pairs += jobs_for([game_id], args.opponents.split(","), args.games, solo_games, budget, args.seed)
    done = read_records([args.out]) if args.out and args.resume else []
    results: list[dict[str, Any]] = []

    def sink(job: Job, result: GameResult) -> None:
        line = record(job, result)
        results.append(line)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(line, separators=(",", ":")) + "\n")
        extra = f" cap {result.cap} blunders {result.blunders}/{result.checked}" if job.split else ""
        print(f"{job.game_id} {job.vs} seed {job.seed}: share {result.share:.2f} "
              f"score {result.score:g} cpu {result.cpu:.0f} s{extra}", flush=True)

    schedule(pairs, done, args.workers, sink, order=args.order, sequential=args.sequential)
    everything = done + results
    if any("level" not in r for r in everything):
        print(report(everything, markdown=args.markdown))
    if any("level" in r for r in everything):
        print(ladder_report(everything))


if __name__ == "__main__":
    main()
