"""The host's result of a finished game (bot/service.py ``table_outcome``, ``ranks``;
docs/DESIGN.md §4 "Resign"): a seat that left ranks after every seat that stayed and never
wins; when the engine's winners all left, the best seats that stayed win."""

from __future__ import annotations

from bot.service import ranks, table_outcome
from bot.storage import GameRecord, SeatRecord
from bot.ui.notices import ranking_lines
from engines.base import Msg, Outcome

GAME = 7


def record(statuses: list[str]) -> GameRecord:
    seats = tuple(SeatRecord(GAME, i, 100 + i, name, status)
                  for i, (name, status) in enumerate(zip(["ann", "bo", "cy", "dave"], statuses, strict=False)))
    return GameRecord(id=GAME, game_id="carnival", guild_id=1, channel_id=2, thread_id=None, board_channel_id=None,
                      board_message_id=None, lobby_message_id=None, host_user_id=100, status="finished",
                      paused=False, seed=1, options={}, players=len(seats), state={}, version=9,
                      move_timeout=3600, deadline=None, reminded=0, waiting=[], deadline_window=None,
                      created_at=0.0, updated_at=0.0, seats=seats)


WON = Msg("reason.wins", {"seat": {"seat": 3}, "points": 40})


def test_a_resigned_winner_ranks_last_and_the_best_who_stayed_wins() -> None:
    engine = Outcome((10.0, 25.0, 25.0, 40.0), (3, 1, 2, 0), frozenset({3}), WON)
    table = table_outcome(record(["active", "active", "active", "left"]), engine)
    assert table.ranking == (1, 2, 0, 3)
    assert table.winners == frozenset({1, 2})                   # bo and cy tie on 25: both win
    assert table.scores == engine.scores
    assert table.reason == Msg("table.won_after_leaving", {"winners": {"seats": [1, 2]}})
    assert ranks(table, frozenset({3})) == [3, 1, 1, 4]


def test_a_resigned_loser_only_moves_down_and_the_reason_stays() -> None:
    engine = Outcome((30.0, 20.0, 20.0), (0, 1, 2), frozenset({0}), WON)
    table = table_outcome(record(["active", "left", "active"]), engine)
    assert (table.ranking, table.winners, table.reason) == ((0, 2, 1), frozenset({0}), WON)
    assert ranks(table, frozenset({1})) == [1, 3, 2]           # cy's 20 no longer ties with bo's
    assert ranks(table) == [1, 2, 2]


def test_nobody_or_everybody_left_keeps_the_engines_outcome() -> None:
    engine = Outcome((5.0, 9.0), (1, 0), frozenset({1}), WON)
    assert table_outcome(record(["active", "active"]), engine) is engine
    assert table_outcome(record(["left", "left"]), engine) is engine


def test_the_end_message_gives_players_tied_on_score_one_place() -> None:
    """Heaven: the winner on the Gate, four pawns on space 5, one on 0 were numbered
    1-6; its spec (docs/rules/heaven.md §8) ranks only the winners and ties share."""
    outcome = Outcome((0.0, 5.0, 6.0, 5.0, 5.0, 5.0), (2, 1, 3, 4, 5, 0), frozenset({2}), WON)
    assert ranking_lines(outcome, lambda seat: "ABCDEF"[seat]) == [
        "1. C — 6 👑", "2. B — 5", "2. D — 5", "2. E — 5", "2. F — 5", "6. A — 0"]
    left = Outcome((30.0, 20.5, 20.5), (0, 2, 1), frozenset({0}), WON)     # a seat that left: after, own place
    assert ranking_lines(left, str, frozenset({1})) == ["1. 0 — 30 👑", "2. 2 — 20.5", "3. 1 — 20.5"]


def test_the_drawn_board_view_names_the_seats_that_left() -> None:
    """bot.service.drawn_view: the board's view gains ``left`` (the seats that left, in order)
    when any did, and is the shared view itself when none did."""
    from bot.service import drawn_view

    public = {"players": 4, "phase": "choose"}
    assert drawn_view(record(["active"] * 4), public) is public
    drawn = drawn_view(record(["active", "left", "active", "left"]), public)
    assert drawn == {"players": 4, "phase": "choose", "left": [1, 3]}
    assert "left" not in public  # (the shared view is not changed)
