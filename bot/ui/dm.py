"""Hidden hands in DMs and DM turn notices (docs/DESIGN.md §5 "Hidden information").

A player who is away (``Presence.present``) gets **one DM per turn**: the **DM turn notice**
(a new message, so the phone rings) carries the prompt, the deadline, the "since your last
turn" digest redacted for that player, a small image of the board (drawn in the reader's
language, as the whole DM is) and, in a game with hidden
information, their private view (``Engine.player_view(state, seat)`` drawn by
``render_private``) "as of" that moment, with **Play ▶** and **My view** buttons
(``bot.ui.components.DmButton``, acting on that game from the DM with the panel's usual
version checks), the "🔍 Look at…" select of their own view where the game has one
(bot/ui/looks.py), and a link to the game's thread. Older notices are left as they are (a
delete or a strike-through would cost a bot-token request each turn).
Hand changes between their turns wait for the next notice; **My view** and ``/game hand``
always show the current hand.

A player who keeps hands on but turns off gets **one DM hand message** per game instead,
edited in place when the hidden part of their view changes; ``/game notify`` also sends
a player with turn notices on a snapshot of their hand.

``/game notify`` switches hands and turn notices separately, per game or for all (default
on). A refused DM (Discord 50007) pauses every DM to that player until they run
``/game notify`` again; each game's thread says so once, mentioning them. Nothing is retried
each turn, and a failed DM never touches the game.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord
from cachetools import LRUCache

from bot.locks import KeyedLocks
from bot.render_pool import RenderJob
from bot.service import drawn_view, texts
from bot.storage import GameRecord
from bot.ui.components import DmButton, button_label
from bot.ui.context import Parts
from bot.ui.limits import DEFAULT_UPLOAD, MESSAGE_CHARS, clip
from bot.ui.look_menu import look_select
from bot.ui.panels import game_title
from engines.base import Msg, seat_letter
from render import registry as renders

log = logging.getLogger(__name__)

DM_CLOSED = 50007
"""Discord's "Cannot send messages to this user": DMs closed, or the bot blocked."""

_MISSING = object()


def jump_url(record: GameRecord) -> str:
    """The link to the game's thread (or channel): ``https://discord.com/channels/{guild}/{thread}``."""
    return f"https://discord.com/channels/{record.guild_id or '@me'}/{record.home_channel_id}"


def hidden_part(private: Any, public: Any = _MISSING) -> Any:
    """What a private view shows beyond the public one: dicts and equally long lists are
    compared item by item, equal items dropped (None when nothing is hidden). Two private
    views with the same hidden part show the player the same secrets."""
    if isinstance(private, dict) and isinstance(public, dict):
        out = {k: hidden_part(v, public.get(k, _MISSING)) for k, v in private.items()
               if public.get(k, _MISSING) != v}
        return out or None
    if isinstance(private, list) and isinstance(public, list) and len(private) == len(public):
        items = [hidden_part(a, b) for a, b in zip(private, public, strict=True)]
        return items if any(i is not None for i in items) else None
    return None if private == public else private


def fingerprint(value: Any) -> str:
    """A short stable digest of a JSON value (what a DM hand message shows)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]


def dm_view(record: GameRecord, locale: str = "en", look: discord.ui.Item[Any] | None = None) -> discord.ui.View:
    """Play ▶ and My view for ``record`` (working from the DM) and a link to its thread,
    labelled in ``locale``; on a row of its own the "🔍 Look at…" select ``look`` when given
    (``dm_look``)."""
    view = discord.ui.View(timeout=None)
    if record.status == "active":
        view.add_item(DmButton(record.id, "play", locale))
    view.add_item(DmButton(record.id, "hand", locale))
    view.add_item(discord.ui.Button(label=button_label("go_to_game", locale), url=jump_url(record)))
    if look is not None:
        view.add_item(look)
    return view


def dm_look(record: GameRecord, view: dict[str, Any], locale: str) -> discord.ui.Item[Any] | None:
    """The "🔍 Look at…" select of a DM turn notice (bot/ui/looks.py): the regions of the
    player's own ``view``, in the reader's ``locale`` (a DM is private); None when the game has
    none."""
    if not renders.has_zoom(record.game_id):
        return None
    return look_select(record.id, renders.zoom_regions(record.game_id, view), texts(record, locale))


def refused(exc: discord.HTTPException) -> bool:
    """True when Discord refused a DM because the player's DMs are closed (50007)."""
    return getattr(exc, "code", None) == DM_CLOSED


HANDS_REMEMBERED = 4096
"""How many (game, player) hand versions ``DirectMessages`` remembers."""


class DirectMessages:
    """DM hand messages and DM turn notices for ``ctx`` (see the module docstring)."""

    def __init__(self, ctx: Parts) -> None:
        self.ctx = ctx
        self._locks: KeyedLocks[tuple[int, int]] = KeyedLocks()
        self._hand_versions: LRUCache[tuple[int, int], int] = LRUCache(HANDS_REMEMBERED)
        """(game, user) → the newest game version a hand of that player was checked at: an
        older record (a delivery that was overtaken by a later move's) changes no hand."""

    def upload_limit(self, record: GameRecord) -> int:
        """Bytes a DM attachment may have: Discord's default, or less when the game's server
        is known to allow less (never more: a server's boost does not reach DMs)."""
        return min(DEFAULT_UPLOAD, self.ctx.delivery.transport.upload_limit(record.guild_id))

    # ------------------------------------------------------------------ sending
    async def _send(self, record: GameRecord, user_id: int,
                    send: Callable[[discord.abc.Messageable], Awaitable[discord.Message]]) -> discord.Message | None:
        """Send one DM to ``user_id`` through ``send(channel)``, unless their DMs are paused.
        A refusal (50007) pauses them and is said once in the game's thread; any other
        failure is logged. Returns the message, or None."""
        if await self.ctx.service.dm_block(user_id) is not None:
            await self.tell_blocked(record, user_id)
            return None
        try:
            return await send(await self.ctx.delivery.transport.dm_channel(user_id))
        except discord.HTTPException as exc:
            if refused(exc):
                log.info("DMs to %s are closed; paused until /game notify", user_id)
                await self.ctx.service.block_dms(user_id)
                await self.tell_blocked(record, user_id)
            else:
                log.warning("DM to %s not delivered (%s); the game goes on", user_id, exc)
            return None

    async def tell_blocked(self, record: GameRecord, user_id: int) -> None:
        """Say once per game, in its thread and mentioning the player, that their DMs are
        refused (they can still use My view; ``/game notify`` tries again)."""
        told = await self.ctx.service.dm_block(user_id)
        if told is None or record.id in told:
            return
        await self.ctx.service.block_dms(user_id, [*told, record.id])
        text = self.ctx.delivery.locales.public_texts(record)(Msg("ui.dm.closed", {"user": user_id}))
        await self.ctx.delivery.transport.send_text(record.home_channel_id, text, mentions=[user_id])

    async def _forget(self, stored: tuple[int, int, str | None] | None) -> None:
        """Delete a DM this bot sent earlier (best effort: it may be gone already)."""
        if stored is None:
            return
        try:
            await self.ctx.delivery.transport.channel(stored[0]).get_partial_message(stored[1]).delete()
        except discord.HTTPException as exc:
            log.info("old DM %s not deleted (%s)", stored[1], exc)

    # ------------------------------------------------------------------ hands
    async def update_hands(self, record: GameRecord, users: Sequence[int] | None = None, *,
                           force: bool = False) -> None:
        """Bring the DM hand message of every active player of ``record`` (or of ``users``)
        up to date: edited in place when the hidden part of their view changed (``force``:
        always), posted when there is none or it can no longer be edited. Players with DM
        hands off, paused DMs, or a game without a private view are left out, and (``users``
        None, i.e. after a change) players at the table (``Presence.present``) and players
        with turn notices on: their hand comes with their next turn notice (``turn_notice``;
        one DM per turn)."""
        service = self.ctx.service
        engine = service.engine(record)
        if not engine.info.has_hidden_info or record.state is None or record.status != "active":
            return
        state = service.state(record)
        public = service.public_view(record)
        for seat in record.seats:
            if seat.status != "active" or seat.is_bot or (users is not None and seat.user_id not in users):
                continue
            if users is None and self.ctx.delivery.presence.present(seat.user_id):
                continue  # (at the table: My view shows the hand; the DM catches up once they are away)
            async with self._locks[record.id, seat.user_id]:
                if record.version < self._hand_versions.get((record.id, seat.user_id), -1):
                    continue
                self._hand_versions[record.id, seat.user_id] = record.version
                hands, turns = await self.ctx.service.notify_settings(seat.user_id, record.id)
                if not hands or (turns and users is None) or await self.ctx.service.dm_block(seat.user_id) is not None:
                    continue
                view = engine.player_view(state, seat.seat)
                shown = fingerprint(hidden_part(view, public))
                stored = await self.ctx.service.dm_message(record.id, seat.user_id, "hand")
                if stored is not None and stored[2] == shown and not force:
                    continue
                await self._post_hand(record, seat.seat, seat.user_id, view, shown, stored, live=not turns)

    async def _post_hand(self, record: GameRecord, seat: int, user_id: int, view: dict[str, Any], shown: str,
                         stored: tuple[int, int, str | None] | None, *, live: bool = True) -> bool:
        """Post or edit the DM hand message; ``live``: it is kept up to date (turn notices
        off), else it says it is a snapshot (turn notices bring the hand anew)."""
        reader = self.ctx.delivery.locales.of_user(user_id, record.guild_id)
        tx = texts(record, reader)
        file = await self.ctx.delivery.transport.render_file("private", record, view, tx.locale, "hand", self.upload_limit(record))
        if file is None:  # the game draws no private view
            return False
        engine = self.ctx.service.engine(record)
        content = tx(Msg("ui.dm.hand" if live else "ops.dm_hand_snapshot",
                         {"title": game_title(engine, record, reader), "letter": seat_letter(seat),
                          "when": f"<t:{int(self.ctx.clock())}:R>"}))
        buttons = dm_view(record, reader)
        if stored is not None:
            message = self.ctx.delivery.transport.channel(stored[0]).get_partial_message(stored[1])
            try:
                await message.edit(content=content, attachments=[file], view=buttons)
                await self.ctx.service.set_dm_message(record.id, user_id, "hand", stored[0], stored[1], shown)
                return True
            except discord.HTTPException as exc:
                if refused(exc):
                    await self.ctx.service.block_dms(user_id)
                    await self.tell_blocked(record, user_id)
                    return False
                log.info("DM hand of game %s cannot be edited (%s); sending a fresh one", record.id, exc)
                file.reset()
        sent = await self._send(record, user_id,
                                lambda ch: ch.send(content, file=file, view=buttons, silent=True))
        if sent is None:
            return False
        await self.ctx.service.set_dm_message(record.id, user_id, "hand", sent.channel.id, sent.id, shown)
        await self._forget(stored)
        return True

    # ------------------------------------------------------------------ turn notices
    async def turn_notice(self, record: GameRecord, seat: int, text: str, *, image: bool = True) -> None:
        """DM the player at ``seat`` a turn notice ``text`` and Play ▶ / My view / the thread
        link, in one message (one bot-token request). Unless ``image`` is
        False it carries a small board image and, in a game with hidden information and with
        DM hands on, the player's private view as of now (a line after the first says so).
        The previous turn notice is left as it is. Nothing when the player switched turn
        notices off or their DMs are paused."""
        user_id = record.user_of(seat)
        if user_id is None:
            return
        hands, turns = await self.ctx.service.notify_settings(user_id, record.id)
        if not turns or await self.ctx.service.dm_block(user_id) is not None:
            if turns:
                await self.tell_blocked(record, user_id)
            return
        reader = self.ctx.delivery.locales.of_user(user_id, record.guild_id)
        thumb = await self.board_thumbnail(record, reader) if image else None
        hand = await self.hand_file(record, seat, reader) if image and hands else None
        if hand is not None:
            first, _, rest = text.partition("\n")
            line = texts(record, reader)(Msg("ops.dm_hand_as_of", {"when": f"<t:{int(self.ctx.clock())}:R>"}))
            text = "\n".join(part for part in (first, line, rest) if part)
        look = None
        if record.state is not None and renders.has_zoom(record.game_id):
            service = self.ctx.service
            look = dm_look(record, service.engine(record).player_view(service.state(record), seat), reader)
        buttons = dm_view(record, reader, look)

        async def send(channel: discord.abc.Messageable) -> discord.Message:
            files = [] if thumb is None else [discord.File(io.BytesIO(thumb[0]), filename=f"board.{thumb[1]}")]
            if hand is not None:
                hand.reset()  # (a send tried again re-reads it)
                files.append(hand)
            if not files:
                return await channel.send(clip(text, MESSAGE_CHARS), view=buttons)
            return await channel.send(clip(text, MESSAGE_CHARS), view=buttons, files=files)

        sent = await self._send(record, user_id, send)
        if sent is None:
            return
        await self.ctx.service.set_dm_message(record.id, user_id, "turn", sent.channel.id, sent.id)

    async def hand_file(self, record: GameRecord, seat: int, locale: str) -> discord.File | None:
        """The private view of ``seat`` now, drawn for a DM (``hand.png``/``.jpg``, in the
        render workers) when ``record``'s game has hidden information; None when it has
        none, draws none, or drawing failed (logged: the notice goes without it)."""
        service = self.ctx.service
        engine = service.engine(record)
        if not engine.info.has_hidden_info or record.state is None:
            return None
        view = engine.player_view(service.state(record), seat)
        try:
            return await self.ctx.delivery.transport.render_file("private", record, view, texts(record, locale).locale, "hand",
                                                       self.upload_limit(record))
        except Exception:
            log.exception("DM hand of game %s failed", record.id)
            return None

    async def board_thumbnail(self, record: GameRecord, locale: str) -> tuple[bytes, str] | None:
        """The public board of ``record`` at its version, small (bot/render_pool.py ``small``),
        drawn in ``locale`` (a DM is private: its reader's language) and encoded (PNG or JPEG
        bytes and the extension): the copy drawn in that language at this version when there is
        one (the board update's, in the server's language, or a notice's before), else drawn
        here and kept for the next reader of that language. None when drawing fails (logged;
        the notice goes without it)."""
        delivery = self.ctx.delivery
        await delivery.boards.board_settled(record.id)
        tx = texts(record, locale)
        cached = delivery.boards.board_thumbnails.get((record.id, tx.locale))
        limit = self.upload_limit(record)
        if cached is not None and cached[0] == record.version and len(cached[1][0]) <= limit:
            return cached[1]
        public = drawn_view(record, self.ctx.service.public_view(record))
        job = RenderJob("thumbnail", record.game_id, public, tuple(tx.raw_names), tx.locale, limit)
        try:
            done = await delivery.transport.renderer.run(job)
        except Exception:
            log.exception("board thumbnail of game %s failed", record.id)
            return None
        if done is None:
            return None
        delivery.boards.board_thumbnails[record.id, tx.locale] = (record.version, (done.data, done.ext))
        return done.data, done.ext

    # ------------------------------------------------------------------ /game notify
    async def configure(self, interaction: discord.Interaction, *, both: bool | None, hands: bool | None,
                        turns: bool | None, game: GameRecord | None) -> None:
        """``/game notify``: store the caller's DM settings (``both`` sets hands and turn
        notices together; None leaves a setting as it is), for ``game`` or every game; DMs
        paused after a refusal are tried again. Answers privately with the settings, then
        brings the caller's DM hands up to date."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        user_id = interaction.user.id
        hands = both if hands is None else hands
        turns = both if turns is None else turns
        scope = game.id if game is not None else 0
        if hands is not None or turns is not None:
            await self.ctx.service.set_notify(user_id, scope, hands=hands, turns=turns)
        resumed = await self.ctx.service.clear_dm_block(user_id)
        now_hands, now_turns = await self.ctx.service.notify_settings(user_id, scope)
        tx = self.ctx.delivery.locales.host(self.ctx.delivery.locales.private(interaction))
        where = tx(Msg("ui.dm.where_game", {"game": game.id}) if game is not None else Msg("ui.dm.where_all"))
        lines = [tx(Msg("ui.dm.settings", {"where": where, "hands": {"msg": f"ui.dm.{'on' if now_hands else 'off'}"},
                                           "turns": {"msg": f"ui.dm.{'on' if now_turns else 'off'}"}}))]
        if resumed:
            lines.append(tx(Msg("ui.dm.resumed")))
        await interaction.followup.send("\n".join(lines), ephemeral=True)
        games = [game] if game is not None else await self.ctx.service.games(status=("active",), user_id=user_id)
        for record in games:
            fresh = await self.ctx.service.get(record.id)
            await self.ctx.delivered(self._refresh(fresh, user_id, force=resumed))

    async def _refresh(self, record: GameRecord, user_id: int, *, force: bool) -> None:
        await self.update_hands(record, [user_id], force=force)
