"""``superbiz logs add FILE... --pack NAME``: log files into a pack of their own, askable at once.

The pack is made in the user packs folder (``core.userpacks``) on the first add and grows on
the next; ``packs list``, ``ask --pack NAME`` and the console see it without a restart.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.logs_cmd import import_options, import_settings, print_import


def register_add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``logs add`` to the ``logs`` subcommands."""
    adding = commands.add_parser(
        "add", help="import log files into a pack of their own, askable at once",
        description="Imports the files (any common layout, as logs import) into the log store of "
                    "the pack NAME in the user packs folder (SUPERBIZ_USER_PACKS_DIR, default "
                    "~/.local/share/superbiz/packs), made on the first add: then ask --pack NAME, "
                    "packs list and the console's pack picker have it, no restart needed. "
                    "All or nothing: an error leaves no pack and no store changed.")
    adding.add_argument("files", nargs="+", metavar="FILE", help="log files (plain or .gz)")
    adding.add_argument("--pack", required=True, metavar="NAME",
                        help="the pack: letters, digits, '_', '.', '-' (not a built-in pack's name)")
    import_options(adding)
    adding.set_defaults(handler=_add)


def _add(args: argparse.Namespace) -> int:
    from core.userpacks import add_logs

    added = add_logs([Path(name) for name in args.files], args.pack, **import_settings(args))
    more = {"pack": added.pack, "pack_folder": str(added.folder), "pack_created": added.created}
    print_import(added.report, as_json=args.json, more=more)
    if not args.json:
        verb = "made" if added.created else "grew"
        print(f"pack {added.pack}: {verb} ({added.folder}); ask it: "
              f"superbiz ask \"...\" --pack {added.pack}")
    return 0
