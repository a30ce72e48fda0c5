"""Helpers every CLI command shares: JSON output, one-line errors, opening the store.

Every command module is imported to build the parser, so this module (like the top of each
command module) imports only what parsing needs; the store, the pipeline and the contracts a
command uses are imported by its handler (see bench/startup.py).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from core.errors import DocumentError, first_error
from core.inputs.text import repair_text, text_problem
from core.redact import redact_text

if TYPE_CHECKING:
    from core.contracts import SessionDocument
    from core.store import Store

if TYPE_CHECKING:
    from core.sources.base import World

SOURCES_HELP = ("a sources file (YAML: Prometheus/Alertmanager URLs, log store, runbook and "
                "rule folders; see docs/sources.md) instead of a pack")


def to_jsonable(obj: Any) -> Any:
    """Pydantic models (and lists of them) to plain JSON values."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(item) for item in obj]
    if isinstance(obj, dict):
        return {key: to_jsonable(value) for key, value in obj.items()}
    return obj


def print_json(obj: Any) -> None:
    """Print exactly one JSON document on stdout (see ``json_text``)."""
    sys.stdout.write(json_text(to_jsonable(obj), indent=2) + "\n")


def json_text(value: Any, *, indent: int | None = None) -> str:
    """JSON text, non-ASCII kept as written; a value holding text that is not valid Unicode (a
    lone surrogate read back from an older store) is written with ``\\u`` escapes instead, so
    the output is always valid UTF-8 and nothing is lost."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    if text_problem(text):
        return json.dumps(value, ensure_ascii=True, indent=indent, default=str)
    return text


def shown(text: str) -> str:
    """Stored text for a terminal line: a lone surrogate becomes U+FFFD."""
    return repair_text(text)


MAX_MESSAGE_CHARS = 500


def one_line(message: str) -> str:
    """A message fit for one line of a terminal: secrets redacted, invalid text replaced, line
    breaks folded, at most ``MAX_MESSAGE_CHARS`` characters."""
    text = " ".join(repair_text(redact_text(message)).split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS - 1] + "…"


def fail(message: str, code: int = 2) -> int:
    """Print a one-line error on stderr and return the exit code."""
    print(f"superbiz: error: {one_line(message)}", file=sys.stderr)
    return code


def warn(message: str) -> None:
    """Print a one-line warning on stderr (the command goes on)."""
    print(f"superbiz: warning: {one_line(message)}", file=sys.stderr)


MAX_LIMIT = 1_000_000  # rows a listing or export may ask for (and what a database can take)


def count_type(maximum: int, minimum: int = 1) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``minimum`` to ``maximum``; anything else is a
    one-line usage error (never an integer too large for the database)."""
    def count(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be from {minimum} to {maximum:,}, not "
                                             f"{text[:40]}")
        return value

    return count


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """``--db PATH|URL``: the audit store (default: SUPERBIZ_DB or the user data directory)."""
    parser.add_argument("--db", metavar="PATH|URL", default=None,
                        help="audit store: a SQLite file path or any SQLAlchemy URL "
                             "(default: $SUPERBIZ_DB, else the user's data directory)")


def add_sources_option(parser: argparse.ArgumentParser) -> None:
    """``--sources FILE``: investigate the world a sources file describes."""
    parser.add_argument("--sources", metavar="FILE", default=None, help=SOURCES_HELP)


def open_cli_world(args: argparse.Namespace) -> World:
    """The world of ``--sources`` or ``--pack`` (not both), else ``SUPERBIZ_SOURCES``, else
    the default pack; ``SUPERBIZ_PROMETHEUS_URL`` / ``SUPERBIZ_ALERTMANAGER_URL`` replace a
    pack's metrics (``core.sources.config.open_world``)."""
    from core.errors import SourcesConfigError
    from core.sources.config import open_world

    pack, sources = getattr(args, "pack", None), getattr(args, "sources", None)
    if pack and sources:
        raise SourcesConfigError("give --pack or --sources, not both")
    return open_world(pack, sources=sources)


def open_cli_store(args: argparse.Namespace, *, writes: bool = False,
                   create_folders: bool = False) -> Store:
    """Open the store named by ``--db`` or the settings; a command that ``writes`` has the
    store refused now if it cannot be written (locked, read-only), before any work. Missing
    folders of a named SQLite path are refused unless ``create_folders`` (``db init``)."""
    from core.store import open_store  # SQLAlchemy: only commands that use the store load it

    store = open_store(getattr(args, "db", None), create_folders=create_folders)
    if writes:
        store.check_writable()
    return store


def read_session_document(path: str) -> SessionDocument:
    """Read a session document (``-`` for stdin): a regular file, bounded in size and nesting,
    valid Unicode (``core.inputs``); errors name the file and the field."""
    from core.contracts import SessionDocument
    from core.inputs.documents import read_json_file

    data = read_json_file(path)
    try:
        return SessionDocument.model_validate(data)
    except ValidationError as exc:
        raise DocumentError(f"{path}: {first_error(exc)}") from exc


@contextmanager
def frozen_imports() -> Iterator[None]:
    """A command's own modules imported as ``core.__main__.console`` imports the CLI's: with the
    garbage collector off, then frozen (they live as long as the process; collecting while
    they are made walks them for no garbage). Only in a process that froze its start-up (the
    console script): an in-process caller's collector is left as it is."""
    if not gc.get_freeze_count():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
