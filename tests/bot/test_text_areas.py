"""Host areas: ``bot/text/en/<area>.toml`` beside ``host.toml`` (bot/text/__init__.py ``host_areas``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.text as text
from engines.base import Msg, seat_ref


@pytest.fixture
def area(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the English catalogs with an extra host area ``probe``."""
    en = tmp_path / "en"
    en.mkdir()
    for source in (text.HERE / "en").glob("*.toml"):
        (en / source.name).write_bytes(source.read_bytes())
    (en / "probe.toml").write_text('[probe]\nhello = "Hello, {seat}."\nseat = "not the host\'s"\n', encoding="utf-8")
    monkeypatch.setattr(text, "HERE", tmp_path)
    for cached in (text.catalog, text.host_areas):
        cached.cache_clear()
    yield en
    for cached in (text.catalog, text.host_areas):
        cached.cache_clear()


def test_an_area_file_is_a_host_area_and_games_are_not(area: Path) -> None:
    from engines.registry import GAME_IDS

    areas = text.host_areas()
    assert "probe" in areas and "host" not in areas and not areas & set(GAME_IDS)


def test_keys_of_an_area_are_found_from_any_game_and_host_keys_are_untouched(area: Path) -> None:
    for game in ("carnival", "ora", None):
        tx = text.Texts(game, ["Ann"])
        assert tx(Msg("probe.hello", {"seat": seat_ref(0)})) == "Hello, Ann."
        assert tx.template("host.seat") == "Seat {letter}"
    with pytest.raises(text.MissingText):
        text.Texts("carnival", ["Ann"]).template("probe.missing")
