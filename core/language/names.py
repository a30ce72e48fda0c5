"""Names in a question: markup, quoted phrases, services, alert names, class and exception
names, identifiers, HTTP methods (passes 1-5 of ``core.language.question``).

Each reader takes what it reads out of the ``QuestionText`` (blanks it), so a later pass does
not read it again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from core.language.alternation import one_of
from core.language.concepts import CONCEPTS, concept_mentions
from core.language.lexicon import SERVICE_PATTERN, topics_in
from core.language.question_words import (
    HYPHENATED_WORDS,
    LEVELS_UPPER,
    NOT_SERVICE_WORDS,
    STOPWORDS,
    QuestionText,
    unique,
    vocabulary,
)
from core.language.text import normalize
from core.lazypattern import LazyPattern

_MARKUP_BLOCK = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_MARKUP_TAG = re.compile(r"</?[A-Za-z!][^>]*>?")
_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|「([^」\n]+)」|『([^』\n]+)』|‘([^’\n]+)’'
                     r"|(?<![A-Za-z0-9])'([^'\n]+)'(?![A-Za-z0-9])")
# A hyphenated lower-case name (kafka-broker, cassandra-db): a service when the question treats it
# as the subject (next to 是否/有没有/的/服务, or after for/in/on/of/from: ``subject_after`` and
# ``subject_before`` of ``vocab/question.yaml``).
_HYPHENATED = re.compile(r"(?<![a-z0-9_\-./])([a-z][a-z0-9]+(?:-[a-z][a-z0-9]+)+)(?![a-z0-9_\-])")
# A host or instance name (node-9, web-01, kafka-0): in a question about alerts, in subject
# position, it names what the alerts are about, not a phrase to search log lines for.
_HOST_NAME = re.compile(r"(?<![a-z0-9_\-./:])([a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+[a-z0-9]*)(?![a-z0-9_\-.:/])")
_SUBJECT_AFTER = LazyPattern(rf"^\s*(?:{one_of(vocabulary().subject_after, english_ends_word=True)})")
_BEFORE_WORDS = vocabulary().subject_before
_SUBJECT_BEFORE = LazyPattern(rf"(?:\b(?:{one_of(w for w in _BEFORE_WORDS if w.isascii())})"
                              rf"|{one_of(w for w in _BEFORE_WORDS if not w.isascii())})\s*$")
# "service X", "X service", "X 服务" with X a plain word: the question names a service.
_SERVICE_WORD = re.compile(r"\bthe\s+([a-z][a-z0-9]{2,})\s+service\b|\bservice\s+([a-z][a-z0-9]{2,})\b"
                           r"|([a-z][a-z0-9]{2,})\s*服务|服务\s*([a-z][a-z0-9]{2,})")
# A plain word as the grammatical subject: "Does nginx have …", "nginx 有没有 …".
_SUBJECT_WORD_CUES = vocabulary().subject_word
_SUBJECT_WORD = LazyPattern(
    rf"^\s*(?:{one_of(_SUBJECT_WORD_CUES.auxiliaries)})\s+(?:the\s+)?([a-z][a-z0-9_]{{2,}})\s+"
    rf"(?:{one_of(_SUBJECT_WORD_CUES.verbs)})\b"
    rf"|^\s*([a-z][a-z0-9_]{{2,}})\s*(?:{one_of(_SUBJECT_WORD_CUES.after)})")
_CAMEL = re.compile(r"(?<![A-Za-z0-9_.$])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*|[A-Z]+(?![a-z]))+|[A-Z]{2,}[a-z][A-Za-z0-9]+)"
                    r"(?![A-Za-z0-9_])")
_DOTTED_CLASS = re.compile(r"(?<![A-Za-z0-9_.])((?:[a-z][a-z0-9_]*\.)+[A-Z][A-Za-z0-9_$]*)(?![A-Za-z0-9_])")
_EXCEPTION_NAME = re.compile(r"(?:Exception|Error|Throwable|Failure|Fault)$")
_IDENTIFIER = re.compile(
    r"(?<![A-Za-z0-9_\-./:])("
    r"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?"                      # an IP (and port)
    r"|\d{1,3}(?:\.\d{1,3}){1,2}\.(?:\*|x(?![A-Za-z0-9]))?"     # a subnet: 10.251., 10.251.*
    r"|0x[0-9a-fA-F]+"                                       # a hex id
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"  # a uuid
    r"|(?:/[A-Za-z0-9_.\-]+)+/?"                              # a path
    r"|[A-Za-z][A-Za-z0-9_\-]*?[_\-][A-Za-z0-9_\-]*\d[A-Za-z0-9_\-]*"  # blk_…, appattempt_…, req-…
    r"|[A-Za-z][A-Za-z0-9_.\-]*:\d{2,5}"                      # host:port
    r"|\d{3,}"                                               # a port, a code, a long number
    r")s?(?![A-Za-z0-9_\-])")  # s: in the plural ("503s" asks about 503)
_SUBNET_WILDCARD = LazyPattern(r"(?<=\d)\.(?:\*|x)$")  # 10.251.* and 10.251.x are 10.251
# An HTTP method written as one ("GET requests", "failed POSTs"): what an access line holds (the
# lower-case word is a question word: "get", "put").
_HTTP_METHOD = LazyPattern(r"(?<![A-Za-z0-9_])(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)s?(?![A-Za-z0-9_])"
                          r"(?:\s+(?:requests?|calls?|请求))?")


def strip_markup(question: str) -> str:
    """The question without HTML/XML markup (scripts and styles with their content)."""
    return _MARKUP_TAG.sub(" ", _MARKUP_BLOCK.sub(" ", question))


# Every known name of the world is tried on every question: compiled once (``re``'s own cache
# holds 512 patterns, fewer than a world's names and the rest of a session's).
@lru_cache(maxsize=4096)
def _whole(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9_\-]){re.escape(normalize(name))}(?![a-z0-9_])")


@lru_cache(maxsize=4096)
def _whole_alias(alias: str) -> re.Pattern[str]:
    """An alias as a name of its own: not the start of a longer name (``node`` in ``node-7``
    is not the alias of ``node-1``)."""
    return re.compile(rf"(?<![a-z0-9_.\-]){re.escape(normalize(alias))}(?![a-z0-9_]|[-.][a-z0-9])")


def quoted_terms(text: QuestionText) -> list[str]:
    terms: list[str] = []
    for match in _QUOTED.finditer(text.current):
        inner = next(group for group in match.groups() if group is not None)
        phrase = " ".join(inner.split())
        if phrase:
            terms.append(phrase)
        text.take(match.start(), match.end())
    return terms



# An alert name with a qualifier after its identifier (awesome-prometheus-alerts'
# ``MysqlTooManyConnections(>80%)``): people write the identifier alone.
_QUALIFIED_NAME = re.compile(r"^([A-Za-z][A-Za-z0-9_]{7,})\s*[(\[{<>=%]")


def alert_identifier(name: str) -> str | None:
    """The identifier of a qualified alert name (``MysqlTooManyConnections`` of
    ``MysqlTooManyConnections(>80%)``), case-folded; None for a plain name."""
    match = _QUALIFIED_NAME.match(name)
    return match.group(1).casefold() if match else None


def name_aliases(names: Sequence[str]) -> dict[str, list[str]]:
    """Another spelling -> the names it stands for: the identifier of a qualified alert name
    (``MysqlTooManyConnections`` -> ``MysqlTooManyConnections(>80%)``), unless a name is
    spelled that way itself."""
    spelled = {name.casefold() for name in names}
    aliases: dict[str, list[str]] = {}
    for name in names:
        match = _QUALIFIED_NAME.match(name)
        if match and match.group(1).casefold() not in spelled:
            aliases.setdefault(match.group(1), []).append(name)
    return aliases


# A service named with a numbered last part: an instance or a sample of it (kafka-0, web-01,
# Zookeeper_2k, db.3).
_NUMBERED_SERVICE = re.compile(r"(?P<base>[A-Za-z][\w-]*?[A-Za-z])[-_.][A-Za-z]*\d[A-Za-z0-9]*")


def service_aliases(names: Sequence[str]) -> dict[str, list[str]]:
    """Another spelling -> the services it stands for: a service named with a numbered last
    part by its base, as people say it (``kafka`` -> ``kafka-0``, ``kafka-1``; ``zookeeper`` ->
    ``Zookeeper_2k``), unless a service is spelled that way itself."""
    spelled = {name.casefold() for name in names}
    aliases: dict[str, list[str]] = {}
    for name in names:
        match = _NUMBERED_SERVICE.fullmatch(name)
        if match and len(match["base"]) >= 3 and match["base"].casefold() not in spelled:
            aliases.setdefault(match["base"], []).append(name)
    return aliases


def known_names(text: QuestionText, names: Sequence[str], aliases: dict[str, list[str]]) -> list[str]:
    """Names of ``names`` in the text (whole, case-insensitive), as spelled in ``names``, and
    the names an alias in the text stands for (``name_aliases``, ``service_aliases``)."""
    spans: list[tuple[int, int, str]] = []
    lowered = text.lowered
    for name in names:
        if name.strip():
            spans += [(m.start(), m.end(), name) for m in _whole(name).finditer(lowered)]
    for alias, meant in aliases.items():
        spans += [(m.start(), m.end(), name) for m in _whole_alias(alias).finditer(lowered)
                  for name in meant]
    found: list[str] = []
    taken: tuple[int, int] | None = None
    for start, end, name in sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]))):
        if (start, end) == taken or text.current[start:end].strip():
            found.append(name)  # one alias may stand for several names: all of them
            text.take(start, end)
            taken = (start, end)
    return unique(found)


def unknown_services(text: QuestionText, known_alerts: Sequence[str], named_known: bool,
                      wants_alerts: bool) -> list[str]:
    found: list[str] = []
    lowered = text.lowered
    for match in SERVICE_PATTERN.finditer(lowered):
        found.append(match.group(1))
        text.take(match.start(), match.end())
    lowered = text.lowered
    for pattern in (_HYPHENATED, *([_HOST_NAME] if wants_alerts else [])):
        for match in pattern.finditer(lowered):
            before, after = lowered[:match.start()], lowered[match.end():]
            if match.group(1) in HYPHENATED_WORDS:
                continue
            if _SUBJECT_AFTER.match(after) or _SUBJECT_BEFORE.search(before):
                found.append(match.group(1))
                text.take(match.start(), match.end())
        lowered = text.lowered
    lowered = text.lowered
    alerts = {name.casefold() for name in known_alerts}
    subject = None if named_known else _SUBJECT_WORD.search(lowered)
    if subject is not None:
        name = next(group for group in subject.groups() if group)
        start = subject.start() + subject.group(0).index(name)
        original = text.current[start:start + len(name)]
        if (name not in STOPWORDS and name not in NOT_SERVICE_WORDS and name not in alerts
                and not topics_in(name) and not concept_mentions(name)
                and name.upper() not in LEVELS_UPPER and not any(c.isupper() for c in original[1:])):
            found.append(name)
            text.take(start, start + len(name))
            lowered = text.lowered
    for match in _SERVICE_WORD.finditer(lowered):
        name = next(group for group in match.groups() if group)
        if name not in NOT_SERVICE_WORDS and name not in alerts and name not in CONCEPTS \
                and name not in STOPWORDS:
            found.append(name)
            start = match.start() + match.group(0).index(name)
            text.take(start, start + len(name))
    return unique(found)


def camel_names(text: QuestionText, wants_alerts: bool) -> tuple[list[str], list[str]]:
    """(alert names the data lacks, class/exception names to search) among CamelCase tokens."""
    alerts: list[str] = []
    terms: list[str] = []
    for match in _DOTTED_CLASS.finditer(text.current):
        terms.append(match.group(1))
        text.take(match.start(), match.end())
    for match in _CAMEL.finditer(text.current):
        name = match.group(1)
        if topics_in(name):
            continue  # a lexicon word (HikariCP, OutOfMemoryError): its topic is searched
        if _EXCEPTION_NAME.search(name) or not wants_alerts:
            terms.append(_singular(name))
        else:
            alerts.append(name)
        text.take(match.start(), match.end())
    return unique(alerts), unique(terms)


def _singular(name: str) -> str:
    """A class name as the logs write it: "Which DataNodes ...?" asks about ``DataNode`` lines
    (not ``HTTPStatus``, ``Process``, ``Analysis``: -us, -ss, -is are not plurals)."""
    if name.endswith("s") and not name.endswith(("ss", "us", "is")) and name[-2:-1].islower():
        return name[:-1]
    return name


def identifiers(text: QuestionText) -> list[str]:
    found: list[str] = []
    for match in _IDENTIFIER.finditer(text.current):
        token = _SUBNET_WILDCARD.sub("", match.group(1)).rstrip(".:/-")
        if len(token) >= 3 and not token.isalpha():
            found.append(token)
            text.take(match.start(), match.end())
    return unique(found)


def http_methods(text: QuestionText) -> list[str]:
    """HTTP methods written as such (``GET``), with the "requests" they name."""
    methods = []
    for match in _HTTP_METHOD.finditer(text.current):
        methods.append(match.group(1))
        text.take(match.start(), match.end())
    return methods


def hyphenated_names(text: QuestionText) -> list[str]:
    """Hyphenated names left in the question (not a service's, not in subject position), as
    written: in a question with nothing else to search, the thing it asks about."""
    names = []
    for match in _HYPHENATED.finditer(text.lowered):
        if match.group(1) not in HYPHENATED_WORDS:
            names.append(text.current[match.start(1):match.end(1)])
            text.take(match.start(), match.end())
    return names
