"""The outbox rows as types (bot/outbox.py): every payload the service and the repository
write reads as its row type and writes back to the very same JSON, so the stored format is
unchanged; a kind this build does not know reads as None."""

from __future__ import annotations

from typing import Any

import pytest

from bot.outbox import AnswerRow, BoardRow, EndRow, LinesRow, NoticeRow, PingRow, typed
from bot.service import notice_payload, notice_rows, plan_deliveries
from bot.storage import OutboxRow
from engines.base import Event, Msg, Outcome


def stored(kind: str, version: int, payload: dict[str, Any]) -> OutboxRow:
    return OutboxRow(id=1, game=7, version=version, kind=kind, payload=payload, nonce="n", attempts=0,
                     created_at=0.0)


def test_every_row_a_change_plans_reads_as_its_type_and_writes_back_the_same_payload() -> None:
    answer = {"token": "tok", "app": 99, "user": 1234, "text": "greed d20", "at": 1.5}
    public = (Event("rolled", params={"n": 3}),)
    items = plan_deliveries(4, 6, public, frozenset({0}), frozenset({1}), None, True, answer=answer,
                            movers=frozenset({1}))
    items += plan_deliveries(6, 7, public, frozenset({1}), frozenset(),
                             Outcome(scores=(1.0, 2.0), ranking=(1, 0), winners=frozenset({1}),
                                     reason=Msg("host.over")), True)
    items += notice_rows(8, notice_payload(Msg("ui.notice.replaced", {"letter": "B"}), mentions=[5], turn=(1, 5)))
    items += notice_rows(9, notice_payload(Msg("ui.notice.paused")))
    kinds = []
    for item in items:
        row = typed(stored(item.kind, item.version, item.payload))
        assert row is not None and row.kind == item.kind and row.version == item.version
        assert row.payload() == item.payload
        kinds.append(type(row))
    assert kinds == [LinesRow, BoardRow, PingRow, AnswerRow, LinesRow, BoardRow, EndRow, NoticeRow, NoticeRow]


def test_the_rows_carry_their_fields() -> None:
    ping = typed(stored("ping", 5, {"seats": [2, 0], "after": 3, "movers": [1]}))
    assert ping == PingRow(ping.row, seats=(2, 0), after=3, movers=(1,), reminder=0)  # type: ignore[union-attr]
    reminder = typed(stored("ping", 5, {"seats": [0, 2], "reminder": 2}))
    assert isinstance(reminder, PingRow) and reminder.reminder == 2 and reminder.after is None
    assert reminder.payload() == {"seats": [0, 2], "reminder": 2}
    notice = typed(stored("notice", 3, {"msgs": [["ui.notice.kicked", {"letter": "A"}]], "mentions": [9],
                                        "turn": [0, 9]}))
    assert isinstance(notice, NoticeRow)
    assert notice.msgs == (("ui.notice.kicked", {"letter": "A"}),) and notice.mentions == (9,) and notice.turn == (0, 9)


def test_an_unknown_kind_is_none_and_an_answer_without_its_user_is_refused() -> None:
    assert typed(stored("fanfare", 1, {})) is None
    with pytest.raises(KeyError):
        typed(stored("answer", 1, {"token": "t"}))
