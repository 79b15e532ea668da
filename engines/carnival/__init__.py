"""Carnival of Sins (``carnival``), spec docs/rules/carnival.md: the engine package.

Floors, each importing only those below it: ``data`` < ``rules`` < ``effects`` <
``chance``, ``notation`` < ``view`` < ``engine`` (see ``engine.py``).
"""

from __future__ import annotations

from engines.carnival.engine import CarnivalEngine

ENGINE = CarnivalEngine()

__all__ = ["ENGINE", "CarnivalEngine"]
