"""Carnival of Sins (``carnival``), spec docs/rules/carnival.md: the engine package.

Floors, each importing only those below it: ``data`` < ``rules`` < ``effects`` <
``chance``, ``notation`` < ``view`` < ``flow`` < ``engine`` (see ``engine.py``).
"""

from __future__ import annotations

from engines.carnival.engine import CarnivalEngine
from engines.carnival.notation import CarnivalNotation

ENGINE = CarnivalEngine()
NOTATION = CarnivalNotation(ENGINE)
"""The notation object the registry pairs with ``ENGINE``."""

__all__ = ["ENGINE", "NOTATION", "CarnivalEngine", "CarnivalNotation"]
