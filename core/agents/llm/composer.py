"""The ``llm`` composer: a model words the answer; code makes sure it says nothing blocked.

The model is shown only the claims the verifier entailed (never the blocked ones). Its answer
is then checked by code: it must not contain a blocked claim's text, a number that only a
blocked claim has, an excluded subject, or raw JSON. If it does, the rules composer's answer is
used instead and the reason is noted on the output; so it is when the model's answer is not a
``ComposerOutput`` even after the re-ask (the verdict is already reached: only the wording
changes). A failed model call (timeout, HTTP error, ...) still fails the step. Status and
``passed_claim_ids`` are set by code from the verdict, never taken from the model.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from core.agents.llm import wire
from core.agents.llm.role import LLMRole
from core.agents.llm.structured import output_instructions, request_structured
from core.agents.rules.composer import RulesComposer
from core.verifier.scope import excluded_mentions
from core.contracts import Claim, ComposerOutput, Plan, VerifierInput, VerifierResult
from core.lexicon import normalize

SCHEMA_NAME = "composer_output"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class LLMComposer(LLMRole):
    """``compose(plan, verifier_input, verifier_result) -> ComposerOutput``."""

    role = "composer"

    def compose(self, plan: Plan, verifier_input: VerifierInput,
                verifier_result: VerifierResult) -> ComposerOutput:
        """The model's answer when it is safe, else the rules composer's, with a note why."""
        claims = verifier_input.executor_structured_output.claims
        entailed_ids = {r.claim_id for r in verifier_result.claim_results if r.entailed}
        passed = [c for c in claims if c.claim_id in entailed_ids
                  and not excluded_mentions(c.claim_text, plan.exclusions)]
        blocked = [c for c in claims if c not in passed]
        messages = [wire.system_message(self.prompt.text),
                    wire.user_message(self._task(plan, verifier_input, verifier_result, passed))]
        answer, status = request_structured(self._complete, messages, ComposerOutput,
                                            name=SCHEMA_NAME, profile=self.profile)
        leak = (f"its answer was not usable ({status.status}): {status.detail}"
                if answer is None else
                leaked_content(answer.user_facing_answer, passed, blocked, plan))
        if answer is None or leak:
            fallback = RulesComposer().compose(plan, verifier_input, verifier_result)
            reason = f"the llm composer's answer was replaced by the rules composer's: {leak}"
            return fallback.model_copy(update={"notes": [reason], "degraded": reason})
        return ComposerOutput(
            status=answer_status(verifier_input, verifier_result, passed),
            user_facing_answer=answer.user_facing_answer.strip(), language=plan.language,
            passed_claim_ids=[claim.claim_id for claim in passed],
            notes=[f"worded by the llm composer ({self.prompt.prompt_id})"])

    def _task(self, plan: Plan, verifier_input: VerifierInput, verifier_result: VerifierResult,
              passed: list[Claim]) -> str:
        facts = {
            "question": plan.question, "language": plan.language,
            "verdict": verifier_result.verdict,
            "passed_claims": [{"claim_id": c.claim_id, "claim_type": c.claim_type,
                               "claim_text": c.claim_text} for c in passed],
            "missing_info": [info.description for info in
                             verifier_input.executor_structured_output.missing_info
                             if not excluded_mentions(info.description, plan.exclusions)],
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


def leaked_content(answer: str, passed: list[Claim], blocked: list[Claim], plan: Plan) -> str:
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
