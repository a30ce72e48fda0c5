"""``superbiz``: the command line. Each command lives in its own module with ``register``.

Every command takes ``--help``; ``--json`` prints one JSON document on stdout and nothing else;
errors are one line on stderr with a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from core import __version__
from core.cli.common import fail
from core.errors import SuperbizError

# Command modules, each with ``register(subparsers)``. Missing ones are skipped so the CLI
# keeps working while a command is being built.
COMMAND_MODULES: tuple[str, ...] = (
    "core.cli.ask_cmd",
    "core.cli.replay_cmd",
    "core.cli.gatekeeper_cmd",
    "core.cli.tools_cmd",
    "core.cli.packs_cmd",
    "core.cli.sessions_cmd",
    "core.cli.eval_cmd",
    "core.cli.schema_cmd",
    "core.cli.serve_cmd",
    "core.cli.db_cmd",
    "core.cli.logs_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = argparse.ArgumentParser(
        prog="superbiz",
        description="Evidence Console: ask narrow questions of an SRE diagnosis agent and audit "
                    "every citation behind its answer.")
    parser.add_argument("--version", action="version", version=f"superbiz {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``superbiz`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return int(handler(args) or 0)
    except SuperbizError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return fail("interrupted", code=130)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
