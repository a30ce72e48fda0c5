"""Typed results of an eval run: one :class:`CaseOutcome` per case, one :class:`EvalRun` per run.

These are what the runner produces and what the metrics, the table, the JUnit writer, the
store and ``superbiz eval --json`` consume.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from core.evals.cases import EvalCase, Expectation
from core.evals.matching import ExpectationFailure, Observed
from core.evals.metrics import RunMetrics

OutcomeKind = Literal["passed", "failed", "error"]


class CaseOutcome(BaseModel):
    """How one case went: passed, failed (with every unmet expectation) or error (no verdict)."""

    case_id: str
    source: str = ""
    question: str = ""
    pack: str | None = None
    executor_fault: str | None = None
    tags: list[str] = Field(default_factory=list)
    expect: Expectation = Field(default_factory=Expectation)
    known_gap: str | None = None
    outcome: OutcomeKind
    failures: list[ExpectationFailure] = Field(default_factory=list)
    error: str | None = None
    observed: Observed | None = None
    session_id: str | None = None
    duration_ms: float = 0.0

    @property
    def passed(self) -> bool:
        """True only when the session completed and every expectation held."""
        return self.outcome == "passed"

    @property
    def tolerated_gap(self) -> bool:
        """A known-gap case that failed without saying PASS: counted apart, not against the run."""
        verdict = self.observed.verdict if self.observed else None
        return not self.passed and self.known_gap is not None and verdict != "PASS"

    @classmethod
    def for_case(cls, case: EvalCase, **values: Any) -> CaseOutcome:
        """An outcome carrying the case's identity (id, file, question, pack, fault, tags)."""
        return cls(case_id=case.id, source=case.source, question=case.question, pack=case.pack,
                   executor_fault=case.executor_fault, tags=list(case.tags), expect=case.expect,
                   known_gap=case.known_gap, **values)

    def to_json(self) -> dict[str, Any]:
        """The per-case entry of ``superbiz eval --json`` (also stored as the case's detail)."""
        entry: dict[str, Any] = {
            "id": self.case_id,
            "passed": self.passed,
            "outcome": self.outcome,
            "file": self.source,
            "question": self.question,
            "pack": self.pack,
            "executor_fault": self.executor_fault,
            "tags": list(self.tags),
            "expected": self.expect.as_dict(),
            "actual": self.observed.model_dump(mode="json") if self.observed else None,
            "failures": [failure.model_dump(mode="json") for failure in self.failures],
            "error": self.error,
            "session_id": self.session_id,
            "duration_ms": round(self.duration_ms, 3),
        }
        if self.known_gap is not None:
            entry["known_gap"] = self.known_gap
        return entry


class EvalRun(BaseModel):
    """A finished run: its id (as stored), suite label, outcomes in case order, and metrics."""

    run_id: str
    suite: str
    outcomes: list[CaseOutcome]
    metrics: RunMetrics
    duration_ms: float

    @property
    def total(self) -> int:
        """Number of cases run."""
        return len(self.outcomes)

    @property
    def passed(self) -> int:
        """Number of cases that passed."""
        return sum(1 for outcome in self.outcomes if outcome.passed)

    @property
    def all_passed(self) -> bool:
        """Whether every case passed or is a tolerated known gap (the CLI exits 0 only then)."""
        return all(outcome.passed or outcome.tolerated_gap for outcome in self.outcomes)

    def to_json(self) -> dict[str, Any]:
        """The document ``superbiz eval --json`` prints."""
        return {
            "run_id": self.run_id,
            "suite": self.suite,
            "total": self.total,
            "passed": self.passed,
            "failed": self.total - self.passed,
            "errored": sum(1 for outcome in self.outcomes if outcome.outcome == "error"),
            "duration_ms": round(self.duration_ms, 3),
            "metrics": self.metrics.model_dump(mode="json"),
            "cases": [outcome.to_json() for outcome in self.outcomes],
        }
