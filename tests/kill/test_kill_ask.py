"""A real `superbiz ask` killed with SIGKILL before each stage, on SQLite: the session reads
`incomplete`, never `running`, never PASS, and the store is intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kill.kill_helpers import SQLITE_ASK_KILLS, check_killed_ask


@pytest.mark.parametrize(("any_store_url", "stage"), SQLITE_ASK_KILLS, indirect=["any_store_url"])
def test_an_ask_killed_at_any_stage_is_incomplete_never_pass(
        any_store_url: str, stage: str, tmp_path: Path) -> None:
    check_killed_ask(any_store_url, stage, tmp_path)
