"""``/game …``: the commands every game shares (design §5) — lobby, board, private view,
log, rules, your waiting games, and moderation (end, kick, replace, pause) by user id."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import HostError
from bot.settings import TIMEOUT_PRESETS
from bot.ui.limits import split_text
from engines.registry import ENGINES

if TYPE_CHECKING:
    from bot.app import GameBot

GAME_CHOICES = [app_commands.Choice(name=f"{e.info.name} ({e.info.min_players}–{e.info.max_players})",
                                    value=gid) for gid, e in ENGINES.items()]
TIMER_CHOICES = [app_commands.Choice(name=label, value=seconds) for label, seconds in TIMEOUT_PRESETS.items()]


async def game_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The caller's lobbies and running games, those waiting on them first."""
    bot: GameBot = interaction.client  # type: ignore[assignment]
    games = await bot.repo.games(user_id=interaction.user.id)
    out: list[app_commands.Choice[int]] = []
    for g in games:
        engine = ENGINES[g.game_id]
        seat = g.seat_of(interaction.user.id)
        waiting = seat is not None and seat in g.waiting
        label = f"#{g.id} {engine.info.name} — {'your move!' if waiting else g.status}"
        if current.strip("#") in label:
            out.append(app_commands.Choice(name=label[:100], value=g.id))
    out.sort(key=lambda c: "your move" not in c.name)
    return out[:25]


async def options_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest ``key=value`` items for the chosen game's options."""
    game_id = getattr(interaction.namespace, "game", None)
    engine = ENGINES.get(game_id or "")
    if engine is None:
        return []
    done, _, last = current.rpartition(" ")
    prefix = f"{done} " if done else ""
    out: list[app_commands.Choice[str]] = []
    for spec in engine.info.options:
        values = spec.choices if spec.kind == "choice" else (spec.default,)
        for v in values:
            item = f"{spec.key}={v}"
            if item.startswith(last):
                out.append(app_commands.Choice(name=(prefix + item)[:100], value=(prefix + item)[:100]))
    return out[:25]


async def prefs_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest ``key=value`` items for the chosen game's player preferences."""
    engine = ENGINES.get(getattr(interaction.namespace, "game", None) or "")
    if engine is None:
        return []
    done, _, last = current.rpartition(" ")
    prefix = f"{done} " if done else ""
    items = [f"{spec.key}={str(v).lower()}" for spec in engine.info.preferences
             for v in (spec.choices if spec.kind == "choice" else (True, False) if spec.kind == "bool"
                       else (spec.default,))]
    return [app_commands.Choice(name=(prefix + i)[:100], value=(prefix + i)[:100])
            for i in items if i.startswith(last)][:25]


class Games(commands.GroupCog, group_name="game"):
    """Commands common to every game."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="new")
    @app_commands.describe(game="Which game", options="Game options as key=value (autocomplete lists them)",
                           timer="Time each player has per decision (default 24 hours)")
    @app_commands.choices(game=GAME_CHOICES, timer=TIMER_CHOICES)
    @app_commands.autocomplete(options=options_autocomplete)
    async def new(self, interaction: discord.Interaction, game: str, options: str | None = None,
                  timer: int | None = None) -> None:
        """Open a lobby: players press Join, the host presses Start."""
        await self.bot.flow.new_game(interaction, game, options, timer)

    @app_commands.command(name="board")
    @app_commands.describe(game="Game number (default: the game in this channel)")
    @app_commands.autocomplete(game=game_autocomplete)
    async def board(self, interaction: discord.Interaction, game: int | None = None) -> None:
        """Post the current public board again (at the bottom of the chat)."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            await interaction.response.defer(ephemeral=True, thinking=True)
            record = await flow.resolve_game(interaction, game)
            if record.state is None:
                raise HostError("This game has not started yet.", "not_started")
            await self.bot.delivery.post_board(record)
            await interaction.followup.send("Board posted.", ephemeral=True)

    @app_commands.command(name="hand")
    @app_commands.autocomplete(game=game_autocomplete)
    async def hand(self, interaction: discord.Interaction, game: int | None = None) -> None:
        """Show your private view (hand, secret choices) — only you can see it."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            record = await flow.resolve_game(interaction, game)
            await flow.show_private(interaction, record.id)

    @app_commands.command(name="play")
    @app_commands.autocomplete(game=game_autocomplete)
    async def play(self, interaction: discord.Interaction, game: int | None = None) -> None:
        """Open your private move panel."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            record = await flow.resolve_game(interaction, game)
            await flow.open_panel(interaction, record.id)

    @app_commands.command(name="log")
    @app_commands.autocomplete(game=game_autocomplete)
    async def log(self, interaction: discord.Interaction, game: int | None = None) -> None:
        """Show the game's log (your private lines included)."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            record = await flow.resolve_game(interaction, game)
            await flow.show_log(interaction, record.id)

    @app_commands.command(name="rules")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        """The rules summary and the decisions this bot plays by."""
        async with self.bot.flow.guard(interaction):
            await self.bot.flow.show_rules(interaction, game)

    @app_commands.command(name="mine")
    async def mine(self, interaction: discord.Interaction) -> None:
        """Your games, those waiting on you first (oldest first)."""
        games = await self.bot.repo.games(user_id=interaction.user.id)
        lines = []
        for g in sorted(games, key=lambda g: (g.seat_of(interaction.user.id) not in g.waiting, g.updated_at)):
            seat = g.seat_of(interaction.user.id)
            where = f"<#{g.home_channel_id}>"
            if seat is not None and seat in g.waiting:
                state = f"**your move** (timer <t:{int(g.deadline)}:R>)" if g.deadline else "**your move**"
            else:
                state = g.status
            lines.append(f"#{g.id} {ENGINES[g.game_id].info.name} in {where} — {state}")
        text = "\n".join(lines) or "You are not in any lobby or running game."
        chunks = split_text(text)
        await interaction.response.send_message(chunks[0], ephemeral=True)
        for chunk in chunks[1:]:
            await interaction.followup.send(chunk, ephemeral=True)

    @app_commands.command(name="notify")
    @app_commands.describe(dm="Also send me a DM when a game waits for me")
    async def notify(self, interaction: discord.Interaction, dm: bool) -> None:
        """Choose whether turn notices also come by DM (the channel ping always comes)."""
        await self.bot.repo.set_preference(interaction.user.id, "*", "dm_notify", "on" if dm else "off")
        await interaction.response.send_message(f"DM notices are now {'on' if dm else 'off'}.", ephemeral=True)

    @app_commands.command(name="prefs")
    @app_commands.describe(game="Which game", settings="key=value items, e.g. auto_defend=true (autocomplete)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.autocomplete(settings=prefs_autocomplete)
    async def prefs(self, interaction: discord.Interaction, game: str, settings: str | None = None) -> None:
        """Pre-set answers for a game (e.g. always defend), so games need not wait for you."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            from bot.ui.flow import parse_options

            engine = ENGINES[game]
            if not engine.info.preferences:
                raise HostError(f"{engine.info.name} has no preferences to set.", "no_prefs")
            if settings:
                await self.bot.service.set_preferences(interaction.user.id, game, parse_options(settings))
            stored = await self.bot.repo.preferences(interaction.user.id, game)
            lines = [f"**{engine.info.name} preferences**"]
            for spec in engine.info.preferences:
                value = stored.get(spec.key, str(spec.default).lower())
                lines.append(f"`{spec.key}` = **{value}** — {spec.description} (allowed: {spec.allowed()})")
            await interaction.response.send_message("\n".join(lines)[:2000], ephemeral=True)

    # ------------------------------------------------------------------ moderation
    async def _moderator(self, interaction: discord.Interaction) -> None:
        if not await self.bot.flow.is_moderator(interaction):
            raise HostError("Only moderators (Manage Server or Manage Messages, or the moderator role) "
                            "can do that.", "forbidden")

    @app_commands.command(name="end")
    @app_commands.autocomplete(game=game_autocomplete)
    async def end(self, interaction: discord.Interaction, game: int, reason: str | None = None) -> None:
        """Moderator: end a lobby or running game now (logged)."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            await self._moderator(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            record = await self.bot.service.end(game, interaction.user.id, reason or "")
            await self.bot.delivery.send_text(
                record.home_channel_id,
                f"⛔ Game #{record.id} was ended by moderator <@{interaction.user.id}>."
                + (f" Reason: {reason}" if reason else ""))
            if record.state is not None:
                self.bot.delivery.request_board(record.id)
            await interaction.followup.send(f"Game #{record.id} ended.", ephemeral=True)

    @app_commands.command(name="kick")
    @app_commands.describe(user_id="The member's user id (works after they left the server)")
    async def kick(self, interaction: discord.Interaction, game: int, user_id: str) -> None:
        """Moderator: remove a player; their moves are played automatically from now on (logged)."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            await self._moderator(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            uid = _user_id(user_id)
            result = await self.bot.service.kick(game, uid, interaction.user.id)
            record = result if not hasattr(result, "game") else result.game  # type: ignore[union-attr]
            await self.bot.delivery.send_text(
                record.home_channel_id, f"🛡 <@{uid}> was removed from game #{record.id} by a moderator.")
            if hasattr(result, "game"):
                await flow.after(result)  # type: ignore[arg-type]
            await interaction.followup.send("Done.", ephemeral=True)

    @app_commands.command(name="replace")
    @app_commands.describe(old_user_id="User id of the player to replace",
                           new_user_id="User id of the member who takes the seat")
    async def replace(self, interaction: discord.Interaction, game: int, old_user_id: str,
                      new_user_id: str) -> None:
        """Moderator: give a player's seat to another member (logged)."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            await self._moderator(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            record = await self.bot.service.get(game)
            old, new = _user_id(old_user_id), _user_id(new_user_id)
            seat = record.seat_of(old)
            if seat is None:
                raise HostError("That user has no seat in this game.", "not_a_player")
            member = interaction.guild.get_member(new) if interaction.guild else None
            name = member.display_name if member else f"user {new}"
            record = await self.bot.service.replace(game, seat, new, name, interaction.user.id)
            await self.bot.delivery.send_text(
                record.home_channel_id,
                f"🛡 Seat {'ABCDEF'[seat]} of game #{record.id} now belongs to <@{new}> (was <@{old}>).",
                mentions=[new])
            self.bot.delivery.request_board(record.id)
            await interaction.followup.send("Done.", ephemeral=True)

    @app_commands.command(name="pause")
    async def pause(self, interaction: discord.Interaction, game: int, paused: bool = True) -> None:
        """Moderator: pause (or resume) a game: no moves, no timer."""
        flow = self.bot.flow
        async with flow.guard(interaction):
            await self._moderator(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            record = await self.bot.service.set_paused(game, paused, interaction.user.id)
            await self.bot.delivery.send_text(
                record.home_channel_id,
                f"{'⏸' if paused else '▶'} Game #{record.id} was {'paused' if paused else 'resumed'} "
                f"by moderator <@{interaction.user.id}>.")
            await interaction.followup.send(
                f"Game #{record.id} is {'paused' if paused else 'running again'}.", ephemeral=True)
            self.bot.delivery.request_board(record.id)


def _user_id(text: str) -> int:
    """``"<@123>"`` or ``"123"`` → 123.

    Raises:
        HostError: not a user id.
    """
    digits = text.strip().strip("<@!>")
    if not digits.isdigit():
        raise HostError(f"{text!r} is not a user id (copy it with Developer Mode → Copy User ID).", "bad_user")
    return int(digits)


async def setup(bot: GameBot) -> None:
    """Extension entry point."""
    await bot.add_cog(Games(bot))
