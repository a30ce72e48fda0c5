"""Leases: which process runs a session or an eval run, so a dead one is never left ``running``.

A running session (or eval run) records its owner: host name, PID and a token that names that
exact process — the boot id and the process start time from ``/proc`` — plus ``heartbeat_at``,
refreshed by every write and, for runs longer than a heartbeat interval, by a daemon thread.
When the store is opened (and when sessions are listed or read), ``running`` rows whose owner
is gone are marked ``incomplete``:

- same host: the owner is dead when its PID is gone or now belongs to another process (the
  token differs, e.g. after a reboot or PID reuse) — never a clock guess, so a live run of any
  length is left alone;
- another host: only when its heartbeat is older than the lease timeout
  (``SUPERBIZ_LEASE_TIMEOUT``, seconds, default 300);
- a row without any lease (written by an older version): like another host, by its
  ``heartbeat_at`` or, lacking it, ``created_at``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.processes import pid_alive

if TYPE_CHECKING:
    from core.store.db import Store

DEFAULT_LEASE_TIMEOUT_S = 300.0
INCOMPLETE_REASON = "the process running it ended before it finished (found by the lease check)"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Owner:
    """A process that can hold leases."""

    host: str
    pid: int
    token: str | None

    def columns(self, now: datetime) -> dict[str, Any]:
        """The lease columns of a row this process owns."""
        return {"lease_host": self.host, "lease_pid": self.pid, "lease_token": self.token,
                "heartbeat_at": now}


def _boot_id() -> str:
    with contextlib.suppress(OSError):
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    return ""


def _stat_fields(pid: int) -> list[str] | None:
    """Fields 3.. of ``/proc/<pid>/stat`` (state first), or None where there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and ")": fields start after its last ")".
    return stat[stat.rindex(")") + 2:].split()


def process_token(pid: int) -> str | None:
    """``<boot id>:<start time in clock ticks>`` of ``pid``, or None where ``/proc`` cannot say
    (another OS, or no such process)."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    return f"{_boot_id()}:{fields[19]}"


def _is_zombie(pid: int) -> bool:
    # A killed process its parent has not reaped yet still has a PID: it is dead all the same.
    fields = _stat_fields(pid)
    return fields is not None and fields[0] in ("Z", "X")


@cache
def _owner_of(pid: int) -> Owner:
    return Owner(host=socket.gethostname(), pid=pid, token=process_token(pid))


def current_owner() -> Owner:
    """This process (cached per PID, so a forked child is its own owner)."""
    return _owner_of(os.getpid())


def lease_timeout_s() -> float:
    """Seconds without a heartbeat after which another host's run counts as dead
    (``SUPERBIZ_LEASE_TIMEOUT``, validated by ``core.settings``: a bad value is refused)."""
    from core.settings import get_settings

    return max(1.0, get_settings().lease_timeout)


def owner_is_gone(*, host: str | None, pid: int | None, token: str | None,
                  heartbeat_at: datetime | None, created_at: datetime | None,
                  now: datetime, timeout_s: float) -> bool:
    """Whether the process holding a lease has certainly ended (see the module docstring)."""
    me = current_owner()
    if host == me.host and pid is not None:
        if pid == me.pid and token == me.token:
            return False
        if not pid_alive(pid) or _is_zombie(pid):
            return True
        # The PID is taken; by the same process only if its token still matches.
        return token is not None and process_token(pid) not in (None, token)
    seen = heartbeat_at or created_at
    if seen is None:
        return True
    # The store's datetimes are naive UTC (``models.utcnow``).
    seen, now = (moment if moment.tzinfo else moment.replace(tzinfo=UTC) for moment in (seen, now))
    return now - seen > timedelta(seconds=timeout_s)


class Heartbeat:
    """One daemon thread per process refreshing ``heartbeat_at`` of the rows it owns, so a long
    run on one host is not taken for dead by another. Rows are added when a run starts and
    removed when it ends; the thread idles while there are none."""

    def __init__(self, interval_s: float | None = None) -> None:
        # None: a fifth of the lease timeout, read when the thread starts (not at import,
        # where a bad SUPERBIZ_LEASE_TIMEOUT could not be reported as one line).
        self.interval_s = interval_s
        # Weak: a store nobody uses any more is not kept open for its unfinished rows.
        self._rows: dict[tuple[int, str, str], weakref.ref[Store]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def hold(self, store: Store, table: str, row_id: str) -> None:
        """Keep ``row_id`` of ``table`` (``sessions`` or ``eval_runs``) alive."""
        with self._lock:
            self._rows[(id(store), table, row_id)] = weakref.ref(store)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="superbiz-heartbeat",
                                                daemon=True)
                self._thread.start()

    def release(self, store: Store, table: str, row_id: str) -> None:
        """Stop refreshing ``row_id``."""
        with self._lock:
            self._rows.pop((id(store), table, row_id), None)

    def _run(self) -> None:
        from core.store.models import utcnow
        from core.store.recovery import refresh_heartbeats

        interval_s = self.interval_s or max(1.0, lease_timeout_s() / 5)
        while not self._wake.wait(interval_s):
            by_store: dict[int, tuple[Store, list[tuple[str, str]]]] = {}
            with self._lock:
                for key, reference in list(self._rows.items()):
                    store = reference()
                    if store is None:
                        del self._rows[key]
                        continue
                    store_id, table, row_id = key
                    by_store.setdefault(store_id, (store, []))[1].append((table, row_id))
            for store, rows in by_store.values():
                try:
                    refresh_heartbeats(store, rows=rows, now=utcnow())
                except Exception:  # a failing store: the next beat retries (INFO: once a beat)
                    logger.info("heartbeat of %d run(s) failed; retrying at the next beat",
                                len(rows), exc_info=True)


heartbeat = Heartbeat()
