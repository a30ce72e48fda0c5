"""``superbiz replay SESSION.json``: gatekeeper, verifier and composer again on a document.

The document may be edited (tamper with an excerpt and watch it be caught). No tool is called;
each cited invocation's refs are recomputed from its raw output. With ``--db`` the store's copy
of each invocation wins over the document's, and a citation into another stored session is
reported as such; without it, it is an unknown invocation (also REJECT).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from core.agents.names import ENGINE_NAMES
from core.cli.ask_cmd import event_lines, print_event
from core.cli.common import add_db_option, open_cli_store, print_json, read_session_document

if TYPE_CHECKING:
    from core.events import PipelineEvent


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``replay`` command."""
    parser = subparsers.add_parser(
        "replay", help="re-run gatekeeper, verifier and composer on a session document",
        description="Re-check a session document (as printed by `ask --json`, edited or not): "
                    "every citation, every claim, and the answer.")
    parser.add_argument("document", metavar="SESSION.json", help="session document ('-' for stdin)")
    parser.add_argument("--engine", choices=ENGINE_NAMES, default="rules",
                        help="engine of the verifier and composer (default: rules)")
    parser.add_argument("--json", action="store_true", help="print the new session document")
    add_db_option(parser)
    parser.set_defaults(handler=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    """Handler of ``superbiz replay``."""
    from core.agents.registry import build_engines
    from core.events import AnswerReady, BindingChecked, ClaimJudged, GatekeeperFinished, VerdictReached
    from core.pipeline import replay, store_lookup

    document = read_session_document(args.document)
    lookup = store_lookup(open_cli_store(args) if args.db is not None else None)
    replayed = replay(document, engines=build_engines(args.engine), stored_invocations=lookup)
    if args.json:
        print_json(replayed)
        return 0
    session = replayed.session_id
    assert replayed.gatekeeper_result is not None  # replay always re-runs the gatekeeper
    stages: list[PipelineEvent] = [*(BindingChecked(session_id=session, checked=checked)
                for checked in replayed.gatekeeper_result.checked_bindings),
              GatekeeperFinished(session_id=session, result=replayed.gatekeeper_result)]
    if replayed.verifier_result is not None:
        stages += [*(ClaimJudged(session_id=session, claim_result=result)
                     for result in replayed.verifier_result.claim_results),
                   VerdictReached(session_id=session, result=replayed.verifier_result)]
    if replayed.composer_output is not None:
        stages.append(AnswerReady(session_id=session, composer_output=replayed.composer_output))
    sys.stdout.write(f"{'replay':<9}{session} ({len(replayed.invocations)} invocation(s), "
                     "no tool called)\n")
    for event in stages:
        if event_lines(event):
            print_event(event, sys.stdout)
    return 0
