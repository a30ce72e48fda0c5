"""The ``llm`` composer: a model words the answer; code makes sure it says nothing blocked.

The model is shown only the claims the verifier entailed and the next steps it passed (never
the blocked ones). Its answer is then checked by code: it must not contain a blocked claim's
text, a number that only a blocked claim has, a next step the verifier did not pass (a repair),
an excluded subject, or raw JSON, and it must not lead with the opposite of the yes/no answer.
If it does, the rules composer's answer is used instead and the reason is noted on the output;
so it is when the model's answer is not a ``ComposerOutput`` even after the re-ask (the verdict
is already reached: only the wording changes). A failed model call (timeout, HTTP error, ...)
still fails the step. Status, ``answer_kind`` (and the 是 / 否 line a yes/no answer leads with)
and ``passed_claim_ids`` are set by code from the verdict, never taken from the model.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from core.agents.llm import wire
from core.agents.llm.role import LLMRole
from core.agents.llm.structured import output_instructions, request_structured
from core.agents.rules.composer import (
    RulesComposer,
    claims_answer_kind,
    lead_line,
    passed_steps,
    repair_line,
    verified_claims,
)
from core.contracts import AnswerKind, Claim, ComposerOutput, Plan, VerifierInput, VerifierResult
from core.language.marks import visible
from core.language.subjects import excluded_mentions
from core.language.text import normalize

SCHEMA_NAME = "composer_output"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class LLMComposer(LLMRole):
    """``compose(plan, verifier_input, verifier_result) -> ComposerOutput``."""

    role = "composer"

    def compose(self, plan: Plan, verifier_input: VerifierInput,
                verifier_result: VerifierResult) -> ComposerOutput:
        """The model's answer when it is safe, else the rules composer's, with a note why."""
        claims = verifier_input.executor_structured_output.claims
        passed = verified_claims(plan, verifier_input, verifier_result)
        blocked = [c for c in claims if c not in passed]
        status_now = answer_status(verifier_input, verifier_result, passed)
        kind = claims_answer_kind(plan, passed, blocked=status_now == "blocked")
        steps = passed_steps(plan, verifier_input, verifier_result)
        messages = [wire.system_message(self.prompt.text),
                    wire.user_message(self._task(plan, verifier_result, passed, steps, kind))]
        endpoint_notes: list[str] = []
        answer, status = request_structured(self._noting(endpoint_notes), messages,
                                            ComposerOutput, name=SCHEMA_NAME,
                                            profile=self.profile)
        endpoint_notes = [f"llm endpoint: {note}" for note in endpoint_notes]
        leak = (f"its answer was not usable ({status.status}): {status.detail}"
                if answer is None else
                leaked_content(answer.user_facing_answer, passed, blocked, plan,
                               blocked_steps=_failed_steps(verifier_input, verifier_result))
                or contradiction(answer.user_facing_answer, kind))
        if answer is None or leak:
            fallback = RulesComposer().compose(plan, verifier_input, verifier_result)
            reason = f"the llm composer's answer was replaced by the rules composer's: {leak}"
            return fallback.model_copy(update={"notes": [reason, *endpoint_notes],
                                               "degraded": reason})
        # The model may copy hidden characters or combining marks: none reaches the reader.
        text = visible(answer.user_facing_answer).strip()
        if kind is not None and not _leads_with(text, kind):
            text = f"{lead_line(kind, plan.language)}\n\n{text}"
        if (repaired := repair_line(verifier_input, verifier_result, plan.language)):
            text = f"{text}\n\n{repaired}"
        return ComposerOutput(
            status=status_now, user_facing_answer=text, language=plan.language,
            passed_claim_ids=[claim.claim_id for claim in passed], answer_kind=kind,
            notes=[f"worded by the llm composer ({self.prompt.prompt_id})", *endpoint_notes])

    def _task(self, plan: Plan, verifier_result: VerifierResult, passed: list[Claim],
              steps: list[str], kind: AnswerKind | None) -> str:
        facts = {
            "question": plan.question, "language": plan.language,
            "verdict": verifier_result.verdict,
            "answer_kind": kind,
            "passed_claims": [{"claim_id": c.claim_id, "claim_type": c.claim_type,
                               "claim_text": c.claim_text} for c in passed],
            "next_steps": steps,
        }
        return (f"{json.dumps(facts, ensure_ascii=False)}\n\n"
                f"{output_instructions(ComposerOutput, self.profile)}")


def answer_status(verifier_input: VerifierInput, verifier_result: VerifierResult,
                  passed: list[Claim]) -> Literal["valid", "no_evidence", "blocked"]:
    """``blocked`` when a citation failed or a claim did not hold; ``valid`` with passed
    findings; else ``no_evidence`` (the rules composer's classification)."""
    claims = verifier_input.executor_structured_output.claims
    if verifier_input.gatekeeper_result.status == "fail" or (
            verifier_result.verdict != "PASS" and claims):
        return "blocked"
    if any(claim.claim_type != "negative_observation" for claim in passed):
        return "valid"
    return "no_evidence"


def _failed_steps(verifier_input: VerifierInput, verifier_result: VerifierResult) -> list[str]:
    """Texts of the next steps the verifier did not pass (or did not judge)."""
    output = verifier_input.executor_structured_output
    passed = {(r.kind, r.step_id) for r in verifier_result.step_results if r.passed}
    return ([i.description for i in output.missing_info if ("missing_info", i.info_id) not in passed]
            + [a.action_text for a in output.recommended_actions if ("action", a.action_id) not in passed])


# What an answer leads with: yes, no (in both languages).
_LEADS = {
    "yes": re.compile(r"^\s*(?:是|存在|有|yes\b)", re.IGNORECASE),
    "no": re.compile(r"^\s*(?:否|不是|不存在|没有|未|无|no\b|not\b|none\b|there (?:is|are) no\b)",
                     re.IGNORECASE),
    "partly": re.compile(r"^\s*(?:部分|partly\b|partially\b)", re.IGNORECASE),
    "unknown": re.compile(r"^\s*(?:无法确定|不能确定|cannot tell\b|unknown\b)", re.IGNORECASE),
}


def _leads_with(text: str, kind: AnswerKind) -> bool:
    if kind == "yes" and _LEADS["no"].match(text):
        return False  # "是否" / "没有" start with 是 / 有 too; a negative lead is not a yes
    return _LEADS[kind].match(text) is not None


def contradiction(answer: str, kind: AnswerKind | None) -> str:
    """Why a yes/no answer contradicts what was verified ('' when it does not)."""
    if kind == "yes" and _LEADS["no"].match(answer):
        return "it answers no where the evidence verified a yes"
    if kind == "no" and _LEADS["yes"].match(answer) and not _LEADS["no"].match(answer):
        return "it answers yes where only a negative was verified"
    if kind == "unknown" and (_LEADS["yes"].match(answer) or _LEADS["no"].match(answer)):
        return "it answers yes or no where nothing could be verified"
    return ""


def leaked_content(answer: str, passed: list[Claim], blocked: list[Claim], plan: Plan, *,
                   blocked_steps: list[str] | None = None) -> str:
    """Why ``answer`` may not be shown ('' when it may)."""
    text = answer.strip()
    if not text:
        return "it is empty"
    if text[0] in "{[":
        return "it is raw JSON"
    squashed = _squash(text)
    for claim in blocked:
        if _squash(claim.claim_text) and _squash(claim.claim_text) in squashed:
            return f"it states blocked claim {claim.claim_id}"
    for step in blocked_steps or []:
        if _squash(step) and _squash(step) in squashed:
            return "it states a next step the verifier did not pass"
    allowed_numbers = {n for claim in passed for n in _NUMBER.findall(claim.claim_text)}
    blocked_numbers = {n for claim in blocked for n in _NUMBER.findall(claim.claim_text)}
    leaked_numbers = sorted((blocked_numbers - allowed_numbers) & set(_NUMBER.findall(text)))
    if leaked_numbers:
        return f"it states number(s) only a blocked claim has: {', '.join(leaked_numbers)}"
    excluded = excluded_mentions(text, plan.exclusions)
    if excluded:
        return f"it mentions excluded subject(s): {', '.join(excluded)}"
    return ""


def _squash(text: str) -> str:
    """Normalised text without whitespace or punctuation, for containment checks."""
    return re.sub(r"[\W_]+", "", normalize(text))
