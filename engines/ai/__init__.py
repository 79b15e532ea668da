"""AI players for every game: one information-set search over the engine protocol.

``choose(engine, state, seat, level, rng)`` is the entry point (``engines.ai.search``); the
per-game hooks (hidden-information sampling, playout policies) live in ``engines/<game>/ai.py``
and are found through ``engines.ai.hooks``.
"""

from engines.ai.search import LEVELS, Budget, SearchResult, budget_for, budget_of, choose, search

__all__ = ["LEVELS", "Budget", "SearchResult", "budget_for", "budget_of", "choose", "search"]
