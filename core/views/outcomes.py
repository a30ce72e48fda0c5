"""What a session's result means to a reader, and the one colour it gets everywhere.

The answer box, the badges, the Sessions list and the Evals matrix all ask :func:`meaning_of`,
so a verified finding is green, a verified absence neutral, an unknown subject, a question that
was not understood or a low-confidence answer amber, and a rejected one red, on every page.
The verdict alone cannot say this: a PASS may be a finding or a verified absence, and a
LOW_CONFID may be an unknown service or a citation that did not check out (``core.outcome``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.views.badges import DARK_TONE_COLOURS, TONE_COLOURS, WORD_TONES, Badge, Tone

MeaningKey = Literal["finding", "absence", "unknown_subject", "not_understood", "low_confid",
                     "reject", "running", "error", "incomplete", "no_verdict"]


@dataclass(frozen=True)
class Meaning:
    """A session's result as a person reads it: a short label, its tone and icon, a sentence."""

    key: MeaningKey
    label: str
    tone: Tone
    icon: str
    sentence: str

    def badge(self, *, repair_turns: int = 0) -> Badge:
        """The headline badge (``verified finding``, ``rejected`` ...); after a repair turn
        (``SessionDocument.attempts``) it says whether the repair made it pass."""
        label = self.label
        if repair_turns:
            label += " · repaired" if self.key in ("finding", "absence") else " · repair tried"
        return Badge(label, self.tone, self.icon)


MEANINGS: dict[MeaningKey, Meaning] = {meaning.key: meaning for meaning in (
    Meaning("finding", "verified finding", "green", "check_circle",
            "Found: every sentence of this answer rests on a citation the gatekeeper checked."),
    Meaning("absence", "verified absence", "gray", "search_check",
            "Not found: a search that covered the question returned nothing, and that search "
            "is cited."),
    Meaning("unknown_subject", "unknown subject", "amber", "help",
            "The question names a service or alert the data does not have: nothing was "
            "searched."),
    Meaning("not_understood", "not understood", "amber", "psychology_alt",
            "Nothing in the question could be searched, so nothing was."),
    Meaning("low_confid", "low confidence", "amber", "warning",
            "Some evidence could not be verified: read the answer as unconfirmed."),
    Meaning("reject", "rejected", "red", "block",
            "A citation was fabricated or does not say what was claimed: nothing here is "
            "verified."),
    Meaning("running", "running", "blue", "progress_activity", "The investigation is running."),
    Meaning("error", "run failed", "red", "error",
            "The run failed; what was stored before the failure is shown."),
    Meaning("incomplete", "incomplete", "amber", "hourglass_disabled",
            "The run stopped before it finished (killed or interrupted): no verdict is final."),
    Meaning("no_verdict", "no verdict", "gray", "help", "No verdict was reached."),
)}
# A table cell holding a meaning label (alone or after ``VERDICT · ``) gets the meaning's tone.
TONE_BY_LABEL: dict[str, Tone] = {meaning.label: meaning.tone for meaning in MEANINGS.values()}


def meaning_of(*, verdict: str | None, outcome: str | None, status: str | None) -> Meaning:
    """The meaning of a session from its verdict, outcome (``core.outcome``) and status.

    The status comes first (a running, failed or killed session has no final verdict), then
    the outcome (an unknown subject or a question not understood is never a finding, whatever
    the verdict), then the verdict.
    """
    if status == "running":
        return MEANINGS["running"]
    if status == "error":
        return MEANINGS["error"]
    if status == "incomplete":
        return MEANINGS["incomplete"]
    if outcome == "unknown_subject":
        return MEANINGS["unknown_subject"]
    if outcome == "not_understood":
        return MEANINGS["not_understood"]
    if verdict == "REJECT":
        return MEANINGS["reject"]
    if verdict == "LOW_CONFID":
        return MEANINGS["low_confid"]
    if verdict == "PASS":
        return MEANINGS["absence"] if outcome == "absent" else MEANINGS["finding"]
    return MEANINGS["no_verdict"]


def result_label(*, verdict: str | None, outcome: str | None, status: str | None) -> str:
    """``PASS · verified absence`` for tables: the verdict, then what it means."""
    meaning = meaning_of(verdict=verdict, outcome=outcome, status=status)
    if verdict and meaning.key not in ("running", "error", "incomplete"):
        return f"{verdict} · {meaning.label}"
    return meaning.label


def label_tone(text: str) -> Tone | None:
    """The tone of a cell written by :func:`result_label` (None for other text)."""
    label = text.rsplit(" · ", 1)[-1].strip()
    return TONE_BY_LABEL.get(label)


def cell_tone(value: object) -> Tone | None:
    """The tone of a table cell: a result label (``PASS · verified absence``), else its first
    word when that is a verdict, severity or binding/case outcome (``reject``, ``passed``)."""
    text = str(value)
    tone = label_tone(text)
    if tone is not None:
        return tone
    words = text.split()
    return WORD_TONES.get(words[0]) if words else None


def cell_style(value: object, *, dark: bool = False) -> str:
    """CSS for a table cell (empty when the cell says nothing :func:`cell_tone` knows), in the
    colours of the light or the dark theme."""
    tone = cell_tone(value)
    if tone is None:
        return ""
    colours = DARK_TONE_COLOURS if dark else TONE_COLOURS
    return f"color: {colours[tone]}; font-weight: 600"


@dataclass(frozen=True)
class AnswerLead:
    """The word a yes/no answer leads with (``Yes`` / ``No`` ...) and its tone."""

    word: str
    tone: Tone
    note: str


_LEADS: dict[str, tuple[str, str, str]] = {
    # answer_kind -> (English, Chinese, what it rests on)
    "yes": ("Yes", "是", "verified evidence of it"),
    "no": ("No", "否", "a verified absence: the search that would have found it found nothing"),
    "partly": ("Partly", "部分", "some of what was asked was found, some verified absent"),
    "unknown": ("Unknown", "无法确认", "nothing could be verified either way"),
}


def answer_lead(answer_kind: str | None, *, language: str, meaning: Meaning) -> AnswerLead | None:
    """The lead of a yes/no question's answer (None for other questions), toned like the
    session: a "No" resting on a verified absence is neutral, not green."""
    lead = _LEADS.get(answer_kind or "")
    if lead is None:
        return None
    english, chinese, note = lead
    word = f"{chinese} · {english}" if language == "zh" else english
    tone: Tone = "amber" if answer_kind == "unknown" and meaning.tone != "red" else meaning.tone
    return AnswerLead(word, tone, note)
