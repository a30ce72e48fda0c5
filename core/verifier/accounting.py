"""What became of each term of the question: the third proof, that the answer answers it.

The gatekeeper proves each citation real, the verifier each claim entailed; neither proves that
the answer is about what was asked. Here every term of the reading (``reading.question_terms``)
gets its fate from the run (``reading.TermFate``):

- ``matched``: a verified line the answer cites holds it (whole tokens, any word form; a
  concept by its phrases, a topic by its words, a service by whose lines they are);
- ``relaxed``: a verified line holds it only as a synonym (``vocab/word_forms.yaml``);
- ``filter``: a call applied it (``service=``, ``level=``, ``since=``, ``exclude=``,
  ``alert_name=``) and the answer rests on such calls;
- ``absent``: calls that searched it came back empty, and a verified absence binds them;
- ``unmentioned``: the data never mentions it (a call searching it alone was empty; a service
  or alert the data lacks);
- ``unmatched``: it was searched, but what the answer cites does not hold it (the closest
  lines, a finding about the subject and not what happened to it);
- ``not_searched``: no call looked for it.

``unaccounted`` names the terms that keep an answer from PASS (``verifier.term_unaccounted``):
an ``unmatched`` or ``not_searched`` term, and, when the answer states findings, a subject,
predicate or entity the data never mentions (the findings are then the closest lines, not the
answer). A verified "no" may rest on unmentioned terms: that is what makes it exhaustive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.contracts import (
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    Plan,
    VerifierResult,
)
from core.language.concepts import CONCEPTS, concepts_held
from core.language.lexicon import TOPICS, alert_words, topics_in
from core.language.reading import UNACCOUNTED_FATES, QuestionReading, QuestionTerm, TermFate
from core.language.wordforms import holds_stem, holds_word, stem, synonyms, token_stems
from core.logfields import level_rank
from core.verifier.rules import (
    ABSENCE_NOT_EXHAUSTIVE,
    OFF_PREDICATE,
    TERM_UNACCOUNTED,
    VerifierRuleName,
)

UNNAMED = "not among the names the data holds, and no line found names it"
NOT_EXHAUSTIVE = "searched only together with other words; every such call came back empty"


@dataclass(frozen=True)
class _Run:
    """What the answer rests on: the lines its entailed findings cite (verified by the
    gatekeeper), the calls behind them, and the empty calls its entailed absences bind."""

    lines: tuple[str, ...]
    line_levels: tuple[str, ...]
    cited_calls: tuple[Invocation, ...]
    empty_calls: tuple[Invocation, ...]
    calls: tuple[Invocation, ...]

    @property
    def found(self) -> bool:
        return bool(self.lines)


def _run(output: ExecutorOutput | None, gatekeeper: GatekeeperResult, verifier: VerifierResult,
         invocations: Sequence[Invocation]) -> _Run:
    entailed = {result.claim_id for result in verifier.claim_results if result.entailed}
    claims = {claim.claim_id: claim for claim in (output.claims if output else [])
              if claim.claim_id in entailed}
    by_id = {inv.invocation_id: inv for inv in invocations}
    lines: list[str] = []
    levels: list[str] = []
    cited: dict[int, Invocation] = {}
    empty: dict[int, Invocation] = {}
    for checked in gatekeeper.checked_bindings:
        claim = claims.get(checked.claim_id or "")
        if claim is None or checked.status != "pass" or checked.source_invocation_id not in by_id:
            continue
        invocation = by_id[checked.source_invocation_id]
        if claim.claim_type == "negative_observation":
            empty[invocation.invocation_id] = invocation
            continue
        if checked.tool_name == "lookup_knowledge":
            continue  # a runbook says what to do, not what happened
        fields = checked.matched_fields
        # The ref's fields are the data too (a request id in a line's context, not its text).
        shown = " ".join(str(value) for value in (fields.model_dump().values() if fields else ())
                         if isinstance(value, str))
        lines.append(f"{checked.matched_text or checked.evidence_excerpt} {shown}".strip())
        level = getattr(fields, "level", None) if fields is not None else None
        if isinstance(level, str):
            levels.append(level)
        cited[invocation.invocation_id] = invocation
    return _Run(tuple(lines), tuple(levels), tuple(cited.values()), tuple(empty.values()),
                tuple(invocations))


def _searched_text(invocation: Invocation) -> str:
    """The words a call searched for: its query, terms, topic, alert name and state."""
    arguments = invocation.arguments
    parts = [str(arguments.get(key) or "") for key in ("query", "topic", "alert_name", "state")]
    parts += [str(term) for term in arguments.get("terms") or []]
    return " ".join(parts)


def _searches(invocation: Invocation, term: QuestionTerm) -> bool:
    """Whether a call looked for the term (in its words, a stem of it, a synonym, its concept's
    phrases or a topic naming it)."""
    text = _searched_text(invocation)
    if not text.strip():
        return False
    if term.text in CONCEPTS:
        concept = CONCEPTS[term.text]
        lowered = text.casefold()
        return any(phrase.casefold() in lowered for phrase in (*concept.terms, *concept.stems)) \
            or term.text in concepts_held(text)
    if term.text in TOPICS:
        return term.text in topics_in(text) or invocation.arguments.get("topic") == term.text
    wanted = stem(term.text) if " " not in term.text else term.text.casefold()
    return (holds_word(text, term.text) or wanted in text.casefold()
            or any(holds_word(text, other) for other in synonyms(term.text)))


def _alone(invocation: Invocation, term: QuestionTerm) -> bool:
    """Whether a call searched the term and nothing else (a probe, an exact term's own call)."""
    arguments = invocation.arguments
    words = [*str(arguments.get("query") or "").replace('"', " ").split(), *(arguments.get("terms") or [])]
    return len(words) >= 1 and all(_searches_word(word, term) for word in words)


def _requires(invocation: Invocation, term: QuestionTerm) -> bool:
    """Whether every line a call returns holds the term: one of its ``terms`` (whole words)
    when the call needs all of them (or has only that one)."""
    arguments = invocation.arguments
    terms = [str(item).casefold() for item in arguments.get("terms") or []]
    return term.text.casefold() in terms and (arguments.get("match") != "any" or len(terms) == 1)


def _conjunctive(invocation: Invocation, term: QuestionTerm, subjects: set[str]) -> bool:
    """Whether a log call searched the term only together with other words (``match="all"``
    over several words, the term not its topic filter): its emptiness says nothing of lines
    holding the term alone. The question's subjects (``subjects``, folded: a user, a host) are
    no other words: the question asks about them, so a line without them does not answer."""
    arguments = invocation.arguments
    if invocation.tool_name != "query_logs" or arguments.get("match") == "any":
        return False
    if arguments.get("topic") == term.text:
        return False
    words = [*str(arguments.get("query") or "").replace('"', " ").split(), *(arguments.get("terms") or [])]
    return len([word for word in words if word.casefold() not in subjects]) > 1


def _searches_word(word: str, term: QuestionTerm) -> bool:
    return word.casefold() == term.text.casefold() or word.casefold() == stem(term.text) \
        or " ".join(token_stems(word)) == " ".join(token_stems(term.text))


def _empty(invocation: Invocation) -> bool:
    details = invocation.retrieval_details
    return details is not None and details.evidence_status == "no_evidence"


def _holds(line: str, term: QuestionTerm, keyword: bool = False) -> bool:
    if term.text in CONCEPTS:
        return term.text in concepts_held(line)
    if term.text in TOPICS:
        return term.text in topics_in(line, in_logs=True) or term.text in topics_in(
            " ".join(alert_words(word) for word in line.split()))
    if keyword:  # a keyword is a stem the search matched as a word part: a token's start
        return holds_stem(line, term.text)
    return holds_word(line, term.text)


def _qualifies(term: QuestionTerm, run: _Run, matched_topics: list[str]) -> str | None:
    """Why a qualifier concept (error, exception, failure) holds of the cited lines without its
    words: their level says it (ERROR for an error; WARN or above for the others), or it is part
    of the name of a topic the answer matched ("HTTP 5xx errors")."""
    concept = CONCEPTS[term.text]
    for topic in matched_topics:
        named = " ".join([TOPICS[topic].label_en, TOPICS[topic].label_zh, *TOPICS[topic].synonyms])
        if any(ask.casefold() in named.casefold() for ask in concept.asks):
            return f"part of the topic {topic}"
    wanted = level_rank(concept.level or concept.reported_at or "WARN") or 0
    if run.line_levels and len(run.line_levels) == len(run.lines) and all(
            (level_rank(level) or 0) >= wanted for level in run.line_levels):
        return "the cited lines' level says it"
    return None


def _synonyms(term: QuestionTerm) -> list[str]:
    """The other words a line may say the term in: a word's synonyms; a concept's, those of its
    one-word English asks ("halted" for shutdown, whose asks hold "stop")."""
    if term.text in TOPICS:
        return []
    if term.text in CONCEPTS:
        asks = [ask for ask in CONCEPTS[term.text].asks if ask.isascii() and " " not in ask]
        return list(dict.fromkeys(other for ask in asks for other in synonyms(ask)))
    return synonyms(term.text)


_Fate = tuple[TermFate, str]


def _fate(term: QuestionTerm, run: _Run, plan: Plan) -> _Fate:
    """The fate of one term and what says so: by its kind first (a filter, the window, the
    level, a subject), then by the cited lines, then by the calls that searched it."""
    if term.kind == "filter":
        return "filter", "left out of every call"
    if term.kind == "time":
        return _time_fate(run)
    if term.kind == "level":
        return _level_fate(term, run)
    return (_subject_fate(term, run, plan.reading) or _held_fate(term, run, plan.reading)
            or _searched_fate(term, run, plan.reading))


def _time_fate(run: _Run) -> _Fate:
    if any(inv.arguments.get("since") or inv.arguments.get("until") for inv in run.calls):
        return "filter", "since/until of the log calls"
    if any(inv.tool_name == "query_logs" for inv in run.calls):
        return "not_searched", "no call was bounded in time"
    return "filter", "alerts are read at the world's now"


def _level_fate(term: QuestionTerm, run: _Run) -> _Fate:
    if run.found and run.line_levels:
        wanted = level_rank(term.text) or 0
        below = [level for level in run.line_levels if (level_rank(level) or 0) < wanted]
        if below:
            return "unmatched", f"cited lines at {', '.join(dict.fromkeys(below))}"
        return "matched", "the cited lines' level"
    if any(inv.arguments.get("level") for inv in run.calls):
        return "filter", "level= of the log calls"
    return "not_searched", ""


def _subject_fate(term: QuestionTerm, run: _Run, reading: QuestionReading) -> _Fate | None:
    """Who or what the question is about: unknown to the data, or the calls' own filter."""
    if term.kind == "subject" and term.text in reading.unknown_subjects:
        return "unmentioned", "the data has no such service or alert"
    unnamed = {entity.name.casefold() for entity in reading.entities if not entity.known}
    if term.text.casefold() in unnamed and not any(_holds(line, term) for line in run.lines):
        return "unmentioned", UNNAMED
    if term.kind == "subject" and term.text not in TOPICS:
        filtered = [inv for inv in run.calls if term.text.casefold() in (
            str(inv.arguments.get("service") or "").strip().casefold(),
            str(inv.arguments.get("alert_name") or "").strip().casefold())]
        if run.found and (any(inv in filtered for inv in run.cited_calls)
                          or any(_holds(line, term) for line in run.lines)):
            return "matched", "the cited evidence is its"
        if filtered:
            return "filter", "service/alert_name of the calls"
    return None


def _held_fate(term: QuestionTerm, run: _Run, reading: QuestionReading) -> _Fate | None:
    """Held by the cited lines: as written, as the concept it qualifies, or as a synonym."""
    keywords = [keyword[0] for keyword in reading.keywords if keyword]
    if term.kind == "predicate" and term.text in keywords:
        # The question's free words are asked together: one cited line must hold them all
        # ("start" in one line and "backup" in another do not say the backup started).
        together = [line for line in run.lines if all(_holds(line, QuestionTerm(text=word, kind="predicate"), True)
                                                      for word in keywords)]
        if together:
            return "matched", "held by the cited evidence"
        if any(_holds(line, term, True) for line in run.lines):
            return "unmatched", "in a cited line, but not with the question's other words"
    elif any(_holds(line, term) for line in run.lines):
        return "matched", "held by the cited evidence"
    if run.found and term.text in CONCEPTS and CONCEPTS[term.text].qualifier:
        matched_topics = [topic for topic in reading.topics
                          if any(_holds(line, QuestionTerm(text=topic, kind="subject")) for line in run.lines)
                          or any(inv.arguments.get("topic") == topic for inv in run.cited_calls)]
        why = _qualifies(term, run, matched_topics)
        if why is not None:
            return "matched", why
    for other in _synonyms(term):
        if any(holds_word(line, other) for line in run.lines):
            return "relaxed", f'held as "{other}"'
    if term.kind in ("entity", "subject") and any(_requires(inv, term) for inv in run.cited_calls):
        # The store matched it as a whole phrase in every line the call returned, some in a
        # field the ref text does not show (a logger, a request context).
        return "filter", "every line of the cited call holds it"
    return None


def _searched_fate(term: QuestionTerm, run: _Run, reading: QuestionReading) -> _Fate:
    """Not in the cited lines: what the calls that searched it found."""
    # A runbook lookup says what to do, never whether the data holds a term.
    searched = [inv for inv in run.calls if inv.tool_name != "lookup_knowledge" and _searches(inv, term)]
    if any(_alone(inv, term) and _empty(inv) for inv in searched):
        return "unmentioned", "a search for it alone found nothing"
    empty = [inv for inv in searched if inv in run.empty_calls]
    # Verified absent, next to findings too: "timeouts or refused connections?" of timeouts and
    # no refusal; "is X firing?" of a pending X and no firing one.
    if empty:
        subjects = {t.text.casefold() for t in reading.question_terms if t.kind == "subject"}
        if any(not _conjunctive(inv, term, subjects) for inv in empty):
            return "absent", "searched; every call came back empty"
        return "absent", NOT_EXHAUSTIVE
    if searched:
        return "unmatched", "searched; the cited evidence does not hold it"
    if not run.found and run.empty_calls and term.kind == "predicate":
        # A word the question adds to what was searched only narrows it: when the wider search
        # is verified empty, so is the narrower ("containers killed for memory": no OOM kill).
        return "absent", "implied: a wider search, without it, found nothing"
    return "not_searched", ""


def unaccounted(terms: Sequence[QuestionTerm], found: bool) -> list[tuple[QuestionTerm, VerifierRuleName]]:
    """The terms that keep the answer from PASS (see the module doc), each with the rule:

    - ``verifier.off_predicate``: findings were stated, and what happened (a predicate) is not
      in their evidence ("backup finished" does not answer "did the backup start?");
    - ``verifier.absence_not_exhaustive``: a "no" whose empty calls searched the term only
      together with other words (a line saying it in other company was never looked for),
      unless another term of the question is absent on its own (then so is the conjunction);
    - ``verifier.term_unaccounted``: any other term not searched, not held by the evidence,
      or -- next to findings -- never mentioned by the data.
    """
    kept: list[tuple[QuestionTerm, VerifierRuleName]] = []
    # A conjunction is empty when one of its terms is empty on its own (no line mentions
    # OutOfMemory, so none says an OutOfMemory error): one exhaustive absence covers the rest.
    exhaustive = any(term.fate == "unmentioned" or (term.fate == "absent" and term.detail != NOT_EXHAUSTIVE)
                     for term in terms if term.kind in ("subject", "predicate", "entity"))
    for term in terms:
        if found and term.kind == "predicate" and term.fate == "unmatched":
            kept.append((term, OFF_PREDICATE))
        elif not found and term.fate == "absent" and term.detail == NOT_EXHAUSTIVE and not exhaustive:
            kept.append((term, ABSENCE_NOT_EXHAUSTIVE))
        elif term.fate in UNACCOUNTED_FATES or (term.fate == "unmentioned" and (
                (found and term.kind in ("subject", "predicate", "entity")) or term.detail == UNNAMED)):
            # A host, job or namespace the data never names is no verified "no" either: the
            # question is about something this data does not hold (an alert it lacks is: no
            # such alert fires).
            kept.append((term, TERM_UNACCOUNTED))
    return kept


def accounted_verdict(plan: Plan, output: ExecutorOutput | None, gatekeeper: GatekeeperResult,
                      verifier: VerifierResult, invocations: Sequence[Invocation]) -> VerifierResult:
    """``verifier`` with the question's terms and their fates (``question_terms``); a PASS
    with an unaccounted term becomes LOW_CONFID, each such term named with its rule."""
    run = _run(output, gatekeeper, verifier, invocations)
    terms = [term.model_copy(update=dict(zip(("fate", "detail"), _fate(term, run, plan), strict=True)))
             for term in plan.reading.question_terms]
    failures = unaccounted(terms, run.found)
    failed = {id(term) for term, _ in failures}
    terms = [term.model_copy(update={"accounted": id(term) not in failed}) for term in terms]
    result = verifier.model_copy(update={"question_terms": terms})
    if result.verdict != "PASS" or not failures:
        return result
    named = "; ".join(f"{rule}: {term.kind} \"{term.text}\" {term.fate}"
                      + (f" ({term.detail})" if term.detail else "") for term, rule in failures)
    return result.model_copy(update={"verdict": "LOW_CONFID",
                                     "answer_rules": list(dict.fromkeys(rule for _, rule in failures)),
                                     "reasons": [*result.reasons, f"the answer does not account for "
                                                 f"every term of the question: {named}"]})
