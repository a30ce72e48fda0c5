"""Scenario packs built from the loghub samples, for the real-data eval suite.

The five 2k-line samples in ``<corpora>/loghub`` (Hadoop, HDFS, OpenStack, Spark, ZooKeeper)
become five packs, one service each (``hadoop-mapreduce``, ``hdfs-datanode``, ``openstack-nova``,
``spark-executor``, ``zookeeper``), with a few alerts whose names and summaries are taken from the
real Prometheus rule files in the corpora (a name the rules do not have is an error here) and
real runbooks. Perturbed variants add exactly one line to a pack, so a case can check that the
answer flips. Nothing is copied into the repository: packs are built into a folder at test time.

    python -m evals.loghub.packs OUT_DIR [--corpora DIR]
    superbiz eval evals/loghub/cases.yaml --packs-dir OUT_DIR

The converter reads each sample's own layout (one regex per layout); the message is the part a
log shipper keeps as the message (OpenStack's ``[req-...]`` context included), the logger or
thread context goes to ``source``. Timestamps become ISO 8601 without a zone (the pack's zone).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CORPORA = REPO_ROOT.parent / "shared" / "corpora"


@dataclass(frozen=True)
class Line:
    """One converted log line (a pack's ``LogEntry``)."""

    timestamp: str
    level: str
    service: str
    message: str
    source: str | None = None

    def as_json(self) -> dict[str, Any]:
        entry = {"timestamp": self.timestamp, "level": self.level, "service": self.service,
                 "message": self.message}
        if self.source:
            entry["source"] = self.source
        return entry


Converter = Callable[[str, str], Line | None]

_LOG4J = re.compile(r"(?P<d>\d{4}-\d\d-\d\d) (?P<t>\d\d:\d\d:\d\d),(?P<ms>\d{3}) (?P<level>[A-Z]+) "
                    r"\[(?P<ctx>[^\]]*)\] (?P<source>[\w.$]+): (?P<msg>.*)")
_ZOOKEEPER = re.compile(r"(?P<d>\d{4}-\d\d-\d\d) (?P<t>\d\d:\d\d:\d\d),(?P<ms>\d{3}) - (?P<level>[A-Z]+) +"
                        r"\[(?P<source>.*?)\] - (?P<msg>.*)")
_HDFS = re.compile(r"(?P<y>\d\d)(?P<m>\d\d)(?P<d>\d\d) (?P<H>\d\d)(?P<M>\d\d)(?P<S>\d\d) \d+ "
                   r"(?P<level>[A-Z]+) (?P<source>[\w.$]+): (?P<msg>.*)")
_SPARK = re.compile(r"(?P<y>\d\d)/(?P<m>\d\d)/(?P<d>\d\d) (?P<t>\d\d:\d\d:\d\d) (?P<level>[A-Z]+) "
                    r"(?P<source>[\w.$]+): (?P<msg>.*)")
_OPENSTACK = re.compile(r"(?P<file>\S+\.log\S*) (?P<d>\d{4}-\d\d-\d\d) (?P<t>\d\d:\d\d:\d\d\.\d{3}) \d+ "
                        r"(?P<level>[A-Z]+) (?P<source>[\w.]+) (?P<msg>.*)")


def _log4j(raw: str, service: str) -> Line | None:
    m = _LOG4J.fullmatch(raw)
    if not m:
        return None
    return Line(f"{m['d']}T{m['t']}.{m['ms']}", m["level"], service, m["msg"].strip(), m["source"])


def _zookeeper(raw: str, service: str) -> Line | None:
    m = _ZOOKEEPER.fullmatch(raw)
    if not m:
        return None
    return Line(f"{m['d']}T{m['t']}.{m['ms']}", m["level"], service, m["msg"].strip(), m["source"])


def _hdfs(raw: str, service: str) -> Line | None:
    m = _HDFS.fullmatch(raw)
    if not m:
        return None
    when = f"20{m['y']}-{m['m']}-{m['d']}T{m['H']}:{m['M']}:{m['S']}"
    return Line(when, m["level"], service, m["msg"].strip(), m["source"])


def _spark(raw: str, service: str) -> Line | None:
    m = _SPARK.fullmatch(raw)
    if not m:
        return None
    return Line(f"20{m['y']}-{m['m']}-{m['d']}T{m['t']}", m["level"], service, m["msg"].strip(),
                m["source"])


def _openstack(raw: str, service: str) -> Line | None:
    m = _OPENSTACK.fullmatch(raw)
    if not m:
        return None
    return Line(f"{m['d']}T{m['t']}", m["level"], service, m["msg"].strip(), m["source"])


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
    convert: Converter
    description: str
    alerts: tuple[AlertSpec, ...] = ()
    runbooks: tuple[str, ...] = ()  # paths under the corpora folder


_RUNBOOKS = "prometheus-operator-runbooks/content/runbooks"
_RUNBOOKS_ZH = "kubesphere-alert-runbooks/content.zh/runbooks"

DATASETS: dict[str, Dataset] = {
    "hadoop-mapreduce": Dataset(
        "Hadoop", "hadoop-mapreduce", _log4j,
        "A Hadoop MapReduce application master (loghub Hadoop_2k sample).",
        (AlertSpec("HadoopMapReduceTaskFailures", "firing", "12", "10", "15m"),
         AlertSpec("HostOutOfMemory", "resolved", "8%", "10%", "5m"))),
    "hdfs-datanode": Dataset(
        "HDFS", "hdfs-datanode", _hdfs,
        "HDFS data nodes and name node block traffic (loghub HDFS_2k sample).",
        (AlertSpec("HostOutOfDiskSpace", "firing", "7%", "10%", "20m",
                   ("mountpoint=/mnt/hadoop",)),),
        (f"{_RUNBOOKS}/node/NodeFilesystemSpaceFillingUp.md",)),
    "openstack-nova": Dataset(
        "OpenStack", "openstack-nova", _openstack,
        "OpenStack Nova API, compute and scheduler (loghub OpenStack_2k sample).",
        (AlertSpec("HostOutOfMemory", "resolved", "9%", "10%", "10m"),
         AlertSpec("HostHighCpuLoad", "firing", "0.93", "0.8", "30m"))),
    "spark-executor": Dataset(
        "Spark", "spark-executor", _spark,
        "A Spark executor on YARN (loghub Spark_2k sample).",
        (AlertSpec("KubePodCrashLooping", "firing", "4 restarts", None, "15m",
                   ('reason: "CrashLoopBackOff"',)),),
        (f"{_RUNBOOKS}/kubernetes/KubePodCrashLooping.md",
         f"{_RUNBOOKS_ZH}/kubernetes/KubePodCrashLooping.md")),
    "zookeeper": Dataset(
        "Zookeeper", "zookeeper", _zookeeper,
        "A three-node ZooKeeper ensemble (loghub Zookeeper_2k sample).",
        (AlertSpec("TargetDown", "firing", "33.33%", "10%", "10m"),
         AlertSpec("ZookeeperMissingLeader", "resolved")),
        (f"{_RUNBOOKS}/general/TargetDown.md",)),
}


@dataclass(frozen=True)
class Perturbation:
    """A variant of a pack with one line added (the answer to some question must flip)."""

    base: str
    level: str
    message: str
    source: str | None = None
    at: int = 1000  # the new line takes the timestamp of the base pack's line at this index


PERTURBATIONS: dict[str, Perturbation] = {
    "openstack-nova-503": Perturbation(
        "openstack-nova", "INFO",
        '[req-0d6c1c7e-5a0b-4a57-9b8a-2f2f7c1e9a11 113d3a99c3da401fbd62cc2caa5b96d2 '
        '54fadb412c4e40cdbaed9335e4c35a9e - - -] 10.11.10.1 "GET /v2/54fadb412c4e40cdbaed9335e4c35a9e/'
        'servers/detail HTTP/1.1" status: 503 len: 211 time: 30.0021',
        "nova.osapi_compute.wsgi.server"),
    "hadoop-mapreduce-oom": Perturbation(
        "hadoop-mapreduce", "WARN", "Container killed by YARN for exceeding memory limits. "
        "2.1 GB of 2 GB physical memory used",
        "org.apache.hadoop.mapreduce.v2.app.rm.RMContainerAllocator"),
    "spark-executor-error": Perturbation(
        "spark-executor", "ERROR", "Exception in task 3.0 in stage 1.0 (TID 7)",
        "executor.Executor"),
    "hdfs-datanode-nospace": Perturbation(
        "hdfs-datanode", "ERROR", "DataXceiver error processing WRITE_BLOCK operation: "
        "java.io.IOException: No space left on device", "dfs.DataNode$DataXceiver"),
    "zookeeper-oom": Perturbation(
        "zookeeper", "ERROR", "Severe unrecoverable error, exiting: java.lang.OutOfMemoryError: "
        "Java heap space", "QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:QuorumPeer@985"),
}


def read_lines(corpora: Path, dataset: Dataset) -> list[Line]:
    """The sample's lines converted; a line of another layout is an error (not skipped)."""
    path = corpora / "loghub" / dataset.folder / f"{dataset.folder}_2k.log"
    lines: list[Line] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        line = dataset.convert(raw.rstrip(), dataset.service)
        if line is None:
            raise ValueError(f"{path}:{number}: not a {dataset.folder} line: {raw[:80]!r}")
        lines.append(line)
    return lines


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


@dataclass
class BuiltPack:
    """Where a pack was written and what it holds."""

    name: str
    path: Path
    lines: list[Line] = field(default_factory=list)


def _write_pack(folder: Path, name: str, dataset: Dataset, lines: list[Line], corpora: Path,
                rules: dict[str, dict[str, Any]]) -> BuiltPack:
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "runbooks").mkdir(parents=True)
    ordered = sorted(line.timestamp for line in lines)
    now = ordered[-1][:19]
    meta = {"name": name, "description": dataset.description, "now": now,
            "example_questions": []}
    (folder / "pack.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True, sort_keys=False),
                                      encoding="utf-8")
    started = ordered[len(ordered) // 2][:19]
    (folder / "alerts.yaml").write_text(
        yaml.safe_dump(_alerts(dataset, rules, started), allow_unicode=True, sort_keys=False),
        encoding="utf-8")
    (folder / "series.yaml").write_text("{}\n", encoding="utf-8")
    with (folder / "logs.jsonl").open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line.as_json(), ensure_ascii=False) + "\n")
    for index, relative in enumerate(dataset.runbooks):
        source = corpora / relative
        target = folder / "runbooks" / f"{index + 1:02d}-{source.name}"
        target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return BuiltPack(name, folder, lines)


def build_packs(out_dir: Path, corpora: Path = DEFAULT_CORPORA) -> dict[str, BuiltPack]:
    """Write every pack and perturbed variant under ``out_dir`` (one folder each)."""
    rules = rule_annotations(corpora)
    built: dict[str, BuiltPack] = {}
    for name, dataset in DATASETS.items():
        built[name] = _write_pack(out_dir / name, name, dataset, read_lines(corpora, dataset),
                                  corpora, rules)
    for name, change in PERTURBATIONS.items():
        base = built[change.base]
        lines = list(base.lines)
        added = Line(lines[change.at].timestamp, change.level, base.lines[0].service,
                     change.message, change.source)
        lines.insert(change.at + 1, added)
        built[name] = _write_pack(out_dir / name, name, DATASETS[change.base], lines, corpora, rules)
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the loghub packs of the real-data eval suite.")
    parser.add_argument("out_dir", type=Path, help="folder to write the packs into")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA,
                        help=f"the shared corpora (default: {DEFAULT_CORPORA})")
    args = parser.parse_args(argv)
    if not (args.corpora / "loghub").is_dir():
        print(f"error: no loghub samples under {args.corpora}", file=sys.stderr)
        return 2
    for pack in build_packs(args.out_dir, args.corpora).values():
        print(f"{pack.name}\t{len(pack.lines)} lines\t{pack.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
