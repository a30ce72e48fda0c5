"""Layouts learned from a file's shapes: where its timestamp is, what it looks like, where its
level and its tag are -- not which product wrote it.

``learn(lines)`` reads a sample of a file's lines and returns a ``Shape`` (or None when no
timestamp shape holds in most of them); ``Shape.parse`` then reads each line of the file:

- the timestamp: one of the shapes in ``_STAMPS`` (year first with ``-`` ``/`` ``.`` or none
  between the date's parts; month and day without a year; month names, with or without a
  weekday or a year after the time; day/month-name/year; an epoch in seconds or milliseconds),
  ``T``/space/``-``/``:``/``_`` between date and time, a fraction after ``.`` ``,`` or ``:``,
  bracketed or not, after a fixed number of fields (an epoch after a flag, a relayed syslog
  after its receiver's fields). Of the shapes found in most lines, the most precise wins.
- after it, fields separated by ``|`` ``;`` a tab or a comma (the last field is the message),
  or words: the level is a word at one of the positions most lines have one (``INFO``,
  ``[notice]``, ``Info``, ``<3>``, ``level=warn``, ``E`` where a column of single letters is
  learned); the tag (``Name:``, ``app[123]:``) at a learned position is the line's source; the
  message is what follows them.

A line of a file without timestamps is read by ``plain_parser``: stamped with one instant (the
file's), its level from its first words.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from core.logfields import canonical_level, coded_level
from core.sources.logclock import TimeParts
from core.sources.logformats import LineParser, ParsedLine, is_continuation

_MONTH = r"(?P<b>(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))[a-z]*\.?"
_MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_HMS = r"(?P<H>[0-2]?\d)(?P<ts>[:.])(?P<M>[0-5]?\d)(?P=ts)(?P<S>[0-6]?\d)(?:[.,:](?P<f>\d{1,9}))?"
_ZONE = r"(?:\s?(?P<z>Z|z|UTC|GMT|[+-]\d\d:?\d\d)(?![\w:]))?"
_END = r"(?![\w.:/-]\w)"  # a timestamp ends where its field does

# name -> (pattern, precision): of the shapes most lines have, the most precise is taken.
_STAMPS: dict[str, tuple[str, int]] = {
    "year-month-day": (rf"(?P<Y>(?:19|20)\d\d)(?P<ds>[-/.]?)(?P<m>[01]?\d)(?P=ds)(?P<d>[0-3]?\d)"
                       rf"(?:[T_:-]|\s+){_HMS}{_ZONE}", 3),
    "day/month/year": (rf"(?P<d>[0-3]?\d)/(?P<m>[01]?\d)/(?P<Y>(?:19|20)\d\d)[\s:]{_HMS}{_ZONE}", 3),
    "month-day": (rf"(?P<m>[01]?\d)(?P<ds>[-/.])(?P<d>[0-3]?\d)[T\s-]+{_HMS}", 1),
    "month-name": (rf"(?:(?i:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?{_MONTH}[\s-]+(?P<d>[0-3]?\d),?\s+"
                   rf"(?:(?P<Y>(?:19|20)\d\d)\s+)?{_HMS}(?:\s+(?P<Y2>(?:19|20)\d\d)(?!\d))?{_ZONE}", 1),
    "day-month-name": (rf"(?P<d>[0-3]?\d)[\s/-]{_MONTH}[\s/-](?P<Y>(?:19|20)\d\d)[\s:]{_HMS}{_ZONE}", 3),
    "year/month/day": (rf"(?P<y>\d\d)/(?P<m>[01]\d)/(?P<d>[0-3]\d)[\s:]{_HMS}", 2),  # two digits: yy/mm/dd
    "yymmdd hhmmss": (r"(?P<y>\d\d)(?P<m>[01]\d)(?P<d>[0-3]\d)[\sT-](?P<H>[0-2]\d)(?P<M>[0-5]\d)(?P<S>[0-6]\d)"
                      r"(?!\d)", 2),
    "time of day": (rf"{_HMS}(?![\d:.])", 0),  # no date: the file's (logback's HH:mm:ss.SSS)
    "epoch": (r"(?P<e>1\d{9}|9\d{8}|1\d{12})(?:\.(?P<ef>\d{1,9}))?(?![\d.])", 2),
}
_COMPILED = {name: re.compile(pattern) for name, (pattern, _) in _STAMPS.items()}
_FIELDS = 8  # a timestamp, a level or a tag is looked for in this many fields from the start
_WORD = re.compile(r"\S+")
_TAG = re.compile(r"[A-Za-z_$/][\w.$/()@-]*(?:\[[^\]\s]*\])?:")
# A field the message starts with in nearly every line (``chrome.exe - ...``, a column padded
# with spaces, a flag number): the line's source, not its message.
_LEADS = {"dash": re.compile(r"(\S+(?: \S+){0,2}?) +- +(?=\S)"), "column": re.compile(r"(\S+) {2,}(?=\S)"),
          "number": re.compile(r"(-?\d+)\s+(?=\S)")}
_LEVEL_KEY = re.compile(r"(?i:level|lvl|severity|loglevel)=\"?([A-Za-z]+)\"?")
_BRACKETS = "[](){}<>"
_LEAD = re.compile(r"(?:(\[(?:[^\[\]]|\[[^\[\]]*\])*\])\s+)?-\s+(?=\S)")


def time_of(match: re.Match[str]) -> TimeParts | None:
    """The parts of a ``_STAMPS`` match; None for an impossible month."""
    groups = match.groupdict()
    epoch = groups.get("e")
    if epoch is not None:
        number = float(epoch + ("." + groups["ef"] if groups.get("ef") else ""))
        return TimeParts(epoch=number / 1000 if len(epoch) == 13 else number)
    if groups.get("d") is None:  # a time of day: the date is the file's (the clock's)
        return TimeParts(None, 0, 0, int(groups["H"]), int(groups["M"]), int(groups["S"]), groups.get("f") or "")
    month_name = groups.get("b")
    month = _MONTHS[month_name[:3].lower()] if month_name else int(groups["m"])
    year_text = groups.get("Y") or groups.get("Y2")
    if groups.get("y"):
        year_text = "20" + groups["y"]
    if not 1 <= month <= 12:
        return None
    zone = groups.get("z")
    if zone in ("UTC", "GMT"):
        zone = "Z"
    return TimeParts(int(year_text) if year_text else None, month, int(groups["d"]), int(groups["H"]),
                     int(groups["M"]), int(groups["S"]), groups.get("f") or "", zone)


def level_of(token: str, letters: bool) -> str | None:
    """The level a field writes, as written (``[notice]`` -> ``notice``, ``level=warn`` ->
    ``warn``, ``<3>`` -> ``<3>``); a single letter only where the layout has a letter column."""
    word = token.rstrip(":,")
    if word.startswith("<") and word.endswith(">") and word[1:-1].isdigit():
        return word
    keyed = _LEVEL_KEY.fullmatch(word)
    if keyed:
        word = keyed.group(1)
    word = word.strip(_BRACKETS)
    if ":" in word:  # Python's "WARNING:root:message"
        word = word.partition(":")[0]
    if not word or not word.isalpha():
        return None
    if len(word) == 1:
        return word if letters and coded_level(word) else None
    return word if canonical_level(word) else None


@dataclass(frozen=True)
class _Where:
    fields: int  # fields before the timestamp
    bracketed: bool
    stamp: str


def _stamps_in(line: str) -> list[tuple[_Where, int]]:
    """Every (place, end offset) a timestamp shape starts at, within the first fields."""
    found = []
    for index, word in enumerate(_WORD.finditer(line)):
        if index >= _FIELDS:
            break
        start = word.start()
        bracketed = line.startswith("[", start)
        for name, pattern in _COMPILED.items():
            match = pattern.match(line, start + 1 if bracketed else start)
            if match and time_of(match) is not None:
                found.append((_Where(index, bracketed, name), match.end()))
    return found


@dataclass(frozen=True)
class Shape:
    """A layout learned from a file's lines (see the module doc)."""

    where: _Where
    separator: str | None  # "|", ";", "\t" or ",": fields; None: words
    header_fields: int  # fields before the message, with a separator
    level_fields: tuple[int, ...]  # word positions (after the timestamp) a level is at
    letters: bool
    tag_fields: tuple[int, ...]
    lead: str | None = None  # a key of _LEADS

    def describe(self) -> str:
        """What was learned, in a few words (the import report's layout)."""
        parts = [f"timestamp {self.where.stamp}" + (" bracketed" if self.where.bracketed else "")
                 + (f" after {self.where.fields} fields" if self.where.fields else "")]
        if self.separator:
            parts.append(f"{'tab' if self.separator == chr(9) else repr(self.separator)}-separated")
        if self.level_fields:
            parts.append("level" + (" letters" if self.letters else ""))
        if self.tag_fields:
            parts.append("tag")
        if self.lead:
            parts.append(f"{self.lead} field")
        return "text (" + ", ".join(parts) + ")"

    def parse(self, line: str) -> ParsedLine | None:
        """A line of this shape's fields (level as written, the fields before the message as its
        source), or None."""
        head = _head(line, self.where)
        if head is None:
            return None
        time, end = head
        prefix = [word for word in line[:_start_of_stamp(line, self.where)].split() if word != "-"]
        rest = line[end:]
        if rest.startswith("]"):
            rest = rest[1:]
        if self.separator is not None and rest.lstrip(" ").startswith(self.separator):
            fields = rest.lstrip(" ")[1:].split(self.separator, self.header_fields)
            message = fields.pop().strip() if len(fields) > self.header_fields else ""
            level = None
            header = []
            for field in fields:
                field = field.strip()
                found = level_of(field, self.letters) if level is None and " " not in field else None
                if found:
                    level = found
                elif field and field != "-":
                    header.append(field)
            return ParsedLine(time, message, level, source=" ".join(prefix + header) or None)
        rest = rest.lstrip(" \t,")
        words = [(word.start(), word.end()) for _, word in zip(range(_FIELDS), _WORD.finditer(rest), strict=False)]
        level, used = None, -1
        for index in self.level_fields:
            if index < len(words):
                level = level_of(rest[words[index][0]:words[index][1]], self.letters)
                if level is not None:
                    used = index
                    break
        level_index, tag = used, None
        for index in self.tag_fields:
            if used < index < len(words) and _TAG.fullmatch(rest, *words[index]):
                tag, used = rest[words[index][0]:words[index][1] - 1], index
                break
        if used < 0:
            return self._lead(ParsedLine(time, rest, source=" ".join(prefix) or None))
        header = [rest[a:b] for index, (a, b) in enumerate(words[:used])
                  if index != level_index and rest[a:b] != "-"]
        message = rest[words[used][1]:].lstrip()
        lead = _LEAD.match(message)  # "[thread] - message", "- message": the context is no message
        if lead:
            header += [lead.group(1)] if lead.group(1) else []
            message = message[lead.end():]
        source = " ".join(prefix + header + ([tag] if tag else [])) or None
        return self._lead(ParsedLine(time, message, level, source=source))

    def _lead(self, parsed: ParsedLine) -> ParsedLine:
        if self.lead is None:
            return parsed
        lead = _LEADS[self.lead].match(parsed.message)
        if lead is None:
            return parsed
        source = f"{parsed.source} {lead.group(1)}" if parsed.source else lead.group(1)
        return parsed._replace(message=parsed.message[lead.end():], source=source)


def _start_of_stamp(line: str, where: _Where) -> int:
    if where.fields == 0:
        return 0
    for index, word in enumerate(_WORD.finditer(line)):
        if index == where.fields:
            return word.start()
    return len(line)


def _head(line: str, where: _Where) -> tuple[TimeParts, int] | None:
    start = _start_of_stamp(line, where)
    if where.bracketed:
        if not line.startswith("[", start):
            return None
        start += 1
    match = _COMPILED[where.stamp].match(line, start)
    if match is None:
        return None
    time = time_of(match)
    return (time, match.end()) if time is not None else None


def _positions(found: Sequence[int | None], share: float = 0.1, total: float = 0.5) -> tuple[int, ...]:
    """The positions at least ``share`` of the lines have something at, most common first, when
    together they cover at least ``total`` of the lines; else none."""
    counts = Counter(index for index in found if index is not None)
    if not found or sum(counts.values()) < total * len(found):
        return ()
    return tuple(index for index, count in counts.most_common() if count >= share * len(found))


def learn(lines: Sequence[str]) -> Shape | None:
    """The shape most of ``lines`` have, or None when fewer than half have a timestamp shape
    at the same place."""
    places: Counter[_Where] = Counter()
    found_in = []
    for line in lines:
        found = _stamps_in(line)
        found_in.append(found)
        places.update({where for where, _ in found})
    if not places:
        return None
    best_count = max(places.values())
    if best_count < len(lines) / 2:
        return None
    where = max((where for where, count in places.items() if count >= 0.9 * best_count),
                key=lambda w: (_STAMPS[w.stamp][1], places[w], -w.fields))
    rests = []
    for line, found in zip(lines, found_in, strict=True):
        end = next((end for place, end in found if place == where), None)
        if end is not None:
            rests.append(line[end:].removeprefix("]"))
    separator, header_fields = _separator(rests)
    if separator is not None:
        return Shape(where, separator, header_fields, (), _letter_fields(rests, separator), ())
    words = [_WORD.findall(rest.lstrip(" \t,"))[:_FIELDS] for rest in rests]
    letter_levels = _positions([next((i for i, w in enumerate(ws) if len(w) == 1 and level_of(w, True)), None)
                                for ws in words], share=0.5, total=0.5)
    word_levels = _positions([next((i for i, w in enumerate(ws) if level_of(w, False)), None) for ws in words])
    distinct = {w for ws in words for w in ws[:_FIELDS] if len(w) == 1 and level_of(w, True)}
    # one letter everywhere is a column of something else (CRI's "F" for a full line)
    letters = bool(letter_levels) and not word_levels and len(distinct) > 1
    levels = letter_levels if letters else word_levels
    tags = _positions([next((i for i, w in enumerate(ws) if _TAG.fullmatch(w)), None) for ws in words],
                      share=0.1, total=0.6)
    shape = Shape(where, None, 0, levels, letters, tags)
    messages = [parsed.message for parsed in map(shape.parse, lines) if parsed is not None]
    for name, lead in _LEADS.items():
        if messages and sum(1 for message in messages if lead.match(message)) >= 0.9 * len(messages):
            return dataclasses.replace(shape, lead=name)
    return shape


def _separator(rests: Sequence[str]) -> tuple[str | None, int]:
    """The field separator right after the timestamp in most lines, and the fields before the
    message (the count most lines have)."""
    firsts = Counter(rest.lstrip(" ")[:2] for rest in rests)
    for separator in ("|", ";", "\t", ","):
        starting = sum(count for first, count in firsts.items()
                       if first[:1] == separator and not (separator == "," and first[1:] == " "))
        if starting >= 0.9 * len(rests):
            counts = Counter(rest.lstrip(" ")[1:].count(separator) for rest in rests)
            return separator, counts.most_common(1)[0][0]
    return None, 0


def _letter_fields(rests: Sequence[str], separator: str) -> bool:
    """Whether the separated fields hold a column of single-letter levels."""
    hits = sum(1 for rest in rests
               if any(len(field.strip()) == 1 and level_of(field.strip(), True)
                      for field in rest.lstrip(" ")[1:].split(separator)[:-1]))
    return hits >= 0.5 * len(rests)


def plain_parser(stamp: TimeParts) -> LineParser:
    """A reader of lines without timestamps: each line is stamped ``stamp``; a level among its
    first three words (``INFO``, ``[warn]``, ``level=error``; not a lone letter) is its level.
    An indented line or a stack trace's continues the line above (None)."""
    def parse(line: str) -> ParsedLine | None:
        if is_continuation(line):  # a stack trace's frame continues the line above
            return None
        for index, word in enumerate(_WORD.finditer(line)):
            if index >= 3:
                break
            level = level_of(word.group(), letters=False)  # "I think" is no INFO line
            if level is not None:
                return ParsedLine(stamp, line, level)
        return ParsedLine(stamp, line)
    return parse


def has_level(line: str) -> bool:
    """Whether a line without a timestamp starts like a log line: a level among its first words
    (or it continues the line above: a stack trace)."""
    if is_continuation(line):
        return True
    parsed = plain_parser(TimeParts())(line)
    return parsed is not None and parsed.level is not None
