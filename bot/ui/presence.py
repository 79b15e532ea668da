"""Who is at the table and where the boards stand, from what this process saw (in memory
only; bounded, the least recently used forgotten first).

- ``Presence``: when each user last interacted with the bot; a player who did less than
  ``away_after`` seconds ago is at the table (no DM hand edits or DM turn notices for them:
  the thread ping reaches them).
- ``ScrollWatch``: the messages that appeared in each channel after its board, so a board
  scrolled ``BOARD_SCROLL`` messages up is posted again at the bottom without reading the
  channel's history (one read only for a channel not watched since its board was posted).
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord
from cachetools import LRUCache

if TYPE_CHECKING:
    from bot.storage import GameRecord

log = logging.getLogger(__name__)

BOARD_SCROLL = 8
"""Messages after the board message after which the next board update re-posts it at the
bottom and deletes the old one (a phone player finds the board a swipe away)."""

SEEN_MESSAGES = 64
"""Message ids remembered per channel to count what came after a board (``scrolled_away``)."""

WATCHED_CHANNELS = 4096
"""Channels whose newest messages are counted (least recently used forgotten first)."""

KNOWN_USERS = 65536
"""Users whose DM channel id and last interaction are remembered (least recent forgotten)."""

DM_AWAY = 300.0
"""Default seconds after a player's last interaction with the bot after which they count
as away: DM hands and DM turn notices go only to players who are away (the thread ping
reaches a player at the table). 0 = always DM (settings: DM_AWAY_SECONDS)."""


class Presence:
    """When each user last interacted with the bot (``clock``: unix time in seconds)."""

    def __init__(self, clock: Callable[[], float], away_after: float = DM_AWAY) -> None:
        self.clock = clock
        self.away_after = away_after
        """Seconds without an interaction after which a player is away (``present``)."""
        self.last_seen: LRUCache[int, float] = LRUCache(KNOWN_USERS)
        """Per user id: when they last interacted with the bot (``note``)."""

    def note(self, interaction: discord.Interaction) -> None:
        """The user of ``interaction`` is at the table now."""
        self.last_seen[interaction.user.id] = self.clock()

    def present(self, user_id: int) -> bool:
        """True when ``user_id`` interacted with the bot less than ``away_after`` seconds ago
        (they are at the table: no DM hand edits or DM turn notices for them; the thread ping
        mentions them). Always False when ``away_after`` is 0."""
        seen = self.last_seen.get(user_id)
        return bool(self.away_after) and seen is not None and self.clock() - seen < self.away_after


class ScrollWatch:
    """The newest messages of each channel, counted from the gateway and the bot's own posts
    (``note_message``); reads a channel's history through ``client`` only when it has not
    watched it since its board was posted."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._seen: LRUCache[int, collections.deque[int]] = LRUCache(WATCHED_CHANNELS)
        self._seen_from: LRUCache[int, int] = LRUCache(WATCHED_CHANNELS)

    def note_message(self, channel_id: int, message_id: int) -> None:
        """Count a message that appeared in a channel (the bot's own posts, and others' from
        the gateway): the board's distance from the bottom (``scrolled_away``) is known
        without reading the channel's history."""
        seen = self._seen.get(channel_id)
        if seen is None or channel_id not in self._seen_from:
            seen = self._seen[channel_id] = collections.deque(maxlen=SEEN_MESSAGES)
            self._seen_from[channel_id] = message_id
        if message_id not in seen:  # (the bot's own posts come back through the gateway too)
            seen.append(message_id)

    def note_deleted(self, channel_id: int, message_id: int) -> None:
        """Forget a message that was deleted (it no longer pushes the board up)."""
        seen = self._seen.get(channel_id)
        if seen is not None and message_id in seen:
            seen.remove(message_id)

    async def scrolled_away(self, record: GameRecord) -> bool:
        """True when ``BOARD_SCROLL`` messages or more came after the board message in its
        channel (the board follows the conversation). Counted from the messages
        this process saw appear there (``note_message``); one history request only when it
        has not watched the channel since the board was posted (after a restart), which
        then fills the count in."""
        channel_id, board = record.board_channel_id, record.board_message_id
        assert channel_id is not None and board is not None
        seen, since = self._seen.get(channel_id), self._seen_from.get(channel_id)
        if seen is not None and since is not None and since <= board:
            newer = sum(1 for m in seen if m > board)
            return newer >= BOARD_SCROLL or (len(seen) == seen.maxlen and seen[0] > board)
        try:
            ids = sorted([m.id async for m in self.client.get_partial_messageable(channel_id).history(
                limit=BOARD_SCROLL, after=discord.Object(board))])
        except discord.HTTPException as exc:
            log.info("history of channel %s not read (%s); the board stays", channel_id, exc)
            return False
        if len(ids) < BOARD_SCROLL:  # every message after the board is known now: watch from it
            known = sorted({*(seen or ()), *ids})
            self._seen[channel_id] = collections.deque(known, maxlen=SEEN_MESSAGES)
            self._seen_from[channel_id] = board
        return len(ids) >= BOARD_SCROLL
