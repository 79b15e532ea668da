"""``bot.service.live_entries``: the one reading of a log with undo entries (DESIGN §4: undo
appends, it never deletes) that every replay, line and digest path uses."""

from __future__ import annotations

from bot.service import live_entries, undone_seqs
from bot.storage import LogEntry


def entry(seq: int, kind: str, action: dict[str, object], seat: int | None = 0) -> LogEntry:
    return LogEntry(seq, kind, seat, action)


def test_the_entries_an_undo_took_back_are_left_out_in_order() -> None:
    log = [entry(1, "system", {"type": "start", "players": 2}, None), entry(2, "player", {"type": "a"}),
           entry(3, "chance", {"type": "roll"}, -1), entry(4, "player", {"type": "b"}, 1),
           entry(5, "system", {"type": "undo", "seqs": [4]}, None), entry(6, "player", {"type": "c"}, 1)]
    assert [e.seq for e in live_entries(log)] == [1, 2, 3, 5, 6]
    assert undone_seqs(log) == frozenset({4})
    assert [e.seq for e in live_entries(iter(log[:4]))] == [1, 2, 3, 4]  # (an undo later in the log: not yet)
    assert live_entries([]) == []
