"""Crash recovery: runs whose process is gone become ``incomplete`` when the store is opened or
listed (leases: host, PID, process token, heartbeat), never a PASS; live runs are left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from core.contracts import ComposerOutput, VerifierResult
from core.settings import get_settings
from core.store import Store, open_store, recovery
from core.store import repository as repo
from core.store.leases import Heartbeat, current_owner, process_token
from core.store.models import EvalRunRow, SessionRow, utcnow
from core.views.timeline import load_view


def _dead_process() -> tuple[int, str | None]:
    """The PID and token of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    token = process_token(child.pid)
    child.communicate(b"")
    return child.pid, token


def _running_session_with_pass(store: Store, session_id: str) -> None:
    """A session stopped after the verifier said PASS (the old 'killed in the composer' case)."""
    repo.create_session(store, session_id=session_id, question="q", pack="demo", engines={})
    repo.save_verification(store, session_id=session_id, trace_summary=[],
                           verifier_result=VerifierResult(verdict="PASS", groundedness_score=1.0))


def _set(store: Store, table: type[SessionRow] | type[EvalRunRow], row_id: str,
         **values: object) -> None:
    with store.engine.begin() as connection:
        connection.execute(update(table).where(col(table.id) == row_id).values(**values))


def _status(store: Store, session_id: str) -> str:
    document = repo.load_session_document(store, session_id=session_id)
    assert document is not None
    return document.status


def test_a_session_of_a_dead_process_becomes_incomplete_and_never_pass(
        any_store_url: str) -> None:
    store = open_store(any_store_url)
    _running_session_with_pass(store, "s-dead")
    pid, token = _dead_process()
    # An older version stored the verdict column before the end: the listing must not trust it.
    _set(store, SessionRow, "s-dead", lease_pid=pid, lease_token=token, verdict="PASS")

    reopened = open_store(any_store_url)
    (summary,) = repo.list_sessions(reopened)
    assert (summary.status, summary.verdict) == ("incomplete", None)
    assert repo.list_sessions(reopened, verdict="PASS") == []
    document = repo.load_session_document(reopened, session_id="s-dead")
    assert document is not None and document.status == "incomplete"
    assert "lease" in (document.error or "")
    assert document.verifier_result is not None and document.verifier_result.verdict != "PASS"
    view = load_view([], document)
    assert view.verdict != "PASS" and view.status == "incomplete"


def test_a_live_run_is_left_alone(any_store: Store) -> None:
    _running_session_with_pass(any_store, "s-live")
    repo.create_eval_run(any_store, run_id="run-live", suite="x", total=1)
    open_store(str(any_store.engine.url.render_as_string(hide_password=False)))
    assert _status(any_store, "s-live") == "running"
    assert [run.status for run in repo.list_eval_runs(any_store)] == ["running"]
    # Running is not final either: no PASS is listed or shown for it.
    (summary,) = repo.list_sessions(any_store)
    assert summary.verdict is None
    assert repo.list_sessions(any_store, verdict="PASS") == []


def test_a_reused_pid_is_not_the_owner(any_store: Store) -> None:
    """Same host, the PID is alive but is another process (its start time differs)."""
    _running_session_with_pass(any_store, "s-reused")
    _set(any_store, SessionRow, "s-reused", lease_pid=os.getpid(), lease_token="boot:1")
    assert _status(any_store, "s-reused") == "incomplete"


def test_another_host_counts_as_dead_only_after_the_lease_timeout(
        any_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_LEASE_TIMEOUT", "120")
    get_settings.cache_clear()
    for session_id in ("s-fresh", "s-stale"):
        _running_session_with_pass(any_store, session_id)
    _set(any_store, SessionRow, "s-fresh", lease_host="elsewhere", lease_pid=1,
         heartbeat_at=utcnow() - timedelta(seconds=60))
    _set(any_store, SessionRow, "s-stale", lease_host="elsewhere", lease_pid=1,
         heartbeat_at=utcnow() - timedelta(seconds=600))
    assert repo.recover_abandoned(any_store) == (["s-stale"], [])
    assert _status(any_store, "s-fresh") == "running"
    assert _status(any_store, "s-stale") == "incomplete"


def test_a_row_without_a_lease_is_judged_by_its_age(any_store: Store,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows written before leases existed have none: old ones are abandoned, new ones wait."""
    monkeypatch.setenv("SUPERBIZ_LEASE_TIMEOUT", "120")
    get_settings.cache_clear()
    for session_id in ("s-old", "s-new"):
        _running_session_with_pass(any_store, session_id)
        _set(any_store, SessionRow, session_id, lease_host=None, lease_pid=None, lease_token=None,
             heartbeat_at=None)
    _set(any_store, SessionRow, "s-old", created_at=utcnow() - timedelta(hours=2))
    assert repo.recover_abandoned(any_store) == (["s-old"], [])


def test_an_eval_run_of_a_dead_process_becomes_incomplete(any_store_url: str) -> None:
    store = open_store(any_store_url)
    repo.create_eval_run(store, run_id="run-dead", suite="x", total=3)
    repo.create_eval_run(store, run_id="run-done", suite="x", total=1)
    repo.finish_eval_run(store, run_id="run-done", passed=1, duration_ms=1.0, metrics={})
    pid, token = _dead_process()
    _set(store, EvalRunRow, "run-dead", lease_pid=pid, lease_token=token)
    # Found by a reader that was already open (the console's Evals page) ...
    assert {run.id: run.status for run in repo.list_eval_runs(store)} == {
        "run-dead": "incomplete", "run-done": "completed"}
    # ... and by the next open.
    assert [run.status for run in repo.list_eval_runs(open_store(any_store_url))] == [
        "incomplete", "completed"]


def test_a_run_that_beat_or_finished_meanwhile_is_not_marked(any_store: Store) -> None:
    """The mark is conditional on the row being exactly the run judged dead: one that beat or
    finished between the check and the update keeps its status."""
    for session_id in ("s-beat", "s-done"):
        _running_session_with_pass(any_store, session_id)
        pid, token = _dead_process()
        _set(any_store, SessionRow, session_id, lease_pid=pid, lease_token=token)
    judged = recovery._session_leases(any_store, ["s-beat", "s-done"])
    repo.refresh_heartbeats(any_store, rows=[("sessions", "s-beat")],
                            now=utcnow() + timedelta(seconds=1))
    repo.finish_session(any_store, session_id="s-done", status="completed",
                        composer_output=ComposerOutput(status="valid", user_facing_answer="a"),
                        timings_ms={})
    assert recovery._mark_incomplete(any_store, SessionRow, judged) == []
    with any_store.session() as db:  # the rows as they are (reading a document re-checks)
        assert {row.id: row.status for row in db.exec(select(SessionRow))} == {
            "s-beat": "running", "s-done": "completed"}


def test_the_heartbeat_keeps_a_long_run_fresh(any_store: Store) -> None:
    _running_session_with_pass(any_store, "s-long")
    old = utcnow() - timedelta(hours=1)
    _set(any_store, SessionRow, "s-long", heartbeat_at=old)
    beat = Heartbeat(interval_s=0.05)
    beat.hold(any_store, "sessions", "s-long")
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with any_store.session() as db:
                row = db.get(SessionRow, "s-long")
                assert row is not None
                if row.heartbeat_at is not None and row.heartbeat_at > old + timedelta(minutes=30):
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the heartbeat never refreshed the session")
    finally:
        beat.release(any_store, "sessions", "s-long")


def test_the_owner_is_this_process() -> None:
    owner = current_owner()
    assert owner.pid == os.getpid()
    if sys.platform.startswith("linux"):
        assert owner.token == process_token(os.getpid()) and owner.token
