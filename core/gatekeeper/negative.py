"""Negative observations: "no HikariCP logs for inventory-service" is a citation too.

It must cite an invocation that really returned nothing (``no_evidence``, no refs, empty
result list) and whose arguments covered the claim's subject: the same service (when the claim
names one and the query was filtered by service) and every subject topic found in the query
arguments (when the query was filtered by keywords). The claim's subject comes from
``Claim.subject_services`` / ``subject_topics``, or, when those are empty, from the claim text
through ``core.lexicon``. No particular excerpt text is required.
"""

from __future__ import annotations

from typing import Any

from core import lexicon
from core.contracts import Claim, Invocation
from core.tools.spec import EVIDENCE_KEYS, find_spec

# Evidence lists of every tool's output (alerts, logs, groups, evidence_blocks); any non-empty
# one of the invocation's own tool means the invocation returned evidence.
RESULT_KEYS: tuple[str, ...] = EVIDENCE_KEYS
SERVICE_ARGS: tuple[str, ...] = ("service", "services", "service_name")
# Filters that narrow a query to a level or state: a negative claim must be as narrow.
NARROWING_ARGS: tuple[str, ...] = ("level", "state")
# Arguments that restrict what a query looks for (its topic).
TOPIC_ARGS: tuple[str, ...] = (
    "query", "q", "keyword", "keywords", "topic", "topics", "alert_name", "alertname",
    "metric", "pattern", "search",
)


def _values(arguments: dict[str, Any], keys: tuple[str, ...]) -> list[str]:
    values: list[str] = []
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, (list, tuple)):
            values += [str(item) for item in value if str(item).strip()]
        elif value is not None and str(value).strip():
            values.append(str(value))
    return values


def result_keys(tool_name: str) -> tuple[str, ...]:
    """The evidence lists of a tool's output (every tool's lists for an unknown tool)."""
    spec = find_spec(tool_name)
    return tuple(evidence.key for evidence in spec.evidence) if spec is not None else RESULT_KEYS


def returned_items(invocation: Invocation) -> int:
    """How many result entries the invocation's raw output holds (0 for a true no-hit)."""
    return sum(len(invocation.output.get(key) or []) for key in result_keys(invocation.tool_name)
               if isinstance(invocation.output.get(key), list))


def evidence_problem(invocation: Invocation) -> str:
    """Why this invocation cannot back a negative observation ('' when it returned nothing)."""
    details = invocation.retrieval_details
    if details is not None and details.evidence_status == "error":
        return "the cited invocation failed (evidence_status=error); a failed call is not an absence of evidence"
    refs = len(details.evidence_refs) if details is not None else 0
    items = returned_items(invocation)
    if refs or items or (details is not None and details.evidence_status == "supported"):
        return (f"the cited invocation returned evidence ({max(refs, items)} item(s), "
                f"evidence_status={details.evidence_status if details else 'unknown'})")
    return ""


def subject_of(claim: Claim) -> tuple[list[str], list[str]]:
    """The claim's subject services and topics (declared, else found in its text)."""
    services = claim.subject_services or lexicon.services_in(claim.claim_text)
    topics = claim.subject_topics or lexicon.topics_in(claim.claim_text)
    return [service.casefold() for service in services], list(topics)


def coverage_problem(claim: Claim, invocation: Invocation) -> str:
    """Why the invocation's arguments do not cover the claim's subject ('' when they do)."""
    for key in NARROWING_ARGS:
        value = invocation.arguments.get(key)
        if isinstance(value, str) and value.strip() and value.strip().casefold() not in claim.claim_text.casefold():
            # level=ERROR found nothing: that says nothing about WARN lines, unless the claim
            # itself is only about ERROR lines.
            return (f"the cited query only looked at {key}={value}; the claim does not say so, "
                    f"so it claims more than the query covered")
    services, topics = subject_of(claim)
    queried_services = [value.casefold() for value in _values(invocation.arguments, SERVICE_ARGS)]
    if services and queried_services and not set(queried_services) & set(services):
        return (f"the cited query is about service {', '.join(queried_services)}, "
                f"the claim is about {', '.join(services)}")
    filters = _values(invocation.arguments, TOPIC_ARGS)
    query_text = " ".join(filters)
    if topics and query_text:
        # A filter may be a topic name itself (``topic=connection_pool``) or free text.
        named = [value.lower() for value in filters if value.lower() in lexicon.TOPICS]
        uncovered = [topic for topic in topics if topic in lexicon.TOPICS
                     and not lexicon.topic_matches(topic, query_text)
                     and not set(named) & set(lexicon.expand_topics([topic]))]
        if uncovered:
            return (f"the cited query ({query_text}) does not look for topic(s) "
                    f"{', '.join(uncovered)} of the claim")
    return ""


def describe(invocation: Invocation) -> str:
    """What the negative citation rests on, as the audit shows it (``matched_text``)."""
    arguments = ", ".join(f"{key}={value}" for key, value in invocation.arguments.items())
    lists = ", ".join(f"{key}=[]" for key in result_keys(invocation.tool_name)
                      if key in invocation.output) or "no results"
    total = invocation.output.get("total")
    status = invocation.retrieval_details.evidence_status if invocation.retrieval_details else "unknown"
    suffix = f", total={total}" if total is not None else ""
    return f"{invocation.tool_name}({arguments}) -> {lists}{suffix} (evidence_status={status})"
