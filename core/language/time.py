"""The time window a question names, read against the world's clock.

A question often bounds its logs in time, and an answer about other hours answers something
else. Read here, relative to ``now`` (the world's clock: a pack's ``now``, a live world's
current time):

- a span back from now: "in the last 30 minutes", "past hour", "last 24h", "over the previous
  two days", "最近一小时", "过去 30 分钟", "近两天", "半小时内";
- a day: "today"/"今天", "yesterday"/"昨天", a date ("on 2015-10-18");
- clock times, on now's day (the day before when that is later than now): "since 18:05",
  "after 18:05", "before 18:05", "between 18:00 and 18:10", "from 18:00 to 18:10",
  "18:05 以来/之后", "18:05 之前", "18:00 到 18:10", "18:00-18:10";
- a date and time as logs write it ("at 2015-10-18 18:01", "2015-10-18 18:01 到 18:05");
- around a moment: it and ``date_words.yaml``'s ``around_minutes`` (15) either side ("around
  13:45", "about 2015-10-18 18:01", "大约 13:45", "13:45 左右");
- natural dates and times ("June 12 at 3pm", "last Thursday", "2 days ago", "yesterday
  morning", "7月7日", "上周四", "下午3点", "昨天晚上", "上周", "this month"): ``dates.py``
  rewrites them as the forms above first (its docstring says what each means).

``since``/``until`` are ``query_logs``' own (ISO 8601, inclusive, ``until`` covering the
precision written: a date is its whole day, ``18:10`` its whole minute); a time the question
writes without a zone keeps none (the source's zone, as the log lines it searches are written);
one computed from ``now`` carries now's offset. The words read are returned too, so that the
question's reader does not also take "30" or "18:05" for search terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Literal, NamedTuple

from core.language import dates
from core.language.alternation import one_of
from core.language.numbers import en_value, zh_value
from core.language.vocabulary import VocabularyFile, load
from core.lazypattern import LazyPattern


class Window(NamedTuple):
    """A time window: ``since``/``until`` as ``query_logs`` takes them (either may be None) and
    the spans of the question that said it."""

    since: str | None
    until: str | None
    spans: tuple[tuple[int, int], ...]


class SpanWords(VocabularyFile):
    """``span`` of ``vocab/time_words.yaml``: the words of a span back from now."""

    lead_en: tuple[str, ...]
    back_en: tuple[str, ...]
    back_zh: tuple[str, ...]
    within_zh: tuple[str, ...]
    within_zh_after_back: tuple[str, ...]


class MomentWords(VocabularyFile):
    """``moments`` of ``vocab/time_words.yaml``: the words around clock times and dates."""

    range_start_en: tuple[str, ...]
    range_to: tuple[str, ...]
    range_end_zh: tuple[str, ...]
    since_en: tuple[str, ...]
    since_before_zh: tuple[str, ...]
    since_after_zh: tuple[str, ...]
    day_since_en: tuple[str, ...]
    until_en: tuple[str, ...]
    until_after_zh: tuple[str, ...]
    at_stamp_en: tuple[str, ...]
    at_clock_en: tuple[str, ...]
    at_zh: tuple[str, ...]
    around: tuple[str, ...]
    around_after_zh: tuple[str, ...]


class TimeWords(VocabularyFile):
    """``vocab/time_words.yaml``."""

    window_units: dict[str, int]
    count_words: tuple[str, ...]
    vague_counts: dict[str, float]
    day_words: dict[Literal["today", "yesterday"], tuple[str, ...]]
    span: SpanWords
    moments: MomentWords


_WORDS = load("time_words", TimeWords)
_UNITS = _WORDS.window_units
_DAYS = [word for words in _WORDS.day_words.values() for word in words]
_SPAN, _AT_WORDS = _WORDS.span, _WORDS.moments
_DATES = dates.DateReader(dates.Grammar(
    day_words={word: int(which == "yesterday") for which, words in _WORDS.day_words.items() for word in words},
    bounds_before=(*_AT_WORDS.since_en, *_AT_WORDS.until_en, *_AT_WORDS.range_start_en, *_AT_WORDS.range_to,
                   *_AT_WORDS.since_before_zh),
    bounds_after=(*_AT_WORDS.since_after_zh, *_AT_WORDS.until_after_zh, *_AT_WORDS.range_to,
                  *_AT_WORDS.range_end_zh),
    range_start=_AT_WORDS.range_start_en, range_to=_AT_WORDS.range_to, range_end=_AT_WORDS.range_end_zh,
    at=(*_AT_WORDS.at_clock_en, *_AT_WORDS.at_zh), around=_AT_WORDS.around, around_after=_AT_WORDS.around_after_zh))
_AROUND_EN = [word for word in _AT_WORDS.around if word.isascii()]
_AROUND_ZH = [word for word in _AT_WORDS.around if not word.isascii()]

# What every window below holds one of: a span's "last"/"past"/... or Chinese unit, a day word,
# the digits of a moment ("since", "before", "between" and "at" all need one), or a word of a
# natural date without digits (weekdays, "ago", parts of the day, 前天, 上周, 月). The windows'
# patterns are compiled when first searched: most questions name no time (this says so first).
_CUE = re.compile(r"\d|" + one_of(_SPAN.back_en) + "|"
                  + one_of([*_DAYS, *(unit for unit in _UNITS if not unit.isascii()), *dates.CUES]), re.IGNORECASE)

_EN_COUNT = r"\d+(?:\.\d+)?|" + one_of([*_WORDS.count_words, *_WORDS.vague_counts])
# A unit word, or its plural; a one-letter unit only right after digits ("24h").
_EN_UNIT = "|".join(
    [re.escape(unit) + "s?" for unit in sorted(_UNITS, key=len, reverse=True) if unit.isascii() and len(unit) > 1]
    + ["(?<=\\d)[" + "".join(unit for unit in _UNITS if unit.isascii() and len(unit) == 1) + "]"])
_EN_SPAN = LazyPattern(
    rf"\b(?:(?:{one_of(_SPAN.lead_en)})\s+)?(?:the\s+)?(?:{one_of(_SPAN.back_en)})\s+"
    rf"(?:(?P<half>half\s+(?:an\s+)?)|(?P<count>{_EN_COUNT})\s*)?"
    rf"(?P<unit>{_EN_UNIT})\b", re.IGNORECASE)
_ZH_COUNT = r"\d+(?:\.\d+)?|[一二两三四五六七八九十百]+|半"
_ZH_UNIT = one_of(unit for unit in _UNITS if not unit.isascii())
_ZH_SPAN = LazyPattern(
    rf"(?:{one_of(_SPAN.back_zh)})\s*(?P<count>{_ZH_COUNT})?\s*个?\s*(?P<unit>{_ZH_UNIT})"
    rf"(?:{one_of([*_SPAN.within_zh, *_SPAN.within_zh_after_back])})?"
    rf"|(?P<count2>{_ZH_COUNT})\s*个?\s*(?P<unit2>{_ZH_UNIT})(?:{one_of(_SPAN.within_zh)})")
_DAY_WORDS = LazyPattern(
    rf"(?P<since>\b(?:{one_of(_AT_WORDS.day_since_en)})\s+|{one_of(_AT_WORDS.since_before_zh)})?(?:\b(?P<en>"
    + one_of(word for word in _DAYS if word.isascii()) + r")\b|(?P<zh>"
    + one_of(word for word in _DAYS if not word.isascii()) + "))", re.IGNORECASE)

_DATE = r"\d{4}-\d\d-\d\d"
_CLOCK = r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?"
# Guarded: not inside a longer number, address or version (``10.0.0.1:8080``, ``v1:30``).
_STAMP = rf"(?<![\w.:]){_DATE}(?:[T ]{_CLOCK}(?:Z|[+-]\d\d:?\d\d)?)?(?![\d:])"
_MOMENT = rf"(?:{_STAMP}|(?<![\w.:]){_CLOCK}(?![\d:]))"
_RANGE = LazyPattern(
    rf"(?:\b(?:{one_of(_AT_WORDS.range_start_en)})\s+)?(?P<a>{_MOMENT})\s*(?:{one_of(_AT_WORDS.range_to)})\s*"
    rf"(?P<b>{_MOMENT})(?:\s*(?:{one_of(_AT_WORDS.range_end_zh)}))?",
    re.IGNORECASE)
_SINCE = LazyPattern(
    rf"\b(?:{one_of(_AT_WORDS.since_en)})\s+(?P<a>{_MOMENT})"
    rf"|(?:{one_of(_AT_WORDS.since_before_zh)})?\s*(?P<z>{_MOMENT})\s*(?:{one_of(_AT_WORDS.since_after_zh)})",
    re.IGNORECASE)
_UNTIL = LazyPattern(rf"\b(?:{one_of(_AT_WORDS.until_en)})\s+(?P<a>{_MOMENT})"
                     rf"|(?P<z>{_MOMENT})\s*(?:{one_of(_AT_WORDS.until_after_zh)})",
                     re.IGNORECASE)
_AT = LazyPattern(
    rf"(?:\b(?P<lead_a>{one_of([*_AT_WORDS.at_stamp_en, *_AROUND_EN])})\s+)?(?P<a>{_STAMP})"
    rf"|\b(?P<lead_c>{one_of([*_AT_WORDS.at_clock_en, *_AROUND_EN])})\s+(?P<c>{_MOMENT})"
    rf"|(?P<lead_z>{one_of([*_AT_WORDS.at_zh, *_AROUND_ZH])})\s*(?P<z>{_MOMENT})"
    rf"|(?P<y>{_MOMENT})(?=\s*(?:{one_of(_AT_WORDS.around_after_zh)}))",
    re.IGNORECASE)
_AROUND_AFTER = LazyPattern(rf"\s*(?:{one_of(_AT_WORDS.around_after_zh)})")
_ZONE = re.compile(r"(?:Z|[+-]\d\d:?\d\d)$")


def time_window(question: str, now: datetime) -> Window | None:
    """The window ``question`` names, relative to ``now`` (aware), or None when it names none."""
    if not _CUE.search(question):
        return None
    try:
        natural = _DATES.rewrite(question, now)  # "June 12 at 3pm" as "at 2026-06-12 15:00"
        for read in (_span, _range, _since_until, _day, _at):
            window = read(natural.text, now)
            if window is not None:
                break
    except OverflowError:  # a day before year 1 or after 9999: no window to keep to
        return None
    # "2015-02-30" is no moment: the words stay the question's (an id, a search term)
    if window is None or not all(_valid(bound) for bound in window[:2]):
        return None
    # every natural date read is a time word, even one the window did not keep to
    spans = sorted({natural.original(span) for span in window.spans} | {edit[:2] for edit in natural.edits})
    return Window(window.since, window.until, tuple(_merged(spans)))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans with those that overlap joined ("on June 12" holds the date it rewrote)."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _parsed(bound: str) -> datetime | None:
    """A bound as a datetime (aware when it writes a zone), or None when it is no real moment."""
    try:
        return datetime.fromisoformat(bound.replace("Z", "+00:00"))
    except ValueError:
        return None


def _valid(bound: str | None) -> bool:
    """Whether a bound is a real date or moment (``query_logs`` refuses any other)."""
    return bound is None or _parsed(bound) is not None


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _span(question: str, now: datetime) -> Window | None:
    match = _EN_SPAN.search(question)
    if match:
        count = 0.5 if match.group("half") else _en_count(match.group("count"))
        unit = _unit(match.group("unit").lower())
    else:
        match = _ZH_SPAN.search(question)
        if match is None:
            return None
        text, unit_text = match.group("count") or match.group("count2"), match.group("unit") or match.group("unit2")
        count = 1.0 if text is None else 0.5 if text == "半" else _number(text, zh_value)
        unit = _UNITS[unit_text]
    if count is None or count <= 0:
        return None
    try:
        return Window(_stamp(now - timedelta(seconds=count * unit)), None, (match.span(),))
    except OverflowError:  # "the last 99999999999 days": all of it
        return Window(None, None, (match.span(),))


def _unit(word: str) -> int:
    stem = word[:-1] if word.endswith("s") and len(word) > 1 else word
    return _UNITS[stem]


def _en_count(text: str | None) -> float | None:
    if text is None:
        return 1.0
    lowered = text.lower()
    if lowered in _WORDS.vague_counts:
        return _WORDS.vague_counts[lowered]
    return _number(lowered.replace("-", " "), en_value)


def _number(text: str, spelled: Callable[[str], float | None]) -> float | None:
    try:
        return float(text)
    except ValueError:
        return spelled(text)


def _day(question: str, now: datetime) -> Window | None:
    match = _DAY_WORDS.search(question)
    if match is None:
        return None
    word = (match.group("en") or match.group("zh")).lower()
    if word in _WORDS.day_words["today"]:
        return Window(_stamp(now.replace(hour=0, minute=0, second=0, microsecond=0)), None, (match.span(),))
    day = (now - timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    until = None if match.group("since") else _stamp(day + timedelta(days=1, seconds=-1))
    return Window(_stamp(day), until, (match.span(),))


def _range(question: str, now: datetime) -> Window | None:
    match = _RANGE.search(question)
    if match is None:
        return None
    first = _moment(match.group("a"), now)
    second = _moment(match.group("b"), now, on=first)
    start, end = _parsed(first), _parsed(second)
    if start and end and (start.tzinfo is None) != (end.tzinfo is None):
        # One end writes a zone, the other not (in the source's zone: now's) -- comparable so.
        start, end = (moment if moment.tzinfo else moment.replace(tzinfo=now.tzinfo) for moment in (start, end))
    if re.fullmatch(_CLOCK, match.group("b")) and start and end and end < start:
        # "between 23:50 and 00:10": the second time is on the next day
        second = (end + timedelta(days=1)).isoformat(timespec="seconds" if end.second else "minutes")
    elif start and end and end < start:  # "between 2015-07-29 and 2015-07-28": the days between
        first, second = second, first
    return Window(first, second, (match.span(),))


def _since_until(question: str, now: datetime) -> Window | None:
    since, until = _SINCE.search(question), _UNTIL.search(question)
    if since is None and until is None:
        return None
    start = _moment(since.group("a") or since.group("z"), now) if since else None
    end = _before(until.group("a") or until.group("z"), now, on=start) if until else None
    spans = tuple(match.span() for match in (since, until) if match is not None)
    return Window(start, end, spans)


def _at(question: str, now: datetime) -> Window | None:
    match = _AT.search(question)
    if match is None:
        return None
    moment = match.group("a") or _moment(match.group("c") or match.group("z") or match.group("y"), now)
    lead = match.group("lead_a") or match.group("lead_c") or match.group("lead_z") or ""
    after = _AROUND_AFTER.match(question, match.end())
    span = (match.start(), after.end() if after else match.end())
    parsed = _parsed(moment)
    if (lead.lower() in _AT_WORDS.around or after) and parsed is not None and not re.fullmatch(_DATE, moment):
        # around a moment: some minutes either side (around a day: the day)
        spec = "seconds" if parsed.second or parsed.microsecond else "minutes"
        either = timedelta(minutes=dates.WORDS.around_minutes)
        return Window((parsed - either).isoformat(timespec=spec), (parsed + either).isoformat(timespec=spec), (span,))
    return Window(moment, moment, (span,))  # ``until`` covers the precision written


def _moment(text: str, now: datetime, on: str | None = None) -> str:
    """A moment as written, a clock time put on a day: ``on``'s (the range's first end), else
    now's, else the day before when that would be later than now."""
    if not re.fullmatch(_CLOCK, text):
        return text
    if on is not None and re.match(_DATE, on):
        zone = _ZONE.search(on)
        return f"{on[:10]}T{text}{zone.group() if zone else ''}"
    hour, minute = (int(part) for part in text.split(":")[:2])
    moment = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if moment > now:
        moment -= timedelta(days=1)
    return f"{moment.date().isoformat()}T{text}{moment.isoformat()[19:]}"  # [19:]: now's offset


def _before(text: str, now: datetime, on: str | None) -> str:
    """``until`` for "before X": the last second before it (``until`` covers what it writes)."""
    moment = _moment(text, now, on)
    parsed = _parsed(moment)
    if parsed is None:
        return moment  # no moment: ``time_window`` drops the window
    if re.fullmatch(_DATE, moment):  # before a day: through the day before
        return (parsed - timedelta(days=1)).date().isoformat()
    return (parsed - timedelta(seconds=1)).isoformat(timespec="seconds")
