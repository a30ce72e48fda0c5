"""Failures the product survives are logged where they are caught; ``--verbose`` shows them.

Quiet by default: the CLI's stderr holds only its documented one-line errors.
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from sqlalchemy import text

from core.cli import main
from core.events import PlanMade, SessionFinished
from core.pipeline import run_investigation
from core.store import Store

QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def unreachable_llm(monkeypatch: pytest.MonkeyPatch) -> str:
    """The llm engine pointed at an endpoint that refuses connections."""
    for name in ("SUPERBIZ_LLM_MODEL", "SUPERBIZ_LLM_BACKEND", "OPENAI_MODEL", "OPENAI_BASE_URL",
                 "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("SUPERBIZ_LLM_BASE_URL", url)
    monkeypatch.setenv("SUPERBIZ_LLM_TIMEOUT_S", "2")
    monkeypatch.setenv("SUPERBIZ_LLM_MAX_RETRIES", "0")
    return url


def test_a_failed_model_call_is_shown_with_verbose_and_quiet_without(
        unreachable_llm: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", QUESTION, "--planner", "llm", "--no-store"]) == 1
    quiet = capsys.readouterr()
    # Quiet: stderr holds the failed stage's one error line (every error on stderr), no log.
    errors = quiet.err.splitlines()
    assert len(errors) == 1 and errors[0].split(maxsplit=1)[0] == "error", errors
    assert errors[0].split(maxsplit=1)[1].startswith("stage plan failed: llm planner step failed"), errors
    assert "stage plan failed" not in quiet.out

    assert main(["--verbose", "ask", QUESTION, "--planner", "llm", "--no-store"]) == 1
    verbose = capsys.readouterr().err.splitlines()
    assert any(line.startswith("superbiz: WARNING core.agents.llm.client: llm call failed")
               and unreachable_llm in line for line in verbose), verbose
    assert any(line.startswith("superbiz: WARNING core.pipeline: session ")
               and "stage plan failed" in line for line in verbose), verbose
    assert not any("Traceback" in line for line in verbose)  # an expected failure: its message


def test_verbose_lasts_one_command(unreachable_llm: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--verbose", "ask", QUESTION, "--planner", "llm", "--no-store"])
    capsys.readouterr()
    main(["ask", QUESTION, "--planner", "llm", "--no-store"])
    # Only the failed stage's error line: no logged warning outlives --verbose.
    assert not any(line.startswith("superbiz: WARNING") for line in capsys.readouterr().err.splitlines())
    # Only a console's handler (to the process's own stderr) may outlive a command.
    assert all(getattr(handler, "process_stderr", True)
               for handler in logging.getLogger("core").handlers)


def test_a_store_that_fails_mid_session_is_logged_and_the_session_still_ends(
        tmp_store: Store, caplog: pytest.LogCaptureFixture) -> None:
    events = run_investigation(QUESTION, store=tmp_store)
    seen = []
    with caplog.at_level(logging.WARNING, logger="core"):
        for event in events:
            seen.append(event)
            if isinstance(event, PlanMade):
                # The event log's table disappears under the running session (a broken store).
                with tmp_store.engine.begin() as connection:
                    connection.execute(text("DROP TABLE session_events"))
    finished = seen[-1]
    assert isinstance(finished, SessionFinished) and finished.document.status == "error"
    messages = [record.getMessage() for record in caplog.records if record.name == "core.pipeline"]
    # The next write of the session's events fails its stage; storing the failure fails too.
    assert any("failed: audit store" in message for message in messages), messages
    assert any("kept in memory only" in message for message in messages), messages


def test_the_library_prints_nothing_by_itself(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # Python's last-resort handler would print a WARNING from a logger without handlers.
    logging.getLogger("core.pipeline").warning("nobody asked to see this")
    assert capsys.readouterr().err == ""
