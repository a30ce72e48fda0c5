"""``run_cases`` through the real pipeline: pack paths, errors as outcomes, stored results."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from core.agents.base import ExecutorRun
from core.contracts import Plan
from core.evals.cases import load_case_file, with_default_pack
from core.evals.runner import run_cases
from core.recorder import Recorder
from core.settings import DEFAULT_PACKS_DIR
from core.store import Store
from core.store.repository import list_case_results, list_eval_runs, load_session_document


def test_a_pack_path_is_resolved_against_the_case_file(tmp_path: Path, tmp_store: Store) -> None:
    pack_dir = tmp_path / "packs" / "copy"
    shutil.copytree(DEFAULT_PACKS_DIR / "demo", pack_dir)
    meta = yaml.safe_load((pack_dir / "pack.yaml").read_text(encoding="utf-8"))
    (pack_dir / "pack.yaml").write_text(yaml.safe_dump({**meta, "name": "demo-copy"},
                                                       allow_unicode=True), encoding="utf-8")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "cases.yaml").write_text("""\
- id: cpu-on-copy
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  pack: ../packs/copy
  expect: {verdict: PASS, evidence_tools: [query_metrics]}
""", encoding="utf-8")
    cases = with_default_pack(load_case_file(suite / "cases.yaml"), None)
    run = run_cases(cases, store=tmp_store, suite="copy")
    [outcome] = run.outcomes
    assert outcome.passed, outcome.failures
    assert outcome.session_id is not None
    document = load_session_document(tmp_store, session_id=outcome.session_id)
    assert document is not None and document.pack == "demo-copy"


def test_failed_cases_are_stored_with_their_failures(tmp_path: Path, tmp_store: Store) -> None:
    (tmp_path / "cases.yaml").write_text("""\
- id: negative-expected-positive
  question: 确认 inventory-service 是否存在 HikariCP 连接池耗尽
  tags: [hikaricp]
  expect: {claim_types: [observation], evidence_status: {query_logs: supported}}
""", encoding="utf-8")
    cases = with_default_pack(load_case_file(tmp_path / "cases.yaml"), None)
    seen: list[tuple[int, int, str]] = []
    run = run_cases(cases, store=tmp_store, suite="neg", workers=1,
                    on_result=lambda done, total, o: seen.append((done, total, o.case_id)))
    assert seen == [(1, 1, "negative-expected-positive")]
    assert not run.all_passed
    keys = [failure.key for failure in run.outcomes[0].failures]
    assert keys == ["claim_types", "evidence_status"]
    assert run.outcomes[0].failures[1].actual == {"query_logs": ["no_evidence"]}

    [stored_run] = list_eval_runs(tmp_store)
    assert (stored_run.passed, stored_run.total, stored_run.suite) == (0, 1, "neg")
    assert stored_run.metrics is not None
    assert stored_run.metrics["failed_expectations"] == {"claim_types": 1, "evidence_status": 1}
    [row] = list_case_results(tmp_store, run_id=run.run_id)
    assert row.passed is False and row.tags == ["hikaricp"]
    assert [f["key"] for f in row.detail["failures"]] == keys


class CrashingExecutor:
    """A fake executor that fails mid-run, as a broken engine would."""

    engine = "crashing"

    def run(self, plan: Plan, recorder: Recorder) -> ExecutorRun:
        raise RuntimeError("executor exploded")
        yield  # a generator, like every executor


def test_a_crashed_session_is_an_error_outcome_linked_to_its_session(tmp_path: Path,
                                                                      tmp_store: Store) -> None:
    from dataclasses import replace

    from core.agents.registry import build_engines

    engines = replace(build_engines(), executor=CrashingExecutor())
    (tmp_path / "cases.yaml").write_text("- {id: boom, question: 只确认 CPU, expect: {verdict: PASS}}\n",
                                         encoding="utf-8")
    cases = with_default_pack(load_case_file(tmp_path / "cases.yaml"), None)
    run = run_cases(cases, store=tmp_store, engines=engines)
    [outcome] = run.outcomes
    assert outcome.outcome == "error" and "executor exploded" in (outcome.error or "")
    assert run.metrics.errored == 1
    assert run.metrics.verdict_confusion == {"PASS": {"ERROR": 1}}
    assert outcome.session_id is not None
    document = load_session_document(tmp_store, session_id=outcome.session_id)
    assert document is not None and document.status == "error"


def test_results_are_stored_in_batches_and_an_interrupt_stores_those_waiting(
        tmp_path: Path, tmp_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.evals import runner

    monkeypatch.setattr(runner, "RESULT_BATCH", 2)
    (tmp_path / "cases.yaml").write_text("".join(f"""\
- id: cpu-{index}
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  expect: {{verdict: PASS}}
""" for index in range(5)), encoding="utf-8")
    cases = with_default_pack(load_case_file(tmp_path / "cases.yaml"), None)
    stored_when_told: list[int] = []

    def interrupt_after_three(done: int, total: int, outcome: object) -> None:
        [run_row] = list_eval_runs(tmp_store)
        stored_when_told.append(len(list_case_results(tmp_store, run_id=run_row.id)))
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_cases(cases, store=tmp_store, suite="batched", workers=1,
                  on_result=interrupt_after_three)
    assert stored_when_told == [0, 2, 2]  # written two at a time
    [run_row] = list_eval_runs(tmp_store)
    assert run_row.status == "interrupted"
    rows = list_case_results(tmp_store, run_id=run_row.id)
    assert len(rows) == 3 and all(row.session_id for row in rows)  # the third one waited
    for row in rows:
        assert row.session_id is not None
        document = load_session_document(tmp_store, session_id=row.session_id)
        assert document is not None and document.status == "completed"


def test_a_stored_run_writes_its_sessions_together_sealed_and_whole(
        tmp_path: Path, any_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions wait, closed, and are written with the cases' results ``RESULT_BATCH`` at a
    time: one transaction a case (its row), and every session reads back whole and sealed
    (``superbiz audit verify`` checks eval sessions like any other)."""
    from sqlalchemy import event

    from core.evals import runner
    from core.store.audit import verify_chain

    monkeypatch.setattr(runner, "RESULT_BATCH", 3)
    questions = ["只确认 payment-service 当前是否存在 CPU 使用率过高告警",
                 "Only confirm whether order-service has a HighMemoryUsage alert."]
    (tmp_path / "cases.yaml").write_text("".join(f"""\
- id: case-{index}
  question: {questions[index % 2]}
  expect: {{verdict: PASS}}
""" for index in range(7)), encoding="utf-8")
    cases = with_default_pack(load_case_file(tmp_path / "cases.yaml"), None)
    run_cases(cases[:1], store=None, workers=1)  # caches warm; the count is of the stored run
    begun: list[str] = []
    event.listen(any_store.engine, "begin", lambda connection: begun.append("begin"))
    run = run_cases(cases, store=any_store, suite="grouped", workers=2)
    assert run.passed == 7
    # a row as each session starts (what a crash leaves), the run's row, one id pool, 7 closes
    # and results in 3 writes (3 + 3 + 1), the run's close: not 2 transactions and a seal a case
    assert len(begun) <= 7 + 1 + 1 + 3 + 1, len(begun)  # was 2 x 7 + 3 + 2
    [run_row] = list_eval_runs(any_store)
    rows = list_case_results(any_store, run_id=run_row.id)
    assert sorted(row.case_id for row in rows) == [f"case-{index}" for index in range(7)]
    invocation_ids: list[int] = []
    for row, outcome in zip(sorted(rows, key=lambda r: r.case_id), run.outcomes, strict=True):
        assert row.session_id == outcome.session_id and row.session_id is not None
        document = load_session_document(any_store, session_id=row.session_id)
        assert document is not None and document.status == "completed"
        assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
        assert document.invocations and all(i.session_id == row.session_id for i in document.invocations)
        invocation_ids += [i.invocation_id for i in document.invocations]
    assert len(set(invocation_ids)) == len(invocation_ids)  # one pool, no id given twice
    report = verify_chain(any_store)
    assert report.intact, report.problems
    assert report.records == 7 + 1  # every session, and the run
