"""``superbiz serve``: start the Streamlit console."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from core.settings import PROJECT_ROOT


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve``."""
    serve = subparsers.add_parser("serve", help="start the console (Streamlit)",
                                  description="Start the Evidence Console in Streamlit.")
    serve.add_argument("--port", type=int, default=8501, help="port (default: 8501)")
    serve.add_argument("--address", default="127.0.0.1", help="address (default: 127.0.0.1)")
    serve.add_argument("--db", metavar="PATH|URL", default=None, help="audit store")
    serve.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    if args.db:
        env["SUPERBIZ_DB"] = args.db
    command = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app.py"),
               "--server.port", str(args.port), "--server.address", args.address,
               "--browser.gatherUsageStats", "false"]
    return subprocess.call(command, env=env, cwd=PROJECT_ROOT)
