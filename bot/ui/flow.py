"""Interaction flows shared by every game: lobby, Play panel, private views, log,
rules, turn notices, the game clock (design §5).

Every handler acknowledges within Discord's 3 seconds (it defers before loading,
applying or rendering), turns refusals (``GameError``, ``HostError``) into a private
message that changes nothing, and logs anything unexpected.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import discord

from bot.service import ActResult, HostError, texts
from bot.settings import TIMEOUT_PRESETS
from bot.storage import GameRecord
from bot.ui.limits import MESSAGE_CHARS, clip, split_text
from bot.ui.panels import board_view, build_panel, game_title, lobby_embed, lobby_view, mention_list
from engines.base import GameError, InvalidOptions, Msg
from engines.registry import get as get_engine
from render import registry as renders
from render.base import clean_text

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


def timeout_label(seconds: int) -> str:
    """``"24 hours"`` for a preset, else a plain duration."""
    for label, value in TIMEOUT_PRESETS.items():
        if value == seconds:
            return label
    if seconds % 3600 == 0:
        return f"{seconds // 3600} hours"
    return f"{max(1, seconds // 60)} minutes"


def parse_options(text: str | None) -> dict[str, str]:
    """``"table_model=zones roll_sigma=300"`` → ``{"table_model": "zones", "roll_sigma": "300"}``.

    Raises:
        InvalidOptions: an item without ``=``.
    """
    out: dict[str, str] = {}
    for item in shlex.split(text or ""):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidOptions(f"Write options as key=value (got {item!r}).", key=item)
        key = key.strip()
        if key in out:
            raise InvalidOptions(f"Option '{key}' is given twice.", key=key)
        out[key] = value.strip()
    return out


class Flow:
    """The handlers behind commands and buttons, for ``bot``."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        self._busy = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @asynccontextmanager
    async def tracked(self) -> AsyncIterator[None]:
        """Count a handler as in flight (``wait_idle`` waits for all of them)."""
        self._busy += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    async def wait_idle(self) -> None:
        """Wait until no handler is in flight and every board update is delivered."""
        while True:
            await self._idle.wait()
            await self.bot.delivery.drain()
            if self._busy == 0:
                return

    @property
    def service(self) -> Any:
        return self.bot.service

    # ------------------------------------------------------------------ helpers
    async def refuse(self, interaction: discord.Interaction, text: str) -> None:
        """Answer privately (a new ephemeral message), whatever was answered before."""
        text = clip(text, MESSAGE_CHARS)
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    @asynccontextmanager
    async def guard(self, interaction: discord.Interaction) -> AsyncIterator[None]:
        """Turn refusals into private messages; log anything else and say so privately."""
        try:
            async with self.tracked():
                yield
        except (GameError, HostError) as exc:
            await self.refuse(interaction, f"⚠️ {exc.message}")
        except Exception:
            log.exception("unexpected error handling an interaction")
            try:
                await self.refuse(interaction, "⚠️ Something went wrong on our side; the game is unchanged.")
            except discord.HTTPException:
                pass

    async def delivered(self, coro: Any) -> None:
        """Await a delivery step after a committed move: a Discord failure is logged and
        never rolls the move back (design §4)."""
        try:
            await coro
        except Exception:
            log.exception("delivery after a committed move failed")

    async def is_moderator(self, interaction: discord.Interaction) -> bool:
        """Manage Server or Manage Messages, or the server's moderator role (setting or DB)."""
        member = interaction.user
        if not isinstance(member, discord.Member):
            return False
        perms = member.guild_permissions
        if perms.manage_guild or perms.manage_messages or perms.administrator:
            return True
        roles = {r.id for r in member.roles}
        configured = self.bot.settings.moderator_role_id
        stored = await self.bot.repo.moderator_role(member.guild.id)
        return bool(roles & {r for r in (configured, stored) if r})

    async def resolve_game(self, interaction: discord.Interaction, game: int | None,
                           game_id: str | None = None) -> GameRecord:
        """The game a command means: ``game`` if given; else the caller's game in this
        channel/thread; else the only game here.

        Raises:
            HostError: none or several candidates (the message says how to choose).
        """
        if game is not None:
            record = await self.service.get(game)
            if game_id and record.game_id != game_id:
                raise HostError(f"Game #{game} is not a {get_engine(game_id).info.name} game.", "wrong_game")
            return record
        here = await self.bot.repo.games(status=("lobby", "active", "finished"),
                                          channel_id=interaction.channel_id)
        if game_id:
            here = [g for g in here if g.game_id == game_id]
        mine = [g for g in here if g.seat_of(interaction.user.id) is not None]
        active_mine = [g for g in mine if g.status == "active"]
        for candidates in (active_mine, mine, here):
            if len(candidates) == 1:
                return candidates[0]
            if len(candidates) > 1:
                if not mine:
                    raise HostError(f"You are not playing in any of the {len(candidates)} games here; pass "
                                    "the `game` number to look at one.", "ambiguous")
                raise HostError("Several games are here; choose one with the `game` option.", "ambiguous")
        raise HostError("No game here. Start one with `/game new`, or pass the `game` number.", "no_game")

    async def seated(self, game: int, user_id: int) -> tuple[GameRecord, int]:
        """The game and the seat of ``user_id`` in it.

        Raises:
            HostError: no such game, or the user does not play in it.
        """
        record = await self.service.get(game)
        seat = record.seat_of(user_id)
        if seat is None:
            raise HostError("This is not your game — you are not playing in it.", "not_a_player")
        return record, seat

    async def recent_public_lines(self, record: GameRecord, limit: int = 6) -> list[str]:
        """The last ``limit`` public event lines of a game, names filled in."""
        lines: list[str] = []
        for entry in await self.bot.repo.log(record.id, last=max(40, limit * 8)):
            for e in entry.events:
                if e.get("visible_to") is None and e.get("kind") not in ("start",):
                    lines.append(texts(record).event(e))
        return lines[-limit:]

    # ------------------------------------------------------------------ lobby
    async def new_game(self, interaction: discord.Interaction, game_id: str, options: str | None,
                       timeout: int | None) -> None:
        """``/game new``: open a lobby message with Join / Leave / Start."""
        async with self.guard(interaction):
            if interaction.guild_id is None:
                raise HostError("Games are played in a server channel, not in DMs.", "dm")
            engine = get_engine(game_id)
            record = await self.service.create_lobby(
                game_id=game_id, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
                host_user_id=interaction.user.id, host_name=clean_text(interaction.user.display_name)[:80],
                options=parse_options(options), move_timeout=timeout or self.bot.settings.move_timeout)
            await interaction.response.send_message(
                embed=lobby_embed(engine, record, timeout_label(record.move_timeout)), view=lobby_view(record))
            message = await interaction.original_response()
            await self.bot.repo.set_fields(record.id, lobby_message_id=message.id)

    async def lobby_click(self, interaction: discord.Interaction, game: int, verb: str) -> None:
        """Join / Leave / Start pressed on a lobby."""
        async with self.guard(interaction):
            await interaction.response.defer()  # before the database: its lock can wait under load
            name = clean_text(interaction.user.display_name)[:80]
            if verb == "join":
                record = await self.service.join(game, interaction.user.id, name)
            elif verb == "leave":
                record = await self.service.leave(game, interaction.user.id)
            else:
                result = await self.service.start(game, interaction.user.id,
                                                  is_moderator=await self.is_moderator(interaction))
                await self.started(interaction, result)
                return
            engine = get_engine(record.game_id)
            await interaction.edit_original_response(
                embed=lobby_embed(engine, record, timeout_label(record.move_timeout)), view=lobby_view(record))

    async def started(self, interaction: discord.Interaction, result: ActResult) -> None:
        """After Start: close the lobby message, open a thread, post the board, ping.
        The game has started whatever Discord answers: failures are logged, not shown."""
        try:
            await self._announce_start(interaction, result)
        except Exception:
            log.exception("delivering the start of game %s failed", result.game.id)

    async def _announce_start(self, interaction: discord.Interaction, result: ActResult) -> None:
        record = result.game
        engine = get_engine(record.game_id)
        await interaction.edit_original_response(
            embed=lobby_embed(engine, record, timeout_label(record.move_timeout)), view=None)
        thread_id = await self.open_thread(record, interaction)
        if thread_id:
            await self.bot.repo.set_fields(record.id, thread_id=thread_id)
            record = await self.service.get(record.id)
            await self.bot.delivery.send_text(
                record.channel_id, f"▶ {game_title(engine, record)} has started in <#{thread_id}>.")
        await self.bot.delivery.post_board(record)
        await self.after(ActResult(record, result.entries, result.events, frozenset(),
                                   result.waiting_after, result.outcome), board=False)

    async def open_thread(self, record: GameRecord, interaction: discord.Interaction) -> int | None:
        """A public thread for the game from its lobby message; None (use the channel) when
        threads are not allowed here or the command was used inside a thread."""
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel) or record.lobby_message_id is None:
            return None
        engine = get_engine(record.game_id)
        try:
            message = channel.get_partial_message(record.lobby_message_id)
            thread = await message.create_thread(name=f"{engine.info.name} #{record.id}"[:100],
                                                 auto_archive_duration=10080)
            return thread.id
        except (discord.HTTPException, ValueError) as exc:
            log.info("no thread for game %s (%s); using the channel", record.id, exc)
            return None

    # ------------------------------------------------------------------ board buttons
    async def board_click(self, interaction: discord.Interaction, game: int, version: int, verb: str) -> None:
        """Play / My view / Log / Rules pressed on a board or a turn notice."""
        if verb == "play":
            await self.open_panel(interaction, game)  # the panel always shows the current position
        elif verb == "hand":
            await self.show_private(interaction, game)
        elif verb == "log":
            await self.show_log(interaction, game)
        else:
            async with self.guard(interaction):
                record = await self.service.get(game)
                await self.show_rules(interaction, record.game_id)

    async def open_panel(self, interaction: discord.Interaction, game: int) -> None:
        """Send the caller's private Play panel (ephemeral)."""
        async with self.guard(interaction):
            await interaction.response.defer(ephemeral=True, thinking=True)
            record, seat = await self.seated(game, interaction.user.id)
            if record.status != "active":
                raise HostError("This game is not running.", "not_active")
            engine = self.service.engine(record)
            state = self.service.state(record)
            panel = build_panel(engine, record, state, seat)
            kwargs: dict[str, Any] = {"ephemeral": True}
            if panel.view is not None:
                kwargs["view"] = panel.view
            file = await self.decision_file(record, state, seat)
            if file is not None:
                kwargs["file"] = file
            await interaction.followup.send(panel.content, **kwargs)

    async def navigate(self, interaction: discord.Interaction, game: int, version: int, page: int,
                       path: tuple[int, ...]) -> None:
        """Prev / Next / step / Back inside a panel: redraw the panel in place at ``path``."""
        async with self.guard(interaction):
            await interaction.response.defer()  # before the database: its lock can wait under load
            record, seat = await self.seated(game, interaction.user.id)
            engine = self.service.engine(record)
            state = self.service.state(record)
            note = ""
            if version != record.version:
                note, page, path = "*(The game moved on; here is the current position.)*", 0, ()
            panel = build_panel(engine, record, state, seat, page=page, path=path, note=note)
            await interaction.edit_original_response(content=panel.content, view=panel.view)

    async def choose(self, interaction: discord.Interaction, game: int, version: int, index: int) -> None:
        """A legal action picked in a panel: apply it, then show the next decision."""
        async with self.tracked():
            await self._choose(interaction, game, version, index)

    async def _choose(self, interaction: discord.Interaction, game: int, version: int, index: int) -> None:
        result: ActResult | None = None
        async with self.guard(interaction):
            await interaction.response.defer()
            record, seat = await self.seated(game, interaction.user.id)
            if record.version != version and not await self.service.same_choice_since(record, seat, version):
                # (only other players acted since, e.g. simultaneous picks: the index means the same)
                raise HostError("The board has moved on since that panel; press Play ▶ again.", "stale")
            engine = self.service.engine(record)
            state = self.service.state(record)
            actions = engine.legal_actions(state, seat)
            if not 0 <= index < len(actions):
                raise HostError("That choice is no longer available; press Play ▶ again.", "stale")
            action = actions[index]
            label = texts(record)(engine.action_label(state, action))
            result = await self.service.act(game, interaction.user.id, action, expected_version=version)
        if result is not None:
            await self.delivered(self.after(result))
            await self.delivered(self.edit_panel_after(interaction, result, seat, f"✓ {label}"))

    async def act_text(self, interaction: discord.Interaction, game: int | None, game_id: str, text: str) -> None:
        """``/<game> play action:<notation>`` for keyboard users."""
        async with self.tracked():
            await self._act_text(interaction, game, game_id, text)

    async def _act_text(self, interaction: discord.Interaction, game: int | None, game_id: str,
                        text: str) -> None:
        result: ActResult | None = None
        seat = -1
        async with self.guard(interaction):
            await interaction.response.defer(ephemeral=True, thinking=True)
            record = await self.resolve_game(interaction, game, game_id)
            found = record.seat_of(interaction.user.id)
            if found is None:
                raise HostError("You are not playing in this game.", "not_a_player")
            seat = found
            result = await self.service.act(record.id, interaction.user.id, text)
        if result is not None:
            await self.delivered(self.after(result))
            await self.delivered(self._confirm_text(interaction, result, seat, text))

    async def _confirm_text(self, interaction: discord.Interaction, result: ActResult, seat: int,
                            text: str) -> None:
        """Confirm a typed move privately and show the seat's next decision."""
        engine = self.service.engine(result.game)
        note = f"✓ {text.strip()}" + self.private_notes(result, seat)
        panel = build_panel(engine, result.game, self.service.state(result.game), seat, note=note) \
            if result.game.status == "active" else None
        content = panel.content if panel else note
        kwargs: dict[str, Any] = {"ephemeral": True}
        if panel is not None and panel.view is not None:
            kwargs["view"] = panel.view
        if panel is not None:
            file = await self.decision_file(result.game, self.service.state(result.game), seat)
            if file is not None:
                kwargs["file"] = file
        await interaction.followup.send(content[:2000], **kwargs)

    def private_notes(self, result: ActResult, seat: int) -> str:
        """Lines of events only ``seat`` may see (e.g. the card they drew)."""
        tx = texts(result.game)
        lines = [tx.event(e) for e in result.events if e.visible_to is not None and seat in e.visible_to]
        return "".join(f"\n🔒 {line}" for line in lines)

    async def edit_panel_after(self, interaction: discord.Interaction, result: ActResult, seat: int,
                               note: str) -> None:
        """Replace the panel with the result and the seat's next decision, if any."""
        record = result.game
        note += self.private_notes(result, seat)
        extra: dict[str, Any] = {}
        if renders.has_decision(record.game_id):  # replace the decision image, or drop a stale one
            file = None
            if record.status == "active":
                file = await self.decision_file(record, self.service.state(record), seat)
            extra["attachments"] = [file] if file is not None else []
        if record.status == "active":
            engine = self.service.engine(record)
            panel = build_panel(engine, record, self.service.state(record), seat, note=note)
            await interaction.edit_original_response(content=panel.content[:2000], view=panel.view, **extra)
        else:
            await interaction.edit_original_response(content=f"{note}\nThe game is over.", view=None, **extra)

    async def decision_file(self, record: GameRecord, state: Any, seat: int) -> discord.File | None:
        """The image of ``seat``'s pending decision for its private panel (e.g. E Guan's
        placement preview), rendered in a worker thread and fitted under the guild's
        upload limit; None when the game draws none for this decision."""
        if not renders.has_decision(record.game_id):
            return None
        try:
            view = self.service.engine(record).player_view(state, seat)
            names, tx = record.names, texts(record)
            return await self.bot.delivery.image_file(
                lambda: renders.decision_image(record.game_id, view, names, tx), "preview",
                self.bot.delivery.upload_limit(record.guild_id))
        except Exception:  # the panel itself matters more than its picture
            log.exception("decision image of game %s failed", record.id)
            return None

    # ------------------------------------------------------------------ after an action
    async def after(self, result: ActResult, *, board: bool = True) -> None:
        """Deliver an applied action: public event lines, the board, turn pings, the end."""
        record = result.game
        tx = texts(record)
        lines = [tx.event(e) for e in result.events if e.visible_to is None]
        delivery = self.bot.delivery
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
        """Ping exactly the players the game now waits for, with a Play button."""
        engine = self.service.engine(record)
        state = self.service.state(record)
        tx = texts(record)
        prompts = {tx(engine.prompt(state, s)) for s in seats}
        prompt = prompts.pop() if len(prompts) == 1 else tx(Msg("host.your_move"))
        when = f" (timer <t:{int(record.deadline)}:R>)" if record.deadline else ""
        text = f"{prefix}{mention_list(record, seats)} — {prompt}{when}"
        view = discord.ui.View(timeout=None)
        from bot.ui.components import BoardButton

        view.add_item(BoardButton(record.id, record.version, "play"))
        view.add_item(BoardButton(record.id, record.version, "hand"))
        users = [u for u in (record.user_of(s) for s in seats) if u]
        await self.bot.delivery.send_text(record.home_channel_id, text, mentions=users, view=view)
        for user_id in users:
            if await self.bot.repo.get_preference(user_id, "*", "dm_notify") == "on":
                await self.bot.delivery.dm(user_id, f"{game_title(engine, record)}: {prompt}")

    async def announce_end(self, record: GameRecord, result: ActResult) -> None:
        """The final message: ranking with scores, the reason, the winners pinged."""
        outcome = result.outcome
        assert outcome is not None
        lines = [f"🏁 **{game_title(self.service.engine(record), record)} is over.** "
                 f"{texts(record)(outcome.reason)}"]
        for place, seat in enumerate(outcome.ranking, start=1):
            crown = " 👑" if seat in outcome.winners else ""
            score = outcome.scores[seat]
            shown = int(score) if float(score).is_integer() else score
            lines.append(f"{place}. <@{record.user_of(seat)}> — {shown}{crown}")
        winners = [u for u in (record.user_of(s) for s in outcome.winners) if u]
        await self.bot.delivery.send_text(record.home_channel_id, "\n".join(lines), mentions=winners,
                                          view=board_view(record))

    # ------------------------------------------------------------------ private and info
    async def show_private(self, interaction: discord.Interaction, game: int) -> None:
        """The caller's private view (hand, secret pick…), ephemeral, rendered on demand."""
        async with self.guard(interaction):
            await interaction.response.defer(ephemeral=True, thinking=True)
            record, seat = await self.seated(game, interaction.user.id)
            engine = self.service.engine(record)
            state = self.service.state(record)
            view = engine.player_view(state, seat)
            names, tx = record.names, texts(record)
            file = await self.bot.delivery.image_file(
                lambda: renders.private_image(record.game_id, view, names, tx), "private",
                self.bot.delivery.upload_limit(record.guild_id))
            text = f"🔒 Your private view of {game_title(engine, record)} (seat {'ABCDEF'[seat]})."
            if file is None:
                text += "\nThis game has no hidden hand; everything is on the board."
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.followup.send(text, ephemeral=True, file=file)

    async def show_log(self, interaction: discord.Interaction, game: int, limit: int = 40) -> None:
        """The game's log as the caller may see it (ephemeral)."""
        async with self.guard(interaction):
            await interaction.response.defer(ephemeral=True, thinking=True)
            record = await self.service.get(game)
            seat = record.seat_of(interaction.user.id)
            lines: list[str] = []
            for entry in await self.bot.repo.log(record.id):
                if entry.kind == "system" and entry.action.get("type") in (
                        "end", "replace", "kick", "pause", "resume"):
                    lines.append(f"🛡 moderator: {entry.action['type']}")
                for e in entry.events:
                    vis = e.get("visible_to")
                    if vis is None or (seat is not None and seat in vis):
                        lines.append(("🔒 " if vis is not None else "") + texts(record).event(e))
            text = "\n".join(lines[-limit:]) or "Nothing has happened yet."
            chunks = split_text(f"📜 Log of game #{record.id} (last {min(limit, len(lines))} lines)\n{text}")
            for chunk in chunks[-3:]:
                await interaction.followup.send(chunk, ephemeral=True)

    async def show_rules(self, interaction: discord.Interaction, game_id: str) -> None:
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

    # ------------------------------------------------------------------ clock
    async def tick(self, now: float | None = None) -> int:
        """One pass of the game clock: reminders at 50 % and 90 % of the window, timeout
        moves at the deadline (design §5 Time control). Returns how many games it touched."""
        now = self.bot.clock() if now is None else now
        touched = 0
        for record in await self.bot.repo.due(now):
            touched += 1
            try:
                if record.deadline is not None and now >= record.deadline:
                    result = await self.service.expire(record.id, record.version)
                    if result is not None:
                        await self.after(result)
                    continue
                window = record.deadline_window or record.move_timeout
                count = 2 if now >= record.deadline - window * 0.1 else 1
                if count <= record.reminded:
                    continue
                if await self.bot.repo.mark_reminded(record.id, record.version, count):
                    await self.notify_turn(record, record.waiting, prefix="⏰ Reminder: ")
            except Exception:
                log.exception("clock failed for game %s", record.id)
        return touched
