"""The audit store round trip, on a real SQLite file and on a real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from core.contracts import (
    CheckedBinding,
    ComposerOutput,
    EvidenceRef,
    ExecutorOutput,
    GatekeeperResult,
    GroupRefFields,
    LogRefFields,
    ParseStatus,
    Plan,
    RetrievalDetails,
    VerifierResult,
)
from core.errors import StoreError
from core.store import Store, open_store
from core.store import repository as repo
from core.tools.spec import extract_evidence_refs


def _details(*texts: str) -> RetrievalDetails:
    refs = [EvidenceRef(raw_path=f"$.logs[{i}]", text=t) for i, t in enumerate(texts)]
    return RetrievalDetails(evidence_status="supported" if refs else "no_evidence",
                            evidence_refs=refs)


def test_ref_fields_round_trip_through_json_and_the_store(any_store: Store) -> None:
    output = {"success": True, "total": 1,
              "logs": [{"timestamp": "2026-07-08 11:17:00", "level": "WARN", "service": "order-service",
                        "message": "内存使用率过高: 91.0%"}],
              "groups": [{"template": "内存使用率过高: <*>", "count": 3, "service": "order-service",
                          "level": "WARN", "first_timestamp": "11:05", "last_timestamp": "11:17"}]}
    details = extract_evidence_refs("query_logs", output)
    assert [type(ref.fields).__name__ for ref in details.evidence_refs] == [LogRefFields.__name__,
                                                                           GroupRefFields.__name__]
    assert RetrievalDetails.model_validate_json(details.model_dump_json()) == details
    repo.create_session(any_store, session_id="s-f", question="q", pack="demo", engines={"executor": "rules"})
    recorded = repo.record_invocation(any_store, session_id="s-f", tool_name="query_logs",
                                      arguments={}, output=output, retrieval_details=details)
    stored = repo.get_invocation(any_store, invocation_id=recorded.invocation_id)
    assert stored is not None and stored.retrieval_details == details
    # A ref stored before refs had fields still loads, without them.
    legacy = RetrievalDetails.model_validate(
        {"evidence_status": "supported", "evidence_refs": [{"raw_path": "$.logs[0]", "text": "x"}]})
    assert legacy.evidence_refs[0].fields is None


def test_sqlite_store_uses_wal(tmp_store: Store) -> None:
    with tmp_store.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_invocation_ids_are_unique_across_sessions(any_store: Store) -> None:
    for session_id in ("s-a", "s-b"):
        repo.create_session(any_store, session_id=session_id, question="q", pack="demo",
                            engines={"executor": "rules"})
    first = repo.record_invocation(any_store, session_id="s-a", tool_name="query_logs",
                                   arguments={"service": "order-service"}, output={"success": True},
                                   retrieval_details=_details("a"))
    second = repo.record_invocation(any_store, session_id="s-b", tool_name="query_logs",
                                    arguments={}, output={"success": True},
                                    retrieval_details=_details())
    assert first.invocation_id != second.invocation_id
    assert repo.get_invocation(any_store, invocation_id=first.invocation_id).session_id == "s-a"
    assert [i.invocation_id for i in repo.list_invocations(any_store, session_id="s-b")] == [
        second.invocation_id]
    assert repo.get_invocation(any_store, invocation_id=10**9) is None


def test_session_round_trip_rebuilds_the_document(any_store: Store) -> None:
    repo.create_session(any_store, session_id="s-1", question="只确认 payment-service CPU",
                        pack="demo", engines={"executor": "rules"}, executor_fault="tamper_number")
    repo.save_plan(any_store, session_id="s-1",
                   plan=Plan(question="只确认 payment-service CPU", services=["payment-service"],
                             topics=["cpu"], narrow=True))
    invocation = repo.record_invocation(
        any_store, session_id="s-1", tool_name="query_logs", arguments={"query": "CPU"},
        output={"success": True, "logs": [], "total": 0}, retrieval_details=_details("cpu 92%"))
    repo.save_executor_output(any_store, session_id="s-1", output=ExecutorOutput(),
                              parse_status=ParseStatus(status="valid"))
    gate = GatekeeperResult(
        status="fail", severity="reject", failed_rules=["evidence.raw_path"], version="gk-test",
        checked_bindings=[CheckedBinding(claim_id="claim-1", tool_name="query_logs",
                                         source_invocation_id=invocation.invocation_id,
                                         raw_path="$.logs[9]", status="fail", severity="reject",
                                         rule="evidence.raw_path")])
    repo.save_gatekeeper_result(any_store, session_id="s-1", result=gate)
    repo.save_verification(any_store, session_id="s-1", trace_summary=[],
                           verifier_result=VerifierResult(verdict="REJECT", groundedness_score=0.0))
    repo.finish_session(any_store, session_id="s-1", status="completed",
                        composer_output=ComposerOutput(status="blocked", user_facing_answer="x"),
                        timings_ms={"total": 12.5})

    document = repo.load_session_document(any_store, session_id="s-1")
    assert document is not None
    assert document.plan is not None and document.plan.services == ["payment-service"]
    assert document.invocations[0].retrieval_details.evidence_refs[0].text == "cpu 92%"
    assert document.gatekeeper_result == gate
    assert document.verifier_result.verdict == "REJECT"
    assert document.executor_fault == "tamper_number"
    assert document.timings_ms == {"total": 12.5}

    rows = repo.list_checked_bindings(any_store, rule="evidence.raw_path")
    assert [(r.session_id, r.gatekeeper_version, r.status) for r in rows] == [
        ("s-1", "gk-test", "fail")]
    assert repo.list_checked_bindings(any_store, rule="evidence.excerpt_mismatch") == []


def test_list_sessions_filters(any_store: Store) -> None:
    for index, (verdict, rules) in enumerate([("PASS", []), ("REJECT", ["evidence.raw_path"]),
                                              ("LOW_CONFID", ["evidence.no_bindings"])]):
        session_id = f"s-{index}"
        repo.create_session(any_store, session_id=session_id, question=f"question {verdict}",
                            pack="demo", engines={})
        repo.save_gatekeeper_result(any_store, session_id=session_id, result=GatekeeperResult(
            status="pass" if not rules else "fail",
            severity="none" if not rules else ("reject" if verdict == "REJECT" else "low_confid"),
            failed_rules=rules))
        repo.save_verification(any_store, session_id=session_id, trace_summary=[],
                               verifier_result=VerifierResult(verdict=verdict,
                                                              groundedness_score=1.0))
        # A verdict is listed once the session is over, not while it runs.
        assert repo.list_sessions(any_store, verdict=verdict) == []
        repo.finish_session(any_store, session_id=session_id, status="completed",
                            composer_output=None, timings_ms={})
    assert [s.session_id for s in repo.list_sessions(any_store, verdict="REJECT")] == ["s-1"]
    assert [s.session_id for s in repo.list_sessions(any_store, rule="evidence.no_bindings")] == [
        "s-2"]
    assert repo.list_sessions(any_store, rule="evidence")  == []  # whole rule names only
    assert [s.session_id for s in repo.list_sessions(any_store, text="LOW")] == ["s-2"]
    assert repo.count_sessions(any_store) == 3
    assert repo.count_sessions(any_store, severity="reject") == 1
    assert repo.latest_session_id(any_store) == "s-2"


def test_events_are_appended_in_order(any_store: Store) -> None:
    repo.create_session(any_store, session_id="s-e", question="q", pack="demo", engines={})
    for seq, kind in enumerate(["session_started", "plan_made", "tool_called"]):
        repo.append_event(any_store, session_id="s-e", seq=seq, kind=kind, payload={"seq": seq})
    assert [e.kind for e in repo.list_events(any_store, session_id="s-e", after_seq=0)] == [
        "plan_made", "tool_called"]


def test_eval_runs_round_trip(any_store: Store) -> None:
    repo.create_eval_run(any_store, run_id="run-1", suite="default", total=2)
    repo.add_case_result(any_store, run_id="run-1", case_id="c1", session_id="s-1", passed=True,
                         duration_ms=3.0, tags=["cpu"], detail={"failures": []})
    repo.finish_eval_run(any_store, run_id="run-1", passed=1, duration_ms=9.0,
                         metrics={"case_pass_rate": 0.5})
    (run,) = repo.list_eval_runs(any_store)
    assert (run.passed, run.total, run.metrics) == (1, 2, {"case_pass_rate": 0.5})
    (case,) = repo.list_case_results(any_store, run_id="run-1")
    assert (case.case_id, case.session_id, case.tags) == ("c1", "s-1", ["cpu"])


def test_unopenable_store_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreError):
        open_store(str(blocker / "sub" / "audit.db"))


def test_plain_path_and_url_open_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    repo.create_session(open_store(str(path)), session_id="s-path", question="q", pack="demo",
                        engines={})
    by_url = open_store(f"sqlite:///{path}")
    assert [s.session_id for s in repo.list_sessions(by_url)] == ["s-path"]


def test_text_filter_is_literal(any_store: Store) -> None:
    for session_id, question in (("s-pct", "disk at 50% on /data"), ("s-five", "disk at 500 GB"),
                                 ("s-us", "look at a_b"), ("s-ab", "look at axb")):
        repo.create_session(any_store, session_id=session_id, question=question, pack="demo",
                            engines={})
    assert [s.session_id for s in repo.list_sessions(any_store, text="50%")] == ["s-pct"]
    assert [s.session_id for s in repo.list_sessions(any_store, text="a_b")] == ["s-us"]


def test_an_older_store_gets_the_new_indexes(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = open_store(str(path))
    with store.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_sessions_listing"))
    reopened = open_store(str(path))
    with reopened.engine.connect() as connection:
        names = {row[1] for row in connection.execute(text("PRAGMA index_list('sessions')"))}
    assert "ix_sessions_listing" in names


@pytest.mark.parametrize("url", ["postgresql+nosuchdriver://auditor:s3cret@db.example/superbiz",
                                 "postgresql://auditor:s3cret@db.example/superbiz"])
def test_an_unopenable_url_is_one_clear_error_without_its_password(url: str) -> None:
    with pytest.raises(StoreError, match=r"audit store '?postgresql") as error:
        open_store(url)
    assert "s3cret" not in str(error.value) and "[REDACTED]" in str(error.value)


def test_a_failing_write_is_a_store_error(any_store: Store) -> None:
    repo.create_session(any_store, session_id="s-dup", question="q", pack="demo", engines={})
    with pytest.raises(StoreError, match="IntegrityError"):  # Core path, same error as the ORM's
        repo.create_session(any_store, session_id="s-dup", question="q", pack="demo", engines={})


def test_processes_opening_one_new_store_at_once_all_get_it(tmp_path: Path) -> None:
    """An eval's workers, the console and the CLI may create a store together: each finds the
    tables missing and creates them; the ones told a table already exists check again."""
    import subprocess
    import sys

    database = tmp_path / "audit.db"
    opener = ("import sys\nfrom core.store import open_store\n"
              "store = open_store(sys.argv[1])\nprint(store.engine.url.database)\n")
    processes = [subprocess.Popen([sys.executable, "-c", opener, str(database)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(6)]
    results = [process.communicate(timeout=120) for process in processes]
    assert [(process.returncode, err) for process, (_, err) in zip(processes, results, strict=True)] \
        == [(0, "")] * 6
    with open_store(str(database)).engine.connect() as connection:
        tables = {row[0] for row in connection.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))}
    from sqlmodel import SQLModel

    assert set(SQLModel.metadata.tables) <= tables
