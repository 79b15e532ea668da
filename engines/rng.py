"""Deterministic randomness for the host (design §3, §4).

The host never keeps a live RNG: every chance outcome is sampled from an RNG
derived from the game's secret seed and the position in the action log, so a
re-sample after a crash gives the same outcome and the log alone is the truth.
"""

from __future__ import annotations

import hashlib
import random
import secrets


def new_seed() -> int:
    """Return a fresh secret seed: a non-negative int below 2**63 (fits SQLite INTEGER)."""
    return secrets.randbits(63)


def derive_rng(seed: int, position: int, salt: str = "") -> random.Random:
    """Return a ``random.Random`` determined by (seed, position, salt).

    Args:
        seed: the game's secret seed (never shown to players).
        position: the log position (0-based count of actions already applied).
        salt: optional extra domain separation (e.g. ``"ai"`` for bot players).

    The derivation is SHA-256 based, so neighbouring positions give unrelated streams.
    """
    digest = hashlib.sha256(f"{seed}:{position}:{salt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))
