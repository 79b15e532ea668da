"""Ratings as players read them (bot/ui/table.py ``shown_rating``, ``leaderboard_lines``,
``stats_lines``): openskill's ordinal on a chess-like scale (1500 + 20 · ordinal, rounded), a
``?`` while provisional, what the numbers mean, and counts with their plural forms in every
language (Babel's plural rules: "1 game", "2 games"; one form in Chinese and Japanese)."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from bot.text import host_sentence
from bot.ui.table import leaderboard_lines, shown_rating, stats_lines


def one_game() -> tuple[tuple[float, float], tuple[float, float]]:
    """(mu, sigma) of the winner and the loser of one two-player game between new players."""
    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]])
    return (won.mu, won.sigma), (lost.mu, lost.sigma)


def test_a_rating_is_shown_on_a_familiar_scale_and_marked_provisional_for_few_games() -> None:
    (wmu, wsig), (lmu, lsig) = one_game()
    assert round(lmu - 3 * lsig, 1) == -1.8  # (what was shown raw after one loss)
    assert shown_rating(25.0, 25 / 3, 0) == "1500?"
    assert shown_rating(wmu, wsig, 1) == "1569?"
    assert shown_rating(lmu, lsig, 1) == "1463?"
    assert shown_rating(lmu, lsig, 4) == "1463?"
    assert shown_rating(lmu, lsig, 5) == "1463"
    assert shown_rating(30.0, 2.0, 12) == "1980"  # (1500 + 20 · (30 − 6))


def test_the_leaderboard_after_one_game_reads_as_players_expect() -> None:
    (wmu, wsig), (lmu, lsig) = one_game()
    rows = [("carnival", 11, wmu, wsig, 1, 1), ("carnival", 22, lmu, lsig, 1, 0)]
    assert leaderboard_lines("carnival", rows, "en") == [
        "🏆 **Carnival of Sins (罪のカーニバル)** — this server's ratings",
        "1. <@11> — rating 1569? · 1 game · 1 win",
        "2. <@22> — rating 1463? · 1 game · 0 wins",
        "-# A rating starts at 1500 and moves after each finished game: up for finishing ahead of players, more so "
        "ahead of strong ones. It is a cautious estimate that rises as your results settle; ? marks one still "
        "provisional (fewer than 5 games).",
    ]
    assert leaderboard_lines("carnival", [], "en") == [
        "🏆 **Carnival of Sins (罪のカーニバル)** — this server's ratings",
        "No rated games yet: a game counts once it finishes normally."]
    assert leaderboard_lines("carnival", rows, "ja")[1:3] == [
        "1. <@11> — レート 1569? · 1 戦 · 1 勝", "2. <@22> — レート 1463? · 1 戦 · 0 勝"]


def test_a_members_stats_count_games_and_wins_in_the_right_plural() -> None:
    (wmu, wsig), _ = one_game()
    rows = [("carnival", 11, wmu, wsig, 1, 1), ("heaven", 11, 31.0, 3.0, 7, 2)]
    lines = stats_lines(11, rows, "en")
    assert lines[:3] == [
        "📊 <@11>: 8 rated games, 3 wins · favourite game: The Way to Heaven (天路)",
        "• The Way to Heaven (天路): rating 1940 · 7 games · 2 wins",
        "• Carnival of Sins (罪のカーニバル): rating 1569? · 1 game · 1 win",
    ]
    assert lines[3].startswith("-# A rating starts at 1500") and len(lines) == 4
    assert stats_lines(11, rows[:1], "en")[0] == (
        "📊 <@11>: 1 rated game, 1 win · favourite game: Carnival of Sins (罪のカーニバル)")
    assert stats_lines(11, rows[:1], "zh_TW")[1] == "• 罪之嘉年華：積分 1569? · 1 局 · 1 勝"


@pytest.mark.parametrize(("key", "params", "one", "two"), [
    ("ui.timer.hours", {}, "1 hour", "2 hours"),
    ("ui.timer.minutes", {}, "1 minute", "2 minutes"),
    ("ui.notice.mine_lobby", {}, "lobby (1 player)", "lobby (2 players)"),
    ("ui.notice.log_title", {"game": 4}, "📜 Log of game #4 (last 1 line)", "📜 Log of game #4 (last 2 lines)"),
    ("ui.error.lobby_full", {}, "The lobby is full (1 player).", "The lobby is full (2 players)."),
])
def test_host_counts_take_their_plural_form(key: str, params: dict[str, int], one: str, two: str) -> None:
    assert host_sentence(key, "en", n=1, **params) == one
    assert host_sentence(key, "en", n=2, **params) == two


def test_a_timer_of_one_hour_in_chinese_and_japanese_keeps_its_one_form() -> None:
    assert [host_sentence("ui.timer.hours", lang, n=1) for lang in ("zh_TW", "zh_CN", "ja")] == [
        host_sentence("ui.timer.hours", lang, n=2).replace("2", "1") for lang in ("zh_TW", "zh_CN", "ja")]
