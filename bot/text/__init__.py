"""Text: turning the engines' messages (a kind plus parameters) into sentences.

Engines never write prose (``engines/base.py`` ``Msg``): events, prompts, labels, hints
and end reasons are a catalog key plus JSON parameters. This package holds the catalogs and
the one formatter that fills them, used for every message, button, select and board text.

Catalogs (docs/PROTOCOL.md "Text"): the English templates are the source strings,
``bot/text/en/<namespace>.toml`` (flat dotted keys; a namespace is a game id, ``host``, or a host area such as ``table``
whose keys all begin ``<area>.``: ``host_areas``).
``make i18n`` extracts them (``bot/text/extract.py``) into ``bot/text/messages.pot`` and
merges that into ``bot/text/locale/<lang>/LC_MESSAGES/messages.po`` for ``zh_TW``, ``zh_CN``
and ``ja``: ``msgctxt`` is the namespace, ``msgid`` the key, ``msgstr`` the template in that
language. The ``.po`` files are read as they are (``babel.messages.pofile``), no compile step.

Parameter values (``engines/base.py``): ``{"seat": n}`` → the player's display name;
``{"seats": [..]}`` → "Ann, Bo and Cy"; ``{"term": key}`` → the catalog's ``term.<key>``;
``{"msg": key, "params": {..}}`` → a nested message; a list → its items joined by the
catalog's ``host.comma`` (", "; "、" in Chinese and Japanese);
numbers and notation strings as they are (so ``{n:+d}`` works in a template).
"""

from __future__ import annotations

import logging
import re
import string
import tomllib
import unicodedata
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engines.base import SEAT_LETTERS, Event, Msg
from engines.registry import hosted_changes

from .extract import flatten

if TYPE_CHECKING:
    from babel.plural import PluralRule

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
DEFAULT_LOCALE = "en"
LOCALES = ("en", "zh_TW", "zh_CN", "ja")
"""The catalog locales: English (the source) and the translations in ``bot/text/locale/``."""
TRANSLATED = LOCALES[1:]

NAME_LIMIT = 32
"""Longest display name (characters) shown anywhere; longer ones end in an ellipsis."""

_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u061c]")
_SPACES = re.compile(r"\s+")
ZWJ = "\u200d"
"""The zero-width joiner: kept where it joins two emoji into one (👨‍👩‍👧), removed elsewhere."""


def _visible(name: str) -> str:
    """``name`` without bidirectional controls and zero-width characters, except the joiners
    inside emoji sequences (``render.base.emoji_sequence_end``: as the images draw them)."""
    if ZWJ not in name:
        return _INVISIBLE.sub("", name)
    from render.base import emoji_sequence_end

    out, i = [], 0
    while i < len(name):
        end = emoji_sequence_end(name, i)
        out.append(name[i:end] if end > i + 1 else _INVISIBLE.sub("", name[i]))
        i = end
    return "".join(out)


def short_name(name: str, limit: int = NAME_LIMIT) -> str:
    """A display name as every text shows it: bidirectional controls and zero-width
    characters removed (but for the joiners inside an emoji sequence: 👨‍👩‍👧 stays one
    emoji), runs of whitespace (newlines too) as one space, at most ``limit``
    characters (the last one ``…`` when cut). An empty result stays ``""``."""
    cleaned = _SPACES.sub(" ", _visible(name)).strip()
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1].rstrip().removesuffix(ZWJ) + "…"


_NUMBERED = re.compile(r"^(\d+)\.(?=\s)")
"""A name that starts like a numbered list item (``1. …``): its digits, then the dot to escape."""


def escape_name(name: str) -> str:
    """A (shortened) display name as a Discord message writes it: markdown characters
    (``*_~`|>``, links) and mentions (``@everyone``, ``@here``, ``<@…>``) escaped, so a name
    is shown as typed and pings nobody (``discord.utils.escape_markdown`` / ``escape_mentions``);
    also every ``<`` (so ``<#channel>``, ``<t:0:F>``, ``<:emoji:id>`` and ``</command:id>`` are not
    turned into links, timestamps or emoji) and the dot of a leading ``1.`` (a numbered list when
    the name starts a line); a right-to-left name is isolated (``isolated``)."""
    from discord.utils import escape_markdown, escape_mentions

    escaped = _NUMBERED.sub(r"\1\\.", escape_mentions(escape_markdown(name)).replace("<", "\\<"), count=1)
    return isolated(escaped)


FSI, PDI = "\u2068", "\u2069"
"""First strong isolate and pop directional isolate (Unicode UAX #9)."""


def isolated(name: str) -> str:
    """``name`` between ``FSI`` and ``PDI`` when it holds a right-to-left letter (Arabic,
    Hebrew: bidirectional class R or AL), so it does not reorder the sentence around it
    ("سارا has picked a sin." keeps its English order); other names as they are."""
    if name.isascii() or not any(unicodedata.bidirectional(c) in ("R", "AL") for c in name):
        return name
    return f"{FSI}{name}{PDI}"


@lru_cache(maxsize=4096)
def _shown_name(name: str, markdown: bool) -> str:
    """``short_name(name)``, escaped (``escape_name``) when ``markdown``: what ``Texts`` shows for
    a seat, remembered per name (a move builds a score of ``Texts`` for the same few
    names; both functions depend on the name alone)."""
    return escape_name(short_name(name)) if markdown else short_name(name)


def locale_of(tag: str | None) -> str:
    """The catalog locale of a Discord locale string (``"en-US"``, ``"zh-TW"``, ``"ja"``;
    ``discord.Locale`` values are the same strings) or of a catalog locale (``"zh_TW"``).
    Unknown or missing → ``"en"``."""
    if not tag:
        return DEFAULT_LOCALE
    norm = str(tag).replace("-", "_")
    lower = norm.lower()
    for known in LOCALES:
        if lower == known.lower():
            return known
    if lower.startswith("ja"):
        return "ja"
    if lower in ("zh_hant", "zh_hk", "zh_mo"):
        return "zh_TW"
    if lower in ("zh", "zh_hans", "zh_sg"):
        return "zh_CN"
    return DEFAULT_LOCALE


def po_path(locale: str) -> Path:
    """Where the ``.po`` file of a translated ``locale`` lives."""
    return HERE / "locale" / locale / "LC_MESSAGES" / "messages.po"


@cache
def _translations(locale: str) -> dict[str, dict[str, str]]:
    """``{namespace: {key: template}}`` of one language's ``.po`` file: fuzzy and empty
    entries are left out (they fall back to English)."""
    from babel.messages.pofile import read_po

    path = po_path(locale)
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        po = read_po(fh, ignore_obsolete=True)
    out: dict[str, dict[str, str]] = {}
    for message in po:
        if not message.id or message.fuzzy or not isinstance(message.id, str):
            continue
        if isinstance(message.string, str) and message.string:
            out.setdefault(message.context or "host", {})[message.id] = message.string
    return out


@cache
def catalog(namespace: str, locale: str = DEFAULT_LOCALE) -> dict[str, str]:
    """The flat catalog of ``namespace`` in ``locale`` (``{}`` when absent): the English
    TOML file (a game's own file when its notation names one, ``own_catalog``), or the
    translated entries of that language's ``.po`` file.

    Raises:
        tomllib.TOMLDecodeError: the English file is not valid TOML.
    """
    if locale != DEFAULT_LOCALE:
        return dict(_translations(locale).get(namespace, {}))
    path = own_catalog(namespace) or HERE / locale / f"{namespace}.toml"
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        return flatten(tomllib.load(fh))


def own_catalog(namespace: str) -> Path | None:
    """The English catalog a registered game brings itself (``engines.notation.Notation.catalog``,
    e.g. a test's own game), or None: the game's catalog is ``bot/text/en/<game_id>.toml``."""
    from engines.registry import NOTATIONS

    notation = NOTATIONS.get(namespace)
    return None if notation is None else notation.catalog


def guests() -> list[str]:
    """The registered games that bring their own catalog (``own_catalog``): their files may
    also hold the host's keys about the game (``ui.game.<game_id>``, ``cmd.name.<game_id>``,
    ``cmd.desc.<game_id>``, ``cmd.choice.<game_id>``), searched after the host's catalogs."""
    from engines.registry import NOTATIONS

    return [game_id for game_id, notation in NOTATIONS.items() if notation.catalog is not None]


def namespaces() -> list[str]:
    """Every catalog namespace (the stems of ``bot/text/en/*.toml``), sorted."""
    return sorted(p.stem for p in (HERE / DEFAULT_LOCALE).glob("*.toml"))


@cache
def host_areas() -> frozenset[str]:
    """The host's own catalog namespaces besides ``host`` (e.g. ``table``, ``ops``): each
    ``bot/text/en/<area>.toml`` that is not a game's holds the keys that begin ``<area>.``."""
    from engines.registry import GAME_IDS

    return frozenset(n for n in namespaces() if n != "host" and n not in GAME_IDS)


class MissingText(KeyError):
    """A message key (or a parameter its template names) is not in the catalogs."""


_PLURAL_CATEGORIES = ("zero", "one", "two", "few", "many", "other")
"""CLDR's plural categories in their canonical order (the order of a ``plural:`` field's forms)."""


@cache
def plural_rule(locale: str) -> PluralRule:
    """Babel's plural rule of ``locale``: a number → its CLDR plural category (``"one"``, ``"other"``…);
    parsed once per locale."""
    from babel import Locale

    return Locale.parse(locale).plural_form


@cache
def plural_categories(locale: str) -> tuple[str, ...]:
    """The plural categories ``locale`` distinguishes, in CLDR order, ``other`` last:
    ``("one", "other")`` in English, ``("other",)`` in Chinese and Japanese (Babel's CLDR data)."""
    tags = plural_rule(locale).tags
    return tuple(c for c in _PLURAL_CATEGORIES if c in tags or c == "other")


class _PluralFormatter(string.Formatter):
    """``string.Formatter`` with ICU-style plural fields: ``{n:plural:# card|# cards}`` picks
    the form of ``n``'s plural category in the locale (``plural_categories``: the forms
    follow that order; a form missing, e.g. a translation giving one form, falls back to the
    last) and writes ``n`` for ``#``. Any other format spec (``{n:+d}``) is as usual."""

    def __init__(self, locale: str) -> None:
        super().__init__()
        self.locale = locale

    def format_field(self, value: Any, format_spec: str) -> str:
        if not format_spec.startswith("plural:"):
            return str(super().format_field(value, format_spec))
        forms = format_spec[len("plural:"):].split("|")
        number = value if isinstance(value, int | float) else float(str(value))
        category = plural_rule(self.locale)(abs(number))
        chosen = dict(zip(plural_categories(self.locale), forms, strict=False)).get(category, forms[-1])
        return chosen.replace("#", f"{value:g}" if isinstance(value, float) else str(value))


class _Params(dict[str, Any]):
    def __missing__(self, key: str) -> Any:
        raise MissingText(key)


class Texts:
    """Formats one game's messages for one reader.

    Args:
        game_id: the game whose catalog is searched first (None: host messages only).
        names: display names by seat (shortened with ``short_name``).
        locale: the reader's locale, a Discord locale string or a catalog locale
            (``locale_of``: unknown → English).
        markdown: the text goes into a Discord message: names are escaped
            (``escape_name``); images take ``plain()``.
        strict: raise ``MissingText`` for an unknown key or a key not translated into
            ``locale`` (tests); otherwise an untranslated key is logged and shown in
            English, and an unknown key is logged and shown as the key, so a missing string
            never breaks a game.

    Calling it formats a ``Msg``, a message JSON dict, an event's JSON dict, or a legacy
    string with ``{p0}`` placeholders (events stored before the engine-shape change).
    """

    def __init__(self, game_id: str | None, names: Sequence[str], locale: str = DEFAULT_LOCALE,
                 *, strict: bool = False, markdown: bool = False) -> None:
        self.game_id = game_id
        self.raw_names = list(names)
        self.names = [_shown_name(n, markdown) for n in names]
        self.markdown = markdown
        self.locale = locale_of(locale)
        self.strict = strict
        self._formatter = _PluralFormatter(self.locale)

    def plain(self) -> Texts:
        """The same formatter with names as they are (for images, not messages)."""
        return Texts(self.game_id, self.raw_names, self.locale, strict=self.strict)

    # -- lookups ---------------------------------------------------------------
    def template(self, key: str) -> str:
        """The template of ``key`` in the reader's language: the game's catalog, then the
        host's; a key that language lacks falls back to English (logged once).

        Raises:
            MissingText: in no catalog, or (``strict``) not translated.
        """
        found = self._lookup(key, self.locale)
        if found is not None:
            return found
        english = self._lookup(key, DEFAULT_LOCALE) if self.locale != DEFAULT_LOCALE else None
        if english is None:
            raise MissingText(key)
        if english and self.strict:
            raise MissingText(f"{key} (no {self.locale} translation)")
        if english:
            _untranslated(self.locale, self.game_id, key)
        return english

    def _lookup(self, key: str, locale: str) -> str | None:
        return _found(self.game_id, key, locale, hosted_changes())

    @staticmethod
    def _search(game_id: str | None, key: str, locale: str) -> str | None:
        """``key``'s template in ``locale``: the game's catalog, the key's host area, the host's, the
        guests'; None in none of them."""
        parts = key.split(".")
        area = parts[1] if parts[0] == "event" and len(parts) > 2 else parts[0]  # (event.<area>.<kind>)
        areas = (area,) if area in host_areas() and area != game_id else ()
        for namespace in ((game_id,) if game_id else ()) + areas + ("host",):
            found = catalog(namespace, locale).get(key)
            if found is not None:
                return found
        for namespace in guests():  # (a game's own file: the host's keys about that game)
            found = catalog(namespace, locale).get(key)
            if found is not None:
                return found
        return None

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
        head = self.template("host.comma").join(items[:-1])
        return self.template("host.and").format(head=head, last=items[-1])

    # -- formatting --------------------------------------------------------------
    def value(self, value: Any) -> Any:
        """One parameter value as it goes into a template (see the module docstring)."""
        if type(value) in _PLAIN:  # (most values: no abstract class to ask)
            return value
        if isinstance(value, Mapping):
            if "seat" in value and len(value) == 1:
                return self.name(int(value["seat"]))
            if "seats" in value and len(value) == 1:
                return self.join([self.name(int(s)) for s in value["seats"]])
            if "term" in value and len(value) == 1:
                return self.template(f"term.{value['term']}")
            if "msg" in value:
                key = value["msg"]
                if type(key) is not str:
                    return self.format(Msg.from_json(value))  # (refused there)
                return self._fill(key, value.get("params") or {})
        if isinstance(value, Msg):
            return self.format(value)
        if isinstance(value, list | tuple):
            return self.template("host.comma").join(str(self.value(v)) for v in value)
        return value

    def format(self, message: Msg) -> str:
        """Fill ``message``'s template with its parameters.

        Raises:
            MissingText: only when ``strict``.
        """
        return self._fill(message.key, message.params)

    def _fill(self, key: str, parameters: Mapping[str, Any]) -> str:
        """``format`` of the message ``key`` with ``parameters`` (a ``Msg``'s, or a nested
        message's JSON form, read without making a ``Msg`` of it)."""
        try:
            template = self.template(key)
            params = _Params({k: self.value(v) for k, v in parameters.items()})
            if ":plural:" not in template:  # (str.format_map is C; string.Formatter is Python)
                return template.format_map(params)
            return self._formatter.vformat(template, (), params)
        except (MissingText, IndexError, ValueError) as exc:
            if self.strict:
                raise MissingText(f"{self.game_id}: {key}: {exc}") from exc
            log.error("text %s/%s cannot be formatted: %s", self.game_id, key, exc)
            return key

    def legacy(self, text: str) -> str:
        """A stored English line with ``{p0}`` placeholders, names filled in."""
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


_PLAIN = frozenset({str, int, float})
"""Parameter types that go into a template as they are (``Texts.value``)."""


@lru_cache(maxsize=16384)
def _found(game_id: str | None, key: str, locale: str, hosted: int) -> str | None:
    """``Texts._search``, remembered (a move formats the same few hundred keys again and again)
    while the games hosted are the same (``hosted``: ``engines.registry.hosted_changes``: a game's
    own catalog is searched for the host's keys about it); ``catalog`` is remembered too: clear
    both to read changed files."""
    return Texts._search(game_id, key, locale)


@cache
def _untranslated(locale: str, game_id: str | None, key: str) -> None:
    log.warning("text %s/%s has no %s translation; shown in English", game_id, key, locale)


def host_sentence(key: str, /, locale: str = DEFAULT_LOCALE, **params: Any) -> str:
    """The host sentence ``key`` (any host area: ``ai.*``, ``table.*``, ``ui.*``) with
    ``params``, in ``locale``; for text that names no player (``Texts`` does the rest)."""
    return Texts(None, [], locale)(Msg(key, params))
