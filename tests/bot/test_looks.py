"""The "🔍 Look at…" select within Discord's limits (bot/ui/looks.py ``look_select``): at most 25
options, labels of at most 100 characters that still read apart, values that are the region keys,
the current region marked, nothing offered when there is nothing to look at."""

from __future__ import annotations

from bot.text import Texts
from bot.ui.look_menu import look_select
from engines.base import Msg


def test_a_look_select_keeps_to_discords_limits() -> None:
    long = "a landscape with a very long name " * 4
    regions = [(f"land:{i}", Msg("ui.error.bad_value", {"value": f"{long}{i}", "what": "place"})) for i in range(30)]
    select = look_select(7, regions, Texts("ora", [], "en"), current="land:3")
    assert select is not None and select.item.custom_id == "z:7"
    options = select.item.options
    assert [o.value for o in options] == [f"land:{i}" for i in range(25)]
    assert all(len(o.label) <= 100 for o in options) and len({o.label for o in options}) == 25
    assert options[0].label.startswith("'a landscape with") and options[12].label.endswith("12' is not a valid place.")
    assert [o.value for o in options if o.default] == ["land:3"]
    assert select.item.placeholder == "🔍 Look at…"


def test_no_regions_no_select_and_keys_too_long_for_a_value_are_left_out() -> None:
    tx = Texts("ora", [], "ja")
    assert look_select(7, [], tx) is None
    select = look_select(7, [("x" * 101, Msg("ui.look.placeholder")), ("wheel", Msg("ui.game.ora"))], tx)
    assert select is not None
    assert [(o.label, o.value) for o in select.item.options] == [(tx(Msg("ui.game.ora")), "wheel")]
    assert select.item.placeholder == "🔍 見る…"
