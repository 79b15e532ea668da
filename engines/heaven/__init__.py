"""The Way to Heaven (天路): rules engine package (spec heaven)."""

from __future__ import annotations

from engines.heaven.notation import HeavenNotation

from .engine import HeavenEngine

ENGINE = HeavenEngine()
NOTATION = HeavenNotation(ENGINE)
"""The notation object the registry pairs with ``ENGINE``."""

__all__ = ["ENGINE", "NOTATION", "HeavenEngine", "HeavenNotation"]
