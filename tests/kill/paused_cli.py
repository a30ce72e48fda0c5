"""The CLI, paused before one stage so a kill test can SIGKILL it there.

    python -m tests.kill.paused_cli STAGE MARKER SECONDS -- ask QUESTION ...

Runs ``superbiz ARGS`` (``core.cli.main``, as the console script does) in this process with the pipeline's ``on_stage``
hook set on every investigation it starts: before ``STAGE`` the run writes its PID to
``MARKER`` and sleeps ``SECONDS``. The product only offers the hook; the pause lives here.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import core.pipeline
from core.cli import main


def pause_before(stage: str, marker: Path, seconds: float) -> Callable[[str], None]:
    """A stage hook that, at ``stage``, says so in ``marker`` (the PID) and sleeps."""

    def on_stage(name: str) -> None:
        if name == stage:
            marker.write_text(str(os.getpid()), encoding="utf-8")
            time.sleep(seconds)

    return on_stage


def run(argv: Sequence[str]) -> int:
    stage, marker, seconds, separator, *cli_args = argv
    if separator != "--":
        raise SystemExit("usage: paused_cli STAGE MARKER SECONDS -- ARGS...")
    hook = pause_before(stage, Path(marker), float(seconds))
    investigate = core.pipeline.run_investigation

    # ``ask`` and ``eval`` both reach the pipeline through this module attribute.
    @functools.wraps(investigate)
    def with_pause(*args: Any, **kwargs: Any) -> Any:
        return investigate(*args, on_stage=hook, **kwargs)

    core.pipeline.run_investigation = with_pause
    sys.argv = ["superbiz", *cli_args]
    return main()


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
