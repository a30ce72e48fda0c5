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


def test_the_console_settings_become_streamlit_flags_nested_tables_included(
        tmp_path: Path) -> None:
    from core.cli.serve_cmd import _config_flags

    config = tmp_path / "config.toml"
    config.write_text('[server]\nheadless = true\nport = 8501\n\n[theme.light]\nprimaryColor = "#123"\n'
                      '\n[theme.dark]\nprimaryColor = "#456"\n', encoding="utf-8")
    assert _config_flags(config) == ["--server.headless=true", "--server.port=8501",
                                     "--theme.light.primaryColor=#123",
                                     "--theme.dark.primaryColor=#456"]
    assert _config_flags(tmp_path / "absent.toml") == []


def test_the_shipped_console_settings_are_all_options_streamlit_knows() -> None:
    from streamlit import config as streamlit_config

    from core.cli.serve_cmd import _config_flags
    from core.resources import console_app

    flags = _config_flags(console_app().parent / ".streamlit" / "config.toml")
    assert flags
    known = set(streamlit_config._config_options_template)
    for flag in flags:
        option = flag.removeprefix("--").split("=", 1)[0]
        assert option in known, f"{option} is not a Streamlit option"
