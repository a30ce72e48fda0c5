"""Benchmark: the Sessions page on 100,000 stored sessions, against raw sqlite3 in the same run.

Builds a temporary SQLite store (the real schema, ``open_store``) and bulk-inserts
``--sessions`` sessions with SQLAlchemy Core in batches. Rows are realistic because they are
real: the offline pipeline answers a few dozen questions (services x topics, Chinese and
English, every executor fault) and each stored session is one of those documents under a new
id and time — its verdict, gatekeeper severity, failed rules, engines, fault, answer, timings
and full JSON (plan, executor output, self-evaluation, composer output), plus its tool
invocations with their full outputs. ~80% run without a fault (the faults from common to
rare, so one failed rule is rare), a few are errors or still running, and five ask about a
service nothing else mentions (a rare search).

Then times what the Sessions page does per filter: ``repository.count_sessions`` and
``repository.list_sessions(limit=200)`` unfiltered and by verdict, gatekeeper severity, failed
rule (a common and a rare one) and search text (a common word, a rare service, a session-id
fragment), and ``load_session_document`` of one session. The baseline, on its own ``sqlite3``
connection to the same file: ``SELECT id, created_at, question, verdict FROM sessions [WHERE
...] ORDER BY created_at DESC LIMIT 200``, the matching ``SELECT count(*)``, and for the
document the session row plus its invocations. Ratios are baseline time / repository time
(under 1: the repository is slower than the raw query). No assertions.

    .venv/bin/python bench/sessions.py [--sessions 100000] [--runs 15] [--figures PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# _common first: it puts the repository root on sys.path for ``core``.
from _common import Timing, interleaved, pad, ratio, timed
from sqlalchemy import DateTime, column, insert, table

from core.agents.faults import FAULT_MODES
from core.contracts import SessionDocument
from core.pipeline import ask
from core.store import Store, open_store, repository
from core.store.repository import SessionQuery

SERVICES = ("order-service", "payment-service", "user-service", "inventory-service",
            "gateway-service")
SUBJECTS_ZH = ("CPU 使用率过高告警", "HighMemoryUsage 告警", "HikariCP 连接池耗尽", "慢请求日志",
               "Redis 超时", "消息队列积压", "磁盘使用率过高")
SUBJECTS_EN = ("a HighCPUUsage alert", "a HighMemoryUsage alert",
               "HikariCP connection pool exhaustion", "slow request logs", "Redis timeouts")
RARE_SERVICE = "ledger-service"  # asked about by RARE_COPIES sessions only
RARE_COPIES = 5
FAULT_SHARE = 0.2
BATCH = 2000
START = datetime(2026, 4, 1, tzinfo=UTC)
SPAN = timedelta(days=90)


def template_documents() -> tuple[list[SessionDocument], list[SessionDocument], SessionDocument]:
    """Real session documents from the offline pipeline: (no fault, with a fault, rare)."""
    questions = [f"只确认 {s} 是否存在{t}" for s in SERVICES for t in SUBJECTS_ZH]
    questions += [f"Only confirm whether {s} has {t}." for s in SERVICES for t in SUBJECTS_EN]
    clean = [ask(question) for question in questions]
    faulty = [ask(question, executor_fault=fault)
              for index, fault in enumerate(FAULT_MODES)
              for question in questions[index::len(FAULT_MODES)][:3]]
    rare = ask(f"只确认 {RARE_SERVICE} 是否存在磁盘使用率过高告警")
    return clean, faulty, rare


@dataclass(frozen=True)
class Template:
    """One document as ready-to-insert column values (JSON serialised once, not per row)."""

    session: dict[str, Any]
    invocations: list[dict[str, Any]]


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def to_template(document: SessionDocument) -> Template:
    """The ``sessions`` and ``tool_invocations`` column values of a document, as the repository
    writes them (same JSON shapes, same comma-wrapped failed rules)."""
    data = document.model_dump(mode="json")
    gate, verdict = document.gatekeeper_result, document.verifier_result
    evaluation = {"verifier_evaluation": {"gatekeeper_result": data["gatekeeper_result"],
                                          "tool_trace_summary": data["tool_trace_summary"],
                                          "verifier_result": data["verifier_result"]}}
    composer = document.composer_output
    session = {
        "question": document.question, "pack": document.pack, "engines": _json(document.engines),
        "executor_fault": document.executor_fault, "status": document.status,
        "verdict": verdict.verdict if verdict else None,
        "groundedness": verdict.groundedness_score if verdict else None,
        "gatekeeper_status": gate.status if gate else None,
        "gatekeeper_severity": gate.severity if gate else None,
        "failed_rules": f",{','.join(gate.failed_rules)}," if gate and gate.failed_rules else "",
        "language": document.plan.language if document.plan else None,
        "answer": composer.user_facing_answer if composer else None,
        "duration_ms": document.timings_ms.get("total"), "error": document.error,
        "plan": _json(data["plan"]), "executor_output": _json(data["executor_output"]),
        "parse_status": _json(data["executor_output_parse_status"]),
        "self_evaluation": _json(evaluation), "composer_output": _json(data["composer_output"]),
        "timings_ms": _json(document.timings_ms),
    }
    invocations = [{
        "tool_name": item.tool_name, "arguments": _json(item.arguments),
        "output": _json(item.output), "duration_ms": item.duration_ms,
        "retrieval_details": _json(item.retrieval_details.model_dump(mode="json")
                                   if item.retrieval_details else None),
        "evidence_status": item.retrieval_details.evidence_status
        if item.retrieval_details else None,
    } for item in document.invocations]
    return Template(session, invocations)


def _unfinished(template: Template, status: str) -> Template:
    """A crashed ("error") or still running session: no verdict, no answer, no evaluation."""
    cleared = dict.fromkeys(("verdict", "groundedness", "gatekeeper_status",
                             "gatekeeper_severity", "answer", "self_evaluation",
                             "composer_output", "duration_ms"))
    error = "EngineError: planner endpoint timed out" if status == "error" else None
    return Template({**template.session, **cleared, "status": status, "failed_rules": "",
                     "error": error}, template.invocations[:1])


# Lightweight Core tables: JSON columns untyped so the pre-serialised text goes in as is.
_SESSIONS = table("sessions", *(column(name) for name in (
    "id", "question", "pack", "engines", "executor_fault", "status", "verdict", "groundedness",
    "gatekeeper_status", "gatekeeper_severity", "failed_rules", "language", "answer",
    "duration_ms", "error", "plan", "executor_output", "parse_status", "self_evaluation",
    "composer_output", "timings_ms")), column("created_at", DateTime))
_INVOCATIONS = table("tool_invocations", *(column(name) for name in (
    "session_id", "tool_name", "arguments", "output", "retrieval_details", "evidence_status",
    "duration_ms")), column("created_at", DateTime))


def generated_rows(count: int, seed: int) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """``count`` (session row, invocation rows), in time order, drawn from real templates."""
    rng = random.Random(seed)
    clean, faulty, rare = template_documents()
    clean_t, faulty_t = [to_template(d) for d in clean], [to_template(d) for d in faulty]
    rare_t = to_template(rare)
    # Fault modes from common to rare (each 0.6x the one before), so some rule is rare.
    modes = list(dict.fromkeys(d.executor_fault for d in faulty))
    fault_weights = [0.6 ** modes.index(d.executor_fault) for d in faulty]
    rare_at = set(rng.sample(range(count), k=min(RARE_COPIES, count)))
    step = SPAN / max(count, 1)
    for index in range(count):
        created = START + step * index + timedelta(milliseconds=rng.randint(0, 999))
        if index in rare_at:
            template = rare_t
        elif rng.random() < FAULT_SHARE:
            template = rng.choices(faulty_t, weights=fault_weights)[0]
        else:
            template = rng.choice(clean_t)
        roll = rng.random()
        if roll < 0.02:
            template = _unfinished(template, "error")
        elif roll < 0.025:
            template = _unfinished(template, "running")
        # A bijection of the index keeps ids unique and looking random (pipeline.new_session_id).
        session_id = f"s-{created:%Y%m%d-%H%M%S}-{(index * 2654435761) % 2**24:06x}"
        session = {**template.session, "id": session_id, "created_at": created}
        invocations = [{**item, "session_id": session_id, "created_at": created}
                       for item in template.invocations]
        yield session, invocations


def fill_store(store: Store, count: int, seed: int) -> tuple[int, Counter[str]]:
    """Insert ``count`` sessions, one transaction per batch (so the WAL is checkpointed as it
    goes); (invocations inserted, sessions per failed rule)."""
    invocation_count = 0
    rules: Counter[str] = Counter()
    sessions: list[dict[str, Any]] = []
    invocations: list[dict[str, Any]] = []

    def flush() -> None:
        with store.engine.begin() as connection:
            connection.execute(insert(_SESSIONS), sessions)
            connection.execute(insert(_INVOCATIONS), invocations)

    for session, session_invocations in generated_rows(count, seed):
        sessions.append(session)
        invocations += session_invocations
        rules.update(rule for rule in session["failed_rules"].split(",") if rule)
        if len(sessions) >= BATCH:
            flush()
            invocation_count += len(invocations)
            sessions, invocations = [], []
    if sessions:
        flush()
        invocation_count += len(invocations)
    return invocation_count, rules


@dataclass(frozen=True)
class PageFilter:
    """One filter of the Sessions page: repository keyword arguments and the raw WHERE clause."""

    label: str
    query: SessionQuery
    where: str = ""
    params: tuple[str, ...] = ()


def page_filters(rules: Counter[str], id_fragment: str) -> list[PageFilter]:
    """Every filter the page offers, with a common and a rare value where that differs."""
    common_rule = rules.most_common(1)[0][0] if rules else "evidence.raw_path"
    rare_rule = min(rules, key=rules.__getitem__) if rules else "evidence.invocation_session"
    text_where = "WHERE question LIKE ? OR id LIKE ?"
    return [
        PageFilter("unfiltered", {}),
        PageFilter("verdict REJECT", {"verdict": "REJECT"}, "WHERE verdict = ?", ("REJECT",)),
        PageFilter("severity low_confid", {"severity": "low_confid"},
                   "WHERE gatekeeper_severity = ?", ("low_confid",)),
        *(PageFilter(f"rule {rule}", {"rule": rule}, "WHERE failed_rules LIKE ?",
                     (f"%,{rule},%",)) for rule in dict.fromkeys((common_rule, rare_rule))),
        *(PageFilter(f"text {text!r}", {"text": text}, text_where, (f"%{text}%",) * 2)
          for text in ("HikariCP", RARE_SERVICE, id_fragment)),
    ]


@dataclass(frozen=True)
class FilterFigures:
    """What one filter measured: repository vs raw, for the count and the page of 200."""

    page_filter: PageFilter
    matches: int
    count: Timing
    raw_count: Timing
    listing: Timing
    raw_listing: Timing


def _filter_operations(store: Store, raw: sqlite3.Connection,
                       page_filter: PageFilter) -> list[Callable[[], object]]:
    """The four operations of one filter: repository and raw count, repository and raw page."""
    where, params, query = page_filter.where, page_filter.params, page_filter.query
    return [
        lambda: repository.count_sessions(store, **query),
        lambda: raw.execute(f"SELECT count(*) FROM sessions {where}", params).fetchone(),
        lambda: repository.list_sessions(store, limit=200, **query),
        lambda: raw.execute(f"SELECT id, created_at, question, verdict FROM sessions {where} "
                            "ORDER BY created_at DESC LIMIT 200", params).fetchall(),
    ]


def measure_filters(store: Store, raw: sqlite3.Connection, filters: list[PageFilter],
                    runs: int) -> list[FilterFigures]:
    """Each filter: its four operations timed in turn, ``runs`` rounds (see ``interleaved``)."""
    figures = []
    for page_filter in filters:
        count, raw_count, listing, raw_listing = interleaved(
            _filter_operations(store, raw, page_filter), runs)
        matches = repository.count_sessions(store, **page_filter.query)
        figures.append(FilterFigures(page_filter, matches, count, raw_count, listing,
                                     raw_listing))
    return figures


def measure_document(store: Store, raw: sqlite3.Connection, session_id: str,
                     runs: int) -> tuple[Timing, Timing]:
    """``load_session_document`` vs the raw reads it needs (session row + its invocations)."""
    def raw_read() -> tuple[Any, list[Any]]:
        row = raw.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return row, raw.execute("SELECT * FROM tool_invocations WHERE session_id = ? ORDER BY id",
                                (session_id,)).fetchall()

    document = repository.load_session_document(store, session_id=session_id)
    if document is None or not document.invocations:
        raise SystemExit(f"session {session_id} did not load with its invocations")
    ours, baseline = interleaved(
        [lambda: repository.load_session_document(store, session_id=session_id), raw_read], runs)
    return ours, baseline


def report(figures: list[FilterFigures], document: tuple[Timing, Timing]) -> dict[str, float]:
    """One line per filter, then the document, then the slowest page; the headline figures
    returned for ``--figures``."""
    print(f"\n{'filter':34} {'matches':>8} {'count':>8} {'raw':>8} {'ratio':>6} "
          f"{'list 200':>9} {'raw':>8} {'ratio':>6} {'page':>8} {'page p95':>9}")
    for f in figures:
        page = f.count.median + f.listing.median
        print(f"{pad(f.page_filter.label, 34)} {f.matches:>8,} {f.count.median:6.2f}ms "
              f"{f.raw_count.median:6.2f}ms {f.raw_count.median / f.count.median:5.2f}x "
              f"{f.listing.median:7.2f}ms {f.raw_listing.median:6.2f}ms "
              f"{f.raw_listing.median / f.listing.median:5.2f}x {page:6.1f}ms "
              f"{f.count.p95 + f.listing.p95:7.1f}ms")
    ours, raw = document
    print(f"\nload_session_document: median {ours.median:.2f} ms, p95 {ours.p95:.2f} ms; raw row + "
          f"invocations {raw.median:.2f} ms ({ratio(raw.median, ours.median)}: the repository "
          "also validates the whole document)")
    slowest = max(figures, key=lambda f: f.count.median + f.listing.median)
    print(f"slowest page (count + list of 200): {slowest.page_filter.label}, "
          f"{slowest.count.median + slowest.listing.median:.1f} ms median")
    # The unfiltered count is near-free in SQLite: what the repository adds is its fixed cost.
    unfiltered = figures[0]
    print(f"fixed cost of a repository call (ORM session, compile, commit): "
          f"~{unfiltered.count.median - unfiltered.raw_count.median:.2f} ms; sub-ms raw queries "
          "make the ratios above small without making the page slow")
    slowest_raw = slowest.raw_count.median + slowest.raw_listing.median
    pages = [f.count.median + f.listing.median for f in figures]
    raw_pages = [f.raw_count.median + f.raw_listing.median for f in figures]
    return {"sessions.filters": float(len(figures)),
            "sessions.slowest_page_ms": slowest.count.median + slowest.listing.median,
            "sessions.slowest_page_vs_raw": (slowest.count.median + slowest.listing.median) / slowest_raw,
            "sessions.median_page_ms": statistics.median(pages),
            "sessions.median_page_vs_raw": statistics.median(
                page / raw for page, raw in zip(pages, raw_pages, strict=True)),
            "sessions.document_ms": ours.median, "sessions.document_vs_raw": ours.median / raw.median}


def main() -> int:
    """Fill a store, time the page's queries, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000, help="stored sessions")
    parser.add_argument("--runs", type=int, default=15, help="timed calls per operation")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="superbiz-bench-sessions-") as folder:
        path = Path(folder) / "bench.db"
        store = open_store(str(path))
        fill_ms, (invocation_count, rules) = timed(lambda: fill_store(store, args.sessions,
                                                                      args.seed))
        size_mb = sum(p.stat().st_size for p in Path(folder).iterdir()) / 2**20
        print(f"stored {args.sessions:,} sessions and {invocation_count:,} invocations "
              f"({size_mb:,.0f} MB) in {fill_ms / 1000:.1f} s (templates from the offline "
              "pipeline included)")
        raw = sqlite3.connect(path)
        middle = raw.execute("SELECT id FROM sessions ORDER BY created_at LIMIT 1 OFFSET ?",
                             (args.sessions // 2,)).fetchone()[0]
        filters = page_filters(rules, id_fragment=middle[-6:])
        figures = measure_filters(store, raw, filters, args.runs)
        document = measure_document(store, raw, middle, args.runs)
        print(f"{args.runs} timed runs per operation, medians; ratio = raw / repository "
              "(under 1: the repository is slower)")
        kept = report(figures, document)
        raw.close()
        store.engine.dispose()
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, {"sessions.sessions": float(args.sessions), **kept})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
