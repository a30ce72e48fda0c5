"""Investigations running in the background, so a run survives reruns of the page.

A Streamlit rerun (any click, a page switch, a reload) stops the script that started it; a
pipeline driven from the script would stop with it and leave an ``incomplete`` session. So the
pipeline runs in a worker thread. The pipeline stores each stage as it ends; the thread also
keeps every event in memory as it arrives, so the Investigate page of this console shows the
run's own stream (each tool call as it returns), at the demo pace it was started with
(``core.views.pace``). Sessions started elsewhere are read back from the store.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import streamlit as st

from core.events import PipelineEvent
from core.sources.base import World
from core.views.pace import released_count

if TYPE_CHECKING:
    from core.store import Store  # SQLAlchemy: loaded by whoever opens the store

logger = logging.getLogger(__name__)
# Finished runs whose events stay in memory (older ones are read back from the store).
KEEP_FINISHED = 16


@dataclass
class RunHandle:
    """A background run: its session id, its thread, the events it has yielded (with when
    each arrived), the demo pace, and any error that escaped the pipeline."""

    session_id: str
    thread: threading.Thread | None = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    pace: float = 0.0
    events: list[PipelineEvent] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)  # time.monotonic() of each event
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def alive(self) -> bool:
        """Whether the pipeline is still going."""
        return not self.done.is_set()

    def add(self, event: PipelineEvent) -> None:
        """Keep an event the pipeline yielded (called by the run thread)."""
        with self._lock:
            self.events.append(event)
            self.arrivals.append(time.monotonic())

    def visible(self, now: float | None = None) -> list[PipelineEvent]:
        """The events on screen at ``now`` (all of them at real-time pace)."""
        with self._lock:
            count = released_count(self.arrivals, self.pace,
                                   time.monotonic() if now is None else now)
            return self.events[:count]

    def showing(self, now: float | None = None) -> bool:
        """Whether the page is still showing the run: the pipeline is going, or some of its
        events are still held back by the demo pace."""
        if self.alive:
            return True
        with self._lock:
            total = len(self.events)
        return len(self.visible(now)) < total

    def skip_pace(self) -> None:
        """Show everything that has arrived, and the rest as it comes."""
        self.pace = 0.0


@st.cache_resource(show_spinner=False)
def _registry() -> dict[str, RunHandle]:
    # Process-wide: every browser session of this server sees the same runs.
    return {}


def _forget_old_runs(registry: dict[str, RunHandle]) -> None:
    finished = [key for key, handle in registry.items() if not handle.alive]
    for key in finished[:-KEEP_FINISHED] if len(finished) > KEEP_FINISHED else []:
        registry.pop(key, None)


def start_run(store: Store, *, question: str, pack: str | World, roles: dict[str, str],
              executor_fault: str | None, pace: float = 0.0) -> RunHandle:
    """Validate the inputs here (errors raise at once), then drive the pipeline in a thread."""
    # The engines and the pipeline (the verifier's vocabularies: ~1 s) load with the first run,
    # not with the page that offers to start one.
    from core.agents.registry import build_engines
    from core.pipeline import new_session_id, run_investigation

    engines = build_engines(roles)
    session_id = new_session_id()
    events = run_investigation(question, pack=pack, engines=engines,
                               executor_fault=executor_fault, store=store,
                               session_id=session_id)
    handle = RunHandle(session_id=session_id, pace=max(pace, 0.0))

    def drive() -> None:
        try:
            for event in events:  # the pipeline stores each stage itself
                handle.add(event)
        except Exception as exc:  # the pipeline reports stage failures as events; this is a bug
            logger.exception("investigation %s: the run thread crashed", session_id)
            handle.error = f"{type(exc).__name__}: {exc}"
        finally:
            handle.done.set()

    handle.thread = threading.Thread(target=drive, name=f"investigation-{session_id}",
                                     daemon=True)
    registry = _registry()
    _forget_old_runs(registry)
    registry[session_id] = handle
    handle.thread.start()
    return handle


def get_run(session_id: str | None) -> RunHandle | None:
    """The background run of ``session_id`` started by this server, if any."""
    if not session_id:
        return None
    return _registry().get(session_id)
