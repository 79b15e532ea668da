"""``/game log``'s lines of system entries (``bot.ui.notices.system_line``): a moderator's
act and a seat changing hands name the seat and the players from the entry itself (its
``old_name``/``old_level``, ``bot.service.holder_entry``), escaped for Discord; an entry
logged before old holders were kept names a person by mention (an AI not at all); other
system entries and broken shapes give no line."""

from __future__ import annotations

from typing import Any

import pytest

from bot.storage import LogEntry
from bot.text import Texts
from bot.ui.notices import system_line

NOW = Texts("carnival", ["ann", "dave_*x*", "Bot · Normal"], "en", markdown=True)
"""The names as of the entry: seat B is dave now, seat C an AI."""


def line(action: dict[str, Any], tx: Texts = NOW) -> str | None:
    return system_line(LogEntry(7, "system", None, action, user_id=1), tx)


def test_a_replace_names_the_seat_the_old_and_the_new_player() -> None:
    assert line({"type": "replace", "seat": 1, "old_user": 5, "new_user": 6, "old_name": "b*o*b",
                 "old_level": None}) == "🛡 A moderator gave seat B (b\\*o\\*b) to dave\\_\\*x\\*."
    assert line({"type": "ai_seat", "seat": 2, "level": "normal", "reason": "replace", "old_user": 9,
                 "old_name": "Bot · Easy 2", "old_level": "easy"}) == (
        "🛡 A moderator gave seat C (Bot · Easy 2) to Bot · Normal.")
    assert line({"type": "ai_seat", "seat": 2, "level": "normal", "reason": "kick", "old_user": 9,
                 "old_name": "carol", "old_level": None}) == (
        "🛡 A moderator removed carol from seat C; Bot · Normal plays it from now on.")


def test_an_entry_logged_before_old_holders_were_kept_names_a_person_by_mention_only() -> None:
    assert line({"type": "replace", "seat": 1, "old_user": 5, "new_user": 6}) == (
        "🛡 A moderator gave seat B (<@5>) to dave\\_\\*x\\*.")
    assert line({"type": "replace", "seat": 1, "old_user": -3, "new_user": 6}) == (
        "🛡 A moderator gave seat B to dave\\_\\*x\\*.")


def test_kicks_autopilot_and_the_moderators_acts_in_another_language() -> None:
    ja = Texts("carnival", ["ann", "dave", "Bot"], "ja", markdown=True, strict=True)
    assert line({"type": "kick", "seat": 0, "user": 1}, ja) == (
        "🛡 モデレーターが ann を席 A から外しました。以後その席は自動で進みます。")
    assert line({"type": "ai_seat", "seat": 1, "level": "hard", "reason": "autopilot", "old_user": 2}, ja) == (
        "🤖 dave が席 B をオートパイロット（むずかしい）にしました。")
    assert line({"type": "end", "reason": ""}, ja) == "🛡 モデレーターがゲームを終了しました。"
    assert line({"type": "kick", "seat": 0, "user": 1, "abandoned": True}) == (
        "🛡 A moderator removed ann from seat A; only AI players were left, so the game ended as abandoned.")
    assert line({"type": "ai_seat", "seat": 1, "level": None, "reason": "autopilot", "old_user": 2}) == (
        "🙋 dave\\_\\*x\\* took seat B back from autopilot.")


@pytest.mark.parametrize("action", [{"type": "start", "players": 3}, {"type": "undo", "seqs": [3]},
                                    {"type": "replace", "seat": 9, "old_user": 5}, {"type": "kick"}])
def test_other_system_entries_and_broken_shapes_give_no_line(action: dict[str, Any]) -> None:
    assert line(action) is None
