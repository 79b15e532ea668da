"""Panels left waiting: a player's open private panel that says "Waiting for …" after their
move is redrawn when the game comes back to them (an AI's move, a timeout, another player's
move), so it never shows someone else's turn while the board waits for its reader.

``Moves`` parks a panel (``ParkedPanels.park``) when its seat is not awaited after the
panel was drawn; every committed change (``GameService.listeners``) looks at the game's
parked panels and redraws those whose seat is now awaited, or whose "Waiting for …" left
out a seat now awaited (``ParkedPanels.refresh``). A
panel is an interaction's message, editable for Discord's 15 minutes only: it is forgotten
after ``PARK_SECONDS`` or when its seat changed hands; when the game is over it is redrawn
once, saying so with nothing to press, and forgotten. A player's new panel replaces the parked one of their seat.

A redrawn panel shows the state as it is now only: its note (the move it confirmed and its
private lines, e.g. "🔒 You picked Gluttony …") is dropped when an undo since took back a
move the note may tell of (else after ``/game undo`` the old panel would say
"You picked Gluttony" above "Choose your sin").

The board goes first: a refresh waits for the game's board update under way (``board``,
``Boards.board_settled``) before it draws and edits any panel, so the panels a move hands over
(in Heaven up to five other seats, when a round of simultaneous picks ends) do not compete
with the board edit that move is waiting for.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from bot.locks import KeyedLocks
from bot.service import UNDO
from bot.storage import GameRecord
from bot.ui.context import HostContext

log = logging.getLogger(__name__)

GAMES_REMEMBERED = 4096
"""How many games' last committed versions ``ParkedPanels`` remembers (``changed``)."""

PARK_SECONDS = 14 * 60
"""How long a parked panel may be redrawn (an interaction token lasts 15 minutes)."""

Editor = Callable[..., Awaitable[Any]]
"""Edits a panel's message: ``edit(content=…, view=…, attachments=…)``."""

Settled = Callable[[int], Awaitable[None]]
"""``settled(game)``: returns once the board update of ``game`` under way, if any, is done."""

Drawer = Callable[[GameRecord, int, str, int, str], Awaitable[dict[str, Any]]]
"""``draw(record, seat, reader, user_id, note)``: the keyword arguments of the panel's edit
(``note``: the lines it showed above its prompt, e.g. "✓ End turn")."""


@dataclass(frozen=True)
class Parked:
    """A panel of ``user_id`` in language ``reader`` showing ``note`` above its prompt,
    editable with ``edit`` until ``until`` (unix seconds), saying the game waits for the
    seats ``waiting``, drawn from the game at ``version``."""

    user_id: int
    reader: str
    edit: Editor
    until: float
    note: str = ""
    waiting: frozenset[int] = frozenset()
    version: int = 0


class ParkedPanels:
    """The panels waiting for their seat's turn, by (game id, seat); a refresh redraws them
    after the game's board (``board``: ``Boards.board_settled``; None: at once)."""

    def __init__(self, ctx: HostContext, draw: Drawer, board: Settled | None = None) -> None:
        self.ctx = ctx
        self.draw = draw
        self.board = board
        self.panels: dict[tuple[int, int], Parked] = {}
        self._refreshing: KeyedLocks[int] = KeyedLocks()  # (one refresh of a game at a time)
        self._versions: LRUCache[int, int | None] = LRUCache(GAMES_REMEMBERED)
        """game → the version its last change committed (``GameService.changing``), None when
        that change did not hand the game over: ``park`` looks at it instead of reading."""
        self._committed: dict[int, GameRecord | None] = {}
        """game with parked panels → the game as its last change committed it (None: not
        handed over): ``refresh`` draws from it instead of reading the game again."""
        ctx.service.listeners.append(self.changed)

    async def park(self, record: GameRecord, seat: int, user_id: int, reader: str, edit: Editor,
                   note: str = "") -> None:
        """Remember ``seat``'s panel, drawn from ``record``, when that running game does not
        await the seat there (else forget its panel: the one drawn now offers the decision);
        redrawn at once when the game moved on since ``record`` (an AI quicker than the panel)."""
        key = (record.id, seat)
        waiting = self.ctx.service.waiting(record)
        if record.status == "active" and seat not in waiting:
            self.panels[key] = Parked(user_id, reader, edit, self.ctx.clock() + PARK_SECONDS, note, frozenset(waiting),
                                      record.version)
            if self._versions.get(record.id) == record.version:
                return  # (the game's last change is the one this panel was drawn from)
            now = await self.ctx.service.get(record.id)
            if now.version != record.version:
                await self.refresh(record.id, now)
        else:
            self.panels.pop(key, None)
            self._forget_record(record.id)

    def changed(self, game: int) -> None:
        """``game`` changed (a service listener): redraw its parked panels (never blocks)."""
        committed = self.ctx.service.changing(game)
        self._versions[game] = committed.version if committed is not None else None
        if not any(key[0] == game for key in self.panels):
            self._committed.pop(game, None)
            return
        self._committed[game] = committed
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # (no loop: a synchronous caller)
            return
        self.ctx.spawn(self.refresh(game), name=f"panels-{game}")

    async def refresh(self, game: int, record: GameRecord | None = None) -> None:
        """Redraw the parked panels of ``game`` whose seat it awaits now, and forget them;
        redraw (and keep) those whose "Waiting for …" no longer names everyone it awaits
        (the turn moved on to others: it would say "Waiting for Bot · Easy" after
        the AI had moved; a seat that moved meanwhile is not a reason to redraw); redraw and
        forget those of a game that is over (it would say "Waiting for Bot · Normal"
        under a board saying Game over); forget those expired or of a seat that changed hands. A failed
        edit is logged (the board's Play ▶ still opens a panel).

        The refreshes of one game run one after the other, each reading the game when its
        turn comes (a load bench had two in flight: the later one forgot a panel the earlier
        one was about to read, KeyError, and an earlier record could redraw over a later one).
        The game is ``record`` when the caller just read it, else as its last change committed
        it when that is known (``changed``), else read. The board update of the game under
        way goes first (``board``)."""
        async with self.ctx.tracked(), self._refreshing[game]:
            if self.board is not None:
                await self.board(game)
            record = record or self._committed.get(game) or await self.ctx.service.get(game)
            waiting = self.ctx.service.waiting(record) if not record.paused else frozenset()
            for key in [k for k in self.panels if k[0] == game]:
                parked, seat = self.panels.get(key), key[1]
                if parked is None:  # (forgotten meanwhile: its seat's new panel replaced it)
                    continue
                if record.user_of(seat) != parked.user_id or self.ctx.clock() > parked.until:
                    del self.panels[key]
                elif record.status != "active":  # (over: the panel says so, with nothing to press)
                    del self.panels[key]
                    await self._redraw(record, seat, parked)
                elif seat in waiting:
                    del self.panels[key]
                    await self._redraw(record, seat, parked)
                elif waiting - parked.waiting:
                    self.panels[key] = dataclasses.replace(parked, waiting=frozenset(waiting))
                    await self._redraw(record, seat, parked)
            self._forget_record(game)

    def _forget_record(self, game: int) -> None:
        """Drop the committed record of ``game`` once none of its panels is parked."""
        if not any(key[0] == game for key in self.panels):
            self._committed.pop(game, None)

    async def _note(self, record: GameRecord, parked: Parked) -> str:
        """``parked``'s note, or ``""`` when an ``undo`` entry since the panel was drawn (up
        to ``record``'s version) took back an entry up to its version (the move the note
        confirms may be gone)."""
        if not parked.note:
            return ""
        for entry in await self.ctx.service.log(record.id, after=parked.version, upto=record.version):
            action = entry.action if entry.kind == "system" and isinstance(entry.action, dict) else {}
            if action.get("type") == UNDO and any(seq <= parked.version for seq in action.get("seqs", ())):
                return ""
        return parked.note

    async def _redraw(self, record: GameRecord, seat: int, parked: Parked) -> None:
        try:
            note = await self._note(record, parked)
            await parked.edit(**await self.draw(record, seat, parked.reader, parked.user_id, note))
        except Exception:
            log.exception("redrawing a waiting panel of game %s failed", record.id)


__all__ = ["PARK_SECONDS", "Parked", "ParkedPanels"]
