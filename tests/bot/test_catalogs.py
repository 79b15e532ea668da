"""The message catalogs (bot/text/, docs/PROTOCOL.md "Text").

Checks that can fail: every English key has a translation in each language of
``bot.text.TRANSLATED``, with the same placeholders; the ``.po`` files hold no stale,
fuzzy or misplaced entry and ``messages.pot`` is what ``make i18n`` extracts today; every
message of seeded playouts of each game, and every text of its board images, formats in
each language (strict: no English fallback) without a raw key, a ``{field}`` or an English
word; and an altered English catalog changes nothing a database stores.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import sqlite3
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

import bot.text as text_module
from bot.check import check
from bot.service import GameService
from bot.storage import Repository
from bot.text import (
    DEFAULT_LOCALE,
    TRANSLATED,
    MissingText,
    Texts,
    catalog,
    escape_name,
    locale_of,
    namespaces,
    po_path,
    short_name,
)
from bot.text.extract import extract_toml
from bot.ui.notices import rules_in
from engines.base import CHANCE, Msg
from engines.registry import ENGINES, notation, notation_of
from render import registry as renderers
from tests.engines.test_conformance import messages_in
from tests.golden.cases import Case, cases, initial_state, play

GAMES = ("carnival", "canterbury", "heaven", "eguan", "illumination", "ora")
"""The games whose playouts and board texts are checked in every language."""

FORMATTER = string.Formatter()


def fields(template: str) -> list[str]:
    """The replacement fields of a template, sorted, each once (``"{seat} takes {dice}"`` →
    ``["dice", "seat"]``; English may name a count twice: ``{count} {count:plural:card|cards}``)."""
    return sorted({name for _, name, _, _ in FORMATTER.parse(template) if name is not None})


def english_keys() -> Iterator[tuple[str, str, str]]:
    """``(namespace, key, english)`` of every English catalog entry."""
    for namespace in namespaces():
        for key, english in catalog(namespace).items():
            yield namespace, key, english


# --------------------------------------------------------------------------- the catalogs


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_key_has_a_translation(lang: str) -> None:
    missing = [f"{ns}: {key}" for ns, key, english in english_keys()
               if english and key not in catalog(ns, lang)]
    assert not missing, f"{len(missing)} keys lack a {lang} translation (run `make i18n`, then translate " \
                        f"{po_path(lang)}): {missing[:20]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_the_placeholders_of_the_source(lang: str) -> None:
    wrong = []
    for ns, key, english in english_keys():
        translated = catalog(ns, lang).get(key)
        if translated is not None and fields(translated) != fields(english):
            wrong.append(f"{ns}: {key}: {fields(english)} ≠ {fields(translated)}")
    assert not wrong, wrong


@pytest.mark.parametrize("lang", TRANSLATED)
def test_po_file_has_no_stale_fuzzy_or_untranslatable_entry(lang: str) -> None:
    with po_path(lang).open("rb") as fh:
        po = read_po(fh)
    known = {(ns, key) for ns, key, _ in english_keys()}
    problems = []
    for message in po:
        if not message.id:
            continue
        if (message.context, message.id) not in known:
            problems.append(f"stale {message.context}: {message.id}")
        if message.fuzzy:
            problems.append(f"fuzzy {message.context}: {message.id}")
        if isinstance(message.string, str) and message.string:
            try:
                FORMATTER.vformat(message.string, (), _Anything())
            except (ValueError, IndexError) as exc:
                problems.append(f"bad template {message.context}: {message.id}: {exc}")
    assert not po.obsolete, f"obsolete entries: {list(po.obsolete)[:5]}"
    assert not problems, problems


class _Anything(dict[str, Any]):
    """Format parameters that accept any field (a template's own syntax is checked)."""

    def __missing__(self, key: str) -> str:
        return "x"


def _words(comments: list[str]) -> str:
    """Comment lines as one line of words (``.pot`` files wrap long comments)."""
    return " ".join(" ".join(comments).split())


def test_pot_is_what_make_i18n_extracts_today() -> None:
    with (text_module.HERE / "messages.pot").open("rb") as fh:
        pot = read_po(fh)
    stored = {(m.context, m.id): _words(m.auto_comments) for m in pot if m.id}
    extracted: dict[tuple[str, str], str] = {}
    for path in sorted((text_module.HERE / DEFAULT_LOCALE).glob("*.toml")):
        with path.open("rb") as fh:
            for _, _, (namespace, key), comments in extract_toml(fh, (), (), {}):
                extracted[(namespace, key)] = _words(comments)
    assert stored == extracted, "bot/text/messages.pot is out of date: run `make i18n`"


def test_discord_locales_map_to_catalogs_and_unknown_ones_to_english() -> None:
    assert [locale_of(t) for t in ("en-US", "en-GB", "zh-TW", "zh-CN", "ja", "fr", "ko", None, "")] == [
        "en", "en", "zh_TW", "zh_CN", "ja", "en", "en", "en", "en"]
    assert Texts("carnival", ["Ann"], "zh-TW").locale == "zh_TW"


def test_a_key_missing_in_a_language_falls_back_to_english_and_is_logged(monkeypatch, caplog) -> None:
    real = text_module.catalog

    def without_picked(namespace: str, locale: str = DEFAULT_LOCALE) -> dict[str, str]:
        found = dict(real(namespace, locale))
        if locale == "ja":
            found.pop("event.picked", None)
        return found

    monkeypatch.setattr(text_module, "catalog", without_picked)
    text_module._untranslated.cache_clear()
    text_module._found.cache_clear()  # (the lookups remembered: of the real catalogs before, of this one after)
    try:
        message = Msg("event.picked", {"seat": {"seat": 0}})
        with caplog.at_level(logging.WARNING, logger="bot.text"):
            assert Texts("carnival", ["Ann"], "ja")(message) == "Ann has picked a sin."
        assert "event.picked has no ja translation" in caplog.text
        assert Texts("carnival", ["Ann"], "ja")(Msg("event.first_devil", {"seat": {"seat": 0}})) == \
            "Ann が悪魔カードを受け取りました。"
        with pytest.raises(MissingText):
            Texts("carnival", ["Ann"], "ja", strict=True)(message)
    finally:
        text_module._found.cache_clear()


def test_a_name_written_in_a_message_links_formats_and_lists_nothing() -> None:
    assert escape_name("<#1234567890123456789> <t:0:F> </game:1> <:fox:1>") == \
        "\\<#1234567890123456789> \\<t:0:F> \\</game:1> \\<:fox:1>"
    assert escape_name("1. first") == "1\\. first"
    assert escape_name("2026.12 release") == "2026.12 release"
    assert escape_name("**x** @everyone") == "\\*\\*x\\*\\* @\u200beveryone"


def test_names_are_shortened_the_same_way_everywhere() -> None:
    long = "A" * 40
    assert short_name(long) == "A" * 31 + "…"
    assert len(short_name(long)) == 32
    assert short_name("\u202eevil\u202c  name\n") == "evil name"
    assert short_name("小明") == "小明"
    tx = Texts("carnival", [long, "\u202eBo"], "zh-TW")
    assert tx.name(0) == "A" * 31 + "…" and tx.name(1) == "Bo"
    assert tx.name(3) == "座位 D"


@pytest.mark.parametrize("emoji", ["👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "🧑🏽\u200d💻", "❤\ufe0f\u200d🔥",
                                   "🏃\u200d♀\ufe0f"])
def test_a_name_keeps_the_joiners_inside_an_emoji_sequence(emoji: str) -> None:
    assert short_name(f"Ann {emoji}") == f"Ann {emoji}"
    assert short_name(f"\u202e{emoji}\u200b\u2066x") == f"{emoji}x"
    assert Texts("carnival", [f"{emoji} Bo"], "en").name(0) == f"{emoji} Bo"


def test_a_joiner_outside_an_emoji_sequence_is_still_removed() -> None:
    assert short_name("A\u200dnn") == "Ann"
    assert short_name("\u200d👩") == "👩"
    assert short_name("👩\u200d") == "👩"
    assert short_name("👨\u200d\u200d👩") == "👨👩"
    assert short_name("👨\u200b\u200d👩") == "👨👩"
    assert short_name("\u200d") == ""
    assert short_name("A" * 29 + "👨\u200d👩\u200d👧") == "A" * 29 + "👨…"  # (cut inside: no joiner before the …)


@pytest.mark.parametrize("rtl", ["سارا", "דוד", "Ann سارا"])
def test_a_right_to_left_name_is_isolated_in_a_message(rtl: str) -> None:
    picked = Msg("event.picked", {"seat": {"seat": 0}})
    assert Texts("carnival", [rtl], markdown=True)(picked) == f"\u2068{rtl}\u2069 has picked a sin."
    assert Texts("carnival", [f"\u202e{rtl}\u2069"], markdown=True).name(0) == f"\u2068{rtl}\u2069"
    assert Texts("carnival", [rtl], markdown=True).plain()(picked) == f"{rtl} has picked a sin."  # (images)
    assert escape_name(short_name(rtl)) == f"\u2068{rtl}\u2069"


def test_a_left_to_right_name_is_written_as_it_is() -> None:
    assert Texts("carnival", ["Ann", "小明"], markdown=True)(Msg("event.picked", {"seat": {"seat": 1}})) == \
        "小明 has picked a sin."
    assert escape_name("1. first") == "1\\. first"


def test_a_native_name_that_would_repeat_is_hidden_not_dropped() -> None:
    label = Msg("label.choose", {"sin": {"term": "sin.greed"}, "japanese": "貪欲"})
    assert Texts("carnival", [], "en")(label) == "Greed 貪欲"
    assert Texts("carnival", [], "zh-TW")(label) == "貪慾 貪欲"
    assert Texts("carnival", [], "ja")(label) == "貪欲"


SPEC_REFERENCE = re.compile(r"§|\bD\d{1,3}\b|\bFR\d+\b|[(（]G\d[)）]|(?i:\bspec(?:ification)?\b)|docs/rules|仕様|規格|规格")
"""A reference to the rules specification (``§3.2``, ``D41`` (a capital D: ``d6`` is a die), ``spec D29``, its function rules ``FR7`` and
general rules ``(G5)``, ``docs/rules``; 仕様書, 規格書, 规格书): players have not read the specification, so
no text shown to them cites it."""


def test_no_player_facing_text_cites_the_specification() -> None:
    cited = [f"{locale} {ns}: {key}: {text!r}" for locale in (DEFAULT_LOCALE, *TRANSLATED)
             for ns in namespaces() for key, text in catalog(ns, locale).items() if SPEC_REFERENCE.search(text)]
    cited += [f"{game_id} {spec.key}: {spec.description!r}" for game_id, engine in ENGINES.items()
              for spec in (*engine.info.options, *engine.info.preferences) if SPEC_REFERENCE.search(spec.description)]
    cited += [f"{locale} {game_id} /game rules: {line.strip()!r}" for locale in (DEFAULT_LOCALE, *TRANSLATED)
              for game_id in ENGINES for line in rules_in(notation(game_id), locale).splitlines()
              if SPEC_REFERENCE.search(line)]
    assert cited == []


# --------------------------------------------------------------------------- formatted output

KEY_LIKE = re.compile(r"\b[a-z][a-z_]*\.[a-z_]+(?:\.[a-z0-9_]+)*\b")
"""A raw catalog key (``event.picked``, ``term.sin.lust``) left in a text."""

WORD = re.compile(r"[A-Za-z]{2,}")
"""An English-looking word: two or more Latin letters in a row (``d12``, ``R1`` are notation)."""

ROMAN = re.compile(r"[IVX]+")
"""Roman numerals (Illumination's Books I–III) are notation."""

NOTATION = {"ST", "Discord"}
"""Latin tokens allowed in a translated text: E Guan's start card id ``ST``; ``Discord``."""


class Recording(Texts):
    """A strict ``Texts`` that keeps every line it formats."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, strict=True, **kwargs)
        self.lines: list[str] = []

    def format(self, message: Msg) -> str:
        out = super().format(message)
        self.lines.append(out)
        return out


def leaks(lines: list[str], names: list[str]) -> list[str]:
    """Lines of a translated text that show a placeholder, a raw key or an English word."""
    allowed = NOTATION | {w for n in names for w in WORD.findall(n)}
    bad = []
    for line in lines:
        words = [w for w in WORD.findall(line) if w not in allowed and not ROMAN.fullmatch(w)]
        if "{" in line or "}" in line or KEY_LIKE.search(line) or words:
            bad.append(f"{line!r} {words}")
    return bad


def _case(game_id: str) -> Case:
    return next(c for c in cases() if c.game_id == game_id)


def messages_of_playout(case: Case, texts: Texts, every: int = 1) -> None:
    """Format every event, end reason and view message of ``case``'s golden playout, and
    (every ``every``-th position) every prompt, label, hint and path step of its movers."""
    engine = case.engine
    for step in play(case):
        for event in step.events:
            texts.event(event.to_json())
        state = step.after
        if step.index % every == 0:
            for seat in range(case.players):
                texts(notation_of(engine).prompt(state, seat))
            for viewer in [None, *range(case.players)]:
                for message in messages_in(engine.player_view(state, viewer)):
                    texts(message)
            for seat in sorted(engine.to_move(state) - {CHANCE}):
                for action in engine.legal_actions(state, seat):
                    texts(notation_of(engine).action_label(state, action))
                    texts(notation_of(engine).action_hint(state, action))
                    for part in notation_of(engine).action_path(state, action):
                        texts(part)
    outcome = engine.outcome(state)
    assert outcome is not None
    texts(outcome.reason)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("game_id", GAMES)
def test_seeded_playout_formats_in_every_language_without_leaks(game_id: str, lang: str) -> None:
    case = _case(game_id)
    texts = Recording(game_id, case.names, lang)
    messages_of_playout(case, texts, every=3)
    assert len(texts.lines) > 50
    bad = leaks(texts.lines, case.names)
    assert not bad, f"{len(bad)} leaking lines: {bad[:10]}"


ORA_RAW = re.compile(r"\b[GFIL]\d{1,2}\b|\bS0\d\b|\w\*\d|\b[a-z]+_[a-z_]+\b")
"""A raw Ora id in a line: a building (``G06``, ``L1``) or settlement id, a goods token
(``clay*2``) or an underscore id (``cut_peat``)."""


@pytest.mark.parametrize("case", [c for c in cases() if c.game_id == "ora"], ids=lambda c: f"{c.players}p")
def test_ora_event_lines_in_english_name_things_not_ids(case: Case) -> None:
    texts = Texts("ora", case.names, "en", strict=True)
    lines = [texts.event(event.to_json()) for step in play(case) for event in step.events]
    kinds = {event.kind for step in play(case) for event in step.events}
    assert len(lines) > 100 and {"placed", "built", "produced"} <= kinds
    bad = [line for line in lines if ORA_RAW.search(line)]
    assert not bad, f"{len(bad)} lines with raw ids: {bad[:10]}"


def board_texts(case: Case, texts: Texts) -> None:
    """Render the initial, middle and final board, a private view and a decision image of
    ``case``'s golden playout with ``texts``."""
    engine = case.engine
    states = [initial_state(case)] + [s.after for s in play(case)]
    picks = [states[1], states[len(states) // 3], states[len(states) // 2], states[-1]]
    for state in picks:
        renderers.board_image(case.game_id, engine.player_view(state, None), case.names, texts)
        for seat in range(case.players):
            renderers.private_image(case.game_id, engine.player_view(state, seat), case.names, texts)
            if renderers.has_decision(case.game_id):
                renderers.decision_image(case.game_id, engine.player_view(state, seat), case.names, texts)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("game_id", GAMES)
def test_board_images_draw_no_english_word(game_id: str, lang: str) -> None:
    case = _case(game_id)
    texts = Recording(game_id, case.names, lang)
    board_texts(case, texts)
    assert texts.lines
    bad = leaks(texts.lines, case.names)
    assert not bad, f"{len(bad)} leaking lines: {bad[:10]}"


# --------------------------------------------------------------------------- presentation only


def _altered_catalogs(tmp_path: Path) -> Path:
    """A copy of bot/text whose every English template starts with ``ALTERED``."""
    root = tmp_path / "text"
    shutil.copytree(text_module.HERE, root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    for path in (root / DEFAULT_LOCALE).glob("*.toml"):
        source = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r'^(\s*"?[\w\-]+"?\s*=\s*")', r"\1ALTERED ", source, flags=re.M), encoding="utf-8")
    return root


def _clear_caches() -> None:
    text_module.catalog.cache_clear()
    text_module._translations.cache_clear()
    text_module._found.cache_clear()


async def _play_games(path: str) -> int:
    """Every engine's game, a few dozen moves each (one timeout among them), into ``path``."""
    repo = Repository(path)
    await repo.open()
    service = GameService(repo)
    played = 0
    for game_id, engine in ENGINES.items():
        lobby = await service.create_lobby(game_id=game_id, guild_id=1, channel_id=2, host_user_id=1,
                                           host_name="a", options=None, move_timeout=60)
        for user in range(2, engine.info.min_players + 1):
            await service.join(lobby.id, user, "bcdef"[user - 2])
        record = (await service.start(lobby.id, 1, is_moderator=False)).game
        for step in range(30):
            record = await service.get(record.id)
            state = engine.state_from_json(record.state)
            movers = sorted(engine.to_move(state) - {CHANCE})
            if not movers:
                break
            if step == 10:
                await service.expire(record.id, record.version)
                continue
            seat = movers[step % len(movers)]
            actions = list(engine.legal_actions(state, seat))
            await service.act(record.id, record.seats[seat].user_id, actions[step % len(actions)])
        played += 1
    await repo.close()
    return played


def test_an_altered_english_catalog_changes_nothing_stored(tmp_path, monkeypatch) -> None:
    path = str(tmp_path / "games.db")
    monkeypatch.setattr(text_module, "HERE", _altered_catalogs(tmp_path))
    _clear_caches()
    try:
        assert Texts("carnival", ["a"])(Msg("event.all_picked")).startswith("ALTERED ")
        played = asyncio.run(_play_games(path))
    finally:
        monkeypatch.undo()
        _clear_caches()
    with sqlite3.connect(path) as db:
        dump = "\n".join(db.iterdump())
    assert "ALTERED" not in dump, "a formatted text was stored"
    for _, key, english in english_keys():
        for literal, *_ in FORMATTER.parse(english):
            assert len(literal) < 16 or literal not in dump, f"English text of {key} stored: {literal!r}"
    assert asyncio.run(check(path)) == (played, [])


@pytest.mark.parametrize(("locale", "n", "said"), [("en", 1, "You pay 1 coin."), ("en", 3, "You pay 3 coins."),
                                                 ("en", 0, "You pay 0 coins."), ("ja", 1, "1 コイン")])
def test_a_plural_field_takes_the_form_of_the_locales_plural_category(locale: str, n: int, said: str) -> None:
    """``{n:plural:# coin|# coins}`` (``bot.text._PluralFormatter``): English has one/other
    (Babel's CLDR rules), Japanese only other; ``#`` is the number."""
    from bot.text import Texts, plural_categories

    assert plural_categories("en") == ("one", "other") and plural_categories("ja") == ("other",)
    template = "You pay {n:plural:# coin|# coins}." if locale == "en" else "{n:plural:# コイン}"
    assert Texts(None, [], locale)._formatter.vformat(template, (), {"n": n}) == said
    assert Texts(None, [], locale)._formatter.vformat("{n:+d}", (), {"n": n}) == f"{n:+d}"  # other specs as before
