"""bench/ai_strength.py's bookkeeping: results lines, resume, interleaving
and the report. The games themselves are not played here (a fake ``run``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bench import ai_strength
from bench.ai_strength import (
    RECHECK_SAMPLES,
    SEQUENTIAL_MIN,
    GameResult,
    Job,
    check_blunder,
    decided,
    games_needed,
    is_blunder,
    jobs_for,
    ladder_jobs,
    ladder_report,
    play,
    read_records,
    record,
    report,
    schedule,
    wilson,
)
from engines.ai.search import Budget
from engines.registry import ENGINES

BUDGET = Budget(iterations=5)


def test_jobs_rotate_the_ai_seat_and_add_the_ora_solo_rows() -> None:
    pairs = jobs_for(["carnival", "ora"], ["random", "greedy"], 3, 2, BUDGET, seed=2)
    assert [(p[0].game_id, p[0].vs, len(p)) for p in pairs] == [
        ("carnival", "random", 3), ("carnival", "greedy", 3), ("ora", "random", 3), ("ora", "greedy", 3),
        ("ora", "solo-ai", 2), ("ora", "solo-random", 2), ("ora", "solo-greedy", 2)]
    assert [(j.seed, j.ai_seat) for j in pairs[0]] == [(200006, 0), (200007, 1), (200008, 0)]
    assert [(j.players, j.ai_seat, j.opponent) for j in pairs[5]] == [(1, None, "random")] * 2


def test_the_next_game_goes_to_the_pair_with_the_least_cpu_and_finished_games_are_skipped() -> None:
    pairs = jobs_for(["carnival", "eguan"], ["random"], 3, 0, BUDGET, seed=1)
    cost = {"carnival": 1.0, "eguan": 2.5}
    played: list[tuple[str, int]] = []

    def run(job: Job) -> GameResult:
        return GameResult(1.0, 0.0, cpu=cost[job.game_id])

    def sink(job: Job, result: GameResult) -> None:
        played.append((job.game_id, job.seed))

    done = [record(pairs[0][0], GameResult(1.0, 0.0, cpu=1.0))]
    schedule(pairs, done, 1, sink, run=run)
    # carnival has 1.0 s done: eguan (0) first, then carnival (1.0 < 2.5), carnival (2.0 < 2.5), eguan...
    assert played == [("eguan", 100003), ("carnival", 100004), ("carnival", 100005), ("eguan", 100004),
                      ("eguan", 100005)]


def test_results_lines_round_trip_and_a_torn_line_is_skipped(tmp_path: Path) -> None:
    job = jobs_for(["heaven"], ["greedy"], 1, 0, BUDGET, seed=1)[0][0]
    line = record(job, GameResult(0.5, 5.0, think=[0.12345, 0.2], iterations=10, cpu=3.21, moves=40))
    assert line == {"game": "heaven", "vs": "greedy", "players": 4, "seed": 100003, "ai_seat": 0,
                    "iterations": 5, "share": 0.5, "score": 5.0, "think": [0.1235, 0.2], "iters": 10,
                    "cpu": 3.21, "moves": 40}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(line) + "\n" + '{"game": "heav', encoding="utf-8")
    assert read_records([str(path), str(tmp_path / "missing.jsonl")]) == [line]


def test_the_report_counts_shares_and_marks_the_goal() -> None:
    def rec(share: float, vs: str = "random", score: float = 0.0) -> dict[str, object]:
        return {"game": "carnival", "vs": vs, "players": 2, "seed": 1, "ai_seat": 0, "iterations": 120,
                "share": share, "score": score, "think": [0.5, 1.0], "iters": 240, "cpu": 10.0, "moves": 9}

    rows = [rec(1.0)] * 9 + [rec(0.5)] + [rec(0.0, "greedy")] * 4
    lo, hi = wilson(9.5, 10)
    text = report(rows).splitlines()
    assert text[1].split() == ["carnival", "random", "120", "10", "95.0%", f"[{100 * lo:.0f},", f"{100 * hi:.0f}]",
                               "ok?", "0.750", "1.000", "160", "10"]
    assert text[2].split()[:7] == ["carnival", "greedy", "120", "4", "0.0%", "[0,", "49]"]
    assert text[2].split()[7] == "no"
    markdown = report(rows, markdown=True).splitlines()
    assert markdown[2].startswith("| Carnival of Sins (2 p) | random | 120 | 10 | 95.0 | [")
    assert "| met, not significant |" in markdown[2] and "| missed, significant |" in markdown[3]


def test_the_goal_mark_says_whether_the_point_estimate_and_the_interval_reach_the_goal() -> None:
    def marks(wins: int, n: int) -> str:
        rows = [{"game": "eguan", "vs": "random", "players": 3, "seed": i, "ai_seat": 0, "iterations": 120,
                 "share": 1.0 if i < wins else 0.0, "score": 0.0, "think": [0.5], "iters": 1, "cpu": 1.0,
                 "moves": 9} for i in range(n)]
        return report(rows).splitlines()[1].split()[7]

    # 90 % goal: 35 of 35 has a lower bound of 90.1 %, 34 of 34 89.8 %, 36 of 40 (90 %) 77 %
    assert [marks(35, 35), marks(34, 34), marks(36, 40), marks(35, 40), marks(5, 10)] == [
        "ok", "ok?", "ok?", "no?", "no"]


def test_a_settled_pair_waits_for_the_unsettled_ones() -> None:
    pairs = jobs_for(["carnival", "eguan"], ["random"], 12, 0, BUDGET, seed=1)
    done = [record(job, GameResult(1.0, 0.0, cpu=0.1)) for job in pairs[0][:10]]  # 10 wins: settled
    done.append(record(pairs[1][0], GameResult(1.0, 0.0, cpu=50.0)))
    played: list[str] = []
    schedule(pairs, done, 1, lambda job, result: played.append(job.game_id),
             run=lambda job: GameResult(1.0, 0.0, cpu=50.0))
    assert played == ["eguan"] * 9 + ["carnival"] * 2 + ["eguan"] * 2


def test_the_cheapest_order_finishes_the_cheapest_unmet_goal_first_then_grows_evenly() -> None:
    pairs = jobs_for(["carnival", "eguan"], ["random", "greedy"], 40, 0, BUDGET, seed=1)
    cost = {("carnival", "random"): 1.0, ("carnival", "greedy"): 2.0, ("eguan", "random"): 3.0,
            ("eguan", "greedy"): 3.0}

    def won(job: Job) -> GameResult:
        return GameResult(1.0, 0.0, cpu=cost[job.game_id, job.vs])

    # carnival vs random 2 wins, eguan vs random 1, eguan vs greedy 12 (goal met: 76 % >= 60 %)
    done = [record(job, won(job)) for job in pairs[0][:2] + pairs[2][:1] + pairs[3][:12]]
    played: list[tuple[str, str]] = []
    schedule(pairs, done, 1, lambda job, result: played.append((job.game_id, job.vs)), run=won,
             order="cheapest")
    # carnival vs greedy has no game (0 s a game) first; then carnival vs random (1 s a game)
    # until 90 % is met (35 straight wins: 90.1 %), carnival vs greedy (2 s) until 60 % is
    # (6 wins: 61 %), eguan vs random (3 s) until 90 % is
    assert played[:1] == [("carnival", "greedy")]
    assert played[1:34] == [("carnival", "random")] * 33
    assert played[34:39] == [("carnival", "greedy")] * 5
    assert played[39:73] == [("eguan", "random")] * 34
    # then every goal is met: the fewest games first (carnival greedy 6 < eguan greedy 12), a
    # tie to the cheaper pair
    assert played[73:79] == [("carnival", "greedy")] * 6
    assert played[79:81] == [("carnival", "greedy"), ("eguan", "greedy")]
    assert len(played) == 160 - 15


def test_an_unknown_order_is_refused() -> None:
    pairs = jobs_for(["carnival"], ["random"], 1, 0, BUDGET, seed=1)
    try:
        schedule(pairs, [], 1, lambda job, result: None, run=lambda job: GameResult(1.0, 0.0), order="x")
    except ValueError as exc:
        assert "unknown order" in str(exc)
    else:
        raise AssertionError("no ValueError")


def test_ladder_jobs_split_the_seats_and_add_the_solo_levels() -> None:
    pairs = ladder_jobs(["eguan", "ora"], ["hard-normal", "normal-greedy"], 3, 2, BUDGET, seed=2,
                        solo_levels=("easy", "hard"))
    assert [(p[0].game_id, p[0].vs, p[0].level, p[0].opponent, p[0].split, len(p)) for p in pairs] == [
        ("eguan", "hard-normal", "hard", "normal", True, 3), ("eguan", "normal-greedy", "normal", "greedy", True, 3),
        ("ora", "hard-normal", "hard", "normal", True, 3), ("ora", "normal-greedy", "normal", "greedy", True, 3),
        ("ora", "solo-easy", "easy", "random", False, 2), ("ora", "solo-hard", "hard", "random", False, 2)]
    assert [(j.seed, j.ai_seat) for j in pairs[0]] == [(200006, 0), (200007, 1), (200008, 2)]


def test_a_blunder_gives_up_three_points_to_a_move_that_is_not_riskier() -> None:
    values = [(10.0, 0.0), (7.0, 0.0), (7.5, 2.0), (6.0, 4.0)]
    assert [is_blunder(values, i) for i in range(4)] == [False, True, False, True]
    assert not is_blunder([(10.0, 3.0), (6.0, 0.0)], 1)  # the better move is riskier


def test_a_split_game_counts_side_a_share_and_checks_the_normal_decisions() -> None:
    small = BUDGET
    result = play("carnival", 2, {}, 1, "random", small, 5, level="normal", split=True)
    assert result.share in (0.0, 0.5, 1.0)
    assert result.checked == len(result.think_by["normal"]) > 0
    assert 0 <= result.blunders <= result.checked and not result.cap
    again = play("carnival", 2, {}, 1, "random", small, 5, level="normal", split=True)
    assert (again.share, again.blunders, again.moves) == (result.share, result.blunders, result.moves)


def test_the_ladder_report_prints_the_pair_the_caps_blunders_think_times_and_seeds() -> None:
    def rec(seed: int, share: float, cap: bool = False, vs: str = "normal-easy") -> dict[str, object]:
        return {"game": "heaven", "vs": vs, "players": 4, "seed": seed, "ai_seat": 0, "iterations": 120,
                "share": share, "score": 6.0, "think": [1.0], "iters": 120, "cpu": 10.0, "moves": 90,
                "level": "normal", "cap": cap, "think_by": {"easy": [0.1, 0.3], "normal": [1.0, 2.5]},
                "cuts": {"normal": 1}, "checked": 10, "blunders": 1}

    rows = [rec(100003 + i, 1.0) for i in range(8)] + [rec(100011, 0.0, cap=True), rec(100013, 0.5)]
    text = ladder_report(rows).splitlines()
    lo, hi = wilson(8.5, 10)
    assert text[1].split() == ["heaven", "normal-easy", "10", "85.0%", f"[{100 * lo:.0f},", f"{100 * hi:.0f}]",
                               "ok?", "open", "15", "10%", "10.0%", "of", "100", "100003-100011,100013"]
    assert text[4].split() == ["heaven", "easy", "20", "0.200", "0.300", "0.300", "0.0%"]
    assert text[5].split() == ["heaven", "normal", "20", "1.750", "2.500", "2.500", "50.0%"]
    assert text[8].split() == ["heaven", "10", "10%", "90", "100", "10.0%", "-", "2.500"]
    decided_rows = ladder_report([rec(100003 + i, 1.0) for i in range(10)]
                                 + [{**rec(200003 + i, 0.0, vs="hard-normal"), "blunders_3": 2} for i in range(10)])
    lines = decided_rows.splitlines()
    assert lines[1].split()[6:8] == ["no", "missed"] and lines[1].split()[8] == "-"  # hard-normal: 0 of 10
    assert lines[2].split()[6:8] == ["ok", "met"] and lines[2].split()[8] == "-"  # normal-easy: 10 of 10
    assert lines[-1].split() == ["heaven", "20", "0%", "90", "200", "10.0%", "20.0%", "2.500"]


def test_games_needed_is_the_first_count_whose_interval_decides_the_goal() -> None:
    assert games_needed(0.85, 0.6) == 15
    assert decided(0.85 * 15, 15, 0.6) == "met" and decided(0.85 * 14, 14, 0.6) is None
    assert games_needed(0.5, 0.6) == 93
    assert decided(0.5 * 93, 93, 0.6) == "missed" and decided(0.5 * 92, 92, 0.6) is None
    assert games_needed(0.6, 0.6) is None


def test_a_sequential_run_stops_a_pair_once_its_interval_decides_the_goal() -> None:
    pairs = ladder_jobs(["carnival", "eguan"], ["normal-easy"], 40, 0, BUDGET, seed=1)
    share = {"carnival": 1.0, "eguan": 0.6}  # carnival: met after 10 games; eguan at its goal: never decided
    played: dict[str, int] = {}

    def run(job: Job) -> GameResult:
        return GameResult(share[job.game_id], 0.0, cpu=1.0)

    def sink(job: Job, result: GameResult) -> None:
        played[job.game_id] = played.get(job.game_id, 0) + 1

    schedule(pairs, [], 1, sink, run=run, sequential=True)
    assert played == {"carnival": SEQUENTIAL_MIN, "eguan": 40}
    played.clear()
    schedule(pairs, [], 1, sink, run=run)
    assert played == {"carnival": 40, "eguan": 40}


def test_a_close_call_is_measured_again_over_more_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three samples say the chosen move (index 0) gives up 4 points; 24 say 1: no blunder. A
    move 1 point short is not a close call and is not measured again."""
    calls: list[int] = []

    def fake(engine: object, state: object, seat: int, actions: list[object], rng: object,
             samples: int = 3) -> list[tuple[float, float]]:
        calls.append(samples)
        return [(0.0, 0.0), (gap if samples == 3 else 1.0, 0.0)]

    monkeypatch.setattr(ai_strength, "one_ply", fake)
    gap = 4.0
    assert check_blunder(ENGINES["carnival"], {}, 0, [{}, {}], 0, random.Random(0)) == (True, False)
    assert calls == [3, RECHECK_SAMPLES]
    calls.clear()
    gap = 1.0
    assert check_blunder(ENGINES["carnival"], {}, 0, [{}, {}], 0, random.Random(0)) == (False, False)
    assert calls == [3]
