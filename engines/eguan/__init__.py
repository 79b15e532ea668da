"""E Guan (惡貫): villains overlap deed cards to become the most notorious (docs/rules/eguan.md)."""

from __future__ import annotations

from engines.eguan.engine import EguanEngine

ENGINE = EguanEngine()
"""The registered engine object."""

__all__ = ["ENGINE", "EguanEngine"]
