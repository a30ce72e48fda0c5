"""``superbiz sessions list|show|export|annotate|annotations``: the audit history (the last two
in ``core.cli.annotate_cmd``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from core.cli.annotate_cmd import annotation_lines, register_sessions
from core.cli.common import (
    MAX_LIMIT,
    add_db_option,
    count_type,
    fail,
    open_cli_store,
    print_json,
    shown,
    warn,
)
from core.errors import StoredRowError
from core.inputs.text import text_problem
from core.outputs import check_output_target, write_atomically

if TYPE_CHECKING:
    from core.contracts import SessionDocument
    from core.store.repository import SessionQuery


def _add_filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verdict", choices=["PASS", "LOW_CONFID", "REJECT"])
    parser.add_argument("--severity", choices=["none", "low_confid", "reject"],
                        help="gatekeeper severity")
    parser.add_argument("--rule", metavar="RULE", help="a failed gatekeeper rule, e.g. evidence.raw_path")
    parser.add_argument("--status", choices=["running", "completed", "error", "incomplete"])
    parser.add_argument("--text", metavar="TEXT", help="substring of the question or session id")
    parser.add_argument("--annotation", choices=["any", "wrong", "unsure", "right", "none"],
                        help="annotated sessions: any, by their worst current verdict, or none")
    parser.add_argument("--pack", metavar="PACK", help="sessions asked of this pack")
    parser.add_argument("--outcome", metavar="OUTCOME", type=_page_choice("OUTCOME_CHOICES"),
                        help="found, absent, unknown_subject, not_understood, rejected or error")
    parser.add_argument("--fault", metavar="MODE",
                        help="sessions run with this injected fault ('none': without one)")
    parser.add_argument("--origin", choices=["manual", "eval"],
                        help="manual: asked by a person; eval: made by an eval run")
    parser.add_argument("--since", metavar="PERIOD", type=_page_choice("PERIODS"),
                        help="created in the last 1h, 24h, 7d or 30d")
    parser.add_argument("--limit", type=count_type(MAX_LIMIT), default=50,
                        help="at most this many (default: 50)")


def _page_choice(name: str) -> Callable[[str], str]:
    """An argparse type: a value of the Sessions page's ``core.views.sessions.<name>`` (read on
    use, so ``--help`` does not import the view)."""
    def checked(value: str) -> str:
        from core.views import sessions

        choices = tuple(getattr(sessions, name))
        if value not in choices:
            raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(choices)}")
        return value

    return checked


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
    register_sessions(commands)


def _filters(args: argparse.Namespace) -> SessionQuery:
    """The store's filters, the same as the Sessions page's (``SessionFilters.as_query``)."""
    from core.views.sessions import SessionFilters

    query = SessionFilters(pack=args.pack, outcome=args.outcome, fault=args.fault,
                           origin=args.origin, period=args.since).as_query()
    query.update({"verdict": args.verdict, "severity": args.severity, "rule": args.rule,
                  "status": args.status, "text": args.text, "annotation": args.annotation})
    return query


def _list(args: argparse.Namespace) -> int:
    from core.store.repository import list_sessions

    rows = list_sessions(open_cli_store(args), limit=args.limit, **_filters(args))
    if args.json:
        print_json(rows)
        return 0
    if not rows and any(_filters(args).values()):
        print("no session matches these filters")
        return 0
    if not rows:
        print("no sessions yet — try: superbiz ask \"只确认 payment-service 当前是否存在 CPU 使用率过高告警\"")
        return 0
    for row in rows:
        question = shown(row.question if len(row.question) <= 60 else row.question[:57] + "...")
        print(f"{row.session_id:<28} {row.created_at:%Y-%m-%d %H:%M:%S}  "
              f"{(row.verdict or row.status):<10} {(row.outcome or '-'):<15} {question}")
    return 0


def _load(args: argparse.Namespace, session_id: str) -> SessionDocument | None:
    from core.store.repository import latest_session_id, load_session_document

    store = open_cli_store(args)
    if session_id == "latest":
        session_id = latest_session_id(store) or ""
    return load_session_document(store, session_id=session_id) if session_id else None


def _show(args: argparse.Namespace) -> int:
    from core.annotations import document_with_annotations
    from core.store.annotations import list_annotations

    document = _load(args, args.session_id)
    if document is None:
        return fail(f"no session {args.session_id!r} in the audit store")
    annotations = list_annotations(open_cli_store(args), session_id=document.session_id)
    if args.json:
        print_json(document_with_annotations(document, annotations))
        return 0
    print(f"session   {document.session_id}  ({document.status})")
    print(f"question  {shown(document.question)}")
    print(f"pack      {shown(document.pack)}   engines {json.dumps(document.engines)}")
    gate = document.gatekeeper_result
    if gate is not None:
        rules = ", ".join(gate.failed_rules) or "-"
        print(f"gatekeeper {gate.status}/{gate.severity}  failed rules: {rules}")
    if document.verifier_result is not None:
        print(f"verdict   {document.verifier_result.verdict}  "
              f"groundedness {document.verifier_result.groundedness_score:.2f}")
    if document.outcome:
        print(f"outcome   {document.outcome}")
    print(f"invocations {len(document.invocations)}")
    if document.composer_output is not None:
        print("\n" + shown(document.composer_output.user_facing_answer))
    if document.error:
        print(f"\nerror: {shown(document.error)}")
    if annotations:
        print("\nannotations")
        for line in annotation_lines(annotations):
            print("  " + line)
    return 0


def _export(args: argparse.Namespace) -> int:
    """One document per line; a stored row that cannot be read back is reported on stderr and
    skipped (exit 1), never the end of the export."""
    from core.annotations import document_with_annotations
    from core.store.annotations import list_annotations
    from core.store.repository import list_sessions, load_session_document

    target = check_output_target(args.output) if args.output else None  # before any work
    store = open_cli_store(args)
    rows = list_sessions(store, limit=args.limit, **_filters(args))
    skipped: list[str] = []

    def lines() -> Iterator[bytes]:
        for row in rows:
            try:
                document = load_session_document(store, session_id=row.session_id)
            except StoredRowError as exc:
                warn(f"{exc}; skipped")
                skipped.append(row.session_id)
                continue
            if document is None:
                continue
            data = document_with_annotations(
                document, list_annotations(store, session_id=row.session_id))
            line = json.dumps(data, ensure_ascii=False)
            if text_problem(line):  # a lone surrogate an older store kept: escaped, reported
                warn(f"session {row.session_id}: stored text is not valid Unicode (a lone "
                     "surrogate); exported with \\u escapes")
                line = json.dumps(data, ensure_ascii=True)
            yield (line + "\n").encode("utf-8")

    if target is None:
        for line in lines():
            sys.stdout.write(line.decode("utf-8"))
    else:
        write_atomically(target, lines())
        print(f"exported {len(rows) - len(skipped)} sessions to {target}", file=sys.stderr)
    return 1 if skipped else 0
