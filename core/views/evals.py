"""The Evals page: the results matrix of a run and the plotly charts over runs.

Everything is read from what the store keeps: ``eval_runs.metrics`` (``RunMetrics`` as JSON)
and ``case_results.detail`` (``CaseOutcome.to_json()``), so charts of old runs need no rerun.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from core.errors import EvalCaseError, InputError
from core.evals.cases import MAX_CASE_FILE_BYTES, EvalCase, parse_case_text
from core.inputs.text import decode_utf8
from core.store.models import CaseResultRow, EvalRunRow
from core.views.badges import Badge, gate_label
from core.views.outcomes import MEANINGS, result_label
from core.views.sessions import session_link

_GREEN, _AMBER, _RED, _BLUE = "#21c354", "#ffa421", "#ff4b4b", "#1c83e1"
TONED_COLUMNS: tuple[str, ...] = ("result", "actual", "gatekeeper")
MAX_BADGE_CASES = 5  # wrong-PASS case ids named in the badge; the matrix lists every case


def _ratio_value(metrics: Mapping[str, Any], key: str) -> float | None:
    value = metrics.get(key)
    if isinstance(value, Mapping):
        value = value.get("value")
    return float(value) if isinstance(value, (int, float)) else None


def run_label(run: EvalRunRow) -> str:
    """``07-08 11:20 · default · 12/14`` for pickers and chart axes."""
    return f"{run.created_at:%m-%d %H:%M:%S} · {run.suite or 'cases'} · {run.passed}/{run.total}"


def run_trend_rows(runs: Sequence[EvalRunRow]) -> list[dict[str, Any]]:
    """Per run (oldest first): pass rate, citation precision, verdict accuracy."""
    rows = []
    for run in runs:
        metrics = run.metrics or {}
        rows.append({"run": run_label(run), "run_id": run.id,
                     "pass rate": _ratio_value(metrics, "case_pass_rate"),
                     "citation precision": _ratio_value(metrics, "citation_precision"),
                     "verdict accuracy": _ratio_value(metrics, "verdict_accuracy")})
    return rows


def _style(figure: go.Figure, title: str, *, height: int = 320) -> go.Figure:
    figure.update_layout(title=title, height=height, margin={"l": 10, "r": 10, "t": 48, "b": 10},
                         legend={"orientation": "h", "y": -0.2})
    return figure


def suite_runs(runs: Sequence[EvalRunRow], suite: str | None) -> list[EvalRunRow]:
    """The runs of one suite (oldest first, as given): a trend compares like with like, never
    a run of the default suite with one of an uploaded file."""
    return [run for run in runs if (run.suite or "") == (suite or "")]


def trend_note(runs: Sequence[EvalRunRow], suite: str | None) -> str | None:
    """Why there is no trend yet for ``suite`` (None when its runs make one)."""
    count = len(suite_runs(runs, suite))
    if count >= 2:
        return None
    return (f"No trend yet for {suite or 'this suite'}: it has {count} run so far. Run it "
            "again to compare.")


def chart_notes(metrics: Mapping[str, Any]) -> dict[str, str]:
    """Per chart of one run (``confusion``, ``rules``, ``faults``) with nothing to draw, what to
    say instead of empty axes."""
    notes: dict[str, str] = {}
    if not metrics.get("verdict_confusion"):
        notes["confusion"] = "No verdict confusion yet: no case of this run expected a verdict."
    if not metrics.get("gatekeeper_failed_rules"):
        notes["rules"] = "No gatekeeper rule failed in this run."
    if not metrics.get("fault_catch_rate"):
        notes["faults"] = "No fault-catch rate yet: no case of this run injected a fault."
    return notes


def pass_rate_figure(runs: Sequence[EvalRunRow], suite: str | None) -> go.Figure:
    """Case pass rate and citation precision, run after run of one suite (``suite_runs``)."""
    rows = run_trend_rows(suite_runs(runs, suite))
    figure = go.Figure()
    for name, colour in (("pass rate", _GREEN), ("citation precision", _BLUE)):
        figure.add_trace(go.Scatter(x=[row["run"] for row in rows], y=[row[name] for row in rows],
                                    mode="lines+markers", name=name, line={"color": colour}))
    figure.update_yaxes(range=[0, 1.05], tickformat=".0%")
    figure.update_xaxes(type="category", showticklabels=len(rows) <= 12)
    return _style(figure, f"Pass rate and citation precision over runs of {suite or 'cases'}")


def confusion_figure(metrics: Mapping[str, Any]) -> go.Figure:
    """Expected verdict (rows) against actual verdict (columns), counts in the cells."""
    confusion: Mapping[str, Mapping[str, int]] = metrics.get("verdict_confusion") or {}
    expected = sorted(confusion)
    actual = sorted({label for row in confusion.values() for label in row})
    counts = [[int(confusion[e].get(a, 0)) for a in actual] for e in expected]
    hover = "expected %{y}<br>actual %{x}: %{z}<extra></extra>"
    figure = go.Figure(go.Heatmap(z=counts, x=actual, y=expected, colorscale="Blues",
                                  text=counts, texttemplate="%{text}", showscale=False,
                                  hovertemplate=hover))
    figure.update_xaxes(title="actual verdict", side="bottom")
    figure.update_yaxes(title="expected verdict", autorange="reversed")
    return _style(figure, "Verdict confusion")


def failed_rules_figure(metrics: Mapping[str, Any]) -> go.Figure:
    """How often each gatekeeper rule failed over the run's sessions, most frequent on top."""
    rules: Mapping[str, int] = metrics.get("gatekeeper_failed_rules") or {}
    ordered = sorted(rules.items(), key=lambda item: item[1])
    figure = go.Figure(go.Bar(x=[count for _, count in ordered], y=[name for name, _ in ordered],
                              orientation="h", marker_color=_RED, text=[c for _, c in ordered]))
    most = max(rules.values(), default=0)
    figure.update_xaxes(title="sessions", tick0=0, dtick=max(1, math.ceil(most / 5)),
                        rangemode="tozero")  # counts: whole-number ticks only
    return _style(figure, "Gatekeeper failed rules by count")


def fault_catch_figure(metrics: Mapping[str, Any]) -> go.Figure:
    """Per injected fault mode: the share of its cases that did not end in PASS."""
    modes: Mapping[str, Mapping[str, Any]] = metrics.get("fault_catch_rate") or {}
    names = sorted(modes)
    values = [float(modes[name].get("value") or 0.0) for name in names]
    labels = [f"{modes[name].get('hits', 0)}/{modes[name].get('total', 0)}" for name in names]
    colours = [_GREEN if value >= 0.999 else _AMBER if value > 0 else _RED for value in values]
    figure = go.Figure(go.Bar(x=names, y=values, text=labels, marker_color=colours))
    figure.update_yaxes(range=[0, 1.05], tickformat=".0%", title="caught")
    return _style(figure, "Fault-catch rate by mode")


def _expected_verdict(detail: Mapping[str, Any]) -> str:
    verdict = (detail.get("expected") or {}).get("verdict")
    if isinstance(verdict, list):
        return " | ".join(verdict)
    return verdict or ""


def case_matrix_rows(cases: Sequence[CaseResultRow], *,
                     only_failures: bool = False) -> list[dict[str, Any]]:
    """The results matrix: one row per case with what was expected, what happened, what failed.

    Cases that did not pass come first (they are what a person opens the page for), then by id;
    ``only_failures`` leaves the passed ones out.
    """
    rows = []
    for case in sorted(cases, key=lambda c: (c.passed, c.case_id)):
        detail = case.detail or {}
        outcome = str(detail.get("outcome") or ("passed" if case.passed else "failed"))
        actual = detail.get("actual") or {}
        failures = detail.get("failures") or []
        failed = "; ".join(f"{f.get('key')}: {f.get('message') or f.get('actual')}"
                           for f in failures)
        # What failed comes right after the case and its result: the one column a person opens
        # the matrix for stays on screen however narrow the window.
        rows.append({
            "case": case.case_id,
            "result": outcome,
            "failed expectations": failed or (detail.get("error") or ""),
            "session": session_link(case.session_id) if case.session_id else None,
            "expected verdict": _expected_verdict(detail),
            "actual": result_label(verdict=actual.get("verdict"), outcome=actual.get("outcome"),
                                   status=actual.get("status")) if actual else "",
            "gatekeeper": gate_label(actual.get("gatekeeper_severity")),
            "fault": detail.get("executor_fault") or "",
            "tags": ", ".join(case.tags),
            "question": detail.get("question") or "",
            "ms": round(case.duration_ms, 1) if case.duration_ms is not None else None,
        })
    return [row for row in rows if row["result"] != "passed"] if only_failures else rows


def _counted(metrics: Mapping[str, Any], key: str) -> str:
    """``hits/total`` of a ratio metric; ``—`` when nothing was counted or the run predates it."""
    ratio = metrics.get(key)
    if not isinstance(ratio, Mapping) or not ratio.get("total"):
        return "—"
    return f"{ratio.get('hits', 0)}/{ratio['total']}"


def headline(metrics: Mapping[str, Any]) -> dict[str, str]:
    """The few numbers shown above the charts, formatted; PASS precision and false absences
    next to the pass rate. A run stored before a metric existed shows ``—`` for it."""
    def percent(key: str) -> str:
        value = _ratio_value(metrics, key)
        return f"{value:.0%}" if value is not None else "—"

    leaks = metrics.get("forbidden_leaks") or {}
    latency = metrics.get("latency_ms") or {}
    median = latency.get("median")
    return {"pass rate": percent("case_pass_rate"),
            "PASS precision": percent("pass_precision"),
            "false absences": _counted(metrics, "false_absence_rate"),
            "verdict accuracy": percent("verdict_accuracy"),
            "citation precision": percent("citation_precision"),
            "forbidden leaks": str(leaks.get("count", 0)),
            "median latency": f"{median:.0f} ms" if isinstance(median, (int, float)) else "—"}


def wrong_pass_badge(metrics: Mapping[str, Any]) -> Badge | None:
    """A rejected-red badge naming the cases whose session said PASS but whose expectations
    failed (the worst outcome the product can have); a green one when every PASS was right.
    None when the run had no PASS, or was stored before the metric existed."""
    wrong = metrics.get("wrong_pass")
    precision = metrics.get("pass_precision")
    if not isinstance(wrong, Mapping) or not isinstance(precision, Mapping):
        return None
    cases = [str(case) for case in wrong.get("cases") or []]
    if cases:
        named = ", ".join(cases[:MAX_BADGE_CASES]) + (", …" if len(cases) > MAX_BADGE_CASES else "")
        return Badge(f"{len(cases)} wrong PASS: {named}", MEANINGS["reject"].tone, "dangerous")
    if not precision.get("total"):
        return None
    return Badge(f"no wrong PASS ({precision['total']} PASS)", MEANINGS["finding"].tone,
                 "check_circle")


def cases_from_upload(file_name: str, content: bytes) -> list[EvalCase]:
    """Cases of an uploaded YAML case file; errors name the file, the case and the key.

    Relative pack paths in an upload resolve against the folder the console was started in
    (the upload has no folder of its own).
    """
    if len(content) > MAX_CASE_FILE_BYTES:
        raise EvalCaseError(f"{file_name}: too large ({len(content):,} bytes; the limit is "
                            f"{MAX_CASE_FILE_BYTES:,})")
    try:
        text = decode_utf8(content, source=file_name)
    except InputError as exc:
        raise EvalCaseError(str(exc)) from None
    return parse_case_text(text, source=file_name, folder=Path.cwd())
