"""Where the files shipped with superbiz live: the console, the built-in packs, the default suite.

They are found through the import system, never through the current directory, so the same
lookup works in the wheel (``site-packages/superbiz_console``, ``site-packages/superbiz_mockdata``)
and in the editable install of a checkout (its root and its ``mockdata/``); pyproject.toml maps
the two names. They are namespace packages (no ``__init__.py``), which
``importlib.resources.files`` cannot open in an editable install on Python 3.11 (its path holds
a placeholder entry that is not a folder), so the folder is taken from the import spec.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from core.errors import SuperbizError

CONSOLE_PACKAGE = "superbiz_console"  # app.py, pages/, ui/, .streamlit/config.toml
MOCKDATA_PACKAGE = "superbiz_mockdata"  # <pack>/ folders and evals/


def package_folder(package: str) -> Path:
    """The folder of an installed resource package; ``SuperbizError`` when it is not installed."""
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        if Path(location).is_dir():
            return Path(location)
    raise SuperbizError(f"{package} is not installed: reinstall superbiz "
                        "(`pip install .` or `make install` in a checkout)")


def console_app() -> Path:
    """The console's entry script (``app.py``; ``pages/`` and ``ui/`` sit beside it)."""
    return package_folder(CONSOLE_PACKAGE) / "app.py"


def builtin_packs_dir() -> Path:
    """The folder of the packs that ship with superbiz (``demo``)."""
    return package_folder(MOCKDATA_PACKAGE)


def default_suite_dir() -> Path:
    """The folder of the default eval suite."""
    return package_folder(MOCKDATA_PACKAGE) / "evals"
