"""Moves (docs/DESIGN.md §5: every action by taps, and by typing): the board's Play
button opens a private panel of the seat's legal actions (``bot/ui/panels.py``); the
panel navigates the engine's decision tree, a pick applies the action, and a typed
``/<game> play action:<notation>`` does the same from the keyboard. A panel shows the
image of the pending decision where the game draws one (E Guan's placement preview).

Every handler acknowledges within Discord's 3 seconds and raises refusals for
``bot/ui/errors.py`` to answer; once a move is committed, delivery failures are logged and
never undo it. Play ▶ and typed moves defer before loading, applying or rendering; a pick
or a step inside a panel is answered by the redrawn panel itself when it is ready within
``ANSWER_WAIT`` (one callback, type 7 UPDATE_MESSAGE), else by a deferral and an edit
(``bot/ui/answers.py`` ``update_in_place``).
"""

from __future__ import annotations

import io
import logging
from typing import Any, NoReturn

import discord
from cachetools import LRUCache

from bot.render_pool import Rendered
from bot.service import ActResult, HostError, HostNotice, InFlight, not_running, seat_names, texts
from bot.storage import GameRecord, MoveInFlight, StorageError
from bot.text import Texts
from bot.ui.answers import Edit, update_in_place
from bot.ui.context import HostContext
from bot.ui.errors import InGame
from bot.ui.limits import MESSAGE_CHARS
from bot.ui.notices import Notices, private_notes
from bot.ui.panels import Panel, build_panel, mention_list, pointing_at_picture
from bot.ui.parked import ParkedPanels
from bot.ui.table import with_undo
from bot.ui.table_items import check_own_panel
from bot.ui.transport import TOKEN_LIFETIME, TOKEN_MARGIN, TRANSIENT
from engines.base import GameError, Msg, State
from render import registry as renders

log = logging.getLogger(__name__)

PICTURES_BYTES = 8 * 1024 * 1024
"""Encoded bytes of the decision pictures kept (``Moves.decision_file``), the newest: the same
picture is wanted again at the same version, by the panel after a move and then by Play ▶ or a
parked panel redrawn for that decision (an Ora landscape's numbered places: 6 ms of a render
worker each, more than one a move in ``python -m bench.load --game ora``); some 20-80 KB each."""

NO_PICTURE_KEPT = 4096
"""(game, version, seat) of the newest panels drawn without a decision picture (``Moves.decision_file``):
drawn again at that version (Play ▶ after the panel of a move, a parked panel) they skip the seat's
view, which the game's ``draws_decision`` needs (a Heaven view lists the usable hand cards)."""

class Moves:
    """Panels, picks and typed moves; ``notices`` tells the table what a move did."""

    def __init__(self, ctx: HostContext, notices: Notices) -> None:
        self.ctx = ctx
        self.notices = notices
        # (a panel left waiting: redrawn on its turn, after the board of the move that handed it over)
        self.parked = ParkedPanels(ctx, self.redrawn, ctx.delivery.boards.board_settled)
        self.in_flight: set[int] = set()
        """The interactions whose moves are in flight in this process (``answer_lost_moves``
        leaves their rows alone: they are not lost)."""
        self._pictures: LRUCache[tuple[Any, ...], Rendered] = LRUCache(PICTURES_BYTES, getsizeof=lambda r: len(r.data))
        self._no_picture: LRUCache[tuple[int, int, int], bool] = LRUCache(NO_PICTURE_KEPT)

    def _reader(self, interaction: discord.Interaction) -> str:
        """The language of ``interaction``'s private panel (``bot/ui/locales.py``)."""
        return self.ctx.delivery.locales.private(interaction)

    async def open_panel(self, interaction: discord.Interaction, game: int) -> None:
        """Send the caller's private Play panel (an ephemeral follow-up). A press on a message
        (the board's Play ▶, a ping's, a DM's) is answered by a deferred update (type 6, no
        "thinking"), so that interaction's ``@original`` stays the message pressed: on the
        board, its token edits the board after the move (``BoardTokens.note_board_interaction``).

        Raises:
            HostError: no such game, not a player, or the game is not running.
        """
        if interaction.type == discord.InteractionType.component and interaction.message is not None:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        record, seat = await self.ctx.seated(interaction, game, kept=True)
        if record.status != "active":
            raise not_running(record)
        self.ctx.delivery.tokens.note_board_interaction(record, interaction)
        state = self.ctx.service.state(record)
        reader = self._reader(interaction)
        panel = build_panel(self.ctx.service.notation(record), record, state, seat, locale=reader)
        panel = await with_undo(self.ctx, record, interaction.user.id, panel, reader)  # (Undo is offered here too)
        await self._send_panel(interaction, record, state, seat, panel, panel.content)

    async def navigate(self, interaction: discord.Interaction, game: int, version: int, page: int,
                       path: tuple[int, ...]) -> None:
        """Prev / Next / step / Back inside a panel: redraw the panel in place at ``path``
        (the current position's root when the game moved on since ``version``).

        Raises:
            HostError: no such game, or not a player.
        """
        await update_in_place(interaction, self._navigated(interaction, game, version, page, path))

    async def _navigated(self, interaction: discord.Interaction, game: int, version: int, page: int,
                         path: tuple[int, ...]) -> tuple[None, Edit]:
        """The panel ``navigate`` draws (the database read may wait for its lock under load).

        Raises:
            HostError: no such game, or not a player.
        """
        check_own_panel(interaction)
        record, seat = await self.ctx.seated(interaction, game, kept=True)
        note = ""
        if version != record.version:
            note, page, path = Texts(None, [], self._reader(interaction))(Msg("ui.panel.moved_on")), 0, ()
        engine, state = self.ctx.service.engine(record), self.ctx.service.state(record)
        panel = build_panel(self.ctx.service.notation(record), record, state, seat, page=page, path=path, note=note,
                            locale=self._reader(interaction))
        content = panel.content
        if not note and renders.has_decision(record.game_id) and renders.draws_decision(
                record.game_id, engine.player_view(state, seat)):  # (its picture stays attached)
            content = pointing_at_picture(content, panel.prompt, self._reader(interaction), panel.view)
        return None, {"content": content[:MESSAGE_CHARS], "view": panel.view}

    async def choose(self, interaction: discord.Interaction, game: int, version: int, index: int) -> None:
        """Legal action ``index`` picked in a panel of ``version``: apply it, then tell the
        table and show the seat's next decision in the panel.

        Raises:
            HostError: not a player, the game over or paused (``not_running``), a stale
                panel, or the choice is gone.
            GameError: the engine's refusal.
        """
        inflight = InFlight(interaction.id)
        try:
            result, seat, note = await update_in_place(interaction, self._picked(interaction, game, version, index,
                                                                                 inflight),
                                                       lambda: self._acknowledged(interaction, game, inflight))
        finally:
            await self._settled(inflight)
            self.in_flight.discard(inflight.interaction_id)
        await self.ctx.delivered(self.notices.after(result, via=interaction))  # (first: the board is due within
        # 0.4 s at p95 under load, bench/load.py BOARD_P95; the parked panel waits for the next move anyway)
        if result.game.status == "active":
            await self.ctx.delivered(self.parked.park(result.game, seat, interaction.user.id, self._reader(interaction),
                                                      interaction.edit_original_response, note))

    async def _picked(self, interaction: discord.Interaction, game: int, version: int, index: int,
                      inflight: InFlight | None = None) -> tuple[tuple[ActResult, int, str], Edit]:
        """Apply the pick of ``choose``: the result, the seat, the panel's note and the edit
        of the panel after the move (once the move is committed, a failure to draw it is
        logged and the panel shows the note alone: the move stands).

        Raises:
            HostError, GameError: as ``choose``.
        """
        check_own_panel(interaction)
        service = self.ctx.service
        record, seat = await self.ctx.seated(interaction, game, kept=True)  # (the game as stored: a stale
        # panel is judged on it as on a fresh read)
        if record.status != "active" or record.paused:  # (over or paused: say so, not "moved on")
            raise not_running(record)
        if record.version != version and not await service.same_choice_since(record, seat, version):
            # (only other players acted since, e.g. simultaneous picks: the index means the same)
            await self._refuse_stale(interaction, record, seat, version)
        engine = service.engine(record)
        state = service.state(record)
        actions = engine.legal_actions(state, seat)
        if not 0 <= index < len(actions):
            raise HostError(Msg("ui.error.choice_gone"), "stale")
        action = actions[index]
        label = texts(record, self._reader(interaction))(service.notation(record).action_label(state, action))
        try:
            result = await service.act(game, interaction.user.id, action, expected_version=version, record=record,
                                       inflight=inflight)
        except GameError as exc:
            raise InGame(exc, record.game_id) from exc
        except HostError as exc:
            if exc.code == "stale":  # (a move came in between, e.g. this very pick pressed twice: a panel, not the board)
                await self._refuse_stale(interaction, await service.get(game, kept=True), seat, version)
            raise
        if result.board_due:  # (now, not after the panel is drawn and answered: drawn once, bot/ui/boards.py)
            self.ctx.delivery.boards.request_board(game, result.game.version)
        note = f"✓ {label}" + private_notes(result, seat, self._reader(interaction))
        try:
            edit = await self.panel_after(interaction, result, seat, note)
        except Exception:
            log.exception("drawing the panel after a move of game %s failed", game)
            edit = {"content": note[:MESSAGE_CHARS], "view": None}
        return (result, seat, note), edit

    async def _refuse_stale(self, interaction: discord.Interaction, record: GameRecord, seat: int,
                            version: int) -> NoReturn:
        """Refuse a pick on a panel of ``version``, which the game has left: when the caller
        made their choice since (another panel of theirs, a double press) and the game now
        waits for others only, say that their choice is in and whom the game waits for, as
        their parked panel does; else that the board has moved on (press Play ▶ again).

        Raises:
            HostNotice: the choice is in; HostError: the panel is stale.
        """
        waiting = self.ctx.service.waiting(record)
        if waiting and seat not in waiting and any(
                e.kind == "player" and e.seat == seat and e.user_id == interaction.user.id
                for e in await self.ctx.service.log(record.id, after=version)):
            tx = Texts(None, [], self._reader(interaction))
            raise HostNotice(tx(Msg("ui.panel.choice_in")) + tx(Msg("ui.panel.waiting", {
                "who": mention_list(record, sorted(waiting), tx.locale)})), "choice_in")
        raise HostError(Msg("ui.error.panel_stale"), "stale")

    async def act_text(self, interaction: discord.Interaction, game: GameRecord | None, game_id: str,
                       text: str) -> None:
        """``/<game> play action:<notation>`` for keyboard users: apply the move, tell the
        table, confirm privately with the seat's next decision.

        Raises:
            HostError: no game found, not a player, the game is not running.
            GameError: the engine's refusal (a notation it cannot parse, an illegal move).
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.ctx.resolve_game(interaction, game, game_id, playing=True)
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            raise await self.ctx.not_seated(record, interaction.user.id)  # (no longer: says so)
        outbox = self.ctx.outbox
        ticket = outbox.answer_ticket(interaction, text)  # queued with the move: answered even after a crash
        inflight = InFlight(interaction.id)  # (and before its commit: answered after a restart)
        try:
            await self._acknowledged(interaction, record.id, inflight)
            result = await self.ctx.service.act(record.id, interaction.user.id, text, answer=ticket, record=record,
                                                inflight=inflight)
        except GameError as exc:
            outbox.release(ticket)
            await self._settled(inflight)
            raise InGame(exc, record.game_id, text) from exc
        except BaseException:
            outbox.release(ticket)
            await self._settled(inflight)
            raise
        finally:
            self.in_flight.discard(inflight.interaction_id)
        await self.ctx.delivered(self.notices.after(result))
        await outbox.answered(record.id, ticket, self._confirm_text(interaction, result, seat, text))

    async def _acknowledged(self, interaction: discord.Interaction, game: int, inflight: InFlight) -> None:
        """Remember the move of ``interaction`` in flight (``InFlight``), just acknowledged: a
        crash before its commit leaves the row for ``answer_lost_moves``. A storage fault
        here is logged: the move goes on without it."""
        move = MoveInFlight(interaction.id, int(interaction.application_id), interaction.token, interaction.user.id,
                            game, interaction.guild_id, self._reader(interaction),
                            interaction.created_at.timestamp())
        self.in_flight.add(interaction.id)
        try:
            await inflight.record(lambda: self.ctx.service.move_in_flight(move))
        except StorageError as exc:
            log.warning("move in flight of game %s not remembered: %s", game, exc)

    async def _settled(self, inflight: InFlight) -> None:
        """Forget the move in flight of ``inflight`` when no commit took it away (the move was
        refused: its answer follows now). A storage fault is logged (a restart would then
        offer the panel again)."""
        if inflight.unsettled:
            try:
                await self.ctx.service.settle_in_flight([inflight.interaction_id])
            except StorageError as exc:
                log.warning("move in flight %s not forgotten: %s", inflight.interaction_id, exc)

    async def answer_lost_moves(self) -> None:
        """After a restart: answer each move in flight the crash lost (``InFlight``) through its
        interaction's ``@original``, in the player's language: the move was not saved, and the
        seat's panel again (as the game stands now). Rows whose token is too old to answer
        are only forgotten; a row is forgotten once answered, or once Discord refused its
        token (a transient failure leaves it for the next start)."""
        service = self.ctx.service
        moves = [m for m in await service.moves_in_flight() if m.interaction_id not in self.in_flight]
        now = service.clock()
        old = [m.interaction_id for m in moves if now - m.created_at >= TOKEN_LIFETIME - TOKEN_MARGIN]
        await service.settle_in_flight(old)
        for move in moves:
            if move.interaction_id in old:
                continue
            edit = await self._lost_move_answer(move)
            try:
                if not await self.ctx.delivery.transport.edit_original(move.application_id, move.token, **edit):
                    log.info("the lost move of game %s: the interaction is gone", move.game)
            except (discord.HTTPException, *TRANSIENT) as exc:
                log.warning("the lost move of game %s was not answered yet (%s)", move.game, exc)
                continue
            await service.settle_in_flight([move.interaction_id])

    async def _lost_move_answer(self, move: MoveInFlight) -> Edit:
        """The edit answering ``move`` (``answer_lost_moves``): "not saved" above the seat's
        panel as the game stands, with its decision image where the game draws one; the
        sentence alone when the game is gone or over, the player no longer seated, or the
        panel cannot be drawn (logged)."""
        said = Texts(None, [], move.locale)(Msg("ui.panel.not_saved"))
        alone: Edit = {"content": said, "view": None}
        try:
            record = await self.ctx.service.get(move.game)
        except HostError:
            return alone
        seat = record.seat_of(move.user_id)
        if seat is None or record.status != "active":
            return alone
        try:
            return await self.redrawn(record, seat, move.locale, move.user_id, said, moved_on=False)
        except Exception:
            log.exception("the panel answering a lost move of game %s failed", move.game)
            return alone

    async def _confirm_text(self, interaction: discord.Interaction, result: ActResult, seat: int,
                            text: str) -> None:
        """Confirm a typed move privately, in the words of its button (the typed notation
        when the engine gave no label), and show the seat's next decision."""
        reader = self._reader(interaction)
        said = texts(result.game, reader)(result.typed_label) if result.typed_label is not None else text.strip()
        note = f"✓ {said}" + private_notes(result, seat, reader)
        record = result.game
        if record.status != "active":
            await interaction.followup.send(note[:MESSAGE_CHARS], ephemeral=True)
            return
        state = self.ctx.service.state(record)
        panel = build_panel(self.ctx.service.notation(record), record, state, seat, note=note, locale=reader)
        panel = await with_undo(self.ctx, record, interaction.user.id, panel, reader)
        await self._send_panel(interaction, record, state, seat, panel, panel.content[:MESSAGE_CHARS], note)

    async def _send_panel(self, interaction: discord.Interaction, record: GameRecord, state: State, seat: int,
                          panel: Panel, content: str, note: str = "") -> None:
        """Send ``panel`` (its ``note`` above the prompt) as a new private follow-up, with the
        decision image if any; parked while it waits for others (``bot/ui/parked.py``)."""
        kwargs: dict[str, Any] = {"ephemeral": True}
        if panel.view is not None:
            kwargs["view"] = panel.view
        file = await self.decision_file(record, state, seat, self._reader(interaction))
        if file is not None:
            kwargs["file"] = file
            content = pointing_at_picture(content, panel.prompt, self._reader(interaction), panel.view)[:MESSAGE_CHARS]
        message = await interaction.followup.send(content, wait=True, **kwargs)
        await self.parked.park(record, seat, interaction.user.id, self._reader(interaction), message.edit, note)

    async def panel_after(self, interaction: discord.Interaction, result: ActResult, seat: int, note: str) -> Edit:
        """The edit of the panel after ``result``: ``note`` (the move and its private lines)
        above the seat's next decision, if any (its decision image replaced, or a stale one
        dropped); once the game is over, ``note`` and "The game is over." with nothing to press."""
        record = result.game
        reader = self._reader(interaction)
        extra: dict[str, Any] = {}
        file = None
        if renders.has_decision(record.game_id):
            if record.status == "active":
                file = await self.decision_file(record, self.ctx.service.state(record), seat, reader)
            extra["attachments"] = [file] if file is not None else []
        if record.status != "active":
            over = Texts(None, [], reader)(Msg("ui.panel.over"))
            return {"content": f"{note}\n{over}", "view": None, **extra}
        panel = build_panel(self.ctx.service.notation(record), record, self.ctx.service.state(record), seat,
                            note=note, locale=reader)
        panel = await with_undo(self.ctx, record, interaction.user.id, panel, reader)
        content = panel.content if file is None else pointing_at_picture(panel.content, panel.prompt, reader, panel.view)
        return {"content": content[:MESSAGE_CHARS], "view": panel.view, **extra}

    async def redrawn(self, record: GameRecord, seat: int, reader: str, user_id: int, note: str, *,
                      moved_on: bool = True) -> dict[str, Any]:
        """The edit of a panel drawn again from ``record`` for ``seat``: a parked panel
        (``bot/ui/parked.py``) now that the game awaits the seat, the answer to a lost move, the
        panel after an undo (``Table.undo``). Its ``note`` and the "moved on" line (unless not
        ``moved_on``) above its decision, and the decision's image where the game draws one (an
        edit naming no attachments would keep the old one); once the game is over, its ``note``
        and "The game is over." with nothing to press (and no image)."""
        if record.status != "active":
            over = Texts(None, [], reader)(Msg("ui.panel.over"))
            cleared: dict[str, Any] = {"attachments": []} if renders.has_decision(record.game_id) else {}
            return {"content": "\n".join(filter(None, [note, over]))[:MESSAGE_CHARS], "view": None, **cleared}
        state = self.ctx.service.state(record)
        if moved_on:
            note = "\n".join(filter(None, [note, Texts(None, [], reader)(Msg("ui.panel.moved_on"))]))
        panel = build_panel(self.ctx.service.notation(record), record, state, seat, note=note, locale=reader)
        panel = await with_undo(self.ctx, record, user_id, panel, reader)
        extra: dict[str, Any] = {}
        content = panel.content
        if renders.has_decision(record.game_id):
            file = await self.decision_file(record, state, seat, reader)
            extra["attachments"] = [file] if file is not None else []
            if file is not None:
                content = pointing_at_picture(content, panel.prompt, reader, panel.view)
        return {"content": content[:MESSAGE_CHARS], "view": panel.view, **extra}

    async def decision_file(self, record: GameRecord, state: State, seat: int,
                            locale: str = "en") -> discord.File | None:
        """The image of ``seat``'s pending decision for its private panel (e.g. E Guan's
        placement preview), rendered in a render worker (ahead of the boards) and fitted under the guild's
        upload limit; None when the game draws none for this decision, or its drawing
        failed (logged: the panel itself matters more than its picture). Drawn once per
        version, seat, language and names (``PICTURES_BYTES``); a version and seat without
        one is known so after its first panel (``NO_PICTURE_KEPT``)."""
        if not renders.has_decision(record.game_id) or (record.id, record.version, seat) in self._no_picture:
            return None
        transport = self.ctx.delivery.transport
        try:
            reader, limit = texts(record, locale).locale, transport.upload_limit(record.guild_id)
            # (a version is one state for good: every change, an undo too, makes a new one)
            key = (record.id, record.version, seat, reader, limit, tuple(seat_names(record, reader)))
            done = self._pictures.get(key)
            if done is None:
                view = self.ctx.service.engine(record).player_view(state, seat)
                if not renders.draws_decision(record.game_id, view):
                    self._no_picture[(record.id, record.version, seat)] = True
                    return None
                done = await transport.render("decision", record, view, reader, limit)
                if done is None:
                    return None
                if len(done.data) <= PICTURES_BYTES // 16:  # (a picture of a megabyte is not kept)
                    self._pictures[key] = done
        except Exception:
            log.exception("decision image of game %s failed", record.id)
            return None
        return discord.File(io.BytesIO(done.data), filename=f"preview.{done.ext}")
