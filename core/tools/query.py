"""How a free-text query is read: topics it names, identifiers it insists on, other words.

Shared by ``query_logs`` and ``lookup_knowledge`` so both read a question the same way:

- topics: every lexicon synonym in the query (``HikariCP``, ``连接池耗尽``, ``内存`` ...);
- identifiers: tokens that name one thing and must appear verbatim — service names, paths,
  ids, numbers, anything with a digit or ``/ - _ . : =`` in it (``order-service``,
  ``/api/v1/users/profile``, ``blk_123``, ``6379``);
- words: what is left (plain English words, Chinese phrases), minus filler such as
  "是否存在", "logs", "the". Chinese has no spaces, so a Chinese phrase is kept whole for
  substring search and cut into bigrams for ranking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.language.chars import HAN, HAN_RUN
from core.language.lexicon import services_in, topic_mentions
from core.language.text import normalize
from core.lazypattern import LazyPattern

_TOKEN = re.compile(rf"[{HAN}]+|/?[a-z0-9][a-z0-9_./:=@#%-]*")
_IDENTIFIER_MARK = re.compile(r"[0-9/_.:=@#%-]")

# Words that carry no search meaning in a question about logs or runbooks.
_ENGLISH_FILLER = frozenset([
    "a", "an", "the", "and", "or", "of", "for", "in", "on", "at", "to", "from", "by", "with",
    "without", "is", "are", "was", "were", "be", "been", "any", "some", "all", "do", "does", "did",
    "has", "have", "had", "there", "this", "that", "these", "those", "it", "its", "whether", "if",
    "only", "confirm", "check", "show", "find", "search", "query", "look", "get", "list", "please",
    "current", "currently", "now", "recent", "latest", "log", "logs", "entry", "entries", "line",
    "lines", "message", "messages", "record", "records", "event", "events", "alert", "alerts",
    "service", "services", "about", "related", "what", "which", "when", "where", "why", "how",
    "not", "no", "any"])
# Longest first so "是否存在" goes before "是否".
_CHINESE_FILLER = tuple(sorted([
    "是否存在", "是否有", "是否", "存在", "有没有", "有无", "当前", "目前",
    "现在", "最近", "日志", "告警", "相关", "有关", "查询", "查看", "查找",
    "搜索", "确认", "只确认", "只排查", "只看", "请", "排查", "检查一下", "一下",
    "的", "了", "吗", "呢", "和", "或", "与", "及", "以及", "情况",
    "问题", "记录", "信息", "出现", "发生", "哪些", "什么", "为什么", "怎么",
    "怎么办", "如何", "应该", "可以", "需要", "哪个", "所有", "全部", "这一件事",
    "这件事", "一件事", "不要", "分析", "服务"], key=len, reverse=True))
_CHINESE_FILLER_PATTERN = LazyPattern("|".join(map(re.escape, _CHINESE_FILLER)))


@dataclass(frozen=True)
class ParsedQuery:
    """A query as the tools read it (all parts normalised: NFKC, lower case)."""

    text: str
    topics: tuple[str, ...]
    services: tuple[str, ...]
    identifiers: tuple[str, ...]
    words: tuple[str, ...]

    @property
    def is_empty(self) -> bool:
        """Nothing to search for (only filler, or nothing at all)."""
        return not (self.topics or self.identifiers or self.words)

    def terms(self) -> list[str]:
        """Identifiers, English words and Chinese bigrams: the units ``lookup_knowledge`` ranks by."""
        terms = list(self.identifiers)
        for word in self.words:
            if HAN_RUN.match(word) and len(word) > 2:
                terms += [word[i:i + 2] for i in range(len(word) - 1)]
            else:
                terms.append(word)
        return list(dict.fromkeys(terms))


# An identifier holding a number next to a mark (db-1:5432, blk_123, 10.0.0.1:80, req-7f3a):
# a topic word inside it (db, redis) does not make it a topic mention.
_NUMBERED_IDENTIFIER = re.compile(r"[a-z0-9][a-z0-9_./:@#-]*(?:[-_.:/]\d|\d[-_.:/])[a-z0-9_./:@#-]*")


def _inside_identifiers(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in _NUMBERED_IDENTIFIER.finditer(text)]


def parse_query(query: str | None, known_services: Iterable[str] = ()) -> ParsedQuery:
    """Split a free-text query into topics, identifiers and words (see the module docstring)."""
    text = normalize(query or "")
    topics: dict[str, None] = {}
    remainder = list(text)
    inside = _inside_identifiers(text)
    for mention in topic_mentions(text):
        if any(start <= mention.start and mention.end <= end and (start, end) != (mention.start, mention.end)
               for start, end in inside):
            continue  # "db" in "db-1:5432" is part of a host name, not the database topic
        topics.setdefault(mention.topic, None)
        remainder[mention.start:mention.end] = " " * (mention.end - mention.start)
    known = list(known_services)
    services: dict[str, None] = {}
    identifiers: dict[str, None] = {}
    words: dict[str, None] = {}
    for token in _TOKEN.findall("".join(remainder)):
        if HAN_RUN.match(token):
            for piece in _CHINESE_FILLER_PATTERN.split(token):
                if len(piece) >= 2:
                    words.setdefault(piece, None)
            continue
        token = token.rstrip("./:=@#%-")
        named = services_in(token, known)
        if named:
            services.update(dict.fromkeys(named))
            identifiers.setdefault(token, None)
        elif _IDENTIFIER_MARK.search(token) or token.startswith("/"):
            identifiers.setdefault(token, None)
        elif token and token not in _ENGLISH_FILLER and len(token) >= 2:
            words.setdefault(token, None)
    return ParsedQuery(text, tuple(topics), tuple(services), tuple(identifiers), tuple(words))
