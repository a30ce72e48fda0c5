"""JUnit XML for CI systems: one ``<testsuite>`` per case file, one ``<testcase>`` per case.

The layout is the common denominator Jenkins, GitLab, GitHub Actions reporters and
``junitparser`` read::

    <testsuites name="superbiz-eval" tests= failures= errors= time=>
      <testsuite name="default" tests= failures= errors= skipped="0" time=>
        <testcase classname="default" name="hikari-negative" time="0.012">
          <failure message="verdict REJECT, expected PASS" type="expectation">...</failure>
          <system-out>session_id: ...</system-out>
        </testcase>

A failed expectation is a ``<failure>``; a session that errored (no verdict) is an ``<error>``.
Each ``<testsuite>``'s ``<properties>`` carry the run id and suite, and the file's PASS precision
(``pass_precision`` = right/PASS, ``wrong_pass`` = those case ids, comma-separated) and
``false_absences`` (absent/expecting found), so a CI summary shows them next to the counts.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from core.evals.metrics import false_absence_rate, pass_precision
from core.evals.results import CaseOutcome, EvalRun
from core.outputs import write_atomically

SUITES_NAME = "superbiz-eval"
# Characters XML 1.0 cannot carry at all; a tool output holding one must not break the file.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _seconds(milliseconds: float) -> str:
    return f"{milliseconds / 1000:.3f}"


def _failure_text(outcome: CaseOutcome) -> str:
    lines = []
    for failure in outcome.failures:
        lines.append(failure.message)
        lines.append(f"  expected: {json.dumps(failure.expected, ensure_ascii=False)}")
        lines.append(f"  actual:   {json.dumps(failure.actual, ensure_ascii=False)}")
    return "\n".join(lines)


def _testcase(outcome: CaseOutcome, classname: str) -> ET.Element:
    element = ET.Element("testcase", classname=classname, name=outcome.case_id,
                         time=_seconds(outcome.duration_ms))
    if outcome.outcome == "error":
        message = _clean(outcome.error or "error")
        ET.SubElement(element, "error", message=message, type="error").text = message
    elif outcome.outcome == "failed":
        first = outcome.failures[0] if outcome.failures else None
        message = "; ".join(failure.message for failure in outcome.failures) or "failed"
        failure = ET.SubElement(element, "failure", message=_clean(message),
                                type=first.key if first else "expectation")
        failure.text = _clean(_failure_text(outcome))
    details = [f"question: {outcome.question}", f"pack: {outcome.pack}",
               f"session_id: {outcome.session_id}"]
    if outcome.executor_fault:
        details.append(f"executor_fault: {outcome.executor_fault}")
    if outcome.tags:
        details.append(f"tags: {', '.join(outcome.tags)}")
    ET.SubElement(element, "system-out").text = _clean("\n".join(details))
    return element


def _counts(outcomes: list[CaseOutcome]) -> dict[str, str]:
    return {
        "tests": str(len(outcomes)),
        "failures": str(sum(1 for o in outcomes if o.outcome == "failed")),
        "errors": str(sum(1 for o in outcomes if o.outcome == "error")),
        "time": _seconds(sum(o.duration_ms for o in outcomes)),
    }


def junit_tree(run: EvalRun) -> ET.ElementTree:
    """The run as a JUnit ``<testsuites>`` tree."""
    root = ET.Element("testsuites", {"name": SUITES_NAME, **_counts(run.outcomes)})
    root.set("time", _seconds(run.duration_ms))
    by_file: dict[str, list[CaseOutcome]] = {}
    for outcome in run.outcomes:
        label = Path(outcome.source).stem if outcome.source else "cases"
        by_file.setdefault(label, []).append(outcome)
    for label, outcomes in by_file.items():
        suite = ET.SubElement(root, "testsuite",
                              {"name": label, "skipped": "0", **_counts(outcomes)})
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="run_id", value=run.run_id)
        ET.SubElement(properties, "property", name="suite", value=run.suite)
        precision, wrong = pass_precision(outcomes)
        absences = false_absence_rate(outcomes)
        for name, value in (("pass_precision", f"{precision.hits}/{precision.total}"),
                            ("wrong_pass", _clean(",".join(wrong.cases))),
                            ("false_absences", f"{absences.hits}/{absences.total}")):
            ET.SubElement(properties, "property", name=name, value=value)
        for outcome in outcomes:
            suite.append(_testcase(outcome, label))
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(run: EvalRun, path: str | Path) -> Path:
    """Write the run's JUnit XML (UTF-8, with declaration) to ``path``, creating its folder;
    only a new or regular file, replaced whole (``core.outputs``). Returns the path."""
    root = junit_tree(run).getroot()
    assert root is not None  # junit_tree always builds a <testsuites> root
    document = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return write_atomically(path, [document], make_folders=True)
