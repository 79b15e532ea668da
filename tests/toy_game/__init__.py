"""Goofspiel, the test's own game (SPEC.md): ``ENGINE``, ``NOTATION`` and ``GAME``, the registry
entry a test hosts with ``engines.registry.hosting(GAME)``."""

from __future__ import annotations

from engines.registry import Game

from .engine import GoofspielEngine
from .notation import GoofspielNotation

ENGINE = GoofspielEngine()
NOTATION = GoofspielNotation(ENGINE)
GAME = Game(ENGINE, NOTATION, __name__, f"{__name__}.board")
