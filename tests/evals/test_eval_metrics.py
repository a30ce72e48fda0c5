"""Run metrics computed from synthetic case outcomes."""

from __future__ import annotations

from typing import Any

from core.evals.cases import Expectation
from core.evals.matching import ExpectationFailure, Observed
from core.evals.metrics import compute_metrics, percentile_nearest_rank
from core.evals.results import CaseOutcome


def outcome(case_id: str, *, kind: str = "passed", expect: dict[str, Any] | None = None,
            verdict: str | None = "PASS", checked: int = 0, passed_bindings: int = 0,
            tools: list[str] | None = None, fault: str | None = None, duration: float = 10.0,
            failures: list[ExpectationFailure] | None = None, tags: list[str] | None = None,
            rules: list[str] | None = None, found: str | None = None) -> CaseOutcome:
    observed = None if kind == "error" else Observed(
        status="completed", verdict=verdict, outcome=found, evidence_tools=tools or [],
        bindings_checked=checked, bindings_passed=passed_bindings, failed_rules=rules or [])
    return CaseOutcome(case_id=case_id, outcome=kind, expect=Expectation.model_validate(expect or {}),
                       observed=observed, executor_fault=fault, duration_ms=duration,
                       failures=failures or [], tags=tags or [])


def test_totals_and_pass_rate() -> None:
    metrics = compute_metrics([outcome("a"), outcome("b", kind="failed"), outcome("c", kind="error"),
                               outcome("d")])
    assert (metrics.total, metrics.passed, metrics.failed, metrics.errored) == (4, 2, 2, 1)
    assert metrics.case_pass_rate == 0.5


def test_verdict_accuracy_and_confusion_use_lists_and_count_errors_as_wrong() -> None:
    metrics = compute_metrics([
        outcome("a", expect={"verdict": "PASS"}, verdict="PASS"),
        outcome("b", expect={"verdict": "PASS"}, verdict="LOW_CONFID"),
        outcome("c", expect={"verdict": ["LOW_CONFID", "REJECT"]}, verdict="REJECT"),
        outcome("d", expect={"verdict": "REJECT"}, kind="error"),
        outcome("e", verdict="PASS"),  # no expected verdict: not counted
    ])
    assert (metrics.verdict_accuracy.hits, metrics.verdict_accuracy.total) == (2, 4)
    assert metrics.verdict_accuracy.value == 0.5
    assert metrics.verdict_confusion == {"LOW_CONFID|REJECT": {"REJECT": 1},
                                         "PASS": {"LOW_CONFID": 1, "PASS": 1},
                                         "REJECT": {"ERROR": 1}}


def test_citation_precision_over_all_bindings_and_without_faults() -> None:
    metrics = compute_metrics([outcome("a", checked=4, passed_bindings=4),
                               outcome("b", checked=2, passed_bindings=0, fault="fabricate_path"),
                               outcome("c", kind="error")])
    assert (metrics.citation_precision.hits, metrics.citation_precision.total) == (4, 6)
    assert metrics.citation_precision.value == 0.6667
    assert metrics.citation_precision_without_faults.value == 1.0


def test_citation_recall_counts_expected_tools_cited() -> None:
    metrics = compute_metrics([
        outcome("a", expect={"evidence_tools": ["query_metrics", "query_logs"]}, tools=["query_metrics"]),
        outcome("b", expect={"evidence_tools": ["query_logs"]}, tools=["query_logs", "lookup_knowledge"]),
        outcome("c", expect={"evidence_tools": ["query_logs"]}, kind="error"),
    ])
    assert (metrics.citation_recall.hits, metrics.citation_recall.total) == (2, 4)


def test_no_bindings_gives_no_precision_value() -> None:
    metrics = compute_metrics([outcome("a")])
    assert metrics.citation_precision.value is None and metrics.citation_recall.value is None


def test_forbidden_leaks_name_the_cases() -> None:
    leak = ExpectationFailure(key="forbidden", expected=["x"],
                              actual=["'x' in claim claim-1", "'x' in answer"])
    other = ExpectationFailure(key="verdict", expected="PASS", actual="REJECT")
    metrics = compute_metrics([outcome("a", kind="failed", failures=[leak, other]),
                               outcome("b", kind="failed", failures=[other]), outcome("c")])
    assert (metrics.forbidden_leaks.count, metrics.forbidden_leaks.occurrences) == (1, 2)
    assert metrics.forbidden_leaks.cases == ["a"]
    assert metrics.failed_expectations == {"verdict": 2, "forbidden": 1}


def test_fault_catch_rate_per_mode() -> None:
    metrics = compute_metrics([
        outcome("a", fault="fabricate_path", verdict="REJECT"),
        outcome("b", fault="fabricate_path", verdict="PASS"),
        outcome("c", fault="drop_bindings", verdict="LOW_CONFID"),
        outcome("d", fault="scope_leak", kind="error"),
        outcome("e", verdict="PASS"),
    ])
    rates = {mode: (r.hits, r.total) for mode, r in metrics.fault_catch_rate.items()}
    assert rates == {"drop_bindings": (1, 1), "fabricate_path": (1, 2), "scope_leak": (0, 1)}


def test_pass_precision_counts_right_answers_among_pass_and_names_wrong_pass() -> None:
    wrong_answer = ExpectationFailure(key="answer_includes", expected=["OOM"], actual="")
    metrics = compute_metrics([
        outcome("right", verdict="PASS"),
        outcome("wrong", kind="failed", verdict="PASS", failures=[wrong_answer]),
        outcome("uncaught-fault", kind="failed", verdict="PASS", fault="fabricate_path"),
        outcome("rejected", kind="failed", verdict="REJECT"),  # not a PASS: not counted
        outcome("low", verdict="LOW_CONFID"),
        outcome("broken", kind="error"),
    ])
    precision = metrics.pass_precision
    assert (precision.hits, precision.total, precision.value) == (1, 3, 0.3333)
    assert metrics.wrong_pass.count == 2
    assert metrics.wrong_pass.cases == ["wrong", "uncaught-fault"]


def test_every_pass_right_is_precision_one_with_no_wrong_pass() -> None:
    metrics = compute_metrics([outcome("a"), outcome("b", kind="failed", verdict="REJECT")])
    assert (metrics.pass_precision.hits, metrics.pass_precision.total) == (1, 1)
    assert metrics.pass_precision.value == 1.0
    assert metrics.wrong_pass.count == 0 and metrics.wrong_pass.cases == []


def test_false_absences_count_only_cases_expecting_a_finding() -> None:
    metrics = compute_metrics([
        outcome("found", expect={"outcome": "found"}, found="found"),
        outcome("missed", expect={"outcome": "found"}, found="absent", kind="failed"),
        outcome("rejected", expect={"outcome": "found"}, verdict="REJECT", found="found",
                kind="failed"),  # a wrong verdict, but not a "nothing found"
        outcome("crashed", expect={"outcome": "found"}, kind="error"),
        # A verified absence that was expected, and cases without an outcome expectation (even
        # with evidence_tools, which a cited negative observation also meets): not counted.
        outcome("absent", expect={"outcome": "absent"}, found="absent"),
        outcome("tools-only", expect={"evidence_tools": ["query_logs"]}, found="absent"),
        outcome("no-expect", found="absent"),
    ])
    rate = metrics.false_absence_rate
    assert (rate.hits, rate.total, rate.value) == (1, 4, 0.25)


def test_latency_median_and_nearest_rank_p95() -> None:
    metrics = compute_metrics([outcome(str(i), duration=float(i)) for i in range(1, 21)])
    assert metrics.latency_ms.median == 10.5
    assert metrics.latency_ms.p95 == 19.0
    assert metrics.latency_ms.max == 20.0
    assert percentile_nearest_rank([5.0], 95) == 5.0
    assert percentile_nearest_rank([], 95) is None


def test_gatekeeper_rules_and_tag_pass_rates() -> None:
    metrics = compute_metrics([
        outcome("a", tags=["cpu", "narrow"], rules=["evidence.raw_path"]),
        outcome("b", kind="failed", tags=["cpu"], rules=["evidence.raw_path", "evidence.no_bindings"]),
    ])
    assert metrics.gatekeeper_failed_rules == {"evidence.raw_path": 2, "evidence.no_bindings": 1}
    assert {tag: (r.hits, r.total) for tag, r in metrics.pass_rate_by_tag.items()} == {
        "cpu": (1, 2), "narrow": (1, 1)}


def test_empty_run_has_no_rates() -> None:
    metrics = compute_metrics([])
    assert metrics.total == 0 and metrics.case_pass_rate is None and metrics.latency_ms.median is None
    assert metrics.pass_precision.value is None and metrics.false_absence_rate.value is None
    assert metrics.wrong_pass.count == 0


def test_known_gaps_are_counted_apart_but_a_wrong_pass_still_fails_the_run() -> None:
    from core.evals.results import EvalRun

    gap_amber = outcome("gap-amber", kind="failed", expect={"outcome": "found", "verdict": "PASS"},
                        verdict="LOW_CONFID").model_copy(update={"known_gap": "reads A or B as A and B"})
    gap_closed = outcome("gap-closed", expect={"outcome": "absent"}, verdict="PASS",
                         found="absent").model_copy(update={"known_gap": "fixed since"})
    gap_wrong_pass = outcome("gap-wrong", kind="failed", expect={"outcome": "found"}, verdict="PASS",
                             found="absent").model_copy(update={"known_gap": "a gap is no excuse"})
    metrics = compute_metrics([gap_amber, gap_closed])
    assert (metrics.known_gaps.cases, metrics.gaps_closed.cases) == (["gap-amber"], ["gap-closed"])
    assert metrics.amber_on_answerable["found"].value == 1.0
    assert metrics.amber_on_answerable["absent"].value == 0.0
    assert EvalRun(run_id="r", suite="s", outcomes=[gap_amber, gap_closed], metrics=metrics,
                   duration_ms=1.0).all_passed
    with_wrong = compute_metrics([gap_amber, gap_wrong_pass])
    assert with_wrong.known_gaps.cases == ["gap-amber"] and with_wrong.wrong_pass.cases == ["gap-wrong"]
    assert not EvalRun(run_id="r", suite="s", outcomes=[gap_amber, gap_wrong_pass], metrics=with_wrong,
                       duration_ms=1.0).all_passed
    plain_failure = outcome("plain", kind="failed", verdict="LOW_CONFID")
    assert not plain_failure.tolerated_gap
