"""Ora et Labora (祈祷与工作): a monastery economy for 1–4 players (spec docs/rules/ora.md)."""

from __future__ import annotations

from engines.ora.engine import OraEngine
from engines.ora.notation import OraNotation

ENGINE = OraEngine()
"""The registered engine object."""
NOTATION = OraNotation(ENGINE)
"""The notation object the registry pairs with ``ENGINE``."""

__all__ = ["ENGINE", "NOTATION", "OraEngine", "OraNotation"]
