"""The human-readable report of a run: a table of cases, each failed expectation with the
actual value under its case, then the run's metrics."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from core.evals.metrics import Ratio, RunMetrics
from core.evals.results import CaseOutcome, EvalRun

MAX_VALUE_CHARS = 160
RESULT_LABEL = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}


def display_width(text: str) -> int:
    """Terminal columns of text: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - display_width(text))


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS - 1] + "…"


def expected_summary(outcome: CaseOutcome) -> str:
    """The headline expectations of a case: verdict and gatekeeper grade, plus a key count."""
    expect = outcome.expect.as_dict()
    parts = []
    if "verdict" in expect:
        parts.append("|".join(expect.pop("verdict")))
    gate = [str(expect.pop(key)) for key in ("gatekeeper_status", "gatekeeper_severity") if key in expect]
    if gate:
        parts.append("gk=" + "/".join(gate))
    if expect:
        parts.append(f"+{len(expect)} keys")
    return " ".join(parts) or "-"


def actual_summary(outcome: CaseOutcome) -> str:
    """What happened: verdict, gatekeeper status/severity and the number of claims."""
    seen = outcome.observed
    if seen is None:
        return "no session" if outcome.session_id is None else "error"
    gate = "/".join(str(v) for v in (seen.gatekeeper_status, seen.gatekeeper_severity) if v)
    return f"{seen.verdict or seen.status} gk={gate or '-'} claims={seen.claim_count}"


def render_table(outcomes: list[CaseOutcome]) -> str:
    """One row per case (case, result, expected, actual, ms); failures indented below a row."""
    header = ("case", "result", "expected", "actual", "ms")
    rows = [(o.case_id, "GAP" if o.tolerated_gap else RESULT_LABEL[o.outcome], expected_summary(o), actual_summary(o),
             f"{o.duration_ms:.0f}") for o in outcomes]
    widths = [max(display_width(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(_pad(cell, widths[i]) for i, cell in enumerate(header)).rstrip(),
             "  ".join("-" * width for width in widths)]
    for outcome, row in zip(outcomes, rows, strict=True):
        lines.append("  ".join(_pad(cell, widths[i]) for i, cell in enumerate(row)).rstrip())
        for failure in outcome.failures:
            lines.append(f"    x {failure.key}: expected {_short(failure.expected)}, "
                         f"actual {_short(failure.actual)}")
        if outcome.error:
            lines.append(f"    x error: {_short(outcome.error)}")
    return "\n".join(lines)


def _ratio(ratio: Ratio) -> str:
    if ratio.value is None:
        return "n/a"
    return f"{ratio.value:.1%} ({ratio.hits}/{ratio.total})"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} ms"


def _wrong_pass(metrics: RunMetrics) -> str:
    wrong = metrics.wrong_pass
    return f"{wrong.count} ({', '.join(wrong.cases)})" if wrong.count else "none"


def _false_absences(rate: Ratio) -> str:
    if not rate.total:
        return "n/a (no case expects outcome: found)"
    return f"{_ratio(rate)} of cases expecting outcome: found"


def _gap_lines(metrics: RunMetrics) -> list[str]:
    """Known gaps and amber answers to answerable cases, when the run has any."""
    lines = []
    if metrics.known_gaps.count or metrics.gaps_closed.count:
        lines.append(f"known gaps       {metrics.known_gaps.count} still open"
                     + (f" ({', '.join(metrics.known_gaps.cases)})" if metrics.known_gaps.cases else "")
                     + f", {metrics.gaps_closed.count} closed"
                     + (f" ({', '.join(metrics.gaps_closed.cases)})" if metrics.gaps_closed.cases else ""))
    if metrics.amber_on_answerable:
        lines.append("amber answers    " + ", ".join(
            f"{_ratio(ratio)} of outcome: {expected}"
            for expected, ratio in metrics.amber_on_answerable.items()))
    return lines


def render_metrics(metrics: RunMetrics) -> str:
    """The run's metrics as short labelled lines; PASS precision and false absences right under
    the pass rate (a wrong PASS is the worst outcome the product can have)."""
    latency = metrics.latency_ms
    lines = [
        f"cases            {metrics.passed}/{metrics.total} passed, {metrics.failed} failed "
        f"({metrics.errored} errors)",
        f"PASS precision   {_ratio(metrics.pass_precision)}, wrong PASS: {_wrong_pass(metrics)}",
        f"false absences   {_false_absences(metrics.false_absence_rate)}",
        f"verdict accuracy {_ratio(metrics.verdict_accuracy)}",
        *_gap_lines(metrics),
        f"citation prec.   {_ratio(metrics.citation_precision)} all, "
        f"{_ratio(metrics.citation_precision_without_faults)} without faults",
        f"citation recall  {_ratio(metrics.citation_recall)}",
        f"forbidden leaks  {metrics.forbidden_leaks.count}"
        + (f" ({', '.join(metrics.forbidden_leaks.cases)})" if metrics.forbidden_leaks.cases else ""),
        f"latency          median {_ms(latency.median)}, p95 {_ms(latency.p95)}",
    ]
    if metrics.fault_catch_rate:
        caught = ", ".join(f"{mode} {_ratio(r)}" for mode, r in metrics.fault_catch_rate.items())
        lines.append(f"faults caught    {caught}")
    if metrics.verdict_confusion:
        confusion = "; ".join(f"{expected} -> " + ", ".join(f"{a}:{n}" for a, n in row.items())
                              for expected, row in metrics.verdict_confusion.items())
        lines.append(f"verdicts         {confusion}")
    return "\n".join(lines)


def render_report(run: EvalRun) -> str:
    """Table, then metrics, then the run id (to find it in the store and the console)."""
    return "\n".join([render_table(run.outcomes), "", render_metrics(run.metrics), "",
                      f"run {run.run_id} ({run.suite}): {run.passed}/{run.total} passed "
                      f"in {run.duration_ms / 1000:.2f}s"])
