"""Where diagnostics go: every module logs to ``logging.getLogger(__name__)``, nobody prints.

Failures the product survives (the audit store failing mid-session, a model call that failed
and was recorded, a background run that crashed) are logged where they are caught. By default
nothing is shown: ``core`` carries a ``NullHandler`` (see ``core/__init__.py``), so the CLI's
output stays exactly what it documents. ``superbiz --verbose`` shows them on stderr for one
command (``logs_on_stderr``); the console shows them on the server's stderr for good
(``keep_logs_on_stderr``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

# Our packages, plus openai's own retry messages ("Retrying request to ...") and the OTLP
# exporter's ("Transient error ... retrying", core.otlp).
LOGGER_NAMES: tuple[str, ...] = ("core", "ui", "openai", "opentelemetry")
_FORMAT = "superbiz: %(levelname)s %(name)s: %(message)s"


class _StderrHandler(logging.Handler):
    """Writes each record to stderr: ``sys.stderr`` as it is when the record comes (a test may
    have replaced it since), or with ``process_stderr`` the process's own (a console test must
    not find the server's diagnostics in what it captured)."""

    def __init__(self, level: int, *, process_stderr: bool = False) -> None:
        super().__init__(level)
        self.process_stderr = process_stderr
        self.setFormatter(logging.Formatter(_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        stream = sys.__stderr__ if self.process_stderr else sys.stderr
        try:
            if stream is not None:
                stream.write(self.format(record) + "\n")
                stream.flush()
        except Exception:  # logging must never break the program it reports on
            self.handleError(record)


@contextmanager
def logs_on_stderr(level: int = logging.INFO) -> Iterator[None]:
    """Within the block, the product's records at ``level`` and above go to stderr."""
    handler = _StderrHandler(level)
    saved = []
    for name in LOGGER_NAMES:
        logger = logging.getLogger(name)
        saved.append((logger, logger.level, logger.propagate))
        logger.setLevel(level)
        logger.addHandler(handler)
        logger.propagate = False  # shown here; an application's root handler would repeat it
    try:
        yield
    finally:
        for logger, old_level, propagate in saved:
            logger.removeHandler(handler)
            logger.setLevel(old_level)
            logger.propagate = propagate


def keep_logs_on_stderr(level: int = logging.WARNING) -> None:
    """From now on, the product's records at ``level`` and above go to the process's stderr
    (the console server's terminal). Idempotent: the console calls it on every rerun."""
    for name in LOGGER_NAMES:
        logger = logging.getLogger(name)
        if not any(isinstance(handler, _StderrHandler) for handler in logger.handlers):
            logger.addHandler(_StderrHandler(level, process_stderr=True))
            if logger.level == logging.NOTSET or logger.level > level:
                logger.setLevel(level)
