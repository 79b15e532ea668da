"""The render workers (bot/render_pool.py): jobs give the very bytes the bot drew
in its own process, the worker processes draw them (not the bot), and private images get a
slot of their own."""

from __future__ import annotations

import asyncio
import os
import pickle
import random
import signal
from typing import Any

import pytest

from bot.render_pool import Renderer, RenderJob, Slots, render, small, warm
from bot.settings import Settings
from bot.text import Texts
from engines.base import CHANCE
from engines.registry import get as get_engine
from render import base
from render import registry as renders

NAMES = ("alice", "bob", "carol")


def eguan_views(seed: int = 3) -> tuple[dict[str, Any], dict[str, Any]]:
    """The public view and seat 0's view of a 3-player E Guan game after its chance deals."""
    engine = get_engine("eguan")
    state = engine.new_game(3, seed)
    rng = random.Random(seed)
    while CHANCE in engine.to_move(state):
        state, _ = engine.apply(state, CHANCE, engine.sample_chance(state, rng))
    return engine.player_view(state, None), engine.player_view(state, 0)


def test_a_job_pickles_and_gives_the_bytes_drawn_in_process() -> None:
    public, own = eguan_views()
    job = RenderJob("board", "eguan", public, NAMES, "en", thumbnail=True)
    assert pickle.loads(pickle.dumps(job)) == job
    done = render(job)
    assert done is not None
    image = renders.board_image("eguan", public, NAMES, Texts("eguan", NAMES))
    assert (done.data, done.ext) == renders.encode(image, game_id="eguan")  # (the game's fixed palette)
    assert done.data != renders.encode(image)[0]
    assert done.thumbnail is not None
    assert done.thumbnail == renders.encode(small(image), job.limit)  # (encoded in the worker, as a notice sends it)
    hand = render(RenderJob("private", "eguan", own, NAMES, "ja"))
    assert hand is not None
    expected = renders.private_image("eguan", own, NAMES, Texts("eguan", NAMES, "ja"))
    assert expected is not None and (hand.data, hand.ext) == renders.encode(expected, game_id="eguan")


def test_a_warmed_worker_reads_no_character_map_for_its_first_board() -> None:
    base._coverage.cache_clear()
    warm()
    read = base._coverage.cache_info().misses
    render(RenderJob("board", "eguan", eguan_views()[0], NAMES, "en", thumbnail=True))
    assert base._coverage.cache_info().misses == read


def test_a_decision_that_needs_no_image_draws_none() -> None:
    _, own = eguan_views()
    assert (own.get("pending") or {}).get("step") != "place"  # (skills are chosen first)
    assert renders.decision_image("eguan", own, NAMES, Texts("eguan", NAMES)) is None
    assert render(RenderJob("decision", "eguan", own, NAMES)) is None


async def test_worker_processes_draw_the_same_bytes() -> None:
    public, own = eguan_views(5)
    renderer = Renderer(1)
    try:
        board = await renderer.run(RenderJob("board", "eguan", public, NAMES, "zh_TW"))
        hand = await renderer.run(RenderJob("private", "eguan", own, NAMES))
        pids = renderer.pids()
    finally:
        await renderer.close()
    assert board == render(RenderJob("board", "eguan", public, NAMES, "zh_TW"))
    assert hand == render(RenderJob("private", "eguan", own, NAMES))
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids  # (at most one for boards, one more for private images)
    assert renderer.pids() == []


async def test_private_jobs_have_a_slot_of_their_own_and_wait_for_no_board() -> None:
    slots = Slots(1, reserved=1)
    order: list[str] = []
    gates = {name: asyncio.Event() for name in ("b1", "b2", "b3", "p1", "p2")}

    async def job(name: str, urgent: bool) -> None:
        async with slots.slot(urgent):
            order.append(name)
            await gates[name].wait()

    async def settle() -> None:
        for _ in range(3):
            await asyncio.sleep(0)

    b1 = asyncio.create_task(job("b1", False))
    await settle()
    b2 = asyncio.create_task(job("b2", False))
    b3 = asyncio.create_task(job("b3", False))
    p1 = asyncio.create_task(job("p1", True))
    await settle()
    assert order == ["b1", "p1"]  # the board slot is taken: the private image takes its own
    p2 = asyncio.create_task(job("p2", True))
    await settle()
    assert order == ["b1", "p1"] and slots.public.locked() and slots.private.locked()
    gates["p1"].set()  # the private slot frees: the waiting private image goes, boards still wait
    await settle()
    assert order == ["b1", "p1", "p2"]
    gates["b1"].set()
    await settle()
    assert order == ["b1", "p1", "p2", "b2"]  # one board at a time, in order
    gates["p2"].set()
    await settle()
    assert order == ["b1", "p1", "p2", "b2"]  # (the private slot is free, but b3 is a board: it waits for b2)
    gates["b2"].set()
    await settle()
    assert order == ["b1", "p1", "p2", "b2", "b3"]
    gates["b3"].set()
    await asyncio.gather(b1, b2, b3, p1, p2)
    assert order == ["b1", "p1", "p2", "b2", "b3"]
    assert not slots.public.locked() and not slots.private.locked() and slots.total == 2


async def test_a_cancelled_waiter_gives_its_turn_on() -> None:
    slots = Slots(1, reserved=0)
    release = asyncio.Event()
    order: list[str] = []

    async def job(name: str) -> None:
        async with slots.slot(False):
            order.append(name)
            await release.wait()

    first = asyncio.create_task(job("first"))
    await asyncio.sleep(0)
    gone = asyncio.create_task(job("gone"))
    last = asyncio.create_task(job("last"))
    await asyncio.sleep(0)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    release.set()
    await asyncio.gather(first, last)
    assert order == ["first", "last"] and not slots.public.locked() and slots.slot(True) is slots.public


async def test_a_killed_worker_is_replaced_and_the_job_done() -> None:
    public, _ = eguan_views(7)
    job = RenderJob("board", "eguan", public, NAMES)
    renderer = Renderer(1)
    try:
        first = await renderer.run(job)
        old = renderer.pids()
        for pid in old:  # (the test's own worker processes)
            os.kill(pid, signal.SIGKILL)
        again = await renderer.run(job)
        new = renderer.pids()
    finally:
        await renderer.close()
    assert first is not None and again == first
    assert new and not set(new) & set(old)


def test_render_workers_setting() -> None:
    assert Settings.from_env({}, dotenv_path=None).render_workers == 2  # a running bot
    assert Settings.from_env({"RENDER_WORKERS": "0"}, dotenv_path=None).render_workers == 0
    assert Settings.from_env({"RENDER_WORKERS": "3"}, dotenv_path=None).render_workers == 3
    assert Settings.from_env({"RENDER_WORKERS": "-1"}, dotenv_path=None).render_workers == 0
    assert Settings().render_workers == 0  # (built directly, as the tests do: threads)
    with pytest.raises(ValueError, match="RENDER_WORKERS"):
        Settings.from_env({"RENDER_WORKERS": "two"}, dotenv_path=None)
