"""The role reader: each value of a text as (subject, role, value), in Chinese and English.

A claim does not only state numbers, it states what they are: ``当前值 91%`` is the current
value, ``阈值 85%`` / ``above the 85% threshold`` a threshold, ``已持续 15m`` / ``for 15 minutes``
a duration, ``10分钟内`` / ``within 10 minutes`` a window, ``3.8GB/4GB`` / ``3.8GB of 4GB``
used and total, ``86.2% → … → 91.0%`` / ``from 86.2% to 91.0%`` samples oldest first,
``15 次`` / ``GC次数: 128`` counts, ``平均耗时 850ms`` an average, ``最新一条出现在 11:17`` the
latest time. The role comes from the words next to the value (the closest cue before it, or
one right after it), never from where the value sits in a particular sentence; a value with no
cue is a plain ``value`` in a claim, the ``current`` value in an alert and a ``sample`` (at
the line's time) in a log line.

What a value is *of* -- its label (``内存使用率过高``, ``jvm heap``, ``current``) and the
topics the label names (memory, cpu, gc ...) -- and whose it is (the service named nearest
before it, in a claim; the ref's service, in evidence) are read too, so a value can be checked
for the right subject and attribute. Everything works on folded text (same offsets as the
original), so spans point into what the executor or the recorder wrote.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from core.contracts import AlertRefFields, GroupRefFields, LogRefFields, RefFields
from core.language.alternation import one_of
from core.language.clauses import clause_bounds
from core.language.cues import (
    ROLE_NAMES,
    Qualifier,
    Role,
    after_cue,
    counted,
    label_of,
    role_cue,
    says_now,
    statistic_of,
    time_qualifier,
    topics_of,
)
from core.language.lexicon import SERVICE_PATTERN, expand_topics, topics_in
from core.language.mentions import NO_ABOUT, About, ClaimMentions, canonical_level
from core.language.quantities import Quantity, TimePoint, Token, tokens
from core.language.text import fold
from core.lazypattern import LazyPattern
from core.verifier.legacy_refs import legacy_fields
from core.verifier.words import CLAIM_RELATIONS


@dataclass(frozen=True)
class RoleFact:
    """One value of a text, read with its role, what it measures and whose it is."""

    role: Role
    start: int                       # span of the value in the text read
    end: int
    cue_start: int                   # where the words stating it begin (its cue, else start)
    quantity: Quantity | None = None  # None for a time
    time: TimePoint | None = None    # the time itself (role time), else when it was observed
    qualifier: Qualifier | None = None  # for a time: the first or the latest one
    label: str = ""                  # what it measures, in the text's words
    topics: frozenset[str] = frozenset()
    subjects: frozenset[str] = frozenset()  # services it is about (empty: not known)
    trend: int | None = None
    order: int | None = None
    now: bool = False                # a claim states it as the value now ("当前", "is", "currently")
    stat: str = ""                   # the percentile it is (p99, p50), when its words name one
    about: About = NO_ABOUT          # claim: the lines it is stated for (core.language.mentions)
    after: str = ""                  # claim: the words right after it in its clause

    def shown(self) -> str:
        """``current 91%``, ``sample 86.2% at 11:05``, ``latest time 11:17``."""
        if self.quantity is None:
            qualifier = f"{self.qualifier} " if self.qualifier else ""
            return f"{qualifier}time {self.time.shown() if self.time else '?'}"
        at = f" at {self.time.shown()}" if self.time else ""
        return f"{ROLE_NAMES[self.role]} {self.quantity.shown()}{at}"


@dataclass(frozen=True)
class Reading:
    """What a text says, read: its role facts, subjects, levels and alert states."""

    facts: tuple[RoleFact, ...]
    subjects: frozenset[str]
    levels: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    kind: Literal["alert", "log", "text"] = "text"
    message: str = ""                # a log line's message, a group's template, an alert's text


# ---------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Context:
    """How to read values that carry no cue, and whose they are."""

    default_role: Role
    subjects: frozenset[str]          # for evidence: every fact's subjects
    evidence: bool = False            # evidence facts all belong to ``subjects``
    mentions: tuple[tuple[int, str], ...] = ()  # for claims: (position, service) in the text
    fallback_subjects: frozenset[str] = frozenset()
    observed_at: TimePoint | None = None
    base_topics: frozenset[str] = frozenset()


def _subjects_at(context: _Context, position: int) -> frozenset[str]:
    if context.evidence:
        return context.subjects
    before = [name for at, name in context.mentions if at < position]
    if before:
        return frozenset({before[-1]})
    return context.fallback_subjects


def _read(folded: str, offset: int, end: int, context: _Context) -> list[RoleFact]:
    """Role facts of ``folded[offset:end]`` (positions stay those of ``folded``)."""
    found = [token for token in tokens(folded[offset:end])]
    found = [replace(token, start=token.start + offset, end=token.end + offset) for token in found]
    facts: list[RoleFact] = []
    trend_heads: dict[int, RoleFact] = {}
    previous_end = offset
    for index, token in enumerate(found):
        clause_start, clause_end = clause_bounds(folded, token.start)
        if 0 < clause_start <= token.start and not folded[clause_start:token.start].strip() \
                and folded[clause_start - 1] in "(（[【":
            # "exceeds the threshold (85%)": the cue is just outside the parenthesis.
            clause_start = clause_bounds(folded, clause_start - 1)[0]
        window_start = max(clause_start, previous_end, offset)
        window = folded[window_start:token.start]
        next_start = found[index + 1].start if index + 1 < len(found) else end
        after_limit = min(clause_end, next_start, end)
        previous_end = token.end
        if token.kind == "time":
            facts.append(_time_fact(folded, token, window, window_start, after_limit, context))
            continue
        if token.trend is not None and token.order:
            head = trend_heads.get(token.trend)
            if head is not None:
                facts += _valued(token, head.role, token.start, head.label, head.topics, context)
            continue
        facts_here = _cued(folded, token, window, window_start, after_limit, found, index, context)
        if token.trend is not None and facts_here:
            trend_heads[token.trend] = facts_here[0]
        facts += facts_here
    return _pair_times(folded, _used_before_total(facts))


def _used_before_total(facts: list[RoleFact]) -> list[RoleFact]:
    """In ``3.8GB of 4GB`` the amount before a total is the used amount."""
    marked = list(facts)
    for index in range(1, len(marked)):
        fact, previous = marked[index], marked[index - 1]
        if (fact.role == "total" and previous.end < fact.start and previous.quantity is not None
                and previous.role in ("value", "current", "sample", "count")
                and fact.quantity is not None and previous.quantity.comparable(fact.quantity)):
            marked[index - 1] = replace(previous, role="used")
    return marked


def _time_fact(folded: str, token: Token, window: str, window_start: int, limit: int,
               context: _Context) -> RoleFact:
    qualifier = time_qualifier(folded, window, token.end, limit)
    if qualifier is None and not context.evidence and folded[:window_start].rstrip()[-1:] in _CLOSING_QUOTES:
        # "最新一条「X」出现在 11:17": the qualifier stands before the quoted line.
        qualifier = time_qualifier(folded, _across_quotes(folded, token.start), token.end, limit)
    return RoleFact("time", token.start, token.end, token.start, time=token.time,
                    qualifier=qualifier, subjects=_subjects_at(context, token.start))


_QUOTED_SPAN = re.compile(r"「[^」]*」|“[^”]*”|\"[^\"]*\"|『[^』]*』")
_CLOSING_QUOTES = "」”\"』"
_CLAUSE_END = LazyPattern(r"[，,；;。!?！？\n]")


def _across_quotes(folded: str, position: int) -> str:
    """The words of a clause before ``position``, quoted spans blanked out (a quote's commas
    and marks do not end the clause)."""
    before = _QUOTED_SPAN.sub(lambda match: " " * len(match.group()), folded[:position])
    cut = max((match.end() for match in _CLAUSE_END.finditer(before)), default=0)
    return before[cut:]


def _cued(folded: str, token: Token, window: str, window_start: int, after_limit: int,
          found: list[Token], index: int, context: _Context) -> list[RoleFact]:
    family = token.parts[0].family
    cue = role_cue(window, family)
    after = after_cue(folded, token.end, after_limit, family)
    role: Role
    cue_start = token.start
    label_window = window
    if after is not None:
        role = after
    elif cue is not None:
        role, cue_at = cue
        cue_start = window_start + cue_at
        label_window = window[:cue_at] + " " + window[cue_at:]
    elif family == "count" or counted(window):
        role = "count"
    else:
        role = context.default_role
    label = label_of(label_window)
    topics = topics_of(window) or context.base_topics
    now = token.trend is None and (role == "current" or says_now(window))
    if token.kind == "ratio" and len(token.parts) == 2 and role not in ("threshold",):
        used, total = token.parts
        first_role: Role = "used" if role in ("used", "total", "current", "value", "sample") else role
        subjects = _subjects_at(context, token.start)
        return [RoleFact(first_role, token.start, token.end, cue_start, used,
                         time=context.observed_at, label=label, topics=topics, subjects=subjects,
                         trend=token.trend, order=token.order, now=now),
                RoleFact("total", token.start, token.end, cue_start, total,
                         time=context.observed_at, label=label, topics=topics, subjects=subjects,
                         trend=token.trend, order=token.order)]
    if token.kind == "number" and _of_total(folded, token, found, index):
        role = "total"
    stat = statistic_of(window)
    return [replace(fact, now=now and fact.role not in ("total", "threshold"), stat=stat)
            for fact in _valued(token, role, cue_start, label, topics, context)]


# "3.8GB of 4GB", "3.8GB used of 4GB", "3.8GB of order-service's 4GB": what lies between a
# used amount and its total.
_OF_TOTAL = re.compile(r"\s*(?:(?:used|in use)\s+)?(?:(?:of|out of)(?:\s+(?:the|its|a|[\w\-]+'s))?|/|，共|"
                       r",\s*total)\s*")


def _of_total(folded: str, token: Token, found: list[Token], index: int) -> bool:
    """``3.8GB of 4GB`` / ``3.8GB out of 4GB``: the second amount is the total."""
    if index == 0:
        return False
    previous = found[index - 1]
    if previous.kind != "number" or not previous.parts[0].comparable(token.parts[0]):
        return False
    return bool(_OF_TOTAL.fullmatch(folded[previous.end:token.start]))


def _valued(token: Token, role: Role, cue_start: int, label: str, topics: frozenset[str],
            context: _Context) -> list[RoleFact]:
    if role == "sample" and token.trend is None and context.default_role != "sample":
        role = "value"
    if token.trend is not None and role in ("value", "current", "sample"):
        role = "sample"
    return [RoleFact(role, token.start, token.end, cue_start, part, time=context.observed_at,
                     label=label, topics=topics, subjects=_subjects_at(context, token.start),
                     trend=token.trend, order=token.order)
            for part in token.parts[:1]] + [
        RoleFact("total", token.start, token.end, cue_start, part, time=context.observed_at,
                 label=label, topics=topics, subjects=_subjects_at(context, token.start))
        for part in token.parts[1:2] if token.kind == "ratio"]


def _pair_times(folded: str, facts: list[RoleFact]) -> list[RoleFact]:
    """A value stated with a time of its own (``11:05 为 86.2%``, ``86.2% at 11:05``) is a
    sample at that time."""
    every_time = [fact for fact in facts if fact.role == "time"]
    times = [fact for fact in every_time if fact.qualifier is None]
    if not times:
        return facts
    paired: list[RoleFact] = []
    for fact in facts:
        if fact.quantity is None or fact.role not in ("value", "current", "sample", "used", "count"):
            paired.append(fact)
            continue
        bounds = clause_bounds(folded, fact.start)
        # One time in the clause names when the value was seen; a range of times does not.
        in_clause = [t for t in every_time if clause_bounds(folded, t.start) == bounds]
        same_clause = in_clause if len(in_clause) == 1 and in_clause[0].qualifier is None \
            and fact.trend is None else []
        adjacent = [t for t in times if re.fullmatch(r"[\s(（]*(?:at|于|在)?\s*",
                                                     folded[fact.end:t.start] if t.start >= fact.end else "x")]
        owner = same_clause[0] if len(same_clause) == 1 else (adjacent[0] if adjacent else None)
        if owner is None:
            paired.append(fact)
            continue
        role: Role = "sample" if fact.role in ("value", "current") else fact.role
        paired.append(replace(fact, role=role, time=owner.time, now=False))
    return paired


# ---------------------------------------------------------------- public readers


def service_mentions(folded: str, known: Iterable[str]) -> tuple[tuple[int, str], ...]:
    """(position, service) of every service named in a folded text: ``xxx-service`` tokens
    and any of ``known`` (``mysql``, ``kernel``, ``redis-cluster-01`` ...), whole words."""
    spans = [(m.start(1), m.group(1)) for m in SERVICE_PATTERN.finditer(folded)]
    for name in {fold(name) for name in known if name.strip()}:
        spans += [(m.start(), name) for m in re.finditer(
            rf"(?<![a-z0-9_\-]){re.escape(name)}(?![a-z0-9_]|-[a-z0-9])", folded)]
    return tuple(sorted(set(spans)))


def read_claim(text: str, *, known_subjects: Iterable[str], default_subjects: Iterable[str]) -> Reading:
    """The facts a claim states; a value belongs to the service named nearest before it."""
    return _read_claim(text, tuple(known_subjects), tuple(default_subjects))


# Pure in its arguments (given in their order) and a Reading is frozen: an eval states the same
# claims session after session.
@lru_cache(maxsize=2048)
def _read_claim(text: str, known_subjects: tuple[str, ...],
                default_subjects: tuple[str, ...]) -> Reading:
    folded = fold(text)
    mentions = service_mentions(folded, known_subjects)
    fallback = frozenset(fold(s) for s in default_subjects)
    context = _Context("value", frozenset(), mentions=mentions,
                       fallback_subjects=fallback if len(fallback) == 1 else frozenset())
    facts = _ranges(folded, _stated_now(folded, _fires_at(folded, _read(folded, 0, len(folded), context))))
    facts = _what_about(folded, facts, {name for _, name in mentions} | set(fallback))
    return Reading(tuple(facts), frozenset(name for _, name in mentions) | fallback)


# The name of the next value ("status: 503 len: 211"): not words about this one.
_NEXT_KEY = re.compile(r"[\w.\-]+\s*[:=：]\s*$")


_RANGE_JOIN = LazyPattern(rf"\s*(?:{one_of(CLAIM_RELATIONS.range_joins)})\s*")
_RANGE_OPEN = LazyPattern(rf"(?:{one_of(CLAIM_RELATIONS.range_openers)})\s*$")
_RANGE_CLOSE = re.compile(rf"\s*(?:{one_of(CLAIM_RELATIONS.range_closers)})")


def _ranges(folded: str, facts: list[RoleFact]) -> list[RoleFact]:
    """"between A and B", ``从 A 到 B``, ``A 与 B 之间``: A is the first time, B the latest."""
    marked = list(facts)
    for index in range(len(marked) - 1):
        first, last = marked[index], marked[index + 1]
        if first.role != "time" or last.role != "time" or first.end > last.start:
            continue
        if not _RANGE_JOIN.fullmatch(folded[first.end:last.start]):
            continue
        opened = _RANGE_OPEN.search(folded[max(0, first.start - 12):first.start].rstrip())
        if opened is None and not _RANGE_CLOSE.match(folded, last.end):
            continue
        marked[index] = replace(first, qualifier="first")
        marked[index + 1] = replace(last, qualifier="latest")
    return marked


def _what_about(folded: str, facts: list[RoleFact], services: set[str]) -> list[RoleFact]:
    """Each fact with the lines it is stated for (a quote, else the words around it) and the
    words right after it in its clause, up to the next value."""
    mentions = ClaimMentions(folded)
    starts = sorted({fact.start for fact in facts})
    marked = []
    for fact in facts:
        about = mentions.about(fact.start, ignore=services, values=starts)
        clause_end = mentions.clause(fact.start)[1]
        later = bisect_right(starts, fact.start)  # bisected: a long claim has many values
        following = min(starts[later], clause_end) if later < len(starts) else clause_end
        after = "" if mentions.inside_quote(fact.start) \
            else _NEXT_KEY.sub("", folded[fact.end:max(following, fact.end)])
        marked.append(replace(fact, about=about, after=after))
    return marked


_QUOTED = re.compile(r"「[^」]*」|“[^”]*”|\"[^\"]*\"|『[^』]*』")
_SENTENCE = re.compile(r"[。；;!?！？\n]|\.(?!\d)")


_FIRES_AT = re.compile(rf"(?<![a-z])(?:{one_of(CLAIM_RELATIONS.fires_at)}) at\s*$")


def _fires_at(folded: str, facts: list[RoleFact]) -> list[RoleFact]:
    """"fires at 85%" names an alert's threshold -- unless its sentence gives the threshold
    as well ("fires at 91% (limit 85%)", "fires at 91% against an 85% threshold"): then it is
    the value the alert fires at now."""
    sentence = _sentence_of(folded)

    def fires(fact: RoleFact) -> bool:
        return _FIRES_AT.search(folded[max(0, fact.start - 16):fact.start]) is not None
    # One pass, not facts x facts (a long claim was quadratic): the unit classes of the plain
    # thresholds ("limit 85%") of each sentence.
    named_classes: dict[int, set[str]] = {}
    firing: set[int] = set()
    for index, fact in enumerate(facts):
        if fact.role != "threshold" or fact.quantity is None:
            continue
        if fires(fact):
            firing.add(index)
        else:
            named_classes.setdefault(sentence(fact.start), set()).add(_unit_class(fact.quantity))
    return [replace(fact, role="current", now=True)
            if index in firing and fact.quantity is not None
            and _unit_class(fact.quantity) in named_classes.get(sentence(fact.start), set())
            else fact for index, fact in enumerate(facts)]


def _unit_class(quantity: Quantity) -> str:
    """Quantities of one class are ``comparable`` (a bare number counts as a count)."""
    return "count" if quantity.family == "plain" else quantity.family


def _sentence_of(folded: str) -> Callable[[int], int]:
    """The index of the sentence (``_SENTENCE``) a position lies in, by bisection."""
    breaks = [0, *(match.end() for match in _SENTENCE.finditer(folded)), len(folded) + 1]
    return lambda position: bisect_right(breaks, position) - 1


def _stated_now(folded: str, facts: list[RoleFact]) -> list[RoleFact]:
    """A lone measured value in a sentence, outside quotes, with no time and no trend, is stated
    as the value now ("memory usage 86.2% (threshold 85%)"): it must be the present one. A quoted
    line, a list or a trend of values, or a value with its time, is not."""
    quoted = [match.span() for match in _QUOTED.finditer(folded)]
    quote_starts = [start for start, _ in quoted]
    sentence = _sentence_of(folded)

    def in_quote(position: int) -> bool:
        at = bisect_right(quote_starts, position) - 1  # quotes do not overlap: the last before
        return at >= 0 and position < quoted[at][1]

    def loose_key(fact: RoleFact) -> tuple[int, str, str] | None:
        if (fact.role in ("value", "count", "used") and fact.quantity is not None
                and fact.trend is None and fact.time is None and not in_quote(fact.start)):
            return sentence(fact.start), fact.role, _unit_class(fact.quantity)
        return None
    # Counted once per (sentence, role, unit class), not facts x facts.
    keys = [loose_key(fact) for fact in facts]
    counts = Counter(key for key in keys if key is not None)
    return [replace(fact, now=True) if key is not None and counts[key] == 1 else fact
            for fact, key in zip(facts, keys, strict=True)]


# Readings of refs, by everything ``read_ref`` reads: an eval (and a repaired session) reads the
# same refs session after session. Bounded by dropping all at once: the entries are cheap to
# redo, and a dict is safe to share between the eval's worker threads.
_READINGS: dict[tuple[object, ...], Reading] = {}
_READINGS_HELD = 4096


def read_ref(text: str, fields: RefFields | None = None, *, argument_subjects: Iterable[str] = (),
             known_subjects: Iterable[str] = ()) -> Reading:
    """The facts of a ref the gatekeeper matched (``_read_ref``), read once per distinct ref."""
    arguments, known = tuple(argument_subjects), tuple(known_subjects)
    # A contract is not hashable; its fields are plain values, and its type tells kinds apart.
    shape = None if fields is None else (type(fields), *vars(fields).values())
    key = (text, shape, arguments, known)
    reading = _READINGS.get(key)
    if reading is None:
        if len(_READINGS) >= _READINGS_HELD:
            _READINGS.clear()
        reading = _READINGS[key] = _read_ref(text, fields, argument_subjects=arguments,
                                             known_subjects=known)
    return reading


def _read_ref(text: str, fields: RefFields | None = None, *, argument_subjects: Iterable[str] = (),
              known_subjects: Iterable[str] = ()) -> Reading:
    """The facts of a ref the gatekeeper matched: an alert, a log line, a log group, or other text.

    What the ref is (its kind, time, level, service, message or template, alert name and state)
    comes from its ``fields``; only its values are read from ``text``, where the fields' words
    are found (so spans point into the text quoted). A text without fields is read by its layout
    (``legacy_fields``). Alert values with no cue are the alert's current values; log values are
    samples at the line's time; every fact belongs to the ref's own service, the services it
    names and the services the invocation was filtered by.
    """
    if fields is None:
        fields = legacy_fields(text)
    folded = fold(text)
    arguments = frozenset(fold(s) for s in argument_subjects if s)
    if isinstance(fields, LogRefFields):
        return _read_log(text, folded, fields, arguments, known_subjects)
    named = frozenset(name for _, name in service_mentions(folded, known_subjects))
    if isinstance(fields, GroupRefFields):
        subjects = _own(fields.service) | named | arguments
        facts = _read(folded, 0, len(folded), _Context("value", subjects, evidence=True))
        return Reading(tuple(facts), subjects, levels=frozenset({_level(fields.level)}),
                       kind="log", message=fold(fields.template))
    if isinstance(fields, AlertRefFields):
        subjects = _own(fields.service) | named | arguments
        context = _Context("current", subjects, evidence=True,
                           base_topics=frozenset(topics_in(fields.alert_name)))
        facts = _read(folded, _after_head(text, fields), len(folded), context)
        return Reading(tuple(facts), subjects, states=frozenset({fields.state.lower()}),
                       levels=frozenset({_level(fields.severity)}) if fields.severity else frozenset(),
                       kind="alert", message=folded)
    subjects = named | arguments
    context = _Context("value", subjects, evidence=True)
    return Reading(tuple(_read(folded, 0, len(folded), context)), subjects)


def _read_log(text: str, folded: str, fields: LogRefFields, arguments: frozenset[str],
              known_subjects: Iterable[str]) -> Reading:
    start = _message_start(text, fields.message)
    stamp = tokens(fold(fields.timestamp))
    observed = stamp[0].time if stamp and stamp[0].kind == "time" else None
    named = frozenset(name for _, name in service_mentions(folded[start:], known_subjects))
    subjects = _own(fields.service) | named | arguments
    context = _Context("sample", subjects, evidence=True, observed_at=observed)
    facts = _read(folded, start, len(folded), context)
    stamp_at = text.find(fields.timestamp) if fields.timestamp else -1
    if observed is not None and stamp_at >= 0 and stamp_at + len(fields.timestamp) <= start:
        facts.insert(0, RoleFact("time", stamp_at, stamp_at + len(fields.timestamp), stamp_at,
                                 time=observed, subjects=subjects))
    return Reading(tuple(facts), subjects, levels=frozenset({_level(fields.level)}), kind="log",
                   message=folded[start:])


def _message_start(text: str, message: str) -> int:
    """Where a log line's message begins in its ref text (the whole text, if it is not there)."""
    if text.endswith(message):
        return len(text) - len(message)
    return max(text.find(message), 0)


def _after_head(text: str, fields: AlertRefFields) -> int:
    """Where an alert ref's text goes on after its name and state (0 when they are not there):
    the values that follow are the alert's."""
    name_at = text.find(fields.alert_name)
    if name_at < 0:
        return 0
    state_at = text.find(fields.state, name_at + len(fields.alert_name))
    return state_at + len(fields.state) if state_at >= 0 else 0


def _own(service: str) -> frozenset[str]:
    """A ref's own service, folded (none when the ref does not say)."""
    return frozenset({fold(service.strip())}) if service.strip() else frozenset()


def _level(word: str) -> str:
    return canonical_level(fold(word))


def argument_services(arguments: dict[str, object]) -> list[str]:
    """Services an invocation was filtered by (``service``, ``services``, ``service_name``)."""
    found: list[str] = []
    for key in ("service", "services", "service_name"):
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            found.append(value.strip())  # the tools strip it too
        elif isinstance(value, (list, tuple)):
            found += [str(item).strip() for item in value if str(item).strip()]
    return found


def topics_compatible(first: frozenset[str], second: frozenset[str]) -> bool:
    """Whether two values can measure the same thing (unknown topics are compatible)."""
    if not first or not second:
        return True
    return bool(set(expand_topics(first)) & set(expand_topics(second)))


__all__ = ["ROLE_NAMES", "Reading", "Role", "RoleFact", "argument_services", "read_claim",
           "read_ref", "service_mentions", "topics_compatible"]
