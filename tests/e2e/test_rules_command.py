"""``/game rules`` and ``/<game> rules``: every game's rules.md reaches the player whole,
privately, in messages of at most 1,900 characters (5 % of Discord's 2,000 left free), with our
decisions."""

from __future__ import annotations

import pytest

from bot.ui.notices import rules_in, rules_messages
from engines.registry import GAME_IDS
from engines.registry import notation as get_notation
from tests.e2e.driver import Driver

NEEDLES = {
    "carnival": ("Envy", "random"),
    "canterbury": ("**Our decisions**", "`sin greed red`"),
    "heaven": ("**Our decisions**", "reaction_timeout", "turn_timeout", "`guardian_pref`", "`auto_advance`",
               "`auto_draw`", "Timeout = ALLOW (no defence)"),
    "eguan": ("**Our decisions**", "Timeouts:"),
    "illumination": ("## How this bot plays it", "`exilium_timeout`", "**Pass** asks for a confirmation", "**Undo:**"),
    "ora": ("Readings taken by this implementation", "`wc_reply_timeout`"),
}


@pytest.mark.parametrize("game_id", GAME_IDS)
async def test_rules_command_shows_the_whole_rules_file(driver: Driver, players, game_id: str) -> None:
    alice = players[0]
    for command in (("game", "rules"), (game_id, "rules")):
        last = max(driver.fake.messages) if driver.fake.messages else 0
        options = {"game": game_id} if command[0] == "game" else {}
        await driver.fake.slash(alice, *command, **options)
        await driver.settle()
        chunks = [m["content"] for mid, m in sorted(driver.fake.messages.items())
                  if mid > last and m["flags"] & 64 and driver.fake.ephemeral_owner(m) == alice["id"]]
        assert chunks and all(len(c) <= 1900 for c in chunks)
        text = "\n".join(chunks)
        for line in get_notation(game_id).rules_text().splitlines():
            assert line.strip() in text, line
        for needle in NEEDLES[game_id]:
            assert needle in text, needle


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_languages_rules_leave_five_percent_of_a_message_free(game_id: str) -> None:
    """Each message of ``/game rules``, in every language, keeps 5 % of Discord's 2,000 characters
    free (counted as Discord counts them, in UTF-16 units), and together they are the whole text."""
    for locale in ("en", "zh-TW", "zh-CN", "ja"):
        messages = rules_messages(get_notation(game_id), locale)
        assert messages and all(len(m.encode("utf-16-le")) // 2 <= 1900 for m in messages), (
            locale, [len(m) for m in messages])
        assert "\n".join(messages).split() == rules_in(get_notation(game_id), locale).split()
