"""``superbiz audit verify``: walk the audit store's hash chain (``core.store.audit``)."""

from __future__ import annotations

import argparse

from core.cli.common import add_db_option, open_cli_store, print_json


def head_type(text: str) -> str:
    """An argparse ``type``: a SHA-256 in hex, or its first 12 or more digits."""
    value = text.strip().lower()
    if not 12 <= len(value) <= 64 or any(c not in "0123456789abcdef" for c in value):
        raise argparse.ArgumentTypeError(f"not a head: {text[:70]!r} (give the SHA-256 an "
                                         "earlier verify printed, or its first 12+ hex digits)")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``audit`` and its ``verify`` subcommand."""
    audit = subparsers.add_parser("audit", help="prove the audit store was not changed",
                                  description="Check the audit store's hash chain.")
    commands = audit.add_subparsers(dest="audit_command", metavar="SUBCOMMAND", required=True)
    verify = commands.add_parser(
        "verify", help="walk the hash chain; exit 0 intact, 1 changed",
        description="Walk the store's hash chain and report the first record whose content, "
                    "order or link was changed (exit 1), or that every record is intact "
                    "(exit 0). A writer who rewrites the whole chain is caught only by a head "
                    "pinned earlier: keep the printed head elsewhere and pass it as --head.")
    verify.add_argument("--head", metavar="HASH", default=None, type=head_type,
                        help="a head printed by an earlier verify (SHA-256, or its first 12+ "
                             "hex digits): the chain must still hold it")
    verify.add_argument("--json", action="store_true", help="print the report as JSON only")
    add_db_option(verify)
    verify.set_defaults(handler=_verify)


def _verify(args: argparse.Namespace) -> int:
    from core.store.audit import verify_chain

    report = verify_chain(open_cli_store(args), pinned_head=args.head)
    if args.json:
        print_json(report.as_json())
        return 0 if report.intact else 1
    if report.intact:
        running = f"; {report.running} still running (sealed when they close)" \
            if report.running else ""
        print(f"{report.records} records intact{running}")
        print(f"head #{report.head_seq} {report.head}")
        if report.pinned_seq is not None:
            print(f"pinned head found: record #{report.pinned_seq}")
        return 0
    first = report.problems[0]
    print(f"audit chain broken: {first.message}")
    more = len(report.problems) - 1
    if more:
        print(f"and {more}{'+' if len(report.problems) >= 100 else ''} more problem(s); "
              "--json lists them")
    return 1
