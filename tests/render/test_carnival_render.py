"""Render tests for Carnival of Sins: initial, mid-game and final views render
(both table models), private views, CJK names; PNGs saved to /tmp/carnival_*.png."""

from __future__ import annotations

import random
from typing import Any

from engines.base import CHANCE
from engines.carnival.engine import CarnivalEngine
from render.base import WIDTH, to_png
from render.carnival import format_text, render_board, render_private

E = CarnivalEngine()
NAMES = ["Alice", "ボブ", "陈小明", "Dmitri the Long-Named Sinner", "Eve"]


def _play(n: int, seed: int, options: dict[str, Any] | None, stop: Any) -> dict[str, Any]:
    rng = random.Random(seed)
    state = E.new_game(n, seed, options)
    while E.to_move(state) and not stop(state):
        movers = sorted(E.to_move(state))
        seat = rng.choice(movers)
        if seat == CHANCE:
            action = E.sample_chance(state, rng)
        else:
            action = rng.choice(list(E.legal_actions(state, seat)))
        state, _ = E.apply(state, seat, action)
    return state


def _save(img: Any, name: str) -> bytes:
    img.save(f"/tmp/carnival_{name}.png")
    return to_png(img)


def test_initial_board_renders() -> None:
    state = _play(4, 1, None, lambda s: s["phase"] == "choose")
    img = render_board(E.player_view(state, None), names=NAMES[:4])
    assert img.width == WIDTH and img.height > 800
    _save(img, "initial")


def test_mid_game_boards_render_both_models() -> None:
    for model, n in (("spatial", 5), ("zones", 4)):
        state = _play(n, 7, {"table_model": model},
                      lambda s: s["round"] >= 3 and s["phase"] in ("resolve", "pride"))
        view = E.player_view(state, None)
        img = render_board(view, names=NAMES[:n], highlight="d20")
        assert img.width == WIDTH
        _save(img, f"mid_{model}")
        seat = 0
        priv = render_private(E.player_view(state, seat), names=NAMES[:n])
        assert priv.width == WIDTH
        _save(priv, f"private_{model}")


def test_choose_phase_private_view_shows_pick() -> None:
    state = _play(3, 3, None, lambda s: s["phase"] == "choose" and s["round"] == 2)
    state, _ = E.apply(state, 1, {"type": "choose", "sin": state["hands"][1][0]})
    _save(render_board(E.player_view(state, None), names=NAMES[:3]), "choose")
    _save(render_private(E.player_view(state, 1), names=NAMES[:3]), "private_choose")


def test_final_board_renders_and_is_deterministic() -> None:
    state = _play(3, 11, None, lambda s: False)
    view = E.player_view(state, None)
    assert view["outcome"] is not None
    a = _save(render_board(view, names=NAMES[:3]), "final")
    b = to_png(render_board(view, names=NAMES[:3]))
    assert a == b
    zstate = _play(2, 12, {"table_model": "zones"}, lambda s: False)
    _save(render_board(E.player_view(zstate, None), names=NAMES[:2]), "final_zones")


def test_format_text_fills_names() -> None:
    assert format_text("{p1} reveals Wrath", NAMES) == "B·ボブ reveals Wrath"
