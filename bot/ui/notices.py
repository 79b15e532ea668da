"""What the table is told (docs/DESIGN.md §5): the public event lines after a move, the
board update, the pings of exactly the players the game now waits for, the end; and on
request the private view, the log and the rules.

Sentences built here are the host's (English for now); engine messages go through
``bot.service.texts(record)`` (``bot/text/``).
"""

from __future__ import annotations

import discord

from bot.service import ActResult, texts
from bot.storage import GameRecord
from bot.ui.components import BoardButton
from bot.ui.context import HostContext
from bot.ui.limits import split_text
from bot.ui.panels import board_view, game_title, mention_list
from engines.base import Msg, seat_letter
from engines.registry import get as get_engine
from render import registry as renders

MODERATION_ENTRIES = ("end", "replace", "kick", "pause", "resume")
"""System log entries that the log shows as a moderator's act."""


def private_notes(result: ActResult, seat: int) -> str:
    """Lines (each starting ``\\n🔒``) of the events only ``seat`` may see, e.g. the card
    they drew; empty when there are none."""
    tx = texts(result.game)
    lines = [tx.event(e) for e in result.events if e.visible_to is not None and seat in e.visible_to]
    return "".join(f"\n🔒 {line}" for line in lines)


class Notices:
    """Messages to the table and to one player, for ``ctx``."""

    def __init__(self, ctx: HostContext) -> None:
        self.ctx = ctx

    async def after(self, result: ActResult, *, board: bool = True) -> None:
        """Deliver an applied action: public event lines, the board (unless ``board`` is
        False), turn pings, the end."""
        record = result.game
        tx = texts(record)
        lines = [tx.event(e) for e in result.events if e.visible_to is None]
        delivery = self.ctx.delivery
        if lines:
            await delivery.send_text(record.home_channel_id, "\n".join(lines))
        # a change nobody else may see (e.g. a changed secret pick) leaves the board alone,
        # so watchers cannot tell that anything happened
        if board and (result.public_changed or lines or result.waiting_after != result.waiting_before
                      or result.outcome is not None):
            delivery.request_board(record.id)
        if result.outcome is not None:
            await self.announce_end(record, result)
            return
        fresh = result.waiting_after - result.waiting_before
        if fresh and record.status == "active":
            await self.notify_turn(record, sorted(fresh))

    async def notify_turn(self, record: GameRecord, seats: list[int], *, prefix: str = "") -> None:
        """Ping exactly the players at ``seats`` with their prompt, the timer and a Play
        button; a DM too for those who asked for it (``/game notify``)."""
        service = self.ctx.service
        engine = service.engine(record)
        state = service.state(record)
        tx = texts(record)
        prompts = {tx(engine.prompt(state, s)) for s in seats}
        prompt = prompts.pop() if len(prompts) == 1 else tx(Msg("host.your_move"))
        when = f" (timer <t:{int(record.deadline)}:R>)" if record.deadline else ""
        text = f"{prefix}{mention_list(record, seats)} — {prompt}{when}"
        view = discord.ui.View(timeout=None)
        view.add_item(BoardButton(record.id, record.version, "play"))
        view.add_item(BoardButton(record.id, record.version, "hand"))
        users = [u for u in (record.user_of(s) for s in seats) if u]
        await self.ctx.delivery.send_text(record.home_channel_id, text, mentions=users, view=view)
        for user_id in users:
            if await self.ctx.repo.get_preference(user_id, "*", "dm_notify") == "on":
                await self.ctx.delivery.dm(user_id, f"{game_title(engine, record)}: {prompt}")

    async def announce_end(self, record: GameRecord, result: ActResult) -> None:
        """The final message: ranking with scores, the reason, the winners pinged."""
        outcome = result.outcome
        assert outcome is not None
        lines = [f"🏁 **{game_title(self.ctx.service.engine(record), record)} is over.** "
                 f"{texts(record)(outcome.reason)}"]
        for place, seat in enumerate(outcome.ranking, start=1):
            crown = " 👑" if seat in outcome.winners else ""
            score = outcome.scores[seat]
            shown = int(score) if float(score).is_integer() else score
            lines.append(f"{place}. <@{record.user_of(seat)}> — {shown}{crown}")
        winners = [u for u in (record.user_of(s) for s in outcome.winners) if u]
        await self.ctx.delivery.send_text(record.home_channel_id, "\n".join(lines), mentions=winners,
                                          view=board_view(record))

    async def show_private(self, interaction: discord.Interaction, game: int) -> None:
        """The caller's private view (hand, secret pick…), ephemeral, rendered on demand.

        Raises:
            HostError: no such game, or the caller does not play in it.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        record, seat = await self.ctx.seated(interaction, game)
        service, delivery = self.ctx.service, self.ctx.delivery
        engine = service.engine(record)
        view = engine.player_view(service.state(record), seat)
        names, tx = record.names, texts(record)
        file = await delivery.image_file(
            lambda: renders.private_image(record.game_id, view, names, tx), "private",
            delivery.upload_limit(record.guild_id))
        text = f"🔒 Your private view of {game_title(engine, record)} (seat {seat_letter(seat)})."
        if file is None:
            text += "\nThis game has no hidden hand; everything is on the board."
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.followup.send(text, ephemeral=True, file=file)

    async def show_log(self, interaction: discord.Interaction, game: int, limit: int = 40) -> None:
        """The last ``limit`` lines of the game's log as the caller may see it
        (ephemeral, at most three messages).

        Raises:
            HostError: no such game, or one of another server (``HostContext.game``).
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.ctx.game(interaction, game)
        seat = record.seat_of(interaction.user.id)
        tx = texts(record)
        lines: list[str] = []
        for entry in await self.ctx.repo.log(record.id):
            if entry.kind == "system" and entry.action.get("type") in MODERATION_ENTRIES:
                lines.append(f"🛡 moderator: {entry.action['type']}")
            for e in entry.events:
                vis = e.get("visible_to")
                if vis is None or (seat is not None and seat in vis):
                    lines.append(("🔒 " if vis is not None else "") + tx.event(e))
        text = "\n".join(lines[-limit:]) or "Nothing has happened yet."
        chunks = split_text(f"📜 Log of game #{record.id} (last {min(limit, len(lines))} lines)\n{text}")
        for chunk in chunks[-3:]:
            await interaction.followup.send(chunk, ephemeral=True)

    @staticmethod
    async def show_rules(interaction: discord.Interaction, game_id: str) -> None:
        """``/game rules``: the rules summary and our decisions, ephemeral, split."""
        engine = get_engine(game_id)
        chunks = split_text(engine.rules_text())
        first, rest = chunks[0], chunks[1:]
        if interaction.response.is_done():
            await interaction.followup.send(first, ephemeral=True)
        else:
            await interaction.response.send_message(first, ephemeral=True)
        for chunk in rest:
            await interaction.followup.send(chunk, ephemeral=True)
