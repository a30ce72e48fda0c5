"""``superbiz serve``: check what can be checked, then become the Streamlit console.

The process replaces itself (``os.execv``) with ``python -m streamlit run`` on the installed
``app.py``, on the same interpreter: no parent stays alive only to wait, and signals reach
Streamlit directly. Before that, every mistake we can see is one line (exit 2): the console or
Streamlit missing, an audit store that cannot be opened, a port already taken.

The console's Streamlit settings live in ``.streamlit/config.toml`` beside ``app.py``; they are
passed as flags, because Streamlit looks for that file in the current folder (and, only in
recent versions, beside the script), and ``serve`` runs from any folder.
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.cli.common import add_db_option
from core.errors import SuperbizError
from core.resources import console_app

DEFAULT_PORT = 8501


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve``."""
    serve = subparsers.add_parser(
        "serve", help="start the console (Streamlit)",
        description="Start the Evidence Console: this process becomes the Streamlit server.",
        epilog="Options after `--` go to `streamlit run` unchanged, e.g. "
               "`superbiz serve -- --server.headless true`.")
    serve.add_argument("--port", type=_port, default=DEFAULT_PORT,
                       help=f"port (default: {DEFAULT_PORT})")
    serve.add_argument("--address", default="127.0.0.1", help="address (default: 127.0.0.1)")
    add_db_option(serve)
    serve.add_argument("streamlit_options", nargs="*", metavar="-- STREAMLIT_OPTION",
                       help="options for `streamlit run`, after `--`")
    serve.set_defaults(handler=_serve)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range 1-65535: {port}")
    return port


def _serve(args: argparse.Namespace) -> int:
    if args.streamlit_options and not args.streamlit_options[0].startswith("-"):
        raise SuperbizError(f"unexpected argument {args.streamlit_options[0]!r} (Streamlit "
                            "options go after `--`, e.g. `-- --server.headless true`)")
    app = console_app()
    if not app.is_file():
        raise SuperbizError(f"the console is missing: {app} (reinstall superbiz)")
    if importlib.util.find_spec("streamlit") is None:
        raise SuperbizError("streamlit is not installed in this environment (reinstall superbiz)")
    _check_port_free(args.address, args.port)
    store_url = _check_store(args.db)
    command = [sys.executable, "-m", "streamlit", "run", str(app),
               *_config_flags(app.parent / ".streamlit" / "config.toml"),
               "--server.port", str(args.port), "--server.address", args.address,
               *args.streamlit_options]
    print(f"audit store: {store_url}", flush=True)
    sys.stderr.flush()
    try:
        os.execv(sys.executable, command)
    except OSError as exc:
        raise SuperbizError(f"cannot start streamlit: {exc.strerror or exc}") from None
    return 0  # not reached: execv returns only by raising


def _check_store(db: str | None) -> str:
    """Open (create) the audit store now, so a bad ``--db`` is one line here, not a page error;
    return its URL (password hidden)."""
    from core.store import open_store

    if db:
        # The server reads the store from the environment; a relative path stays valid because
        # exec keeps the current folder.
        os.environ["SUPERBIZ_DB"] = db
    store = open_store(db)
    store.engine.dispose()
    return store.url


def _check_port_free(address: str, port: int) -> None:
    """Refuse a port that is taken (Streamlit would print a paragraph); best effort, racy."""
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise SuperbizError(f"cannot serve on address {address!r}: {exc.strerror}") from None
    family, kind, proto, _, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind(sockaddr)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise SuperbizError(f"port {port} is already in use on {address} "
                                    "(choose another with --port)") from None
            raise SuperbizError(f"cannot serve on {address}:{port}: {exc.strerror}") from None


def _config_flags(config_file: Path) -> list[str]:
    """``--section.option=value`` for every setting of a Streamlit config file (none if absent)."""
    import tomllib  # only when serving: every command imports this module to build its parser

    try:
        config: dict[str, Any] = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SuperbizError(f"{config_file}: cannot read the console settings: {exc}") from None
    return list(_flags(config, prefix=""))


def _flags(table: dict[str, Any], *, prefix: str) -> Iterator[str]:
    # Nested tables ([theme.light]) are dotted options of their own (--theme.light.primaryColor).
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flags(value, prefix=f"{prefix}{key}.")
        elif prefix:  # a top-level key outside any section is not a Streamlit option
            text = str(value).lower() if isinstance(value, bool) else str(value)
            yield f"--{prefix}{key}={text}"
