"""The game service: every change to a game goes through here (design §4).

``act`` takes the game's ``asyncio.Lock``, loads the game, maps the Discord user to a
seat, asks the engine to apply the action, samples chance outcomes with an RNG
derived from (seed, log position), and appends everything to the log with a version
compare-and-set in one transaction. The same transaction queues the deliveries the
change causes in the outbox (``plan_deliveries``: board, public lines, turn pings, the
end, the answer to a typed move); the delivery layer (``bot/ui/delivery.py``) sends them
after the commit and marks each done once Discord accepted it, so a failed Discord call
never rolls back a move and a crash never leaves the table uninformed (docs/DESIGN.md §4).

Storage faults are refusals: a database locked beyond the busy timeout or one that
cannot be written answers a sentence (``BUSY`` / ``UNWRITABLE``) and applies nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, TypeVar

from cachetools import LRUCache

from bot.locks import KeyedLocks
from bot.storage import (
    GameRecord,
    LeaseLost,
    LogEntry,
    MoveInFlight,
    OutboxItem,
    Repository,
    StaleVersion,
    StorageBusy,
    StorageUnwritable,
    TooManyLobbies,
)
from bot.text import Texts, host_sentence
from bot.typed_moves import parse_typed
from engines.base import CHANCE, Action, Engine, Event, GameError, Msg, Outcome, State, seat_ref
from engines.notation import Notation
from engines.registry import GAME_IDS
from engines.registry import get as get_engine
from engines.registry import notation as get_notation
from engines.rng import derive_rng, new_seed

log = logging.getLogger(__name__)

MAX_CHANCE_STEPS = 10_000
"""Safety cap on consecutive chance actions after one player action."""

MAX_TIMEOUT_STEPS = 50
"""Safety cap on the steps of one timed-out seat's turn played automatically."""

BUSY = "The game is busy — try again in a moment."
"""The answer when the database stayed locked beyond the busy timeout (nothing applied)."""

UNWRITABLE = ("The game could not be saved: the bot's storage cannot be written right now, so nothing "
              "changed. The bot's operator has been told; please try again in a few minutes.")
"""The answer when the database cannot be written (nothing applied)."""

CRASH_POINTS = ("before_commit", "after_commit", "after_post", "before_board_edit", "after_board_edit",
                "after_board_post")
"""Where ``crash_point`` is called: right before an action's transaction commits (a move
acknowledged is then in flight: ``InFlight``); right after it committed; after
Discord accepted a posted message and before it is marked done; after the board was
rendered and before its edit is sent; after the edit was accepted and before it is
marked done; after Discord accepted a fresh board message and before it is stored as
the game's board and its rows marked done."""

crash_hook: Callable[[str], None] | None = None
"""Installed only by a test launcher (``bot/sandbox/serve.py --crash``); None otherwise."""


def crash_point(name: str) -> None:
    """A named point (``CRASH_POINTS``) at which a test may kill the bot; a no-op unless
    ``crash_hook`` is set."""
    if crash_hook is not None:
        crash_hook(name)


class InFlight:
    """A player's move whose interaction is acknowledged before the move commits (a
    "thinking…", or a press answered by a deferred update): its ``moves_in_flight`` row,
    written once acknowledged (``record``), is forgotten in the very transaction that
    commits the move (``GameService.act``'s ``inflight``), so a row a restart finds is a move
    the crash lost. The two race in one event loop: a row being written holds the commit
    back until it is stored; once the move went to its commit, no row is written (a crash
    then may or may not have kept the move: nothing is said, rather than a wrong "not saved")."""

    def __init__(self, interaction_id: int) -> None:
        self.interaction_id = interaction_id
        self.recorded = False
        """The row was written."""
        self.committed = False
        """The move committed, and its row (if any) went with it."""
        self._committing = False
        self._recording: asyncio.Future[bool] | None = None

    async def record(self, write: Callable[[], Awaitable[None]]) -> bool:
        """Write the row by ``write`` unless the move already went to its commit (or a row
        was written); True when written. A failed write is no row (re-raised)."""
        if self._committing or self._recording is not None:
            return False
        self._recording = asyncio.get_running_loop().create_future()
        try:
            await write()
        except BaseException:
            self._recording.set_result(False)
            raise
        self.recorded = True
        self._recording.set_result(True)
        return True

    async def before_commit(self) -> int | None:
        """Called right before the move's commit: waits for a row being written; the
        interaction whose row the commit forgets, or None when there is none."""
        self._committing = True
        if self._recording is None:
            return None
        return self.interaction_id if await asyncio.shield(self._recording) else None

    @property
    def unsettled(self) -> bool:
        """A row was written and no commit took it away (the move was refused): the caller
        forgets it once the interaction is answered."""
        return self.recorded and not self.committed


def start_event(players: int) -> Event:
    """The public line of a game's start (the ``start`` system entry of the log)."""
    return Event("game_started", params={"n": players})


@contextlib.contextmanager
def storage_refusals() -> Iterator[None]:
    """Turn a storage fault into the player's sentence (``HostError`` ``busy`` /
    ``storage``); the repository wrote nothing. ``LeaseLost`` stays what it is: the process
    stops, and the process now holding the shard answers (bot/ui/errors.py ``report``)."""
    try:
        yield
    except LeaseLost:
        raise  # (not the player's to hear: this process stops, the new holder answers)
    except StorageBusy:
        raise HostError(Msg("ui.error.busy"), "busy") from None
    except StorageUnwritable:
        raise HostError(Msg("ui.error.storage"), "storage") from None


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _refuses_storage_faults(method: Callable[_P, Awaitable[_R]]) -> Callable[_P, Awaitable[_R]]:
    @functools.wraps(method)
    async def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with storage_refusals():
            return await method(*args, **kwargs)

    return wrapper


class HostError(Exception):
    """A user-facing refusal from the host (not a rules error): unknown game, not a
    player, stale board, lobby problems. ``msg`` is the sentence as a catalog message
    (bot/text/en/ui.toml ``ui.error.*``), formatted in the reader's language where it is
    answered (``text``); ``message`` is its English text (logs, tests); ``code`` is stable.
    A plain string is accepted as an English sentence already written (shown as it is)."""

    def __init__(self, message: Msg | str, code: str = "host_error") -> None:
        self.msg = message if isinstance(message, Msg) else Msg("host.notation", {"text": message})
        self.message = Texts(None, [])(self.msg)
        super().__init__(self.message)
        self.code = code

    def text(self, locale: str = "en") -> str:
        """The sentence in ``locale`` (a Discord or catalog locale)."""
        return Texts(None, [], locale)(self.msg)


class HostNotice(HostError):
    """A private answer in place of a press that changes nothing and is no mistake (a choice
    made already: ``bot/ui/moves.py``): said as it is, without the warning sign of a refusal."""


@dataclass
class ActResult:
    """What one service call changed.

    Attributes:
        game: the game record after the change.
        entries: the log entries appended (player, timeout and chance actions), in order.
        events: every event those entries produced, in order.
        waiting_before / waiting_after: seats to move before and after (CHANCE excluded).
        outcome: the result when the game just ended, else None.
        public_changed: whether the public view differs from before (a board update is
            due); False for changes only their owner may see, e.g. a changed secret pick.
    """

    game: GameRecord
    entries: list[LogEntry] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    waiting_before: frozenset[int] = frozenset()
    waiting_after: frozenset[int] = frozenset()
    outcome: Outcome | None = None
    public_changed: bool = True
    typed_label: Msg | str | None = None
    """For a typed move (``act`` with notation): the applied action's ``action_label`` in the
    position it was typed in, so the confirmation reads like its button."""

    @property
    def board_due(self) -> bool:
        """Whether the change queued a board row (``plan_deliveries``): the host may ask for
        the board of ``game.version`` as soon as the move is stored (``Delivery.request_board``)."""
        return board_due(self.events, self.waiting_before, self.waiting_after, self.outcome, self.public_changed)


def lobby_refusal(exc: ValueError) -> Msg:
    """The catalog message of a lobby refusal of ``Repository.join`` / ``leave`` (their
    English ``ValueError`` sentences); an unknown sentence is kept as it is."""
    text = str(exc)
    full = re.fullmatch(r"The lobby is full \((\d+) players\)\.", text)
    if full:
        return Msg("ui.error.lobby_full", {"n": int(full[1])})
    known = {"This lobby is closed.": "ui.error.lobby_closed", "You are already in this game.": "ui.error.already_in",
             "You are not in this game.": "ui.error.not_in"}
    return Msg(known[text]) if text in known else Msg("host.notation", {"text": text})


def game_over(record: GameRecord) -> Msg:
    """What a move in the ended ``record`` is told: the game, by name and number, is over and
    its result is in its thread or channel (``ui.error.game_over``), or a moderator ended it
    (``ui.error.game_ended``)."""
    params = {"game": record.id, "name": {"msg": f"ui.game.{record.game_id}"}}
    if record.status == "finished":
        return Msg("ui.error.game_over", {**params, "channel": record.home_channel_id})
    return Msg("ui.error.game_ended", params)


def not_running(record: GameRecord) -> HostError:
    """The refusal of a move, panel or press in ``record``, which is not running: an ended
    game says so by name (``game_over``), a lobby that it has not started, a paused game that
    it is paused, any other game ``ui.error.not_running``."""
    if record.status in ("finished", "abandoned"):
        return HostError(game_over(record), "not_active")
    if record.status == "lobby":
        return HostError(Msg("ui.error.not_started"), "not_active")
    if record.status == "active" and record.paused:
        return HostError(Msg("ui.error.paused"), "paused")
    return HostError(Msg("ui.error.not_running"), "not_active")


def texts(record: GameRecord, locale: str = "en") -> Texts:
    """The formatter of ``record``'s messages, with its players' display names
    (``seat_names`` in ``locale``) shortened and escaped for a Discord message
    (``bot.text.escape_name``; ``.plain()`` for images)."""
    return Texts(record.game_id, seat_names(record, locale), locale, markdown=True)


def seat_names(record: GameRecord, locale: str = "en") -> list[str]:
    """Display names by seat in ``locale``: a person's own name; an AI's seat (a synthetic
    negative user id) its ``ai_seat_name`` in the reader's language, not the
    English name stored with it. An AI keeps the number it was given when it joined
    (``next_ai_name``: "Bot · Easy", "Bot · Easy 2"), whoever else comes or goes; AIs
    of a database written before numbers were stored that share a name are numbered in
    seat order ("Bot · Easy 1", "Bot · Easy 2"), so lines about them say which one."""
    names = [ai_seat_name(s.name, s.ai_level, locale) if s.is_bot and s.ai_level else s.name for s in record.seats]
    bots = [s.seat for s in record.seats if s.is_bot and s.ai_level]
    for seat in bots:
        same = [b for b in bots if names[b] == names[seat]]
        if len(same) > 1 and seat == same[0]:
            for k, b in enumerate(same, start=1):
                names[b] = f"{names[b]} {k}"
    return names


DEFAULT_AI_LEVEL = "normal"
"""The level of an AI seat whose level is not known (a rematch of a seat that has none)."""

AI_NUMBER = re.compile(r" (\d{1,4})$")
"""The number an AI's stored (English) seat name ends with, from its second of a level on."""


def ai_number(name: str) -> int:
    """The number of an AI seat's stored name: ``"Bot · Easy 2"`` → 2, ``"Bot · Easy"`` → 1."""
    found = AI_NUMBER.search(name)
    return int(found[1]) if found else 1


def ai_seat_name(stored: str, level: str, locale: str = "en") -> str:
    """An AI seat's display name in ``locale`` from its ``stored`` English name and its
    ``level``: the level's ``ai_name``, with the stored number from 2 on ("Bot · Easy 2")."""
    number = ai_number(stored)
    return ai_name(level, locale) + (f" {number}" if number > 1 else "")


def next_ai_name(level: str, names: Iterable[str]) -> str:
    """The stored name of a new AI at ``level``, given the stored ``names`` of the AIs the
    game has had (seated, and for a running game those that left it, ``holder_entry``):
    one more than the highest number among those of this level, never a number in use
    (``"Bot · Easy"`` first, then ``"Bot · Easy 2"``…), so no AI's name changes when
    another joins or goes."""
    base = ai_name(level)
    numbers = [ai_number(n) for n in names if n == base or (n.startswith(base + " ") and AI_NUMBER.search(n))]
    number = max([0, *numbers, len(numbers)]) + 1
    return base + (f" {number}" if number > 1 else "")


HOLDER_CHANGES = frozenset({"replace", "ai_seat"})
"""System log entries that may give a seat to someone else (a moderator's replace or kick)."""


def holder_entry(record: GameRecord, seat: int) -> dict[str, Any]:
    """What a log entry that gives ``seat`` to someone else keeps of its holder until then:
    ``old_name`` (the stored name) and ``old_level`` (an AI's level, None for a person),
    so the seat's earlier lines keep naming them (``names_by_entry``)."""
    held = next(s for s in record.seats if s.seat == seat)
    return {"old_name": held.name, "old_level": held.ai_level if held.is_bot else None}


def names_by_entry(record: GameRecord, entries: Sequence[LogEntry], locale: str = "en") -> dict[int, list[str]]:
    """The display names by seat in ``locale`` as they were at each of ``entries`` (the
    whole log or its latest part, in order), by seq: the current ``seat_names``, and before
    an entry that gave a seat to someone else (``HOLDER_CHANGES`` with ``old_name``) the
    name of whoever held it then, so a move keeps the name of whoever made it. Entries
    logged before old holders were kept name the seat's current holder. Entries of equal
    names share one list."""
    names = seat_names(record, locale)
    out: dict[int, list[str]] = {}
    for e in reversed(entries):
        out[e.seq] = names
        seat = e.action.get("seat")
        old = old_holder_name(e, locale)
        if old is not None and isinstance(seat, int) and 0 <= seat < len(names):
            names = list(names)
            names[seat] = old
    return out


def old_holder_name(entry: LogEntry, locale: str = "en") -> str | None:
    """The display name in ``locale`` of whoever held the seat before ``entry`` gave it to
    someone else (a ``HOLDER_CHANGES`` system entry with ``holder_entry``'s ``old_name``:
    a person's stored name, or an AI's name at its ``old_level``); None for any other
    entry, and for one logged before old holders were kept."""
    act = entry.action
    if entry.kind != "system" or act.get("type") not in HOLDER_CHANGES or not isinstance(act.get("old_name"), str):
        return None
    level = act.get("old_level")
    return ai_seat_name(act["old_name"], level, locale) if isinstance(level, str) else str(act["old_name"])


def entry_texts(record: GameRecord, entries: Sequence[LogEntry], locale: str = "en", *,
                markdown: bool = True) -> dict[int, Texts]:
    """Formatters by seq for ``entries`` (as ``texts``), each with the names of its time
    (``names_by_entry``); ``markdown`` False: names as they are, for text that is not a Discord
    message (menu options, exported files)."""
    made: dict[int, Texts] = {}
    return {seq: made.setdefault(id(names), Texts(record.game_id, names, locale, markdown=markdown))
            for seq, names in names_by_entry(record, entries, locale).items()}


def ai_name(level: str, locale: str = "en") -> str:
    """The seat name of an AI at ``level`` in ``locale``: ``"Bot · Hard"`` (``ai.seat_name``)."""
    return host_sentence("ai.seat_name", locale, level=Msg(f"ai.level.{level}"))


def format_names(text: Any, names: Sequence[str], game_id: str | None = None) -> str:
    """A message (``Msg``, its JSON, or a legacy ``{p0}`` string) as text with names."""
    return Texts(game_id, names)(text)


def _json_text(text: Any) -> Any:
    return text.to_json() if isinstance(text, Msg) else text


def board_due(events: Sequence[Event], waiting_before: frozenset[int], waiting_after: frozenset[int],
              outcome: Outcome | None, public_changed: bool) -> bool:
    """Whether a change needs a board update (docs/DESIGN.md §4): anything others may see
    changed (the public view, a public event, who is awaited, the end). False for a change
    only its owner may see, e.g. a changed secret pick, so watchers cannot tell."""
    return public_changed or any(e.visible_to is None for e in events) or waiting_after != waiting_before \
        or outcome is not None


def plan_deliveries(
    after: int, version: int, events: Sequence[Event], waiting_before: frozenset[int], waiting_after: frozenset[int],
    outcome: Outcome | None, public_changed: bool, answer: dict[str, Any] | None = None,
    automatic: frozenset[int] = frozenset(), movers: frozenset[int] = frozenset(),
) -> list[OutboxItem]:
    """The deliveries a change from version ``after`` to ``version`` causes (docs/DESIGN.md
    §4, §5), in order: the public event lines of the log entries ``after`` < seq ≤
    ``version`` (when any event is public), the board (unless nothing anyone
    else may see changed, e.g. a changed secret pick, so watchers cannot tell), then the
    final ranking when the game ended, else a ping of exactly the seats the game newly
    waits for (waiting now and not before, or whose decision was made for them:
    ``automatic``, a timeout or a pre-set answer); last the answer owed to a
    typed move. The ping's ``after`` is where the change began (its digest stops there);
    its ``movers`` are the seats that moved themselves (``movers``) and decide again:
    their panel shows that, so they are pinged only when the row is sent after a restart
    (``Delivery._deliver_ping``), when that panel may never have been shown."""
    public = any(e.visible_to is None for e in events)
    items: list[OutboxItem] = []
    if public:
        items.append(OutboxItem("lines", version, {"after": after}))
    if board_due(events, waiting_before, waiting_after, outcome, public_changed):
        items.append(OutboxItem("board", version))
    still = waiting_before - automatic
    fresh = sorted(s for s in waiting_after if s not in still)
    if outcome is not None:
        items.append(OutboxItem("end", version))
    elif fresh or waiting_after & still & movers:  # (only movers: a row that pings after a restart)
        again = sorted(waiting_after & still & movers)
        items.append(OutboxItem("ping", version, {"seats": fresh, "after": after,
                                                  **({"movers": again} if again else {})}))
    if answer is not None:
        items.append(OutboxItem("answer", version, {**answer, "after": after}))
    return items


def notice_payload(*msgs: Msg, mentions: Sequence[int] = (), turn: tuple[int, int] | None = None) -> dict[str, Any]:
    """The payload of a ``notice`` outbox row (migration 010; ``Delivery._deliver_notice``):
    ``msgs`` formatted one after another at delivery in the server's language, ``mentions``
    (user ids) pinged; ``turn`` ``(seat, user id)``: when the game then waits for that seat,
    the notice also carries its prompt, the deadline and Play ▶ / My view (the player's ping).
    No English is stored: only catalog keys and their parameters."""
    payload: dict[str, Any] = {"msgs": [[m.key, dict(m.params)] for m in msgs], "mentions": list(mentions)}
    if turn is not None:
        payload["turn"] = list(turn)
    return payload


def notice_rows(version: int, notice: dict[str, Any] | None) -> list[OutboxItem]:
    """The outbox rows of a change's announcement: one ``notice`` row of ``version``, or none."""
    return [] if notice is None else [OutboxItem("notice", version, notice)]


UNDO = "undo"
"""The ``type`` of the system log entry that takes back player entries (DESIGN §4: undo
appends, it never deletes): ``{"type": "undo", "seqs": [seq, ...]}``."""

UNDO_TAIL = 16
"""Log entries ``can_undo`` reads first (the newest); the whole log only when they hold no
move left to take back, or the state before that move is not remembered (``GameService``
``_before``)."""

MOVES_REMEMBERED = 512
"""Per move: the state it was applied to (the newest moves of this process), so the Undo
check does not replay the log."""

@dataclass(frozen=True)
class ReplayStep:
    """One step of a replay (``GameService.replay_steps``): the last log ``seq`` it covers,
    the seat that acted (None: the start), the public view after it, its public events, and
    the rulebook's unit it is in (``Notation.replay_marks``, as message JSON; None: none)."""

    seq: int
    seat: int | None
    view: dict[str, Any]
    events: list[dict[str, Any]]
    mark: dict[str, Any] | None = None


def undone_seqs(entries: Iterable[LogEntry]) -> frozenset[int]:
    """The seqs of the log entries that ``undo`` system entries among ``entries`` took back
    (each replay, line and digest path skips them; a log without undo gives the empty set)."""
    out: set[int] = set()
    for e in entries:
        if e.kind == "system" and e.action.get("type") == UNDO:
            out.update(int(s) for s in e.action.get("seqs", ()))
    return frozenset(out)


def live_entries(entries: Iterable[LogEntry]) -> list[LogEntry]:
    """The entries of a log that no ``undo`` entry among them took back, in order: what every
    replay, line and digest path reads (DESIGN §4: undo appends, it never deletes). The views
    that show taken-back entries struck through use ``undone_seqs``."""
    listed = list(entries)
    undone = undone_seqs(listed)
    return [e for e in listed if e.seq not in undone]


def ranks(outcome: Outcome, left: frozenset[int] = frozenset()) -> list[int]:
    """Per seat, its place in ``outcome`` (1 = best): seats with equal final scores that
    are both winners or both not (and both in ``left`` or both not: ``table_outcome``)
    share a place (docs/DESIGN.md §3 ``outcome``)."""
    places = [0] * len(outcome.scores)
    previous: int | None = None
    for i, seat in enumerate(outcome.ranking):
        tied = previous is not None and outcome.scores[seat] == outcome.scores[previous] \
            and (seat in outcome.winners) == (previous in outcome.winners) \
            and (seat in left) == (previous in left)
        places[seat] = places[previous] if tied and previous is not None else i + 1
        previous = seat
    return places


def left_seats(record: GameRecord) -> frozenset[int]:
    """The seats of ``record`` whose player left the running game (resigned, or removed by
    a moderator without an AI taking over): ``SeatRecord.status == "left"``."""
    return frozenset(s.seat for s in record.seats if s.status == "left")


def drawn_view(record: GameRecord, public: dict[str, Any]) -> dict[str, Any]:
    """The public view ``public`` as the board and its thumbnail are drawn from it: with ``left``,
    the seats whose player left the game (``left_seats``), when any did, so the renderer marks
    them (render/registry.py); ``public`` itself when none did (views are shared, read only)."""
    left = left_seats(record)
    return {**public, "left": sorted(left)} if left else public


def table_outcome(record: GameRecord, outcome: Outcome) -> Outcome:
    """The host's result of a finished game (docs/DESIGN.md §4 "Resign"): the engine's
    ``outcome`` with every seat that left (``left_seats``) ranked after every seat that
    stayed (each group in the engine's order) and never among the winners. When the
    engine's winners all left, the best seats that stayed win: the first of them and any
    stayed seat with its final score (the engine's tie-breaks are not in an ``Outcome``),
    and the reason becomes ``table.won_after_leaving`` (naming them). Scores are unchanged.
    A table where nobody or everybody left keeps the engine's outcome. Used by the end
    message and the ratings."""
    left = left_seats(record) & frozenset(range(len(outcome.scores)))
    stayed = [s for s in outcome.ranking if s not in left]
    if not left or not stayed:
        return outcome
    ranking = (*stayed, *(s for s in outcome.ranking if s in left))
    winners = outcome.winners - left
    reason = outcome.reason
    if not winners:
        best = outcome.scores[stayed[0]]
        winners = frozenset(s for s in stayed if outcome.scores[s] == best)
        reason = Msg("table.won_after_leaving", {"winners": {"seats": sorted(winners)}})
    return Outcome(outcome.scores, ranking, winners, reason)


def is_last_person(record: GameRecord, seat: int) -> bool:
    """Whether ``seat`` is the only active seat of ``record`` a person plays: every other
    seat is an AI, on autopilot or left (the rule ``hand_to_ai`` and the lobby keep: a
    table keeps at least one person)."""
    return not any(s.seat != seat and s.status == "active" and not s.is_ai for s in record.seats)

class ServiceCore:
    """What every part of the game service shares: the games' locks, lookups and the states
    loaded from them, the change listeners, and ``_advance``, which stores a change with the
    chance it settles, the stand-in moves it plays and the deliveries it causes (design §4).

    Args:
        repo: an open ``Repository``.
        clock: unix time in seconds (injectable for tests).
    """

    def __init__(self, repo: Repository, *, clock: Callable[[], float] = time.time) -> None:
        self.repo = repo
        self.clock = clock
        self._locks: KeyedLocks[int] = KeyedLocks()
        self.listeners: list[Callable[[int], None]] = []
        """Called with a game's id after each committed change that may make it await
        someone new (a start, a move, a timeout, a seat handed over); must not block (the
        AI driver, bot/ui/ai.py, schedules its moves from here)."""
        self._before: LRUCache[tuple[int, int], State] = LRUCache(MOVES_REMEMBERED)
        """(game, seq of a player's log entry) → the state that move was applied to (set by
        ``_play`` once it is stored; a log entry never changes, so any process's answer is
        this one's). Read only: engines never change a state in place."""
        self._changing: GameRecord | None = None
        """The record ``changed`` tells the listeners of (``changing``)."""
        self._undoable: LRUCache[tuple[int, int, int], bool] = LRUCache(MOVES_REMEMBERED)
        """(game, version, user) → ``can_undo``'s verdict."""
        self._states: LRUCache[tuple[int, int], tuple[dict[str, Any], State]] = LRUCache(MOVES_REMEMBERED)
        """(game, version) → (the record's parsed snapshot, the engine state loaded from it: ``state``)."""
        self._public: LRUCache[tuple[int, int], tuple[dict[str, Any], dict[str, Any]]] = LRUCache(MOVES_REMEMBERED)
        """(game, version) → (the record's parsed snapshot, the public view of its state: ``public_view``)."""

    def lock(self, game: int) -> asyncio.Lock:
        """The per-game lock (also held by the delivery layer while it edits the board)."""
        return self._locks[game]

    # ------------------------------------------------------------------ lookups
    async def get(self, game: int, *, kept: bool = False) -> GameRecord:
        """The game ``game``. ``kept``: the record this process kept of it while nothing wrote
        the game since (``Repository.kept_game``: the game as stored, without a trip to the
        database), else read.

        Raises:
            HostError: no such game.
        """
        record = (self.kept(game) if kept else None) or await self.repo.get_game(game)
        if record is None:
            raise HostError(Msg("ui.error.unknown_game", {"game": game}), "unknown_game")
        return record

    def kept(self, game: int) -> GameRecord | None:
        """The game ``game`` as stored, when this process kept a record of it (read back by
        its last move's commit, or read) and nothing wrote the game since
        (``Repository.kept_game``); else None. No trip to the database."""
        return self.repo.kept_game(game)

    @staticmethod
    def engine(record: GameRecord) -> Engine:
        """The engine of a game record."""
        return get_engine(record.game_id)

    @staticmethod
    def notation(record: GameRecord) -> Notation:
        """The notation of a game record (its prompts, labels and notation)."""
        return get_notation(record.game_id)

    def state(self, record: GameRecord) -> State:
        """The validated state of an active or finished game, loaded once per stored snapshot
        (records of the same version share their parsed ``state``, bot/storage
        ``Snapshots``) and shared by every caller: read only, as engines treat states (design
        §3: ``apply`` never mutates its input).

        Raises:
            HostError: the game has not started.
        """
        if record.state is None:
            raise HostError(Msg("ui.error.not_started"), "not_started")
        key = (record.id, record.version)
        hit = self._states.get(key)
        if hit is not None and hit[0] is record.state:
            return hit[1]
        state = self.engine(record).state_from_json(record.state)
        self._states[key] = (record.state, state)
        return state

    def public_view(self, record: GameRecord) -> dict[str, Any]:
        """``player_view(state(record), None)``, drawn once per stored snapshot (as ``state``:
        the records of a version share it; a snapshot rebuilt at the same version,
        ``upgrade_snapshots``, is another) and shared by every caller: read only (a
        move drew the public view of the same state in ``_advance`` twice, before and after,
        and again for the DM hands). ``_advance`` files the view of the state it stores with
        the snapshot it stored (the engine's state equals the one loaded from that JSON: the
        conformance tests' round trip, and views are pure).

        Raises:
            HostError: the game has not started.
        """
        key = (record.id, record.version)
        hit = self._public.get(key)
        if hit is not None and record.state is not None and hit[0] is record.state:
            return hit[1]
        view = self.engine(record).player_view(self.state(record), None)
        if record.state is not None:
            self._public[key] = (record.state, view)
        return view

    def waiting(self, record: GameRecord) -> frozenset[int]:
        """Seats the game waits for (CHANCE excluded); empty for lobbies and ended games."""
        if record.status != "active" or record.state is None:
            return frozenset()
        return frozenset(s for s in self.engine(record).to_move(self.state(record)) if s != CHANCE)

    async def _running(self, game: int) -> GameRecord:
        """The game ``game``, refused unless it is running and not paused (lock held)."""
        record = await self.get(game)
        if record.status != "active" or record.paused:
            raise not_running(record)
        return record

    async def games(self, *, status: Sequence[str] = ("lobby", "active"), user_id: int | None = None,
                    channel_id: int | None = None) -> list[GameRecord]:
        """Games filtered by status, seated user and/or channel (thread or channel), oldest first."""
        return await self.repo.games(status=status, user_id=user_id, channel_id=channel_id)

    async def log(self, game: int, *, after: int = 0, last: int | None = None,
                  upto: int | None = None) -> list[LogEntry]:
        """The log entries of ``game`` in order: those with seq > ``after`` (and ≤ ``upto``), and only the
        ``last`` N of them when given (without reading the rest)."""
        return await self.repo.log(game, after=after, last=last, upto=upto)

    async def set_fields(self, game: int, **values: Any) -> None:
        """Update plain pointer columns of ``game`` (``Repository.set_fields``: its thread, lobby
        message, …)."""
        await self.repo.set_fields(game, **values)

    # ------------------------------------------------------------------ changes
    def changed(self, game: int, record: GameRecord | None = None) -> None:
        """Tell the ``listeners`` that ``game`` changed (a listener that fails is logged).
        ``record``: the game as this change committed it, which a listener may look at
        (``changing``) while it is told, instead of reading the game again."""
        self._changing = record
        try:
            for listener in self.listeners:
                try:
                    listener(game)
                except Exception:
                    log.exception("a change listener failed for game %s", game)
        finally:
            self._changing = None

    def changing(self, game: int) -> GameRecord | None:
        """Inside ``changed`` (a listener being told of a change of ``game``): the game as
        that change committed it, when known; None otherwise. Not valid afterwards: the game
        may have moved on."""
        record = self._changing
        return record if record is not None and record.id == game else None

    async def _advance(
        self, record: GameRecord, engine: Engine, state: State, entries: list[LogEntry],
        events: list[Event], *, waiting_before: frozenset[int], players: int | None = None,
        answer: dict[str, Any] | None = None, keep_clock: bool = False, overdue: frozenset[int] = frozenset(),
        inflight: InFlight | None = None,
    ) -> ActResult:
        """Sample chance, auto-play seats of players who left and pre-set answers
        (``Engine.auto_action``), then store (CAS) with the deliveries it causes.
        ``keep_clock``: the running deadline stays (an undo must not restart the timer).
        ``overdue``: seats whose time ran out and whose timeout moves were not played (chance
        came first): while the game waits only for them, their expired deadline stays.
        ``inflight``: the player's move in flight this commit answers (its row goes with it)."""
        position = record.version + len(entries)
        left = {s.seat for s in record.seats if s.status == "left"}
        prefs = await self.seat_preferences(record, engine)
        for _ in range(MAX_CHANCE_STEPS):
            if engine.outcome(state) is not None:
                break
            movers = engine.to_move(state)
            if CHANCE in movers:
                chance = engine.sample_chance(state, derive_rng(record.seed, position))
                state, evs = engine.apply(state, CHANCE, chance)
                entries.append(LogEntry(0, "chance", CHANCE, engine.action_to_json(chance),
                                        [e.to_json() for e in evs]))
            elif movers & left:
                seat = min(movers & left)
                auto = self.stand_in_action(record, engine, state, seat)
                state, evs = engine.apply(state, seat, auto)
                evs = (Event("autoplay", params={"seat": seat_ref(seat)}), *evs)
                entries.append(LogEntry(0, "player", seat, engine.action_to_json(auto),
                                        [e.to_json() for e in evs]))
            else:
                auto_seat, auto_action = None, None
                for seat in sorted(movers):
                    if prefs.get(seat):
                        auto_action = engine.auto_action(state, seat, prefs[seat])
                        if auto_action is not None:
                            auto_seat = seat
                            break
                if auto_seat is None or auto_action is None:
                    break
                label = self.notation(record).action_label(state, auto_action)
                state, evs = engine.apply(state, auto_seat, auto_action)
                evs = (Event("auto", params={"label": _json_text(label)},
                             visible_to=frozenset({auto_seat})), *evs)
                entries.append(LogEntry(0, "player", auto_seat, engine.action_to_json(auto_action),
                                        [e.to_json() for e in evs]))
            events += evs
            position += 1
        else:  # pragma: no cover - an engine bug
            raise RuntimeError(f"{engine.info.game_id}: chance did not settle")
        outcome = engine.outcome(state)
        waiting_after = frozenset(s for s in engine.to_move(state) if s != CHANCE)
        status = "finished" if outcome is not None else "active"
        deadline: float | None = None
        window: int | None = None
        reminded = 0
        if outcome is None and waiting_after:
            # the same clock runs on while the game waits for a subset of the same seats,
            # unless it has run out (after a timeout the next decision gets a fresh window)
            # (seats whose time ran out but whose timeout moves waited behind chance keep the
            # expired clock: the next clock pass plays them, instead of a fresh window)
            still_overdue = bool(overdue) and waiting_after <= overdue
            keep = record.deadline is not None and record.status == "active" and (
                still_overdue or ((keep_clock or waiting_after <= frozenset(record.waiting))
                                  and self.clock() < record.deadline))
            window = engine.timeout_seconds(state, waiting_after, record.move_timeout)
            if keep:  # the same clock runs on: its reminders already sent stay sent
                deadline, window, reminded = record.deadline, record.deadline_window, record.reminded
            else:
                deadline = self.clock() + window
        public = engine.player_view(state, None)
        public_changed = record.state is None or self.public_view(record) != public
        outbox = plan_deliveries(record.version, record.version + len(entries), events, waiting_before, waiting_after,
                                 outcome, public_changed, answer,
                                 frozenset(e.seat for e in entries if e.kind == "player" and e.user_id is None
                                           and e.seat is not None),
                                 frozenset(e.seat for e in entries if e.kind == "player" and e.user_id is not None
                                           and e.seat is not None))
        rated = await self.ratings_of(record, outcome) if outcome is not None else None
        settles = await inflight.before_commit() if inflight is not None else None
        crash_point("before_commit")
        try:  # (the record as stored and the entries with their seqs come back in the same trip)
            new_record, stored = await self.repo.appended(
                record.id, record.version, entries, state=engine.state_to_json(state), status=status,
                players=players, deadline=deadline, waiting=sorted(waiting_after), window=window,
                reminded=reminded, outbox=outbox, ratings=rated, settles=settles)
        except StaleVersion:
            raise HostError(Msg("ui.error.moved_meanwhile"), "stale") from None
        if inflight is not None:
            inflight.committed = True
        if new_record.state is not None:
            self._public[(record.id, new_record.version)] = (new_record.state, public)
        crash_point("after_commit")
        self.changed(record.id, new_record)
        return ActResult(new_record, stored, events, waiting_before, waiting_after, outcome, public_changed)

    def stand_in_action(self, record: GameRecord, engine: Engine, state: State, seat: int) -> Action:
        """The move played for ``seat`` once nobody plays it (kicked or resigned): the one
        place that decides who plays a left seat. Today the seat plays the spec's timeout
        default (``Engine.timeout_action``); an AI seat-filler hooks in here."""
        return engine.timeout_action(state, seat)

    async def seat_preferences(self, record: GameRecord, engine: Engine) -> dict[int, dict[str, Any]]:
        """Each seated player's preferences for this game: the game's defaults
        (``info.preferences``) overlaid with what the player stored, coerced to the
        ``OptionSpec`` types. Seats that left are not included. One read for every seat
        (``Repository.preferences_of``)."""
        specs = {spec.key: spec for spec in engine.info.preferences}
        if not specs:
            return {}
        out: dict[int, dict[str, Any]] = {}
        seats = [seat for seat in record.seats if seat.status == "active"]
        stored = await self.repo.preferences_of([seat.user_id for seat in seats], record.game_id)
        for seat in seats:
            values = {key: spec.default for key, spec in specs.items()}
            for key, value in stored.get(seat.user_id, {}).items():
                if key in specs:
                    try:
                        values[key] = specs[key].coerce(value)
                    except GameError:
                        log.warning("ignoring bad stored preference %s=%r", key, value)
            out[seat.seat] = values
        return out

    async def rate(self, record: GameRecord, outcome: Outcome) -> bool:
        """Store the ratings of a game that finished (``ratings_of``) now, each game once
        (``Repository.record_ratings``); ``act`` stores them with the final move instead.
        Returns whether ratings were stored."""
        rated = await self.ratings_of(record, outcome)
        return rated is not None and await self.repo.record_ratings(record.id, *rated)

    async def ratings_of(self, record: GameRecord, outcome: Outcome
                         ) -> tuple[int, str, list[tuple[int, float, float, bool]]] | None:
        """The new ratings of a game that finishes normally (abandoned or
        moderator-ended games never come here), to store in the transaction of its final
        move, so a crash cannot lose them: ``(guild_id, game_id, [(user_id, mu, sigma, won)])``
        by openskill's Plackett-Luce model, one rating per player per game per server,
        ranked by ``table_outcome`` (``ranks``): resigned seats are rated, after every seat
        that stayed. An AI seat (a synthetic user id, the same in every game) ranks as a new
        player and gets no rating. Only server games of at least two players are rated (None otherwise). A failure is logged and never touches
        the game (None)."""
        if record.guild_id is None or len(record.seats) < 2:
            return None
        try:
            from openskill.models import PlackettLuce

            model = PlackettLuce()
            left = left_seats(record)
            outcome = table_outcome(record, outcome)
            users = [s.user_id for s in record.seats]
            bots = {s.seat for s in record.seats if s.is_bot}
            teams = []
            for seat, user in enumerate(users):
                found = [] if seat in bots else await self.repo.ratings(record.guild_id, record.game_id,
                                                                         user_id=user, limit=1)
                teams.append([model.rating(mu=found[0][2], sigma=found[0][3]) if found else model.rating()])
            rated = model.rate(teams, ranks=[float(r) for r in ranks(outcome, left)])
            rows = [(user, team[0].mu, team[0].sigma, seat in outcome.winners)
                    for seat, (user, team) in enumerate(zip(users, rated, strict=True)) if seat not in bots]
            return record.guild_id, record.game_id, rows
        except Exception:
            log.exception("ratings of game %s not updated", record.id)
            return None

    def _replay(self, record: GameRecord, entries: Sequence[LogEntry], upto: int | None = None) -> State | None:
        """The state after the log entries with ``seq <= upto`` (all when None), skipping the
        entries an ``undo`` entry among them took back (``live_entries``); None before the start."""
        engine = self.engine(record)
        state: State | None = None
        for e in live_entries(e for e in entries if upto is None or e.seq <= upto):
            if e.kind == "system" and e.action.get("type") == "start":
                state = engine.new_game(int(e.action["players"]), record.seed, record.options)
            elif e.kind in ("player", "chance") and state is not None:
                state, _ = engine.apply(state, -1 if e.kind == "chance" else int(e.seat or 0), e.action)
        return state


class Lobbies(ServiceCore):
    """Lobbies: opening, joining and leaving them, their options and AI seats, starting the
    game and the rematch; a player's stored preferences."""

    @_refuses_storage_faults
    async def create_lobby(
        self, *, game_id: str, guild_id: int | None, channel_id: int, host_user_id: int, host_name: str,
        options: dict[str, Any] | None, move_timeout: int, seated: bool = True, open_limit: int | None = None,
    ) -> GameRecord:
        """Open a lobby for ``game_id`` with the host seated (``seated`` False: the host
        only runs the lobby; Start stays theirs); ``open_limit``: the most open lobbies the
        host may have in the server (None: no limit).

        Raises:
            HostError: unknown game; ``open_limit`` reached (code ``too_many_lobbies``).
            InvalidOptions: a bad option (checked now, so the lobby never holds bad options).
        """
        try:
            engine = get_engine(game_id)
        except KeyError:
            raise HostError(Msg("ui.error.unknown_game_id", {"game": str(game_id)[:40], "games": list(GAME_IDS)}), "unknown_game") from None
        from engines.base import validate_options

        checked = validate_options(engine.info, options)
        try:
            record = await self.repo.create_game(
                game_id=game_id, guild_id=guild_id, channel_id=channel_id, host_user_id=host_user_id,
                host_name=host_name, seed=new_seed(), options=checked, move_timeout=move_timeout,
                open_limit=open_limit)
        except TooManyLobbies as exc:
            raise HostError(Msg("ui.error.too_many_lobbies", {
                "n": len(exc.games), "games": ", ".join(f"#{g}" for g in exc.games)}), "too_many_lobbies") from None
        if not seated:  # (the host runs the lobby without playing)
            record = await self.repo.leave(record.id, host_user_id)
        return record

    @_refuses_storage_faults
    async def join(self, game: int, user_id: int, name: str) -> GameRecord:
        """Seat a user in a lobby.

        Raises:
            HostError: closed or full lobby, already seated.
        """
        async with self.lock(game):
            record = await self.get(game)
            try:
                return await self.repo.join(game, user_id, name, self.engine(record).info.max_players)
            except ValueError as exc:
                raise HostError(lobby_refusal(exc), "lobby") from None

    @_refuses_storage_faults
    async def set_lobby(self, game: int, user_id: int, *, is_moderator: bool, move_timeout: int | None = None,
                        options: dict[str, Any] | None = None) -> GameRecord:
        """Change a lobby's move timer (seconds) and/or some of its options (merged into
        the ones it has, checked by the engine's schema): the host or a moderator only.

        Raises:
            HostError: not a lobby, or not allowed.
            InvalidOptions: a bad option value.
        """
        async with self.lock(game):
            record = await self.get(game)
            if record.status != "lobby":
                raise HostError(Msg("refusal.host.lobby_closed"), "lobby")
            if user_id != record.host_user_id and not is_moderator:
                raise HostError(Msg("refusal.host.lobby_forbidden"), "forbidden")
            from engines.base import validate_options

            fields: dict[str, Any] = {}
            if options:
                fields["options"] = validate_options(self.engine(record).info, {**record.options, **options})
            if move_timeout is not None:
                fields["move_timeout"] = int(move_timeout)
            if fields:
                await self.repo.set_fields(game, **fields)
            return await self.get(game)

    @_refuses_storage_faults
    async def leave(self, game: int, user_id: int) -> GameRecord:
        """Remove a user from a lobby; the lobby closes when its last player leaves.

        Raises:
            HostError: closed lobby, not seated.
        """
        async with self.lock(game):
            try:
                record = await self.repo.leave(game, user_id)
            except ValueError as exc:
                raise HostError(lobby_refusal(exc), "lobby") from None
            if not record.seats:
                await self.repo.set_status(game, "abandoned", expected_version=record.version,
                                           entry=LogEntry(0, "system", None, {"type": "lobby_closed"},
                                                          user_id=user_id))
                record = await self.get(game)
            return record

    @_refuses_storage_faults
    async def start(self, game: int, user_id: int, *, is_moderator: bool) -> ActResult:
        """Start a lobby: the host or a moderator, once the player count fits.

        Raises:
            HostError: not a lobby, not allowed, wrong player count.
        """
        async with self.lock(game):
            record = await self.get(game)
            engine = self.engine(record)
            if record.status != "lobby":
                raise HostError(Msg("ui.error.already_started"), "lobby")
            if user_id != record.host_user_id and not is_moderator:
                raise HostError(Msg("ui.error.start_forbidden"), "forbidden")
            n = len(record.seats)
            if not engine.info.min_players <= n <= engine.info.max_players:
                exact = engine.info.min_players == engine.info.max_players  # ("needs 2 players", not "2–2")
                raise HostError(Msg("ui.error.player_count_exact" if exact else "ui.error.player_count", {
                    "game": {"msg": f"ui.game.{record.game_id}"}, "min": engine.info.min_players,
                    "max": engine.info.max_players, "n": n}), "player_count")
            if sum(s.is_ai for s in record.seats) > n - 1:
                raise HostError(Msg("ai.refuse.no_person", {"game": {"msg": f"ui.game.{record.game_id}"},
                                                            "most": n - 1, "n": n}), "ai_seats")
            state = engine.new_game(n, record.seed, record.options)
            entry = LogEntry(0, "system", None, {"type": "start", "players": n}, user_id=user_id)
            return await self._advance(record, engine, state, [entry], [start_event(n)], players=n,
                                       waiting_before=frozenset())

    @_refuses_storage_faults
    async def rematch(self, game: int, user_id: int, name: str) -> tuple[GameRecord, bool]:
        """A new lobby after the finished ``game``: same game, options,
        timer, server and channel; the same players, seats rotated by one (seat 1 first,
        seat 0 last); the caller, one of its players, is the host. An open lobby that is
        already this rematch is returned instead (``False``: not new).

        Raises:
            HostError: the game is not finished, or the caller did not play in it.
        """
        async with self.lock(game):
            record = await self.get(game)
            if record.status != "finished":
                raise HostError(Msg("refusal.host.rematch_unfinished"), "not_finished")
            if all(s.user_id != user_id for s in record.seats):
                raise HostError(Msg("refusal.host.rematch_not_player"), "not_a_player")
            users = [s.user_id for s in record.seats]
            rotated = record.seats[1:] + record.seats[:1]
            for lobby in await self.repo.games(status=("lobby",), channel_id=record.channel_id):
                if lobby.game_id == record.game_id and lobby.options == record.options \
                        and sorted(s.user_id for s in lobby.seats) == sorted(users):
                    return lobby, False
            new = await self.repo.create_game(
                game_id=record.game_id, guild_id=record.guild_id, channel_id=record.channel_id,
                host_user_id=user_id, host_name=name, seed=new_seed(), options=record.options,
                move_timeout=record.move_timeout)
            await self.repo.leave(new.id, user_id)
            for seat in rotated:  # (an AI seat is an AI again, of its level; a person on autopilot is a person)
                if seat.is_bot:
                    await self.repo.add_ai(new.id, seat.ai_level or DEFAULT_AI_LEVEL, seat.name, len(rotated))
                else:
                    await self.repo.join(new.id, seat.user_id, seat.name, len(rotated))
            return await self.get(new.id), True

    @_refuses_storage_faults
    async def add_ai(self, game: int, level: str, by_user: int, *, is_moderator: bool) -> GameRecord:
        """Seat an AI of ``level`` in a lobby, named ``ai.seat_name``; by the
        host or a moderator.

        Raises:
            HostError: unknown level, not allowed, closed or full lobby.
        """
        from engines.ai import LEVELS

        if level not in LEVELS:
            raise HostError(Msg("ai.refuse.unknown_level", {"level": level[:20]}), "bad_level")
        async with self.lock(game):
            record = await self.get(game)
            if by_user != record.host_user_id and not is_moderator:
                raise HostError(Msg("ai.refuse.not_host"), "forbidden")
            try:
                name = next_ai_name(level, [s.name for s in record.seats if s.is_bot])
                return await self.repo.add_ai(game, level, name, self.engine(record).info.max_players)
            except ValueError as exc:
                raise HostError(lobby_refusal(exc), "lobby") from None

    @_refuses_storage_faults
    async def remove_ai(self, game: int, by_user: int, *, is_moderator: bool) -> GameRecord:
        """Free the last AI seat of a lobby; by the host or a moderator.

        Raises:
            HostError: not allowed, closed lobby, no AI seat.
        """
        record = await self.get(game)
        if by_user != record.host_user_id and not is_moderator:
            raise HostError(Msg("ai.refuse.not_host"), "forbidden")
        bots = [s for s in record.seats if s.is_ai]
        if not bots:
            raise HostError(Msg("ai.refuse.no_ai"), "no_ai")
        return await self.leave(game, bots[-1].user_id)

    @_refuses_storage_faults
    async def set_preferences(self, user_id: int, game_id: str, text: dict[str, str]) -> dict[str, Any]:
        """Store a player's preferences for ``game_id`` after checking them.

        Raises:
            HostError: unknown game.
            InvalidOptions: unknown key or bad value (naming the allowed ones).
        """
        try:
            engine = get_engine(game_id)
        except KeyError:
            raise HostError(Msg("ui.error.unknown_game_id", {"game": str(game_id)[:40], "games": list(GAME_IDS)}), "unknown_game") from None
        from engines.base import EngineInfo, validate_options

        info = EngineInfo(game_id, engine.info.name, "", 1, 1, options=engine.info.preferences)
        checked = validate_options(info, text)
        for key in text:
            await self.repo.set_preference(user_id, game_id, key, str(checked[key]).lower())
        return {k: checked[k] for k in text}


class Play(ServiceCore):
    """Moves: a player's action, an AI seat's, the timeout moves of an expired deadline, and
    taking back one's last action (``undo``)."""

    @_refuses_storage_faults
    async def act(
        self, game: int, user_id: int, action: Action | str, *, expected_version: int | None = None,
        answer: dict[str, Any] | None = None, record: GameRecord | None = None, inflight: InFlight | None = None,
    ) -> ActResult:
        """Apply a player's action (a dict, or notation text parsed by the engine).

        Args:
            expected_version: the version the player saw (from a button); a mismatch is
                refused so a stale panel never acts on a newer position.
            answer: the answer a typed move is owed (``Delivery.answer_ticket``), queued
                in the outbox with the action so it is given even after a crash.
            record: the game as the caller just read it, used instead of reading it again:
                the store takes the move only at that record's version (compare-and-set), and
                a refusal on it (the game may have moved on) is judged again on the game as
                it is now, so the answer is the one a fresh read gives.
            inflight: the move's interaction, acknowledged before the commit (``InFlight``).

        Raises:
            HostError: unknown game, not active, not a player, stale version.
            GameError: the engine's refusal (NotYourTurn, IllegalAction, GameOver); a typed
                move nothing fits lists the closest legal ones (``bot.typed_moves``).
        """
        async with self.lock(game):
            if record is not None and record.id == game:
                try:  # (a refusal may come from a record the game moved past: judged again below)
                    return await self._act_on(record, user_id, action, expected_version, answer, inflight)
                except (HostError, GameError):
                    pass
            return await self._act_on(await self.get(game), user_id, action, expected_version, answer, inflight)

    async def _act_on(self, record: GameRecord, user_id: int, action: Action | str, expected_version: int | None,
                      answer: dict[str, Any] | None, inflight: InFlight | None = None) -> ActResult:
        """``act`` on ``record`` (lock held)."""
        if record.status != "active" or record.paused:
            raise not_running(record)
        seat = record.seat_of(user_id)
        if seat is None:
            raise HostError(Msg("ui.error.not_playing"), "not_a_player")
        if expected_version is not None and expected_version != record.version \
                and not await self.same_choice_since(record, seat, expected_version):
            raise HostError(Msg("ui.error.stale_board"), "stale")
        label = None
        if isinstance(action, str):
            notation, state = self.notation(record), self.state(record)
            action = parse_typed(notation, state, seat, action)
            label = notation.action_label(state, action)
        result = await self._play(record, seat, action, user_id, answer, inflight)
        result.typed_label = label
        return result

    async def _play(self, record: GameRecord, seat: int, action: Action, user_id: int,
                    answer: dict[str, Any] | None = None, inflight: InFlight | None = None) -> ActResult:
        """Apply ``seat``'s ``action`` by ``user_id`` and advance (lock held, checks done)."""
        engine = self.engine(record)
        state = self.state(record)
        action = engine.action_from_json(action)
        waiting_before = frozenset(s for s in engine.to_move(state) if s != CHANCE)
        before = state
        state, events = engine.apply(state, seat, action)
        entry = LogEntry(0, "player", seat, engine.action_to_json(action),
                         [e.to_json() for e in events], user_id=user_id)
        result = await self._advance(record, engine, state, [entry], list(events),
                                     waiting_before=waiting_before, answer=answer, inflight=inflight)
        self._before[(record.id, record.version + 1)] = before  # (its seq: repository.append)
        return result

    async def move_in_flight(self, move: MoveInFlight) -> None:
        """Remember ``move``, acknowledged before its commit (``InFlight.record``)."""
        await self.repo.move_in_flight(move)

    async def settle_in_flight(self, interaction_ids: Sequence[int]) -> None:
        """Forget the moves in flight of ``interaction_ids`` (answered otherwise, or too old)."""
        await self.repo.settle_in_flight(interaction_ids)

    async def moves_in_flight(self) -> list[MoveInFlight]:
        """The moves in flight still stored, of this process's shards: after a restart, the
        moves the crash lost."""
        return await self.repo.moves_in_flight()

    @_refuses_storage_faults
    async def act_for_seat(self, game: int, seat: int, action: Action, *, expected_version: int) -> ActResult:
        """Apply the move the AI chose for ``seat``, exactly as a player's move
        (``act``) by that seat's user: same checks, same log entry, same deliveries.

        Raises:
            HostError: unknown game, not active, paused, ``seat`` is not an active AI seat,
                or the game moved past ``expected_version`` (``stale``).
            GameError: the engine's refusal.
        """
        async with self.lock(game):
            record = await self._running(game)
            seated = next((s for s in record.seats if s.seat == seat and s.status == "active" and s.is_ai), None)
            if seated is None:
                raise HostError(Msg("refusal.host.not_ai", {"seat": seat + 1}), "not_ai")
            if expected_version != record.version:
                raise HostError(Msg("ui.error.stale_board"), "stale")
            return await self._play(record, seat, action, seated.user_id)

    async def same_choice_since(self, record: GameRecord, seat: int, version: int) -> bool:
        """True when a choice ``seat`` made on a panel of ``version`` still means the same now
        (DISCORD.md failure mode 5, simultaneous choices): since then only *other* players
        acted (no chance, no system entry, nothing by ``seat`` itself, so a double click
        stays refused) and ``seat``'s legal actions are exactly the same list."""
        if not 0 < version < record.version or record.state is None:
            return False
        entries = await self.repo.log(record.id)
        if any(e.kind != "player" or e.seat == seat for e in entries if e.seq > version):
            return False
        then = self._replay(record, entries, upto=version)
        if then is None:
            return False
        engine = self.engine(record)
        actions = list(engine.legal_actions(then, seat))
        return bool(actions) and actions == list(engine.legal_actions(self.state(record), seat))

    @_refuses_storage_faults
    async def expire(self, game: int, version: int) -> ActResult | None:
        """Play the timeout moves of every seat the game waits for, if the game is still
        at ``version`` and its deadline has passed (design §5 Time control). Exactly once:
        a second call for the same version finds the version moved and does nothing.

        Returns:
            The result, or None when nothing was due.
        """
        async with self.lock(game):
            record = await self.get(game)
            if (record.status != "active" or record.paused or record.version != version
                    or record.deadline is None or self.clock() < record.deadline):
                return None
            engine = self.engine(record)
            state = self.state(record)
            waiting_before = frozenset(s for s in engine.to_move(state) if s != CHANCE)
            entries: list[LogEntry] = []
            events: list[Event] = []
            played: set[int] = set()
            prefs = await self.seat_preferences(record, engine)
            for seat in sorted(waiting_before):
                # The whole pending turn of a timed-out seat is played (multi-step decisions
                # included), stopping when chance or another seat must act.
                for step in range(MAX_TIMEOUT_STEPS):
                    movers = engine.to_move(state)
                    if seat not in movers or CHANCE in movers or engine.outcome(state) is not None:
                        break
                    # a pre-set answer set while the window was open beats the timeout default
                    action = (engine.auto_action(state, seat, prefs[seat]) if prefs.get(seat) else None) \
                        or engine.timeout_action(state, seat)
                    notes: list[Event] = []
                    if step == 0:
                        # public: only that time ran out (the move itself may be secret, e.g. a
                        # simultaneous pick); the seat's own log shows what was played
                        notes.append(Event("timeout", params={"seat": seat_ref(seat)}))
                    notes.append(Event("timeout_move",
                                       params={"label": _json_text(self.notation(record).action_label(state, action))},
                                       visible_to=frozenset({seat})))
                    state, evs = engine.apply(state, seat, action)
                    entries.append(LogEntry(0, "player", seat, engine.action_to_json(action),
                                            [e.to_json() for e in (*notes, *evs)], user_id=None))
                    events += [*notes, *evs]
                    played.add(seat)
            if not entries:
                return None
            try:
                return await self._advance(record, engine, state, entries, events,
                                           waiting_before=waiting_before,
                                           overdue=waiting_before - frozenset(played))
            except HostError as exc:  # another process moved or expired it first
                if exc.code == "stale":
                    return None
                raise

    # ------------------------------------------------------------------ undo
    def undo_candidate(self, record: GameRecord, entries: Sequence[LogEntry], user_id: int) -> LogEntry | None:
        """The log entry ``user_id`` may take back now, or None (DESIGN §4, strict policy;
        docs/rules/ora.md §5.7 allows several in a row: each undo makes the one before the
        candidate). Allowed only when, counting no entry already undone: the game runs and
        is not paused; the last player or chance entry is the user's own action, made by
        them (not a timeout or a pre-set answer) in their current seat, so no one else
        acted and nothing was rolled or drawn since; it ended nothing and asked no other
        seat to decide; none of its events was told privately to another seat; the spec
        allows taking it back (``Engine.undoable``); and it drew, rolled or showed nothing
        hidden (``Engine.reveals``, the engine's declaration)."""
        seat = record.seat_of(user_id)
        if seat is None or record.status != "active" or record.paused or record.state is None:
            return None
        moves = [e for e in live_entries(entries) if e.kind in ("player", "chance")]
        if not moves:
            return None
        last = moves[-1]
        if last.kind != "player" or last.seat != seat or last.user_id != user_id:
            return None
        if any(ev.get("visible_to") is not None and set(ev["visible_to"]) - {seat} for ev in last.events):
            return None
        engine = self.engine(record)
        after = self.state(record)
        key = (record.id, last.seq)
        before = self._before.get(key)
        if before is None:
            before = self._replay(record, [e for e in entries if e.seq != last.seq])
        if before is None or engine.outcome(after) is not None \
                or not engine.undoable(before, seat, last.action, after):  # (the spec's own finality)
            return None
        waiting_before = engine.to_move(before)
        if seat not in waiting_before or not (engine.to_move(after) - {seat, CHANCE}) <= waiting_before:
            return None
        return None if engine.reveals(before, seat, last.action, after) else last

    def _final_by_rules(self, record: GameRecord, entries: Sequence[LogEntry], user_id: int) -> bool:
        """Whether the caller's own last action (in their current seat) is one the spec makes
        final (``Engine.undoable``: Canterbury, Heaven and E Guan let nothing be taken back;
        Carnival's pick once every player has picked): the refusal then says so, instead of
        naming the host's conditions, which would suggest an undo might be possible."""
        seat = record.seat_of(user_id)
        mine = next((e for e in reversed(live_entries(entries))
                     if e.kind == "player" and e.user_id == user_id and e.seat == seat), None)
        if seat is None or mine is None:
            return False
        before = self._replay(record, entries, upto=mine.seq - 1)
        after = self._replay(record, entries, upto=mine.seq)
        return before is not None and after is not None \
            and not self.engine(record).undoable(before, seat, mine.action, after)

    def _last_move(self, entries: Sequence[LogEntry]) -> LogEntry | None:
        """The last player or chance entry of ``entries`` that no ``undo`` among them took
        back (an undo names earlier entries only, so a tail of the log answers for itself)."""
        undone = undone_seqs(entries)
        return next((e for e in reversed(entries) if e.seq not in undone and e.kind in ("player", "chance")), None)

    async def can_undo(self, record: GameRecord, user_id: int) -> bool:
        """Whether ``user_id`` may undo in ``record`` now (``undo_candidate``); the cheap
        checks come first, the log is read only for a seated player of a running game, once
        per (game, version, user): every change of the log, the seats or the status moves the
        version (bot/storage ``append``, ``_system_change``), so the verdict of a version
        never changes (a move asks it for the panel before and after)."""
        if record.seat_of(user_id) is None or record.status != "active" or record.paused:
            return False
        key = (record.id, record.version, user_id)
        known = self._undoable.get(key)
        if known is None:
            known = self._undoable[key] = await self._can_undo(record, user_id)
        return known

    async def _can_undo(self, record: GameRecord, user_id: int) -> bool:
        entries = await self.repo.log(record.id, last=UNDO_TAIL, upto=record.version)  # (from memory, mostly)
        if len(entries) == UNDO_TAIL:  # (a shorter tail is the whole log)
            last = self._last_move(entries)
            if last is None or (last.kind == "player" and last.user_id == user_id
                                and (record.id, last.seq) not in self._before):
                entries = await self.repo.log(record.id, upto=record.version)  # (the replay needs it all)
        return self.undo_candidate(record, entries, user_id) is not None

    @_refuses_storage_faults
    async def undo(self, game: int, user_id: int, *, expected_version: int | None = None) -> ActResult:
        """Take back the caller's last action (``undo_candidate``): appends an ``undo``
        system entry naming it (the log keeps it; every replay skips it) with the public
        event ``table.undo``, and stores the state rebuilt without it. The clock runs on:
        the deadline the seat had is kept (an undo never buys time).

        Raises:
            HostError: no such game; a stale panel (``expected_version``); nothing the
                caller may undo now (code ``undo``).
        """
        async with self.lock(game):
            record = await self.get(game)
            if expected_version is not None and expected_version != record.version:
                raise HostError(Msg("refusal.host.undo_stale"), "stale")
            entries = await self.repo.log(game)
            last = self.undo_candidate(record, entries, user_id)
            seat = record.seat_of(user_id)
            if last is None or seat is None:
                final = seat is not None and self._final_by_rules(record, entries, user_id)
                raise HostError(Msg("refusal.host.undo_final" if final else "refusal.host.undo_now"), "undo")
            engine = self.engine(record)
            state = self._replay(record, [e for e in entries if e.seq != last.seq])
            assert state is not None  # (undo_candidate replayed it)
            # (an action that showed nothing to the table, such as a step awaiting the player's own
            # confirmation, is taken back without telling the table: the notice would reveal it)
            public = engine.player_view(self.state(record), None) != engine.player_view(state, None)
            events = [Event("table.undo", params={"seat": seat_ref(seat)})] if public else []
            entry = LogEntry(0, "system", None, {"type": UNDO, "seqs": [last.seq]}, [e.to_json() for e in events],
                             user_id=user_id)
            waiting = frozenset(s for s in engine.to_move(self.state(record)) if s != CHANCE) | {seat}
            return await self._advance(record, engine, state, [entry], events, waiting_before=waiting,
                                       keep_clock=True)


class Moderation(Lobbies):
    """What changes who plays a seat, or whether the game runs: a seat handed to the AI, a
    moderator's end, replace, kick and pause, a player's resignation."""

    @_refuses_storage_faults
    async def hand_to_ai(self, game: int, seat: int, level: str | None, by_user: int | None, *,
                         reason: str, new_bot: bool) -> GameRecord:
        """Hand a running game's ``seat`` to the AI at ``level`` (None: back to its person),
        logged as a system entry ``{"type": "ai_seat", "seat", "level", "reason"}`` (with a
        new AI also the old holder's ``holder_entry``)
        (``reason``: ``autopilot``, ``replace`` or ``kick``). With ``new_bot`` the seat gets
        a new synthetic user id and the AI's name (a moderator's replace or kick: the person
        is gone); otherwise the person keeps the seat (autopilot: they may take it back).

        Raises:
            HostError: unknown level, game not running, no such seat, or the change would
                leave no person at the table.
        """
        from engines.ai import LEVELS

        if level is not None and level not in LEVELS:
            raise HostError(Msg("ai.refuse.unknown_level", {"level": level[:20]}), "bad_level")
        async with self.lock(game):
            record = await self.get(game)
            if record.status != "active":
                raise HostError(Msg("ai.refuse.not_running"), "not_active")
            if not 0 <= seat < len(record.seats):
                raise HostError(Msg("refusal.host.no_seat", {"seat": seat + 1}), "bad_seat")
            if level is not None and is_last_person(record, seat):
                raise HostError(Msg("ai.refuse.last_person"), "ai_seats")
            old = record.user_of(seat)
            from bot.storage.records import bot_user_id

            user_id = bot_user_id(record) if new_bot else None
            name = None
            if new_bot and level is not None:  # (the AIs it had: seated, and those a replace or kick took out)
                gone = [e.action["old_name"] for e in await self.repo.log(game) if e.kind == "system"
                        and e.action.get("type") in HOLDER_CHANGES and isinstance(e.action.get("old_level"), str)]
                name = next_ai_name(level, [*(s.name for s in record.seats if s.is_bot), *gone])
            await self.repo.set_seat_ai(
                game, seat, level, expected_version=record.version, user_id=user_id, name=name,
                entry=LogEntry(0, "system", None, {"type": "ai_seat", "seat": seat, "level": level,
                                                   "reason": reason, "old_user": old,
                                                   **(holder_entry(record, seat) if new_bot else {})},
                               user_id=by_user))
        self.changed(game)
        return await self.get(game)

    @_refuses_storage_faults
    async def end(self, game: int, by_user: int, reason: str = "",
                  notice: dict[str, Any] | None = None) -> GameRecord:
        """End (abandon) a lobby or running game; logged. ``notice``: the payload of its
        announcement, queued in the same transaction (``notice_rows``).

        Raises:
            HostError: already over.
        """
        async with self.lock(game):
            record = await self.get(game)
            if record.status not in ("lobby", "active"):
                raise HostError(Msg("ui.error.already_over"), "not_active")
            await self.repo.set_status(
                game, "abandoned", expected_version=record.version,
                entry=LogEntry(0, "system", None, {"type": "end", "reason": reason}, user_id=by_user),
                outbox=notice_rows(record.version + 1, notice))
        self.changed(game)  # (parked panels say the game is over: bot/ui/parked.py)
        return await self.get(game)

    @_refuses_storage_faults
    async def replace(self, game: int, seat: int, user_id: int, name: str, by_user: int,
                      notice: dict[str, Any] | None = None) -> GameRecord:
        """Give ``seat`` to another user (by id; works after the old one left the server); logged,
        with the announcement ``notice`` queued in the same transaction (``notice_rows``).

        Raises:
            HostError: no such seat, game over, or the new user already plays.
        """
        async with self.lock(game):
            record = await self.get(game)
            if record.status != "active":
                raise HostError(Msg("ui.error.replace_not_running"), "not_active")
            if not 0 <= seat < len(record.seats):
                raise HostError(Msg("ui.error.bad_seat", {"seat": seat + 1}), "bad_seat")
            if record.seat_of(user_id) is not None:
                raise HostError(Msg("ui.error.already_seated"), "already_seated")
            old = record.user_of(seat)
            await self.repo.replace_seat(
                game, seat, user_id, name, expected_version=record.version,
                entry=LogEntry(0, "system", None, {"type": "replace", "seat": seat, "old_user": old,
                                                   "new_user": user_id, **holder_entry(record, seat)},
                               user_id=by_user),
                outbox=notice_rows(record.version + 1, notice))
            self.changed(game)  # (a seat handed over: parked panels and the AI driver look again)
            return await self.get(game)

    @_refuses_storage_faults
    async def kick(self, game: int, user_id: int, by_user: int, notice: dict[str, Any] | None = None, *,
                   abandoned_notice: dict[str, Any] | None = None) -> ActResult | GameRecord:
        """Remove a player: from a lobby, their seat; in a running game, their seat is
        marked left and its moves are played automatically from now on; logged. When no
        other seat would be played by a person (``is_last_person``), the game ends instead,
        as a resign does (docs/DESIGN.md §4 "Resign"): status ``abandoned``, one ``kick``
        entry marked ``"abandoned": true``, the announcement ``abandoned_notice``, no ratings
        change; the ``GameRecord`` is returned.

        Raises:
            HostError: not seated.
        """
        record = await self.get(game)
        if record.status == "lobby":
            return await self.leave(game, user_id)
        seat = record.seat_of(user_id)
        if seat is not None and record.status == "active" and is_last_person(record, seat):
            return await self._abandon_on_leaving(game, user_id, seat, "kick", by_user, (), abandoned_notice)
        return await self._seat_leaves(game, user_id, "kick", by_user, notice=notice)

    async def _seat_leaves(self, game: int, user_id: int, kind: str, by_user: int,
                           events: Sequence[Event] = (), notice: dict[str, Any] | None = None) -> ActResult:
        """Mark ``user_id``'s seat left with a system entry ``kind`` (``kick``, ``resign``)
        carrying ``events``, then play what the seat now owes (``stand_in_action``).

        Raises:
            HostError: the game is over; the user has no seat in this running game.
        """
        async with self.lock(game):
            record = await self.get(game)
            seat = record.seat_of(user_id)
            if record.status in ("finished", "abandoned"):
                raise HostError(Msg("ui.error.already_over"), "not_active")
            if seat is None or record.status != "active":
                raise HostError(Msg("ui.error.member_not_playing"), "not_a_player")
            await self.repo.mark_seat_left(
                game, seat, expected_version=record.version,
                entry=LogEntry(0, "system", None, {"type": kind, "seat": seat, "user": user_id},
                               [e.to_json() for e in events], user_id=by_user),
                outbox=notice_rows(record.version + 1, notice))
            record = await self.get(game)
            engine = self.engine(record)
            state = self.state(record)
            waiting = frozenset(s for s in engine.to_move(state) if s != CHANCE)
            return await self._advance(record, engine, state, [], [], waiting_before=waiting)

    @_refuses_storage_faults
    async def resign(self, game: int, user_id: int, notice: dict[str, Any] | None = None, *,
                     abandoned_notice: dict[str, Any] | None = None) -> ActResult | GameRecord:
        """The caller resigns a running game: their seat is marked left
        with a ``resign`` system entry (public event ``table.resign``) and from now on plays
        by ``stand_in_action``; it stays in the ranking, after every seat that stayed
        (``table_outcome``). Returns the ``ActResult`` of what the seat then owed.

        When no other seat would be played by a person (only AIs, autopilots and seats that
        left: ``is_last_person``), the game ends instead: status ``abandoned`` with one
        ``resign`` entry marked ``"abandoned": true``, no ratings change (docs/DESIGN.md §4
        "Resign"); the ``GameRecord`` is returned.

        Raises:
            HostError: the caller has no seat in this running game.
        """
        record = await self.get(game)
        seat = record.seat_of(user_id)
        if seat is None or record.status != "active":
            raise HostError(Msg("refusal.host.not_playing"), "not_a_player")
        events = [Event("table.resign", params={"seat": seat_ref(seat)})]
        if not is_last_person(record, seat):
            return await self._seat_leaves(game, user_id, "resign", user_id, events, notice)
        return await self._abandon_on_leaving(game, user_id, seat, "resign", user_id, events, abandoned_notice)

    async def _abandon_on_leaving(self, game: int, user_id: int, seat: int, kind: str, by_user: int,
                                  events: Sequence[Event], notice: dict[str, Any] | None) -> GameRecord:
        """End ``game`` as abandoned because the last person at it leaves (``kind``:
        ``resign`` or ``kick``): one ``kind`` system entry marked ``"abandoned": true``
        carrying ``events``, with the announcement ``notice`` queued in the same transaction.

        Raises:
            HostError: ``user_id`` no longer plays ``seat`` of this running game.
        """
        async with self.lock(game):
            record = await self.get(game)
            if record.seat_of(user_id) != seat or record.status != "active":
                raise HostError(Msg("refusal.host.not_playing"), "not_a_player")
            await self.repo.set_status(
                game, "abandoned", expected_version=record.version,
                entry=LogEntry(0, "system", None, {"type": kind, "seat": seat, "user": user_id, "abandoned": True},
                               [e.to_json() for e in events], user_id=by_user),
                outbox=notice_rows(record.version + 1, notice))
        self.changed(game)
        return await self.get(game)

    @_refuses_storage_faults
    async def set_paused(self, game: int, paused: bool, by_user: int | None = None,
                         notice: dict[str, Any] | None = None) -> GameRecord:
        """Pause or resume a running game's clock and moves; logged (a system entry
        ``pause``/``resume``). On resume the clock gets back the time that was left when
        it was paused.

        Raises:
            HostError: the game is not running, or already paused / running.
        """
        async with self.lock(game):
            record = await self.get(game)
            if record.status != "active" or record.state is None:
                raise HostError(Msg("ui.error.pause_not_running"), "not_active")
            if record.paused == paused:
                raise HostError(Msg("ui.error.already_paused" if paused else "ui.error.already_running"), "paused")
            deadline = record.deadline
            if not paused and deadline is not None:
                paused_at = next((e.at for e in reversed(await self.repo.log(game))
                                  if e.kind == "system" and e.action.get("type") == "pause"), self.clock())
                deadline = self.clock() + max(0.0, deadline - paused_at)
            entry = LogEntry(0, "system", None, {"type": "pause" if paused else "resume"}, user_id=by_user)
            try:
                await self.repo.append(game, record.version, [entry], state=record.state, status=record.status,
                                       deadline=deadline, waiting=record.waiting, window=record.deadline_window,
                                       reminded=record.reminded, outbox=notice_rows(record.version + 1, notice))
            except StaleVersion:
                raise HostError(Msg("ui.error.changed_meanwhile"), "stale") from None
            await self.repo.set_fields(game, paused=int(paused))
        if not paused:
            self.changed(game)  # (an AI seat waited for moves on at once)
        return await self.get(game)


class Clockwork(ServiceCore):
    """What the clock reads and claims: due games, reminders, moved deadlines, vacation days,
    quiet hours and the pings held back through them (bot/ui/clock.py runs it)."""

    async def due(self, now: float) -> list[GameRecord]:
        """Active, unpaused games with a deadline whose next reminder or expiry is due (50 %, 90 % of the
        window, and the deadline itself), of the servers on this process's shards."""
        return await self.repo.due(now)

    async def claim_reminder(self, game: int, version: int, count: int, seats: Sequence[int]) -> bool:
        """``mark_reminded``, and in the same transaction queue the reminder as a ``ping`` row (payload
        ``seats``, ``reminder``: ``count``): sent once by the outbox, with its nonce, whatever crashes."""
        return await self.repo.claim_reminder(game, version, count, seats)

    async def set_deadline(self, game: int, version: int, deadline: float, *, window: int | None = None,
                           vacations: dict[str, dict[str, int]] | None = None) -> bool:
        """Move the deadline of ``game`` at ``version`` (quiet hours, a vacation day): with ``window`` its
        reminders start over; ``vacations`` replaces the vacation record."""
        return await self.repo.set_deadline(game, version, deadline, window=window, vacations=vacations)

    async def set_vacation(self, game: int, user_id: int, days: int) -> bool:
        """Give the player ``user_id`` of the lobby ``game`` ``days`` vacation days (0 clears them)."""
        return await self.repo.set_vacation(game, user_id, days)

    async def quiet_hours(self, guild_id: int) -> tuple[int, int, str] | None:
        """The quiet hours of a server: ``(start, end, zone)`` in minutes after local midnight and the zone
        name, or None."""
        return await self.repo.quiet_hours(guild_id)

    async def set_quiet_hours(self, guild_id: int, hours: tuple[int, int, str] | None) -> None:
        """Set (or clear with None) the quiet hours of a server."""
        return await self.repo.set_quiet_hours(guild_id, hours)

    async def defer_pings(self, game: int, seats: Sequence[int]) -> None:
        """Hold the pings of ``seats`` back until the server's quiet hours end."""
        return await self.repo.defer_pings(game, seats)

    async def deferred_pings(self) -> dict[int, list[int]]:
        """The pings held back: seats by game, oldest game first (of this process's shards)."""
        return await self.repo.deferred_pings()

    async def clear_deferred_pings(self, game: int) -> bool:
        """Forget the held-back pings of ``game`` (sent, or nobody waits any more)."""
        return await self.repo.clear_deferred_pings(game)


class People(ServiceCore):
    """What a person or a server chose and what they follow: moderator roles, languages, DM
    settings and messages, games watched, and the ratings shown to them."""

    async def preferences(self, user_id: int, game_id: str) -> dict[str, str]:
        """Every stored preference of a user for one game (key -> raw text value)."""
        return await self.repo.preferences(user_id, game_id)

    async def moderator_role(self, guild_id: int) -> int | None:
        """The moderator role set for a guild, or None."""
        return await self.repo.moderator_role(guild_id)

    async def locales(self) -> tuple[dict[int, str], dict[int, str]]:
        """The languages chosen with ``/game language``: ``({guild id: locale}, {user id:
        locale})``, catalog locales."""
        return await self.repo.locales()

    async def set_user_locale(self, user_id: int, locale: str | None) -> None:
        """Set (or clear with None: their Discord client's again) a user's own language."""
        return await self.repo.set_user_locale(user_id, locale)

    async def set_guild_locale(self, guild_id: int, locale: str | None) -> None:
        """Set (or clear with None: Discord's preferred locale again) a server's language."""
        return await self.repo.set_guild_locale(guild_id, locale)

    async def notify_settings(self, user_id: int, game: int) -> tuple[bool, bool]:
        """``(hands, turns)``: whether ``user_id`` gets DM hands and DM turn notices for ``game``."""
        return await self.repo.notify_settings(user_id, game)

    async def set_notify(self, user_id: int, game: int, *, hands: bool | None, turns: bool | None) -> None:
        """Store DM settings of ``user_id`` for ``game`` (0: every game); None leaves one as it was."""
        return await self.repo.set_notify(user_id, game, hands=hands, turns=turns)

    async def dm_block(self, user_id: int) -> list[int] | None:
        """The games told that ``user_id``'s DMs are refused, or None when DMs are not paused."""
        return await self.repo.dm_block(user_id)

    async def block_dms(self, user_id: int, told: Sequence[int] = ()) -> None:
        """Pause DMs to ``user_id`` (a DM was refused)."""
        return await self.repo.block_dms(user_id, told)

    async def clear_dm_block(self, user_id: int) -> bool:
        """Let DMs to ``user_id`` be tried again; True when they were paused."""
        return await self.repo.clear_dm_block(user_id)

    async def dm_message(self, game: int, user_id: int, kind: str) -> tuple[int, int, str | None] | None:
        """The stored DM message of ``kind`` (``"hand"`` or ``"turn"``)."""
        return await self.repo.dm_message(game, user_id, kind)

    async def set_dm_message(self, game: int, user_id: int, kind: str, channel_id: int, message_id: int,
                             shown: str | None = None) -> None:
        """Store (or replace)."""
        return await self.repo.set_dm_message(game, user_id, kind, channel_id, message_id, shown)

    async def watch(self, game: int, user_id: int, mode: str) -> None:
        """Follow ``game`` as a spectator (``mode`` ``"board"`` or ``"end"``); a second call changes the
        mode."""
        return await self.repo.watch(game, user_id, mode)

    async def unwatch(self, game: int, user_id: int) -> tuple[int, int] | None:
        """Stop following ``game``: the DM board message ``(channel_id, message_id)`` it had, if any; None when
        the user did not watch it."""
        return await self.repo.unwatch(game, user_id)

    async def watchers(self, game: int) -> list[tuple[int, str, int | None, int | None, int]]:
        """``(user_id, mode, channel_id, message_id, shown version)`` of ``game``'s spectators."""
        return await self.repo.watchers(game)

    async def set_watcher_message(self, game: int, user_id: int, channel_id: int, message_id: int,
                                  shown: int) -> None:
        """Remember the spectator's DM board message and the version it shows."""
        return await self.repo.set_watcher_message(game, user_id, channel_id, message_id, shown)

    async def ratings(self, guild_id: int, game_id: str | None = None, *, user_id: int | None = None,
                      limit: int = 100) -> list[tuple[str, int, float, float, int, int]]:
        """Stored ratings of a server, ``(game_id, user_id, mu, sigma, games, wins)``, best first (by ``mu -
        3·sigma``, openskill's ordinal); of one game and/or one user."""
        return await self.repo.ratings(guild_id, game_id, user_id=user_id, limit=limit)


class Operations(ServiceCore):
    """The operator's: the figures of ``/game status``, forgetting a person, and purging the
    servers that removed the bot."""

    async def operator_counts(self, *, day_start: float, hour_ago: float,
                              guild_id: int | None = None) -> dict[str, int]:
        """The figures of ``/game status`` (of one server, or of every one with None): ``active`` running games,
        ``finished`` games finished since ``day_start`` (their last change), ``actions`` log entries since
        ``hour_ago`` and ``pending`` deliveries not yet done (unix seconds)."""
        return await self.repo.operator_counts(day_start=day_start, hour_ago=hour_ago, guild_id=guild_id)

    async def database_bytes(self) -> int | None:
        """The database's size in bytes (SQLite: the file and its WAL; PostgreSQL: ``pg_database_size``); None
        for an in-memory database."""
        return await self.repo.database_bytes()

    async def delete_user_data(self, user_id: int) -> int:
        """Forget a user's preferences, DM settings, games watched and ratings (data-deletion path)."""
        return await self.repo.delete_user_data(user_id)

    async def anonymise_user(self, user_id: int, names: Callable[[int], str]) -> list[int]:
        """Replace ``user_id`` by ``ANON_USER`` in every game where their seat is over: the finished and
        abandoned games, and the running ones they left (resigned, kicked): the seat (its name becomes
        ``names(seat)``), the log entries' user, the ``user`` of kick and resign entries and the ``old_user`` /
        ``new_user`` of replace and AI-seat entries, and the host of games that are over."""
        return await self.repo.anonymise_user(user_id, names)

    async def schedule_guild_purge(self, guild_id: int, left_at: float, purge_at: float) -> None:
        """Remember that the bot left ``guild_id`` at ``left_at``: its data is purged at ``purge_at`` (a second
        call keeps the first departure's times)."""
        return await self.repo.schedule_guild_purge(guild_id, left_at, purge_at)

    async def cancel_guild_purge(self, guild_id: int) -> bool:
        """The bot is back in ``guild_id``: its purge is called off."""
        return await self.repo.cancel_guild_purge(guild_id)

    async def guild_purges(self, due_by: float | None = None) -> list[tuple[int, float, float]]:
        """``(guild_id, left_at, purge_at)`` of the servers waiting for their purge (those due by ``due_by``
        only, when given), soonest first."""
        return await self.repo.guild_purges(due_by)

    async def purge_guild(self, guild_id: int) -> int:
        """Delete everything stored about ``guild_id``: its games (their seats, logs, deliveries, DM messages,
        spectators and marks go with them), settings, ratings and its pending purge."""
        return await self.repo.purge_guild(guild_id)

    async def archive_ended(self, before: float) -> list[int]:
        """Move up to a batch (``ARCHIVE_BATCH``) of the games that ended (finished or abandoned)
        before ``before`` to the archive (bot/storage/archive.py); their ids."""
        return await self.repo.archive_ended(before)


class GameService(Moderation, Play, Clockwork, People, Operations):
    """Creates lobbies, starts games and applies actions (design §4), the one door of the
    host to storage: ``Lobbies``, ``Play``, ``Moderation``, ``Clockwork``, ``People`` and
    ``Operations`` on one ``ServiceCore``; here the checks of stored games against their
    logs (start-up and ``make check``).

    Args:
        repo: an open ``Repository``.
        clock: unix time in seconds (injectable for tests).
    """

    async def upgrade_snapshots(self) -> list[int]:
        """Rebuild the snapshot of every started game stored under an older
        ``state_version`` of its engine, by replaying its log (each action through
        ``Engine.upgrade_action``): DESIGN §4, the log is the truth. Run at start-up and
        by ``python -m bot.check``; returns the ids of the games rebuilt.

        Raises:
            GameError: a log that no longer replays (the engine change broke old games).
        """
        rebuilt = []
        back = await self.repo.restore_other_versions({gid: get_engine(gid).info.state_version for gid in GAME_IDS})
        if back:  # (archived under an older state_version: rebuilt in the hot tables, archived again later)
            log.info("%d archived games are back in the hot tables to rebuild their snapshots", len(back))
        for record in await self.repo.games(status=("active", "finished", "abandoned")):
            engine = self.engine(record)
            stored = (record.state or {}).get("state_version")
            if record.state is None or stored == engine.info.state_version:
                continue
            entries = await self.repo.log(record.id)
            old = int(stored) if isinstance(stored, int) else 0
            upgraded = [replace(e, action=engine.upgrade_action(dict(e.action), old))
                        if e.kind in ("player", "chance") else e for e in entries]
            state = self._replay(record, upgraded)
            if state is not None and await self.repo.replace_snapshot(
                    record.id, record.version, engine.state_to_json(state)):
                log.info("game %s: snapshot rebuilt from state_version %s to %s", record.id, stored,
                         engine.info.state_version)
                rebuilt.append(record.id)
        return rebuilt

    async def replay_steps(self, record: GameRecord) -> list[ReplayStep]:
        """The public steps of a game's log (``/game replay``): the start,
        then one step per player entry not undone (the chance entries that follow it folded
        in), each with the public view after it and its public events (JSON); an entry the
        engine pauses in (``Engine.replay_stages``: Carnival's automatic round 7) adds a step
        per pause after the first; each step has the rulebook's unit it is in
        (``Notation.replay_marks``: the jump menu's rounds, turns, phases). Only
        ``player_view(state, None)`` is kept, so nothing private is in them.

        Raises:
            HostError: the game has not started.
        """
        if record.state is None:
            raise HostError(Msg("refusal.host.not_started"), "not_started")
        engine = self.engine(record)
        steps: list[ReplayStep] = []
        states: list[State] = []  # (the state of each step, for its mark)
        state: State | None = None
        for e in live_entries(await self.repo.log(record.id)):
            public = [ev for ev in e.events if ev.get("visible_to") is None]
            if e.kind == "system" and e.action.get("type") == "start":
                state = engine.new_game(int(e.action["players"]), record.seed, record.options)
                steps.append(ReplayStep(e.seq, None, engine.player_view(state, None),
                                        [start_event(int(e.action["players"])).to_json()]))
                states.append(state)
            elif e.kind in ("player", "chance") and state is not None:
                stages = engine.replay_stages(state, CHANCE if e.kind == "chance" else int(e.seat or 0), e.action)
                state = stages[-1][0]
                cuts = [0]
                for _, evs in stages:
                    cuts.append(cuts[-1] + len(evs))
                if cuts[-1] != len(e.events):  # (events stored by an older engine: one step)
                    stages, cuts = stages[-1:], [0, len(e.events)]
                for k, (stage, _) in enumerate(stages):  # (an engine's pause inside one entry: a step of its own)
                    view = engine.player_view(stage, None)
                    shown = [ev for ev in e.events[cuts[k]:cuts[k + 1]] if ev.get("visible_to") is None]
                    if k == 0 and e.kind == "chance" and steps:
                        steps[-1] = replace(steps[-1], seq=e.seq, view=view, events=[*steps[-1].events, *shown])
                        states[-1] = stage
                    else:
                        steps.append(ReplayStep(e.seq, e.seat, view, shown))
                        states.append(stage)
            elif steps and public:  # (a system entry with public lines: resign, undo)
                steps[-1] = replace(steps[-1], events=[*steps[-1].events, *public])
        marks = self.notation(record).replay_marks(states, [step.view for step in steps])
        return [replace(step, mark=None if mark is None else mark.to_json())
                for step, mark in zip(steps, marks, strict=True)]

    async def replay_matches(self, game: int) -> bool:
        """True when replaying the log from ``new_game(seed)`` equals the stored snapshot."""
        record = await self.get(game)
        if record.state is None:
            return True
        state = self._replay(record, await self.repo.log(game))
        return state is not None and self.engine(record).state_to_json(state) == record.state
