"""``query_logs`` over a pack's own logs, and the per-pack index that keeps it fast.

What matches is defined once, in ``core.tools.logquery`` (shared with the log store); this
module finds those lines quickly in memory. The index is built once per loaded pack (and
cached on it): lines ordered newest first, their search texts joined into one string (so a
word is found by C-level ``str.find``, not a Python loop over a million lines), and line ids
per service, per level rank and — on first use — per topic and by time. The topic index costs
two regex scans of all messages (``lexicon.tag_lines``, seconds on a million lines); after
that a topic query is a list lookup, and free-text words are only checked against the lines
the other filters left. Lines come newest first (the log store ranks by relevance).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, tzinfo
from functools import lru_cache

from core.contracts import LogEntry, LogsResult
from core.lexicon import tag_lines
from core.logfields import epoch_us, level_rank, parse_timestamp
from core.packs import Pack
from core.tools.args import QueryLogsArgs
from core.tools.logquery import (
    META_MARK,
    CompiledQuery,
    SearchUnit,
    compile_query,
    identifier_pattern,
    search_text,
)

_LINE_END = "\x1e"  # ends every line's search text in the corpus; no query token contains it


@dataclass(frozen=True)
class LogIndex:
    """Search structures of a pack's logs. A *rank* is a line's position newest-first."""

    order: list[int]  # rank -> position in pack.logs
    corpus: str  # every line's normalised "message<mark>level service source host<end>", by rank
    starts: list[int]  # rank -> offset of its text in corpus; one more entry: len(corpus)
    by_service: dict[str, list[int]]  # lower-case service -> ranks, ascending
    by_level: dict[int | None, list[int]]  # level rank (None: unknown level) -> ranks, ascending

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
    by_level: dict[int | None, list[int]] = defaultdict(list)
    service_keys: dict[str, str] = {}
    level_keys: dict[str, int | None] = {}
    for rank, position in enumerate(order):
        entry = logs[position]
        text = search_text(entry.message, entry.level, entry.service, entry.source, entry.host)
        texts.append(text)
        starts.append(offset)
        offset += len(text) + 1
        service = service_keys.get(entry.service)
        if service is None:
            service = service_keys[entry.service] = entry.service.strip().lower()
        if entry.level in level_keys:
            level = level_keys[entry.level]
        else:
            level = level_keys[entry.level] = level_rank(entry.level)
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
        messages.append(text[:text.rfind(META_MARK)])
    return tag_lines(messages)


def log_index(pack: Pack) -> LogIndex:
    """The pack's log index (built on first use, then cached on the pack)."""
    return pack.derived("logs.index", lambda: _build_index(pack))


def topic_index(pack: Pack) -> dict[str, list[int]]:
    """The pack's topic -> ranks index (built on first use, then cached on the pack)."""
    return pack.derived("logs.topics", lambda: _build_topic_index(log_index(pack)))


def time_index(pack: Pack) -> list[int | None]:
    """Rank -> the line's time in microseconds since the epoch (None: not a timestamp)."""
    def build() -> list[int | None]:
        zone = pack.now.tzinfo
        times: list[int | None] = []
        for position in log_index(pack).order:
            moment = parse_timestamp(pack.logs[position].timestamp, zone)
            times.append(epoch_us(moment) if moment is not None else None)
        return times
    times: list[int | None] = pack.derived("logs.times", build)
    return times


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
    return re.compile(identifier_pattern(token))


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


def _filter_unit(index: LogIndex, candidates: list[int] | None, unit: SearchUnit) -> list[int]:
    """Ranks among ``candidates`` (or all lines) whose search text holds an identifier, word
    or phrase unit. A plain substring search narrows first: it is what keeps this fast."""
    if unit.kind == "identifier":
        return _filter_text(index, candidates, unit.text, True)
    if unit.kind == "word":
        return _filter_text(index, candidates, unit.text, False)
    longest = max(unit.text.split(), key=len)
    found = _filter_text(index, candidates, longest, False)
    return [rank for rank in found if unit.holds(index.text(rank))]


def _members(pack: Pack, topics: tuple[str, ...]) -> list[int]:
    """Ranks of the lines whose message mentions any of ``topics`` (ascending)."""
    index = topic_index(pack)
    return _union([index.get(topic, []) for topic in topics])


def _any_unit(pack: Pack, index: LogIndex, candidates: list[int] | None,
              query: CompiledQuery) -> list[int]:
    """Ranks holding at least one search unit (``match="any"``)."""
    topic_unit = query.topic_unit
    members = set(_members(pack, topic_unit.topics)) if topic_unit is not None else set()
    needles = [unit for unit in query.units if unit.kind != "topics"]
    pool = candidates if candidates is not None else range(len(index.order))
    return [rank for rank in pool
            if rank in members or any(unit.holds(index.text(rank)) for unit in needles)]


def matching_ranks(pack: Pack, args: QueryLogsArgs) -> list[int]:
    """Ranks (newest first) of the lines matching ``args`` as ``core.tools.logquery`` defines."""
    index = log_index(pack)
    query = compile_query(args, pack.services, pack.now.tzinfo)
    lists: list[list[int]] = []
    if query.service is not None:
        lists.append(index.by_service.get(query.service, []))
    if query.min_rank is not None:
        lists.append(_union([ranks for level, ranks in index.by_level.items()
                             if level is not None and level >= query.min_rank]))
    if query.topic_filter:
        lists.append(_members(pack, query.topic_filter))
    topic_unit = query.topic_unit
    if topic_unit is not None and not query.match_any:
        lists.append(_members(pack, topic_unit.topics))
    candidates = _intersect(lists) if lists else None
    if query.match_any and query.units:
        candidates = _any_unit(pack, index, candidates, query)
    else:
        # Longest needle first: usually the rarest, so later passes see fewer lines.
        needles = [unit for unit in query.units if unit.kind != "topics"]
        for unit in sorted(needles, key=lambda item: -len(item.text)):
            candidates = _filter_unit(index, candidates, unit)
    ranks = candidates if candidates is not None else list(range(len(index.order)))
    if query.exclude_ranks:
        dropped = set(_union([index.by_level.get(level, []) for level in query.exclude_ranks]))
        ranks = [rank for rank in ranks if rank not in dropped]
    for unit in query.excludes:
        dropped = set(_filter_unit(index, ranks, unit))
        ranks = [rank for rank in ranks if rank not in dropped]
    if query.since_us is not None or query.until_us is not None:
        times = time_index(pack)
        low = query.since_us if query.since_us is not None else -(1 << 62)
        high = query.until_us if query.until_us is not None else 1 << 62
        ranks = [rank for rank in ranks if (moment := times[rank]) is not None and low <= moment < high]
    return ranks


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
