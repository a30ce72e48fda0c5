"""The pipeline's events: one small typed class per thing that happens, in order.

The CLI prints them, the console renders them, the store appends them to ``session_events``.
Every event carries the ``session_id`` and its ``seq`` (0, 1, 2, ... within the session).
"""

# No ``from __future__ import annotations``: pydantic would evaluate each field's annotation from
# its string (as in ``core.contracts``).

from functools import cache
from typing import Annotated, Any, Literal, TypeAlias, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from core.contracts import (
    CheckedBinding,
    ClaimResult,
    ComposerOutput,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    ParseStatus,
    Plan,
    RetryContext,
    SessionDocument,
    VerifierResult,
    empty_list,
)


class Event(BaseModel):
    """Base of all events."""

    model_config = ConfigDict(defer_build=True)  # as core.contracts: validators on first use

    session_id: str = ""
    seq: int = 0
    # When it happened, in ms since the session started (None in sessions of older versions).
    at_ms: float | None = None


class SessionStarted(Event):
    """A session row exists; nothing has run yet."""

    kind: Literal["session_started"] = "session_started"
    question: str
    pack: str
    engines: dict[str, str]
    executor_fault: str | None = None


class PlanMade(Event):
    """The planner decided what to look at."""

    kind: Literal["plan_made"] = "plan_made"
    plan: Plan


class ToolCalled(Event):
    """The executor is about to call a tool with these arguments."""

    kind: Literal["tool_called"] = "tool_called"
    tool_name: str
    arguments: dict[str, Any]


class ToolReturned(Event):
    """A tool call was recorded: its id, raw output and evidence refs."""

    kind: Literal["tool_returned"] = "tool_returned"
    invocation: Invocation


class ClaimsProduced(Event):
    """The executor's structured output (claims, hypotheses, gaps, actions) and parse status."""

    kind: Literal["claims_produced"] = "claims_produced"
    executor_output: ExecutorOutput | None
    parse_status: ParseStatus


class BindingChecked(Event):
    """The gatekeeper's verdict on one binding."""

    kind: Literal["binding_checked"] = "binding_checked"
    checked: CheckedBinding


class GatekeeperFinished(Event):
    """The gatekeeper's overall result (status, severity, failed rules)."""

    kind: Literal["gatekeeper_finished"] = "gatekeeper_finished"
    result: GatekeeperResult


class ClaimJudged(Event):
    """The verifier's judgement of one claim."""

    kind: Literal["claim_judged"] = "claim_judged"
    claim_result: ClaimResult


class VerdictReached(Event):
    """The verifier's verdict and groundedness."""

    kind: Literal["verdict_reached"] = "verdict_reached"
    result: VerifierResult


class RepairRequested(Event):
    """The executor's attempt failed only in ways it can fix: it is asked once more, told which
    binding or claim failed, by which rule, and what the evidence there says (``feedback``).
    The events of the new attempt follow (tool calls, claims, bindings, judgements, verdict)."""

    kind: Literal["repair_requested"] = "repair_requested"
    attempt: int                      # the attempt about to be made (2)
    feedback: RetryContext


class RepairFinished(Event):
    """The repaired attempt was checked from scratch: its verdict, and the rules the first
    attempt failed (``repaired`` is true when the new attempt passes)."""

    kind: Literal["repair_finished"] = "repair_finished"
    attempt: int
    repaired: bool
    verdict: str
    previous_verdict: str
    previous_failed_rules: list[str] = Field(default_factory=empty_list)


class AnswerReady(Event):
    """The composer's answer, built only from what passed."""

    kind: Literal["answer_ready"] = "answer_ready"
    composer_output: ComposerOutput


class PipelineFailed(Event):
    """A stage failed; the session is stored with status ``error`` and all that came before."""

    kind: Literal["pipeline_failed"] = "pipeline_failed"
    stage: str
    message: str


class SessionFinished(Event):
    """The session is closed; ``document`` is the whole session document."""

    kind: Literal["session_finished"] = "session_finished"
    document: SessionDocument


# Every event the pipeline yields. Consumers dispatch with ``match`` over this union and end
# with ``assert_never``, so mypy names every consumer a new event class is missing from.
PipelineEvent: TypeAlias = (
    SessionStarted | PlanMade | ToolCalled | ToolReturned | ClaimsProduced | BindingChecked
    | GatekeeperFinished | ClaimJudged | VerdictReached | RepairRequested | RepairFinished
    | AnswerReady | PipelineFailed | SessionFinished)
# What an executor yields while it runs (the pipeline stamps and forwards them).
ToolEvent: TypeAlias = ToolCalled | ToolReturned

AnyEvent = Annotated[PipelineEvent, Field(discriminator="kind")]
# Derived from the union, so a new event class is listed once.
EVENT_TYPES: tuple[type[Event], ...] = get_args(PipelineEvent)


@cache
def _event_adapter() -> TypeAdapter[PipelineEvent]:
    # Built on first use: building it builds every event's and contract's validator, which a
    # command that never reads a stored event (--help, packs list) should not pay for at import.
    return TypeAdapter(AnyEvent)


def parse_event(payload: dict[str, Any]) -> PipelineEvent:
    """Rebuild a typed event from its stored JSON."""
    return _event_adapter().validate_python(payload)
