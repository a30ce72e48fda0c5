"""Benchmark: the ClickHouse log source (embedded, chdb) against the log store, in the same run.

Data: ``bench/logstore.py``'s generator (the loghub Hadoop sample repeated, each copy a day later
with its own ids, over four services, plus three lines carrying one rare transaction id), 1M
lines by default, ``--lines 10000000`` for 10M. Generated in a temporary folder; nothing kept.

Measured:

  - ingest: the files into a log store (``logs import --store``: parsing, templates, topics,
    FTS5), then that store's lines into ``otel.otel_logs`` in chdb (``logs import --to-chdb``
    is both: it reads the files exactly as for a store); lines per second of each;
  - ``query_logs`` median / p95 (warm, interleaved so machine load hits both alike): rare id,
    common word, service + level, phrase -- on the store and on the table; ClickHouse's time
    as a ratio of the store's, and the rows it read;
  - a warm ``ask`` (the CLI's pipeline in process, after a first ask) on a sources file naming
    each, the same question.

The machine is shared: compare the ratios; absolute times move with its load. No assertions.

    .venv/bin/python bench/clickhouse.py [--lines 1000000|10000000] [--runs 9] [--figures PATH]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

# _common first: it puts the repository root on sys.path for ``core``.
from _common import interleaved, ratio, timed
from logstore import RARE_ID, generate

from core.pipeline import ask
from core.sources.clickhouse import ChdbClient, ClickHouseLogs
from core.sources.clickhouse.writer import write_store
from core.sources.config import world_from_file
from core.sources.logimport import import_files
from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs

QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("rare id", {"query": RARE_ID}),
    ("common word", {"query": "container"}),
    ("service + level", {"service": "hadoop-b", "level": "ERROR"}),
    ("phrase", {"terms": ["ERROR IN CONTACTING RM"]}),
]
QUESTION = "hadoop-b 有哪些 ERROR 日志?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="lines generated (1000000 or 10000000)")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row, with the size)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-clickhouse-") as name:
        folder = Path(name)
        files = generate(folder, options.lines)
        print(f"{options.lines:,} lines over {len(files)} files")
        started = time.perf_counter()
        import_files(files, folder / "store.db")
        store_s = time.perf_counter() - started
        store = LogStore.open(folder / "store.db")
        client = ChdbClient(str(folder / "chdb"))
        with store.connection() as connection:
            chdb_ms, written = timed(lambda: write_store(connection, client, "otel", "otel_logs"))
        chdb_s = chdb_ms / 1000
        kept = {"clickhouse.lines": float(options.lines), "clickhouse.store_lines_per_s": options.lines / store_s,
                "clickhouse.chdb_rows_per_s": written / chdb_s}
        print(f"ingest: log store {options.lines / store_s:,.0f} lines/s ({store_s:.1f} s); then into chdb "
              f"{written / chdb_s:,.0f} rows/s ({chdb_s:.1f} s); logs import --to-chdb "
              f"{options.lines / (store_s + chdb_s):,.0f} lines/s")
        table = ClickHouseLogs(client, kind="chdb")
        table.facts()
        services = store.services()
        print(f"{'query':<16} {'store ms (p95)':>16} {'chdb ms (p95)':>16}  chdb vs store      rows read")
        for label, arguments in QUERIES:
            args = QueryLogsArgs(**arguments)
            on_store, on_chdb = interleaved([partial(store.query_logs, args, services),
                                             partial(table.query_logs, args, services)], options.runs)
            result, request = table.query_logs(args, services)
            kept[f"clickhouse.{label.replace(' ', '_').replace('+', 'and')}_store_vs_chdb"] = (
                on_store.median / on_chdb.median)
            read = sum(s.get("rows_read", 0) for s in request["search"]["statements"])
            print(f"{label:<16} {on_store.median:>8.1f} ({on_store.p95:>5.1f}) {on_chdb.median:>8.1f} "
                  f"({on_chdb.p95:>5.1f})  {ratio(on_store.median, on_chdb.median):<17} {read:>10,} "
                  f"(total {result.total:,})")
        for label, logs in (("store", f"{{store: {folder / 'store.db'}}}"),
                            ("chdb", f"{{clickhouse: {{path: {folder / 'chdb'}}}}}")):
            sources = folder / f"{label}.yaml"
            sources.write_text(f"name: bench-{label}\nlogs: {logs}\n", encoding="utf-8")
            world = world_from_file(sources)
            ask(QUESTION, pack=world)  # warm: vocabulary, caches
            samples = [timed(partial(ask, QUESTION, pack=world))[0] for _ in range(options.runs)]
            kept[f"clickhouse.warm_ask_{label}_ms"] = statistics.median(samples)
            print(f"warm ask on the {label}: median {statistics.median(samples):.0f} ms, max {max(samples):.0f} ms")
        store.close()
        ChdbClient.close_all()
    if options.figures is not None:
        from _common import write_figures

        write_figures(options.figures, kept)


if __name__ == "__main__":
    main()
