"""Demo pace: the console shows the events of its own run one at a time, at most one per
``pace`` seconds, so an audience can watch plan, calls, refs, gate and verdict arrive in order.

Only the display is slowed: the pipeline runs at full speed (its timings stay true, the store
has the whole session at once); the page releases the events it already holds.
"""

from __future__ import annotations

from collections.abc import Sequence

# Picker label -> seconds between two events on screen (0: as they come).
PACE_CHOICES: dict[str, float] = {
    "real time": 0.0,
    "brisk · 0.4 s per event": 0.4,
    "demo · 1 s per event": 1.0,
    "slow · 2 s per event": 2.0,
}
DEFAULT_PACE = "real time"


def pace_seconds(label: str | None) -> float:
    """The picker's label as seconds (unknown or empty: real time)."""
    return PACE_CHOICES.get(label or "", 0.0)


def release_times(arrivals: Sequence[float], pace: float) -> list[float]:
    """When each event is shown: as it arrives, but at least ``pace`` seconds after the one
    before it was shown (``arrivals`` and the result on the same monotonic clock)."""
    shown: list[float] = []
    for arrival in arrivals:
        shown.append(arrival if not shown else max(arrival, shown[-1] + pace))
    return shown


def released_count(arrivals: Sequence[float], pace: float, now: float) -> int:
    """How many of the events are on screen at ``now``."""
    return sum(1 for moment in release_times(arrivals, pace) if moment <= now)
