"""Helpers every CLI command shares: JSON output, one-line errors, opening the store.

Every command module is imported to build the parser, so this module (like the top of each
command module) imports only what parsing needs; the store, the pipeline and the contracts a
command uses are imported by its handler (see bench/startup.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from core.errors import DocumentError, first_error

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
    """Print exactly one JSON document on stdout."""
    json.dump(to_jsonable(obj), sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def fail(message: str, code: int = 2) -> int:
    """Print a one-line error on stderr and return the exit code."""
    print(f"superbiz: error: {message}", file=sys.stderr)
    return code


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


def open_cli_store(args: argparse.Namespace) -> Store:
    """Open the store named by ``--db`` or the settings."""
    from core.store import open_store  # SQLAlchemy: only commands that use the store load it

    return open_store(getattr(args, "db", None))


def read_session_document(path: str) -> SessionDocument:
    """Read a session document (``-`` for stdin); errors name the file and the field."""
    from core.contracts import SessionDocument

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{path}: not JSON: {exc.msg} at line {exc.lineno}") from exc
    try:
        return SessionDocument.model_validate(data)
    except ValidationError as exc:
        raise DocumentError(f"{path}: {first_error(exc)}") from exc
