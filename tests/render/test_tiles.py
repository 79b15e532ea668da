"""Memoized tiles (render/base.py ``tile``): boards drawn with tiles pasted from the memo are the
very pixels of boards drawn directly, for random playouts of every game, and the memo keeps to
its size."""

from __future__ import annotations

import random
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw

from bot.text import Texts
from engines.base import CHANCE
from engines.registry import ENGINES
from render import base
from render import registry as renders
from render.base import INK
from tests.render.direct import tiles_off

NAMES = {2: ["Ann", "李白"], 3: ["Ann", "李白", "さくら"], 4: ["Ann", "李白", "さくら", "Zoë"]}


def playout_views(game_id: str, players: int, seed: int, count: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``count`` (public view, a mover's own view) pairs spread over one random playout."""
    engine = ENGINES[game_id]
    rng = random.Random(seed)
    state = engine.new_game(players, seed)
    states = [state]
    for _ in range(2000):
        if engine.outcome(state) is not None:
            break
        to_move = engine.to_move(state)
        if CHANCE in to_move:
            state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
        else:
            seat = rng.choice(sorted(to_move))
            state, _ = engine.apply(state, seat, rng.choice(list(engine.legal_actions(state, seat))))
        states.append(state)
    picked = states[:: max(1, len(states) // count)][:count] + [states[-1]]
    out = []
    for s in picked:
        movers = sorted(engine.to_move(s) - {CHANCE}) or [0]
        out.append((engine.player_view(s, None), engine.player_view(s, movers[0])))
    return out


def images(game_id: str, views: list[tuple[dict[str, Any], dict[str, Any]]], names: list[str],
           locale: str) -> list[bytes]:
    """Every board, private and decision image of ``views``, as raw RGB bytes with their size."""
    text = Texts(game_id, names, locale)
    out: list[bytes] = []
    for public, own in views:
        drawn = [renders.board_image(game_id, public, names, text), renders.private_image(game_id, own, names, text),
                 renders.decision_image(game_id, own, names, text)]
        out += [repr(im.size).encode() + im.tobytes() for im in drawn if im is not None]
    return out


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_tiles_from_the_memo_give_the_pixels_drawn_directly(game_id: str) -> None:
    info = ENGINES[game_id].info
    base._clear_tiles()
    for players in sorted({info.min_players, max(info.min_players, min(4, info.max_players))}):
        names = NAMES[min(4, max(2, players))][:players] + [f"P{k}" for k in range(4, players)]
        views = playout_views(game_id, players, 7, 5) + playout_views(game_id, players, 8, 3)
        for locale in ("en", "ja"):
            tiled = images(game_id, views, names, locale)      # (the memo filled by earlier states)
            again = images(game_id, views, names, locale)      # (every tile from the memo)
            with tiles_off():
                direct = images(game_id, views, names, locale)
            assert len(tiled) == len(direct) >= len(views)
            for k, (a, b, c) in enumerate(zip(tiled, again, direct, strict=True)):
                assert a == c and b == c, f"{game_id} {players}p {locale}: image {k} differs with tiles from the memo"
    if game_id in ("ora", "eguan", "heaven"):
        assert base._tiles, f"{game_id} draws parts in tiles"


def _paint(colour: tuple[int, int, int]) -> base.Painter:
    def paint(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
        draw.rectangle((x + 2, y + 2, x + 7, y + 7), fill=colour)
        base.draw_text(draw, (x + 1, y + 12), "Ab", size=14)
    return paint


def test_a_tile_is_drawn_once_and_pasted_where_it_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    base._clear_tiles()
    calls: list[tuple[int, int]] = []
    red = _paint((200, 0, 0))

    def counted(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
        calls.append((x, y))
        red(draw, x, y)

    board, draw = base.canvas(60, 100)
    base.tile(draw, (10, 5), (30, 30), "k", counted)
    base.tile(draw, (50, 20), (30, 30), "k", counted)
    assert calls == [(base.TILE_PAD, base.TILE_PAD)]           # (painted once, on the padded tile)
    direct, ddraw = base.canvas(60, 100)
    red(ddraw, 10, 5)
    red(ddraw, 50, 20)
    assert board.tobytes() == direct.tobytes()
    other, odraw = base.canvas(60, 100)
    base.tile(odraw, (10, 5), (30, 30), "k", _paint((0, 0, 200)), bg=(255, 255, 255))  # (another bg: another tile)
    assert other.getpixel((14, 9)) == (0, 0, 200) and other.getpixel((10, 5)) == (255, 255, 255)


def test_a_painting_that_overflows_its_box_is_drawn_directly_every_time() -> None:
    base._clear_tiles()
    calls: list[tuple[int, int]] = []

    def long_line(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
        calls.append((x, y))
        base.draw_text(draw, (x + 2, y + 2), "a name longer than its card", size=14)

    board, draw = base.canvas(60, 300)
    base.tile(draw, (5, 5), (60, 20), "long", long_line)
    base.tile(draw, (5, 30), (60, 20), "long", long_line)
    assert calls == [(base.TILE_PAD, base.TILE_PAD), (5, 5), (5, 30)]  # (tried on a tile once, then on the board)
    direct, ddraw = base.canvas(60, 300)
    long_line(ddraw, 5, 5)
    long_line(ddraw, 5, 30)
    assert board.tobytes() == direct.tobytes()
    past = board.crop((70, 0, 300, 60))                         # (the text past the box is there)
    assert ImageChops.difference(past, Image.new("RGB", past.size, base.BG)).getbbox() is not None


def test_a_tile_kept_for_its_place_gives_the_pixels_of_float_corners_drawn_there() -> None:
    base._clear_tiles()
    calls: list[tuple[int, int]] = []

    def hexagon(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
        calls.append((x, y))
        draw.polygon([(x + 10.3 + 8.7 * k % 3, y + 3.1 + 5.55 * k) for k in range(6)], fill=(0, 90, 0), outline=INK)

    board, draw = base.canvas(90, 300)
    for xy in ((37, 11), (37, 11), (173, 45)):
        base.tile(draw, xy, (40, 40), "hex", hexagon, anywhere=False)
    assert calls == [(37, 11), (173, 45)]                        # (painted at its place, once a place)
    direct, ddraw = base.canvas(90, 300)
    hexagon(ddraw, 37, 11)
    hexagon(ddraw, 173, 45)
    assert board.tobytes() == direct.tobytes()


def test_the_memo_drops_the_least_recently_used_tiles_beyond_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    base._clear_tiles()
    monkeypatch.setattr(base, "TILE_BYTES", 3 * 10 * 10 * 3)   # (three 10 × 10 tiles)
    _, draw = base.canvas(20, 20)
    def square(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
        draw.rectangle((x + 1, y + 1, x + 8, y + 8), fill=(1, 2, 3))

    for key in ("a", "b", "c"):
        base.tile(draw, (0, 0), (10, 10), key, square)
    base.tile(draw, (0, 0), (10, 10), "a", square)             # ("a" used again: "b" is now the oldest)
    base.tile(draw, (0, 0), (10, 10), "d", square)
    assert sorted(k[0] for k in base._tiles) == ["a", "c", "d"]
    assert base._tile_bytes == 3 * 10 * 10 * 3
    base._clear_tiles()
    assert not base._tiles and base._tile_bytes == 0


def test_tiles_off_draws_directly() -> None:
    base._clear_tiles()
    with tiles_off():
        board, draw = base.canvas(20, 20)
        base.tile(draw, (3, 3), (10, 10), "x", _paint((9, 9, 9)))
    assert not base._tiles and board.getpixel((6, 6)) == (9, 9, 9)
    assert isinstance(board, Image.Image)
