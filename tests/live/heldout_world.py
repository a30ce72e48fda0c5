"""A held-out live world, unlike the demo one: real rule files, a cluster-shaped exporter.

``HeldoutWorld.start(folder)`` starts, in a temp dir:

- one ``prometheus_client`` exporter per scrape job, each producing what a real exporter of
  that kind reports: kube-state-metrics (a ``checkout`` container in CrashLoopBackOff, an
  ``inventory`` deployment short of replicas, a failed ``db-backup`` Job, a Ready node, a
  quota under its limit),
  node-exporter (``node-1``'s root filesystem 2% free, ``node-2`` healthy; its ``instance``
  labels kept, as a federated or relabelled node job has them), redis_exporter (``redis_up``
  0) and mysqld_exporter (95 of 100 connections used);
- two scrape jobs whose targets are closed ports (``payments-api`` and ``hadoop-namenode``):
  ``up == 0``;
- an Alertmanager, and a Prometheus (and a spare one, for a test to stop) loading REAL rule
  files, unedited but for ``for``:
  kube-prometheus' PrometheusRule manifests (Kubernetes control plane, general, node-exporter)
  and awesome-prometheus-alerts' node-exporter, Redis, MySQL, Kafka, ZooKeeper and Hadoop
  rules. Alerts meant to fire get ``for: 1s``; alerts meant to stay pending ``for: 1h``; every
  other rule keeps its own ``for`` (and fires or not as the rule says: ``Watchdog`` and
  ``RedisMissingMaster`` fire on no data at all, as they would in production).

What the servers hold is read back from them (``firing()``, ``pending()``, ``rule_names()``),
never assumed: tests grade answers against the servers' own lists. Servers are stopped by PID.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.live.live_servers import (
    CORPORA,
    Exporter,
    Server,
    free_port,
    get_json,
    launch_prometheus,
    silence_alert,
    start_alertmanager,
)

KUBE = CORPORA / "kube-prometheus" / "manifests"
AWESOME = CORPORA / "awesome-prometheus-alerts" / "dist" / "rules"
RULE_FILES = (
    KUBE / "kubernetesControlPlane-prometheusRule.yaml",
    KUBE / "kubePrometheus-prometheusRule.yaml",
    KUBE / "nodeExporter-prometheusRule.yaml",
    AWESOME / "host-and-hardware" / "node-exporter.yml",
    AWESOME / "redis" / "oliver006-redis-exporter.yml",
    AWESOME / "mysql" / "mysqld-exporter.yml",
    AWESOME / "kafka" / "danielqsj-kafka-exporter.yml",
    AWESOME / "zookeeper" / "dabealu-zookeeper-exporter.yml",
    AWESOME / "hadoop" / "jmx_exporter.yml",
)
FIRE = ("KubePodCrashLooping", "KubeDeploymentReplicasMismatch", "KubeJobFailed", "HostOutOfDiskSpace",
        "NodeFilesystemAlmostOutOfSpace", "TargetDown", "RedisDown")
PEND = ("HadoopNameNodeDown", "MysqlTooManyConnections(>80%)")
SILENCED = "RedisDown"
GIB = 1024 ** 3


def corpora_present() -> bool:
    return all(path.is_file() for path in RULE_FILES)


def rule_groups(path: Path) -> list[dict[str, Any]]:
    """The groups of a rule file or of a PrometheusRule resource, ``for`` set for the alerts
    this world makes fire (1s) or keeps pending (1h)."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    groups = document["spec"]["groups"] if "spec" in document else document["groups"]
    for group in groups:
        for rule in group["rules"]:
            if rule.get("alert") in FIRE:
                rule["for"] = "1s"
            elif rule.get("alert") in PEND:
                rule["for"] = "1h"
    return list(groups)


def kube_state_metrics() -> Exporter:
    exporter = Exporter()
    waiting = exporter.gauge("kube_pod_container_status_waiting_reason",
                             ["namespace", "pod", "container", "reason"])
    waiting.labels("shop", "checkout-6f7c9d8b5-zq4lx", "checkout", "CrashLoopBackOff").set(1)
    spec = exporter.gauge("kube_deployment_spec_replicas", ["namespace", "deployment"])
    available = exporter.gauge("kube_deployment_status_replicas_available", ["namespace", "deployment"])
    updated = exporter.gauge("kube_deployment_status_replicas_updated", ["namespace", "deployment"])
    for deployment, wanted, ready in (("inventory", 3, 1), ("storefront", 2, 2)):
        spec.labels("shop", deployment).set(wanted)
        available.labels("shop", deployment).set(ready)
        updated.labels("shop", deployment).set(wanted)
    failed = exporter.gauge("kube_job_failed", ["namespace", "job_name", "condition"])
    failed.labels("ops", "db-backup", "true").set(1)
    failed.labels("ops", "log-rotate", "true").set(0)
    condition = exporter.gauge("kube_node_status_condition", ["node", "condition", "status"])
    unschedulable = exporter.gauge("kube_node_spec_unschedulable", ["node"])
    for node in ("node-1", "node-2"):
        condition.labels(node, "Ready", "true").set(1)
        condition.labels(node, "Ready", "false").set(0)
        unschedulable.labels(node).set(0)
    quota = exporter.gauge("kube_resourcequota", ["namespace", "resourcequota", "resource", "type"])
    quota.labels("shop", "shop-quota", "pods", "used").set(12)
    quota.labels("shop", "shop-quota", "pods", "hard").set(40)
    return exporter


def node_exporter() -> Exporter:
    exporter = Exporter()
    labels = ["instance", "device", "mountpoint", "fstype"]
    avail = exporter.gauge("node_filesystem_avail_bytes", labels)
    size = exporter.gauge("node_filesystem_size_bytes", labels)
    readonly = exporter.gauge("node_filesystem_readonly", labels)
    for node, free in (("node-1", 2), ("node-2", 61)):
        key = (node, "/dev/sda1", "/", "ext4")
        avail.labels(*key).set(free * GIB)
        size.labels(*key).set(100 * GIB)
        readonly.labels(*key).set(0)
    memory_available = exporter.gauge("node_memory_MemAvailable_bytes", ["instance"])
    memory_total = exporter.gauge("node_memory_MemTotal_bytes", ["instance"])
    for node in ("node-1", "node-2"):
        memory_available.labels(node).set(9 * GIB)
        memory_total.labels(node).set(16 * GIB)
    return exporter


def redis_exporter() -> Exporter:
    exporter = Exporter()
    exporter.gauge("redis_up", []).set(0)
    return exporter


def mysqld_exporter() -> Exporter:
    exporter = Exporter()
    exporter.gauge("mysql_up", []).set(1)
    exporter.gauge("mysql_global_status_threads_connected", []).set(95)
    exporter.gauge("mysql_global_variables_max_connections", []).set(100)
    exporter.gauge("mysql_global_status_uptime", []).set(86400)
    return exporter


def launch_rules_prometheus(folder: Path, jobs: list[dict[str, Any]], rule_files: list[Path],
                            alertmanager: Server | None) -> Server:
    """A Prometheus on a free port (not yet waited for): ``jobs`` are scrape configs, every
    second."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for index, path in enumerate(rule_files):
        name = f"rules-{index}-{path.stem}.yml"
        (folder / name).write_text(yaml.safe_dump({"groups": rule_groups(path)}, allow_unicode=True))
        names.append(name)
    return launch_prometheus(folder, {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s", "scrape_timeout": "1s"},
        "rule_files": names, "scrape_configs": jobs}, alertmanager)


@dataclass
class HeldoutWorld:
    """The running servers of the held-out world. ``spare`` is a second Prometheus on the same
    jobs and rules, without the Alertmanager, started alongside (a test may stop it mid-run)."""

    folder: Path
    prometheus: Server
    alertmanager: Server
    spare: Server
    jobs: list[dict[str, Any]]
    exporters: list[Exporter] = field(default_factory=list)
    silence_id: str = ""

    @classmethod
    def start(cls, folder: Path) -> HeldoutWorld:
        exporters = {"kube-state-metrics": kube_state_metrics(), "node-exporter": node_exporter(),
                     "redis": redis_exporter(), "mysql": mysqld_exporter()}
        for exporter in exporters.values():
            exporter.start()
        jobs: list[dict[str, Any]] = [
            {"job_name": job, "honor_labels": job == "node-exporter",
             "static_configs": [{"targets": [f"127.0.0.1:{exporter.port}"]}]}
            for job, exporter in exporters.items()]
        jobs += [{"job_name": job, "static_configs": [{"targets": [f"127.0.0.1:{free_port()}"]}]}
                 for job in ("payments-api", "hadoop-namenode")]  # nobody listens: up == 0
        alertmanager = start_alertmanager(folder / "alertmanager")
        # Both Prometheus servers boot at once: the first scrape waits ~5 s for target discovery.
        prometheus = launch_rules_prometheus(folder / "prometheus", jobs, list(RULE_FILES), alertmanager)
        spare = launch_rules_prometheus(folder / "spare", jobs, list(RULE_FILES), None)
        world = cls(folder=folder, prometheus=prometheus, alertmanager=alertmanager, spare=spare,
                    jobs=jobs, exporters=list(exporters.values()))
        try:
            prometheus.wait_ready("/-/ready")
            spare.wait_ready("/-/ready")
            world.wait_until(FIRE, PEND)
            world.wait_until(("KubePodCrashLooping", "TargetDown"), prometheus=spare)
            world.silence_id = silence_alert(alertmanager.url, SILENCED,
                                             comment="redis failover drill")
        except BaseException:
            world.stop()
            raise
        return world

    def alerts(self, prometheus: Server | None = None) -> list[dict[str, Any]]:
        server = prometheus or self.prometheus
        return list(get_json(f"{server.url}/api/v1/alerts")["data"]["alerts"])

    def held(self) -> list[dict[str, Any]]:
        return list(get_json(f"{self.alertmanager.url}/api/v2/alerts"))

    def firing(self) -> set[str]:
        return {a["labels"]["alertname"] for a in self.alerts() if a["state"] == "firing"}

    def pending(self) -> set[str]:
        return {a["labels"]["alertname"] for a in self.alerts() if a["state"] == "pending"}

    def suppressed(self) -> set[str]:
        return {a["labels"]["alertname"] for a in self.held() if a["status"]["state"] == "suppressed"}

    def rule_names(self) -> set[str]:
        groups = get_json(f"{self.prometheus.url}/api/v1/rules?type=alert")["data"]["groups"]
        return {rule["name"] for group in groups for rule in group["rules"]}

    def wait_until(self, firing: tuple[str, ...], pending: tuple[str, ...] = (),
                   timeout: float = 60.0, prometheus: Server | None = None) -> None:
        """Until every alert of ``firing`` fires (and reached the Alertmanager, for ours) and
        every alert of ``pending`` is pending."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alerts = self.alerts(prometheus)
            states = {(a["labels"]["alertname"], a["state"]) for a in alerts}
            held = ({a["labels"]["alertname"] for a in self.held()} if prometheus is None
                    else set(firing))
            if (all((name, "firing") in states for name in firing) and set(firing) <= held
                    and all((name, "pending") in states for name in pending)):
                return
            time.sleep(0.2)
        raise RuntimeError(f"alerts {firing} / pending {pending} not there after {timeout}s")

    def sources_file(self, folder: Path, *, prometheus: str | None = None,
                     alertmanager: str | None = None, timeout: float | None = None,
                     name: str = "heldout") -> Path:
        """A sources file: these servers (or the URLs given), the corpus rule files as
        knowledge, no logs."""
        prometheus_config: dict[str, Any] = {"url": prometheus or self.prometheus.url}
        alertmanager_config: dict[str, Any] = {"url": alertmanager or self.alertmanager.url}
        if timeout is not None:
            prometheus_config["timeout_seconds"] = alertmanager_config["timeout_seconds"] = timeout
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump({
            "name": name,
            "metrics": {"prometheus": prometheus_config, "alertmanager": alertmanager_config},
            "knowledge": {"rules": [str(p) for p in RULE_FILES]}}), encoding="utf-8")
        return path

    def stop(self) -> None:
        self.prometheus.stop()
        self.spare.stop()
        self.alertmanager.stop()
        for exporter in self.exporters:
            exporter.stop()
