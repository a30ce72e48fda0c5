"""Small helpers the benchmarks share: repeated timing, percentiles, figures in one line.

Not a benchmark itself (``make bench`` skips ``bench/_*.py``); running it does nothing.
"""

from __future__ import annotations

import json
import re
import resource
import statistics
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # so ``bench/NAME.py`` imports ``core`` without installing
    sys.path.insert(0, str(REPO_ROOT))

T = TypeVar("T")


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (``share`` in 0..1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


@dataclass(frozen=True)
class Timing:
    """Wall-clock milliseconds of repeated runs of one operation."""

    samples_ms: tuple[float, ...]

    @property
    def median(self) -> float:
        """Median of the runs, in ms."""
        return statistics.median(self.samples_ms)

    @property
    def p95(self) -> float:
        """Nearest-rank 95th percentile of the runs, in ms."""
        return percentile(list(self.samples_ms), 0.95)


def timed(operation: Callable[[], T]) -> tuple[float, T]:
    """Run ``operation`` once: (wall-clock ms, its result)."""
    started = time.perf_counter()
    result = operation()
    return (time.perf_counter() - started) * 1000, result


def repeat(operation: Callable[[], object], runs: int) -> Timing:
    """Time ``runs`` calls of ``operation`` (wall clock, one sample per call)."""
    return Timing(tuple(timed(operation)[0] for _ in range(max(1, runs))))


def interleaved(operations: list[Callable[[], object]], runs: int) -> list[Timing]:
    """Time several operations in turn, ``runs`` rounds, after one untimed call of each: a
    change in machine load then hits them all alike, so their ratios hold on a busy machine."""
    for operation in operations:
        operation()
    samples: list[list[float]] = [[] for _ in operations]
    for _ in range(max(1, runs)):
        for index, operation in enumerate(operations):
            samples[index].append(timed(operation)[0])
    return [Timing(tuple(times)) for times in samples]


def ratio(baseline_ms: float, ours_ms: float) -> str:
    """How many times faster ours is than the baseline ("12.3x faster" / "2.0x SLOWER")."""
    if ours_ms <= 0:
        return "inf x faster"
    factor = baseline_ms / ours_ms
    return f"{factor:,.1f}x faster" if factor >= 1 else f"{1 / factor:,.1f}x SLOWER"


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024



def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal columns (a CJK character takes two)."""
    columns = sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)
    return text + " " * max(0, width - columns)


def git_commit() -> str:
    """The measured commit, for the README's rows ("unknown" outside a git checkout)."""
    import subprocess

    try:
        completed = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT,
                                   capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    return completed.stdout.strip() or "unknown"


def write_figures(path: Path, values: dict[str, float]) -> None:
    """Keep a run's figures for ``bench/report.py`` (which writes the README's rows of them):
    a JSON document dated and named by commit, the figures under ``info``."""
    import datetime

    document = {"date": datetime.date.today().isoformat(), "commit": git_commit(), "info": values}
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


_REFERENCE_TEXT = " ".join([
    "只确认 payment-service 当前是否存在 CPU 使用率过高告警",
    "Only confirm whether order-service has a HighMemoryUsage alert right now.",
    "HikariPool-1 - Connection is not available, request timed out after 30000ms",
    "内存使用率过高: 91.2%, JVM堆内存: 3.8GB/4GB, GC次数: 120",
] * 8)


def reference_work() -> None:
    """A fixed pure-Python workload (string methods, a regex, a counter, JSON): the same-run
    baseline of the benches that have no natural one (~10-20 ms on a 2-core machine)."""
    for _ in range(60):
        words = re.findall(r"\w+", _REFERENCE_TEXT.casefold())
        counts = Counter(word.strip("_") for word in words)
        json.loads(json.dumps(sorted(counts.items()), ensure_ascii=False))


def clear_text_caches() -> int:
    """Empty the product's bounded per-text caches (``functools.lru_cache`` with a maxsize, in
    ``core``): a bench that asks the same questions round after round would otherwise time
    cache hits, not the work a new question costs. Unbounded caches (vocabularies, compiled
    programs: loaded once per process) stay. Returns how many caches were emptied."""
    import functools

    emptied = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("core.") or module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, functools._lru_cache_wrapper) and value.cache_info().maxsize is not None:
                value.cache_clear()
                emptied += 1
    return emptied

