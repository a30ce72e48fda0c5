"""Each CLI command imports only what it needs: the audit store's SQLAlchemy only when it
writes or reads the store, the llm engine (and ``openai``) only when a role uses it, the live
sources' HTTP client only when a server is configured, the log layouts only to import logs,
rapidfuzz only for a quote not found as written.

Each command runs in a fresh interpreter, which then reports the heavy modules it loaded. How
fast that makes startup is a benchmark (bench/startup.py), not a test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"
TOOL_ARGS = '{"service": "order-service", "query": "HikariCP"}'
HEAVY = ("sqlalchemy", "sqlmodel", "openai", "httpx2", "core.store.db", "core.store.repository",
         "core.agents.llm", "core.evals.runner", "streamlit")

# Runs the CLI in this interpreter, then prints which of HEAVY it imported.
_PROBE = """
import json, sys
from core.cli import main
code = main(sys.argv[2:])
print("\\n" + json.dumps({"code": code, "loaded": [m for m in json.loads(sys.argv[1])
                                                  if m in sys.modules]}))
"""


def _loaded(*argv: str, env: dict[str, str], exit_codes: tuple[int, ...] = (0, 1),
            modules: tuple[str, ...] = HEAVY) -> list[str]:
    completed = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(modules), *argv],
                               env=env, cwd=REPO_ROOT, capture_output=True, text=True,
                               timeout=120, check=False)
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["code"] in exit_codes, completed.stderr
    return list(report["loaded"])


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("imports")
    return {**os.environ, "SUPERBIZ_DB": str(folder / "audit.db"),
            "PYTHONPATH": str(REPO_ROOT)}


@pytest.fixture(scope="module")
def session_file(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = subprocess.run([sys.executable, "-m", "core", "ask", QUESTION, "--no-store", "--json"],
                          env=env, cwd=REPO_ROOT, capture_output=True, check=True, timeout=120)
    path = tmp_path_factory.mktemp("document") / "session.json"
    path.write_bytes(made.stdout)
    return path


@pytest.mark.parametrize("argv", [
    ("ask", QUESTION, "--no-store"),
    ("tools", "call", "query_logs", "--args", TOOL_ARGS, "--no-store"),
    ("tools", "list"),
    ("packs", "list"),
    ("schema",),
    ("replay", "{document}"),
    ("gatekeeper", "check", "{document}"),
], ids=lambda argv: " ".join(argv[:2]))
def test_commands_without_the_store_never_load_it(argv: tuple[str, ...], env: dict[str, str],
                                                  session_file: Path) -> None:
    argv = tuple(arg.replace("{document}", str(session_file)) for arg in argv)
    assert _loaded(*argv, env=env) == []


def test_a_stored_ask_loads_the_store_and_not_the_llm_engine(env: dict[str, str]) -> None:
    assert _loaded("ask", QUESTION, env=env) == ["sqlalchemy", "sqlmodel", "core.store.db",
                                                 "core.store.repository"]


def test_an_llm_role_loads_the_llm_engine(env: dict[str, str]) -> None:
    # No endpoint configured: refused in one line (exit 2), after the engine was loaded.
    unset = {name: value for name, value in env.items()
             if not name.startswith(("SUPERBIZ_LLM_", "OPENAI_"))}
    loaded = _loaded("ask", QUESTION, "--planner", "llm", "--no-store", env=unset,
                     exit_codes=(2,))
    assert "core.agents.llm" in loaded and "sqlalchemy" not in loaded


# Loaded by an ask only when it needs them (docs/design.md, "Startup").
ON_DEMAND = ("urllib.request", "ssl", "http.client", "core.sources.http", "core.sources.prometheus",
             "core.sources.alertmanager", "core.sources.logformats", "pydantic_settings", "tomllib",
             "rapidfuzz")


def test_an_ask_on_a_pack_loads_no_server_client_log_layouts_or_fuzzy_matcher(env: dict[str, str]) -> None:
    quiet = {name: value for name, value in env.items()
             if name not in ("SUPERBIZ_PROMETHEUS_URL", "SUPERBIZ_ALERTMANAGER_URL", "SUPERBIZ_SOURCES")}
    assert _loaded("ask", QUESTION, "--no-store", env=quiet, modules=ON_DEMAND) == []
    assert _loaded("logs", "--help", env=quiet, modules=ON_DEMAND, exit_codes=(0,)) == []


def test_a_configured_server_loads_its_client(env: dict[str, str]) -> None:
    # A closed port: the call fails and is recorded; the client was loaded to make it.
    live = {**env, "SUPERBIZ_PROMETHEUS_URL": "http://127.0.0.1:9"}
    loaded = _loaded("ask", QUESTION, "--no-store", env=live, modules=ON_DEMAND)
    assert {"core.sources.prometheus", "core.sources.http", "urllib.request"} <= set(loaded)


def test_parsing_the_command_line_builds_no_engine_and_no_tool() -> None:
    """``--help`` and ``packs list`` parse arguments only: the roles, engines and fault modes
    they offer come from ``core.agents.names``, which ``faults`` checks itself against."""
    code = ("import sys; from core.cli import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith(('core.agents.', 'core.tools', 'core.events'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['core.agents.names']", done.stdout
