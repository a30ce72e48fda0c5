"""Helpers of the kill tests: a real ``superbiz ask`` (or ``eval``) killed with SIGKILL at a
stage must leave an intact store where the run reads ``incomplete`` — never ``running``, never
PASS.

The CLI runs in a subprocess through ``tests/kill/paused_cli.py``, which sets the pipeline's
``on_stage`` hook: before the stage it writes its PID to a marker file and sleeps, and the test
kills it there. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import text

from core.pipeline import ask
from core.store import open_store
from core.store import repository as repo
from core.views.timeline import load_view, parse_stored_events

REPO_ROOT = Path(__file__).resolve().parents[2]
QUESTION = "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。"
STAGES = ("plan", "execute", "gatekeeper", "verify", "compose", "finish")
# Every stage on SQLite; on PostgreSQL the stage whose batch holds the most and the last one
# (each kill is a CLI start-up, seconds on a busy machine).
SQLITE_ASK_KILLS = [("sqlite", stage) for stage in STAGES]
POSTGRES_ASK_KILLS = [("postgresql", "execute"), ("postgresql", "finish")]
EVAL_KILLS = [("sqlite", "execute"), ("sqlite", "finish"), ("postgresql", "verify")]


def start_paused(arguments: list[str], url: str, stage: str, tmp_path: Path) -> subprocess.Popen[bytes]:
    marker = tmp_path / f"paused-{stage}"
    environment = {**os.environ, "SUPERBIZ_DB": url}
    process = subprocess.Popen([sys.executable, "-m", "tests.kill.paused_cli", stage, str(marker),
                                "120", "--", *arguments], cwd=REPO_ROOT,
                               env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    while not marker.exists():
        if process.poll() is not None:
            raise AssertionError(f"the run ended before pausing at {stage}: "
                                 f"{process.stderr.read().decode() if process.stderr else ''}")
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise AssertionError(f"the run never paused at {stage}")
        time.sleep(0.05)
    return process


def kill(process: subprocess.Popen[bytes]) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def assert_intact(url: str) -> None:
    store = open_store(url)
    with store.engine.connect() as connection:
        if store.engine.dialect.name == "sqlite":
            assert connection.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        else:
            assert connection.execute(text("SELECT count(*) FROM sessions")).scalar() is not None
    store.engine.dispose()


def assert_cli_lists_no_pass(url: str) -> None:
    listing = subprocess.run([sys.executable, "-m", "core", "sessions", "list", "--verdict", "PASS",
                              "--json", "--db", url], cwd=REPO_ROOT,
                             capture_output=True, text=True, timeout=120, check=False)
    assert listing.returncode == 0, listing.stderr
    assert json.loads(listing.stdout) == []


def check_killed_ask(any_store_url: str, stage: str, tmp_path: Path) -> None:
    """Kill ``superbiz ask`` before ``stage`` and check what the store, console and CLI say."""
    kill(start_paused(["ask", QUESTION], any_store_url, stage, tmp_path))
    assert_intact(any_store_url)

    store = open_store(any_store_url)  # opening the store finds the dead run
    (summary,) = repo.list_sessions(store)
    assert summary.status == "incomplete" and summary.verdict != "PASS"
    assert repo.list_sessions(store, verdict="PASS") == []
    assert repo.list_sessions(store, status="running") == []
    document = repo.load_session_document(store, session_id=summary.session_id)
    assert document is not None and document.status == "incomplete"
    assert document.verifier_result is None or document.verifier_result.verdict != "PASS"
    # Everything stored before the stage that was running is there.
    if stage in ("execute", "gatekeeper", "verify", "compose", "finish"):
        assert document.plan is not None
    if stage in ("verify", "compose", "finish"):
        assert document.invocations and document.gatekeeper_result is not None
    if stage in ("compose", "finish"):
        assert document.verifier_result is not None
    # The console: its view of the stored events and document.
    events = parse_stored_events(repo.list_events(store, session_id=summary.session_id))
    view = load_view(events, document)
    assert view.status == "incomplete" and view.verdict != "PASS"

    # The CLI (once: it is the stage the verdict was PASS before the fix): no PASS listed.
    if stage == "finish":
        assert_cli_lists_no_pass(any_store_url)

    # The store still works: the next ask completes.
    assert ask(QUESTION, store=store).status == "completed"
    store.engine.dispose()
