"""What a log line's level and timestamp mean: one table of levels, one reading of time.

Shared by pack validation, ``query_logs`` over a pack, the log store and the importer, so a
level or a timestamp means the same thing everywhere.

Levels: every common spelling maps to one canonical name, and every canonical name to a rank.
``WARNING`` is ``WARN``; ``FATAL``, ``CRITICAL``, ``ALERT``, ``EMERGENCY`` and ``PANIC`` rank
above ``ERROR`` and ``SEVERE`` ranks with it, so "at least ERROR" covers them all::

    0 TRACE FINEST FINER      1 DEBUG FINE CONFIG      2 INFO NOTICE
    3 WARN                    4 ERROR SEVERE           5 FATAL CRITICAL ALERT EMERGENCY PANIC

Timestamps: ISO 8601 with a date and a time (``2026-07-08T10:58:12+08:00``, a space for the
``T``, a fraction, ``Z``); a timestamp without a zone is in the source's zone.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.language.vocabulary import VocabularyFile, load


class LogLevels(VocabularyFile):
    """``core/language/vocab/log_levels.yaml``."""

    ranks: dict[str, int]
    spellings: dict[str, str]
    syslog_severities: tuple[str, ...]
    letters: dict[str, str]
    numbers: dict[str, str]


# Read once: the importer canonicalises the level of every line it reads.
_LEVELS = load("log_levels", LogLevels)
# canonical name -> rank
LEVEL_RANKS: dict[str, int] = _LEVELS.ranks
# other spellings -> canonical name
_LEVEL_SPELLINGS: dict[str, str] = _LEVELS.spellings
LEVEL_NAMES: tuple[str, ...] = tuple(sorted(LEVEL_RANKS, key=lambda name: (LEVEL_RANKS[name], name)))
# Syslog severities 0..7 (RFC 5424) as canonical names.
SYSLOG_SEVERITIES: tuple[str, ...] = _LEVELS.syslog_severities


def canonical_level(level: str) -> str | None:
    """The canonical name of a level (``warning`` -> ``WARN``), or None for an unknown one."""
    name = level.strip().upper()
    name = _LEVEL_SPELLINGS.get(name, name)
    return name if name in LEVEL_RANKS else None


def coded_level(code: str) -> str | None:
    """The canonical name of a level written as a code: a letter (``E``), a syslog priority
    (``<3>``), a syslog severity (``3``) or a pino/bunyan number (``50``); None otherwise. Only
    for a field known to hold a level: a lone ``I`` or ``3`` elsewhere is no level."""
    text = code.strip()
    if len(text) == 1 and text.isalpha():
        return _LEVELS.letters.get(text.upper())
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
        return SYSLOG_SEVERITIES[int(text) % 8] if text.isdigit() and len(text) <= 3 else None
    if text.isdigit() and len(text) <= 2:
        return _LEVELS.numbers.get(text) or (SYSLOG_SEVERITIES[int(text)] if int(text) < 8 else None)
    return None


def level_rank(level: str) -> int | None:
    """The rank of a level (0 TRACE .. 5 FATAL), or None for an unknown one."""
    name = canonical_level(level)
    return LEVEL_RANKS[name] if name is not None else None


# ---------------------------------------------------------------- time

_ISO = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|z|[+-]\d\d(:?\d\d)?)?")
_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def parse_zone(name: str) -> tzinfo:
    """A time zone from an IANA name (``Asia/Shanghai``), ``UTC``/``Z`` or an offset
    (``+08:00``); ``ValueError`` with a one-line reason otherwise."""
    text = name.strip()
    if text.upper() in ("UTC", "Z", "GMT"):
        return UTC
    offset = re.fullmatch(r"([+-])(\d\d):?(\d\d)", text)
    if offset:
        sign = 1 if offset.group(1) == "+" else -1
        delta = timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
        if delta >= timedelta(hours=24):
            raise ValueError(f"time zone offset out of range: {name!r}")
        return timezone(sign * delta)
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (give an IANA name such as Europe/Berlin, "
                         "UTC, or an offset such as +08:00)") from None


def zone_name(zone: tzinfo) -> str:
    """How a zone is written in a store's metadata (round-trips through :func:`parse_zone`)."""
    if isinstance(zone, ZoneInfo):
        return zone.key
    offset = zone.utcoffset(None)
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def parse_timestamp(text: str, default_zone: tzinfo | None = UTC) -> datetime | None:
    """An aware datetime from ISO 8601 with a date and a time, or None when ``text`` is not one.

    A timestamp without a zone is in ``default_zone``.
    """
    stripped = text.strip()
    if not _ISO.fullmatch(stripped):
        return None
    try:
        moment = datetime.fromisoformat(stripped.replace("z", "Z"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=default_zone or UTC)
    return moment


def epoch_us(moment: datetime) -> int:
    """Microseconds since the epoch of an aware datetime (exact: no float rounding)."""
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def time_bound(text: str, default_zone: tzinfo | None, *, upper: bool) -> int:
    """A ``since``/``until`` bound in microseconds since the epoch.

    ``since`` is the instant given. ``until`` is inclusive at the precision given: a date alone
    covers that whole day, ``18:10`` the whole minute, ``18:10:13`` the whole second; the
    returned bound is exclusive. ``ValueError`` (one line) for text that is not ISO 8601.
    """
    stripped = text.strip()
    if _DATE.fullmatch(stripped):
        stripped += "T00:00:00"
        step = timedelta(days=1)
    else:
        match = _ISO.fullmatch(stripped)
        if match is None:
            raise ValueError(f"not an ISO 8601 date or time: {text!r}")
        step = (timedelta(minutes=1) if match.group(1) is None
                else timedelta(seconds=1) if match.group(2) is None
                else timedelta(microseconds=1))
    moment = parse_timestamp(stripped, default_zone)
    if moment is None:
        raise ValueError(f"not an ISO 8601 date or time: {text!r}")
    try:
        return epoch_us(moment + step) if upper else epoch_us(moment)
    except OverflowError:  # the last instant of year 9999: there is nothing after it
        return epoch_us(datetime.max.replace(tzinfo=UTC)) + 1
