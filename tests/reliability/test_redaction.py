"""Secrets stay out of logs (bot/logsafe.py): interaction tokens, webhook
tokens and the bot token are redacted from every log line at every level — discord.py's
own DEBUG lines of routes, gateway events and tracebacks included.

A real bot plays through the offline Discord (slash commands, clicks, follow-ups, edits
through the interaction token) with DEBUG logging captured by a handler on the root logger;
afterwards no token the fake handed out appears in any captured line.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot import logsafe
from bot.app import GameBot
from bot.sandbox.fakecord import BOT_TOKEN, FakeDiscord
from bot.settings import Settings
from tests.e2e.driver import Driver


class Capture(logging.Handler):
    """Every record at every level, formatted as a log file would show it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def capture() -> Iterator[Capture]:
    handler = Capture()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


@pytest_asyncio.fixture
async def rig(capture: Capture, tmp_path: Path) -> AsyncIterator[tuple[FakeDiscord, Driver]]:
    async with FakeDiscord(owner_name="alice") as fake:  # opened after the capture handler: it redacts it
        bot = GameBot(Settings(database_path=str(tmp_path / "games.db"), token="offline", tick_seconds=3600),
                      clock=fake.now)
        await fake.start_bot(bot)
        try:
            yield fake, Driver(fake, bot)
        finally:
            await fake.stop_bot(bot)


def leaked(fake: FakeDiscord, lines: list[str]) -> list[str]:
    tokens = [*fake.interactions, BOT_TOKEN]
    return [line for line in lines if any(t in line for t in tokens)]


async def test_no_token_reaches_a_debug_line_of_a_real_game(rig: tuple[FakeDiscord, Driver],
                                                            capture: Capture) -> None:
    fake, driver = rig
    bob = await fake.add_member("bob")
    game = await driver.start_game("carnival", [fake.owner, bob])
    panel = await driver.open_panel((await driver.waiting_users(game))[0], game)  # ephemeral follow-up
    await fake.slash(fake.owner, "game", "log", game=game)           # a deferred reply, then a follow-up
    await fake.slash(bob, "game", "board", game=game)
    await driver.settle()
    assert panel is not None
    assert len(fake.interactions) >= 6
    text = "\n".join(capture.lines)
    # the capture really saw discord.py's DEBUG lines of those routes, with the tokens masked
    assert "/interactions/" in text and "/webhooks/" in text, "discord.py logged no routes"
    assert "/callback" in text and logsafe.MASK in text
    assert not leaked(fake, capture.lines), leaked(fake, capture.lines)[:3]


async def test_a_failing_call_through_the_token_logs_its_traceback_without_the_token(
        rig: tuple[FakeDiscord, Driver], capture: Capture) -> None:
    fake, driver = rig
    token = await fake.slash(fake.owner, "game", "mine")
    await driver.settle()
    url = f"/webhooks/{fake.app_id}/{token}/messages/@original"
    try:
        raise RuntimeError(f"PATCH {url} failed; payload {{'token': '{token}'}}")
    except RuntimeError:
        logging.getLogger("bot.test").exception("delivery failed for %s", url)
    logging.getLogger("discord.http").debug("Authorization: Bot %s", BOT_TOKEN)
    mine = [line for line in capture.lines if "delivery failed" in line or "Authorization" in line]
    assert len(mine) == 2
    assert "Traceback" in mine[0] and "RuntimeError" in mine[0]
    assert f"/webhooks/{fake.app_id}/{logsafe.MASK}/messages/@original" in mine[0]
    assert not leaked(fake, capture.lines)


@pytest.mark.parametrize(("line", "shown"), [
    ("POST https://discord.com/api/v10/interactions/123/aW50ZXJhY3Rpb246MTIzOnNlY3JldA/callback with {}",
     "POST https://discord.com/api/v10/interactions/123/[redacted]/callback with {}"),
    ("PATCH /webhooks/99/aW50ZXJhY3Rpb246MTIz_-x/messages/@original has returned 200",
     "PATCH /webhooks/99/[redacted]/messages/@original has returned 200"),
    ("GET /webhooks/99/tok?wait=true", "GET /webhooks/99/[redacted]?wait=true"),
    ("WebSocket Event: {'t': 'INTERACTION_CREATE', 'd': {'id': '5', 'token': 'aW50ZXJh-secret'}}",
     "WebSocket Event: {'t': 'INTERACTION_CREATE', 'd': {'id': '5', 'token': '[redacted]'}}"),
    ('{"token": "abc.def"}', '{"token": "[redacted]"}'),
    ("login with MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GfAkEt.ZmFrZS1ib3QtdG9rZW4tZm9yLW9mZmxpbmUtdGVzdHM now",
     "login with [redacted] now"),
    ("Authorization: Bot abcdefghijklmnopqrstuvwxyz", "Authorization: Bot [redacted]"),
    ("nothing secret in /channels/1/messages/2", "nothing secret in /channels/1/messages/2"),
])
def test_each_kind_of_secret_is_masked(line: str, shown: str) -> None:
    assert logsafe.RedactSecrets().redact(line) == shown


def test_a_literal_secret_is_masked_and_the_record_keeps_its_level() -> None:
    redactor = logsafe.RedactSecrets(["hunter2-secret", ""])
    record = logging.LogRecord("bot", logging.WARNING, __file__, 1, "token %s and %d", ("hunter2-secret", 3),
                               None)
    assert redactor.filter(record) is True
    assert (record.getMessage(), record.levelno) == (f"token {logsafe.MASK} and 3", logging.WARNING)
