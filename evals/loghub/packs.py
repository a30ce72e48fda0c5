"""Scenario packs built from the loghub samples, for the real-data eval suite.

The five 2k-line samples in ``<corpora>/loghub`` (Hadoop, HDFS, OpenStack, Spark, ZooKeeper)
become five packs, one service each (``hadoop-mapreduce``, ``hdfs-datanode``, ``openstack-nova``,
``spark-executor``, ``zookeeper``). Each pack's logs are read by the log import (``superbiz logs
import``: layout recognised, timestamps normalised, levels canonical) into a log store. With
``serve_from_store`` the pack points at that store (``logs: {store: logs.db}``); without it
(the default) the store's entries are written out as the pack's ``logs.jsonl``, which the pack
searches with the same engine (an in-memory store: ranked lines, template groups). Its alerts have names and summaries
taken from the real Prometheus rule files in the corpora (a name the rules do not have is an
error here); its runbooks are real runbooks. Perturbed variants add exactly one line, written in
the sample's own layout and imported with it, so a case can check that the answer flips; a
logs-only variant keeps the logs alone (a question about alerts or metrics has no source).
Nothing is copied into the repository: packs are built into a folder at test time.

    python -m evals.loghub.packs OUT_DIR [--corpora DIR]
    superbiz eval evals/loghub/cases.yaml --packs-dir OUT_DIR
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core.sources.logimport import import_files
from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CORPORA = REPO_ROOT.parent / "shared" / "corpora"
STORE_FILE = "logs.db"


@dataclass(frozen=True)
class AlertSpec:
    """An alert of a pack: a real rule's name (its summary is read from the rule files)."""

    name: str
    state: str
    current: str | None = None
    threshold: str | None = None
    duration: str | None = None
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dataset:
    """One loghub sample and the pack made of it."""

    folder: str
    service: str
    description: str
    alerts: tuple[AlertSpec, ...] = ()
    runbooks: tuple[str, ...] = ()  # paths under the corpora folder


_RUNBOOKS = "prometheus-operator-runbooks/content/runbooks"
_RUNBOOKS_ZH = "kubesphere-alert-runbooks/content.zh/runbooks"

DATASETS: dict[str, Dataset] = {
    "hadoop-mapreduce": Dataset(
        "Hadoop", "hadoop-mapreduce",
        "A Hadoop MapReduce application master (loghub Hadoop_2k sample).",
        (AlertSpec("HadoopMapReduceTaskFailures", "firing", "12", "10", "15m"),
         AlertSpec("HostOutOfMemory", "resolved", "8%", "10%", "5m"))),
    "hdfs-datanode": Dataset(
        "HDFS", "hdfs-datanode",
        "HDFS data nodes and name node block traffic (loghub HDFS_2k sample).",
        (AlertSpec("HostOutOfDiskSpace", "firing", "7%", "10%", "20m",
                   ("mountpoint=/mnt/hadoop",)),),
        (f"{_RUNBOOKS}/node/NodeFilesystemSpaceFillingUp.md",)),
    "openstack-nova": Dataset(
        "OpenStack", "openstack-nova",
        "OpenStack Nova API, compute and scheduler (loghub OpenStack_2k sample).",
        (AlertSpec("HostOutOfMemory", "resolved", "9%", "10%", "10m"),
         AlertSpec("HostHighCpuLoad", "firing", "0.93", "0.8", "30m"))),
    "spark-executor": Dataset(
        "Spark", "spark-executor",
        "A Spark executor on YARN (loghub Spark_2k sample).",
        (AlertSpec("KubePodCrashLooping", "firing", "4 restarts", None, "15m",
                   ('reason: "CrashLoopBackOff"',)),),
        (f"{_RUNBOOKS}/kubernetes/KubePodCrashLooping.md",
         f"{_RUNBOOKS_ZH}/kubernetes/KubePodCrashLooping.md")),
    "zookeeper": Dataset(
        "Zookeeper", "zookeeper",
        "A three-node ZooKeeper ensemble (loghub Zookeeper_2k sample).",
        (AlertSpec("TargetDown", "firing", "33.33%", "10%", "10m"),
         AlertSpec("ZookeeperMissingLeader", "resolved")),
        (f"{_RUNBOOKS}/general/TargetDown.md",)),
}


@dataclass(frozen=True)
class Perturbation:
    """A variant of a pack with one line added, written as the sample writes its lines."""

    base: str
    line: str


PERTURBATIONS: dict[str, Perturbation] = {
    "openstack-nova-503": Perturbation(
        "openstack-nova",
        "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:05:12.418 25746 INFO "
        "nova.osapi_compute.wsgi.server [req-0d6c1c7e-5a0b-4a57-9b8a-2f2f7c1e9a11 "
        "113d3a99c3da401fbd62cc2caa5b96d2 54fadb412c4e40cdbaed9335e4c35a9e - - -] 10.11.10.1 "
        '"GET /v2/54fadb412c4e40cdbaed9335e4c35a9e/servers/detail HTTP/1.1" status: 503 len: 211 '
        "time: 30.0021"),
    "hadoop-mapreduce-oom": Perturbation(
        "hadoop-mapreduce",
        "2015-10-18 18:05:11,204 WARN [RMCommunicator Allocator] "
        "org.apache.hadoop.mapreduce.v2.app.rm.RMContainerAllocator: Container killed by YARN for "
        "exceeding memory limits. 2.1 GB of 2 GB physical memory used"),
    "spark-executor-error": Perturbation(
        "spark-executor",
        "17/06/09 20:11:05 ERROR executor.Executor: Exception in task 3.0 in stage 1.0 (TID 7)"),
    "hdfs-datanode-nospace": Perturbation(
        "hdfs-datanode",
        "081109 204012 148 ERROR dfs.DataNode$DataXceiver: DataXceiver error processing "
        "WRITE_BLOCK operation: java.io.IOException: No space left on device"),
    "zookeeper-oom": Perturbation(
        "zookeeper",
        "2015-07-29 19:05:21,003 - ERROR [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:QuorumPeer@985] - "
        "Severe unrecoverable error, exiting: java.lang.OutOfMemoryError: Java heap space"),
    # Failure classes of issue 29: an inflected predicate ("refuse" of "refused"), a predicate
    # beside a subject the base pack already has ("fail" beside "broadcast variable").
    "zookeeper-refused": Perturbation(
        "zookeeper",
        "2015-07-29 19:06:02,110 - WARN  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:"
        "QuorumCnxManager@368] - Cannot open channel to 2 at election address /10.10.34.12:3888 "
        "java.net.ConnectException: Connection refused"),
    "spark-executor-broadcast-failed": Perturbation(
        "spark-executor",
        "17/06/09 20:11:06 ERROR broadcast.TorrentBroadcast: Failed to read broadcast variable 12 "
        "from the driver"),
}


# Variants holding only the logs of their base pack (no alerts, series or runbooks): a question
# about an alert or a metric is asked of a world with no source for it (issue 29, class 8).
LOGS_ONLY: dict[str, str] = {"spark-executor-logs-only": "spark-executor"}


def sample_file(corpora: Path, dataset: Dataset) -> Path:
    """The loghub sample a dataset is made of."""
    return corpora / "loghub" / dataset.folder / f"{dataset.folder}_2k.log"


def _rule_files(corpora: Path) -> Iterator[Path]:
    yield from sorted((corpora / "awesome-prometheus-alerts" / "dist" / "rules").rglob("*.yml"))
    yield from sorted((corpora / "kube-prometheus" / "manifests").glob("*prometheusRule.yaml"))


def _rules_in(document: Any) -> Iterator[dict[str, Any]]:
    """Every ``{alert: ...}`` rule in a rule file or a PrometheusRule manifest."""
    if isinstance(document, dict):
        if "alert" in document and isinstance(document.get("annotations"), dict):
            yield document
        for value in document.values():
            yield from _rules_in(value)
    elif isinstance(document, list):
        for value in document:
            yield from _rules_in(value)


def rule_annotations(corpora: Path) -> dict[str, dict[str, Any]]:
    """Alert name -> {summary, severity} from every rule file of the corpora (first wins)."""
    found: dict[str, dict[str, Any]] = {}
    for path in _rule_files(corpora):
        for rule in _rules_in(yaml.safe_load(path.read_text(encoding="utf-8"))):
            name = str(rule["alert"])
            labels = rule.get("labels") or {}
            summary = str(rule["annotations"].get("summary", "")).split(" (instance")[0].strip()
            found.setdefault(name, {"summary": summary, "severity": labels.get("severity")})
    return found


def _alerts(dataset: Dataset, rules: dict[str, dict[str, Any]], started_at: str) -> list[dict[str, Any]]:
    """The dataset's alerts, each with its rule's summary and severity."""
    alerts = []
    for spec in dataset.alerts:
        if spec.name not in rules:
            raise ValueError(f"alert {spec.name!r} is not in the corpora's rule files")
        rule = rules[spec.name]
        alert: dict[str, Any] = {"alert_name": spec.name, "state": spec.state, "service": dataset.service,
                                 "severity": rule["severity"], "current": spec.current,
                                 "threshold": spec.threshold, "duration": spec.duration,
                                 "started_at": started_at, "summary": rule["summary"] or None,
                                 "details": list(spec.details)}
        alerts.append({key: value for key, value in alert.items() if value not in (None, [])})
    return alerts


@dataclass(frozen=True)
class BuiltPack:
    """Where a pack was written and how many log lines its store holds."""

    name: str
    path: Path
    lines: int


def _newest(store: Path) -> str:
    """The newest line's timestamp (a query with no search unit ranks newest first)."""
    result, _ = LogStore.open(store).query_logs(QueryLogsArgs(limit=1))
    return result.logs[0].timestamp


def _write_entries(store: Path, target: Path) -> None:
    """The store's entries as ``logs.jsonl`` (the ``entries`` table of docs/logstore.md)."""
    with sqlite3.connect(store) as connection:
        rows = connection.execute(
            "SELECT ts, level, service, message, source, host FROM entries ORDER BY id").fetchall()
    with target.open("w", encoding="utf-8") as out:
        for ts, level, service, message, source, host in rows:
            entry = {"timestamp": ts, "level": level, "service": service, "message": message,
                     "source": source, "host": host}
            out.write(json.dumps({k: v for k, v in entry.items() if v is not None},
                                 ensure_ascii=False) + "\n")


def _write_pack(folder: Path, name: str, dataset: Dataset, corpora: Path,
                rules: dict[str, dict[str, Any]], extra_line: str | None = None,
                serve_from_store: bool = False, logs_only: bool = False) -> BuiltPack:
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "runbooks").mkdir(parents=True)
    files = [sample_file(corpora, dataset)]
    if extra_line is not None:
        files.append(folder / "added.log")
        files[-1].write_text(extra_line + "\n", encoding="utf-8")
    report = import_files(files, folder / STORE_FILE, service=dataset.service)
    if extra_line is not None:
        files[-1].unlink()
    newest = _newest(folder / STORE_FILE)
    meta: dict[str, Any] = {"name": name, "description": dataset.description, "now": newest,
                            "example_questions": []}
    if serve_from_store:
        meta["logs"] = {"store": STORE_FILE}
    else:
        _write_entries(folder / STORE_FILE, folder / "logs.jsonl")
        (folder / STORE_FILE).unlink()
    (folder / "pack.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True, sort_keys=False),
                                      encoding="utf-8")
    if logs_only:
        (folder / "runbooks").rmdir()
        return BuiltPack(name, folder, report.entries)
    (folder / "alerts.yaml").write_text(
        yaml.safe_dump(_alerts(dataset, rules, newest), allow_unicode=True, sort_keys=False),
        encoding="utf-8")
    (folder / "series.yaml").write_text("{}\n", encoding="utf-8")
    for index, relative in enumerate(dataset.runbooks):
        source = corpora / relative
        target = folder / "runbooks" / f"{index + 1:02d}-{source.name}"
        target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return BuiltPack(name, folder, report.entries)


def build_packs(out_dir: Path, corpora: Path = DEFAULT_CORPORA, *,
                serve_from_store: bool = False) -> dict[str, BuiltPack]:
    """Write every pack and perturbed variant under ``out_dir`` (one folder each)."""
    rules = rule_annotations(corpora)
    built = {name: _write_pack(out_dir / name, name, dataset, corpora, rules,
                               serve_from_store=serve_from_store)
             for name, dataset in DATASETS.items()}
    for name, change in PERTURBATIONS.items():
        built[name] = _write_pack(out_dir / name, name, DATASETS[change.base], corpora, rules,
                                  extra_line=change.line, serve_from_store=serve_from_store)
    for name, base in LOGS_ONLY.items():
        built[name] = _write_pack(out_dir / name, name, DATASETS[base], corpora, rules,
                                  serve_from_store=serve_from_store, logs_only=True)
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the loghub packs of the real-data eval suite.")
    parser.add_argument("out_dir", type=Path, help="folder to write the packs into")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA,
                        help=f"the shared corpora (default: {DEFAULT_CORPORA})")
    parser.add_argument("--store", action="store_true",
                        help="packs point at their log store instead of holding logs.jsonl")
    args = parser.parse_args(argv)
    if not (args.corpora / "loghub").is_dir():
        print(f"error: no loghub samples under {args.corpora}", file=sys.stderr)
        return 2
    for pack in build_packs(args.out_dir, args.corpora, serve_from_store=args.store).values():
        print(f"{pack.name}\t{pack.lines} lines\t{pack.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
