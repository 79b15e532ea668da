"""The bot's own process collects cyclic garbage at ``GC_THRESHOLDS`` (bot/app.py), set before
the bot is made; a test's process keeps CPython's."""

from __future__ import annotations

import gc
from pathlib import Path

import discord
import pytest

import bot.app
from bot.__main__ import run
from bot.app import GC_THRESHOLDS
from bot.settings import Settings


def test_the_bot_process_runs_at_its_own_garbage_collector_thresholds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int, int]] = []

    class Bot:
        def __init__(self, settings: Settings) -> None:
            seen.append(gc.get_threshold())

        def run(self, token: str, log_handler: object = None) -> None:
            raise discord.LoginFailure

    before = gc.get_threshold()
    assert before != GC_THRESHOLDS
    monkeypatch.setattr(bot.app, "GameBot", Bot)
    try:
        assert run(Settings(database_path=str(tmp_path / "games.db"), token="offline")) == 2
    finally:
        gc.set_threshold(*before)
    assert seen == [GC_THRESHOLDS]
