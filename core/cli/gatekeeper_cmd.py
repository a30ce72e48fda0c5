"""``superbiz gatekeeper check|recheck``: re-run the deterministic citation check.

``check`` takes any session document (as ``sessions show --json`` or ``ask --json`` print it,
edited or not) and checks its executor output against the invocations inside it -- their refs
recomputed from their raw output -- or, with ``--db``, against the store's copy of each
invocation, which wins. Exit code 0 when the gatekeeper passes, 1 when it fails, 2 on bad
input — so scripts can gate on it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from core.cli.common import (
    MAX_LIMIT,
    add_db_option,
    count_type,
    open_cli_store,
    print_json,
    read_session_document,
    warn,
)

if TYPE_CHECKING:
    from core.contracts import GatekeeperResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``gatekeeper`` and its subcommands."""
    gatekeeper = subparsers.add_parser("gatekeeper", help="re-check citations deterministically",
                                       description="The gatekeeper checks that every citation is "
                                                   "real. It never judges whether a claim holds.")
    commands = gatekeeper.add_subparsers(dest="gatekeeper_command", metavar="SUBCOMMAND",
                                         required=True)

    check = commands.add_parser("check", help="check a session document's citations",
                                description="Re-check SESSION.json ('-' for stdin) against the "
                                            "invocations inside it (their refs recomputed from "
                                            "their raw output), or with --db against the "
                                            "store's copy of each invocation, which wins. "
                                            "Exit 0 pass, 1 fail, 2 bad input.")
    check.add_argument("document", metavar="SESSION.json")
    check.add_argument("--json", action="store_true", help="print the gatekeeper result only")
    check.add_argument("--db", metavar="PATH|URL", default=None,
                       help="also check against this audit store: its invocations win over the "
                            "document's, and citations into its other sessions are rejected")
    check.set_defaults(handler=_check)

    recheck = commands.add_parser("recheck", help="re-run the current version over stored sessions",
                                  description="Re-run the current gatekeeper (and verifier and "
                                              "composer) over stored sessions and report every "
                                              "session whose verdict changed.")
    recheck.add_argument("--all", action="store_true", required=True,
                         help="every stored session that has an executor output")
    recheck.add_argument("--limit", type=count_type(MAX_LIMIT), default=100_000,
                         help="at most this many sessions")
    recheck.add_argument("--json", action="store_true", help="print JSON only")
    add_db_option(recheck)
    recheck.set_defaults(handler=_recheck)


def _check(args: argparse.Namespace) -> int:
    from core.gatekeeper import check_citations

    document = read_session_document(args.document)
    stored = None
    if args.db:
        from core.store.lookup import StoreInvocations

        stored = StoreInvocations(open_cli_store(args))
    result = check_citations(session_id=document.session_id, invocations=document.invocations,
                             executor_output=document.executor_output,
                             parse_status=document.executor_output_parse_status,
                             stored_invocations=stored)
    if args.json:
        print_json(result)
    else:
        print_gatekeeper_result(result)
    return 0 if result.status == "pass" else 1


def print_gatekeeper_result(result: GatekeeperResult) -> None:
    """Human-readable gatekeeper result: overall grade, then one line per binding."""
    print(f"gatekeeper: {result.status} (severity {result.severity})   version {result.version}")
    if result.failed_rules:
        print(f"failed rules: {', '.join(result.failed_rules)}")
    for checked in result.checked_bindings:
        owner = checked.claim_id or checked.action_id or "?"
        score = f"{checked.score:.2f}" if checked.score is not None else "  - "
        print(f"  [{checked.status:<4}] {owner:<10} #{checked.binding_index} "
              f"{checked.tool_name or '?'}:{checked.source_invocation_id} "
              f"{checked.raw_path or '-'}  score {score}  {checked.rule or ''} {checked.message}")
    for warning in result.warnings:
        print(f"  warning {warning.rule}: {warning.message}")


def _recheck(args: argparse.Namespace) -> int:
    from core.errors import StoredRowError
    from core.pipeline import replay, store_lookup
    from core.store.repository import list_sessions, load_session_document

    store = open_cli_store(args, writes=True)
    stored = store_lookup(store)
    changed: list[dict[str, Any]] = []
    checked = 0
    for row in list_sessions(store, limit=args.limit):
        try:
            document = load_session_document(store, session_id=row.session_id)
        except StoredRowError as exc:  # reported, and the others are still re-checked
            warn(f"{exc}; skipped")
            continue
        if document is None or document.executor_output is None:
            continue
        checked += 1
        before_gate = document.gatekeeper_result
        before_verdict = document.verifier_result.verdict if document.verifier_result else None
        after = replay(document, stored_invocations=stored)
        after_verdict = after.verifier_result.verdict if after.verifier_result else None
        after_gate = after.gatekeeper_result
        if (before_verdict != after_verdict
                or (before_gate and after_gate and before_gate.severity != after_gate.severity)):
            changed.append({
                "session_id": document.session_id, "question": document.question,
                "verdict_before": before_verdict, "verdict_after": after_verdict,
                "severity_before": before_gate.severity if before_gate else None,
                "severity_after": after_gate.severity if after_gate else None,
                "version_before": before_gate.version if before_gate else None,
                "version_after": after_gate.version if after_gate else None})
    if args.json:
        print_json({"checked": checked, "changed": changed})
    else:
        print(f"re-checked {checked} sessions; {len(changed)} changed")
        for item in changed:
            print(f"  {item['session_id']}: {item['verdict_before']} -> {item['verdict_after']} "
                  f"(gatekeeper {item['severity_before']} -> {item['severity_after']})")
    return 0
