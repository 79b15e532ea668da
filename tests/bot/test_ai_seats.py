"""AI seats in storage and the service: migration 007 on an old database,
seating and removing AIs in a lobby, the "at least one person" start rule, an AI move
applied like a player's, and seats handed to an AI (autopilot, replace, kick)."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.service import GameService, HostError, ai_name
from bot.storage import Repository
from engines.ai.worker import think
from engines.base import CHANCE

FIXTURE = Path(__file__).parent.parent / "fixtures" / "pre_shape_v1.db"
ANN, BO = 101, 102


@pytest.fixture
async def service(tmp_path):
    repo = Repository(str(tmp_path / "s.db"))
    await repo.open()
    svc = GameService(repo)
    yield svc
    await repo.close()


async def lobby(service: GameService, game_id: str = "heaven", host: int = ANN) -> int:
    record = await service.create_lobby(game_id=game_id, guild_id=1, channel_id=5, host_user_id=host,
                                        host_name="Ann", options=None, move_timeout=600)
    return record.id


async def test_migration_007_adds_ai_level_to_an_old_database(tmp_path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] < 7
        before = raw.execute("SELECT game, seat, user_id, name, status FROM seats ORDER BY game, seat").fetchall()
    repo = Repository(str(path))
    await repo.open()
    try:
        games = await repo.games(status=("active", "finished"))
        seats = [s for g in games for s in g.seats]
        assert seats and all(s.ai_level is None and not s.is_ai and not s.is_bot for s in seats)
        service = GameService(repo)
        active = next(g for g in games if g.status == "active")
        changed = await service.hand_to_ai(active.id, 1, "easy", None, reason="kick", new_bot=True)
        assert changed.seats[1].ai_level == "easy" and changed.seats[1].user_id < 0
        assert changed.seats[1].name == "Bot · Easy"
    finally:
        await repo.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] >= 7
        after = raw.execute("SELECT game, seat, user_id, name, status FROM seats ORDER BY game, seat").fetchall()
    assert len(after) == len(before)
    assert [row for row in after if row[0] != active.id] == [row for row in before if row[0] != active.id]


async def test_lobby_ai_seats_get_unique_negative_ids_and_keep_them_when_seats_renumber(service) -> None:
    game = await lobby(service, "carnival")
    await service.add_ai(game, "hard", ANN, is_moderator=False)
    await service.join(game, BO, "Bo")
    record = await service.add_ai(game, "easy", ANN, is_moderator=False)
    assert [(s.user_id, s.name, s.ai_level) for s in record.seats] == [
        (ANN, "Ann", None), (-1, "Bot · Hard", "hard"), (BO, "Bo", None), (-2, "Bot · Easy", "easy")]
    record = await service.leave(game, ANN)
    assert [(s.seat, s.user_id, s.ai_level) for s in record.seats] == [
        (0, -1, "hard"), (1, BO, None), (2, -2, "easy")]
    record = await service.add_ai(game, "normal", BO, is_moderator=True)
    assert record.seats[-1].user_id == -3 and record.seats[-1].name == ai_name("normal")
    record = await service.remove_ai(game, BO, is_moderator=True)
    assert [s.user_id for s in record.seats] == [-1, BO, -2]


async def test_only_the_host_or_a_moderator_seats_an_ai_and_only_known_levels(service) -> None:
    game = await lobby(service)
    with pytest.raises(HostError) as err:
        await service.add_ai(game, "easy", BO, is_moderator=False)
    assert err.value.code == "forbidden"
    with pytest.raises(HostError) as err:
        await service.add_ai(game, "godlike", ANN, is_moderator=False)
    assert err.value.code == "bad_level" and "godlike" in err.value.message
    with pytest.raises(HostError) as err:
        await service.remove_ai(game, ANN, is_moderator=False)
    assert err.value.code == "no_ai"


async def test_start_refuses_a_table_of_ais_only(service) -> None:
    game = await lobby(service, "canterbury")  # 2–3 players
    await service.add_ai(game, "easy", ANN, is_moderator=False)
    await service.add_ai(game, "easy", ANN, is_moderator=False)
    await service.leave(game, ANN)
    with pytest.raises(HostError) as err:
        await service.start(game, -1, is_moderator=True)
    assert err.value.code == "ai_seats"
    assert err.value.message == ("The Road to Canterbury needs at least one person at the table: at most 1 of its 2 "
                                 "seats can be AI players.")


async def test_an_ai_move_is_applied_like_a_players_and_tells_the_listeners(service) -> None:
    game = await lobby(service, "illumination")
    await service.add_ai(game, "easy", ANN, is_moderator=False)
    seen: list[int] = []
    service.listeners.append(seen.append)
    result = await service.start(game, ANN, is_moderator=False)
    assert seen == [game]
    record = result.game
    engine = service.engine(record)
    for _ in range(40):  # play the person randomly until the AI seat is waited for
        if 1 in service.waiting(record):
            break
        state = service.state(record)
        seat = min(service.waiting(record))
        action = random.Random(record.version).choice(engine.legal_actions(state, seat))
        record = (await service.act(game, ANN, action)).game
    assert 1 in service.waiting(record)
    action = think(record.game_id, record.state or {}, 1, "easy", "t", iterations=3)
    with pytest.raises(HostError) as err:
        await service.act_for_seat(game, 0, action, expected_version=record.version)
    assert err.value.code == "not_ai"
    with pytest.raises(HostError) as err:
        await service.act_for_seat(game, 1, action, expected_version=record.version - 1)
    assert err.value.code == "stale"
    result = await service.act_for_seat(game, 1, action, expected_version=record.version)
    entry = result.entries[0]
    assert (entry.kind, entry.seat, entry.user_id, entry.action) == ("player", 1, -1, action)
    assert await service.replay_matches(game)
    assert all(s != CHANCE for s in result.waiting_after)


async def test_seats_handed_to_an_ai_keep_a_person_at_the_table(service) -> None:
    game = await lobby(service, "canterbury")
    await service.join(game, BO, "Bo")
    await service.start(game, ANN, is_moderator=False)
    record = await service.hand_to_ai(game, 0, "hard", ANN, reason="autopilot", new_bot=False)
    assert (record.seats[0].user_id, record.seats[0].name, record.seats[0].ai_level) == (ANN, "Ann", "hard")
    with pytest.raises(HostError) as err:
        await service.hand_to_ai(game, 1, "easy", ANN, reason="replace", new_bot=True)
    assert err.value.code == "ai_seats"
    record = await service.hand_to_ai(game, 0, None, ANN, reason="autopilot", new_bot=False)
    assert record.seats[0].ai_level is None and record.seat_of(ANN) == 0
    record = await service.hand_to_ai(game, 1, "normal", ANN, reason="replace", new_bot=True)
    assert (record.seats[1].user_id, record.seats[1].name) == (-1, "Bot · Normal")
    assert record.seat_of(BO) is None
    log = await service.repo.log(game)
    assert [e.action["reason"] for e in log if e.action.get("type") == "ai_seat"] == [
        "autopilot", "autopilot", "replace"]
    record = await service.replace(game, 1, BO, "Bo", ANN)  # a person takes the AI's seat back
    assert (record.seats[1].user_id, record.seats[1].ai_level) == (BO, None)
    assert await service.replay_matches(game)


async def test_a_resumed_game_tells_the_listeners_and_a_paused_one_refuses_ai_moves(service) -> None:
    game = await lobby(service, "illumination")
    await service.add_ai(game, "easy", ANN, is_moderator=False)
    record = (await service.start(game, ANN, is_moderator=False)).game
    seen: list[int] = []
    service.listeners.append(seen.append)
    record = await service.set_paused(game, True, ANN)
    assert seen == []
    with pytest.raises(HostError) as err:
        await service.act_for_seat(game, 1, {"type": "pass"}, expected_version=record.version)
    assert err.value.code == "paused"
    await service.set_paused(game, False, ANN)
    assert seen == [game]


def test_ais_of_the_same_level_are_numbered_and_others_keep_their_names() -> None:
    from bot.service import seat_names
    from bot.storage import GameRecord, SeatRecord

    seats = (SeatRecord(1, 0, 111, "bob"), SeatRecord(1, 1, -1, "Bot · Easy", ai_level="easy"),
             SeatRecord(1, 2, -2, "Bot · Hard", ai_level="hard"), SeatRecord(1, 3, -3, "Bot · Easy", ai_level="easy"),
             SeatRecord(1, 4, 222, "carol", ai_level="normal"))               # carol on autopilot keeps her name
    record = GameRecord(id=1, game_id="heaven", guild_id=1, channel_id=2, thread_id=None, board_channel_id=None,
                        board_message_id=None, lobby_message_id=None, host_user_id=111, status="active",
                        paused=False, seed=1, options={}, players=5, state={}, version=1, move_timeout=3600,
                        deadline=None, reminded=0, waiting=[0], deadline_window=None, created_at=0.0,
                        updated_at=0.0, seats=seats)
    assert seat_names(record) == ["bob", "Bot · Easy 1", "Bot · Hard", "Bot · Easy 2", "carol"]
    easy = ai_name("easy", "ja")
    assert seat_names(record, "ja")[1::2] == [f"{easy} 1", f"{easy} 2"] and easy != "Bot · Easy"


def test_new_ais_take_the_next_number_of_their_level_and_old_logs_name_current_holders() -> None:
    from bot.service import names_by_entry, next_ai_name
    from bot.storage import GameRecord, LogEntry, SeatRecord

    assert next_ai_name("easy", []) == "Bot · Easy"
    assert next_ai_name("easy", ["Bot · Easy", "Bot · Hard"]) == "Bot · Easy 2"
    assert next_ai_name("easy", ["Bot · Easy 2", "Bot · Hard 3"]) == "Bot · Easy 3"    # (never a number in use)
    assert next_ai_name("easy", ["Bot · Easy", "Bot · Easy"]) == "Bot · Easy 3"        # (an old database's pair)
    seats = (SeatRecord(1, 0, 111, "bob"), SeatRecord(1, 1, 333, "dave"))
    record = GameRecord(id=1, game_id="heaven", guild_id=1, channel_id=2, thread_id=None, board_channel_id=None,
                        board_message_id=None, lobby_message_id=None, host_user_id=111, status="active",
                        paused=False, seed=1, options={}, players=2, state={}, version=4, move_timeout=3600,
                        deadline=None, reminded=0, waiting=[0], deadline_window=None, created_at=0.0,
                        updated_at=0.0, seats=seats)
    log = [LogEntry(1, "player", 1, {}), LogEntry(2, "system", None, {"type": "replace", "seat": 1, "old_user": -1,
                                                                     "new_user": 222}),   # (logged before old_name)
           LogEntry(3, "player", 1, {}), LogEntry(4, "system", None, {
               "type": "replace", "seat": 1, "old_user": 222, "new_user": 333, "old_name": "carol", "old_level": None})]
    names = names_by_entry(record, log, "ja")
    assert [names[seq] for seq in (1, 2, 3, 4)] == [["bob", "carol"], ["bob", "carol"], ["bob", "carol"],
                                                    ["bob", "dave"]]
    names = names_by_entry(record, [*log, LogEntry(5, "system", None, {
        "type": "ai_seat", "seat": 0, "level": "hard", "old_user": -1, "old_name": "Bot · Easy 2",
        "old_level": "easy"})], "ja")
    assert names[1][0] == f"{ai_name('easy', 'ja')} 2" and names[5] == ["bob", "dave"]
