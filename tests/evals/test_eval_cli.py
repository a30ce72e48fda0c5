"""``superbiz eval`` end to end: real pipeline, real SQLite store, exit codes, JSON, JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from core.cli import main
from core.store import Store
from core.store.repository import list_case_results, list_eval_runs, load_session_document

GOOD_CASES = """\
- id: cpu-narrow
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  tags: [cpu, narrow]
  expect:
    verdict: PASS
    gatekeeper_status: pass
    claim_types: [observation]
    max_claims: 2
    evidence_tools: [query_metrics]
    forbidden: [HikariCP, order-service]
- id: hikari-negative
  question: 确认 inventory-service 是否存在 HikariCP 连接池耗尽
  tags: [hikaricp, negative]
  expect:
    claim_types: [negative_observation]
    evidence_status: {query_logs: no_evidence}
    answer_includes: ["未检索到"]
- id: fabricated-path
  question: 只确认 order-service 是否存在 HighMemoryUsage 告警
  executor_fault: fabricate_path
  tags: [fault]
  expect:
    verdict: REJECT
    gatekeeper_severity: reject
    failed_rules_include: [evidence.raw_path]
"""

WRONG_EXPECTATION = """\
- id: cpu-wrongly-rejected
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  expect:
    verdict: REJECT
    max_claims: 2
"""


def write(tmp_path: Path, text: str, name: str = "cases.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_passing_file_exits_zero_stores_the_run_and_links_sessions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], tmp_store: Store) -> None:
    cases = write(tmp_path, GOOD_CASES)
    junit = tmp_path / "junit.xml"
    code = main(["eval", str(cases), "--json", "--junit", str(junit), "--workers", "2"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0, captured.out
    assert (report["total"], report["passed"], report["failed"]) == (3, 3, 0)
    assert [case["id"] for case in report["cases"]] == ["cpu-narrow", "hikari-negative", "fabricated-path"]
    assert "[3/3]" in captured.err and "PASS" in captured.err
    metrics = report["metrics"]
    assert metrics["verdict_accuracy"]["value"] == 1.0
    assert metrics["fault_catch_rate"]["fabricate_path"]["value"] == 1.0
    assert metrics["citation_recall"] == {"value": 1.0, "hits": 1, "total": 1}
    assert metrics["latency_ms"]["median"] > 0
    # cpu-narrow and hikari-negative (a verified absence) said PASS, rightly.
    assert metrics["pass_precision"] == {"value": 1.0, "hits": 2, "total": 2}
    assert metrics["wrong_pass"] == {"count": 0, "cases": []}
    assert metrics["false_absence_rate"] == {"value": None, "hits": 0, "total": 0}

    store = tmp_store  # the same SQLite file SUPERBIZ_DB points the CLI at
    [run] = list_eval_runs(store)
    assert (run.id, run.status, run.total, run.passed) == (report["run_id"], "completed", 3, 3)
    assert run.metrics is not None and run.metrics["case_pass_rate"] == 1.0
    stored = list_case_results(store, run_id=run.id)
    assert sorted(row.case_id for row in stored) == ["cpu-narrow", "fabricated-path", "hikari-negative"]
    for row in stored:
        assert row.session_id is not None
        document = load_session_document(store, session_id=row.session_id)
        assert document is not None and document.status == "completed"
        assert row.detail["id"] == row.case_id
    rejected = next(row for row in stored if row.case_id == "fabricated-path")
    assert rejected.session_id is not None
    assert load_session_document(store, session_id=rejected.session_id).verifier_result.verdict == "REJECT"

    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "0", "0")


def test_wrong_expectation_exits_one_and_names_key_and_actual_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = write(tmp_path, WRONG_EXPECTATION)
    junit = tmp_path / "junit.xml"
    assert main(["eval", str(cases), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    assert "cpu-wrongly-rejected" in out and "FAIL" in out
    assert "x verdict: expected REJECT, actual PASS" in out
    assert "wrong PASS: 1 (cpu-wrongly-rejected)" in out  # a PASS on a failed case
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert failure is not None and "verdict" in failure.get("message", "")

    assert main(["eval", str(cases), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    [case] = report["cases"]
    assert report["metrics"]["pass_precision"] == {"value": 0.0, "hits": 0, "total": 1}
    assert report["metrics"]["wrong_pass"] == {"count": 1, "cases": ["cpu-wrongly-rejected"]}
    assert case["failures"] == [{"key": "verdict", "expected": "REJECT", "actual": "PASS",
                                 "message": "verdict PASS, expected REJECT"}]


def test_malformed_case_file_exits_two_with_one_line(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    cases = write(tmp_path, "- id: x\n  question: q\n  expect: {verdcit: PASS}\n")
    assert main(["eval", str(cases)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("cases.yaml: case 'x': expect: unknown key 'verdcit'")
    assert len(err.splitlines()) == 1


def test_unknown_pack_unmatched_tag_and_bad_option_exit_two(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = write(tmp_path, "- {id: x, question: 只确认 CPU, pack: no-such-pack, tags: [cpu]}\n")
    assert main(["eval", str(cases)]) == 2
    assert "case 'x': pack:" in capsys.readouterr().err
    assert main(["eval", str(cases), "--tag", "memory"]) == 2
    assert "no case has tag memory" in capsys.readouterr().err
    assert main(["eval", "--workers", "0"]) == 2
