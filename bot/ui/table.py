"""The table around the game, for every game at once and with no game-specific
code: undo (docs/DESIGN.md §4), resign, spectators, rematch, ratings and replays.

Buttons are ``TableButton``s, ``t:{game}:{version}:{verb}``:

| verb | where | what |
|---|---|---|
| ``undo`` | a player's panel after their move | take back their last action (``GameService.undo``) |
| ``resign`` | the private answer to ``/game resign`` | confirm: resign (``GameService.resign``) |
| ``rematch`` | the end message | a new lobby, same players and options (``GameService.rematch``) |
| ``prev`` / ``next`` | a replay (ephemeral) | show step ``version`` (here: the step index) |

``ReplaySelect`` (``tj:{game}``) jumps a replay to a round (or a step).

The items live in ``bot/ui/table_items.py``, the handlers in ``Table`` (``bot.flow.table``,
which ``bot/ui/flow.py`` registers as their routes); the sentences are the ``table.*``
keys of ``bot/text/en/table.toml``.
"""

from __future__ import annotations

import collections
import datetime as dt
import io
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import discord

from bot.service import (
    ActResult,
    HostError,
    ReplayStep,
    entry_texts,
    is_last_person,
    notice_payload,
    start_event,
    texts,
    undone_seqs,
)
from bot.storage import GameRecord, LogEntry
from bot.text import Texts, host_sentence
from bot.ui.context import HostContext, Parts
from bot.ui.dm import DirectMessages, jump_url
from bot.ui.limits import MESSAGE_CHARS, clip
from bot.ui.lobby_options import timeout_label
from bot.ui.notices import Notices
from bot.ui.panels import Panel, game_title, lobby_embed, lobby_view
from bot.ui.table_items import ReplaySelect, TableButton, check_own_panel
from bot.ui.table_text import say, tmsg
from engines.base import Msg, Outcome
from engines.registry import get as get_engine
from render.base import clean_text

log = logging.getLogger(__name__)

Redrawn = Callable[..., Awaitable[dict[str, Any]]]
"""``redrawn(record, seat, reader, user_id, note, moved_on=…)``: the edit of a seat's panel drawn
again, its decision's image included (``Moves.redrawn``)."""

REPLAY_CACHE = 8
"""Finished games whose replay steps are kept in memory (a finished game never changes)."""

LEADERBOARD_SIZE = 20
"""Players a leaderboard lists."""

RATING_BASE = 1500.0
RATING_SCALE = 20.0
"""A rating is shown on a chess-like scale: openskill's ordinal (``mu − 3·sigma``, a cautious
estimate: 0 for a new player) as ``RATING_BASE + RATING_SCALE · ordinal``, rounded (openskill's
``Rating.ordinal(z, alpha, target)``): a new player 1500, one win of two players 1569, one loss 1463."""

PROVISIONAL_GAMES = 5
"""A rating from fewer rated games than this is provisional, shown with a ``?`` (as chess sites do)."""


def shown_rating(mu: float, sigma: float, games: int) -> str:
    """A stored rating as players read it (``RATING_SCALE``): ``"1569?"`` while provisional
    (``PROVISIONAL_GAMES``), ``"1612"`` after."""
    from openskill.models import PlackettLuce

    points = round(PlackettLuce().rating(mu=mu, sigma=sigma).ordinal(3.0, RATING_SCALE, RATING_BASE))
    return f"{points}?" if games < PROVISIONAL_GAMES else str(points)


def leaderboard_lines(game_id: str, rows: Sequence[tuple[str, int, float, float, int, int]], locale: str) -> list[str]:
    """``/game leaderboard``'s answer: the title, one line per player of ``rows``
    (``Repository.ratings``, best first) and what the numbers mean; or that nobody is rated."""
    lines = [say("leaderboard_title", locale, game=game_name(game_id, locale))]
    lines += [say("leaderboard_line", locale, place=i + 1, user=f"<@{user}>", rating=shown_rating(mu, sigma, games),
                  games=games, wins=wins) for i, (_, user, mu, sigma, games, wins) in enumerate(rows)]
    if not rows:
        lines.append(say("leaderboard_empty", locale))
    else:
        lines.append(say("rating_about", locale, base=int(RATING_BASE), provisional=PROVISIONAL_GAMES))
    return lines


def stats_lines(user_id: int, rows: Sequence[tuple[str, int, float, float, int, int]], locale: str) -> list[str]:
    """``/game leaderboard player:``'s answer for a member with rated games ``rows``: totals and
    their favourite game (the one they played most), a line per game (most played first) and
    what the ratings mean."""
    favourite = max(rows, key=lambda r: (r[4], r[5], r[0]))
    lines = [say("stats_title", locale, user=f"<@{user_id}>", games=sum(r[4] for r in rows),
                 wins=sum(r[5] for r in rows), favourite=game_name(favourite[0], locale))]
    lines += [say("stats_line", locale, game=game_name(gid, locale), rating=shown_rating(mu, sigma, games),
                  games=games, wins=wins) for gid, _, mu, sigma, games, wins in sorted(rows, key=lambda r: -r[4])]
    lines.append(say("rating_about", locale, base=int(RATING_BASE), provisional=PROVISIONAL_GAMES))
    return lines



async def with_undo(ctx: HostContext, record: GameRecord, user_id: int, panel: Panel, locale: str = "en") -> Panel:
    """``panel`` with an Undo button (labelled in ``locale``) when ``user_id`` may undo now
    (``GameService.can_undo``); a panel with nothing to click gets a view for it."""
    if panel.view is not None and len(panel.view.children) >= 25:  # (a full panel: /game undo still works)
        return panel
    if not await ctx.service.can_undo(record, user_id):
        return panel
    view = panel.view or discord.ui.View(timeout=None)
    view.add_item(TableButton(record.id, record.version, "undo", locale=locale))
    return Panel(panel.content, view, panel.prompt)


class Spectators:
    """``/game watch``: spectators who follow a game in their DMs, over ``ctx`` (the parts
    below the outbox) and ``dms``; ``update_watchers`` is one of ``Notices.followers``."""

    def __init__(self, ctx: Parts, dms: DirectMessages) -> None:
        self.ctx = ctx
        self.dms = dms

    async def watch(self, interaction: discord.Interaction, record: GameRecord, mode: str) -> None:
        """``/game watch``: follow a game of this server (``HostContext.resolve_game`` refused
        others) — ``mode`` ``"board"``: its public board in DMs, edited as it changes;
        ``"end"``: one DM when it ends. Players already see everything they may.

        Raises:
            HostError: a player of the game, or a game that is over.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        if any(s.user_id == interaction.user.id for s in record.seats):
            raise HostError(tmsg("watch_player", game=record.id), "player")
        if record.status not in ("lobby", "active"):
            raise HostError(tmsg("watch_over", game=record.id), "not_active")
        await self.ctx.service.watch(record.id, interaction.user.id, mode)
        await interaction.followup.send(say(f"watching_{mode}", self.ctx.delivery.locales.private(interaction), game=record.id), ephemeral=True)
        if mode == "board" and record.status == "active":
            await self.ctx.delivered(self.update_watchers(record.id))

    async def unwatch(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """``/game watch mode:stop``: stop following a game; its DM board is deleted.

        Raises:
            HostError: the caller did not follow it.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        stored = await self.ctx.service.unwatch(record.id, interaction.user.id)
        if stored is None:
            raise HostError(tmsg("not_watching", game=record.id), "not_watching")
        if stored[1]:
            await self.ctx.delivery.transport.delete_message(*stored)
        await interaction.followup.send(say("unwatched", self.ctx.delivery.locales.private(interaction), game=record.id), ephemeral=True)

    async def update_watchers(self, game: int) -> None:
        """Bring each spectator of ``game`` up to date (``Notices.followers``): a ``board``
        watcher's DM shows the public board of the current version (only
        ``player_view(state, None)`` is drawn, so nothing private reaches them); an ``end``
        watcher gets one DM when the game finished or was abandoned (a moderator's end or
        kick, the last person's resign). Each is marked with the version shown,
        so nothing is sent twice. A game without spectators is not read."""
        if not await self.ctx.service.watchers(game):
            return
        record = await self.ctx.service.get(game)
        if record.state is None:
            return
        dms = self.dms
        engine = self.ctx.service.engine(record)
        over = record.status in ("finished", "abandoned")
        for user_id, mode, channel_id, message_id, shown in await self.ctx.service.watchers(game):
            if shown >= record.version or (mode == "end" and not over):
                continue
            loc = self.ctx.delivery.locales.of_user(user_id, record.guild_id)
            link = discord.ui.View(timeout=None)
            link.add_item(discord.ui.Button(label=say("go_to_game", loc), url=jump_url(record)))
            sent: tuple[int, int] | None
            if mode == "end":
                outcome = engine.outcome(self.ctx.service.state(record))
                reason = texts(record, loc)(outcome.reason) if outcome is not None else \
                    say("watch_abandoned", loc) if record.status == "abandoned" else ""
                text = say("watch_ended", loc, title=game_title(engine, record, loc), reason=reason)

                async def send(channel: discord.abc.Messageable, text: str = text,
                               link: discord.ui.View = link) -> discord.Message:
                    return await channel.send(text, view=link)

                message = await dms._send(record, user_id, send)
                sent = (message.channel.id, message.id) if message is not None else None
            else:
                sent = await self._board_dm(record, user_id, channel_id, message_id, link, loc)
            if sent is not None:
                await self.ctx.service.set_watcher_message(game, user_id, sent[0], sent[1], record.version)

    async def _board_dm(self, record: GameRecord, user_id: int, channel_id: int | None, message_id: int | None,
                        link: discord.ui.View, locale: str = "en") -> tuple[int, int] | None:
        """Post or edit a spectator's DM board; ``(channel_id, message_id)`` or None."""
        thumb = await self.dms.board_thumbnail(record, locale)
        if thumb is None:
            return None
        engine = self.ctx.service.engine(record)
        text = say("watch_board", locale, title=game_title(engine, record, locale), at=int(self.ctx.clock()))
        data, ext = thumb

        def file() -> discord.File:
            return discord.File(io.BytesIO(data), filename=f"board.{ext}")

        if channel_id and message_id:
            try:
                await self.ctx.delivery.transport.channel(channel_id).get_partial_message(message_id).edit(
                    content=text, attachments=[file()], view=link)
                return channel_id, message_id
            except discord.HTTPException as exc:
                log.info("spectator board of game %s cannot be edited (%s); sending a fresh one", record.id, exc)
        sent = await self.dms._send(record, user_id, lambda ch: ch.send(text, file=file(), view=link,
                                                                                  silent=True))
        return (sent.channel.id, sent.id) if sent is not None else None


class Table:
    """Undo, resign, rematch, ratings and replays over ``ctx``."""

    def __init__(self, ctx: HostContext, notices: Notices, redrawn: Redrawn) -> None:
        self.ctx = ctx
        self.notices = notices
        self.redrawn = redrawn
        """The edit of a seat's panel drawn again (``Moves.redrawn``): the panel after an undo."""
        self._replays: collections.OrderedDict[int, list[ReplayStep]] = collections.OrderedDict()

    async def undo(self, interaction: discord.Interaction, game: int, version: int | None) -> None:
        """Undo pressed in a panel of ``version`` (or ``/game undo``, ``version`` None): take
        back the caller's last action, tell the table (the log line ``event.table.undo`` and
        the board), and show the caller's decision again, with Undo when another is allowed.

        Raises:
            HostError: not a player; a stale panel; nothing to undo now.
        """
        from_panel = version is not None
        if from_panel:
            await interaction.response.defer()
            check_own_panel(interaction)
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        record, seat = await self.ctx.seated(interaction, game)
        result = await self.ctx.service.undo(record.id, interaction.user.id, expected_version=version)
        await self.ctx.delivered(self.notices.after(result))
        reader = self.ctx.delivery.locales.private(interaction)
        edit = await self.redrawn(result.game, seat, reader, interaction.user.id, say("undone", reader), moved_on=False)
        if from_panel:  # (the undone decision's picture is replaced or dropped: ``attachments``)
            await interaction.edit_original_response(**edit)
            return
        sent: dict[str, Any] = {"ephemeral": True, "files": edit.get("attachments", [])}
        if edit["view"] is not None:
            sent["view"] = edit["view"]
        await interaction.followup.send(edit["content"], **sent)

    async def ask_resign(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """``/game resign``: a private question with a confirm button (nothing changes yet).

        Raises:
            HostError: the caller has no seat in this running game.
        """
        if record.seat_of(interaction.user.id) is None or record.status != "active":
            raise HostError(tmsg("not_playing", game=record.id), "not_a_player")
        view = discord.ui.View(timeout=None)
        view.add_item(TableButton(record.id, record.version, "resign",
                                  locale=self.ctx.delivery.locales.private(interaction)))
        seat = record.seat_of(interaction.user.id)
        ask = "resign_ask_last" if seat is not None and is_last_person(record, seat) else "resign_ask"
        await interaction.response.send_message(say(ask, self.ctx.delivery.locales.private(interaction), game=record.id), view=view, ephemeral=True)

    async def resign(self, interaction: discord.Interaction, game: int) -> None:
        """The resign confirmation pressed: the seat is left (``GameService.resign``), the
        table is told publicly, and the game goes on with the seat played automatically;
        when only AIs would play on, the game ends as abandoned instead (no ratings change)
        and both sentences say so.

        Raises:
            HostError: the caller no longer plays in this running game.
        """
        await interaction.response.defer()
        record, seat = await self.ctx.seated(interaction, game)
        who = {"user": f"<@{interaction.user.id}>", "game": record.id}
        result = await self.ctx.service.resign(
            record.id, interaction.user.id, notice_payload(Msg("table.resigned_public", who)),
            abandoned_notice=notice_payload(Msg("table.resigned_public_abandoned", who)))
        ended = not isinstance(result, ActResult)
        suffix = "_abandoned" if ended else ""
        if isinstance(result, ActResult):
            await self.ctx.delivered(self.notices.after(result))  # (the public line first: queued with the change)
        else:
            await self.notices.ended(record.id)
        await interaction.edit_original_response(content=say(f"resigned{suffix}", self.ctx.delivery.locales.private(interaction), game=record.id), view=None)

    # ------------------------------------------------------------------ ratings
    async def leaderboard(self, interaction: discord.Interaction, game_id: str) -> None:
        """``/game leaderboard``: this server's best rated players of ``game_id`` (ordinal
        ``mu − 3·sigma`` first), with their ratings as players read them (``shown_rating``),
        games and wins, and what the ratings mean; ephemeral.

        Raises:
            HostError: used in a DM.
        """
        if interaction.guild_id is None:
            raise HostError(tmsg("server_only"), "dm")
        await interaction.response.defer(ephemeral=True, thinking=True)
        loc = self.ctx.delivery.locales.private(interaction)
        rows = await self.ctx.service.ratings(interaction.guild_id, game_id, limit=LEADERBOARD_SIZE)
        lines = leaderboard_lines(game_id, rows, loc)
        await interaction.followup.send(clip("\n".join(lines), MESSAGE_CHARS), ephemeral=True)

    async def stats(self, interaction: discord.Interaction, user: discord.abc.User,
                    game_id: str | None = None) -> None:
        """``/game leaderboard player:``: a member's rated games in this server (of
        ``game_id`` only when given): games, wins, rating per game and their favourite game
        (the one they played most); ephemeral.

        Raises:
            HostError: used in a DM.
        """
        if interaction.guild_id is None:
            raise HostError(tmsg("server_only"), "dm")
        await interaction.response.defer(ephemeral=True, thinking=True)
        rows = await self.ctx.service.ratings(interaction.guild_id, game_id, user_id=user.id)
        loc = self.ctx.delivery.locales.private(interaction)
        if not rows:
            await interaction.followup.send(say("stats_empty", loc, user=f"<@{user.id}>"), ephemeral=True)
            return
        lines = stats_lines(user.id, rows, loc)
        await interaction.followup.send(clip("\n".join(lines), MESSAGE_CHARS), ephemeral=True)

    # ------------------------------------------------------------------ rematch
    async def rematch(self, interaction: discord.Interaction, game: int) -> None:
        """Rematch pressed on the end message: a new lobby with the same players (seats
        rotated) and options, posted in the game's channel and mentioning them; the presser
        hosts it. A second press finds that lobby.

        Raises:
            HostError: a game of another server, not finished, or not one of its players.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.ctx.game(interaction, game)
        lobby, new = await self.ctx.service.rematch(record.id, interaction.user.id,
                                                    clean_text(interaction.user.display_name)[:80])
        if not new:
            await interaction.followup.send(say("rematch_open", self.ctx.delivery.locales.private(interaction), game=lobby.id, channel=lobby.channel_id),
                                            ephemeral=True)
            return
        engine = get_engine(lobby.game_id)
        locale = self.ctx.delivery.locales.public(lobby.guild_id)
        view = lobby_view(lobby, locale)
        users = [s.user_id for s in lobby.seats if not s.is_bot]  # (an AI seat's id is no member: never mentioned)
        text = say("rematch_public", locale, old=record.id, users=" ".join(f"<@{u}>" for u in users))
        embed = lobby_embed(engine, lobby, timeout_label(lobby.move_timeout, locale), locale)
        mentions = discord.AllowedMentions(users=[discord.Object(u) for u in users], roles=False, everyone=False)
        try:
            posted = await self.ctx.delivery.transport.channel(lobby.channel_id).send(
                text, embed=embed, view=view or discord.utils.MISSING, allowed_mentions=mentions)
            await self.ctx.service.set_fields(lobby.id, lobby_message_id=posted.id)
        except discord.HTTPException as exc:  # (the lobby exists: /game board and the buttons' ids still work)
            log.warning("rematch lobby %s not posted: %s", lobby.id, exc)
        await interaction.followup.send(say("rematch_opened", self.ctx.delivery.locales.private(interaction), game=lobby.id, channel=lobby.channel_id),
                                        ephemeral=True)

    # ------------------------------------------------------------------ replays and export
    async def steps(self, record: GameRecord) -> list[ReplayStep]:
        """The replay steps of a game that ended (``GameService.replay_steps``), cached."""
        if record.id in self._replays:
            self._replays.move_to_end(record.id)
            return self._replays[record.id]
        steps = await self.ctx.service.replay_steps(record)
        self._replays[record.id] = steps
        while len(self._replays) > REPLAY_CACHE:
            self._replays.popitem(last=False)
        return steps

    async def replay(self, interaction: discord.Interaction, game: int, step: int | None) -> None:
        """``/game replay`` (``step`` None: the start, as a new private message) or ◀ ▶ /
        a jump in that message (edited in place): the public board of step ``step`` drawn
        from the log, its public lines, and the buttons. Only the asker sees and moves it.

        Raises:
            HostError: a game of another server, one that has not ended, or a lobby closed unplayed.
        """
        fresh = step is None
        if fresh:
            await interaction.response.defer(ephemeral=True, thinking=True)
        else:
            await interaction.response.defer()
            check_own_panel(interaction)
        record = await self.ctx.game(interaction, game)
        if record.status not in ("finished", "abandoned"):  # (a game a moderator ended is over too)
            raise HostError(tmsg("replay_unfinished", game=record.id), "not_finished")
        steps = await self.steps(record)
        index = max(0, min(step or 0, len(steps) - 1))
        current = steps[index]
        engine = self.ctx.service.engine(record)
        loc = self.ctx.delivery.locales.private(interaction)
        tx = texts(record, loc)
        delivery = self.ctx.delivery
        file = await delivery.transport.render_file("board", record, current.view, tx.locale, "replay",
                                          delivery.transport.upload_limit(record.guild_id))
        entries = await self.ctx.service.log(record.id)
        by_seq = entry_texts(record, entries, tx.locale)
        then = by_seq.get(current.seq, tx)  # (named after whoever made the move)
        lines = [say("replay_step", loc, step=index, last=len(steps) - 1)
                 + (say("replay_in", loc, unit=then(current.mark)) if current.mark else "")]
        lines += [f"• {then.event(e)}" for e in current.events]  # (named after whoever made the move)
        embed = discord.Embed(title=clip(say("replay_title", loc, title=game_title(engine, record, loc)), 256),
                              description=clip("\n".join(lines), 4096), colour=0x6B3FA0)
        view = discord.ui.View(timeout=None)
        view.add_item(TableButton(record.id, max(0, index - 1), "prev", disabled=index == 0, locale=loc))
        view.add_item(TableButton(record.id, min(len(steps) - 1, index + 1), "next", disabled=index >= len(steps) - 1,
                                  locale=loc))
        view.add_item(ReplaySelect(record.id, jump_options(  # (option labels are not markdown)
            steps, tx.plain(), entry_texts(record, entries, tx.locale, markdown=False)), loc))
        if file is not None:
            embed.set_image(url=f"attachment://{file.filename}")
        if fresh:
            kwargs: dict[str, Any] = {"file": file} if file is not None else {}
            await interaction.followup.send(embed=embed, view=view, ephemeral=True, **kwargs)
        else:
            await interaction.edit_original_response(embed=embed, view=view,
                                                     attachments=[file] if file is not None else [])

    async def export(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """``/game export``: the game's log as JSON and as readable text, public
        information only (``export_log``), attached to a private answer.

        Raises:
            HostError: the game has not started.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        if record.state is None:
            raise HostError(tmsg("export_not_started", game=record.id), "not_started")
        data, text = export_log(record, self.ctx.service.engine(record).info.name,
                                await self.ctx.service.log(record.id),
                                self.ctx.service.engine(record).outcome(self.ctx.service.state(record)))
        files = [discord.File(io.BytesIO(json.dumps(data, ensure_ascii=False, indent=1).encode()),
                              filename=f"game-{record.id}.json"),
                 discord.File(io.BytesIO(text.encode()), filename=f"game-{record.id}.txt")]
        await interaction.followup.send(say("exported", self.ctx.delivery.locales.private(interaction), game=record.id), files=files, ephemeral=True)


def game_name(game_id: str, locale: str) -> str:
    """A game's name in ``locale`` (``ui.game.<id>``)."""
    return host_sentence(f"ui.game.{game_id}", locale)


def jump_options(steps: Sequence[ReplayStep], tx: Texts,
                 by_seq: Mapping[int, Texts] | None = None) -> list[discord.SelectOption]:
    """The jump menu of a replay: the first step of each run of equal marks (the rulebook's
    units: rounds, turns, settlement phases, ``Notation.replay_marks``), labelled by ``tx``
    (the game's texts in the reader's language; ``by_seq``: with the names as of each step,
    ``entry_texts``); more than 25 are thinned by ``thinned``. Without marks, up to 25
    evenly spread steps."""
    marks: list[tuple[str, str, int]] = []
    last: dict[str, Any] | None = None
    for i, step in enumerate(steps):
        if step.mark is not None and step.mark != last:
            label = (by_seq or {}).get(step.seq, tx)(step.mark)
            marks.append((str(step.mark.get("msg")), label, i))
        last = step.mark
    if not marks:
        marks = [("step", say("jump_step", tx.locale, step=i), i) for i in range(len(steps))]
    return [discord.SelectOption(label=clip(label, 100), value=str(i)) for _, label, i in thinned(marks)]


def thinned(marks: Sequence[tuple[str, str, int]], most: int = 25) -> list[tuple[str, str, int]]:
    """At most ``most`` of ``marks`` (``(kind, label, step)``, in step order; a select holds
    25 options): all when they fit; else every mark of the rarer kinds (settlement phases,
    a Last Rites turn, the end) and the most common kind (rounds, turns) evenly spread over
    the places left, first and last kept; evenly over all when the rarer kinds alone are
    too many. In step order."""
    if len(marks) <= most:
        return list(marks)

    def spread(items: Sequence[tuple[str, str, int]], k: int) -> list[tuple[str, str, int]]:
        if k <= 1:
            return list(items[:k])
        return [items[round(j * (len(items) - 1) / (k - 1))] for j in range(k)]

    common = collections.Counter(kind for kind, _, _ in marks).most_common(1)[0][0]
    rare = [m for m in marks if m[0] != common]
    if len(rare) >= most:
        return spread(marks, most)
    return sorted(rare + spread([m for m in marks if m[0] == common], most - len(rare)), key=lambda m: m[2])


def export_log(record: GameRecord, name: str, entries: Sequence[LogEntry],
               outcome: Outcome | None) -> tuple[dict[str, Any], str]:
    """A game's log as JSON and as text with public information only:
    per entry its seq, kind, seat, time and public event lines — no actions (a player's
    action may be a secret pick, a chance entry a hidden draw) and no private lines;
    undone entries are marked. Returns ``(json_data, text)``."""
    txs = entry_texts(record, entries, markdown=False)  # (a move keeps the name of whoever made it)
    undone = undone_seqs(entries)
    out: list[dict[str, Any]] = []
    lines = [f"{name} #{record.id} · {record.status} · " + ", ".join(record.names)]
    for e in entries:
        events = [ev for ev in e.events if ev.get("visible_to") is None]
        if e.kind == "system" and e.action.get("type") == "start":
            events = [start_event(int(e.action.get("players", 0))).to_json(), *events]
        shown = [txs[e.seq].event(ev) for ev in events]
        out.append({"seq": e.seq, "kind": e.kind, "seat": e.seat, "at": e.at, "undone": e.seq in undone,
                    **({"system": e.action.get("type")} if e.kind == "system" else {}),
                    "events": [{**ev, "line": line} for ev, line in zip(events, shown, strict=True)]})
        stamp = dt.datetime.fromtimestamp(e.at, dt.UTC).strftime("%Y-%m-%d %H:%M")
        lines += [f"{e.seq:>4} {stamp} " + (f"~~{line}~~" if e.seq in undone else line) for line in shown]
    data: dict[str, Any] = {"game": record.id, "game_id": record.game_id, "status": record.status,
                            "players": record.names, "options": record.options, "entries": out}
    if outcome is not None:
        data["outcome"] = outcome.to_json()
        lines.append(texts(record).plain()(outcome.reason))
    return data, "\n".join(lines) + "\n"
