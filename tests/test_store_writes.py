"""The pipeline's write path on SQLite and PostgreSQL: five transactions per ask, events that
point at stage results and read back whole, values PostgreSQL refuses, and older stores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import event, text

from core.contracts import ComposerOutput, Plan, VerifierInput, VerifierResult
from core.events import VerdictReached, parse_event
from core.packs import load_pack
from core.pipeline import ask, run_investigation
from core.store import Store, open_store
from core.store import repository as repo
from core.store.migrate import missing_columns

REPO_ROOT = Path(__file__).resolve().parents[1]
MEMORY = "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。"
HIKARI = "确认 order-service 是否存在 HikariCP 连接池耗尽"


def _count_transactions(store: Store) -> list[str]:
    begun: list[str] = []
    event.listen(store.engine, "begin", lambda connection: begun.append("begin"))
    return begun


def test_an_ask_is_five_transactions_and_its_events_read_back_whole(any_store: Store) -> None:
    ask(MEMORY, store=any_store)  # the first ask of a process warms caches; count the second
    begun = _count_transactions(any_store)
    events = list(run_investigation(MEMORY, store=any_store))
    assert len(begun) <= 5
    document = events[-1].document
    assert document.status == "completed" and document.verifier_result.verdict == "PASS"

    rows = repo.list_events(any_store, session_id=document.session_id)
    assert [parse_event(row.payload) for row in rows] == events
    # Stored, the events point at the stage results instead of repeating them.
    with any_store.engine.connect() as connection:
        stored = [json.loads(payload) if isinstance(payload, str) else payload
                  for (payload,) in connection.execute(
                      text("SELECT payload FROM session_events WHERE session_id = :id "
                           "ORDER BY seq"), {"id": document.session_id})]
    finished = stored[-1]
    assert "document" not in finished or "plan" not in finished["document"]
    assert finished["$ref"]["document.plan"] == "plan"
    stored_bytes = sum(len(json.dumps(payload)) for payload in stored)
    whole_bytes = sum(len(event.model_dump_json()) for event in events)
    assert stored_bytes * 4 < whole_bytes


def test_a_withdrawn_pass_keeps_the_first_verdict_event_as_it_was(any_store: Store) -> None:
    from core.agents.registry import Engines, build_engines
    from core.agents.rules.composer import RulesComposer

    class FallbackComposer:
        engine = "fallback"

        def compose(self, plan: Plan, verifier_input: VerifierInput,
                    verifier_result: VerifierResult) -> ComposerOutput:
            answer = RulesComposer().compose(plan, verifier_input, verifier_result)
            return answer.model_copy(update={"degraded": "the model's answer was unusable"})

    rules = build_engines("rules")
    engines = Engines(planner=rules.planner, executor=rules.executor, verifier=rules.verifier,
                      composer=FallbackComposer())
    events = list(run_investigation(MEMORY, store=any_store, engines=engines))
    session_id = events[0].session_id
    read_back = [parse_event(row.payload)
                 for row in repo.list_events(any_store, session_id=session_id)]
    assert read_back == events
    verdicts = [e.result.verdict for e in read_back if isinstance(e, VerdictReached)]
    assert verdicts == ["PASS", "LOW_CONFID"]
    stored = repo.load_session_document(any_store, session_id=session_id)
    assert stored is not None and stored.verifier_result is not None
    assert stored.verifier_result.verdict == "LOW_CONFID"


def test_a_crash_in_a_stage_keeps_every_stage_before_it(any_store: Store) -> None:
    from core.agents.registry import Engines, build_engines

    class CrashingVerifier:
        engine = "crashing"

        def verify(self, verifier_input: VerifierInput, plan: Plan) -> VerifierResult:
            raise RuntimeError("verifier model went away")

    rules = build_engines("rules")
    engines = Engines(planner=rules.planner, executor=rules.executor,
                      verifier=CrashingVerifier(), composer=rules.composer)
    document = ask(MEMORY, store=any_store, engines=engines)
    stored = repo.load_session_document(any_store, session_id=document.session_id)
    assert stored is not None and stored.status == "error"
    assert stored.invocations == document.invocations and stored.invocations
    assert stored.gatekeeper_result == document.gatekeeper_result
    kinds = [row.kind for row in repo.list_events(any_store, session_id=document.session_id)]
    assert "gatekeeper_finished" in kinds and kinds[-2:] == ["pipeline_failed", "session_finished"]


def _pack_with_nul(tmp_path: Path) -> Path:
    pack = tmp_path / "nulpack"
    shutil.copytree(REPO_ROOT / "mockdata" / "demo", pack)
    logs = pack / "logs.jsonl"
    lines = logs.read_text(encoding="utf-8").splitlines()
    lines = [line.replace("HikariPool-1 - Connection", "HikariPool-1 - Conn\\u0000ection", 1)
             if "HikariPool-1" in line else line for line in lines]
    logs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return pack


def test_an_ask_whose_tool_output_holds_nul_completes_and_is_stored(
        any_store: Store, tmp_path: Path) -> None:
    pack = load_pack(str(_pack_with_nul(tmp_path)))
    events = list(run_investigation(HIKARI, pack=pack, store=any_store))
    document = events[-1].document
    assert document.status == "completed", document.error
    outputs = json.dumps([i.output for i in document.invocations])
    assert "\\u0000" in outputs  # the tool really returned a NUL
    stored = repo.load_session_document(any_store, session_id=document.session_id)
    assert stored == document
    rows = repo.list_events(any_store, session_id=document.session_id)
    assert [parse_event(row.payload) for row in rows] == events


def test_text_postgresql_refuses_is_stored_losslessly(any_store: Store) -> None:
    nasty = "nul \x00, surrogate \ud800, noncharacter \uffff, escape-looking \uffff0 end"
    repo.create_session(any_store, session_id="s-nasty", question=nasty, pack="demo", engines={})
    repo.save_verification(any_store, session_id="s-nasty", trace_summary=[],
                           verifier_result=VerifierResult(verdict="REJECT",
                                                          groundedness_score=float("nan")))
    repo.finish_session(any_store, session_id="s-nasty", status="completed",
                        composer_output=ComposerOutput(status="blocked",
                                                       user_facing_answer=nasty),
                        timings_ms={"total": float("inf")}, error=nasty)
    (summary,) = repo.list_sessions(any_store, text="\x00, surrogate")
    assert summary.question == nasty
    document = repo.load_session_document(any_store, session_id="s-nasty")
    assert document is not None and document.error == nasty
    assert document.composer_output is not None
    assert document.composer_output.user_facing_answer == nasty
    assert document.timings_ms == {"total": float("inf")}


def test_an_older_store_gets_the_new_columns(any_store_url: str) -> None:
    """A store made by the previous schema (no lease columns, no invocation source/request)
    opens, gains the columns, and keeps its rows readable and writable."""
    store = open_store(any_store_url)
    repo.create_session(store, session_id="s-old", question="q", pack="demo", engines={})
    repo.finish_session(store, session_id="s-old", status="completed", composer_output=None,
                        timings_ms={})
    dropped = {"sessions": ["lease_host", "lease_pid", "lease_token", "heartbeat_at"],
               "tool_invocations": ["source", "request"],
               "eval_runs": ["lease_host", "lease_pid", "lease_token", "heartbeat_at"]}
    with store.engine.begin() as connection:
        for table, columns in dropped.items():
            for column in columns:
                connection.execute(text(f"ALTER TABLE {table} DROP COLUMN {column}"))
    store.engine.dispose()
    assert missing_columns(store.engine) == dropped

    reopened = open_store(any_store_url)
    assert missing_columns(reopened.engine) == {}
    assert [s.session_id for s in repo.list_sessions(reopened)] == ["s-old"]
    document = ask(MEMORY, store=reopened)
    assert repo.load_session_document(reopened, session_id=document.session_id) == document
    open_store(any_store_url)  # opening again changes nothing


def test_invocation_ids_stay_unique_when_reserved_and_inserted_side_by_side(
        any_store: Store) -> None:
    """Reserved ids (the pipeline) and ids the table assigns (``record_invocation``) come from
    one counter."""
    from core.contracts import RetrievalDetails

    first = ask(MEMORY, store=any_store)
    repo.create_session(any_store, session_id="s-direct", question="q", pack="demo", engines={})
    direct = repo.record_invocation(any_store, session_id="s-direct", tool_name="query_logs",
                                    arguments={}, output={"success": True},
                                    retrieval_details=RetrievalDetails(evidence_status="error"))
    second = ask(MEMORY, store=any_store)
    ids = [i.invocation_id for i in (*first.invocations, direct, *second.invocations)]
    assert len(ids) == len(set(ids))
    assert direct.invocation_id > max(i.invocation_id for i in first.invocations)


def test_a_fabricated_huge_invocation_id_is_stored(any_store: Store) -> None:
    document = ask(MEMORY, store=any_store, executor_fault="fabricate_invocation")
    assert document.status == "completed"
    stored = repo.load_session_document(any_store, session_id=document.session_id)
    assert stored is not None and stored.gatekeeper_result == document.gatekeeper_result


@pytest.mark.parametrize("url", ["postgresql://auditor@127.0.0.1:1/x"])
def test_a_postgresql_url_without_driver_means_psycopg(url: str) -> None:
    from core.store.dialects import default_postgres_driver

    assert default_postgres_driver(url).startswith("postgresql+psycopg://")
    assert default_postgres_driver("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"


def test_a_session_written_at_close_is_two_transactions_and_reads_back_the_same(
        any_store: Store) -> None:
    ask(MEMORY, store=any_store)  # the first ask of a process warms caches; count the next
    begun = _count_transactions(any_store)
    events = list(run_investigation(MEMORY, store=any_store, write_at_close=True))
    assert len(begun) == 2  # the plan with its id reservation, and the close
    document = events[-1].document
    rows = repo.list_events(any_store, session_id=document.session_id)
    assert [parse_event(row.payload) for row in rows] == events
    stored = repo.load_session_document(any_store, session_id=document.session_id)
    assert stored is not None and stored.status == "completed"
    assert stored.verifier_result == document.verifier_result
    assert stored.invocations == document.invocations


def test_a_crash_before_the_close_of_a_session_written_at_close_leaves_its_plan(
        any_store: Store) -> None:
    """What ``kill -9`` leaves: the generator is stopped where it is and never runs again."""
    running = run_investigation(MEMORY, store=any_store, write_at_close=True)
    seen = []
    for stamped in running:
        seen.append(stamped)
        if isinstance(stamped, VerdictReached):
            break
    session_id = seen[0].session_id
    stored = repo.load_session_document(any_store, session_id=session_id)
    assert stored is not None and stored.status == "running"  # the lease check's to close
    assert stored.plan is not None and stored.verifier_result is None
    kinds = [row.kind for row in repo.list_events(any_store, session_id=session_id)]
    assert kinds and "verdict_reached" not in kinds
    assert kinds == [event.kind for event in seen[:len(kinds)]]
    running.close()  # stopped (not killed): the session is closed as incomplete, whole
    stored = repo.load_session_document(any_store, session_id=session_id)
    assert stored is not None and stored.status == "incomplete"
