"""A pick or a step in a private panel is answered by the redrawn panel itself (bot/ui/answers.py
``update_in_place``): ready within ``ANSWER_WAIT``, one callback of type 7 (UPDATE_MESSAGE)
and no edit of ``@original``; not ready (here: the repository's lock held, so the move cannot
be written), a deferred update (type 6) at the bound, then one edit when the move is done.
Either way the move is committed once, and a refusal is still answered privately."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
from bot.ui import answers
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


def calls_of(fake: FakeDiscord, token: str) -> list[tuple[str, Any]]:
    """(method and route, callback type or None) of every request made with interaction ``token``."""
    out: list[tuple[str, Any]] = []
    for r in fake.requests:
        if f"/{token}/" not in r.path + "/":
            continue
        route = re.sub(r"/(interactions|webhooks)/\d+/[\w.-]+", r"/\1", r.path)
        body = r.json if isinstance(r.json, dict) else {}
        out.append((f"{r.method} {route}", body.get("type") if route.endswith("/callback") else None))
    return out


@pytest.fixture(autouse=True)
def seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deal whose first decision has a step before its actions (``Ready.steps``)."""
    monkeypatch.setattr("bot.service.new_seed", lambda: 1)


async def first_action(driver: Driver, user: JSONDict, panel: JSONDict) -> tuple[tuple[str, str, str | None], list[str]]:
    """The first action ``panel`` offers, stepping into its first group until one shows (at
    most five steps); and the tokens of those steps."""
    steps: list[str] = []
    for _ in range(5):
        options = driver.choices(driver.fake.messages[int(panel["id"])])
        action = next((o for o in options if o[0] != "group"), None)
        if action is not None:
            return action, steps
        steps.append(await driver.pick(user, panel, options[0]))
    raise AssertionError("panel never offered an action")


async def press(fake: FakeDiscord, user: JSONDict, panel: JSONDict, choice: tuple[str, str, str | None]) -> str:
    """Press ``choice`` in ``panel`` as ``user`` without waiting for the answer; the token."""
    kind, cid, value = choice
    message = fake.messages[int(panel["id"])]
    if value is not None:
        return await fake.select(user, message, cid, [str(value)])
    return await fake.click(user, message, cid)


@dataclass
class Ready:
    """A started two-player Canterbury ``game`` at ``version``: the ``mover``'s open ``panel``
    and an action ``choice`` in it, shown after the ``steps`` (tokens) that led to it."""

    bot: GameBot
    driver: Driver
    game: int
    version: int
    mover: JSONDict
    panel: JSONDict
    choice: tuple[str, str, str | None]
    steps: list[str]


async def ready(make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> Ready:
    bot = await make_bot()
    driver = Driver(fake, bot)
    game = await driver.start_game("canterbury", players[:2])
    version = (await driver.record(game)).version
    mover = (await driver.waiting_users(game))[0]
    panel = await driver.open_panel(mover, game)
    choice, steps = await first_action(driver, mover, panel)
    return Ready(bot, driver, game, version, mover, panel, choice, steps)


async def test_a_quick_pick_is_answered_by_its_panel_in_the_callback(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    t = await ready(make_bot, fake, players)
    token = await t.driver.pick(t.mover, t.panel, t.choice)
    await t.driver.delivered()
    assert t.steps                                                                 # (Canterbury: a step first)
    for step in t.steps:                                                           # a step: the panel redrawn
        assert calls_of(fake, step) == [("POST /interactions/callback", 7)]
    assert calls_of(fake, token)[0] == ("POST /interactions/callback", 7)
    assert [c for c in calls_of(fake, token) if c[0].startswith(("PATCH", "POST /interactions"))] == [
        ("POST /interactions/callback", 7)]                                        # no deferral, no PATCH
    assert fake.messages[int(t.panel["id"])]["content"].startswith("✓ ")         # the panel shows the move
    assert (await t.driver.record(t.game)).version == t.version + 1


async def test_a_slow_pick_defers_then_edits_its_panel_once(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = await ready(make_bot, fake, players)
    monkeypatch.setattr(answers, "ANSWER_WAIT", 0.05)
    shown = fake.messages[int(t.panel["id"])]["content"]
    async with t.bot.repo._lock:                                                  # the move cannot be written
        token = await press(fake, t.mover, t.panel, t.choice)
        assert (await fake.response(token))["type"] == 6                           # deferred at the bound
        assert calls_of(fake, token) == [("POST /interactions/callback", 6)]
        assert fake.messages[int(t.panel["id"])]["content"] == shown
    await t.driver.delivered()
    assert [c for c in calls_of(fake, token) if c[0].startswith(("PATCH", "POST /interactions"))] == [
        ("POST /interactions/callback", 6), ("PATCH /webhooks/messages/@original", None)]
    assert fake.messages[int(t.panel["id"])]["content"].startswith("✓ ")
    assert (await t.driver.record(t.game)).version == t.version + 1


async def test_a_double_pick_while_slow_moves_once_and_refuses_the_second_privately(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = await ready(make_bot, fake, players)
    monkeypatch.setattr(answers, "ANSWER_WAIT", 0.05)
    async with t.bot.repo._lock:
        tokens = [await press(fake, t.mover, t.panel, t.choice) for _ in range(2)]
        assert [(await fake.response(token))["type"] for token in tokens] == [6, 6]
    await t.driver.delivered()
    assert (await t.driver.record(t.game)).version == t.version + 1              # one move, not two
    refused = [m for m in fake.messages.values() if m.get("content", "").startswith("⚠️")]
    assert len(refused) == 1 and refused[0]["flags"] & 64                         # a private follow-up
    assert "since that panel; press Play ▶ again" in refused[0]["content"]         # (a panel was pressed, not the board)
    assert ("POST /webhooks", None) in calls_of(fake, tokens[1])


async def test_a_refused_quick_pick_is_answered_by_a_private_message(
        make_bot: Callable[..., Awaitable[GameBot]], fake: FakeDiscord, players: list[JSONDict]) -> None:
    t = await ready(make_bot, fake, players)
    paused = await t.bot.service.set_paused(t.game, True)                        # (a moderator paused it)
    await t.driver.settle()
    token = await press(fake, t.mover, t.panel, t.choice)
    await t.driver.settle()
    answer = await fake.response(token)
    assert answer["type"] == 4 and answer["data"]["flags"] & 64                   # a new private message
    assert answer["data"]["content"].startswith("⚠️")
    assert calls_of(fake, token) == [("POST /interactions/callback", 4)]
    assert (await t.driver.record(t.game)).version == paused.version              # nothing changed
