"""Settings from the environment (prefix ``SUPERBIZ_``), with the defaults a new user needs."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PACKS_DIR = PROJECT_ROOT / "mockdata"


def default_data_dir() -> Path:
    """The user's data directory (XDG on Linux), where the SQLite audit store lives."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "superbiz"


class Settings(BaseSettings):
    """Process settings. ``SUPERBIZ_DB`` takes a file path or any SQLAlchemy URL."""

    model_config = SettingsConfigDict(env_prefix="SUPERBIZ_", extra="ignore")

    db: str = ""
    packs_dir: Path = DEFAULT_PACKS_DIR
    default_pack: str = "demo"
    engine: str = "rules"

    def database_url(self) -> str:
        """The SQLAlchemy URL of the audit store (``StoreError`` when ``SUPERBIZ_DB`` is
        malformed: see ``core.store.location``)."""
        from core.store.location import store_url

        return store_url(self.db or str(default_data_dir() / "superbiz.db"))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process (cached; tests clear the cache after changing env)."""
    return Settings()
