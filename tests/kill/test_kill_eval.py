"""A real `superbiz eval` killed with SIGKILL mid-run: its run and session read `incomplete`; and
`superbiz ask` killed on PostgreSQL (in this file so the kill tests spread over two workers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.store import open_store
from core.store import repository as repo
from tests.kill.kill_helpers import (
    EVAL_KILLS,
    POSTGRES_ASK_KILLS,
    QUESTION,
    assert_intact,
    check_killed_ask,
    kill,
    start_paused,
)


@pytest.mark.parametrize(("any_store_url", "stage"), EVAL_KILLS, indirect=["any_store_url"])
def test_an_eval_killed_mid_run_is_incomplete(any_store_url: str, stage: str,
                                              tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"- id: memory\n  question: {QUESTION}\n  expect:\n    verdict: PASS\n",
                     encoding="utf-8")
    kill(start_paused(["eval", str(cases), "--workers", "1"], any_store_url, stage, tmp_path))
    assert_intact(any_store_url)

    store = open_store(any_store_url)
    (run,) = repo.list_eval_runs(store)
    assert run.status == "incomplete"
    (summary,) = repo.list_sessions(store)
    assert summary.status == "incomplete" and summary.verdict != "PASS"
    store.engine.dispose()


@pytest.mark.parametrize(("any_store_url", "stage"), POSTGRES_ASK_KILLS, indirect=["any_store_url"])
def test_an_ask_killed_on_postgresql_is_incomplete_never_pass(
        any_store_url: str, stage: str, tmp_path: Path) -> None:
    check_killed_ask(any_store_url, stage, tmp_path)
