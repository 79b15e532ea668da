"""No payload ends the process (bot/app.py ``guard_parsers``): an INTERACTION_CREATE that
discord.py's gateway parser cannot read (a component without a string ``custom_id``, an
unknown interaction type, data of the wrong shape) is logged and dropped, and the user who
sent it, where Discord would show them anything, gets a private answer; the bot goes on
serving. A component or modal whose ``custom_id`` is not the bot's gets a private answer too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import EPHEMERAL, FakeDiscord
from bot.text import Texts
from engines.base import Msg
from tests.e2e.driver import Driver
from tests.reliability.botkit import start_bot

JSON = dict[str, Any]

UNREADABLE = Texts(None, [], "en")(Msg("ui.error.unreadable"))
FOREIGN = Texts(None, [], "en")(Msg("ui.error.foreign_message"))


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[FakeDiscord, GameBot, JSON, JSON]]:
    async with FakeDiscord(owner_name="alice") as fake:
        bot = await start_bot(fake, tmp_path / "games.db")
        driver = Driver(fake, bot)
        mallory = await fake.add_member("mallory")
        game = await driver.start_game("carnival", [fake.owner, await fake.add_member("bob")])
        board = fake.messages[(await bot.service.get(game)).board_message_id]  # type: ignore[index]
        yield fake, bot, mallory, board
        await fake.stop_bot(bot)


CASES: list[tuple[str, int, Any, str | None]] = [
    ("custom_id a number", 3, {"custom_id": 12, "component_type": 2}, UNREADABLE),
    ("custom_id a list", 3, {"custom_id": ["g"], "component_type": 3, "values": []}, UNREADABLE),
    ("custom_id missing", 3, {"component_type": 2}, UNREADABLE),
    ("component_type missing", 3, {"custom_id": "g:1:1:play"}, UNREADABLE),
    ("component data null", 3, None, UNREADABLE),
    ("modal data a string", 5, "x", UNREADABLE),
    ("a command without a name", 2, {"type": 1}, UNREADABLE),
    ("a command whose type is null", 2, {"name": "", "type": None}, UNREADABLE),
    ("a command of the right name whose type is null", 2, {"name": "game", "type": None}, UNREADABLE),
    ("a command of an unknown type", 2, {"name": "game", "type": 9}, UNREADABLE),
    ("a command whose type is text", 2, {"name": "game", "type": "1"}, UNREADABLE),
    ("a command whose options are text", 2, {"name": "game", "type": 1, "options": "ab"}, UNREADABLE),
    ("a subcommand whose options are no objects", 2,
     {"name": "game", "options": [{"name": "mine", "type": 1, "options": [1]}]}, UNREADABLE),
    ("a subcommand without a name", 2, {"name": "game", "options": [{"type": 1}]}, UNREADABLE),
    ("a command whose guild_id is no snowflake", 2, {"name": "game", "guild_id": "x"}, UNREADABLE),
    ("a command whose resolved is text", 2,
     {"name": "game", "options": [{"name": "mine", "type": 1, "options": []}], "resolved": "x"}, UNREADABLE),
    ("a command whose resolved user is text", 2,
     {"name": "game", "options": [{"name": "mine", "type": 1, "options": []}], "resolved": {"users": {"1": "x"}}},
     UNREADABLE),
    ("an unknown interaction type", 99, {"custom_id": "x"}, None),
    ("a button not the bot's", 3, {"custom_id": "not-ours", "component_type": 2}, FOREIGN),
    ("a modal not the bot's", 5, {"custom_id": "not-ours", "components": []}, FOREIGN),
]


@pytest.mark.parametrize(("case", "kind", "data", "answer"), CASES, ids=[c[0] for c in CASES])
async def test_a_payload_the_parser_cannot_read_is_answered_and_the_bot_goes_on(
        served: tuple[FakeDiscord, GameBot, JSON, JSON], case: str, kind: int, data: Any, answer: str | None) -> None:
    fake, bot, mallory, board = served
    last = max(fake.messages)
    payload = fake._interaction(kind, mallory, {}, channel=fake.channel, message=board if kind == 3 else None)
    payload["data"] = data
    await fake.dispatch("INTERACTION_CREATE", payload)
    await fake.idle(0.02)
    new = [m for mid, m in sorted(fake.messages.items()) if mid > last]
    if answer is None:
        assert new == []
    else:
        assert [m["content"] for m in new] == [f"⚠️ {answer}"]
        assert new[0]["flags"] & EPHEMERAL and fake.ephemeral_owner(new[0]) == mallory["id"]
    assert not bot.is_closed()
    token = await fake.slash(mallory, "game", "mine")  # (still serving)
    reply = await fake.response(token)
    assert reply["type"] in (4, 5)
    fake.errors.records.clear()  # (a dropped payload is logged as a warning, not an error)


AUTOCOMPLETE_CASES: list[tuple[str, Any]] = [
    ("a user command's autocomplete", {"name": "game", "type": 2, "options": []}),
    ("an autocomplete whose type is null", {"name": "", "type": None}),
    ("an autocomplete whose options are text", {"name": "game", "options": "ab"}),
    ("an autocomplete of no command", {"name": "no-such-command", "options": []}),
]


@pytest.mark.parametrize(("case", "data"), AUTOCOMPLETE_CASES, ids=[c[0] for c in AUTOCOMPLETE_CASES])
async def test_an_autocomplete_the_tree_cannot_read_gets_no_choices(
        served: tuple[FakeDiscord, GameBot, JSON, JSON], case: str, data: Any) -> None:
    """Discord takes only choices in answer to an autocomplete: an unreadable or unknown one
    gets an empty list, never a message."""
    fake, bot, mallory, _ = served
    last = max(fake.messages)
    payload = fake._interaction(4, mallory, {}, channel=fake.channel)
    payload["data"] = data
    await fake.dispatch("INTERACTION_CREATE", payload)
    assert await fake.response(payload["token"]) == {"type": 8, "data": {"choices": []}}
    await fake.idle(0.02)
    assert [mid for mid in fake.messages if mid > last] == []
    assert fake.violations == []
    fake.errors.records.clear()  # (a dropped payload is logged as a warning, not an error)
