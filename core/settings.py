"""Settings from the environment (prefix ``SUPERBIZ_``), with the defaults a new user needs.

A plain pydantic model filled from ``os.environ`` rather than ``pydantic-settings``: every
command reads these settings, and ``pydantic-settings`` imports asyncio, dotenv and its cloud
secret providers (30 ms of a 0.3 s start) for flat string variables read in a few lines. The
llm engine's settings (``core.agents.llm.settings``), read only when a model is called, keep it.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core import userdirs
from core.errors import SettingsError, StoreError
from core.resources import builtin_packs_dir

# The packs that ship with superbiz (``demo``), inside the installed package.
DEFAULT_PACKS_DIR = builtin_packs_dir()
MAX_LEASE_TIMEOUT_S = 30 * 24 * 3600.0
ENV_PREFIX = "SUPERBIZ_"


class Settings(BaseModel):
    """Process settings. ``SUPERBIZ_DB`` takes a file path or any SQLAlchemy URL.

    ``SUPERBIZ_PACKS_DIR`` names more pack folders (several separated by ``os.pathsep``, ``:``
    on Linux), searched before the built-in packs: a pack there overrides a built-in pack of
    the same name. ``SUPERBIZ_USER_PACKS_DIR`` is the folder ``superbiz logs add`` makes packs
    in (default: ``packs`` in the user's data directory), searched after the built-in packs,
    whose names it never takes. ``SUPERBIZ_CACHE_DIR`` is where rebuildable files are kept (default: the
    user's cache directory).
    """

    model_config = ConfigDict(extra="ignore")

    db: str = ""
    packs_dir: str = ""
    user_packs_dir: str = ""
    default_pack: str = "demo"
    engine: str = "rules"
    cache_dir: str = ""
    # Live sources (docs/sources.md): a sources file (several joined by os.pathsep: the
    # console lists each), or servers whose alerts replace the pack's metrics.
    sources: str = ""
    prometheus_url: str = ""
    alertmanager_url: str = ""
    clickhouse_url: str = ""  # an otel_logs table replacing the pack's logs (docs/clickhouse.md)
    prometheus_token: str = ""  # sent as "Authorization: Bearer ..."; never stored or shown
    alertmanager_token: str = ""
    source_timeout: str = ""  # seconds per HTTP call (default 5); read by core.sources.config
    service_labels: str = ""  # comma-separated labels naming an alert's service, in order
    # An OTLP/HTTP collector (Arize Phoenix: http://127.0.0.1:6006) each session is exported
    # to as it closes, and its project (core.otlp; docs/otlp.md). Empty: no export.
    otlp_endpoint: str = ""
    otlp_project: str = ""
    # Seconds without a heartbeat after which another host's run counts as dead
    # (core.store.leases); at most 30 days, so the heartbeat's wait stays a valid timeout.
    lease_timeout: float = Field(default=300.0, gt=0, le=MAX_LEASE_TIMEOUT_S, allow_inf_nan=False)

    @field_validator("lease_timeout", mode="before")
    @classmethod
    def _blank_lease_timeout_is_the_default(cls, value: object) -> object:
        # SUPERBIZ_LEASE_TIMEOUT= (set but empty) means unset, as for the other variables.
        return 300.0 if isinstance(value, str) and not value.strip() else value

    @field_validator("packs_dir")
    @classmethod
    def _packs_dirs_are_folders(cls, value: str) -> str:
        # A path that exists and is not a folder (a file, /dev/zero, a symlink loop) is a
        # mistake to say now, not a pack folder to skip silently. A missing one is looked in
        # and named when a pack is not found.
        for part in (part.strip() for part in value.split(os.pathsep)):
            _check_folder(part)
        return value

    @field_validator("user_packs_dir")
    @classmethod
    def _user_packs_dir_is_a_folder(cls, value: str) -> str:
        _check_folder(value.strip())  # one folder: a ':' in it is part of its name
        return value

    def sources_files(self) -> list[Path]:
        """The sources files ``SUPERBIZ_SOURCES`` names, in order."""
        parts = (part.strip() for part in self.sources.split(os.pathsep))
        return [Path(part).expanduser() for part in parts if part]

    def pack_dirs(self) -> list[Path]:
        """Every folder searched for a pack name, first match wins: ``SUPERBIZ_PACKS_DIR``'s
        folders in order, then the built-in packs, then the packs ``logs add`` made (read on
        every call, so a pack added while the console runs is there on its next page)."""
        parts = (part.strip() for part in self.packs_dir.split(os.pathsep))
        extra = [Path(part).expanduser() for part in parts if part]
        return [*extra, DEFAULT_PACKS_DIR, self.user_packs_path()]

    def user_packs_path(self) -> Path:
        """The folder ``superbiz logs add`` makes packs in (created by the first one)."""
        value = self.user_packs_dir.strip()
        return Path(value).expanduser() if value else userdirs.default_packs_dir()

    def cache_path(self) -> Path:
        """The folder of rebuildable files (created by whoever writes there)."""
        return userdirs.cache_dir(self.cache_dir)

    def database_url(self) -> str:
        """The SQLAlchemy URL of the audit store (``StoreError`` when ``SUPERBIZ_DB`` is
        malformed: see ``core.store.location``)."""
        from core.store.location import store_url

        if not self.db:
            return store_url(str(userdirs.default_data_dir() / "superbiz.db"))
        try:
            return store_url(self.db)
        except StoreError as exc:
            raise StoreError(f"SUPERBIZ_DB: {exc}") from None

    @classmethod
    def from_environment(cls) -> Settings:
        """The settings the ``SUPERBIZ_*`` variables give (names in any case, as shells and
        ``.env`` loaders differ); ``ValidationError`` for a value that does not validate."""
        names = {name.upper(): name for name in cls.model_fields}
        values: dict[str, str] = {}
        for variable, value in os.environ.items():
            upper = variable.upper()
            if upper.startswith(ENV_PREFIX) and upper[len(ENV_PREFIX):] in names:
                values[names[upper[len(ENV_PREFIX):]]] = value
        return cls.model_validate(values)


def _check_folder(path: str) -> None:
    """Refuse a path that exists and is not a folder; a missing one is made or searched later."""
    if not path:
        return
    try:
        mode = Path(path).expanduser().stat().st_mode  # Path.exists hides a loop
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ValueError(f"{path!r} cannot be used: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(mode):
        raise ValueError(f"{path!r} is not a folder")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process (cached; tests clear the cache after changing env);
    ``SettingsError`` naming the variable when one does not validate."""
    try:
        return Settings.from_environment()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ENV_PREFIX + ".".join(str(part) for part in first["loc"]).upper()
        value = str(first.get("input", ""))[:80]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise SettingsError(f"{name}={value!r}: {message}") from None
