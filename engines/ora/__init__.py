"""Ora et Labora (祈祷与工作): a monastery economy for 1–4 players (spec docs/rules/ora.md)."""

from __future__ import annotations

from engines.ora.engine import OraEngine

ENGINE = OraEngine()
"""The registered engine object."""

__all__ = ["ENGINE", "OraEngine"]
