"""Benchmark: template grouping accuracy on every labelled loghub dataset found, against Drain3.

The standard log-parsing metric (grouping accuracy, Zhu et al. ICSE-SEIP 2019): a line counts
as correct when the set of lines in its predicted template equals the set of lines of its
ground-truth template exactly. A labelled dataset is a folder ``NAME/`` holding
``NAME_2k.log_structured.csv`` (columns ``LineId``, ``Content``, ``EventId`` = the label) and,
for the end-to-end column, the raw ``NAME_2k.log``. The folders searched are
``../shared/corpora/loghub`` (five samples) and every ``--datasets DIR`` given (the sixteen
loghub 2k datasets, when you have them: they are not in the repository). Per dataset:

  - ours on the labelled ``Content`` column (``core.sources.templates.TemplateMiner``): the
    miner alone, the layout parsing being a separate concern;
  - ours end to end: the raw ``.log`` imported with ``--format auto`` (the layout found, the
    message cut out by our parser, then mined), matched to the labels by line number; a line
    the import did not parse counts as wrong (``-`` when the file is refused altogether);
  - Drain3 (``pip install drain3``, in the ``dev`` extra; a baseline measured in this run,
    not a dependency of the product), with its default settings and with the usual masking of
    numbers, IPs and hex, on the same ``Content`` column;
  - Drain's published figure (Zhu et al. 2019, table of grouping accuracy; it averages 0.865
    over the sixteen datasets, Brain (Yu et al. 2023) reports about 0.98).

Also the miner's throughput on the Content column (lines per second of CPU). No assertions.

    .venv/bin/python bench/templates.py [--datasets /path/to/loghub2k ...]
"""

from __future__ import annotations

import argparse
import csv
import math
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# _common first: it puts the repository root on sys.path for ``core``.
from _common import REPO_ROOT, pad

from core.errors import LogImportError, LogStoreError
from core.sources.logimport import import_files
from core.sources.logwriter import BATCH
from core.sources.templates import TemplateMiner, grouping_accuracy

CORPUS = REPO_ROOT.parent / "shared" / "corpora" / "loghub"
DRAIN_PAPER = {
    "HDFS": 0.998, "Hadoop": 0.948, "Spark": 0.920, "Zookeeper": 0.967, "BGL": 0.963, "HPC": 0.887,
    "Thunderbird": 0.955, "Windows": 0.997, "Linux": 0.690, "Mac": 0.787, "Android": 0.911,
    "HealthApp": 0.780, "Apache": 1.000, "OpenSSH": 0.788, "OpenStack": 0.733, "Proxifier": 0.527,
}
DRAIN_PAPER_MEAN, BRAIN_PAPER_MEAN = 0.865, 0.98
Grouper = Callable[[list[str]], list[object]]


def labelled_datasets(folders: list[Path]) -> dict[str, Path]:
    """Dataset name -> its folder, for every ``NAME/NAME_2k.log_structured.csv`` under
    ``folders`` (a name found twice is taken from the first folder)."""
    found: dict[str, Path] = {}
    for folder in folders:
        for labels in sorted(folder.glob("*/*_2k.log_structured.csv")):
            found.setdefault(labels.parent.name, labels.parent)
    return found


def _labelled(folder: Path) -> tuple[list[int], list[str], list[str]]:
    with (folder / f"{folder.name}_2k.log_structured.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [int(row["LineId"]) for row in rows], [row["Content"] for row in rows], [row["EventId"] for row in rows]


def _ours(messages: list[str]) -> list[object]:
    """Template ids as an import gives them: ``BATCH`` messages at a time."""
    miner = TemplateMiner()
    return [template_id for start in range(0, len(messages), BATCH)
            for template_id in miner.add_batch(messages[start:start + BATCH])]


def _end_to_end(folder: Path, line_ids: list[int], scratch: Path) -> tuple[list[object], int] | None:
    """Template ids of the raw file's lines imported with ``--format auto``, in ``line_ids``
    order, and how many labelled lines the import did not give (None: the file was refused)."""
    raw = folder / f"{folder.name}_2k.log"
    if not raw.is_file():
        return None
    store = scratch / f"{folder.name}.db"
    try:
        import_files([raw], store)
    except (LogImportError, LogStoreError):
        return None
    connection = sqlite3.connect(store)
    try:
        by_line = dict(connection.execute(
            "SELECT e.line_no, g.template_id FROM lines l JOIN entries e ON e.id = l.id "
            "JOIN groups g ON g.id = l.group_id").fetchall())
    finally:
        connection.close()
    missing = sum(1 for line_id in line_ids if line_id not in by_line)
    # a line not parsed is wrong: all of them share one group no label has
    return [by_line.get(line_id, "unparsed") for line_id in line_ids], missing


def _drain3(masked: bool) -> Grouper | None:
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


def _cell(score: float) -> str:
    return f"{'-':>14}" if math.isnan(score) else f"{score:>14.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--datasets", type=Path, action="append", default=[],
                        help="a folder of labelled loghub datasets (NAME/NAME_2k.log_structured.csv); repeatable")
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row)")
    arguments = parser.parse_args()
    datasets = labelled_datasets([CORPUS, *arguments.datasets])
    if not datasets:
        print(f"skipped: no labelled dataset under {CORPUS} or --datasets")
        return
    drain_default, drain_masked = _drain3(False), _drain3(True)
    columns = ["ours (Content)", "ours (raw,auto)", "Drain3 default", "Drain3 masked", "Drain (paper)"]
    print(f"{pad('dataset', 12)} " + " ".join(f"{name:>14}" for name in columns) + "  unparsed")
    rows: list[list[float]] = []
    cpu_lines, cpu_seconds = 0, 0.0
    with tempfile.TemporaryDirectory() as scratch:
        for name, folder in sorted(datasets.items()):
            line_ids, messages, truth = _labelled(folder)
            started = time.process_time()
            ours = _ours(messages)
            cpu_seconds += time.process_time() - started
            cpu_lines += len(messages)
            end_to_end = _end_to_end(folder, line_ids, Path(scratch))
            scores = [grouping_accuracy(ours, truth),
                      grouping_accuracy(end_to_end[0], truth) if end_to_end else math.nan]
            for baseline in (drain_default, drain_masked):
                scores.append(grouping_accuracy(baseline(messages), truth) if baseline else math.nan)
            scores.append(DRAIN_PAPER.get(name, math.nan))
            rows.append(scores)
            unparsed = "refused" if end_to_end is None else str(end_to_end[1])
            print(f"{pad(name, 12)} " + " ".join(_cell(score) for score in scores) + f"  {unparsed:>8}")
    means, counts = [], []
    for column in range(len(columns)):
        values = [row[column] for row in rows if not math.isnan(row[column])]
        means.append(sum(values) / len(values) if values else math.nan)
        counts.append(len(values))
    print(f"{pad('mean', 12)} " + " ".join(_cell(mean) for mean in means))
    print(f"{pad('  of', 12)} " + " ".join(f"{count:>14}" for count in counts) + "  datasets")
    ours_wins = sum(1 for row in rows if not math.isnan(row[4]) and row[0] >= row[4])
    with_paper = sum(1 for row in rows if not math.isnan(row[4]))
    print(f"ours >= Drain (paper) on {ours_wins} of {with_paper}; published means: Drain {DRAIN_PAPER_MEAN} "
          f"over 16, Brain ~{BRAIN_PAPER_MEAN}")
    if drain_default is None:
        print("(Drain3 columns: - -- drain3 is not installed; `.venv/bin/pip install drain3` to compare)")
    print(f"miner throughput: {cpu_lines / cpu_seconds:,.0f} lines per CPU second (cold miner per dataset)")
    if arguments.figures is not None:
        from _common import write_figures

        ours_scores = [row[0] for row in rows]
        imported = [row[1] for row in rows if not math.isnan(row[1])]
        write_figures(arguments.figures, {
            "templates.datasets": float(len(rows)), "templates.mean": means[0],
            "templates.lowest": min(ours_scores), "templates.end_to_end_mean": means[1],
            "templates.end_to_end_datasets": float(len(imported)),
            "templates.drain3_default_mean": means[2], "templates.drain3_masked_mean": means[3],
            "templates.drain_paper_mean": means[4], "templates.at_or_above_paper": float(ours_wins),
            "templates.with_paper": float(with_paper),
            "templates.lines_per_cpu_second": cpu_lines / cpu_seconds})


if __name__ == "__main__":
    main()
