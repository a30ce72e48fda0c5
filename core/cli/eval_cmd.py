"""``superbiz eval [CASES...] [--pack P | --sources FILE] [--tag T] [--json] [--junit FILE]
[--workers N]``.

Runs eval case files (default: the suite in ``mockdata/evals/``) through the pipeline, stores
the run and every case result, prints a table (or one JSON document with ``--json``), and
exits 0 when every case passed, 1 when any failed or errored, 2 on bad input.
Progress goes to stderr, one line per finished case, so stdout stays machine-readable.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from core.cli.common import (
    add_db_option,
    add_sources_option,
    count_type,
    fail,
    open_cli_store,
    open_cli_world,
    print_json,
)
from core.evals import DEFAULT_WORKERS

if TYPE_CHECKING:
    from core.evals.results import CaseOutcome

EXIT_ALL_PASSED = 0
EXIT_SOME_FAILED = 1
DEFAULT_SUITE_LABEL = "default"
MAX_WORKERS = 64


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``eval`` command."""
    parser = subparsers.add_parser(
        "eval", help="run eval case files and report citation-level metrics",
        description="Run eval cases (YAML files or folders of them; default: the suite in "
                    "mockdata/evals) through the pipeline. Exit 0 if all pass, 1 if any "
                    "fails, 2 on a malformed case file. Cases from reviewers' annotations: "
                    "superbiz eval cases from-annotations --help.")
    parser.add_argument("cases", nargs="*", metavar="CASES",
                        help="case files or folders of *.yaml (default: mockdata/evals)")
    parser.add_argument("--pack", metavar="NAME|PATH", default=None,
                        help="pack for cases that name none (default: demo)")
    parser.add_argument("--packs-dir", metavar="DIR", default=None,
                        help="look pack names up in DIR first (packs built elsewhere, e.g. the "
                             "real-data suite's: python -m evals.loghub.packs DIR)")
    add_sources_option(parser)
    parser.add_argument("--tag", action="append", metavar="T", default=None,
                        help="only cases with this tag (repeatable: any of them)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document (run, metrics, cases) on stdout")
    parser.add_argument("--junit", metavar="FILE", default=None,
                        help="also write JUnit XML to FILE for CI systems")
    parser.add_argument("--workers", type=count_type(MAX_WORKERS), default=DEFAULT_WORKERS,
                        metavar="N",
                        help=f"cases run at once, on threads (default: {DEFAULT_WORKERS}; more "
                             "threads do not finish sooner, see README)")
    parser.add_argument("--engine", choices=("rules", "llm"), default=None,
                        help="engine for every role (default: rules)")
    add_db_option(parser)
    parser.set_defaults(handler=run_eval)


def _progress(done: int, total: int, outcome: CaseOutcome) -> None:
    from core.evals.report import RESULT_LABEL

    print(f"[{done}/{total}] {outcome.case_id} {RESULT_LABEL[outcome.outcome]} "
          f"({outcome.duration_ms:.0f} ms)", file=sys.stderr, flush=True)


def run_eval(args: argparse.Namespace) -> int:
    """Load, filter, run, store, report; the exit code says whether every case passed."""
    from core.evals.cases import load_suite, select_by_tags, with_default_pack, with_packs_dir
    from core.evals.junit import write_junit
    from core.evals.report import render_report
    from core.evals.runner import run_cases
    from core.outputs import check_output_target

    if args.junit:
        check_output_target(args.junit)  # refused before anything runs, missing folder too
    worlds = None
    if args.sources:  # cases that name no pack run against the sources file's world
        world = open_cli_world(args)
        worlds = {world.name: world}
        cases = with_default_pack(load_suite(args.cases or None), world.name)
    else:
        cases = with_packs_dir(with_default_pack(load_suite(args.cases or None), args.pack),
                               args.packs_dir)
    cases = select_by_tags(cases, args.tag)
    if not cases:
        return fail(f"no case has tag {' or '.join(args.tag)}" if args.tag else "no cases")
    engines = None
    if args.engine:
        from core.agents.registry import build_engines

        engines = build_engines(args.engine)
    suite = ", ".join(args.cases) if args.cases else DEFAULT_SUITE_LABEL
    store = open_cli_store(args, writes=True)
    run = run_cases(cases, store=store, suite=suite, engines=engines, workers=args.workers,
                    on_result=_progress, worlds=worlds)
    if args.json:
        print_json(run.to_json())
    else:
        print(render_report(run))
    if args.junit:
        write_junit(run, args.junit)
    return EXIT_ALL_PASSED if run.all_passed else EXIT_SOME_FAILED
