"""``superbiz schema``: the JSON Schema of the session document."""

from __future__ import annotations

import argparse

from core.cli.common import print_json
from core.contracts import SessionDocument


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``schema``."""
    schema = subparsers.add_parser(
        "schema", help="print the JSON Schema of the session document",
        description="Print the JSON Schema of the session document that `ask --json`, "
                    "`sessions show --json`, `gatekeeper check` and `replay` exchange.")
    schema.set_defaults(handler=_schema)


def _schema(args: argparse.Namespace) -> int:
    print_json(SessionDocument.model_json_schema())
    return 0
