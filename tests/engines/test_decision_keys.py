"""``engines.decisions._key``: steps and labels group when their messages' JSON texts are equal,
nested messages and term parameters included, and only then."""

from __future__ import annotations

from engines.base import Msg, msg, term
from engines.decisions import DecisionTree, _key


def card(name: str) -> Msg:
    return msg("step.card", card=msg("card.name", name=term(f"card.{name}")))


def test_equal_nested_messages_have_one_key_and_different_ones_two() -> None:
    assert _key(card("lust")) == _key(card("lust"))
    assert _key(card("lust")) != _key(card("envy"))
    assert _key(msg("k", n=1)) != _key(msg("k", n="1"))


def test_numbers_of_other_json_texts_and_keys_that_are_not_strings_keep_their_own_keys() -> None:
    keys = {_key(Msg("k", {"x": v, "t": term("a")})) for v in (1, 1.0, True, None, [1], (1,))}
    assert len(keys) == 5  # ([1] and (1,) write one JSON text)
    assert _key(Msg("k", {"x": {1: "a"}})) == _key(Msg("k", {"x": {1: "a"}}))
    assert _key(Msg("k", {"x": {1: "a"}})) != _key(Msg("k", {"x": {2: "a"}}))


def test_actions_whose_steps_read_alike_share_the_step() -> None:
    tree = DecisionTree(["a", "b", "c"], ["A", "B", "C"], [None] * 3,
                        [(card("lust"),), (card("lust"),), (card("envy"),)])
    choices, _ = tree.node(())
    assert [c.size for c in choices] == [2, 1]
