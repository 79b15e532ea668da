"""Illumination balance and speed bench (spec docs/rules/illumination.md §2.11).

Usage: ``python -m bench.illumination_balance [--games N] [--coins 5,6] [--speed-actions N]``

* **Balance:** N games (default 10,000) per Irreverent start-coin value between two copies of
  one greedy policy (``greedy``): the first-player (Reverent) win rate (shared wins count half),
  the mean scores, margin, turns, battles and sheepfold tiles. Values 5 and 6 are the option
  ``irreverent_start_coins``; other values (e.g. ``--coins 5,6,7,8``) are explored by setting the
  Irreverent's coins after setup, to say which value would bring the rate nearest 50 %.
* **Speed:** random playouts (legal actions, a uniform choice, ``apply``) in actions per second.

A script, not a test; it uses only the public engine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from engines.base import CHANCE, Action, State
from engines.illumination import ENGINE as E
from engines.illumination.data import SLOT_TIERS, STATIONS
from engines.illumination.rules import rewards, slot_parts

# --------------------------------------------------------------------------- the greedy policy


def _best_place(st: State, actions: list[Action]) -> Action | None:
    best, value = None, -1
    for a in actions:
        if a["type"] != "place":
            continue
        coins, tokens, _ = rewards(st, a["tile"], a["cell"])
        if coins + tokens > value:
            best, value = a, coins + tokens
    return best


def _line_value(st: State, seat: int, line: str) -> float:
    from engines.illumination.data import TILES
    from engines.illumination.rules import empty_quills, line_book, line_tiles

    book = line_book(st, seat, line)
    cells = empty_quills(st, book)
    value = 0.0
    for tile in line_tiles(st, seat, line):
        if TILES[tile].faction is None:
            value += 2
        elif cells:
            value += 1 + max(sum(rewards(st, tile, c)[:2]) for c in cells)
        else:
            value -= 1  # it would go to the sheepfold
    return value


def greedy(st: State, seat: int, rng: random.Random) -> Action:
    """One greedy move: the line with the best immediate value; exchange when a slot is open;
    place each tile on its best cell; walk the Abbot toward an altar it can exchange at; buy a card
    with spare coins; Ritus or Motus when they open an exchange; never pass voluntarily."""
    actions = list(E.legal_actions(st, seat))
    phase = st["phase"]
    if phase == "turn_start":
        lines = [a for a in actions if a["type"] == "activate"]
        return max(lines, key=lambda a: _line_value(st, seat, a["line"]))
    if phase != "main":
        return E.timeout_action(st, seat)
    exchanges = [a for a in actions if a["type"] == "exchange"]
    if exchanges:
        return max(exchanges, key=lambda a: SLOT_TIERS[slot_parts(a["slot"])[1]])
    place = _best_place(st, actions)
    if place is not None:
        return place
    tokens = st["tokens"][seat]
    plays = [a for a in actions if a["type"] == "play"]
    # Motus to an altar, or Ritus, when it opens an exchange
    for a in plays:
        if a["card"] == "motus" and "altar" in a:
            token = STATIONS[a["altar"]].token
            if token is not None and any(tokens[token] >= n and f"{a['altar']}-{n}" not in st["slots"]
                                         for n in SLOT_TIERS):
                return a
        if a["card"] == "ritus":
            here = STATIONS[st["abbot"]].token
            if here is not None and any(tokens[here] + 1 == n and f"{st['abbot']}-{n}" not in st["slots"]
                                        for n in SLOT_TIERS):
                return {**a, "token": here}
    # walk the Abbot toward the altar of the largest usable holding
    steps = [a for a in actions if a["type"] == "abbot"]
    if steps and st["coins"][seat] >= 2:
        targets = [s.id for s in STATIONS.values() if s.token is not None and any(
            tokens[s.token] >= n and f"{s.id}-{n}" not in st["slots"] for n in SLOT_TIERS)]
        if targets:
            at = STATIONS[st["abbot"]]
            goal = STATIONS[max(targets, key=lambda t: tokens[STATIONS[t].token or "bell"])]
            dist = abs(at.row - goal.row) + abs(at.col - goal.col)
            for a in steps:
                nxt = STATIONS[a["station"]]
                if abs(nxt.row - goal.row) + abs(nxt.col - goal.col) < dist and dist <= st["coins"][seat]:
                    return a
    redirects = [a for a in actions if a["type"] == "redirect"]
    if redirects and any(a["type"] == "end_turn" for a in actions):
        return redirects[0]  # a tile stuck at a closed Book: pay to place it
    if any(a["type"] == "buy" for a in actions) and st["coins"][seat] >= 4 and not st["hands"][seat]:
        return {"type": "buy"}
    if plays and rng.random() < 0.3:
        return rng.choice(plays)
    return next(a for a in actions if a["type"] == "end_turn")


def play_game(seed: int, coins: int) -> dict[str, Any]:
    """One greedy game; returns the Reverent's result and game facts."""
    rng = random.Random(seed)
    option = str(coins) if coins in (5, 6) else "5"
    st = E.new_game(2, seed, {"irreverent_start_coins": option})
    turns = battles = 0
    patched = False
    while E.to_move(st):
        seat = min(E.to_move(st))
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            if not patched and coins not in (5, 6) and st["reverent"] is not None:
                st["coins"][1 - st["reverent"]] = coins
                patched = True
            action = greedy(st, seat, rng)
            turns += action["type"] == "activate"
        st, events = E.apply(st, seat, action)
        battles += sum(e.kind == "battle" for e in events)
    outcome = E.outcome(st)
    assert outcome is not None
    rev = st["reverent"]
    share = 1.0 if outcome.winners == {rev} else 0.5 if len(outcome.winners) == 2 else 0.0
    return {"rev_win": share, "rev": outcome.scores[rev], "irr": outcome.scores[1 - rev], "turns": turns,
            "battles": battles, "sheep": sum(st["sheepfold"])}


def balance(games: int, coins: int, seed: int) -> dict[str, float]:
    rows = [play_game(seed + g, coins) for g in range(games)]
    margins = [r["rev"] - r["irr"] for r in rows]
    return {"rate": statistics.fmean(r["rev_win"] for r in rows), "rev": statistics.fmean(r["rev"] for r in rows),
            "irr": statistics.fmean(r["irr"] for r in rows), "margin": statistics.fmean(margins),
            "sd": statistics.pstdev(margins), "turns": statistics.fmean(r["turns"] for r in rows),
            "battles": statistics.fmean(r["battles"] for r in rows), "sheep": statistics.fmean(r["sheep"] for r in rows)}


def speed(actions: int, seed: int = 1) -> tuple[float, float]:
    """Random playouts: actions (chance included) per second of wall time and of CPU time (the
    second is the engine's own speed on a shared machine)."""
    rng = random.Random(seed)
    done = 0
    start, cpu = time.perf_counter(), time.process_time()
    while done < actions:
        st = E.new_game(2, rng.randrange(1 << 30), None)
        while E.to_move(st) and done < actions:
            seat = min(E.to_move(st))
            action = E.sample_chance(st, rng) if seat == CHANCE else rng.choice(list(E.legal_actions(st, seat)))
            st, _ = E.apply(st, seat, action)
            done += 1
    return done / (time.perf_counter() - start), done / (time.process_time() - cpu)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--coins", default="5,6", help="Irreverent start coins to compare (default 5,6)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--speed-actions", type=int, default=50_000)
    args = p.parse_args(argv)
    wall, cpu = speed(args.speed_actions)
    print(f"random playouts: {wall:,.0f} actions/s wall, {cpu:,.0f} actions/s CPU (target ≥ 5,000)")
    results = {}
    for coins in (int(c) for c in args.coins.split(",")):
        t = time.perf_counter()
        r = results[coins] = balance(args.games, coins, args.seed)
        print(f"irreverent_start_coins={coins}: Reverent (first player) wins {100 * r['rate']:.1f} % of "
              f"{args.games} games; mean {r['rev']:.1f} v {r['irr']:.1f} (margin {r['margin']:+.1f}, s.d. "
              f"{r['sd']:.1f}); {r['turns']:.1f} turns, {r['battles']:.1f} battles, {r['sheep']:.2f} sheepfold "
              f"tiles per game [{time.perf_counter() - t:.0f} s]")
    nearest = min(results, key=lambda c: abs(results[c]["rate"] - 0.5))
    print(f"nearest 50 %: irreverent_start_coins={nearest} ({100 * results[nearest]['rate']:.1f} %)")


if __name__ == "__main__":
    main()
