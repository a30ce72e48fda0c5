"""The real console script, as a separate process: argv bytes, signals, special files, pipes.

What in-process calls cannot show: arguments the locale cannot decode, SIGINT and SIGTERM
arriving mid-run (the session is closed honestly, one line, the conventional exit code), and
paths that would block a process forever.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

SUPERBIZ = Path(sys.executable).with_name("superbiz")
DEADLINE_S = 60  # far above any honest answer: only a hang reaches it
F_SETPIPE_SZ = 1031  # Linux fcntl: set a pipe's capacity
QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SUPERBIZ_", "OPENAI_"))}
    return {**env, "SUPERBIZ_DB": str(tmp_path / "audit.db"), "PYTHONIOENCODING": "utf-8",
            **extra}


def _run(argv: list[str | bytes], tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(SUPERBIZ), *argv], env=_env(tmp_path, **extra), cwd=tmp_path,
                          capture_output=True, timeout=DEADLINE_S, stdin=subprocess.DEVNULL,
                          check=False)


def _one_error_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8")
    lines = text.splitlines()
    assert len(lines) == 1 and lines[0].startswith("superbiz: error: "), text
    assert "Traceback" not in text
    return lines[0]


@pytest.mark.parametrize("argv", [
    [b"ask", b"only confirm \xff\xfe CPU"],               # not UTF-8: a lone surrogate in Python
    [b"gatekeeper", b"check", b"/tmp/\xc3(.json"],
    [b"sessions", b"list", b"--text", b"\xed\xa0\x80"],    # an encoded surrogate (CESU-8)
    [b"tools", b"call", b"query_logs", b"--args", b'{"query": "\xff"}'],
])
def test_arguments_that_are_not_utf8_are_one_line(argv: list[str | bytes], tmp_path: Path) -> None:
    done = _run(argv, tmp_path)
    assert done.returncode == 2
    assert "not valid Unicode" in _one_error_line(done.stderr)
    assert not (tmp_path / "audit.db").exists()


@pytest.mark.parametrize("argv", [
    ["gatekeeper", "check", "<fifo>"], ["replay", "<fifo>"], ["eval", "<fifo>"],
    ["gatekeeper", "check", "/dev/zero"], ["sessions", "export", "-o", "<fifo>"],
    ["ask", QUESTION, "--db", "<fifo>"], ["packs", "validate", "<fifo>"],
])
def test_special_files_never_block_a_process(argv: list[str], tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = _run([str(fifo) if part == "<fifo>" else part for part in argv], tmp_path)
    assert done.returncode == 2
    _one_error_line(done.stderr)


def _wait_for_running_session(db: Path, process: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        if db.exists():
            try:
                with sqlite3.connect(db) as connection:
                    row = connection.execute("SELECT id FROM sessions WHERE status = 'running'"
                                             ).fetchone()
            except sqlite3.OperationalError:  # tables not created yet
                row = None
            if row:
                return str(row[0])
        time.sleep(0.05)
    raise AssertionError("no running session appeared")


@pytest.mark.parametrize(("signum", "code", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                      (signal.SIGTERM, 143, "terminated")])
def test_a_signal_mid_run_closes_the_session_in_one_line(
        signum: int, code: int, word: str, tmp_path: Path) -> None:
    # A model endpoint that accepts the connection and never answers: the run waits in the
    # executor's first model call until the signal arrives.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        env = _env(tmp_path, SUPERBIZ_LLM_BASE_URL=f"http://127.0.0.1:{silent.getsockname()[1]}/v1",
                   SUPERBIZ_LLM_MODEL="m", SUPERBIZ_LLM_TIMEOUT_S="120")
        process = subprocess.Popen([str(SUPERBIZ), "ask", QUESTION, "--engine", "llm"], env=env,
                                   cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL)
        try:
            session = _wait_for_running_session(tmp_path / "audit.db", process)
            time.sleep(0.3)  # into the model call
            process.send_signal(signum)
            _, stderr = process.communicate(timeout=DEADLINE_S)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == code
    assert _one_error_line(stderr) == f"superbiz: error: {word}"
    with sqlite3.connect(tmp_path / "audit.db") as connection:
        status, error = connection.execute("SELECT status, error FROM sessions WHERE id = ?",
                                           (session,)).fetchone()
    assert status == "incomplete" and error.startswith("stopped during stage")


def test_a_reader_that_leaves_early_is_no_error(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    fcntl.fcntl(read_end, F_SETPIPE_SZ, 4096)  # smaller than the schema: the writer must wait
    process = subprocess.Popen([str(SUPERBIZ), "schema"], env=_env(tmp_path), cwd=tmp_path,
                               stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        reader.readline()
    # like `superbiz schema | head -1`: the reader is gone, the writer gets EPIPE
    assert process.stderr is not None
    stderr = process.stderr.read()
    assert process.wait(timeout=DEADLINE_S) == 0
    assert stderr == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_device_is_one_line_and_exit_2_not_an_internal_error(tmp_path: Path) -> None:
    asked = _run(["ask", "--json", QUESTION], tmp_path)
    assert asked.returncode == 0
    (tmp_path / "session.json").write_bytes(asked.stdout)
    for argv in (["schema"], ["sessions", "list", "--json"], ["gatekeeper", "check", "--json",
                 "session.json"], ["ask", "--json", QUESTION], ["--version"], ["packs", "list"]):
        with open("/dev/full", "wb") as full:
            process = subprocess.run([str(SUPERBIZ), *argv], env=_env(tmp_path), cwd=tmp_path,
                                     stdout=full, stderr=subprocess.PIPE, timeout=DEADLINE_S,
                                     stdin=subprocess.DEVNULL, check=False)
        assert process.returncode == 2, (argv, process.stderr)
        assert _one_error_line(process.stderr) == \
            "superbiz: error: cannot write the output: No space left on device", argv
