"""E Guan balance bench (docs/rules/eguan.md D16): simulated games per player count.

Usage: ``python -m bench.eguan_balance --games N [--seed S] [--workers W]``
(default 10000 games per configuration). Configurations: 3 and 4 players, each with
all-random players, all-greedy players and mixed tables (each seat random or greedy);
every seat picks a skill set uniformly at random. Prints, per configuration, each skill set's win rate (shared wins split) against
the equal share 1/n with the ±3 percentage-point target, the mean final Infamy and
final score per set, the title share of the winner's score (spec D16: "about one sixth" for 4
players), and the mean number of turns.

This is a script, not a test; it uses only the public engine plus
``EguanEngine.apply_in_place`` (no deepcopy) for speed.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engines.base import CHANCE, Action, State
from engines.eguan.data import ANCHORS, CARDS, ROTATIONS, SET_LETTERS, SKILLS
from engines.eguan.engine import EguanEngine
from engines.eguan.rules import (
    board_cells,
    board_counts,
    corner_cells,
    final_scoring,
    most_wanted,
    stack_index,
    topmost,
    turns_taken,
)

log = logging.getLogger("bench.eguan_balance")
E = EguanEngine()
TARGET_PP = 3.0
"""Allowed deviation of a skill set's win rate from the equal share, in percentage points."""

Policy = Callable[[State, int, random.Random], Action]


# --------------------------------------------------------------------------- policies


def random_policy(st: State, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action (skills included)."""
    return rng.choice(E.legal_actions(st, seat))


def _cell_icons(board: list[list[Any]]) -> list[list[tuple[str, int] | None]]:
    grid = board_cells(board)
    return [[None if c is None else CARDS[c[0]].corners[c[1]] for c in row] for row in grid]


def _counts_after(
    icons: list[list[tuple[str, int] | None]], base: dict[str, int], card: str, anchor: int, rot: int
) -> dict[str, int]:
    out = dict(base)
    corners = CARDS[card].corners
    for corner, (r, c) in corner_cells(anchor, rot).items():
        old = icons[r][c]
        if old is not None:
            out[old[0]] -= old[1]
        new = corners[corner]
        if new is not None:
            out[new[0]] += new[1]
    return out


def _value(counts: dict[str, int], turns_left: float) -> float:
    return counts["E"] * turns_left + 0.7 * (counts["H"] + counts["S"] + counts["K"])


def _turns_left(st: State) -> float:
    n = st["players"]
    return max(1.0, len(st["deck"]) / n * 1.1 + 1.5)


def _best_play(st: State, seat: int, cards: list[str]) -> tuple[float, str, int, int] | None:
    board = st["boards"][seat]
    icons = _cell_icons(board)
    base = {"H": 0, "S": 0, "K": 0, "E": 0}
    for row in icons:
        for ic in row:
            if ic is not None:
                base[ic[0]] += ic[1]
    tl = _turns_left(st)
    v0 = _value(base, tl)
    best: tuple[float, str, int, int] | None = None
    for cid in cards:
        card = CARDS[cid]
        pay = 2 * sum(max(0, card.req[k] - base[k]) for k in ("H", "S", "K"))
        if pay > st["infamy"][seat]:
            continue
        die = 1.2 if card.trouble_die else 0.0
        for a in ANCHORS:
            for r in ROTATIONS:
                v = _value(_counts_after(icons, base, cid, a, r), tl) - v0 - pay + die
                if best is None or v > best[0]:
                    best = (v, cid, a, r)
    return best


def _best_move(st: State, seat: int, only: str | None = None) -> tuple[float, str, int, int] | None:
    """Best B3 move (topmost card, anchor, rotation) if it improves the board value."""
    board = st["boards"][seat]
    tl = _turns_left(st)
    v0 = _value(board_counts(board), tl)
    best: tuple[float, str, int, int] | None = None
    for cid in topmost(board):
        if only is not None and cid != only:
            continue
        rest = [p for p in board if p[0] != cid]
        for a in ANCHORS:
            for r in ROTATIONS:
                v = _value(board_counts([*rest, [cid, a, r]]), tl) - v0
                if v > 0.01 and (best is None or v > best[0]):
                    best = (v, cid, a, r)
    return best


def _face_value(st: State, seat: int, value: int) -> float:
    face = SKILLS[st["skills"][seat]][value - 1]
    mw = most_wanted(st["boards"])
    opp = [s for s in range(st["players"]) if s != seat and s != mw]
    inf = st["infamy"]
    eff, n = face.effect, face.amount
    if eff == "gain":
        return float(n)
    if eff == "steal":
        return 2.0 * min(n, max((inf[s] for s in opp), default=0))
    if eff == "steal_richer":
        return 2.0 * n if any(inf[s] > inf[seat] for s in opp) else 0.0
    if eff == "steal_each_richer":
        return 2.0 * n * sum(inf[s] > inf[seat] for s in opp)
    if eff == "all_others_lose":
        return 0.7 * sum(min(n, inf[s]) for s in opp)
    if eff == "income_again":
        return float(min(n, st_counts_e(st, seat)))
    if eff in ("extra_play", "remove_topmost"):
        return 2.0
    if eff == "move_topmost":
        best_move = _best_move(st, seat)
        return 0.0 if best_move is None else best_move[0]
    if eff == "draw_kept":
        return 1.0
    return 0.0


def st_counts_e(st: State, seat: int) -> int:
    return sum(
        (CARDS[c[0]].corners[c[1]] or ("", 0))[1]
        for row in board_cells(st["boards"][seat])
        for c in row
        if c is not None and (CARDS[c[0]].corners[c[1]] or ("",))[0] == "E"
    )


def greedy_policy(st: State, seat: int, rng: random.Random) -> Action:
    """One-step greedy: value = E × turns left + 0.7 × resources − payment."""
    legal = E.legal_actions(st, seat)
    if st["phase"] == "skill":
        return rng.choice(legal)
    pend = st["pending"]
    step = pend["step"]
    if step in ("main", "extra_pick"):
        hand = list(st["hands"][seat])
        cands = hand[:]
        kept = st["kept"][seat]
        if {"type": "select_kept"} in legal and kept is not None:
            cands.append(kept["card"])
        best = _best_play(st, seat, cands)
        threshold = -1.0 if step == "main" else 0.0
        if best is not None and best[0] > threshold:
            if kept is not None and best[1] == kept["card"] and best[1] not in hand:
                return {"type": "select_kept"}
            return {"type": "select", "card": best[1]}
        if step == "extra_pick":
            return {"type": "skip"}
        if hand:  # keep the card that is most expensive now (least useful)
            return {"type": "keep", "card": hand[-1]}
        return {"type": "pass"}
    if step == "move_pick":
        best_move = _best_move(st, seat)
        return {"type": "move", "card": best_move[1]} if best_move is not None else {"type": "skip"}
    if step == "place":
        if pend["purpose"] == "move":
            best_move = _best_move(st, seat, only=pend["card"])
            if best_move is None:
                _, a, r = st["boards"][seat][stack_index(st["boards"][seat], pend["card"])]
                return {"type": "place", "anchor": a, "rot": r}
            return {"type": "place", "anchor": best_move[2], "rot": best_move[3]}
        card = pend["card"]
        board = st["boards"][seat]
        icons = _cell_icons(board)
        base = {"H": 0, "S": 0, "K": 0, "E": 0}
        for row in icons:
            for ic in row:
                if ic is not None:
                    base[ic[0]] += ic[1]
        tl = _turns_left(st)
        best_p = max(
            ((_value(_counts_after(icons, base, card, a, r), tl), -a, -r) for a in ANCHORS for r in ROTATIONS),
        )
        return {"type": "place", "anchor": -best_p[1], "rot": -best_p[2]}
    if step == "adjust":
        roll = st["die"]["roll"]
        scored = [
            (_face_value(st, seat, roll + a["delta"]) - (1.5 if a["delta"] else 0.0), a["delta"] == 0, i)
            for i, a in enumerate(legal)
        ]
        return legal[max(scored)[2]]
    return E.timeout_action(st, seat)  # target / remove: richest eligible opponent


# --------------------------------------------------------------------------- simulation


def play_game(n: int, policy: Policy | list[Policy], rng: random.Random) -> dict[str, Any]:
    """One full game (one policy, or one per seat); returns sets, final scores,
    Infamy, winners, title bonuses and turns."""
    policies = policy if isinstance(policy, list) else [policy] * n
    st = E.new_game(n, 0)
    while True:
        movers = E.to_move(st)
        if not movers:
            break
        seat = min(movers)
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            action = policies[seat](st, seat, rng)
        E.apply_in_place(st, seat, action)
    res = final_scoring(st)
    return {
        "sets": list(st["skills"]),
        "scores": res["scores"],
        "infamy": res["infamy"],
        "winners": res["winners"],
        "bonus": [sum(res["bonus"][k][s] for k in ("H", "S", "K")) for s in range(n)],
        "turns": turns_taken(st)[0],
    }


def run_chunk(args: tuple[int, str, int, int]) -> list[dict[str, Any]]:
    n, pname, games, seed = args
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        if pname == "mixed":  # each seat random or greedy with equal chance
            kinds = [rng.choice(("random", "greedy")) for _ in range(n)]
            pols: list[Policy] = [random_policy if k == "random" else greedy_policy for k in kinds]
            g = play_game(n, pols, rng)
            g["kinds"] = kinds
        else:
            g = play_game(n, random_policy if pname == "random" else greedy_policy, rng)
        out.append(g)
    return out


def summarise(n: int, pname: str, results: list[dict[str, Any]]) -> list[str]:
    wins = {x: 0.0 for x in SET_LETTERS}
    seats = {x: 0 for x in SET_LETTERS}
    score_sum = {x: 0.0 for x in SET_LETTERS}
    inf_sum = {x: 0.0 for x in SET_LETTERS}
    kind_seats = {"random": 0, "greedy": 0}
    kind_wins = {"random": 0.0, "greedy": 0.0}
    share_sum = 0.0
    win_score = 0.0
    turns = 0
    for g in results:
        k = len(g["winners"])
        for s, x in enumerate(g["sets"]):
            seats[x] += 1
            score_sum[x] += g["scores"][s]
            inf_sum[x] += g["infamy"][s]
            if s in g["winners"]:
                wins[x] += 1.0 / k
            if "kinds" in g:
                kind_seats[g["kinds"][s]] += 1
                kind_wins[g["kinds"][s]] += (1.0 / k) if s in g["winners"] else 0.0
        for w in g["winners"]:
            share_sum += g["bonus"][w] / max(1, g["scores"][w]) / k
            win_score += g["scores"][w] / k
        turns += g["turns"]
    games = len(results)
    equal = 100.0 / n
    lines = [
        f"== {n} players, {pname} players, {games} games: equal share {equal:.1f}% (target ±{TARGET_PP:.0f} pp) ==",
        f"{'set':<14}{'seats':>7}{'win %':>8}{'Δ pp':>8}{'Infamy':>8}{'score':>8}  verdict",
    ]
    for x in SET_LETTERS:
        rate = 100.0 * wins[x] / max(1, seats[x])
        delta = rate - equal
        mean = score_sum[x] / max(1, seats[x])
        mean_inf = inf_sum[x] / max(1, seats[x])
        verdict = "ok" if abs(delta) <= TARGET_PP else "OUT"
        name = f"{x} {SKILLS[x][0].set_name_en}"
        lines.append(f"{name:<14}{seats[x]:>7}{rate:>8.1f}{delta:>+8.1f}{mean_inf:>8.1f}{mean:>8.1f}  {verdict}")
    lines.append(
        f"winner's mean score {win_score / games:.1f}; title share of winner's score "
        f"{100.0 * share_sum / games:.1f}% (spec D16: about 16.7% for 4 players); turns per player {turns / games:.1f}"
    )
    if kind_seats["greedy"]:
        lines.append(
            "win % by player kind: "
            + ", ".join(f"{k} {100.0 * kind_wins[k] / max(1, kind_seats[k]):.1f}%" for k in ("random", "greedy"))
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000, help="games per configuration")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    ns = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    chunks = max(1, ns.workers * 4)
    for n in (3, 4):
        for pname in ("random", "greedy", "mixed"):
            t0 = time.time()
            sizes = [ns.games // chunks + (1 if i < ns.games % chunks else 0) for i in range(chunks)]
            jobs = [(n, pname, size, ns.seed * 1000 + n * 100 + i + {"random": 0, "greedy": 30, "mixed": 60}[pname]) for i, size in enumerate(sizes) if size]
            results: list[dict[str, Any]] = []
            if ns.workers > 1:
                with ProcessPoolExecutor(ns.workers) as pool:
                    for part in pool.map(run_chunk, jobs):
                        results.extend(part)
            else:
                for job in jobs:
                    results.extend(run_chunk(job))
            for line in summarise(n, pname, results):
                log.info(line)
            log.info("(%.0f s)\n", time.time() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
