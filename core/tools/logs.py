"""``query_logs`` and the per-pack index that keeps it fast on a million lines.

The index is built once per loaded pack (and cached on it): lines ordered newest first, their
normalised search texts joined into one string (so a word is found by C-level ``str.find``,
not a Python loop over a million lines), and line ids per service, per level and — on first
use — per topic. The topic index costs two regex scans of all messages (``lexicon.tag_lines``,
seconds on a million lines); after that a topic query is a list lookup, and free-text words
are only checked against the lines the other filters left.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, tzinfo
from functools import lru_cache

from core.contracts import LogEntry, LogsResult
from core.lexicon import expand_topics, normalize, tag_lines
from core.packs import Pack
from core.tools.args import QueryLogsArgs
from core.tools.query import parse_query

_LEVEL_ALIASES = {"warning": "warn", "err": "error", "crit": "critical", "information": "info",
                  "dbg": "debug", "trace": "trace", "severe": "error"}
_META_MARK = "\x1f"  # separates a line's message from its other fields in the search text
_LINE_END = "\x1e"  # ends every line's search text in the corpus; no query token contains it


def canonical_level(level: str) -> str:
    """A log level compared without case or spelling variants (WARNING == warn)."""
    lowered = level.strip().lower()
    return _LEVEL_ALIASES.get(lowered, lowered)


@dataclass(frozen=True)
class LogIndex:
    """Search structures of a pack's logs. A *rank* is a line's position newest-first."""

    order: list[int]  # rank -> position in pack.logs
    corpus: str  # every line's normalised "message<mark>level service source host<end>", by rank
    starts: list[int]  # rank -> offset of its text in corpus; one more entry: len(corpus)
    by_service: dict[str, list[int]]  # lower-case service -> ranks, ascending
    by_level: dict[str, list[int]]  # canonical level -> ranks, ascending

    def text(self, rank: int) -> str:
        """The normalised search text of one line."""
        return self.corpus[self.starts[rank]:self.starts[rank + 1] - 1]


def _timestamp_key(timestamp: str, default_tz: tzinfo | None) -> float:
    """Seconds since the epoch; unparseable timestamps sort as the oldest."""
    try:
        moment = datetime.fromisoformat(timestamp.strip())
    except ValueError:
        return float("-inf")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=default_tz)
    return moment.timestamp()


_ISO_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d([T ])\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")


def _sort_keys(timestamps: list[str], default_tz: tzinfo | None) -> list[str] | list[float]:
    """Keys ordering the timestamps in time.

    When every timestamp is ISO 8601 of one shape (same separator, fraction digits and zone:
    the usual case) the strings themselves sort in time order, and parsing a million of them
    is skipped; one regex over all of them decides that.
    """
    first = _ISO_TIMESTAMP.fullmatch(timestamps[0]) if timestamps else None
    if first:
        separator, fraction, zone = first.group(1), first.group(2) or "", first.group(3) or ""
        fraction_shape = rf"\.\d{{{len(fraction) - 1}}}" if fraction else ""
        shape = (r"\d{4}-\d\d-\d\d" + re.escape(separator) + r"\d\d:\d\d:\d\d"
                 + fraction_shape + re.escape(zone) + "\n")
        if re.fullmatch(f"(?:{shape})*", "\n".join(timestamps) + "\n"):
            return timestamps
    return [_timestamp_key(ts, default_tz) for ts in timestamps]


def _search_text(entry: LogEntry) -> str:
    """What free text is matched against: the message, then the other fields after a mark."""
    text = (f"{entry.message}{_META_MARK}{entry.level} {entry.service} "
            f"{entry.source or ''} {entry.host or ''}")
    return normalize(text)


def _build_index(pack: Pack) -> LogIndex:
    logs = pack.logs
    keys = _sort_keys([entry.timestamp for entry in logs], pack.now.tzinfo)
    # Newest first; on equal timestamps the later line of the file first (a stable sort of
    # the reversed positions).
    order = sorted(range(len(logs) - 1, -1, -1), key=keys.__getitem__, reverse=True)
    texts: list[str] = []
    starts: list[int] = []
    offset = 0
    by_service: dict[str, list[int]] = defaultdict(list)
    by_level: dict[str, list[int]] = defaultdict(list)
    service_keys: dict[str, str] = {}
    level_keys: dict[str, str] = {}
    for rank, position in enumerate(order):
        entry = logs[position]
        text = _search_text(entry)
        texts.append(text)
        starts.append(offset)
        offset += len(text) + 1
        service = service_keys.get(entry.service)
        if service is None:
            service = service_keys[entry.service] = entry.service.strip().lower()
        level = level_keys.get(entry.level)
        if level is None:
            level = level_keys[entry.level] = canonical_level(entry.level)
        by_service[service].append(rank)
        by_level[level].append(rank)
    starts.append(offset)
    corpus = _LINE_END.join(texts) + _LINE_END if texts else ""
    return LogIndex(order, corpus, starts, dict(by_service), dict(by_level))


def _build_topic_index(index: LogIndex) -> dict[str, list[int]]:
    """Topic -> ranks (ascending) of the lines whose message mentions it."""
    messages = []
    for rank in range(len(index.order)):
        text = index.text(rank)
        messages.append(text[:text.rfind(_META_MARK)])
    return tag_lines(messages)


def log_index(pack: Pack) -> LogIndex:
    """The pack's log index (built on first use, then cached on the pack)."""
    return pack.derived("logs.index", lambda: _build_index(pack))


def topic_index(pack: Pack) -> dict[str, list[int]]:
    """The pack's topic -> ranks index (built on first use, then cached on the pack)."""
    return pack.derived("logs.topics", lambda: _build_topic_index(log_index(pack)))


def _union(lists: list[list[int]]) -> list[int]:
    if len(lists) == 1:
        return lists[0]
    return sorted(set().union(*lists))


def _intersect(lists: list[list[int]]) -> list[int]:
    """Ranks present in every (ascending) list, ascending; the smallest list drives."""
    ordered = sorted(lists, key=len)
    base = ordered[0]
    for other in ordered[1:]:
        if len(base) * 32 < len(other):  # a few ranks against a long list: binary search it
            base = [rank for rank in base if _holds(other, rank)]
        else:
            members = set(other)
            base = [rank for rank in base if rank in members]
    return base


def _holds(ascending: list[int], rank: int) -> bool:
    at = bisect_left(ascending, rank)
    return at < len(ascending) and ascending[at] == rank


@lru_cache(maxsize=512)
def _whole_token(token: str) -> re.Pattern[str]:
    """An identifier must not be part of a longer word or number ("500" is not in "1250000")."""
    return re.compile(rf"(?<![a-z0-9]){re.escape(token)}(?![a-z0-9])")


def _filter_text(index: LogIndex, candidates: list[int] | None, needle: str,
                 whole_token: bool) -> list[int]:
    """Ranks whose text contains ``needle`` (as a whole token if asked), among ``candidates``
    or among all lines. A plain substring search runs first: it is what keeps this fast."""
    corpus, starts = index.corpus, index.starts
    if candidates is None:
        found: list[int] = []
        offset = corpus.find(needle)
        while offset != -1:
            rank = bisect_right(starts, offset) - 1
            found.append(rank)
            offset = corpus.find(needle, starts[rank + 1])  # next line: one hit per line is enough
    else:
        found = [rank for rank in candidates
                 if corpus.find(needle, starts[rank], starts[rank + 1]) != -1]
    if whole_token:
        pattern = _whole_token(needle)
        found = [rank for rank in found
                 if pattern.search(corpus, starts[rank], starts[rank + 1]) is not None]
    return found


# Level ranks: "at least ERROR" covers ERROR, SEVERE, FATAL, CRITICAL (DESIGN.md section 10).
# The log store (``logengine``) brings one table of levels for every source; this one serves the
# pack's in-memory search until it does.
_LEVEL_RANKS = {"trace": 0, "finest": 0, "finer": 0, "debug": 1, "fine": 1, "config": 1, "info": 2,
                "notice": 2, "warn": 3, "error": 4, "fatal": 5, "critical": 5, "alert": 5,
                "emergency": 5, "emerg": 5, "panic": 5}


def level_rank(level: str) -> int | None:
    """The rank of a level (0 TRACE .. 5 FATAL; WARNING is WARN, SEVERE is ERROR), or None."""
    return _LEVEL_RANKS.get(canonical_level(level))


@lru_cache(maxsize=1024)
def _phrase(phrase: str) -> re.Pattern[str]:
    """A phrase: its words in order, any run of blanks between them, whole words at its
    alphanumeric edges (a Chinese edge is a plain substring)."""
    words = normalize(phrase).split()
    body = r"[ \t]+".join(re.escape(word) for word in words)
    head = "(?<![a-z0-9])" if re.match("[a-z0-9]", words[0][0]) else ""
    tail = "(?![a-z0-9])" if re.match("[a-z0-9]", words[-1][-1]) else ""
    return re.compile(head + body + tail)


def _with_phrase(index: LogIndex, candidates: list[int] | None, phrase: str) -> list[int]:
    pattern = _phrase(phrase)
    ranks = candidates if candidates is not None else range(len(index.order))
    return [rank for rank in ranks if pattern.search(index.text(rank)) is not None]


def _levels_from(index: LogIndex, minimum: str) -> list[int]:
    """Ranks of the lines at ``minimum`` or above (an unknown level name: exact match)."""
    floor = level_rank(minimum)
    if floor is None:
        return index.by_level.get(canonical_level(minimum), [])
    return _union([ranks for level, ranks in index.by_level.items()
                   if (level_rank(level) or -1) >= floor] or [[]])


def _unit_ranks(pack: Pack, index: LogIndex, args: QueryLogsArgs,
                filtered: list[int] | None) -> list[int] | None:
    """Ranks among ``filtered`` holding every (``match="all"``) or any (``"any"``) search unit:
    the query's topics, identifiers and words (words only when it names no topic), and each
    phrase of ``terms``. None when there is no unit."""
    parsed = parse_query(args.query, pack.services)
    units: list[list[int]] = []
    if parsed.topics:
        topics = topic_index(pack)
        found = _union([topics.get(t, []) for t in expand_topics(parsed.topics)])
        units.append(found if filtered is None else _intersect([found, filtered]))
    for token in parsed.identifiers:
        units.append(_filter_text(index, filtered, token, True))
    if not parsed.topics:
        units += [_filter_text(index, filtered, word, False) for word in parsed.words]
    units += [_with_phrase(index, filtered, term) for term in args.terms]
    if not units:
        return None
    if args.match == "any":
        return _union(units)
    return _intersect(units)


def _excluded(index: LogIndex, args: QueryLogsArgs, ranks: list[int]) -> list[int]:
    """``ranks`` without the lines of an excluded level or holding an excluded phrase."""
    levels = {level_rank(item) for item in args.exclude if level_rank(item) is not None}
    phrases = [_phrase(item) for item in args.exclude if level_rank(item) is None and item.split()]
    if not levels and not phrases:
        return ranks
    level_of = {rank: level_rank(level) for level, found in index.by_level.items() for rank in found}
    return [rank for rank in ranks if level_of.get(rank) not in levels
            and not any(p.search(index.text(rank)) for p in phrases)]


def _in_window(pack: Pack, args: QueryLogsArgs, ranks: list[int]) -> list[int]:
    """``ranks`` inside ``since``..``until`` (inclusive; a line without a readable time is out)."""
    if args.since is None and args.until is None:
        return ranks
    zone = pack.now.tzinfo
    since = _timestamp_key(args.since, zone) if args.since else float("-inf")
    until = _timestamp_key(args.until, zone) if args.until else float("inf")
    order = log_index(pack).order
    kept = []
    for rank in ranks:
        moment = _timestamp_key(pack.logs[order[rank]].timestamp, zone)
        if moment != float("-inf") and since <= moment <= until:
            kept.append(rank)
    return kept


def matching_ranks(pack: Pack, args: QueryLogsArgs) -> list[int]:
    """Ranks (newest first) of the lines matching every filter of ``args`` (see
    ``QueryLogsArgs``): service exact, level as a minimum, topic, the search units with
    ``match``, the exclusions and the time window."""
    index = log_index(pack)
    lists: list[list[int]] = []
    if args.service:
        lists.append(index.by_service.get(args.service.lower(), []))
    if args.level:
        lists.append(_levels_from(index, args.level))
    if args.topic:
        topics = topic_index(pack)
        lists.append(_union([topics.get(t, []) for t in expand_topics([args.topic])]))
    filtered = _intersect(lists) if lists else None
    matched = _unit_ranks(pack, index, args, filtered)
    ranks = matched if matched is not None else (
        filtered if filtered is not None else list(range(len(index.order))))
    return _in_window(pack, args, _excluded(index, args, ranks))


def query_logs(pack: Pack, args: QueryLogsArgs) -> LogsResult:
    """Log lines matching every filter, newest first, at most ``args.limit`` of them.

    ``total`` counts every match; no match is a success with ``logs=[]`` and ``total=0``.
    """
    ranks = matching_ranks(pack, args)
    order = log_index(pack).order
    shown: list[LogEntry] = [pack.logs[order[rank]].model_copy() for rank in ranks[:args.limit]]
    if not ranks:
        message = "未找到匹配的日志"
    elif len(ranks) > args.limit:
        message = f"找到 {len(ranks)} 条日志，返回最新 {args.limit} 条"
    else:
        message = f"找到 {len(ranks)} 条日志"
    return LogsResult(success=True, logs=shown, total=len(ranks), message=message)
