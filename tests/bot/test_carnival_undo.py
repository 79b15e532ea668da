"""Carnival's own finality on top of the host's Undo checks (docs/rules/carnival.md §5.4,
``Engine.undoable``): a pick may be taken back while the others still pick; the last pick
starts the reveals and is final, although it revealed nothing hidden to its player."""

from __future__ import annotations

import pytest

from bot.service import GameService, HostError
from bot.storage import Repository
from engines.base import CHANCE
from engines.registry import get
from tests.bot.test_undo_memo import new_game, repo  # noqa: F401,F811  (the fixture)


async def test_a_pick_is_final_once_every_player_has_picked(repo: Repository) -> None:  # noqa: F811
    service = GameService(repo)
    alice, bob = 11, 12
    game = await new_game(service, "carnival", [alice, bob])
    engine = get("carnival")
    record = await service.get(game)
    state = service.state(record)
    assert state["phase"] == "choose" and engine.to_move(state) - {CHANCE} == {0, 1}
    first, last = record.seat_of(alice), record.seat_of(bob)
    assert first is not None and last is not None
    await service.act(game, alice, {"type": "choose", "sin": state["hands"][first][0]})
    assert await service.can_undo(await service.get(game), alice)       # (bob still picks: changeable)
    await service.act(game, bob, {"type": "choose", "sin": "wrath"})
    record = await service.get(game)
    assert service.state(record)["phase"] != "choose"                     # (the reveals began)
    assert not await service.can_undo(record, bob)
    assert not await service.can_undo(record, alice)
    with pytest.raises(HostError) as refused:
        await service.undo(game, bob)
    assert refused.value.code == "undo"
    assert (await service.get(game)).version == record.version


def test_undoable_follows_the_spec() -> None:
    engine = get("carnival")
    assert engine.undoable({}, 0, {"type": "choose", "sin": "lust"}, {"phase": "choose"})
    assert not engine.undoable({}, 0, {"type": "choose", "sin": "lust"}, {"phase": "reveal"})
    assert not engine.undoable({}, 0, {"type": "greed", "dice": ["d4", "d6"]}, {"phase": "reveal"})
