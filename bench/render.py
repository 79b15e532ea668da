"""Render-side bench: drawing, encoding and the DM thumbnail of every game's boards, variants side by side
(CPU per move ≤ 25 ms, of which the render workers' share is drawing + encoding + thumbnail).

Usage: ``python -m bench.render [--game <game_id>|all] [--views 8] [--repeat 3] [--seed 1]
[--encoders main,...] [--thumbnails main,...] [--draw]``; ``--moves N [--png-before TREE]`` (boards of
consecutive moves, ``bench_moves``); ``--decisions N`` (decision jobs, ``bench_decisions``). With
``--moves`` or ``--decisions``, ``--before TREE`` (a git worktree of an older commit) runs the same first
on that tree's code and prints both side by side: draw and encode CPU per game, and how many of the
images the two trees encoded to the same bytes (``DIGESTS``).

For every game, ``--views`` public views spread over random playouts (``bench.bot_latency.playout_views``,
3 players where allowed) are drawn once to warm the memos (a worker has them warm after its first boards),
then every variant is run on every view ``--repeat`` times, the variants interleaved per view so a drift of
the shared machine's load hits them alike. Times are CPU time of this thread (``time.thread_time``: what the
CPU budget per move counts, and less disturbed by other processes than wall time), medians over the views
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
import hashlib
import io
import itertools
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

from bench.bot_latency import playout_views, random_step
from bot.render_pool import small
from bot.text import Texts
from engines.registry import ENGINES
from render import base
from render import registry as renders
from tests.render.direct import tiles_off

try:
    from render import png
except ImportError:  # (an older tree measured with --before: no fixed palettes)
    png = None  # type: ignore[assignment]

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


DIGESTS: dict[str, list[str]] = {}
"""By game, a digest of each image this tree encoded in ``bench_moves`` and ``bench_decisions`` (in
order: the same boards and jobs in every tree), to tell whether another tree made the same bytes."""


def playout_moves(game_id: str, count: int, seed: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Up to ``count`` public views of one random playout (random legal actions, 3 players if allowed), in
    order, each differing from the one before: the boards a game's updates draw one after another."""
    engine = ENGINES[game_id]
    players = max(engine.info.min_players, min(3, engine.info.max_players))
    names = [f"Player {k + 1}" for k in range(players)]
    rng = random.Random(seed)
    state = engine.new_game(players, seed)
    views: list[dict[str, Any]] = [engine.player_view(state, None)]
    for _ in range(5000):
        if engine.outcome(state) is not None or len(views) >= count:
            break
        state = random_step(engine, state, rng)
        view = engine.player_view(state, None)
        if view != views[-1]:
            views.append(view)
    return views, names


def corpus(game_id: str, seeds: Sequence[int], every: int = 6, kind: str = "board") -> list[Image.Image]:
    """Boards and a seat's private images of random playouts (one in ``every`` states) of each seed, at
    each player count the game allows (the seat colours of a full table too); with ``kind`` "decision"
    instead the images of every pending decision of those states (``render_decision``: E Guan's
    placement previews), of each seat to move."""
    engine = ENGINES[game_id]
    out: list[Image.Image] = []
    for seed, players in itertools.product(seeds, range(engine.info.min_players, engine.info.max_players + 1)):
        names = [f"Player {k + 1}" for k in range(players)]
        rng, state, step = random.Random(seed), engine.new_game(players, seed), 0
        text = Texts(game_id, names)
        while engine.outcome(state) is None and step < 3000:
            if step % every == 0 and kind == "decision":
                for seat in sorted(s for s in engine.to_move(state) if isinstance(s, int) and s >= 0):
                    image = renders.decision_image(game_id, engine.player_view(state, seat), names, text)
                    if image is not None:
                        out.append(image)
            elif step % every == 0:
                out.append(renders.board_image(game_id, engine.player_view(state, None), names, text))
                private = renders.private_image(game_id, engine.player_view(state, step % players), names, text)
                if private is not None:
                    out.append(private)
            state = random_step(engine, state, rng)
            step += 1
        if kind != "decision":
            out.append(renders.board_image(game_id, engine.player_view(state, None), names, text))
    return out


EXACT_SHARE = 0.0001
"""A colour covering at least this share of a game's corpus (a flat colour: a background, a panel, a
seat's colour) goes into its fixed palette exactly (at most ``EXACT_MAX`` of them)."""

EXACT_MAX = 128


def make_palette(images: Sequence[Image.Image]) -> list[str]:
    """A fixed palette (``render.png``) for ``images``: their frequent colours exactly (``EXACT_SHARE``),
    the rest of 256 chosen by median cut over the others, each colour once (seen twice at least)."""
    counts: dict[Any, int] = {}
    for image in images:
        for n, colour in image.convert("RGB").getcolors(1 << 18) or []:
            counts[colour] = counts.get(colour, 0) + n
    total = sum(counts.values())
    exact = sorted((c for c, n in counts.items() if n >= EXACT_SHARE * total), key=lambda c: -counts[c])[:EXACT_MAX]
    rest = [(c, n) for c, n in counts.items() if c not in set(exact)]
    # the remaining colours (the anti-aliasing ramps), one pixel each: a ramp's rare steps count as much
    # as a common one
    pixels = [c for c, n in rest if n >= 2] or [c for c, _ in rest]
    strip = Image.new("RGB", (len(pixels), 1))
    strip.putdata(pixels)
    free = 256 - len(exact)
    chosen = strip.quantize(free, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    flat = (chosen.getpalette() or [])[:3 * free]
    others = [tuple(flat[i:i + 3]) for i in range(0, len(flat), 3)]
    used = {i for _, i in chosen.getcolors(256) or [] if isinstance(i, int)}
    colours = list(dict.fromkeys([*exact, *(others[i] for i in sorted(used))]))[:256]
    # Pillow maps a pixel to the palette through a cache of coarse colour cells, so an exact colour can
    # come out as another entry near it (the background a few levels off): drop such entries (a rarer
    # exact colour too) until every exact colour left maps to itself
    for _ in range(256):
        strip = Image.new("RGB", (len(exact), 1))
        strip.putdata(exact)
        fixed = Image.new("P", (1, 1))
        fixed.putpalette([v for c in colours for v in c] + list(colours[-1]) * (256 - len(colours)))
        mapped = strip.quantize(palette=fixed, dither=Image.Dither.NONE).tobytes()
        rank = {c: k for k, c in enumerate(exact)}  # (the commoner colour keeps its cell)
        wrong = {colours[min(i, len(colours) - 1)] for c, i in zip(exact, mapped, strict=True)
                 if colours[min(i, len(colours) - 1)] != c and rank.get(colours[min(i, len(colours) - 1)], 999) > rank[c]}
        if not wrong:
            break
        colours = [c for c in colours if c not in wrong]
    return [f"{r:02x}{g:02x}{b:02x}" for r, g, b in colours]


def make_palettes(games: Sequence[str], seeds: Sequence[int], kind: str = "board") -> None:
    """Write ``render/palettes.json`` for ``games`` (kept for the others and the other kind), from
    ``corpus`` of ``seeds``: the palettes of their boards and private images, or with ``kind``
    "decision" of their decisions' images (``render.png.palette_key``; a game drawing none gets none)."""
    import json

    data = json.loads(png.PALETTES.read_text(encoding="utf-8")) if png.PALETTES.exists() else {}
    for game_id in games:
        images = corpus(game_id, seeds, every=1 if kind == "decision" else 6, kind=kind)  # (decisions are rarer)
        if not images:
            continue
        key = png.palette_key(game_id, "decision" if kind == "decision" else "board")
        data[key] = make_palette(images)
        print(f"{key}: {len(data[key])} colours from {len(images)} images")
    png.PALETTES.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    png._palettes.cache_clear()
    png.palette.cache_clear()


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
            with tiles_off():
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


def bench_moves(game_id: str, args: argparse.Namespace) -> dict[str, float]:
    """``--moves``: the boards of ``--tables`` random playouts drawn move after move, the tables taking
    turns, each board sent to one of ``--workers`` simulated workers in turn (each with its own memos
    of render/png.py where the tree's encoder has them, cold at the start); per board the CPU of the draw,
    of ``base.to_png`` (a palette sampled per board) and of this tree's encoder (``renders.encode`` with
    the game: the fixed palette), timed once each (a repeat would find a memo warm).
    Returns the means in ms (``draw``, ``before``, ``after``); on a tree without render/png.py
    ``after`` is its own ``renders.encode``. With ``--png-before TREE`` also the encoder of that tree's
    render/png.py (``png-before``: its own memos per simulated worker), timed on the same boards
    interleaved with this tree's (which goes first alternates board by board), and the count of boards
    whose bytes differ between the two."""
    tables = [playout_moves(game_id, args.moves, args.seed + t) for t in range(args.tables)]
    order = [(views[i], names) for i in range(args.moves) for views, names in tables if i < len(views)]
    # (each simulated worker's own memos of render/png.py: the bands, and where the tree has them, the last
    # boards; fresh and empty at the start)
    state = [name for name in ("_bands", "_band_bytes", "_boards", "_board_bytes") if png and hasattr(png, name)]
    memos: list[dict[str, Any]] = [{name: type(getattr(png, name))() for name in state} for _ in range(args.workers)]
    rows: dict[str, list[float]] = {"draw": [], "before": [], "after": []}
    old = _png_of(args.png_before) if getattr(args, "png_before", "") else None
    banded = old is not None and hasattr(old, "_bands")  # (an encoder with memoized bands)
    old_memos: list[tuple[Any, int]] = [(type(old._bands)(), 0) if banded else (None, 0) for _ in range(args.workers)]
    if old is not None:
        rows["png-before"] = []
    differ = 0
    sizes: dict[str, list[int]] = {"before": [], "after": []}
    errors: dict[str, list[tuple[int, float]]] = {"before": [], "after": []}
    after: Callable[[Image.Image], tuple[bytes, str]] = (
        functools.partial(renders.encode, limit=renders.DEFAULT_LIMIT, game_id=game_id) if png else renders.encode)
    for k, (view, names) in enumerate(order):
        t, image = cpu(functools.partial(draw, game_id, view, names), 1)
        rows["draw"].append(t)
        t, data = cpu(functools.partial(base.to_png, image), 1)
        rows["before"].append(t)
        sizes["before"].append(len(data))
        errors["before"].append(fidelity(image, data) if k % 5 == 0 else (0, 0.0))
        worker = k % args.workers
        if old is not None and k % 2:
            if banded:
                old._bands, old._band_bytes = old_memos[worker]
            t, previous = cpu(functools.partial(old.encode, image, game_id), 1)
            if banded:
                old_memos[worker] = (old._bands, old._band_bytes)
            rows["png-before"].append(t)
        for name, value in memos[worker].items():
            setattr(png, name, value)
        t, (data, _) = cpu(functools.partial(after, image), 1)
        memos[worker] = {name: getattr(png, name) for name in state}
        if old is not None and not k % 2:
            if banded:
                old._bands, old._band_bytes = old_memos[worker]
            t_old, previous = cpu(functools.partial(old.encode, image, game_id), 1)
            if banded:
                old_memos[worker] = (old._bands, old._band_bytes)
            rows["png-before"].append(t_old)
        if old is not None:
            differ += _pixels(previous) != _pixels(data)
        rows["after"].append(t)
        DIGESTS.setdefault(game_id, []).append(hashlib.sha256(data).hexdigest()[:16])
        sizes["after"].append(len(data))
        errors["after"].append(fidelity(image, data) if k % 5 == 0 else (0, 0.0))
    means = {name: statistics.fmean(spent) * 1000 for name, spent in rows.items()}
    for name, spent in rows.items():
        extra = ""
        if name in sizes:
            worst = max(e[0] for e in errors[name])
            share = max(e[1] for e in errors[name])
            extra = f"{statistics.median(sizes[name]) / 1024:>8.0f}{worst:>7}{share * 100:>8.2f}"
        label = {"draw": "draw", "before": "encode palette per board", "after": "encode this tree",
                 "png-before": "encode --png-before"}[name]
        print(f"{game_id:<13}{label:<26}{means[name]:>8.1f}{statistics.median(spent) * 1000:>8.1f}{extra}")
    if old is not None:
        print(f"{game_id:<13}{'(boards whose pixels differ)':<26}{differ:>8}")
        getattr(old, "clear", lambda: None)()
    if png:
        getattr(png, "clear", lambda: None)()
    return means


def bench_decisions(game_id: str, args: argparse.Namespace) -> dict[str, float]:
    """``--decisions``: up to that many decision jobs (``bot.render_pool.render`` of kind "decision": E
    Guan's placement previews) of ``--tables`` random playouts in order, each seat to move's preview at
    each state, drawn and encoded as ``bot.render_pool.render`` does (the decisions' fixed palette; its own
    render/png.py memos, as a worker has) and with a palette chosen per image (``render.base.to_png``),
    interleaved (which goes first alternates); the CPU of the whole job (draw and encode), the bytes and
    the fidelity. Then each job's drawing and its encoding against the fixed palette timed apart (as
    ``bot.render_pool.render`` does them): their means in ms are returned (``draw``, ``encode``; empty
    when the game draws no decision)."""
    from bot import render_pool

    engine = ENGINES[game_id]
    players = max(engine.info.min_players, min(3, engine.info.max_players))
    names = tuple(f"Player {k + 1}" for k in range(players))
    jobs: list[render_pool.RenderJob] = []
    for table in range(args.tables):
        rng, state = random.Random(args.seed + table), engine.new_game(players, args.seed + table)
        for _ in range(3000):
            if engine.outcome(state) is not None or len(jobs) >= args.decisions * (table + 1) // args.tables:
                break
            for seat in sorted(s for s in engine.to_move(state) if isinstance(s, int) and s >= 0):
                job = render_pool.RenderJob("decision", game_id, engine.player_view(state, seat), names)
                if renders.decision_image(game_id, job.view, names, Texts(game_id, list(names))) is not None:
                    jobs.append(job)
            state = random_step(engine, state, rng)
    if not jobs:
        return {}
    def own_palette(job: render_pool.RenderJob) -> render_pool.Rendered | None:
        """The job drawn as ``render_pool.render`` draws it, encoded against a palette of its own."""
        drawn = renders.decision_image(game_id, job.view, job.names, Texts(game_id, list(job.names), job.locale))
        return None if drawn is None else render_pool.Rendered(*renders.encode(drawn, job.limit))

    rows: dict[bool, list[float]] = {False: [], True: []}
    sizes: dict[bool, list[int]] = {False: [], True: []}
    errors: dict[bool, list[tuple[int, float]]] = {False: [], True: []}
    getattr(png, "clear", lambda: None)()
    try:
        for k, job in enumerate(jobs):
            image = renders.decision_image(game_id, job.view, names, Texts(game_id, list(names)))
            for on in ((False, True) if k % 2 else (True, False)):
                t, done = cpu(functools.partial(render_pool.render if on else own_palette, job), 1)
                rows[on].append(t)
                sizes[on].append(len(done.data))
                errors[on].append(fidelity(image, done.data))
    finally:
        getattr(png, "clear", lambda: None)()
    for on in (False, True):
        label = "decision job, " + ("fixed palette" if on else "own palette")
        worst = max(e[0] for e in errors[on])
        share = max(e[1] for e in errors[on])
        print(f"{game_id:<13}{label:<30}{statistics.fmean(rows[on]) * 1000:>8.1f}"
              f"{statistics.median(rows[on]) * 1000:>8.1f}{statistics.median(sizes[on]) / 1024:>8.0f}"
              f"{worst:>7}{share * 100:>8.2f}")
    print(f"{game_id:<13}{'(decision jobs)':<30}{len(jobs):>8}")
    apart: dict[str, list[float]] = {"draw": [], "encode": []}
    key = png.palette_key(game_id, "decision") if png else None
    for job in jobs:
        t, image = cpu(functools.partial(renders.decision_image, game_id, job.view, job.names,
                                         Texts(game_id, list(job.names), job.locale)), 1)
        apart["draw"].append(t)
        t, (data, _) = cpu(functools.partial(renders.encode, image, job.limit, key) if key else
                           functools.partial(renders.encode, image, job.limit), 1)
        apart["encode"].append(t)
        DIGESTS.setdefault(game_id, []).append(hashlib.sha256(data).hexdigest()[:16])
    means = {name: statistics.fmean(spent) * 1000 for name, spent in apart.items()}
    for name, value in means.items():
        print(f"{game_id:<13}{name + ' apart':<30}{value:>8.1f}{statistics.median(apart[name]) * 1000:>8.1f}")
    return means


def _pixels(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as decoded:
        return decoded.convert("RGB").tobytes()


def _png_of(tree: str) -> Any:
    """The module render/png.py of ``tree`` (another worktree), loaded beside this tree's (its own
    palettes.json, its own memos)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("png_before", Path(tree) / "render" / "png.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no render/png.py in {tree}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_before(args: argparse.Namespace, mode: list[str]) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    """This script with ``mode`` (``--moves N`` or ``--decisions N``) and the run's other options run on
    the code of the tree ``--before`` (bench/trees.py ``in_tree``), first: its means and its digests
    (``DIGESTS``) by game."""
    import json
    import tempfile

    from bench.trees import in_tree

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "before.json"
        done = in_tree(Path(args.before), Path(__file__).resolve(), [
            "--game", args.game, *mode, "--tables", str(args.tables),
            "--workers", str(args.workers), "--seed", str(args.seed), "--json-out", str(out)])
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"the --before tree failed:\n{done.stderr[-3000:]}")
        data = json.loads(out.read_text(encoding="utf-8"))
    return data["means"], data["digests"]


def tree_name(tree: str) -> str:
    """The commit ``tree`` (a git worktree) has checked out, short (a results file names no machine path)."""
    import subprocess

    done = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "the --before tree"


def same_bytes(before: dict[str, list[str]], game_id: str) -> str:
    """"n of m": how many of the images of ``game_id`` the tree before encoded to the same bytes as this one."""
    mine, theirs = DIGESTS.get(game_id, []), before.get(game_id, [])
    return f"{sum(a == b for a, b in zip(mine, theirs, strict=False))} of {max(len(mine), len(theirs))}"


def write_json(path: str, means: dict[str, dict[str, float]]) -> None:
    """``--json-out``: the means and ``DIGESTS`` by game."""
    import json

    Path(path).write_text(json.dumps({"means": means, "digests": DIGESTS}), encoding="utf-8")


def side_by_side(title: str, rows: Sequence[tuple[str, dict[str, float], dict[str, float], str, str]]) -> None:
    """Print ``title`` and per game ``(game_id, before, after, encode key, same bytes)``: draw, encode
    (the figure under the encode key) and their sum, before and after."""
    print(f"\n{title}")
    print(f"{'game':<13}{'draw before':>12}{'draw after':>12}{'enc before':>12}{'enc after':>12}"
          f"{'total before':>14}{'total after':>13}  same bytes")
    for game_id, b, a, enc, same in rows:
        print(f"{game_id:<13}{b['draw']:>12.1f}{a['draw']:>12.1f}{b[enc]:>12.1f}{a[enc]:>12.1f}"
              f"{b['draw'] + b[enc]:>14.1f}{a['draw'] + a[enc]:>13.1f}  {same}")


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
    parser.add_argument("--moves", type=int, default=0,
                        help="instead: boards of consecutive moves, encoded by d25d10b's encoder and this tree's")
    parser.add_argument("--tables", type=int, default=4, help="with --moves: playouts taking turns (default 4)")
    parser.add_argument("--workers", type=int, default=2, help="with --moves: simulated render workers (default 2)")
    parser.add_argument("--before", default="", help="with --moves or --decisions: also run them on that tree's code first "
                        "(a git worktree of the older commit) and print both side by side")
    parser.add_argument("--decisions", type=int, default=0,
                        help="instead: that many decision jobs of the games that draw them, fixed palette off and on")
    parser.add_argument("--png-before", default="", help="with --moves: also time that tree's render/png.py "
                        "encoder on the same boards, interleaved with this tree's")
    parser.add_argument("--json-out", default="", help="with --moves or --decisions: write the means and digests by game here (JSON)")
    parser.add_argument("--make-palettes", action="store_true",
                        help="instead: write render/palettes.json for --game from random playouts (seed 11, every player count)")
    parser.add_argument("--kind", choices=("board", "decision"), default="board",
                        help="with --make-palettes: the palettes of boards and private images (default) or of decisions' images")
    args = parser.parse_args(argv)
    games = sorted(ENGINES) if args.game == "all" else [args.game]
    unknown = [g for g in games if g not in ENGINES] + [e for e in args.encoders.split(",") if e not in ENCODERS] + [
        t for t in args.thumbnails.split(",") if t and t not in THUMBNAILS]
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}")
    if args.make_palettes:
        make_palettes(games, [11], args.kind)
        return 0
    if args.decisions:
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; CPU ms (thread time) a job, "
              f"{args.tables} tables")
        print(f"{'game':<13}{'what':<30}{'mean':>8}{'median':>8}{'KiB':>8}{'worst':>7}{'% >8':>8}")
        before, digests = run_before(args, ["--decisions", str(args.decisions)]) if args.before else ({}, {})
        means = {game_id: bench_decisions(game_id, args) for game_id in games if renders.has_decision(game_id)}
        if args.json_out:
            write_json(args.json_out, means)
        if before:
            side_by_side(f"A decision job (draw, then encode against the fixed palette), CPU ms mean: "
                         f"{tree_name(args.before)} and this tree",
                         [(game_id, before[game_id], a, "encode", same_bytes(digests, game_id))
                          for game_id, a in means.items() if a and before.get(game_id)])
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        return 0
    if args.moves:
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs; "
              f"CPU ms (thread time) a board, {args.tables} tables × up to {args.moves} moves, "
              f"{args.workers} workers; fidelity of one board in 5")
        before, digests = run_before(args, ["--moves", str(args.moves)]) if args.before else ({}, {})
        print(f"{'game':<13}{'what':<26}{'mean':>8}{'median':>8}{'KiB':>8}{'worst':>7}{'% >8':>8}")
        means = {game_id: bench_moves(game_id, args) for game_id in games}
        if args.json_out:
            write_json(args.json_out, means)
        if before:
            side_by_side(f"A board (draw + encode), CPU ms mean: {tree_name(args.before)} (its own draw and encoder) "
                         f"and this tree",
                         [(game_id, before[game_id], means[game_id], "after", same_bytes(digests, game_id))
                          for game_id in games])
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        return 0
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs; "
          f"CPU ms (thread time), medians of {args.views} views, best of {args.repeat}")
    print(f"{'game':<13}{'what':<26}{'ms':>8}{'KiB':>8}{'worst':>7}{'% >8':>8}")
    for game_id in games:
        bench_game(game_id, args)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
