"""Log templates: a Drain-style miner that groups repeated lines, deterministic, no model.

A *template* is a message with its variable parts replaced by ``<*>``:
``PacketResponder <*> for block <*> terminating``. The miner reads messages one at a time and
gives each the id of its template; lines with one id are "the same line, other values", which
is what ``query_logs`` counts in its ``groups``.

How a message is read (Drain: He et al., ICWS 2017, with the usual preprocessing):

1. Only the first line of a multi-line entry counts (a stack trace varies, its headline not).
2. Masking, by the shape of a value, never by a product's vocabulary: every segment holding a
   digit (numbers, ids, IPs, ports, hex, versions), a bounded quantity with its unit (``<1
   sec``: one value, as ``00:01`` is), every absolute path and URL, a date
   written with words (``Sat Jul  9``), a name after a user key (``user alice``,
   ``user=bob``, ``for carol from``), a quoted value of a key (``tag="View Lock"``) becomes
   ``<*>``; an aside in parentheses that holds a value (``(1.16 KB)``, ``(host.isp.net)``,
   ``()``) is dropped, since some lines carry it and others not. A segment is a run between
   whitespace and ``= : , ; ( ) [ ] { } < > " ' |``, so ``size=1893`` keeps its key
   (``size=<*>``). Several ``<*>`` tokens in a row become one (a list of ids varies in length).
3. The masked message splits on whitespace into tokens. Messages of different token counts
   never share a template.
4. A fixed-depth tree narrows the candidates: token count, then the first ``depth`` tokens (a
   token holding ``<*>``, or a qualified name such as ``com.example.Job:``, the subject of
   many lines, walks the wildcard branch). Among the clusters of the leaf, the one with the
   most equal tokens wins if at least ``similarity`` of its constant tokens are equal (all of
   them for a message of three tokens or fewer: each names the event); else a new cluster
   starts. Joining a cluster turns the positions that differ into ``<*>``.
5. Words are constants: a position where the cluster and the message hold two different plain
   words of letters in any case, or quoted (``spawned``/``destroyed``, ``memory:``/``disk:``,
   ``NEW``/``RUNNING``, ``UpdateAgent``/``SPP``, ``'Active'``/``'Inactive'``) is a different
   message, not a value, so the message does not join that cluster. Values are what masking
   found, or tokens that are not plain words (``yarn,curi``, ``org.apache.Foo``). The price: a
   plain-word value masking did not find splits its template -- but only until a leaf holds
   ``max_leaf_clusters`` (32) templates: past that, a message no template of its words takes
   joins the most similar one anyway (the words become ``<*>``; so does free text with no
   structure), so an import costs linear time, not quadratic (each new message was compared
   with every template of its leaf: 20,000 lines naming as many users took 600 s).

Messages seen as written, and identical masked messages, are cached (both bounded), so a
million lines of a few hundred shapes cost a dictionary look-up or a few regex substitutions
each. Template ids are stable: a cluster keeps its id as its template generalises, and a
miner loaded with earlier templates (``load``) continues their numbering, which is how a log
store appends files.

``bench/templates.py`` measures the grouping against every labelled loghub dataset it is
given, beside Drain3 run on the same lines and Drain's published figures.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

WILDCARD = "<*>"
_DELIMITERS = r"\s=:,;()\[\]{}<>\"'|"
_MASK = re.compile(
    # anchored at a segment's start (what ``re`` tries at every other position fails at once)
    rf"(?<![^{_DELIMITERS}])(?:"
    # absolute paths: the whole run up to a delimiter (":" allowed inside)
    r"/[^\s,;\"'()\[\]{}<>|]+"
    # any other segment holding a digit
    rf"|[^{_DELIMITERS}\d]*\d[^{_DELIMITERS}]*)"
)
# A bounded quantity with its unit (``<1 sec``, ``>5 ms``, ``~2 min``) is one value: a line that
# writes a duration as ``00:01`` one time and ``<1 sec`` the next is the same line. (Other
# quantities keep their unit as a word: ``<*> GB of <*> GB``.) The leading class lets the scan
# skip to a ``<``, ``>`` or ``~`` at C speed.
_BOUNDED_QUANTITY = re.compile(
    r"[<>~](?<![^\s=:,;(\[{][<>~])\d[\d.,]*[ \t]?"
    r"(?:s(?:ec(?:ond)?s?)?|[mun]s|min(?:ute)?s?|h(?:(?:ou)?rs?)?|days?|[KMGTP]?i?B|bytes?|%)(?![A-Za-z])")
# URLs, tried only on a message holding ``://``: the whole run up to a delimiter.
_URL = re.compile(rf"(?<![^{_DELIMITERS}])[a-zA-Z][a-zA-Z0-9+.-]*://[^\s,;\"'()\[\]{{}}<>|]+")
# A date written with words (``Sat Jul  9``, ``Jul 9``, ``9-Jul``): the words vary with the date.
_DATE_WORDS = re.compile(
    r"\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r"[a-z]*\.?(?=[\s-]+\d)|(?<=\d[ -])(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b")
# A month's name anywhere: a scan for it is ten times faster than one for ``_DATE_WORDS``.
_MONTH_LIKE = re.compile(r"Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec")
# A name after a user key (``user alice``, ``user=bob``, ``for carol from``): a plain word, but a
# value (the key word says so; logentities reads users the same way). Tried only on a message
# holding ``user`` or ``for`` and ``from`` (substring tests in C, where most messages stop).
_USER_NAME = re.compile(
    r"(?:(?<=\b[Uu]ser[ =:])(?<![Uu]ser [Uu]ser )|(?<=\b[Uu]sername[ =:])|(?<=\bfor )(?=[A-Za-z_][\w.@-]*\s+from\s))"
    r"[A-Za-z_][\w.@-]*")
# An aside in parentheses that starts with a value (``(1.16 KB)``, ``(10.0.0.1)``), or is one
# name with a dot or digit (``(host.example.net)``; not a ``key=value``: a key says what the
# value is), or empty, restates or qualifies a value: some lines carry it and others not, so it
# is dropped, not masked.
_ASIDE = re.compile(r"[ \t]+\((?:[<>~]?\d[^()]{0,60}|[^()\s/=][^()\s=]*(?:\d|[A-Za-z]\.[A-Za-z])[^()\s=]*|)\)"
                    r"(?![^\s,;:.])")
# A quoted value of a key (``tag="View Lock"``): one value, however many words it holds.
_QUOTED_VALUE = re.compile(r'(?<==)"[^"]*"')
# Several values in a row (a list of block ids) count as one: lists vary in length.
_RUNS = re.compile(r"<\*>(?:[ \t]+<\*>)+")
_PLAIN_WORD = re.compile(r"(?:[A-Za-z][A-Za-z]+|[A-Z][A-Z_]+|'[A-Za-z]+')[.,:;!?]?")
# A key of a ``key=value`` token, and a value after its ``=`` (what ``_plain_words`` drops).
_KEY = re.compile(r"[A-Za-z_]=")
_KEY_VALUE = re.compile(r"(?<==)[^,;\s]+")
# A qualified name (``com.example.Job``, ``host.domain``): often the variable part of a line.
_QUALIFIED = re.compile(r"[A-Za-z]\.[A-Za-z]")
_SHORT_MESSAGE = 3  # tokens: a message this short joins only templates equal on every constant
_MAX_MINED_CHARS = 4000  # a longer headline is mined by its start
_MAX_CACHE = 50_000  # masked messages remembered; cleared when full (memory stays bounded)
# Messages remembered as written (a repeated message skips the masking): only short ones, so
# the cache stays a few MB; cleared when full.
_MAX_SEEN, _MAX_SEEN_CHARS = 20_000, 300


def masked(message: str) -> str:
    """The message as the miner compares it: its first line, masked (see the module doc)."""
    headline = message.split("\n", 1)[0][:_MAX_MINED_CHARS]
    if "(" in headline:
        headline = _ASIDE.sub("", headline)
    if "user" in headline or "User" in headline or ("for " in headline and " from " in headline):
        headline = _USER_NAME.sub(WILDCARD, headline)
    if '="' in headline:
        headline = _QUOTED_VALUE.sub(WILDCARD, headline)
    headline = _BOUNDED_QUANTITY.sub(WILDCARD, headline)
    if "://" in headline:
        headline = _URL.sub(WILDCARD, headline)
    if _MONTH_LIKE.search(headline):
        headline = _DATE_WORDS.sub(WILDCARD, headline)
    return _RUNS.sub(WILDCARD, _MASK.sub(WILDCARD, headline))


def _is_word(token: str) -> bool:
    return _PLAIN_WORD.fullmatch(token) is not None


def _plain_words(tokens: list[str]) -> dict[int, str]:
    """The constants of a token list by position: its plain words, and the keys of its
    ``key=value`` tokens (``(uid=<*>)`` -> ``(uid=)``: the key is constant, the value not, so
    ``LOGIN(uid=0)`` is another message than ``(uid=0)`` while ``tty=pts`` and ``tty=:0`` are one)."""
    constants: dict[int, str] = {}
    for index, token in enumerate(tokens):
        if _is_word(token):
            constants[index] = token
        elif "=" in token and _KEY.search(token):
            constants[index] = _KEY_VALUE.sub("", token)
    return constants


@dataclass
class _Cluster:
    """One template: its id, its tokens (``<*>`` where lines differ), how many lines joined,
    and its plain words by position (what ``same_words`` compares)."""

    template_id: int
    tokens: list[str]
    size: int = 0
    words: dict[int, str] = field(init=False)

    def __post_init__(self) -> None:
        self.words = _plain_words(self.tokens)

    def similarity(self, tokens: list[str]) -> tuple[float, int]:
        """(share of the template's tokens equal to the message's, count of its wildcards)."""
        equal = wildcards = 0
        for mine, theirs in zip(self.tokens, tokens, strict=True):
            if mine == WILDCARD:
                wildcards += 1
            elif mine == theirs:
                equal += 1
        return equal / len(self.tokens), wildcards

    def same_words(self, words: dict[int, str]) -> bool:
        """No position where both hold a different plain word (a different message); ``words``
        are the message's plain words by position."""
        return all(words.get(index, word) == word for index, word in self.words.items())

    def absorb(self, tokens: list[str], words: dict[int, str]) -> None:
        """Join a message (``words``: its constants by position): positions that differ become
        wildcards; a constant stays where the message holds it too."""
        self.tokens = [mine if mine == theirs else WILDCARD
                       for mine, theirs in zip(self.tokens, tokens, strict=True)]
        self.words = {index: word for index, word in self.words.items() if words.get(index) == word}
        self.size += 1

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    clusters: list[_Cluster] = field(default_factory=list)


class TemplateMiner:
    """Assigns template ids to messages (see the module doc). Not thread-safe: one per import.

    ``similarity`` is the share of a cluster's constant tokens a message must match to join it;
    ``depth`` how many leading tokens the tree branches on; ``max_children`` bounds a node's
    branches (beyond it, new tokens share the wildcard branch); ``max_leaf_clusters`` bounds
    the templates of a leaf (beyond it, a message joins the most similar: see ``_place``).
    """

    def __init__(self, similarity: float = 0.6, depth: int = 2, max_children: int = 100,
                 max_leaf_clusters: int = 32) -> None:
        if not 0 < similarity <= 1 or depth < 1 or max_children < 1 or max_leaf_clusters < 1:
            raise ValueError("similarity must be in (0, 1], depth, max_children and max_leaf_clusters >= 1")
        self._similarity = similarity
        self._depth = depth
        self._max_children = max_children
        self._max_leaf_clusters = max_leaf_clusters
        self._root = _Node()
        self._clusters: dict[int, _Cluster] = {}
        self._cache: dict[str, _Cluster] = {}
        self._seen: dict[str, _Cluster] = {}
        self._next_id = 1
        self._changed: set[int] = set()

    # ------------------------------------------------------------ public surface

    def add(self, message: str) -> int:
        """The template id of ``message`` (a new one if no template fits)."""
        cluster = self._seen.get(message)
        if cluster is not None:
            cluster.size += 1
            return cluster.template_id
        shape = masked(message)
        cluster = self._cache.get(shape)
        if cluster is None:
            cluster = self._place(shape.split())
            if len(self._cache) >= _MAX_CACHE:
                self._cache.clear()
            self._cache[shape] = cluster
        else:
            cluster.size += 1
        if len(message) <= _MAX_SEEN_CHARS:
            if len(self._seen) >= _MAX_SEEN:
                self._seen.clear()
            self._seen[message] = cluster
        return cluster.template_id

    def template(self, template_id: int) -> str:
        """The current text of a template."""
        return self._clusters[template_id].text

    def templates(self) -> dict[int, str]:
        """Every template id -> its text."""
        return {template_id: cluster.text for template_id, cluster in self._clusters.items()}

    def sizes(self) -> dict[int, int]:
        """Every template id -> how many messages joined it through this miner."""
        return {template_id: cluster.size for template_id, cluster in self._clusters.items()}

    def changed(self) -> set[int]:
        """Ids of templates created or generalised since the last call (then forgotten)."""
        changed, self._changed = self._changed, set()
        return changed

    def load(self, templates: Iterable[tuple[int, str]]) -> None:
        """Continue from earlier templates (id, text): their ids are kept, new ids follow."""
        for template_id, text in templates:
            cluster = _Cluster(template_id, text.split() or [""])  # the empty message has a template too
            self._clusters[template_id] = cluster
            self._leaf(cluster.tokens).clusters.append(cluster)
            self._next_id = max(self._next_id, template_id + 1)
        self._cache.clear()
        self._seen.clear()

    # ------------------------------------------------------------ the tree

    def _leaf(self, tokens: list[str]) -> _Node:
        node = self._root.children.setdefault(str(len(tokens)), _Node())
        for token in tokens[:self._depth]:
            key = WILDCARD if WILDCARD in token or _QUALIFIED.search(token) else token
            child = node.children.get(key)
            if child is None:
                if len(node.children) >= self._max_children and key != WILDCARD:
                    key = WILDCARD
                    child = node.children.get(key)
                if child is None:
                    child = node.children[key] = _Node()
            node = child
        return node

    def _place(self, tokens: list[str]) -> _Cluster:
        """The cluster ``tokens`` joins, or a new one. A leaf holding ``max_leaf_clusters``
        templates has met a plain-word *value* (a user or host name: ``session opened for user
        alice``, ``... bob``, ...) or text with no structure: a message no template of the same
        words takes then joins the most similar one, whatever its words and however little it
        shares, so the leaf stops growing -- else every message would be compared with every
        template of its leaf, and an import would grow with the square of its lines."""
        if not tokens:
            tokens = [""]
        leaf = self._leaf(tokens)
        words = _plain_words(tokens)
        best = self._most_similar(leaf.clusters, tokens, words)
        if best is None and len(leaf.clusters) >= self._max_leaf_clusters:
            best = max(leaf.clusters, key=lambda cluster: cluster.similarity(tokens))
        if best is not None:
            before = best.tokens
            best.absorb(tokens, words)
            if best.tokens != before:
                self._changed.add(best.template_id)
            return best
        cluster = _Cluster(self._next_id, list(tokens), size=1)
        self._next_id += 1
        self._clusters[cluster.template_id] = cluster
        leaf.clusters.append(cluster)
        self._changed.add(cluster.template_id)
        return cluster

    def _most_similar(self, clusters: list[_Cluster], tokens: list[str], words: dict[int, str]) -> _Cluster | None:
        """Among the clusters holding the message's plain ``words``, the one most similar to
        ``tokens``, if it is similar enough."""
        best: _Cluster | None = None
        best_key = (-1.0, -1)
        for cluster in clusters:
            if not cluster.same_words(words):
                continue
            key = cluster.similarity(tokens)
            if key > best_key:
                best, best_key = cluster, key
        # A message of a few tokens names its event with each of them (``onReceive action: X``):
        # it joins a template only where every constant is equal (the values apart).
        required = self._similarity if len(tokens) > _SHORT_MESSAGE else 1.0
        if best is not None and best_key[0] >= required * self._constant_share(best):
            return best
        return None

    @staticmethod
    def _constant_share(cluster: _Cluster) -> float:
        """The share of a cluster's tokens that are constant: the similarity a message can at
        most reach, so a template that is mostly wildcards still accepts its own lines."""
        constants = sum(1 for token in cluster.tokens if token != WILDCARD)
        return constants / len(cluster.tokens)


def grouping_accuracy(predicted: Sequence[Hashable], truth: Sequence[Hashable]) -> float:
    """The standard log-parsing metric (Zhu et al., ICSE-SEIP 2019): the share of lines whose
    predicted group holds exactly the lines of their true group."""
    by_predicted: dict[Hashable, set[int]] = defaultdict(set)
    by_truth: dict[Hashable, set[int]] = defaultdict(set)
    for index, (group, label) in enumerate(zip(predicted, truth, strict=True)):
        by_predicted[group].add(index)
        by_truth[label].add(index)
    correct = sum(len(members) for members in by_predicted.values()
                  if by_truth[truth[next(iter(members))]] == members)
    return correct / len(truth) if truth else 1.0
