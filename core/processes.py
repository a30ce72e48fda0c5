"""Processes of this machine, as the store's leases and the log cache see them."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (someone else's counts; a zombie still answers)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True
