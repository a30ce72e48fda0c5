"""``superbiz serve`` refuses what it can see is wrong in one line, before becoming Streamlit.

Run as a subprocess: on success the command replaces its process with Streamlit. The success
path (the console served from an installed wheel) is tests/test_packaging.py.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path


def _serve(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core", "serve", *args], cwd=cwd, env=os.environ,
                          capture_output=True, text=True, timeout=60)


def test_a_taken_port_is_one_line_and_nothing_is_created(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _serve("--port", str(port), "--db", str(tmp_path / "never.db"), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"superbiz: error: port {port} is already in use on 127.0.0.1 (choose another with --port)"]
    assert not (tmp_path / "never.db").exists()


def test_an_audit_store_that_cannot_open_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = _serve("--port", str(port), "--db", str(blocker / "audit.db"), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("superbiz: error: cannot open audit store")


def test_a_port_out_of_range_is_refused(tmp_path: Path) -> None:
    done = _serve("--port", "70000", cwd=tmp_path)
    assert done.returncode == 2 and "port out of range 1-65535: 70000" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_stray_argument_is_refused_not_passed_to_streamlit(tmp_path: Path) -> None:
    done = _serve("9000", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "superbiz: error: unexpected argument '9000' (Streamlit options go after `--`, "
        "e.g. `-- --server.headless true`)"]
