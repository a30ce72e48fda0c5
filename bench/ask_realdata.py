"""Benchmark: offline ``ask`` on the 2k-line real-data packs, next to the demo pack.

Builds the loghub packs of the real-data suite (``evals/loghub/packs.py``) in a temp folder,
then asks every question of ``evals/loghub/cases.yaml`` in process (rules engine, no store),
``--rounds`` times after one warm-up pass, on each pack two ways: the pack's ``logs.jsonl``
(searched by an in-memory log store), and the pack pointing at the store file (``logs.db``).
The baseline is the demo pack's seed questions, measured in the same run. Prints median and
p95 (nearest rank) per pack and the ratio of medians to the demo's. No assertions.

    .venv/bin/python bench/ask_realdata.py [--rounds 3] [--figures PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import REPO_ROOT, percentile

from core.agents.registry import build_engines
from core.evals.cases import load_case_file
from core.packs import load_pack
from core.pipeline import ask
from core.sources.base import World
from core.sources.pack import load_world
from evals.loghub.packs import DATASETS, DEFAULT_CORPORA, build_packs

CASES = REPO_ROOT / "evals" / "loghub" / "cases.yaml"
DEMO_QUESTIONS = (
    "只确认 payment-service 当前是否存在 CPU 使用率过高告警",
    "确认 order-service 是否存在 HikariCP 连接池耗尽",
    "确认 inventory-service 是否存在 HikariCP 连接池耗尽",
    "Only confirm whether user-service has a SlowResponse alert and slow request logs.",
    "Only confirm HighCPUUsage; do not analyse order 123, OOM, database slow queries, "
    "the connection pool or user-service.",
)


def timed(questions: list[str], world: World, rounds: int) -> list[float]:
    """Milliseconds of each ask of each question, after one untimed pass."""
    engines = build_engines("rules")
    for question in questions:
        ask(question, pack=world, engines=engines)
    samples = []
    for _ in range(rounds):
        for question in questions:
            started = time.perf_counter()
            document = ask(question, pack=world, engines=engines)
            samples.append((time.perf_counter() - started) * 1000)
            if document.status != "completed":
                raise SystemExit(f"ask failed on {question!r}: {document.error}")
    return samples


def line(label: str, samples: list[float], baseline: float | None) -> tuple[float, float]:
    """Print one row; its (median, p95) ms."""
    median = percentile(samples, 0.5)
    ratio = f"   {median / baseline:5.1f}x the demo" if baseline else ""
    print(f"{label:<34} n={len(samples):<4} median {median:7.1f} ms   "
          f"p95 {percentile(samples, 0.95):7.1f} ms{ratio}")
    return median, percentile(samples, 0.95)


def store_world(folder: Path) -> World:
    pack = load_pack(str(folder))
    assert pack.log_store is not None  # a pack pointing at a store is asked like any pack
    return load_world(pack)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the questions")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row)")
    args = parser.parse_args()
    if not (args.corpora / "loghub").is_dir():
        print(f"skipped: no loghub samples under {args.corpora}")
        return
    by_pack: dict[str, list[str]] = {}
    for case in load_case_file(CASES):
        if case.pack in DATASETS:  # the five packs; their perturbed copies time the same
            by_pack.setdefault(case.pack, []).append(case.question)
    demo = timed(list(DEMO_QUESTIONS), load_world("demo"), args.rounds)
    baseline = percentile(demo, 0.5)
    kept = dict(zip(("ask_realdata.demo_median_ms", "ask_realdata.demo_p95_ms"),
                    line("demo pack (seed questions)", demo, None), strict=True))
    with tempfile.TemporaryDirectory() as scratch:
        modes: list[tuple[str, bool, Callable[[Path], World]]] = [
            ("in memory", False, lambda folder: load_world(str(folder))),
            ("log store", True, store_world)]
        for mode, from_store, open_world in modes:
            built = build_packs(Path(scratch) / mode.replace(" ", "-"), args.corpora,
                                serve_from_store=from_store)
            everything: list[float] = []
            pack_medians: list[float] = []
            for name in DATASETS:
                questions = by_pack.get(name, [])
                if questions:
                    samples = timed(questions, open_world(built[name].path), args.rounds)
                    everything += samples
                    pack_medians.append(line(f"{name} ({mode})", samples, baseline)[0])
            median, p95 = line(f"all real-data packs ({mode})", everything, baseline)
            key = f"ask_realdata.{'store' if from_store else 'in_memory'}"
            kept.update({f"{key}_median_ms": median, f"{key}_p95_ms": p95,
                         f"{key}_vs_demo": median / baseline,
                         f"{key}_pack_vs_demo_low": min(pack_medians) / baseline,
                         f"{key}_pack_vs_demo_high": max(pack_medians) / baseline})
    kept["ask_realdata.asks"] = float(len(everything))
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, kept)


if __name__ == "__main__":
    main()
