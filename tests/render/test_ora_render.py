"""Render tests for Ora et Labora (render/ora.py): the shared board and the per-owner image
for solo, two-player, three- and four-player games at the start, in the middle and at the
end; deterministic, phone width, under the upload limit."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.text import Texts
from engines.base import CHANCE
from engines.ora import ENGINE as E
from engines.ora import NOTATION as N
from render.base import missing_glyphs, to_png
from render.ora import BOARD_W, ZOOM_W, render_board, render_owner, render_private, signed, sum_text
from render.registry import DEFAULT_LIMIT
from tests.render.direct import tiles_off

NAMES = ["Alice", "张伟", "さくら", "Bob"]


def _run(players: int, options: dict[str, Any], steps: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    st = E.new_game(players, seed, options)
    for _ in range(steps):
        movers = E.to_move(st)
        if not movers:
            break
        seat = min(movers)
        action = E.sample_chance(st, rng) if seat == CHANCE else rng.choice(list(E.legal_actions(st, seat)))
        st, _ = E.apply(st, seat, action)
    return st


CASES = [
    ("solo_start", 1, {}, 0), ("solo_mid", 1, {}, 90), ("solo_end", 1, {}, 10**6),
    ("two_mid", 2, {"variant": "ireland"}, 250), ("two_long_end", 2, {"mode": "long"}, 10**6),
    ("four_start", 4, {}, 1), ("four_mid", 4, {}, 260), ("four_end", 4, {"variant": "ireland"}, 10**6),
    ("three_short_end", 3, {"mode": "short"}, 10**6),
]


@pytest.mark.parametrize(("name", "players", "options", "steps"), CASES, ids=[c[0] for c in CASES])
def test_board_and_owner_images(tmp_path: Path, name: str, players: int, options: dict[str, Any],
                                steps: int) -> None:
    st = _run(players, options, steps)
    if steps >= 10**6:
        assert E.outcome(st) is not None
    names = NAMES[:players]
    text = Texts("ora", names)
    view = E.player_view(st, None)
    board = render_board(view, names=names, text=text)
    again = render_board(view, names=names, text=text)
    assert board.tobytes() == again.tobytes()
    assert board.width == BOARD_W and 600 < board.height < 1000
    data = to_png(board)
    assert len(data) < DEFAULT_LIMIT // 4
    (tmp_path / f"{name}.png").write_bytes(data)
    for seat in range(players):
        own = render_private(E.player_view(st, seat), names=names, text=text)
        assert own.width == ZOOM_W and own.height > 400
        (tmp_path / f"{name}_{seat}.png").write_bytes(to_png(own))


def test_neutral_landscape_and_no_formatter() -> None:
    st = _run(1, {}, 0)
    view = E.player_view(st, None)
    neutral = render_owner(view, 1, names=["Alice"])
    assert neutral.width == ZOOM_W
    plain = render_board(view, names=["Alice"])
    assert plain.width == BOARD_W


def test_names_in_every_script_have_glyphs() -> None:
    assert all(missing_glyphs(n) == [] for n in NAMES)


@pytest.mark.parametrize("lang", ["zh_TW", "ja"])
def test_translated_boards_draw_no_english_word(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    import render.ora as R

    drawn: list[str] = []
    real = R.draw_text

    def recording(draw: Any, xy: Any, s: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(s)
        return real(draw, xy, s, *args, **kwargs)

    monkeypatch.setattr(R, "draw_text", recording)
    for players, options, steps in ((4, {}, 400), (1, {}, 150), (2, {"variant": "ireland"}, 250)):
        st = _run(players, options, steps)
        names = NAMES[:players]
        text = Texts("ora", names, lang, strict=True)
        render_board(E.player_view(st, None), names=names, text=text)
        render_private(E.player_view(st, 0), names=names, text=text)
    allowed = {"Alice", "Bob"}
    english = sorted({w for s in drawn for w in re.findall(r"[A-Za-z]{2,}", s)} - allowed)
    assert len(drawn) > 300 and english == []


def test_a_negative_part_of_the_score_is_subtracted() -> None:
    """The score line of a player with a Shanty Town (dwelling −3) reads ``0 + 8 − 3``."""
    assert sum_text([0, 8, -3]) == "0 + 8 \u2212 3"
    assert sum_text([13, 44, 5]) == "13 + 44 + 5"
    assert sum_text([-2, 0]) == "\u22122 + 0"
    assert (signed(-4), signed(0), signed(7)) == ("\u22124", "0", "7")


def _drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Every string ``render.ora`` draws from now on, with its keyword arguments."""
    import render.ora as R

    drawn: list[tuple[str, dict[str, Any]]] = []
    real = R.draw_text

    def recording(draw: Any, xy: Any, s: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append((s, kwargs))
        return real(draw, xy, s, *args, **kwargs)

    monkeypatch.setattr(R, "draw_text", recording)
    return drawn


@pytest.mark.parametrize("lang", ["en", "zh_TW", "zh_CN", "ja"])
def test_every_wheel_value_is_drawn_whole(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """The board gives each wheel good's value as a chip "name value" (e.g. ja "ジョーカー 2"),
    drawn whole at 19 px."""
    from render.ora import good_name

    st = _run(4, {}, 1)
    view = E.player_view(st, None)
    text = Texts("ora", NAMES, lang, strict=True)
    drawn = _drawn(monkeypatch)
    render_board(view, names=NAMES, text=text)
    chips = {f"{good_name(text, e['good'])} {e['value']}" for e in view["wheel"]}
    assert chips <= {s for s, kw in drawn if kw.get("size") == 19}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_piece_on_a_landscape_is_named_whole(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """A landscape's image writes each piece's name in its cell or in the legend under it, never
    cut with '…' ("Cloister Courty…" before); every text there is at least 18 px."""
    from render.ora import piece_name

    st = _run(4, {}, 400)
    view = E.player_view(st, 0)
    text = Texts("ora", NAMES, lang, strict=True)
    drawn = _drawn(monkeypatch)
    for owner in view["owners"]:
        drawn.clear()
        with tiles_off():  # (every text drawn, none pasted from the memo)
            render_owner(view, owner["seat"], names=NAMES, text=text)
        joined = "".join(s for s, _ in drawn).replace(" ", "")
        pieces = [s["piece"] for s in owner["spaces"] if s["piece"]]
        assert pieces
        for piece in pieces:
            assert piece_name(text, piece).replace(" ", "") in joined, piece
        assert not any(s.endswith("…") for s, _ in drawn)
        assert min(kw.get("size", 22) for _, kw in drawn) >= 18


def test_the_board_keeps_its_height_all_game() -> None:
    """One height from the first round to the end (rows reserved for every wheel indicator
    and every seat): the message does not resize in the chat."""
    rng = random.Random(3)
    st = E.new_game(4, 3, {})
    text = Texts("ora", NAMES)
    heights = set()
    for step in range(3000):
        movers = E.to_move(st)
        if not movers:
            break
        seat = min(movers)
        if step % 25 == 0:
            heights.add(render_board(E.player_view(st, None), names=NAMES, text=text).height)
        action = E.sample_chance(st, rng) if seat == CHANCE else rng.choice(list(E.legal_actions(st, seat)))
        st, _ = E.apply(st, seat, action)
    heights.add(render_board(E.player_view(st, None), names=NAMES, text=text).height)
    assert E.outcome(st) is not None and len(heights) == 1


def test_every_zoom_region_draws_at_phone_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each "Look at…" region (my landscape first, the others, the display by stage, the wheel)
    draws ZOOM_W px wide with text of 18 px or more; an unknown region is a KeyError."""
    from render.ora import render_zoom, zoom_regions

    st = _run(4, {}, 260)
    view = E.player_view(st, 2)
    text = Texts("ora", NAMES, strict=True)
    regions = zoom_regions(view)
    keys = [k for k, _ in regions]
    assert keys[0] == "land:2" and text(regions[0][1]) == "My landscape"
    assert {"land:0", "land:1", "land:3", "wheel"} <= set(keys) and any(k.startswith("display:") for k in keys)
    drawn = _drawn(monkeypatch)
    with tiles_off():
        for key in keys:
            assert render_zoom(view, key, names=NAMES, text=text).width == ZOOM_W
    assert min(kw.get("size", 22) for _, kw in drawn) >= 18
    with pytest.raises(KeyError):
        render_zoom(view, "land:9", names=NAMES, text=text)


def seeded_decisions() -> Iterator[tuple[dict[str, Any], int, dict[str, Any]]]:
    """Each player decision (state, seat, the seat's view) of 400 steps of a seeded random
    4-player game."""
    rng = random.Random(5)
    st = E.new_game(4, 5, {})
    for _ in range(400):
        movers = E.to_move(st)
        if not movers:
            return
        seat = min(movers)
        if seat != CHANCE:
            yield st, seat, E.player_view(st, seat)
        action = E.sample_chance(st, rng) if seat == CHANCE else rng.choice(list(E.legal_actions(st, seat)))
        st, _ = E.apply(st, seat, action)


def test_the_decision_picture_numbers_what_the_labels_say() -> None:
    """A decision that picks places draws them numbered; each such action's label begins with
    its number, and the labels' numbers are the picture's, 1 to N."""
    from render.ora import draws_decision, render_decision

    text = Texts("ora", NAMES)
    seen = 0
    for st, seat, view in seeded_decisions():
        legal = list(E.legal_actions(st, seat))
        labels = [text(N.action_label(st, a)) for a in legal]
        numbers = {t["n"] for t in view["targets"]}
        led = {int(lab.split(" · ")[0]) for lab in labels if re.match(r"\d+ · ", lab)}
        assert led == numbers == set(range(1, len(numbers) + 1))
        for kind in {a["type"] for a in legal}:  # (a menu reads 1, 2, 3 … within each kind of action)
            run = [int(lab.split(" · ")[0]) for a, lab in zip(legal, labels, strict=True)
                   if a["type"] == kind and re.match(r"\d+ · ", lab)]
            assert run == sorted(run), (kind, run)
        image = render_decision(view, names=NAMES, text=text)
        assert draws_decision(view) == bool(numbers) == (image is not None)
        if image is not None:
            seen += 1
            assert image.width == ZOOM_W
    assert seen > 20


@pytest.mark.parametrize(("lang", "caption"), [
    ("en", "Grey spaces: room for a district or plot you may buy, its number on its top left space."),
    ("ja", "灰色のマス：買える地区や区画を置く場所。番号はその左上のマスにあります。")])
def test_the_slots_of_landscape_cards_to_buy_are_numbered_on_the_picture(lang: str, caption: str) -> None:
    """The buyer's landscape is drawn with grey spaces where a district or plot would go, each
    slot's number on its top left space (the labels' numbers, after the landscape's own places),
    a line saying so, and no coordinate labels (no "-1" beside the rows)."""
    from render.ora import render_decision
    from tests.engines.test_ora_rules import goods, new, skip_to
    from tests.render.text_sizes import drawn_texts

    st = skip_to(new(3), 1)
    goods(st, 1, coin=3, wood=3, clay=2)
    view = E.player_view(st, 1)
    text = Texts("ora", NAMES[:3], locale=lang)
    image, drawn = drawn_texts(lambda: render_decision(view, names=NAMES[:3], text=text))
    assert image is not None and image.width == ZOOM_W
    said = [d.text for d in drawn]
    assert caption.replace(" ", "") in "".join(said).replace(" ", "")  # (wrapped at a space)
    assert {str(n) for n in range(1, 25)} <= set(said)
    assert not {"-2", "-1", "0", "25"} & set(said)


@pytest.mark.parametrize("name,players,options,steps", [c for c in CASES if c[0] in ("solo_mid", "four_mid",
                                                                                       "four_end")])
def test_the_dm_thumbnail_is_a_summary_that_reads_at_its_size(name: str, players: int, options: dict[str, Any],
                                                              steps: int) -> None:
    """The DM turn notice's small board (render_thumbnail, 550 px wide like THUMBNAIL_WIDTH):
    the whole board scaled to 480 px had 4–12 px type; the summary's smallest type is 17 px
    (12 px on a 380 px phone), letter badges 16 px, and it names every seat's points."""
    from bot.render_pool import THUMBNAIL_WIDTH, RenderJob, render, small
    from render import registry
    from render.ora import THUMB_W, render_thumbnail
    from tests.render.text_sizes import drawn_texts

    view = E.player_view(_run(players, options, steps), None)
    text = Texts("ora", NAMES[:players], strict=True)
    image, seen = drawn_texts(lambda: render_thumbnail(view, names=NAMES[:players], text=text))
    assert image.width == THUMB_W == THUMBNAIL_WIDTH
    letters = [d for d in seen if d.text in "ABCDN"]
    assert min(d.size for d in seen if d not in letters) >= 17 and min(d.size for d in letters) >= 16
    drawn = " ".join(d.text for d in seen)
    for owner in view["owners"]:
        if not owner["neutral"]:
            assert f"{owner['score']['total']} pts" in drawn
    # the render workers send it for a DM notice (both ways a thumbnail is made)
    names = tuple(NAMES[:players])
    done = render(RenderJob("thumbnail", "ora", view, names, "en"))
    expected = registry.thumbnail_image("ora", view, names, Texts("ora", list(names)))
    assert done is not None and expected is not None and (done.data, done.ext) == registry.encode(expected)
    board = render(RenderJob("board", "ora", view, names, "en", thumbnail=True))
    assert board is not None and board.thumbnail is not None
    assert board.thumbnail == registry.encode(small(expected))


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_numbered_building_stays_named_on_the_decision_picture(lang: str) -> None:
    """A decision's number on a space with a building or settlement does not take the place of its
    id and name: both are written (the name in the space, or in the key under the landscape when
    the space is too small for it) and no text covers another."""
    from render.ora import piece_name, render_decision
    from tests.render.text_sizes import layout, overlaps

    text = Texts("ora", NAMES, lang, strict=True)
    checked = 0
    for _, _, view in seeded_decisions():
        pieces = {(o["seat"], s["x"], s["y"]): s["piece"] for o in view["owners"] for s in o["spaces"] if s["piece"]}
        numbered = [pieces[(t["owner"], t["x"], t["y"])] for t in view.get("targets") or []
                    if (t["owner"], t["x"], t["y"]) in pieces]
        if numbered:
            _, shown = layout(partial(render_decision, view, names=NAMES, text=text))
            assert shown is not None
            strings = [t.text for t in shown.texts]
            joined = "".join(strings).replace(" ", "")
            for piece in numbered:
                assert piece in strings or any(s.startswith(f"{piece} ") for s in strings), piece
                assert piece_name(text, piece).replace(" ", "") in joined, piece
            assert overlaps(shown) == []
            checked += 1
    assert checked > 10
