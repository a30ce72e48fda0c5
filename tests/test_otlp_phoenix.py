"""Sessions exported as OpenInference traces to a real Arize Phoenix, read back through its REST
API: one trace per session with the right span kinds and attributes, and the gatekeeper's and
verifier's results as span annotations; with SUPERBIZ_OTLP_ENDPOINT a session is exported as
it completes. Also the span layout itself, without Phoenix.

Phoenix is a separate server in its own virtual environment (never our dependency): found as
$SUPERBIZ_PHOENIX, /opt/phoenix-venv/bin/phoenix or `phoenix` on PATH; skipped where absent,
required under SUPERBIZ_REQUIRE_PHOENIX (.ci/run). One server for the module (it takes 10-40 s
to start), on loopback ports in a temp working dir; spans go to its HTTP collector (its gRPC
collector binds every interface whatever its host setting)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.contracts import SessionDocument
from core.otlp.spans import session_trace
from core.pipeline import ask
from core.settings import get_settings
from core.store import Store
from tests.streamlit_server import free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
MEMORY = "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。"
START_TIMEOUT_S = 180  # a loaded CI machine; it is usually up in 10-40 s
READ_TIMEOUT_S = 60


def _phoenix_binary() -> str | None:
    for candidate in (os.environ.get("SUPERBIZ_PHOENIX"), "/opt/phoenix-venv/bin/phoenix",
                      shutil.which("phoenix")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a Phoenix server started for this module, stopped by its PID."""
    binary = _phoenix_binary()
    if binary is None:
        if os.environ.get("SUPERBIZ_REQUIRE_PHOENIX"):
            pytest.fail("Phoenix is required (SUPERBIZ_REQUIRE_PHOENIX) but not installed")
        pytest.skip("no Arize Phoenix here (.ci/run installs it into /opt/phoenix-venv)")
    workdir = tmp_path_factory.mktemp("phoenix")
    port = free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(workdir), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_PORT": str(port), "PHOENIX_GRPC_PORT": str(free_port()),
           "PHOENIX_TELEMETRY_ENABLED": "false"}
    log = workdir / "phoenix.log"
    with log.open("wb") as output:
        server = subprocess.Popen([binary, "serve"], cwd=workdir, env=env, stdout=output,
                                  stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if server.poll() is not None:
                raise AssertionError(f"phoenix exited with {server.returncode}:\n"
                                     f"{log.read_text(errors='replace')[-3000:]}")
            try:
                _get(f"{base}/v1/projects")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError("phoenix did not answer in time:\n"
                                         f"{log.read_text(errors='replace')[-3000:]}") from None
                time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _spans(base: str, project: str, expected: Callable[[list[dict[str, Any]]], bool]
           ) -> list[dict[str, Any]]:
    """The project's spans once ``expected`` holds of them (Phoenix stores spans in the
    background)."""
    deadline = time.monotonic() + READ_TIMEOUT_S
    spans: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            spans = _get(f"{base}/v1/projects/{project}/spans?limit=1000")["data"]
        except urllib.error.HTTPError:  # the project exists once its first span is stored
            spans = []
        if expected(spans):
            return spans
        time.sleep(0.5)
    raise AssertionError(f"Phoenix holds {len(spans)} span(s) of {project}, not what was sent")


def _by_session(spans: list[dict[str, Any]], session_id: str) -> dict[str, list[dict[str, Any]]]:
    kinds: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        if span["attributes"].get("session.id") == session_id:
            kinds.setdefault(span["span_kind"], []).append(span)
    return kinds


def test_stored_sessions_exported_read_back_with_their_kinds_and_annotations(
        phoenix: str, tmp_store: Store) -> None:
    passed = ask(MEMORY, store=tmp_store)
    rejected = ask(MEMORY, store=tmp_store, executor_fault="fabricate_path")
    url = tmp_store.engine.url.render_as_string(hide_password=False)
    done = subprocess.run([sys.executable, "-m", "core", "export", "otlp", "--endpoint",
                           phoenix, "--project", "stored", "--db", url, "--json"],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=180,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert done.returncode == 0, done.stderr
    sent = json.loads(done.stdout)
    assert sent["sessions"] == 2 and sent["annotations"] == 4
    spans = _spans(phoenix, "stored", lambda spans: len(spans) >= sent["spans"])
    assert len(spans) == sent["spans"]

    for document in (passed, rejected):
        kinds = _by_session(spans, document.session_id)
        (root,) = kinds["AGENT"]
        assert root["parent_id"] is None
        assert {span["context"]["trace_id"] for group in kinds.values() for span in group} \
            == {root["context"]["trace_id"]}  # one trace per session
        assert sorted(span["name"] for span in kinds["CHAIN"]) == ["composer", "executor",
                                                                   "planner"]
        (gatekeeper,) = kinds["GUARDRAIL"]
        (verifier,) = kinds["EVALUATOR"]
        assert document.verifier_result is not None and document.gatekeeper_result is not None
        assert root["attributes"]["superbiz.verdict"] == document.verifier_result.verdict
        assert root["attributes"]["superbiz.outcome"] == (document.outcome or "")
        assert list(root["attributes"]["superbiz.failed_rules"]) \
            == document.gatekeeper_result.failed_rules
        assert verifier["attributes"]["superbiz.verdict"] == document.verifier_result.verdict
        checked = json.loads(gatekeeper["attributes"]["superbiz.gatekeeper.checked_bindings"])
        assert [item["status"] for item in checked] \
            == [item.status for item in document.gatekeeper_result.checked_bindings]
        executor = next(span for span in kinds["CHAIN"] if span["name"] == "executor")
        tools = kinds["TOOL"]
        assert sorted(span["attributes"]["superbiz.invocation_id"] for span in tools) \
            == sorted(item.invocation_id for item in document.invocations)
        assert {span["parent_id"] for span in tools} == {executor["context"]["span_id"]}
        invocations = {item.invocation_id: item for item in document.invocations}
        for span in tools:
            attributes = span["attributes"]
            assert attributes["tool.name"] == span["name"]
            assert attributes["superbiz.output_bytes"] > 0
            details = invocations[attributes["superbiz.invocation_id"]].retrieval_details
            refs = [ref.raw_path for ref in details.evidence_refs] if details else []
            assert list(attributes.get("superbiz.evidence_refs") or []) == refs
            assert json.loads(attributes["input.value"]) \
                == invocations[attributes["superbiz.invocation_id"]].arguments

        ids = "&".join(f"span_ids={span['context']['span_id']}" for span in (gatekeeper, verifier))
        annotations = {item["name"]: item for item in _get(
            f"{phoenix}/v1/projects/stored/span_annotations?{ids}")["data"]}
        assert annotations["gatekeeper"]["result"]["label"] == document.gatekeeper_result.status
        assert annotations["gatekeeper"]["span_id"] == gatekeeper["context"]["span_id"]
        assert annotations["verifier"]["result"]["label"] == document.verifier_result.verdict
    assert "evidence.raw_path" in _by_session(spans, rejected.session_id)["AGENT"][0][
        "attributes"]["superbiz.failed_rules"]


def test_a_session_is_exported_as_it_completes(phoenix: str, tmp_store: Store,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_OTLP_ENDPOINT", f"{phoenix}/v1/traces")
    monkeypatch.setenv("SUPERBIZ_OTLP_PROJECT", "live")
    get_settings.cache_clear()
    document = ask(MEMORY, store=tmp_store)
    expected = len(session_trace(document).spans)
    spans = _spans(phoenix, "live", lambda spans: len(
        [span for span in spans if span["attributes"].get("session.id") == document.session_id])
        >= expected)
    assert {span["span_kind"] for span in spans} == {"AGENT", "CHAIN", "TOOL", "GUARDRAIL",
                                                     "EVALUATOR"}
    # Posted at once (queued): Phoenix stores the annotation when it has stored the span.
    (gatekeeper,) = [span for span in spans if span["span_kind"] == "GUARDRAIL"
                     and span["attributes"]["session.id"] == document.session_id]
    url = (f"{phoenix}/v1/projects/live/span_annotations?"
           f"span_ids={gatekeeper['context']['span_id']}")
    deadline = time.monotonic() + READ_TIMEOUT_S
    while not (annotations := _get(url)["data"]) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert document.gatekeeper_result is not None
    assert [item["result"]["label"] for item in annotations] == [document.gatekeeper_result.status]


def test_a_session_trace_without_phoenix(ask_document: SessionDocument) -> None:
    trace = session_trace(ask_document)
    root, *children = trace.spans
    assert root.parent_id is None and root.kind == "AGENT"
    roles = {span.name: span for span in children if span.kind != "TOOL"}
    assert {name: span.kind for name, span in roles.items()} == {
        "planner": "CHAIN", "executor": "CHAIN", "gatekeeper": "GUARDRAIL",
        "verifier": "EVALUATOR", "composer": "CHAIN"}
    assert all(span.parent_id == root.span_id for span in roles.values())
    tools = [span for span in children if span.kind == "TOOL"]
    assert len(tools) == len(ask_document.invocations)
    assert {span.parent_id for span in tools} == {roles["executor"].span_id}
    assert all(root.start_ns <= span.start_ns <= span.end_ns <= root.end_ns + 1_000_000
               for span in children)
    assert [item["span_id"] for item in trace.annotations] == [roles["gatekeeper"].span_id,
                                                              roles["verifier"].span_id]
    assert session_trace(ask_document).trace_id == trace.trace_id  # ids derive from the session


@pytest.fixture
def ask_document() -> SessionDocument:
    """A session run in memory by the offline engine."""
    return ask(MEMORY)


def test_since_selects_the_closed_sessions_created_since(tmp_store: Store) -> None:
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import text

    from core.cli.export_cmd import since_type
    from core.store import repository as repo
    from core.store.history import closed_session_ids

    old, new = (ask(MEMORY, store=tmp_store).session_id for _ in range(2))
    repo.create_session(tmp_store, session_id="s-running", question="q", pack="demo", engines={})
    with tmp_store.engine.begin() as connection:
        connection.execute(text("UPDATE sessions SET created_at = :t WHERE id = :id"),
                           {"t": datetime.now(UTC).replace(tzinfo=None) - timedelta(days=3),
                            "id": old})
    assert closed_session_ids(tmp_store) == [old, new]  # oldest first, never a running one
    assert closed_session_ids(tmp_store, since=since_type("2d")) == [new]
    assert closed_session_ids(tmp_store, since=since_type("1970-01-01")) == [old, new]
    assert since_type("90m") > datetime.now(UTC) - timedelta(minutes=91)
    with pytest.raises(Exception, match="not a time"):
        since_type("yesterday")
