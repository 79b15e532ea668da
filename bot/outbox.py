"""The outbox rows as types (docs/DESIGN.md §4): one frozen dataclass per kind, read from a
stored ``OutboxRow`` by ``typed`` and written back to the same JSON payload by ``payload()``.

The stored format does not change: a row is still ``kind`` and a JSON ``payload`` in the
``outbox`` table (``bot/storage``); these types name its fields, so the delivery side
(``bot/ui/outbox.py``) dispatches on one type per kind instead of on strings and untyped
dicts. Fields a row of an older build lacks read as their defaults.

| kind | type | payload |
|---|---|---|
| ``board`` | ``BoardRow`` | — |
| ``lines`` | ``LinesRow`` | ``after`` |
| ``ping`` | ``PingRow`` | ``seats``, ``after``, ``movers`` (when any); a reminder: ``seats``, ``reminder`` |
| ``end`` | ``EndRow`` | — |
| ``answer`` | ``AnswerRow`` | ``token``, ``app``, ``user``, ``text``, ``at``, ``after`` |
| ``notice`` | ``NoticeRow`` | ``msgs`` (catalog key, parameters), ``mentions``, ``turn`` (seat, user id) |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.storage import OutboxRow


@dataclass(frozen=True)
class Row:
    """What every row carries: the stored row it was read from (``id``, ``game``, ``version``,
    ``nonce``, ``attempts``, ``created_at``)."""

    row: OutboxRow

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def version(self) -> int:
        return self.row.version

    @property
    def nonce(self) -> str:
        return self.row.nonce

    @property
    def created_at(self) -> float:
        return self.row.created_at

    @property
    def attempts(self) -> int:
        return self.row.attempts

    @property
    def kind(self) -> str:
        return self.row.kind

    def payload(self) -> dict[str, Any]:
        """The JSON payload this row is stored with."""
        return {}


@dataclass(frozen=True)
class BoardRow(Row):
    """The board is due at ``version`` (rows coalesce: one edit shows the newest)."""


@dataclass(frozen=True)
class LinesRow(Row):
    """The public event lines of the log entries ``after`` < seq ≤ ``version``."""

    after: int = 0

    def payload(self) -> dict[str, Any]:
        return {"after": self.after}


@dataclass(frozen=True)
class PingRow(Row):
    """A turn ping of ``seats``. ``reminder`` (the count of the deadline's reminder, 0 for a
    turn ping): a reminder of the deadline of ``version`` only. ``after``: where the change
    began (the digest stops there); ``movers``: seats that moved themselves and decide again,
    pinged only when the row is sent after a restart."""

    seats: tuple[int, ...] = ()
    after: int | None = None
    movers: tuple[int, ...] = ()
    reminder: int = 0

    def payload(self) -> dict[str, Any]:
        if self.reminder:
            return {"seats": list(self.seats), "reminder": self.reminder}
        out: dict[str, Any] = {"seats": list(self.seats), "after": self.after}
        if self.movers:
            out["movers"] = list(self.movers)
        return out


@dataclass(frozen=True)
class EndRow(Row):
    """The end message (the ranking, the reason)."""


@dataclass(frozen=True)
class AnswerRow(Row):
    """The answer owed to a typed move: the interaction (``app``, ``token``, ``at``: when it
    was created) of ``user``, the move's ``text``, and where the change began (``after``)."""

    token: str = ""
    app: int = 0
    user: int = 0
    text: str = ""
    at: float = 0.0
    after: int = 0

    def payload(self) -> dict[str, Any]:
        return {"token": self.token, "app": self.app, "user": self.user, "text": self.text, "at": self.at,
                "after": self.after}


@dataclass(frozen=True)
class NoticeRow(Row):
    """An announcement (``bot.service.notice_payload``): catalog messages ``msgs`` (key,
    parameters), the user ids it pings, and ``turn`` (seat, user id): the player whose ping it
    also is when the game waits for that seat."""

    msgs: tuple[tuple[str, dict[str, Any]], ...] = ()
    mentions: tuple[int, ...] = ()
    turn: tuple[int, int] | None = None

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"msgs": [[key, dict(params)] for key, params in self.msgs],
                               "mentions": list(self.mentions)}
        if self.turn is not None:
            out["turn"] = list(self.turn)
        return out


TypedRow = BoardRow | LinesRow | PingRow | EndRow | AnswerRow | NoticeRow


def typed(row: OutboxRow) -> TypedRow | None:
    """The typed row of a stored one; None for a kind this build does not know.

    Raises:
        ValueError / TypeError / KeyError: a payload of the wrong shape (an answer row without
            its user).
    """
    p = row.payload
    if row.kind == "board":
        return BoardRow(row)
    if row.kind == "lines":
        return LinesRow(row, int(p.get("after", 0)))
    if row.kind == "ping":
        after = p.get("after")
        return PingRow(row, tuple(int(s) for s in p.get("seats", [])), None if after is None else int(after),
                       tuple(int(s) for s in p.get("movers", [])), int(p.get("reminder") or 0))
    if row.kind == "end":
        return EndRow(row)
    if row.kind == "answer":
        token = p.get("token")
        return AnswerRow(row, str(token) if token else "", int(p.get("app") or 0), int(p["user"]),
                         str(p.get("text", "")), float(p.get("at", 0)), int(p.get("after", 0)))
    if row.kind == "notice":
        turn = p.get("turn")
        return NoticeRow(row, tuple((str(key), dict(params)) for key, params in p.get("msgs", [])),
                         tuple(int(u) for u in p.get("mentions", [])),
                         None if turn is None else (int(turn[0]), int(turn[1])))
    return None
