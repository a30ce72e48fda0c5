"""``superbiz sessions list|show|export``: the audit history."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli.common import add_db_option, fail, open_cli_store, print_json
from core.contracts import SessionDocument

if TYPE_CHECKING:
    from core.store.repository import SessionQuery


def _add_filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verdict", choices=["PASS", "LOW_CONFID", "REJECT"])
    parser.add_argument("--severity", choices=["none", "low_confid", "reject"],
                        help="gatekeeper severity")
    parser.add_argument("--rule", metavar="RULE", help="a failed gatekeeper rule, e.g. evidence.raw_path")
    parser.add_argument("--status", choices=["running", "completed", "error", "incomplete"])
    parser.add_argument("--text", metavar="TEXT", help="substring of the question or session id")
    parser.add_argument("--limit", type=int, default=50, help="at most this many (default: 50)")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``sessions`` and its subcommands."""
    sessions = subparsers.add_parser("sessions", help="list, show and export stored sessions",
                                     description="Read the audit store's sessions.")
    commands = sessions.add_subparsers(dest="sessions_command", metavar="SUBCOMMAND", required=True)

    listing = commands.add_parser("list", help="list sessions, newest first")
    _add_filters(listing)
    listing.add_argument("--json", action="store_true", help="print JSON only")
    add_db_option(listing)
    listing.set_defaults(handler=_list)

    show = commands.add_parser("show", help="show one session",
                               description="Show one session; --json prints its session document.")
    show.add_argument("session_id", metavar="ID", help="a session id, or 'latest'")
    show.add_argument("--json", action="store_true", help="print the session document only")
    add_db_option(show)
    show.set_defaults(handler=_show)

    export = commands.add_parser("export", help="export session documents as JSON Lines",
                                 description="Write one session document per line (JSON Lines).")
    _add_filters(export)
    export.set_defaults(limit=1000)
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default: stdout)")
    add_db_option(export)
    export.set_defaults(handler=_export)


def _filters(args: argparse.Namespace) -> SessionQuery:
    return {"verdict": args.verdict, "severity": args.severity, "rule": args.rule,
            "status": args.status, "text": args.text}


def _list(args: argparse.Namespace) -> int:
    from core.store.repository import list_sessions

    rows = list_sessions(open_cli_store(args), limit=args.limit, **_filters(args))
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("no sessions yet — try: superbiz ask \"只确认 payment-service 当前是否存在 CPU 使用率过高告警\"")
        return 0
    for row in rows:
        question = row.question if len(row.question) <= 60 else row.question[:57] + "..."
        print(f"{row.session_id:<28} {row.created_at:%Y-%m-%d %H:%M:%S}  "
              f"{(row.verdict or row.status):<10} {question}")
    return 0


def _load(args: argparse.Namespace, session_id: str) -> SessionDocument | None:
    from core.store.repository import latest_session_id, load_session_document

    store = open_cli_store(args)
    if session_id == "latest":
        session_id = latest_session_id(store) or ""
    return load_session_document(store, session_id=session_id) if session_id else None


def _show(args: argparse.Namespace) -> int:
    document = _load(args, args.session_id)
    if document is None:
        return fail(f"no session {args.session_id!r} in the audit store")
    if args.json:
        print_json(document)
        return 0
    print(f"session   {document.session_id}  ({document.status})")
    print(f"question  {document.question}")
    print(f"pack      {document.pack}   engines {json.dumps(document.engines)}")
    gate = document.gatekeeper_result
    if gate is not None:
        rules = ", ".join(gate.failed_rules) or "-"
        print(f"gatekeeper {gate.status}/{gate.severity}  failed rules: {rules}")
    if document.verifier_result is not None:
        print(f"verdict   {document.verifier_result.verdict}  "
              f"groundedness {document.verifier_result.groundedness_score:.2f}")
    print(f"invocations {len(document.invocations)}")
    if document.composer_output is not None:
        print("\n" + document.composer_output.user_facing_answer)
    if document.error:
        print(f"\nerror: {document.error}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from core.store.repository import list_sessions, load_session_document

    store = open_cli_store(args)
    rows = list_sessions(store, limit=args.limit, **_filters(args))
    lines = (document.model_dump_json() + "\n"
             for row in rows
             if (document := load_session_document(store, session_id=row.session_id)) is not None)
    if not args.output:
        sys.stdout.writelines(lines)
        return 0
    # Write beside the target and rename, so an interrupted export leaves no half file.
    target = Path(args.output)
    partial = target.with_name(target.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as out:
            out.writelines(lines)
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        return fail(f"cannot write {target}: {exc.strerror or exc}")
    print(f"exported {len(rows)} sessions to {target}", file=sys.stderr)
    return 0
