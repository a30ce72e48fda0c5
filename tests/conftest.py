"""Fixtures shared by every test: a real SQLite store in a temp dir, the demo pack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.settings import get_settings
from core.store import Store, open_store

if TYPE_CHECKING:
    from core.packs import Pack

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own SQLite file through SUPERBIZ_DB; nothing touches ~/.local."""
    db_path = tmp_path / "audit.db"
    monkeypatch.setenv("SUPERBIZ_DB", str(db_path))
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
def corpora_dir() -> Path:
    """``../shared/corpora``; tests that need it are skipped where it is absent."""
    path = SHARED_DIR / "corpora"
    if not path.is_dir():
        pytest.skip("shared corpora not available")
    return path
