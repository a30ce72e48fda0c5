"""The rules executor's output, built from the evidence refs of the calls it made.

Refs are sorted into subjects (service, topic) by ``evidence.belongs_to``; then one
``observation`` per subject with evidence, bound to every alert and log ref behind it; one
``negative_observation`` per subject whose every query returned nothing, bound to those
invocations. Narrow questions keep at most two claims and no hypotheses. Gaps and
evidence-gathering actions come from ``guidance``; runbooks only ever feed actions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.agents.rules import wording
from core.agents.rules.evidence import (
    EvidenceItem,
    belongs_to,
    collect_items,
    dedupe,
    main_topic,
    render_logs,
)
from core.agents.rules.findings import SearchOutcome, absent_claim, found_claims
from core.agents.rules.guidance import guidance_for, render
from core.agents.rules.knowledge_query import names_title
from core.agents.rules.planner import alert_concepts, alert_topics, unique
from core.contracts import (
    Claim,
    EvidenceBinding,
    ExecutorOutput,
    Hypothesis,
    Invocation,
    MissingInfo,
    Plan,
    RecommendedAction,
)
from core.language.concepts import CONCEPTS
from core.language.lexicon import alert_words, expand_topics, services_in, topics_in
from core.language.names import alert_identifier
from core.language.subjects import excluded_mentions, topics_in_scope
from core.tools.spec import is_reference_tool

if TYPE_CHECKING:
    from core.sources.base import World

NARROW_MAX_CLAIMS = 2


@dataclass
class Subject:
    """One (service, topic) the question is about, and the evidence found for it."""

    service: str | None
    topic: str | None
    alerts: list[EvidenceItem] = field(default_factory=list)
    logs: list[EvidenceItem] = field(default_factory=list)

    @property
    def found(self) -> bool:
        """Whether any alert or log was found for the subject."""
        return bool(self.alerts or self.logs)


@dataclass
class CallLog:
    """The invocations made, with the (service, topics) each was made for, and the outcome of
    each search of the question's own words (``searches``) that made some of them."""

    made: list[tuple[Invocation, str | None, tuple[str, ...]]] = field(default_factory=list)
    outcomes: list[SearchOutcome] = field(default_factory=list)
    # Calls the recall ladder made to learn which words the data mentions: never findings.
    probes: set[int] = field(default_factory=set)

    def add(self, invocation: Invocation, service: str | None, topics: tuple[str, ...]) -> None:
        """Record a call and the subject it was made for."""
        self.made.append((invocation, service, topics))

    def searched(self, outcome: SearchOutcome) -> None:
        """Record what one search of one service made and found."""
        self.outcomes.append(outcome)

    def by_words(self) -> list[SearchOutcome]:
        """Outcomes of searches of the question's own words (not the lexicon's topic door,
        which the topic subjects below read)."""
        return [o for o in self.outcomes if o.search.kind not in ("topic", "service")]

    def topic_invocations(self) -> list[Invocation]:
        """The calls the topic subjects read: every call but those of word searches."""
        word_calls = self._word_calls()
        return [inv for inv, _, _ in self.made if inv.invocation_id not in word_calls]

    def invocations(self, tool_name: str | None = None) -> list[Invocation]:
        """The calls made (of one tool, if given), in order."""
        return [inv for inv, _, _ in self.made if tool_name is None or inv.tool_name == tool_name]

    def no_hits_for(self, service: str | None, topic: str) -> list[Invocation]:
        """The topic calls made for this subject, if every one of them returned nothing."""
        word_calls = self._word_calls()
        made_for = [inv for inv, called_service, topics in self.made
                    if not is_reference_tool(inv.tool_name) and topic in topics
                    and _same_service(called_service, service) and inv.invocation_id not in word_calls]
        return made_for if all(is_no_hit(inv) for inv in made_for) else []

    def no_hits_for_service(self, service: str) -> list[Invocation]:
        """The calls made for ``service`` (whatever their topics), if every one found nothing."""
        made_for = [inv for inv, called_service, _ in self.made
                    if not is_reference_tool(inv.tool_name) and _same_service(called_service, service)]
        return made_for if all(is_no_hit(inv) for inv in made_for) else []

    def _word_calls(self) -> set[int]:
        return {inv.invocation_id for o in self.by_words() for inv in [*o.invocations, *o.rungs]} | self.probes


def _same_service(first: str | None, second: str | None) -> bool:
    return (first or "").lower() == (second or "").lower()


def _about(item: EvidenceItem, service: str) -> bool:
    """Whether an item is about ``service``: its own, or another source naming it (a pod event)."""
    return _same_service(item.service, service) or service.lower() in services_in(item.text)


def is_no_hit(invocation: Invocation) -> bool:
    """Whether the call succeeded and found nothing (``evidence_status=no_evidence``)."""
    details = invocation.retrieval_details
    return details is not None and details.evidence_status == "no_evidence"


# ---------------------------------------------------------------- building the output


def build_output(plan: Plan, world: World, services: list[str], calls: CallLog) -> ExecutorOutput:
    """Claims, hypotheses, gaps and actions from the invocations' evidence refs."""
    items = [item for item in dedupe(collect_items(calls.topic_invocations()))
             if not excluded_mentions(item.ref.text, plan.exclusions)
             and (not services or any(_about(item, s) for s in services))
             and _relevant_alert(item, plan)]
    # Topics asked inside a compound are the compound search's ("Redis timeout"), not subjects
    # of their own.
    in_compounds = {member for group in plan.reading.compounds for member in group}
    door = plan.model_copy(update={"topics": [t for t in plan.topics if t not in in_compounds]})
    subjects = _subjects(door, services, items)
    found = [subject for subject in subjects if subject.found]
    absent = [(subject, calls.no_hits_for(subject.service, subject.topic)) for subject in subjects
              if not subject.found and subject.topic is not None]
    if not plan.topics and not calls.by_words():
        # "Does gateway-service have any alerts?": no topic, so the absence is the service's.
        absent += [(Subject(service, None), calls.no_hits_for_service(service))
                   for service in services
                   if not any(_same_service(subject.service, service) for subject in found)]
    absent = [(subject, no_hits) for subject, no_hits in absent if no_hits]

    output = ExecutorOutput()
    observations = [_observation("", subject, plan) for subject in found]
    # A broad search whose lines name no topic (real logs, mostly) is quoted as it is.
    broad = [outcome for outcome in calls.outcomes if outcome.search.kind == "service"
             and not outcome.no_hit and not any(_same_service(subject.service, outcome.service)
                                                and subject.logs for subject in found)]
    observations += [claim for outcome in [*calls.by_words(), *broad] if not outcome.no_hit
                     for claim in found_claims(outcome, plan.exclusions, plan.language)]
    absences = [_absence("", subject, no_hits, plan) for subject, no_hits in absent]
    absences += [absent_claim("", outcome, plan.language)
                 for outcome in calls.by_words() if outcome.no_hit]
    absences += _alert_absences(plan, calls, absences)
    if plan.narrow:
        observations = observations[:NARROW_MAX_CLAIMS]
        absences = absences[:max(0, NARROW_MAX_CLAIMS - len(observations))]
        found = found[:len(observations)]  # the topic observations come first (guidance below)
    for claim in [*observations, *absences]:
        output.claims.append(claim.model_copy(update={"claim_id": f"claim-{len(output.claims) + 1}"}))
    _add_guidance(output, plan, found)
    _add_unknown_subjects(output, plan, world)
    _add_runbook_actions(output, plan, calls)
    return output


def _relevant_alert(item: EvidenceItem, plan: Plan) -> bool:
    """An alert is evidence for a question that names no subject but the service (or alerts),
    or when the question's alerts, topics, concepts or keywords are what its name is about."""
    if item.alert is None:
        return True
    reading = plan.reading
    narrow_concepts = [c for c in reading.concepts if c in CONCEPTS and not CONCEPTS[c].broad]
    if not (plan.topics or narrow_concepts or reading.terms or reading.keywords or reading.level
            or plan.alert_names):
        return True
    name = item.alert.alert_name
    own_topic = alert_topics(name)[:1]
    if plan.narrow and plan.topics and any(t not in topics_in_scope(plan.topics) for t in own_topic):
        # A narrow question's claims stay inside its topics (the verifier's scope rule): an
        # alert its concept implies but about another topic ("CPU 崩溃" and a crash-loop alert,
        # a restart) does not answer it.
        return False
    return (name in plan.alert_names or bool(set(alert_topics(name)) & set(plan.topics))
            or bool(set(alert_concepts(name)) & set(reading.concepts))
            or _names_keywords(name, reading.keywords))


def _names_keywords(alert_name: str, keywords: list[list[str]]) -> bool:
    """Whether the words of an alert's name hold every keyword of the question (one of each
    keyword's stems): "the inventory deployment's alerts" -> KubeDeploymentReplicasMismatch."""
    words = alert_words(alert_name).split()
    return bool(keywords) and all(any(word.startswith(stem) for stem in keyword for word in words)
                                  for keyword in keywords if keyword)


def _subjects(plan: Plan, services: list[str], items: list[EvidenceItem]) -> list[Subject]:
    """The (service, topic) subjects, each with the items that belong to it (each item once)."""
    used: set[tuple[int, str]] = set()
    subjects: list[Subject] = []

    def take(subject: Subject, candidates: list[EvidenceItem]) -> None:
        for item in candidates:
            key = (item.invocation.invocation_id, item.ref.raw_path)
            if key in used:
                continue
            used.add(key)
            (subject.alerts if item.kind == "alert" else subject.logs).append(item)
        subjects.append(subject)

    if plan.topics:
        scope = topics_in_scope(plan.topics)
        for topic in plan.topics:
            matching = [item for item in items if belongs_to(
                item, topic, scope, alert_topics(item.alert.alert_name) if item.alert else [],
                plan.alert_names) and _best_topic(item, plan.topics) == topic]
            subject_services: list[str | None] = [*services] or [
                *unique([item.service for item in matching])] or [None]
            for service in subject_services:
                take(Subject(service, topic), [item for item in matching
                                               if service is None or _about(item, service)])
        return subjects
    # No topic named: every alert and every line with a topic is its own subject.
    keyed: dict[tuple[str, str | None], list[EvidenceItem]] = {}
    for item in items:
        if item.alert is not None:
            item_topic = next(iter(alert_topics(item.alert.alert_name)), None)
        else:
            item_topic = main_topic(item)
        if item.alert is None and item_topic is None:
            continue  # a line about nothing in particular (health checks, job reports)
        keyed.setdefault((item.service, item_topic), []).append(item)
    for (service, subject_topic), grouped in keyed.items():
        take(Subject(service, subject_topic), grouped)
    return subjects


def _best_topic(item: EvidenceItem, topics: list[str]) -> str:
    """Of the plan's topics, the one the item is most about (an alert: the first)."""
    if item.alert is not None:
        return next((t for t in topics if t in alert_topics(item.alert.alert_name)), topics[0])
    weights = item.topic_weights()
    return max(topics, key=lambda topic: sum(weights.get(name, 0)
                                             for name in expand_topics([topic])))


def _observation(claim_id: str, subject: Subject, plan: Plan) -> Claim:
    language = plan.language
    sentences = [wording.alert_sentence(item.alert, language)
                 for item in subject.alerts if item.alert is not None]
    phrases = render_logs(subject.logs)
    if phrases:
        sentences.append(wording.logs_sentence(subject.service, subject.topic, phrases, language,
                                               after_alert=bool(subject.alerts)))
    bindings = [item.binding() for item in [*subject.alerts, *subject.logs]]
    service = subject.service or _first_service(subject)
    return Claim(claim_id=claim_id, claim_type="observation",
                 # A space after "。" too: the fact reader would glue "10m。zookeeper" into one token.
                 claim_text=" ".join(sentences),
                 evidence_bindings=bindings, subject_services=[service] if service else [],
                 subject_topics=[subject.topic] if subject.topic else [])


def _first_service(subject: Subject) -> str | None:
    items = [*subject.alerts, *subject.logs]
    return items[0].service if items else None


def _absence(claim_id: str, subject: Subject, no_hits: list[Invocation], plan: Plan) -> Claim:
    bindings = [EvidenceBinding(tool_name=inv.tool_name, source_invocation_id=inv.invocation_id,
                                raw_path=None, evidence_excerpt=_no_hit_excerpt(inv))
                for inv in no_hits]
    return Claim(claim_id=claim_id, claim_type="negative_observation",
                 claim_text=wording.absence_sentence(subject.service, subject.topic, no_hits,
                                                     plan.language),
                 evidence_bindings=bindings,
                 subject_services=[subject.service] if subject.service else [],
                 subject_topics=[subject.topic] if subject.topic else [])


def _no_hit_excerpt(invocation: Invocation) -> str:
    """``query_logs(service=inventory-service, topic=connection_pool) -> total=0``."""
    arguments = ", ".join(f"{key}={value}" for key, value in invocation.arguments.items())
    return f"{invocation.tool_name}({arguments}) -> total={invocation.output.get('total', 0)}"


def _alert_absences(plan: Plan, calls: CallLog, made: list[Claim]) -> list[Claim]:
    """A negative observation per alert the question names (and the data knows: a rule or an
    alert of another state) that its ``query_metrics`` calls found none of -- in the state the
    question asks about, if it names one -- per service asked; and, for a question about
    alerts in a state ("any silenced alerts?"), when none is in that state. Calls another
    absence already cites are not cited twice."""
    cited = {b.source_invocation_id for claim in made for b in claim.evidence_bindings}
    unknown = {name.casefold() for name in plan.reading.unknown_subjects}
    names: list[str | None] = [name for name in plan.alert_names if name.casefold() not in unknown]
    if not plan.alert_names and plan.reading.alert_states:
        names = [None]
    # A question naming a qualified alert by its identifier asks about any of its thresholds:
    # one found (in any state) answers it, and its siblings' absence is not asked.
    found = {(alert_identifier(str(inv.arguments.get("alert_name") or "")), inv.arguments.get("service"),
              inv.arguments.get("alert_name"))
             for inv in calls.invocations("query_metrics") if not is_no_hit(inv)}
    claims: list[Claim] = []
    for name in names:
        by_service: dict[str | None, list[Invocation]] = {}
        for invocation in calls.invocations("query_metrics"):
            arguments = invocation.arguments
            if arguments.get("alert_name") != name or (name is None and not arguments.get("state")):
                continue
            by_service.setdefault(arguments.get("service"), []).append(invocation)
        for service, invocations in by_service.items():
            family = alert_identifier(name or "")
            if family and any(other[0] == family and other[1] == service and other[2] != name
                              for other in found):
                continue
            no_hits = [inv for inv in invocations if is_no_hit(inv)]
            if not no_hits or {inv.invocation_id for inv in no_hits} <= cited:
                continue
            state = next((str(inv.arguments["state"]) for inv in no_hits if inv.arguments.get("state")),
                         None)
            bindings = [EvidenceBinding(tool_name=inv.tool_name, source_invocation_id=inv.invocation_id,
                                        raw_path=None, evidence_excerpt=_no_hit_excerpt(inv))
                        for inv in no_hits]
            claims.append(Claim(
                claim_id="", claim_type="negative_observation",
                claim_text=wording.alert_absence_sentence(name, state, service, no_hits,
                                                          plan.language),
                evidence_bindings=bindings, subject_services=[service] if service else []))
    return claims


def _add_guidance(output: ExecutorOutput, plan: Plan, found: list[Subject]) -> None:
    """Per topic with evidence: a gap and an evidence-gathering step; a hypothesis if broad."""
    language = plan.language
    # The first len(found) claims are the observations of ``found``, in order (see build_output).
    for subject, claim in zip(found, output.claims[:len(found)], strict=True):
        guidance = guidance_for(subject.topic) if subject.topic else None
        if guidance is None:
            continue
        service = subject.service or _first_service(subject)
        missing = render(guidance.missing, language, service)
        if not plan.narrow:
            output.hypotheses.append(Hypothesis(
                hypothesis_id=f"hyp-{len(output.hypotheses) + 1}",
                hypothesis_text=render(guidance.hypothesis, language, service),
                basis_claim_ids=[claim.claim_id], missing_info=missing))
        output.missing_info.append(MissingInfo(info_id=f"missing-{len(output.missing_info) + 1}",
                                               description=missing))
        output.recommended_actions.append(RecommendedAction(
            action_id=f"action-{len(output.recommended_actions) + 1}",
            action_text=render(guidance.action, language, service), reason=missing,
            evidence_bindings=claim.evidence_bindings[:1]))


def _add_unknown_subjects(output: ExecutorOutput, plan: Plan, world: World) -> None:
    """A gap per service or alert the question names and the data lacks, saying what the data
    has, and a step to check the name."""
    vocabulary = world.vocabulary
    if vocabulary.unavailable:
        return  # a source could not say its names: a name missing from them is not unknown
    known_alerts = {name.casefold() for name in vocabulary.alert_names}
    for name in unique([*plan.services, *plan.reading.unknown_subjects]):
        if vocabulary.knows_service(name) or name.casefold() in known_alerts:
            continue
        is_alert = name in plan.alert_names
        has = list(vocabulary.alert_names) if is_alert else list(vocabulary.services)
        output.missing_info.append(MissingInfo(
            info_id=f"unknown-{len(output.missing_info) + 1}",
            description=wording.unknown_subject_note(name, is_alert, world.name, has,
                                                     plan.language)))
        output.recommended_actions.append(RecommendedAction(
            action_id=f"action-{len(output.recommended_actions) + 1}",
            action_text=wording.check_name_action(name, is_alert, plan.language)))


def _add_runbook_actions(output: ExecutorOutput, plan: Plan, calls: CallLog) -> None:
    """The best "what to check" runbook section, as an action citing it -- never a claim: the
    rule of an alert the question names (a rule section is titled ``<group> / <AlertName>``),
    else a checklist about the question's topics, else any section about them, else a section
    whose title the question's own words name ("restarting" -> "Restart procedure")."""
    scope = topics_in_scope(plan.topics)
    named = {name.casefold() for name in plan.alert_names}
    for invocation in [inv for inv in calls.invocations() if is_reference_tool(inv.tool_name)]:
        blocks = {f"$.evidence_blocks[{index}]": block
                  for index, block in enumerate(invocation.output.get("evidence_blocks") or [])}
        refs = invocation.retrieval_details.evidence_refs if invocation.retrieval_details else []
        # Each ref with the block its raw_path names (the recorder skips malformed blocks, so
        # the two lists need not line up). Only a runbook about the question's topics, and
        # never one naming an excluded subject.
        pairs = [(ref, blocks[ref.raw_path]) for ref in refs if ref.raw_path in blocks]
        usable = [(ref, block) for ref, block in pairs
                  if (scope & set(topics_in(block.get("title", "")))
                      or _rule_title_of(block.get("title", "")) in named
                      or _runbook_of(block.get("title", "")) in named)
                  and not excluded_mentions(ref.text, plan.exclusions)]
        rules = [pair for pair in usable if _rule_title_of(pair[1].get("title", "")) in named]
        # A runbook named after the alert ("TargetDown / Diagnosis"): its checks, else its first.
        own = [pair for pair in usable if _runbook_of(pair[1].get("title", "")) in named]
        own = [pair for pair in own if _is_checklist(pair[1].get("title", ""))] or own
        checks = [pair for pair in usable if _is_checklist(pair[1].get("title", ""))]
        # Named by the question's words, and about no lexicon topic: a runbook of a topic the
        # question is not about is no next step of it (the verifier's action_unfounded).
        worded = [(ref, block) for ref, block in pairs if (ref, block) not in usable
                  and names_title(block.get("title", ""), plan)
                  and not topics_in(block.get("title", ""))
                  and not excluded_mentions(ref.text, plan.exclusions)]
        worded = [pair for pair in worded if _is_checklist(pair[1].get("title", ""))] or worded
        for ref, block in (rules or own or checks or usable or worded)[:1]:
            title = block.get("title", "")
            excerpt = f"{title} ({block.get('source', '')})"
            output.recommended_actions.append(RecommendedAction(
                action_id=f"action-{len(output.recommended_actions) + 1}",
                action_text=(wording.rule_action(title, plan.language) if rules
                             else wording.runbook_action(title, plan.language)),
                reason=wording.runbook_reason(plan.language),
                evidence_bindings=[EvidenceBinding(
                    tool_name=invocation.tool_name, source_invocation_id=invocation.invocation_id,
                    raw_path=ref.raw_path, evidence_excerpt=excerpt)]))


def _rule_title_of(title: str) -> str:
    """The alert name of a rule section's title (``group / AlertName``), case-folded."""
    return title.rsplit(" / ", 1)[-1].strip().casefold() if " / " in title else ""


def _runbook_of(title: str) -> str:
    """The runbook a section's title names first (``TargetDown / Diagnosis``), case-folded."""
    return title.split(" / ", 1)[0].strip().casefold() if " / " in title else ""


def _is_checklist(title: str) -> bool:
    lowered = title.lower()
    return any(word in lowered for word in ("check", "diagnos", "troubleshoot", "排查", "检查", "诊断"))
