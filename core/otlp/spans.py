"""A session document as OpenInference spans (``docs/otlp.md``): one trace per session, the
roles as CHAIN spans (the verifier an EVALUATOR, the gatekeeper a GUARDRAIL), each tool call a
TOOL span under the executor's; and the gatekeeper's and verifier's results as Phoenix span
annotations.

Plain data, no OpenTelemetry here (``core.otlp.send`` turns it into OTLP). Ids are derived from
the session id, so exporting a session again names the same trace and spans: a trace tool that
keeps span ids unique keeps one copy, and the annotations (named by ``identifier``) are updated.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from core.contracts import GatekeeperResult, Invocation, SessionDocument, VerifierResult

# OpenInference attribute names (openinference-semantic-conventions, spelled out here so the
# document's spans can be built and tested without the optional packages).
KIND = "openinference.span.kind"
INPUT, INPUT_MIME = "input.value", "input.mime_type"
OUTPUT, OUTPUT_MIME = "output.value", "output.mime_type"
TOOL_NAME, TOOL_PARAMETERS = "tool.name", "tool.parameters"
SESSION_ID, METADATA = "session.id", "metadata"
JSON_MIME, TEXT_MIME = "application/json", "text/plain"
MAX_VALUE_CHARS = 16_000  # an input or output value longer than this is cut (and says so)
# stage key in timings_ms -> (span name, OpenInference kind)
ROLES: tuple[tuple[str, str, str], ...] = (
    ("plan", "planner", "CHAIN"), ("execute", "executor", "CHAIN"),
    ("gatekeeper", "gatekeeper", "GUARDRAIL"), ("verify", "verifier", "EVALUATOR"),
    ("compose", "composer", "CHAIN"))


@dataclass
class SpanSpec:
    """One span, ready for any exporter: hex ids, times in ns since the epoch."""

    name: str
    kind: str
    span_id: str
    parent_id: str | None
    start_ns: int
    end_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # the span's status message when it failed


@dataclass
class SessionTrace:
    """A session's trace id, spans (root first) and Phoenix span annotations."""

    trace_id: str
    spans: list[SpanSpec]
    annotations: list[dict[str, Any]]


def _hex(text: str, digits: int) -> str:
    value = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:digits]
    return value if int(value, 16) else "1".rjust(digits, "0")  # an all-zero id is invalid


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000) * 1000


def _json(value: Any) -> str:
    return _cut(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str))


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + "…[cut]"


def session_trace(document: SessionDocument) -> SessionTrace:
    """The spans and annotations of one stored session (see the module docstring)."""
    session_id = document.session_id
    trace_id = _hex(f"trace:{session_id}", 32)
    origin = datetime.fromisoformat(document.created_at) if document.created_at else datetime.now()
    timings, starts = document.timings_ms or {}, document.stage_starts_ms or {}

    def at(ms: float | None) -> int:
        return _ns(origin + timedelta(milliseconds=ms or 0.0))

    total = timings.get("total") or max((starts.get(key, 0.0) + timings.get(key, 0.0)
                                         for key, _, _ in ROLES), default=0.0)
    root = SpanSpec("session", "AGENT", _hex(f"{session_id}:session", 16), None, at(0),
                    at(total), _root_attributes(document),
                    error=document.error if document.status != "completed" else None)
    spans = [root]
    results: dict[str, Any] = {"plan": document.plan, "execute": document.executor_output,
                               "gatekeeper": document.gatekeeper_result,
                               "verify": document.verifier_result,
                               "compose": document.composer_output}
    role_ids: dict[str, str] = {}
    for key, name, kind in ROLES:
        if results[key] is None and key not in starts:
            continue  # the stage never ran
        span_id = role_ids[name] = _hex(f"{session_id}:{name}", 16)
        start = starts.get(key, 0.0)
        span = SpanSpec(name, kind, span_id, root.span_id, at(start),
                        at(start + timings.get(key, 0.0)), {SESSION_ID: session_id})
        _role_attributes(span, key, document)
        spans.append(span)
    executor = role_ids.get("executor", root.span_id)
    spans += [_tool_span(document, invocation, executor, at) for invocation in document.invocations]
    return SessionTrace(trace_id, spans, _annotations(document, role_ids))


def _root_attributes(document: SessionDocument) -> dict[str, Any]:
    verdict = document.verifier_result.verdict if document.verifier_result else None
    gate = document.gatekeeper_result
    attributes: dict[str, Any] = {
        KIND: "AGENT", SESSION_ID: document.session_id, INPUT: document.question,
        INPUT_MIME: TEXT_MIME, "superbiz.session_id": document.session_id,
        "superbiz.status": document.status, "superbiz.pack": document.pack,
        "superbiz.verdict": verdict or "", "superbiz.outcome": document.outcome or "",
        "superbiz.failed_rules": list(gate.failed_rules) if gate else [],
        "superbiz.gatekeeper.severity": gate.severity if gate else "",
        METADATA: _json({"engines": document.engines, "executor_fault": document.executor_fault,
                         "status": document.status})}
    if document.composer_output is not None:
        attributes |= {OUTPUT: _cut(document.composer_output.user_facing_answer),
                       OUTPUT_MIME: TEXT_MIME}
    return attributes


def _role_attributes(span: SpanSpec, key: str, document: SessionDocument) -> None:
    attributes = span.attributes
    attributes[KIND] = span.kind
    if key == "plan":
        attributes |= {INPUT: document.question, INPUT_MIME: TEXT_MIME}
        if document.plan is not None:
            attributes |= {OUTPUT: _json(document.plan.model_dump(mode="json")),
                           OUTPUT_MIME: JSON_MIME}
    elif key == "execute" and document.executor_output is not None:
        attributes |= {OUTPUT: _json(document.executor_output.model_dump(mode="json")),
                       OUTPUT_MIME: JSON_MIME,
                       "superbiz.invocations": len(document.invocations)}
    elif key == "gatekeeper" and document.gatekeeper_result is not None:
        attributes |= _gatekeeper_attributes(document.gatekeeper_result)
    elif key == "verify" and document.verifier_result is not None:
        attributes |= _verifier_attributes(document.verifier_result)
    elif key == "compose" and document.composer_output is not None:
        attributes |= {OUTPUT: _cut(document.composer_output.user_facing_answer),
                       OUTPUT_MIME: TEXT_MIME,
                       "superbiz.answer_kind": document.composer_output.answer_kind or ""}


def _gatekeeper_attributes(result: GatekeeperResult) -> dict[str, Any]:
    checked = [{"claim_id": item.claim_id, "action_id": item.action_id,
                "binding_index": item.binding_index, "tool_name": item.tool_name,
                "source_invocation_id": item.source_invocation_id, "raw_path": item.raw_path,
                "status": item.status, "severity": item.severity, "rule": item.rule}
               for item in result.checked_bindings]
    return {"superbiz.gatekeeper.status": result.status,
            "superbiz.gatekeeper.severity": result.severity,
            "superbiz.gatekeeper.version": result.version,
            "superbiz.failed_rules": list(result.failed_rules),
            "superbiz.gatekeeper.checked": len(checked),
            "superbiz.gatekeeper.checked_bindings": _json(checked),
            OUTPUT: _json({"status": result.status, "severity": result.severity,
                           "failed_rules": result.failed_rules, "checked_bindings": checked}),
            OUTPUT_MIME: JSON_MIME}


def _verifier_attributes(result: VerifierResult) -> dict[str, Any]:
    claims = [{"claim_id": item.claim_id, "entailed": item.entailed, "rule": item.rule}
              for item in result.claim_results]
    return {"superbiz.verdict": result.verdict,
            "superbiz.groundedness": result.groundedness_score,
            "superbiz.verifier.reasons": list(result.reasons),
            OUTPUT: _json({"verdict": result.verdict, "groundedness": result.groundedness_score,
                           "reasons": result.reasons, "claims": claims}),
            OUTPUT_MIME: JSON_MIME}


def _tool_span(document: SessionDocument, invocation: Invocation, parent: str,
               at: Any) -> SpanSpec:
    details = invocation.retrieval_details
    refs = [ref.raw_path for ref in details.evidence_refs] if details else []
    output_bytes = len(json.dumps(invocation.output, ensure_ascii=False, default=str)
                       .encode("utf-8", "surrogatepass"))
    start = invocation.started_ms or 0.0
    attributes: dict[str, Any] = {
        KIND: "TOOL", SESSION_ID: document.session_id, TOOL_NAME: invocation.tool_name,
        TOOL_PARAMETERS: _json(invocation.arguments), INPUT: _json(invocation.arguments),
        INPUT_MIME: JSON_MIME, "superbiz.invocation_id": invocation.invocation_id,
        "superbiz.output_bytes": output_bytes, "superbiz.evidence_refs": refs,
        "superbiz.evidence_status": details.evidence_status if details else "",
        "superbiz.source": invocation.source or ""}
    return SpanSpec(invocation.tool_name, "TOOL",
                    _hex(f"{document.session_id}:invocation:{invocation.invocation_id}", 16),
                    parent, at(start), at(start + (invocation.duration_ms or 0.0)), attributes)


def _annotations(document: SessionDocument, role_ids: dict[str, str]) -> list[dict[str, Any]]:
    """Phoenix span annotations (``POST /v1/span_annotations``) of the gatekeeper's and the
    verifier's results, on their spans."""
    annotations: list[dict[str, Any]] = []
    gate, verdict = document.gatekeeper_result, document.verifier_result
    if gate is not None and "gatekeeper" in role_ids:
        failed = ", ".join(gate.failed_rules)
        annotations.append({
            "span_id": role_ids["gatekeeper"], "name": "gatekeeper", "annotator_kind": "CODE",
            "identifier": f"superbiz:{document.session_id}:gatekeeper",
            "result": {"label": gate.status, "score": 1.0 if gate.status == "pass" else 0.0,
                       "explanation": f"failed rules: {failed}" if failed else
                       f"all {len(gate.checked_bindings)} checked binding(s) passed"},
            "metadata": {"severity": gate.severity, "failed_rules": gate.failed_rules,
                         "checked_bindings": len(gate.checked_bindings),
                         "version": gate.version}})
    if verdict is not None and "verifier" in role_ids:
        annotations.append({
            "span_id": role_ids["verifier"], "name": "verifier", "annotator_kind": "CODE",
            "identifier": f"superbiz:{document.session_id}:verifier",
            "result": {"label": verdict.verdict, "score": verdict.groundedness_score,
                       "explanation": _cut("; ".join(verdict.reasons))},
            "metadata": {"outcome": document.outcome or "",
                         "claims": len(verdict.claim_results)}})
    return annotations
