"""Badges: the one place that says which colour and icon a verdict, severity or status gets.

Tones follow the gatekeeper's grading: green = pass, amber = low confidence, red = reject,
gray = not (yet) known, blue = neutral information.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.contracts import CheckedBinding, ClaimResult

Tone = Literal["green", "amber", "red", "gray", "blue"]


# Text colours for table cells, where no badge can go: one set readable on the light theme,
# one on the dark theme.
TONE_COLOURS: dict[str, str] = {"green": "#1a7f37", "amber": "#b35900", "red": "#cf222e",
                                "gray": "#6e7781", "blue": "#0969da"}
DARK_TONE_COLOURS: dict[str, str] = {"green": "#3fb950", "amber": "#d29922", "red": "#f85149",
                                     "gray": "#8b949e", "blue": "#58a6ff"}
# The first word of a table cell -> its tone (verdicts, severities, binding and case outcomes).
WORD_TONES: dict[str, Tone] = {
    "PASS": "green", "LOW_CONFID": "amber", "REJECT": "red", "pass": "green",
    "low_confid": "amber", "reject": "red", "passed": "green", "failed": "red", "error": "amber",
    "not": "gray", "accounted": "green", "unaccounted": "amber"}


@dataclass(frozen=True)
class Badge:
    """A short label with a tone and an icon (a Material Symbols name)."""

    label: str
    tone: Tone
    icon: str


def gate_label(severity: str | None) -> str:
    """Gatekeeper severity as a person reads it in a table: ``none`` means every citation passed."""
    return {"none": "pass"}.get(severity or "", severity or "")


_VERDICT: dict[str, Badge] = {
    "PASS": Badge("PASS", "green", "check_circle"),
    "LOW_CONFID": Badge("LOW_CONFID", "amber", "warning"),
    "REJECT": Badge("REJECT", "red", "block"),
}
_SEVERITY: dict[str, Badge] = {
    "none": Badge("gatekeeper: pass", "green", "verified"),
    "low_confid": Badge("gatekeeper: low_confid", "amber", "warning"),
    "reject": Badge("gatekeeper: reject", "red", "gpp_bad"),
}
_EVIDENCE_STATUS: dict[str, Badge] = {
    "supported": Badge("supported", "green", "fact_check"),
    "no_evidence": Badge("no_evidence", "gray", "search_off"),
    "error": Badge("error", "red", "error"),
}
_SESSION_STATUS: dict[str, Badge] = {
    "running": Badge("running", "blue", "progress_activity"),
    "completed": Badge("completed", "gray", "done_all"),
    "error": Badge("error", "red", "error"),
    "incomplete": Badge("incomplete", "amber", "hourglass_disabled"),
}


def verdict_badge(verdict: str | None) -> Badge:
    """The verifier's verdict; no verdict yet is gray."""
    return _VERDICT.get(verdict or "", Badge(verdict or "no verdict", "gray", "help"))


def severity_badge(severity: str | None, *, citations: int | None = None) -> Badge:
    """The gatekeeper's overall severity (``none`` means every citation checked out). With no
    citation to check (``citations`` 0) there was nothing to pass: neutral, never green."""
    if severity == "none" and citations == 0:
        return Badge("gatekeeper: no citations", "gray", "link_off")
    return _SEVERITY.get(severity or "", Badge("gatekeeper: not run", "gray", "help"))


def fault_badge(fault: str | None) -> Badge | None:
    """A session run with a fault injected into its executor says so (None without one)."""
    if not fault:
        return None
    return Badge(f"fault injected: {fault}", "amber", "bug_report")


def evidence_status_badge(status: str | None) -> Badge:
    """A tool invocation's ``evidence_status``."""
    return _EVIDENCE_STATUS.get(status or "", Badge(status or "pending", "gray", "hourglass_empty"))


def session_status_badge(status: str | None) -> Badge:
    """A session's lifecycle status."""
    return _SESSION_STATUS.get(status or "", Badge(status or "unknown", "gray", "help"))


def binding_badge(checked: CheckedBinding | None) -> Badge:
    """Green pass, amber low_confid, red reject; a binding not checked yet, or a redundant one
    graded a warning (``evidence.negative_redundant``), is gray."""
    if checked is None:
        return Badge("not checked", "gray", "hourglass_empty")
    if checked.status == "pass":
        label = "pass (backfilled)" if checked.auto_backfilled else "pass"
        return Badge(label, "green", "check")
    if checked.severity == "low_confid":
        return Badge("low_confid", "amber", "warning")
    if checked.severity == "none":  # a redundant citation graded a warning: not counted
        return Badge("not counted", "gray", "remove_done")
    return Badge("reject", "red", "close")


def claim_badge(result: ClaimResult | None) -> Badge:
    """The verifier's judgement of one claim."""
    if result is None:
        return Badge("not judged", "gray", "hourglass_empty")
    if result.entailed:
        return Badge("entailed", "green", "check")
    return Badge("not entailed", "red", "close")
