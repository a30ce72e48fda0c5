"""Real Prometheus and Alertmanager servers for tests, started on free loopback ports.

``LiveDemo.start(tmp)`` starts, in a temp dir:

- two exporters (``prometheus_client``, in this process): the demo world's gauges
  (payment-service CPU 92%, order-service memory 91%, user-service P99 4.2 s, cart-service error
  rate 12%, healthy values elsewhere) and a kube-state-metrics-like gauge of one pod in
  CrashLoopBackOff;
- an Alertmanager (``prometheus-alertmanager``, clustering off, a receiver that sends nowhere);
- a Prometheus scraping both exporters every second, evaluating every second the demo rules
  (``for: 1s``) and, when ``../shared/corpora`` is there, real kube-prometheus rules
  (``KubePodCrashLooping``, ``KubePodNotReady``, ``for`` shortened to 1s), sending to the
  Alertmanager.

Servers are stopped by PID. ``require_binaries`` skips where the binaries are absent, and fails
instead when ``SUPERBIZ_REQUIRE_PROMETHEUS`` is set (CI).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, Gauge, start_http_server

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPORA = REPO_ROOT.parent / "shared" / "corpora"
KUBE_RULES = CORPORA / "kube-prometheus" / "manifests" / "kubernetesControlPlane-prometheusRule.yaml"
CORPUS_ALERTS = ("KubePodCrashLooping", "KubePodNotReady")
PROMETHEUS = shutil.which("prometheus")
ALERTMANAGER = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")

# The demo world's alerting rules, as a rule file. HighDiskUsage never fires (no disk metric
# crosses it): an alert that exists as a rule only.
DEMO_RULES: dict[str, Any] = {"groups": [{"name": "demo-world", "rules": [
    {"alert": "HighCPUUsage", "expr": "cpu_usage_percent > 80", "for": "1s",
     "labels": {"severity": "critical"},
     "annotations": {"summary": "{{ $labels.service }} CPU 使用率 {{ $value }}%，超过阈值 80%",
                     "runbook_url": "https://runbooks.example/high-cpu"}},
    {"alert": "HighMemoryUsage", "expr": "memory_usage_percent > 85", "for": "1s",
     "labels": {"severity": "warning"},
     "annotations": {"summary": "{{ $labels.service }} 内存使用率 {{ $value }}%，超过阈值 85%",
                     "description": "JVM heap close to its limit"}},
    {"alert": "SlowResponse", "expr": "http_p99_latency_seconds > 3", "for": "1s",
     "labels": {"severity": "warning"},
     "annotations": {"summary": "{{ $labels.service }} P99 响应时间 {{ $value }}s，超过阈值 3s"}},
    {"alert": "HighErrorRate", "expr": "http_error_rate_percent > 5", "for": "1s",
     "labels": {"severity": "warning"},
     "annotations": {"summary": "{{ $labels.service }} error rate {{ $value }}%"}},
    {"alert": "HighDiskUsage", "expr": "disk_usage_percent > 90", "for": "1s",
     "labels": {"severity": "warning"},
     "annotations": {"summary": "{{ $labels.service }} disk usage above 90%"}},
]}]}
DEMO_ALERTS = ("HighCPUUsage", "HighMemoryUsage", "SlowResponse", "HighErrorRate")


def require_binaries() -> None:
    """Skip without the Debian binaries; fail instead under SUPERBIZ_REQUIRE_PROMETHEUS."""
    if PROMETHEUS and ALERTMANAGER:
        return
    missing = "prometheus" if not PROMETHEUS else "prometheus-alertmanager"
    if os.environ.get("SUPERBIZ_REQUIRE_PROMETHEUS"):
        pytest.fail(f"{missing} is not installed and SUPERBIZ_REQUIRE_PROMETHEUS is set")
    pytest.skip(f"{missing} is not installed (Debian: apt-get install prometheus "
                "prometheus-alertmanager)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get_json(url: str, timeout: float = 2.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read())


def corpus_rules() -> list[dict[str, Any]]:
    """The real kube-prometheus rules the servers load, ``for`` shortened to 1s; [] without
    the corpora."""
    if not KUBE_RULES.is_file():
        return []
    document = yaml.safe_load(KUBE_RULES.read_text(encoding="utf-8"))
    rules = [rule for group in document["spec"]["groups"] for rule in group["rules"]
             if rule.get("alert") in CORPUS_ALERTS]
    return [{**rule, "for": "1s"} for rule in rules]


class Exporter:
    """A ``prometheus_client`` registry served on a free loopback port (stopped with ``stop``)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.server: Any = None
        self.port = 0

    def gauge(self, name: str, labels: list[str]) -> Gauge:
        return Gauge(name, name.replace("_", " "), labels, registry=self.registry)

    def start(self) -> None:
        self.server, _thread = start_http_server(0, addr="127.0.0.1", registry=self.registry)
        self.port = int(self.server.server_port)

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def demo_exporter() -> Exporter:
    """The demo world's gauges (DESIGN.md section 2)."""
    exporter = Exporter()
    cpu = exporter.gauge("cpu_usage_percent", ["service", "namespace", "pod"])
    cpu.labels("payment-service", "production", "pod-payment-service-7d8f9c6b5-x2k4m").set(92)
    cpu.labels("order-service", "production", "pod-order-service-5c7d8e9f1-m3n2p").set(41)
    cpu.labels("user-service", "production", "pod-user-service-6b9c7d5e4-q8w7e").set(37)
    memory = exporter.gauge("memory_usage_percent", ["service", "namespace", "pod"])
    memory.labels("order-service", "production", "pod-order-service-5c7d8e9f1-m3n2p").set(91)
    memory.labels("payment-service", "production", "pod-payment-service-7d8f9c6b5-x2k4m").set(62)
    latency = exporter.gauge("http_p99_latency_seconds", ["service", "namespace"])
    latency.labels("user-service", "production").set(4.2)
    latency.labels("payment-service", "production").set(0.35)
    errors = exporter.gauge("http_error_rate_percent", ["service", "namespace"])
    errors.labels("cart-service", "production").set(12)
    disk = exporter.gauge("disk_usage_percent", ["service", "namespace"])
    disk.labels("payment-service", "production").set(55)
    return exporter


def kube_exporter() -> Exporter:
    """What kube-state-metrics would say about one pod in CrashLoopBackOff."""
    exporter = Exporter()
    waiting = exporter.gauge("kube_pod_container_status_waiting_reason",
                             ["namespace", "pod", "container", "reason"])
    waiting.labels("payments", "checkout-7d9f6c5b4-p2x9q", "checkout", "CrashLoopBackOff").set(1)
    return exporter


@dataclass
class Server:
    """A server process we started (stopped by its PID)."""

    name: str
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def wait_ready(self, path: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + path, timeout=1.0):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready after {timeout}s: {self.log.read_text()[-2000:]}")


def start_server(name: str, command: list[str], url: str, folder: Path) -> Server:
    """Start ``command`` in ``folder`` (output to ``<name>.log``); not yet waited for."""
    log = folder / f"{name}.log"
    with log.open("wb") as handle:
        process = subprocess.Popen(command, cwd=folder, stdout=handle, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
    return Server(name=name, process=process, url=url, log=log)


def start_alertmanager(folder: Path) -> Server:
    folder.mkdir(parents=True, exist_ok=True)
    config = {"route": {"receiver": "nowhere", "group_wait": "1s", "group_interval": "1s"},
              "receivers": [{"name": "nowhere"}]}
    (folder / "alertmanager.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    assert ALERTMANAGER is not None
    server = start_server("alertmanager", [
        ALERTMANAGER, "--config.file=alertmanager.yml", f"--storage.path={folder / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address="],
        f"http://127.0.0.1:{port}", folder)
    server.wait_ready("/-/ready")
    return server


def start_prometheus(folder: Path, exporters: dict[str, int], alertmanager: Server | None,
                     rules: dict[str, Any]) -> Server:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rules.yml").write_text(yaml.safe_dump(rules, allow_unicode=True))
    server = launch_prometheus(folder, {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": ["rules.yml"],
        "scrape_configs": [{"job_name": job, "static_configs": [{"targets": [f"127.0.0.1:{port}"]}]}
                           for job, port in exporters.items()]}, alertmanager)
    server.wait_ready("/-/ready")
    return server


def launch_prometheus(folder: Path, config: dict[str, Any], alertmanager: Server | None) -> Server:
    """A Prometheus on a free port with ``config`` (sending to ``alertmanager``), run in
    ``folder``; not yet waited for."""
    if alertmanager is not None:
        config = {**config, "alerting": {"alertmanagers": [{"static_configs": [
            {"targets": [alertmanager.url.removeprefix("http://")]}]}]}}
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    assert PROMETHEUS is not None
    return start_server("prometheus", [
        PROMETHEUS, "--config.file=prometheus.yml", f"--storage.tsdb.path={folder / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}"], f"http://127.0.0.1:{port}", folder)


@dataclass
class LiveDemo:
    """The running servers of the demo world."""

    folder: Path
    prometheus: Server
    alertmanager: Server
    exporters: list[Exporter] = field(default_factory=list)
    rules: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, folder: Path) -> LiveDemo:
        exporters = [demo_exporter(), kube_exporter()]
        for exporter in exporters:
            exporter.start()
        rules = {"groups": [*DEMO_RULES["groups"]]}
        kube = corpus_rules()
        if kube:
            rules["groups"].append({"name": "kubernetes-apps", "rules": kube})
        alertmanager = start_alertmanager(folder / "alertmanager")
        prometheus = start_prometheus(
            folder / "prometheus",
            {"demo-exporter": exporters[0].port, "kube-state-metrics": exporters[1].port},
            alertmanager, rules)
        demo = cls(folder=folder, prometheus=prometheus, alertmanager=alertmanager,
                   exporters=exporters, rules=rules)
        firing = [*DEMO_ALERTS, *(["KubePodCrashLooping"] if kube else [])]
        demo.wait_for_alerts(firing)
        demo.wait_for_history()
        return demo

    def wait_for_history(self, seconds: float = 3.0, timeout: float = 45.0) -> None:
        """Until the series hold a few seconds of samples: a source asks for a window that ends
        at the server's Date header (whole seconds), and on a loaded machine the alert can fire
        before the window holds any sample."""
        deadline = time.monotonic() + timeout
        query = urllib.parse.urlencode({"query": "count_over_time(cpu_usage_percent[1m])"})
        while time.monotonic() < deadline:
            result = get_json(f"{self.prometheus.url}/api/v1/query?{query}")["data"]["result"]
            if result and float(result[0]["value"][1]) >= seconds:
                return
            time.sleep(0.2)
        raise RuntimeError(f"no {seconds:g} s of samples after {timeout}s")

    def another_prometheus(self, name: str) -> Server:
        """One more Prometheus on the same exporters and rules (for a test that kills it)."""
        return start_prometheus(
            self.folder / name,
            {"demo-exporter": self.exporters[0].port, "kube-state-metrics": self.exporters[1].port},
            None, self.rules)

    def wait_for_alerts(self, names: list[str] | tuple[str, ...], timeout: float = 45.0,
                        prometheus: Server | None = None, in_alertmanager: bool = True) -> None:
        """Until every alert named fires in Prometheus (and has reached the Alertmanager)."""
        server = prometheus or self.prometheus
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alerts = get_json(f"{server.url}/api/v1/alerts")["data"]["alerts"]
            firing = {a["labels"]["alertname"] for a in alerts if a["state"] == "firing"}
            held = ({a["labels"]["alertname"] for a in get_json(f"{self.alertmanager.url}/api/v2/alerts")}
                    if in_alertmanager and prometheus is None else firing)
            if set(names) <= firing and set(names) <= held:
                return
            time.sleep(0.2)
        raise RuntimeError(f"alerts {names} not firing after {timeout}s")

    def silence(self, alert_name: str, comment: str = "maintenance window") -> str:
        """Silence an alert for an hour; returns the silence id once the alert reads suppressed."""
        return silence_alert(self.alertmanager.url, alert_name, comment)

    def stop(self) -> None:
        self.prometheus.stop()
        self.alertmanager.stop()
        for exporter in self.exporters:
            exporter.stop()


def silence_alert(alertmanager_url: str, alert_name: str, comment: str = "maintenance window") -> str:
    """Silence an alert for an hour; returns the silence id once the alert reads suppressed."""
    now = time.time()
    body = json.dumps({
        "matchers": [{"name": "alertname", "value": alert_name, "isRegex": False, "isEqual": True}],
        "startsAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 60)),
        "endsAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 3600)),
        "createdBy": "sre-oncall", "comment": comment}).encode()
    request = urllib.request.Request(f"{alertmanager_url}/api/v2/silences", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        silence_id = str(json.loads(response.read())["silenceID"])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        held = [a for a in get_json(f"{alertmanager_url}/api/v2/alerts")
                if a["labels"]["alertname"] == alert_name]
        if held and all(a["status"]["state"] == "suppressed" for a in held):
            return silence_id
        time.sleep(0.2)
    raise RuntimeError(f"{alert_name} not suppressed after the silence")
