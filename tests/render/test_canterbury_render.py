"""Render tests for The Road to Canterbury: initial, mid-game and final boards, the
private hand, determinism, CJK names, and every word through the catalog."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from PIL import Image

from bot.text import Texts
from engines.base import CHANCE, Msg
from engines.canterbury import ENGINE as E
from render.canterbury import render_board, render_private

NAMES = ["Alice", "小明", "佐藤さん"]


def texts(n: int) -> Texts:
    return Texts("canterbury", NAMES[:n], strict=True)


def play(n: int, *, turns: int | None, seed: int = 11, edition: str = "2021") -> dict[str, Any]:
    """Random playout (preferring card plays over passing and stopping) until ``turns``
    turns or the end."""
    rng = random.Random(seed)
    st = E.new_game(n, seed, {"edition": edition})
    while E.to_move(st) and (turns is None or st["turn"] < turns):
        seat = sorted(E.to_move(st))[0]
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            acts = E.legal_actions(st, seat)
            real = [a for a in acts if a["type"] not in ("pass", "done")]
            action = rng.choice(real or acts)
        st, _ = E.apply(st, seat, action)
    return st


def check(img: Image.Image, path: Path) -> None:
    assert 1000 <= img.width <= 1200
    assert img.height > 300
    img.save(path)


def test_initial_board_renders(tmp_path: Path) -> None:
    st = play(3, turns=1)
    view = E.player_view(st, None)
    check(render_board(view, names=NAMES, text=texts(3)), tmp_path / "canterbury_initial.png")


def test_mid_game_board_and_private_render_deterministically(tmp_path: Path) -> None:
    st = play(3, turns=14)
    view = E.player_view(st, None)
    a = render_board(view, names=NAMES, text=texts(3), highlight="red")
    b = render_board(view, names=NAMES, text=texts(3), highlight="red")
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != render_board(view, names=NAMES, text=texts(3)).tobytes()  # the highlight shows
    check(a, tmp_path / "canterbury_mid.png")
    seat = st["active"]
    check(render_private(E.player_view(st, seat), names=NAMES, text=texts(3)), tmp_path / "canterbury_private.png")


def test_final_board_renders_both_player_counts(tmp_path: Path) -> None:
    for n in (2, 3):
        st = play(n, turns=None, seed=5 + n, edition="2011" if n == 2 else "2021")
        assert E.outcome(st) is not None
        view = E.player_view(st, None)
        assert view["final"] is not None
        check(render_board(view, names=NAMES[:n], text=texts(n)), tmp_path / f"canterbury_final_{n}p.png")
        check(render_private(E.player_view(st, 0), names=NAMES[:n], text=texts(n)),
              tmp_path / f"canterbury_private_final_{n}p.png")


def test_public_view_has_no_secrets_for_the_renderer() -> None:
    st = play(3, turns=8)
    view = E.player_view(st, None)
    assert "hand" not in view and "coins" not in view and "notes" not in view


def test_every_word_on_the_images_comes_from_the_catalog() -> None:
    """The renderer asks the formatter for every text it draws: catalog keys of the
    board, help and end-reason tables only (it holds no English of its own)."""
    asked: list[str] = []
    real = texts(3)

    def record(message: Any) -> str:
        asked.append(message.key if isinstance(message, Msg) else message["msg"])  # (a Msg or its JSON)
        return real(message)

    for st in (play(3, turns=14), play(3, turns=None, seed=8)):
        render_board(E.player_view(st, None), names=NAMES, text=record)
        render_private(E.player_view(st, st["active"]), names=NAMES, text=record)
    keys = set(asked)
    assert {"board.circle", "board.name", "board.your_hand", "board.final"} <= keys
    assert all(k.split(".")[0] in ("board", "help", "reason") for k in keys), keys
