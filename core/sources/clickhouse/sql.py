"""A compiled ``query_logs`` query (``core.tools.logquery``) as ClickHouse SQL over the
OpenTelemetry Collector's ``otel_logs`` table: the same text for ``chdb`` and a server.

What a line is, in the table's columns (the Collector's, plus attributes our importer adds):

- its search text (``logquery.search_text``): ``Body``, then level, ``ServiceName``,
  ``LogAttributes['log.file.name']`` and ``ResourceAttributes['host.name']``, NFKC and lower
  case (``normalizeUTF8NFKC``, ``lowerUTF8``; plain ``lower`` for ASCII text);
- its level: ``SeverityText`` read by ``core.logfields``' spellings, else ``SeverityNumber``'s
  OpenTelemetry range (1-4 TRACE ... 21-24 FATAL);
- its template: ``LogAttributes['superbiz.template']`` (written at import by the store's
  miner), else the body's first line with every segment holding a digit masked as ``<*>``;
- its topics: ``LogAttributes['superbiz.topics']`` (written at import); a table without them
  (the Collector's own) has its topic units checked on the rows SQL found (``python_topics``).

Filters use the primary key: ``ServiceName IN (...)`` (the spellings of the service the table
holds) and the time bounds on ``TimestampTime`` (or ``toDateTime(Timestamp)``) as well as
``Timestamp``. An identifier's or phrase's tokens made of digits alone are also asked of the
``tokenbf_v1`` index on ``Body`` with ``hasToken`` (digits have no case, so the token is spelled
as the body spells it) when every body is ASCII -- ClickHouse counts non-ASCII bytes as token
characters and NFKC folds full-width digits, so in ``订单123`` the identifier ``123`` is no token
-- and no service, host or source name holds the token (a line may name it there, not in
``Body``). Units are then decided exactly: a word by ``position`` in the search text, an
identifier or phrase by its regex (RE2: word edges as ``(^|[^a-z0-9])``, no look-around).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.logfields import _LEVEL_SPELLINGS, LEVEL_RANKS
from core.tools.logquery import CompiledQuery, SearchUnit

SOURCE = "LogAttributes['log.file.name']"
HOST = "ResourceAttributes['host.name']"
TEMPLATE_KEY, TOPICS_KEY, TIMESTAMP_KEY, LINE_KEY = ("superbiz.template", "superbiz.topics",
                                                     "superbiz.timestamp", "superbiz.line")
_SPELLINGS = {**{name: name for name in LEVEL_RANKS}, **_LEVEL_SPELLINGS}
_NUMBER_LEVELS = ((1, "TRACE"), (5, "DEBUG"), (9, "INFO"), (13, "WARN"), (17, "ERROR"), (21, "FATAL"))


def _strings(values: list[str]) -> str:
    return "[" + ", ".join("'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'" for value in values) + "]"


def _level_expressions() -> tuple[str, str]:
    """The level as ``core.logfields`` spells it: (the spelling read, the level)."""
    by_number = "multiIf(" + ", ".join(
        f"SeverityNumber >= {low}, '{name}'" for low, name in reversed(_NUMBER_LEVELS)) + ", '')"
    spelled = (f"transform(upper(trimBoth(SeverityText)), {_strings(list(_SPELLINGS))}, "
               f"{_strings(list(_SPELLINGS.values()))}, '')")
    return spelled, f"if(spelled_level != '', spelled_level, if(SeverityText != '', SeverityText, {by_number}))"


SPELLED_LEVEL, LEVEL = _level_expressions()
RANK = (f"transform(level, {_strings(list(LEVEL_RANKS))}, "
        f"CAST([{', '.join(str(r) for r in LEVEL_RANKS.values())}] AS Array(Int64)), toInt64(-1))")
RAW_TEXT = f"concat(Body, '\\x1F', level, ' ', ServiceName, ' ', {SOURCE}, ' ', {HOST})"
SEARCH_TEXT = "if(isValidASCII(raw_text), lower(raw_text), lowerUTF8(normalizeUTF8NFKC(raw_text)))"
# A segment: a run between whitespace and ``= : , ; ( ) [ ] { } < > " ' |`` (``templates``).
_SEGMENT = "[^\\\\s=:,;()\\\\[\\\\]{}<>\"\\'|]"
MASKED = (f"replaceRegexpAll(replaceRegexpAll(splitByChar('\\n', Body)[1], '{_SEGMENT}*[0-9]{_SEGMENT}*', "
          "'<*>'), '<\\\\*>(\\\\s*<\\\\*>)+', '<*>')")
TEMPLATE = f"if(LogAttributes['{TEMPLATE_KEY}'] != '', LogAttributes['{TEMPLATE_KEY}'], {MASKED})"
TIME_US = "toUnixTimestamp64Micro(Timestamp)"
WITH = (f"WITH {SPELLED_LEVEL} AS spelled_level, {LEVEL} AS level, {RANK} AS level_rank, {RAW_TEXT} AS raw_text, "
        f"{SEARCH_TEXT} AS search_text")
LINE_COLUMNS = (f"{TIME_US}, LogAttributes['{TIMESTAMP_KEY}'], level, ServiceName, Body, {SOURCE}, {HOST}, "
                f"{TEMPLATE}, toInt64OrZero(LogAttributes['{LINE_KEY}'])")
_ORDER = f"Timestamp DESC, toInt64OrZero(LogAttributes['{LINE_KEY}']) DESC, Body"
_RE2_SPECIAL = re.compile(r"([\\.^$|?*+()\[\]{}])")
_ASCII_TOKENS = re.compile(r"[a-z0-9]+")


def re2_escape(text: str) -> str:
    return _RE2_SPECIAL.sub(r"\\\1", text)


def unit_regex(unit: SearchUnit) -> str:
    """An identifier's or phrase's ``logquery`` regex in RE2 (which has no look-around): a
    word edge as ``(^|[^a-z0-9])`` before and ``([^a-z0-9]|$)`` after, equivalent for a search."""
    if unit.kind == "identifier":
        return f"(^|[^a-z0-9]){re2_escape(unit.text)}([^a-z0-9]|$)"
    words = unit.text.split()
    body = "[ \\t]+".join(re2_escape(word) for word in words)
    head = "(^|[^a-z0-9])" if re.match("[a-z0-9]", words[0][0]) else ""
    tail = "([^a-z0-9]|$)" if re.match("[a-z0-9]", words[-1][-1]) else ""
    return head + body + tail


@dataclass
class Where:
    """The clauses of a WHERE and their parameters (named ``p0``, ``p1`` ...)."""

    clauses: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)

    def param(self, value: Any, kind: str) -> str:
        name = f"p{len(self.params)}"
        self.params[name] = value
        return f"{{{name}:{kind}}}"

    def sql(self) -> str:
        return " AND ".join(self.clauses) if self.clauses else "1"


@dataclass(frozen=True)
class Plan:
    """A query's SQL: the lines (newest first), the groups, and what is left to Python."""

    where: str = "1"
    params: dict[str, Any] = field(default_factory=dict)
    empty: bool = False
    python_topics: bool = False  # topic units / filter checked on the rows SQL found
    table: str = ""

    def lines_sql(self, limit: int) -> str:
        return (f"{WITH} SELECT {LINE_COLUMNS} FROM {self.table} WHERE {self.where} "
                f"ORDER BY {_ORDER} LIMIT {int(limit)}")

    def groups_sql(self, most: int) -> str:
        """Each group (template, service, level): count, first/last µs and the timestamp text
        at each edge, largest first, then latest, then first seen (as a store's group ids), at
        most ``most``; each row also holds every group's lines summed and how many groups there
        are (window functions)."""
        return (f"{WITH} SELECT {TEMPLATE} AS template, ServiceName, level, count() AS lines, "
                f"min({TIME_US}), max({TIME_US}), argMin(LogAttributes['{TIMESTAMP_KEY}'], Timestamp), "
                f"argMax(LogAttributes['{TIMESTAMP_KEY}'], Timestamp), sum(count()) OVER () AS total, "
                f"count() OVER () AS group_count FROM {self.table} WHERE {self.where} "
                f"GROUP BY template, ServiceName, level ORDER BY lines DESC, max({TIME_US}) DESC, "
                f"min(toInt64OrZero(LogAttributes['{LINE_KEY}'])), template LIMIT {int(most)}")

    def candidates_sql(self, limit: int) -> str:
        """The rows a Python topic check reads (every column it needs), newest first."""
        return (f"{WITH} SELECT {LINE_COLUMNS}, search_text FROM {self.table} WHERE {self.where} "
                f"ORDER BY {_ORDER} LIMIT {int(limit)}")


@dataclass(frozen=True)
class TableFacts:
    """What the SQL needs to know of the table, read when the source opens."""

    table: str  # `database`.`table`
    time_column: bool  # the Collector's newer ``TimestampTime`` column (the primary key's)
    services: tuple[str, ...]  # every ServiceName spelling
    meta_names: tuple[str, ...]  # services, hosts and sources, lower case (digit runs in them skip the index)
    topics_stored: bool  # our importer wrote ``superbiz.topics``
    ascii_bodies: bool  # no Body holds a non-ASCII character (the token index is exact then)


def _time(query: CompiledQuery, facts: TableFacts, where: Where) -> None:
    key = "TimestampTime" if facts.time_column else "toDateTime(Timestamp)"
    if query.since_us is not None:
        where.clauses.append(f"{key} >= toDateTime({where.param(query.since_us // 1_000_000, 'Int64')})")
        where.clauses.append(f"{TIME_US} >= {where.param(query.since_us, 'Int64')}")
    if query.until_us is not None:
        where.clauses.append(f"{key} <= toDateTime({where.param((query.until_us - 1) // 1_000_000, 'Int64')})")
        where.clauses.append(f"{TIME_US} < {where.param(query.until_us, 'Int64')}")


def _topics(topics: tuple[str, ...], where: Where) -> str:
    return f"hasAny(splitByChar(' ', LogAttributes['{TOPICS_KEY}']), {where.param(list(topics), 'Array(String)')})"


def _unit(unit: SearchUnit, facts: TableFacts, where: Where, *, index: bool) -> str:
    """A condition exactly equivalent to "the line holds ``unit``" (topics only when stored)."""
    if unit.kind == "topics":
        return _topics(unit.topics, where)
    if unit.kind == "word":
        return f"position(search_text, {where.param(unit.text, 'String')}) > 0"
    exact = f"match(search_text, {where.param(unit_regex(unit), 'String')})"
    runs = [token for token in dict.fromkeys(_ASCII_TOKENS.findall(unit.text)) if token.isdigit()
            and index and facts.ascii_bodies and not any(token in name for name in facts.meta_names)]
    tokens = [f"hasToken(Body, {where.param(run, 'String')})" for run in runs]
    return "(" + " AND ".join([*tokens, exact]) + ")"


def build(query: CompiledQuery, facts: TableFacts) -> Plan:
    """The SQL of ``query`` on the table ``facts`` describes."""
    where = Where()
    if query.service is not None:
        spellings = [name for name in facts.services if name.strip().lower() == query.service]
        if not spellings:
            return Plan(empty=True, table=facts.table)
        where.clauses.append(f"ServiceName IN {where.param(spellings, 'Array(String)')}")
    _time(query, facts, where)
    if query.min_rank is not None:
        where.clauses.append(f"level_rank >= {where.param(query.min_rank, 'Int64')}")
    if query.exclude_ranks:
        where.clauses.append(f"level_rank NOT IN {where.param(list(query.exclude_ranks), 'Array(Int64)')}")
    python_topics = not facts.topics_stored and (bool(query.topic_filter) or query.topic_unit is not None)
    if query.topic_filter and not python_topics:
        where.clauses.append(_topics(query.topic_filter, where))
    units = [unit for unit in query.units if not (python_topics and unit.kind == "topics")]
    if query.match_any:
        if python_topics and query.topic_unit is not None:
            units = []  # "any" with a topic: every candidate goes to Python, which decides all units
        if units:
            where.clauses.append("(" + " OR ".join(_unit(unit, facts, where, index=False) for unit in units) + ")")
    else:
        where.clauses += [_unit(unit, facts, where, index=True) for unit in units]
    for unit in query.excludes:
        where.clauses.append(f"NOT {_unit(unit, facts, where, index=False)}")
    return Plan(where=where.sql(), params=where.params, python_topics=python_topics, table=facts.table)
