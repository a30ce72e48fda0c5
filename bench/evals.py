"""Benchmark: an eval of 1,000 generated cases, timed (DESIGN.md section 9: well under a minute).

Generates a YAML case file (questions over the demo pack's services and topics, in Chinese and
English, every fault mode in turn), loads it through the real loader, runs it through the real
pipeline into a fresh SQLite store with the default worker count, and prints the figures.

    .venv/bin/python bench/evals.py [--cases 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.agents.faults import FAULT_MODES
from core.evals.cases import load_case_file, with_default_pack
from core.evals.results import EvalRun
from core.evals.runner import DEFAULT_WORKERS, run_cases
from core.store import open_store

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("只确认 payment-service 当前是否存在 CPU 使用率过高告警", "PASS"),
    ("只确认 order-service 是否存在 HighMemoryUsage 告警", "PASS"),
    ("只确认 user-service 是否存在 SlowResponse 告警和慢请求日志", "PASS"),
    ("确认 order-service 是否存在 HikariCP 连接池耗尽", "PASS"),
    ("确认 inventory-service 是否存在 HikariCP 连接池耗尽", "PASS"),
    ("Only confirm whether payment-service has a HighCPUUsage alert.", "PASS"),
    ("Only confirm whether order-service has a HighMemoryUsage alert.", "PASS"),
    ("Does order-service show HikariCP connection pool exhaustion? Only confirm that.", "PASS"),
    ("只确认 payment-service 是否有 Redis 超时日志", "PASS"),
    ("只确认 order-service 的消息队列是否积压", "PASS"),
)


def generate_cases(count: int) -> list[dict[str, object]]:
    """``count`` cases: every 5th carries a fault (cycling the modes) and must not PASS."""
    faults = list(FAULT_MODES)
    cases: list[dict[str, object]] = []
    for index in range(count):
        question, verdict = QUESTIONS[index % len(QUESTIONS)]
        case: dict[str, object] = {"id": f"gen-{index:04d}", "question": question,
                                   "tags": ["generated"]}
        if index % 5 == 4:
            fault = faults[(index // 5) % len(faults)]
            case["executor_fault"] = fault
            case["tags"] = ["generated", "fault", fault]
            case["expect"] = {"verdict": ["LOW_CONFID", "REJECT"]}
        else:
            case["expect"] = {"verdict": verdict, "max_claims": 2}
        cases.append(case)
    return cases


def main() -> int:
    """Generate, load, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as folder:
        case_file = Path(folder) / "generated.yaml"
        case_file.write_text(yaml.safe_dump(generate_cases(args.cases), allow_unicode=True),
                             encoding="utf-8")
        started = time.perf_counter()
        cases = with_default_pack(load_case_file(case_file), None)
        load_seconds = time.perf_counter() - started

        store = open_store(str(Path(folder) / "bench.db"))
        started = time.perf_counter()
        run = run_cases(cases, store=store, suite="bench", workers=args.workers)
        run_seconds = time.perf_counter() - started
        store.engine.dispose()

    # The same cases with no store: what the pipeline costs, so the store's share is visible.
    started = time.perf_counter()
    in_memory = run_cases(cases, store=None, suite="bench", workers=args.workers)
    memory_seconds = time.perf_counter() - started

    print(f"eval of {run.total} generated cases, {args.workers} workers")
    print(f"  load + validate          {load_seconds * 1000:8.1f} ms")
    _print_run("stored (SQLite, as CLI)", run, run_seconds)
    _print_run("in memory (no store)", in_memory, memory_seconds)
    verdict = "ok" if run_seconds < 60 else "MISSED"
    print(f"  target (DESIGN.md: 1,000 cases well under 60 s, stored): {run.total} cases in "
          f"{run_seconds:.1f} s: {verdict}")
    return 0


def _print_run(label: str, run: EvalRun, seconds: float) -> None:
    latency = run.metrics.latency_ms
    print(f"  {label:<24} {seconds:8.2f} s  ({run.total / seconds:.0f} cases/s), per case median "
          f"{latency.median or 0:.1f} ms, p95 {latency.p95 or 0:.1f} ms, "
          f"passed {run.passed}/{run.total}")


if __name__ == "__main__":
    sys.exit(main())
