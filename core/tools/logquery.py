"""How ``query_logs`` reads its arguments: one compiled query, which the log store
(``core.sources.logstore``, every world's log search) runs as SQL and which
``CompiledQuery.accepts`` states line by line (the definition the store is tested against).
Each line is matched on its *search text*: the message, then its level,
service, source and host, normalised (NFKC, lower case; see :func:`search_text`).

Filters (always ANDed):

- ``service``: the line's service, exact, case-insensitive.
- ``level``: a minimum rank (``core.logfields``): ERROR covers ERROR, SEVERE, FATAL, CRITICAL.
- ``topic``: the message mentions the topic or a topic it includes (``lexicon``).
- ``since`` / ``until``: the time window, inclusive (``logfields.time_bound``).
- ``exclude``: a level name (``WARN``, ``warning``, ``debug``) drops the lines of that rank;
  anything else drops the lines holding it as a phrase (whole words, like ``terms``).

Search units (``match="all"``: every unit; ``"any"``: at least one):

- the topics the query names (one unit: any of them, synonyms and included topics counted);
- identifiers in the query (service names, ids, paths, numbers): whole tokens, i.e. not
  preceded or followed by a letter or digit (``500`` is not in ``1250000``);
- the query's other words (substrings: ``connect`` is in ``disconnected``; Chinese too),
  only when the query names no topic: then the topic is what is searched;
- each quoted phrase of the query (``"connection refused"``) and each of ``terms``: the words
  in that order, case-insensitive, whole words at their alphanumeric edges, any run of spaces
  or tabs between them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import tzinfo
from functools import lru_cache
from typing import Any, Literal

from core.errors import ToolArgumentError
from core.language.lexicon import expand_topics, phrase_pattern
from core.language.text import normalize
from core.logfields import LEVEL_NAMES, LEVEL_RANKS, canonical_level, level_rank, time_bound
from core.tools.args import QueryLogsArgs
from core.tools.query import ParsedQuery, parse_query

META_MARK = "\x1f"  # separates the message from the other fields in a line's search text
UnitKind = Literal["topics", "identifier", "word", "phrase"]

_QUOTED = re.compile(r'"([^"]*)"|“([^”]*)”|「([^」]*)」')
_BLANKS = re.compile(r"[ \t]+")


def search_text(message: str, level: str, service: str, source: str | None, host: str | None) -> str:
    """What a line's units and exclusions are matched against: the message, then (after
    ``META_MARK``) level, service, source and host; NFKC, lower case."""
    return normalize(f"{message}{META_MARK}{level} {service} {source or ''} {host or ''}")


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def identifier_pattern(token: str) -> str:
    """An identifier as a whole token: not preceded or followed by a letter or digit."""
    return rf"(?<![a-z0-9]){re.escape(token)}(?![a-z0-9])"


@dataclass(frozen=True)
class SearchUnit:
    """One thing a line is searched for. ``text`` is normalised; ``topics`` (kind ``topics``)
    holds the topic names with their included topics."""

    kind: UnitKind
    text: str = ""
    topics: tuple[str, ...] = ()

    @property
    def pattern(self) -> str | None:
        """The regex an identifier or phrase must match in the search text (None otherwise)."""
        if self.kind == "identifier":
            return identifier_pattern(self.text)
        if self.kind == "phrase":
            return phrase_pattern(self.text)
        return None

    def holds(self, text: str, line_topics: Collection[str] = ()) -> bool:
        """Whether a line (its search text, the topics its message mentions) holds the unit."""
        if self.kind == "topics":
            return any(topic in line_topics for topic in self.topics)
        if self.kind == "word":
            return self.text in text
        pattern = self.pattern
        return pattern is not None and _regex(pattern).search(text) is not None

    def describe(self) -> dict[str, Any]:
        """The unit as JSON (for the request a source records)."""
        if self.kind == "topics":
            return {"kind": "topics", "topics": list(self.topics)}
        return {"kind": self.kind, "text": self.text}


@dataclass(frozen=True)
class CompiledQuery:
    """``QueryLogsArgs`` read once: filters, search units and exclusions (see the module doc).

    ``until_us`` is exclusive (``time_bound``); ranks are ``core.logfields`` ranks.
    """

    service: str | None = None
    min_rank: int | None = None
    topic_filter: tuple[str, ...] = ()
    units: tuple[SearchUnit, ...] = ()
    match_any: bool = False
    exclude_ranks: tuple[int, ...] = ()
    excludes: tuple[SearchUnit, ...] = ()
    since_us: int | None = None
    until_us: int | None = None

    @property
    def topic_unit(self) -> SearchUnit | None:
        """The unit of the topics the query names, if any."""
        return next((unit for unit in self.units if unit.kind == "topics"), None)

    def accepts(self, text: str, rank: int | None, service_key: str, time_us: int | None,
                line_topics: Collection[str]) -> bool:
        """Whether one line matches: the definition both implementations are tested against."""
        if self.service is not None and service_key != self.service:
            return False
        if self.min_rank is not None and (rank is None or rank < self.min_rank):
            return False
        if rank is not None and rank in self.exclude_ranks:
            return False
        if self.topic_filter and not any(topic in line_topics for topic in self.topic_filter):
            return False
        if self.since_us is not None and (time_us is None or time_us < self.since_us):
            return False
        if self.until_us is not None and (time_us is None or time_us >= self.until_us):
            return False
        if self.units:
            held = (unit.holds(text, line_topics) for unit in self.units)
            if not (any(held) if self.match_any else all(held)):
                return False
        return not any(unit.holds(text, line_topics) for unit in self.excludes)

    def describe(self) -> dict[str, Any]:
        """The compiled query as JSON: what was searched, for the request a source records."""
        described: dict[str, Any] = {"match": "any" if self.match_any else "all",
                                     "units": [unit.describe() for unit in self.units]}
        if self.service is not None:
            described["service"] = self.service
        if self.min_rank is not None:
            described["min_level_rank"] = self.min_rank
        if self.topic_filter:
            described["topic_filter"] = list(self.topic_filter)
        if self.exclude_ranks:
            described["exclude_level_ranks"] = list(self.exclude_ranks)
        if self.excludes:
            described["exclude"] = [unit.text for unit in self.excludes]
        if self.since_us is not None:
            described["since_us"] = self.since_us
        if self.until_us is not None:
            described["until_us_exclusive"] = self.until_us
        return described


def split_quoted(query: str | None) -> tuple[str, list[str]]:
    """(the query without its quoted phrases, the phrases normalised)."""
    phrases: list[str] = []

    def take(match: re.Match[str]) -> str:
        inner = next(group for group in match.groups() if group is not None)
        phrase = _BLANKS.sub(" ", normalize(inner)).strip()
        if phrase:
            phrases.append(phrase)
        return " "

    return _QUOTED.sub(take, query or ""), phrases


def _phrase_units(phrases: Iterable[str]) -> list[SearchUnit]:
    units: dict[str, None] = {}
    for phrase in phrases:
        text = " ".join(normalize(phrase).split())
        if text:
            units.setdefault(text, None)
    return [SearchUnit("phrase", text) for text in units]


def _level(args: QueryLogsArgs) -> int | None:
    if args.level is None:
        return None
    rank = level_rank(args.level)
    if rank is None:
        raise ToolArgumentError(f"query_logs: level: unknown level {args.level!r} "
                                f"(known: {', '.join(LEVEL_NAMES)})")
    return rank


def _bound(value: str | None, name: str, zone: tzinfo | None, upper: bool) -> int | None:
    if value is None:
        return None
    try:
        return time_bound(value, zone, upper=upper)
    except ValueError as error:
        raise ToolArgumentError(f"query_logs: {name}: {error}") from None


def compile_query(args: QueryLogsArgs, known_services: Iterable[str] = (),
                  zone: tzinfo | None = None) -> CompiledQuery:
    """Read ``args`` once. ``known_services`` are names the query may mention (whole tokens);
    ``zone`` is the source's zone for ``since``/``until`` without one.

    Raises ``ToolArgumentError`` (one line) for an unknown level or a time that is not ISO 8601.
    """
    remainder, quoted = split_quoted(args.query)
    parsed: ParsedQuery = parse_query(remainder, known_services)
    units: list[SearchUnit] = []
    if parsed.topics:
        units.append(SearchUnit("topics", topics=tuple(expand_topics(parsed.topics))))
    units += [SearchUnit("identifier", token) for token in parsed.identifiers]
    if not parsed.topics:
        units += [SearchUnit("word", word) for word in parsed.words]
    units += _phrase_units([*quoted, *args.terms])
    exclude_ranks: dict[int, None] = {}
    excludes: list[str] = []
    for item in args.exclude:
        level = canonical_level(item)
        if level is not None:
            exclude_ranks.setdefault(LEVEL_RANKS[level], None)
        else:
            excludes.append(item)
    since = _bound(args.since, "since", zone, upper=False)
    until = _bound(args.until, "until", zone, upper=True)
    return CompiledQuery(
        service=args.service.strip().lower() if args.service else None,
        min_rank=_level(args),
        topic_filter=tuple(expand_topics([args.topic])) if args.topic else (),
        units=tuple(dict.fromkeys(units)),
        match_any=args.match == "any",
        exclude_ranks=tuple(sorted(exclude_ranks)),
        excludes=tuple(_phrase_units(excludes)),
        since_us=since, until_us=until)
