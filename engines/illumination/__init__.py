"""Illumination (闡明): rules engine package (spec docs/rules/illumination.md)."""

from __future__ import annotations

from engines.illumination.notation import IlluminationNotation

from .engine import IlluminationEngine

ENGINE = IlluminationEngine()
NOTATION = IlluminationNotation(ENGINE)
"""The notation object the registry pairs with ``ENGINE``."""

__all__ = ["ENGINE", "NOTATION", "IlluminationEngine", "IlluminationNotation"]
