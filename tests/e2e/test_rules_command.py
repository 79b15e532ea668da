"""``/game rules`` and ``/<game> rules``: every game's rules.md reaches the player whole,
privately, in messages of at most 2000 characters, with our decisions."""

from __future__ import annotations

import pytest

from engines.registry import GAME_IDS
from engines.registry import notation as get_notation
from tests.e2e.driver import Driver

NEEDLES = {
    "carnival": ("Envy", "random"),
    "canterbury": ("**Our decisions**", "`sin greed red`"),
    "heaven": ("**Our decisions**", "reaction_timeout", "turn_timeout", "`guardian_pref`", "`auto_advance`",
               "`auto_draw`", "Timeout = ALLOW (no defence)"),
    "eguan": ("**Our decisions**", "Timeouts:"),
    "illumination": ("## Our decisions", "`exilium_timeout`", "**Pass** asks for a confirmation", "**Undo (spec §5.5, D39):**"),
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
        assert chunks and all(len(c) <= 2000 for c in chunks)
        text = "\n".join(chunks)
        for line in get_notation(game_id).rules_text().splitlines():
            assert line.strip() in text, line
        for needle in NEEDLES[game_id]:
            assert needle in text, needle
