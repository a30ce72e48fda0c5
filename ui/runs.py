"""Investigations running in the background, so a run survives reruns of the page.

A Streamlit rerun (any click, a page switch, a reload) stops the script that started it; a
pipeline driven from the script would stop with it and leave an ``incomplete`` session. So the
pipeline runs in a worker thread that only talks to the store, and the page reads the session
back from the store by id, polling while the run is alive.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

import streamlit as st

from core.agents.registry import build_engines
from core.pipeline import new_session_id, run_investigation
from core.sources.base import World
from core.store import Store

logger = logging.getLogger(__name__)


@dataclass
class RunHandle:
    """A background run: its session id, its thread and any error that escaped the pipeline."""

    session_id: str
    thread: threading.Thread | None = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def alive(self) -> bool:
        """Whether the run is still going."""
        return not self.done.is_set()


@st.cache_resource(show_spinner=False)
def _registry() -> dict[str, RunHandle]:
    # Process-wide: every browser session of this server sees the same runs.
    return {}


def start_run(store: Store, *, question: str, pack: str | World, roles: dict[str, str],
              executor_fault: str | None) -> RunHandle:
    """Validate the inputs here (errors raise at once), then drive the pipeline in a thread."""
    engines = build_engines(roles)
    session_id = new_session_id()
    events = run_investigation(question, pack=pack, engines=engines,
                               executor_fault=executor_fault, store=store,
                               session_id=session_id)
    handle = RunHandle(session_id=session_id)

    def drive() -> None:
        try:
            for _event in events:  # the pipeline writes each event to the store itself
                pass
        except Exception as exc:  # the pipeline reports stage failures as events; this is a bug
            logger.exception("investigation %s: the run thread crashed", session_id)
            handle.error = f"{type(exc).__name__}: {exc}"
        finally:
            handle.done.set()

    handle.thread = threading.Thread(target=drive, name=f"investigation-{session_id}",
                                     daemon=True)
    _registry()[session_id] = handle
    handle.thread.start()
    return handle


def get_run(session_id: str | None) -> RunHandle | None:
    """The background run of ``session_id`` started by this server, if any."""
    if not session_id:
        return None
    return _registry().get(session_id)
