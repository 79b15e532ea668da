"""The e2e suite's OpenAPI check (tests/e2e/conftest.py, ``openapi_checked``) sees the bot's requests and
catches a malformed one."""

from __future__ import annotations

from discord.http import Route

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord
from tests.discord_openapi import OpenAPICheck


async def test_the_bots_requests_are_checked_and_a_malformed_one_is_caught(
        openapi_checked: OpenAPICheck, fake: FakeDiscord, bot: GameBot) -> None:
    started = openapi_checked.checked
    assert started == len(fake.requests) > 0 and openapi_checked.found == []
    cid = fake.channel["id"]
    await bot.http.request(Route("POST", "/channels/{channel_id}/messages", channel_id=cid), json={"content": 5})
    assert openapi_checked.checked == started + 1
    assert openapi_checked.found == fake.spec_violations == [
        f"POST /channels/{{channel_id}}/messages (/channels/{cid}/messages): .content: 5 is not of type 'string', 'null'"]
    openapi_checked.found.clear()  # caught: the fixture would fail this test on it
