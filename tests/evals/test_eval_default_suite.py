"""The default suite (``mockdata/evals``) passes through the real pipeline and real store."""

from __future__ import annotations

from core.agents.faults import FAULT_MODES
from core.evals.cases import load_suite, with_default_pack
from core.evals.runner import run_cases
from core.store import Store


def test_default_suite_passes_and_catches_every_fault(tmp_store: Store) -> None:
    run = run_cases(with_default_pack(load_suite(), None), store=tmp_store, suite="default")
    failed = {o.case_id: [f.message for f in o.failures] or o.error
              for o in run.outcomes if not o.passed}
    assert failed == {}
    metrics = run.metrics
    assert set(metrics.fault_catch_rate) == set(FAULT_MODES)
    assert all(rate.value == 1.0 for rate in metrics.fault_catch_rate.values())
    assert metrics.forbidden_leaks.count == 0
    assert metrics.wrong_pass.count == 0 and metrics.pass_precision.value == 1.0
    expecting_found = sum(1 for o in run.outcomes if o.expect.outcome == "found")
    assert expecting_found > 0
    assert (metrics.false_absence_rate.hits, metrics.false_absence_rate.total) == (0, expecting_found)
    assert metrics.citation_precision_without_faults.value == 1.0
    # Injected faults make bindings fail on purpose: the all-case precision must show it.
    assert metrics.citation_precision.value is not None and metrics.citation_precision.value < 1.0
