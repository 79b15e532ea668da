"""Text: turning the engines' messages (a kind plus parameters) into sentences.

Engines never write prose (``engines/base.py`` ``Msg``): events, prompts, labels, hints
and end reasons are a catalog key plus JSON parameters. This package holds the catalogs
(``bot/text/<locale>/<game_id>.toml`` and ``host.toml``, flat dotted keys) and the one
formatter that fills them, used for every message, button, select and board text.

Parameter values (``engines/base.py``): ``{"seat": n}`` → the player's display name;
``{"seats": [..]}`` → "Ann, Bo and Cy"; ``{"term": key}`` → the catalog's ``term.<key>``;
``{"msg": key, "params": {..}}`` → a nested message; a list → its items joined by ", ";
numbers and notation strings as they are (so ``{n:+d}`` works in a template).
"""

from __future__ import annotations

import logging
import string
import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from engines.base import SEAT_LETTERS, Event, Msg

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
DEFAULT_LOCALE = "en"


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out |= _flatten(value, f"{name}.")
        else:
            out[name] = str(value)
    return out


@cache
def catalog(namespace: str, locale: str = DEFAULT_LOCALE) -> dict[str, str]:
    """The flat catalog ``bot/text/<locale>/<namespace>.toml`` (``{}`` when absent).

    Raises:
        tomllib.TOMLDecodeError: the file is not valid TOML.
    """
    path = HERE / locale / f"{namespace}.toml"
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        return _flatten(tomllib.load(fh))


class MissingText(KeyError):
    """A message key (or a parameter its template names) is not in the catalogs."""


class _Params(dict[str, Any]):
    def __missing__(self, key: str) -> Any:
        raise MissingText(key)


class Texts:
    """Formats one game's messages for one reader.

    Args:
        game_id: the game whose catalog is searched first (None: host messages only).
        names: display names by seat.
        locale: catalog locale (``"en"`` today).
        strict: raise ``MissingText`` for an unknown key (tests); otherwise log it and
            show the key, so a missing string never breaks a game.

    Calling it formats a ``Msg``, a message JSON dict, an event's JSON dict, or a legacy
    string with ``{p0}`` placeholders (events stored before the engine-shape change).
    """

    def __init__(self, game_id: str | None, names: Sequence[str], locale: str = DEFAULT_LOCALE,
                 *, strict: bool = False) -> None:
        self.game_id = game_id
        self.names = list(names)
        self.locale = locale
        self.strict = strict
        self._formatter = string.Formatter()

    # -- lookups ---------------------------------------------------------------
    def template(self, key: str) -> str:
        """The template of ``key``: the game's catalog, then the host's.

        Raises:
            MissingText: in neither.
        """
        for namespace in ((self.game_id,) if self.game_id else ()) + ("host",):
            found = catalog(namespace, self.locale).get(key)
            if found is not None:
                return found
        raise MissingText(key)

    def name(self, seat: int) -> str:
        """The display name of ``seat`` (``"Seat A"`` when no name is known)."""
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        letter = SEAT_LETTERS[seat] if 0 <= seat < len(SEAT_LETTERS) else str(seat + 1)
        return self.template("host.seat").format(letter=letter)

    def join(self, items: Sequence[str]) -> str:
        """``"a"``, ``"a and b"``, ``"a, b and c"`` in the catalog's words."""
        if len(items) <= 1:
            return "".join(items)
        return self.template("host.and").format(head=", ".join(items[:-1]), last=items[-1])

    # -- formatting --------------------------------------------------------------
    def value(self, value: Any) -> Any:
        """One parameter value as it goes into a template (see the module docstring)."""
        if isinstance(value, Mapping):
            if "seat" in value and len(value) == 1:
                return self.name(int(value["seat"]))
            if "seats" in value and len(value) == 1:
                return self.join([self.name(int(s)) for s in value["seats"]])
            if "term" in value and len(value) == 1:
                return self.template(f"term.{value['term']}")
            if "msg" in value:
                return self.format(Msg.from_json(value))
        if isinstance(value, Msg):
            return self.format(value)
        if isinstance(value, list | tuple):
            return ", ".join(str(self.value(v)) for v in value)
        return value

    def format(self, message: Msg) -> str:
        """Fill ``message``'s template with its parameters.

        Raises:
            MissingText: only when ``strict``.
        """
        try:
            template = self.template(message.key)
            params = _Params({k: self.value(v) for k, v in message.params.items()})
            return self._formatter.vformat(template, (), params)
        except (MissingText, IndexError, ValueError) as exc:
            if self.strict:
                raise MissingText(f"{self.game_id}: {message.key}: {exc}") from exc
            log.error("text %s/%s cannot be formatted: %s", self.game_id, message.key, exc)
            return message.key

    def legacy(self, text: str) -> str:
        """A stored English line with ``{p0}`` placeholders, names filled in."""
        import re

        return re.sub(r"\{p(\d+)\}", lambda m: self.name(int(m.group(1))), text)

    def __call__(self, text: Msg | Mapping[str, Any] | str | None) -> str:
        if text is None:
            return ""
        if isinstance(text, Msg):
            return self.format(text)
        if isinstance(text, Mapping):
            return self.event(text) if "kind" in text else self.format(Msg.from_json(text))
        return self.legacy(text)

    def event(self, event: Event | Mapping[str, Any]) -> str:
        """An event (or its stored JSON form) as one line."""
        if isinstance(event, Mapping):
            event = Event.from_json(event)
        return self(event.message)
