"""``superbiz serve``: start the Streamlit console."""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import subprocess
import sys

from core.cli.common import count_type
from core.settings import PROJECT_ROOT
from core.store import open_store


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve``."""
    serve = subparsers.add_parser("serve", help="start the console (Streamlit)",
                                  description="Start the Evidence Console in Streamlit.")
    serve.add_argument("--port", type=count_type(65535), default=8501, help="port (default: 8501)")
    serve.add_argument("--address", type=_address, default="127.0.0.1",
                       help="address to listen on: an IP address or a host name "
                            "(default: 127.0.0.1)")
    serve.add_argument("--db", metavar="PATH|URL", default=None, help="audit store")
    serve.set_defaults(handler=_serve)


_HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9-]{1,63})*$")


def _address(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        if _HOST_NAME.match(text):
            return text
    raise argparse.ArgumentTypeError(f"not an IP address or host name: {text[:60]!r}")


def _serve(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    # The store is opened here, before Streamlit starts: a bad location is one line now,
    # not an error page later.
    open_store(args.db)
    if args.db is not None:
        env["SUPERBIZ_DB"] = args.db
    command = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app.py"),
               "--server.port", str(args.port), "--server.address", args.address,
               "--browser.gatherUsageStats", "false"]
    return subprocess.call(command, env=env, cwd=PROJECT_ROOT)
