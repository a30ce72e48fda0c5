"""Settings from the environment (prefix ``SUPERBIZ_``), with the defaults a new user needs."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

from core.resources import builtin_packs_dir

# The packs that ship with superbiz (``demo``), inside the installed package.
DEFAULT_PACKS_DIR = builtin_packs_dir()


def default_data_dir() -> Path:
    """The user's data directory (XDG on Linux), where the SQLite audit store lives."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "superbiz"


def default_cache_dir() -> Path:
    """The user's cache directory (XDG on Linux), where rebuildable files live (the log stores
    of packs' big log files)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "superbiz"


class Settings(BaseSettings):
    """Process settings. ``SUPERBIZ_DB`` takes a file path or any SQLAlchemy URL.

    ``SUPERBIZ_PACKS_DIR`` names more pack folders (several separated by ``os.pathsep``, ``:``
    on Linux), searched before the built-in packs: a pack there overrides a built-in pack of
    the same name. ``SUPERBIZ_CACHE_DIR`` is where rebuildable files are kept (default: the
    user's cache directory).
    """

    model_config = SettingsConfigDict(env_prefix="SUPERBIZ_", extra="ignore")

    db: str = ""
    packs_dir: str = ""
    default_pack: str = "demo"
    engine: str = "rules"
    cache_dir: str = ""
    # Live sources (docs/sources.md): a sources file (several joined by os.pathsep: the
    # console lists each), or servers whose alerts replace the pack's metrics.
    sources: str = ""
    prometheus_url: str = ""
    alertmanager_url: str = ""
    prometheus_token: str = ""  # sent as "Authorization: Bearer ..."; never stored or shown
    alertmanager_token: str = ""
    source_timeout: str = ""  # seconds per HTTP call (default 5); read by core.sources.config
    service_labels: str = ""  # comma-separated labels naming an alert's service, in order

    def sources_files(self) -> list[Path]:
        """The sources files ``SUPERBIZ_SOURCES`` names, in order."""
        parts = (part.strip() for part in self.sources.split(os.pathsep))
        return [Path(part).expanduser() for part in parts if part]

    def pack_dirs(self) -> list[Path]:
        """Every folder searched for a pack name, first match wins: ``SUPERBIZ_PACKS_DIR``'s
        folders in order, then the built-in packs."""
        parts = (part.strip() for part in self.packs_dir.split(os.pathsep))
        extra = [Path(part).expanduser() for part in parts if part]
        return [*extra, DEFAULT_PACKS_DIR]

    def cache_path(self) -> Path:
        """The folder of rebuildable files (created by whoever writes there)."""
        return Path(self.cache_dir).expanduser() if self.cache_dir else default_cache_dir()

    def database_url(self) -> str:
        """The SQLAlchemy URL of the audit store (``StoreError`` when ``SUPERBIZ_DB`` is
        malformed: see ``core.store.location``)."""
        from core.store.location import store_url

        return store_url(self.db or str(default_data_dir() / "superbiz.db"))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process (cached; tests clear the cache after changing env)."""
    return Settings()
