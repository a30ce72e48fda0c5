"""``make bench-check``: the fast benchmarks, as ratios against baselines of the same run,
compared with the figures committed in ``bench/baseline.json``; exit 1 on a regression.

Each figure is a cost over a baseline measured in the same run, in CPU time where the bench
allows (a busy shared machine inflates wall time, and both sides alike only roughly), so it
holds across machines (``_regressions`` has the rule and the margin):

* gatekeeper -- ``match_excerpt`` (warm) and the whole ``check_citations`` over the bare
  normalised-substring floor, on ``bench/gatekeeper.py``'s corpus; forged bindings passed and
  true ones rejected (counts);
* ask -- an offline ``ask`` (rules engine, demo pack, ``bench/ask.py``'s questions), in memory
  and stored, over a fixed pure-Python reference workload measured between its rounds;
* evals -- 200 of ``bench/evals.py``'s generated cases, stored, over the same reference
  workload; cases failed (count);
* startup -- a cold ``ask --no-store`` (fresh interpreter) over ``python -c pass``
  (``bench/startup.py``).

    .venv/bin/python bench/check.py [--write bench/results.json] [--update-baseline]

``--write`` keeps the run's figures (``bench/report.py`` makes the README's rows of them);
``--update-baseline`` commits this run's figures as the new baseline (after an improvement,
or a regression accepted on purpose: say why in the commit).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import _common
import yaml
from _common import clear_text_caches, reference_work
from _regressions import DEFAULT_MARGIN, Figures, from_json, regressions

BASELINE = Path(__file__).with_name("baseline.json")
# Figures shown but not compared: absolute speeds depend on the machine.
Info = dict[str, float]


def _cpu(operation: Callable[[], object]) -> float:
    """CPU seconds of one call (this process, every thread)."""
    started = time.process_time()
    operation()
    return time.process_time() - started


def _interleaved(operation: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median CPU seconds of ``operation`` and of ``reference_work``, measured in turn."""
    ours: list[float] = []
    reference: list[float] = []
    for _ in range(rounds):
        reference.append(_cpu(reference_work))
        ours.append(_cpu(operation))
    reference.append(_cpu(reference_work))
    return statistics.median(ours), statistics.median(reference)


def _bench(name: str) -> ModuleType:
    """``bench/NAME.py`` as a module of its own name (``bench_NAME``): the checkout's root is on
    the path first, and ``evals`` there is the product's package, not the benchmark."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", Path(__file__).with_name(f"{name}.py"))
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench/{name}.py not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def check_gatekeeper(bindings: int) -> tuple[Figures, Info]:
    bench = _bench("gatekeeper")

    rng = random.Random(7)
    refs = bench.make_refs(rng, 400)
    samples = bench.make_corpus(rng, [ref.text for ref in refs], bindings)
    bench.clear_caches()
    ours, floor = bench.measure_interleaved(
        {"ours": (bench.ours_match, 5), "floor": (bench.floor_match, 5)}, samples)
    full = bench.measure_check_citations(samples, refs)
    few = samples[: max(1, bindings // 10)]
    ours_few, difflib = bench.measure_interleaved(
        {"ours": (bench.ours_match, 3), "difflib": (bench.difflib_match, 1)}, few)
    ratios = {"gatekeeper.match_vs_floor": floor.per_second / ours.per_second,
              "gatekeeper.check_citations_vs_floor": floor.per_second / full.per_second}
    counts = {"gatekeeper.forged_passed": max(ours.forged_passed, full.forged_passed),
              "gatekeeper.true_rejected": max(ours.true_rejected, full.true_rejected)}
    info = {"gatekeeper.bindings": float(bindings), "gatekeeper.match_per_second": ours.per_second,
            "gatekeeper.floor_per_second": floor.per_second,
            "gatekeeper.check_citations_per_second": full.per_second,
            "gatekeeper.difflib_vs_match": ours_few.per_second / difflib.per_second}
    return Figures(ratios, counts), info


def check_ask(rounds: int) -> tuple[Figures, Info]:
    questions: tuple[str, ...] = _bench("ask").QUESTIONS
    from core.agents.registry import build_engines
    from core.pipeline import ask
    from core.store import Store, open_store

    engines = build_engines("rules")

    def one_pass(store: Store | None = None) -> None:
        clear_text_caches()  # each round a first asking, not the last round's cache hits
        for question in questions:
            document = ask(question, engines=engines, store=store)
            if document.status != "completed":
                raise SystemExit(f"ask failed on {question!r}: {document.error}")

    one_pass()  # warm-up: pack, log index, regexes
    memory, reference = _interleaved(one_pass, rounds)
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as folder:
        store = open_store(str(Path(folder) / "check.db"))
        stored, reference_stored = _interleaved(lambda: one_pass(store), rounds)
        store.engine.dispose()
    per_ask = len(questions)
    ratios = {"ask.in_memory_vs_reference": memory / reference / per_ask,
              "ask.stored_vs_reference": stored / reference_stored / per_ask}
    return Figures(ratios), {"ask.questions": float(per_ask), "ask.in_memory_cpu_ms": memory * 1000 / per_ask,
                             "ask.stored_cpu_ms": stored * 1000 / per_ask,
                             "reference_cpu_ms": reference * 1000}


def check_evals(cases_count: int) -> tuple[Figures, Info]:
    from core.evals.cases import load_case_file, with_default_pack
    from core.evals.runner import run_cases
    from core.store import open_store
    generate_cases = _bench("evals").generate_cases

    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as folder:
        case_file = Path(folder) / "generated.yaml"
        case_file.write_text(yaml.safe_dump(generate_cases(cases_count), allow_unicode=True), encoding="utf-8")
        cases = with_default_pack(load_case_file(case_file), None)
        run_cases(cases[:10], store=None, suite="warm-up", workers=1)
        reference = [_cpu(reference_work)]
        # Stored, as the CLI runs them (the pipeline in memory is ask's figure): half the CPU
        # of both, so the whole check stays within minutes on a busy 2-core machine.
        store = open_store(str(Path(folder) / "check.db"))
        started = time.process_time()
        run = run_cases(cases, store=store, suite="bench-check", workers=1)
        stored_seconds = time.process_time() - started
        store.engine.dispose()
        reference.append(_cpu(reference_work))
        reference.append(_cpu(reference_work))
    unit = statistics.median(reference) * len(cases)
    info = {"evals.cases": float(len(cases)), "evals.stored_cpu_seconds": stored_seconds,
            "evals.passed": float(run.passed)}
    return Figures({"evals.stored_vs_reference": stored_seconds / unit}, {"evals.failed": run.total - run.passed}), info


def check_startup(runs: int) -> tuple[Figures, Info]:
    startup = _bench("startup")
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as folder:
        env = {**os.environ, "SUPERBIZ_DB": str(Path(folder) / "startup.db"),
               "SUPERBIZ_CACHE_DIR": str(Path(folder) / "cache"), "PYTHONPATH": str(_common.REPO_ROOT)}
        env.pop("PYTHONPROFILEIMPORTTIME", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it (bench/startup.py)
        ask = next(c for c in startup.commands(Path(folder) / "unused.json") if c.label == "ask --no-store")
        bare, measured = startup.measure([startup.BASELINES[0], ask], env, runs, folder)
    ratios = {"startup.ask_no_store_vs_python": measured.cpu.median / bare.cpu.median}
    return Figures(ratios), {"startup.ask_no_store_cpu_ms": measured.cpu.median,
                             "startup.python_cpu_ms": bare.cpu.median}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=5000, help="gatekeeper bindings (default: 5000)")
    parser.add_argument("--rounds", type=int, default=3, help="ask rounds (default: 3)")
    parser.add_argument("--cases", type=int, default=200, help="eval cases (default: 200)")
    parser.add_argument("--runs", type=int, default=5, help="cold starts of each command (default: 5)")
    parser.add_argument("--write", type=Path, default=None, metavar="PATH", help="keep the figures (JSON)")
    parser.add_argument("--update-baseline", action="store_true", help="commit this run's figures")
    args = parser.parse_args()

    measured = Figures()
    info: Info = {}
    checks: list[tuple[str, Callable[[], tuple[Figures, Info]]]] = [
        ("gatekeeper", lambda: check_gatekeeper(args.bindings)), ("ask", lambda: check_ask(args.rounds)),
        ("evals", lambda: check_evals(args.cases)), ("startup", lambda: check_startup(args.runs))]
    for name, check in checks:
        started, cpu = time.perf_counter(), time.process_time()
        figures, extra = check()
        measured.ratios.update(figures.ratios)
        measured.counts.update(figures.counts)
        info.update(extra)
        print(f"== {name} ({time.perf_counter() - started:.1f} s, CPU {time.process_time() - cpu:.1f} s)")
        for key, value in {**figures.ratios, **figures.counts}.items():
            print(f"  {key:42} {value:10.3f}")
    document = {"date": datetime.date.today().isoformat(), "commit": _common.git_commit(),
                "ratios": measured.ratios, "counts": measured.counts, "info": info}
    if args.write is not None:
        args.write.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    committed, margin = (from_json(json.loads(BASELINE.read_text(encoding="utf-8"))) if BASELINE.exists()
                         else (Figures(), DEFAULT_MARGIN))
    if args.update_baseline:
        BASELINE.write_text(json.dumps({**document, "margin": margin}, indent=2, sort_keys=True) + "\n",
                            encoding="utf-8")
        print(f"baseline updated: {BASELINE}")
        return 0
    found = regressions(committed, measured, margin)
    for problem in found:
        print(f"REGRESSION {problem}")
    print(f"bench-check: {len(found)} regression(s) against {BASELINE.name} (margin {margin:g}x)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
