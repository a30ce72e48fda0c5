"""Running eval cases through the real pipeline, in parallel, and storing the run.

Each case is one ``core.pipeline.ask`` with the run's store, so its session is stored like any
other and the case result points at it. Cases are independent, so they run on a small thread
pool. A session is held in memory until it closes (``core.store.grouped``); the calling thread,
as cases complete, writes the closed sessions and the waiting results together, ``RESULT_BATCH``
cases to a transaction (sealed in the audit chain together: one writer, no transaction per
session).

What a crash leaves: the sessions and results of the transactions written before it (a result
is written with or after its session, so it never points at a missing one); of the up to
``RESULT_BATCH - 1`` cases since and the sessions running, only their sessions' rows; those
and the run row stay ``running`` until the lease check marks them ``incomplete``. An
interruption (Ctrl-C, a failing store) writes what waits first.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any

from core.errors import EvalCaseError, PackError, SuperbizError
from core.evals import DEFAULT_WORKERS
from core.evals.cases import DEFAULT_PACK, EvalCase
from core.evals.matching import check_expectations, observe
from core.evals.metrics import compute_metrics
from core.evals.results import CaseOutcome, EvalRun
from core.store import repository

if TYPE_CHECKING:
    from core.agents.registry import Engines
    from core.sources.base import World
    from core.store import Store
    from core.store.grouped import GroupedWrites

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int, CaseOutcome], None]
# Case results stored per transaction: one per case was a third of a stored case's writes.
RESULT_BATCH = 50


def new_run_id() -> str:
    """A unique, time-ordered-enough run id: ``run-<12 hex>``."""
    return f"run-{uuid.uuid4().hex[:12]}"


def load_case_worlds(cases: Sequence[EvalCase],
                     opened: Mapping[str, World] | None = None) -> dict[str, World]:
    """Open the world of every pack the cases name, once (``opened``: worlds already open, by
    the name cases use for them, e.g. a sources file's); an unknown pack is a case-file error
    (exit 2). ``SUPERBIZ_PROMETHEUS_URL`` / ``SUPERBIZ_ALERTMANAGER_URL`` replace the packs'
    metrics, as for ``ask``."""
    from core.sources.config import open_world

    worlds: dict[str, World] = dict(opened or {})
    for case in cases:
        name = case.pack or DEFAULT_PACK
        if name in worlds:
            continue
        try:
            worlds[name] = open_world(name)
        except PackError as exc:
            raise EvalCaseError(f"{case.source}: case {case.id!r}: pack: {exc}") from exc
    return worlds


def run_case(case: EvalCase, *, world: World, engines: Engines | None,
             store: Store | None, grouped: GroupedWrites | None = None) -> CaseOutcome:
    """Ask the case's question and check its expectations; never raises for a failing system.
    ``grouped``: the session waits there, closed, to be written with others.

    A session that did not complete (a stage crashed) is an ``error`` outcome, as is any error
    raised before a session existed.
    """
    from core.pipeline import ask

    started = time.perf_counter()
    try:
        session = ask(case.question, pack=world, engines=engines,
                      executor_fault=case.executor_fault, store=store, write_at_close=True,
                      grouped=grouped)
    except SuperbizError as exc:
        return CaseOutcome.for_case(case, outcome="error", error=str(exc),
                                    duration_ms=_ms_since(started))
    except Exception as exc:  # a bug in the system under test is a result, not a crash of the run
        logger.warning("case %s: the pipeline raised", case.id, exc_info=exc)
        return CaseOutcome.for_case(case, outcome="error", error=f"{type(exc).__name__}: {exc}",
                                    duration_ms=_ms_since(started))
    duration_ms = _ms_since(started)
    observed = observe(session)
    if session.status != "completed":
        return CaseOutcome.for_case(
            case, outcome="error", observed=observed, session_id=session.session_id,
            error=f"session {session.status}: {session.error or 'no detail'}",
            duration_ms=duration_ms)
    failures = check_expectations(case.expect, session, observed)
    return CaseOutcome.for_case(case, outcome="failed" if failures else "passed",
                                failures=failures, observed=observed,
                                session_id=session.session_id, duration_ms=duration_ms)


def run_cases(cases: Sequence[EvalCase], *, store: Store | None, suite: str = "",
              engines: Engines | None = None, workers: int = DEFAULT_WORKERS,
              on_result: ProgressCallback | None = None,
              worlds: Mapping[str, World] | None = None) -> EvalRun:
    """Run ``cases`` and return the run with its metrics; stored when ``store`` is given.
    ``worlds``: worlds already open, by the pack name cases give them (``eval --sources``).

    ``on_result(done, total, outcome)`` is called as each case finishes (completion order).
    Outcomes in the returned run keep the cases' order.
    """
    if not cases:
        raise EvalCaseError("no cases to run")
    opened = load_case_worlds(cases, worlds)
    if engines is None:
        from core.agents.registry import build_engines

        engines = build_engines()
    run_id = new_run_id()
    started = time.perf_counter()
    if store is not None:
        repository.create_eval_run(store, run_id=run_id, suite=suite, total=len(cases))
    outcomes: list[CaseOutcome | None] = [None] * len(cases)
    try:
        _run_pool(cases, opened, engines, _Writes(store, run_id) if store is not None else None,
                  workers, outcomes, on_result)
    except BaseException:
        # Interrupted (Ctrl-C) or the store failed: close the run honestly with what finished.
        if store is not None:
            done = [outcome for outcome in outcomes if outcome is not None]
            try:
                repository.finish_eval_run(
                    store, run_id=run_id, passed=sum(o.passed for o in done),
                    duration_ms=_ms_since(started),
                    metrics=compute_metrics(done).model_dump(mode="json"), status="interrupted")
            except Exception:  # the original error matters more than this one: it is raised
                logger.warning("eval run %s: could not be closed as interrupted", run_id,
                               exc_info=True)
        raise
    finished = [outcome for outcome in outcomes if outcome is not None]
    metrics = compute_metrics(finished)
    run = EvalRun(run_id=run_id, suite=suite, outcomes=finished, metrics=metrics,
                  duration_ms=_ms_since(started))
    if store is not None:
        repository.finish_eval_run(store, run_id=run_id, passed=run.passed,
                                   duration_ms=run.duration_ms,
                                   metrics=metrics.model_dump(mode="json"))
    return run


class _Writes:
    """What the run writes: its sessions, closed and waiting (``core.store.grouped``), and its
    case results, stored together from the calling thread."""

    def __init__(self, store: Store, run_id: str) -> None:
        from core.store.grouped import GroupedWrites

        self.store, self.run_id = store, run_id
        self.sessions = GroupedWrites(store)
        self.results: list[dict[str, Any]] = []  # case results not stored yet

    def add(self, outcome: CaseOutcome) -> None:
        """A finished case's result; every ``RESULT_BATCH`` are written with the sessions."""
        self.results.append({
            "case_id": outcome.case_id, "session_id": outcome.session_id,
            "passed": outcome.passed, "duration_ms": outcome.duration_ms,
            "tags": outcome.tags, "detail": outcome.to_json()})
        if len(self.results) >= RESULT_BATCH:
            self.write()

    def write(self) -> None:
        """Every closed session and waiting result, in one transaction, and forget them."""
        from core.store.evalruns import write_case_results

        results, self.results = self.results, []
        self.sessions.write(also=lambda connection: write_case_results(
            connection, run_id=self.run_id, results=results))


def _run_pool(cases: Sequence[EvalCase], worlds: dict[str, World], engines: Engines,
              writes: _Writes | None, workers: int, outcomes: list[CaseOutcome | None],
              on_result: ProgressCallback | None) -> None:
    """Run every case on the pool, filling ``outcomes`` by case index and storing each result."""
    store = writes.store if writes is not None else None
    grouped = writes.sessions if writes is not None else None
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="eval") as pool:
        futures = {pool.submit(run_case, case, world=worlds[case.pack or DEFAULT_PACK],
                               engines=engines, store=store, grouped=grouped): index
                   for index, case in enumerate(cases)}
        try:
            for done, future in enumerate(as_completed(futures), start=1):
                outcome = future.result()
                outcomes[futures[future]] = outcome
                if writes is not None:
                    writes.add(outcome)
                if on_result is not None:
                    on_result(done, len(cases), outcome)
        except BaseException:
            # Do not make Ctrl-C wait for every queued case: drop those not started yet.
            pool.shutdown(wait=False, cancel_futures=True)
            if writes is not None:
                waiting = len(writes.results)
                try:
                    writes.write()
                except Exception:  # the original error matters more: it is raised
                    logger.warning("eval run %s: %d case results could not be stored",
                                   writes.run_id, waiting, exc_info=True)
            raise
    if writes is not None:
        writes.write()


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
