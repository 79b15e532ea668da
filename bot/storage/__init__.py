"""Storage: schema migrations and the stores (the only SQL in the project), on SQLite or
PostgreSQL (bot/storage/backend.py), together the ``Repository``."""

from bot.storage.records import (
    GameRecord,
    LeaseLost,
    LogEntry,
    MoveInFlight,
    OutboxItem,
    OutboxRow,
    SeatRecord,
    Shards,
    StaleVersion,
    StorageBusy,
    StorageCorrupt,
    StorageError,
    StorageUnwritable,
    TooManyLobbies,
)
from bot.storage.repository import Repository

__all__ = ["GameRecord", "LeaseLost", "LogEntry", "MoveInFlight", "OutboxItem", "OutboxRow", "Repository", "SeatRecord", "Shards", "StaleVersion",
           "StorageBusy", "StorageCorrupt", "StorageError", "StorageUnwritable", "TooManyLobbies"]
