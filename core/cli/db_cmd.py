"""``superbiz db init``: create the audit store (tables, WAL) and say where it is."""

from __future__ import annotations

import argparse

from core.cli.common import add_db_option, open_cli_store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``db`` and its ``init`` subcommand."""
    db = subparsers.add_parser("db", help="the audit store", description="Manage the audit store.")
    commands = db.add_subparsers(dest="db_command", metavar="SUBCOMMAND", required=True)
    init = commands.add_parser("init", help="create the audit store (and its folder) if it does not exist",
                               description="Create the tables of the audit store (idempotent).")
    add_db_option(init)
    init.set_defaults(handler=_init)


def _init(args: argparse.Namespace) -> int:
    store = open_cli_store(args, writes=True, create_folders=True)
    print(f"audit store ready: {store.url}")
    return 0
