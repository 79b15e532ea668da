"""Illumination (闡明): rules engine package (spec docs/rules/illumination.md)."""

from __future__ import annotations

from .engine import IlluminationEngine

ENGINE = IlluminationEngine()

__all__ = ["ENGINE", "IlluminationEngine"]
