"""``bot.ui.notices.answered_by_ais``: a player whose turn
comes back through the computer's moves only, minutes after their own move in this
process, is not pinged again (their parked panel is redrawn with the decision); anything
else in between, an old move, or a move before the restart pings."""

from __future__ import annotations

import dataclasses

from bot.storage import GameRecord, LogEntry, SeatRecord
from bot.ui.notices import DIGEST_ENTRIES, DIGEST_FIRST, answered_by_ais, digest_entries, last_turns
from bot.ui.parked import PARK_SECONDS

STARTED = 1000.0


def table(*seats: SeatRecord) -> GameRecord:
    return GameRecord(id=1, game_id="carnival", guild_id=1, channel_id=2, thread_id=None, board_channel_id=None,
                      board_message_id=None, lobby_message_id=None, host_user_id=111, status="active",
                      paused=False, seed=1, options={}, players=len(seats), state={}, version=9, move_timeout=3600,
                      deadline=None, reminded=0, waiting=[0], deadline_window=None, created_at=0.0,
                      updated_at=0.0, seats=seats)


ALICE, BOB = SeatRecord(1, 0, 111, "alice"), SeatRecord(1, 1, 222, "bob")
AI = SeatRecord(1, 1, -1, "Bot · Normal", ai_level="normal")


def move(seq: int, seat: int, user: int | None, at: float = STARTED + 10) -> LogEntry:
    return LogEntry(seq, "player", seat, {"type": "pride", "die": "d6"}, [], user_id=user, at=at)


def asks(record: GameRecord, entries: list[LogEntry], now: float = STARTED + 20) -> bool:
    return answered_by_ais(record, entries, 0, last_turns(record, entries), since=STARTED, now=now)


def test_a_turn_back_through_ai_moves_and_chance_only_is_not_pinged_again() -> None:
    record = table(ALICE, AI)
    chance = LogEntry(3, "chance", -1, {"type": "roll"}, [], at=STARTED + 11)
    assert asks(record, [move(1, 0, 111), move(2, 1, -1), chance, move(4, 1, -1)]) is True


def test_a_person_a_timeout_or_a_system_entry_in_between_pings() -> None:
    assert asks(table(ALICE, BOB), [move(1, 0, 111), move(2, 1, 222)]) is False              # bob, a person
    assert asks(table(ALICE, BOB), [move(1, 0, 111), move(2, 1, None)]) is False             # bob's timeout
    undo = LogEntry(3, "system", None, {"type": "undo", "seqs": [2]}, [], user_id=111, at=STARTED + 12)
    assert asks(table(ALICE, AI), [move(1, 0, 111), move(2, 1, -1), undo]) is False


def test_a_move_made_for_the_seat_an_old_move_or_one_before_the_restart_pings() -> None:
    record = table(ALICE, AI)
    assert asks(record, [move(1, 0, None), move(2, 1, -1)]) is False                      # alice's timeout
    assert asks(record, []) is False                                                       # never moved
    assert asks(record, [move(1, 0, 111), move(2, 1, -1)], now=STARTED + 10 + PARK_SECONDS) is False
    assert asks(record, [move(1, 0, 111), move(2, 1, -1)], now=STARTED + 9 + PARK_SECONDS) is True
    assert asks(record, [move(1, 0, 111, at=STARTED - 1), move(2, 1, -1)]) is False        # before the restart


def test_the_hosts_move_for_the_seat_by_its_preference_is_the_computers() -> None:
    record = table(ALICE, AI)
    auto = LogEntry(2, "player", 0, {"type": "end_turn"}, [{"kind": "auto", "params": {}}], at=STARTED + 10)
    assert asks(record, [move(1, 0, 111), auto, move(3, 1, -1)]) is True
    timeout = LogEntry(2, "player", 0, {"type": "end_turn"}, [{"kind": "timeout", "params": {}}], at=STARTED + 10)
    assert asks(record, [move(1, 0, 111), timeout, move(3, 1, -1)]) is False
    bobs = LogEntry(2, "player", 1, {"type": "end_turn"}, [{"kind": "auto", "params": {}}], at=STARTED + 10)
    assert asks(table(ALICE, BOB), [move(1, 0, 111), bobs]) is False  # (another person's, by their preference)


class Log:
    """A game's log of ``n`` entries, read as ``GameService.log`` reads it; the reads are noted."""

    def __init__(self, entries: list[LogEntry]) -> None:
        self.entries, self.reads = entries, []  # type: list[LogEntry], list[int]

    async def __call__(self, game: int, *, last: int, upto: int) -> list[LogEntry]:
        self.reads.append(last)
        return [e for e in self.entries if e.seq <= upto][-last:]


def log_of(moves: list[tuple[int, int]]) -> Log:
    return Log([move(seq, seat, user) for seq, (seat, user) in enumerate(moves, start=1)])


async def test_a_ping_reads_the_short_tail_when_it_holds_every_pinged_seats_last_move() -> None:
    record = dataclasses.replace(table(ALICE, BOB), version=100)
    log = log_of([(0, 111), (1, 222)] * 50)
    entries = await digest_entries(log, record, [0, 1])
    assert log.reads == [DIGEST_FIRST]
    assert [e.seq for e in entries] == list(range(101 - DIGEST_FIRST, 101))


async def test_a_ping_reads_far_back_when_a_pinged_seats_last_move_is_older_than_the_short_tail() -> None:
    record = dataclasses.replace(table(ALICE, BOB), version=100)
    log = log_of([(0, 111)] * 10 + [(1, 222)] * 90)  # (alice's last move: seq 10)
    entries = await digest_entries(log, record, [0])
    assert log.reads == [DIGEST_FIRST, DIGEST_ENTRIES]
    assert [e.seq for e in entries] == list(range(1, 101))
    assert last_turns(record, entries)[0] == 10


async def test_a_log_shorter_than_the_short_tail_is_read_once_whole() -> None:
    record = dataclasses.replace(table(ALICE, BOB), version=5)
    log = log_of([(1, 222)] * 5)  # (alice never moved)
    entries = await digest_entries(log, record, [0])
    assert log.reads == [DIGEST_FIRST]
    assert [e.seq for e in entries] == [1, 2, 3, 4, 5]
