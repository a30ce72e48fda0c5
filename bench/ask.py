"""Benchmark: offline ``ask`` end to end (rules engine, demo pack), without and with the store.

Runs the acceptance matrix's questions (docs/design.md §10; §11 wants "tens of milliseconds"
offline), each in Chinese and English, ``--rounds`` times, after one warm-up pass (pack loading and index
building happen once per process, as in the console). Prints, per mode, the median, p95 and
max latency of a whole ``ask`` and the median time of each stage; "store" writes every event
and stage result to a fresh SQLite file, as ``superbiz ask`` does. No assertions.

    .venv/bin/python bench/ask.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.agents.registry import build_engines
from core.pipeline import ask
from core.store import Store, open_store

QUESTIONS: tuple[str, ...] = (
    "只确认 payment-service 当前是否存在 CPU 使用率过高告警",
    "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
    "只确认 user-service 是否存在 SlowResponse 告警和慢请求日志",
    "确认 order-service 是否存在 HikariCP 连接池耗尽",
    "确认 inventory-service 是否存在 HikariCP 连接池耗尽",
    "只确认 HighCPUUsage，不要分析订单123、OOM、数据库慢查询、连接池或 user-service",
    "Only confirm whether payment-service currently has a high CPU usage alert.",
    "Only confirm whether order-service has a HighMemoryUsage alert right now.",
    "Only confirm whether user-service has a SlowResponse alert and slow request logs.",
    "Confirm whether order-service has HikariCP connection pool exhaustion.",
    "Is there HikariCP connection pool exhaustion in inventory-service?",
    "Only confirm HighCPUUsage; do not analyse order 123, OOM, database slow queries, "
    "the connection pool or user-service.",
)
STAGES = ("plan", "execute", "gatekeeper", "verify", "compose")


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


def measure(rounds: int, store: Store | None) -> tuple[list[float], dict[str, list[float]]]:
    """Wall-clock ms of each ask, and each stage's ms as the pipeline recorded it."""
    engines = build_engines("rules")
    totals: list[float] = []
    stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for _ in range(rounds):
        for question in QUESTIONS:
            started = time.perf_counter()
            document = ask(question, engines=engines, store=store)
            totals.append((time.perf_counter() - started) * 1000)
            if document.status != "completed":
                raise SystemExit(f"ask failed on {question!r}: {document.error}")
            for stage in STAGES:
                stages[stage].append(document.timings_ms.get(stage, 0.0))
    return totals, stages


def report(label: str, totals: list[float], stages: dict[str, list[float]]) -> None:
    """One block of figures."""
    print(f"{label:<10} n={len(totals):<4} median {statistics.median(totals):7.1f} ms   "
          f"p95 {percentile(totals, 0.95):7.1f} ms   max {max(totals):7.1f} ms")
    breakdown = "  ".join(f"{stage} {statistics.median(values):.1f}"
                          for stage, values in stages.items())
    print(f"{'':<10} stage medians (ms): {breakdown}")


def main() -> None:
    """Run both modes and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="passes over the questions")
    args = parser.parse_args()

    measure(1, None)  # warm-up: pack, log index, regexes
    print(f"offline ask, rules engine, demo pack: {len(QUESTIONS)} questions x {args.rounds} rounds")
    report("in memory", *measure(args.rounds, None))
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(str(Path(folder) / "bench.db"))
        report("store", *measure(args.rounds, store))
        store.engine.dispose()


if __name__ == "__main__":
    main()
