"""The audit store: SQLModel tables (``models``), the engine (``db``) and keyword-only repository
functions (``repository``). Everything an investigation does is written here as it happens.

``Store`` and ``open_store`` are imported from ``core.store.db`` on first use, not with the
package: the pipeline needs ``core.store.journal`` (plain Python) on every run, and SQLAlchemy
only when a run has a store (bench/startup.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.store.db import Store, open_store

__all__ = ["Store", "open_store"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from core.store import db

        return getattr(db, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
