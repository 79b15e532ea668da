"""JSON-lines logs (bot/logsafe.py ``JsonLines``, ``LOG_FORMAT=json``):
every line of a handler names its game and interaction; secrets stay redacted."""

from __future__ import annotations

import json
import logging
import random
from typing import Any

import pytest

from bot import logsafe
from bot.sandbox.fakecord import FakeDiscord
from bot.settings import Settings
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logsafe.JsonLines())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_the_setting_reads_text_or_json() -> None:
    assert Settings.from_env({}).log_format == "text"
    assert Settings.from_env({"LOG_FORMAT": "JSON"}).log_format == "json"
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        Settings.from_env({"LOG_FORMAT": "xml"})


async def test_a_moves_log_lines_carry_its_game_and_interaction(driver: Driver, fake: FakeDiscord,
                                                               players: list[JSONDict]) -> None:
    game = await driver.start_game("canterbury", players[:2])
    capture = Capture()
    redactor = logsafe.install([capture])
    logger = logging.getLogger("bot.ui.outbox_drain")
    logger.addHandler(capture)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        before = set(fake.interactions)
        await driver.play_once(game, random.Random(1))
    finally:
        logger.removeHandler(capture)
        logger.setLevel(level)
        logsafe.uninstall(redactor, [capture])
    pick = max((t for t in fake.interactions if t not in before), key=lambda t: fake.interactions[t]["id"])
    lines = [json.loads(line) for line in capture.lines]
    rows = [r for r in lines if r["message"].startswith("outbox row")]
    assert rows and {r["game"] for r in rows} == {game}
    assert {r["interaction"] for r in rows} == {fake.interactions[pick]["id"]}
    assert all(set(r) >= {"time", "level", "logger", "message", "game", "interaction"} for r in lines)
    assert all(pick not in line for line in capture.lines)  # (no token in any line)
