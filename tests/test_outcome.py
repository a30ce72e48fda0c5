"""The session outcome (core/outcome.py): computed after the verifier, stored with the session,
shown by the CLI, checked by eval expectations; and eval packs found with --packs-dir."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.cli import main
from core.contracts import Claim, ClaimResult, ExecutorOutput, Plan, VerifierResult
from core.errors import EvalCaseError
from core.evals.cases import DEFAULT_SUITE_DIR, parse_case_text, with_packs_dir
from core.outcome import session_outcome
from core.pipeline import ask
from core.store import Store, repository

DEMO = DEFAULT_SUITE_DIR.parent / "demo"


def _claims(*types: str) -> ExecutorOutput:
    return ExecutorOutput(claims=[Claim(claim_id=f"c{i}", claim_type=kind, claim_text="x")
                                  for i, kind in enumerate(types)])


def _verdict(verdict: str, entailed: list[bool]) -> VerifierResult:
    return VerifierResult(verdict=verdict, groundedness_score=0.0,
                          claim_results=[ClaimResult(claim_id=f"c{i}", entailed=ok)
                                         for i, ok in enumerate(entailed)])


def test_found_and_absent_only_with_pass() -> None:
    plan = Plan(question="q")
    assert session_outcome(plan, _claims("observation", "negative_observation"),
                           _verdict("PASS", [True, True])) == "found"
    assert session_outcome(plan, _claims("negative_observation"), _verdict("PASS", [True])) == "absent"
    assert session_outcome(plan, _claims("observation"), _verdict("LOW_CONFID", [False])) is None
    assert session_outcome(plan, _claims("observation"), _verdict("REJECT", [True])) == "rejected"
    assert session_outcome(plan, _claims(), _verdict("LOW_CONFID", [])) is None


def test_unknown_subject_and_not_understood_never_with_claims() -> None:
    empty = _verdict("LOW_CONFID", [])
    assert session_outcome(Plan(question="q", unknown_subjects=["x-service"]), _claims(), empty) == (
        "unknown_subject")
    assert session_outcome(Plan(question="q", searchable=False), _claims(), empty) == "not_understood"
    # A claim about something else never turns an unknown subject into an answer.
    assert session_outcome(Plan(question="q", unknown_subjects=["x-service"]),
                           _claims("observation"), _verdict("LOW_CONFID", [False])) is None


def test_the_outcome_is_stored_listed_and_shown(tmp_store: Store,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    absent = ask("确认 inventory-service 是否存在 HikariCP 连接池耗尽", store=tmp_store)
    unknown = ask("Does gateway-service have any alerts?", store=tmp_store)
    assert (absent.outcome, unknown.outcome) == ("absent", "unknown_subject")
    for document in (absent, unknown):
        stored = repository.load_session_document(tmp_store, session_id=document.session_id)
        assert stored is not None and stored.outcome == document.outcome
    listed = {row.session_id: row.outcome for row in repository.list_sessions(tmp_store)}
    assert listed == {absent.session_id: "absent", unknown.session_id: "unknown_subject"}
    assert main(["sessions", "show", absent.session_id]) == 0
    assert "outcome   absent" in capsys.readouterr().out
    assert main(["sessions", "list"]) == 0
    assert "unknown_subject" in capsys.readouterr().out


def test_ask_prints_the_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "<script>alert(1)</script>", "--no-store"]) == 0
    out = capsys.readouterr().out
    assert "not_understood" in out and "nothing to search" in out


def test_eval_expectations_check_the_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "- id: absent\n  question: 确认 inventory-service 是否存在 HikariCP 连接池耗尽\n"
        "  expect: {outcome: absent, verdict: PASS}\n"
        "- id: wrong\n  question: Does gateway-service have any alerts?\n"
        "  expect: {outcome: found}\n", encoding="utf-8")
    assert main(["eval", str(cases), "--json", "--db", str(tmp_path / "a.db")]) == 1
    report = json.loads(capsys.readouterr().out)
    by_id = {case["id"]: case for case in report["cases"]}
    assert by_id["absent"]["passed"] and not by_id["wrong"]["passed"]
    [failure] = by_id["wrong"]["failures"]
    assert (failure["key"], failure["expected"], failure["actual"]) == ("outcome", "found", "unknown_subject")
    with pytest.raises(EvalCaseError, match="outcome"):
        parse_case_text("- id: x\n  question: q\n  expect: {outcome: maybe}\n", source="c.yaml",
                        folder=tmp_path)


def test_packs_dir_resolves_named_packs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(DEMO, tmp_path / "packs" / "mydemo")
    text = "- id: a\n  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警\n  pack: mydemo\n"
    cases = parse_case_text(text, source="c.yaml", folder=tmp_path)
    [resolved] = with_packs_dir(cases, tmp_path / "packs")
    assert resolved.pack == str((tmp_path / "packs" / "mydemo").resolve())
    file = tmp_path / "c.yaml"
    file.write_text(text + "  expect: {outcome: found}\n", encoding="utf-8")
    assert main(["eval", str(file), "--packs-dir", str(tmp_path / "packs"),
                 "--db", str(tmp_path / "a.db")]) == 0
    capsys.readouterr()
    assert main(["eval", str(file), "--packs-dir", str(tmp_path / "nowhere")]) == 2
    assert "--packs-dir is not a folder" in capsys.readouterr().err
