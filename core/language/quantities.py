"""Quantities in text: numbers with units, ratios, trends and times, each with its span.

A quantity is compared by value in its family's base unit, so ``91%`` equals ``91.0%``,
``15m`` equals ``15 分钟`` and ``900s``, but ``15m`` is not ``15s`` and ``3.8GB`` is not
``4GB``. A number that is part of a name (``HikariPool-1``, ``P99``, ``v1``, ``:6379``,
``order-123``, a pod hash) is not a quantity: names are checked as identifiers. All functions
read text already folded by ``core.language.clauses.fold`` (same offsets as the original).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Literal

from core.language.alternation import one_of
from core.language.dates import WORDS as DATE_WORDS
from core.language.number_words import NUMBER_WORDS
from core.language.numbers import spelled_numbers, zh_clocks

Family = Literal["percent", "time", "size", "count", "plain"]

_TIME_UNITS = NUMBER_WORDS.time_seconds
_SIZE_UNITS = NUMBER_WORDS.size_bytes
_PERCENT_UNITS = NUMBER_WORDS.percent_units
_COUNT_UNITS = NUMBER_WORDS.count_units
UNITS: dict[str, tuple[Family, float]] = {
    **{unit: ("percent", 1.0) for unit in _PERCENT_UNITS},
    **{unit: ("time", factor) for unit, factor in _TIME_UNITS.items()},
    **{unit: ("size", factor) for unit, factor in _SIZE_UNITS.items()},
    **{unit: ("count", 1.0) for unit in _COUNT_UNITS},
}
# Units written right after the number ("15m", "3.8gb"); multi-letter ones may follow a space,
# and so may seconds and hours ("4.2 s", "3 h", as SI writes them); not these (``number_words.yaml``).
_ATTACHED_ONLY = NUMBER_WORDS.attached_only_units
_UNIT_ALTERNATIVES = one_of(UNITS)
_UNIT_RE = re.compile(rf"( ?|-)({_UNIT_ALTERNATIVES})(?![a-z0-9_])")
# Thousands separators ("15,823", "1,250,000") only where they cannot be a list: a first group of
# one or two digits, or a last group of 000 ("500,502" are two codes, "125,000" one number).
_NUMBER_RE = re.compile(r"(?<![\d,])(?:\d{1,2}(?:,\d{3})+|\d{3}(?:,\d{3})*,000)(?![\d]|,\d)(?:\.\d+)?"
                        r"|\d+(?:\.\d+)?")
_DIGIT_SCALE_RE = re.compile(rf" ?({one_of(NUMBER_WORDS.digit_scales)})(?![a-z])")
_SLASH_RE = re.compile(r" ?/ ?(?=\d)")
_UNKNOWN_UNIT_RE = re.compile(r"[a-z]+(?![a-z0-9_\-.])")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-./#@")
_ARROW_RE = re.compile(r"\s*(?:→|->|=>|⟶|➝|➔|~>)\s*(?:(?:…|\.\.\.|⋯)\s*(?:→|->|=>|⟶|➝|➔|~>)\s*)*")
_FROM_TO_RE = re.compile(rf"(?:{one_of(NUMBER_WORDS.change_from)})\s*$")
_TO_RE = re.compile(rf"^\s*(?:{one_of(NUMBER_WORDS.change_to)})\s*")

_ISO_RE = re.compile(
    r"(?<![\d])(\d{4})[-/](\d{2})[-/](\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?"
    r"(z|[+-]\d{2}:?\d{2})?)?(?![\d])")
# 2015年7月29日 (a date written the Chinese way), optionally with its clock time after it.
_ZH_DATE_RE = re.compile(r"(?<!\d)(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
# "July 8, 2026", "8 July 2026", "Jul. 8th": a month's name with its day, and its year if given
# (a day with no year is "--MM-DD", equal to that day of any year; "may 8" with no year is
# too often not a date to be read as one).
_MONTH = rf"({one_of(DATE_WORDS.months)})\.?"
_MONTH_DATE_RE = re.compile(
    rf"(?<![a-z]){_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])(?:,?\s+(\d{{4}})(?!\d))?"
    rf"|(?<![\d.:])(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}(?![a-z])(?:,?\s+(\d{{4}})(?!\d))?")
# "99th percentile", "99 分位": the number names a statistic, it is not a value.
_PERCENTILE_AFTER = re.compile(rf"\s*(?:th|st|nd|rd)?\s*(?:{one_of(NUMBER_WORDS.percentile_words)})")
# A label's colon may follow a time ("最新一条出现在 11:17：CPU…", "at 11:17: CPU…").
_CLOCK_RE = re.compile(r"(?<![\d:.\-a-z])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?!\d|:\d)")
# What may follow a clock time: AM/PM, then its zone ("11:17 PM", "03:17 UTC", "11:17 +08:00",
# "11:17 (UTC+8)"). An offset alone must be written ±HH:MM or ±HHMM.
_DAY_HALF_RE = re.compile(r"\s?([ap])\.?m\b\.?")
_ZONE_RE = re.compile(r"\s?\(?(?:(?:utc|gmt)(?:\s?([+-]\d{1,2})(?::?(\d{2}))?)?(?![a-z])|z(?![a-z0-9])"
                      r"|([+-]\d{2}):?(\d{2})(?!\d))\)?")


def plain_number(number: float) -> str:
    """``91``, ``3.8``, ``4194304``: as a person writes it, never in exponent notation."""
    return f"{number:.6f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Quantity:
    """A number with its unit, comparable across spellings of that unit."""

    number: float
    unit: str
    family: Family

    @property
    def base(self) -> float:
        """The value in the family's base unit (seconds, bytes, percent, count)."""
        return self.number * (UNITS[self.unit][1] if self.unit in UNITS else 1.0)

    @property
    def unknown_unit(self) -> str:
        """A unit the table does not know (``x`` of ``10x``), compared as written."""
        return "" if not self.unit or self.unit in UNITS else self.unit

    def comparable(self, other: Quantity) -> bool:
        """Same family of unit (a bare number counts as a count)."""
        families = {self.family, other.family}
        return len(families) == 1 or families == {"plain", "count"}

    def same_value(self, other: Quantity) -> bool:
        """Equal values: comparable units, equal in base units."""
        if not self.comparable(other) or self.unknown_unit != other.unknown_unit:
            return False
        first, second = self.base, other.base
        return abs(first - second) <= 1e-9 * max(abs(first), abs(second), 1.0)

    def shown(self) -> str:
        """``91%``, ``3.8gb``, ``15 次``."""
        spacer = " " if self.unit and (not self.unit.isascii() or len(self.unit) > 3) else ""
        return f"{plain_number(self.number)}{spacer}{self.unit}"


@dataclass(frozen=True)
class TimePoint:
    """A time of day, with a date when the text gives one; compared at the coarser precision."""

    date: str | None
    hour: int | None
    minute: int | None
    second: int | None = None
    offset: int | None = None  # minutes east of UTC, when the text gives its zone

    def in_utc(self) -> TimePoint:
        """The same instant at offset 0 (its date moves with it when it has one)."""
        if self.offset is None or self.hour is None:
            return self
        minutes = self.hour * 60 + (self.minute or 0) - self.offset
        days, minutes = divmod(minutes, 24 * 60)
        date = self.date
        if date and days and not date.startswith("--"):
            date = (datetime.date.fromisoformat(date) + datetime.timedelta(days=days)).isoformat()
        return TimePoint(date, minutes // 60, minutes % 60, self.second, 0)

    def matches(self, other: TimePoint) -> bool:
        """Equal at the precision both give (``11:17`` equals ``2026-07-08T11:17:00+08:00``);
        two times whose zones are both known are compared as instants (``03:17 UTC`` is
        ``11:17+08:00``, ``11:17 UTC`` is not)."""
        if self.offset is not None and other.offset is not None and self.offset != other.offset:
            return self.in_utc()._same_reading(other.in_utc())
        return self._same_reading(other)

    def _same_reading(self, other: TimePoint) -> bool:
        if self.date and other.date and not _same_day(self.date, other.date):
            return False
        if self.hour is None or other.hour is None:
            return bool(self.date and other.date)
        if (self.hour, self.minute) != (other.hour, other.minute):
            return False
        return self.second is None or other.second is None or self.second == other.second

    def key(self) -> tuple[str, int, int, int]:
        """Sort key (a missing date, hour or second sorts first)."""
        return (self.date or "", self.hour or 0, self.minute or 0, self.second or 0)

    def shown(self) -> str:
        """``11:17`` / ``2026-07-08 11:17:05`` / ``2026-07-08``."""
        if self.hour is None:
            return self.date or ""
        clock = f"{self.hour:02d}:{self.minute or 0:02d}" + (f":{self.second:02d}" if self.second is not None else "")
        return f"{self.date} {clock}" if self.date else clock


def _same_day(first: str, second: str) -> bool:
    """``2026-07-08`` is ``2026-07-08``, and ``--07-08`` (a day with no year) is that day of any year."""
    if first.startswith("--") or second.startswith("--"):
        return first[-5:] == second[-5:]
    return first == second


@dataclass(frozen=True)
class Token:
    """A quantity, a ratio (``3.8gb/4gb``) or a time found in text, with its span."""

    start: int
    end: int
    kind: Literal["number", "ratio", "time"]
    parts: tuple[Quantity, ...] = ()
    time: TimePoint | None = None
    trend: int | None = None   # which trend (``86.2% → … → 91.0%``) it belongs to
    order: int | None = None   # its position in that trend, oldest first


def _times(text: str) -> list[Token]:
    found: list[Token] = []
    taken: list[tuple[int, int]] = []
    for match in _ISO_RE.finditer(text):
        year, month, day, hour, minute, second, zone = match.groups()
        if hour is None:
            continue  # a bare date is read as a date-only time below
        end = match.end()
        offset = _offset(zone) if zone else None
        if offset is None:
            end, offset = _zone_after(text, end)
        found.append(Token(match.start(), end, "time", time=TimePoint(
            f"{year}-{month}-{day}", int(hour), int(minute), int(second) if second else None, offset)))
        taken.append((match.start(), end))
    for match in _ISO_RE.finditer(text):
        if match.group(4) is None and not _inside(match.span(), taken):
            found.append(Token(match.start(), match.end(), "time", time=TimePoint(
                f"{match.group(1)}-{match.group(2)}-{match.group(3)}", None, None)))
            taken.append(match.span())
    for match in _MONTH_DATE_RE.finditer(text):
        month_first, day_first = match.group(1) is not None, match.group(4) is not None
        name, day, year = (match.group(1), match.group(2), match.group(3)) if month_first \
            else (match.group(5), match.group(4), match.group(6))
        if not (month_first or day_first) or _inside(match.span(), taken) or not 1 <= int(day) <= 31 \
                or (year is None and name in DATE_WORDS.ambiguous_months):
            continue
        found.append(Token(match.start(), match.end(), "time", time=TimePoint(
            f"{year or '-'}-{DATE_WORDS.months[name]:02d}-{int(day):02d}", None, None)))
        taken.append(match.span())
    clocks = zh_clocks(text)
    for match in _ZH_DATE_RE.finditer(text):
        if _inside(match.span(), taken):
            continue
        date = f"{match.group(1)}-{int(match.group(2)):02d}-{int(match.group(3)):02d}"
        end, hour, minute, second = match.end(), None, None, None
        after = end + len(text[end:]) - len(text[end:].lstrip())
        digits = _CLOCK_RE.match(text, after)
        written = next((c for c in clocks if c.start == after), None)
        if digits is not None:
            hour, minute, end = int(digits.group(1)), int(digits.group(2)), digits.end()
            second = int(digits.group(3)) if digits.group(3) else None
        elif written is not None:
            hour, minute, second, end = written.hour, written.minute, written.second, written.end
        found.append(Token(match.start(), end, "time", time=TimePoint(date, hour, minute, second)))
        taken.append((match.start(), end))
    for clock in clocks:
        if not _inside((clock.start, clock.end), taken):
            found.append(Token(clock.start, clock.end, "time",
                               time=TimePoint(None, clock.hour, clock.minute, clock.second)))
            taken.append((clock.start, clock.end))
    for match in _CLOCK_RE.finditer(text):
        if _inside(match.span(), taken):
            continue
        hour, minute, second = int(match.group(1)), int(match.group(2)), match.group(3)
        end = match.end()
        half = _DAY_HALF_RE.match(text, end)
        if half is not None and 1 <= hour <= 12:  # 12 AM is midnight, 3 PM is 15:00
            hour = hour % 12 + (12 if half.group(1) == "p" else 0)
            end = half.end()
        end, offset = _zone_after(text, end)
        found.append(Token(match.start(), end, "time", time=TimePoint(
            None, hour, int(minute), int(second) if second else None, offset)))
        taken.append((match.start(), end))
    return found


def _offset(zone: str) -> int:
    """Minutes east of UTC of ``z``, ``+08:00``, ``-0530``."""
    if zone == "z":
        return 0
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    return sign * (int(digits[:2]) * 60 + int(digits[2:4] or 0))


def _zone_after(text: str, end: int) -> tuple[int, int | None]:
    """Where a time ends and its offset, when a zone follows it at ``end``."""
    zone = _ZONE_RE.match(text, end)
    if zone is None or not zone.group().strip(" ()"):
        return end, None
    utc_hours, utc_minutes, hours, minutes = zone.groups()
    if hours is not None:
        sign = -1 if hours[0] == "-" else 1
        return zone.end(), sign * (abs(int(hours)) * 60 + int(minutes))
    if utc_hours is not None:
        sign = -1 if utc_hours[0] == "-" else 1
        return zone.end(), sign * (abs(int(utc_hours)) * 60 + int(utc_minutes or 0))
    return zone.end(), 0


def _inside(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(start < span[1] and span[0] < end for start, end in taken)


def _is_name_part(text: str, start: int) -> bool:
    """Whether the digits at ``start`` continue a name (``pool-1``, ``v1``, ``01:6379``)."""
    if start == 0:
        return False
    before = text[start - 1]
    if before == ":":
        return start >= 2 and text[start - 2].isdigit()
    if before == "-":
        return not _is_sign(text, start - 1)
    return before in _NAME_CHARS


def _is_sign(text: str, position: int) -> bool:
    """A ``-`` at ``position`` that is a minus sign (``delta -5%``), not a name's hyphen."""
    return text[position] == "-" and (position == 0 or text[position - 1] in " \t=:(（，,[")


def _unit_fits(separator: str, unit: str) -> bool:
    """A unit word may follow its number after a space (``15 minutes``) or, for a duration, a
    hyphen (``a 10-second timeout``); a one-letter unit only attached (``15m``)."""
    if not separator:
        return True
    if unit in _ATTACHED_ONLY:
        return False
    return separator == " " or UNITS[unit][0] == "time"


def _quantity(text: str, match: re.Match[str]) -> tuple[Quantity, int] | None:
    """The number at ``match`` with its unit, and where it ends; None if it is part of a name."""
    end = match.end()
    number = float(match.group().replace(",", ""))
    scale = _DIGIT_SCALE_RE.match(text, end)
    if scale is not None:  # "1.25 million", "125万"
        number, end = number * NUMBER_WORDS.digit_scales[scale.group(1)], scale.end()
    unit_match = _UNIT_RE.match(text, end)
    unit = ""
    if unit_match is not None:
        spaced, candidate = unit_match.groups()
        # "len: 211 time: 30.0021": a word before a colon names the next value, it is no unit.
        next_key = bool(spaced) and UNITS[candidate][0] == "count" \
            and text[unit_match.end():unit_match.end() + 1] in (":", "=", "：")
        if _unit_fits(spaced, candidate) and not next_key:
            unit, end = candidate, unit_match.end()
    if not unit and end < len(text) and (text[end].isascii() and (text[end].isalpha() or text[end] == "_")):
        word = _UNKNOWN_UNIT_RE.match(text, end)
        if word is None:
            return None  # "5c7d8e9f1": the digits start a name
        unit, end = word.group(), word.end()  # "10x", "3rd": a unit the table does not know
    family: Family = UNITS[unit][0] if unit in UNITS else "plain"
    sign = -1.0 if match.start() > 0 and _is_sign(text, match.start() - 1) else 1.0
    return Quantity(sign * number, unit, family), end


def tokens(text: str) -> list[Token]:
    """Times, ratios and numbers of a folded text, in order, trends marked."""
    found = _times(text)
    taken = [(token.start, token.end) for token in found]
    position = 0
    while True:
        match = _NUMBER_RE.search(text, position)
        if match is None:
            break
        position = match.end()
        if _inside(match.span(), taken) or _is_name_part(text, match.start()) \
                or _PERCENTILE_AFTER.match(text, match.end()):
            continue
        read = _quantity(text, match)
        if read is None:
            continue
        quantity, end = read
        parts = [quantity]
        # A ratio: "3.8gb/4gb", "50/50", "3.8 GB / 4 GB".
        while (slash := _SLASH_RE.match(text, end)) is not None:
            following = _NUMBER_RE.match(text, slash.end())
            second = _quantity(text, following) if following else None
            if second is None:
                break
            parts.append(second[0])
            end = second[1]
        if len(parts) > 1 and parts[0].family == "plain" and parts[-1].family != "plain":
            parts = [Quantity(part.number, parts[-1].unit, parts[-1].family)
                     if part.family == "plain" else part for part in parts]
        if end < len(text) and ((text[end].isalpha() and text[end].isascii()) or text[end] == "/"):
            continue  # "4gb/x", "50/50abc": not a clean quantity
        if re.match(r"\.\d", text[end:end + 2]):
            continue  # "10.10.34.13", "1.2.3": an address or a version is a name, not a value
        found.append(Token(match.start(), end, "ratio" if len(parts) > 1 else "number",
                           parts=tuple(parts)))
        position = end
    found += _spelled(text, [(token.start, token.end) for token in found])
    found.sort(key=lambda token: token.start)
    return _mark_trends(text, found)


def _spelled(text: str, taken: list[tuple[int, int]]) -> list[Token]:
    """Numbers written in words (``九十一%``, ``twenty-five minutes``, ``half an hour``): a
    value only with a unit after them, or one their words name."""
    found: list[Token] = []
    for spelled in spelled_numbers(text):
        if _inside((spelled.start, spelled.end), taken):
            continue
        unit, end = spelled.unit, spelled.end
        if not unit:
            unit_match = _UNIT_RE.match(text, end)
            if unit_match is None or not _unit_fits(*unit_match.groups()):
                continue
            unit, end = unit_match.group(2), unit_match.end()
        family: Family = UNITS[unit][0] if unit in UNITS else "plain"
        found.append(Token(spelled.start, end, "number", parts=(Quantity(spelled.value, unit, family),)))
    return found


def _mark_trends(text: str, found: list[Token]) -> list[Token]:
    """Mark ``a → b → c`` and ``from a to b`` runs of same-family quantities as trends."""
    marked = list(found)
    trend_id = 0
    index = 0
    while index < len(marked) - 1:
        run = [index]
        while run[-1] + 1 < len(marked) and _links(text, marked[run[-1]], marked[run[-1] + 1]):
            run.append(run[-1] + 1)
        if len(run) > 1:
            for order, position in enumerate(run):
                token = marked[position]
                marked[position] = Token(token.start, token.end, token.kind, token.parts,
                                         token.time, trend=trend_id, order=order)
            trend_id += 1
        index = run[-1] + 1
    return marked


def _links(text: str, first: Token, second: Token) -> bool:
    if first.kind == "time" or second.kind == "time" or first.kind != second.kind:
        return False
    if first.parts[0].family != second.parts[0].family:
        return False
    between = text[first.end:second.start]
    if _ARROW_RE.fullmatch(between):
        return True
    # "from 86.2% to 91.0%" / "从 86.2% 上升到 91.0%"
    return bool(_TO_RE.fullmatch(between)) and bool(_FROM_TO_RE.search(text[max(0, first.start - 6):first.start]))
