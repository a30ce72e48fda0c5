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

6. A few values on many lines name events (Brain: Yu et al., 2023, read as a streaming rule):
   a variable position of a template whose values, counted over its first lines, are at most
   ``few_values`` (3) distinct ones on at least ``lines_per_value`` (5) lines each on average,
   one of them word-like (letters, perhaps a ``key=`` before and a digit or two after:
   ``en0``/``awdl0``, ``IPV4``/``IPV6``, ``user=root``/``user=guest``, ``tty=NODEVssh``), is a
   constant: each word-like value gets a template of its own (``link up on en0``), the other
   values keep the template's id. Numbers, ids, hex, units, a user name in prose and positions
   of many values stay variables. The import reads a batch of lines (``add_batch``) before
   giving their ids, so a split covers every line of the batch; a template's positions are
   decided for good after 256 of its lines, so counting costs nothing on a long import.
   Values are read by position from the message with only the token-count-changing masking
   done (``_unmasked_tokens``), so ``masked`` is unchanged.

Messages seen as written, and identical masked messages, are cached (both bounded), so a
million lines of a few hundred shapes cost a dictionary look-up or a few regex substitutions
each. Template ids are stable: a cluster keeps its id as its template generalises, and a
miner loaded with earlier templates (``load``) continues their numbering, which is how a log
store appends files. A split template is stored as a template; loaded, it is an ordinary one
until a later file's lines of that value, joining the template it was split from, split it
again: the split of the same text takes the loaded id back. (If the template it was split from
generalised meanwhile, the text differs and the split gets a new id.)

``bench/templates.py`` measures the grouping against every labelled loghub dataset it is
given, beside Drain3 run on the same lines and Drain's published figures.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

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
# In prose it is masked with the masking that changes token counts; in a field (``user=bob``)
# token-wise, after the values are read, so its frequency can still tell a constant (see
# ``TemplateMiner.add_batch``).
_USER_NAME_IN_FIELD = re.compile(r"(?:(?<=\b[Uu]ser=)|(?<=\b[Uu]sername=))[A-Za-z_][\w.@-]*")
_USER_NAME_IN_PROSE = re.compile(
    r"(?:(?<=\b[Uu]ser[ :])(?<![Uu]ser [Uu]ser )|(?<=\b[Uu]sername[ :])|(?<=\bfor )(?=[A-Za-z_][\w.@-]*\s+from\s))"
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
# A word-like value (``root``, ``en0``, ``IPV6``, ``tty=NODEVssh``, ``WWEN[enable]``): letters, perhaps
# a ``key=`` before and a digit or two after -- not a number, id, address or qualified name. Where
# a template's variable position holds a few such values on many lines, they name events.
_SOFT_WORD = re.compile(r"(?:[A-Za-z_][\w-]*=)?[\[(]?[A-Za-z][A-Za-z_]+(?:\[[A-Za-z]+\])?\d{0,2}[\])]?[.,:;]?")
# ... but not a unit (``KB``, ``ms``: part of a quantity) nor hex digits (``ffffffff``).
_NOT_SOFT = re.compile(r"(?:[A-Za-z_][\w-]*=)?(?:(?:[KMGTP]i?B|bytes?|[mun]?s|secs?|mins?|hours?|days?)[.,:;]?"
                       r"|[0-9A-Fa-f]{6,})")
# Lines of a template whose values are counted: then its positions are decided for good (so
# counting costs nothing on a long import, and a template's first lines make its events).
_SETTLE_LINES = 256
_MAX_SPLITS = 64  # templates one template splits into at most; past that, lines keep its id
_SHORT_MESSAGE = 3  # tokens: a message this short joins only templates equal on every constant
_MAX_MINED_CHARS = 4000  # a longer headline is mined by its start
_MAX_CACHE = 50_000  # masked messages remembered; cleared when full (memory stays bounded)
# Messages remembered as written (a repeated message skips the masking): only short ones, so
# the cache stays a few MB; cleared when full.
_MAX_SEEN, _MAX_SEEN_CHARS = 20_000, 300


def masked(message: str) -> str:
    """The message as the miner compares it: its first line, masked (see the module doc)."""
    return _masked(_unmasked_tokens(message))


def _unmasked_tokens(message: str) -> str:
    """The first line with the masking that changes how many tokens it has done (asides
    dropped, several-word values as one ``<*>``): its tokens are those of the masked message,
    one for one, unless ``_RUNS`` joins some (see ``_soft_values``)."""
    headline = message.split("\n", 1)[0][:_MAX_MINED_CHARS]
    if "(" in headline:
        headline = _ASIDE.sub("", headline)
    if "user" in headline or "User" in headline or ("for " in headline and " from " in headline):
        headline = _USER_NAME_IN_PROSE.sub(WILDCARD, headline)
    if '="' in headline:
        headline = _QUOTED_VALUE.sub(WILDCARD, headline)
    headline = _BOUNDED_QUANTITY.sub(WILDCARD, headline)
    if "://" in headline:
        headline = _URL.sub(WILDCARD, headline)
    if _MONTH_LIKE.search(headline):
        headline = _DATE_WORDS.sub(WILDCARD, headline)
    return headline


def _masked(headline: str) -> str:
    """The rest of the masking, token by token: user names, segments holding digits, runs."""
    if "ser=" in headline or "sername=" in headline:
        headline = _USER_NAME_IN_FIELD.sub(WILDCARD, headline)
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
    # The values seen at each variable position still counted (value -> lines; at most
    # ``few_values`` + 1 values, then the position is a variable for good), the positions found
    # to be constants, and the templates their values split this one into.
    counts: dict[int, dict[str, int]] = field(default_factory=dict)
    counted: int = 0
    variables: set[int] = field(default_factory=set)
    constants: tuple[int, ...] = ()
    splits: dict[tuple[str | None, ...], _Split] = field(default_factory=dict)

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
class _Split:
    """A template split off another by the values of its constant positions: its text is the
    other's with those values written in (so it follows the other as it generalises)."""

    template_id: int
    parent: _Cluster
    values: dict[int, str]
    size: int = 0

    @property
    def text(self) -> str:
        values = self.values
        return " ".join(values.get(index, token) for index, token in enumerate(self.parent.tokens))


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
    A variable position of a template whose values are at most ``few_values`` distinct ones on
    at least ``lines_per_value`` lines each on average, one of them word-like, is a constant:
    its word-like values split the template (see ``add_batch``; ``few_values=0`` never splits).
    """

    def __init__(self, similarity: float = 0.6, depth: int = 2, max_children: int = 100,
                 max_leaf_clusters: int = 32, few_values: int = 3, lines_per_value: float = 5.0) -> None:
        if not 0 < similarity <= 1 or depth < 1 or max_children < 1 or max_leaf_clusters < 1:
            raise ValueError("similarity must be in (0, 1], depth, max_children and max_leaf_clusters >= 1")
        if few_values < 0 or lines_per_value < 1:
            raise ValueError("few_values must be >= 0 and lines_per_value >= 1")
        self._few_values = few_values
        self._lines_per_value = lines_per_value
        self._similarity = similarity
        self._depth = depth
        self._max_children = max_children
        self._max_leaf_clusters = max_leaf_clusters
        self._root = _Node()
        self._clusters: dict[int, _Cluster] = {}
        self._splits: dict[int, _Split] = {}
        self._loaded: dict[str, _Cluster] = {}  # loaded templates by text: a split found again keeps its id
        self._cache: dict[str, _Cluster] = {}
        self._seen: dict[str, tuple[_Cluster, list[str] | None]] = {}
        self._next_id = 1
        self._changed: set[int] = set()

    # ------------------------------------------------------------ public surface

    def add(self, message: str) -> int:
        """The template id of ``message`` (a new one if no template fits). Alone, a message is
        split by its values only at positions earlier messages showed to be constants: read
        together (``add_batch``), they are all split once the batch has shown it."""
        cluster, values = self._read(message)
        if cluster.counts:
            self._decide(cluster)
        return self._resolve(cluster, values) if cluster.constants else cluster.template_id

    def add_batch(self, messages: Iterable[str]) -> list[int]:
        """The template ids of ``messages`` read in order, decided together: a template's variable
        position that holds, over the lines seen so far, a few word-like values each on several
        lines (Brain's insight: an event's words are frequent, a value's are not), is a constant,
        and each of its word-like values gets a template of its own -- for every line of the
        batch, since ids are given only once the batch is read. A position decided stays so."""
        read = [self._read(message) for message in messages]
        for cluster in {id(cluster): cluster for cluster, _ in read if cluster.counts}.values():
            self._decide(cluster)
        return [self._resolve(cluster, values) if cluster.constants else cluster.template_id
                for cluster, values in read]

    def template(self, template_id: int) -> str:
        """The current text of a template."""
        split = self._splits.get(template_id)
        return split.text if split is not None else self._clusters[template_id].text

    def templates(self) -> dict[int, str]:
        """Every template id -> its text."""
        texts = {template_id: cluster.text for template_id, cluster in self._clusters.items()}
        texts.update((template_id, split.text) for template_id, split in self._splits.items())
        return texts

    def sizes(self) -> dict[int, int]:
        """Every template id -> how many messages it was given through this miner."""
        sizes = {template_id: cluster.size for template_id, cluster in self._clusters.items()}
        for template_id, split in self._splits.items():
            sizes[template_id] = split.size
            sizes[split.parent.template_id] -= split.size
        return sizes

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
            self._loaded[cluster.text] = cluster
            self._track(cluster, None)  # its values are counted afresh, on the new lines
        self._cache.clear()
        self._seen.clear()

    # ------------------------------------------------------------ values that name events

    def _read(self, message: str) -> tuple[_Cluster, list[str] | None]:
        """The cluster ``message`` joins and its tokens as written, one per token of the cluster
        (None when the masking joined some: their values cannot be told apart), counted."""
        seen = self._seen.get(message)
        if seen is not None:
            cluster, values = seen
            cluster.size += 1
        else:
            unmasked = _unmasked_tokens(message)
            shape = _masked(unmasked)
            cached = self._cache.get(shape)
            if cached is None:
                cluster = self._place(shape.split())
                if len(self._cache) >= _MAX_CACHE:
                    self._cache.clear()
                self._cache[shape] = cluster
            else:
                cluster = cached
                cluster.size += 1
            values = unmasked.split()
            if len(values) != len(cluster.tokens):
                values = None
            if len(message) <= _MAX_SEEN_CHARS:
                if len(self._seen) >= _MAX_SEEN:
                    self._seen.clear()
                self._seen[message] = (cluster, values)
        if cluster.counts and values is not None:
            self._count(cluster, values)
        return cluster, values

    def _count(self, cluster: _Cluster, values: list[str]) -> None:
        limit = self._few_values
        counts = cluster.counts
        many = None
        for index, seen in counts.items():
            value = values[index]
            seen[value] = seen.get(value, 0) + 1
            if len(seen) > limit:  # many values: a variable
                many = [*(many or ()), index]
        for index in many or ():
            del counts[index]
            cluster.variables.add(index)
        cluster.counted += 1
        if cluster.counted >= _SETTLE_LINES:
            self._decide(cluster)
            cluster.variables.update(counts)
            counts.clear()

    def _track(self, cluster: _Cluster, before: list[str] | None) -> None:
        """Count the values of the cluster's variable positions from now on; a position that was
        a constant until now starts with its lines so far (all held ``before``'s token)."""
        if not self._few_values:
            return
        for index, token in enumerate(cluster.tokens):
            if WILDCARD in token and index not in cluster.counts and index not in cluster.variables \
                    and index not in cluster.constants:
                previous = before[index] if before is not None else None
                cluster.counts[index] = ({previous: cluster.size - 1}
                                         if previous is not None and WILDCARD not in previous else {})

    def _decide(self, cluster: _Cluster) -> None:
        """Positions whose few values, one of them word-like, each stand for several lines on
        average become constants."""
        decided = [index for index, seen in cluster.counts.items()
                   if len(seen) >= 2 and sum(seen.values()) >= self._lines_per_value * len(seen)
                   and any(_soft(value) for value in seen)]
        for index in decided:
            del cluster.counts[index]
        if decided:
            cluster.constants = tuple(sorted((*cluster.constants, *decided)))

    def _resolve(self, cluster: _Cluster, values: list[str] | None) -> int:
        """The id of the template of the message's word-like values at the cluster's constant
        positions (the cluster's own when it holds none there)."""
        if values is None:
            return cluster.template_id
        key = tuple(value if _soft(value) else None
                    for value in (values[index] for index in cluster.constants))
        if not any(key):
            return cluster.template_id
        split = cluster.splits.get(key)
        if split is None:
            if len(cluster.splits) >= _MAX_SPLITS:
                return cluster.template_id
            split = cluster.splits[key] = _Split(
                self._next_id, cluster,
                {index: value for index, value in zip(cluster.constants, key, strict=True) if value is not None})
            loaded = self._loaded.pop(split.text, None)
            if loaded is not None and loaded is not cluster:  # split by an earlier import: its id again
                split.template_id = loaded.template_id
                del self._clusters[loaded.template_id]
                self._leaf(loaded.tokens).clusters.remove(loaded)
            else:
                self._next_id += 1
                self._changed.add(split.template_id)
            self._splits[split.template_id] = split
        split.size += 1
        return split.template_id

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
                self._changed.update(split.template_id for split in best.splits.values())
                self._track(best, before)
            return best
        cluster = _Cluster(self._next_id, list(tokens), size=1)
        self._next_id += 1
        self._clusters[cluster.template_id] = cluster
        leaf.clusters.append(cluster)
        self._changed.add(cluster.template_id)
        self._track(cluster, None)
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


@lru_cache(maxsize=4096)
def _soft(value: str) -> bool:
    """A word-like value (``_SOFT_WORD``), not a unit nor hex."""
    return _SOFT_WORD.fullmatch(value) is not None and _NOT_SOFT.fullmatch(value) is None


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
