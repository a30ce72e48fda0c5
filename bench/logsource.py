"""Benchmark: a million-line pack asked through the pipeline (the log store as every world's
log search).

Data, generated in a temporary folder at bench time (nothing committed): ``bench/logs.py``'s
pack of ``--lines`` generated log lines (the demo's alerts, series and runbooks, ~40 services,
Chinese and English) as ``logs.jsonl``; and the same lines imported with ``superbiz logs
import`` into a store that a second pack points at (``logs: {store: logs.db}``).

Measured, each in a fresh process where a process is what a user waits for (wall time, peak
RSS of that process):

  - ``superbiz packs validate`` on the logs.jsonl pack, before and after its store cache exists;
  - pack load (``load_pack``): the first (which builds the cached store of a big log file) and
    the next (which finds it);
  - a cold CLI ask, ``superbiz ask --no-store --pack DIR Q`` (median of ``--cold-runs``), next
    to the CLI's floor (``superbiz --version``: interpreter + CLI imports) and to the import of
    the pipeline alone;
  - a warm ask in one process (pack loaded, store open: ``core.pipeline.ask`` on the seed's
    twelve questions, ``--rounds`` passes), median and p95, against the same asks on the demo
    pack (36 lines) in the same run.

The machine is shared: compare ratios within a run; absolute times move with its load.
No assertions.

    .venv/bin/python bench/logsource.py [--lines 1000000] [--rounds 3] [--cold-runs 3] [--figures PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# _common first: it puts the repository root on sys.path for ``core``.
from _common import REPO_ROOT, percentile, timed
from ask import QUESTIONS
from logs import write_pack

QUESTION = QUESTIONS[3]  # order-service HikariCP: metrics, logs (service + topic) and runbooks


def child(command: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """Run a process from the repository root: (wall s, CPU s, peak RSS MB, exit code)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0,):
        print(f"   (exit {code}: {errors.strip().splitlines()[-1] if errors.strip() else ''})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _superbiz(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "core", *arguments]


def _line(label: str, wall: float, cpu: float, rss: float, *_: object) -> None:
    print(f"{label:<52} {wall:8.2f} s {cpu:8.2f} s {rss:8.0f} MB")


def _median(runs: list[tuple[float, float, float, int]]) -> tuple[float, float, float]:
    """Median wall, median CPU and largest peak RSS of several runs."""
    walls, cpus = sorted(run[0] for run in runs), sorted(run[1] for run in runs)
    return walls[len(walls) // 2], cpus[len(cpus) // 2], max(run[2] for run in runs)


def bench_processes(pack: Path, store_pack: Path | None, env: dict[str, str],
                    cold_runs: int) -> dict[str, float]:
    """The processes' lines; the headline figures returned for ``--figures`` (seconds)."""
    print(f"{'':<52} {'wall':>10} {'CPU':>10} {'peak RSS':>11}")
    _line("packs validate (no cache yet)", *child(_superbiz("packs", "validate", str(pack)), env))
    load = f"from core.packs import load_pack; load_pack({str(pack)!r})"
    first_load = child(_python(load), env)
    _line("pack load, first (builds the store cache)", *first_load)
    _line("pack load, next (finds the cache)", *child(_python(load), env))
    _line("packs validate (cache present)", *child(_superbiz("packs", "validate", str(pack)), env))
    floors = [child(_superbiz("--version"), env) for _ in range(cold_runs)]
    floor = _median(floors)
    _line("CLI floor: superbiz --version (median)", *floor)
    kept = {"logsource.first_load_s": first_load[0], "logsource.cli_floor_s": floor[0]}
    pipeline = [child(_python("import core.pipeline"), env) for _ in range(cold_runs)]
    _line("import core.pipeline (median)", *_median(pipeline))
    packs = [("logs.jsonl pack", pack)] + ([("store pack", store_pack)] if store_pack else [])
    for label, folder in packs:
        runs = [child(_superbiz("ask", "--no-store", "--pack", str(folder), QUESTION), env)
                for _ in range(cold_runs)]
        cold = _median(runs)
        _line(f"cold CLI ask --no-store, {label} (median)", *cold)
        kept[f"logsource.cold_ask_{label.split()[0].replace('.', '_')}_vs_floor"] = cold[0] / floor[0]
    return kept


def bench_warm(folders: list[tuple[str, str]], rounds: int) -> list[tuple[float, float]]:
    """Each pack's warm ask (median, p95 ms), in ``folders``' order."""
    from core.agents.registry import build_engines
    from core.packs import load_pack
    from core.pipeline import ask
    from core.sources.pack import load_world, warm_up

    engines = build_engines("rules")
    print(f"\nwarm ask in one process (rules engine, no audit store): {len(QUESTIONS)} questions x "
          f"{rounds} rounds; ms")
    print(f"{'pack':<34} {'load+warm':>10} {'first ask':>10} {'median':>8} {'p95':>8} {'max':>8} "
          f"{'CPU median':>11}")
    kept: list[tuple[float, float]] = []
    for label, folder in folders:
        load_ms, pack = timed(lambda: load_pack(folder))  # noqa: B023 -- called at once
        warm_ms, _ = timed(lambda: warm_up(pack))  # noqa: B023
        world = load_world(pack)
        first_ms, _ = timed(lambda: ask(QUESTION, pack=world, engines=engines))  # noqa: B023
        samples, cpu = [], []
        for _ in range(rounds):
            for question in QUESTIONS:
                started = time.process_time()
                ms, document = timed(lambda: ask(question, pack=world, engines=engines))  # noqa: B023
                cpu.append((time.process_time() - started) * 1000)
                if document.status != "completed":
                    raise SystemExit(f"ask failed on {question!r}: {document.error}")
                samples.append(ms)
        samples.sort()
        cpu.sort()
        print(f"{label:<34} {load_ms + warm_ms:10.0f} {first_ms:10.1f} {samples[len(samples) // 2]:8.1f} "
              f"{percentile(samples, 0.95):8.1f} {samples[-1]:8.1f} {cpu[len(cpu) // 2]:11.1f}")
        kept.append((samples[len(samples) // 2], percentile(samples, 0.95)))
    return kept


def make_store_pack(pack: Path, folder: Path, env: dict[str, str]) -> Path | None:
    """A pack pointing at a store imported from the pack's logs.jsonl (None before the store
    existed: the old code cannot serve such a pack)."""
    folder.mkdir()
    for name in ("alerts.yaml", "series.yaml"):
        (folder / name).write_bytes((pack / name).read_bytes())
    shutil.copytree(pack / "runbooks", folder / "runbooks")  # a pack reads no link out of itself
    text = (pack / "pack.yaml").read_text(encoding="utf-8").replace("bench-logs", "bench-store")
    (folder / "pack.yaml").write_text(text + "logs:\n  store: logs.db\n", encoding="utf-8")
    wall, cpu, rss, code = child(_superbiz("logs", "import", str(pack / "logs.jsonl"), "--store",
                                           str(folder / "logs.db")), env)
    if code != 0:
        return None
    _line("logs import of the same lines (store pack)", wall, cpu, rss)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-store-pack", action="store_true",
                        help="skip the store pack (code from before packs could point at a store)")
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row, with the size)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-logsource-") as temp:
        base = Path(temp)
        pack = base / "pack"
        pack.mkdir()
        generate_ms, logs = timed(lambda: write_pack(pack, args.lines, args.seed))
        print(f"{args.lines:,} log lines ({logs.stat().st_size / 2**20:.0f} MB logs.jsonl) generated in "
              f"{generate_ms / 1000:.1f} s; code: {REPO_ROOT}")
        env = {**os.environ, "SUPERBIZ_CACHE_DIR": str(base / "cache"), "SUPERBIZ_DB": str(base / "audit.db"),
               "PYTHONPATH": str(REPO_ROOT)}
        os.environ.update({key: env[key] for key in ("SUPERBIZ_CACHE_DIR", "SUPERBIZ_DB")})
        store_pack = None if args.no_store_pack else make_store_pack(pack, base / "store-pack", env)
        kept = {"logsource.lines": float(args.lines), **bench_processes(pack, store_pack, env, args.cold_runs)}
        folders = [("demo (36 lines)", str(REPO_ROOT / "mockdata" / "demo")),
                   (f"logs.jsonl pack ({args.lines:,} lines)", str(pack))]
        if store_pack is not None:
            folders.append((f"store pack ({args.lines:,} lines)", str(store_pack)))
        warm = bench_warm(folders, args.rounds)
    kept.update({"logsource.demo_median_ms": warm[0][0], "logsource.warm_median_ms": warm[-1][0],
                 "logsource.warm_p95_ms": warm[-1][1], "logsource.warm_vs_demo": warm[-1][0] / warm[0][0],
                 "logsource.warm_from_store": float(store_pack is not None)})
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, kept)


if __name__ == "__main__":
    main()
