"""The interaction token of the last Play ▶ pressed on each board (docs/DISCORD.md
"Interaction tokens"): that press is answered by a deferred update, so for 15 minutes its
``@original`` is the board message, and the board edit after the move goes through it, not
counted against the bot token's budget. In memory only: a restart, or a token Discord
refuses, falls back to the bot-token edit."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING

import discord
from cachetools import LRUCache

from bot.ui.transport import TOKEN_LIFETIME, TOKEN_MARGIN, Transport

if TYPE_CHECKING:
    from bot.storage import GameRecord

log = logging.getLogger(__name__)

BOARD_TOKENS_KEPT = 4096
"""Games whose last Play ▶ token on the board is remembered (least recently used forgotten:
a forgotten token costs one bot-token edit)."""


@dataclasses.dataclass(frozen=True)
class BoardToken:
    """The interaction of a Play ▶ press on a board message, answered by a deferred update
    (type 6), so its ``@original`` is that board message: ``app`` and ``token`` address the
    webhook, ``message_id`` is the board it was pressed on, ``at`` when (the service's clock,
    seconds; it works ``TOKEN_LIFETIME`` seconds)."""

    app: int
    token: str
    message_id: int
    at: float


class BoardTokens:
    """The board tokens of the games (remembered only while ``transport.lean``)."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.board_tokens: LRUCache[int, BoardToken] = LRUCache(BOARD_TOKENS_KEPT)
        """Per game: the last Play ▶ pressed on its board (``note_board_interaction``)."""

    def note_board_interaction(self, record: GameRecord, interaction: discord.Interaction) -> None:
        """Remember ``interaction`` as ``record``'s board token when it is a component press on
        the game's board message answered by a deferred update (``@original`` is then the board
        message: ``update_board`` edits it through the webhook, not counted against the bot
        token's budget). Anything else (a press on a ping or in a DM, a slash command, a
        thinking defer) is not remembered. Only while ``lean``."""
        message = interaction.message
        if (not self.transport.lean or interaction.type != discord.InteractionType.component or message is None
                or message.id != record.board_message_id or interaction.response.type
                != discord.InteractionResponseType.deferred_message_update):
            return
        self.board_tokens[record.id] = BoardToken(int(interaction.application_id), interaction.token, message.id,
                                                  interaction.created_at.timestamp())

    def board_token(self, record: GameRecord) -> BoardToken | None:
        """The remembered board token of ``record`` while it can still edit its current board
        message (``TOKEN_MARGIN`` left of its ``TOKEN_LIFETIME``), else None (and forgotten)."""
        held = self.board_tokens.get(record.id)
        if held is None:
            return None
        if held.message_id != record.board_message_id or \
                self.transport.clock() - held.at >= TOKEN_LIFETIME - TOKEN_MARGIN:
            self.board_tokens.pop(record.id, None)
            return None
        return held

    async def edit_board(self, record: GameRecord, embed: discord.Embed, file: discord.File,
                                    view: discord.ui.View | None) -> bool:
        """Edit ``record``'s board message through its board token (``board_token``): True when
        Discord accepted it. False when there is no usable token or Discord refused it for
        good (401 Invalid Webhook Token, 404 Unknown Webhook / Message, an edit cap…): the
        token is forgotten and the caller edits with the bot token (``file`` rewound).

        Raises:
            discord.HTTPException: a failure that may pass (5xx, 429); the board loop retries.
        """
        held = self.board_token(record)
        if held is None:
            return False
        if await self.transport.edit_original(held.app, held.token, embed=embed, attachments=[file], view=view):
            return True
        log.info("board of game %s: its Play ▶ token is refused; editing with the bot token", record.id)
        self.board_tokens.pop(record.id, None)
        file.reset()
        return False
