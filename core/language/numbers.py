"""Numbers and clock times written in words: Chinese numerals, English number words.

A model restating a value does not always write digits: ``九十一%``, ``百分之九十一``, ``十五分钟``,
``一百四十七条``, ``ninety-one percent``, ``twenty-five minutes``, ``half an hour``, ``11点17分``,
``十一点零五分``. Each is read here as the value it names, with its span in the folded text, so
the role reader compares it like digits -- and a wrong value in words (``二十分钟`` for 15m) is
as wrong as in digits.

A number word is read only where it states a quantity: Chinese numerals before a unit or
after ``百分之``, English number words before a unit word. "一条日志", "one or more targets",
"十分频繁" and "三分之一" are words, not values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.language.alternation import one_of
from core.language.number_words import NUMBER_WORDS, SpelledDuration

_ZH_DIGITS = NUMBER_WORDS.zh_digits
_ZH_SCALES = NUMBER_WORDS.zh_scales
_ZH_TENS = NUMBER_WORDS.zh_tens
_ZH_CHARS = "".join(_ZH_DIGITS) + "".join(_ZH_SCALES) + "".join(_ZH_TENS)
# A run of Chinese numerals, with an optional decimal part (九十一点五).
_ZH_RUN = re.compile(rf"[{_ZH_CHARS}]+(?:点[{''.join(_ZH_DIGITS)}]+)?")

_EN_UNITS = NUMBER_WORDS.en_units
_EN_TENS = NUMBER_WORDS.en_tens
_EN_SCALES = NUMBER_WORDS.en_scales
_EN_WORD = "|".join(map(re.escape, sorted([*_EN_UNITS, *_EN_TENS, *_EN_SCALES], key=len, reverse=True)))
_A_SCALE = "|".join(" " + re.escape(scale) for scale in _EN_SCALES)  # "a hundred": one hundred
_EN_RUN = re.compile(rf"(?<![a-z\-])(?:(?:{_EN_WORD}|a(?={_A_SCALE}))(?:[\s\-]+(?:and\s+)?)?)+(?<![\s\-])"
                     rf"(?![a-z])")


def _longest_first(words: tuple[str, ...]) -> list[str]:
    return [re.escape(word) for word in sorted(words, key=len, reverse=True)]


def _duration_pattern(duration: SpelledDuration) -> str:
    """English phrases as whole words, a unit word after "the past "/"the last ", Chinese words."""
    parts = []
    if duration.en:
        parts.append(rf"(?<![a-z])(?:{'|'.join(_longest_first(duration.en))})(?![a-z])")
    if duration.after_the_last:
        parts.append(rf"(?<=the past |the last )(?:{'|'.join(_longest_first(duration.after_the_last))})(?![a-z])")
    return "|".join(parts + _longest_first(duration.zh))


# Spelled durations with no numeral a unit could follow.
_IDIOMS: tuple[tuple[re.Pattern[str], float, str], ...] = tuple(
    (re.compile(_duration_pattern(duration)), duration.value, duration.unit)
    for duration in NUMBER_WORDS.spelled_durations)
_PERCENT_PREFIX = re.compile(r"百分之\s*")
# 九成五 (95%), 两成 (20%): tenths, with an optional hundredth digit after 成.
_ZH_DIGIT_CHARS = "".join(_ZH_DIGITS)
_ZH_TENTHS = re.compile(rf"(?<![{_ZH_CHARS}])([{_ZH_DIGIT_CHARS}])成([{_ZH_DIGIT_CHARS}](?![{_ZH_CHARS}]))?"
                        rf"(?![{NUMBER_WORDS.zh_tenths_not_before}])")


@dataclass(frozen=True)
class Spelled:
    """A number written in words: its span, its value and a unit the words already name."""

    start: int
    end: int
    value: float
    unit: str = ""


def zh_value(text: str) -> float | None:
    """The value of a run of Chinese numerals (``九十一`` = 91, ``一百四十七`` = 147,
    ``十五`` = 15, ``二零二六`` = 2026, ``九十一点五`` = 91.5); None when it is not one."""
    whole, _, fraction = text.partition("点")
    value = _zh_integer(whole)
    if value is None:
        return None
    if fraction:
        digits = "".join(str(_ZH_DIGITS[c]) for c in fraction if c in _ZH_DIGITS)
        if len(digits) != len(fraction):
            return None
        return float(f"{value}.{digits}")
    return float(value)


def _zh_integer(text: str) -> int | None:
    if not text:
        return None
    if all(c in _ZH_DIGITS for c in text):
        if len(text) == 1:
            return _ZH_DIGITS[text]
        return int("".join(str(_ZH_DIGITS[c]) for c in text))  # 二零二六: digit by digit
    total, section, digit = 0, 0, None
    for char in text:
        if char in _ZH_TENS:
            if digit is not None:
                return None  # 五廿 is no number
            section += _ZH_TENS[char]
        elif char in _ZH_DIGITS:
            if digit is not None and _ZH_DIGITS[char] != 0 and digit != 0:
                return None  # two digits in a row inside a scaled number
            digit = _ZH_DIGITS[char]
        elif char in _ZH_SCALES:
            scale = _ZH_SCALES[char]
            if scale == 10000:
                total = (total + section + (digit or 0)) * scale
                section, digit = 0, None
                continue
            section += (1 if digit is None else digit) * scale
            digit = None
        else:
            return None
    return total + section + (digit or 0)


def en_value(text: str) -> float | None:
    """The value of English number words (``ninety-one`` = 91, ``one hundred forty-seven`` =
    147, ``a hundred`` = 100); None when they do not form one number."""
    words = [w for w in re.split(r"[\s\-]+", text) if w and w != "and"]
    total, current = 0, 0
    last: str | None = None
    for word in words:
        if word == "a":
            current = 1
        elif word in _EN_UNITS:
            if last in ("unit", "teen"):
                return None
            current += _EN_UNITS[word]
            last = "unit"
        elif word in _EN_TENS:
            if last in ("unit", "tens"):
                return None
            current += _EN_TENS[word]
            last = "tens"
        elif word == "dozen":
            current = max(current, 1) * 12
            last = None
        elif word == "hundred":
            current = max(current, 1) * 100
            last = None
        elif word == "thousand":
            total += max(current, 1) * 1000
            current = 0
            last = None
        else:
            return None
    return float(total + current)


def spelled_numbers(folded: str) -> list[Spelled]:
    """Every number written in words in a folded text, with its span (unit words after it are
    left to the caller, except where the words name the unit: ``百分之九十一``, ``half an hour``)."""
    found: list[Spelled] = []
    taken: list[tuple[int, int]] = []
    for pattern, idiom, unit in _IDIOMS:
        for match in pattern.finditer(folded):
            if not _overlaps(match.span(), taken):
                found.append(Spelled(match.start(), match.end(), idiom, unit))
                taken.append(match.span())
    for match in _PERCENT_PREFIX.finditer(folded):
        run = _ZH_RUN.match(folded, match.end()) or re.compile(r"\d+(?:\.\d+)?").match(folded, match.end())
        if run is None or _overlaps((match.start(), run.end()), taken):
            continue
        percent = zh_value(run.group()) if not run.group()[0].isdigit() else float(run.group())
        if percent is not None:
            found.append(Spelled(match.start(), run.end(), percent, "%"))
            taken.append((match.start(), run.end()))
    for match in _ZH_TENTHS.finditer(folded):
        tenths, hundredths = match.group(1), match.group(2)
        if not _overlaps(match.span(), taken):
            share = _ZH_DIGITS[tenths] * 10 + (_ZH_DIGITS[hundredths] if hundredths else 0)
            found.append(Spelled(match.start(), match.end(), float(share), "%"))
            taken.append(match.span())
    for match in _ZH_RUN.finditer(folded):
        if _overlaps(match.span(), taken) or not _zh_stands_alone(folded, match):
            continue
        value = zh_value(match.group())
        if value is not None:
            found.append(Spelled(match.start(), match.end(), value))
            taken.append(match.span())
    for match in _EN_RUN.finditer(folded):
        if _overlaps(match.span(), taken):
            continue
        value = en_value(match.group())
        if value is not None:
            found.append(Spelled(match.start(), match.end(), value))
            taken.append(match.span())
    return sorted(found, key=lambda spelled: spelled.start)


def _zh_stands_alone(folded: str, match: re.Match[str]) -> bool:
    """A numeral run that names a value: not a lone 一 (一条, 一些, 统一), not 十分 "very",
    not a fraction (三分之一), not part of a word (之一, 第一, 万一)."""
    text = match.group()
    before = folded[match.start() - 1] if match.start() > 0 else ""
    after = folded[match.end():match.end() + 2]
    # (``before`` is "" at the text's start, which ``in`` finds in any string: a run starting
    # the text is not read -- as before the characters were data.)
    if text in NUMBER_WORDS.numeral_not_alone or before in NUMBER_WORDS.numeral_not_after:
        return False
    fraction = after.startswith("分之")
    very = text.endswith("十") and after[:1] == "分" and not after.startswith("分钟")  # 十分频繁
    return not (fraction or very)


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(start < span[1] and span[0] < end for start, end in taken)


# ``11点17分``, ``十一点零五分``, ``上午11点30分``, ``下午3点``, ``11点半``, ``11时17分05秒``.
_NUM = rf"(?:\d{{1,2}}|[{_ZH_CHARS}]{{1,3}})"
_ZH_CLOCK = re.compile(rf"(?P<half>{one_of(NUMBER_WORDS.day_halves)})?\s*(?P<hour>{_NUM})\s*[点時时]"
                       rf"(?:\s*(?:(?P<minute>{_NUM})\s*分?(?:\s*(?P<second>{_NUM})\s*秒)?|(?P<halfhour>半)))?")


@dataclass(frozen=True)
class Clock:
    """A clock time written the Chinese way, with its span."""

    start: int
    end: int
    hour: int
    minute: int
    second: int | None


def _clock_number(text: str | None) -> int | None:
    if text is None:
        return None
    if text.isdigit():
        return int(text)
    value = zh_value(text)
    return None if value is None else int(value)


def zh_clocks(folded: str) -> list[Clock]:
    """Every Chinese clock time of a folded text (``11点17分``); a bare ``3点`` only with 上午 /
    下午 … or 分 after it (``3点`` alone may be "3 points")."""
    found: list[Clock] = []
    for match in _ZH_CLOCK.finditer(folded):
        hour = _clock_number(match.group("hour"))
        minute = _clock_number(match.group("minute"))
        second = _clock_number(match.group("second"))
        if match.group("halfhour"):
            minute = 30
        if hour is None or hour > 24 or (minute is not None and minute > 59) \
                or (second is not None and second > 59):
            continue
        if minute is None and not match.group("half"):
            continue
        if match.group("minute") and not re.search(r"分", match.group()) and not match.group("half"):
            continue  # "3点5" is a version or a score, not a time
        if match.group("half") and hour < 12:
            hour += NUMBER_WORDS.day_halves[match.group("half")]
        found.append(Clock(match.start(), match.end(), hour, minute or 0, second))
    return found
