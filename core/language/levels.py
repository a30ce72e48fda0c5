"""What a question asks of levels and states: the minimum log level it writes, the alert states
it asks about (pass 7 of ``core.language.question``), whether it asks if something is well, and
the HTTP statuses it asks about.
"""

from __future__ import annotations

import re

from core.language.alternation import one_of
from core.language.question_words import (
    ASCII_WORD,
    LEVEL_WORDS_ANY_CASE,
    LEVELS_UPPER,
    QuestionText,
    unique,
    vocabulary,
    words_pattern,
)
from core.lazypattern import LazyPattern
from core.logfields import level_rank

# The state an alert question asks about, as Prometheus and Alertmanager name the states.
_ALERT_STATES = tuple((state, words_pattern(words)) for state, words in vocabulary().alert_states.items())
_SUFFIXES = vocabulary().level_suffixes
_LEVEL_SUFFIX = LazyPattern(
    rf"^\s*(?:{one_of(_SUFFIXES.words, english_ends_word=True)}|{one_of(_SUFFIXES.starts)})", re.IGNORECASE)
_HEALTH = words_pattern(vocabulary().health.words, vocabulary().health.after_no_negation)


def asks_about_health(question: str) -> bool:
    """Whether the question asks if something is well ("Is X healthy?", "X 正常吗？"): what
    answers it is the trouble found, or its verified absence."""
    return _HEALTH.search(question) is not None


# A value asked about as a percentage ("above 90%", "超过 80%", "百分之八十"): what a metric says.
_PERCENTAGE = LazyPattern(r"\d+(?:\.\d+)?\s*(?:%|％|percent\b)|百分之")


def asks_for_a_percentage(question: str) -> bool:
    """Whether the question asks about a percentage ("memory usage above 90%"): a value only
    a metric gives, which no log search answers "no" to."""
    return _PERCENTAGE.search(question) is not None


# A 5xx code asked about as an HTTP status: in the plural ("502s"), before errors/responses
# ("503 errors", "502 错误"), after http/status/code/return ("returned 504", "状态码 500"): the
# words are ``http_status`` of ``vocab/question.yaml``.
_STATUS_CUES = vocabulary().http_status
_HTTP_STATUS = re.compile(
    rf"(?<![\w.\-/:])(5\d\d)(?:s(?![a-z0-9])|(?=\s*(?:{one_of(_STATUS_CUES.after_en)})(?![a-z])"
    rf"|\s*(?:{one_of(_STATUS_CUES.after_zh)})))"
    rf"|(?<![a-z])(?:{one_of(_STATUS_CUES.before_en)})\s*[:=]?\s*(?:any\s+|an?\s+)?(5\d\d)"
    r"(?![\w.])"
    rf"|(?:{one_of(_STATUS_CUES.before_zh)})\s*(5\d\d)(?![\w.])", re.IGNORECASE)


def http_statuses(question: str) -> set[str]:
    """The 5xx codes a question asks about as HTTP statuses ("Were there any 502s?"), not as
    other numbers ("slower than 500 ms"): searched first where the lines say them as a status
    (``topic=http_error``: an access log's status, "HTTP 502", "status: 502")."""
    return {next(group for group in match.groups() if group) for match in _HTTP_STATUS.finditer(question)}


def alert_states(text: QuestionText) -> list[str]:
    """The alert states a question about alerts asks for (``is X firing?``, 静默的告警)."""
    found: list[tuple[int, str]] = []
    for state, pattern in _ALERT_STATES:
        for match in pattern.finditer(text.current):
            found.append((match.start(), state))
            text.take(match.start(), match.end())
    return unique(state for _, state in sorted(found))


def level_asked(text: QuestionText) -> str | None:
    """The minimum level the question asks for, if it writes one as a level (the lowest of
    several)."""
    found: list[str] = []
    for match in ASCII_WORD.finditer(text.current):
        word = match.group()
        after = text.current[match.end():]
        if word in LEVELS_UPPER and (word.isupper() or _LEVEL_SUFFIX.match(after)):
            found.append(LEVELS_UPPER[word])
            text.take(match.start(), match.end())
        elif word.upper() in LEVELS_UPPER and _LEVEL_SUFFIX.match(after):
            found.append(LEVELS_UPPER[word.upper()])
            text.take(match.start(), match.end())
    lowered = text.lowered
    for word, level in LEVEL_WORDS_ANY_CASE.items():
        for match in re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered):
            found.append(level)
            text.take(match.start(), match.end())
    # Several levels ("ERROR or WARNING", "WARN 和 ERROR") ask for the lines of each: the
    # lowest of them is the minimum that keeps them all.
    return min(found, key=lambda level: level_rank(level) or 0) if found else None
