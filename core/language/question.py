"""Reading a question: what it names and which of its words are search terms.

A question is read left to right in passes; each pass blanks out what it took, so a word is
read once:

1. markup is dropped (``<script>…</script>``, tags): it is never a subject;
2. quoted phrases ("…", “…”, 「…」, 『…』, '…') are exact search terms;
3. services: the world's own (any shape, case-insensitive), then service-shaped tokens the
   world lacks (``billing-service``, ``kafka-broker 是否…``, "service X", "X 服务"; in a
   question about alerts also host names, ``for node-9``) -> unknown;
4. alerts: the world's alert names as it spells them; other CamelCase names said to be alerts
   (``TargetDown 告警``) -> alert names the data lacks (searched, and reported as unknown);
5. exception and class names (``NoRouteToHostException``, ``java.net.ConnectException``,
   ``QuorumCnxManager``) and identifiers (``blk_…``, ``appattempt_…``, ``req-…``, IPs,
   host:port, paths, hex ids) -> exact search terms;
6. the lexicon's topics, then the diagnosis concepts (``core.language.concepts``); mentions not joined by
   a conjunction ("会话过期", "因为内存超限被杀掉") form a compound: asked together;
7. in a question about alerts, the states it asks about (firing / 触发, pending, silenced /
   静默 / suppressed, resolved); then level words: ``ERROR``/``WARN``/``FATAL``/... written as
   levels, "warning", 警告, 致命 -> a minimum level;
8. what is left: English content words (stemmed) and Chinese words of ``TRANSLATIONS`` ->
   keywords, all of which a matching line must hold.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from core.language.chars import HAN_RUN
from core.language.concepts import CONCEPTS, TRANSLATIONS, concept_mentions, named_before_a_place
from core.language.lexicon import SERVICE_PATTERN, TOPICS, topic_mentions, topics_in
from core.language.segment import segment
from core.language.text import normalize
from core.lazypattern import LazyPattern

_MARKUP_BLOCK = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_MARKUP_TAG = re.compile(r"</?[A-Za-z!][^>]*>?")
_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|「([^」\n]+)」|『([^』\n]+)』|‘([^’\n]+)’'
                     r"|(?<![A-Za-z0-9])'([^'\n]+)'(?![A-Za-z0-9])")
_ALERT_WORDS = re.compile(r"告警|报警|警报|alerts?\b|alarms?\b|firing|触发", re.IGNORECASE)
# The state an alert question asks about, as Prometheus and Alertmanager name the states.
_ALERT_STATES = (
    ("firing", re.compile(r"\bfir(?:e|es|ed|ing)\b|\bactive\b|在触发|触发|正在告警", re.IGNORECASE)),
    ("pending", re.compile(r"\bpending\b|待触发|等待触发|挂起", re.IGNORECASE)),
    ("suppressed", re.compile(r"\bsilenc(?:e|ed|es|ing)\b|\bsuppress(?:ed|ion)?\b|\bmuted?\b|"
                              r"\binhibit(?:ed|ion)?\b|静默|屏蔽|抑制|被静音", re.IGNORECASE)),
    ("resolved", re.compile(r"\bresolved\b|已恢复|已解决", re.IGNORECASE)),
)
# A hyphenated lower-case name (kafka-broker, cassandra-db): a service when the question treats it
# as the subject (next to 是否/有没有/的/服务, or after for/in/on/of/from).
_HYPHENATED = re.compile(r"(?<![a-z0-9_\-./])([a-z][a-z0-9]+(?:-[a-z][a-z0-9]+)+)(?![a-z0-9_\-])")
# A host or instance name (node-9, web-01, kafka-0): in a question about alerts, in subject
# position, it names what the alerts are about, not a phrase to search log lines for.
_HOST_NAME = re.compile(r"(?<![a-z0-9_\-./:])([a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+[a-z0-9]*)(?![a-z0-9_\-.:/])")
_HYPHENATED_WORDS = frozenset({"non-heap", "read-only", "built-in", "e-mail", "time-out", "real-time",
                               "multi-thread", "single-thread", "out-of-memory", "re-try", "follow-up",
                               "set-up", "log-in", "sign-in", "up-to-date", "end-to-end", "on-call"})
_SUBJECT_AFTER = LazyPattern(r"^\s*(?:是否|有没有|有无|有|的|服务|service\b|pod\b|logs?\b|日志|告警|alerts?\b|"
                             r"上|里|中|在|当前|目前|最近|现在|是不是|会不会|出现|存在)")
_SUBJECT_BEFORE = LazyPattern(r"(?:\b(?:for|in|on|of|from|about|service|does|did|is|has|have|at)|服务|查)\s*$")
# "service X", "X service", "X 服务" with X a plain word: the question names a service.
_SERVICE_WORD = re.compile(r"\bthe\s+([a-z][a-z0-9]{2,})\s+service\b|\bservice\s+([a-z][a-z0-9]{2,})\b"
                           r"|([a-z][a-z0-9]{2,})\s*服务|服务\s*([a-z][a-z0-9]{2,})")
# A plain word as the grammatical subject: "Does nginx have …", "nginx 有没有 …".
_SUBJECT_WORD = LazyPattern(
    r"^\s*(?:does|did|is|has|have|was|can|could|will)\s+(?:the\s+)?([a-z][a-z0-9_]{2,})\s+"
    r"(?:have|has|had|log|logs|logged|show|shows|showed|report|reports|reported|see|saw|throw|"
    r"throws|threw|emit|emits|get|got|hit|run|fail|failing|failed|crash|crashing|crashed|restart|"
    r"restarting|restarted|any|still|ever)\b"
    r"|^\s*([a-z][a-z0-9_]{2,})\s*(?:是否|有没有|有无|的|有|出现|最近|当前|现在|是不是)")
_NOT_SERVICE_WORDS = frozenset({"the", "this", "that", "which", "what", "each", "every", "any", "some",
                                "your", "our", "my", "its", "web", "backend", "frontend", "down", "level",
                                "name", "account", "mesh", "discovery", "unavailable", "error", "errors"})
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
_LEVELS_UPPER = {"ERROR": "ERROR", "ERR": "ERROR", "WARN": "WARN", "WARNING": "WARN", "FATAL": "FATAL",
                 "CRITICAL": "CRITICAL", "SEVERE": "SEVERE", "INFO": "INFO", "DEBUG": "DEBUG",
                 "TRACE": "TRACE"}
_LEVEL_WORDS_ANY_CASE = {"warning": "WARN", "warnings": "WARN", "warn": "WARN", "fatal": "FATAL",
                         "severe": "SEVERE", "critical": "CRITICAL", "警告": "WARN", "致命": "FATAL",
                         "严重错误": "ERROR"}
_LEVEL_SUFFIX = LazyPattern(r"^\s*(?:级别|级|level|-level|logs?\b|lines?\b|messages?\b|entries\b|日志|记录)",
                            re.IGNORECASE)
_CONJUNCTION = LazyPattern(r"(?:、|,|，|/|和|与|及|以及|或者|或|还有|\band\b|\bor\b|\bplus\b)", re.IGNORECASE)
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# An HTTP method written as one ("GET requests", "failed POSTs"): what an access line holds (the
# lower-case word is a question word: "get", "put").
_HTTP_METHOD = LazyPattern(r"(?<![A-Za-z0-9_])(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)s?(?![A-Za-z0-9_])"
                          r"(?:\s+(?:requests?|calls?|请求))?")
# Asking for a duration, not words of a line: "how long did it take to spawn ...?".
_HOW_LONG = LazyPattern(r"\bhow\s+long\b(?:\s+(?:does|did|do|will|would|has|had|have|is|was)"
                       r"(?:\s+(?:it|this|that|they|these|those))?\s+(?:take|takes|took|taken|last|lasted))?",
                       re.IGNORECASE)

# Question words that are not what a log line says: grammar, asking, time, the words for logs.
STOPWORDS = frozenset("""
a an the and or of for in on at to from by with without into onto over under about as than then
is are was were be been being am do does did done doing has have had having will would shall
should can could may might must there here this that these those it its it's they them their we
our you your i me my he she his her who whom whose which what when where why how whether if
only just also still yet ever even any some all every each no not none nor but so such very
too much many more most less few own same other another confirm check verify show shows showed
find found search query look looking see seen saw get got give list tell please kindly current
currently now recent recently latest today yesterday lately ago past last time times day days
hour hours minute minutes log logs logged logging entry entries line lines message messages
record records recorded event events alert alerts alarm alarms service services happen happened
happening occur occurred occurring anything something nothing everything kind kinds sort type
types thing things related regarding report reported reports reporting mention mentioned
appear appears appeared happen exist exists existed existing present presence seem seems
does doesn't didn't isn't aren't wasn't weren't hasn't haven't don't level levels info debug
real really actually please thanks thank need needs want wants know tell like firing fire
fired fires trigger triggered triggering active raised raise open opened state status currently
its lot lots way ways yes okay ok high higher highest low lower lowest too large big small
many often frequent frequently usage rate count number amount value values percent itself
themselves right situation health healthy fine good bad normal overall general generally
whole entire full fully still around across within between since until after before during
while because due cause caused causing reason why problem
first earliest oldest newest common commonest typical usual top say says said runbook runbooks else
go goes going went gone anywhere everywhere somewhere compare compared comparing comparison versus vs
unique distinct different various mean means meaning explain ip ips address addresses
""".split())  # noqa: SIM905 -- a word list reads best as text
# Chinese question words that are no search term: asking, grammar, the words for logs.
_CHINESE_FILLER = frozenset((
    "是否存在", "是否有", "是否", "存在", "有没有", "有无", "当前", "目前", "现在", "最近", "日志", "告警",
    "相关", "有关", "查询", "查看", "查找", "搜索", "确认", "只确认", "只排查", "只看", "请", "排查",
    "一下", "的", "了", "吗", "呢", "和", "或", "与", "及", "以及", "情况", "记录", "信息", "出现",
    "发生", "哪些", "什么", "为什么", "怎么", "如何", "应该", "可以", "需要", "哪个", "所有", "全部",
    "这一件事", "这件事", "一件事", "不要", "分析", "服务", "级别", "在", "有", "没有", "被", "因为",
    "由于", "是", "个", "条", "次", "过", "还", "中", "里", "上", "下", "吧", "啊", "么", "就", "都",
    "仍", "仍然", "还在", "正在", "已经", "掉", "到", "把", "让", "给", "从", "对", "将", "会"))


@dataclass
class QuestionReading:
    """What a question names and searches for (see the module doc)."""

    text: str
    services: list[str] = field(default_factory=list)
    unknown_services: list[str] = field(default_factory=list)
    alert_names: list[str] = field(default_factory=list)
    unknown_alerts: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    concepts: list[str] = field(default_factory=list)
    compounds: list[list[str]] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    keywords: list[list[str]] = field(default_factory=list)
    level: str | None = None
    wants_alerts: bool = False
    alert_states: list[str] = field(default_factory=list)

    @property
    def searchable(self) -> bool:
        """Whether anything in the question can be searched (keywords alone are not enough:
        "qwerty zxcv" is not a question about the data)."""
        subjects = bool(self.services or self.alert_names or self.topics or self.concepts
                        or self.terms or self.level)
        return subjects or (self.wants_alerts and not self.unknown_services)


_HEALTH = re.compile(r"\b(?:healthy|health|ok|okay|fine|normal|normally|stable|alright)\b|"
                     r"(?<![不非])正常|健康|稳定|运行良好", re.IGNORECASE)


def asks_about_health(question: str) -> bool:
    """Whether the question asks if something is well ("Is X healthy?", "X 正常吗？"): what
    answers it is the trouble found, or its verified absence."""
    return _HEALTH.search(question) is not None


# A 5xx code asked about as an HTTP status: in the plural ("502s"), before errors/responses
# ("503 errors", "502 错误"), after http/status/code/return ("returned 504", "状态码 500").
_HTTP_STATUS = re.compile(
    r"(?<![\w.\-/:])(5\d\d)(?:s(?![a-z0-9])|(?=\s*(?:errors?|responses?|status|codes?)(?![a-z])|\s*(?:错误|响应|报错)))"
    r"|(?<![a-z])(?:https?|status|code|return|returns|returned|returning)\s*[:=]?\s*(?:any\s+|an?\s+)?(5\d\d)"
    r"(?![\w.])"
    r"|(?:状态码|返回码|返回)\s*(5\d\d)(?![\w.])", re.IGNORECASE)


def http_statuses(question: str) -> set[str]:
    """The 5xx codes a question asks about as HTTP statuses ("Were there any 502s?"), not as
    other numbers ("slower than 500 ms"): searched first where the lines say them as a status
    (``topic=http_error``: an access log's status, "HTTP 502", "status: 502")."""
    return {next(group for group in match.groups() if group) for match in _HTTP_STATUS.finditer(question)}


def strip_markup(question: str) -> str:
    """The question without HTML/XML markup (scripts and styles with their content)."""
    return _MARKUP_TAG.sub(" ", _MARKUP_BLOCK.sub(" ", question))


class _Text:
    """The question in NFKC form, with what earlier passes took blanked out."""

    def __init__(self, question: str) -> None:
        self.original = unicodedata.normalize("NFKC", question)
        self.chars = list(self.original)

    @property
    def current(self) -> str:
        return "".join(self.chars)

    @property
    def lowered(self) -> str:
        return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in self.chars)

    def take(self, start: int, end: int) -> None:
        self.chars[start:end] = " " * (end - start)


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(value for value in values if value))


def _whole(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9_\-]){re.escape(normalize(name))}(?![a-z0-9_])")


def _whole_alias(alias: str) -> re.Pattern[str]:
    """An alias as a name of its own: not the start of a longer name (``node`` in ``node-7``
    is not the alias of ``node-1``)."""
    return re.compile(rf"(?<![a-z0-9_.\-]){re.escape(normalize(alias))}(?![a-z0-9_]|[-.][a-z0-9])")


def _quoted(text: _Text) -> list[str]:
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


def _known_names(text: _Text, names: Sequence[str], aliases: dict[str, list[str]]) -> list[str]:
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
    return _unique(found)


def _unknown_services(text: _Text, known_alerts: Sequence[str], named_known: bool,
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
            if match.group(1) in _HYPHENATED_WORDS:
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
        if (name not in STOPWORDS and name not in _NOT_SERVICE_WORDS and name not in alerts
                and not topics_in(name) and not concept_mentions(name)
                and name.upper() not in _LEVELS_UPPER and not any(c.isupper() for c in original[1:])):
            found.append(name)
            text.take(start, start + len(name))
            lowered = text.lowered
    for match in _SERVICE_WORD.finditer(lowered):
        name = next(group for group in match.groups() if group)
        if name not in _NOT_SERVICE_WORDS and name not in alerts and name not in CONCEPTS \
                and name not in STOPWORDS:
            found.append(name)
            start = match.start() + match.group(0).index(name)
            text.take(start, start + len(name))
    return _unique(found)


def _camel_names(text: _Text, wants_alerts: bool) -> tuple[list[str], list[str]]:
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
    return _unique(alerts), _unique(terms)


def _singular(name: str) -> str:
    """A class name as the logs write it: "Which DataNodes ...?" asks about ``DataNode`` lines
    (not ``HTTPStatus``, ``Process``, ``Analysis``: -us, -ss, -is are not plurals)."""
    if name.endswith("s") and not name.endswith(("ss", "us", "is")) and name[-2:-1].islower():
        return name[:-1]
    return name


def _identifiers(text: _Text) -> list[str]:
    found: list[str] = []
    for match in _IDENTIFIER.finditer(text.current):
        token = _SUBNET_WILDCARD.sub("", match.group(1)).rstrip(".:/-")
        if len(token) >= 3 and not token.isalpha():
            found.append(token)
            text.take(match.start(), match.end())
    return _unique(found)


def _conjoined(text: str, first_end: int, second_start: int) -> bool:
    """Whether two mentions are joined by a conjunction (asked as separate subjects)."""
    return _CONJUNCTION.search(text, first_end, max(first_end, second_start)) is not None


def _before_a_name(text: _Text, end: int) -> bool:
    """Whether the next word after ``end`` is a name an earlier pass took (a service, an alert,
    a quoted term): blank now, written in the original."""
    at = len(text.original) - len(text.original[end:].lstrip())
    return at < len(text.chars) and text.chars[at] == " "


class _Dictionary(NamedTuple):
    """The Chinese words a question is read by (``_han_dictionary``)."""

    words: frozenset[str]   # every one: the names and the filler
    names: frozenset[str]   # topic and concept names, translated words (a name that is also filler)
    filler: frozenset[str]  # asking and grammar, not a conjunction (it tells two subjects apart)
    longest: int


@lru_cache(maxsize=1)
def _han_dictionary() -> _Dictionary:
    names = {word for topic in TOPICS.values() for word in (*topic.synonyms, *topic.asks)}
    names |= {word for concept in CONCEPTS.values() for word in concept.asks}
    names = {word for word in names if HAN_RUN.fullmatch(word)} | set(TRANSLATIONS)
    words = frozenset(names | _CHINESE_FILLER)
    filler = frozenset(word for word in _CHINESE_FILLER - names if not _CONJUNCTION.fullmatch(word))
    return _Dictionary(words, frozenset(words - filler), filler, max(map(len, words)))


def _blank_filler(text: _Text) -> None:
    """Blank the filler words of the question's Chinese runs that a name would be read across,
    where the best reading of the run has them (``core.language.segment``): 请确认证书 is
    请|确认|证书, so no 认证 (login) is read across 确认 and 证书. Other filler stays, for the
    readers that need it (最后一次登录: a login that happened)."""
    dictionary = _han_dictionary()
    for run in HAN_RUN.finditer(text.current):
        chars = run.group()
        for start, end in segment(chars, dictionary.words, dictionary.longest):
            if chars[start:end] in dictionary.filler and _straddled(chars, start, end, dictionary):
                text.take(run.start() + start, run.start() + end)


def _straddled(chars: str, start: int, end: int, dictionary: _Dictionary) -> bool:
    """Whether a name in ``chars`` runs across a boundary of ``[start, end)``."""
    for first in range(max(0, start - dictionary.longest + 1), end):
        for last in range(first + 2, min(len(chars), first + dictionary.longest) + 1):
            inside = start <= first and last <= end
            if not inside and last > start and chars[first:last] in dictionary.names:
                return True
    return False


def _subjects(text: _Text) -> tuple[list[str], list[str], list[list[str]]]:
    """(lexicon topics, concepts, compounds) -- mentions in order; adjacent ones without a
    conjunction between them form a compound (qualifiers only qualify, they join none)."""
    _blank_filler(text)
    lowered = text.lowered
    mentions: list[tuple[int, int, str, bool]] = []  # start, end, name, is_topic
    for mention in topic_mentions(lowered):
        mentions.append((mention.start, mention.end, mention.topic, True))
        text.take(mention.start, mention.end)
    lowered = text.lowered
    for concept_mention in concept_mentions(lowered):
        if _before_a_name(text, concept_mention.end) and not named_before_a_place(lowered, concept_mention):
            continue  # "an ERROR log in zookeeper": "in" the service, not a login
        mentions.append((concept_mention.start, concept_mention.end, concept_mention.concept, False))
        text.take(concept_mention.start, concept_mention.end)
    mentions.sort()
    topics = _unique(name for _, _, name, is_topic in mentions if is_topic)
    concepts = _unique(name for _, _, name, is_topic in mentions if not is_topic)
    subjects = [m for m in mentions if m[3] or not CONCEPTS[m[2]].qualifier]
    compounds: list[list[str]] = []
    group: list[tuple[int, int, str, bool]] = []
    for subject in subjects:
        if group and not _conjoined(lowered, group[-1][1], subject[0]):
            group.append(subject)
            continue
        if len(group) > 1:
            compounds.append(_unique(name for _, _, name, _ in group))
        group = [subject]
    if len(group) > 1:
        compounds.append(_unique(name for _, _, name, _ in group))
    # Two lexicon topics side by side stay two subjects (the demo world's questions ask them one
    # by one); a compound needs a concept.
    return topics, concepts, [c for c in compounds if len(c) > 1 and any(m in CONCEPTS for m in c)]


def _alert_states(text: _Text) -> list[str]:
    """The alert states a question about alerts asks for (``is X firing?``, 静默的告警)."""
    found: list[tuple[int, str]] = []
    for state, pattern in _ALERT_STATES:
        for match in pattern.finditer(text.current):
            found.append((match.start(), state))
            text.take(match.start(), match.end())
    return _unique(state for _, state in sorted(found))


def _level(text: _Text) -> str | None:
    """The minimum level the question asks for, if it writes one as a level."""
    found: list[str] = []
    for match in _ASCII_WORD.finditer(text.current):
        word = match.group()
        after = text.current[match.end():]
        if word in _LEVELS_UPPER and (word.isupper() or _LEVEL_SUFFIX.match(after)):
            found.append(_LEVELS_UPPER[word])
            text.take(match.start(), match.end())
        elif word.upper() in _LEVELS_UPPER and _LEVEL_SUFFIX.match(after):
            found.append(_LEVELS_UPPER[word.upper()])
            text.take(match.start(), match.end())
    lowered = text.lowered
    for word, level in _LEVEL_WORDS_ANY_CASE.items():
        for match in re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered):
            found.append(level)
            text.take(match.start(), match.end())
    return found[0] if found else None


def stem(word: str) -> str:
    """A crude English stem, searched as a substring: "finished" -> "finish", "tasks" -> "task",
    "terminating" -> "terminat". Short words stay whole."""
    lowered = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= 4:
            return lowered[: -len(suffix)]
    return lowered


def _keywords(text: _Text) -> list[list[str]]:
    keywords: list[list[str]] = []
    for match in _ASCII_WORD.finditer(text.current):
        word = match.group()
        lowered = word.lower()
        if lowered in STOPWORDS or (len(word) < 3 and not word.isupper()) or len(word) < 2:
            continue
        keywords.append([stem(word)])
    dictionary = _han_dictionary()
    for run in HAN_RUN.findall(text.current):
        for start, end in segment(run, dictionary.words, dictionary.longest):
            stems = TRANSLATIONS.get(run[start:end])
            if stems:
                keywords.append(list(stems))
    unique: dict[tuple[str, ...], None] = {}
    for keyword in keywords:
        unique.setdefault(tuple(keyword), None)
    return [list(keyword) for keyword in unique]


def read_question(question: str, *, services: Sequence[str] = (),
                  alert_names: Sequence[str] = ()) -> QuestionReading:
    """Read ``question`` against the world's services and alert names (see the module doc)."""
    text = _Text(strip_markup(question))
    reading = QuestionReading(text=" ".join(text.original.split()))
    reading.wants_alerts = _ALERT_WORDS.search(text.original) is not None
    reading.terms = _quoted(text)
    reading.services = _known_names(text, sorted(services, key=len, reverse=True), service_aliases(services))
    reading.alert_names = _known_names(text, sorted(alert_names, key=len, reverse=True), name_aliases(alert_names))
    reading.unknown_services = [s for s in _unknown_services(text, alert_names, bool(reading.services),
                                                             reading.wants_alerts)
                                if s.casefold() not in {k.casefold() for k in services}]
    unknown_alerts, class_names = _camel_names(text, reading.wants_alerts)
    reading.unknown_alerts = unknown_alerts
    if reading.wants_alerts or reading.alert_names or reading.unknown_alerts:
        reading.alert_states = _alert_states(text)
    reading.level = _level(text)
    reading.topics, reading.concepts, reading.compounds = _subjects(text)
    reading.terms = _unique([*reading.terms, *class_names, *_identifiers(text), *_http_methods(text)])
    if not reading.searchable:  # "What happened to bank-gateway?": the name is what to look for
        reading.terms = _unique([*reading.terms, *_hyphenated_names(text)])
    for match in _HOW_LONG.finditer(text.current):
        text.take(match.start(), match.end())
    reading.keywords = _keywords(text)
    return reading


def _http_methods(text: _Text) -> list[str]:
    """HTTP methods written as such (``GET``), with the "requests" they name."""
    methods = []
    for match in _HTTP_METHOD.finditer(text.current):
        methods.append(match.group(1))
        text.take(match.start(), match.end())
    return methods


def _hyphenated_names(text: _Text) -> list[str]:
    """Hyphenated names left in the question (not a service's, not in subject position), as
    written: in a question with nothing else to search, the thing it asks about."""
    names = []
    for match in _HYPHENATED.finditer(text.lowered):
        if match.group(1) not in _HYPHENATED_WORDS:
            names.append(text.current[match.start(1):match.end(1)])
            text.take(match.start(), match.end())
    return names
