"""The game registry (design §3): each ``game_id`` to its ``Game``, the engine (the rules)
paired with its notation (what a reader sees of a move).

Each game package of this build (``GAME_IDS``) exposes a module-level ``ENGINE`` (an
``engines.base.Engine``) and ``NOTATION`` (an ``engines.notation.Notation`` of that engine).
``hosting(game)`` adds another game for as long as it is open (a test's own game); the
mappings below are views that show it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType

from engines.base import Engine
from engines.notation import Notation

GAME_IDS: tuple[str, ...] = ("carnival", "canterbury", "heaven", "eguan", "illumination", "ora")
"""Games this build hosts, in menu order (the packages ``engines.<game_id>``)."""


@dataclass(frozen=True)
class Game:
    """One hosted game.

    Attributes:
        engine: the rules.
        notation: its notation and texts (``notation.engine is engine``).
        package: the module that holds the game (``engines.carnival``): its ``ai`` module
            (``engines.ai.hooks``) and rules text are found there.
        renderer: the module that draws it (``render.carnival``; ``render.registry``).
    """

    engine: Engine
    notation: Notation
    package: str
    renderer: str

    @property
    def game_id(self) -> str:
        """The engine's ``info.game_id``."""
        return self.engine.info.game_id

    @classmethod
    def of(cls, package: str, renderer: str | None = None) -> Game:
        """The game of the module ``package`` (its ``ENGINE`` and ``NOTATION``), drawn by
        ``renderer`` (default ``render.<game_id>``).

        Raises:
            RuntimeError: the notation does not belong to the engine.
        """
        module = importlib.import_module(package)
        engine: Engine = module.ENGINE
        notation: Notation = module.NOTATION
        if notation.engine is not engine:
            raise RuntimeError(f"{package}.NOTATION is not the notation of {package}.ENGINE")
        return cls(engine, notation, package, renderer or f"render.{engine.info.game_id}")


def _load() -> dict[str, Game]:
    games: dict[str, Game] = {}
    for game_id in GAME_IDS:
        game = Game.of(f"engines.{game_id}")
        if game.game_id != game_id:
            raise RuntimeError(f"engines.{game_id} declares game_id {game.game_id!r}")
        games[game_id] = game
    return games


_GAMES = _load()
_ENGINES = {game_id: game.engine for game_id, game in _GAMES.items()}
_NOTATIONS = {game_id: game.notation for game_id, game in _GAMES.items()}

GAMES: MappingProxyType[str, Game] = MappingProxyType(_GAMES)
"""Read-only mapping game_id -> ``Game``, in menu order."""
ENGINES: MappingProxyType[str, Engine] = MappingProxyType(_ENGINES)
"""Read-only mapping game_id -> engine object."""
NOTATIONS: MappingProxyType[str, Notation] = MappingProxyType(_NOTATIONS)
"""Read-only mapping game_id -> notation object."""


def game(game_id: str) -> Game:
    """Return the registered ``Game`` of ``game_id``.

    Raises:
        KeyError: unknown id; the message lists the known ids.
    """
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(GAMES)}") from None


def get(game_id: str) -> Engine:
    """Return the engine for ``game_id`` (KeyError as ``game``)."""
    return game(game_id).engine


def notation(game_id: str) -> Notation:
    """Return the notation for ``game_id`` (KeyError as ``game``)."""
    return game(game_id).notation


def notation_of(engine: Engine) -> Notation:
    """The notation paired with ``engine`` (a registered engine object).

    Raises:
        KeyError: ``engine`` is not the registered engine of its game.
    """
    game = _GAMES.get(engine.info.game_id)
    if game is None or game.engine is not engine:
        raise KeyError(f"{type(engine).__name__} is not a registered engine")
    return game.notation


_hosted_changes = 0


def hosted_changes() -> int:
    """How many times ``hosting`` changed the games hosted: what is remembered of them (the host's
    text lookups) is remembered under this count."""
    return _hosted_changes


@contextmanager
def hosting(game: Game) -> Iterator[Game]:
    """Host ``game`` too while the block runs (after the built-in games); it is gone again
    afterwards.

    Raises:
        ValueError: a game of that id is registered already.
    """
    if game.game_id in _GAMES:
        raise ValueError(f"a game {game.game_id!r} is registered already")
    global _hosted_changes
    _GAMES[game.game_id] = game
    _ENGINES[game.game_id] = game.engine
    _NOTATIONS[game.game_id] = game.notation
    _hosted_changes += 1
    try:
        yield game
    finally:
        for mapping in (_GAMES, _ENGINES, _NOTATIONS):
            mapping.pop(game.game_id, None)
        _hosted_changes += 1
