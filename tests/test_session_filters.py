"""Session history filters (pack, outcome, fault, origin, time range), failed-rule counts, and
the outcome of rejected and failed sessions (core/outcome.py, core/store/history.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col

from core.cli import main
from core.outcome import closing_outcome, stored_outcome
from core.pipeline import ask
from core.store import Store, repository
from core.store.models import SessionRow
from tests.test_pipeline import QUESTION, CrashingExecutor, _engines


def _ids(store: Store, **query: object) -> set[str]:
    return {summary.session_id for summary in repository.list_sessions(store, **query)}  # type: ignore[arg-type]


def test_rejected_and_failed_sessions_have_an_outcome(tmp_store: Store) -> None:
    rejected = ask(QUESTION, store=tmp_store, executor_fault="tamper_number")
    failed = ask(QUESTION, store=tmp_store, engines=_engines(executor=CrashingExecutor()))
    assert (rejected.verifier_result.verdict, rejected.outcome) == ("REJECT", "rejected")
    assert (failed.status, failed.outcome) == ("error", "error")
    for document in (rejected, failed):
        stored = repository.load_session_document(tmp_store, session_id=document.session_id)
        assert stored is not None and stored.outcome == document.outcome
    outcomes = {s.session_id: s.outcome for s in repository.list_sessions(tmp_store)}
    assert outcomes == {rejected.session_id: "rejected", failed.session_id: "error"}
    assert _ids(tmp_store, outcome="rejected") == {rejected.session_id}
    assert _ids(tmp_store, outcome="error") == {failed.session_id}


def test_rows_stored_before_the_new_outcomes_read_with_them(tmp_store: Store) -> None:
    rejected = ask(QUESTION, store=tmp_store, executor_fault="tamper_number")
    with tmp_store.begin() as connection:  # as an older version stored it: no outcome
        connection.execute(update(SessionRow).where(col(SessionRow.id) == rejected.session_id)
                           .values(outcome=None))
    (summary,) = repository.list_sessions(tmp_store)
    assert summary.outcome == "rejected"
    assert _ids(tmp_store, outcome="rejected") == {rejected.session_id}
    assert stored_outcome(status="incomplete", verdict="REJECT", outcome=None) is None
    assert closing_outcome("incomplete", "found") is None
    assert closing_outcome("error", "found") == "error"
    assert closing_outcome("completed", "absent") == "absent"


def test_filters_by_pack_fault_origin_and_time(tmp_store: Store) -> None:
    plain = ask(QUESTION, store=tmp_store)
    faulty = ask(QUESTION, store=tmp_store, executor_fault="tamper_number")
    from_eval = ask(QUESTION, store=tmp_store)
    repository.create_eval_run(tmp_store, run_id="r1", suite="default", total=1)
    repository.add_case_result(tmp_store, run_id="r1", case_id="c1",
                               session_id=from_eval.session_id, passed=True, duration_ms=1.0,
                               tags=[], detail={})
    repository.add_case_result(tmp_store, run_id="r1", case_id="c2", session_id=None,
                               passed=False, duration_ms=1.0, tags=[], detail={})
    everything = {plain.session_id, faulty.session_id, from_eval.session_id}
    assert _ids(tmp_store, pack="demo") == everything
    assert _ids(tmp_store, pack="no-such-pack") == set()
    assert _ids(tmp_store, fault="tamper_number") == {faulty.session_id}
    assert _ids(tmp_store, fault="none") == {plain.session_id, from_eval.session_id}
    # A case result without a session (NULL) must not empty the "manual" list (NOT IN NULL).
    assert _ids(tmp_store, origin="manual") == {plain.session_id, faulty.session_id}
    assert _ids(tmp_store, origin="eval") == {from_eval.session_id}
    origins = {s.session_id: s.origin for s in repository.list_sessions(tmp_store)}
    assert origins[from_eval.session_id] == "eval" and origins[plain.session_id] == "manual"
    assert repository.count_sessions(tmp_store, origin="eval") == 1
    with tmp_store.begin() as connection:
        connection.execute(update(SessionRow).where(col(SessionRow.id) == plain.session_id)
                           .values(created_at=datetime.now(UTC) - timedelta(days=3)))
    since = datetime.now(UTC) - timedelta(days=1)
    assert _ids(tmp_store, since=since) == {faulty.session_id, from_eval.session_id}


def test_failed_rule_counts_follow_the_filters(tmp_store: Store) -> None:
    ask(QUESTION, store=tmp_store)
    first = ask(QUESTION, store=tmp_store, executor_fault="tamper_number")
    ask(QUESTION, store=tmp_store, executor_fault="tamper_number")
    rules = first.gatekeeper_result.failed_rules
    assert rules
    counts = repository.failed_rule_counts(tmp_store)
    assert {rule: counts[rule] for rule in rules} == dict.fromkeys(rules, 2)
    assert repository.failed_rule_counts(tmp_store, fault="none") == {}
    assert repository.failed_rule_counts(tmp_store, text=first.session_id) == dict.fromkeys(rules, 1)


def test_the_cli_lists_with_the_pages_filters(tmp_store: Store,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    plain = ask(QUESTION, store=tmp_store)
    faulty = ask(QUESTION, store=tmp_store, executor_fault="tamper_number")
    with tmp_store.begin() as connection:
        connection.execute(update(SessionRow).where(col(SessionRow.id) == plain.session_id)
                           .values(created_at=datetime.now(UTC) - timedelta(days=3)))

    def listed(*argv: str) -> set[str]:
        assert main(["sessions", "list", "--json", *argv]) == 0
        return {row["session_id"] for row in json.loads(capsys.readouterr().out)}

    assert listed("--pack", "demo") == {plain.session_id, faulty.session_id}
    assert listed("--pack", "no-such-pack") == set()
    assert listed("--fault", "tamper_number") == {faulty.session_id}
    assert listed("--fault", "none") == {plain.session_id}
    assert listed("--outcome", "rejected") == {faulty.session_id}
    assert listed("--origin", "manual", "--since", "24h") == {faulty.session_id}
    assert listed("--origin", "eval") == set()
    for option, value, told in (("--outcome", "maybe", "not one of found, absent"),
                                ("--since", "2w", "'2w' is not one of 1h, 24h, 7d, 30d")):
        assert main(["sessions", "list", option, value]) == 2  # argparse's usage error
        assert told in capsys.readouterr().err
