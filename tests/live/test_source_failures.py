"""Failure is evidence of nothing: every way an HTTP source can fail is a failed invocation
with its request, never "no alerts", never PASS; credentials never leave the client.

The misbehaving server is ours (``http.server`` on a loopback port): it answers what each test
tells it to, so each failure is real HTTP, not a mock of the client.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from core.contracts import Claim, EvidenceBinding, ExecutorOutput
from core.errors import SourceError
from core.gatekeeper import check_citations
from core.pipeline import ask
from core.recorder import Recorder
from core.sources.alertmanager import AlertmanagerSource
from core.sources.base import World
from core.sources.pack import load_world
from core.sources.prometheus import PrometheusSource
from core.tools.args import QueryMetricsArgs
from tests.live.live_servers import free_port
from tests.local_http import LoopbackServer

ALERTS_OK = {"status": "success", "data": {"alerts": [{
    "labels": {"alertname": "HighCPUUsage", "service": "payment-service", "severity": "critical"},
    "annotations": {"summary": "CPU high"}, "state": "firing",
    "activeAt": "2026-07-08T02:55:00Z", "value": "9.2e+01"}]}}
RULES_OK = {"status": "success", "data": {"groups": [{"name": "demo", "rules": [{
    "type": "alerting", "name": "HighCPUUsage", "query": "cpu_usage_percent > 80", "duration": 60,
    "labels": {"severity": "critical"}, "annotations": {}, "alerts": []}]}]}}
RANGE_OK = {"status": "success", "data": {"resultType": "matrix", "result": []}}


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def json_reply(data: Any, status: int = 200) -> Reply:
    return Reply(status=status, body=json.dumps(data).encode())


class FakeServer:
    """A real HTTP server on loopback that answers each path as told and remembers requests."""

    def __init__(self) -> None:
        self.replies: dict[str, Reply] = {}
        self.seen: list[tuple[str, dict[str, str]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                reply = owner.replies.get(self.path.split("?")[0], Reply(404, b"{}"))
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for key, value in {"Content-Type": "application/json", **reply.headers}.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self._http = LoopbackServer(Handler)
        self.url = self._http.url

    def healthy(self) -> None:
        self.replies.update({"/api/v1/alerts": json_reply(ALERTS_OK),
                             "/api/v1/rules": json_reply(RULES_OK),
                             "/api/v1/query_range": json_reply(RANGE_OK)})

    def stop(self) -> None:
        self._http.stop()


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    server = FakeServer()
    server.healthy()
    yield server
    server.stop()


FAILURES = {
    "http 500 with Prometheus' error body": (
        json_reply({"status": "error", "errorType": "internal", "error": "query timed out"}, 500),
        "HTTP 500: internal: query timed out"),
    "http 503 without a body": (Reply(503, b""), "HTTP 503"),
    "not JSON": (Reply(200, b"<html>gateway</html>"), "the answer is not JSON"),
    "status error in a 200": (json_reply({"status": "error", "error": "bad_data"}),
                              "status 'error' (bad_data)"),
    "warnings: partial data": (json_reply({**ALERTS_OK, "warnings": ["remote read: store down"]}),
                               "partial answer (warnings: remote read: store down)"),
    "unexpected shape": (json_reply({"status": "success", "data": {"alerts": "nope"}}),
                         "unexpected answer"),
    "a redirect is not followed": (Reply(302, b"", headers={"Location": "http://elsewhere.invalid/"}),
                                   "HTTP 302"),
}


@pytest.mark.parametrize("case", list(FAILURES))
def test_every_failure_is_a_failed_invocation_with_its_request(fake: FakeServer, case: str) -> None:
    reply, reason = FAILURES[case]
    fake.replies["/api/v1/alerts"] = reply
    world = World(name="down", now=datetime.now(UTC), metrics=PrometheusSource(fake.url))
    invocation = Recorder(world=world, session_id="s-f").call("query_metrics", {"service": "payment-service"})
    assert invocation.output["success"] is False and invocation.output["failure"] == "source"
    assert reason in invocation.output["error"]
    assert invocation.retrieval_details is not None
    assert invocation.retrieval_details.evidence_status == "error"  # never no_evidence
    assert invocation.source == f"prometheus:{fake.url}"
    assert invocation.request == {"method": "GET", "url": f"{fake.url}/api/v1/alerts", "params": {}}


def test_a_refused_connection_and_a_timeout(fake: FakeServer) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(SourceError, match="connection refused") as refused:
        PrometheusSource(closed).query_metrics(QueryMetricsArgs())
    assert refused.value.source == f"prometheus:{closed}"
    fake.replies["/api/v1/alerts"] = Reply(200, json.dumps(ALERTS_OK).encode(), delay=1.5)
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"no answer within 0.3s"):
        PrometheusSource(fake.url, timeout=0.3).query_metrics(QueryMetricsArgs())
    assert time.monotonic() - started < 1.4  # the timeout holds; nothing is retried
    assert sum(path.startswith("/api/v1/alerts") for path, _ in fake.seen) == 1


def test_a_failing_later_call_fails_the_whole_call(fake: FakeServer) -> None:
    """Alerts came back but the rules did not: half an answer is no answer."""
    fake.replies["/api/v1/rules"] = Reply(500, b"")
    with pytest.raises(SourceError, match="api/v1/rules: HTTP 500") as failed:
        PrometheusSource(fake.url).query_metrics(QueryMetricsArgs())
    assert failed.value.request is not None and failed.value.request["url"].endswith("/api/v1/rules")


def test_a_session_on_a_failed_source_never_passes_and_names_it(fake: FakeServer) -> None:
    fake.replies["/api/v1/alerts"] = Reply(503, b"")
    demo = load_world("demo")
    world = World(name="half-down", now=demo.now, metrics=PrometheusSource(fake.url), logs=demo.logs,
                  knowledge=demo.knowledge)
    document = ask("只确认 payment-service 当前是否存在 CPU 使用率过高告警", pack=world)
    assert document.status == "completed"
    assert document.verifier_result is not None and document.verifier_result.verdict != "PASS"
    assert any("a source failed" in reason for reason in document.verifier_result.reasons)
    failed = [i for i in document.invocations if i.output.get("success") is False]
    assert failed and all(i.tool_name == "query_metrics" for i in failed)
    assert document.composer_output is not None
    answer = document.composer_output.user_facing_answer
    assert f"prometheus:{fake.url}" in answer and "HTTP 503" in answer
    # No claim says the alert is absent: a failed call is no evidence of absence.
    output = document.executor_output
    assert output is not None
    assert not any(c.claim_type == "negative_observation"
                   and any(b.tool_name == "query_metrics" for b in c.evidence_bindings)
                   for c in output.claims)
    summary = {entry.tool_name: entry for entry in document.tool_trace_summary}["query_metrics"]
    assert summary.failed_invocation_count == len(failed) and summary.no_hit_invocation_count == 0


def test_an_absence_citing_a_failed_call_is_refused(fake: FakeServer) -> None:
    fake.replies["/api/v1/alerts"] = Reply(500, b"")
    world = World(name="down", now=datetime.now(UTC), metrics=PrometheusSource(fake.url))
    invocation = Recorder(world=world, session_id="s-neg").call("query_metrics", {"service": "payment-service"})
    claim = Claim(claim_id="claim-1", claim_type="negative_observation",
                  claim_text="payment-service 没有告警", subject_services=["payment-service"],
                  evidence_bindings=[EvidenceBinding(tool_name="query_metrics",
                                                     source_invocation_id=invocation.invocation_id,
                                                     evidence_excerpt="query_metrics -> total=0")])
    result = check_citations(session_id="s-neg", invocations=[invocation],
                             executor_output=ExecutorOutput(claims=[claim]))
    assert result.status == "fail"


def test_credentials_are_sent_but_never_recorded_or_shown(fake: FakeServer) -> None:
    url = f"http://sre:hunter2-secret@127.0.0.1:{fake.url.rsplit(':', 1)[1]}/?token=tok-s3cr3t-value"
    source = PrometheusSource(url, headers={"X-Scope-OrgID": "team-a"})
    world = World(name="auth", now=datetime.now(UTC), metrics=source)
    invocation = Recorder(world=world, session_id="s-auth").call("query_metrics", {})
    assert invocation.output["success"] is True
    path, headers = fake.seen[0]
    assert "token=tok-s3cr3t-value" in path  # the server got them
    assert headers["authorization"] == "Basic " + base64.b64encode(b"sre:hunter2-secret").decode()
    assert headers["x-scope-orgid"] == "team-a"
    recorded = json.dumps(invocation.model_dump(mode="json"))
    for secret in ("hunter2-secret", "tok-s3cr3t-value", "sre:", "Basic "):
        assert secret not in recorded and secret not in source.source_id
    fake.replies["/api/v1/alerts"] = Reply(500, b"")
    with pytest.raises(SourceError) as failed:
        source.query_metrics(QueryMetricsArgs())
    assert "hunter2" not in str(failed.value) and "tok-s3cr3t" not in json.dumps(failed.value.request)


def test_alertmanager_failures_are_failures_too(fake: FakeServer) -> None:
    fake.replies["/api/v2/alerts"] = Reply(200, b"[{\"labels\": 3}]")
    with pytest.raises(SourceError, match="unexpected answer"):
        AlertmanagerSource(fake.url).query_metrics(QueryMetricsArgs())
    described = AlertmanagerSource(f"http://127.0.0.1:{free_port()}").describe()
    assert described.problem is not None and "connection refused" in described.problem
    vocabulary = PrometheusSource(f"http://127.0.0.1:{free_port()}").vocabulary()
    assert vocabulary.unavailable and not vocabulary.services  # unknown, not "no services"
