"""The one line that adds Goofspiel to the host, for the tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engines.registry import Game, hosting
from tests.toy_game import GAME


@pytest.fixture(autouse=True)
def goofspiel() -> Iterator[Game]:
    with hosting(GAME) as game:
        yield game


from tests.e2e.conftest import bot, driver, fake, make_bot, players  # noqa: E402, F401  (the offline Discord)
