"""``engines.base.json_copy`` gives what a trip through JSON gives, and shares nothing with its input."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest

from engines.base import json_copy


class Colour(enum.StrEnum):
    RED = "red"


CASES: list[Any] = [
    {},
    {"a": 1, "b": 2.5, "c": None, "d": True, "e": "x"},
    {"nested": {"list": [1, [2, {"t": (3, 4)}]], "tuple": (1, "2", None)}},
    {"msg": "label.x", "params": {"items": [{"msg": "reward.coins", "params": {"n": 1, "unit": {"term": "coin"}}}]}},
    {"ints as keys": {1: "one", 2: {3: [4]}}},  # (JSON writes them as strings)
    {"a str of its own": Colour.RED, "floats": [float("inf"), -0.0, 1e300]},
]


@pytest.mark.parametrize("value", CASES)
def test_a_copy_equals_the_trip_through_json(value: Any) -> None:
    copied = json_copy(value)
    assert copied == json.loads(json.dumps(value))
    assert json.dumps(copied) == json.dumps(json.loads(json.dumps(value)))


def test_a_copy_shares_no_container_with_its_input() -> None:
    value = {"a": [1, {"b": [2]}], "c": {"d": {}}}
    copied: Any = json_copy(value)
    copied["a"][1]["b"].append(3)
    copied["c"]["d"]["e"] = 1
    assert value == {"a": [1, {"b": [2]}], "c": {"d": {}}}


def test_what_json_cannot_encode_is_refused() -> None:
    with pytest.raises(TypeError):
        json_copy({"a": {1, 2}})
    with pytest.raises(TypeError):
        json_copy({"a": object()})
