"""Gateway events discord.py cannot read never end the process.

discord.py's websocket calls a parser per event (``ConnectionState.parsers``); an exception
raised there leaves ``Client.connect`` and ``python -m bot`` exits, every server down. An
``INTERACTION_CREATE`` is made by a user's client, so a modified one can send a component
without a string ``custom_id`` or data of the wrong shape. ``guard_parsers`` wraps every
parser: such an event is logged (a warning, with the event's name and the error, no
payload) and dropped, and the user who sent an interaction is answered privately where
Discord would show them anything (``answer_unreadable``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

import discord
from discord.http import Route

from bot.text import Texts, locale_of
from engines.base import Msg

log = logging.getLogger(__name__)

ANSWERED_TYPES = {2: "message", 3: "message", 5: "message", 4: "choices", 1: "pong"}
"""Interaction types Discord shows the sender an answer to (command, component, modal,
autocomplete, ping) and the kind of callback each takes."""


Spawn = Callable[[Coroutine[Any, Any, None], str], object]
"""Runs an answer as a task (``HostContext.spawn``: counted in flight from the start)."""


def guard_parsers(client: discord.Client, spawn: Spawn) -> None:
    """Wrap each of ``client``'s gateway parsers so an exception in it is logged and the event
    dropped (an interaction's sender answered privately, through ``spawn``) instead of ending
    the connection."""
    parsers: dict[str, Callable[[Any], None]] = client._connection.parsers
    for event, parse in list(parsers.items()):
        parsers[event] = _guarded(client, event, parse, spawn)


def _guarded(client: discord.Client, event: str, parse: Callable[[Any], None],
             spawn: Spawn) -> Callable[[Any], None]:
    def guarded(data: Any) -> None:
        try:
            parse(data)
        except Exception as exc:
            log.warning("dropped a %s event discord.py could not read: %s: %s", event, type(exc).__name__, exc)
            if event == "INTERACTION_CREATE" and isinstance(data, dict):
                spawn(answer_unreadable(client, data), "answer-unreadable")

    guarded.__wrapped__ = parse  # type: ignore[attr-defined]
    return guarded


async def answer_unreadable(client: discord.Client, data: dict[str, Any]) -> None:
    """Answer the interaction ``data`` that could not be read: privately, in the sender's
    language, that nothing was changed (``ui.error.unreadable``); an autocomplete with no
    choices; a ping with a pong. Nothing for a type Discord shows no answer to, or without
    an id and token. A failure to answer is logged."""
    kind = ANSWERED_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    iid, token = data.get("id"), data.get("token")
    if kind is None or not isinstance(iid, str | int) or not isinstance(token, str):
        return
    if kind == "message":
        said = Texts(None, [], locale_of(data.get("locale") if isinstance(data.get("locale"), str) else None))(
            Msg("ui.error.unreadable"))
        body: dict[str, Any] = {"type": 4, "data": {"content": f"⚠️ {said}", "flags": 64,
                                                    "allowed_mentions": {"parse": []}}}
    elif kind == "choices":
        body = {"type": 8, "data": {"choices": []}}
    else:
        body = {"type": 1}
    try:
        await client.http.request(Route("POST", "/interactions/{interaction_id}/{interaction_token}/callback",
                                        interaction_id=iid, interaction_token=token), json=body)
    except (discord.HTTPException, OSError) as exc:
        log.warning("could not answer an unreadable interaction: %s", exc)
