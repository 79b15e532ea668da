"""The Road to Canterbury (docs/rules/canterbury.md): ``ENGINE`` for the registry.

Modules, each importing only those above it in this list: ``data`` (data files,
constants, option), ``rules`` (pure rule helpers), ``effects`` (the card table),
``chance``, ``view``, ``notation``, ``flow`` (the steps after a move), ``engine`` (the
protocol, applying moves).
"""

from __future__ import annotations

from engines.canterbury.engine import CanterburyEngine
from engines.canterbury.notation import CanterburyNotation

ENGINE = CanterburyEngine()
NOTATION = CanterburyNotation(ENGINE)
"""The notation object the registry pairs with ``ENGINE``."""

__all__ = ["ENGINE", "NOTATION", "CanterburyEngine", "CanterburyNotation"]
