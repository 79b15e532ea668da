"""Secrets stay out of logs: interaction and webhook tokens are credentials
for 15 minutes, the bot token for ever, and discord.py prints them at DEBUG — routes like
``/interactions/{id}/{token}/callback`` and ``/webhooks/{app_id}/{token}/messages/@original``,
gateway events with ``'token': '…'``, tracebacks of failed requests.

``RedactSecrets`` is a ``logging.Filter`` that rewrites a record's message, traceback and
stack text with every secret replaced by ``[redacted]`` before any handler formats it; it
never drops a record. ``install`` puts one on handlers (``bot/__main__.py`` on the root
handlers, ``bot.sandbox.fakecord.FakeDiscord`` on the test rig's).

JSON lines (``LOG_FORMAT=json``): ``JsonLines`` writes each record as one
JSON object with the game id and the interaction id the emitting task is working on
(``bind``: context variables, so each handler task has its own).
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import re
from collections.abc import Iterable
from typing import Any

MASK = "[redacted]"
"""What a secret is replaced by."""

PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # the token segment of interaction callbacks and of webhook / interaction follow-up routes
    (re.compile(r"(/interactions/\d+/)[^/\s'\"?#]+"), rf"\g<1>{MASK}"),
    (re.compile(r"(/webhooks/\d+/)[^/\s'\"?#]+"), rf"\g<1>{MASK}"),
    # "token": "…" in logged JSON or Python dict reprs (gateway events, payloads)
    (re.compile(r"""(["']token["']\s*:\s*["'])[^"']*"""), rf"\g<1>{MASK}"),
    # an Authorization header value
    (re.compile(r"\b(Bot|Bearer)\s+[\w.\-]{20,}"), rf"\g<1> {MASK}"),
    # anything shaped like a bot token: base64 user id . timestamp . HMAC
    (re.compile(r"\b[\w\-]{23,28}\.[\w\-]{6,7}\.[\w\-]{27,}"), MASK),
)
"""(pattern, replacement) pairs applied to every log text, in order."""


class RedactSecrets(logging.Filter):
    """Replace secrets in every record it sees (any logger, any level) and let it through.

    Args:
        secrets: literal strings to hide wherever they appear (the bot token); empty
            strings are ignored. ``add`` registers more later.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets: set[str] = set()
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        """Hide ``secret`` too (ignored when empty or shorter than 4 characters, which would
        mangle ordinary words)."""
        if secret and len(secret) >= 4:
            self.secrets.add(secret)

    def redact(self, text: str) -> str:
        """``text`` with every literal secret and every token pattern (``PATTERNS``) masked."""
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        for pattern, replacement in PATTERNS:
            text = pattern.sub(replacement, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite ``record`` in place: its message (arguments merged in), its traceback text
        and its stack text. Always True."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed call: keep what can be shown
            message = f"{record.msg!r} {record.args!r}"
        record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def install(handlers: Iterable[logging.Handler], secrets: Iterable[str] = ()) -> RedactSecrets:
    """Put one ``RedactSecrets`` (hiding ``secrets``) on each of ``handlers``; returns it
    (``uninstall`` takes it off again)."""
    redactor = RedactSecrets(secrets)
    for handler in handlers:
        handler.addFilter(redactor)
    return redactor


def uninstall(redactor: RedactSecrets, handlers: Iterable[logging.Handler]) -> None:
    """Take ``redactor`` off ``handlers`` (those without it are left alone)."""
    for handler in handlers:
        handler.removeFilter(redactor)


GAME: contextvars.ContextVar[int | None] = contextvars.ContextVar("game", default=None)
"""The game id the current task is working on (None: none)."""

INTERACTION: contextvars.ContextVar[int | None] = contextvars.ContextVar("interaction", default=None)
"""The Discord interaction id the current task is answering (None: none)."""


def bind(*, game: int | None = None, interaction: int | None = None) -> None:
    """Name the game and/or interaction the current task works on, for its log lines (a
    value left None is kept as it was). Context variables: every asyncio task has its own
    copy, taken when it was created."""
    if game is not None:
        GAME.set(game)
    if interaction is not None:
        INTERACTION.set(interaction)


class JsonLines(logging.Formatter):
    """One JSON object per record: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, ``game`` and ``interaction`` (ids or null, from ``bind``), and ``exc``
    (the traceback text) when there is one. Secrets are redacted before (``RedactSecrets``
    on the handler)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name, "message": record.getMessage(),
            "game": GAME.get(), "interaction": INTERACTION.get(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exc"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)
