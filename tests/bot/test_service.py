"""The game service (design §4, §7.4): lobby to end, chance sampling, exactly-once
application under concurrency, stale versions, timeouts, moderation, replay."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import GameService, HostError
from bot.storage import Repository
from engines.base import CHANCE, IllegalAction, InvalidOptions, NotYourTurn
from engines.registry import get

ANN, BO, CY = 101, 102, 103


@pytest.fixture
async def service(database_url):
    now = [10_000.0]
    repo = Repository(database_url, clock=lambda: now[0])
    await repo.open()
    svc = GameService(repo, clock=lambda: now[0])
    svc.now = now  # type: ignore[attr-defined]
    yield svc
    await repo.close()


async def started(service: GameService, players=(ANN, BO, CY), game_id="carnival", options=None):
    lobby = await service.create_lobby(game_id=game_id, guild_id=1, channel_id=5, host_user_id=players[0],
                                       host_name="Ann", options=options, move_timeout=600)
    for uid in players[1:]:
        await service.join(lobby.id, uid, f"u{uid}")
    return await service.start(lobby.id, players[0], is_moderator=False)


async def test_start_samples_opening_chance_and_waits_for_every_picker(service: GameService) -> None:
    result = await started(service)
    game = result.game
    assert game.status == "active" and game.players == 3
    # start (system), first_devil and roll (chance) are in the log
    log = await service.repo.log(game.id)
    assert [e.kind for e in log] == ["system", "chance", "chance"]
    assert game.version == 3
    assert result.waiting_after == frozenset({0, 1, 2})
    assert game.deadline == 10_600.0 and game.waiting == [0, 1, 2]
    assert await service.replay_matches(game.id)


async def test_a_game_for_exactly_two_says_it_needs_2_players_not_2_to_2(service: GameService) -> None:
    lobby = await service.create_lobby(game_id="illumination", guild_id=1, channel_id=5, host_user_id=ANN,
                                       host_name="Ann", options=None, move_timeout=600)
    with pytest.raises(HostError, match="needs 2 players; the lobby has 1") as refused:
        await service.start(lobby.id, ANN, is_moderator=False)
    assert "2–2" not in str(refused.value)


async def test_lobby_rules(service: GameService) -> None:
    lobby = await service.create_lobby(game_id="carnival", guild_id=1, channel_id=5, host_user_id=ANN,
                                       host_name="Ann", options=None, move_timeout=600)
    with pytest.raises(HostError, match="needs 2–5 players"):
        await service.start(lobby.id, ANN, is_moderator=False)
    await service.join(lobby.id, BO, "Bo")
    with pytest.raises(HostError, match="Only the host or a moderator"):
        await service.start(lobby.id, BO, is_moderator=False)
    result = await service.start(lobby.id, BO, is_moderator=True)
    assert result.game.status == "active"
    with pytest.raises(HostError, match="closed"):
        await service.join(lobby.id, CY, "Cy")
    with pytest.raises(InvalidOptions, match="table_model"):
        await service.create_lobby(game_id="carnival", guild_id=1, channel_id=5, host_user_id=ANN,
                                   host_name="Ann", options={"table_model": "square"}, move_timeout=60)
    with pytest.raises(HostError, match="unknown game"):
        await service.create_lobby(game_id="chess", guild_id=1, channel_id=5, host_user_id=ANN,
                                   host_name="Ann", options=None, move_timeout=60)


async def test_act_refusals_change_nothing(service: GameService) -> None:
    game = (await started(service)).game
    with pytest.raises(HostError, match="not playing"):
        await service.act(game.id, 999, "choose lust")
    with pytest.raises(IllegalAction):
        await service.act(game.id, ANN, "choose chess")
    with pytest.raises(HostError, match="moved on"):
        await service.act(game.id, ANN, "choose lust", expected_version=game.version - 1)
    after = await service.get(game.id)
    assert after.version == game.version and after.state == game.state
    assert await service.repo.count_actions(game.id) == 3


async def test_concurrent_identical_clicks_apply_exactly_once(service: GameService) -> None:
    game = (await started(service, players=(ANN, BO))).game
    engine = get("carnival")
    state = service.state(game)
    action = engine.legal_actions(state, 0)[0]
    outcomes = await asyncio.gather(
        *(service.act(game.id, ANN, action, expected_version=game.version) for _ in range(2)),
        return_exceptions=True)
    assert sum(not isinstance(o, Exception) for o in outcomes) == 1
    assert [type(o).__name__ for o in outcomes if isinstance(o, Exception)] == ["HostError"]
    assert await service.repo.count_actions(game.id) == game.version + 1


async def test_simultaneous_choices_all_taken_once_and_phase_resolves_once(service: GameService) -> None:
    game = (await started(service)).game
    results = await asyncio.gather(service.act(game.id, ANN, "choose envy"),
                                   service.act(game.id, BO, "choose envy"),
                                   service.act(game.id, CY, "choose envy"))
    log = await service.repo.log(game.id)
    picks = [e for e in log if e.kind == "player"]
    assert [(e.seat, e.action) for e in picks] == [(0, {"type": "choose", "sin": "envy"}),
                                                   (1, {"type": "choose", "sin": "envy"}),
                                                   (2, {"type": "choose", "sin": "envy"})]
    # only the last pick's call ran the reveal; every seat revealed exactly once in round 1
    reveals = [ev for e in log for ev in e.events if ev["kind"] == "reveal"]
    assert len(reveals) == 3
    assert results[-1].game.version == len(log)
    assert await service.replay_matches(game.id)


async def test_expire_plays_timeouts_exactly_once(service: GameService) -> None:
    game = (await started(service, players=(ANN, BO))).game
    await service.act(game.id, ANN, "choose greed")
    game = await service.get(game.id)
    assert game.waiting == [1]
    assert await service.expire(game.id, game.version) is None       # not due yet
    service.now[0] = game.deadline + 1                                # type: ignore[attr-defined]
    first, second = await asyncio.gather(service.expire(game.id, game.version),
                                         service.expire(game.id, game.version))
    assert (first is None) != (second is None)
    result = first or second
    assert result.events[0].kind == "timeout" and "Bo" not in result.events[0].text
    log = await service.repo.log(game.id)
    timeouts = [e for e in log if e.kind == "player" and e.user_id is None]
    assert len(timeouts) == 1 and timeouts[0].seat == 1
    # the random pick is a chance entry right after
    assert log[log.index(timeouts[0]) + 1].kind == "chance"
    assert await service.replay_matches(game.id)


async def test_every_seat_whose_time_ran_out_is_played_not_given_a_new_window(service: GameService) -> None:
    """Three secret picks time out together. Each seat's random pick waits behind a chance entry,
    so one pass of the clock plays one seat; the others keep the expired deadline and the next
    passes play them, instead of a fresh window for each in turn."""
    game = (await started(service)).game
    assert game.waiting == [0, 1, 2]
    deadline = game.deadline
    service.now[0] = deadline + 1                                     # type: ignore[attr-defined]
    waiting = []
    version = game.version
    while (result := await service.expire(game.id, version)) is not None and result.game.deadline == deadline:
        waiting.append(result.game.waiting)
        version = result.game.version
    assert waiting == [[1, 2], [2]]
    assert result is not None and result.game.deadline != deadline   # (the picks are over: a new decision)
    log = await service.repo.log(game.id)
    assert [e.seat for e in log if e.kind == "player" and e.user_id is None] == [0, 1, 2]
    assert await service.replay_matches(game.id)


async def test_whole_game_to_the_end_and_replay(service: GameService) -> None:
    game = (await started(service)).game
    engine = get("carnival")
    steps = 0
    while game.status == "active":
        state = service.state(game)
        movers = sorted(engine.to_move(state) - {CHANCE})
        seat = movers[0]
        action = engine.legal_actions(state, seat)[-1]
        result = await service.act(game.id, game.user_of(seat), action, expected_version=game.version)
        game = result.game
        steps += 1
        assert steps < 500
    assert game.status == "finished" and result.outcome is not None
    assert game.deadline is None
    assert await service.replay_matches(game.id)
    with pytest.raises(HostError, match=r"Carnival of Sins \(罪のカーニバル\) #\d+ is over; its result is in <#5>\."):
        await service.act(game.id, ANN, "choose lust")


async def test_moderation_end_replace_kick(service: GameService) -> None:
    game = (await started(service)).game
    with pytest.raises(HostError, match="already plays"):
        await service.replace(game.id, 1, CY, "Cy", by_user=ANN)
    game = await service.replace(game.id, 1, 555, "Newbie", by_user=ANN)
    assert game.user_of(1) == 555 and game.seat_of(BO) is None
    await service.act(game.id, 555, "choose greed")
    # kicking a player: their pending decisions are played automatically
    result = await service.kick(game.id, CY, by_user=ANN)
    game = result.game
    assert 2 not in result.waiting_after
    log = await service.repo.log(game.id)
    assert [e.action["type"] for e in log if e.kind == "system"] == ["start", "replace", "kick"]
    ended = await service.end(game.id, by_user=ANN, reason="test")
    assert ended.status == "abandoned"
    with pytest.raises(HostError, match="already over"):
        await service.end(game.id, by_user=ANN)
    with pytest.raises(HostError, match="^This game is already over[.]$"):  # (not "not playing in this running game")
        await service.kick(game.id, ANN, by_user=ANN)
    assert await service.replay_matches(game.id)


async def test_not_your_turn_from_engine_is_raised(service: GameService) -> None:
    game = (await started(service, players=(ANN, BO))).game
    engine = get("carnival")
    # play until exactly one seat is to move and the other has nothing to do
    def settled(state) -> bool:
        movers = engine.to_move(state)
        return len(movers) == 1 and not engine.legal_actions(state, 1 - min(movers))

    while not settled(service.state(game)):
        state = service.state(game)
        seat = min(engine.to_move(state))
        game = (await service.act(game.id, game.user_of(seat), engine.legal_actions(state, seat)[0])).game
    (mover,) = engine.to_move(service.state(game))
    idle_user = game.user_of(1 - mover)
    before = game.version
    with pytest.raises(NotYourTurn):
        await service.act(game.id, idle_user, {"type": "choose", "sin": "lust"})
    assert (await service.get(game.id)).version == before


async def test_a_changed_secret_pick_leaves_the_public_view_alone(service: GameService) -> None:
    game = (await started(service)).game
    first = await service.act(game.id, ANN, "choose greed")
    assert first.public_changed                      # "has picked" is public
    again = await service.act(game.id, ANN, "choose lust")
    assert not again.public_changed                  # nothing anyone else may see changed


async def test_a_version_is_parsed_once_and_a_replaced_snapshot_afresh(service: GameService) -> None:
    """Every read of a game at one version shares its parsed snapshot and its loaded
    engine state (``Snapshots``, ``GameService.state``); a snapshot replaced at the same version
    (``replace_snapshot``) is read as the new one, and a new version as its own."""
    game = (await started(service)).game
    one, two = await service.get(game.id), await service.get(game.id)
    assert one is not two and one.state is two.state
    assert service.state(one) is service.state(two) and service.state(one) == one.state
    changed = {**one.state, "round": 7}
    assert await service.repo.replace_snapshot(game.id, game.version, changed)
    three = await service.get(game.id)
    assert three.state == changed and three.state is not one.state
    assert service.state(three)["round"] == 7 and service.state(one)["round"] == one.state["round"]
    await service.repo.replace_snapshot(game.id, game.version, one.state)
    moved = await service.act(game.id, ANN, service.engine(one).legal_actions(service.state(one), 0)[0])
    assert moved.game.version > game.version and moved.game.state is not one.state
    assert service.state(moved.game) is not service.state(one)


async def test_act_on_the_record_the_caller_read_reads_the_game_no_more(service: GameService) -> None:
    game = (await started(service)).game
    reads = []
    read = service.repo.get_game

    async def counted(game_id: int):
        reads.append(game_id)
        return await read(game_id)
    service.repo.get_game = counted  # type: ignore[method-assign]
    result = await service.act(game.id, ANN, "choose envy", expected_version=game.version, record=game)
    assert reads == [] and result.game.version == game.version + 1
    assert [e.action for e in await service.repo.log(game.id, after=game.version)] == [
        {"type": "choose", "sin": "envy"}]


async def test_act_on_a_record_the_game_moved_past_is_judged_on_the_game_as_it_is(service: GameService) -> None:
    game = (await started(service)).game
    await service.act(game.id, BO, "choose envy")   # (the game moves on past ``game``)
    result = await service.act(game.id, ANN, "choose lust", expected_version=game.version, record=game)
    assert result.game.version == game.version + 2  # (stored after BO's pick, not refused as stale)
    picks = [(e.seat, e.action["sin"]) for e in await service.repo.log(game.id, after=game.version)]
    assert picks == [(1, "envy"), (0, "lust")]
    paused = await service.set_paused(game.id, True, ANN)
    with pytest.raises(HostError, match="paused"):  # (the stale record was not paused: the game is)
        await service.act(game.id, CY, "choose envy", record=game)
    assert (await service.get(game.id)).version == paused.version
