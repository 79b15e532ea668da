"""Images drawn and encoded off the event loop, in worker processes.

A ``RenderJob`` is plain, picklable data (the game id, the view, the seats' names, the
reader's locale, the upload limit); ``render`` turns it into encoded bytes. ``Renderer`` runs
jobs in a ``concurrent.futures.ProcessPoolExecutor`` of ``Settings.render_workers`` processes
(``RENDER_WORKERS``), so drawing and PNG encoding leave the bot's interpreter lock and its
FreeType faces live in the workers (each worker opens a face once, on first use: the
``render.base.font`` cache); with 0 workers (the tests' default) jobs run in threads of this
process.

Priority (private images must not wait behind public boards, ``Slots``): at most ``workers``
public boards are drawn at once; one more slot (and one more worker process) is kept for
private images (a seat's hand, E Guan's placement preview, the caller's private view). So a
private image waits for no board at all, only for the private images before it.

The AI has its own pool (bot/ui/ai.py): a search takes up to seconds, a board tens of
milliseconds, so sharing one would queue boards behind thinking.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Literal

from bot.workers import pids, worker_pool

log = logging.getLogger(__name__)

Kind = Literal["board", "thumbnail", "private", "decision", "zoom"]
"""What a job draws: the public board (``render_board``), the public board small (DM turn
notices: the game's ``render_thumbnail`` where it has one, else the board scaled), a seat's private view (``render_private``), its pending decision
(``render_decision``), or one part of the table at phone size for a reader who asked to look at it
(``render_zoom``, the region ``RenderJob.region``; bot/ui/looks.py)."""

RENDER_THREADS = 2
"""Public images drawn at once in threads when there are no worker processes. Rendering is
mostly GIL-bound Python: more threads add no throughput but starve the event loop and the
database thread (bench/bot_latency.py)."""

THUMBNAIL_WIDTH = 550
"""Width in pixels of the small board in DM turn notices (the board message has the full one): half
of ``render.base.WIDTH``, so a board is halved by a box filter alone (``small``), and the width
Discord shows an image at on desktop (at most about 550 px; 380 on phones). 3-6 ms less a thumbnail
than 480 px (a box filter, then a bilinear resize), and 5-20 % fewer bytes encoded
(``python -m bench.render --thumbnails 480+to_png,small+to_png``)."""


@dataclass(frozen=True)
class RenderJob:
    """One image to draw and encode; every field pickles.

    Attributes:
        kind: what to draw (``Kind``).
        game_id: the game's id (``render/<game_id>.py``).
        view: the view drawn: the public view for ``board``/``thumbnail``, the seat's own
            view for ``private``/``decision`` (never a state).
        names: display names by seat, as they are (``bot.text.Texts.plain``).
        locale: the reader's catalog locale.
        limit: the upload limit in bytes the encoded image must fit (``render.base.fit_under``).
        thumbnail: for ``board``: also return the board small, encoded (``Rendered.thumbnail``).
        strict: the formatter raises on a missing or untranslated key (tests).
        region: for ``zoom``: the region key drawn (the game's ``zoom_regions``).
    """

    kind: Kind
    game_id: str
    view: dict[str, Any]
    names: tuple[str, ...]
    locale: str = "en"
    limit: int = 10 * 1024 * 1024
    thumbnail: bool = False
    strict: bool = False
    region: str = ""

    @property
    def urgent(self) -> bool:
        """True for an image one reader waits for (it may take the reserved slot and goes first)."""
        return self.kind in ("private", "decision", "zoom")


@dataclass(frozen=True)
class Rendered:
    """An encoded image: ``data`` (bytes), ``ext`` (``"png"`` or ``"jpg"``), and for a board
    job asked for it, its thumbnail encoded too, as ``(data, ext)`` (the small copy a DM turn
    notice carries: encoded here, in the worker, so the bot's process neither receives 1-2 MB
    of raw pixels nor encodes them under its interpreter lock)."""

    data: bytes
    ext: str
    thumbnail: tuple[bytes, str] | None = None


def small(image: Any) -> Any:
    """``image`` (a PIL image) scaled down to ``THUMBNAIL_WIDTH`` wide (a copy when narrower).

    A board at least twice as wide is first halved (or more) by an integer box filter
    (``Image.reduce``), then resampled bilinear to the width when it is not there yet: half
    the time of one bilinear resize from full size (14 → 6-8 ms for an 1100 × 1844 board;
    bench/profile.py), and as sharp; a board of ``render.base.WIDTH`` needs the box filter
    only."""
    from PIL import Image

    if image.width <= THUMBNAIL_WIDTH:
        return image.copy()
    height = max(1, round(image.height * THUMBNAIL_WIDTH / image.width))
    factor = image.width // THUMBNAIL_WIDTH
    if factor >= 2:
        image = image.reduce(factor)
    if image.width == THUMBNAIL_WIDTH:  # (its height rounded up, where the bilinear one rounds)
        return image
    return image.resize((THUMBNAIL_WIDTH, height), Image.Resampling.BILINEAR)


def render(job: RenderJob) -> Rendered | None:
    """Draw and encode ``job`` (in a worker process or a thread); None when the game draws
    nothing for it (no private view, no image for this decision).

    Raises:
        whatever the renderer raises (the caller logs it).
    """
    from bot.text import Texts
    from render import png
    from render import registry as renders

    text = Texts(job.game_id, list(job.names), job.locale, strict=job.strict)
    image: Any
    own_thumb = None  # (a game's own small board: render/registry.py thumbnail_image)
    if job.kind == "thumbnail" or (job.kind == "board" and job.thumbnail):
        own_thumb = renders.thumbnail_image(job.game_id, job.view, job.names, text)
    if job.kind == "thumbnail" and own_thumb is not None:
        image = own_thumb
    elif job.kind in ("board", "thumbnail"):
        image = renders.board_image(job.game_id, job.view, job.names, text)
    elif job.kind == "private":
        image = renders.private_image(job.game_id, job.view, job.names, text)
    elif job.kind == "zoom":
        image = renders.zoom_image(job.game_id, job.view, job.region, job.names, text)
    else:
        image = renders.decision_image(job.game_id, job.view, job.names, text)
    if image is None:
        return None
    if job.kind == "thumbnail":
        image = small(image)
    # (a board or a private view in the game's own colours: its fixed palette; a decision's image: the
    # fixed palette of the game's decisions where it has one (render/png.py palette_key: an E Guan
    # placement preview, draw and encode, 7.5 → 5.4 ms of thread CPU against a palette chosen per image,
    # ``python -m bench.render --game eguan --decisions 60 --tables 3``); a scaled copy or a zoom (its
    # own scale and overlays): a palette of its own)
    key = None if job.kind in ("thumbnail", "zoom") else png.palette_key(job.game_id, job.kind)
    data, ext = renders.encode(image, job.limit, key)
    thumb = None
    if job.thumbnail and job.kind == "board":
        thumb = renders.encode(small(image if own_thumb is None else own_thumb), job.limit)
    return Rendered(data, ext, thumb)


def warm(_: int = 0) -> int:
    """Import the renderers, open the common faces and read the primary face's character map
    in a fresh worker (its first board is then about as fast as the next); returns the
    worker's pid."""
    from PIL import Image

    from bot.text import Texts
    from engines.registry import GAME_IDS
    from render import base
    from render import registry as renders

    for game_id in GAME_IDS:
        renders.module(game_id)
        Texts(game_id, [], "en")
    for size in (14, 16, 18, 20, 22, 24, 28):
        base.font(size)
        base.font(size, bold=True)
    base.text_runs("Aa")  # (the character map: 120 ms of a worker's first board, read on first use)
    Image.preinit()  # (the PNG and JPEG encoders)
    return os.getpid()


class Slots:
    """Two ``asyncio.Semaphore``s: ``public`` admits at most that many boards at once,
    ``private`` (``reserved`` slots, one more worker process each) the urgent jobs, so a private
    image waits for no board at all, only for the private images before it. With no reserved
    slot, urgent jobs share the boards' semaphore."""

    def __init__(self, public: int, reserved: int = 1) -> None:
        self.public = asyncio.Semaphore(max(1, public))
        self.private = asyncio.Semaphore(reserved) if reserved > 0 else self.public
        self.total = max(1, public) + max(0, reserved)
        """Jobs at once, at most: the worker processes needed."""

    def slot(self, urgent: bool) -> asyncio.Semaphore:
        """The semaphore to hold while a job runs (``async with slots.slot(urgent):``)."""
        return self.private if urgent else self.public


class Renderer:
    """Runs ``RenderJob``s: in ``workers`` worker processes (plus one for private images), or
    in threads of this process when ``workers`` is 0.

    Args:
        workers: worker processes for public boards (``Settings.render_workers``); 0 = threads.
    """

    def __init__(self, workers: int = 0) -> None:
        self.workers = max(0, workers)
        self.slots = Slots(self.workers or RENDER_THREADS, reserved=1)
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.done = 0
        """Jobs finished (any outcome)."""

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = worker_pool(self.slots.total)
        return self._pool

    def start(self) -> None:
        """Start the worker processes now, each warming its renderers in the background
        (``warm``); nothing with 0 workers. Never blocks."""
        if not self.workers:
            return
        pool = self._executor()
        for i in range(self.slots.total):
            pool.submit(warm, i)

    def pids(self) -> list[int]:
        """The worker processes' ids (empty with 0 workers or before the first job)."""
        return pids(self._pool)

    async def run(self, job: RenderJob) -> Rendered | None:
        """Draw and encode ``job`` (``render``), waiting for a slot (``Slots``). A worker that
        died (killed, out of memory) is replaced and the job tried once more.

        Raises:
            whatever the renderer raised; ``BrokenProcessPool`` when the fresh pool broke too.
        """
        async with self.slots.slot(job.urgent):
            try:
                if not self.workers:
                    return await asyncio.to_thread(render, job)
                for attempt in (1, 2):
                    pool = self._executor()
                    try:
                        return await asyncio.get_running_loop().run_in_executor(pool, render, job)
                    except BrokenProcessPool:
                        log.warning("a render worker died; starting a fresh pool")
                        if self._pool is pool:
                            self._pool = None
                        pool.shutdown(wait=False, cancel_futures=True)
                        if attempt == 2:
                            raise
                raise AssertionError("unreachable")
            finally:
                self.done += 1

    async def close(self) -> None:
        """Stop the worker processes (jobs still queued are dropped)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
