"""``superbiz``: the command line. Each command lives in its own module with ``register``.

Every command takes ``--help``; ``--json`` prints one JSON document on stdout and nothing else;
errors are one line on stderr with a non-zero exit code, never a traceback. ``--verbose``
(before the command) also shows the failures the product logs and survives, on stderr.

Building the parser imports every command module, so their top levels import only what the
parser needs; each handler imports the rest (the pipeline, the store, the llm engine).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext

from core.cli import (
    ask_cmd,
    db_cmd,
    eval_cmd,
    gatekeeper_cmd,
    logs_cmd,
    packs_cmd,
    replay_cmd,
    schema_cmd,
    serve_cmd,
    sessions_cmd,
    sources_cmd,
    tools_cmd,
)
from core.cli.common import fail
from core.errors import SuperbizError
from core.log import logs_on_stderr

Subparsers = argparse._SubParsersAction  # argparse's type of ``add_subparsers()``' result


class _PrintVersion(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked for (the
    package metadata is slow to read for a command that never prints it)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from core import __version__

        sys.stdout.write(f"superbiz {__version__}\n")
        parser.exit()

# Each command's ``register(subparsers)``, in the order ``--help`` lists them.
COMMANDS: tuple[Callable[[Subparsers[argparse.ArgumentParser]], None], ...] = (
    ask_cmd.register,
    replay_cmd.register,
    gatekeeper_cmd.register,
    tools_cmd.register,
    sources_cmd.register,
    packs_cmd.register,
    sessions_cmd.register,
    eval_cmd.register,
    schema_cmd.register,
    serve_cmd.register,
    db_cmd.register,
    logs_cmd.register,
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = argparse.ArgumentParser(
        prog="superbiz",
        description="Evidence Console: ask narrow questions of an SRE diagnosis agent and audit "
                    "every citation behind its answer.")
    parser.add_argument("--version", action=_PrintVersion,
                        help="show the installed version and exit")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print the failures the product logs and survives (a store "
                             "write that failed, a model call that failed) on stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMANDS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``superbiz`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0 if args.command is None else 2
    with logs_on_stderr() if args.verbose else nullcontext():
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
