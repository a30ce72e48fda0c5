"""Shared helpers of the llm tests (plain functions, not fixtures)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from core.agents.base import ExecutorRun
from core.agents.llm.profiles import PROFILES, ModelProfile
from core.contracts import ExecutorOutput, ParseStatus
from core.events import Event
from tests.doubles.chat_clients import ScriptedChatClient

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


def ask_served_process(server_args: list[str], question: str, db: Path) -> list[str]:
    """Start a model double as a user does (``python -m <module> ... --port 0``), then ask
    ``question`` through the CLI in another process pointed at it; prints the session's
    status, verdict and repairs, and whether the llm client was imported."""
    repo_root = Path(__file__).resolve().parents[2]
    server = subprocess.Popen([sys.executable, "-m", *server_args, "--port", "0"],
                              cwd=repo_root, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
        assert line.startswith("listening on "), line
        env = {**{k: v for k, v in os.environ.items()
                  if not k.startswith(("SUPERBIZ_LLM_", "OPENAI_"))},
               "SUPERBIZ_LLM_BASE_URL": line.removeprefix("listening on "), "SUPERBIZ_DB": str(db)}
        probe = ("import json, sys, io, contextlib\nfrom core.cli import main\nout = io.StringIO()\n"
                 "with contextlib.redirect_stdout(out):\n"
                 f"    main(['ask', {question!r}, '--executor', 'llm', '--json'])\n"
                 "d = json.loads(out.getvalue())\n"
                 "print(d['status'], d['verifier_result']['verdict'], "
                 "d['verifier_result']['repairs'], 'openai' in sys.modules)")
        completed = subprocess.run([sys.executable, "-c", probe], cwd=repo_root, env=env,
                                   capture_output=True, text=True, timeout=120, check=True)
        return completed.stdout.split()
    finally:
        server.terminate()
        server.wait(timeout=10)
