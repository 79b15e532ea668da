"""The Road to Canterbury (spec canterbury): ``ENGINE`` for the registry."""

from __future__ import annotations

from engines.canterbury.engine import CanterburyEngine

ENGINE = CanterburyEngine()

__all__ = ["ENGINE", "CanterburyEngine"]
