"""Every game option's and preference's name and description fit a Discord select option
(``SELECT_LABEL``, 100 characters) in every language, so the lobby menu and ``/game prefs``
show them whole, never cut with '…' (a trial saw Ora's ``mode`` cut)."""

from __future__ import annotations

from bot.text import LOCALES, Texts
from bot.ui.limits import SELECT_LABEL
from bot.ui.lobby_options import option_text
from engines.registry import GAME_IDS, get


def test_option_and_preference_texts_fit_a_select_option_in_every_language() -> None:
    too_long = []
    for game_id in GAME_IDS:
        info = get(game_id).info
        for locale in LOCALES:
            tx = Texts(game_id, [], locale)
            for kind, specs in (("option", info.options), ("pref", info.preferences)):
                for spec in specs:
                    too_long += [(game_id, locale, kind, spec.key, len(text))
                                 for text in option_text(tx, spec, kind) if len(text) > SELECT_LABEL]
    assert too_long == []
