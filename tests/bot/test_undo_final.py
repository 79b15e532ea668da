"""``/game undo`` in a game whose rules make the caller's last action final
(``Engine.undoable``: Canterbury §5.11, Heaven §5.7, E Guan §5.5 let nothing be taken
back; Carnival's pick once everyone has picked) is refused with a sentence saying so
(``refusal.host.undo_final``), not with the host's conditions (``refusal.host.undo_now``),
which suggest an undo could come once they hold."""

from __future__ import annotations

import pytest

from bot.service import GameService, HostError
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import get
from tests.bot.test_undo_memo import new_game, repo  # noqa: F401,F811  (the fixture)


async def refusal(service: GameService, game: int, user: int) -> str:
    version = (await service.get(game)).version
    with pytest.raises(HostError) as refused:
        await service.undo(game, user)
    assert refused.value.code == "undo"
    assert (await service.get(game)).version == version
    assert refused.value.text("ja") != refused.value.message      # (translated)
    return refused.value.msg.key


@pytest.mark.parametrize(("game_id", "players"), [("canterbury", 2), ("heaven", 4), ("eguan", 3)])
async def test_a_game_without_undo_says_the_action_is_final(repo: Repository, game_id: str,  # noqa: F811
                                                           players: int) -> None:
    service = GameService(repo)
    users = list(range(11, 11 + players))
    game = await new_game(service, game_id, users)
    engine = get(game_id)
    record = await service.get(game)
    seat = min(engine.to_move(service.state(record)) - {CHANCE})
    user = next(s.user_id for s in record.seats if s.seat == seat)
    assert "undo_now" in await refusal(service, game, user)         # (nothing played yet: the host's conditions)
    await service.act(game, user, engine.legal_actions(service.state(record), seat)[0])
    assert "undo_final" in await refusal(service, game, user)


async def test_carnival_pick_changeable_then_final(repo: Repository) -> None:  # noqa: F811
    service = GameService(repo)
    alice, bob = 11, 12
    game = await new_game(service, "carnival", [alice, bob])
    state = service.state(await service.get(game))
    first = (await service.get(game)).seat_of(alice)
    assert first is not None
    await service.act(game, alice, {"type": "choose", "sin": state["hands"][first][0]})
    await service.act(game, bob, {"type": "choose", "sin": "wrath"})
    assert "undo_final" in await refusal(service, game, bob)


async def test_taking_back_a_step_the_table_never_saw_tells_the_table_nothing(repo: Repository) -> None:  # noqa: F811
    """Illumination's Pass… waits for the passer's own confirmation and shows the table
    nothing (its public view is unchanged); taking it back must not announce "took back
    their last action", which would tell the opponent a pass was considered. A public
    action taken back is still announced."""
    service = GameService(repo)
    users = [11, 12]
    game = await new_game(service, "illumination", users)
    engine = get("illumination")
    record = await service.get(game)
    state = service.state(record)
    while engine.to_move(state) - {CHANCE} and state["phase"] != "turn_start":
        seat = min(engine.to_move(state) - {CHANCE})
        user = next(s.user_id for s in record.seats if s.seat == seat)
        record = (await service.act(game, user, engine.legal_actions(state, seat)[0])).game
        state = service.state(record)
    seat = min(engine.to_move(state) - {CHANCE})
    user = next(s.user_id for s in record.seats if s.seat == seat)
    public = engine.player_view(state, None)
    record = (await service.act(game, user, {"type": "pass"})).game
    assert service.state(record)["phase"] == "confirm_pass"
    assert engine.player_view(service.state(record), None) == public
    result = await service.undo(game, user)
    (undo,) = [e for e in await repo.log(game) if e.action.get("type") == "undo"]
    assert (undo.events, result.events) == ([], [])
    assert service.state(result.game)["phase"] == "turn_start"
    activate = next(a for a in engine.legal_actions(service.state(result.game), seat) if a["type"] != "pass")
    await service.act(game, user, activate)
    result = await service.undo(game, user)
    assert [e.kind for e in result.events] == ["table.undo"]
