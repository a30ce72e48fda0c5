"""Prometheus and Alertmanager sources against real servers: mapping, filters, silences,
vocabulary, description, and the citations the recorder extracts from their real answers."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from core.contracts import Claim, EvidenceBinding, ExecutorOutput
from core.gatekeeper import check_citations
from core.recorder import Recorder
from core.sources.alerting import AlertingSources
from core.sources.alertmanager import AlertmanagerSource
from core.sources.base import World
from core.sources.prometheus import PrometheusSource
from core.tools.args import QueryMetricsArgs
from tests.live.live_servers import CORPUS_ALERTS, KUBE_RULES, LiveDemo, get_json


def _prometheus(demo: LiveDemo) -> PrometheusSource:
    return PrometheusSource(demo.prometheus.url)


def test_a_firing_alert_reads_as_the_contract_with_its_rule_and_series(live_demo: LiveDemo) -> None:
    result, request = _prometheus(live_demo).query_metrics(QueryMetricsArgs(service="payment-service"))
    assert result.success and result.total == 1
    (alert,) = result.alerts
    assert (alert.alert_name, alert.state, alert.service) == ("HighCPUUsage", "firing", "payment-service")
    assert (alert.current, alert.threshold, alert.metric) == ("92%", "80%", "cpu_usage_percent")
    assert (alert.namespace, alert.pod, alert.severity) == (
        "production", "pod-payment-service-7d8f9c6b5-x2k4m", "critical")
    assert alert.summary == "payment-service CPU 使用率 92%，超过阈值 80%"  # the annotation, rendered
    assert alert.duration is not None and re.fullmatch(r"(\d+[dhms]){1,2}", alert.duration)
    assert "runbook_url: https://runbooks.example/high-cpu" in alert.details
    assert "rule: cpu_usage_percent > 80 for 1s" in alert.details
    # The request is every call made, without anything the server was not sent.
    urls = [call["url"] for call in request["calls"]]
    assert urls[:2] == [f"{live_demo.prometheus.url}/api/v1/alerts", f"{live_demo.prometheus.url}/api/v1/rules"]
    assert urls[2] == f"{live_demo.prometheus.url}/api/v1/query_range"
    assert request["calls"][2]["params"]["query"] == "cpu_usage_percent"
    assert request["filters"] == {"service": "payment-service"}
    # The series behind the alert: the one whose labels the alert carries, never another service's.
    assert result.series is not None and list(result.series) == ["payment-service/cpu_usage_percent"]
    series = result.series["payment-service/cpu_usage_percent"]
    assert series.threshold == 80 and series.unit == "%" and series.points
    assert {point.value for point in series.points} == {92.0}


def test_the_alert_is_the_servers_own_answer(live_demo: LiveDemo) -> None:
    """Every alert returned is one /api/v1/alerts lists, with the same labels' values."""
    answer = get_json(f"{live_demo.prometheus.url}/api/v1/alerts")["data"]["alerts"]
    listed = {(a["labels"]["alertname"], a["labels"].get("service"), a["state"]) for a in answer}
    result, _ = _prometheus(live_demo).query_metrics(QueryMetricsArgs())
    assert result.total == len(answer) >= 4
    assert {(a.alert_name, a.service, a.state) for a in result.alerts
            if a.alert_name in ("HighCPUUsage", "HighMemoryUsage", "SlowResponse")} <= listed


@pytest.mark.parametrize(("args", "expected"), [
    ({"alert_name": "high_memory_usage"}, ["HighMemoryUsage"]),   # names compare loosely
    ({"service": "USER-SERVICE"}, ["SlowResponse"]),               # services case-insensitively
    ({"alert_name": "HighCPUUsage", "state": "pending"}, []),      # every filter applies
    ({"alert_name": "HighDiskUsage"}, []),                         # a rule that does not fire
    ({"service": "inventory-service"}, []),                        # a service the server lacks
])
def test_filters(live_demo: LiveDemo, args: dict[str, str], expected: list[str]) -> None:
    result, _ = _prometheus(live_demo).query_metrics(QueryMetricsArgs.model_validate(args))
    assert [a.alert_name for a in result.alerts] == expected
    assert result.success and result.total == len(expected)  # no match is success, never an error


def test_the_user_service_latency_alert_keeps_its_unit(live_demo: LiveDemo) -> None:
    result, _ = _prometheus(live_demo).query_metrics(QueryMetricsArgs(alert_name="SlowResponse"))
    (alert,) = result.alerts
    assert (alert.current, alert.threshold, alert.service) == ("4.2s", "3s", "user-service")


def test_a_named_metric_brings_its_series_of_the_service(live_demo: LiveDemo) -> None:
    result, request = _prometheus(live_demo).query_metrics(
        QueryMetricsArgs(metric="memory_usage_percent", service="payment-service"))
    assert result.alerts == []  # payment-service memory is 62%: no alert, but the series is there
    assert result.series is not None
    assert list(result.series) == ["payment-service/memory_usage_percent"]
    assert {p.value for p in result.series["payment-service/memory_usage_percent"].points} == {62.0}
    assert request["calls"][-1]["params"]["query"] == "memory_usage_percent"


@pytest.mark.skipif(not KUBE_RULES.is_file(), reason="shared corpora not available")
def test_a_real_kube_prometheus_rule_maps_by_its_labels(live_demo: LiveDemo) -> None:
    """KubePodCrashLooping from kube-prometheus: no service label, so the container names the
    service; asked by namespace, the alert reads as that namespace."""
    source = _prometheus(live_demo)
    (alert,) = source.query_metrics(QueryMetricsArgs(alert_name="KubePodCrashLooping"))[0].alerts
    assert (alert.service, alert.namespace, alert.pod) == ("checkout", "payments", "checkout-7d9f6c5b4-p2x9q")
    assert (alert.current, alert.threshold) == ("1", "1")  # max_over_time(...) >= 1
    assert any(detail.startswith("runbook_url: https://runbooks.prometheus-operator.dev/") for detail in alert.details)
    (by_namespace,) = source.query_metrics(QueryMetricsArgs(service="payments"))[0].alerts
    assert by_namespace.service == "payments"
    vocabulary = source.vocabulary()
    assert set(CORPUS_ALERTS) <= set(vocabulary.rule_names)
    assert "KubePodNotReady" not in vocabulary.alert_names  # a rule, not firing


def test_vocabulary_and_description_come_from_the_server(live_demo: LiveDemo) -> None:
    source = _prometheus(live_demo)
    vocabulary = source.vocabulary()
    assert {"payment-service", "order-service", "user-service", "cart-service"} <= set(vocabulary.services)
    assert {"HighCPUUsage", "HighMemoryUsage", "SlowResponse"} <= set(vocabulary.alert_names)
    assert "HighDiskUsage" in vocabulary.rule_names and "HighDiskUsage" not in vocabulary.alert_names
    assert "cpu_usage_percent" in vocabulary.metrics
    assert not any(re.fullmatch(r"[\d.]+:\d+", name) for name in vocabulary.services)  # no instances
    described = source.describe()
    assert described.problem is None and described.kind == "prometheus"
    assert described.holds["alerts"] >= 4 and described.holds["rules"] >= 5 and described.holds["series"] > 0
    assert described.location == live_demo.prometheus.url


def test_alertmanager_states_a_silence_and_never_says_firing(live_demo: LiveDemo) -> None:
    silence_id = live_demo.silence("HighErrorRate")
    am = AlertmanagerSource(live_demo.alertmanager.url)
    result, request = am.query_metrics(QueryMetricsArgs(service="cart-service"))
    (alert,) = result.alerts
    assert (alert.alert_name, alert.state) == ("HighErrorRate", "suppressed")
    assert any(d.startswith(f"silenced by {silence_id} (maintenance window, by sre-oncall, until ")
               for d in alert.details)
    assert [call["url"].rsplit("/", 1)[-1] for call in request["calls"]] == ["alerts", "silences"]
    assert am.query_metrics(QueryMetricsArgs(service="cart-service", state="firing"))[0].alerts == []
    # Together: Prometheus says firing, Alertmanager silenced it: it reads suppressed, with why.
    both = AlertingSources(_prometheus(live_demo), am)
    (combined,) = both.query_metrics(QueryMetricsArgs(service="cart-service"))[0].alerts
    assert combined.state == "suppressed" and combined.current == "12%"
    assert any(d.startswith(f"silenced by {silence_id}") for d in combined.details)
    (cpu,) = both.query_metrics(QueryMetricsArgs(service="payment-service"))[0].alerts
    assert cpu.state == "firing"  # what is not silenced stays firing
    described = both.describe()
    assert described.holds["suppressed"] >= 1 and described.holds["silences"] >= 1


def test_an_alert_cited_from_the_real_answer_passes_the_gatekeeper_and_a_tampered_one_fails(
        live_demo: LiveDemo) -> None:
    world = World(name="live", now=datetime.now(UTC), metrics=_prometheus(live_demo))
    invocation = Recorder(world=world, session_id="s-live").call(
        "query_metrics", {"service": "order-service", "alert_name": "HighMemoryUsage"})
    assert invocation.source == f"prometheus:{live_demo.prometheus.url}"
    (ref,) = invocation.retrieval_details.evidence_refs if invocation.retrieval_details else []
    assert ref.raw_path == "$.alerts[0]" and ref.text.startswith(
        "HighMemoryUsage firing, service=order-service, current=91%, threshold=85%")

    def check(excerpt: str) -> str:
        claim = Claim(claim_id="claim-1", claim_text=f"order-service: {excerpt}",
                      subject_services=["order-service"],
                      evidence_bindings=[EvidenceBinding(
                          tool_name="query_metrics", source_invocation_id=invocation.invocation_id,
                          raw_path="$.alerts[0]", evidence_excerpt=excerpt)])
        return check_citations(session_id="s-live", invocations=[invocation],
                               executor_output=ExecutorOutput(claims=[claim])).status

    assert check(ref.text) == "pass"
    assert check(ref.text.replace("current=91%", "current=97%")) == "fail"

