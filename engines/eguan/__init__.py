"""E Guan (惡貫): villains overlap deed cards to become the most notorious (docs/rules/eguan.md)."""

from __future__ import annotations

from engines.eguan.engine import EguanEngine
from engines.eguan.notation import EguanNotation

ENGINE = EguanEngine()
"""The registered engine object."""
NOTATION = EguanNotation(ENGINE)
"""The notation object the registry pairs with ``ENGINE``."""

__all__ = ["ENGINE", "NOTATION", "EguanEngine", "EguanNotation"]
