"""Bad options get a specific answer (trust issue, point 4): every numeric option of
every game is bounded, and values that are not finite numbers in range are refused with
``InvalidOptions`` naming the key, whatever their spelling."""

from __future__ import annotations

import pytest

from engines.base import InvalidOptions, OptionSpec, validate_options
from engines.registry import ENGINES

NUMERIC = [(gid, spec) for gid, engine in sorted(ENGINES.items()) for spec in engine.info.options
           if spec.kind in ("int", "float")]


def test_every_numeric_option_is_bounded() -> None:
    unbounded = [(gid, s.key) for gid, s in NUMERIC if s.minimum is None or s.maximum is None]
    assert unbounded == []


@pytest.mark.parametrize(("game_id", "spec"), NUMERIC, ids=[f"{g}-{s.key}" for g, s in NUMERIC])
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e400", "-1e9", "1e9", "", "'3'", '"3', True])
def test_non_finite_or_out_of_range_numbers_are_refused_by_key(game_id: str, spec: OptionSpec, value: object) -> None:
    with pytest.raises(InvalidOptions) as caught:
        validate_options(ENGINES[game_id].info, {spec.key: value})
    assert caught.value.params["key"] == spec.key and spec.key in caught.value.message


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_unknown_keys_and_choices_are_refused_by_name(game_id: str) -> None:
    info = ENGINES[game_id].info
    with pytest.raises(InvalidOptions, match="Unknown option 'no_such_option'"):
        validate_options(info, {"no_such_option": 1})
    for spec in info.options:
        if spec.kind == "choice":
            with pytest.raises(InvalidOptions, match=f"Option '{spec.key}' cannot be"):
                validate_options(info, {spec.key: "definitely-not-a-choice"})


def test_defaults_pass_and_numbers_in_range_are_coerced() -> None:
    for gid, spec in NUMERIC:
        got = validate_options(ENGINES[gid].info, {spec.key: str(spec.minimum if spec.kind == "float"
                                                                else int(spec.minimum or 0))})
        assert got[spec.key] == spec.minimum
