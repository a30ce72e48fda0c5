"""``superbiz gatekeeper check`` on (tampered) session documents, and ``recheck --all``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from core.cli import main
from core.store import Store
from core.store.models import SessionRow

QUESTION = "确认 order-service 是否存在 HikariCP 连接池耗尽"


def _ask_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[dict[str, Any], Path]:
    assert main(["ask", QUESTION, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    path = tmp_path / "session.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return document, path


def _first_log_binding(document: dict[str, Any]) -> dict[str, Any]:
    return next(binding for claim in document["executor_output"]["claims"]
                for binding in claim["evidence_bindings"]
                if (binding.get("raw_path") or "").startswith("$.logs["))


def test_check_passes_an_untouched_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, path = _ask_document(capsys, tmp_path)
    assert main(["gatekeeper", "check", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["severity"], result["failed_rules"]) == ("pass", "none", [])
    assert result["version"] and all(b["status"] == "pass" for b in result["checked_bindings"])


@pytest.mark.parametrize("tamper,rule", [
    (lambda b: b.update(evidence_excerpt=b["evidence_excerpt"].replace("30000ms", "3000ms")
                        .replace("active=50/50", "active=5/50")), "evidence.excerpt_mismatch"),
    (lambda b: b.update(raw_path="$.logs[99]"), "evidence.raw_path"),
    (lambda b: b.update(raw_path="$.logs[0].message"), "evidence.raw_path"),
    (lambda b: b.update(source_invocation_id=987654321), "evidence.invocation_ref"),
    (lambda b: b.update(tool_name="query_metrics"), "evidence.tool_mismatch"),
])
def test_check_rejects_a_tampered_citation(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           tamper: Callable[[dict[str, Any]], None], rule: str) -> None:
    document, path = _ask_document(capsys, tmp_path)
    tamper(_first_log_binding(document))
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert main(["gatekeeper", "check", str(path), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["severity"]) == ("fail", "reject")
    assert rule in result["failed_rules"]


def test_check_human_output_and_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    document, path = _ask_document(capsys, tmp_path)
    _first_log_binding(document)["raw_path"] = None
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert main(["gatekeeper", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "gatekeeper: fail (severity low_confid)" in out and "evidence.raw_path_missing" in out

    broken = tmp_path / "broken.json"
    broken.write_text("{\"session_id\": ", encoding="utf-8")
    assert main(["gatekeeper", "check", str(broken)]) == 2
    assert "broken.json: not JSON" in capsys.readouterr().err
    assert main(["gatekeeper", "check", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_recheck_all_reports_changed_verdicts(capsys: pytest.CaptureFixture[str], tmp_store: Store) -> None:
    assert main(["ask", QUESTION, "--json"]) == 0
    session_id = json.loads(capsys.readouterr().out)["session_id"]
    assert main(["gatekeeper", "recheck", "--all", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"checked": 1, "changed": []}

    # A session stored by an older, laxer gatekeeper: same document, another verdict.
    with tmp_store.engine.begin() as connection:
        connection.execute(update(SessionRow).where(SessionRow.id == session_id).values(
            self_evaluation={"verifier_evaluation": {"verifier_result": {
                "verdict": "REJECT", "groundedness_score": 0.0}}}))
    assert main(["gatekeeper", "recheck", "--all"]) == 0
    out = capsys.readouterr().out
    assert "re-checked 1 sessions; 1 changed" in out and f"{session_id}: REJECT -> PASS" in out
