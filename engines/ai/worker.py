"""The AI's move as a worker process computes it: plain, picklable
arguments in, the chosen action's JSON out, so ``bot/ui/ai.py`` can hand it to a
``concurrent.futures.ProcessPoolExecutor`` and the event loop never thinks.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engines.ai.search import budget_for, search
from engines.base import JSONObject
from engines.registry import get as get_engine


def think(game_id: str, state_json: JSONObject, seat: int, level: str, seed: str,
          iterations: int = 0) -> JSONObject:
    """The move ``engines.ai.choose`` picks for ``seat`` at ``level`` in the stored state
    ``state_json`` of a ``game_id`` game, as ``engine.action_to_json`` gives it.

    Args:
        seed: seeds the search's own random stream (the host derives it from the game, the
            version and the seat; it is never the stream chance is drawn from).
        iterations: when above 0, a fixed budget of that many iterations with short
            playouts and no time cap replaces the level's (tests and the sandbox: fast and
            the same on every machine).

    Raises:
        NotYourTurn: ``seat`` has no legal action.
        ValueError: unknown level.
        KeyError: unknown game.
    """
    engine = get_engine(game_id)
    state = engine.state_from_json(state_json)
    budget = budget_for(engine, level)
    if iterations > 0:
        budget = replace(budget, iterations=iterations, seconds=None, rollout_limit=60)
    result = search(engine, state, seat, budget, random.Random(seed))
    return engine.action_to_json(result.action)
