"""Render tests for E Guan: initial, mid-game and final views, private hand, the
placement preview (a play and a Schemer move) and the decision image."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.text import Texts
from engines.base import CHANCE
from engines.eguan import ENGINE as E
from engines.eguan.rules import active
from render.eguan import (
    BOARD_W,
    FOOT_H,
    HEAD_H,
    PANEL_H,
    PREVIEW_W,
    render_board,
    render_decision,
    render_placement_preview,
    render_private,
    render_zoom,
    zoom_regions,
)
from tests.engines.test_eguan_rules import E3_FINAL, at_roll, go, roll

NAMES = ["Alice", "小明", "Bob", "惡霸王"]
TEXT = Texts("eguan", NAMES, strict=True)


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


def check(img: Image.Image, path: Path) -> None:
    assert img.width == 720  # (BOARD_W, PRIVATE_W, PREVIEW_W: phone first)
    assert img.height > 300
    img.save(path)


def test_initial_board_renders(tmp_path: Path) -> None:
    st = E.new_game(4, 0)
    check(render_board(E.player_view(st, None), names=NAMES, text=TEXT), tmp_path / "initial.png")


def test_mid_game_board_and_private_render(tmp_path: Path) -> None:
    st = play_until(4, 5)
    assert E.to_move(st)
    view = E.player_view(st, None)
    a = render_board(view, names=NAMES, text=TEXT)
    b = render_board(view, names=NAMES, text=TEXT)
    assert a.tobytes() == b.tobytes()  # deterministic
    check(a, tmp_path / "mid.png")
    seat = active(st)
    assert seat is not None
    pv = E.player_view(st, seat)
    check(render_private(pv, names=NAMES, text=TEXT), tmp_path / "private.png")
    card = pv["you"]["hand"][0]["id"] if pv["you"]["hand"] else None
    if card:
        check(render_placement_preview(pv, card, names=NAMES, text=TEXT), tmp_path / "preview.png")


def test_final_board_renders_three_players(tmp_path: Path) -> None:
    st = play_until(3, None)
    assert not E.to_move(st)
    check(render_board(E.player_view(st, None), names=NAMES[:3], text=TEXT), tmp_path / "final.png")


def test_placement_preview_of_kept_card_and_unknown_card() -> None:
    st = play_until(4, 3)
    seat = active(st)
    assert seat is not None
    pv = E.player_view(st, seat)
    assert "hand" not in E.player_view(st, None) and "you" not in E.player_view(st, None)
    hand = pv["you"]["hand"]
    assert hand
    pv["you"]["kept"] = dict(hand[0], usable=True, kept_turn=0)
    img = render_placement_preview(pv, hand[0]["id"], names=NAMES, text=TEXT)
    assert img.width == PREVIEW_W
    with pytest.raises(KeyError):
        render_placement_preview(pv, "ZZZ", names=NAMES, text=TEXT)


def test_decision_image_only_while_placing_and_for_a_move(tmp_path: Path) -> None:
    st = roll(at_roll(3, "BCD", {0: E3_FINAL}, [2, 5, 9]), 3)  # Schemer 3: move a topmost card
    assert st["pending"] == {"step": "move_pick"}
    assert render_decision(E.player_view(st, 0), names=NAMES[:3], text=TEXT) is None
    st = go(st, 0, {"type": "move", "card": "S10"})
    image = render_decision(E.player_view(st, 0), names=NAMES[:3], text=TEXT)
    assert image is not None and image.width == PREVIEW_W
    image.save(tmp_path / "move.png")
    assert render_decision(E.player_view(st, 1), names=NAMES[:3], text=TEXT) is None


def test_draws_decision_says_beforehand_whether_a_decision_image_comes() -> None:
    """The bot asks ``draws_decision`` before sending a decision job to a render worker
    (render/registry.py): over the decisions of a random playout it agrees with what
    ``render_decision`` gives, and the registry says False for a game without decisions."""
    from render import registry
    from render.eguan import draws_decision

    rng = random.Random(7)
    st = E.new_game(3, 0)
    seen = {True: 0, False: 0}
    for _ in range(400):
        if not E.to_move(st):
            break
        seat = sorted(E.to_move(st))[0]
        if seat == CHANCE:
            st, _ = E.apply(st, seat, E.sample_chance(st, rng))
            continue
        pv = E.player_view(st, seat)
        drawn = render_decision(pv, names=NAMES[:3], text=TEXT) is not None
        assert draws_decision(pv) is drawn and registry.draws_decision("eguan", pv) is drawn
        seen[drawn] += 1
        st, _ = E.apply(st, seat, rng.choice(E.legal_actions(st, seat)))
    assert seen[True] >= 5 and seen[False] >= 5
    assert registry.draws_decision("heaven", {}) is False


@pytest.mark.parametrize("locale", ["en", "zh_TW", "ja"])
def test_the_end_says_the_winners_whole_and_the_board_keeps_its_height(locale: str) -> None:
    """Long names: the header's end line wraps (never cut), each panel gives its seat's final
    score, and the board is as tall at the end as at the start (no message resizing)."""
    from render.base import text_width, wrap_text
    from render.eguan import _status

    long = ["**x** @everyone <@&1> `c` ||s||", "Bot · Normal", "Bot · Easy", "長い名前の人です長い名前"]
    st = play_until(4, None)
    view = E.player_view(st, None)
    text = Texts("eguan", long, locale=locale, strict=True)
    lines = wrap_text(_status(view, text), 20, BOARD_W - 24, True)
    assert 1 <= len(lines) <= 2
    assert all(text_width(line, 20, True) <= BOARD_W - 24 for line in lines)
    assert all(text.name(w) in "".join(lines) for w in view["result"]["winners"])
    image = render_board(view, names=long, text=text)
    first = render_board(E.player_view(play_until(4, 1), None), names=long, text=text)
    assert image.height == first.height == HEAD_H + 2 * (PANEL_H + 8) + FOOT_H


def test_zoom_regions_are_each_board_and_the_key_drawn_at_phone_size() -> None:
    """The reader's own board comes first; every region draws at PREVIEW_W; an unknown region
    is refused."""
    st = play_until(3, 3)
    seat = 1
    pv = E.player_view(st, seat)
    keys = [k for k, _ in zoom_regions(pv)]
    assert keys == ["seat:1", "seat:0", "seat:2", "key"]
    assert [k for k, _ in zoom_regions(E.player_view(st, None))] == ["seat:0", "seat:1", "seat:2", "key"]
    for key in keys:
        assert render_zoom(pv, key, names=NAMES[:3], text=TEXT).width == PREVIEW_W
    with pytest.raises(KeyError):
        render_zoom(pv, "seat:3", names=NAMES[:3], text=TEXT)


@pytest.mark.parametrize(("locale", "line"), [
    ("en", "K03 Petty Thief"), ("zh_TW", "技03 偷雞摸狗"), ("zh_CN", "技03 偷鸡摸狗"), ("ja", "技03 偷鶏摸狗")])
def test_the_placement_preview_names_the_card_in_the_readers_language(locale: str, line: str) -> None:
    """Under the card's two orientations: its code and name in the reader's language (not the
    Chinese original in every language)."""
    from tests.render.text_sizes import drawn_texts

    st = play_until(4, 3)
    pv = E.player_view(st, active(st))
    pv["you"]["kept"] = {"id": "K03", "corners": {}, "req": {"K": 1}, "die": False, "payment": 0, "usable": True,
                         "kept_turn": 0}
    text = Texts("eguan", NAMES, locale=locale, strict=True)
    _, drawn = drawn_texts(lambda: render_placement_preview(pv, "K03", names=NAMES, text=text))
    assert line in [d.text for d in drawn]
