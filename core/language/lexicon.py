"""Topic and identifier vocabulary shared by the tools, planner, gatekeeper and verifier.

One table (``TOPICS``, read from ``vocab/topics.yaml``) says which words, in Chinese and English,
name which diagnosis topic. Everything else here is derived from that table:

- ASCII synonyms match on word boundaries (``gc`` does not fire inside ``gcloud``, ``db`` not
  inside ``dbus``); CJK synonyms match as plain substrings, since Chinese has no spaces.
- Text is normalised first (NFKC + lower case), so full-width letters and punctuation match too.
- Mentions never overlap: at each position the longest synonym wins, so ``数据库连接池`` is a
  connection-pool mention and not also a ``数据库`` (database) one.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache, partial
from itertools import chain

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from core.language import vocabulary
from core.language.alternation import Alternative, FirstCharAlternation
from core.language.chars import ASCII_WORD, ASCII_WORD_CHARS, mark_han_edges
from core.language.text import normalize


@with_config(ConfigDict(extra="forbid"))  # read from vocab/topics.yaml
@dataclass(frozen=True)
class Topic:
    """A diagnosis topic: its labels, the words that name it, the alerts it relates to.

    ``synonyms`` name the topic in a question *and* in a log line. ``asks`` name it only in a
    question: generic words ("memory", "disk", "queue", "thread") that real log lines use all the
    time without being about the topic ("Block stored as bytes in memory", "waiting for message
    on queue"); a line is tagged with a topic only by its ``synonyms``. ``includes`` lists narrower
    topics a question about this one also covers (a memory question covers GC lines: heap
    pressure shows up as GC first). ``shapes`` are regular expressions (over normalised text) for
    how a log line states the topic without a word for it: a web access log's status right after
    the request it answers (``"GET /api HTTP/1.1" 503``) is an HTTP 5xx error. They read a
    question, a claim and a line alike (a question never writes that shape).
    """

    name: str
    label_zh: str
    label_en: str
    synonyms: tuple[str, ...]
    related_alerts: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()
    asks: tuple[str, ...] = ()
    shapes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TopicMention:
    """One synonym found in normalised text: ``text[start:end]`` names ``topic``."""

    start: int
    end: int
    topic: str
    matched: str


@with_config(ConfigDict(extra="forbid"))  # a misspelt key is an error, not a default
class _TopicsFile(TypedDict):
    """``vocab/topics.yaml``: the topics, in the order questions list them."""

    topics: tuple[Topic, ...]


_TOPIC_TABLE: tuple[Topic, ...] = vocabulary.load("topics", _TopicsFile)["topics"]

TOPICS: dict[str, Topic] = {topic.name: topic for topic in _TOPIC_TABLE}

# Separators between the words of a synonym: "connection pool" = "connection-pool" =
# "connection_pool" (but not "connectionpool"). Where ASCII meets Chinese the separator is
# optional: "CPU 使用率" = "CPU使用率".
_SEPARATOR_CHARS = r"\s_\-"
_REQUIRED_SEP, _OPTIONAL_SEP = "\x00", "\x01"  # separator edges inside the synonym trie
# A node of the synonym trie: each edge character leads to the next node; "" marks a word end.
_Trie = dict[str, "_Trie"]
# Joins lines for a corpus scan: neither a letter, a digit nor a separator (``\s`` matches
# U+001E, which let "query" ending one line and "timeout" starting the next be one synonym).
_LINE_MARK = "\x00"
# Bumped when tagging changes for the same topics: log stores tagged before are retagged.
TAGGING_VERSION = 3
_SMALL_CORPUS_CHARS = 50_000  # up to this much text, tag_lines reads line by line



_SEPARATORS = re.compile(f"[{_SEPARATOR_CHARS}]+")
_ASCII_WORD_RUN = re.compile(f"[{ASCII_WORD}]+")


def _squash(text: str) -> str:
    """A synonym's identity: normalised, separators removed (what a regex match maps back to)."""
    return _SEPARATORS.sub("", normalize(text))


def _script_change(text: str) -> bool:
    """Whether an ASCII word character and a Han one meet in ``text``."""
    return mark_han_edges(text, _OPTIONAL_SEP, ASCII_WORD_CHARS, ASCII_WORD_CHARS) != text


def _trie_path(synonym: str) -> str:
    """The synonym's characters with separator edges between its words and scripts."""
    words = [w for w in _SEPARATORS.split(normalize(synonym)) if w]
    path = ""
    for word in words:
        if path:
            path += _OPTIONAL_SEP if _script_change(path[-1] + word[0]) else _REQUIRED_SEP
        path += mark_han_edges(word, _OPTIONAL_SEP, ASCII_WORD_CHARS, ASCII_WORD_CHARS)
    return path


def _first_word(synonym: str) -> str:
    """The letters and digits a synonym starting with one begins with. Its regex has a word end,
    a separator, Chinese or another character after them, so where it matches, the text's run
    of letters and digits is exactly this."""
    first = _ASCII_WORD_RUN.match(normalize(synonym).strip())
    return first.group() if first else ""


def _trie(synonyms: Iterable[str]) -> _Trie:
    """The synonyms as a trie (see ``_emit``)."""
    root: _Trie = {}
    for synonym in synonyms:
        node = root
        for ch in _trie_path(synonym):
            node = node.setdefault(ch, {})
        node[""] = {}
    return root


def _emit(node: _Trie, last_char: str) -> str:
    """One regex for the synonyms below ``node``, shaped as a trie.

    Why a trie: Python's ``re`` tries alternatives one by one at every position, so a flat
    alternation of ~160 synonyms scans a million log lines in minutes; sharing prefixes brings
    that to seconds. Longer continuations are tried before a word may end, so the longest
    synonym at a position wins. An ASCII word end must not be followed by a letter or digit.
    """
    branches = []
    for ch in sorted(k for k in node if k):
        edge = {_REQUIRED_SEP: f"[{_SEPARATOR_CHARS}]+",
                _OPTIONAL_SEP: f"[{_SEPARATOR_CHARS}]*"}.get(ch) or re.escape(ch)
        branches.append(edge + _emit(node[ch], ch))
    if "" in node:  # a synonym may end here: only after every longer continuation failed
        branches.append(f"(?![{ASCII_WORD}])" if last_char in ASCII_WORD_CHARS else "")
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _branch(ch: str, child: _Trie) -> str:
    """The regex of the synonyms starting with ``ch`` (a trie branch)."""
    return re.escape(ch) + _emit(child, ch)


def _synonyms_regex(synonyms: tuple[str, ...]) -> str:
    return _emit(_trie(synonyms), "")


class _SynonymIndex:
    """Matchers over one set of synonyms: ``short`` for short texts (compiled one first
    character, or one first word, at a time, as a text needs them), and two regexes that scan a whole corpus
    (``tag_lines``), compiled on first use, each letting ``re`` skip ahead with a
    character-class test: synonyms starting with a letter or digit (found after the
    non-alphanumeric character that precedes them) and the others (Chinese, "/api")."""

    def __init__(self, synonyms: Sequence[str]) -> None:
        word_start = [s for s in synonyms if normalize(s).strip()[:1] in ASCII_WORD_CHARS]
        self._word_start = word_start
        self._other_root = _trie(s for s in synonyms if s not in word_start)
        # At a position, only the trie branch of the character there can match; a synonym
        # starting with a letter or digit only at a word start, and only where the text's word
        # is the synonym's first word (the trie of the synonyms starting with it).
        guard = f"(?<![{ASCII_WORD}])"
        by_first_word: dict[str, list[str]] = {}
        for synonym in word_start:
            by_first_word.setdefault(_first_word(synonym), []).append(synonym)
        # Each branch's regex is written when a text first holds its character or word (a
        # question holds a few dozen of the hundreds): the same regexes, fewer written.
        self.short = FirstCharAlternation(
            [Alternative(ch, partial(_branch, ch, child)) for ch, child in sorted(self._other_root.items())]
            + [Alternative(word, partial(_synonyms_regex, tuple(synonyms)), prefix=guard)
               for word, synonyms in sorted(by_first_word.items())],
            word_guard=True, by_word=True)

    @cached_property
    def _word_root(self) -> _Trie:
        """The trie of the synonyms starting with a letter or digit (the corpus scans')."""
        return _trie(self._word_start)

    @cached_property
    def word_scan(self) -> re.Pattern[str]:
        return re.compile(f"[^{ASCII_WORD}]({_emit(self._word_root, '')})")

    @cached_property
    def word_at(self) -> re.Pattern[str]:
        """A synonym starting with a letter or digit right where ``word_scan``'s last match
        ended, after a character that match consumed (``cpu使用率gc``: ``gc``)."""
        return re.compile(f"(?<![{ASCII_WORD}]){_emit(self._word_root, '')}")

    def word_matches(self, corpus: str) -> Iterator[tuple[int, str]]:
        """(start, synonym) of every synonym starting with a letter or digit at a word start,
        as a lookbehind would find them, at the speed of ``word_scan``: it consumes the
        character before a synonym, so only a synonym right after a match ending in such a
        character (Chinese) can be missed, and that one position is tried apart."""
        position = 0
        while (match := self.word_scan.search(corpus, position)) is not None:
            yield match.start(1), match.group(1)
            position = match.end()
            while corpus[position - 1] not in ASCII_WORD_CHARS:
                adjacent = self.word_at.match(corpus, position)
                if adjacent is None:
                    break
                yield adjacent.start(), adjacent.group()
                position = adjacent.end()

    @cached_property
    def other_scan(self) -> re.Pattern[str]:
        return re.compile(_emit(self._other_root, ""))


def _synonym_owner() -> dict[str, str]:
    """Squashed synonym or ask -> topic name; a word naming two topics is an error."""
    owner: dict[str, str] = {}
    for topic in _TOPIC_TABLE:
        for synonym in (*topic.synonyms, *topic.asks):
            key = _squash(synonym)
            if owner.get(key, topic.name) != topic.name:
                raise ValueError(f"synonym {synonym!r} belongs to both {owner[key]} and {topic.name}")
            owner[key] = topic.name
    return owner


_SYNONYM_OWNER = _synonym_owner()


# Built on first use: a command that never reads text (--help) does not pay.
@cache
def _asked() -> _SynonymIndex:
    """Questions (and any text a person writes: claims, runbooks, tool arguments): synonyms
    and asks."""
    return _SynonymIndex([w for t in _TOPIC_TABLE for w in (*t.synonyms, *t.asks)])


@cache
def _in_logs() -> _SynonymIndex:
    """Log lines: synonyms only (see ``Topic.asks``)."""
    return _SynonymIndex([w for t in _TOPIC_TABLE for w in t.synonyms])


@cache
def _shapes() -> tuple[re.Pattern[str], dict[str, str]] | None:
    """Every topic's ``shapes`` as one regex, a named group per shape, and the topic of each
    group; None when no topic has a shape."""
    owner = {f"s{i}": (topic.name, shape) for i, (topic, shape) in
             enumerate((topic, shape) for topic in _TOPIC_TABLE for shape in topic.shapes)}
    if not owner:
        return None
    pattern = re.compile("|".join(f"(?P<{group}>{shape})" for group, (_, shape) in owner.items()))
    return pattern, {group: topic for group, (topic, _) in owner.items()}


def _shape_mentions(normalized_text: str) -> Iterator[TopicMention]:
    shapes = _shapes()
    if shapes is None:
        return
    pattern, owner = shapes
    for match in pattern.finditer(normalized_text):
        yield TopicMention(match.start(), match.end(), owner[match.lastgroup or ""], match.group())


@lru_cache(maxsize=4096)
def topic_of_synonym(matched: str) -> str:
    """The topic a synonym match (on normalised text) belongs to."""
    return _SYNONYM_OWNER[_squash(matched)]


def tag_lines(lines: Sequence[str]) -> dict[str, list[int]]:
    """Topic -> ascending indexes of the lines (each already passed through :func:`normalize`)
    that mention it. Built for corpora: two regex scans of the joined text, no per-line Python.

    Lines are tagged by synonyms and shapes only, never by a topic's ``asks``. Lines are tagged
    with every topic either scan (or the shapes' scan) finds; this equals tagging each line with
    ``topic_mentions(line, in_logs=True)`` because no cross-script synonym contains another
    topic's synonym and no shape overlaps another topic's synonym (lexicon tests hold the table
    to that).

    A few lines (a pack's small log file) are tagged one by one, that way: compiling the two
    corpus scans costs more than reading a few hundred lines in Python.
    """
    if sum(map(len, lines)) <= _SMALL_CORPUS_CHARS:
        tagged: dict[str, list[int]] = {}
        for index, line in enumerate(lines):
            for topic in dict.fromkeys(mention.topic for mention in topic_mentions(line, in_logs=True)):
                tagged.setdefault(topic, []).append(index)
        return tagged
    starts: list[int] = []
    offset = 1
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    # The mark before every line is a non-alphanumeric character for the word scan to consume, and
    # not a separator, so no synonym spans two lines.
    joined = _LINE_MARK + _LINE_MARK.join(lines)
    found: dict[str, set[int]] = {}
    synonyms = _in_logs()
    others = ((match.start(), match.group()) for match in synonyms.other_scan.finditer(joined))
    for start, synonym in chain(synonyms.word_matches(joined), others):
        found.setdefault(topic_of_synonym(synonym), set()).add(bisect_right(starts, start) - 1)
    # A shape holds no line mark (no pattern of one matches NUL): it stays inside its line.
    for shaped in _shape_mentions(joined):
        found.setdefault(shaped.topic, set()).add(bisect_right(starts, shaped.start) - 1)
    return {topic: sorted(ids) for topic, ids in found.items()}


def topic_mentions(normalized_text: str, *, in_logs: bool = False) -> list[TopicMention]:
    """Every non-overlapping topic mention in text already passed through :func:`normalize`: its
    synonyms (and asks) and its ``shapes``.

    ``in_logs``: the text is a log line, so only synonyms and shapes count (not a topic's ``asks``).
    """
    return list(_topic_mentions(normalized_text, in_logs))


# Asked of the same claim and cited texts many times per claim (polarity, support, accounting),
# and of the same log lines session after session: a pure function of the text.
@lru_cache(maxsize=8192)
def _topic_mentions(normalized_text: str, in_logs: bool) -> tuple[TopicMention, ...]:
    matcher = (_in_logs() if in_logs else _asked()).short
    mentions = [
        TopicMention(m.start(), m.end(), topic_of_synonym(m.group()), m.group())
        for m in matcher.finditer(normalized_text)
    ]
    # Mentions never overlap: where a synonym is, it is the mention (a shape only adds a topic
    # where the line has no word for it).
    shaped = [m for m in _shape_mentions(normalized_text)
              if not any(m.start < other.end and other.start < m.end for other in mentions)]
    return tuple(sorted([*mentions, *shaped], key=lambda m: m.start) if shaped else mentions)


def topics_in(text: str, *, in_logs: bool = False) -> list[str]:
    """Topic names mentioned in free text (Chinese or English), by first appearance, no duplicates.
    ``in_logs``: the text is a log line (synonyms only, see ``Topic.asks``).

    >>> topics_in("只确认内存使用率过高这一件事")
    ['memory']
    """
    seen: dict[str, None] = {}
    for mention in topic_mentions(normalize(text), in_logs=in_logs):
        seen.setdefault(mention.topic, None)
    return list(seen)


def declared_topics(names: Iterable[str]) -> list[str]:
    """The topics a claim's declared ``subject_topics`` stand for: a topic name as it is, any
    other entry read as text (a model writes the metric ``cpu_usage_percent``, ``HikariCP`` or
    ``慢请求`` as readily as ``cpu``); an entry naming no known topic stands for none.

    >>> declared_topics(["cpu_usage_percent", "HikariCP", "memory", "order 123"])
    ['cpu', 'connection_pool', 'memory']
    """
    seen: dict[str, None] = {}
    for name in names:
        for topic in [name] if name in TOPICS else topics_in(name):
            seen.setdefault(topic, None)
    return list(seen)


def expand_topics(names: Iterable[str]) -> list[str]:
    """The topics plus every topic they include (memory -> memory, gc), order kept, no duplicates."""
    seen: dict[str, None] = {}
    for name in names:
        seen.setdefault(name, None)
        for included in TOPICS[name].includes if name in TOPICS else ():
            seen.setdefault(included, None)
    return list(seen)


def topic_matches(topic: str, text: str) -> bool:
    """Whether text mentions ``topic`` or a topic it includes (``memory`` matches "Full GC").

    Raises ``ValueError`` for a topic name that is not in ``TOPICS``.
    """
    if topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r} (known: {', '.join(TOPICS)})")
    covered = set(expand_topics([topic]))
    return any(name in covered for name in topics_in(text))


# A service identifier: any "<name>-service" token. A Kubernetes pod name carrying it
# ("pod-order-service-5c7d8e9f1-m3n2p", "mysql-service-0") yields the service
# ("order-service"); a name that goes on with a word ("order-service-canary") is another name,
# never the head of it.
SERVICE_PATTERN = re.compile(
    r"(?<![a-z0-9_\-])(?:pod-)?([a-z][a-z0-9]*(?:-[a-z0-9]+)*?-service)(?![a-z0-9_])"
    r"(?!-(?![a-z0-9]*[0-9][a-z0-9]*(?:-[a-z0-9]{5})?(?![a-z0-9_\-]))[a-z0-9])"
)


@lru_cache(maxsize=256)
def phrase_pattern(phrase: str) -> str:
    """A phrase (normalised) as ``query_logs`` and the concepts match it: its words in order, any
    run of spaces/tabs between them, whole words at its ASCII edges (a Chinese edge is a plain
    substring)."""
    words = phrase.split()
    body = r"[ \t]+".join(re.escape(word) for word in words)
    head = f"(?<![{ASCII_WORD}])" if words[0][0] in ASCII_WORD_CHARS else ""
    tail = f"(?![{ASCII_WORD}])" if words[-1][-1] in ASCII_WORD_CHARS else ""
    return head + body + tail


@lru_cache(maxsize=1024)  # a store's service names, asked about again and again
def _literal_pattern(name: str) -> re.Pattern[str]:
    """A name matched whole: not preceded or followed by a letter, digit or underscore."""
    return re.compile(rf"(?<![a-z0-9_]){re.escape(normalize(name))}(?![a-z0-9_])")


def _first_appearance(spans: list[tuple[int, int, str]]) -> list[str]:
    """Names of non-overlapping spans (longest wins at a position), by position, no duplicates."""
    seen: dict[str, None] = {}
    taken_until = -1
    for start, end, name in sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]))):
        if start < taken_until:
            continue
        taken_until = end
        seen.setdefault(name, None)
    return list(seen)


def services_in(text: str, known: Iterable[str] | None = None) -> list[str]:
    """Service identifiers in text, lower case, by first appearance, no duplicates.

    Finds any ``xxx-service`` token (see ``SERVICE_PATTERN``) plus any name in ``known``
    (``mysql``, ``redis-cluster-01``, ``kubernetes`` ...), matched whole and case-insensitively.
    """
    normalized = normalize(text)
    spans = [(m.start(1), m.end(1), m.group(1)) for m in SERVICE_PATTERN.finditer(normalized)]
    for name in known or ():
        if name.strip():
            spans += [(m.start(), m.end(), normalize(name))
                      for m in _literal_pattern(name).finditer(normalized)]
    return _first_appearance(spans)


def without_names(text: str, names: Iterable[str]) -> str:
    """``text`` normalised, with every whole occurrence of ``names`` blanked: a service called
    ``mysql`` or ``redis`` named in a sentence is that service, not the lexicon's topic."""
    normalized = normalize(text)
    for name in names:
        if name.strip():
            normalized = _literal_pattern(name).sub(lambda m: " " * len(m.group()), normalized)
    return normalized


def alert_names_in(text: str, known: Iterable[str]) -> list[str]:
    """Names from ``known`` (e.g. ``HighCPUUsage``) literally present in text, case-insensitive.

    Returned spelled as in ``known``, by first appearance. Topic words do not imply alerts here:
    "CPU 使用率过高" is not ``HighCPUUsage``.
    """
    spans: list[tuple[int, int, str]] = []
    normalized = normalize(text)
    for name in known:
        if name.strip():
            spans += [(m.start(), m.end(), name) for m in _literal_pattern(name).finditer(normalized)]
    return _first_appearance(spans)


_CAMEL_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def alert_words(alert_name: str) -> str:
    """An alert name split into lower-case words: ``HostOutOfDiskSpace`` -> "host out of disk
    space", ``KubePodCrashLooping`` -> "kube pod crash looping", ``HighCPUUsage`` -> "high cpu
    usage", ``high_error_rate`` -> "high error rate"."""
    return " ".join(word.lower() for word in _CAMEL_WORD.findall(alert_name))
