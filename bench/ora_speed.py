"""Ora et Labora speed: random playouts and replays, actions per second.

``python -m bench.ora_speed [--games N]`` plays N random games per mode (legal actions listed
and one picked uniformly, every step), then replays each log through ``apply`` alone, and
prints both rates (wall clock and per CPU second, which a loaded machine disturbs less). Goals: playouts ≥ 2,000 actions/s, replay ≥ 5,000 actions/s.
"""

from __future__ import annotations

import argparse
import random
import time

from engines.base import CHANCE, Action
from engines.ora import ENGINE

GAMES = ((1, "standard", "france"), (2, "standard", "france"), (2, "long", "ireland"),
         (3, "standard", "ireland"), (4, "standard", "france"), (3, "short", "france"),
         (4, "short", "ireland"))
"""(players, mode family, variant) of the benchmark games: every mode, both countries."""


def playout(players: int, options: dict[str, str], seed: int) -> list[tuple[int, Action]]:
    """One random game; returns its log."""
    rng = random.Random(seed)
    state = ENGINE.new_game(players, seed, options)
    log: list[tuple[int, Action]] = []
    while True:
        movers = ENGINE.to_move(state)
        if not movers:
            return log
        seat = min(movers)
        if seat == CHANCE:
            action = ENGINE.sample_chance(state, rng)
        else:
            action = rng.choice(list(ENGINE.legal_actions(state, seat)))
        state, _ = ENGINE.apply(state, seat, action)
        log.append((seat, action))


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark; print and return ``{"playout": a/s, "replay": a/s}``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3, help="games per mode (default 3)")
    args = parser.parse_args(argv)
    logs = []
    actions = 0
    start, cpu = time.perf_counter(), time.process_time()
    for players, family, variant in GAMES:
        options = {"mode": family, "variant": variant}
        for seed in range(args.games):
            log = playout(players, options, seed)
            logs.append((players, options, seed, log))
            actions += len(log)
    play_rate = actions / (time.perf_counter() - start)
    play_cpu = actions / (time.process_time() - cpu)
    start, cpu = time.perf_counter(), time.process_time()
    for players, options, seed, log in logs:
        state = ENGINE.new_game(players, seed, options)
        for seat, action in log:
            state, _ = ENGINE.apply(state, seat, action)
        assert ENGINE.outcome(state) is not None
    replay_rate = actions / (time.perf_counter() - start)
    replay_cpu = actions / (time.process_time() - cpu)
    print(f"ora: {len(logs)} games, {actions} actions; random playouts {play_rate:,.0f} actions/s "
          f"({play_cpu:,.0f} per CPU second; goal 2,000), replay {replay_rate:,.0f} actions/s "
          f"({replay_cpu:,.0f} per CPU second; goal 5,000)")
    return {"playout": play_rate, "replay": replay_rate, "playout_cpu": play_cpu, "replay_cpu": replay_cpu}


if __name__ == "__main__":
    main()
