"""Every rule the gatekeeper can report, with its grade (docs/design.md §4).

Forged or misattributed citations are ``reject``; missing or incomplete ones ``low_confid``;
the compatibility back-fill and a redundant narrower negative citation are ``warning``;
``evidence.ok`` (``none``) names a passing binding. ``docs/gatekeeper-rules.md`` documents
each one (a test keeps the two in step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RuleSeverity = Literal["reject", "low_confid", "warning", "none"]


@dataclass(frozen=True)
class Rule:
    """A named check and the grade it gives when it fires."""

    name: str
    severity: RuleSeverity
    description: str


OK = "evidence.ok"
INVOCATION_REF = "evidence.invocation_ref"
INVOCATION_SESSION = "evidence.invocation_session"
TOOL_MISMATCH = "evidence.tool_mismatch"
REFS_TAMPERED = "evidence.refs_tampered"
RAW_PATH = "evidence.raw_path"
EXCERPT_MISMATCH = "evidence.excerpt_mismatch"
NEGATIVE_MISMATCH = "evidence.negative_mismatch"
NEGATIVE_REDUNDANT = "evidence.negative_redundant"
NO_BINDINGS = "evidence.no_bindings"
RAW_PATH_MISSING = "evidence.raw_path_missing"
REFS_MISSING = "evidence.refs_missing"
EXCERPT_TOO_SHORT = "evidence.excerpt_too_short"
OUTPUT_INCOMPLETE = "evidence.output_incomplete"
INVOCATION_MISSING = "evidence.invocation_missing"
INVOCATION_AUTO_BACKFILL = "evidence.invocation_auto_backfill"

_ALL: tuple[Rule, ...] = (
    Rule(OK, "none", "The citation is real: the invocation is this session's, the tool and "
         "raw_path agree with it and the excerpt is supported by the ref text."),
    Rule(INVOCATION_REF, "reject", "source_invocation_id names no recorded invocation."),
    Rule(INVOCATION_SESSION, "reject", "source_invocation_id names an invocation of another session "
         "(with a store, the stored session wins over the document's session_id)."),
    Rule(TOOL_MISMATCH, "reject", "The binding's tool_name differs from the invocation's, or the "
         "invocation is not of an evidence tool."),
    Rule(REFS_TAMPERED, "reject", "An invocation's retrieval_details are not what the recorder's "
         "recipe makes of its raw output (refs or output edited), cited or not."),
    Rule(RAW_PATH, "reject", "raw_path is malformed, has the wrong prefix for the tool, or is not "
         "among the invocation's evidence_refs."),
    Rule(EXCERPT_MISMATCH, "reject", "The excerpt is not supported by the ref text: a changed "
         "number, unit, identifier, state or negation, look-alike letters, text from elsewhere."),
    Rule(NEGATIVE_MISMATCH, "reject", "A negative observation cites an invocation that returned "
         "evidence or failed, or whose arguments do not cover the claim's service, topic, level "
         "or state."),
    Rule(NEGATIVE_REDUNDANT, "warning", "A negative observation also cites a no-hit query "
         "narrower than the claim (a level/state filter) whose broader form covers it, next to "
         "bindings that passed: not counted as support, and not a failure."),
    Rule(NO_BINDINGS, "low_confid", "A claim has no evidence bindings."),
    Rule(RAW_PATH_MISSING, "low_confid", "A binding has no raw_path (its excerpt was still checked "
         "against every ref of the invocation)."),
    Rule(REFS_MISSING, "low_confid", "The invocation has no retrieval_details / evidence_refs "
         "(legacy record), so the citation cannot be checked."),
    Rule(EXCERPT_TOO_SHORT, "low_confid", "The excerpt is in the ref text but too short or too "
         "generic (stop-words, levels, a bare service name) to be a check."),
    Rule(OUTPUT_INCOMPLETE, "low_confid", "The executor output is missing or did not parse "
         "(parse status invalid or missing)."),
    Rule(INVOCATION_MISSING, "low_confid", "No source_invocation_id and no unique candidate to "
         "back-fill it, or it was back-filled (a back-filled citation never passes)."),
    Rule(INVOCATION_AUTO_BACKFILL, "warning", "source_invocation_id was auto-filled from the "
         "unique invocation of that tool in the session; raw_path is never back-filled."),
)

RULES: dict[str, Rule] = {rule.name: rule for rule in _ALL}
