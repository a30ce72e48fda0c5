"""``superbiz sources [--pack P | --sources FILE] [--json]``: what the world's sources are,
whether they answer, and what they hold. Exit 1 when a configured source does not answer."""

from __future__ import annotations

import argparse

from core.cli.common import add_sources_option, open_cli_world, print_json


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``sources`` command."""
    parser = subparsers.add_parser(
        "sources", help="list the world's sources: reachable or not, and what each holds",
        description="Open the world ask would open (a pack, a sources file, SUPERBIZ_PROMETHEUS_URL"
                    " / SUPERBIZ_ALERTMANAGER_URL) and ask each source what it holds. Exit 0 "
                    "when every configured source answers, 1 when one does not.")
    parser.add_argument("--pack", metavar="NAME|PATH", default=None,
                        help="scenario pack (default: demo)")
    add_sources_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(handler=run_sources)


def run_sources(args: argparse.Namespace) -> int:
    from core.views.sources import source_rows

    world = open_cli_world(args)
    rows = source_rows(world)
    if args.json:
        print_json({"world": world.name, "sources": [row.to_json() for row in rows]})
    else:
        print(f"world {world.name}")
        for row in rows:
            where = f" {row.source_id}" if row.source_id else ""
            holds = f"  ({row.holds_text})" if row.holds else ""
            print(f"  {row.capability:<10}{row.kind:<14}{row.status:<15}{where}{holds}")
            if row.problem and row.status != "not configured":
                print(f"  {'':<10}{row.problem}")
    return 1 if any(row.status == "unreachable" for row in rows) else 0
