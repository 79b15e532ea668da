"""Moderation (docs/DISCORD.md failure mode 13, docs/DESIGN.md §5): ending, kicking,
replacing and pausing, each logged by the service and announced here. Users are user
options (a member picker, which also takes a pasted id), so a member who left
the server can still be removed or replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

from bot.service import ActResult, HostError, notice_payload, seat_names
from bot.storage import GameRecord
from bot.text import Texts, escape_name
from bot.ui.checks import check_origin
from bot.ui.context import HostContext
from bot.ui.notices import Notices
from engines.base import Msg, seat_letter
from render.base import clean_text


def refuse_self_kick(interaction: discord.Interaction, game: GameRecord, member: discord.abc.User) -> None:
    """``/game mod kick`` naming the moderator herself, who has a seat, is refused with the way
    a player leaves: ``/game resign`` (which asks to confirm, and is logged as a resignation)
    in a running game, the lobby's Leave button in a lobby.

    Raises:
        HostError: the game is another server's (``check_origin``), or ``member`` is the caller
            and plays in ``game``.
    """
    check_origin(interaction, game)
    if member.id != interaction.user.id or game.seat_of(member.id) is None or game.status not in ("lobby", "active"):
        return
    key = "kick_self_lobby" if game.status == "lobby" else "kick_self"
    raise HostError(Msg(f"refusal.host.{key}", {"game": game.id}), "kick_self")


class Moderation:
    """The moderator commands' work (the check ran before), for ``ctx``; ``stop_ai(game,
    seat)`` tells the AI players that a seat is no longer theirs (``AiPlayers.stop``)."""

    def __init__(self, ctx: HostContext, notices: Notices, stop_ai: Callable[[int, int], object]) -> None:
        self.ctx = ctx
        self.notices = notices
        self.stop_ai = stop_ai

    def _texts(self, interaction: discord.Interaction, record: GameRecord) -> tuple[Texts, Texts]:
        """The formatters of the public announcement (the server's language) and of the
        moderator's private answer (theirs)."""
        locales = self.ctx.delivery.locales
        return Texts(None, [], locales.public(record.guild_id)), Texts(None, [], locales.private(interaction))

    async def end(self, interaction: discord.Interaction, game: GameRecord, reason: str | None) -> None:
        """End a lobby or running game now; announced with the reason.

        Raises:
            HostError: the game is already over.
        """
        check_origin(interaction, game)
        await interaction.response.defer(ephemeral=True, thinking=True)
        msgs = [Msg("ui.moderation.ended", {"game": game.id, "user": interaction.user.id})]
        if reason:
            msgs.append(Msg("ui.moderation.reason", {"reason": reason}))
        record = await self.ctx.service.end(game.id, interaction.user.id, reason or "", notice_payload(*msgs))
        public, private = self._texts(interaction, record)
        if record.state is not None:
            await self.notices.ended(record.id)
        else:
            await self.ctx.outbox.flush(record.id)  # (the announcement, queued with the change)
        key = "ended_private" if record.state is not None else "ended_lobby_private"
        await interaction.followup.send(private(Msg(f"ui.moderation.{key}", {"game": record.id})), ephemeral=True)

    async def kick(self, interaction: discord.Interaction, game: GameRecord, member: discord.abc.User) -> None:
        """Remove a player (from a lobby; in a running game their moves are played
        automatically from now on, or, when only AI seats would be left, the game ends as
        abandoned: ``GameService.kick``); announced. ``member`` is a user option, so a member who
        left the server is given by pasting their id.

        Raises:
            HostError: the member does not play in the game.
        """
        check_origin(interaction, game)
        await interaction.response.defer(ephemeral=True, thinking=True)
        uid = member.id
        removed = Msg("ui.moderation.removed", {"user": uid, "game": game.id})
        result = await self.ctx.service.kick(
            game.id, uid, interaction.user.id, notice_payload(removed),
            abandoned_notice=notice_payload(Msg("table.kicked_public_abandoned", {"user": uid, "game": game.id})))
        record = result.game if isinstance(result, ActResult) else result
        public, private = self._texts(interaction, record)
        ended = not isinstance(result, ActResult) and game.status == "active"  # the last person: abandoned
        if isinstance(result, ActResult):
            await self.notices.after(result)  # (the announcement first: queued with the change)
        elif ended:
            await self.notices.ended(record.id)
        else:  # (from a lobby: nothing was queued)
            await self.ctx.delivery.transport.send_text(record.home_channel_id, public(removed))
        key = "kicked_abandoned" if ended else \
            "kicked_lobby" if record.status == "lobby" or not isinstance(result, ActResult) else "kicked"
        await interaction.followup.send(private(Msg(f"table.{key}", {"user": f"<@{uid}>", "game": record.id})),
                                        ephemeral=True)

    async def replace(self, interaction: discord.Interaction, game: GameRecord, player: discord.abc.User | None,
                      member: discord.abc.User, *, seat: int | None = None) -> None:
        """Give ``player``'s seat (or ``seat``, by index: an AI seat has no user to pick) to
        ``member``; announced, the new player pinged. Both are user options (a pasted id
        works for a member who left the server). An AI seat given to a person stops being
        the computer's: ``bot.ui.ai.AiPlayers.stop`` cancels its think.

        Raises:
            HostError: the old one has no seat, the new one already plays.
        """
        check_origin(interaction, game)
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.ctx.service.get(game.id)
        if seat is None:
            seat = record.seat_of(player.id) if player is not None else None
        if seat is None:
            raise HostError(Msg("ui.error.no_seat"), "not_a_player")
        before = next((s for s in record.seats if s.seat == seat), None)
        old, new = (before.user_id if before is not None else 0), member.id
        found = interaction.guild.get_member(new) if interaction.guild else None
        name = clean_text((found or member).display_name)[:80] or f"user {new}"
        bot_name = seat_names(record, self._texts(interaction, record)[1].locale)[seat] \
            if before is not None and before.is_bot else None
        params: dict[str, Any] = {"letter": seat_letter(seat), "game": record.id, "new": new, "old": old}
        # (a seat whose player used /game forget-me has user id 0 and a placeholder name: no mention)
        anonymous = escape_name(before.name) if before is not None and not before.is_bot and old == 0 else None
        announce = (Msg("ai.say.replaced_by_person", {**params, "name": {
            "msg": "ai.seat_name", "params": {"level": {"msg": f"ai.level.{before.ai_level}"}}}})
            if bot_name and before is not None and before.ai_level
            else Msg("ui.notice.replaced_anonymous", {**params, "name": anonymous}) if anonymous is not None
            else Msg("ui.notice.replaced", params))
        notice = notice_payload(announce, mentions=[new], turn=(seat, new))
        record = await self.ctx.service.replace(game.id, seat, new, name, interaction.user.id, notice)
        self.stop_ai(record.id, seat)
        await self.notices.seat_replaced(record, seat, old, new)  # (one message: the new player's one ping)
        await interaction.followup.send(self._texts(interaction, record)[1](Msg("table.replaced", {
            "seat": seat_letter(seat), "game": record.id, "old": f"**{bot_name}**" if bot_name else anonymous if anonymous is not None else f"<@{old}>",
            "new": f"<@{new}>"})), ephemeral=True)

    async def pause(self, interaction: discord.Interaction, game: GameRecord, paused: bool) -> None:
        """Pause (no moves, no timer) or resume a running game; announced.

        Raises:
            HostError: the game is not running, or already paused / running.
        """
        check_origin(interaction, game)
        await interaction.response.defer(ephemeral=True, thinking=True)
        what = "paused" if paused else "resumed"
        notice = notice_payload(Msg(f"ui.moderation.{what}", {"game": game.id, "user": interaction.user.id}))
        record = await self.ctx.service.set_paused(game.id, paused, interaction.user.id, notice)
        public, private = self._texts(interaction, record)
        await self.ctx.outbox.flush(record.id)  # (the announcement, queued with the change)
        await interaction.followup.send(private(Msg(f"ui.moderation.{what}_private", {"game": record.id})),
                                        ephemeral=True)
        self.ctx.delivery.boards.request_board(record.id)
