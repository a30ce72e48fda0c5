"""The audit store's hash chain on SQLite and PostgreSQL: every closed session and eval run is
sealed as it closes; a verdict, an excerpt or a tool output changed with raw SQL, a deleted
row and reordered rows are each caught by ``audit verify``; concurrent writers leave one
unbroken chain; an older store is sealed on open; a pinned head catches a rewritten chain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from core.pipeline import ask
from core.store import Store, open_store
from core.store import repository as repo
from core.store.audit import verify_chain

REPO_ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ("请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
             "确认 order-service 是否存在 HikariCP 连接池耗尽")


@pytest.fixture
def sealed(any_store: Store) -> tuple[Store, list[str]]:
    """A store holding two asked sessions and an eval run; returns it and the session ids."""
    ids = [ask(question, store=any_store).session_id for question in QUESTIONS]
    repo.create_eval_run(any_store, run_id="run-1", suite="acceptance", total=1)
    repo.add_case_result(any_store, run_id="run-1", case_id="c1", session_id=ids[0],
                         passed=True, duration_ms=1.0, tags=["t"], detail={"ok": True})
    repo.finish_eval_run(any_store, run_id="run-1", passed=1, duration_ms=2.0, metrics={"p": 1})
    return any_store, ids


def _json_value(connection: Connection, table: str, column: str, row_id: Any) -> Any:
    raw = connection.execute(text(f"SELECT {column} FROM {table} WHERE id = :id"),
                             {"id": row_id}).scalar_one()
    return json.loads(raw) if isinstance(raw, str) else raw


def _set_json(connection: Connection, table: str, column: str, row_id: Any, value: Any) -> None:
    cast = "CAST(:v AS JSON)" if connection.dialect.name == "postgresql" else ":v"
    connection.execute(text(f"UPDATE {table} SET {column} = {cast} WHERE id = :id"),
                       {"v": json.dumps(value), "id": row_id})


def _change_verdict(connection: Connection, ids: list[str]) -> str:
    connection.execute(text("UPDATE sessions SET verdict = CASE WHEN verdict = 'PASS' THEN "
                            "'REJECT' ELSE 'PASS' END WHERE id = :id"), {"id": ids[1]})
    return ids[1]


def _change_excerpt(connection: Connection, ids: list[str]) -> str:
    output = _json_value(connection, "sessions", "executor_output", ids[0])
    binding = output["claims"][0]["evidence_bindings"][0]
    binding["evidence_excerpt"] = binding["evidence_excerpt"].replace("91%", "19%")
    _set_json(connection, "sessions", "executor_output", ids[0], output)
    return ids[0]


def _change_tool_output(connection: Connection, ids: list[str]) -> str:
    invocation = connection.execute(text("SELECT min(id) FROM tool_invocations WHERE "
                                         "session_id = :id"), {"id": ids[1]}).scalar_one()
    output = _json_value(connection, "tool_invocations", "output", invocation)
    output["tampered"] = True
    _set_json(connection, "tool_invocations", "output", invocation, output)
    return ids[1]


def _delete_tool_call(connection: Connection, ids: list[str]) -> str:
    connection.execute(text("DELETE FROM tool_invocations WHERE id = (SELECT max(id) FROM "
                            "tool_invocations WHERE session_id = :id)"), {"id": ids[0]})
    return ids[0]


def _delete_session(connection: Connection, ids: list[str]) -> str:
    connection.execute(text("DELETE FROM sessions WHERE id = :id"), {"id": ids[1]})
    return ids[1]


def _delete_record(connection: Connection, ids: list[str]) -> str:
    connection.execute(text("DELETE FROM audit_chain WHERE seq = 2"))
    return "#2"


def _swap_records(connection: Connection, ids: list[str]) -> str:
    for old, new in ((1, 101), (2, 1), (101, 2)):
        connection.execute(text("UPDATE audit_chain SET seq = :new WHERE seq = :old"),
                           {"old": old, "new": new})
    return ids[1]


def _swap_session_times(connection: Connection, ids: list[str]) -> str:
    first, second = (connection.execute(text("SELECT created_at FROM sessions WHERE id = :id"),
                                        {"id": session_id}).scalar_one() for session_id in ids)
    for session_id, moment in ((ids[0], second), (ids[1], first)):
        connection.execute(text("UPDATE sessions SET created_at = :t WHERE id = :id"),
                           {"t": moment, "id": session_id})
    return ids[0]


def _change_case_result(connection: Connection, ids: list[str]) -> str:
    connection.execute(text("UPDATE case_results SET passed = NOT passed"))
    return "run-1"


TAMPERING: dict[str, Callable[[Connection, list[str]], str]] = {
    "verdict": _change_verdict, "excerpt": _change_excerpt, "tool output": _change_tool_output,
    "deleted tool call": _delete_tool_call, "deleted session": _delete_session,
    "deleted record": _delete_record, "reordered records": _swap_records,
    "reordered sessions": _swap_session_times, "eval case result": _change_case_result}


def _cli(*args: str, store: Store) -> subprocess.CompletedProcess[str]:
    url = store.engine.url.render_as_string(hide_password=False)
    return subprocess.run([sys.executable, "-m", "core", "audit", "verify", "--db", url, *args],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def test_an_untouched_store_is_intact_and_every_closed_record_sealed(
        sealed: tuple[Store, list[str]]) -> None:
    store, _ = sealed
    report = verify_chain(store)
    assert report.intact, report.problems
    assert (report.records, report.checked, report.head_seq) == (3, 3, 3)
    done = _cli(store=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["3 records intact", f"head #3 {report.head}"]
    pinned = _cli("--head", report.head[:16], "--json", store=store)
    assert pinned.returncode == 0, pinned.stderr
    assert json.loads(pinned.stdout)["intact"] is True
    assert json.loads(pinned.stdout)["pinned_seq"] == 3
    assert _cli("--head", "abc", store=store).returncode == 2  # no SHA-256 prefix: usage error


@pytest.mark.parametrize("change", list(TAMPERING))
def test_each_change_made_with_raw_sql_is_caught(sealed: tuple[Store, list[str]],
                                                 change: str) -> None:
    store, ids = sealed
    with store.engine.begin() as connection:
        changed = TAMPERING[change](connection, ids)
    report = verify_chain(store)
    assert not report.intact
    first = report.problems[0]
    assert changed in (first.record_id, f"#{first.seq}"), first
    if change == "verdict":  # the command reports the same (one run: each costs a start-up)
        done = _cli("--json", store=store)
        assert done.returncode == 1, done.stderr
        assert json.loads(done.stdout)["first_problem"]["message"] == first.message


def test_a_truncated_chain_is_caught_by_its_head_and_a_rewritten_one_by_a_pinned_head(
        sealed: tuple[Store, list[str]]) -> None:
    store, ids = sealed
    pinned = verify_chain(store).head
    repo.create_session(store, session_id="s-later", question="q", pack="demo", engines={})
    repo.finish_session(store, session_id="s-later", status="completed", composer_output=None,
                        timings_ms={})
    assert verify_chain(store, pinned_head=pinned).intact  # a pin holds as the chain grows
    with store.engine.begin() as connection:
        connection.execute(text("DELETE FROM audit_chain WHERE seq = 4"))
    assert [p.kind for p in verify_chain(store).problems][:1] == ["head"]
    # A writer who rewrites the chain from scratch (here: the migration's own sealing, after
    # changing a verdict) leaves a chain that verifies -- unless the head was pinned.
    with store.engine.begin() as connection:
        _change_verdict(connection, ids)
        connection.execute(text("DELETE FROM audit_chain"))
        connection.execute(text("DELETE FROM store_meta WHERE key = 'audit_chain_head'"))
    store.engine.dispose()
    rewritten = open_store(store.engine.url.render_as_string(hide_password=False))
    assert verify_chain(rewritten).intact
    report = verify_chain(rewritten, pinned_head=pinned)
    assert [p.kind for p in report.problems] == ["pinned"]
    assert _cli("--head", pinned, store=rewritten).returncode == 1


def test_an_older_store_is_sealed_on_open(any_store_url: str) -> None:
    store = open_store(any_store_url)
    ids = [ask(question, store=store).session_id for question in QUESTIONS]
    repo.create_session(store, session_id="s-open", question="q", pack="demo", engines={})
    with store.engine.begin() as connection:  # as the previous schema version left it
        connection.execute(text("DROP TABLE audit_chain"))
        connection.execute(text("DELETE FROM store_meta WHERE key = 'audit_chain_head'"))
        connection.execute(text("UPDATE store_meta SET value = '1' WHERE key = 'schema_version'"))
    store.engine.dispose()
    reopened = open_store(any_store_url)
    report = verify_chain(reopened)
    assert report.intact and report.records == 2 and report.running == 1
    with reopened.engine.connect() as connection:
        sealed = connection.execute(text("SELECT record_id FROM audit_chain ORDER BY seq")).all()
    assert [row[0] for row in sealed] == ids  # oldest first
    repo.finish_session(reopened, session_id="s-open", status="completed", composer_output=None,
                        timings_ms={})
    assert verify_chain(reopened).records == 3 and verify_chain(reopened).intact


_WRITER = """
import sys, time
from pathlib import Path
from core.store import open_store
from core.store import repository as repo
url, name, start = sys.argv[1], sys.argv[2], Path(sys.argv[3])
store = open_store(url)
while not start.exists():
    time.sleep(0.01)
for index in range(5):
    session_id = f"s-{name}-{index}"
    repo.create_session(store, session_id=session_id, question="q", pack="demo", engines={})
    repo.finish_session(store, session_id=session_id, status="completed", composer_output=None,
                        timings_ms={"total": float(index)})
"""


def test_eight_concurrent_writers_leave_one_unbroken_chain(any_store: Store,
                                                           tmp_path: Path) -> None:
    url = any_store.engine.url.render_as_string(hide_password=False)
    start = tmp_path / "start"
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, url, f"w{n}", str(start)],
                                cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
                                stderr=subprocess.PIPE, text=True) for n in range(8)]
    time.sleep(1.0)  # let them open the store, then release them together
    start.touch()
    for writer in writers:
        _, errors = writer.communicate(timeout=180)
        assert writer.returncode == 0, errors
    report = verify_chain(any_store)
    assert report.intact, report.problems
    assert report.records == 40 and report.head_seq == 40
    with any_store.engine.connect() as connection:
        sealed = {row[0] for row in connection.execute(text("SELECT record_id FROM audit_chain"))}
    assert sealed == {f"s-w{n}-{index}" for n in range(8) for index in range(5)}


def test_the_console_quick_look_checks_only_the_newest_records(
        sealed: tuple[Store, list[str]]) -> None:
    store, ids = sealed
    with store.engine.begin() as connection:
        _change_excerpt(connection, ids)  # record #1
    quick = verify_chain(store, last=2)
    assert quick.intact and quick.checked == 2 and quick.records == 3
    assert not verify_chain(store, last=3).intact
    assert not verify_chain(store, last=50).intact  # more than the chain holds: all of it
