"""Storage: SQLite schema migrations and the repository (the only SQL in the project)."""

from bot.storage.repository import GameRecord, LogEntry, Repository, SeatRecord, StaleVersion

__all__ = ["GameRecord", "LogEntry", "Repository", "SeatRecord", "StaleVersion"]
