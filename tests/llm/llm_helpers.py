"""Shared helpers of the llm tests (plain functions, not fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.agents.base import ExecutorRun
from core.agents.llm.profiles import PROFILES, ModelProfile
from core.agents.llm.testing import ScriptedChatClient
from core.contracts import ExecutorOutput, ParseStatus
from core.events import Event

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"
STUB = PROFILES["stub"]
VLLM = PROFILES["vllm"]


def scripted(name: str) -> ScriptedChatClient:
    """A scripted client replaying ``tests/llm/transcripts/<name>.yaml``."""
    return ScriptedChatClient(TRANSCRIPTS / f"{name}.yaml")


def drive(run: ExecutorRun) -> tuple[list[Event], ExecutorOutput | None, ParseStatus]:
    """Run an executor generator to its end: its events, output and parse status."""
    events: list[Event] = []
    while True:
        try:
            events.append(next(run))
        except StopIteration as finished:
            output, status = finished.value
            return events, output, status


def final_claims(**claim: Any) -> dict[str, Any]:
    """A final executor answer with one claim."""
    return {"content": {"claims": [claim], "hypotheses": [], "missing_info": [],
                        "recommended_actions": []}}


def profile_without_schemas() -> ModelProfile:
    """A backend with neither JSON-schema output nor JSON mode (prompted JSON only)."""
    return ModelProfile("plain", json_schema_output=False, json_object_output=False)


def executor_stage(transcript: str, world: Any, plan: Any) -> Any:
    """Executor (scripted) + real gatekeeper over ``world``: the verifier input they produce."""
    from core.agents.llm.executor import LLMExecutor
    from core.contracts import VerifierInput
    from core.gatekeeper import check_citations
    from core.recorder import Recorder
    from core.trace import build_trace_summary

    recorder = Recorder(world=world, session_id="s-llm-roles")
    _, output, status = drive(LLMExecutor(scripted(transcript), VLLM).run(plan, recorder))
    gatekeeper = check_citations(session_id="s-llm-roles", invocations=recorder.invocations,
                                 executor_output=output, parse_status=status)
    return VerifierInput(original_query=plan.question,
                         executor_structured_output=output or ExecutorOutput(),
                         gatekeeper_result=gatekeeper,
                         tool_trace_summary=build_trace_summary(recorder.invocations),
                         executor_output_parse_status=status)
