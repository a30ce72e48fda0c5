"""The audit chain's state as the Sessions page shows it: one badge and one line.

The page checks only the newest ``QUICK_CHECK`` records on each render (a whole walk reads
every stored row); ``superbiz audit verify`` walks all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.store import Store
from core.store.audit import ChainReport, verify_chain
from core.views.badges import Badge

QUICK_CHECK = 20  # newest records the page re-hashes on each render


@dataclass(frozen=True)
class ChainState:
    """What the page shows: a badge and a line saying what was checked or what is wrong."""

    badge: Badge
    line: str


def chain_state(report: ChainReport) -> ChainState:
    """The badge and line of a walk of the chain (whole or the newest records)."""
    if not report.intact:
        return ChainState(Badge("audit chain broken", "red", "gpp_bad"),
                          f"{report.problems[0].message}. Run 'superbiz audit verify' for the "
                          "whole report.")
    if report.records == 0:
        return ChainState(Badge("audit chain empty", "gray", "link"),
                          "No closed session is sealed yet: each one is sealed as it closes.")
    checked = ("every record checked" if report.checked == report.records
               else f"the newest {report.checked} checked; 'superbiz audit verify' checks all")
    return ChainState(Badge(f"audit chain intact: {report.records} sealed", "green", "verified"),
                      f"Head #{report.head_seq} {report.head[:16]}… ({checked}).")


def store_chain_state(store: Store) -> ChainState:
    """``chain_state`` of the newest records of ``store``'s chain."""
    return chain_state(verify_chain(store, last=QUICK_CHECK))
