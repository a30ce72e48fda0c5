"""``superbiz ask`` and ``superbiz replay`` through the real CLI entry point."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from core.agents import registry
from core.agents.base import ExecutorRun
from core.agents.registry import Engines, build_engines
from core.cli import main
from core.contracts import Plan, SessionDocument
from core.recorder import Recorder
from core.store import open_store, repository

MEMORY_ZH = "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。"


def _ask_json(capsys: pytest.CaptureFixture[str], *extra: str) -> SessionDocument:
    code = main(["ask", MEMORY_ZH, "--json", *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return SessionDocument.model_validate(json.loads(captured.out))


def test_ask_json_prints_one_session_document_and_stores_it(capsys: pytest.CaptureFixture[str],
                                                            _isolated_store: Path) -> None:
    document = _ask_json(capsys)
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    assert document.composer_output is not None and "91%" in document.composer_output.user_facing_answer
    assert document.invocations and document.plan is not None
    stored = repository.load_session_document(open_store(str(_isolated_store)),
                                              session_id=document.session_id)
    assert stored is not None and stored.status == "completed"


def test_ask_prints_each_stage_readably(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "Only confirm whether user-service has a SlowResponse alert and slow request logs.",
                 "--no-store"])
    out = capsys.readouterr().out
    assert code == 0
    labels = [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]
    for label in ("session", "plan", "tool", "claims", "gate", "verify", "verdict", "answer", "done"):
        assert label in labels
    assert "query_metrics(service=user-service, alert_name=SlowResponse) -> supported, 1 ref(s)" in out
    assert "verdict  PASS  groundedness 1.00" in out
    assert not any(line.lstrip().startswith("{") for line in out.splitlines())


def test_no_store_writes_nothing(capsys: pytest.CaptureFixture[str], _isolated_store: Path) -> None:
    _ask_json(capsys, "--no-store")
    assert repository.list_sessions(open_store(str(_isolated_store))) == []


def test_executor_fault_is_caught_and_still_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    document = _ask_json(capsys, "--executor-fault", "tamper_number")
    assert document.executor_fault == "tamper_number"
    assert document.verifier_result is not None and document.verifier_result.verdict == "REJECT"


def test_unknown_fault_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", MEMORY_ZH, "--executor-fault", "nonsense"]) == 2
    assert "tamper_number" in capsys.readouterr().err


def test_a_session_that_ends_in_error_exits_one(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    class BrokenExecutor:  # stands in for a failing model endpoint
        engine = "broken"

        def run(self, plan: Plan, recorder: Recorder) -> ExecutorRun:
            raise RuntimeError("endpoint down")
            yield  # pragma: no cover  (makes this a generator)

    rules = build_engines("rules")
    broken = Engines(planner=rules.planner, executor=BrokenExecutor(), verifier=rules.verifier,
                     composer=rules.composer)
    monkeypatch.setattr(registry, "build_engines", lambda roles: broken)  # what run_ask imports
    code = main(["ask", MEMORY_ZH])
    captured = capsys.readouterr()
    assert code == 1
    # Every error on stderr: the failed stage is one line there, not in the transcript.
    errors = [line.split(maxsplit=1) for line in captured.err.splitlines()]
    assert errors == [["error", "stage execute failed: RuntimeError: endpoint down"]], captured.err
    assert "stage execute failed" not in captured.out
    assert "session error" in captured.out


def test_llm_engine_missing_is_one_line_error(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "core.agents.llm", None)  # as if not installed
    code = main(["ask", MEMORY_ZH, "--executor", "llm"])
    err = capsys.readouterr().err
    assert code == 2 and "llm engine not available" in err and len(err.strip().splitlines()) == 1


def test_replay_catches_a_tampered_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    document = _ask_json(capsys)
    assert document.executor_output is not None
    data = json.loads(document.model_dump_json())
    binding = data["executor_output"]["claims"][0]["evidence_bindings"][0]
    binding["evidence_excerpt"] = binding["evidence_excerpt"].replace("91%", "19%")
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    assert main(["replay", str(path), "--json"]) == 0
    replayed = SessionDocument.model_validate(json.loads(capsys.readouterr().out))
    assert replayed.gatekeeper_result is not None and replayed.verifier_result is not None
    assert "evidence.excerpt_mismatch" in replayed.gatekeeper_result.failed_rules
    assert replayed.verifier_result.verdict == "REJECT"

    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "FAIL evidence.excerpt_mismatch" in out and "verdict  REJECT" in out


def test_replay_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    document = _ask_json(capsys, "--no-store")
    monkeypatch.setattr("sys.stdin", io.StringIO(document.model_dump_json()))
    assert main(["replay", "-", "--json"]) == 0
    replayed = SessionDocument.model_validate(json.loads(capsys.readouterr().out))
    assert replayed.verifier_result is not None and replayed.verifier_result.verdict == "PASS"


def test_replay_of_a_broken_file_is_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "not JSON" in capsys.readouterr().err
