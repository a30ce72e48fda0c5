"""End to end over HTTP: ``superbiz ask ... --engine llm --json`` against the stub server.

The full transcript matrix runs against in-process stub servers (real HTTP on 127.0.0.1, real
``openai`` client); a few cases also run against the stub as a subprocess, exactly as a user
would start it. Every dishonest transcript must be caught with the right grade, every fault
recorded on the session, and nothing but the honest ones may end PASS.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.agents.llm.stub_server import StubServer
from core.agents.llm.transcript import load_transcript
from core.cli import main
from core.store.repository import list_events, load_session_document
from tests.llm.llm_helpers import TRANSCRIPTS

REPO_ROOT = Path(__file__).resolve().parents[2]
API_KEY = "sk-e2e-secret-0123456789"
HIKARI = "确认 order-service 是否存在 HikariCP 连接池耗尽"
MEMORY = "只确认 order-service 是否存在 HighMemoryUsage 告警"

# transcript -> (question, session status, verdict, rule that must be reported)
CASES: dict[str, tuple[str, str, str | None, str | None]] = {
    "honest_hikaricp": (HIKARI, "completed", "PASS", None),
    "honest_memory": (MEMORY, "completed", "PASS", None),
    "fabricated_invocation": (HIKARI, "completed", "REJECT", "evidence.invocation_ref"),
    "tampered_number": (HIKARI, "completed", "REJECT", "evidence.excerpt_mismatch"),
    # Told by the repair turn what the ref says, the model copies it: PASS on the second attempt.
    "repaired_tampered_number": (HIKARI, "completed", "PASS", None),
    "runbook_as_fact": (HIKARI, "completed", "REJECT", "verifier.runbook_as_fact"),
    "broken_json": (HIKARI, "completed", "LOW_CONFID", "evidence.output_incomplete"),
    "fault_empty_answer": (HIKARI, "completed", "LOW_CONFID", "evidence.output_incomplete"),
    "fault_unknown_tool": (HIKARI, "completed", "LOW_CONFID", "evidence.output_incomplete"),
    "fault_invented_arguments": (HIKARI, "completed", "LOW_CONFID", "evidence.output_incomplete"),
    "fault_timeout": (HIKARI, "error", None, "(timeout)"),
    "fault_http_500": (HIKARI, "error", None, "(http_error)"),
    "fault_rate_limit": (HIKARI, "error", None, "(rate_limited): HTTP 429"),
    "fault_invalid_json": (HIKARI, "error", None, "(invalid_output)"),
    "fault_verifier_http_500": (HIKARI, "error", None, "llm verifier step failed (http_error)"),
    # Wire forms a real server or another team's stub may legitimately send.
    "honest_wire_forms": (HIKARI, "completed", "PASS", None),
    "turn_ordered_honest": (HIKARI, "completed", "PASS", None),
    # The seed's required fields (claim_type, a binding's tool_name) are reported, never defaulted.
    "missing_required_fields": (HIKARI, "completed", "LOW_CONFID", "verifier.missing_field"),
    # The rules plan stands in, but a failed model step never ends PASS.
    "planner_unusable_falls_back": (HIKARI, "completed", "LOW_CONFID", None),
    "fault_refusal": (HIKARI, "completed", "LOW_CONFID", "evidence.output_incomplete"),
    "fault_http_503": (HIKARI, "error", None, "llm executor step failed (http_error): HTTP 503"),
    "fault_connection_reset": (HIKARI, "error", None, "llm executor step failed (connection)"),
    "fault_no_choices": (HIKARI, "error", None, "without any choice (no 'choices')"),
    "fault_empty_choices": (HIKARI, "error", None, "without any choice (an empty 'choices'"),
    "fault_error_body": (HIKARI, "error", None, "answered with an error and no choice"),
}


def test_every_transcript_has_a_case() -> None:
    assert {path.stem for path in TRANSCRIPTS.glob("*.yaml")} == set(CASES)


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in ("SUPERBIZ_LLM_MODEL", "SUPERBIZ_LLM_BACKEND", "OPENAI_MODEL",
                 "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SUPERBIZ_LLM_API_KEY", API_KEY)
    monkeypatch.setenv("SUPERBIZ_LLM_TIMEOUT_S", "1")
    monkeypatch.setenv("SUPERBIZ_LLM_MAX_RETRIES", "0")
    yield monkeypatch


def ask_json(capsys: pytest.CaptureFixture[str], question: str,
             *engine_args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["ask", question, *engine_args, "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def assert_case(name: str, code: int, document: dict[str, Any]) -> None:
    _, status, verdict, rule = CASES[name]
    assert document["status"] == status, document.get("error")
    verifier = document.get("verifier_result") or {}
    assert verifier.get("verdict") == verdict
    if status == "error":
        assert code == 1 and rule in document["error"]
        return
    assert code == 0
    gatekeeper = document["gatekeeper_result"]
    reported = gatekeeper["failed_rules"] + [r["rule"] for r in verifier["claim_results"]]
    assert (rule in reported) if rule else (gatekeeper["status"] == "pass")


@pytest.mark.parametrize("name", sorted(CASES))
def test_transcript_through_the_cli_over_http(name: str, llm_env: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str],
                                              tmp_store: Any) -> None:
    with StubServer(load_transcript(TRANSCRIPTS / f"{name}.yaml"), api_key=API_KEY) as stub:
        llm_env.setenv("SUPERBIZ_LLM_BASE_URL", stub.base_url)
        code, document, err = ask_json(capsys, CASES[name][0], "--engine", "llm")

    assert_case(name, code, document)
    assert document["engines"] == {role: "llm" for role in
                                   ("planner", "executor", "verifier", "composer")}
    assert API_KEY not in json.dumps(document) + err
    stored = load_session_document(tmp_store, session_id=document["session_id"])
    assert stored is not None and stored.status == document["status"]
    assert len(stored.invocations) == len(document["invocations"])  # nothing lost on a fault


def test_what_the_forgiving_cases_record(llm_env: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Tolerance leaves a trace: the fallback plan says why, a refusal is quoted, the 429's
    Retry-After is kept, and every invocation the model asked for is recorded."""
    documents = {}
    for name in ("planner_unusable_falls_back", "fault_refusal", "fault_rate_limit",
                 "honest_wire_forms"):
        with StubServer(load_transcript(TRANSCRIPTS / f"{name}.yaml")) as stub:
            llm_env.setenv("SUPERBIZ_LLM_BASE_URL", stub.base_url)
            documents[name] = ask_json(capsys, HIKARI, "--engine", "llm")[1]
    plan_notes = documents["planner_unusable_falls_back"]["plan"]["notes"]
    assert "the llm planner's answer was not used" in plan_notes[0]
    assert "it is not a Plan" in plan_notes[0]
    fallback = documents["planner_unusable_falls_back"]
    assert fallback["plan"]["degraded"] == plan_notes[0]
    assert any(reason.startswith("PASS withdrawn: the plan is a fallback")
               for reason in fallback["verifier_result"]["reasons"])
    refused = documents["fault_refusal"]["executor_output_parse_status"]
    assert refused["status"] == "invalid" and "I'm sorry, I can't help" in refused["detail"]
    assert "(Retry-After: 7)" in documents["fault_rate_limit"]["error"]
    wire_forms = documents["honest_wire_forms"]
    assert [i["tool_name"] for i in wire_forms["invocations"]] == ["query_logs", "query_metrics"]
    assert wire_forms["executor_output"]["claims"][0]["evidence_bindings"][0][
        "source_invocation_id"] == wire_forms["invocations"][0]["invocation_id"]
    assert "worded by the llm composer" in wire_forms["composer_output"]["notes"][0]


def test_mixed_engines_llm_executor_with_rules_verifier(llm_env: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with StubServer(load_transcript(TRANSCRIPTS / "honest_hikaricp.yaml")) as stub:
        llm_env.setenv("SUPERBIZ_LLM_BASE_URL", stub.base_url)
        code, document, _ = ask_json(capsys, HIKARI, "--executor", "llm")
    assert code == 0 and document["verifier_result"]["verdict"] == "PASS"
    assert document["engines"] == {"planner": "rules", "executor": "llm",
                                   "verifier": "rules", "composer": "rules"}


def test_mixed_engines_still_catch_the_tampered_number(llm_env: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with StubServer(load_transcript(TRANSCRIPTS / "tampered_number.yaml")) as stub:
        llm_env.setenv("SUPERBIZ_LLM_BASE_URL", stub.base_url)
        _, document, _ = ask_json(capsys, HIKARI, "--executor", "llm", "--verifier", "rules")
    assert document["verifier_result"]["verdict"] == "REJECT"
    assert "waiting=23" not in document["composer_output"]["user_facing_answer"]


def test_the_repair_turn_over_http_is_stored_whole(llm_env: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   tmp_store: Any, tmp_path: Path) -> None:
    """The executor is told which binding failed, by which rule and what the ref says; its
    second answer is checked from scratch; both attempts and the feedback stay readable."""
    log = tmp_path / "requests.jsonl"
    with StubServer(load_transcript(TRANSCRIPTS / "repaired_tampered_number.yaml"),
                    log_requests=log) as stub:
        llm_env.setenv("SUPERBIZ_LLM_BASE_URL", stub.base_url)
        code, document, _ = ask_json(capsys, HIKARI, "--executor", "llm")
    assert code == 0 and document["verifier_result"]["verdict"] == "PASS"
    assert document["verifier_result"]["repairs"] == 1
    first = document["attempts"][0]
    assert first["verifier_result"]["verdict"] == "REJECT"
    assert first["gatekeeper_result"]["failed_rules"] == ["evidence.excerpt_mismatch"]
    assert "waiting=23" in first["executor_output"]["claims"][0]["claim_text"]
    finding = first["feedback"]["findings"][0]
    assert finding["rule"] == "evidence.excerpt_mismatch" and finding["binding_index"] == 0
    assert "waiting=32" in finding["ref_text"]
    answer = document["composer_output"]["user_facing_answer"]
    assert "waiting=32" in answer and "waiting=23" not in answer
    assert "修正说明" in answer and "evidence.excerpt_mismatch" in answer
    # The re-ask the model got: the rule, the quote and what the ref says, as text and JSON.
    bodies = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    reask = bodies[-1]["messages"][-1]["content"]
    assert "evidence.excerpt_mismatch" in reask and "waiting=23" in reask
    assert "The ref at that place says: «[" in reask and "(retry_context):" in reask
    # Stored: both attempts, the feedback and the repair events read back from the store.
    stored = load_session_document(tmp_store, session_id=document["session_id"])
    assert stored is not None and stored.attempts[0].feedback is not None
    assert stored.attempts[0].gatekeeper_result is not None
    assert stored.attempts[0].gatekeeper_result.checked_bindings[0].status == "fail"
    assert stored.gatekeeper_result is not None
    assert [b.status for b in stored.gatekeeper_result.checked_bindings] == ["pass"]
    kinds = [row.kind for row in list_events(tmp_store, session_id=document["session_id"])]
    assert kinds.count("claims_produced") == 2 and kinds.count("verdict_reached") == 2
    assert kinds.index("repair_requested") < kinds.index("repair_finished")


@pytest.fixture
def stub_process(request: pytest.FixtureRequest) -> Iterator[str]:
    """The stub server as a subprocess; yields its base URL."""
    transcript = TRANSCRIPTS / f"{request.param}.yaml"
    process = subprocess.Popen(
        [sys.executable, "-m", "core.agents.llm.stub_server", "--transcript", str(transcript),
         "--port", "0", "--api-key", API_KEY], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("listening on "), line
        yield line.removeprefix("listening on ")
    finally:
        process.terminate()
        process.wait(timeout=5)


@pytest.mark.parametrize("stub_process", ["honest_hikaricp", "fabricated_invocation",
                                          "fault_rate_limit"], indirect=True)
def test_against_the_stub_server_subprocess(stub_process: str, request: pytest.FixtureRequest,
                                            llm_env: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    name = request.node.callspec.params["stub_process"]
    llm_env.setenv("SUPERBIZ_LLM_BASE_URL", stub_process)
    code, document, err = ask_json(capsys, CASES[name][0], "--engine", "llm")
    assert_case(name, code, document)
    assert API_KEY not in json.dumps(document) + err
