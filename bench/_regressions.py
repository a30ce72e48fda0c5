"""What ``make bench-check`` compares: this run's figures against the ones committed in
``bench/baseline.json``. Pure functions over numbers (tested in tests/test_bench_check.py).

Two kinds of figure, both measured against a baseline of the same run, so they hold across
machines:

* a **ratio** -- a cost against a same-run baseline (the gatekeeper's CPU time over the bare
  substring floor's; an ask's over a fixed reference workload's); lower is better. It regresses
  when it exceeds the committed figure times the margin (a busy shared machine moves ratios
  by tens of percent, a real regression by more).
* a **count** -- of wrong outcomes (forged bindings passed, true ones rejected, eval cases
  failed); lower is better and exact: any count above the committed one regresses.

Not a benchmark itself (``make bench`` skips ``bench/_*.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A ratio may grow to this many times its committed figure before the check fails.
DEFAULT_MARGIN = 1.5


@dataclass(frozen=True)
class Figures:
    """One run's figures (or the committed ones): name -> value."""

    ratios: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def regressions(committed: Figures, measured: Figures, margin: float = DEFAULT_MARGIN) -> list[str]:
    """Every committed figure this run worsened (or did not measure), described; empty: none.

    A figure measured but not committed is new and cannot regress yet.
    """
    found: list[str] = []
    for name, limit in sorted(committed.ratios.items()):
        value = measured.ratios.get(name)
        if value is None:
            found.append(f"{name}: not measured (committed {limit:.3g})")
        elif value > limit * margin:
            found.append(f"{name}: {value:.3g}, worse than the committed {limit:.3g} "
                         f"by {value / limit:.2f}x (margin {margin:g}x)")
    for name, allowed in sorted(committed.counts.items()):
        count = measured.counts.get(name)
        if count is None:
            found.append(f"{name}: not measured (committed {allowed})")
        elif count > allowed:
            found.append(f"{name}: {count}, more than the committed {allowed}")
    return found


def from_json(document: dict[str, object]) -> tuple[Figures, float]:
    """The committed figures and margin of a ``bench/baseline.json`` document."""
    ratios = document.get("ratios", {})
    counts = document.get("counts", {})
    margin = document.get("margin", DEFAULT_MARGIN)
    if not isinstance(ratios, dict) or not isinstance(counts, dict) or not isinstance(margin, int | float):
        raise ValueError("bench/baseline.json: 'ratios' and 'counts' are objects, 'margin' a number")
    return (Figures({str(k): float(v) for k, v in ratios.items()}, {str(k): int(v) for k, v in counts.items()}),
            float(margin))
