"""The view differ of the golden playthroughs (tests/golden/playthrough.py ``changes``)."""

from __future__ import annotations

from tests.golden.playthrough import REMOVED, changes


def test_nested_keys_and_equal_length_lists_are_compared_item_by_item() -> None:
    old = {"a": 1, "b": {"c": [1, 2, 3], "d": "x"}, "gone": 0}
    new = {"a": 1, "b": {"c": [1, 5, 3], "d": "y"}, "new": [7]}
    assert changes(old, new) == [("b.c[1]", 5), ("b.d", "y"), ("gone", REMOVED), ("new", [7])]


def test_lists_that_grow_or_shrink_at_an_end_show_only_that_end() -> None:
    assert changes([1, 2], [1, 2, 3, 4]) == [("[2]", 3), ("[3]", 4)]
    assert changes([1, 2], [0, 1, 2]) == [("[0:1] inserted", [0])]
    assert changes([1, 2, 3], [1]) == [("[1:3]", REMOVED)]
    assert changes([1, 2, 3], [3]) == [("[0:2]", REMOVED)]
    assert changes([1, 2, 3], [4, 5]) == [("", [4, 5])]


def test_equal_values_have_no_changes_and_a_first_view_is_whole() -> None:
    assert changes({"a": [1]}, {"a": [1]}) == []
    assert changes(None, {"a": 1}) == [("", {"a": 1})]
