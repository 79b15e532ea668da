"""Discord's limits (DISCORD.md) and helpers that keep every message inside them."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

MESSAGE_CHARS = 2000
EMBED_DESCRIPTION = 4096
EMBED_TITLE = 256
EMBED_FIELD_VALUE = 1024
EMBED_FIELDS = 25
EMBED_TOTAL = 6000
SELECT_OPTIONS = 25
SELECT_LABEL = 100
BUTTON_LABEL = 80
ROWS = 5
BUTTONS_PER_ROW = 5
CUSTOM_ID = 100
ACK_SECONDS = 3.0
TOKEN_SECONDS = 15 * 60
DEFAULT_UPLOAD = 10 * 1024 * 1024


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in '…' when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


LABEL_HEAD = 20
"""Characters a label cut in the middle (``distinct_labels``) keeps of its start at least."""


LABEL_CONTEXT = 12
"""Characters before the point where colliding labels part that a middle cut may go back, to
keep the word it is in."""


NUMBERED = re.compile(r"\d+ · ")
"""The leading number of a choice that names a numbered candidate on its decision's picture
("3 · +2 coins, wins the battle"; docs/DESIGN.md §6): a cut never takes it."""


def distinct_labels(labels: Sequence[str], limit: int) -> list[str]:
    """``labels`` (the choices of one panel) cut to ``limit`` characters so that labels that
    differ still differ once cut (two Heaven buttons would both read "Use Arrogance
    G2: take R2, target Alexandra_K, give Shepherd+Sacrifice, get B1+…", cut at the end where
    they differ). A label is cut at the end (``clip``) unless that makes it equal to another
    cut label whose text differs; then it keeps its start and, after a '…', its end from where
    the colliding labels part (at least ``LABEL_HEAD`` characters of the start); if even that
    leaves two alike, each such label ends in " #k" (k = 1, 2, … for each text, in the given
    order). Labels that are equal before the cut stay equal (they name the same thing). A label's
    leading "N · " (``NUMBERED``: the number of a candidate on the decision's picture) is never
    cut: what is cut is the rest of it, and labels with different numbers are told apart by them.
    Returns the labels in order, each at most ``limit`` characters (Discord's: DISCORD.md, components)."""
    numbers = [NUMBERED.match(label) for label in labels]
    if any(numbers):
        rests = [label[m.end():] if m else label for label, m in zip(labels, numbers, strict=True)]
        heads = [m.group() if m else "" for m in numbers]
        by_head: dict[str, list[int]] = {}
        for k, head in enumerate(heads):
            by_head.setdefault(head, []).append(k)
        out = list(labels)
        for head, where in by_head.items():  # (one number, one candidate: its labels cut apart among themselves)
            cut = _distinct(
                [rests[k] for k in where], limit - len(head)) if head else _distinct([labels[k] for k in where], limit)
            for k, text in zip(where, cut, strict=True):
                out[k] = head + text
        return out
    return _distinct(labels, limit)


def _distinct(labels: Sequence[str], limit: int) -> list[str]:
    """``distinct_labels`` of labels without numbers."""
    out = [clip(label, limit) for label in labels]
    groups: dict[str, set[str]] = {}
    for label, cut in zip(labels, out, strict=True):
        groups.setdefault(cut, set()).add(label)
    clashing = {cut: sorted(texts) for cut, texts in groups.items() if len(texts) > 1}
    if not clashing:
        return out
    for k, (label, cut) in enumerate(zip(labels, out, strict=True)):
        if cut in clashing:
            out[k] = _cut_middle(label, limit, os.path.commonprefix(clashing[cut]))
    seen: dict[str, list[int]] = {}
    for k, cut in enumerate(out):
        seen.setdefault(cut, []).append(k)
    for where in seen.values():
        texts = {labels[k] for k in where}
        if len(texts) > 1:
            prefix = os.path.commonprefix(sorted(texts))
            number = {text: n for n, text in enumerate(dict.fromkeys(labels[k] for k in where), start=1)}
            for k in where:
                suffix = f" #{number[labels[k]]}"
                out[k] = _cut_middle(labels[k], limit - len(suffix), prefix) + suffix
    return out


def _cut_middle(label: str, limit: int, prefix: str) -> str:
    """``label`` in ``limit`` characters: its start, '…', and its end from the word in which it
    parts from ``prefix`` (what it shares with the labels it collides with) where that fits."""
    if len(label) <= limit:
        return label
    start = len(prefix)
    space = label.rfind(" ", max(0, start - LABEL_CONTEXT), start)
    start = space + 1 if space >= 0 else start  # (from the word where they part: "get B1+R2")
    tail = min(len(label) - start, limit - 1 - LABEL_HEAD)
    tail = max(tail, 1)
    return label[: limit - 1 - tail] + "…" + label[len(label) - tail:]


def split_text(text: str, limit: int = MESSAGE_CHARS) -> list[str]:
    """Split ``text`` into chunks of at most ``limit`` characters, at line breaks when
    possible (a single over-long line is cut hard). Empty text gives no chunk."""
    chunks: list[str] = []
    current = ""
    for line in text.splitlines():
        while len(line) > limit:
            if current:
                chunks.append(current)
                current = ""
            chunks.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            chunks.append(current)
            current = line
        else:
            current = candidate
    if current.strip():
        chunks.append(current)
    return [c for c in chunks if c.strip()]


def pages(count: int, per_page: int) -> int:
    """Number of pages needed for ``count`` items (at least 1)."""
    return max(1, -(-count // per_page))
