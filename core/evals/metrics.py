"""Run-level metrics of an eval run, computed from its case outcomes.

- ``case_pass_rate``: passed cases / all cases.
- ``verdict_accuracy``: over cases that expect a verdict; correct when the actual verdict is the
  expected one (or one of the listed ones). A case with no verdict (error) counts as wrong.
- ``verdict_confusion``: expected label -> actual label -> count. The expected label is the
  verdict, or the listed verdicts joined with ``|`` (``LOW_CONFID|REJECT``); the actual label is
  the verdict, or ``ERROR`` when the session produced none.
- ``citation_precision``: bindings the gatekeeper passed / bindings it checked, over every
  session of the run (fault cases included, so injected faults lower it on purpose);
  ``citation_precision_without_faults`` is the same over cases with no ``executor_fault``.
- ``citation_recall``: expected evidence tools (``expect.evidence_tools``) cited by a passing
  binding / expected evidence tools, summed over cases.
- ``forbidden_leaks``: cases whose ``forbidden`` expectation failed, and how many
  (term, place) occurrences were found.
- ``fault_catch_rate``: per fault mode, cases whose session completed with a verdict other than
  PASS / cases run with that fault.
- ``pass_precision``: cases whose case passed / cases whose session's verdict was PASS. A PASS on
  a case that failed its expectations is a *wrong PASS*, the worst outcome the product can have;
  ``wrong_pass`` names those cases.
- ``false_absence_rate``: over cases that expect ``outcome: found``, those whose session's outcome
  was ``absent`` (a "nothing found" where the case says there is something). Only the outcome key
  says a case expects a finding: ``evidence_tools`` and ``answer_includes`` also hold for a
  verified absence (a passing negative observation cites its tool), so they do not count.
- ``known_gaps``: cases marked ``known_gap`` (the engine does not give the true answer yet) that
  failed without saying PASS; they do not fail the run. ``gaps_closed``: marked cases that passed
  (the mark can go). A marked case the session said PASS to is a wrong PASS like any other.
- ``amber_on_answerable``: per expected outcome (``found``, ``absent``), cases whose session's
  verdict was LOW_CONFID -- a true yes or no the product answered "cannot tell".
- ``latency_ms``: per-case wall time (median, p95 by nearest rank, mean, max).
- Also totals, expectation keys that failed, gatekeeper failed rules, and pass rate per tag.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from core.evals.results import CaseOutcome

NO_VERDICT_LABEL = "ERROR"


class Ratio(BaseModel):
    """``hits / total`` with both counts; ``value`` is None when nothing was counted."""

    value: float | None
    hits: int
    total: int

    @classmethod
    def of(cls, hits: int, total: int) -> Ratio:
        """The ratio, rounded to 4 places."""
        return cls(value=round(hits / total, 4) if total else None, hits=hits, total=total)


class LeakSummary(BaseModel):
    """Cases where forbidden content reached a claim or the answer."""

    count: int
    occurrences: int
    cases: list[str] = Field(default_factory=list)


class WrongPassSummary(BaseModel):
    """Cases whose session said PASS but whose expectations failed."""

    count: int
    cases: list[str] = Field(default_factory=list)


class CaseList(BaseModel):
    """A count of cases and their ids."""

    count: int
    cases: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, cases: list[str]) -> CaseList:
        """The list with its count."""
        return cls(count=len(cases), cases=cases)


class LatencySummary(BaseModel):
    """Per-case wall time in milliseconds."""

    median: float | None
    p95: float | None
    mean: float | None
    max: float | None


class RunMetrics(BaseModel):
    """Every metric of one run (see the module docstring for definitions)."""

    total: int
    passed: int
    failed: int
    errored: int
    case_pass_rate: float | None
    verdict_accuracy: Ratio
    verdict_confusion: dict[str, dict[str, int]]
    citation_precision: Ratio
    citation_precision_without_faults: Ratio
    citation_recall: Ratio
    forbidden_leaks: LeakSummary
    pass_precision: Ratio
    wrong_pass: WrongPassSummary
    false_absence_rate: Ratio
    known_gaps: CaseList = Field(default_factory=lambda: CaseList.of([]))
    gaps_closed: CaseList = Field(default_factory=lambda: CaseList.of([]))
    amber_on_answerable: dict[str, Ratio] = Field(default_factory=dict)
    fault_catch_rate: dict[str, Ratio]
    latency_ms: LatencySummary
    failed_expectations: dict[str, int]
    gatekeeper_failed_rules: dict[str, int]
    pass_rate_by_tag: dict[str, Ratio]


def verdict_label(verdicts: Sequence[str]) -> str:
    """The confusion-matrix label of an expected verdict list: ``PASS`` or ``LOW_CONFID|REJECT``."""
    return "|".join(verdicts)


def percentile_nearest_rank(values: Sequence[float], percent: float) -> float | None:
    """The nearest-rank percentile: the smallest value with at least ``percent``% at or below."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def _latency(durations: list[float]) -> LatencySummary:
    if not durations:
        return LatencySummary(median=None, p95=None, mean=None, max=None)
    p95 = percentile_nearest_rank(durations, 95)
    return LatencySummary(median=round(statistics.median(durations), 3),
                          p95=round(p95, 3) if p95 is not None else None,
                          mean=round(statistics.fmean(durations), 3), max=round(max(durations), 3))


def _precision(outcomes: Sequence[CaseOutcome]) -> Ratio:
    observed = [o.observed for o in outcomes if o.observed is not None]
    return Ratio.of(sum(s.bindings_passed for s in observed), sum(s.bindings_checked for s in observed))


def pass_precision(outcomes: Sequence[CaseOutcome]) -> tuple[Ratio, WrongPassSummary]:
    """Right answers among the cases whose session said PASS, and the wrong PASS cases."""
    said_pass = [o for o in outcomes if o.observed is not None and o.observed.verdict == "PASS"]
    wrong = [o.case_id for o in said_pass if not o.passed]
    return (Ratio.of(len(said_pass) - len(wrong), len(said_pass)),
            WrongPassSummary(count=len(wrong), cases=wrong))


def false_absence_rate(outcomes: Sequence[CaseOutcome]) -> Ratio:
    """Cases expecting ``outcome: found`` whose session said ``absent`` / cases expecting it."""
    expect_found = [o for o in outcomes if o.expect.outcome == "found"]
    return Ratio.of(sum(1 for o in expect_found if o.observed and o.observed.outcome == "absent"),
                    len(expect_found))


def amber_on_answerable(outcomes: Sequence[CaseOutcome]) -> dict[str, Ratio]:
    """Per expected outcome (found, absent): cases answered LOW_CONFID / cases expecting it."""
    rates = {}
    for expected in ("found", "absent"):
        cases = [o for o in outcomes if o.expect.outcome == expected]
        if cases:
            amber = sum(1 for o in cases if o.observed and o.observed.verdict == "LOW_CONFID")
            rates[expected] = Ratio.of(amber, len(cases))
    return rates


def compute_metrics(outcomes: Sequence[CaseOutcome]) -> RunMetrics:
    """All run metrics from the outcomes (order does not matter)."""
    total = len(outcomes)
    passed = sum(1 for o in outcomes if o.outcome == "passed")
    errored = sum(1 for o in outcomes if o.outcome == "error")

    verdict_hits = verdict_total = 0
    confusion: dict[str, Counter[str]] = {}
    recall_hits = recall_total = 0
    leak_cases: list[str] = []
    leak_occurrences = 0
    faults: dict[str, list[bool]] = {}
    failed_keys: Counter[str] = Counter()
    failed_rules: Counter[str] = Counter()
    by_tag: dict[str, list[bool]] = {}

    for outcome in outcomes:
        seen = outcome.observed
        actual_verdict = seen.verdict if seen else None
        expected_verdicts = outcome.expect.verdict
        if expected_verdicts:
            verdict_total += 1
            verdict_hits += actual_verdict in expected_verdicts
            row = confusion.setdefault(verdict_label(expected_verdicts), Counter())
            row[actual_verdict or NO_VERDICT_LABEL] += 1
        for tool in outcome.expect.evidence_tools or []:
            recall_total += 1
            recall_hits += bool(seen and tool in seen.evidence_tools)
        for failure in outcome.failures:
            failed_keys[failure.key] += 1
            if failure.key == "forbidden":
                leak_cases.append(outcome.case_id)
                leak_occurrences += len(failure.actual) if isinstance(failure.actual, list) else 1
        if outcome.executor_fault:
            caught = actual_verdict is not None and actual_verdict != "PASS"
            faults.setdefault(outcome.executor_fault, []).append(caught)
        if seen:
            failed_rules.update(seen.failed_rules)
        for tag in outcome.tags:
            by_tag.setdefault(tag, []).append(outcome.passed)

    precision, wrong_pass = pass_precision(outcomes)
    return RunMetrics(
        total=total, passed=passed, failed=total - passed, errored=errored,
        case_pass_rate=round(passed / total, 4) if total else None,
        verdict_accuracy=Ratio.of(verdict_hits, verdict_total),
        verdict_confusion={label: dict(sorted(row.items())) for label, row in sorted(confusion.items())},
        citation_precision=_precision(outcomes),
        citation_precision_without_faults=_precision([o for o in outcomes if not o.executor_fault]),
        citation_recall=Ratio.of(recall_hits, recall_total),
        forbidden_leaks=LeakSummary(count=len(leak_cases), occurrences=leak_occurrences,
                                    cases=leak_cases),
        pass_precision=precision, wrong_pass=wrong_pass,
        false_absence_rate=false_absence_rate(outcomes),
        known_gaps=CaseList.of([o.case_id for o in outcomes if o.tolerated_gap]),
        gaps_closed=CaseList.of([o.case_id for o in outcomes if o.known_gap and o.passed]),
        amber_on_answerable=amber_on_answerable(outcomes),
        fault_catch_rate={mode: Ratio.of(sum(hits), len(hits)) for mode, hits in sorted(faults.items())},
        latency_ms=_latency([o.duration_ms for o in outcomes]),
        failed_expectations=dict(failed_keys.most_common()),
        gatekeeper_failed_rules=dict(failed_rules.most_common()),
        pass_rate_by_tag={tag: Ratio.of(sum(hits), len(hits)) for tag, hits in sorted(by_tag.items())},
    )
