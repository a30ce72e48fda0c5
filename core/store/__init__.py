"""The audit store: SQLModel tables (``models``), the engine (``db``) and keyword-only repository
functions (``repository``). Everything an investigation does is written here as it happens."""

from core.store.db import Store, open_store

__all__ = ["Store", "open_store"]
