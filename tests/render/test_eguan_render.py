"""Render tests for E Guan: initial, mid-game and final views, private hand, preview."""

from __future__ import annotations

import random
from typing import Any

import pytest
from PIL import Image

from engines.base import CHANCE
from engines.eguan import ENGINE as E
from render.eguan import render_board, render_placement_preview, render_private

NAMES = ["Alice", "小明", "Bob", "惡霸王"]


def play_until(n: int, until_round: int | None, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    st = E.new_game(n, 0)
    while E.to_move(st) and (until_round is None or st["round"] < until_round):
        seat = sorted(E.to_move(st))[0]
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            acts = E.legal_actions(st, seat)
            plays = [a for a in acts if a["type"] in ("select", "place", "select_kept")]
            action = rng.choice(plays or acts)
        st, _ = E.apply(st, seat, action)
    return st


def check(img: Image.Image, path: str) -> None:
    assert 1000 <= img.width <= 1200
    assert img.height > 300
    img.save(path)


def test_initial_board_renders() -> None:
    st = E.new_game(4, 0)
    img = render_board(E.player_view(st, None), names=NAMES)
    check(img, "/tmp/eguan_initial.png")


def test_mid_game_board_and_private_render() -> None:
    st = play_until(4, 5)
    assert E.to_move(st)
    view = E.player_view(st, None)
    a = render_board(view, names=NAMES)
    b = render_board(view, names=NAMES)
    assert a.tobytes() == b.tobytes()  # deterministic
    check(a, "/tmp/eguan_mid.png")
    seat = st["active"]
    pv = E.player_view(st, seat)
    check(render_private(pv, names=NAMES), "/tmp/eguan_private.png")
    card = pv["you"]["hand"][0]["id"] if pv["you"]["hand"] else None
    if card:
        check(render_placement_preview(pv, card, names=NAMES), "/tmp/eguan_preview.png")


def test_final_board_renders_three_players() -> None:
    st = play_until(3, None)
    assert not E.to_move(st)
    check(render_board(E.player_view(st, None), names=NAMES[:3]), "/tmp/eguan_final.png")


def test_placement_preview_of_kept_card_and_unknown_card() -> None:
    st = play_until(4, 3)
    seat = st["active"]
    pv = E.player_view(st, seat)
    assert "hand" not in E.player_view(st, None)
    hand = pv["you"]["hand"]
    assert hand
    pv["you"]["kept"] = dict(hand[0], usable=True, kept_turn=0)
    img = render_placement_preview(pv, hand[0]["id"], names=NAMES)
    assert img.width == 1100
    with pytest.raises(KeyError):
        render_placement_preview(pv, "ZZZ", names=NAMES)
