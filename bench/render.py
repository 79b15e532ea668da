"""Render-side bench: drawing, encoding and the DM thumbnail of every game's boards, variants side by side
(issue 14: CPU per move ≤ 25 ms, of which the render workers' share is drawing + encoding + thumbnail).

Usage: ``python -m bench.render [--game <game_id>|all] [--views 8] [--repeat 3] [--seed 1]
[--encoders main,...] [--thumbnails main,...] [--draw]``

For every game, ``--views`` public views spread over random playouts (``bench.bot_latency.playout_views``,
3 players where allowed) are drawn once to warm the memos (a worker has them warm after its first boards),
then every variant is run on every view ``--repeat`` times, the variants interleaved per view so a drift of
the shared machine's load hits them alike. Times are CPU time of this thread (``time.thread_time``: what the
issue's CPU budget counts, and less disturbed by other processes than wall time), medians over the views
(each view's best of its repeats). This is a script, not a test.

* encode (``ENCODERS``): RGB board → PNG bytes; reported as ms, KiB, the largest error of a channel and the
  share of pixels off by more than 8 against the RGB board (``render.base.palette_image`` fidelity);
* thumbnail (``THUMBNAILS``): RGB board → the small copy of a DM turn notice, encoded;
* ``--draw``: the drawing itself, with and without the tile memo (``render.base.tile``) where
  the game has one, and whether both give the same pixels; with the encoders ``main`` and
  ``base.to_png`` also a board's draw + encode before (main: no tiles, main's encoder) and after.
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image, ImageChops

from bench.bot_latency import playout_views
from bot.render_pool import small
from bot.text import Texts
from engines.registry import ENGINES
from render import base
from render import registry as renders

Q, N = Image.Quantize.FASTOCTREE, Image.Dither.NONE


def _zlib(image: Image.Image, level: int, strategy: int = -1) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=False, compress_level=level, compress_type=strategy)
    return buf.getvalue()


def _sampled(image: Image.Image, shrink: Callable[[Image.Image], Image.Image]) -> Image.Image:
    palette = shrink(image).quantize(256, method=Q, dither=N)
    return image.quantize(palette=palette, dither=N)


def _reduce3(image: Image.Image) -> Image.Image:
    return image.reduce(3)


def _nearest3(image: Image.Image) -> Image.Image:
    return image.resize((image.width // 3, image.height // 3), Image.Resampling.NEAREST)


ENCODERS: dict[str, Callable[[Image.Image], bytes]] = {
    "main": lambda im: _zlib(_sampled(im, _reduce3), 3),            # main as this branch found it
    "rgb-png": lambda im: _zlib(im, 3),                              # no palette (for reference)
    "octree-all": lambda im: _zlib(im.quantize(256, method=Q, dither=N), 3),
    "nearest3": lambda im: _zlib(_sampled(im, _nearest3), 3),
    "level1": lambda im: _zlib(_sampled(im, _reduce3), 1),
    "rle": lambda im: _zlib(_sampled(im, _reduce3), 9, 3),          # zlib Z_RLE (the level does not matter)
    "nearest3-level1": lambda im: _zlib(_sampled(im, _nearest3), 1),
    "nearest3-rle": lambda im: _zlib(_sampled(im, _nearest3), 9, 3),
    "base.to_png": base.to_png,                                      # this tree's encoder
}
"""Encoders of an RGB board, by name."""


def _small_480(image: Image.Image) -> Image.Image:
    """main's ``bot.render_pool.small``: 480 px wide, a box filter then a bilinear resize."""
    height = max(1, round(image.height * 480 / image.width))
    if image.width // 480 >= 2:
        image = image.reduce(image.width // 480)
    return image.resize((480, height), Image.Resampling.BILINEAR)


THUMBNAILS: dict[str, Callable[[Image.Image], bytes]] = {
    "main": lambda im: ENCODERS["main"](_small_480(im)),             # main: 480 px, encoded as main did
    "480+to_png": lambda im: base.to_png(_small_480(im)),            # 480 px, this tree's encoder
    "small+to_png": lambda im: base.to_png(small(im)),               # this tree's small() and encoder
}
"""DM thumbnails (scaled and encoded) of an RGB board, by name."""


def fidelity(image: Image.Image, png: bytes) -> tuple[int, float]:
    """(the largest error of a channel, the share of pixels off by more than 8) of ``png`` against ``image``."""
    with Image.open(io.BytesIO(png)) as decoded:
        back = decoded.convert("RGB")
    if back.size != image.size:
        return -1, float("nan")
    diff = ImageChops.difference(back, image).convert("L")
    histogram = diff.histogram()
    worst = max((v for v in range(256) if histogram[v]), default=0)
    return worst, sum(histogram[9:]) / (image.width * image.height)


def cpu(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """(the least CPU seconds of ``repeat`` calls of ``fn``, its last result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.thread_time()
        out = fn()
        best = min(best, time.thread_time() - t)
    return best, out


def draw(game_id: str, view: dict[str, Any], names: Sequence[str]) -> Image.Image:
    """The board of ``view`` as the workers draw it."""
    return renders.board_image(game_id, view, names, Texts(game_id, list(names)))


def bench_game(game_id: str, args: argparse.Namespace) -> None:
    views = playout_views(game_id, args.views, args.seed)
    images = [draw(game_id, v, n) for v, n in views]   # (warm: memos, fonts)
    ms: dict[str, float] = {}
    if args.draw:
        rows: dict[str, list[float]] = {"draw": [], "draw-uncached": []}
        same = True
        for view, names in views:
            t, image = cpu(functools.partial(draw, game_id, view, names), args.repeat)
            rows["draw"].append(t)
            with base.tiles_off():
                t, plain = cpu(functools.partial(draw, game_id, view, names), args.repeat)
            rows["draw-uncached"].append(t)
            same = same and image.tobytes() == plain.tobytes() and image.size == plain.size
        for name, spent in rows.items():
            ms[name] = statistics.median(spent) * 1000
            print(f"{game_id:<13}{name:<26}{ms[name]:>8.1f}")
        print(f"{game_id:<13}{'(same pixels)':<26}{'yes' if same else 'NO':>8}")
    encoders = args.encoders.split(",")
    times: dict[str, list[float]] = {e: [] for e in encoders}
    sizes: dict[str, list[int]] = {e: [] for e in encoders}
    errors: dict[str, list[tuple[int, float]]] = {e: [] for e in encoders}
    for image in images:
        for name in encoders:
            t, data = cpu(functools.partial(ENCODERS[name], image), args.repeat)
            times[name].append(t)
            sizes[name].append(len(data))
            errors[name].append(fidelity(image, data))
    for name in encoders:
        ms[name] = statistics.median(times[name]) * 1000
        worst = max(e[0] for e in errors[name])
        share = max(e[1] for e in errors[name])
        print(f"{game_id:<13}{'encode ' + name:<26}{ms[name]:>8.1f}{statistics.median(sizes[name]) / 1024:>8.0f}"
              f"{worst:>7}{share * 100:>8.2f}")
    if {"draw", "main", "base.to_png"} <= set(ms):
        print(f"{game_id:<13}{'board before (main)':<26}{ms['draw-uncached'] + ms['main']:>8.1f}")
        print(f"{game_id:<13}{'board after (this tree)':<26}{ms['draw'] + ms['base.to_png']:>8.1f}")
    thumbs = [t for t in args.thumbnails.split(",") if t]
    ttimes: dict[str, list[float]] = {t: [] for t in thumbs}
    tsizes: dict[str, list[int]] = {t: [] for t in thumbs}
    for image in images:
        for name in thumbs:
            t, data = cpu(functools.partial(THUMBNAILS[name], image), args.repeat)
            ttimes[name].append(t)
            tsizes[name].append(len(data))
    for name in thumbs:
        print(f"{game_id:<13}{'thumbnail ' + name:<26}{statistics.median(ttimes[name]) * 1000:>8.1f}"
              f"{statistics.median(tsizes[name]) / 1024:>8.0f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="all", help="a game id or 'all' (default)")
    parser.add_argument("--views", type=int, default=8, help="random-playout views per game (default 8)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each variant per view, best kept (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--encoders", default="main,base.to_png", help=f"comma-separated, of {', '.join(ENCODERS)}")
    parser.add_argument("--thumbnails", default="main,small+to_png",
                        help=f"comma-separated (empty: none), of {', '.join(THUMBNAILS)}")
    parser.add_argument("--draw", action="store_true", help="also time the drawing, with the tile memo and without")
    args = parser.parse_args(argv)
    games = sorted(ENGINES) if args.game == "all" else [args.game]
    unknown = [g for g in games if g not in ENGINES] + [e for e in args.encoders.split(",") if e not in ENCODERS] + [
        t for t in args.thumbnails.split(",") if t and t not in THUMBNAILS]
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs; "
          f"CPU ms (thread time), medians of {args.views} views, best of {args.repeat}")
    print(f"{'game':<13}{'what':<26}{'ms':>8}{'KiB':>8}{'worst':>7}{'% >8':>8}")
    for game_id in games:
        bench_game(game_id, args)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
