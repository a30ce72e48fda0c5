"""Red team: real session documents, tampered by hand-style edits, graded by the gatekeeper.

Goal: zero forged citations passing and zero true citations rejected. Each case is one
(document, mutation, expected grade) from ``redteam_corpus``; its id reads
``<question>/<claim>.<binding>/<edited text>.<mutation>`` (``mem-zh/claim-1.0/ref.meaning0``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.contracts import GatekeeperResult
from core.gatekeeper import RULES, check_citations
from tests.gatekeeper.redteam_corpus import Case, build_cases

CASES = build_cases()
GRADES = {"pass": ("pass", "none"), "low_confid": ("fail", "low_confid"), "reject": ("fail", "reject")}
# The rule a rejected mutation must be rejected by, by the mutation's family (id prefix).
REJECT_RULES: dict[str, set[str]] = {
    "excerpt": {"evidence.excerpt_mismatch"},
    "ref": {"evidence.excerpt_mismatch"},
    "raw_path": {"evidence.raw_path"},
    "locator": {"evidence.excerpt_mismatch"},
    "invocation": {"evidence.invocation_ref", "evidence.excerpt_mismatch"},
    "tool": {"evidence.tool_mismatch"},
    "negative": {"evidence.negative_mismatch", "evidence.raw_path"},
    "refs": {"evidence.refs_tampered"},
    "session": {"evidence.invocation_session"},
}


def _check(case: Case) -> GatekeeperResult:
    document = case.document
    return check_citations(session_id=document.session_id, invocations=document.invocations,
                           executor_output=case.output())


def test_the_corpus_covers_every_grade_and_family() -> None:
    grades = {case.grade for case in CASES}
    families = {case.case_id.split("/")[-1].split(".")[0] for case in CASES}
    assert grades == {"pass", "low_confid", "reject"}
    assert families >= set(REJECT_RULES) - {"ref"} | {"low"}
    assert sum(case.grade == "reject" for case in CASES) >= 800
    assert sum(case.grade == "pass" for case in CASES) >= 450
    assert len({case.case_id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.case_id for case in CASES])
def test_mutation_gets_its_grade(case: Case) -> None:
    result = _check(case)
    (checked,) = result.checked_bindings
    detail = f"{checked.rule}: {checked.message} | excerpt={checked.evidence_excerpt!r}"
    assert (result.status, result.severity) == GRADES[case.grade], detail
    if case.grade == "reject":
        family = case.case_id.split("/")[-1].split(".")[0]
        assert checked.rule in REJECT_RULES[family], detail
    elif case.grade == "low_confid":
        assert RULES[checked.rule or ""].severity == "low_confid", detail


def _first_case(suffix: str, grade: str) -> Case:
    return next(case for case in CASES if case.case_id.endswith(suffix) and case.grade == grade)


@pytest.mark.parametrize("suffix,grade,rule", [
    ("excerpt.meaning0", "reject", "evidence.excerpt_mismatch"),  # 过高 -> 正常
    ("raw_path.zero_padded", "reject", "evidence.raw_path"),
    ("excerpt.fullwidth_punct", "pass", "evidence.ok"),
])
def test_cli_check_grades_a_tampered_document(suffix: str, grade: str, rule: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    case = _first_case(suffix, grade)
    tampered = case.document.model_copy(update={"executor_output": case.output()})
    path = tmp_path / "tampered.json"
    path.write_text(tampered.model_dump_json(), encoding="utf-8")
    main(["gatekeeper", "check", str(path), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["severity"]) == GRADES[grade]
    assert [binding["rule"] for binding in result["checked_bindings"]] == [rule]
