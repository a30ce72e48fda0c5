"""Fixtures shared by every test: a real SQLite store in a temp dir, the demo pack, and a real
PostgreSQL server for the store's tests (``any_store`` runs a test on both)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.settings import get_settings
from core.store import Store, open_store

if TYPE_CHECKING:
    from core.packs import Pack
    from core.sources.base import World
    from core.store.testing import TempPostgres

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own SQLite file through SUPERBIZ_DB and its own cache folder
    (SUPERBIZ_CACHE_DIR), user packs folder (SUPERBIZ_USER_PACKS_DIR) and annotation suite
    file (SUPERBIZ_ANNOTATION_SUITE); nothing touches ~/.local or ~/.cache."""
    db_path = tmp_path / "audit.db"
    monkeypatch.setenv("SUPERBIZ_DB", str(db_path))
    monkeypatch.setenv("SUPERBIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SUPERBIZ_USER_PACKS_DIR", str(tmp_path / "user-packs"))
    monkeypatch.setenv("SUPERBIZ_ANNOTATION_SUITE", str(tmp_path / "annotations.yaml"))
    get_settings.cache_clear()
    yield db_path
    get_settings.cache_clear()


@pytest.fixture
def tmp_store(_isolated_store: Path) -> Store:
    """An open store on the test's own SQLite file."""
    return open_store(str(_isolated_store))


@pytest.fixture
def demo_pack() -> Pack:
    """The default demo pack."""
    from core.packs import load_pack

    return load_pack("demo")


@pytest.fixture
def demo_world() -> World:
    """The demo pack's world (what planners, executors and the recorder receive)."""
    from core.sources.pack import load_world

    return load_world("demo")


@pytest.fixture
def corpora_dir() -> Path:
    """``../shared/corpora``; tests that need it are skipped where it is absent."""
    path = SHARED_DIR / "corpora"
    if not path.is_dir():
        pytest.skip("shared corpora not available")
    return path


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[TempPostgres]:
    """A throwaway PostgreSQL cluster for the whole run (``core.store.testing``), stopped by PID
    at the end. Skipped where the server binaries or the driver are missing; with
    ``SUPERBIZ_REQUIRE_POSTGRES`` set (CI), that is a failure instead."""
    from core.store.testing import PostgresUnavailable, TempPostgres

    try:
        server = TempPostgres()
    except PostgresUnavailable as exc:
        if os.environ.get("SUPERBIZ_REQUIRE_POSTGRES"):
            pytest.fail(f"PostgreSQL is required (SUPERBIZ_REQUIRE_POSTGRES) but: {exc}")
        pytest.skip(f"no PostgreSQL here: {exc}")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: TempPostgres) -> str:
    """The URL of a new, empty database on the test PostgreSQL."""
    return str(postgres_server.new_database())


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store_url(request: pytest.FixtureRequest, _isolated_store: Path,
                  monkeypatch: pytest.MonkeyPatch) -> str:
    """The URL of an empty audit store, once on SQLite and once on PostgreSQL; SUPERBIZ_DB
    names it too, so the CLI and ``open_store()`` use the same one."""
    url = (f"sqlite:///{_isolated_store}" if request.param == "sqlite"
           else request.getfixturevalue("postgres_url"))
    monkeypatch.setenv("SUPERBIZ_DB", url)
    get_settings.cache_clear()
    return url


@pytest.fixture
def any_store(any_store_url: str) -> Iterator[Store]:
    """An open audit store, once on SQLite and once on PostgreSQL."""
    store = open_store(any_store_url)
    yield store
    store.engine.dispose()
