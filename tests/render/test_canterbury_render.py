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
from engines.canterbury import NOTATION as N
from render.canterbury import WIDTH, render_board, render_private, render_zoom, zoom_regions
from tests.render.text_sizes import layout

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
    assert img.width == WIDTH == 720
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


def test_the_board_keeps_one_height_through_a_game() -> None:
    """The board's height depends on the player count only (the final scoring takes the room of
    the face-up rows), so the message does not resize in the chat from one move to the next."""
    for n in (2, 3):
        heights = set()
        for turns in (1, 6, 14, None):
            st = play(n, turns=turns, seed=5 + n)
            heights.add(render_board(E.player_view(st, None), names=NAMES[:n], text=texts(n)).height)
        assert len(heights) == 1, (n, heights)


def test_zooms_draw_every_text_at_decision_size() -> None:
    """The companies in full and the rows with the decks, each at ≥ 20 px on 720 (10 px on a phone)."""
    st = play(3, turns=14)
    view = E.player_view(st, None)
    assert [key for key, _ in zoom_regions(view)] == ["companies", "rows"]
    for key, _ in zoom_regions(view):
        image, shown = layout(lambda key=key: render_zoom(view, key, names=NAMES, text=texts(3)))
        assert image.width == WIDTH and shown is not None
        assert min(t.size for t in shown.texts) >= 20, key


def test_a_seat_that_left_is_marked() -> None:
    """The host's ``left`` key of the view tags that pardoner's row with "left the game"."""
    st = play(3, turns=6)
    view = dict(E.player_view(st, None))
    asked: list[str] = []
    real = texts(3)

    def record(message: Any) -> str:
        asked.append(message.key if isinstance(message, Msg) else message["msg"])
        return real(message)

    render_board(view, names=NAMES, text=record)  # type: ignore[arg-type]
    assert "board.left_game" not in asked
    view["left"] = [1]
    render_board(view, names=NAMES, text=record)  # type: ignore[arg-type]
    assert asked.count("board.left_game") == 1


def _philip_state() -> tuple[dict[str, Any], int]:
    """A 3-player game (seed 1) played until a player moves the Parson with St. Philip (random
    plays, the Finger played whenever it can be)."""
    rng = random.Random(1)
    st = E.new_game(3, 1, {"edition": "2021"})
    while E.to_move(st):
        seat = sorted(E.to_move(st))[0]
        if seat != CHANCE and E.player_view(st, seat)["step"] == "parson":
            return st, seat
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            acts = E.legal_actions(st, seat)
            finger = [a for a in acts if a.get("type") == "relic" and a.get("relic") == "relic-philip"]
            real = [a for a in acts if a["type"] not in ("pass", "done")]
            action = rng.choice(finger or real or acts)
        st, _ = E.apply(st, seat, action)
    raise AssertionError("St. Philip never played")


def test_the_parson_picture_numbers_what_the_buttons_number() -> None:
    """St. Philip's panel gets the Circle of Sin with every sin numbered (D7 order from 1) as its
    "N · Move the Parson to …" button; no other seat, and no other step, gets a picture."""
    from engines.canterbury.data import SINS
    from render.canterbury import draws_decision, render_decision

    st, seat = _philip_state()
    view = E.player_view(st, seat)
    assert draws_decision(view)
    assert not any(draws_decision(E.player_view(st, s)) for s in range(3) if s != seat)
    assert not draws_decision(E.player_view(play(3, turns=3), 0))
    image, shown = layout(lambda: render_decision(view, names=NAMES, text=texts(3)))
    assert image is not None and image.width == WIDTH and shown is not None
    assert min(t.size for t in shown.texts) >= 20
    numbers = [t.text for t in shown.texts if t.text.isdigit() and len(t.text) == 1]
    parson = SINS.index(st["parson"]) + 1  # (the Parson's own sin has no number: it moves elsewhere)
    assert sorted(numbers) == [str(i) for i in range(1, 8) if i != parson]
    moves = [a for a in E.legal_actions(st, seat) if a.get("type") == "parson" and a["sin"] in SINS]
    assert moves and st["parson"] not in [a["sin"] for a in moves]
    for action in moves:
        n = SINS.index(action["sin"]) + 1
        assert texts(3)(N.action_label(st, action)).startswith(f"{n} · Move the Parson to "), action
