"""The console script skips the interpreter's last garbage collection only when nothing needs
it: a command that opened the audit store still closes its SQLite connections on the way out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"


def _console(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "SUPERBIZ_DB": str(tmp_path / "audit.db"),
                   "SUPERBIZ_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "core", *arguments], env=environment, capture_output=True,
                          text=True, timeout=120, check=True)


def test_a_stored_ask_closes_the_audit_store(tmp_path: Path) -> None:
    _console(tmp_path, "ask", QUESTION)
    assert (tmp_path / "audit.db").is_file()
    # A connection left open at exit leaves its write-ahead log beside the database.
    assert not (tmp_path / "audit.db-wal").exists()
    assert not (tmp_path / "audit.db-shm").exists()
    listed = _console(tmp_path, "sessions", "list", "--json")
    assert QUESTION in listed.stdout


def test_an_ask_without_the_store_writes_no_database(tmp_path: Path) -> None:
    answered = _console(tmp_path, "ask", QUESTION, "--no-store")
    assert "payment-service" in answered.stdout
    assert not list(tmp_path.glob("audit.db*"))
