"""One investigation as the Investigate page shows it, folded from pipeline events.

The same fold serves a live run (events as they arrive) and a stored one (events read back from
the store by session id), so what a person sees during a run is what they see after a reload.
A session without stored events (written by an older build, or imported) is rebuilt from its
session document instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    ComposerOutput,
    EvidenceBinding,
    EvidenceRef,
    ExecutorAttempt,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    ParseStatus,
    Plan,
    SessionDocument,
    VerifierResult,
)
from core.events import (
    AnswerReady,
    BindingChecked,
    ClaimJudged,
    ClaimsProduced,
    GatekeeperFinished,
    PipelineEvent,
    PipelineFailed,
    PlanMade,
    RepairFinished,
    RepairRequested,
    SessionFinished,
    SessionStarted,
    ToolCalled,
    ToolReturned,
    VerdictReached,
    parse_event,
)
from core.views.outcomes import Meaning, meaning_of


@dataclass
class ToolCallView:
    """One tool call: arguments first, then (once returned) the recorded invocation."""

    tool_name: str
    arguments: dict[str, Any]
    invocation: Invocation | None = None
    # When the call was made (ms since the session started), from its ``ToolCalled`` event.
    called_at_ms: float | None = None

    @property
    def returned(self) -> bool:
        """Whether the call has come back."""
        return self.invocation is not None

    @property
    def evidence_status(self) -> str | None:
        """``supported`` / ``no_evidence`` / ``error`` once returned."""
        details = self.invocation.retrieval_details if self.invocation else None
        return details.evidence_status if details else None

    @property
    def evidence_refs(self) -> list[EvidenceRef]:
        """The refs the recorder extracted."""
        details = self.invocation.retrieval_details if self.invocation else None
        return list(details.evidence_refs) if details else []

    @property
    def result_bytes(self) -> int:
        """Size of the raw output as compact UTF-8 JSON."""
        if self.invocation is None:
            return 0
        return len(json.dumps(self.invocation.output, ensure_ascii=False,
                              separators=(",", ":")).encode("utf-8"))


@dataclass
class BindingRow:
    """A claim's binding next to the gatekeeper's verdict on it (``None`` until checked)."""

    index: int
    binding: EvidenceBinding
    checked: CheckedBinding | None


@dataclass
class InvestigationView:
    """Everything the Investigate page shows about one session."""

    session_id: str = ""
    question: str = ""
    pack: str = ""
    engines: dict[str, str] = field(default_factory=dict)
    executor_fault: str | None = None
    status: str = "running"
    outcome: str | None = None  # found / absent / unknown_subject / not_understood, once final
    plan: Plan | None = None
    tool_calls: list[ToolCallView] = field(default_factory=list)
    executor_output: ExecutorOutput | None = None
    parse_status: ParseStatus | None = None
    checked_bindings: list[CheckedBinding] = field(default_factory=list)
    gatekeeper: GatekeeperResult | None = None
    claim_results: list[ClaimResult] = field(default_factory=list)
    verifier: VerifierResult | None = None
    composer: ComposerOutput | None = None
    # Executor attempts a repair turn superseded, with the feedback after each (oldest first).
    attempts: list[ExecutorAttempt] = field(default_factory=list)
    failure: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    stage_starts_ms: dict[str, float] = field(default_factory=dict)
    event_count: int = 0

    @property
    def finished(self) -> bool:
        """Whether the session is closed (successfully or not)."""
        return self.status != "running"

    @property
    def verdict(self) -> str | None:
        """The verdict as shown: final only once the session completed (None while it runs),
        and never a PASS for a session that did not complete."""
        if self.verifier is None or self.status == "running":
            return None
        if self.status != "completed" and self.verifier.verdict == "PASS":
            return None
        return self.verifier.verdict

    @property
    def claims(self) -> list[Claim]:
        """The executor's claims (empty before it answers)."""
        return list(self.executor_output.claims) if self.executor_output else []

    @property
    def meaning(self) -> Meaning:
        """What the session's result means to a reader (``core.views.outcomes``)."""
        return meaning_of(verdict=self.verdict, outcome=self.outcome, status=self.status)

    def claim_result(self, claim_id: str) -> ClaimResult | None:
        """The verifier's judgement of ``claim_id``, if made."""
        return next((r for r in self.claim_results if r.claim_id == claim_id), None)

    def binding_rows(self, claim: Claim) -> list[BindingRow]:
        """The claim's bindings, each with its checked result (matched by claim and index)."""
        checked = {(c.claim_id, c.binding_index): c for c in self.checked_bindings}
        return [BindingRow(index, binding, checked.get((claim.claim_id, index)))
                for index, binding in enumerate(claim.evidence_bindings)]


def _record_invocation(view: InvestigationView, invocation: Invocation) -> None:
    """Attach a returned invocation to the oldest pending call of the same tool."""
    for call in view.tool_calls:
        if call.invocation is None and call.tool_name == invocation.tool_name:
            call.invocation = invocation
            return
    view.tool_calls.append(ToolCallView(invocation.tool_name, dict(invocation.arguments),
                                        invocation))


def apply_event(view: InvestigationView, event: PipelineEvent) -> InvestigationView:
    """Fold one event into the view (in place) and return it."""
    view.event_count += 1
    view.session_id = event.session_id or view.session_id
    match event:
        case SessionStarted():
            view.question, view.pack = event.question, event.pack
            view.engines, view.executor_fault = dict(event.engines), event.executor_fault
        case PlanMade():
            view.plan = event.plan
        case ToolCalled():
            view.tool_calls.append(ToolCallView(event.tool_name, dict(event.arguments),
                                                called_at_ms=event.at_ms))
        case ToolReturned():
            _record_invocation(view, event.invocation)
        case ClaimsProduced():
            view.executor_output, view.parse_status = event.executor_output, event.parse_status
        case BindingChecked():
            view.checked_bindings.append(event.checked)
        case GatekeeperFinished():
            view.gatekeeper = event.result
            view.checked_bindings = list(event.result.checked_bindings)
        case ClaimJudged():
            view.claim_results.append(event.claim_result)
        case VerdictReached():
            view.verifier = event.result
            view.claim_results = list(event.result.claim_results)
        case RepairRequested():
            _supersede_attempt(view, event)
        case RepairFinished():
            pass  # the new attempt's own events carry its results
        case AnswerReady():
            view.composer = event.composer_output
        case PipelineFailed():
            view.failure = f"{event.stage}: {event.message}"
            view.status = "error"
        case SessionFinished():
            view.status = event.document.status
            view.outcome = event.document.outcome
            view.timings_ms = dict(event.document.timings_ms)
            view.stage_starts_ms = dict(event.document.stage_starts_ms)
            view.failure = view.failure or event.document.error
        case _:
            assert_never(event)
    return view


def _supersede_attempt(view: InvestigationView, event: RepairRequested) -> None:
    """The current attempt becomes an earlier one; the repaired attempt's events follow."""
    view.attempts.append(ExecutorAttempt(
        attempt=len(view.attempts) + 1, executor_output=view.executor_output,
        executor_output_parse_status=view.parse_status, gatekeeper_result=view.gatekeeper,
        verifier_result=view.verifier, feedback=event.feedback))
    view.executor_output = view.parse_status = view.gatekeeper = view.verifier = None
    view.checked_bindings, view.claim_results = [], []


def describe_event(event: PipelineEvent) -> str:
    """One line saying what happened, for the event log."""
    match event:
        case SessionStarted():
            return f"session started on pack {event.pack}"
        case PlanMade():
            plan = event.plan
            return (f"plan: services {', '.join(plan.services) or '-'}; topics "
                    f"{', '.join(plan.topics) or '-'}; narrow={plan.narrow}")
        case ToolCalled():
            return f"{event.tool_name} {json.dumps(event.arguments, ensure_ascii=False)}"
        case ToolReturned():
            details = event.invocation.retrieval_details
            status = details.evidence_status if details else "?"
            refs = len(details.evidence_refs) if details else 0
            invocation = event.invocation
            return f"{invocation.tool_name} #{invocation.invocation_id}: {status}, {refs} refs"
        case ClaimsProduced():
            claims = len(event.executor_output.claims) if event.executor_output else 0
            return f"{claims} claim(s); parse status {event.parse_status.status}"
        case BindingChecked():
            checked = event.checked
            owner = checked.claim_id or checked.action_id or "?"
            verdict = ("pass" if checked.status == "pass"
                       else f"{checked.severity} ({checked.rule})")
            return f"{owner} binding #{checked.binding_index}: {verdict}"
        case GatekeeperFinished():
            return f"gatekeeper {event.result.status} / {event.result.severity}"
        case ClaimJudged():
            result = event.claim_result
            return f"{result.claim_id}: {'entailed' if result.entailed else 'not entailed'}"
        case VerdictReached():
            return (f"verdict {event.result.verdict}, "
                    f"groundedness {event.result.groundedness_score:.2f}")
        case RepairRequested():
            feedback = event.feedback
            return (f"repair turn (attempt {event.attempt}): {len(feedback.findings)} finding(s) "
                    f"sent to the executor ({', '.join(feedback.failed_rules)})")
        case RepairFinished():
            return (f"attempt {event.attempt} checked from scratch: {event.verdict} "
                    f"(first attempt {event.previous_verdict})")
        case AnswerReady():
            return f"answer ready ({event.composer_output.status})"
        case PipelineFailed():
            return f"failed at {event.stage}: {event.message}"
        case SessionFinished():
            return f"session {event.document.status}"
        case _:
            assert_never(event)


def event_rows(events: Sequence[PipelineEvent]) -> list[dict[str, Any]]:
    """The event log: sequence number, time (ms since the session started), kind, and what
    happened."""
    return [{"seq": event.seq,
             "at (ms)": round(event.at_ms, 1) if event.at_ms is not None else None,
             "event": event.kind, "what happened": describe_event(event)}
            for event in events]


def view_from_events(events: Iterable[PipelineEvent]) -> InvestigationView:
    """Fold a whole event sequence."""
    view = InvestigationView()
    for event in events:
        apply_event(view, event)
    return view


def parse_stored_events(rows: Sequence[Any]) -> list[PipelineEvent]:
    """Typed events from stored ``session_events`` rows (``kind`` + ``payload``)."""
    return [parse_event({**row.payload, "kind": row.kind}) for row in rows]


def view_from_document(document: SessionDocument) -> InvestigationView:
    """The view of a session rebuilt from its document (no events needed)."""
    gatekeeper = document.gatekeeper_result
    verifier = document.verifier_result
    return InvestigationView(
        session_id=document.session_id, question=document.question, pack=document.pack,
        engines=dict(document.engines), executor_fault=document.executor_fault,
        status=document.status, outcome=document.outcome, plan=document.plan,
        tool_calls=[ToolCallView(i.tool_name, dict(i.arguments), i) for i in document.invocations],
        executor_output=document.executor_output,
        parse_status=document.executor_output_parse_status,
        checked_bindings=list(gatekeeper.checked_bindings) if gatekeeper else [],
        gatekeeper=gatekeeper,
        claim_results=list(verifier.claim_results) if verifier else [],
        verifier=verifier, composer=document.composer_output, attempts=list(document.attempts),
        failure=document.error, timings_ms=dict(document.timings_ms),
        stage_starts_ms=dict(document.stage_starts_ms))


def load_view(events: Sequence[PipelineEvent], document: SessionDocument | None) -> InvestigationView:
    """The best view of a stored session: its events when there are any, else its document.

    A finished session's status and timings always come from the document (the authority).
    """
    if not events:
        return view_from_document(document) if document else InvestigationView()
    view = view_from_events(events)
    if document is not None:
        view.status = document.status
        view.outcome = document.outcome
        view.timings_ms = dict(document.timings_ms) or view.timings_ms
        view.stage_starts_ms = dict(document.stage_starts_ms) or view.stage_starts_ms
        view.failure = view.failure or document.error
        if document.status != "completed" and document.verifier_result is not None:
            view.verifier = document.verifier_result  # a PASS withdrawn for a killed session
    return view
