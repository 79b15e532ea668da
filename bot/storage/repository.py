"""The repository: the stores of bot/storage on one database (design §2, §4).

Each store is a class of its own, on the one ``Database`` (connection, transactions,
migrations): ``GameStore`` (games and seats), ``LogStore`` (the action log), ``ClockStore``
(deadlines, reminders, quiet hours), ``OutboxStore`` (deliveries), ``PeopleStore``
(preferences, languages, DMs, spectators), ``RatingStore``, ``OperationsStore`` (whole
tables, forget-me, server purges), ``InFlightStore`` (moves acknowledged, not yet
committed) and ``ArchiveStore`` (games long over, compressed). ``Repository`` is all of them on one database: SQLite's one connection, or
PostgreSQL's pool.
"""

from __future__ import annotations

from bot.storage.archive import ArchiveStore
from bot.storage.clock import ClockStore
from bot.storage.gamelog import LogStore
from bot.storage.games import GameStore
from bot.storage.inflight import InFlightStore
from bot.storage.operations import OperationsStore
from bot.storage.outbox import OutboxStore
from bot.storage.people import PeopleStore
from bot.storage.ratings import RatingStore


class Repository(GameStore, LogStore, ClockStore, OutboxStore, PeopleStore, RatingStore, OperationsStore,
                 InFlightStore, ArchiveStore):
    """Every store on one ``Database``: its connection or pool, one set of caches (the
    arguments are ``Database``'s)."""
