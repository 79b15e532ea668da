"""``engines.base.msg`` nests messages as their JSON forms: equal to what a trip through JSON gives,
whether the nested message's parameters are shared (plain JSON data) or copied (anything else)."""

from __future__ import annotations

import json

from engines.base import Msg, msg, seat_ref, term


def trip(message: Msg) -> Msg:
    return Msg.from_json(json.loads(json.dumps(message.to_json())))


def test_nested_plain_messages_equal_their_json_trip_and_share_their_parameters() -> None:
    inner = msg("card.name", name=term("card.lust"), seat=seat_ref(1), n=2, cells=["a", "b"])
    outer = msg("step.use", card=inner, also=msg("x", y=inner))
    assert outer == trip(outer)
    assert outer.params["card"] == {"msg": "card.name", "params": {"name": {"term": "card.lust"}, "seat": {"seat": 1},
                                                                   "n": 2, "cells": ["a", "b"]}}
    assert outer.params["card"]["params"] is inner.params
    assert outer._plain_data and inner._plain_data


def test_a_nested_message_with_tuples_or_other_types_is_copied_as_json_writes_it() -> None:
    inner = msg("k", cells=("a", "b"))
    assert not inner._plain_data
    outer = msg("step", x=inner)
    assert outer.params["x"] == {"msg": "k", "params": {"cells": ["a", "b"]}}
    assert outer == trip(outer)
    direct = Msg("k", {"t": term("a")})  # (not made by ``msg``: copied)
    assert msg("o", x=direct).params["x"]["params"] is not direct.params


def test_the_json_form_of_a_message_is_a_copy_its_reader_may_change() -> None:
    inner = msg("card.name", name=term("card.lust"))
    form = msg("step.use", card=inner).to_json()
    form["params"]["card"]["params"]["name"]["term"] = "card.envy"
    assert inner.params == {"name": {"term": "card.lust"}}
