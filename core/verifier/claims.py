"""Judging one claim against what the gatekeeper verified (the always-on claim policy).

Per claim, only bindings that PASSED the gatekeeper count; each is read through its excerpt,
the ref it was matched against and its invocation's arguments (``core.verifier.evidence``):

- required fields: ``claim_type`` and every binding's ``tool_name`` (seed: 必填);
- every value and time holds in its role, for its subject (``core.verifier.support``);
- every identifier, state or level word is in the evidence; a negation needs a negated
  evidence text;
- every sentence of the claim says something its evidence says (content words or topic);
  one that only a runbook says is runbook text stated as fact;
- runbook text (``lookup_knowledge``) never supports a claim about current state: a claim
  backed only by runbooks states runbook content as fact, or -- when the runbook holds none
  of its values -- has no verified evidence (its citation is what is wrong);
- a cause (``root_cause`` / ``risk`` claims, or words such as leak / 根因 / 导致 in any claim)
  needs an excerpt that states it;
- a negative observation is entailed by a passed negative check of the invocation that
  returned nothing; any sentence of it that is not the absence itself must be what the no-hit
  queries say (a cause or a runbook sentence appended to "nothing found" is not);
- a claim about an excluded subject, or outside the plan's services (or, for a narrow
  question, its topics), fails ``verifier.scope``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from core.contracts import Claim, ClaimResult, FactSupport, Plan

# A quote in a claim is judged exactly as the gatekeeper judges an excerpt: its rule, reused.
from core.language.alternation import one_of
from core.language.clauses import clauses, content_units, stems, with_state_words
from core.language.concepts import CONCEPTS, concept_mentions, concepts_held
from core.language.facts import EN_NEGATIONS, FACT_WORDS
from core.language.lexicon import declared_topics, expand_topics, topic_mentions, topics_in
from core.language.marks import canonical_mark, negation_marks
from core.language.quotes import match_excerpt
from core.language.renderings import rendered_units
from core.language.subjects import excluded_mentions, services_mentioned, subjects_excluded, topics_in_scope
from core.language.text import fold, normalize, normalize_text
from core.tools.args import TOPIC_ARGS, UNIT_ARGS, argument_values
from core.verifier import facts, polarity, quantifiers
from core.verifier.attribution import held_levels, misattributed
from core.verifier.evidence import Evidence, Item, passed_items
from core.verifier.marks import marked_text
from core.verifier.relations import held_directions, relations
from core.verifier.roles import read_claim
from core.verifier.rules import (
    HIDDEN_MARKS,
    MISSING_FIELD,
    NO_EVIDENCE,
    RUNBOOK_AS_FACT,
    SCOPE,
    UNSUPPORTED_FACT,
    UNSUPPORTED_ROOT_CAUSE,
    most_serious,
)
from core.verifier.subjects import borrowed_subjects
from core.verifier.support import align, align_subjects
from core.verifier.words import CLAIM_RELATIONS, whole

# Diagnosis words: a claim may only use them when a verified excerpt does.
_DIAGNOSIS_RE = re.compile(one_of(CLAIM_RELATIONS.diagnosis_words), re.IGNORECASE)
_CAUSAL_RE = re.compile(one_of(CLAIM_RELATIONS.causal_words), re.IGNORECASE)


def _zh_negation(word: str) -> str:
    """A Chinese negation, not where the characters after it make it another word (非常 "very",
    不断 "continually")."""
    after = CLAIM_RELATIONS.not_negation_before.get(word)
    return re.escape(word) + (f"(?![{re.escape(after)}])" if after else "")


# Negation in any language the evidence may be written in (English contractions end in "n't";
# "unreachable" is one, as 不可达 is).
_NEGATION_RE = re.compile("|".join(map(_zh_negation, sorted(FACT_WORDS.zh_negations, key=len, reverse=True)))
                          + "|n't|" + whole([*EN_NEGATIONS, *CLAIM_RELATIONS.negative_adjectives]))
_PAIR_RENDERINGS = polarity.renderings()
# A sentence is grounded when at least this share of its content units is in the evidence.
_GROUNDED_SHARE = 0.5


class Failures:
    """Reasons a claim failed, by rule."""

    def __init__(self) -> None:
        self.by_rule: dict[str, list[str]] = {}

    def add(self, rule: str, reason: str) -> None:
        """Record one reason under ``rule``."""
        self.by_rule.setdefault(rule, []).append(reason)

    def result(self, claim: Claim, supports: Sequence[FactSupport], passed_reason: str) -> ClaimResult:
        """The claim's result: entailed with ``passed_reason``, or failed by its most serious rule."""
        base = {"claim_id": claim.claim_id, "claim_type": claim.claim_type,
                "claim_text": claim.claim_text, "supports": list(supports)}
        rule = most_serious(set(self.by_rule))
        if rule is None:
            return ClaimResult(**base, entailed=True, reasons=[passed_reason])
        ordered = _ordered(self.by_rule)
        reasons = [reason for name in ordered for reason in self.by_rule[name]]
        return ClaimResult(**base, entailed=False, reasons=reasons, rule=rule, rules=ordered)


def _ordered(by_rule: dict[str, list[str]]) -> list[str]:
    names = set(by_rule)
    ordered: list[str] = []
    while names:
        first = most_serious(names)
        if first is None:
            ordered += sorted(names)
            break
        ordered.append(first)
        names.discard(first)
    return ordered


def judge_claim(claim: Claim, evidence: Evidence, plan: Plan,
                allowed_services: set[str] | None) -> ClaimResult:
    """One claim's judgement, with every reason it failed (or how it passed)."""
    failures = Failures()
    _judge_fields(claim, failures)
    items = evidence.for_claim(claim.claim_id)
    for reason in marked_text(claim.claim_text, [text for item in items for text in item.texts()]):
        failures.add(HIDDEN_MARKS, reason)
    supports: list[FactSupport] = []
    if claim.claim_type == "negative_observation":
        _judge_negative(claim, items, failures)
    else:
        supports = _judge_positive(claim, items, evidence, failures)
    support = len(passed_items(items)) or len([i for i in items if i.negative])
    if not plan.services and not support:
        # The services allowed beyond the plan's are those the evidence ties to its alert names;
        # a claim with no verified evidence cannot be placed in or out of them (it fails anyway).
        allowed_services = None
    _judge_scope(claim, plan, allowed_services, failures)
    return failures.result(claim, supports, f"every fact holds in its role in the {support} "
                                            "verified binding(s)")


def _judge_fields(claim: Claim, failures: Failures) -> None:
    if claim.claim_type is None:
        failures.add(MISSING_FIELD, "claim_type is required (必填) and missing")
    for index, binding in enumerate(claim.evidence_bindings):
        if not binding.tool_name:
            failures.add(MISSING_FIELD, f"binding {index}: tool_name is required (必填) and missing")


def _judge_negative(claim: Claim, items: list[Item], failures: Failures) -> None:
    negative = [item for item in items if item.negative]
    if not negative:
        failures.add(NO_EVIDENCE, "no verified no-hit invocation backs this negative observation")
        return
    # The gatekeeper does not compare a negative excerpt with anything; what it verified is
    # the invocation itself, which ``matched_text`` describes (tool, arguments, empty result).
    described = [text for item in negative for text in item.texts()]
    searched = set(expand_topics(declared_topics(
        value for item in negative
        for value in argument_values(item.arguments, TOPIC_ARGS + UNIT_ARGS))))
    # "HikariCP" in "没有 HikariCP 连接池耗尽的日志" is covered by a topic=connection_pool query:
    # that topic searched every line about it, synonyms included.
    gaps = [gap for gap in facts.missing(claim.claim_text, described, negations=False)
            if not _searched_topic(gap, searched)]
    if gaps:
        failures.add(UNSUPPORTED_FACT, "not in the verified no-hit queries: " + ", ".join(gaps))
    # Anything the claim says besides the absence is a statement about the present, which a
    # query that found nothing cannot support ("…；慢 SQL 或锁等待导致连接被长期占用。"): each such
    # sentence must be what the queries themselves say (the gatekeeper's description of each
    # query and its arguments -- never the model's own excerpt, which nothing checked).
    queries = [text for item in negative for text in (item.text, _arguments_text(item)) if text]
    folded = fold(claim.claim_text)
    absences = [(start, end) for start, end in clauses(folded)
                if _NEGATION_RE.search(folded[start:end])]
    _judge_sentences(claim, queries, [], failures, supported=absences)
    _judge_diagnosis(claim, queries, failures)


def _searched_topic(gap: str, searched: set[str]) -> bool:
    """Whether a missing identifier or number names only topics the no-hit queries searched
    ("5xx" of "HTTP 5xx 错误", the http_error topic's own label, under ``topic=http_error``)."""
    found = re.fullmatch(r"identifier '(.+)'|number (\S+)", gap)
    named = topics_in(found.group(1) or found.group(2)) if found else []
    return bool(named) and set(named) <= searched


def _arguments_text(item: Item) -> str:
    return ", ".join(f"{key}={value}" for key, value in item.arguments.items())


def _judge_positive(claim: Claim, items: list[Item], evidence: Evidence,
                    failures: Failures) -> list[FactSupport]:
    current = passed_items(items)
    runbooks = evidence.runbooks()
    if not current:
        cited = [text for item in items if item.runbook for text in item.texts()]
        if cited and _states_runbook(claim, cited):
            failures.add(RUNBOOK_AS_FACT, "only runbook text supports this claim, and the claim "
                                          "says what the runbook says; runbooks are never "
                                          "evidence of current state")
        elif cited:
            # "CPU 使用率目前为 92%" cited to a runbook section: the runbook is not its source
            # (it holds none of its values), the citation is what is wrong.
            failures.add(NO_EVIDENCE, "its only verified bindings cite runbook text "
                                      "(lookup_knowledge), which is never evidence of current "
                                      "state, and the runbook does not state its values either; "
                                      "cite the tool output that shows them")
        else:
            failures.add(NO_EVIDENCE, "no binding of this claim passed the gatekeeper")
        _judge_diagnosis(claim, [], failures)
        return []
    reading = read_claim(claim.claim_text,
                         known_subjects=evidence.known_subjects | set(claim.subject_services),
                         default_subjects=claim.subject_services)
    alignment = align(claim.claim_text, reading, current, runbooks, evidence)
    for finding in [*alignment.findings, *misattributed(
            claim.claim_text, current, evidence.known_subjects | set(claim.subject_services),
            claim.subject_services), *relations(claim.claim_text, reading, current),
            *borrowed_subjects(claim.claim_text, evidence.known_subjects | set(claim.subject_services), current)]:
        failures.add(finding.rule, finding.reason)
    texts = [text for item in current for text in item.texts()]
    for finding in polarity.findings(_outside_quotes(claim.claim_text),
                                     [text for item in current for text in (item.excerpt, item.text) if text],
                                     texts, [item.text for item in current]):
        failures.add(finding.rule, finding.reason)
    _judge_named_facts(claim, texts, [text for item in runbooks for text in item.texts()], failures)
    known_states = set().union(*(facts.extract(text).states for text in texts))
    _judge_sentences(claim, texts, [item.text for item in runbooks], failures, refs=[item.text for item in current],
                     supported=[*(s.claim_span for s in alignment.supports),
                                *held_directions(claim.claim_text, reading, current),
                                *held_levels(claim.claim_text, current, evidence.known_subjects
                                             | set(claim.subject_services), claim.subject_services),
                                *((start, end) for state, start, end in facts.zh_state_spans(claim.claim_text)
                                  if state in known_states)])
    _judge_diagnosis(claim, [item.excerpt for item in current] + [item.text for item in current],
                     failures)
    known = evidence.known_subjects | set(claim.subject_services)
    return [*align_subjects(claim.claim_text, known, current), *alignment.supports]


def _states_runbook(claim: Claim, runbook_texts: list[str]) -> bool:
    """Whether a claim backed only by runbook text says what that text says: it states no
    value the runbook does not hold (a claim of current state carries its values)."""
    gaps = facts.missing(claim.claim_text, runbook_texts, negations=False)
    return not any(gap.startswith("number ") for gap in gaps)


def _judge_named_facts(claim: Claim, texts: list[str], runbook_texts: list[str],
                       failures: Failures) -> None:
    """Identifiers and state words must be in the evidence; a negation needs a negated text."""
    gaps = [gap for gap in facts.missing(claim.claim_text, texts, negations=False)
            if not gap.startswith("number ")]
    if gaps:
        in_runbooks = set(gaps) - set(facts.missing(claim.claim_text, runbook_texts, negations=False)) \
            if runbook_texts else set()
        if in_runbooks:
            failures.add(RUNBOOK_AS_FACT, "stated only by runbook text: " + ", ".join(sorted(in_runbooks)))
        failures.add(UNSUPPORTED_FACT, "not in any verified excerpt or ref: " + ", ".join(gaps))
    # Each negation the claim states in its own words must be one its evidence states: "does
    # not have a firing alert" is not supported by "No space left on device", nor "不存在 …
    # 记录" by "Connection is not available" (quotes are judged as quotes, below).
    own_words = fold(_outside_quotes(claim.claim_text))
    negated = list(dict.fromkeys([*(_negation_marker(match) for match in _NEGATION_RE.findall(own_words)),
                                  *_marks_of(own_words)]))
    evidence_negations = {_negation_marker(match) for text in texts for match in _NEGATION_RE.findall(fold(text))}
    evidence_negations.update(mark for text in texts for mark in _marks_of(fold(text)))
    # One that says a state the evidence says in other words (尚未恢复 of a firing alert) is held.
    # So is one a zero value says (没有空闲连接 of idle=0).
    written = _outside_quotes(claim.claim_text)
    borne_out = {_negation_marker(word) for word in [*polarity.borne_out_negations(written, texts),
                                                     *quantifiers.zero_negations(written, texts)]}
    unsupported = [word for word in negated if word not in evidence_negations | borne_out]
    if unsupported:
        failures.add(UNSUPPORTED_FACT, "negation '" + "', '".join(unsupported)
                     + "' is in no verified excerpt or ref")
    for quote in _quoted_spans(claim.claim_text):
        # Texts holding the quote as written are tried first: the others need the fuzzy
        # alignment (slower, and ~10 ms of imports the first time), which a found quote skips.
        if not any(match_excerpt(quote, text).ok for text in sorted(texts, key=lambda text: quote not in text)):
            failures.add(UNSUPPORTED_FACT, f"the quoted text '{quote}' is not what any verified "
                                           "excerpt or ref says")


# Quoted text in a claim: 「…」, “…”, "…" (a quote of a log line or a search term).
_QUOTE_RE = re.compile(r"「([^「」]*)」|“([^“”]*)”|\"([^\"]*)\"")
# A quote this short is a term, not a sentence (its facts are checked as named facts).
_MIN_QUOTE_CHARS = 8


def _outside_quotes(text: str) -> str:
    return _QUOTE_RE.sub(" ", text)


def _quoted_spans(text: str) -> list[str]:
    """Quotes of the claim, each a quote of one line -- a trend the claim put together from
    several lines (``内存使用率过高: 86.2% → 87.4% → 91.0%, GC次数: 128``) in its pieces --,
    those long enough to be more than a term."""
    quotes = [next(group for group in match.groups() if group is not None) for match in _QUOTE_RE.finditer(text)]
    pieces = [piece.strip() for quote in quotes for piece in quote.split("→")]
    return [piece for piece in pieces if len(piece) >= _MIN_QUOTE_CHARS]


def _marks_of(text: str) -> list[str]:
    """Negation marks before words (``!firing``, ``¬firing``, ``service≠x``, ``ns<>prod``), one
    spelling each: a mark denies the word as "not" does."""
    return [canonical_mark(mark) for mark in negation_marks(text)]


def _negation_marker(word: str) -> str:
    """One spelling per negation: "n't" is "not", "没" is "没有"."""
    return CLAIM_RELATIONS.negation_spellings.get(word, word)


def _judge_sentences(claim: Claim, texts: list[str], runbook_texts: list[str],
                     failures: Failures, *, supported: list[tuple[int, int]], refs: Sequence[str] = ()) -> None:
    """Each sentence must say something its evidence says: its content words, or its topics.

    A sentence with a supported value -- or a direction word its numbers bear out, a level
    word its lines have, an alert state (in Chinese) its alert is in -- is grounded by it.
    Runbook sentences appended to a real claim ("…；数据库慢查询或锁等待。") are neither, and are
    named as runbook text when a runbook of the session says them.
    """
    folded = fold(claim.claim_text)
    # Per text, then per set of units (cached): an eval asks of the same lines session after session.
    held: set[str] = set()
    evidence_units: set[str] = set()
    for text in texts:
        text_held, stemmed = _text_units(text)
        held |= text_held
        evidence_units |= stemmed
    evidence_units |= stems(with_state_words(held) - held)
    # A Chinese claim of English lines: the Chinese words the lines hold in translation.
    evidence_units |= _rendered(frozenset(evidence_units))
    # Quantifiers the evidence bears out say what it says: "plenty" of idle=40 of 50, 没有 of
    # idle=0, 全部四个 of four pods' lines.
    evidence_units |= stems(set().union(*(content_units(fold(word)) for word in quantifiers.borne_out(
        _outside_quotes(claim.claim_text), texts, refs))))
    evidence_topics = set(expand_topics(topic for text in texts for topic in topics_in(text)))
    evidence_concepts = set().union(*(concepts_held(text) for text in texts)) if texts else set()
    runbook_units = [stems(content_units(fold(text))) for text in runbook_texts]
    for start, end in clauses(folded):
        if any(start <= s_start and s_end <= end for s_start, s_end in supported):
            continue
        sentence = folded[start:end]
        units = stems(content_units(sentence))
        if len(units) < 2:
            continue
        if len(units & evidence_units) >= _GROUNDED_SHARE * len(units):
            continue
        if _grounded_by_labels(sentence, evidence_units, evidence_topics, evidence_concepts):
            continue
        shown = claim.claim_text[start:end].strip()
        if any(len(units & rb) >= _GROUNDED_SHARE * len(units) for rb in runbook_units):
            failures.add(RUNBOOK_AS_FACT, f"'{shown}' is runbook text, not evidence of current state")
        else:
            failures.add(UNSUPPORTED_FACT, f"'{shown}' is said by no verified excerpt or ref")


@lru_cache(maxsize=8192)
def _text_units(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A cited text's content units, and their stems (a pure function of the text)."""
    units = content_units(fold(text))
    return frozenset(units), frozenset(stems(units))


@lru_cache(maxsize=1024)
def _rendered(evidence_units: frozenset[str]) -> frozenset[str]:
    """``rendered_units`` of a set of evidence units, with the antonym pairs' renderings."""
    return frozenset(rendered_units(set(evidence_units), _PAIR_RENDERINGS))


def _grounded_by_labels(sentence: str, evidence_units: set[str], evidence_topics: set[str],
                        evidence_concepts: set[str]) -> bool:
    """A sentence that names, in its own words, the topics (core.language.lexicon) or diagnosis concepts
    (core.language.concepts) its evidence is about ("数据库连接池相关记录", "连接异常相关的记录" over English
    lines) -- and says nothing else the evidence does not: what is left once those labels are
    taken out must be grounded like any sentence ("slow SQL or lock waits hold connections"
    names a topic the evidence is not about; "持续的高 CPU 会让请求排队" adds a claim of its own)."""
    normalized = normalize(sentence)
    topics = topic_mentions(normalized)
    named = concept_mentions(normalized)
    concepts = {m.concept for m in named if not CONCEPTS[m.concept].qualifier} or {m.concept for m in named}
    if not topics and not concepts:
        return False
    if not {m.topic for m in topics} <= evidence_topics or not concepts <= evidence_concepts:
        return False
    rest = list(normalized)
    for start, end in [(m.start, m.end) for m in topics] + [(m.start, m.end) for m in named]:
        rest[start:end] = " " * (end - start)
    left = stems(content_units(fold("".join(rest))))
    return len(left) < 2 or len(left & evidence_units) >= _GROUNDED_SHARE * len(left)


def _judge_diagnosis(claim: Claim, texts: list[str], failures: Failures) -> None:
    evidence_text = " | ".join(facts.prepare(text) for text in texts)
    unsupported = [word for word in _diagnosis_words(claim.claim_text) if word not in evidence_text]
    if unsupported:
        failures.add(UNSUPPORTED_ROOT_CAUSE,
                     "no verified excerpt states " + ", ".join(repr(w) for w in unsupported))
    if claim.claim_type in ("root_cause", "risk") and not _CAUSAL_RE.search(evidence_text):
        failures.add(UNSUPPORTED_ROOT_CAUSE,
                     f"a {claim.claim_type} claim needs an excerpt that states the cause; "
                     "the verified excerpts only show symptoms")


def _diagnosis_words(text: str) -> list[str]:
    return list(dict.fromkeys(normalize_text(m.group()) for m in _DIAGNOSIS_RE.finditer(text)))


def _judge_scope(claim: Claim, plan: Plan, allowed_services: set[str] | None,
                 failures: Failures) -> None:
    excluded = excluded_mentions(claim.claim_text, plan.exclusions) + subjects_excluded(
        claim.subject_services, claim.subject_topics, plan.exclusions)
    if excluded:
        failures.add(SCOPE, "mentions excluded subject(s): " + ", ".join(dict.fromkeys(excluded)))
    if allowed_services is not None:
        # What the claim is about: its declared subjects, else the services its text names.
        # (A quoted line may name other services -- "oom-kill ... in container order-service"
        # -- without the claim being about them; excluded ones are caught above regardless.)
        services = claim.subject_services or services_mentioned(claim.claim_text)
        outside = [s for s in dict.fromkeys(services) if s not in allowed_services]
        if outside:
            failures.add(SCOPE, "about service(s) the question did not ask about: " + ", ".join(outside))
    if plan.narrow and plan.topics:
        in_scope = topics_in_scope(plan.topics)
        outside_topics = [t for t in declared_topics(claim.subject_topics) if t not in in_scope]
        if outside_topics:
            failures.add(SCOPE, "about topic(s) outside the narrow question: " + ", ".join(outside_topics))
