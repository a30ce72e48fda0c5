"""The gatekeeper: deterministic citation checks between the executor and the verifier.

Public surface::

    check_citations(...)  -> GatekeeperResult   grade every binding REJECT / LOW_CONFID / pass
    StoredInvocations                           what the audit store knows (its copy wins)
    match_excerpt(excerpt, ref_text) -> ExcerptMatch   the excerpt matcher, spans in ref offsets
                                                       (``core.language.quotes``, re-exported)
    RULES: dict[str, Rule]                      every rule it can report, with its grade
    GATEKEEPER_VERSION                          rules / normaliser / thresholds, stored per result

Rules are documented in ``docs/gatekeeper-rules.md``.
"""

from core.gatekeeper.check import check_citations, raw_path_problem
from core.gatekeeper.resolve import StoredInvocations
from core.gatekeeper.rules import RULES, Rule, RuleSeverity
from core.gatekeeper.version import GATEKEEPER_VERSION
from core.language.quotes import ExcerptMatch, MatchKind, clear_caches, match_excerpt
from core.language.text import NORMALIZER_VERSION, normalize_text

__all__ = [
    "GATEKEEPER_VERSION",
    "NORMALIZER_VERSION",
    "RULES",
    "ExcerptMatch",
    "MatchKind",
    "Rule",
    "RuleSeverity",
    "StoredInvocations",
    "check_citations",
    "clear_caches",
    "match_excerpt",
    "normalize_text",
    "raw_path_problem",
]
