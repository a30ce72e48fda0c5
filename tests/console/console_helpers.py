"""Helpers shared by the console tests (constants, bounded waits)."""

from __future__ import annotations

import time
from pathlib import Path

from core.contracts import SessionDocument
from core.store import Store, repository

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = REPO_ROOT / "app.py"
SEED_QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"
XSS_LOG = "<script>alert(1)</script> **bold** payment-service CPU 使用率过高: 92.0%"


def wait_until_finished(store: Store, session_id: str, timeout: float = 20.0) -> SessionDocument:
    """Poll the store until the session leaves ``running`` (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        document = repository.load_session_document(store, session_id=session_id)
        if document is not None and document.status != "running":
            return document
        time.sleep(0.05)
    raise AssertionError(f"session {session_id} still running after {timeout}s")
