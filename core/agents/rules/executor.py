"""The rules executor: calls the tools the plan needs, then cites what came back.

Calls, through the recorder: ``query_metrics`` per alert name the question names or its topics
imply (the service of an alert named without one comes from the alert returned);
``query_logs`` per service and topic; one ``lookup_knowledge`` for what to check. Excluded
subjects are never queried. The output is built from the calls' evidence refs by ``output``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from core.agents.base import ExecutorRun
from core.agents.rules.evidence import collect_items
from core.agents.rules.output import CallLog, build_output, is_no_hit
from core.agents.rules.planner import alert_topics, unique
from core.contracts import Invocation, ParseStatus, Plan
from core.events import ToolCalled, ToolEvent, ToolReturned
from core.lexicon import TOPICS, topic_matches

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
        if "query_metrics" in plan.tools:
            for service, alert_name, topics in _metrics_queries(plan, recorder.world.vocabulary,
                                                                services):
                arguments = _present(service=service, alert_name=alert_name)
                yield from _call(recorder, calls, "query_metrics", arguments, service, topics)
            if not services and plan.alert_names:
                # An alert named without a service: the service is the one the alert came with.
                found = [item.service for item in collect_items(calls.invocations("query_metrics"))]
                services = [s for s in unique(found) if s.lower() not in excluded]
        if "query_logs" in plan.tools:
            yield from _query_logs(plan, recorder, calls, services)
        if "lookup_knowledge" in plan.tools:
            labels = [TOPICS[topic].label_en for topic in plan.topics if topic in TOPICS]
            query = " ".join(unique([*plan.alert_names, *labels]))
            if query:
                yield from _call(recorder, calls, "lookup_knowledge", {"query": query}, None, ())
        output = build_output(plan, recorder.world, services, calls)
        return output, ParseStatus(status="valid",
                                   detail="built by the rules executor from evidence_refs")


def _query_logs(plan: Plan, recorder: Recorder, calls: CallLog,
                services: list[str]) -> Generator[ToolEvent, None, None]:
    """One call per service and topic; when the service's own logs have nothing, one more for
    lines of other sources that name it (kubernetes events, the kernel)."""
    if services:
        log_services: list[str | None] = list(services)
    else:  # an alert that came back with no service has no logs to look at
        log_services = [] if plan.alert_names else [None]
    topics: list[str | None] = [*plan.topics] or [None]
    for service in log_services:
        for topic in topics:
            if topic is None and service is None:
                continue  # no subject at all: a dump of every log line is not evidence
            covered = (topic,) if topic else ()
            invocation = yield from _call(recorder, calls, "query_logs",
                                          _present(service=service, topic=topic), service, covered)
            if service and topic and is_no_hit(invocation):
                yield from _call(recorder, calls, "query_logs", {"topic": topic, "query": service},
                                 service, covered)


def _present(**arguments: str | None) -> dict[str, str]:
    """Tool arguments without the empty ones."""
    return {key: value for key, value in arguments.items() if value}


def _call(recorder: Recorder, calls: CallLog, tool_name: str, arguments: dict[str, Any],
          service: str | None, topics: tuple[str, ...]) -> Generator[ToolEvent, None, Invocation]:
    """Call one tool through the recorder, announcing it before and after."""
    yield ToolCalled(tool_name=tool_name, arguments=arguments)
    invocation = recorder.call(tool_name, arguments)
    calls.add(invocation, service, topics)
    yield ToolReturned(invocation=invocation)
    return invocation


def _metrics_queries(plan: Plan, vocabulary: Vocabulary, services: list[str]
                     ) -> list[tuple[str | None, str | None, tuple[str, ...]]]:
    """(service, alert name, topics covered) of each ``query_metrics`` call, deduplicated."""
    alert_names = list(plan.alert_names)
    if not alert_names:
        # Topics imply alerts: the world's alerts about them, else the lexicon's related alerts.
        for topic in plan.topics:
            related = [name for name in vocabulary.alert_names if topic in alert_topics(name)]
            alert_names += related or list(TOPICS[topic].related_alerts if topic in TOPICS else ())
        alert_names = [name for name in unique(alert_names)
                       if name not in plan.exclusions.alert_names]
    queries: list[tuple[str | None, str | None, tuple[str, ...]]] = []
    targets: list[str | None] = [*services] or [None]
    for service in targets:
        if alert_names:
            # A call covers a topic only if its alert name says so in the lexicon's words: that
            # is what the gatekeeper checks before it accepts the call as a verified absence.
            queries += [(service, name, tuple(t for t in alert_topics(name)
                                              if t in TOPICS and topic_matches(t, name)))
                        for name in alert_names]
        else:
            queries.append((service, None, ()))
    return unique(queries)
