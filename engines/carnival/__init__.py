"""Carnival of Sins (``carnival``): see ``engine.py`` and spec carnival."""

from __future__ import annotations

from engines.carnival.engine import CarnivalEngine

ENGINE = CarnivalEngine()

__all__ = ["ENGINE", "CarnivalEngine"]
