"""Less CPU per move in the bot: the cheaper computations give exactly what the
plain ones gave. ``DecisionTree.of`` (confirmation texts made only when shown,
``Notation.has_confirm``) against a tree built with every confirmation made;
``bot.ui.panels.decision_tree`` (one tree per state object and seat) never serving the tree
of another version (after a move, an undo), seat, engine or language."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from bench.undo_check import playout_moves
from bot.service import GameService
from bot.storage import Repository
from bot.ui import panels
from bot.ui.panels import build_panel, decision_tree
from engines.base import State
from engines.decisions import DecisionTree, action_labels
from engines.notation import Notation
from engines.registry import ENGINES, GAME_IDS, NOTATIONS, get
from tests.bot.test_undo_memo import new_game, repo  # noqa: F401  (the fixture)


def states_of(game_id: str) -> Iterator[tuple[State, int]]:
    """(state, seat to move) before each player move of two seeded playouts."""
    for before, seat, _, _, _ in playout_moves(game_id, 2, 80):
        yield before, seat


def shown(tree: DecisionTree, path: tuple[int, ...] = ()) -> Iterator[Any]:
    """Everything a panel can show of ``tree``, step after step: every node's options and
    trail, its summary, and the depth of each path (leaves included)."""
    choices, trail = tree.node(path)
    yield path, choices, trail, tree.summary(path)
    for choice in choices:
        if choice.step is not None:
            yield from shown(tree, (*path, choice.step))
        else:
            yield path, "depth", tree.depth_of((*path, choices.index(choice)))


def eager_tree(notation: Notation, state: State, seat: int) -> DecisionTree:
    """The tree as ``DecisionTree.of`` built it first: every confirmation made."""
    actions = list(notation.engine.legal_actions(state, seat))
    return DecisionTree(actions, action_labels(notation, state, actions),
                        [notation.action_hint(state, a) for a in actions],
                        [notation.action_path(state, a) for a in actions],
                        flat=len(actions) <= 20, confirms=[notation.action_confirm(state, a) for a in actions])


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_tree_with_confirmations_made_when_shown_shows_what_the_eager_one_showed(game_id: str) -> None:
    engine, notation = ENGINES[game_id], NOTATIONS[game_id]
    confirmed = 0
    for state, seat in states_of(game_id):
        for action in engine.legal_actions(state, seat):
            assert notation.has_confirm(state, action) == (notation.action_confirm(state, action) is not None)
            confirmed += notation.has_confirm(state, action)
        assert list(shown(DecisionTree.of(notation, state, seat))) == list(shown(eager_tree(notation, state, seat)))
    if game_id == "carnival":
        assert confirmed > 0  # (Wrath throws were offered: the lazy confirmations were shown)


def test_a_confirmation_is_made_only_when_its_step_is_shown() -> None:
    calls: list[int] = []

    def confirm(i: int) -> Callable[[], tuple[str, str]]:
        def made() -> tuple[str, str]:
            calls.append(i)
            return f"summary {i}", f"throw {i}"
        return made

    tree = DecisionTree([{"type": "x", "i": i} for i in range(3)], ["a", "b", "c"], [None] * 3, [()] * 3,
                        flat=True, confirms=[confirm(0), None, confirm(2)])
    root, _ = tree.node(())
    assert [(c.label, c.step, c.action) for c in root] == [("a", 0, None), ("b", None, 1), ("c", 2, None)]
    assert calls == []
    assert tree.summary((2,)) == "summary 2" and [c.label for c in tree.node((2,))[0]] == ["throw 2"]
    assert tree.summary((2,)) == "summary 2" and calls == [2]  # (made once)


def test_a_tree_labels_one_decision_at_a_time_and_only_the_decisions_it_shows() -> None:
    labelled: list[list[int]] = []
    hinted: list[int] = []

    def labels(indices: Sequence[int]) -> list[str]:
        labelled.append(list(indices))
        return [f"label {i}" for i in indices]

    def hint(index: int) -> str:
        hinted.append(index)
        return f"hint {index}"

    paths: list[tuple[str, ...]] = [("cards",), ("cards",), (), ("cards", "more"), ("cards", "more"), ("other",)]
    tree = DecisionTree([{"type": "x", "i": i} for i in range(6)], labels, hint, paths)
    root, _ = tree.node(())
    assert [(c.label, c.step, c.action, c.hint) for c in root] == [
        ("cards", 0, None, None), ("label 2", None, 2, "hint 2"), ("other", None, 5, "hint 5")]
    assert labelled == [[2]] and hinted == [2, 5]  # (the root's own action; "other" names its one action)
    cards, trail = tree.node((0,))
    assert trail == ("cards",) and [c.label for c in cards] == ["label 0", "label 1", "more"]
    assert labelled == [[2], [0, 1]] and hinted == [2, 5, 0, 1]
    tree.node((0,))
    assert labelled == [[2], [0, 1]] and hinted == [2, 5, 0, 1]  # (each made once)
    assert tree.labels == [f"label {i}" for i in range(6)] and labelled[2:] == [[3, 4], [5]]


def test_a_confirmation_that_is_not_there_after_all_is_refused() -> None:
    tree = DecisionTree([{"type": "x"}], ["a"], [None], [()], flat=True, confirms=[lambda: None])
    with pytest.raises(ValueError, match="has_confirm"):
        tree.summary((0,))


async def test_the_remembered_tree_is_never_one_of_another_version_seat_notation_or_language(
        repo: Repository) -> None:  # noqa: F811
    service = GameService(repo)
    game = await new_game(service, "carnival", [11, 12, 13])
    engine, notation = get("carnival"), NOTATIONS["carnival"]
    record = await service.get(game)
    state = service.state(record)
    tree = decision_tree(notation, state, 0)
    assert decision_tree(notation, service.state(await service.get(game)), 0) is tree  # (same version: kept)
    assert decision_tree(notation, state, 1) is not tree                              # (another seat)
    assert decision_tree(type(notation)(engine), state, 0) is not tree                # (another notation)
    english = build_panel(notation, record, state, 0, locale="en")
    japanese = build_panel(notation, record, state, 0, locale="ja")
    panels._trees.clear()
    assert japanese.content == build_panel(notation, record, state, 0, locale="ja").content != english.content
    assert english.content == build_panel(notation, record, state, 0, locale="en").content

    tree = decision_tree(notation, state, 0)
    moved = await service.act(game, 11, tree.actions[0])                            # a move: a new version
    after = service.state(moved.game)
    fresh = decision_tree(notation, after, 0)
    assert fresh is not tree and fresh.actions == list(engine.legal_actions(after, 0))
    assert [c.label for c in fresh.node()[0]] == [c.label for c in DecisionTree.of(notation, after, 0).node()[0]]
    assert list(shown(fresh)) != list(shown(tree))  # (seat 0 changes its pick now: another decision)

    await service.undo(game, 11)                                                     # an undo: the state of before
    undone = service.state(await service.get(game))
    again = decision_tree(notation, undone, 0)
    assert again is not fresh and again.actions == list(engine.legal_actions(undone, 0))
    assert list(shown(again)) == list(shown(tree))


async def test_the_public_view_is_drawn_once_a_version_and_never_served_stale(
        repo: Repository, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    service = GameService(repo)
    game = await new_game(service, "carnival", [11, 12, 13])
    engine = get("carnival")
    drawn: list[int | None] = []
    plain = engine.player_view

    def counted(state: State, seat: int | None) -> dict[str, Any]:
        drawn.append(seat)
        return plain(state, seat)

    monkeypatch.setattr(engine, "player_view", counted)

    async def check() -> dict[str, Any]:
        record = await service.get(game)
        view = service.public_view(record)
        assert view == plain(service.state(record), None) == GameService(repo).public_view(record)
        return view

    first = await check()
    record = await service.get(game)
    moved = await service.act(game, 11, engine.legal_actions(service.state(record), 0)[0])  # a move
    drawn.clear()
    assert service.public_view(await service.get(game)) is service.public_view(moved.game)
    assert drawn == []  # (the move filed the view of the state it stored)
    after_move = await check()
    assert after_move != first                         # (seat A has picked: the view says so)
    await service.undo(game, 11)                                                     # an undo
    assert await check() == first and service.public_view(await service.get(game)) is not first
    await service.replace(game, 2, 99, "u9", by_user=11)                            # a replace: a new version
    assert await check() == first
    record = await service.get(game)
    rebuilt = dataclasses.replace(record, state=dict(moved.game.state or {}))  # (a snapshot rebuilt in place)
    assert service.public_view(rebuilt) == after_move != service.public_view(record)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_labels_and_paths_of_a_decision_are_those_of_its_actions_one_by_one(game_id: str) -> None:
    engine, notation = ENGINES[game_id], NOTATIONS[game_id]
    for state, seat in states_of(game_id):
        actions = list(engine.legal_actions(state, seat))
        assert notation.action_labels_of(state, actions) == [notation.action_label(state, a) for a in actions]
        assert notation.action_paths_of(state, actions) == [notation.action_path(state, a) for a in actions]


def test_discord_py_parses_and_writes_its_json_with_orjson() -> None:
    import discord.utils
    import orjson

    assert discord.utils.HAS_ORJSON is True  # (pyproject.toml lists orjson: discord.py picks it up at import)
    assert discord.utils._from_json('{"id": "1", "n": [1, 2]}') == orjson.loads(b'{"id": "1", "n": [1, 2]}')
    assert discord.utils._to_json({"content": "é"}) == '{"content":"é"}'
