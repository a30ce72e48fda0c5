"""Natural dates and times, rewritten as logs write them, for ``time.time_window`` to read.

A question names a day and a time as people say them: "June 12", "12 June 2025", "Aug 2nd",
"last Thursday", "this Monday", "2 days ago", "the day before yesterday", "3pm", "3:45 p.m.",
"yesterday morning", "7月7日", "2025年8月2日", "上周四", "周三", "前天", "3 天前", "下午3点半",
"昨天晚上", "上周", "本月". Each is turned into the ISO date or clock time it means on the
world's clock (``now``), in the grammar ``time.py`` already reads: "June 12 at 3:45pm" becomes
"at 2026-06-12 15:45", "since last Thursday" "since 2026-07-02", "下午3点以来" "15:00以来".

What a form means (the words are ``vocab/date_words.yaml``):
- a date without a year is the most recent one not after now's day; a weekday after "last",
  "on" or none (周三) the most recent one before now's day; after "this" (本周一) this week's
  (weeks run Monday to Sunday); 上周四 last week's Thursday;
- a clock time's hour alone ("3pm", "下午3点") is its whole hour, minutes are their minute; a
  Chinese hour without a part of the day is on the 24-hour clock (3点 is 03:00, not after 第:
  第3点 is an item), and one in Chinese numerals needs a part of the day (晚上十点; 一点 alone
  is "a little");
- a part of the day is a fixed span (morning 06:00-11:59, afternoon 12:00-17:59, evening and
  night 18:00-23:59, 凌晨 00:00-05:59 ...); without a day, today's (yesterday's when it starts
  later than now);
- 上周/上个月, "last month": that whole week or month; 本周, "this week"/"this month": since its
  first day ("last week" stays a span back from now, as time.py reads it);
- a date as logs write it followed by a time as people say it ("2025-08-02 at 3pm",
  "2025-08-02 around 13:45", "2025-08-02 下午3点") is that time on that day;
- after a word that bounds a window ("since", "before", "between", 以来, 之前, 到), a day, an
  hour or a part of the day is only its first moment ("since yesterday afternoon" is since
  12:00 yesterday).

A date read so keeps no zone (the source's, as a date written "2026-06-12" does). A month
word that is also an everyday word ("may", "march") is a month only written with a capital and
next to a day number ("May 12"): "may the disk be full?" names no date.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import NamedTuple

from core.language.alternation import one_of
from core.language.numbers import en_value, zh_value
from core.language.vocabulary import VocabularyFile, load
from core.lazypattern import LazyPattern


class DateWords(VocabularyFile):
    """``vocab/date_words.yaml``."""

    months: dict[str, int]
    ambiguous_months: tuple[str, ...]
    weekdays_en: dict[str, int]
    weekday_abbreviations_en: dict[str, int]
    weekday_last_en: tuple[str, ...]
    weekday_this_en: tuple[str, ...]
    week_zh: tuple[str, ...]
    weekday_zh: dict[str, int]
    week_last_zh: tuple[str, ...]
    week_this_zh: tuple[str, ...]
    not_weekdays_zh: tuple[str, ...]
    last_week: tuple[str, ...]
    this_week: tuple[str, ...]
    last_month: tuple[str, ...]
    this_month: tuple[str, ...]
    days_back: dict[str, int]
    ago_en: tuple[str, ...]
    day_units_en: tuple[str, ...]
    ago_zh: tuple[str, ...]
    day_parts: dict[str, tuple[str, ...]]  # its first and last minute
    day_part_words: dict[str, tuple[str, ...]]  # today or yesterday, and the part
    part_lead_en: tuple[str, ...]
    afternoon_parts_zh: tuple[str, ...]
    am_en: tuple[str, ...]
    pm_en: tuple[str, ...]
    clock_words_en: dict[str, str]
    hour_zh: tuple[str, ...]
    minute_words_zh: dict[str, int]
    around_minutes: int


WORDS = load("date_words", DateWords)


class Grammar(NamedTuple):
    """The words of ``time.py``'s grammar a natural date sits in (``vocab/time_words.yaml``)."""

    day_words: dict[str, int]  # today/yesterday words -> days back
    bounds_before: tuple[str, ...]  # words before a moment that bound a window: since, before, 从
    bounds_after: tuple[str, ...]  # words after one: 以来, 之前, 到
    range_start: tuple[str, ...]  # between, from
    range_to: tuple[str, ...]  # and, to, 到
    range_end: tuple[str, ...]  # 之间
    at: tuple[str, ...]  # at, 在
    around: tuple[str, ...]  # around, 大约
    around_after: tuple[str, ...]  # 左右


class Rewrite(NamedTuple):
    """A question with its natural dates and times rewritten: the new text and each edit as
    (original start, original end, new start, new end)."""

    text: str
    edits: tuple[tuple[int, int, int, int], ...]

    def original(self, span: tuple[int, int]) -> tuple[int, int]:
        """A span of the new text as a span of the question (an edit it touches, whole)."""
        return self._position(span[0], start=True), self._position(span[1], start=False)

    def _position(self, at: int, *, start: bool) -> int:
        shift = 0
        for old_a, old_b, new_a, new_b in self.edits:
            if at < new_a or (at == new_a and not start):
                break
            if at < new_b or (at == new_b and not start):
                return old_a if start else old_b
            shift = old_b - new_b
        return at + shift


_ZHNUM = "[零〇一二两三四五六七八九十]{1,3}"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])"
_ORDINAL = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"
_ISO_DAY = r"(?<![\w.:])\d{4}-\d\d-\d\d(?![\w:])"  # a day as logs write it, with a natural time after it
_CLOCK24 = r"(?<![\w.:])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\d:])"


def _months() -> str:
    plain = [word for word in WORDS.months if word not in WORDS.ambiguous_months]
    written = [form for word in WORDS.ambiguous_months for form in (word.capitalize(), word.upper())]
    return rf"(?:{one_of(plain)}|(?-i:{one_of(written)}))\b\.?"


def _build(grammar: Grammar) -> tuple[str, str, str, str]:
    """The patterns of a day, a time after a day, a time alone and a week or month (no groups:
    ``DateReader`` combines them)."""
    words = WORDS
    month = _months()
    weekday_en = (rf"\b(?:(?:{one_of([*words.weekday_last_en, *words.weekday_this_en])})\s+)?"
                  rf"(?:{one_of(words.weekdays_en)})\b"
                  rf"|\b(?:{one_of([*words.weekday_last_en, *words.weekday_this_en])})\s+"
                  rf"(?:{one_of(words.weekday_abbreviations_en)})\b\.?")
    weeks_zh = one_of([*words.week_last_zh, *words.week_this_zh, *words.week_zh])
    weekday_zh = (rf"(?<![零〇一二两三四五六七八九十\d每])(?:{weeks_zh})"
                  rf"(?!{one_of(words.not_weekdays_zh)})(?:{one_of(words.weekday_zh)})")
    day = "|".join([
        rf"\b{month}\s*{_DAY}{_ORDINAL}(?!\d|:\d)\b(?:,?\s+{_YEAR}(?![\d:]))?",
        rf"(?<![\w.:/-]){_DAY}{_ORDINAL}\s+(?:of\s+)?{month}(?:,?\s+{_YEAR}(?![\d:]))?",
        rf"(?<!\d)(?:{_YEAR}\s*年\s*)?(?:\d{{1,2}}|{_ZHNUM})\s*月\s*(?:\d{{1,2}}|{_ZHNUM})\s*[日号號](?!志)",
        weekday_en, weekday_zh,
        rf"(?<![之以]){one_of(words.days_back, english_ends_word=True)}",
        rf"\b(?:\d+|[a-z]+)\s+(?:{one_of(words.day_units_en)})\s+(?:{one_of(words.ago_en)})\b",
        rf"(?<![\d.])(?:\d+|{_ZHNUM})\s*(?:{one_of(words.ago_zh)})",
        one_of(grammar.day_words, english_ends_word=True), _ISO_DAY])
    parts_en = one_of([part for part in words.day_parts if part.isascii()])
    parts_zh = one_of(part for part in words.day_parts if not part.isascii())
    hour_zh = one_of(words.hour_zh)
    minute_zh = rf"(?:\s*(?:[0-5]?\d\s*分|{one_of(words.minute_words_zh)}))?"
    clock = "|".join([
        rf"(?<![\w.:])(?:1[0-2]|0?[1-9])(?::[0-5]\d)?\s*(?:{one_of([*words.am_en, *words.pm_en])})(?!\w)",
        rf"(?:(?:{parts_zh})\s*)?(?<![\d.第])(?:[01]?\d|2[0-3])\s*(?:{hour_zh}){minute_zh}",
        rf"(?:{parts_zh})\s*{_ZHNUM}\s*(?:{hour_zh}){minute_zh}",
        rf"\b(?:{one_of(words.clock_words_en)})\b", _CLOCK24])
    to = one_of(grammar.range_to, english_ends_word=True)
    clocks = "|".join([
        rf"(?:\b(?:{one_of(grammar.range_start)})\s+)?(?:{clock})\s*(?:{to})\s*(?:{clock})"
        rf"(?:\s*(?:{one_of(grammar.range_end)}))?",
        rf"(?:(?:{one_of([*grammar.around, *grammar.at], english_ends_word=True)})\s*)?(?:{clock})"
        rf"(?:\s*(?:{one_of(grammar.around_after)}))?"])
    # An English part of the day alone only after "in the"/"this" ("good morning" names none).
    alone = "|".join([clocks, rf"\b(?:{one_of(words.part_lead_en)})\s+(?:{parts_en})\b", parts_zh,
                      one_of(words.day_part_words, english_ends_word=True)])
    after_day = rf"{alone}|(?:\bin\s+the\s+)?\b(?:{parts_en})\b"
    weeks = one_of([*words.last_week, *words.this_week, *words.last_month, *words.this_month],
                   english_ends_word=True)
    return day, after_day, alone, weeks


class DateReader:
    """Natural dates and times in the words of ``grammar``; the patterns are compiled when
    first searched."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        day, after_day, alone, weeks = _build(grammar)
        weekday = rf"(?!{one_of(WORDS.not_weekdays_zh)})(?:{one_of(WORDS.weekday_zh)})"
        lead = one_of(["on", *grammar.around], english_ends_word=True)  # kept: "around" widens the time
        self.natural = LazyPattern(
            rf"(?:(?<![a-z])(?:{lead})\s*)?(?P<d2>{day})(?:\s*[,的]?\s*(?P<t2>{after_day}))?"
            rf"|(?P<w>{weeks})(?!{weekday})|(?P<t3>{alone})(?:\s*,?\s*(?:on\s+)?(?P<d1>{day}))?", re.IGNORECASE)
        self.clock = LazyPattern(_CLOCK_PARTS, re.IGNORECASE)
        # The natural pattern is large (~20 ms to compile): only a question holding one of its
        # words, or an hour written in Chinese (3点), is searched with it.
        words = [*WORDS.months, *WORDS.weekdays_en, *WORDS.weekday_abbreviations_en, *WORDS.ago_en, *WORDS.ago_zh,
                 *WORDS.days_back, *WORDS.day_parts, *WORDS.day_part_words, *WORDS.week_zh, *WORDS.last_week,
                 *WORDS.this_week, *WORDS.last_month, *WORDS.this_month, *WORDS.am_en, *WORDS.pm_en, "月",
                 *WORDS.clock_words_en, *grammar.around, *grammar.around_after, *grammar.day_words]
        self.gate = LazyPattern(rf"(?<![a-z])(?:{one_of(w for w in words if w.isascii())})(?!\w)"
                                rf"|{one_of(w for w in words if not w.isascii())}|\d\s*(?:{one_of(WORDS.hour_zh)})",
                                re.IGNORECASE)
        self.before = LazyPattern(rf"(?:{one_of(grammar.bounds_before, english_ends_word=True)})\s*$", re.IGNORECASE)
        self.after = LazyPattern(rf"\s*(?:{one_of(grammar.bounds_after)})", re.IGNORECASE)
        self.around = LazyPattern(one_of([*grammar.around, *grammar.around_after], english_ends_word=True),
                                  re.IGNORECASE)

    def rewrite(self, question: str, now: datetime) -> Rewrite:
        """``question`` with its natural dates and times written as ``time.py`` reads them."""
        if not self.gate.search(question):
            return Rewrite(question, ())
        pieces: list[str] = []
        edits: list[tuple[int, int, int, int]] = []
        position = length = 0
        for match in self.natural.finditer(question):
            bounded = bool(self.before.search(question, 0, match.start())
                           or self.after.match(question, match.end()))
            written = self._written(match, now, bounded)
            if written is None:
                continue
            if question[match.end():match.end() + 1].isdigit() or question[match.end():match.end() + 1] == ":":
                written += " "  # "2 days ago: ..." -- a date right before a colon is none (10.0.0.1:80)
            pieces.append(question[position:match.start()])
            length += match.start() - position
            edits.append((match.start(), match.end(), length, length + len(written)))
            pieces.append(written)
            length += len(written)
            position = match.end()
        pieces.append(question[position:])
        return Rewrite("".join(pieces), tuple(edits))

    def _written(self, match: re.Match[str], now: datetime, bounded: bool) -> str | None:
        """What a match means, as ``time.py`` reads it; None to leave it as written."""
        if match.group("w"):
            return _weeks(match.group("w").lower(), now.date(), bounded)
        day_text = match.group("d1") or match.group("d2")
        time_text = match.group("t2") or match.group("t3")
        day = _day(day_text, now.date(), self.grammar) if day_text else None
        if day_text and day is None:
            return None
        if time_text is None:
            assert day_text is not None  # the pattern's alternatives: a day, a time or a week
            # a day word alone ("yesterday") or a date as logs write it is time.py's own
            own = day_text.lower() in self.grammar.day_words or re.fullmatch(_ISO_DAY, day_text)
            return None if own else str(day)
        return self._moment(time_text, day, now, bounded, around=self.around.search(match.group()) is not None)

    def _moment(self, text: str, day: date | None, now: datetime, bounded: bool, *, around: bool) -> str | None:
        """A time (after ``day``, when one was named) in time.py's words: "between", "and",
        "at", "around" are its grammar's (``time_words.yaml``)."""
        on = f"{day} " if day else ""
        read = [_clock(match) for match in self.clock.finditer(text)]
        clocks = [clock for clock in read if clock is not None]
        if len(clocks) < len(read):
            return None
        if not clocks:
            part = _part(text.lower())
            if part is None:
                return None
            days_back, (first, last) = part
            if day is None and days_back is not None:
                on = f"{now.date() - timedelta(days=days_back)} "
            return f"{on}{first}" if bounded else f"between {on}{first} and {last}"
        if day is None and all(kind == "24" for _, _, kind in clocks):
            return None  # "between 10:00 and 11:00", "around 13:45": time.py's own
        if day is None and not bounded and text.lower() in WORDS.clock_words_en:
            return None  # "the noon batch": a clock word alone names a time after "at", "since" or a day
        (first_clock, first_hour, _), *rest = clocks
        if rest:
            last_clock, _, kind = rest[0]
            first_hour_of, last_hour_of = int(first_clock[:2]), int(last_clock[:2])
            if kind == "zh" and last_hour_of < 12 <= first_hour_of < last_hour_of + 12:
                # 下午3点到5点: the second hour is in the first's part of the day
                last_clock = f"{last_hour_of + 12:02d}{last_clock[2:]}"
            return f"between {on}{first_clock} and {last_clock}"
        if bounded:
            return f"{on}{first_clock}"
        if around:
            return f"around {on}{first_clock}"
        if first_hour:
            return f"between {on}{first_clock} and {first_clock[:3]}59"
        return f"at {on}{first_clock}"


def _clock_parts() -> str:
    """One clock time of any kind, grouped: its hour, minutes and their words."""
    words = WORDS
    return (rf"(?P<en>(?<![\w.:])(?P<eh>1[0-2]|0?[1-9])(?::(?P<em>[0-5]\d))?\s*"
            rf"(?:(?P<am>{one_of(words.am_en)})|{one_of(words.pm_en)})(?!\w))"
            rf"|(?P<zh>(?:(?P<part>{one_of(p for p in words.day_parts if not p.isascii())})\s*)?"
            rf"(?P<zhh>(?<![\d.第])(?:[01]?\d|2[0-3])|{_ZHNUM})\s*(?:{one_of(words.hour_zh)})"
            rf"(?:\s*(?:(?P<zhm>[0-5]?\d)\s*分|(?P<zhw>{one_of(words.minute_words_zh)})))?)"
            rf"|(?P<word>\b(?:{one_of(words.clock_words_en)})\b)|(?P<clock>{_CLOCK24})")


_CLOCK_PARTS = _clock_parts()


def _clock(match: re.Match[str]) -> tuple[str, bool, str] | None:
    """A clock time as ``HH:MM`` (or ``HH:MM:SS``), whether only its hour was written, and its
    kind (12-hour, Chinese, 24-hour); None when it is none (二十五点)."""
    if match.group("word"):
        return WORDS.clock_words_en[match.group("word").lower()], False, "word"
    if match.group("clock"):
        return match.group("clock").zfill(5), False, "24"
    if match.group("en"):
        hour = int(match.group("eh")) % 12 + (0 if match.group("am") else 12)
        minute = match.group("em")
        return f"{hour:02d}:{minute or '00'}", minute is None, "12"
    hour_text = match.group("zhh")
    hour_value = float(hour_text) if hour_text.isdigit() else zh_value(hour_text)
    if hour_value is None or hour_value > 23:
        return None
    hour = int(hour_value)
    if match.group("part") in WORDS.afternoon_parts_zh and hour < 12:
        hour += 12
    minutes = match.group("zhm") or match.group("zhw")
    minute = int(minutes) if minutes and minutes.isdigit() else WORDS.minute_words_zh.get(minutes or "", 0)
    return f"{hour:02d}:{minute:02d}", minutes is None, "zh"


def _part(text: str) -> tuple[int | None, tuple[str, str]] | None:
    """A part of the day named in ``text``: the days back its word says (None: not said), its span."""
    for word, (day, part) in WORDS.day_part_words.items():
        if word in text:
            first, last = WORDS.day_parts[part]
            return int(day == "yesterday"), (first, last)
    for part, (first, last) in sorted(WORDS.day_parts.items(), key=lambda item: -len(item[0])):
        if part in text:
            return None, (first, last)
    return None


def _day(text: str, today: date, grammar: Grammar) -> date | None:
    """The day ``text`` (one day of the pattern) names, None when it names none (February 30)."""
    lowered = re.sub(r"\s+", " ", text.lower()).strip()
    back = WORDS.days_back.get(lowered, grammar.day_words.get(lowered))
    if back is not None:
        return today - timedelta(days=back)
    try:
        if re.fullmatch(_ISO_DAY, lowered):
            return date.fromisoformat(lowered)
        return _dated(lowered, today) or _weekday(lowered, today) or _ago(lowered, today)
    except (ValueError, OverflowError):
        return None


def _dated(text: str, today: date) -> date | None:
    zh = re.fullmatch(rf"(?:(\d{{4}})\s*年\s*)?(\d{{1,2}}|{_ZHNUM})\s*月\s*(\d{{1,2}}|{_ZHNUM})\s*[日号號]", text)
    if zh:
        year, month, day = (None if part is None else _number(part) for part in zh.groups())
    else:
        month_word = re.search(one_of(WORDS.months, english_ends_word=True), text)
        if month_word is None:
            return None
        numbers = [int(number) for number in re.findall(r"\d+", text)]
        year = next((n for n in numbers if n > 31), None)
        day = next((n for n in numbers if n <= 31), None)
        month = WORDS.months[month_word.group()]
    if month is None or day is None:
        return None
    if year is not None:
        return date(int(year), int(month), int(day))
    for back in range(9):  # the most recent one not after today (a February 29 within 8 years)
        try:
            candidate = date(today.year - back, int(month), int(day))
        except ValueError:
            continue
        if candidate <= today:
            return candidate
    return None


def _number(text: str) -> float | None:
    return float(text) if text.isdigit() else zh_value(text)


def _weekday(text: str, today: date) -> date | None:
    monday = today - timedelta(days=today.weekday())
    names = {**WORDS.weekdays_en, **WORDS.weekday_abbreviations_en}
    name = re.search(one_of(names, english_ends_word=True), text)
    if name and re.fullmatch(rf"(?:\w+\s+)?{re.escape(name.group())}\.?", text):
        this = text.split()[0] in WORDS.weekday_this_en
        return monday + timedelta(days=names[name.group()]) if this else _before(today, names[name.group()])
    for prefix in sorted([*WORDS.week_last_zh, *WORDS.week_this_zh, *WORDS.week_zh], key=len, reverse=True):
        rest = text[len(prefix):] if text.startswith(prefix) else None
        if rest in WORDS.weekday_zh:
            weekday = WORDS.weekday_zh[rest]
            if prefix in WORDS.week_last_zh:
                return monday - timedelta(days=7 - weekday)
            return monday + timedelta(days=weekday) if prefix in WORDS.week_this_zh else _before(today, weekday)
    return None


def _before(today: date, weekday: int) -> date:
    """The most recent ``weekday`` before ``today``."""
    return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)


def _ago(text: str, today: date) -> date | None:
    count = re.match(rf"(\d+|{_ZHNUM}|[a-z]+)", text)
    if count is None:
        return None
    value = _number(count.group()) if not count.group().isalpha() or not count.group().isascii() \
        else en_value(count.group())
    return None if value is None else today - timedelta(days=int(value))


def _weeks(text: str, today: date, bounded: bool) -> str:
    """A whole week or month: last week's/month's, or this one's so far."""
    if text in WORDS.last_week or text in WORDS.this_week:
        first = today - timedelta(days=today.weekday()) - timedelta(days=7 if text in WORDS.last_week else 0)
        last = first + timedelta(days=6)
    else:
        this_first = today.replace(day=1)
        first = (this_first - timedelta(days=1)).replace(day=1) if text in WORDS.last_month else this_first
        last = this_first - timedelta(days=1)
    if bounded:
        return str(first)
    if text in WORDS.this_week or text in WORDS.this_month:
        return f"since {first}"
    return f"between {first} and {last}"


# The words of a natural date that holds no digit, for ``time.py``'s first look at a question.
CUES = (*WORDS.weekdays_en, *WORDS.weekday_abbreviations_en, *WORDS.ago_en, *WORDS.ago_zh, *WORDS.days_back,
        *WORDS.day_parts, *WORDS.day_part_words, *WORDS.week_zh, *WORDS.this_week, *WORDS.this_month,
        *WORDS.last_month, *WORDS.clock_words_en, "月")
