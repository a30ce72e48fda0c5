"""Benchmark: the log store at 10k, 100k and 1M lines, against raw SQLite FTS5 and grep.

Data: the loghub Hadoop sample repeated until each size is reached, every copy shifted by a day
and given its own application/attempt/container ids (so ids are as many as in real logs), split
over four files (services ``hadoop-a`` .. ``hadoop-d``), plus three lines carrying one rare
transaction id. Generated in a temporary folder at bench time; nothing is committed.

Measured per size, each import in its own process (``python -m core logs import``):

  - import wall time and CPU time, peak RSS of that process (target at 1M: <= 60 s, <= 500 MB,
    flat in the number of lines), against a raw import: the same lines inserted with
    ``executemany`` into a bare FTS5 table (no parsing, templates, topics or indexes);

then on the largest store, ``LogStore.query_logs`` median / p95 (warm, interleaved with their
baselines so machine load hits both alike):

  - rare (the transaction id), common (a word in a quarter of the lines), service-filtered,
    and an ask-like query (service + level ERROR), against raw FTS5 ``MATCH ... ORDER BY rank
    LIMIT 20`` on the bare table (its own tokens), the same on a copy of it whose FTS5
    segments are merged (``optimize``, as the store merges its own at import: the strict
    baseline), the same on the bare table with the store's terms (the lines ``query_logs``
    must rank: a word matches inside longer tokens) and the
    same ``MATCH`` expression the store ran, on the store's own index (how much the filters,
    exact checks and groups add);

and a cold CLI query (``python -m core logs query``, a fresh process each time) of the rare id
and of a common word, against ``grep -ci`` of the same text over the raw files and a fresh
process running the raw FTS5 query; and Chinese
substrings of one to four characters (the demo pack's Chinese lines, repeated) against a
``LIKE`` scan and a trigram FTS5 index. The machine is shared: compare the ratios; absolute
times move with its load. No assertions.

    .venv/bin/python bench/logstore.py [--lines 1000000 | --sizes 10000,100000,1000000] [--runs 15] [--figures PATH]
        [--only import,queries,cold,chinese] [--keep DIR]

The last lines give the issue's two targets at the largest size: the import's wall time as a
multiple of the bare FTS5 insert's (<= 4x), and each cold CLI query's as a multiple of
``grep -ci`` over the raw files (<= 3x).

``--keep DIR`` generates the data and builds the stores in DIR instead of a temporary folder
and leaves them there; a later run with the same DIR reuses the data and every store that
still opens (one written by an older schema is imported again), so query timings can be
repeated without the minute-long import at 1M (the import row then says "kept").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

# _common first: it puts the repository root on sys.path for ``core``.
from _common import REPO_ROOT, interleaved, ratio

from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs

SAMPLE = REPO_ROOT.parent / "shared" / "corpora" / "loghub" / "Hadoop" / "Hadoop_2k.log"
SERVICES = ("hadoop-a", "hadoop-b", "hadoop-c", "hadoop-d")
RARE_ID = "txn-7f3a9c21e4"
APP_ID = "1445144423722"
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")


def generate(folder: Path, lines: int) -> list[Path]:
    """``lines`` lines over four files (see the module doc)."""
    sample = SAMPLE.read_text(encoding="utf-8").splitlines()
    paths = [folder / f"{service}.log" for service in SERVICES]
    handles = [path.open("w", encoding="utf-8") for path in paths]
    written, copy = 0, 0
    try:
        while written < lines:
            shift = timedelta(days=copy)
            app = str(int(APP_ID) + copy)
            out = handles[copy % len(handles)]
            for line in sample:
                match = _STAMP.match(line)
                if match:
                    moment = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S") + shift
                    line = moment.strftime("%Y-%m-%d %H:%M:%S") + line[match.end():]
                out.write(line.replace(APP_ID, app) + "\n")
                written += 1
                if written in (lines // 3, lines // 2, 2 * lines // 3):
                    out.write(f"{moment:%Y-%m-%d %H:%M:%S},000 ERROR [main] org.shop.Payments: "
                              f"payment {RARE_ID} failed: card declined\n")
                    written += 1
                if written >= lines:
                    break
            copy += 1
    finally:
        for handle in handles:
            handle.close()
    return paths


def _child(command: list[str]) -> tuple[float, float, float, str]:
    """Run a process: (wall s, CPU s, peak RSS MB, stdout)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output


_RAW_IMPORT = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("PRAGMA journal_mode=OFF"); db.execute("PRAGMA synchronous=OFF")
db.execute("CREATE VIRTUAL TABLE raw USING fts5(service UNINDEXED, line)")
for path in sys.argv[2:]:
    service = path.rsplit('/', 1)[-1][:-4]
    with open(path, encoding='utf-8') as handle:
        batch = []
        for line in handle:
            batch.append((service, line))
            if len(batch) == 5000:
                db.executemany("INSERT INTO raw (service, line) VALUES (?, ?)", batch); batch = []
        db.executemany("INSERT INTO raw (service, line) VALUES (?, ?)", batch)
db.commit()
"""
_RAW_QUERY = """
import sqlite3, sys, json
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT rowid, line FROM raw WHERE raw MATCH ? ORDER BY rank LIMIT 20", (sys.argv[2],)).fetchall()
print(json.dumps([list(row) for row in rows]))
"""


def _kept_data(data: Path, size: int) -> list[Path] | None:
    """The files a previous ``--keep`` run generated for ``size`` lines, if complete."""
    paths = [data / f"{service}.log" for service in SERVICES]
    return paths if (data / "complete").is_file() and all(path.is_file() for path in paths) else None


def _current(store: Path) -> bool:
    """Whether a kept store opens and was written by this schema (an older one would be brought
    up to date when opened, without what the newer import writes)."""
    from core.sources.logfile import SCHEMA_VERSION, check_store

    if check_store(store) is not None:
        return False
    connection = sqlite3.connect(store)
    try:
        return bool(connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (SCHEMA_VERSION,))
    finally:
        connection.close()


def bench_imports(folder: Path, sizes: list[int], keep: bool = False,
                  ) -> tuple[Path, Path, list[Path], tuple[float, float] | None]:
    """Import each size (its own process) and the same lines into a bare FTS5 table: the store,
    the raw table and the files of the largest size, and its import's (wall, CPU) ratio to the
    bare insert's (None when a kept store was reused)."""

    print("== import (each in its own process)")
    print(f"{'lines':>10} {'store s':>9} {'CPU s':>7} {'RSS MB':>7} {'us/line':>8} {'raw FTS5 s':>11} "
          f"{'raw CPU s':>9} {'raw RSS MB':>10}  x raw (CPU)   store MB")
    store = raw = folder / "none"
    files: list[Path] = []
    import_ratio: tuple[float, float] | None = None
    for size in sizes:
        data = folder / f"data-{size}"
        store, raw = folder / f"store-{size}.db", folder / f"raw-{size}.db"
        kept = _kept_data(data, size) if keep else None
        if kept is None:
            data.mkdir(exist_ok=keep)
            files = generate(data, size)
            (data / "complete").touch()
            store.unlink(missing_ok=True)
            raw.unlink(missing_ok=True)
        else:
            files = kept
        if keep and store.is_file() and raw.is_file() and _current(store):
            print(f"{size:>10,} {'kept':>9}{'':>58}  {store.stat().st_size / 1e6:>8.0f}")
            import_ratio = None
            continue
        store.unlink(missing_ok=True)
        raw.unlink(missing_ok=True)
        wall, cpu, rss, output = _child([sys.executable, "-m", "core", "logs", "import", *map(str, files),
                                          "--store", str(store), "--json"])
        entries = json.loads(output)["entries"]
        raw_wall, raw_cpu, raw_rss, _ = _child([sys.executable, "-c", _RAW_IMPORT, str(raw), *map(str, files)])
        print(f"{entries:>10,} {wall:>9.1f} {cpu:>7.1f} {rss:>7.0f} {wall / entries * 1e6:>8.1f} "
              f"{raw_wall:>11.1f} {raw_cpu:>9.1f} {raw_rss:>10.0f}  {wall / raw_wall:4.2f}x ({cpu / raw_cpu:4.2f}x)"
              f"  {store.stat().st_size / 1e6:>8.0f}")
        import_ratio = (wall / raw_wall, cpu / raw_cpu)
    return store, raw, files, import_ratio


def bench_queries(store_path: Path, raw_path: Path, runs: int) -> dict[str, float]:
    """Each query's median against raw FTS5's and the same terms' (ours / theirs), by query."""
    store = LogStore.open(store_path)
    raw = sqlite3.connect(raw_path)
    merged = sqlite3.connect(_merged_copy(raw_path))
    mine = sqlite3.connect(store_path)

    def ours(arguments: dict[str, Any]) -> Callable[[], object]:
        return lambda: store.query_logs(QueryLogsArgs(**arguments))

    def raw_query(expression: str, service: str | None = None,
                  connection: sqlite3.Connection = raw) -> Callable[[], object]:
        sql = "SELECT rowid, line FROM raw WHERE raw MATCH ?"
        params: tuple[object, ...] = (expression,)
        if service:
            sql += " AND service = ?"
            params += (service,)
        return lambda: connection.execute(sql + " ORDER BY rank LIMIT 20", params).fetchall()

    def same_expression(expression: str | None) -> Callable[[], object]:
        if expression is None:
            return lambda: None
        return lambda: mine.execute("SELECT rowid FROM lines_fts WHERE lines_fts MATCH ? ORDER BY rank LIMIT 20",
                                    (expression,)).fetchall()

    def raw_same_terms(expression: str | None, service: str | None) -> Callable[[], object]:
        """Raw FTS5 ranking the lines ours must rank: the store's own expression (its column
        filter dropped: the bare table has one column), so a word also matches inside longer
        tokens (``container`` in ``rmcontainerallocator``) as in ``query_logs``."""
        if expression is None:
            return lambda: None
        return raw_query(expression.replace("{body meta}: ", ""), service)

    cases: list[tuple[str, dict[str, Any], str, str | None]] = [
        ("rare id", {"query": RARE_ID}, '"txn 7f3a9c21e4"', None),
        ("common word", {"query": "container"}, "container", None),
        ("service-filtered", {"service": "hadoop-b", "query": "container"}, "container", "hadoop-b"),
        ("ask-like: service + ERROR", {"service": "hadoop-c", "level": "ERROR"}, "error", "hadoop-c"),
        ("phrase", {"terms": ["ERROR IN CONTACTING RM"]}, '"error in contacting rm"', None),
    ]
    print(f"\n== query_logs on {store.stats()['lines']:,} lines (warm; median / p95 ms over {runs} runs)")
    print("(raw FTS5: the bare table, its own tokens, as inserted; raw merged: the same table after FTS5\n"
          " 'optimize' (one segment, as the store merges its index at import); raw same terms: the bare table,\n"
          " the store's terms, so the lines ours ranks; same MATCH: the store's expression on the store's index,\n"
          " ranked, not counted)")
    print(f"{'query':<28} {'total':>8} {'ours':>16} {'raw FTS5':>16} {'raw merged':>16} {'raw same terms':>16} "
          f"{'same MATCH':>16}  ours vs raw FTS5 / vs raw merged / vs raw same terms / vs same MATCH")
    kept: dict[str, float] = {}
    for name, arguments, expression, service in cases:
        result, served = store.query_logs(QueryLogsArgs(**arguments))
        request = served["search"]
        timings = interleaved([ours(arguments), raw_query(expression, service),
                               raw_query(expression, service, merged),
                               raw_same_terms(request["fts"], service), same_expression(request["fts"])], runs)
        shown = [f"{t.median:7.1f} /{t.p95:7.1f}" for t in timings]
        if request["fts"] is None:
            shown[3] = shown[4] = f"{'(no MATCH)':>16}"
        same = [ratio(t.median, timings[0].median) if request["fts"] is not None else "-" for t in timings[3:]]
        print(f"{name:<28} {result.total:>8,} {shown[0]:>16} {shown[1]:>16} {shown[2]:>16} {shown[3]:>16} "
              f"{shown[4]:>16}  {ratio(timings[1].median, timings[0].median)} / "
              f"{ratio(timings[2].median, timings[0].median)} / {same[0]} / {same[1]}")
        kept[f"logstore.query.{name.split(':')[0].replace(' ', '_')}_vs_raw"] = timings[0].median / timings[1].median
        kept[f"logstore.query.{name.split(':')[0].replace(' ', '_')}_ms"] = timings[0].median
    store.close()
    return kept


COLD_QUERIES = (("rare id", RARE_ID), ("common word", "container"))


def bench_cold(store_path: Path, raw_path: Path, files: list[Path], runs: int) -> dict[str, tuple[float, float]]:
    """A cold CLI query (``superbiz logs query``, a fresh process each run) of the rare id and of a
    common word, against ``grep -ci`` of the same text over the raw files and a fresh Python
    process running the raw FTS5 query, interleaved; returns each query's (wall, CPU) ratio to
    grep's (medians)."""
    print(f"\n== cold CLI query (a fresh process each run; medians of {runs}, interleaved with grep -ci; "
          "wall ms / CPU ms)")
    ratios: dict[str, tuple[float, float]] = {}
    for name, text in COLD_QUERIES:
        expression = '"' + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + '"'
        commands = [[sys.executable, "-m", "core", "logs", "query", text, "--store", str(store_path), "--json"],
                    [sys.executable, "-c", _RAW_QUERY, str(raw_path), expression],
                    ["grep", "-ci", text, *map(str, files)]]
        for command in commands:  # once untimed: the files in the page cache for all alike
            _child(command)
        walls: list[list[float]] = [[] for _ in commands]
        cpus: list[list[float]] = [[] for _ in commands]
        for _ in range(runs):
            for index, command in enumerate(commands):
                wall, cpu, _, _ = _child(command)
                walls[index].append(wall * 1000)
                cpus[index].append(cpu * 1000)
        (ours, raw, grep), (ours_cpu, raw_cpu, grep_cpu) = ([statistics.median(v) for v in walls],
                                                             [statistics.median(v) for v in cpus])
        ratios[name] = (ours / grep, ours_cpu / grep_cpu)
        print(f"{name:<12} superbiz logs query {ours:6.0f} / {ours_cpu:4.0f}   python + raw FTS5 {raw:6.0f} / "
              f"{raw_cpu:4.0f}   grep -ci {grep:6.0f} / {grep_cpu:4.0f}   -> {ours / grep:.2f}x grep -ci "
              f"(CPU {ours_cpu / grep_cpu:.2f}x)")
    return ratios


def _merged_copy(raw_path: Path) -> Path:
    """A copy of the raw table with its FTS5 segments merged into one (kept beside it)."""
    merged = raw_path.with_name(raw_path.stem + "-merged.db")
    if not merged.is_file() or merged.stat().st_mtime < raw_path.stat().st_mtime:
        shutil.copyfile(raw_path, merged)
        connection = sqlite3.connect(merged)
        connection.execute("INSERT INTO raw (raw) VALUES ('optimize')")
        connection.commit()
        connection.close()
    return merged


def _fetch(connection: sqlite3.Connection, sql: str, *params: object) -> Callable[[], object]:
    return lambda: connection.execute(sql, params).fetchall()


def bench_chinese(folder: Path, lines: int, runs: int) -> dict[str, float]:
    """Chinese substrings of 1-4 characters: the store (FTS5 terms + vocabulary) against a
    LIKE scan and a trigram FTS5 index (which cannot look up fewer than 3 characters)."""
    import random

    from core.packs import load_pack
    from core.sources.logimport import import_files

    demo = load_pack("demo")
    rng = random.Random(7)
    path = folder / "chinese.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(lines):
            entry = demo.logs[i % len(demo.logs)]
            message = re.sub(r"\d+", lambda _: str(rng.randrange(10_000)), entry.message)
            handle.write(json.dumps({"timestamp": f"2026-07-08T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:"
                                                  f"{i % 60:02d}+08:00", "level": entry.level,
                                     "service": entry.service, "message": message}, ensure_ascii=False) + "\n")
    store_path = folder / "chinese.db"
    for stale in (store_path, folder / "chinese-raw.db"):  # rebuilt each run (small), kept or not
        stale.unlink(missing_ok=True)
    import_files([path], store_path)
    store = LogStore.open(store_path)
    raw = sqlite3.connect(folder / "chinese-raw.db")
    raw.execute("CREATE VIRTUAL TABLE tri USING fts5(line, tokenize='trigram')")
    raw.execute("CREATE TABLE plain (line TEXT)")
    with path.open(encoding="utf-8") as handle:
        texts = [(json.loads(line)["message"],) for line in handle]
    raw.executemany("INSERT INTO tri (line) VALUES (?)", texts)
    raw.executemany("INSERT INTO plain (line) VALUES (?)", texts)
    raw.commit()
    print(f"\n== Chinese substrings on {lines:,} lines (median / p95 ms over {runs} runs)")
    print(f"{'substring':<12} {'total':>7} {'ours':>16} {'LIKE scan':>16} {'trigram FTS5':>16}  ours vs scan")
    versus_scan: list[float] = []
    for needle in ("慢", "耗时", "使用率", "内存使用率过高"):
        arguments = {"terms": [needle]} if len(needle) == 1 else {"query": needle}
        result, _ = store.query_logs(QueryLogsArgs(**arguments))
        trigram = (_fetch(raw, "SELECT count(*) FROM tri WHERE tri MATCH ?", f'"{needle}"')
                   if len(needle) >= 3 else (lambda: None))
        timings = interleaved([partial(store.query_logs, QueryLogsArgs(**arguments)),
                               _fetch(raw, "SELECT count(*) FROM plain WHERE line LIKE ?", f"%{needle}%"),
                               trigram], runs)
        shown = [f"{t.median:7.1f} /{t.p95:7.1f}" for t in timings]
        if len(needle) < 3:
            shown[2] = "(needs 3 chars)"
        print(f"{needle:<12} {result.total:>7,} {shown[0]:>16} {shown[1]:>16} {shown[2]:>16}  "
              f"{ratio(timings[1].median, timings[0].median)}")
        versus_scan.append(timings[1].median / timings[0].median)
    store.close()
    return {"logstore.chinese_lines": float(lines), "logstore.chinese_scan_vs_ours_low": min(versus_scan),
            "logstore.chinese_scan_vs_ours_high": max(versus_scan)}


SECTIONS = ("import", "queries", "cold", "chinese")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000,
                        help="lines to import (default 100,000 for a quick run; the targets are at 1,000,000)")
    parser.add_argument("--sizes", default=None, help="several sizes, comma-separated (instead of --lines)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"sections to run, comma-separated, of {', '.join(SECTIONS)} (the import always runs)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the data and stores in this folder, keep them, reuse them next run")
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row, with the size)")
    args = parser.parse_args()
    if not SAMPLE.is_file():
        print(f"skipped: {SAMPLE} not found (the loghub samples live in ../shared/corpora)")
        return
    sizes = [int(size) for size in args.sizes.split(",")] if args.sizes else [args.lines]
    sections = set(args.only.split(","))
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        kept = run(args.keep, sizes, args.runs, sections, keep=True)
    else:
        with tempfile.TemporaryDirectory() as folder:
            kept = run(Path(folder), sizes, args.runs, sections, keep=False)
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, kept)


def run(folder: Path, sizes: list[int], runs: int, sections: set[str], keep: bool) -> dict[str, float]:
    """The sections asked for; the figures kept for ``--figures`` (the size measured among them)."""
    kept: dict[str, float] = {"logstore.lines": float(max(sizes))}
    store, raw, files, import_ratio = bench_imports(folder, sizes, keep)
    if "queries" in sections:
        kept.update(bench_queries(store, raw, runs))
    cold = bench_cold(store, raw, files, max(3, runs // 3)) if "cold" in sections else {}
    if "chinese" in sections:
        kept.update(bench_chinese(folder, min(max(sizes), 100_000), runs))
    if import_ratio is not None:
        kept["logstore.import_vs_raw"], kept["logstore.import_cpu_vs_raw"] = import_ratio
    if import_ratio is None:
        print(f"\n== at {max(sizes):,} lines: import kept, not measured")
    else:
        print(f"\n== at {max(sizes):,} lines: import {import_ratio[0]:.2f}x a bare FTS5 insert (target <= 4x; "
              f"CPU {import_ratio[1]:.2f}x)")
    for name, (wall, cpu) in cold.items():
        print(f"   cold CLI query, {name}: {wall:.2f}x grep -ci (target <= 3x; CPU {cpu:.2f}x)")
        kept[f"logstore.cold.{name.replace(' ', '_')}_vs_grep"] = wall
    return kept


if __name__ == "__main__":
    main()
