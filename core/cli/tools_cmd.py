"""``superbiz tools call TOOL --args JSON``: call one tool on a pack and record the call."""

from __future__ import annotations

import argparse
import json
import uuid
from typing import Any

from core.cli.common import (
    add_db_option,
    add_sources_option,
    fail,
    open_cli_store,
    open_cli_world,
    print_json,
)
from core.contracts import TOOL_NAMES, Invocation
from core.inputs.documents import parse_json

MAX_ARGS_CHARS = 64 * 1024  # a tool call's arguments are a few filters


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tools`` and its ``call`` / ``list`` subcommands."""
    tools = subparsers.add_parser("tools", help="call the three tools directly",
                                  description="Call a tool on a pack and record the call.")
    tool_commands = tools.add_subparsers(dest="tools_command", metavar="SUBCOMMAND", required=True)

    call = tool_commands.add_parser(
        "call", help="call a tool and print the recorded invocation",
        description="Call TOOL with JSON arguments on a pack. The call is recorded in the audit "
                    "store (session 'cli-...') and printed exactly as it appears in a session "
                    "document: invocation_id, tool_name, arguments, output, retrieval_details. "
                    "Exit 1 when the world has no source for the tool (nothing was asked).")
    call.add_argument("tool", metavar="TOOL", help=f"one of: {', '.join(TOOL_NAMES)}")
    call.add_argument("--args", dest="tool_args", default="{}", metavar="JSON",
                      help="the tool's arguments as a JSON object (default: {})")
    call.add_argument("--pack", default=None, metavar="NAME|PATH", help="scenario pack (default: demo)")
    add_sources_option(call)
    call.add_argument("--json", action="store_true", help="print the invocation as JSON only")
    call.add_argument("--no-store", action="store_true", help="do not record the call")
    add_db_option(call)
    call.set_defaults(handler=_call)

    listing = tool_commands.add_parser("list", help="list the tools and their arguments")
    listing.add_argument("--json", action="store_true", help="print JSON only")
    listing.set_defaults(handler=_list)


def _call(args: argparse.Namespace) -> int:
    from core.recorder import Recorder
    from core.tools.spec import validate_arguments

    if len(args.tool_args) > MAX_ARGS_CHARS:
        return fail(f"--args is {len(args.tool_args):,} characters long (at most {MAX_ARGS_CHARS:,})")
    arguments = parse_json(args.tool_args, source="--args")
    if not isinstance(arguments, dict):
        return fail("--args must be a JSON object, e.g. '{\"service\": \"order-service\"}'")
    # Validate before opening anything, so a bad call writes nothing.
    validate_arguments(args.tool, arguments)
    world = open_cli_world(args)
    store = None if args.no_store else open_cli_store(args, writes=True)
    session_id = f"cli-{uuid.uuid4().hex[:12]}"
    if store is not None:
        from core.store.repository import create_session, finish_session

        create_session(store, session_id=session_id, question=f"tools call {args.tool}",
                       pack=world.name, engines={"tools": "cli"})
    invocation = Recorder(world=world, session_id=session_id, store=store).call(args.tool, arguments)
    if store is not None:
        finish_session(store, session_id=session_id, status="completed", composer_output=None,
                       timings_ms={"total": invocation.duration_ms or 0.0})
    if args.json:
        print_json(_document_view(invocation))
    else:
        _print_human(invocation)
    if invocation.output.get("failure") == "no_source":
        # Nothing was asked: the world cannot answer this tool at all (a source that failed
        # is a recorded answer of the world, and the command itself worked).
        return fail(str(invocation.output.get("error", "")), 1)
    return 0


def _document_view(invocation: Invocation) -> dict[str, Any]:
    """The invocation as a session document lists it (no session-internal fields)."""
    return invocation.model_dump(mode="json", include={
        "invocation_id", "tool_name", "arguments", "output", "retrieval_details", "source",
        "request"})


def _print_human(invocation: Invocation) -> None:
    details = invocation.retrieval_details
    status = details.evidence_status if details else "?"
    print(f"invocation {invocation.invocation_id}  {invocation.tool_name} "
          f"{json.dumps(invocation.arguments, ensure_ascii=False)}  (source {invocation.source})")
    if invocation.output.get("success") is False:
        print(f"evidence_status: {status}   FAILED: {invocation.output.get('error', '')}")
    else:
        print(f"evidence_status: {status}   total: {invocation.output.get('total', '?')}   "
              f"{invocation.output.get('message', '')}")
    from core.views.sources import request_lines

    for line in request_lines(invocation):
        print(f"request: {line}")
    for ref in details.evidence_refs if details else []:
        first_line = ref.text.splitlines()[0] if ref.text else ""
        print(f"  {ref.raw_path:<22} {first_line}")


def _list(args: argparse.Namespace) -> int:
    from core.tools.spec import TOOL_SPECS

    tools: list[dict[str, Any]] = [
        {"name": spec.name, "description": spec.description,
         "arguments": spec.args.model_json_schema()} for spec in TOOL_SPECS.values()]
    if args.json:
        print_json(tools)
        return 0
    for tool in tools:
        fields = ", ".join(tool["arguments"].get("properties", {}))
        print(f"{tool['name']}({fields})\n    {tool['description']}")
    return 0

