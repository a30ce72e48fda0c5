"""``superbiz packs list|validate|show``: the scenario packs the tools see."""

from __future__ import annotations

import argparse
import sys

from core.cli.common import one_line, print_json


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``packs`` and its subcommands."""
    packs = subparsers.add_parser("packs", help="list and validate scenario packs",
                                  description="Scenario packs are folders of data: the built-in ones, "
                                              "those in SUPERBIZ_PACKS_DIR, and those logs add makes "
                                              "(SUPERBIZ_USER_PACKS_DIR).")
    commands = packs.add_subparsers(dest="packs_command", metavar="SUBCOMMAND", required=True)

    listing = commands.add_parser("list", help="list the available packs")
    listing.add_argument("--json", action="store_true", help="print JSON only")
    listing.set_defaults(handler=_list)

    validate = commands.add_parser("validate", help="validate a pack folder",
                                   description="Load and validate a pack; errors name the file, "
                                               "the entry and the field.")
    validate.add_argument("path", metavar="NAME|PATH")
    validate.add_argument("--json", action="store_true", help="print JSON only")
    validate.set_defaults(handler=_validate)


def _list(args: argparse.Namespace) -> int:
    from core.packs import list_packs

    packs = [{"name": name, "description": description} for name, description in list_packs()]
    if args.json:
        print_json(packs)
    else:
        for pack in packs:
            print(f"{pack['name']:<16} {pack['description']}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    from core.packs import inspect_pack

    # A pack that cannot be found raises: one line, exit 2. A big log file is checked line by
    # line without building its cached store (loading the pack builds it).
    pack, problems = inspect_pack(args.path)
    if problems or pack is None:
        if args.json:
            # The JSON document lists every problem; stderr says so in one line.
            print_json({"name": args.path, "valid": False,
                        "problems": [{"file": p.file, "entry": p.entry, "field": p.field,
                                      "message": p.message} for p in problems]})
            more = f" (and {len(problems) - 1} more, listed on stdout)" if len(problems) > 1 else ""
            print(f"superbiz: error: {one_line(f'{args.path}: not a valid pack: {problems[0]}{more}')}",
                  file=sys.stderr)
            return 2
        # Every problem on its own line, so a pack author fixes them in one pass.
        for problem in problems:
            print(f"superbiz: error: {one_line(str(problem))}", file=sys.stderr)
        return 2
    summary = {"name": pack.name, "valid": True, "now": pack.now.isoformat(),
               "alerts": len(pack.alerts), "series": len(pack.series), "logs": pack.log_lines,
               "log_store": str(pack.log_store) if pack.log_store else None,
               "runbooks": len(pack.runbooks), "services": pack.services}
    if args.json:
        print_json(summary)
    else:
        where = f" (log store {pack.log_store})" if pack.log_store else ""
        print(f"{pack.name}: valid — {summary['alerts']} alerts, {summary['series']} series, "
              f"{summary['logs']} log lines{where}, {summary['runbooks']} runbooks")
    return 0
