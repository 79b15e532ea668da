"""What the table is told (docs/DESIGN.md §5): the public event lines after a move, the
board update, the pings of exactly the players the game now waits for, the end; and on
request the private view, the log, the rules and the caller's games (``/game mine``).

What a change causes is queued in the outbox with the change (``bot.service.plan_deliveries``:
event lines, the board, the end or the ping, a typed move's answer) and sent by the
delivery layer (``Outbox.flush``) exactly once and in order, also after a crash (pending
rows are sent at start); it asks this module for the sentences of a ping row
(``deliver_ping``) and of the end (``end_message``) when it sends them.

**Exactly one ping each time the game starts waiting for a player**: after a
move, a timeout's automatic move, a reaction window opening or closing, a kick or a replace
and, after a restart, for a change whose ping row was never sent (the outbox). A seat is
newly awaited when it waits now and did not before, or its last decision was made for it
(timeout, pre-set answer). A player whose turn comes back through AI moves only, minutes
after their own move, is not pinged again: their open panel is redrawn with the decision
(``answered_by_ais``, ``bot/ui/parked.py``), so a turn of several steps against AIs is one
ping. The ping mentions only those players, says what they are to
decide and by when (``<t:…:R>``), carries Play ▶, and a "since your last turn" digest: the
public lines in the thread; in each player's DM turn notice (``bot/ui/dm.py``) the lines
that player may see, with a small board image. Inside the server's quiet hours pings are
held back until they end (``bot/ui/clock.py``).

Sentences built here are the host's (English for now); engine messages go through
``bot.service.texts(record)`` (``bot/text/``).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import discord

from bot.service import (
    HOLDER_CHANGES,
    ActResult,
    HostError,
    entry_texts,
    left_seats,
    live_entries,
    old_holder_name,
    ranks,
    table_outcome,
    texts,
    undone_seqs,
)
from bot.storage import GameRecord, LogEntry
from bot.text import Texts, escape_name, locale_of, short_name
from bot.ui.components import BoardButton
from bot.ui.context import HostContext, Parts
from bot.ui.deadlines import fit_deadline, quiet_hours
from bot.ui.dm import DirectMessages, jump_url
from bot.ui.errors import reader_locale
from bot.ui.limits import MESSAGE_CHARS, split_text
from bot.ui.panels import board_view, game_title, mention_list, timer_shown
from bot.ui.parked import PARK_SECONDS
from bot.ui.table_items import end_view
from engines.base import Msg, Outcome, seat_letter
from engines.notation import Notation
from engines.registry import notation as get_notation

SEAT_CHANGES = ("replace", "kick", "ai_seat")
"""System log entries that change who plays a seat (a moderator's replace or kick, a hand-over
to an AI, autopilot); ``system_line`` names the seat and the players."""

DIGEST_LINES = 8
"""At most this many lines in a "since your last turn" digest (the newest)."""

DIGEST_ENTRIES = 400
"""How far back (log entries) a digest looks."""

DIGEST_FIRST = 40
"""The log entries a ping reads first (the game's tail, mostly held in memory: ``LOG_TAIL_ENTRIES``,
bot/storage/records.py); it reads ``DIGEST_ENTRIES`` only when a pinged seat's last own move is not
among them (``digest_entries``)."""


PERSONAL_EVENTS = frozenset({"timeout_move", "auto"})
"""The host's private notes to the person who held a seat when they were written ("Played
for you: …", "Your preset answer was played: …", which tells that person's ``/game prefs``):
shown to that person only, never to a later holder of the seat (``sees``; docs/DESIGN.md §4
"A seat's private lines")."""


def holders(record: GameRecord, entries: Sequence[LogEntry], seat: int) -> dict[int, int | None]:
    """The user id that held ``seat`` at each of ``entries`` (the whole log or its latest
    part, in order), by seq: the seat's current holder, and before a system entry that gave
    the seat to someone else (``HOLDER_CHANGES`` with its ``old_user``: a replace, a kick to
    an AI; an autopilot keeps its person) whoever held it then."""
    holder = record.user_of(seat)
    out: dict[int, int | None] = {}
    for e in reversed(entries):
        out[e.seq] = holder
        act = e.action
        if e.kind == "system" and act.get("type") in HOLDER_CHANGES and act.get("seat") == seat \
                and isinstance(act.get("old_user"), int):
            holder = act["old_user"]
    return out


def sees(event: dict[str, Any], seat: int | None, viewer: int | None, held_by: int | None) -> bool:
    """Whether the holder ``viewer`` (a user id) of ``seat`` may read the logged ``event``
    (its JSON) of an entry made while ``held_by`` held the seat (``holders``): a public
    event; an event visible to the seat, for its private lines belong to the seat, whose
    hand and secrets a new holder takes over (docs/DESIGN.md §4); but a ``PERSONAL_EVENTS``
    note only when ``viewer`` held the seat then. ``seat`` None: a spectator, public only."""
    vis = event.get("visible_to")
    if vis is None:
        return True
    if seat is None or seat not in vis:
        return False
    return event.get("kind") not in PERSONAL_EVENTS or held_by == viewer


def private_notes(result: ActResult, seat: int, locale: str = "en") -> str:
    """Lines (each starting ``\\n🔒``) of the events only ``seat`` may see, e.g. the card
    they drew, in ``locale``; empty when there are none."""
    tx = texts(result.game, locale)
    lines = [tx.event(e) for e in result.events if e.visible_to is not None and seat in e.visible_to]
    return "".join(f"\n🔒 {line}" for line in lines)


def last_turns(record: GameRecord, entries: Sequence[LogEntry]) -> dict[int, int]:
    """Per seat, the seq of the last entry its current player made themselves (0: none)."""
    out = {s.seat: 0 for s in record.seats}
    for e in entries:
        if e.kind == "player" and e.seat is not None and e.user_id is not None and e.user_id == record.user_of(e.seat):
            out[e.seat] = max(out.get(e.seat, 0), e.seq)
    return out


async def digest_entries(log: Callable[..., Awaitable[list[LogEntry]]], record: GameRecord,
                         seats: Sequence[int]) -> list[LogEntry]:
    """The latest log entries of ``record``'s version that a ping of ``seats`` reads (``log``:
    ``GameService.log``): the last ``DIGEST_FIRST`` when they hold the last own move of each of
    ``seats`` (or the whole log), else the last ``DIGEST_ENTRIES``. Everything a ping takes from
    them (``last_turns``, the digests after those turns, ``answered_by_ais``) lies after the
    earliest of those moves, so it is the same from either read."""
    entries = await log(record.id, last=DIGEST_FIRST, upto=record.version)
    turns = last_turns(record, entries)
    if len(entries) < DIGEST_FIRST or all(turns.get(s, 0) for s in seats):
        return entries
    return await log(record.id, last=DIGEST_ENTRIES, upto=record.version)


def answered_by_ais(record: GameRecord, entries: Sequence[LogEntry], seat: int, turns: dict[int, int], *,
                    since: float, now: float) -> bool:
    """Whether the game awaits ``seat`` again only through moves the computer made (AI seats,
    autopilots, chance) since its player's own last move (``turns``: ``last_turns``), made
    in this process (at or after ``since``, unix seconds) less than ``PARK_SECONDS`` before
    ``now``. Then that player's panel, parked after their move, is redrawn with the
    decision (``bot/ui/parked.py``) and a ping would repeat it: one turn against AIs is
    one ping, not one per step (else Carnival's Pride picks against an AI
    would ping the channel and the DM once a die). The host's move for the seat by its own
    preference (``Engine.auto_action``, an entry whose first event is ``auto``: Illumination's
    discard or End turn that leave no choice) is the computer's too. A move made for the seat
    (a timeout), a person's move or a system entry (an undo, a replace…) in between, and a
    move before a restart (its panel is gone), all ping."""
    own = turns.get(seat, 0)
    mine = next((e for e in entries if e.seq == own), None)
    if mine is None or not since <= mine.at or now - mine.at >= PARK_SECONDS:
        return False
    computer = {s.seat for s in record.seats if s.is_ai}
    return all(e.kind == "chance" or (e.kind == "player" and (e.seat in computer or (e.seat == seat and _by_preference(e))))
               for e in entries if e.seq > own)


def _by_preference(entry: LogEntry) -> bool:
    """Whether ``entry`` is the host's move for its seat by the player's preference (its first
    event ``auto``, ``bot.service.GameService``), not a person's, an autopilot's or a timeout's."""
    return entry.user_id is None and bool(entry.events) and entry.events[0].get("kind") == "auto"


def digest_lines(record: GameRecord, entries: Sequence[LogEntry], viewer: int | None, *, after: int,
                 upto: int | None = None, locale: str = "en") -> list[str]:
    """The event lines of ``entries`` with ``after < seq <= upto`` as ``viewer`` may see
    them (None: the public; their own secret lines marked 🔒), at most ``DIGEST_LINES``
    (the newest, after a line counting the ones left out), in ``locale``."""
    tx = texts(record, locale)
    lines: list[str] = []
    user = record.user_of(viewer) if viewer is not None else None
    held = holders(record, entries, viewer) if viewer is not None else {}
    for e in live_entries(entries):
        if e.seq <= after or (upto is not None and e.seq > upto):
            continue
        for event in e.events:
            if event.get("visible_to") is None:
                lines.append(tx.event(event))
            elif sees(event, viewer, user, held.get(e.seq)):
                lines.append(f"🔒 {tx.event(event)}")
    if len(lines) > DIGEST_LINES:
        lines = [tx(Msg("ui.notice.earlier", {"n": len(lines) - DIGEST_LINES})), *lines[-DIGEST_LINES:]]
    return lines


def system_line(entry: LogEntry, tx: Texts) -> str | None:
    """The ``/game log`` line of a system entry that a moderator made (``end``, ``pause``,
    ``resume``) or that changed who plays a seat (``SEAT_CHANGES``): which seat, whom it
    was taken from (the entry's ``old_name``: ``bot.service.old_holder_name``) and who
    plays it now; ``tx`` has the names as of the entry (``bot.service.entry_texts``: the
    seat's holder after it). None for other system entries (start, undo…) and unknown
    shapes. Texts: ``ui.log.*`` (bot/text/en/ui.toml)."""
    act = entry.action
    kind, seat = act.get("type"), act.get("seat")
    if entry.kind != "system":
        return None
    if kind == "end":
        reason = act.get("reason")
        return tx(Msg("ui.log.end")) + (tx(Msg("ui.moderation.reason", {"reason": reason})) if reason else "")
    if kind in ("pause", "resume"):
        return tx(Msg(f"ui.log.{kind}"))
    if kind not in SEAT_CHANGES or not isinstance(seat, int) or not 0 <= seat < len(tx.names):
        return None
    params: dict[str, object] = {"letter": seat_letter(seat), "name": {"seat": seat}}
    if kind == "kick":
        return tx(Msg("ui.log.kick_abandoned" if act.get("abandoned") else "ui.log.kick", params))
    level = act.get("level")
    if kind == "ai_seat" and act.get("reason") == "autopilot":
        return tx(Msg("ui.log.autopilot_on", {**params, "level": {"msg": f"ai.level.{level}"}})
                  if isinstance(level, str) else Msg("ui.log.autopilot_off", params))
    old, old_user = old_holder_name(entry, tx.locale), act.get("old_user")
    key = "ui.log.kick_ai" if kind == "ai_seat" and act.get("reason") == "kick" else "ui.log.replace"
    if old is not None:
        params["old"] = escape_name(short_name(old)) if tx.markdown else short_name(old)
    elif isinstance(old_user, int) and old_user > 0:  # (logged before old holders were kept: a mention)
        params["old"] = f"<@{old_user}>"
    else:  # (an AI's, unnamed then)
        key = "ui.log.replace_unnamed"
    return tx(Msg(key, params))


RULES_CHARS = MESSAGE_CHARS * 95 // 100
"""The longest message of ``/game rules`` (1,900 characters): 5 % of Discord's 2,000 are left free, so a
line added to a translation, or a character Discord counts twice (it counts UTF-16 units), never meets the
limit."""


def rules_messages(notation: Notation, locale: str) -> list[str]:
    """The messages ``/game rules`` sends: ``rules_in`` split at line breaks into pieces of at
    most ``RULES_CHARS`` characters."""
    return split_text(rules_in(notation, locale), RULES_CHARS)


def rules_in(notation: Notation, locale: str) -> str:
    """The rules text of ``notation``'s game (``Notation.rules_text``) in ``locale``: the translation
    ``rules.<locale>.md`` beside the game's ``rules.md`` (``rules.zh_TW.md``,
    ``rules.zh_CN.md``, ``rules.ja.md``), else the English."""
    lang = locale_of(locale)
    if lang != "en":
        module = sys.modules[type(notation).__module__]
        path = Path(module.__file__ or "").parent / f"rules.{lang}.md"
        if path.exists():
            return path.read_text(encoding="utf-8")
    return notation.rules_text()


def board_link(record: GameRecord) -> str:
    """A link to the game's board message (or lobby message, or thread)."""
    guild = record.guild_id or "@me"
    if record.board_message_id and record.board_channel_id:
        return f"https://discord.com/channels/{guild}/{record.board_channel_id}/{record.board_message_id}"
    if record.status == "lobby" and record.lobby_message_id:
        return f"https://discord.com/channels/{guild}/{record.channel_id}/{record.lobby_message_id}"
    return jump_url(record)



def ranking_lines(outcome: Outcome, name: Callable[[int], str], left: frozenset[int] = frozenset()) -> list[str]:
    """The end message's ranking: ``"2. <name> — 5"`` per seat of ``outcome.ranking``, 👑 after
    a winner. The place is ``ranks``: seats tied on score (both winners or both not) show one
    place, so The Way to Heaven's pawns that stopped on one space are all "2." (its spec §8
    ranks only the winners; ties share) and never 2, 3, 4, 5 for one score. ``name(seat)``
    gives a seat's mention."""
    places = ranks(outcome, left)
    lines = []
    for seat in outcome.ranking:
        score = outcome.scores[seat]
        shown = int(score) if float(score).is_integer() else score
        lines.append(f"{places[seat]}. {name(seat)} — {shown}{' 👑' if seat in outcome.winners else ''}")
    return lines


class TurnNotices:
    """Turn pings, DM turn notices, the DM hands and the end message, over ``ctx`` (the parts
    below the outbox: ``bot.ui.context.Parts``). The outbox composes its ping and end rows
    here (``bot.ui.outbox_drain.Composer``), so this is built before it."""

    def __init__(self, ctx: Parts) -> None:
        self.ctx = ctx
        self.dms = DirectMessages(ctx)

    async def update_hands(self, game: int, record: GameRecord | None = None) -> None:
        """Bring the DM hands of the players of ``game`` up to date (never raises), from
        ``record`` when the caller holds the game as a change committed it (else read)."""
        if record is None:
            try:
                record = await self.ctx.service.get(game)
            except HostError:
                return
        if record.status == "active":
            await self.ctx.delivered(self.dms.update_hands(record))

    async def deliver_ping(self, record: GameRecord, seats: Sequence[int], *, after: int, version: int,
                           nonce: str, via: discord.Interaction | None = None) -> None:
        """Send an outbox ping row: ``notify_turn`` of ``seats`` with the digest up to
        ``after`` (the lines row of the same change posted the rest), buttons of
        ``version``, and ``nonce`` on the thread message so a repeat after a crash is
        dropped by Discord.

        Raises:
            discord.HTTPException (and network errors): the thread message was not accepted
                (the row stays pending and is tried again).
        """
        fitted = await fit_deadline(self.ctx, record)  # (after a restart: not done by ``after``)
        if fitted.deadline != record.deadline:
            self.ctx.delivery.boards.request_board(record.id)
        await self.notify_turn(fitted, seats, shown_upto=after, version=version, nonce=nonce, via=via)

    def _active(self, record: GameRecord, seats: Sequence[int]) -> list[int]:
        active = {s.seat for s in record.seats if s.status == "active" and not s.is_ai}  # (an AI is never pinged)
        return sorted(s for s in set(seats) if s in active)

    async def notify_turn(self, record: GameRecord, seats: Sequence[int], *,
                          reminder: bool = False, shown_upto: int | None = None, version: int | None = None,
                          nonce: str | None = None, via: discord.Interaction | None = None) -> None:
        """Ping exactly the (active) players at ``seats`` in the thread with their prompt,
        the deadline and Play ▶ / My view, and DM each of them a turn notice (unless they
        switched those off). A ping that is not a ``reminder`` carries the "since your last
        turn" digest (in the thread: public lines up to ``shown_upto``, the ones not just
        posted above; in the DM: every line that player may see) and is held back while
        the server has quiet hours. A player at the table (``Presence.present``) gets no DM
        turn notice but for a reminder. The buttons act on ``version`` (default the game's).
        With a ``nonce`` (an outbox row) the thread message is posted through
        ``Transport.post_via`` (through ``via`` where it can) and its failure raised; else a
        failure is logged. A seat whose turn came back through the computer's moves only,
        minutes after its player's own move, is left out (``answered_by_ais``: their panel
        shows the decision)."""
        seats = self._active(record, seats)
        if not seats or record.status != "active":
            return
        entries: list[LogEntry] = []
        turns: dict[int, int] = {}
        if not reminder:
            entries = await digest_entries(self.ctx.service.log, record, seats)
            turns = last_turns(record, entries)
            since, now = self.ctx.delivery.transport.started, self.ctx.clock()
            seats = [s for s in seats if not answered_by_ais(record, entries, s, turns, since=since, now=now)]
            if not seats:
                return
            quiet = await quiet_hours(self.ctx, record.guild_id)
            if quiet is not None and quiet.contains(self.ctx.clock()):
                await self.ctx.service.defer_pings(record.id, seats)
                return
        service = self.ctx.service
        engine = service.engine(record)
        state = service.state(record)
        locales = self.ctx.delivery.locales
        public = locales.public(record.guild_id)
        tx = texts(record, public)
        notation = service.notation(record)
        prompts = {s: tx(notation.public_prompt(state, s)) for s in seats}
        shared = set(prompts.values())
        prompt = shared.pop() if len(shared) == 1 else tx(Msg("host.your_move"))
        timed = record.deadline is not None and timer_shown(record)
        stamp = f"<t:{int(record.deadline)}:R>" if record.deadline and timed else ""
        when = tx(Msg("ui.notice.timer", {"when": stamp})) if timed else ""
        prefix = tx(Msg("ui.notice.reminder_prefix")) if reminder else ""
        text = f"{prefix}{mention_list(record, seats, public)} — {prompt}{when}"
        if not reminder:
            lines = digest_lines(record, entries, None, after=min(turns.get(s, 0) for s in seats), upto=shown_upto,
                                 locale=public)
            if lines:
                text += f"\n{tx(Msg('ui.notice.since'))}\n" + "\n".join(f"• {line}" for line in lines)
        version = record.version if version is None else version
        view = discord.ui.View(timeout=None)
        view.add_item(BoardButton(record.id, version, "play", locale=public))
        view.add_item(BoardButton(record.id, version, "hand", locale=public))
        users = [u for u in (record.user_of(s) for s in seats) if u]
        if nonce is None:
            await self.ctx.delivery.transport.send_text(record.home_channel_id, text, mentions=users, view=view)
        else:
            await self.ctx.delivery.transport.post_via(via, record.home_channel_id, text, mentions=users, view=view,
                                             nonce=nonce)
        for seat in seats:
            if not reminder and self.ctx.delivery.presence.present(record.user_of(seat) or 0):
                continue  # (at the table: the thread ping reaches them; no DM)
            reader = locales.of_user(record.user_of(seat) or 0, record.guild_id)
            utx = texts(record, reader)
            title = game_title(engine, record, reader)
            mine_when = utx(Msg("ui.notice.timer", {"when": stamp})) if timed else ""
            fields = {"title": title, "prompt": utx(notation.prompt(state, seat)), "when": mine_when}
            if reminder:
                note = utx(Msg("ui.notice.reminder", fields))
            else:
                note = utx(Msg("ui.notice.turn", fields))
                mine = digest_lines(record, entries, seat, after=turns.get(seat, 0), locale=reader)
                if mine:
                    note += f"\n{utx(Msg('ui.notice.since'))}\n" + "\n".join(f"• {line}" for line in mine)
            await self.ctx.delivered(self.dms.turn_notice(record, seat, note, image=not reminder))

    def end_message(self, record: GameRecord, outcome: Outcome) -> tuple[str, list[int], discord.ui.View | None]:
        """The final message: ranking with scores and the reason; the winners' user ids
        (pinged); the board's buttons and Rematch (``bot.ui.table.end_view``). The ranking
        is the host's (``bot.service.table_outcome``): seats that left (resigned) come
        last, and a line says so; seats tied on score share a place (``ranking_lines``)."""
        public = self.ctx.delivery.locales.public(record.guild_id)
        tx = texts(record, public)
        outcome = table_outcome(record, outcome)
        lines = [tx(Msg("ui.notice.over", {"title": game_title(self.ctx.service.engine(record), record, public),
                                           "reason": tx(outcome.reason)}))]
        lines += ranking_lines(outcome, lambda seat: mention_list(record, [seat], public), left_seats(record))
        left = sorted(left_seats(record))
        if left:
            lines.append(tx(Msg("table.ranked_last", {"seats": {"seats": left}})))
        winners = [u for u in (record.user_of(s) for s in outcome.winners) if u and u > 0]  # (no AI pinged)
        return "\n".join(lines), winners, end_view(record, board_view(record, locale=public), public)


class Notices:
    """Messages to the table and to one player, for ``ctx``; ``turns`` composes the pings and
    the end (the outbox's composer too)."""

    def __init__(self, ctx: HostContext, turns: TurnNotices,
                 followers: Sequence[Callable[[int], Awaitable[None]]] = ()) -> None:
        self.ctx = ctx
        self.turns = turns
        self.dms = turns.dms
        self.followers = tuple(followers)
        """Called with the game's id after each change was delivered (``after``)."""

    async def after(self, result: ActResult, *, board: bool = True, via: discord.Interaction | None = None) -> None:
        """Deliver an applied action: what the service queued with it in the outbox (public
        event lines, the board, the ping of the newly awaited, the end) goes out now, in
        order (``Outbox.flush``); then the players' DM hands are brought up to date. A
        deadline inside the server's quiet hours is first moved to their end. ``board`` is
        kept for callers that posted the board themselves (the posted board marks its rows
        done). ``via``: the interaction that made the move (the ping and the end go through it
        where they can: ``Transport.post_via``)."""
        record = await fit_deadline(self.ctx, result.game)
        if record.deadline != result.game.deadline:  # (quiet hours moved it: the board shows it)
            self.ctx.delivery.boards.request_board(record.id)
        await self.ctx.outbox.flush(record.id, via)
        await self.turns.update_hands(record.id, record)
        await self.tell_followers(record.id)

    async def ended(self, game: int) -> None:
        """An end that came without a move (a moderator's ``/game mod end``, the last person
        kicked or resigned: abandoned): the announcement queued with the change goes out,
        the board is redrawn, and the followers are told, as ``after`` does for a move."""
        await self.ctx.delivered(self.ctx.outbox.flush(game))
        self.ctx.delivery.boards.request_board(game)
        await self.tell_followers(game)

    async def tell_followers(self, game: int) -> None:
        """Bring the ``followers`` of ``game`` (e.g. spectators, bot/ui/table.py) up to date
        after a delivered change: each move (``after``), and an end that came without one
        (a moderator's ``/game mod end``, the last person kicked or resigned: abandoned)."""
        for follow in self.followers:
            await self.ctx.delivered(follow(game))

    async def seat_replaced(self, record: GameRecord, seat: int, old: int, new: int) -> None:
        """After a moderator's replace: its announcement (queued with the change, a
        ``notice`` row whose ``turn`` makes it the new player's one ping when the game waits
        for that seat: ``Outbox._deliver_notice``) goes out, the board is updated, and the
        new player gets their DM turn notice with their hand when the game waits for them
        (else, or with turn notices off, their DM hand)."""
        await self.ctx.outbox.flush(record.id)
        self.ctx.delivery.boards.request_board(record.id)
        if record.status == "active":
            _, turns = await self.ctx.service.notify_settings(new, record.id)
            if not (turns and seat in record.waiting):  # (else the turn notice carries the hand: one DM)
                await self.ctx.delivered(self.dms.update_hands(record, [new]))
            if seat in record.waiting:
                reader = self.ctx.delivery.locales.of_user(new, record.guild_id)
                note = texts(record, reader)(Msg("ui.notice.replaced_turn", {
                    "title": game_title(self.ctx.service.engine(record), record, reader),
                    "letter": seat_letter(seat)}))
                await self.ctx.delivered(self.dms.turn_notice(record, seat, note))

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
        reader = delivery.locales.private(interaction)
        tx = texts(record, reader)
        file = await delivery.transport.render_file("private", record, view, tx.locale, "private",
                                          delivery.transport.upload_limit(record.guild_id))
        text = tx(Msg("ui.notice.private", {"title": game_title(engine, record, reader), "letter": seat_letter(seat)}))
        if file is None:
            text += "\n" + tx(Msg("ui.notice.no_hand"))
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.followup.send(text, ephemeral=True, file=file)

    async def show_log(self, interaction: discord.Interaction, game: int, limit: int = 40) -> None:
        """The last ``limit`` lines of the game's log as the caller may see it
        (ephemeral, at most three messages): each event named after whoever made it, and a
        line for each moderator's act and seat changing hands (``system_line``). A seat's
        private lines are its holder's, earlier holders' included, but for the host's
        personal notes to an earlier holder (``sees``).

        Raises:
            HostError: no such game, or one of another server (``HostContext.game``).
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.ctx.game(interaction, game)
        seat = record.seat_of(interaction.user.id)
        tx = texts(record, self.ctx.delivery.locales.private(interaction))
        lines: list[str] = []
        entries = await self.ctx.service.log(record.id)
        undone = undone_seqs(entries)
        txs = entry_texts(record, entries, tx.locale)  # (a move keeps the name of whoever made it)
        held = holders(record, entries, seat) if seat is not None else {}
        for entry in entries:
            said = system_line(entry, txs[entry.seq])  # (a moderator's act, a seat changing hands)
            if said:
                lines.append(said)
            for e in entry.events:
                vis = e.get("visible_to")
                if sees(e, seat, interaction.user.id, held.get(entry.seq)):  # (a seat's private lines)
                    line = ("🔒 " if vis is not None else "") + txs[entry.seq].event(e)
                    lines.append(f"~~{line}~~" if entry.seq in undone else line)  # (taken back: struck)
        text = "\n".join(lines[-limit:]) or tx(Msg("ui.notice.log_empty"))
        title = tx(Msg("ui.notice.log_title", {"game": record.id, "n": min(limit, len(lines))}))
        chunks = split_text(f"{title}\n{text}")
        for chunk in chunks[-3:]:
            await interaction.followup.send(chunk, ephemeral=True)

    async def show_mine(self, interaction: discord.Interaction) -> None:
        """``/game mine``: the caller's lobbies and running games, those waiting on them
        first (oldest deadline first), each with a jump link to its board; ephemeral."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        user_id = interaction.user.id
        games = await self.ctx.service.games(user_id=user_id)

        def waits(g: GameRecord) -> bool:
            return g.status == "active" and g.seat_of(user_id) in g.waiting

        games.sort(key=lambda g: (not waits(g), g.deadline if waits(g) and g.deadline else float("inf"),
                                  g.updated_at))
        lines = []
        tx = Texts(None, [], self.ctx.delivery.locales.private(interaction))
        for g in games:
            name = tx(Msg(f"ui.game.{g.game_id}"))
            when = tx(Msg("ui.notice.mine_deadline", {"when": f"<t:{int(g.deadline)}:R>"})) \
                if g.deadline and timer_shown(g) else ""
            if waits(g):
                state = tx(Msg("ui.notice.mine_your_move", {"when": when}))
            elif g.status == "active":
                others = mention_list(g, g.waiting, tx.locale)
                state = tx(Msg("ui.notice.mine_waiting", {"who": others, "when": when}) if others
                           else Msg("ui.notice.mine_running"))
            else:
                state = tx(Msg("ui.notice.mine_lobby", {"n": len(g.seats)}))
            lines.append(f"[#{g.id} {name}]({board_link(g)}) — {state}")
        text = "\n".join(lines) or tx(Msg("ui.notice.mine_none"))
        for chunk in split_text(text):
            await interaction.followup.send(chunk, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    @staticmethod
    async def show_rules(interaction: discord.Interaction, game_id: str) -> None:
        """``/game rules``: the rules summary and our decisions in the reader's language
        (``rules_in``), ephemeral, split."""
        chunks = rules_messages(get_notation(game_id), reader_locale(interaction))
        first, rest = chunks[0], chunks[1:]
        if interaction.response.is_done():
            await interaction.followup.send(first, ephemeral=True)
        else:
            await interaction.response.send_message(first, ephemeral=True)
        for chunk in rest:
            await interaction.followup.send(chunk, ephemeral=True)
