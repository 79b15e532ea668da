"""``/game …``: the commands every game shares (design §5) — lobby, board, private view,
log, rules, your waiting games, the table (undo, resign, watch, replay, export, ratings:
bot/ui/table.py), moderation (end, kick, replace, pause) with member pickers, and the
operator's side (status, forget-me, the purge of servers the bot left: bot/ui/operator.py).

Discord allows 25 subcommands and groups under a command: ``/game`` has 21, the
moderators' five in one group, ``/game mod …`` (``unwatch`` is ``watch mode:stop``, ``stats`` is
``leaderboard player:``), so four are left for what comes."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import HostError
from bot.settings import TIMEOUT_PRESETS
from bot.text import LOCALES, Texts
from bot.ui.ai import seat_choices, seat_named
from bot.ui.arguments import GameOption, engine_named
from bot.ui.components import DYNAMIC_ITEMS, refuse_foreign
from bot.ui.deadlines import MAX_VACATION_DAYS
from bot.ui.errors import reader_locale
from bot.ui.language import choose_language
from bot.ui.lobby import parse_options
from bot.ui.lobby_options import AI_ITEMS, option_text, value_text
from bot.ui.locales import LANGUAGE_NAMES
from bot.ui.moderation import refuse_self_kick
from bot.ui.notices import board_link
from bot.ui.permissions import moderator_only
from bot.ui.table_items import TABLE_ITEMS
from engines.base import InvalidOptions, Msg, OptionValue
from engines.registry import ENGINES

if TYPE_CHECKING:
    from bot.app import GameBot

GAME_CHOICES = [app_commands.Choice(name=f"{e.info.name} ({e.info.min_players}–{e.info.max_players})",
                                    value=gid) for gid, e in ENGINES.items()]
LANGUAGE_CHOICES = [app_commands.Choice(name=LANGUAGE_NAMES[code], value=code) for code in (*LOCALES, "auto")]
AI_CHOICES = [app_commands.Choice(name=level, value=level) for level in ("easy", "normal", "hard")]
"""The AI levels (engines/ai LEVELS) a seat can be handed to."""
TIMER_CHOICES = [app_commands.Choice(name=label, value=seconds) for label, seconds in TIMEOUT_PRESETS.items()]


async def options_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest ``key=value`` items for the chosen game's options."""
    game_id = getattr(interaction.namespace, "game", None)
    engine = ENGINES.get(game_id or "")
    if engine is None:
        return []
    done, _, last = current.rpartition(" ")
    prefix = f"{done} " if done else ""
    tx = Texts(engine.info.game_id, [], reader_locale(interaction))
    out: list[app_commands.Choice[str]] = []
    for spec in engine.info.options:
        values = spec.choices if spec.kind == "choice" else (spec.default,)
        for v in values:
            item = f"{spec.key}={v}"
            if item.startswith(last):  # (shown with the option's name and value in the reader's words)
                said = tx(Msg("options.label", {"name": option_text(tx, spec)[0], "value": value_text(tx, v, spec)}))
                out.append(app_commands.Choice(name=f"{prefix}{item} · {said}"[:100], value=(prefix + item)[:100]))
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

    mod = app_commands.Group(name="mod", description="Moderator: end, kick, replace or pause a game; "
                                                     "the server's quiet hours.")

    # (the docstring is the group's description on Discord: at most 100 characters.
    # Refusals raised below are answered by bot/ui/errors.py; the moderator commands
    # carry the moderator_only check of bot/ui/moderation.py.)

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="new")
    @app_commands.describe(game="Which game", options="Game options as key=value (autocomplete lists them)",
                           timer="Time each player has per decision (default 24 hours)",
                           play="Take a seat yourself (default yes; no: you only run the lobby)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.choices(timer=TIMER_CHOICES)
    @app_commands.autocomplete(options=options_autocomplete)
    async def new(self, interaction: discord.Interaction, game: str, options: str | None = None,
                  timer: int | None = None, play: bool = True) -> None:
        """Open a lobby: players press Join, the host presses Start."""
        await self.bot.flow.lobby.new_game(interaction, game, options, timer, seated=play)

    @app_commands.command(name="board")
    @app_commands.describe(game="Game number (default: the game in this channel)")
    async def board(self, interaction: discord.Interaction, game: GameOption | None = None) -> None:
        """Post the current public board again (at the bottom of the chat)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        if record.state is None:
            raise HostError(Msg("ui.error.not_started"), "not_started")
        message = await self.bot.delivery.boards.repost_board(record)
        link = board_link(dataclasses.replace(record, board_channel_id=message.channel.id,
                                              board_message_id=message.id))
        reader = self.bot.delivery.locales.private(interaction)
        await interaction.followup.send(Texts(None, [], reader)(Msg("ui.notice.board_posted", {"link": link})),
                                        ephemeral=True)

    @app_commands.command(name="hand")
    @app_commands.describe(game="Game number (default: your game in this channel)")
    async def hand(self, interaction: discord.Interaction, game: GameOption | None = None) -> None:
        """Show your private view (hand, secret choices) — only you can see it."""
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        await self.bot.flow.notices.show_private(interaction, record.id)

    @app_commands.command(name="play")
    @app_commands.describe(game="Game number (default: your game in this channel)")
    async def play(self, interaction: discord.Interaction, game: GameOption | None = None) -> None:
        """Open your private move panel."""
        record = await self.bot.flow.ctx.resolve_game(interaction, game, playing=True)
        await self.bot.flow.moves.open_panel(interaction, record.id)

    @app_commands.command(name="undo")
    @app_commands.describe(game="Game number (default: your game in this channel)")
    async def undo(self, interaction: discord.Interaction, game: GameOption | None = None) -> None:
        """Take back your last action, while no one else has acted and nothing was revealed since."""
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        await self.bot.flow.table.undo(interaction, record.id, None)

    @app_commands.command(name="resign")
    @app_commands.describe(game="Game number (default: your game in this channel)")
    async def resign(self, interaction: discord.Interaction, game: GameOption | None = None) -> None:
        """Resign a running game (asks to confirm); your seat then plays automatically."""
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        await self.bot.flow.table.ask_resign(interaction, record)

    @app_commands.command(name="watch")
    @app_commands.describe(game="Game number (default: the game in this channel)",
                           mode="Its public board in your DMs as it changes, one DM when it ends, or stop")
    @app_commands.choices(mode=[app_commands.Choice(name="The board in my DMs", value="board"),
                                app_commands.Choice(name="Only tell me when it ends", value="end"),
                                app_commands.Choice(name="Stop watching", value="stop")])
    async def watch(self, interaction: discord.Interaction, game: GameOption | None = None,
                    mode: app_commands.Choice[str] | None = None) -> None:
        """Follow a game of this server as a spectator (public board only), or stop."""
        # (``mode`` is a ``Choice``: discord.py refuses a value outside the listed choices, a
        # forged payload, before this runs; bot.ui.errors.refusal words it, ui.error.bad_value)
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        chosen = "board" if mode is None else mode.value
        if chosen == "stop":
            await self.bot.flow.spectators.unwatch(interaction, record)
            return
        await self.bot.flow.spectators.watch(interaction, record, chosen)

    @app_commands.command(name="leaderboard")
    @app_commands.describe(game="Which game (leave out for your own stats in every game)",
                           player="Show this member's games, wins and ratings instead (default: you)")
    @app_commands.choices(game=GAME_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction, game: str | None = None,
                          player: discord.User | None = None) -> None:
        """This server's ratings for a game, or a member's stats (player:, or no game: you)."""
        if game is not None:
            engine_named(game)
        if game is None or player is not None:
            await self.bot.flow.table.stats(interaction, player or interaction.user, game)
            return
        await self.bot.flow.table.leaderboard(interaction, game)

    @app_commands.command(name="replay")
    @app_commands.describe(game="Game number of a finished game")
    async def replay(self, interaction: discord.Interaction, game: GameOption) -> None:
        """Step through a finished game (◀ ▶, jump to a round); only you see it."""
        await self.bot.flow.table.replay(interaction, game.id, None)

    @app_commands.command(name="export")
    @app_commands.describe(game="Game number")
    async def export(self, interaction: discord.Interaction, game: GameOption) -> None:
        """The game's log as JSON and text (public information only); only you see it."""
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        await self.bot.flow.table.export(interaction, record)

    @app_commands.command(name="log")
    @app_commands.describe(game="Game number (default: the game in this channel)")
    async def log(self, interaction: discord.Interaction, game: GameOption | None = None) -> None:
        """Show the game's log (your private lines included)."""
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        await self.bot.flow.notices.show_log(interaction, record.id)

    @app_commands.command(name="rules")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        """The rules summary and the decisions this bot plays by."""
        engine_named(game)
        await self.bot.flow.notices.show_rules(interaction, game)

    @app_commands.command(name="mine")
    async def mine(self, interaction: discord.Interaction) -> None:
        """Your games: those waiting on you first (oldest deadline first), with jump links."""
        await self.bot.flow.notices.show_mine(interaction)

    @app_commands.command(name="notify")
    @app_commands.describe(dm="DM me my hand and my turn notices (both; the thread ping always comes)",
                           hands="DM me my hand (private view) as it changes", turns="DM me when a game waits for me",
                           game="Only this game (default: every game)")
    async def notify(self, interaction: discord.Interaction, dm: bool | None = None, hands: bool | None = None,
                     turns: bool | None = None, game: GameOption | None = None) -> None:
        """Choose your DMs: your hand, turn notices (per game or all); also resumes refused DMs."""
        await self.bot.flow.notices.dms.configure(interaction, both=dm, hands=hands, turns=turns, game=game)

    @app_commands.command(name="vacation")
    @app_commands.describe(days=f"Vacation days (0–{MAX_VACATION_DAYS}), each used only when a deadline would expire",
                           game="Lobby number (default: your lobby in this channel)")
    async def vacation(self, interaction: discord.Interaction, days: app_commands.Range[int, 0, MAX_VACATION_DAYS],
                       game: GameOption | None = None) -> None:
        """In a lobby: set your vacation days for that game (shown to everyone)."""
        clock = self.bot.flow.clock
        record = (await self.bot.flow.ctx.resolve_game(interaction, game) if game is not None
                  else await clock.lobby_of(interaction))
        await clock.set_vacation(interaction, record, days)

    @mod.command(name="quiet")
    @app_commands.describe(start="Start of the quiet hours, e.g. 22:00 (leave out start and end to clear)",
                           end="End of the quiet hours, e.g. 07:00",
                           timezone="The server's time zone: Europe/Berlin, UTC+2… (default UTC)")
    @moderator_only()
    async def quiet(self, interaction: discord.Interaction, start: str | None = None, end: str | None = None,
                    timezone: str | None = None) -> None:
        """Moderator: the server's quiet hours — no deadline expires and no ping goes out in them."""
        await self.bot.flow.clock.set_quiet(interaction, start, end, timezone)

    @app_commands.command(name="prefs")
    @app_commands.describe(game="Which game", settings="key=value items, e.g. auto_defend=true (autocomplete)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.autocomplete(settings=prefs_autocomplete)
    async def prefs(self, interaction: discord.Interaction, game: str, settings: str | None = None) -> None:
        """Pre-set answers for a game (e.g. always defend), so games need not wait for you."""
        engine = engine_named(game)
        if not engine.info.preferences:
            raise HostError(Msg("ui.error.no_prefs", {"game": {"msg": f"ui.game.{engine.info.game_id}"}}), "no_prefs")
        if settings:
            await self.bot.service.set_preferences(interaction.user.id, game, parse_options(settings))
        stored = await self.bot.service.preferences(interaction.user.id, game)
        tx = Texts(engine.info.game_id, [], reader_locale(interaction))
        lines = [tx(Msg("options.prefs_title", {"game": {"msg": f"ui.game.{engine.info.game_id}"}}))]
        for spec in engine.info.preferences:
            name, about = option_text(tx, spec, "pref")
            try:
                value: OptionValue | str | None = spec.coerce(stored.get(spec.key, spec.default))
            except InvalidOptions:  # (a value stored under an older schema: shown as it is)
                value = stored.get(spec.key)
            lines.append(tx(Msg("options.prefs_line", {
                "name": name, "key": spec.key, "value": value_text(tx, value), "about": about,
                "allowed": spec.allowed_msg().to_json()})))
        await interaction.response.send_message("\n".join(lines)[:2000], ephemeral=True)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A custom id of ours on a message that does not show it, or one that is none of the
        bot's items, is refused privately (``bot.ui.components.refuse_foreign``; discord.py
        would leave it unanswered)."""
        async with self.bot.flow.ctx.tracked():
            await refuse_foreign(interaction, (*DYNAMIC_ITEMS, *TABLE_ITEMS, *AI_ITEMS))

    # ------------------------------------------------------------------ moderation
    @mod.command(name="end")
    @app_commands.describe(game="Game number", reason="Shown with the announcement")
    @moderator_only()
    async def end(self, interaction: discord.Interaction, game: GameOption, reason: str | None = None) -> None:
        """Moderator: end a lobby or running game now (logged)."""
        await self.bot.flow.moderation.end(interaction, game, reason)

    @mod.command(name="kick")
    @app_commands.describe(game="Game number", member="The player (pick them, or paste the id of one who left)",
                           ai="Hand their seat to an AI of this level instead of the timeout default")
    @app_commands.choices(ai=AI_CHOICES)
    @moderator_only()
    async def kick(self, interaction: discord.Interaction, game: GameOption, member: discord.User,
                   ai: str | None = None) -> None:
        """Moderator: remove a player; their moves are played automatically from now on (logged)."""
        refuse_self_kick(interaction, game, member)
        if ai is not None and game.status == "active":
            await self.bot.flow.ai.hand_over(interaction, game, member, ai, reason="kick")
            return
        await self.bot.flow.moderation.kick(interaction, game, member)

    @mod.command(name="replace")
    @app_commands.describe(game="Game number", player="The player to replace (or paste the id of one who left)",
                           member="The member who takes the seat", ai="Or: hand the seat to an AI of this level",
                           seat="Or, instead of player: the seat to replace (an AI seat too)")
    @app_commands.choices(ai=AI_CHOICES)
    @app_commands.autocomplete(seat=seat_choices)
    @moderator_only()
    async def replace(self, interaction: discord.Interaction, game: GameOption, player: discord.User | None = None,
                      member: discord.User | None = None, ai: str | None = None, seat: str | None = None) -> None:
        """Moderator: give a player's seat (or an AI's) to another member or an AI (logged)."""
        if (player is None) == (seat is None):
            raise HostError(Msg("ai.refuse.replace_which"), "bad_replace")
        if (member is None) == (ai is None):
            raise HostError(Msg("ai.refuse.replace_either"), "bad_replace")
        index = seat_named(game, seat) if seat is not None else None
        if ai is not None:
            await self.bot.flow.ai.hand_over(interaction, game, player, ai, reason="replace", seat=index)
            return
        assert member is not None
        await self.bot.flow.moderation.replace(interaction, game, player, member, seat=index)

    @app_commands.command(name="autopilot")
    @app_commands.describe(game="Game number (default: your game in this channel)",
                           on="True: an AI plays your seat; False: take it back", level="The AI's level")
    @app_commands.choices(level=AI_CHOICES)
    async def autopilot(self, interaction: discord.Interaction, on: bool = True, level: str | None = None,
                        game: GameOption | None = None) -> None:
        """Let an AI play your seat (on), or take it back (on: False)."""
        record = await self.bot.flow.ctx.resolve_game(interaction, game)
        await self.bot.flow.ai.autopilot(interaction, record, on, level)

    @mod.command(name="pause")
    @app_commands.describe(game="Game number", paused="True to pause, False to resume")
    @moderator_only()
    async def pause(self, interaction: discord.Interaction, game: GameOption, paused: bool = True) -> None:
        """Moderator: pause (or resume) a game: no moves, no timer."""
        await self.bot.flow.moderation.pause(interaction, game, paused)


    @app_commands.command(name="status")
    async def status(self, interaction: discord.Interaction) -> None:
        """Owner or moderator: what the bot is doing — games, actions, deliveries, backups."""
        await self.bot.operator.status(interaction)

    @app_commands.command(name="forget-me")
    @app_commands.describe(confirm="True: delete your data now (without it: what would be deleted)")
    async def forget_me(self, interaction: discord.Interaction, confirm: bool = False) -> None:
        """Delete your data; your name and id in past games become anonymous."""
        await self.bot.operator.forget_me(interaction, confirm)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server: its data is purged after the grace period (bot/ui/operator.py)."""
        await self.bot.operator.guild_removed(guild.id)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Added (back) to a server: a purge waiting for it is called off."""
        await self.bot.operator.guild_joined(guild.id)

    @app_commands.command(name="language")
    @app_commands.describe(language="Your language for DMs and private replies (default: your Discord language)",
                           server="Moderator: the server's language for public messages and boards")
    @app_commands.choices(language=LANGUAGE_CHOICES, server=LANGUAGE_CHOICES)
    async def language(self, interaction: discord.Interaction, language: str | None = None,
                       server: str | None = None) -> None:
        """Choose your language (DMs, private replies) or, as a moderator, the server's."""
        await choose_language(self.bot.flow.ctx, interaction, language, server)


async def setup(bot: GameBot) -> None:
    """Extension entry point."""
    await bot.add_cog(Games(bot))
