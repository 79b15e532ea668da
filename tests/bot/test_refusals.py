"""An engine's refusal in the reader's language (bot/ui/errors.py ``engine_sentence``)."""

from __future__ import annotations

import pytest

from bot.ui.errors import refusal
from engines.base import GameError
from engines.registry import get


def mode_error() -> GameError:
    with pytest.raises(GameError) as caught:
        get("ora").new_game(3, 1, {"mode": "long"})
    return caught.value


def test_a_refusal_the_engine_gave_as_a_catalog_message_is_said_in_the_readers_language() -> None:
    error = mode_error()
    assert refusal(error, "en") == ("⚠️ Mode long does not fit this player count (3). "
                                    "Choose mode=standard (standard), mode=short (short), or change the seats.")
    japanese = refusal(error, "ja")
    assert japanese is not None and "3" in japanese and "long" in japanese
    assert japanese != refusal(error, "en") and "Choose" not in japanese


def test_a_plain_engine_refusal_stays_its_message() -> None:
    assert refusal(GameError("You can only take a table die."), "ja") == "⚠️ You can only take a table die."
