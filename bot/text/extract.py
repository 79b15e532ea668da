"""Babel extraction method for the English catalogs ``bot/text/en/<namespace>.toml``.

``make i18n`` runs ``pybabel extract -F bot/text/babel.cfg`` with this method, so every
catalog key becomes one message of ``bot/text/messages.pot``: ``msgctxt`` is the namespace
(the file's stem: ``"carnival"``, ``"host"``), ``msgid`` is the dotted key
(``"event.picked"``), and the English template is the extracted comment the translator reads
(``#. {seat} has picked a sin.``). Translations live in
``bot/text/locale/<lang>/LC_MESSAGES/messages.po`` (``bot/text/__init__.py`` reads them).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

_TABLE = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")
_KEY = re.compile(r'^\s*("?)([A-Za-z0-9_\-]+)\1\s*=')


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """``{"event": {"pick": "x"}}`` → ``{"event.pick": "x"}`` (values as ``str``)."""
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out |= flatten(value, f"{name}.")
        else:
            out[name] = str(value)
    return out


def key_lines(source: str) -> dict[str, int]:
    """The 1-based line of each flat key of a catalog written as ``[table]`` + ``key = "…"``
    lines (the shape of ``bot/text/en/*.toml``); keys not found that way are left out."""
    lines: dict[str, int] = {}
    table = ""
    for number, line in enumerate(source.splitlines(), start=1):
        header = _TABLE.match(line)
        if header:
            table = header.group(1).strip().replace('"', "") + "."
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault(table + key.group(2), number)
    return lines


def messages(source: bytes) -> Iterator[tuple[int, str, str]]:
    """``(line, key, english)`` for every key of one TOML catalog, in file order.

    Raises:
        tomllib.TOMLDecodeError: not valid TOML.
    """
    text = source.decode("utf-8")
    flat = flatten(tomllib.loads(text))
    lines = key_lines(text)
    for key, english in sorted(flat.items(), key=lambda kv: (lines.get(kv[0], 0), kv[0])):
        yield lines.get(key, 0), key, english


def extract_toml(fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str],
                 options: Mapping[str, Any]) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel extraction method (``bot/text/babel.cfg``): one ``pgettext(namespace, key)``
    per catalog key, its English template as the comment.

    Args:
        fileobj: the catalog opened in binary mode; its ``name`` gives the namespace.
        keywords, comment_tags, options: Babel's; unused.
    Yields:
        ``(lineno, "pgettext", (namespace, key), [english])``.
    """
    namespace = Path(getattr(fileobj, "name", "host.toml")).stem
    for line, key, english in messages(fileobj.read()):
        yield line, "pgettext", (namespace, key), [english]
