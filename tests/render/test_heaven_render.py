"""Render tests for The Way to Heaven: initial, mid-game, final and private views (images
go to tmp_path), drawn with the English catalog as the ``text`` formatter."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.text import Texts
from engines.base import CHANCE, Msg
from engines.heaven import ENGINE as E
from engines.heaven import NOTATION as N
from render.heaven import render_board, render_private

NAMES = ["Alice", "小明", "Bob", "さくら", "Eve", "김민수"]
TEXT = Texts("heaven", NAMES, strict=True)


def _run(players: int, seed: int, steps: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    st = E.new_game(players, seed, options)
    for _ in range(steps):
        movers = E.to_move(st)
        if not movers:
            break
        seat = rng.choice(sorted(movers))
        action = E.sample_chance(st, rng) if seat == CHANCE else rng.choice(list(E.legal_actions(st, seat)))
        st, _ = E.apply(st, seat, action)
    return st


def _check(img: Image.Image, path: Path) -> None:
    assert img.width == 720 and img.height > 300  # (BOARD_W, PRIVATE_W: phone first)
    img.save(path)


def test_initial_split_and_private_views_render(tmp_path: Path) -> None:
    st = _run(4, 1, 24)  # dealt, splitting
    assert st["phase"] == "split"
    _check(render_board(E.player_view(st, None), names=NAMES[:4], text=TEXT), tmp_path / "heaven_initial.png")
    _check(render_private(E.player_view(st, 0), names=NAMES[:4], text=TEXT), tmp_path / "heaven_private_split.png")


def test_mid_game_advanced_renders_deterministically(tmp_path: Path) -> None:
    st = _run(6, 7, 160, {"board_side": "advanced"})
    assert st["phase"] == "play"
    view = E.player_view(st, None)
    a = render_board(view, names=NAMES, text=TEXT, highlight="C")
    b = render_board(view, names=NAMES, text=TEXT, highlight="C")
    assert a.tobytes() == b.tobytes()
    _check(a, tmp_path / "heaven_mid.png")
    _check(render_private(E.player_view(st, view["active"]), names=NAMES, text=TEXT), tmp_path / "heaven_private.png")


def test_final_view_with_gate_winner_renders(tmp_path: Path) -> None:
    st = _run(5, 3, 120)
    # put seat 1 on the Gate and finish the game by the end of the round
    st = dict(st)
    st["positions"] = [6 if s == 1 else p for s, p in enumerate(st["positions"])]
    rng = random.Random(0)
    while E.to_move(st):
        seat = min(E.to_move(st))
        action = E.sample_chance(st, rng) if seat == CHANCE else E.timeout_action(st, seat)
        st, _ = E.apply(st, seat, action)
    view = E.player_view(st, None)
    assert 1 in view["winners"]
    _check(render_board(view, names=NAMES[:5], text=TEXT), tmp_path / "heaven_final.png")


def test_round_limit_final_renders(tmp_path: Path) -> None:
    st = _run(3, 11, 5000, {"allow_three": True, "board_side": "advanced", "round_limit": 10})
    assert st["phase"] == "over"
    _check(render_board(E.player_view(st, None), names=NAMES[:3], text=TEXT), tmp_path / "heaven_final_limit.png")


def test_a_hand_says_what_to_choose_only_while_there_is_a_choice() -> None:
    said: list[str] = []

    def text(message: Any) -> str:
        said.append(Msg.from_json(message).key if isinstance(message, dict) else getattr(message, "key", ""))
        return TEXT(message)

    for st, hint in ((_run(4, 1, 24), "board.choose_public"), (_run(6, 7, 160, {"board_side": "advanced"}),
                                                                 "board.usable_key"),
                     (_run(3, 11, 5000, {"allow_three": True, "board_side": "advanced", "round_limit": 10}), None)):
        said.clear()
        render_private(E.player_view(st, 0), names=NAMES[:st["players"]], text=text)
        hints = [k for k in said if k in ("board.choose_public", "board.chosen_key", "board.usable_key")]
        assert hints == ([hint] if hint else []), st["phase"]  # (over: no "Choose 3 cards to make public")


def test_view_messages_are_formatted_through_text(tmp_path: Path) -> None:
    """The declared USE, the end reason, the next-space test and the abilities reach the
    image only through ``text`` (views carry ``Msg`` JSON, never sentences)."""
    rng = random.Random(4)
    st = E.new_game(4, 4, None)
    while st.get("stage") != "react":
        seat = rng.choice(sorted(E.to_move(st)))
        if seat == CHANCE:
            action = E.sample_chance(st, rng)
        else:
            actions = list(E.legal_actions(st, seat))
            uses = [a for a in actions if a["type"] == "use" and a["plan"]]
            action = rng.choice(uses or actions)
        st, _ = E.apply(st, seat, action)
    seen: list[Any] = []

    def text(message: Any) -> str:
        seen.append(message.to_json() if isinstance(message, Msg) else message)  # (a Msg or its JSON)
        return TEXT(message)

    view = E.player_view(st, None)
    _check(render_board(view, names=NAMES[:4], text=text), tmp_path / "heaven_react.png")
    assert {"msg": "board.declared", "params": {"use": view["declared"]}} in seen
    assert TEXT(view["declared"]).split(":")[0] in TEXT(seen[-1])
    mine = E.player_view(st, 0)
    seen.clear()
    _check(render_private(mine, names=NAMES[:4], text=text), tmp_path / "heaven_react_private.png")
    assert mine["next_test"]["text"] in seen
    assert {c["ability"]["msg"] for c in mine["hand"]} <= {m["params"]["ability"]["msg"] for m in seen
                                                         if m.get("msg") == "board.usable"}


def test_a_winners_strip_line_is_whole_and_clear_of_the_public_sum(monkeypatch: Any) -> None:
    """A winner's line ("★ WINNER · on the Gate · hand 2") must not run into "sum 3" nor be cut:
    the info goes on up to two lines left of the cards, never cut, clear of the sum."""
    import render.heaven as heaven
    from render.base import draw_text, text_width

    st = _run(6, 4, 400)
    view = E.player_view(st, None)
    assert view["phase"] == "play" and all(view["public"])
    view = {**view, "phase": "over", "winners": [2], "positions": [*view["positions"][:2], 6, *view["positions"][3:]],
            "hand_counts": [9] * 6, "skips": [2] * 6}
    drawn: list[tuple[tuple[float, float], str, dict[str, Any]]] = []

    def record(draw: Any, xy: tuple[float, float], text: str, **kw: Any) -> None:
        drawn.append((xy, text, kw))
        draw_text(draw, xy, text, **kw)

    monkeypatch.setattr(heaven, "draw_text", record)
    render_board(view, names=NAMES, text=TEXT)
    assert not any("…" in t for _, t, _ in drawn)
    sums = [(xy, t, kw) for xy, t, kw in drawn if t.startswith("sum ") and kw.get("anchor", "").startswith("r")]
    assert len(sums) == 6
    first = [i for i, (_, t, _) in enumerate(drawn) if t.startswith(("space ", "on the Gate", "★ WINNER"))]
    assert len(first) == 6
    lines = [" ".join(t for _, t, _ in drawn[i:i + 2] if "skips 2" in t or t == drawn[i][1]) for i in first]
    assert lines[2] == "★ WINNER · on the Gate · hand 9 · skips 2"
    for i, ((sx, sy), total, skw) in zip(first, sums, strict=True):
        (ix, iy), info, ikw = drawn[i]
        right = ix + text_width(info, ikw["size"])
        left = sx - text_width(total, skw["size"])
        overlaps_x = left < right and ix < sx
        overlaps_y = sy - skw["size"] / 2 < iy + ikw["size"] and iy < sy + skw["size"] / 2
        assert not (overlaps_x and overlaps_y), (info, total)


def test_the_numbered_table_numbers_the_public_cards_as_the_labels_do(monkeypatch: Any) -> None:
    """A USE that picks public cards (Destruction here) shows the table with every public card
    numbered in seat order; a choice's label starts with the number drawn on the card it removes."""
    import render.heaven as heaven
    from render.base import draw_text
    from render.heaven import DECISION_W, draws_decision, render_decision
    from tests.engines.test_heaven_rules import make

    st = make([["Pride G1", "Greed G1", "Wrath R3"], ["Shepherd G1", "Holiness G1", "Law B1"], ["Mercy G1"], []],
              [["Destruction B2"], ["Grace R2", "Grace B2"], [], []])
    view = E.player_view(st, 0)
    assert draws_decision(view) and not draws_decision(E.player_view(st, 1))
    drawn: list[str] = []

    def record(draw: Any, xy: tuple[float, float], text: str, **kw: Any) -> None:
        drawn.append(text)
        draw_text(draw, xy, text, **kw)

    monkeypatch.setattr(heaven, "draw_text", record)
    image = render_decision(view, names=NAMES[:4], text=TEXT)
    assert image is not None and image.width == DECISION_W
    cards = [c for pub in view["public"] for c in pub]
    numbers = [int(t) for t in drawn if t.isdigit()]
    assert numbers == list(range(1, len(cards) + 1))
    codes = [drawn[drawn.index(str(n)) + 1] for n in numbers]           # each number, then its card's code
    assert codes == [f"{c['colour'][0].upper()}{c['number']}" for c in cards]
    removes = {TEXT(N.action_label(st, a)): a["plan"][1][1] for a in E.legal_actions(st, 0)
               if a["type"] == "use" and a["plan"][0] == ["target", 1]}
    for label, card in removes.items():
        assert label.startswith(f"{[c['id'] for c in cards].index(card) + 1} · Use Destruction B2: target")
    assert len(removes) == 3


def test_zoom_regions_are_the_track_and_each_players_cards_at_phone_size() -> None:
    from render.heaven import ZOOM_W, render_zoom, zoom_regions

    st = _run(4, 3, 120)
    mine = E.player_view(st, 2)
    keys = [k for k, _ in zoom_regions(mine)]
    assert keys == ["track", "seat:2", "seat:0", "seat:1", "seat:3"]
    assert [k for k, _ in zoom_regions(E.player_view(st, None))] == ["track", "seat:0", "seat:1", "seat:2", "seat:3"]
    for key in keys:
        assert render_zoom(mine, key, names=NAMES[:4], text=TEXT).width == ZOOM_W
    with pytest.raises(KeyError):
        render_zoom(mine, "seat:4", names=NAMES[:4], text=TEXT)
