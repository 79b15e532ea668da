"""Storage: schema migrations and the repository (the only SQL in the project), on SQLite or
PostgreSQL (bot/storage/backend.py)."""

from bot.storage.repository import (
    GameRecord,
    LogEntry,
    OutboxItem,
    OutboxRow,
    Repository,
    SeatRecord,
    Shards,
    StaleVersion,
    StorageBusy,
    StorageCorrupt,
    StorageError,
    StorageUnwritable,
    TooManyLobbies,
)

__all__ = ["GameRecord", "LogEntry", "OutboxItem", "OutboxRow", "Repository", "SeatRecord", "Shards", "StaleVersion",
           "StorageBusy", "StorageCorrupt", "StorageError", "StorageUnwritable", "TooManyLobbies"]
