"""Session table rows, filters and JSON Lines export, against a real SQLite store."""

from __future__ import annotations

import json

from core.contracts import (
    ComposerOutput,
    GatekeeperResult,
    SessionDocument,
    VerifierResult,
)
from core.store import Store, repository
from core.views.sessions import (
    SESSION_COLUMNS,
    SessionFilters,
    documents_jsonl,
    engine_label,
    export_file_name,
    rule_choices,
    session_rows,
)


def _store_session(store: Store, session_id: str, question: str, verdict: str,
                   severity: str, rules: list[str]) -> None:
    repository.create_session(store, session_id=session_id, question=question, pack="demo",
                              engines={"planner": "rules", "executor": "llm",
                                       "verifier": "rules", "composer": "rules"})
    repository.save_gatekeeper_result(store, session_id=session_id, result=GatekeeperResult(
        status="pass" if severity == "none" else "fail", severity=severity,
        failed_rules=rules, version="test"))
    repository.save_verification(store, session_id=session_id, trace_summary=[],
                                 verifier_result=VerifierResult(verdict=verdict,
                                                                groundedness_score=0.5))
    repository.finish_session(store, session_id=session_id, status="completed",
                              composer_output=ComposerOutput(status="valid",
                                                             user_facing_answer="ok"),
                              timings_ms={"total": 12.345})


def test_rows_carry_every_column_and_the_filters_reach_the_store(tmp_store: Store) -> None:
    _store_session(tmp_store, "s-1", "只确认 payment-service CPU", "PASS", "none", [])
    _store_session(tmp_store, "s-2", "order-service memory <script>", "REJECT", "reject",
                   ["evidence.raw_path"])
    everything = repository.list_sessions(tmp_store, **SessionFilters().as_query())
    rows = session_rows(everything)
    assert [row["session"] for row in rows] == ["s-2", "s-1"]
    assert all(tuple(row) == SESSION_COLUMNS for row in rows)
    rejected = rows[0]
    assert rejected["verdict"] == "REJECT" and rejected["gatekeeper"] == "reject"
    assert rejected["failed rules"] == "evidence.raw_path"
    assert rejected["question"] == "order-service memory <script>"  # data kept verbatim
    assert rejected["duration (ms)"] == 12.3
    assert rejected["engine"] == "composer=rules, executor=llm, planner=rules, verifier=rules"

    by_rule = SessionFilters(rule="evidence.raw_path")
    assert [s.session_id for s in repository.list_sessions(tmp_store, **by_rule.as_query())] == [
        "s-2"]
    by_text = SessionFilters(text="  payment ")
    assert [s.session_id for s in repository.list_sessions(tmp_store, **by_text.as_query())] == [
        "s-1"]
    assert SessionFilters(verdict="PASS").active and not SessionFilters(text="  ").active


def test_jsonl_export_is_one_valid_document_per_line() -> None:
    documents = [SessionDocument(session_id=f"s-{n}", question=f"问题 {n}") for n in range(3)]
    text = documents_jsonl(documents)
    lines = text.splitlines()
    assert len(lines) == 3 and text.endswith("\n")
    parsed = [SessionDocument.model_validate(json.loads(line)) for line in lines]
    assert [d.question for d in parsed] == ["问题 0", "问题 1", "问题 2"]
    assert "问题" in lines[0]  # not \\u-escaped: Chinese reads in the file


def test_labels() -> None:
    assert engine_label({"planner": "rules", "executor": "rules"}) == "rules"
    assert engine_label({}) == "?"
    assert export_file_name(SessionFilters(verdict="REJECT", rule="evidence.raw_path"), 4) == (
        "sessions-reject-evidence_raw_path-4.jsonl")
    assert "evidence.raw_path" in rule_choices()
    assert "custom.rule" in rule_choices(["custom.rule"])
    assert "evidence.ok" not in rule_choices()
