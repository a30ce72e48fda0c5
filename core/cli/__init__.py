"""``superbiz``: the command line. Each command lives in its own module with ``register``.

Every command takes ``--help``; ``--json`` prints one JSON document on stdout and nothing else;
errors are one line on stderr with a non-zero exit code, never a traceback. Bad input (usage,
files, documents, text; see ``core.inputs`` and docs/bad-input.md) exits 2 having stored
nothing. ``--verbose`` (before the command) also shows the failures the product logs and
survives, on stderr.

Building the parser imports every command module, so their top levels import only what the
parser needs; each handler imports the rest (the pipeline, the store, the llm engine).
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext, suppress
from types import FrameType
from typing import TYPE_CHECKING, NoReturn, cast

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

from core import regexcache, userdirs
from core.cli import (
    annotate_cmd,
    ask_cmd,
    audit_cmd,
    db_cmd,
    eval_cmd,
    export_cmd,
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
from core.cli.common import fail, one_line
from core.errors import SuperbizError
from core.inputs.text import text_problem
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
    export_cmd.register,
    eval_cmd.register,
    schema_cmd.register,
    serve_cmd.register,
    db_cmd.register,
    audit_cmd.register,
    logs_cmd.register,
    annotate_cmd.register,  # hidden: ``eval cases from-annotations`` (annotate_cmd.route)
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr, exit code 2 (argparse's
    own print the whole usage first). Subcommand parsers inherit the class."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("superbiz").strip()
        where = f"{command}: " if command else ""
        self.exit(2, f"superbiz: error: {one_line(where + message)} (see {self.prog} --help)\n")


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so a running pipeline records ``incomplete``
    and the command ends with one line instead of dying silently mid-write."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Terminated()


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = _Parser(
        prog="superbiz",
        description="Evidence Console: ask narrow questions of an SRE diagnosis agent and audit "
                    "every citation behind its answer.")
    parser.add_argument("--version", action=_PrintVersion,
                        help="show the installed version and exit")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print the failures the product logs and survives (a store "
                             "write that failed, a model call that failed) on stderr")
    # Subcommand parsers are _Parser too (one-line usage errors); typed as argparse's own.
    subparsers = cast("Subparsers[argparse.ArgumentParser]",
                      parser.add_subparsers(dest="command", metavar="COMMAND"))
    for register in COMMANDS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``superbiz`` console script (``argv=None``) and of in-process callers:
    always returns the exit code (0 ok, 1 a check failed, 2 bad input, 130/143 interrupted,
    70 a bug), never raises, never prints a traceback (``SUPERBIZ_DEBUG=1`` re-raises bugs)."""
    if argv is not None:
        return _run(list(argv), console=False)
    _console_streams()
    # Compiled patterns kept between runs: a fifth of a cold `ask` (core.regexcache).
    regexcache.keep_in(userdirs.cache_dir() / "patterns")
    code = _run(sys.argv[1:], console=True)
    code = _flush_stdout(code)
    if code in (0, 1):  # bad input, an interruption or a bug leaves nothing behind
        regexcache.save()
    _skip_final_collection()
    return code


def _run(arguments: list[str], *, console: bool) -> int:
    """One command line, as ``main`` describes; ``console``: the real console script."""
    # The edge: text that is not valid Unicode (bytes the locale could not decode arrive as
    # lone surrogates) is refused before anything reads it, stores it or prints it.
    for position, argument in enumerate(arguments, start=1):
        problem = text_problem(argument)
        if problem:
            return fail(f"argument {position} {problem}")
    parser = build_parser()
    try:
        args = parser.parse_args(annotate_cmd.route(arguments))
    except _OutputError as exc:  # --help or --version into a full device
        return _cannot_write(exc)
    except SystemExit as exited:  # --help, --version, or a usage error already printed
        return exited.code if isinstance(exited.code, int) else 0 if exited.code is None else 2
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0 if args.command is None else 2
    with logs_on_stderr() if args.verbose else nullcontext():
        try:
            return int(handler(args) or 0)
        except SuperbizError as exc:
            return fail(str(exc))
        except _Terminated:
            return fail("terminated", code=143)
        except KeyboardInterrupt:
            return fail("interrupted", code=130)
        except BrokenPipeError:
            if console:  # the reader left (`| head`): nothing more to say, nowhere to say it
                _discard_stdout()
            return 0
        except _OutputError as exc:
            return _cannot_write(exc)
        except RecursionError:
            return fail("input nested too deeply to process")
        except Exception as exc:  # a bug: still one line, and an exit code that says so
            if os.environ.get("SUPERBIZ_DEBUG"):
                raise
            return fail(f"internal error ({type(exc).__name__}: {exc}); this is a bug -- "
                        "SUPERBIZ_DEBUG=1 shows the traceback", code=70)


class _OutputError(OSError):
    """A write to stdout failed (``> /dev/full``, an I/O error) -- not a bug of the program."""


class _StdoutFile(io.FileIO):
    """The console script's stdout descriptor: a failed write says it was stdout's (any other
    ``OSError`` is a bug). A reader that left stays a ``BrokenPipeError``."""

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.errno, exc.strerror) from exc


def _cannot_write(exc: OSError) -> int:
    """A failed write to stdout: one line on stderr, exit 2 (where the output goes is the user's
    to fix). What is left in the buffer goes nowhere, so the exit flush cannot fail again."""
    _discard_stdout()
    return fail(f"cannot write the output: {exc.strerror or exc}")


def _discard_stdout() -> None:
    with suppress(OSError, ValueError):  # stdout is not a descriptor (an in-process caller's)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _flush_stdout(code: int) -> int:
    """Flush what a command printed before the interpreter does (a failure there is a message
    about an ignored exception and exit 120)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
    except OSError as exc:
        return _cannot_write(exc)
    return code


def _skip_final_collection() -> None:
    """The process exits next, and the interpreter's last garbage collection would walk every
    object the command made (~4% of a cold `ask`) to free cycles nobody will miss. Skipped
    unless the audit store was opened: its pooled SQLite connections close in that collection
    (otherwise a `-wal` file stays beside the database)."""
    if "sqlalchemy" not in sys.modules:
        gc.freeze()


def _console_streams() -> None:
    """For the real console script: SIGTERM becomes ``_Terminated``; output that cannot be
    encoded is replaced rather than crashing half-way through a listing."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.flush()
        sys.stdout = io.TextIOWrapper(
            io.BufferedWriter(_StdoutFile(sys.stdout.fileno(), "w", closefd=False)),
            encoding=sys.stdout.encoding, errors=sys.stdout.errors,
            line_buffering=sys.stdout.line_buffering)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
