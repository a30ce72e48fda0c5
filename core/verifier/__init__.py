"""The verifier's always-on policy, shared by the rules and llm engines.

Public surface::

    judge(verifier_input, plan) -> (claim results, step results)   every claim and next step
    bound(policy_results, model_results) -> claim results          a model's judgement, bounded
    RULES: dict[str, VerifierRule]      every rule it can report, with the verdict it allows
    VerifierRuleName                    the closed type of those names
    not_judged(claim_id)                the result of a claim no verifier judged

Claims are judged fact by fact, each value in its role (``roles``, ``support``); next steps
(recommended actions, ``missing_info``) are judged as evidence gathering (``steps``). Rules
are documented in ``docs/verifier-rules.md``.
"""

from core.verifier.policy import allowed_services, bound, judge
from core.verifier.rules import RULES, VerifierRule, VerifierRuleName, grade, not_judged

__all__ = ["RULES", "VerifierRule", "VerifierRuleName", "allowed_services", "bound", "grade",
           "judge", "not_judged"]
