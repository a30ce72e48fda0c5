"""Aligning a claim's values and times with its evidence, role by role.

A value of a claim is supported only by an evidence value that is equal (``91.0%`` == ``91%``,
``15m`` == ``15 分钟``), in a role that can say what the claim says, for the same subject and
attribute:

========== ==========================================================================
claim role evidence roles that support it
========== ==========================================================================
current    current, value, sample, used, count -- and the evidence value is the present one
           (an alert's, or the newest sample of its series: an old sample is not current)
value      any role but a limit (threshold, total): a bare number is a measured value
sample     sample, current, value, used, count (a trend's samples in time order, oldest first)
threshold  threshold             used   used       total   total
duration   duration              window window     period  window, duration
count      count, value, sample, current            average average
========== ==========================================================================

A claim's time (``11:17``) must be a time of its evidence; ``最新 / latest`` the newest of
them, ``最早 / first`` the oldest. A value stated with a time (``11:05 为 86.2%``) must be a
sample at that time. Each alignment is recorded (which binding, which span of its matched
ref); each failure says what the evidence gives instead.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from core.contracts import FactSupport
from core.language.alternation import one_of
from core.language.clauses import clause_bounds, content_units
from core.language.cues import counted_kinds
from core.language.mentions import fits, overlap, quotes
from core.language.quantities import Quantity
from core.language.text import fold
from core.verifier import quantifiers
from core.verifier.evidence import Evidence, Item
from core.verifier.roles import ROLE_NAMES, Reading, Role, RoleFact, service_mentions, topics_compatible
from core.verifier.rules import RUNBOOK_AS_FACT, UNSUPPORTED_FACT, WRONG_ROLE, VerifierRuleName
from core.verifier.wording import unsupported_wording
from core.verifier.words import CLAIM_RELATIONS, whole

_SUPPORTING: dict[Role, frozenset[Role]] = {
    "current": frozenset({"current", "value", "sample", "used", "count"}),
    "value": frozenset({"current", "value", "sample", "used", "count", "duration", "window",
                        "period", "average"}),
    "sample": frozenset({"sample", "current", "value", "used", "count"}),
    "threshold": frozenset({"threshold"}),
    "used": frozenset({"used"}),
    "total": frozenset({"total"}),
    "duration": frozenset({"duration"}),
    "window": frozenset({"window"}),
    "period": frozenset({"window", "duration", "period"}),
    "count": frozenset({"count", "value", "sample", "current"}),
    "average": frozenset({"average"}),
}


@dataclass(frozen=True)
class Finding:
    """A fact of the claim that is not supported, and the rule it breaks."""

    rule: VerifierRuleName
    reason: str


@dataclass(frozen=True)
class Alignment:
    """Supports of the claim's values and times, and what could not be supported."""

    supports: tuple[FactSupport, ...]
    findings: tuple[Finding, ...]


def _words(text: str, fact: RoleFact) -> str:
    return text[fact.cue_start:fact.end]


def _subjects_ok(claim: RoleFact, evidence: RoleFact) -> bool:
    return not claim.subjects or not evidence.subjects or bool(claim.subjects & evidence.subjects)


class Lines:
    """Which of a claim's items each of its facts may rest on: the lines it quotes (a log
    group whose template, a line whose message fits the quote), else -- for a count or a
    time -- the lines whose message shares words with the clause stating it. A quote or
    words that fit none of the claim's lines do not narrow anything (the sentence checks
    judge them)."""

    def __init__(self, items: Sequence[Item], services: set[str]) -> None:
        self.items = [item for item in items if item.reading.message]
        self.services = services
        self._about: dict[str, bool] = {}
        self._near: dict[str, bool] = {}

    def _quote_used(self, about: str) -> bool:
        if about not in self._about:
            self._about[about] = any(fits(about, item.reading.message) for item in self.items)
        return self._about[about]

    def _near_used(self, near: str) -> bool:
        if near not in self._near:
            self._near[near] = any(overlap(near, item.reading.message, ignore=self.services)
                                   for item in self.items)
        return self._near[near]

    def fit(self, fact: RoleFact, item: Item) -> bool:
        """Whether ``item`` holds the lines ``fact`` is stated for."""
        message = item.reading.message
        if not message:
            return True
        about = fact.about
        if about.quote and self._quote_used(about.quote):
            return fits(about.quote, message)
        if fact.role in ("count", "time") or fact.qualifier:
            words = next((near for near in about.words if self._near_used(near)), None)
            if words is not None:
                return overlap(words, message, ignore=self.services) > 0
        if about.sentence_quote and self._quote_used(about.sentence_quote):
            return fits(about.sentence_quote, message)
        if fact.qualifier and about.claim_quote and self._quote_used(about.claim_quote):
            return fits(about.claim_quote, message)
        return True


def _problem(claim: RoleFact, evidence: RoleFact, ledger: Evidence, item: Item | None = None,
             lines: Lines | None = None) -> str:
    """Why ``evidence`` (equal in value) does not support ``claim`` ('' when it does)."""
    if evidence.role not in _SUPPORTING[claim.role]:
        return f"the evidence gives it as the {ROLE_NAMES[evidence.role]}"
    if not _subjects_ok(claim, evidence):
        return f"the evidence gives it for {', '.join(sorted(evidence.subjects))}"
    if claim.stat and claim.stat != evidence.stat:
        given = f"the {evidence.stat.upper()}" if evidence.stat else "one measurement, not a percentile"
        return f"the evidence gives it as {given}, not the {claim.stat.upper()}"
    conflict = "" if item is None else (_label_conflict(claim, evidence, item)
                                        or _kind_conflict(claim, evidence, item))
    if conflict:
        return conflict
    if item is not None and lines is not None and not lines.fit(claim, item):
        return f"the evidence gives it for other lines ('{_short(item.reading.message)}')"
    if not topics_compatible(claim.topics, evidence.topics):
        return (f"the evidence's value measures {', '.join(sorted(evidence.topics))}, "
                f"not {', '.join(sorted(claim.topics))}")
    if claim.time is not None and (evidence.time is None or not claim.time.matches(evidence.time)):
        when = evidence.time.shown() if evidence.time else "no time"
        return f"the evidence has it at {when}, not at {claim.time.shown()}"
    if (claim.now or claim.role == "current") and not ledger.is_now(evidence):
        when = evidence.time.shown() if evidence.time else "?"
        return f"the evidence has it as an older sample ({when}), not the latest value"
    return ""


def _key(label: str) -> str:
    """What a value of a ref is called: the last name in its label (``active`` of ``HikariCP
    pool stats: active``)."""
    return re.split(r"[:=,;，：；]", label)[-1].strip()


def _label_conflict(claim: RoleFact, evidence: RoleFact, item: Item) -> str:
    """A claim value whose words name another value of the same ref: ``50/50 idle
    connections`` where the ref says ``active=50/50, idle=0``; "already tried 10 times" where it
    says ``Already tried 0 time(s) ... maxRetries=10``."""
    if claim.quantity is None:
        return ""
    words = f" {claim.label} {claim.after} "
    own = _key(evidence.label)
    if own and (_names(words, own) or (claim.label.strip() and claim.label.strip() in own)):
        return ""
    for other in item.reading.facts:
        key = _key(other.label)
        if not content_units(key) or key == own or other.quantity is None \
                or other.quantity.same_value(claim.quantity):
            continue  # a name that says nothing ("time", "status") names no other value
        if _names(words, key):
            return (f"the evidence calls it '{own or evidence.label or ROLE_NAMES[evidence.role]}'; "
                    f"its '{key}' is {other.quantity.shown()}")
    return ""


def _kind_conflict(claim: RoleFact, evidence: RoleFact, item: Item) -> str:
    """A count said of one kind of thing the evidence counts another kind of: "245 processes"
    for ``active threads=245``, "12 warnings" for 12 ERROR lines. What the evidence counts is
    named by its value's label and its line (a line's level only for a count of lines: a WARN
    line's ``pending=17`` counts no warnings)."""
    if claim.quantity is None or claim.quantity.family not in ("count", "plain"):
        return ""
    said = counted_kinds(f"{claim.quantity.unit} {claim.after[:24]}")
    if not said:
        return ""
    given = counted_kinds(fold(f"{evidence.label} {item.reading.message or item.text}"))
    if evidence.role == "count":
        given |= counted_kinds(" ".join(item.reading.levels))
    if not given or said & given:
        return ""
    return f"the evidence counts {', '.join(sorted(given))}, not {', '.join(sorted(said))}"


def _names(words: str, key: str) -> bool:
    return _name_pattern(key).search(words) is not None


@lru_cache(maxsize=4096)  # a ref's value names, asked of every claim value
def _name_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9_\-]){re.escape(key)}(?![a-z0-9_])")


def _short(message: str) -> str:
    return message if len(message) <= 60 else message[:57] + "..."


def _support(text: str, claim: RoleFact, item: Item, evidence: RoleFact) -> FactSupport:
    start, end = evidence.cue_start, evidence.end
    return FactSupport(fact=_words(text, claim), role=claim.role,
                       claim_span=(claim.cue_start, claim.end), binding_index=item.binding_index,
                       source="excerpt" if item.quotes(evidence.start, evidence.end) else "ref",
                       span=(start, end), evidence=item.text[start:end])


def align(text: str, reading: Reading, items: Sequence[Item], runbooks: Sequence[Item],
          ledger: Evidence) -> Alignment:
    """Support every value and time of ``reading`` (the claim ``text`` read) from ``items``."""
    supports: list[FactSupport] = []
    findings: list[Finding] = []
    chosen: dict[int, list[tuple[RoleFact, list[RoleFact]]]] = {}
    lines = Lines(items, set(reading.subjects))
    searched = _searched_terms(text, items)
    # "all 3 pods" citing three pods' lines: the count is held by the bindings themselves.
    counted = quantifiers.counted_members(text, [item.text for item in items])
    for fact in reading.facts:
        if any(start <= fact.start < end for start, end in counted):
            continue
        term = next((pair for span, pair in searched.items() if span[0] <= fact.start < span[1]), None)
        if term is not None:  # 'lines with "10.251"': the search's own term, not a measured value
            item, rendered = term
            supports.append(FactSupport(fact=_words(text, fact), role=fact.role,
                                        claim_span=(fact.cue_start, fact.end), binding_index=item.binding_index,
                                        source="arguments", span=(0, len(rendered)), evidence=rendered))
            continue
        if fact.quantity is None:
            support, finding = _align_time(text, fact, items, lines)
        else:
            support, finding, fitting = _align_value(text, fact, items, runbooks, ledger, lines)
            if fact.trend is not None and fitting:
                chosen.setdefault(fact.trend, []).append((fact, fitting))
        if support is not None:
            supports.append(support)
        if finding is not None:
            findings.append(finding)
    for members in chosen.values():
        finding = _trend_order(text, members, ledger)
        if finding is not None:
            findings.append(finding)
    findings += _rates(text, reading, items)
    findings += [Finding(UNSUPPORTED_FACT, reason) for reason in unsupported_wording(
        text, [part for item in items for part in item.texts()])]
    return Alignment(tuple(supports), tuple(findings))


# What names a search's term in a claim: 'lines with "X"', 'matching "X"', '与「X」相关', '包含「X」'.
_SEARCH_LABEL = re.compile("(?:" + "|".join(rf"\b{word}" if word.isascii() else word for word in map(
    re.escape, sorted(CLAIM_RELATIONS.search_labels, key=len, reverse=True))) + r")\s*$")

_LONGEST_LABEL = max(map(len, CLAIM_RELATIONS.search_labels))


def _searched_terms(text: str, items: Sequence[Item]) -> dict[tuple[int, int], tuple[Item, str]]:
    """The claim's quotes that are exactly a term a cited search was made with (its ``terms``
    or ``query``) and are named as one ('lines with "10.251"'), by span: a value inside one says
    what was searched for, not a value measured."""
    folded = fold(text)
    found: dict[tuple[int, int], tuple[Item, str]] = {}
    for quote in quotes(folded):
        # The label ends right before the quote (``\s*$``): look back only over the spaces and
        # the longest label (a search from 0 for each quote made a long claim quadratic).
        label_end = quote.start
        while label_end > 0 and folded[label_end - 1].isspace():
            label_end -= 1
        if not _SEARCH_LABEL.search(folded, max(0, label_end - _LONGEST_LABEL), quote.start):
            continue  # a quoted value stated as a value is checked as one
        for item in items:
            for key in ("terms", "query"):
                value = item.arguments.get(key)
                searched = value if isinstance(value, list) else [value] if isinstance(value, str) else []
                if any(fold(str(term)).strip() == quote.text for term in searched):
                    found.setdefault((quote.start, quote.end), (item, f"{key}={value}"))
    return found


# A ref that gives a time with no unit under a name that says it is one ("time: 30.0021"):
# seconds, the unit such logs write.
_TIMED_NAME = re.compile(whole(CLAIM_RELATIONS.timed_names_en) + "|" + one_of(CLAIM_RELATIONS.timed_names_zh))


def _same(claimed: Quantity, evidence: RoleFact) -> bool:
    """Whether an evidence value equals a claimed one (``30.0021 秒`` equals ``time: 30.0021``)."""
    given = evidence.quantity
    if given is None:
        return False
    if given.same_value(claimed) or _fraction_of(claimed, given) or _fraction_of(given, claimed):
        return True
    return (given.family == "plain" and claimed.family == "time" and claimed.base == claimed.number
            and given.number == claimed.number and _TIMED_NAME.search(_key(evidence.label)) is not None)


def _fraction_of(fraction: Quantity, percent: Quantity) -> bool:
    """``0.92`` for ``92%``: a bare fraction of one is the same share as its percentage."""
    return (fraction.family == "plain" and not fraction.unit and 0 < fraction.number <= 1
            and percent.family == "percent" and abs(fraction.number * 100 - percent.number) <= 1e-6)


def _align_value(text: str, fact: RoleFact, items: Sequence[Item], runbooks: Sequence[Item],
                 ledger: Evidence, lines: Lines) -> tuple[FactSupport | None, Finding | None, list[RoleFact]]:
    assert fact.quantity is not None
    equal = [(item, evidence) for item in items for evidence in item.reading.facts
             if _same(fact.quantity, evidence)]
    # The support is the first fitting value an excerpt quotes, else the first fitting one; a
    # value of a trend needs every fitting one (its order is checked), any other only that one:
    # ``_problem`` is the costly part, asked of as few pairs as that takes.
    ordered = sorted(equal, key=lambda pair: not pair[0].quotes(pair[1].start, pair[1].end))
    candidates = ((item, evidence) for item, evidence in ordered
                  if not _problem(fact, evidence, ledger, item, lines))
    fitting = list(candidates) if fact.trend is not None else list(itertools.islice(candidates, 1))
    words = _words(text, fact)
    if fitting:
        item, evidence = fitting[0]
        return _support(text, fact, item, evidence), None, [e for _, e in fitting]
    if equal:
        item, evidence = equal[0]
        return None, Finding(WRONG_ROLE, (
            f"'{words}' is stated as the {ROLE_NAMES[fact.role]}"
            f"{' for ' + ', '.join(sorted(fact.subjects)) if fact.subjects else ''}; "
            f"{_problem(fact, evidence, ledger, item, lines)} (binding {item.binding_index}: "
            f"'{item.text[evidence.cue_start:evidence.end]}')")), []
    in_runbook = any(evidence.quantity is not None and evidence.quantity.same_value(fact.quantity)
                     for item in runbooks for evidence in item.reading.facts)
    if in_runbook:
        return None, Finding(RUNBOOK_AS_FACT, f"'{words}' is stated only by runbook text"), []
    return None, Finding(UNSUPPORTED_FACT,
                         f"'{words}': {fact.quantity.shown()} is in no verified excerpt or ref"), []


def _align_time(text: str, fact: RoleFact, items: Sequence[Item],
                lines: Lines) -> tuple[FactSupport | None, Finding | None]:
    assert fact.time is not None
    times = [(item, evidence) for item in items for evidence in item.reading.facts
             if evidence.role == "time" and evidence.time is not None and _subjects_ok(fact, evidence)
             and lines.fit(fact, item)]
    words = _words(text, fact)
    matching = [(item, evidence) for item, evidence in times
                if evidence.time is not None and fact.time.matches(evidence.time)]
    if not matching:
        return None, Finding(UNSUPPORTED_FACT, f"time '{words}' is in no verified excerpt or ref")
    if fact.qualifier is not None:
        # A log group's own first / latest time is what "lines like X between A and B" states.
        own = [(item, evidence) for item, evidence in matching if evidence.qualifier == fact.qualifier]
        if own:
            return _support(text, fact, *own[0]), None
        # A line's time is its timestamp: a bare date in its message (a URL's /2013-10-17/)
        # is neither the first nor the latest time of the lines.
        times = [pair for pair in times if pair[1].time is not None and pair[1].time.hour is not None] or times
        ordered = sorted(times, key=lambda pair: pair[1].time.key() if pair[1].time else ("",))
        edge = ordered[-1] if fact.qualifier == "latest" else ordered[0]
        edge_time = edge[1].time
        if edge_time is None or not fact.time.matches(edge_time):
            shown = edge_time.shown() if edge_time else "?"
            return None, Finding(WRONG_ROLE, f"'{words}' is stated as the {fact.qualifier} time; "
                                             f"the {fact.qualifier} time of the evidence is {shown}")
        matching = [edge]
    item, evidence = matching[0]
    return _support(text, fact, item, evidence), None


def align_subjects(text: str, known: set[str], items: Sequence[Item]) -> list[FactSupport]:
    """Whose the claim's facts are: each service it names, where its evidence says so -- the
    quoted excerpt, the rest of the matched ref (a log line's prefix), or the query's argument."""
    folded = fold(text)
    supports: list[FactSupport] = []
    for position, name in dict((name, (position, name)) for position, name in
                               service_mentions(folded, known)).values():
        pattern = re.compile(rf"(?<![a-z0-9_\-]){re.escape(name)}(?![a-z0-9_]|-[a-z0-9])")
        found = _subject_support(pattern, items)
        if found is None:
            continue
        item, source, span, evidence = found
        supports.append(FactSupport(fact=text[position:position + len(name)], role="subject",
                                    claim_span=(position, position + len(name)),
                                    binding_index=item.binding_index, source=source, span=span,
                                    evidence=evidence))
    return supports


Source = Literal["excerpt", "ref", "arguments"]


def _subject_support(pattern: re.Pattern[str],
                     items: Sequence[Item]) -> tuple[Item, Source, tuple[int, int], str] | None:
    ranked: list[tuple[int, tuple[Item, Source, tuple[int, int], str]]] = []
    for item in items:
        for match in pattern.finditer(fold(item.text)):
            source: Source = "excerpt" if item.quotes(match.start(), match.end()) else "ref"
            ranked.append((0 if source == "excerpt" else 1,
                           (item, source, match.span(), item.text[match.start():match.end()])))
        for key, value in item.arguments.items():
            rendered = f"{key}={value}"
            in_argument = pattern.search(fold(rendered))
            if in_argument is not None:
                ranked.append((2, (item, "arguments", in_argument.span(), rendered)))
    return min(ranked, key=lambda pair: pair[0])[1] if ranked else None


_PRESENT = ("\uffff", 99, 99, 99)  # after every sample: the value now (an alert's current)


def _trend_order(text: str, members: list[tuple[RoleFact, list[RoleFact]]],
                 ledger: Evidence) -> Finding | None:
    """A trend's samples must be supportable by samples in time order, oldest first. A value
    with no time is the present one when the evidence gives it as such (an alert's current
    value), so it comes after every sample; otherwise it fits anywhere."""
    members.sort(key=lambda member: member[0].order or 0)
    floor: tuple[str, int, int, int] | None = None
    for fact, candidates in members:
        timed = sorted(c.time.key() for c in candidates if c.time is not None)
        present = any(c.time is None and c.role == "current" and ledger.is_now(c) for c in candidates)
        if not timed and not present:
            continue  # a value with no time fits anywhere
        later = [key for key in [*timed, *([_PRESENT] if present else [])] if floor is None or key >= floor]
        if not later:
            return Finding(WRONG_ROLE, f"the trend is not in time order: '{_words(text, fact)}' is "
                                       "older than the sample before it")
        floor = later[0]
    return None


def _rates(text: str, reading: Reading, items: Sequence[Item]) -> list[Finding]:
    """A count stated within a window (``10分钟内 15 次``, "15 times in 10 minutes") is one
    observation: some evidence ref must give both, the count within that window."""
    folded = fold(text)
    findings: list[Finding] = []
    for count in reading.facts:
        if count.role != "count" or count.quantity is None or count.trend is not None:
            continue
        bounds = clause_bounds(folded, count.start)
        windows = [fact for fact in reading.facts if fact.role in ("window", "period")
                   and fact.quantity is not None and clause_bounds(folded, fact.start) == bounds]
        for window in windows:
            assert window.quantity is not None
            together = [item for item in items if _holds(item, count) and _holds(item, window)]
            if not together and any(_holds(item, count) for item in items) \
                    and any(_holds(item, window) for item in items):
                findings.append(Finding(WRONG_ROLE, (
                    f"'{_words(text, count)}' is stated within '{_words(text, window)}'; no "
                    "evidence ref gives that count within that window")))
    return findings


def _holds(item: Item, fact: RoleFact) -> bool:
    assert fact.quantity is not None
    return any(evidence.quantity is not None and evidence.quantity.same_value(fact.quantity)
               and evidence.role in _SUPPORTING[fact.role] for evidence in item.reading.facts)
