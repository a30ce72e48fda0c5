"""Evidence Console engine: planner -> executor -> gatekeeper -> verifier -> composer.

Never imports streamlit: the console in ``app.py`` and ``pages/`` and the CLI in ``core.cli``
both consume this package's event stream.
"""

from __future__ import annotations

import logging

DISTRIBUTION = "superbiz"

# A library stays quiet unless its application asks (core/log.py): without this, Python would
# print our warnings to stderr through its last-resort handler.
logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str) -> str:
    # ``core.__version__`` is the installed distribution's version (pyproject.toml is the one
    # place it is written), read from the package metadata only when asked for.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(DISTRIBUTION)
        except PackageNotFoundError:  # a checkout that was never installed
            return "0+unknown"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
