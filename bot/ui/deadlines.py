"""Vacation days and quiet hours as values (the clock that applies them: bot/ui/clock.py):
the zone and time-of-day parsers, ``QuietHours``, a server's quiet hours and a deadline
moved out of them (``fit_deadline``)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.service import HostError
from bot.storage import GameRecord
from bot.ui.context import Parts
from engines.base import Msg

DAY = 86400
"""Seconds in one vacation day."""

MAX_VACATION_DAYS = 30
"""The most vacation days a player can set for one game."""

_OFFSET = re.compile(r"(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)
_CLOCK = re.compile(r"(\d{1,2})(?::(\d{2}))?")


def parse_zone(name: str) -> dt.tzinfo:
    """``"UTC"``, ``"UTC+2"``, ``"-05:30"`` or an IANA name (``"Europe/Berlin"``) as a zone.

    Raises:
        HostError: not a zone this server knows.
    """
    text = name.strip()
    if text.upper() in ("", "UTC", "GMT", "Z"):
        return dt.UTC
    if m := _OFFSET.fullmatch(text):
        hours, minutes = int(m[2]), int(m[3] or 0)
        if hours <= 14 and minutes < 60:
            sign = 1 if m[1] == "+" else -1
            return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise HostError(Msg("ui.error.bad_zone", {"zone": name[:40]}), "bad_zone") from None


def parse_clock(text: str) -> int:
    """``"22:30"`` or ``"7"`` → minutes after midnight.

    Raises:
        HostError: not a time of day.
    """
    m = _CLOCK.fullmatch(text.strip())
    if not m or int(m[1]) > 23 or int(m[2] or 0) > 59:
        raise HostError(Msg("ui.error.bad_clock", {"value": text[:40]}), "bad_time")
    return int(m[1]) * 60 + int(m[2] or 0)


@dataclass(frozen=True)
class QuietHours:
    """A server's quiet hours: from ``start`` to ``end`` (minutes after local midnight; a
    period over midnight when ``start > end``) in ``zone``."""

    start: int
    end: int
    zone: str = "UTC"

    def _local(self, t: float) -> dt.datetime:
        return dt.datetime.fromtimestamp(t, parse_zone(self.zone))

    def contains(self, t: float) -> bool:
        """True when unix time ``t`` falls inside the quiet hours."""
        local = self._local(t)
        minute = local.hour * 60 + local.minute
        if self.start < self.end:
            return self.start <= minute < self.end
        if self.start > self.end:
            return minute >= self.start or minute < self.end
        return False

    def end_after(self, t: float) -> float:
        """The unix time the quiet period holding ``t`` ends (``t`` itself when outside)."""
        if not self.contains(t):
            return t
        local = self._local(t)
        end = local.replace(hour=self.end // 60, minute=self.end % 60, second=0, microsecond=0)
        if end <= local:
            end += dt.timedelta(days=1)
        return end.timestamp()

    def describe(self) -> str:
        """``"22:00–07:00 (Europe/Berlin)"``."""
        return f"{self.start // 60:02d}:{self.start % 60:02d}–{self.end // 60:02d}:{self.end % 60:02d} ({self.zone})"


async def quiet_hours(ctx: Parts, guild_id: int | None) -> QuietHours | None:
    """The quiet hours of a server, or None (none set, or a DM game)."""
    if not guild_id:
        return None
    stored = await ctx.service.quiet_hours(guild_id)
    return None if stored is None else QuietHours(*stored)


async def fit_deadline(ctx: Parts, record: GameRecord) -> GameRecord:
    """``record`` with a deadline that falls inside its server's quiet hours moved to
    their end (stored, so every timestamp shown is the real one)."""
    if record.status != "active" or record.deadline is None:
        return record
    quiet = await quiet_hours(ctx, record.guild_id)
    if quiet is None or not quiet.contains(record.deadline):
        return record
    if await ctx.service.set_deadline(record.id, record.version, quiet.end_after(record.deadline)):
        return await ctx.service.get(record.id)
    return record
