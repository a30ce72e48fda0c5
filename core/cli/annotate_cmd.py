"""``superbiz sessions annotate|annotations`` and ``superbiz eval cases from-annotations``: a
reviewer's verdicts on sessions (``core.annotations``) and the eval cases they become
(``core.evals.fromannotations``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli.common import add_db_option, fail, open_cli_store, print_json, shown

if TYPE_CHECKING:
    from core.store.models import AnnotationRow

# ``eval`` takes case files as positional arguments, so ``eval cases from-annotations`` cannot
# be an argparse subcommand of it: the command line is routed to this hidden command instead.
FROM_ANNOTATIONS = ("eval", "cases", "from-annotations")
_HIDDEN_COMMAND = "eval-cases-from-annotations"


def route(arguments: list[str]) -> list[str]:
    """``eval cases from-annotations ...`` as the hidden command it is registered as."""
    if tuple(arguments[:3]) == FROM_ANNOTATIONS:
        return [_HIDDEN_COMMAND, *arguments[3:]]
    return arguments


def register_sessions(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``sessions annotate`` and ``sessions annotations``."""
    from core.annotations import REVIEWER_VARIABLE, VERDICTS

    annotate = commands.add_parser(
        "annotate", help="mark a session's answer, a claim or a binding right/wrong/unsure",
        description="Add a reviewer's annotation, sealed in the audit chain. A later one of "
                    "the same target supersedes it; none is ever edited.")
    annotate.add_argument("session_id", metavar="ID", help="a session id, or 'latest'")
    annotate.add_argument("--verdict", required=True, choices=VERDICTS)
    target = annotate.add_mutually_exclusive_group()
    target.add_argument("--claim", type=int, metavar="K",
                        help="the K-th claim of the executor output (from 0), not the answer")
    target.add_argument("--binding", type=int, metavar="K",
                        help="the K-th binding as the Binding inspector lists them (from 0)")
    annotate.add_argument("--note", default="", metavar="TEXT", help="why")
    annotate.add_argument("--by", metavar="NAME", default=None,
                          help=f"the reviewer (default: ${REVIEWER_VARIABLE}, else the OS user)")
    annotate.add_argument("--json", action="store_true", help="print the annotation as JSON")
    add_db_option(annotate)
    annotate.set_defaults(handler=_annotate)

    listing = commands.add_parser("annotations", help="list a session's annotations",
                                  description="Every annotation of a session, oldest first "
                                              "(superseded ones marked).")
    listing.add_argument("session_id", metavar="ID", help="a session id, or 'latest'")
    listing.add_argument("--json", action="store_true", help="print JSON only")
    add_db_option(listing)
    listing.set_defaults(handler=_annotations)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the hidden command ``eval cases from-annotations`` is routed to."""
    from core.annotations import VERDICTS
    from core.evals.fromannotations import SUITE_VARIABLE

    parser = subparsers.add_parser(
        _HIDDEN_COMMAND, prog="superbiz eval cases from-annotations",
        description="Write an eval case for each current annotation (of one verdict) into a "
                    "suite file, once: a case already there is not added again. A wrong PASS "
                    "becomes a case expecting LOW_CONFID or REJECT (docs/store.md).")
    parser.add_argument("--verdict", choices=VERDICTS, default="wrong",
                        help="annotations of this verdict (default: wrong)")
    parser.add_argument("--session", metavar="ID", default=None,
                        help="only this session's annotations")
    parser.add_argument("--out", metavar="FILE", default=None,
                        help=f"the suite file (default: ${SUITE_VARIABLE}, else "
                             "annotations.yaml in the data folder's evals/)")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")
    add_db_option(parser)
    parser.set_defaults(handler=_from_annotations)


def _session_id(args: argparse.Namespace) -> str:
    from core.store.history import latest_session_id

    if args.session_id != "latest":
        return str(args.session_id)
    return latest_session_id(open_cli_store(args)) or ""


def _annotate(args: argparse.Namespace) -> int:
    from core.annotations import annotate, annotation_json

    target, index = (("claim", args.claim) if args.claim is not None else
                     ("binding", args.binding) if args.binding is not None else ("answer", None))
    store = open_cli_store(args, writes=True)
    row = annotate(store, session_id=_session_id(args) or args.session_id, verdict=args.verdict,
                   note=args.note, reviewer=args.by, target=target, index=index)
    if args.json:
        print_json(annotation_json(row))
    else:
        replaced = f", superseding {row.supersedes}" if row.supersedes else ""
        print(f"{row.id}: {row.reviewer} marked the {row.target_label} of session "
              f"{row.session_id} {row.verdict}{replaced}")
    return 0


def _annotations(args: argparse.Namespace) -> int:
    from core.annotations import annotation_json
    from core.store.annotations import list_annotations
    from core.store.history import session_exists

    store = open_cli_store(args)
    session_id = _session_id(args)
    if not session_id or not session_exists(store, session_id=session_id):
        return fail(f"no session {args.session_id!r} in the audit store")
    rows = list_annotations(store, session_id=session_id)
    if args.json:
        print_json([annotation_json(row) for row in rows])
        return 0
    if not rows:
        print(f"session {session_id} has no annotations")
    for line in annotation_lines(rows):
        print(line)
    return 0


def annotation_lines(annotations: Sequence[AnnotationRow]) -> list[str]:
    """One line per annotation, superseded ones marked (``sessions show``, ``annotations``)."""
    from core.annotations import current

    live = {row.id for row in current(annotations)}
    return [f"{row.id}  {row.created_at:%Y-%m-%d %H:%M:%S}  {row.verdict:<6} "
            f"{row.target_label:<24} by {shown(row.reviewer)}"
            + ("" if row.id in live else "  (superseded)")
            + (f"\n    {shown(row.note)}" if row.note else "") for row in annotations]


def _from_annotations(args: argparse.Namespace) -> int:
    from core.evals.fromannotations import write_cases
    from core.outputs import check_output_target
    from core.store.annotations import current_annotations

    out = check_output_target(args.out, make_folders=True) if args.out else None
    store = open_cli_store(args)
    annotations = [row for row in current_annotations(store, verdict=args.verdict)
                   if args.session is None or row.session_id == args.session]
    written = write_cases(store, annotations, Path(out) if out else None)
    if args.json:
        print_json({"suite": str(written.path), "added": written.added,
                    "present": written.present,
                    "skipped": [{"annotation_id": a, "reason": r} for a, r in written.skipped]})
        return 0
    for annotation_id, reason in written.skipped:
        print(f"{annotation_id}: no case ({reason})")
    print(f"{len(written.added)} case(s) added to {written.path}"
          + (f"; {len(written.present)} already there" if written.present else "")
          + (f"; run them: superbiz eval {written.path}" if written.added or written.present
             else ""))
    return 0
