"""Turning a line's written time into an instant and a normalised ISO 8601 text.

A timestamp without a zone is in the *source's* zone (``--timezone``); every instant is
written in the *store's* zone (its metadata), e.g. ``2015-10-18T18:01:47.978+00:00``, so all
lines of a store read alike. The fraction keeps the digits written (at most six).

Lines share their minute with thousands of others, so the zone arithmetic is done once per
minute (cached) and a line costs a dictionary look-up and a few additions: what keeps a
million-line import fast.

A timestamp without a year (BSD syslog, logcat, ``Jun 14 15:16:01``) gets ``--year``, else the
year of the file's modification time, or the year before when that would put it more than a
day after the file was last written; the clock counts them, so the import says which.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from typing import NamedTuple

from core.logfields import epoch_us, parse_zone

_MAX_CACHE = 100_000


class TimeParts(NamedTuple):
    """A timestamp as written: year (None when the layout has none: BSD syslog), month, day,
    hour, minute, second, fraction digits, zone text (None: the source's zone) -- or an epoch
    number (``epoch``, in seconds) for JSON/logfmt values."""

    year: int | None = None
    month: int = 1  # 0: a time of day alone, on the day the file was written
    day: int = 1
    hour: int = 0
    minute: int = 0
    second: int = 0
    fraction: str = ""
    zone: str | None = None
    epoch: float | None = None


def _offset_text(moment: datetime) -> str:
    offset = moment.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


class Clock:
    """Instants of ``TimeParts`` (see the module doc). ``ValueError`` for an impossible date."""

    def __init__(self, source_zone: tzinfo, store_zone: tzinfo, file_written: datetime | None = None,
                 year: int | None = None) -> None:
        self._source_zone = source_zone
        self._store_zone = store_zone
        written = file_written or datetime.now(UTC)
        self._default_year = year if year is not None else written.astimezone(source_zone).year
        # A given year is taken as it is; the file's year steps back for a line after the file.
        self._latest_us = epoch_us(written + timedelta(days=1)) if year is None else None
        self.yearless = 0  # timestamps read without a year
        self.dateless = 0  # ... without a date (a time of day: the file's date)
        local = written.astimezone(source_zone)
        self._file_day = (local.year, local.month, local.day)
        self._stepped_back = 0
        self._year_given = year is not None
        self._minutes: dict[tuple[int, int, int, int, int, str | None], tuple[int, str, str]] = {}

    @property
    def year_note(self) -> str:
        """Which year year-less timestamps were given, and why (the import report says it)."""
        if self._year_given:
            return f"{self._default_year} (--year)"
        back = (f"; {self._stepped_back:,} after the file was written: {self._default_year - 1}"
                if self._stepped_back else "")
        return f"{self._default_year} (the file's modification time; --year changes it){back}"

    def _minute(self, year: int, parts: TimeParts) -> tuple[int, str, str]:
        key = (year, parts.month, parts.day, parts.hour, parts.minute, parts.zone)
        known = self._minutes.get(key)
        if known is None:
            zone = self._source_zone if parts.zone is None else parse_zone(
                "UTC" if parts.zone in ("Z", "z") else parts.zone)
            moment = datetime(year, parts.month, parts.day, parts.hour, parts.minute, tzinfo=zone)
            local = moment.astimezone(self._store_zone)
            known = (epoch_us(moment), local.strftime("%Y-%m-%dT%H:%M"), _offset_text(local))
            if len(self._minutes) >= _MAX_CACHE:
                self._minutes.clear()
            self._minutes[key] = known
        return known

    def stamp(self, parts: TimeParts) -> tuple[int, str]:
        """(µs since the epoch, ISO 8601 text in the store's zone)."""
        if parts.epoch is not None:
            moment = datetime.fromtimestamp(parts.epoch, self._store_zone)
            return epoch_us(moment), moment.isoformat(timespec="microseconds" if moment.microsecond else "seconds")
        if parts.month == 0:  # a time of day alone: on the day the file was written
            parts = parts._replace(year=self._file_day[0], month=self._file_day[1], day=self._file_day[2])
            self.dateless += 1
        if not 0 <= parts.second <= 60:
            raise ValueError("second out of range")
        fraction = parts.fraction[:6]
        micros = int(fraction.ljust(6, "0")) if fraction else 0
        year = parts.year
        if year is None:
            year = self._default_year
            self.yearless += 1
        minute_us, prefix, offset = self._minute(year, parts)
        instant = minute_us + min(parts.second, 59) * 1_000_000 + micros
        if parts.year is None and self._latest_us is not None and instant > self._latest_us:
            minute_us, prefix, offset = self._minute(year - 1, parts)
            instant = minute_us + min(parts.second, 59) * 1_000_000 + micros
            self._stepped_back += 1
        text = f"{prefix}:{min(parts.second, 59):02d}{'.' + fraction if fraction else ''}{offset}"
        return instant, text
