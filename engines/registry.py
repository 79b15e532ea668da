"""The game registry (design §3): ``ENGINES`` maps each ``game_id`` to its engine.

Each engine package exposes a module-level ``ENGINE`` (an ``engines.base.Engine``).
"""

from __future__ import annotations

import importlib
from types import MappingProxyType

from engines.base import Engine

GAME_IDS: tuple[str, ...] = ("carnival", "canterbury", "heaven", "eguan", "illumination", "ora")
"""Games this build hosts, in menu order."""


def _load() -> dict[str, Engine]:
    engines: dict[str, Engine] = {}
    for game_id in GAME_IDS:
        module = importlib.import_module(f"engines.{game_id}")
        engine: Engine = module.ENGINE
        if engine.info.game_id != game_id:
            raise RuntimeError(f"engines.{game_id} declares game_id {engine.info.game_id!r}")
        engines[game_id] = engine
    return engines


ENGINES: MappingProxyType[str, Engine] = MappingProxyType(_load())
"""Read-only mapping game_id -> engine object."""


def get(game_id: str) -> Engine:
    """Return the engine for ``game_id``.

    Raises:
        KeyError: unknown id; the message lists the known ids.
    """
    try:
        return ENGINES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(ENGINES)}") from None
