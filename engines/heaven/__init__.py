"""The Way to Heaven (天路): rules engine package (spec heaven)."""

from __future__ import annotations

from .engine import HeavenEngine

ENGINE = HeavenEngine()

__all__ = ["ENGINE", "HeavenEngine"]
