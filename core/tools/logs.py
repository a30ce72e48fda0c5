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
        fraction_shape = r"\.\d{" + str(len(fraction) - 1) + "}" if fraction else ""
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


def matching_ranks(pack: Pack, args: QueryLogsArgs) -> list[int]:
    """Ranks (newest first) of the lines matching every filter of ``args``.

    Identifiers named in the query must appear as whole tokens; other words must appear (as
    substrings) only when the query names no topic — then the topic is what is searched.
    """
    index = log_index(pack)
    parsed = parse_query(args.query, pack.services)
    lists: list[list[int]] = []
    if args.service:
        lists.append(index.by_service.get(args.service.lower(), []))
    if args.level:
        lists.append(index.by_level.get(canonical_level(args.level), []))
    for named in ([args.topic] if args.topic else [], list(parsed.topics)):
        if named:
            topics = topic_index(pack)
            lists.append(_union([topics.get(t, []) for t in expand_topics(named)]))
    candidates = _intersect(lists) if lists else None
    needles = [(token, True) for token in parsed.identifiers]
    if not parsed.topics:
        needles += [(word, False) for word in parsed.words]
    # Longest needle first: usually the rarest, so later passes see fewer lines.
    for needle, whole_token in sorted(needles, key=lambda item: -len(item[0])):
        candidates = _filter_text(index, candidates, needle, whole_token)
    return candidates if candidates is not None else list(range(len(index.order)))


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
