"""The OpenAPI check of the e2e suite (tests/discord_openapi.py): what it catches, what it lets through,
and that the description it reads is the one Discord published."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from bot.sandbox.fakecord import Req
from tests.discord_openapi import SPEC_PATH, OpenAPICheck, discord_api

MESSAGES = "/channels/123/messages"


def check(method: str, path: str, body: Any = None, **query: str) -> list[str]:
    return OpenAPICheck(discord_api())(Req(method, path, body, query=query))


def test_the_fixture_is_the_published_file() -> None:
    data = SPEC_PATH.read_bytes()
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    assert blob == "bbbd9bf789f5d3dacb74c697acf64c66fcf782bf"


def test_a_message_the_bot_sends_passes() -> None:
    body = {"content": "Your turn", "allowed_mentions": {"parse": [], "users": [80351110224678912]},
            "components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Play", "custom_id": "p:1"}]}],
            "attachments": [{"id": 0, "filename": "board.png"}], "flags": 0}
    assert check("POST", MESSAGES, body) == []


def test_content_of_a_wrong_type_is_caught() -> None:
    assert check("POST", MESSAGES, {"content": 5}) == [
        "POST /channels/{channel_id}/messages (/channels/123/messages): .content: 5 is not of type 'string', 'null'"]


def test_an_unknown_route_is_caught() -> None:
    assert check("POST", "/channels/123/messagez", {"content": "x"}) == [
        "POST /channels/123/messagez: no such operation in Discord's OpenAPI description"]
    assert check("PUT", MESSAGES, {"content": "x"}) == [
        "PUT /channels/123/messages: no such operation in Discord's OpenAPI description"]


def test_a_path_parameter_that_is_no_snowflake_is_caught() -> None:
    assert check("GET", "/channels/general/messages") == [
        "GET /channels/{channel_id}/messages (/channels/general/messages): "
        "path parameter channel_id='general' does not fit its schema"]


def test_query_parameters_are_read_as_discord_reads_them() -> None:
    path = "/webhooks/1/tok"
    assert check("POST", path, {"content": "x"}, wait="1") == []
    assert check("POST", path, {"content": "x"}, wait="false") == []
    assert check("POST", path, {"content": "x"}, wait="yes") == [
        f"POST /webhooks/{{webhook_id}}/{{webhook_token}} ({path}): query parameter wait='yes' does not fit its schema"]
    assert check("GET", MESSAGES, limit="50", around="7") == []
    assert check("GET", MESSAGES, limit="many") != []
    assert check("GET", MESSAGES, page="2") == [
        f"GET /channels/{{channel_id}}/messages ({MESSAGES}): query parameter 'page' is not one the operation takes"]


def test_a_body_where_none_is_taken_is_caught() -> None:
    assert check("DELETE", "/channels/1/messages/2", {"reason": "x"}) == [
        "DELETE /channels/{channel_id}/messages/{message_id} (/channels/1/messages/2): "
        "a JSON body, but the operation takes none"]
    assert check("POST", MESSAGES) == [
        f"POST /channels/{{channel_id}}/messages ({MESSAGES}): no body, but the operation requires one"]
    assert check("POST", "/channels/1/typing") == []


def test_the_most_literal_template_wins() -> None:
    api = discord_api()
    original = api.operation("PATCH", "/webhooks/1/tok/messages/@original")
    numbered = api.operation("PATCH", "/webhooks/1/tok/messages/2")
    assert original is not None and original.template.endswith("/messages/@original")
    assert numbered is not None and numbered.template.endswith("/messages/{message_id}")


@pytest.mark.parametrize(("snowflake", "ok"), [("80351110224678912", True), (80351110224678912, True), (0, True),
                                                (-1, False), ("12ab", False), (2**64, False)])
def test_snowflakes_are_strings_or_integers(snowflake: Any, ok: bool) -> None:
    found = check("POST", "/users/@me/channels", {"recipient_id": snowflake})
    assert (found == []) is ok, found


def test_a_failed_union_names_the_branch_meant() -> None:
    """An interaction callback is one of seven shapes told apart by ``type``: the reason given is the one
    inside the shape of that type, not "matches none"."""
    bad_content = {"type": 4, "data": {"content": ["not", "text"]}}
    bad_button = {"type": 7, "data": {"components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": 5}]}]}}
    path = "/interactions/1/tok/callback"
    where = f"POST /interactions/{{interaction_id}}/{{interaction_token}}/callback ({path})"
    assert check("POST", path, bad_content) == [
        f"{where}: .data.content: ['not', 'text'] is not of type 'string', 'null'"]
    assert check("POST", path, bad_button) == [
        f"{where}: .data.components[0].components[0].custom_id: 5 is not of type 'string', 'null'"]
    assert check("POST", path, {"type": 6}) == []
