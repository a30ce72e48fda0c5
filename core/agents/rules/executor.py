"""The rules executor: calls the tools the plan needs, then cites what came back.

Nothing is called for a question with nothing to search (``plan.reading.searchable`` False) or
whose only subjects are services the data lacks: there is nothing to sweep, and another subject's
evidence is never an answer. Otherwise, through the recorder: ``query_metrics`` per alert name
the question names (the data's or not) or its topics and concepts imply (the service of an
alert named without one comes from the alert returned); ``query_logs`` per service and search
(``searches.log_searches``: the question's terms, keywords, compounds, topics, concepts, level);
one ``lookup_knowledge`` for what to check. Excluded subjects are never queried. The output is
built from the calls' evidence refs by ``output``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from core.agents.base import ExecutorRun
from core.agents.rules.evidence import collect_items
from core.agents.rules.findings import SearchOutcome
from core.agents.rules.knowledge_query import knowledge_query
from core.agents.rules.ladder import Call, climb, climbs, holds_keywords
from core.agents.rules.logsearch import COMMON_ARGUMENTS, LogSearch
from core.agents.rules.output import CallLog, build_output, is_no_hit
from core.agents.rules.planner import alert_concepts, alert_topics, unique
from core.agents.rules.searches import log_searches, service_search
from core.contracts import ExecutorOutput, Invocation, ParseStatus, Plan
from core.events import ToolCalled, ToolEvent, ToolReturned
from core.language.levels import asks_for_a_percentage
from core.language.lexicon import TOPICS, topic_matches
from core.tools.spec import TOOL_SPECS, is_evidence_tool

if TYPE_CHECKING:
    from core.recorder import Recorder
    from core.sources.base import Vocabulary


class RulesExecutor:
    """Offline, deterministic executor (a generator of tool events returning its output)."""

    engine = "rules"

    def run(self, plan: Plan, recorder: Recorder) -> ExecutorRun:
        """Call the tools the plan needs and build claims from their evidence refs."""
        calls = CallLog()
        excluded = {service.lower() for service in plan.exclusions.services}
        services = [s for s in plan.services if s.lower() not in excluded]
        if not plan.reading.searchable or (_names_unknown_service(plan, recorder.world.vocabulary)
                                   and not services):
            output = build_output(plan, recorder.world, services, calls)
            return output, ParseStatus(status="valid", detail="nothing to search: no tool called")
        tools = _answerable_tools(plan, recorder)
        if "query_metrics" in tools:
            for service, alert_name, state, topics in _metrics_queries(
                    plan, recorder.world.vocabulary, services):
                arguments = _present(service=service, alert_name=alert_name, state=state)
                invocation = yield from _call(recorder, calls, "query_metrics", arguments, service,
                                              topics)
                if state and alert_name in plan.alert_names and is_no_hit(invocation):
                    # Not in the state asked: in which state is it, if any ("is X firing?" of
                    # a pending or silenced X is answered "no, it is pending").
                    yield from _call(recorder, calls, "query_metrics",
                                     _present(service=service, alert_name=alert_name), service, topics)
            if not services and plan.alert_names:
                # An alert named without a service: the service is the one the alert came with.
                found = [item.service for item in collect_items(calls.invocations("query_metrics"))]
                services = [s for s in unique(found) if s.lower() not in excluded]
        if "query_logs" in tools:
            yield from _query_logs(plan, recorder, calls, services)
        if "lookup_knowledge" in tools:
            query = knowledge_query(plan)
            if query:
                yield from _call(recorder, calls, "lookup_knowledge", {"query": query}, None, ())
        output = _without_unsourced_absences(
            plan, recorder, build_output(plan, recorder.world, services, calls))
        return output, ParseStatus(status="valid",
                                   detail="built by the rules executor from evidence_refs")


def _answerable_tools(plan: Plan, recorder: Recorder) -> list[str]:
    """The plan's tools, without evidence tools the world has no source for when another
    evidence tool of the plan has one (an alert question on a world without logs asks the
    alerts), unless the question needs that tool (``_needed_tools``): its call is then
    recorded as failed, and says why part of the question went unsearched. A question only
    sourceless tools could answer still records why nothing was searched."""
    evidence = [tool for tool in plan.tools if is_evidence_tool(tool)]
    if not any(_has_source(recorder, tool) for tool in evidence):
        return list(plan.tools)
    needed = _needed_tools(plan)
    return [tool for tool in plan.tools
            if not is_evidence_tool(tool) or _has_source(recorder, tool) or tool in needed]


def _has_source(recorder: Recorder, tool: str) -> bool:
    return recorder.world.source(TOOL_SPECS[tool].capability) is not None


def _needed_tools(plan: Plan) -> set[str]:
    """The evidence tools no other tool stands in for: the alerts of a question about an alert
    or alert state (a log line is not an alert) or about a metric's percentage, the logs of one
    asking for a log level."""
    reading = plan.reading
    needed = set()
    if plan.alert_names or reading.alert_states or reading.wants_alerts or (
            plan.topics and asks_for_a_percentage(plan.question)):
        # An alert, or a metric's value ("memory usage above 90%"): no log line answers "no".
        needed.add("query_metrics")
    if reading.level:
        needed.add("query_logs")
    return needed & set(plan.tools)


def _without_unsourced_absences(plan: Plan, recorder: Recorder,
                                output: ExecutorOutput) -> ExecutorOutput:
    """``output`` without its negative observations when a tool the question needs has no
    source: what the other tools did not find is not the answer ("is X firing?" of a world
    without alerts is not answered "no" by empty logs)."""
    if all(_has_source(recorder, tool) for tool in _needed_tools(plan)):
        return output
    # Absences come after the observations, so the ids left (claim-1 ...) stay as they were.
    kept = [claim for claim in output.claims if claim.claim_type != "negative_observation"]
    return output.model_copy(update={"claims": kept})


def _names_unknown_service(plan: Plan, vocabulary: Vocabulary) -> bool:
    """Whether the question names a service the data does not have."""
    return any(not vocabulary.knows_service(name) and name not in plan.alert_names
               for name in plan.reading.unknown_subjects)


def _query_logs(plan: Plan, recorder: Recorder, calls: CallLog,
                services: list[str]) -> Generator[ToolEvent, None, None]:
    """Every search for every service (or across services when the question names none)."""
    if services:
        log_services: list[str | None] = list(services)
    else:  # an alert that came back with no service has no logs to look at
        log_services = [] if plan.alert_names else [None]
    searches = log_searches(plan)
    for service in log_services:
        if not searches:
            if service is not None:  # no subject at all: a dump of every log line is not evidence
                yield from _search(recorder, calls, service, service_search(plan))
            continue
        for search in searches:
            yield from _search(recorder, calls, service, search)


def _search(recorder: Recorder, calls: CallLog, service: str | None,
            search: LogSearch) -> Generator[ToolEvent, None, None]:
    """One search of one service: its attempts in turn until one finds lines. A topic search
    with no hit also looks at lines of other sources naming the service (kubernetes, kernel)."""
    outcome = SearchOutcome(service, search)
    for attempt in search.attempts:
        arguments = {**_present(service=service), **attempt}
        invocation = yield from _call(recorder, calls, "query_logs", arguments, service,
                                      search.topics, outcome)
        if not is_no_hit(invocation):
            break
    if search.topics and service and outcome.no_hit:
        topic_only = {key: value for key, value in search.attempts[0].items()
                      if key == "topic" or key in COMMON_ARGUMENTS}
        yield from _call(recorder, calls, "query_logs", {**topic_only, "query": service}, service,
                         search.topics, outcome)
    if climbs(search) and (outcome.no_hit or not holds_keywords(outcome)):
        # Nothing found, or nothing that says the question's other words: climb the ladder.
        climbed = yield from climb(search, service, _ladder_call(recorder, calls, service, search),
                                   full=outcome.no_hit)
        if climbed.found is not None:
            # Lines the ladder found in other forms, or (on a lower rung) the closest lines.
            calls.probes.update(inv.invocation_id for inv in outcome.invocations if not outcome.no_hit)
            calls.searched(climbed.found)
            return
        if outcome.no_hit:
            outcome.rungs += climbed.invocations  # "no" binds every empty rung
        else:  # the first lines stay the answer's (the closest there are); the rungs found nothing
            calls.probes.update(inv.invocation_id for inv in climbed.invocations)
    calls.searched(outcome)
    if search.fallback is not None and outcome.no_hit:
        yield from _search(recorder, calls, service, search.fallback)


def _ladder_call(recorder: Recorder, calls: CallLog, service: str | None, search: LogSearch
                 ) -> Call:
    """How the ladder calls ``query_logs`` for ``service``: a probe's lines are never findings."""
    def call(arguments: dict[str, Any], probe: bool) -> Generator[ToolEvent, None, Invocation]:
        invocation = yield from _call(recorder, calls, "query_logs",
                                      {**_present(service=service), **arguments}, service, search.topics)
        if probe:
            calls.probes.add(invocation.invocation_id)
        return invocation
    return call


def _present(**arguments: str | None) -> dict[str, str]:
    """Tool arguments without the empty ones."""
    return {key: value for key, value in arguments.items() if value}


def _call(recorder: Recorder, calls: CallLog, tool_name: str, arguments: dict[str, Any],
          service: str | None, topics: tuple[str, ...],
          outcome: SearchOutcome | None = None) -> Generator[ToolEvent, None, Invocation]:
    """Call one tool through the recorder, announcing it before and after."""
    yield ToolCalled(tool_name=tool_name, arguments=arguments)
    invocation = recorder.call(tool_name, arguments)
    calls.add(invocation, service, topics)
    if outcome is not None:
        outcome.invocations.append(invocation)
    yield ToolReturned(invocation=invocation)
    return invocation


def _metrics_queries(plan: Plan, vocabulary: Vocabulary, services: list[str]
                     ) -> list[tuple[str | None, str | None, str | None, tuple[str, ...]]]:
    """(service, alert name, state, topics covered) of each ``query_metrics`` call, deduplicated.

    An alert the question names is asked for in the state the question asks about, if it
    names one ("is X firing?", "is X silenced?"), else in any state; an alert its topics or
    concepts imply only when firing (or in the state asked): a resolved alert is not a symptom
    happening now. A question about alerts in a state ("any pending alerts?") asks for them.
    """
    alert_names = list(plan.alert_names)
    asked = plan.reading.alert_states[0] if len(plan.reading.alert_states) == 1 else None
    state = asked
    if not alert_names:
        # Topics and concepts imply alerts: the world's alerts about them, else the lexicon's.
        for topic in plan.topics:
            related = [name for name in vocabulary.alert_names if topic in alert_topics(name)]
            alert_names += related or list(TOPICS[topic].related_alerts if topic in TOPICS else ())
        alert_names += [name for name in vocabulary.alert_names
                        if set(alert_concepts(name)) & set(plan.reading.concepts)]
        alert_names = [name for name in unique(alert_names)
                       if name not in plan.exclusions.alert_names]
        state = (asked or "firing") if alert_names else asked
    queries: list[tuple[str | None, str | None, str | None, tuple[str, ...]]] = []
    targets: list[str | None] = [*services] or [None]
    reading = plan.reading
    has_subject = bool(plan.topics or reading.concepts or reading.terms or reading.keywords or reading.level)
    for service in targets:
        if alert_names:
            # A call covers a topic only if its alert name says so in the lexicon's words: that
            # is what the gatekeeper checks before it accepts the call as a verified absence.
            queries += [(service, name, state, tuple(t for t in alert_topics(name)
                                                     if t in TOPICS and topic_matches(t, name)))
                        for name in alert_names]
        elif not has_subject or service is not None or state:
            queries.append((service, None, state, ()))
    return unique(queries)
