"""The host's Undo check (bot/service.py ``GameService.undo_candidate``, DESIGN §4) takes the
engine's reveal declaration (``Engine.reveals``) and the spec's finality (``Engine.undoable``)
as they are: either one refuses the Undo, and no ``shuffle_hidden`` variant is made for it
(the generic check is the test oracle of tests/engines/test_reveals.py)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import GameService
from bot.storage import Repository
from engines.base import State
from engines.carnival.engine import CarnivalEngine
from engines.registry import get
from tests.bot.test_undo_memo import new_game, repo  # noqa: F401  (the fixture)


async def first_pick(service: GameService) -> tuple[int, int]:
    """A Carnival game of three where the first seat to pick has picked (the others still pick):
    (game, the picker's user id)."""
    game = await new_game(service, "carnival", [11, 12, 13])
    record = await service.get(game)
    state = service.state(record)
    engine = get("carnival")
    seat = min(engine.to_move(state))
    user = record.user_of(seat)
    assert user is not None
    await service.act(game, user, engine.legal_actions(state, seat)[0])
    return game, user


async def test_a_pick_that_shows_nothing_may_be_taken_back_without_shuffling(
        repo: Repository, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    def no_shuffle(self: Any, state: State, seat: Any, rng: Any) -> State:
        raise AssertionError("the host made a shuffled variant")

    monkeypatch.setattr(CarnivalEngine, "shuffle_hidden", no_shuffle)
    service = GameService(repo)
    game, user = await first_pick(service)
    assert await service.can_undo(await service.get(game), user) is True


@pytest.mark.parametrize("hook", ["reveals", "undoable"])
async def test_the_declaration_or_the_finality_refuses_the_undo(
        repo: Repository, monkeypatch: pytest.MonkeyPatch, hook: str) -> None:  # noqa: F811
    service = GameService(repo)
    game, user = await first_pick(service)
    answer = hook == "reveals"  # (reveals: True refuses; undoable: False refuses)
    monkeypatch.setattr(CarnivalEngine, hook, lambda self, before, seat, action, after: answer)
    assert await GameService(repo).can_undo(await service.get(game), user) is False
