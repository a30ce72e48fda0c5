"""Benchmark: template grouping accuracy on the labelled loghub samples, against Drain3.

The standard log-parsing metric (grouping accuracy, Zhu et al. ICSE-SEIP 2019): a line counts
as correct when the set of lines in its predicted template equals the set of lines of its
ground-truth template exactly. Per dataset (HDFS, Hadoop, OpenStack, Spark, Zookeeper, 2,000
labelled lines each, ``../shared/corpora/loghub/*/*_structured.csv``):

  - ours on the labelled ``Content`` column (``core.sources.templates.TemplateMiner``);
  - ours end to end: the raw ``.log`` file imported with ``--format auto`` (the layout found,
    the message cut out by our parser, then mined), matched line by line to the labels;
  - Drain3 (``pip install drain3``; a baseline measured in this run, not a dependency of the
    product), with its default settings and with the usual masking of numbers, IPs and hex.

Also the miner's throughput on the Content column (lines per second of CPU). No assertions.

    .venv/bin/python bench/templates.py
"""

from __future__ import annotations

import csv
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

# _common first: it puts the repository root on sys.path for ``core``.
from _common import REPO_ROOT, pad

from core.sources.logimport import import_files
from core.sources.templates import TemplateMiner, grouping_accuracy

CORPUS = REPO_ROOT.parent / "shared" / "corpora" / "loghub"
DATASETS = ("HDFS", "Hadoop", "OpenStack", "Spark", "Zookeeper")
DRAIN_PAPER = {"HDFS": 0.998, "Hadoop": 0.948, "OpenStack": 0.733, "Spark": 0.920, "Zookeeper": 0.967}


def _labelled(dataset: str) -> tuple[list[str], list[str]]:
    with (CORPUS / dataset / f"{dataset}_2k.log_structured.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [row["Content"] for row in rows], [row["EventId"] for row in rows]


def _ours(messages: list[str]) -> list[object]:
    miner = TemplateMiner()
    return [miner.add(message) for message in messages]


def _end_to_end(dataset: str, folder: Path) -> list[object]:
    import sqlite3

    store = folder / f"{dataset}.db"
    import_files([CORPUS / dataset / f"{dataset}_2k.log"], store)
    connection = sqlite3.connect(store)
    rows = connection.execute("SELECT l.group_id, g.template_id FROM lines l JOIN groups g "
                              "ON g.id = l.group_id ORDER BY l.id").fetchall()
    connection.close()
    return [template_id for _, template_id in rows]


def _drain3(masked: bool) -> Callable[[list[str]], list[object]] | None:
    try:
        from drain3 import TemplateMiner as Drain3Miner
        from drain3.masking import MaskingInstruction
        from drain3.template_miner_config import TemplateMinerConfig
    except ImportError:
        return None

    def run(messages: list[str]) -> list[object]:
        config = TemplateMinerConfig()
        config.profiling_enabled = False
        if masked:
            edge, end = r"((?<=[^A-Za-z0-9])|^)", r"((?=[^A-Za-z0-9])|$)"  # drain3's own examples
            config.masking_instructions = [
                MaskingInstruction(edge + r"(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})" + end, "IP"),
                MaskingInstruction(edge + r"(0x[a-fA-F0-9]+|[a-fA-F0-9]{8,})" + end, "HEX"),
                MaskingInstruction(edge + r"([\-\+]?\d+)" + end, "NUM"),
            ]
        miner = Drain3Miner(config=config)
        return [miner.add_log_message(message)["cluster_id"] for message in messages]

    return run


def main() -> None:
    if not CORPUS.is_dir():
        print(f"skipped: {CORPUS} not found (the loghub samples live in ../shared/corpora)")
        return
    drain_default, drain_masked = _drain3(False), _drain3(True)
    columns = ["ours (Content)", "ours (raw file, auto)", "Drain3 default", "Drain3 masked", "Drain (paper)"]
    print(f"{pad('dataset', 10)} " + " ".join(f"{name:>22}" for name in columns))
    totals: dict[str, list[float]] = defaultdict(list)
    cpu_lines, cpu_seconds = 0, 0.0
    with tempfile.TemporaryDirectory() as folder:
        for dataset in DATASETS:
            messages, truth = _labelled(dataset)
            started = time.process_time()
            ours = _ours(messages)
            cpu_seconds += time.process_time() - started
            cpu_lines += len(messages)
            scores = [grouping_accuracy(ours, truth), grouping_accuracy(_end_to_end(dataset, Path(folder)), truth)]
            for baseline in (drain_default, drain_masked):
                scores.append(grouping_accuracy(baseline(messages), truth) if baseline else float("nan"))
            scores.append(DRAIN_PAPER[dataset])
            for name, score in zip(columns, scores, strict=True):
                totals[name].append(score)
            print(f"{pad(dataset, 10)} " + " ".join(f"{score:>22.3f}" for score in scores))
    print(f"{pad('mean', 10)} " + " ".join(f"{sum(v) / len(v):>22.3f}" for v in totals.values()))
    if drain_default is None:
        print("(Drain3 columns: nan -- drain3 is not installed; `.venv/bin/pip install drain3` to compare)")
    print(f"miner throughput: {cpu_lines / cpu_seconds:,.0f} lines per CPU second (cold miner per dataset)")


if __name__ == "__main__":
    main()
