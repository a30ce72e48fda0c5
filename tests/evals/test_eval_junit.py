"""JUnit XML round trip: written by ``write_junit``, read back with ``xml.etree``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from core.evals.cases import Expectation
from core.evals.junit import write_junit
from core.evals.matching import ExpectationFailure, Observed
from core.evals.metrics import compute_metrics
from core.evals.report import render_report
from core.evals.results import CaseOutcome, EvalRun


def sample_run() -> EvalRun:
    verdict_failure = ExpectationFailure(key="verdict", expected="PASS", actual="REJECT",
                                         message="verdict REJECT, expected PASS")
    outcomes = [
        CaseOutcome(case_id="cpu-narrow", source="/x/default.yaml", outcome="passed",
                    question="只确认 CPU", session_id="s-1", duration_ms=12.0,
                    observed=Observed(status="completed", verdict="PASS")),
        CaseOutcome(case_id="mem-zh", source="/x/default.yaml", outcome="failed",
                    expect=Expectation(verdict=["PASS"]), failures=[verdict_failure],
                    question="内存 <&> \x07", session_id="s-2", duration_ms=30.0,
                    observed=Observed(status="completed", verdict="REJECT")),
        CaseOutcome(case_id="broken", source="/x/faults.yaml", outcome="error",
                    error="session error: execute: boom", duration_ms=5.0),
    ]
    return EvalRun(run_id="run-abc", suite="default", outcomes=outcomes,
                   metrics=compute_metrics(outcomes), duration_ms=50.0)


def test_junit_round_trip(tmp_path: Path) -> None:
    path = write_junit(sample_run(), tmp_path / "reports" / "eval.xml")
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    suites = {suite.get("name"): suite for suite in root.findall("testsuite")}
    assert set(suites) == {"default", "faults"}
    assert (suites["default"].get("tests"), suites["default"].get("failures")) == ("2", "1")
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert cases["cpu-narrow"].get("classname") == "default"
    assert cases["cpu-narrow"].get("time") == "0.012"
    assert cases["cpu-narrow"].find("failure") is None and cases["cpu-narrow"].find("error") is None
    failure = cases["mem-zh"].find("failure")
    assert failure is not None and "verdict REJECT, expected PASS" in failure.get("message", "")
    assert '"REJECT"' in (failure.text or "")
    system_out = cases["mem-zh"].findtext("system-out") or ""
    assert "s-2" in system_out
    assert "内存 <&> \ufffd" in system_out  # a control character XML cannot carry is replaced
    error = cases["broken"].find("error")
    assert error is not None and "boom" in error.get("message", "")


def test_report_table_shows_failed_expectation_with_actual_value() -> None:
    text = render_report(sample_run())
    lines = text.splitlines()
    assert lines[0].split() == ["case", "result", "expected", "actual", "ms"]
    assert any(line.startswith("mem-zh") and "FAIL" in line for line in lines)
    assert "    x verdict: expected PASS, actual REJECT" in lines
    assert "    x error: session error: execute: boom" in lines
    assert "run run-abc (default): 1/3 passed" in text


def wrong_pass_run() -> EvalRun:
    """A run whose second case said PASS with a wrong answer, and one finding missed as absent."""
    missing = ExpectationFailure(key="answer_includes", expected=["OOM"], actual="",
                                 message="answer lacks 'OOM'")
    outcomes = [
        CaseOutcome(case_id="cpu-right", source="/x/default.yaml", outcome="passed",
                    expect=Expectation(outcome="found"),
                    observed=Observed(status="completed", verdict="PASS", outcome="found")),
        CaseOutcome(case_id="oom-wrong", source="/x/default.yaml", outcome="failed",
                    expect=Expectation(outcome="found"), failures=[missing],
                    observed=Observed(status="completed", verdict="PASS", outcome="absent")),
        CaseOutcome(case_id="fault-caught", source="/x/faults.yaml", outcome="passed",
                    observed=Observed(status="completed", verdict="REJECT")),
    ]
    return EvalRun(run_id="run-wrong", suite="default", outcomes=outcomes,
                   metrics=compute_metrics(outcomes), duration_ms=10.0)


def test_report_shows_pass_precision_and_false_absences_under_the_pass_rate() -> None:
    lines = render_report(wrong_pass_run()).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("cases "))
    assert lines[start + 1] == "PASS precision   50.0% (1/2), wrong PASS: 1 (oom-wrong)"
    assert lines[start + 2] == "false absences   50.0% (1/2) of cases expecting outcome: found"
    right = render_report(sample_run())
    assert "PASS precision   100.0% (1/1), wrong PASS: none" in right
    assert "false absences   n/a (no case expects outcome: found)" in right


def test_junit_properties_carry_each_files_pass_precision(tmp_path: Path) -> None:
    root = ET.parse(write_junit(wrong_pass_run(), tmp_path / "eval.xml")).getroot()
    properties = {suite.get("name"): {p.get("name"): p.get("value")
                                      for p in suite.iter("property")}
                  for suite in root.findall("testsuite")}
    assert properties["default"]["pass_precision"] == "1/2"
    assert properties["default"]["wrong_pass"] == "oom-wrong"
    assert properties["default"]["false_absences"] == "1/2"
    assert properties["faults"]["pass_precision"] == "0/0"
    assert properties["faults"]["wrong_pass"] == ""
