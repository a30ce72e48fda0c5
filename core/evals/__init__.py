"""The eval harness: YAML case files (``cases``), expectation checks (``matching``), the
parallel runner that stores every run (``runner``), run metrics (``metrics``), the text
table (``report``) and JUnit XML (``junit``)."""

from core.evals.cases import DEFAULT_SUITE_DIR, EvalCase, Expectation, load_case_file, load_suite
from core.evals.matching import ExpectationFailure, Observed, check_expectations, observe
from core.evals.metrics import RunMetrics, compute_metrics
from core.evals.results import CaseOutcome, EvalRun
from core.evals.runner import run_case, run_cases

__all__ = [
    "DEFAULT_SUITE_DIR",
    "CaseOutcome",
    "EvalCase",
    "EvalRun",
    "Expectation",
    "ExpectationFailure",
    "Observed",
    "RunMetrics",
    "check_expectations",
    "compute_metrics",
    "load_case_file",
    "load_suite",
    "observe",
    "run_case",
    "run_cases",
]
