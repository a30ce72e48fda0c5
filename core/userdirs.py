"""The user's folders (XDG on Linux): where the audit store and the rebuildable files live.

Apart from ``core.settings`` so that the CLI can name its cache folder before anything imports
pydantic (``core.regexcache``).
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_VARIABLE = "SUPERBIZ_CACHE_DIR"


def default_data_dir() -> Path:
    """The user's data directory (XDG on Linux), where the SQLite audit store lives."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "superbiz"


def default_packs_dir() -> Path:
    """Where ``superbiz logs add`` makes packs (``SUPERBIZ_USER_PACKS_DIR`` moves it): inside
    the user's data directory, since an imported log store is data, not a rebuildable file."""
    return default_data_dir() / "packs"


def default_cache_dir() -> Path:
    """The user's cache directory (XDG on Linux), where rebuildable files live (the log stores
    of packs' big log files, compiled patterns)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "superbiz"


def cache_dir(configured: str | None = None) -> Path:
    """The folder of rebuildable files: ``configured`` (default: ``SUPERBIZ_CACHE_DIR``), else
    the user's cache directory."""
    value = os.environ.get(CACHE_DIR_VARIABLE, "") if configured is None else configured
    return Path(value).expanduser() if value else default_cache_dir()
